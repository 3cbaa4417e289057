"""One DirectML operator from plain arguments: the library behind `dmlemu run`, `demo` and `step`.

An `OperatorRun` names an operator, a data type, sizes and the operator's fields (Min, Max,
ScaleBias) the way a command line gives them. From it this module builds the DirectML desc
(`operator_desc`), seeded random inputs (`random_inputs`), the golden model's outputs
(`golden_outputs`), and runs it through the API mirror (`execute`, on top of
dmlemu.convenience.run_operator). Argument problems raise `UsageError` with one sentence; the
mirror's own checks raise `dmlemu.HResultError` unchanged.
"""
from dataclasses import dataclass

import numpy as np

from dmlemu import golden
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_EXECUTION_FLAGS,
    DML_FEATURE_LEVEL, DML_OPERATOR_DESC, DML_OPERATOR_TYPE, DML_SCALE_BIAS, DML_TENSOR_DATA_TYPE, DML_TENSOR_DESC,
    DML_TENSOR_FLAG_NONE, DML_TENSOR_TYPE_BUFFER, DMLCalcBufferTensorSize,
)
from dmlemu.directml.operators import TENSOR_NAMES
from dmlemu.directml.structs import OPERATOR_DESC_TYPES
from dmlemu.presets import DEFAULT_PRESET, PRESETS, preset_by_key

__all__ = ["UsageError", "OperatorRun", "RunResult", "OPERATORS", "parse_operator", "parse_data_type",
           "parse_flags", "parse_feature_level", "preset_for", "tensor_names", "operator_desc",
           "random_inputs", "as_stored", "check_inputs", "golden_outputs", "same_bits", "validate", "execute",
           "format_array", "describe"]

# Short names (what the command line takes) -> DirectML operator names without DML_OPERATOR_.
OPERATORS = {
    "IDENTITY": "ELEMENT_WISE_IDENTITY",
    "THRESHOLD": "ELEMENT_WISE_THRESHOLD",
    "CLIP": "ELEMENT_WISE_CLIP",
    "IF": "ELEMENT_WISE_IF",
}
_SCALAR_FIELDS = {  # which scalar fields each operator's desc has (its tensors: dmlemu.directml TENSOR_NAMES)
    "IDENTITY": ("ScaleBias",),
    "THRESHOLD": ("ScaleBias", "Min"),
    "CLIP": ("ScaleBias", "Min", "Max"),
    "IF": (),
}
_DEFAULT_BOUNDS = {"THRESHOLD": (0.0, None), "CLIP": (-1.0, 1.0)}
_FLAG_ALIASES = {"half-precision": int(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION), "none": 0}


class UsageError(ValueError):
    """An argument dmlemu cannot use; the message is one sentence."""


def _strip(text, prefix):
    text = text.strip().upper()
    return text[len(prefix):] if text.startswith(prefix) else text


def parse_operator(text):
    """'clip', 'ELEMENT_WISE_CLIP' or 'DML_OPERATOR_ELEMENT_WISE_CLIP' -> 'CLIP'."""
    name = _strip(_strip(text, "DML_OPERATOR_"), "ELEMENT_WISE_")
    if name not in OPERATORS:
        raise UsageError(f"operator {text!r} is not one dmlemu runs; choose one of {', '.join(OPERATORS)}")
    return name


def parse_data_type(text):
    """'float16', 'FLOAT16' or 'DML_TENSOR_DATA_TYPE_FLOAT16' -> 'FLOAT16'."""
    name = _strip(text, "DML_TENSOR_DATA_TYPE_")
    if name not in golden.DATA_TYPES:
        raise UsageError(f"data type {text!r} is not a DirectML tensor data type dmlemu runs; "
                         f"choose one of {', '.join(golden.DATA_TYPES)}")
    return name


def parse_flags(text):
    """'half-precision,descriptors-volatile' or C names joined by ',' or '|' -> DML_EXECUTION_FLAGS value."""
    value = 0
    for part in str(text or "").replace("|", ",").split(","):
        part = part.strip()
        if not part:
            continue
        key = part.lower().replace("_", "-")
        if key in _FLAG_ALIASES:
            value |= _FLAG_ALIASES[key]
            continue
        name = "DML_EXECUTION_FLAG_" + _strip(part.replace("-", "_"), "DML_EXECUTION_FLAG_")
        if name not in DML_EXECUTION_FLAGS.__members__:
            known = ", ".join(["half-precision"] + [m[len("DML_EXECUTION_FLAG_"):].lower().replace("_", "-")
                                                    for m in DML_EXECUTION_FLAGS.__members__])
            raise UsageError(f"execution flag {part!r} is not a DML_EXECUTION_FLAGS member; known: {known}")
        value |= int(DML_EXECUTION_FLAGS[name])
    return value


def parse_feature_level(text):
    """'5_0', '5.0', 'DML_FEATURE_LEVEL_5_0' or '0x5000' -> 0x5000."""
    if text is None:
        return None
    t = str(text).strip()
    if t.lower().startswith("0x"):
        value = int(t, 16)
        if value in {int(m) for m in DML_FEATURE_LEVEL}:
            return value
    else:
        name = "DML_FEATURE_LEVEL_" + _strip(t.replace(".", "_"), "DML_FEATURE_LEVEL_")
        if name in DML_FEATURE_LEVEL.__members__:
            return int(DML_FEATURE_LEVEL[name])
    known = ", ".join(m[len("DML_FEATURE_LEVEL_"):] for m in DML_FEATURE_LEVEL.__members__)
    raise UsageError(f"feature level {text!r} is not a DML_FEATURE_LEVEL; known: {known}")


def preset_for(adapter):
    """The AdapterPreset for a preset key (None: the default adapter)."""
    if adapter is None:
        return DEFAULT_PRESET
    try:
        return preset_by_key(adapter)
    except ValueError as error:
        raise UsageError(f"{error} (see `dmlemu adapters`)") from None


def tensor_names(operator):
    """The operator's tensor fields in binding order: inputs, then OutputTensor."""
    return TENSOR_NAMES[OPERATORS[operator]]


@dataclass
class OperatorRun:
    """One operator run as a command line describes it (short names; see the module banner).

    strides: None (packed), or one sequence of element strides for every tensor, or one per tensor
    in binding order (a None entry is packed). min_value / max_value: None means the operator's
    default (THRESHOLD Min 0; CLIP Min -1, Max 1). scale / bias: a ScaleBias when either is given.
    """
    operator: str
    data_type: str
    sizes: tuple
    strides: object = None
    min_value: float | None = None
    max_value: float | None = None
    scale: float | None = None
    bias: float | None = None
    flags: int = 0
    condition_type: str = "UINT8"

    def __post_init__(self):
        self.operator = parse_operator(self.operator)
        self.data_type = parse_data_type(self.data_type)
        self.sizes = tuple(int(s) for s in self.sizes)
        names, fields = tensor_names(self.operator), _SCALAR_FIELDS[self.operator]
        if (self.scale is not None or self.bias is not None) and "ScaleBias" not in fields:
            raise UsageError(f"ELEMENT_WISE_{self.operator} has no ScaleBias; --scale and --bias apply to "
                             f"IDENTITY, THRESHOLD and CLIP")
        if self.min_value is not None and "Min" not in fields:
            raise UsageError(f"ELEMENT_WISE_{self.operator} has no Min; --min applies to THRESHOLD and CLIP")
        if self.max_value is not None and "Max" not in fields:
            raise UsageError(f"ELEMENT_WISE_{self.operator} has no Max; --max applies to CLIP")
        lo, hi = _DEFAULT_BOUNDS.get(self.operator, (None, None))
        if "Min" in fields and self.min_value is None:
            self.min_value = lo
        if "Max" in fields and self.max_value is None:
            self.max_value = hi
        self.strides = self._per_tensor_strides(self.strides, len(names))

    def _per_tensor_strides(self, strides, count):
        if strides is None:
            return [None] * count
        strides = list(strides)
        if not strides or not isinstance(strides[0], (list, tuple, type(None))):
            strides = [strides] * count   # one stride list for every tensor
        if len(strides) == 1:
            strides = strides * count
        if len(strides) != count:
            raise UsageError(f"ELEMENT_WISE_{self.operator} has {count} tensors; give --strides once (for all) "
                             f"or {count} times (one per tensor in binding order), not {len(strides)} times")
        out = []
        for name, s in zip(tensor_names(self.operator), strides):
            if s is not None:
                s = tuple(int(v) for v in s)
                if len(s) != len(self.sizes):
                    raise UsageError(f"{name}: {len(s)} strides were given for {len(self.sizes)} sizes")
            out.append(s)
        return out

    @property
    def scale_bias(self):
        if self.scale is None and self.bias is None:
            return None
        return (1.0 if self.scale is None else float(self.scale), 0.0 if self.bias is None else float(self.bias))

    def tensor_types(self):
        """Data type name of each tensor in binding order."""
        if self.operator == "IF":
            return [self.condition_type, self.data_type, self.data_type, self.data_type]
        return [self.data_type, self.data_type]

    def half_precision(self, preset=None):
        """Whether the kernel computes FLOAT16 in FLOAT16 (the flag, a native-FP16 adapter, FLOAT16 data)."""
        preset = preset or DEFAULT_PRESET
        return (bool(self.flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and preset.native_fp16
                and self.data_type == "FLOAT16")


def _tensor_desc(data_type, sizes, strides):
    dml_type = DML_TENSOR_DATA_TYPE["DML_TENSOR_DATA_TYPE_" + data_type]
    total = DMLCalcBufferTensorSize(dml_type, len(sizes), list(sizes), list(strides) if strides else None)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=dml_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes),
        Strides=list(strides) if strides else None, TotalTensorSizeInBytes=total, GuaranteedBaseOffsetAlignment=0))


def operator_desc(run):
    """The DML_OPERATOR_DESC of an OperatorRun (CreateOperator validates it)."""
    names, fields = tensor_names(run.operator), _SCALAR_FIELDS[run.operator]
    values = {name: _tensor_desc(t, run.sizes, s) for name, t, s in zip(names, run.tensor_types(), run.strides)}
    if "ScaleBias" in fields:
        sb = run.scale_bias
        values["ScaleBias"] = None if sb is None else DML_SCALE_BIAS(Scale=sb[0], Bias=sb[1])
    if "Min" in fields:
        values["Min"] = float(run.min_value)
    if "Max" in fields:
        values["Max"] = float(run.max_value)
    op_type = int(DML_OPERATOR_TYPE["DML_OPERATOR_" + OPERATORS[run.operator]])
    return DML_OPERATOR_DESC(Type=op_type, Desc=OPERATOR_DESC_TYPES[op_type](**values))


def random_inputs(run, seed=0):
    """Seeded inputs, easy to read: floats in quarter steps of [-4, 4], small integers, 0/1 conditions."""
    rng = np.random.default_rng(seed)
    arrays = []
    for name, type_name in zip(tensor_names(run.operator)[:-1], run.tensor_types()[:-1]):
        dtype = golden.DATA_TYPES[type_name]
        if name == "ConditionTensor":
            values = rng.integers(0, 2, run.sizes)
        elif dtype.kind == "f":
            values = rng.integers(-16, 17, run.sizes) / 4.0
        elif dtype.kind == "i":
            values = rng.integers(-100, 101, run.sizes)
        else:
            values = rng.integers(0, 201, run.sizes)
        arrays.append(np.asarray(values).astype(dtype))
    return [as_stored(run, i, a) for i, a in enumerate(arrays)]


def as_stored(run, index, array):
    """The logical tensor that memory holds after `array` is written at tensor `index`'s strides.

    With a stride of 0 (a broadcast) several logical elements share one memory element and the
    last one written wins; this gives the array the kernel and the golden model both really see.
    """
    strides = run.strides[index]
    if strides is None:
        return array
    type_name = run.tensor_types()[index]
    buffer = np.zeros(max(4, golden.calc_buffer_tensor_size(type_name, run.sizes, strides)), dtype=np.uint8)
    golden.scatter(buffer, 0, array, strides)
    return golden.gather(buffer, 0, golden.DATA_TYPES[type_name], run.sizes, strides)


def check_inputs(run, arrays, names=None):
    """Each input array must have its tensor's dtype and element count; returns them in shape."""
    out = []
    fields = tensor_names(run.operator)[:-1]
    if len(arrays) != len(fields):
        raise UsageError(f"ELEMENT_WISE_{run.operator} takes {len(fields)} input(s) ({', '.join(fields)}); "
                         f"{len(arrays)} were given")
    for i, (array, field_name, type_name) in enumerate(zip(arrays, fields, run.tensor_types())):
        source = names[i] if names else f"input {i}"
        dtype = golden.DATA_TYPES[type_name]
        array = np.asarray(array)
        if array.dtype != dtype:
            raise UsageError(f"{field_name} is {type_name}; {source} holds {array.dtype}, not {dtype}")
        count = int(np.prod(run.sizes))
        if array.size != count:
            raise UsageError(f"{field_name} has Sizes {list(run.sizes)} ({count} elements); "
                             f"{source} has shape {array.shape} ({array.size} elements)")
        out.append(as_stored(run, i, array.reshape(run.sizes)))
    return out


def golden_outputs(run, inputs, preset=None):
    """The outputs dmlemu.golden prescribes for these inputs."""
    half = run.half_precision(preset)
    if run.operator == "IDENTITY":
        return [golden.identity(inputs[0], run.scale_bias, half)]
    if run.operator == "THRESHOLD":
        return [golden.threshold(inputs[0], run.min_value, run.scale_bias, half)]
    if run.operator == "CLIP":
        return [golden.clip(inputs[0], run.min_value, run.max_value, run.scale_bias, half)]
    return [golden.if_(*inputs)]


def same_bits(a, b):
    """Bit-for-bit equality (NaN payloads and -0 count)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return bool(np.array_equal(a.view(bits), b.view(bits)))


@dataclass
class RunResult:
    run: OperatorRun
    inputs: list
    outputs: list
    expected: list
    trace: object = None

    @property
    def bit_exact(self):
        return all(same_bits(o, e) for o, e in zip(self.outputs, self.expected))


def validate(run, adapter=None, feature_level=None):
    """Create and compile the operator on a fresh DirectML device, as a program would.

    Raises the mirror's HResultError (E_INVALIDARG with its sentence, ...) for a desc DirectML
    rejects; tools that run kernels without the mirror (`dmlemu step`) call this first.
    """
    from dmlemu.d3d12 import D3D_FEATURE_LEVEL_11_0, D3D12CreateDevice
    from dmlemu.directml import DML_CREATE_DEVICE_FLAG_NONE, DMLCreateDevice
    from dmlemu.dxgi import CreateDXGIFactory1
    preset = preset_for(adapter)
    device = D3D12CreateDevice(CreateDXGIFactory1().EnumAdapters1(PRESETS.index(preset)), D3D_FEATURE_LEVEL_11_0)
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=feature_level)
    dml.CompileOperator(dml.CreateOperator(operator_desc(run)), run.flags)


def execute(run, inputs, *, adapter=None, feature_level=None, trace=None, debug=False, trace_max_rows=None):
    """Run through the API mirror (dmlemu.convenience.run_operator); returns a RunResult.

    trace: None, or a trace detail level ("dispatch", "wave", "instruction", "memory"); the
    RunResult then carries the run's traces.Trace. trace_max_rows: the recorder's rows per table
    (None: its default).
    """
    from dmlemu.convenience import run_operator
    preset = preset_for(adapter)
    inputs = check_inputs(run, inputs)
    kwargs = dict(flags=run.flags, adapter=preset.key, feature_level=feature_level, debug=debug)
    if trace:
        outputs, recorded = run_operator(operator_desc(run), inputs, trace=trace, trace_max_rows=trace_max_rows,
                                         **kwargs)
    else:
        outputs, recorded = run_operator(operator_desc(run), inputs, **kwargs), None
    return RunResult(run, inputs, outputs, golden_outputs(run, inputs, preset), recorded)


def format_array(array, max_elements=64):
    """A small tensor as NumPy prints it on one line per row; large ones summarised."""
    array = np.asarray(array)
    if array.size > max_elements:
        flat = array.reshape(-1)
        return (f"{array.dtype} shape {array.shape}: "
                f"{np.array2string(flat[:8], separator=' ')[:-1]} ... {np.array2string(flat[-4:], separator=' ')[1:]}")
    return np.array2string(array, separator=" ", max_line_width=100)


def describe(run):
    """One line: 'ELEMENT_WISE_CLIP FLOAT16 Sizes {2, 4}, ScaleBias (2, 0.5), Min -1, Max 1'."""
    parts = [f"ELEMENT_WISE_{run.operator} {run.data_type} Sizes {{{', '.join(map(str, run.sizes))}}}"]
    for name, strides in zip(tensor_names(run.operator), run.strides):
        if strides is not None:
            parts.append(f"{name}.Strides {{{', '.join(map(str, strides))}}}")
    if run.scale_bias is not None:
        parts.append(f"ScaleBias ({run.scale_bias[0]:g}, {run.scale_bias[1]:g})")
    if run.min_value is not None:
        parts.append(f"Min {run.min_value:g}")
    if run.max_value is not None:
        parts.append(f"Max {run.max_value:g}")
    if run.flags:
        parts.append(f"flags {DML_EXECUTION_FLAGS(run.flags).name}")
    return ", ".join(parts)
