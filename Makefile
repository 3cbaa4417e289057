# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# Each creates the virtual environment .venv (and installs dmlemu into it, editable) when missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DMLEMU := $(VENV)/bin/dmlemu
STAMP := $(VENV)/.installed

.PHONY: demo test bench isa-doc readme docs-images docs clean

# The timing units Cython compiles (setup.py's COMPILED_TIMING_UNITS): their .py and .pxd files.
TIMING_UNITS := events memory_system compute_unit simd workgroup_dispatcher cu_caches
# The compiled numeric kernels (setup.py's COMPILED_NUMERICS): their .pyx files.
NUMERICS_KERNELS := fma_compiled
# On the Python the suite was last run green with (3.11), the dependencies install at those versions
# (.ci/constraints.txt); on another Python, at the newest that pyproject.toml allows.
export CONSTRAINED := import sys; print("-c .ci/constraints.txt" if sys.version_info[:2] == (3, 11) else "")
$(STAMP): pyproject.toml setup.py .ci/constraints.txt $(foreach u,$(TIMING_UNITS),emulator/timing/$(u).py emulator/timing/$(u).pxd) \
		$(foreach k,$(NUMERICS_KERNELS),isa/$(k).pyx)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,sweep,perfetto,onnx]' $$($(PY) -c "$$CONSTRAINED")
	touch $(STAMP)

# THRESHOLD, CLIP and IF through the DirectML mirror; trace and plots in dmlemu-demo-out/.
demo: $(STAMP)
	$(DMLEMU) demo

# Every test except the benchmarks (marked `benchmark`, skipped by default), spread over one pytest
# worker per core (pytest-xdist); `make test TEST_WORKERS=0` runs them in this one process.
TEST_WORKERS ?= auto
test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS)

# Benchmarks: the CLIP FLOAT16 microkernel against the golden NumPy model, one operator per element-wise
# class against it, the cost of the timing model and tracing (the large runs take a minute or two), then
# one kernel per instruction rate class, then the GPU microbenchmark suite (bench/microbench/: every preset
# against published measurements, a few minutes; `suite.py --long` adds the sets above 512 MiB).
bench: $(STAMP)
	$(PY) bench/bench_clip.py
	$(PY) bench/bench_element_wise.py
	$(PY) bench/bench_timing.py
	$(PY) bench/bench_rates.py
	$(PY) bench/microbench/suite.py

# docs/ISA.md from the opcode table.
isa-doc: $(STAMP)
	$(DMLEMU) isa-doc

# The generated blocks of README.md (kernel listing, examples, `dmlemu step` transcript, ISA summary).
readme: $(STAMP)
	$(DMLEMU) readme

# The plots shown in README.md.
docs-images: $(STAMP)
	$(DMLEMU) run CLIP --dtype FLOAT16 --sizes 1048576 --scale 2 --bias 0.5 --plots docs/images
	$(DMLEMU) run SIGMOID --dtype FLOAT16 --sizes 65536 --adapter rx7900xtx --trace-detail instruction --trace docs/images/sigmoid_f16.npz

docs: isa-doc readme

clean:
	rm -rf $(VENV) build *.egg-info dmlemu-demo-out
