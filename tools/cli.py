"""`dmlemu`: the command line. Each subcommand is a thin wrapper over a library module of tools/.

    dmlemu demo       THRESHOLD, CLIP, IF and a broadcast ADD through the DirectML mirror, checked, traced
    dmlemu run        one operator from the command line (.npy in and out, traces, plots): every
                      operator with a kernel (`dmlemu operators` lists them)
    dmlemu operators  the operators that run: introduced at, data types, attributes
    dmlemu step       one wave of a kernel, instruction by instruction (for learners)
    dmlemu asm        assemble a kernel source to a binary (little-endian dwords)
    dmlemu disasm     disassemble a binary
    dmlemu isa-doc    regenerate docs/ISA.md from the opcode table
    dmlemu readme     regenerate the generated blocks of README.md
    dmlemu trace      summarise, convert or plot a saved trace (.npz)
    dmlemu report     one self-contained HTML report of a saved trace (verdicts, memory chart, hotspots, plots)
    dmlemu adapters   the emulated GPUs (adapter presets), their figures and sources
    dmlemu compare    two runs (saved traces or run specs) side by side, with a difference plot
    dmlemu sweep      a grid of timed runs as tasks on a Dask cluster: results.csv and plots
    dmlemu graph      how a DirectML graph (an example, or FILE.json) compiles into dispatches; --plot PNG
    dmlemu onnx       an ONNX model through the DirectML mirror: outputs, a per-layer table, ONNX Runtime's difference

Errors in the arguments or from the DirectML mirror print one line, `dmlemu: error: <sentence>`,
and exit with status 2; no traceback. `dmlemu run` checks everything it can before it makes or reads
an input: the desc (through CreateOperator and CompileOperator on a fresh device), the seed, and
the memory the run needs against the adapter's budget and the host's RAM (docs/RELIABILITY.md).
"""
import argparse
import os
import stat
import sys

import numpy as np

from dmlemu.errors import HResultError
from dmlemu.isa.assembler import AssemblyError
from dmlemu.isa.program import KernelFault

from dmlemu.tools.operators import UsageError

__all__ = ["main", "build_parser"]

TRACE_DETAILS = ("dispatch", "wave", "instruction", "memory")


# ---- argument groups shared by run and step -----------------------------------------------------
def _add_operator_arguments(p, operator_default=None, dtype_default=None, sizes_default=None):
    names = ("any operator `dmlemu operators` lists: add, ELEMENT_WISE_ADD, DML_OPERATOR_ELEMENT_WISE_ADD, relu, "
             "ACTIVATION_RELU, cast, ...; IDENTITY is ELEMENT_WISE_IDENTITY (ACTIVATION_IDENTITY for the activation)")
    if operator_default is None:
        p.add_argument("operator", metavar="OPERATOR", help=names)
    else:
        p.add_argument("operator", metavar="OPERATOR", nargs="?", default=None,
                       help=f"{names} (default {operator_default}); or give it as --operator")
        p.add_argument("--operator", dest="operator_option", default=None, metavar="OPERATOR",
                       help="the same as OPERATOR")
        p.set_defaults(operator_default=operator_default)
    p.add_argument("--dtype", default=dtype_default, metavar="T",
                   help="the operator's data type: FLOAT32, FLOAT16, FLOAT64, (U)INT8/16/32/64 (default " +
                        (dtype_default or "FLOAT32, or the first type the operator takes") + "); tensors that "
                        "cannot have it take UINT8 (IF's condition, comparison outputs) or their first type")
    p.add_argument("--output-dtype", metavar="T",
                   help="the output's data type where it may differ (CAST: required; comparisons: UINT8 or UINT32)")
    p.add_argument("--sizes", nargs="+", type=int, required=sizes_default is None, default=sizes_default,
                   metavar="N", help="tensor Sizes, outermost first" +
                   (f" (default {' '.join(map(str, sizes_default))})" if sizes_default else ""))
    p.add_argument("--strides", nargs="+", type=int, action="append", metavar="S",
                   help="Strides in elements (0 broadcasts); once for every tensor, or once per tensor in "
                        "binding order (IF: condition, A, B, output)")
    p.add_argument("--input-sizes", action="append", metavar="TENSOR=N[,N]",
                   help="element-wise: an input's own sizes, broadcast to --sizes NumPy-style through stride 0, e.g. "
                        "B=1,4 (BTensor); other operators: any tensor's Sizes, e.g. B=8,4 (GEMM) or Filter=4,2,3,3 "
                        "(default: derived, see `dmlemu operators`); once per tensor")
    p.add_argument("--output-sizes", nargs="+", type=int, metavar="N",
                   help="the (first) output's Sizes where no shape rule derives them (SLICE1's output, say); "
                        "element-wise outputs have --sizes")
    p.add_argument("--min", type=float, dest="min_value", metavar="X",
                   help="the Min attribute (CLIP, CLIP1, CLIP_GRAD: default -1; THRESHOLD: 0)")
    p.add_argument("--max", type=float, dest="max_value", metavar="Y", help="the Max attribute (default 1)")
    p.add_argument("--attr", action="append", metavar="NAME=VALUE",
                   help="an attribute of the desc, e.g. Alpha=0.1 or RoundingMode=TOWARD_ZERO (enums by name or "
                        "number); once per attribute (`dmlemu operators` lists them)")
    p.add_argument("--fused", metavar="ACTIVATION", help="ADD1's FusedActivation, e.g. RELU or LEAKY_RELU")
    p.add_argument("--fused-attr", action="append", metavar="NAME=VALUE",
                   help="an attribute of the --fused activation, e.g. Alpha=0.1")
    p.add_argument("--scale", type=float, metavar="S", help="ScaleBias.Scale (adds a ScaleBias; Bias default 0)")
    p.add_argument("--bias", type=float, metavar="B", help="ScaleBias.Bias (adds a ScaleBias; Scale default 1)")
    p.add_argument("--flags", default="", metavar="F[,F]",
                   help="execution flags: half-precision, disable-meta-commands, descriptors-volatile")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")


_UINT_MAX = (1 << 32) - 1


def _check_uints(values, option, field, low):
    """Each value of --sizes / --strides must be a DirectML UINT (sizes 0 are left to the mirror's rule)."""
    for i, value in enumerate(values or ()):
        if not low <= value <= _UINT_MAX:
            raise UsageError(f"{option} {' '.join(map(str, values))}: {field}[{i}] is {value}; a DirectML "
                             f"{field} value is a UINT ({low} to {_UINT_MAX})")


def _feature_level(text):
    """--feature-level as parse_feature_level reads it, with its sentence also for bad hexadecimal."""
    from dmlemu.tools.operators import parse_feature_level
    try:
        return parse_feature_level(text)
    except UsageError:
        raise
    except ValueError:   # '0xZZ': int() refused it; say what parse_feature_level says of an unknown level
        from dmlemu.directml import DML_FEATURE_LEVEL
        known = ", ".join(m[len("DML_FEATURE_LEVEL_"):] for m in DML_FEATURE_LEVEL.__members__)
        raise UsageError(f"feature level {text!r} is not a DML_FEATURE_LEVEL; known: {known}") from None


def _check_run_arguments(args, run, preset):
    """Everything `dmlemu run` can check before it makes or reads an input (UsageError or the
    mirror's HResultError, one sentence): the seed, the desc (CreateOperator and CompileOperator on a
    fresh device, so every DirectML rule applies), and the memory the run needs. Returns the feature
    level. `dmlemu step` makes its inputs the same way and calls it too.

    GPU memory: each input is written to an UPLOAD and a DEFAULT buffer and the output is read
    through a DEFAULT and a READBACK buffer, so the run needs twice the tensors' TotalTensorSizeInBytes;
    it must fit the budget the device will have (dmlemu.functional.device_memory.default_budget).
    Host memory: the random inputs are drawn as 8-byte values and the inputs and outputs are held as
    NumPy arrays and by the golden model; that must fit the share of the host's RAM the device
    budget leaves.
    """
    from dmlemu.functional.device_memory import HOST_MEMORY_FRACTION, default_budget, host_memory_bytes
    from dmlemu.tools.operators import describe, tensor_bytes, validate
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed is {args.seed}; a seed must be a non-negative integer")
    feature_level = _feature_level(args.feature_level)
    validate(run, preset.key, feature_level)
    totals = tensor_bytes(run)
    device_bytes = 2 * sum(totals)
    budget = default_budget(preset.dedicated_video_memory)
    if device_bytes > budget:
        raise UsageError(
            f"{describe(run)} needs {device_bytes} bytes of GPU memory (its tensors' {sum(totals)} bytes twice: "
            f"UPLOAD and DEFAULT buffers for the inputs, DEFAULT and READBACK for the output); the "
            f"{preset.key} adapter's budget is {budget} bytes (its memory, at most "
            f"{HOST_MEMORY_FRACTION:.0%} of the host's RAM)")
    counts = [int(np.prod(sizes, dtype=object)) for sizes in run.tensor_sizes()]
    elements = max(counts)
    host_bytes = 8 * sum(counts) + 2 * sum(totals)
    host = host_memory_bytes()
    if host is not None and host_bytes > host * (1 - HOST_MEMORY_FRACTION):
        raise UsageError(
            f"{describe(run)} needs about {host_bytes} bytes of host memory for its NumPy arrays "
            f"({elements} elements in its largest tensor); the host has {int(host * (1 - HOST_MEMORY_FRACTION))} bytes "
            f"for them ({1 - HOST_MEMORY_FRACTION:.0%} of its RAM, the rest is the device's budget)")
    return feature_level


def _load_inputs(run, paths):
    """The --input arrays: each a regular .npy file no larger than its tensor needs (so nothing huge
    is read), of the tensor's dtype and element count (check_inputs)."""
    from dmlemu.data_types import DATA_TYPES
    from dmlemu.tools.operators import check_inputs
    from dmlemu.traces.io import read_npy_header
    fields = run.input_fields
    if len(paths) != len(fields):
        raise UsageError(f"{run.name} takes {len(fields)} input(s) ({', '.join(fields)}); "
                         f"{len(paths)} --input files were given")
    inputs = []
    for path, field, type_name, sizes in zip(paths, fields, run.tensor_types(), run.tensor_sizes()):
        elements = int(np.prod(sizes, dtype=object))
        limit = elements * DATA_TYPES[type_name].itemsize + (1 << 20)   # data + the largest header
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{path} is not a regular file; --input takes .npy files")
            if info.st_size > limit:
                raise UsageError(f"{path} is {info.st_size} bytes; {field} ({type_name}, {elements} elements) "
                                 f"needs a .npy file of at most {limit} bytes")
            if f.read(4) == b"PK\x03\x04":
                raise UsageError(f"cannot read {path}: it is a .npz archive, not a .npy array")
            f.seek(0)
            try:
                read_npy_header(f, info.st_size)   # the header must declare exactly the bytes the file holds
                f.seek(0)
                array = np.load(f, allow_pickle=False)
            except (ValueError, EOFError, OSError) as e:
                raise UsageError(f"cannot read {path}: {_one_line(e) or type(e).__name__}") from None
        inputs.append(array)
    return check_inputs(run, inputs, names=paths)


def _check_output_folders(paths):
    for path in paths or ():
        folder = os.path.dirname(os.path.abspath(str(path)))
        if not os.path.isdir(folder):
            raise UsageError(f"cannot write {path}: the folder {folder} does not exist")


def _operator_run(args):
    from dmlemu.tools.operators import OperatorRun, parse_assignments, parse_flags, parse_input_sizes
    return OperatorRun(args.operator, args.dtype, tuple(args.sizes), strides=args.strides,
                       min_value=args.min_value, max_value=args.max_value, scale=args.scale, bias=args.bias,
                       flags=parse_flags(args.flags), attributes=parse_assignments(args.attr),
                       fused=args.fused, fused_attributes=parse_assignments(args.fused_attr, "--fused-attr"),
                       output_type=args.output_dtype, input_sizes=parse_input_sizes(args.input_sizes),
                       feature_level=_feature_level(getattr(args, "feature_level", None)),
                       output_sizes=_checked_output_sizes(args))


def _checked_output_sizes(args):
    sizes = getattr(args, "output_sizes", None)
    _check_uints(sizes, "--output-sizes", "Sizes", 0)
    return None if sizes is None else tuple(sizes)


# ---- subcommands ----------------------------------------------------------------------------------
def cmd_demo(args):
    from dmlemu.tools.demo import run_demo
    from dmlemu.tools.operators import preset_for
    preset_for(args.adapter)   # a bad key is a usage error before anything runs
    ok, _ = run_demo(args.out, args.adapter, plots=not args.no_plots)
    return 0 if ok else 1


def cmd_run(args):
    from dmlemu.tools import tracefiles
    from dmlemu.tools.operators import describe, execute, format_array, preset_for, random_inputs
    from dmlemu.tools.progress import Progress
    _check_uints(args.sizes, "--sizes", "Sizes", 0)
    for strides in args.strides or ():
        _check_uints(strides, "--strides", "Strides", 0)
    _what_if(args)
    run = _operator_run(args)
    preset = preset_for(args.adapter)
    names = run.fields
    outputs = len(run.output_fields)
    if args.output and len(args.output) != outputs:
        raise UsageError(f"{run.name} has {outputs} output{'s' if outputs > 1 else ''} "
                         f"({', '.join(run.output_fields)}); {len(args.output)} --output paths were given")
    for path in args.trace or ():
        tracefiles._suffix(path)
    if args.trace_max_rows is not None and args.trace_max_rows < 1:
        raise UsageError(f"--trace-max-rows is {args.trace_max_rows}; it must be at least 1 (or --trace-all)")
    _check_output_folders(args.output)
    # Nothing is made or read before the desc, the seed and the memory it needs are known to be good.
    feature_level = _check_run_arguments(args, run, preset)
    if args.input:
        inputs = _load_inputs(run, args.input)
        origin = ", ".join(args.input)
    else:
        inputs = random_inputs(run, args.seed)
        origin = f"random, seed {args.seed}"
    detail = args.trace_detail or ("wave" if (args.trace or args.plots) else "dispatch")
    stages = 1 + len(args.trace or ()) + (1 if args.plots else 0)
    with Progress(stages, "dmlemu run") as bar:
        bar.advance(f"running {run.operator}", steps=0)
        max_rows = sys.maxsize if args.trace_all else args.trace_max_rows
        result = execute(run, inputs, adapter=args.adapter, feature_level=feature_level, trace=detail,
                         trace_max_rows=max_rows)
        bar.advance("writing")
        written = []
        for path, array in zip(args.output or (), result.outputs):
            np.save(path, array)
            written.append(path if path.endswith(".npy") else path + ".npy")
        folded = []
        for path in args.trace or ():
            written.append(tracefiles.save(result.trace, path, sys.maxsize if args.trace_all else None, folded))
            bar.advance("writing traces")
        if args.plots:
            bar.advance("plotting", steps=0)
            written += tracefiles.plot(result.trace, args.plots)
            bar.advance("done")
    print(f"{describe(run)}, on {preset.description}")
    print(f"inputs: {origin}")
    width = max(len(n) for n in names) + 2
    for name, array in zip(names, result.inputs + result.outputs):
        print(f"{name + ':':<{width}}{format_array(array).replace(chr(10), chr(10) + ' ' * width)}")
    print(f"bit-exact against dmlemu.golden: {'yes' if result.bit_exact else 'NO'}")
    print(result.trace.format_summary())
    print(_verdicts(result.trace))
    for path in written:
        print(f"wrote {path}")
    line = _folded_line(result.trace, folded)
    if line and (args.trace or args.plots):
        print(f"{line}. --trace-all keeps every row and event (spilled to a temporary folder, so memory stays bounded)")
    return 0 if result.bit_exact else 1


def _verdicts(trace):
    """The verdict lines (traces/verdict.py) under a heading: what limited each dispatch."""
    return "limited by (traces/verdict.py; shares of each dispatch's time):\n" + trace.format_verdicts()


def _folded_line(trace, export_notes):
    """One line saying what the recorder (trace.aggregated) and the exports (their notes) folded or left
    out; empty when nothing was."""
    what = {"wave_groups": "folded {} wave groups into per-SIMD summaries", "segments": "left out {} instruction "
            "segments", "memory": "left out {} memory requests", "counters": "left out {} counter buckets"}
    parts = [what.get(name, "left out {} rows of " + name).format(trace.dropped.get(name, "later"))
             for name in trace.aggregated]
    if parts:
        limit = max(len(trace.tables[name]) for name in trace.aggregated)
        parts = [f"past {limit} rows per table the recorder " + ", ".join(parts)]
    parts += export_notes
    return f"note: the trace was folded to stay bounded: {'; '.join(parts)}" if parts else ""


def cmd_asm(args):
    from dmlemu.tools.asm import assemble_shader_source, assemble_source, to_bytes
    shader = assemble_shader_source(args.source, args.define) if not args.variant else None
    if shader is not None:
        if args.output:
            with open(args.output, "wb") as f:
                f.write(shader.to_bytes())
            print(f"wrote compute shader {shader.name} ({len(shader.to_bytes())} bytes: numthreads "
                  f"{', '.join(map(str, shader.numthreads))}, {len(shader.bindings)} bindings, "
                  f"{len(shader.program)} program dwords) to {args.output}")
        else:
            from dmlemu.tools.asm import describe_shader
            print(describe_shader(shader), end="")
        return 0
    try:
        dwords = assemble_source(args.source, args.variant, args.define)
    except AssemblyError as e:
        if ("is not defined" in str(e) or "undefined symbol" in str(e)) and not args.variant:
            raise UsageError(f"{e}; the sources in kernels/ need a variant's symbols, "
                             f"e.g. --variant CLIP:FLOAT16:packed") from None
        raise
    if args.output:
        with open(args.output, "wb") as f:
            f.write(to_bytes(dwords))
        print(f"wrote {len(dwords)} dwords ({len(dwords) * 4} bytes) to {args.output}")
    else:
        from dmlemu.isa.disassembler import disassemble
        for address in range(0, len(dwords), 4):
            print(f"{address:04d}: " + " ".join(f"{d:08x}" for d in dwords[address:address + 4]))
        print()
        print(disassemble(dwords, with_addresses=True), end="")
    return 0


def cmd_disasm(args):
    from dmlemu.tools.asm import disassemble_bytes, read_binary
    data = read_binary(args.binary)
    try:
        text = disassemble_bytes(data, with_addresses=args.addresses)
    except ValueError as e:
        raise UsageError(f"{args.binary}: {e}") from None
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {args.output}")
    else:
        print(text, end="")
    return 0


def cmd_isa_doc(args):
    from dmlemu.tools.docs import ISA_DOC, checkout_root, isa_doc_is_current, write_isa_doc
    if args.path is None:
        checkout_root("isa-doc")
        args.path = ISA_DOC
    shown = os.path.relpath(args.path)
    if args.check:
        if isa_doc_is_current(args.path):
            print(f"{shown} is up to date")
            return 0
        print(f"{shown} is stale: run `dmlemu isa-doc` (or `make isa-doc`)", file=sys.stderr)
        return 1
    write_isa_doc(args.path)
    print(f"wrote {shown}")
    return 0


def cmd_readme(args):
    from dmlemu.tools.docs import README, checkout_root, update_readme
    if args.path is None:
        checkout_root("readme")
        args.path = README
    shown = os.path.relpath(args.path)
    with open(args.path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{shown}: byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8 text") from None
    new = update_readme(text, main)
    if args.check:
        if new == text:
            print(f"{shown}: generated blocks are up to date")
            return 0
        print(f"{shown}: generated blocks are stale: run `dmlemu readme`", file=sys.stderr)
        return 1
    if new != text:
        with open(args.path, "w", encoding="utf-8") as f:
            f.write(new)
    print(f"wrote {shown}")
    return 0


def _kernel_stepper(args, wave=None):
    """`dmlemu step --kernel FILE.s`: one wave of a user's compute shader."""
    from dmlemu.tools.stepper import KernelStepper, parse_buffer, parse_constant
    rng = np.random.default_rng(args.seed)
    buffers = dict(parse_buffer(text, rng) for text in args.buffer or ())
    constants = [parse_constant(text) for text in args.constants or ()]
    return KernelStepper(args.kernel, groups=args.groups or (1,), constants=constants, buffers=buffers,
                         width=args.width, wave=args.wave if wave is None else wave, adapter=args.adapter,
                         defines=args.define)


def _operator_named(args):
    """The operator of a command whose OPERATOR is optional: the positional one or --operator (not two
    different ones), else the command's default."""
    if args.operator and args.operator_option and args.operator != args.operator_option:
        raise UsageError(f"OPERATOR {args.operator} and --operator {args.operator_option} name two operators; "
                         "give one")
    return args.operator or args.operator_option or args.operator_default


def cmd_step(args):
    from dmlemu.tools.stepper import WaveStepper, format_footer, format_header, format_kernel_footer, \
        format_kernel_header
    from dmlemu.tools.operators import preset_for, random_inputs
    args.operator = _operator_named(args)
    _what_if(args)
    if args.trace:
        _check_output_folders([args.trace])
        if not args.trace.lower().endswith(".npz"):
            raise UsageError(f"--trace {args.trace}: the stepped dispatch's trace is a .npz file (`dmlemu trace`, "
                             "`dmlemu report` and `dmlemu compare` read it)")
    if args.kernel:
        return _step_loop(args, lambda wave=None: _kernel_stepper(args, wave), format_kernel_header,
                          format_kernel_footer)
    if args.buffer or args.constants or args.groups or args.define:
        raise UsageError("--buffer, --constants, --groups and -D go with --kernel FILE.s")
    _check_uints(args.sizes, "--sizes", "Sizes", 0)
    for strides in args.strides or ():
        _check_uints(strides, "--strides", "Strides", 0)
    run = _operator_run(args)
    args.feature_level = None      # step has no --feature-level: the adapter's own
    _check_run_arguments(args, run, preset_for(args.adapter))   # nothing is made before the desc is good
    inputs = random_inputs(run, args.seed)
    return _step_loop(args, lambda wave=None: WaveStepper(run, inputs, width=args.width,
                                                          wave=args.wave if wave is None else wave,
                                                          adapter=args.adapter), format_header, format_footer)


STEP_HELP = ("[Enter] next instruction, p REG print a register (v3, s24, s[8:11], exec, vcc, scc), b ADDR|LABEL "
             "break there (b alone lists), w N restart on wave N, c continue to a breakpoint or the end, q quit, "
             "? this help")


def _step_loop(args, make, format_header, format_footer):
    """Step the wave (or workgroup) `make(wave)` builds, printing each instruction; with --interactive,
    wait after each for a command (STEP_HELP)."""
    from dmlemu.tools.stepper import divergence_summary, format_step
    stepper = make()
    if args.workgroup is not None:
        if args.wave:
            raise UsageError("--wave and --workgroup both choose what to step; give one")
        stepper.select_workgroup(args.workgroup)
    print(format_header(stepper))
    interactive, breakpoints, reply = args.interactive, set(), None
    while True:
        executed, shown, restart = 0, [], None
        for s in (stepper.steps() if args.workgroup is None else stepper.workgroup_steps()):
            print(format_step(s, args.width))
            executed = s.number
            shown.append(s)
            if s.ended:
                continue
            if interactive == "continue" and s.address in breakpoints:
                print(f"  breakpoint at {s.address}")
                interactive = True
            while interactive is True:
                try:
                    answer = input("  [Enter] next instruction, [c] continue, [q] quit, [?] help: ").strip()
                except EOFError:
                    interactive = False
                    break
                reply = _step_command(answer, stepper, breakpoints)
                if reply in ("next", "continue", "quit") or isinstance(reply, int):
                    break
                print(f"  {reply}")
            if interactive is True and reply == "continue":
                interactive = "continue"
            if interactive and reply == "quit":
                print("stopped.")
                return 0
            if interactive and isinstance(reply, int):
                restart = reply
                break
        if restart is None:
            break
        stepper = make(restart)
        print(f"-- restarting on wave {restart} --")
        print(format_header(stepper))
    print(format_footer(stepper, executed))
    summary = divergence_summary([s for s in shown if s.wave == stepper.wave or args.workgroup is not None],
                                 args.width)
    if summary:
        print(summary)
    if args.trace:
        from dmlemu.tools.tracefiles import save
        stepper.timed_stats()
        print(f"wrote {save(stepper.timed_trace, args.trace)} (the whole dispatch, timed on a fresh GPU; "
              f"`dmlemu trace {args.trace} --instructions` annotates its listing)")
    return 0


def _step_command(answer, stepper, breakpoints):
    """What one interactive answer asks: 'next', 'continue', 'quit', a wave number (restart on it), or a
    line of text to print (a register's value, the breakpoints, the help line)."""
    from dmlemu.tools.stepper import register_text
    word, _, rest = answer.partition(" ")
    word, rest = word.lower(), rest.strip()
    if answer == "":
        return "next"
    if word in ("c", "continue") and not rest:
        return "continue"
    if word in ("q", "quit") and not rest:
        return "quit"
    if word == "p" and rest:
        try:
            return register_text(stepper, rest)
        except UsageError as e:
            return str(e)
    if word == "b":
        if not rest:
            return "breakpoints: " + (", ".join(map(str, sorted(breakpoints))) or "none")
        address = _break_address(stepper, rest)
        if isinstance(address, str):
            return address
        breakpoints.add(address)
        index = [r.address for r in stepper.program.records].index(address)
        return f"breakpoint at {address}: {stepper.texts[index]}"
    if word == "w" and rest:
        try:
            wave = int(rest)
        except ValueError:
            return f"w {rest}: give a wave number (0 to {stepper.total_waves - 1})"
        if not 0 <= wave < stepper.total_waves:
            last = stepper.total_waves - 1
            return f"wave {wave} does not exist: the dispatch has {stepper.total_waves} waves (0 to {last})"
        return wave
    return STEP_HELP


def _break_address(stepper, text):
    """A breakpoint's dword address from `b ADDR` or `b LABEL` (L<addr>, as branch targets print); a
    sentence where no instruction starts there."""
    addresses = [r.address for r in stepper.program.records]
    label = text[1:] if text[:1] in ("L", "l") and text[1:].isdigit() else text
    try:
        address = int(label, 0)
    except ValueError:
        return f"b {text}: give an instruction's dword address (the addr column) or a label L<addr>"
    if address not in addresses:
        return f"b {text}: no instruction starts at address {address} (the addr column lists them)"
    return address


def cmd_trace(args):
    from dmlemu.tools import tracefiles
    if args.top is not None and not args.instructions:
        raise UsageError("--top goes with --instructions (the annotated kernel listing)")
    if args.dispatch is not None and not (args.instructions or args.plots):
        raise UsageError("--dispatch goes with --instructions (the annotated kernel listing) or --plots (the "
                         "dispatch the plots focus on)")
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top is {args.top}; it must be at least 1 (the number of instructions to list)")
    trace = tracefiles.load(args.file)
    did = False
    if args.instructions:
        print(tracefiles.listing(trace, args.dispatch, args.top))
        did = True
    folded = []
    for path, kind in ((args.to_json, ".json"), (args.to_pftrace, ".pftrace"), (args.to_csv, ".csv")):
        if path:
            if not path.lower().endswith(kind):
                raise UsageError(f"{path} must end in {kind}")
            print(f"wrote {tracefiles.save(trace, path, sys.maxsize if args.all_events else None, folded)}")
            did = True
    line = _folded_line(trace, folded)
    if line and did:
        print(f"{line}. `dmlemu run ... --trace-all` records every row; --all-events keeps every Chrome JSON event")
    if args.plots:
        for path in tracefiles.plot(trace, args.plots, args.dispatch):
            print(f"wrote {path}")
        did = True
    if args.summary or not did:
        preset = trace.preset
        print(f"{args.file}: {len(trace.dispatches)} dispatch(es) on {preset.description}, "
              f"detail '{trace.detail}', wave width {trace.wave_width}")
        if trace.aggregated:
            print(f"tables past their row limit, folded into counters: {', '.join(trace.aggregated)}")
        print(trace.format_summary())
        print(_verdicts(trace))
    return 0


def cmd_report(args):
    from dmlemu.tools import tracefiles
    from dmlemu.tools.report import write_report
    if not args.output.lower().endswith((".html", ".htm")):
        raise UsageError(f"-o {args.output}: the report is one HTML file; give a name ending in .html")
    _check_output_folders([args.output])
    trace = tracefiles.load(args.file)
    write_report(trace, args.output, source=os.path.basename(args.file), dispatch=args.dispatch,
                 plots=not args.no_plots)
    print(f"wrote {args.output} (self-contained: open it in any browser, no network needed)")
    return 0


def cmd_operators(args):
    from dmlemu.tools.operators import format_operator_list
    print(format_operator_list(_feature_level(args.feature_level)))
    return 0


def cmd_adapters(args):
    from dmlemu.tools.adapters import format_adapters
    print(format_adapters(with_sources=not args.no_sources))
    return 0


# ---- compare and sweep ----------------------------------------------------------------------------
class _SpecParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


_SET_HELP = ("what if: the adapter with a preset field changed, e.g. --set dram_bytes_per_second=480G or --set "
             "compute_units=48 (the fields `dmlemu sweep --set` takes, one value each); repeat for more fields")


def _what_if(args):
    """args.adapter becomes the adapter preset with args.set's fields changed (tools.sweep.what_if), when
    --set is given; a bad field or value is a UsageError before anything runs."""
    from dmlemu.tools.operators import preset_for
    from dmlemu.tools.sweep import what_if
    if getattr(args, "set", None):
        args.adapter = what_if(preset_for(args.adapter), args.set)


def run_spec_trace(text, name):
    """The wave-level trace of a run spec (`dmlemu compare`: the arguments of `dmlemu run` in one
    word, optionally after 'run'), checked as `dmlemu run` checks them."""
    import shlex
    from dmlemu.tools.operators import execute, preset_for, random_inputs
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise UsageError(f"{name} {text!r} is neither a .npz trace nor a run spec ({e})") from None
    words = words[2:] if words[:2] == ["dmlemu", "run"] else words[1:] if words[:1] == ["run"] else words
    parser = _SpecParser(prog=f"dmlemu compare {name}", add_help=False)
    _add_operator_arguments(parser)
    parser.add_argument("--adapter", metavar="KEY")
    parser.add_argument("--feature-level", metavar="L")
    parser.add_argument("--set", action="append", metavar="FIELD=V")
    try:
        args = parser.parse_args(words)
    except UsageError as e:
        raise UsageError(f"{name} {text!r} is neither a .npz trace nor a run spec (the arguments of "
                         f"`dmlemu run`, e.g. 'CLIP --sizes 1024 1024'): {e}") from None
    _check_uints(args.sizes, "--sizes", "Sizes", 0)
    for strides in args.strides or ():
        _check_uints(strides, "--strides", "Strides", 0)
    _what_if(args)
    run = _operator_run(args)
    feature_level = _check_run_arguments(args, run, preset_for(args.adapter))
    return execute(run, random_inputs(run, args.seed), adapter=args.adapter, feature_level=feature_level,
                   trace="wave").trace


def cmd_compare(args):
    from dmlemu.tools.compare import compare, format_comparison, load_side
    a, b = load_side(args.a, "A", run_spec_trace), load_side(args.b, "B", run_spec_trace)
    result = compare(a, b)
    print(format_comparison(result))
    if args.plots:
        from dmlemu.tools.compare import plot_comparison
        for path in plot_comparison(result, args.plots):
            print(f"wrote {path}")
    return 0


def cmd_graph(args):
    from dmlemu.tools.graph_view import EXAMPLE, compile_graph, format_partition, load_graph, plot_partition
    _what_if(args)
    spec = EXAMPLE if args.file is None else load_graph(args.file)
    graph = compile_graph(spec, args.adapter, fuse=not args.no_fuse)
    print(format_partition(graph, spec))
    if args.source:
        for unit in graph._units:
            if unit.source is not None:
                nodes = ", ".join(str(k) for k in unit.nodes)        # by index: names are data, not source
                print(f"\n; ==== dispatch {unit.index + 1} (nodes {nodes}): the fused kernel\n{unit.source}", end="")
    if args.plot:
        plot_partition(graph, args.plot)
        print(f"wrote {args.plot}")
    if args.trace:              # run it (seeded inputs) and save the wave-level trace: `dmlemu compare` reads it
        from dmlemu.tools.graph_view import execute_graph
        from dmlemu.tools.tracefiles import save
        trace = execute_graph(spec, adapter=args.adapter, fuse=not args.no_fuse, trace="wave")[2]
        print(f"wrote {save(trace, args.trace)}")
    return 0


def _onnx_inputs(texts, model_inputs, seed):
    """The model's inputs: --input NAME=FILE.npy ones (a regular .npy file of the input's type and shape),
    the rest seeded random (dmlemu.onnx.models.inputs). Returns (feeds, a line saying where they came from)."""
    from dmlemu.onnx.importer import numpy_type
    given = {}
    for text in texts or ():
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input {text}: write it NAME=FILE.npy")
        if name not in model_inputs:
            raise UsageError(f"--input {text}: the model has no input \"{name}\" (its inputs: "
                             f"{', '.join(model_inputs) or 'none'})")
        shape, element_type = model_inputs[name]
        dtype = numpy_type(element_type)
        limit = int(np.prod(shape or [1])) * dtype.itemsize + (1 << 20)
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                raise UsageError(f"--input {text}: {path} must be a regular .npy file of at most {limit} bytes "
                                 f"({dtype} {list(shape)})")
            try:
                array = np.load(f, allow_pickle=False)
            except (ValueError, EOFError, OSError) as e:
                raise UsageError(f"cannot read {path}: {_one_line(e) or type(e).__name__}") from None
        if list(array.shape) != list(shape) or array.dtype != dtype:
            raise UsageError(f"--input {text}: {path} holds {array.dtype} {list(array.shape)}; \"{name}\" takes "
                             f"{dtype} {list(shape)}")
        given[name] = array
    rng = np.random.default_rng(seed)
    feeds, random_names = {}, []
    for name, (shape, element_type) in model_inputs.items():
        if name in given:
            feeds[name] = given[name]
            continue
        dtype = numpy_type(element_type)
        if dtype == bool:
            feeds[name] = rng.random(shape) < 0.5
        elif dtype.kind == "f":
            feeds[name] = rng.standard_normal(shape).astype(dtype)
        else:
            feeds[name] = rng.integers(0, 10, shape).astype(dtype)
        random_names.append(name)
    origin = ", ".join(texts or ())
    if random_names:
        origin += ("; " if origin else "") + f"random (seed {seed}): {', '.join(random_names)}"
    return feeds, origin


def cmd_onnx(args):
    from dmlemu.onnx import ConversionError, convert, execute
    from dmlemu.onnx.report import compare_onnxruntime, format_comparison, format_layers
    from dmlemu.tools import tracefiles
    from dmlemu.tools.operators import format_array, preset_for
    from dmlemu.tools.progress import Progress
    _what_if(args)
    preset = preset_for(args.adapter)
    if args.trace:
        tracefiles._suffix(args.trace)
        _check_output_folders([args.trace])
    if args.seed < 0:
        raise UsageError(f"--seed is {args.seed}; a seed must be a non-negative integer")
    if args.compare_onnxruntime:
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            raise UsageError("--compare-onnxruntime needs onnxruntime: pip install 'dmlemu[onnx]'") from None
    try:
        converted = convert(args.model)       # refused here, at once, before any GPU work
        feeds, origin = _onnx_inputs(args.input, converted.model_inputs, args.seed)
        with Progress(1, "dmlemu onnx") as bar:
            layer_names = []

            def compiled(dispatches):       # the bar learns the dispatches once CompileGraph made them
                layer_names[:] = ["+".join(d.onnx_nodes) for d in dispatches]
                bar.total = max(1, len(dispatches))
                bar.advance(layer_names[0] if layer_names else "", steps=0)

            def dispatched(i):
                bar.advance(layer_names[i + 1] if i + 1 < len(layer_names) else "reading back")
            result = execute(args.model, feeds, adapter=preset, timing=not args.no_timing,
                             on_compiled=compiled, on_dispatch=dispatched, check_golden=args.check_golden)
    except ConversionError as e:
        raise UsageError(str(e)) from None
    names = ", ".join(f"{n} {list(s)}" for n, s in zip(result.converted.output_names, result.converted.output_shapes))
    print(f"{args.model}: {len(result.converted.graph.nodes)} DML operator nodes in one compiled graph, "
          f"{len(result.dispatches)} dispatches, on {preset.description}")
    print(f"inputs: {origin}")
    print(f"outputs: {names}")
    for name, array in result.outputs.items():
        print(f"  {name}: {format_array(array)}")
    if args.check_golden:
        print("bit-exact against dmlemu.golden (the DML nodes one by one): "
              + ("yes" if not result.differing else f"NO ({', '.join(result.differing)})"))
    print(format_layers(result, timed=not args.no_timing))
    if args.compare_onnxruntime:
        print(format_comparison(compare_onnxruntime(args.model, feeds, result.outputs)))
    if args.trace:
        print(f"wrote {tracefiles.save(result.trace, args.trace)}")
    return 0 if not result.differing else 1


def cmd_sweep(args):
    import time
    from dmlemu.tools import sweep
    from dmlemu.tools.progress import Progress
    if args.serial and args.scheduler:
        raise UsageError("--serial runs the points in this process; it cannot be given with --scheduler")
    if not 1 <= args.workers <= 256:
        raise UsageError(f"--workers is {args.workers}; a local cluster has 1 to 256 workers")
    if not (args.serial or sweep.dask_available()):
        raise UsageError("dmlemu sweep runs its points on Dask, which is not installed: "
                         "pip install 'dmlemu[sweep]' (or --serial to run them in this process)")
    overrides = [sweep.parse_override(text) for text in args.set or ()]
    sizes = [sweep.parse_size(text) for text in args.sizes or ("4096", "65536", "1048576")]
    if args.heatmap:
        sweep.check_heatmap_axes(args.heatmap, [f for f, _ in overrides])
    if args.max_points < 1:
        raise UsageError(f"--max-points is {args.max_points}; it must be at least 1")
    workload = args.graph or args.onnx
    if args.graph and args.onnx:
        raise UsageError("--graph and --onnx each give the workload to sweep; give one")
    if workload:
        given = [o for o in ("operators", "dtypes", "sizes", "layouts") if getattr(args, o) is not None]
        if given:
            raise UsageError(f"--{given[0]} chooses operator points; a --graph or --onnx sweep runs the whole "
                             "workload at each adapter and --set value")
        points, skipped = sweep.build_workload_grid("graph" if args.graph else "onnx", workload,
                                                    args.adapters or [None], overrides, args.max_points), []
    else:
        points, skipped = sweep.build_grid(args.adapters or [None], args.operators or ["IDENTITY"],
                                           args.dtypes or ["FLOAT32"], sizes, args.layouts or ["packed"],
                                           overrides, args.max_points)
    for text in skipped:
        print(f"skipped {text}", file=sys.stderr)
    if not points:
        raise UsageError("every point of the sweep was skipped (see above); nothing to run")
    os.makedirs(args.out, exist_ok=True)
    where = "in this process" if args.serial else (f"on the Dask scheduler at {args.scheduler}" if args.scheduler
                                                    else f"on a local Dask cluster of {args.workers} workers")
    start = time.perf_counter()
    with Progress(len(points), "dmlemu sweep") as bar:
        rows = (sweep.run_serial(points, bar) if args.serial else
                sweep.run_dask(points, workers=args.workers, scheduler=args.scheduler, progress=bar))
    seconds = time.perf_counter() - start
    print(sweep.format_table(rows))
    print(f"{len(points)} points {where} in {seconds:.1f} s ({len(points) / seconds:.2f} points/s)")
    print(f"wrote {sweep.write_csv(rows, os.path.join(args.out, 'results.csv'))}")
    if not args.no_plots:
        for path in sweep.plot_sweep(rows, args.out, args.heatmap):
            print(f"wrote {path}")
    return 0


# ---- the parser -----------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage error stays one line whatever the user typed (a carriage return or
    another control character in an argument is shown escaped)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {_printable(message)}\n")


def build_parser():
    parser = _Parser(
        prog="dmlemu", description="An emulated DirectML GPU: run operators, step through waves, read traces.",
        epilog="`dmlemu COMMAND --help` describes each command.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("demo", help="THRESHOLD, CLIP, IF and a broadcast ADD through the DirectML mirror, checked "
                                    "and traced")
    p.add_argument("--out", default="dmlemu-demo-out", metavar="DIR",
                   help="folder for the trace and plots (default dmlemu-demo-out)")
    p.add_argument("--adapter", metavar="KEY", help="adapter preset (default: the default adapter)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.set_defaults(handler=cmd_demo)

    p = sub.add_parser("run", help="run one operator through the DirectML mirror")
    _add_operator_arguments(p)
    p.add_argument("--adapter", metavar="KEY", help="adapter preset (`dmlemu adapters`)")
    p.add_argument("--set", action="append", metavar="FIELD=V", help=_SET_HELP)
    p.add_argument("--feature-level", metavar="L", help="the emulated DirectML's highest feature level, e.g. 5_0")
    p.add_argument("--input", nargs="+", metavar="FILE.npy", help="one .npy per input tensor (default: random)")
    p.add_argument("--output", nargs="+", metavar="FILE.npy", help="where to save the output tensor")
    p.add_argument("--trace", nargs="+", metavar="FILE",
                   help="save the trace: .json (Chrome/Perfetto), .pftrace (native Perfetto; "
                        "pip install 'dmlemu[perfetto]'), .npz, .csv")
    p.add_argument("--trace-detail", choices=TRACE_DETAILS,
                   help="how much to record (default: wave with --trace or --plots, else dispatch)")
    bound = p.add_mutually_exclusive_group()
    bound.add_argument("--trace-max-rows", type=int, metavar="N",
                       help="rows the recorder keeps per table before it folds (default 200000)")
    bound.add_argument("--trace-all", action="store_true",
                       help="keep every row and every Chrome JSON event: nothing folded (rows spill to disk; the files grow with the run)")
    p.add_argument("--plots", metavar="DIR", help="write the trace's PNG plots into DIR")
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser(
        "step", help="run one wave instruction by instruction, showing EXEC, registers and cache traffic",
        description="Run one wave of an operator's kernel instruction by instruction (for learners): each "
                    "instruction's text, the EXEC mask it ran under and the registers it changed, lane by lane. "
                    "Under each buffer load and store: the bytes the lanes asked for, the sectors and cache lines "
                    "(first addresses in hex) the coalescer made of them, and how many sectors hit the L2, hit "
                    "the Infinity Cache (adapters that have one) or were read from DRAM. The cache figures come "
                    "from a timed run of the whole dispatch on a fresh GPU of the same adapter, waves in order, "
                    "so the waves before the stepped one have warmed the caches. Under each ds_* instruction: each "
                    "lane's LDS address and bank, the bank-conflict passes and the LDS bytes changed; at s_barrier, "
                    "which waves of the workgroup have arrived (docs/WORKGROUPS.md).")
    _add_operator_arguments(p, operator_default="CLIP", dtype_default="FLOAT16", sizes_default=[2, 3])
    p.add_argument("--width", type=int, default=8, choices=(4, 8, 16, 32, 64), help="lanes per wave (default 8)")
    p.add_argument("--wave", type=int, default=0, metavar="N",
                   help="which wave of the dispatch (default 0); at an s_barrier the other waves of its workgroup "
                        "run unseen to theirs")
    p.add_argument("--workgroup", type=int, metavar="N",
                   help="step every wave of workgroup N, in issue order: round-robin in wave order, each wave runs "
                        "to its next s_barrier or its end, then the next wave; when all waves still running have "
                        "arrived, the barrier opens and the round starts again from the first")
    p.add_argument("--adapter", default="teaching", metavar="KEY", help="adapter preset (default teaching)")
    p.add_argument("--set", action="append", metavar="FIELD=V", help=_SET_HELP)
    p.add_argument("--interactive", "-i", action="store_true",
                   help="wait after each instruction for a command: Enter (next), p REG, b ADDR|LABEL, w N, c, q, ?")
    p.add_argument("--trace", metavar="FILE.npz",
                   help="also save the trace of the whole dispatch, timed on a fresh GPU at detail 'instruction' "
                        "(the run the cycle column and cache figures come from)")
    p.add_argument("--kernel", metavar="FILE.s",
                   help="step your own compute shader source (.numthreads and bindings, docs/KERNEL_ABI.md) "
                        "instead of an operator's kernel")
    p.add_argument("--groups", nargs="+", type=int, metavar="N", help="--kernel: Dispatch's group counts X [Y [Z]] "
                                                                      "(default 1 1 1)")
    p.add_argument("--constants", nargs="+", metavar="V",
                   help="--kernel: the root constants in declaration order (7, 0x10, -1 or 2.5 as FLOAT32)")
    p.add_argument("--buffer", action="append", metavar="REG=SPEC",
                   help="--kernel: a buffer for register REG (t0, u0, b1): DTYPE:COUNT (random values from "
                        "--seed), DTYPE:COUNT:zeros, or FILE.npy; once per binding")
    p.add_argument("-D", dest="define", action="append", metavar="NAME=VALUE", help="--kernel: define a symbol")
    p.set_defaults(handler=cmd_step)

    p = sub.add_parser("asm", help="assemble a kernel source to a binary")
    p.add_argument("source", metavar="SOURCE.s")
    p.add_argument("-o", "--output", metavar="OUT.bin", help="binary file (default: print dwords and disassembly)")
    p.add_argument("--variant", metavar="OP:DTYPE[:packed][:sb][:half]",
                   help="the symbols of one kernel variant, as the driver assembles it (e.g. CLIP:FLOAT16:packed)")
    p.add_argument("-D", dest="define", action="append", metavar="NAME=VALUE", help="define a symbol")
    p.set_defaults(handler=cmd_asm)

    p = sub.add_parser("disasm", help="disassemble a binary (little-endian dwords)")
    p.add_argument("binary", metavar="FILE.bin")
    p.add_argument("-o", "--output", metavar="OUT.s", help="write the text to a file")
    p.add_argument("--addresses", action="store_true", help="show each instruction's dword address")
    p.set_defaults(handler=cmd_disasm)

    p = sub.add_parser("isa-doc", help="regenerate docs/ISA.md from the opcode table")
    p.add_argument("--check", action="store_true", help="exit 1 if docs/ISA.md is stale; write nothing")
    p.add_argument("--path", default=None, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_isa_doc)

    p = sub.add_parser("readme", help="regenerate the generated blocks of README.md")
    p.add_argument("--check", action="store_true", help="exit 1 if a block is stale; write nothing")
    p.add_argument("--path", default=None, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_readme)

    p = sub.add_parser("trace", help="summarise, convert or plot a saved trace (.npz)")
    p.add_argument("file", metavar="FILE.npz")
    p.add_argument("--summary", action="store_true", help="print the per-dispatch summary (the default)")
    p.add_argument("--to-json", metavar="OUT.json", help="Chrome Trace Event JSON for Perfetto")
    p.add_argument("--to-pftrace", metavar="OUT.pftrace",
                   help="native Perfetto trace (protobuf; pip install 'dmlemu[perfetto]')")
    p.add_argument("--to-csv", metavar="OUT.csv", help="one row per dispatch")
    p.add_argument("--all-events", action="store_true", help="--to-json: keep every event (no event limit)")
    p.add_argument("--plots", metavar="DIR", help="write the PNG plots into DIR")
    p.add_argument("--instructions", action="store_true",
                   help="the kernel listing annotated per instruction: waves, issue cycles, stall cycles at each "
                        "s_waitcnt (traces captured with --trace-detail instruction), sectors per request, hit "
                        "rates")
    p.add_argument("--dispatch", type=int, metavar="N",
                   help="--instructions: which dispatch; --plots: the dispatch the plots focus on (default: the timed "
                        "one with the most cycles)")
    p.add_argument("--top", type=int, metavar="K", help="--instructions: the K hottest instructions, hottest first")
    p.set_defaults(handler=cmd_trace)

    p = sub.add_parser(
        "report", help="one self-contained HTML report of a saved trace: verdicts, memory chart, hotspots, plots",
        description="Write one self-contained HTML file (inline CSS, SVG and PNG; no server, no network) for a saved "
                    "trace: the summary with each dispatch's verdict, the focused dispatch's speed of light, its "
                    "memory chart per level (kernel, L0/L1 coalescer, L2, Infinity Cache, DRAM: requests, hits, "
                    "bytes), its instruction hotspots, the roofline and the other plots (tools/report.py).")
    p.add_argument("file", metavar="FILE.npz", help="a trace saved by `dmlemu run/graph/onnx ... --trace FILE.npz`")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the HTML file to write")
    p.add_argument("--dispatch", type=int, metavar="N",
                   help="the dispatch to focus on (default: the timed one with the most cycles)")
    p.add_argument("--no-plots", action="store_true", help="leave the PNG plots out (a smaller, faster report)")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("operators", help="the operators `dmlemu run` runs: introduced at, data types, attributes")
    p.add_argument("--feature-level", metavar="L", help="whose data types to list (default 6_4)")
    p.set_defaults(handler=cmd_operators)

    p = sub.add_parser("adapters", help="list the emulated GPUs with their figures and sources")
    p.add_argument("--no-sources", action="store_true", help="only the table")
    p.set_defaults(handler=cmd_adapters)

    p = sub.add_parser(
        "compare", help="two runs side by side: time, bytes per cache level, hit rates, coalescing, plots",
        description="Put two runs side by side. A and B are each a saved trace (FILE.npz from `dmlemu run ... "
                    "--trace FILE.npz`) or a run spec: the arguments of `dmlemu run` in one quoted word, e.g. "
                    "'CLIP --sizes 2048 2048 --strides 1 2048' or 'IDENTITY --sizes 1048576 --adapter rtx3070'. "
                    "Prints time, bandwidth, bytes at each cache level, hit rates and coalescing of both, with "
                    "B/A, summed over the timed dispatches, then dispatch by dispatch, matched by name (the same name, graph "
                    "nodes or kernel), with each side's verdict and the dispatches left unmatched.")
    p.add_argument("a", metavar="A", help="FILE.npz or a quoted run spec")
    p.add_argument("b", metavar="B", help="FILE.npz or a quoted run spec")
    p.add_argument("--plots", metavar="DIR", help="write compare.png (the difference plot) into DIR")
    p.set_defaults(handler=cmd_compare)

    p = sub.add_parser("graph", help="how a DirectML graph compiles into dispatches (text; --plot FILE.png)")
    p.add_argument("file", nargs="?", metavar="FILE.json", help="a graph (its format: docs/GRAPHS.md; "
                                                                 "default: a built-in example)")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the partition into FILE.png")
    p.add_argument("--no-fuse", action="store_true", help="one dispatch per operator node (no fused kernels)")
    p.add_argument("--source", action="store_true", help="also print each fused kernel's generated assembly")
    p.add_argument("--trace", metavar="FILE", help="also run the graph and save its trace (.npz for dmlemu compare)")
    p.add_argument("--adapter", metavar="KEY", help="adapter preset (default: the default adapter)")
    p.add_argument("--set", action="append", metavar="FIELD=V", help=_SET_HELP)
    p.set_defaults(handler=cmd_graph)

    p = sub.add_parser("onnx", help="run an ONNX model through the DirectML mirror: outputs, per-layer time, "
                                    "ONNX Runtime's difference",
                       description="Convert an ONNX model as ONNX Runtime's DirectML provider does (one compiled "
                                   "DML graph), run it on the emulated GPU and print its outputs and a per-layer "
                                   "table (ONNX nodes, DML operators, dispatches, modelled time, share, bound). "
                                   "Needs pip install 'dmlemu[onnx]'.")
    p.add_argument("model", metavar="MODEL.onnx", help="the model file (static input shapes)")
    p.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                   help="an input's values (once per input; the others are seeded random)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--adapter", metavar="KEY", help="adapter preset (default: the default adapter)")
    p.add_argument("--set", action="append", metavar="FIELD=V", help=_SET_HELP)
    p.add_argument("--trace", metavar="FILE", help="save the run's trace (.json, .pftrace, .npz, .csv); each dispatch "
                                                   "is named by its ONNX node(s)")
    p.add_argument("--compare-onnxruntime", action="store_true",
                   help="also run ONNX Runtime's CPU provider and print the max abs / relative difference per output")
    p.add_argument("--check-golden", action="store_true",
                   help="also run the DML nodes one by one through dmlemu.golden and say whether every bit agrees")
    p.add_argument("--no-timing", action="store_true", help="emulation only: the same bits, estimated times")
    p.set_defaults(handler=cmd_onnx)

    p = sub.add_parser(
        "sweep", help="a grid of timed runs on Dask: operators x dtypes x sizes x layouts x adapters x overrides",
        description="Run every point of a grid (operators x data types x sizes x layouts x adapters x preset "
                    "overrides), each on a fresh emulated GPU, as tasks on a Dask cluster (a local one by default; "
                    "pip install 'dmlemu[sweep]'). Writes DIR/results.csv (one row per point) and summary plots. "
                    "With --graph FILE.json or --onnx MODEL.onnx a point is that whole workload on one adapter and "
                    "--set combination (its timed dispatches summed): 'my graph with half the bandwidth'.")
    p.add_argument("--operators", nargs="+", metavar="OP",
                   help="any operator `dmlemu operators` lists with a kernel, e.g. IDENTITY ADD RELU (default IDENTITY)")
    p.add_argument("--dtypes", nargs="+", metavar="T", help="data types (default FLOAT32)")
    p.add_argument("--sizes", nargs="+", metavar="N",
                   help="elements of a side x side tensor: square numbers, 2^N allowed (default 4096 65536 1048576)")
    p.add_argument("--layouts", nargs="+", metavar="L",
                   help="input layouts: packed, transposed, broadcast, stride2 (default packed)")
    p.add_argument("--graph", metavar="FILE.json",
                   help="sweep a whole DirectML graph (the format of `dmlemu graph`, docs/GRAPHS.md) instead of "
                        "operators: one point per adapter and --set value, its timed dispatches summed")
    p.add_argument("--onnx", metavar="MODEL.onnx",
                   help="sweep a whole ONNX model (seeded inputs, as `dmlemu onnx`) instead of operators: one point "
                        "per adapter and --set value, its timed dispatches summed")
    p.add_argument("--adapters", nargs="+", metavar="KEY", help="adapter presets (default: the default adapter)")
    p.add_argument("--set", action="append", metavar="FIELD=V[,V...]",
                   help="sweep a preset field too, e.g. compute_units=48,96 or dram_bytes_per_second=480G,960G or "
                        "l2_bytes=4Mi,8Mi; repeat for more fields")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="local Dask cluster processes (default 2)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="use the Dask cluster at ADDRESS, e.g. tcp://host:8786")
    p.add_argument("--serial", action="store_true", help="run the points in this process, without Dask")
    p.add_argument("--out", default="dmlemu-sweep-out", metavar="DIR",
                   help="folder for results.csv and the plots (default dmlemu-sweep-out)")
    p.add_argument("--heatmap", nargs=2, metavar=("X", "Y"),
                   help="the heat map's two columns (default: the first two swept --set fields)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--max-points", type=int, default=1000, metavar="N",
                   help="refuse a grid of more than N points before running any (default 1000)")
    p.set_defaults(handler=cmd_sweep)
    return parser


# Per command: the options that size what it allocates, named when the host runs out of memory anyway.
_MEMORY_OPTIONS = {
    "run": ("--sizes", "--trace-max-rows (or drop --trace-all)"),
    "step": ("--sizes", "--groups", "--buffer COUNT"),
    "sweep": ("--sizes", "--max-points", "--workers"),
    "compare": ("--sizes in each run spec",),
    "graph": ("the graph's tensor sizes and node count",),
    "onnx": ("the model's input shapes", "--no-timing"),
    "trace": ("the trace file (fewer rows: record it with --trace-max-rows)",),
    "asm": ("the source's length",),
    "disasm": ("the binary's length",),
}


def _out_of_memory(args):
    """The sentence of a MemoryError in a command: the command, its sizes, and the options to lower."""
    command = getattr(args, "command", None) or "dmlemu"
    sizes = getattr(args, "sizes", None)
    given = f" with --sizes {' '.join(str(n) for n in sizes)}" if sizes else ""
    lower = _MEMORY_OPTIONS.get(command, ("the sizes of its arguments",))
    return (f"the host ran out of memory (MemoryError) in `dmlemu {command}`{given}; lower {', '.join(lower)}, "
            f"or DMLEMU_TIMING_RECORD_BYTES (the timing record of one dispatch)")


def _one_line(error):
    """`error`'s sentence on one visible line: whitespace runs become one space, other control characters (a
    file name's, say) their escapes."""
    return _printable(" ".join(str(error).split()))


def _printable(text):
    """`text` with each control or other unprintable character shown as its escape (one line, visible)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (HResultError, UsageError, AssemblyError, KernelFault) as e:
        print(f"dmlemu: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`dmlemu step | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as e:
        print(f"dmlemu: error: {_one_line(e.strerror or e)}: {_printable(e.filename)}" if e.filename else
              f"dmlemu: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except ValueError as e:
        # open() and os.stat() refuse a path with a NUL character before the file system sees it; any other
        # ValueError is a bug and keeps its traceback.
        if "null byte" not in str(e):
            raise
        print("dmlemu: error: a file name given contains a NUL character (\\x00), which no file name can hold",
              file=sys.stderr)
        return 2
    except MemoryError:
        # The checks above bound what a command allocates; this is the host refusing anyway.
        print(f"dmlemu: error: {_out_of_memory(args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
