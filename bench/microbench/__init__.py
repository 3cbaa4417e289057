"""dmlemu's GPU microbenchmark suite (bench/microbench/): hand-written ISA kernels driven through the
D3D12 mirror as a host program drives a GPU, each figure printed next to a published measurement.

    rig.py          the host program: adapter, root signature, pipelines, timed Dispatch and copies
    kernels/        the kernels (chase.s, read.s, store.s, fma_f32.s, fma_f64.s, fma_f16.s)
    benchmarks.py   what each benchmark measures and its points per preset
    published.py    the published measurements, one table, with sources
    suite.py        runs them, prints the table (text or Markdown), writes docs/FIDELITY.md's section

Run: .venv/bin/python bench/microbench/suite.py [--presets ...] [--long] [--markdown] [--write-fidelity PATH]
"""
