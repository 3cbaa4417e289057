"""Every operator with a kernel through `dmlemu run`'s library (tools/operators.py) and dmlemu.run_operator.

The operator list is not written here: it is every schema kernels.driver.has_kernel answers yes for, so an
operator that gains a kernel is tested the day it lands. Each runs through the API mirror on random inputs
and must match dmlemu.golden.run bit for bit; every data type its first input accepts at
DML_FEATURE_LEVEL_6_4 either runs bit-exact or is answered E_NOTIMPL (a valid desc no kernel variant serves
yet), never anything else. Then the names, the derived tensor types, attributes from text and their
sentences, broadcasting by --input-sizes, and the command line on a few of the new operators.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlemu
from dmlemu import golden
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_ADD_OPERATOR_DESC, DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER,
)
from dmlemu.directml.enums import DML_FEATURE_LEVEL_6_4
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.errors import E_NOTIMPL, HResultError
from dmlemu.kernels.driver import has_kernel
from dmlemu.kernels.element_wise_ops import OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.tools.operators import (API_ONLY, OPERATORS, OUTPUT_SIZES_REQUIRED, OperatorRun, UsageError, describe,
                                    execute, golden_outputs, parse_operator, random_inputs, same_bits, sizes_field)
from cli_runner import cli, run_on_two_data_types
from operator_cases import scaled

RUNNABLE = sorted(OPERATORS)
# the element-wise operators (all tensors of one Sizes, --input-sizes broadcasts); the others are
# tests/tools/test_run_shaped_operators.py's
ELEMENT_WISE = [short for short in RUNNABLE if OPERATORS[short] in ELEMENT_WISE_ROWS]


def _run(short, data_type=None, sizes=(2, 3), **kwargs):
    if SCHEMAS_BY_NAME[OPERATORS[short]].name == "CAST" and "output_type" not in kwargs:
        kwargs["output_type"] = "FLOAT16" if data_type != "FLOAT16" else "INT8"
    if short not in ELEMENT_WISE:
        schema = SCHEMAS_BY_NAME[OPERATORS[short]]
        if schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[sizes_field(schema)].min_dims > len(sizes):
            sizes = (1, 4, 4, 4)     # N, C, H, W: a 3 x 3 filter, 2 x 2 windows and blocks of 2 all fit
        if short in OUTPUT_SIZES_REQUIRED:
            kwargs.setdefault("output_sizes", sizes[:2] + tuple(2 * s for s in sizes[2:]))
    return OperatorRun(short, data_type, sizes, **kwargs)


def test_the_list_is_every_operator_with_a_kernel():
    # every operator with a kernel runs from the command line; MAX_UNPOOLING, whose output may have any Sizes,
    # with --output-sizes
    assert sorted(OPERATORS.values()) == sorted(n for n in SCHEMAS_BY_NAME if has_kernel(n))
    assert API_ONLY == [] and OUTPUT_SIZES_REQUIRED == ["MAX_UNPOOLING"]
    assert {"ADD", "RELU", "CAST", "LOGICAL_GREATER_THAN", "ACTIVATION_IDENTITY", "IDENTITY", "GEMM", "REDUCE",
            "ARGMAX", "SOFTMAX", "MAX_POOLING", "CONVOLUTION", "MEAN_VARIANCE_NORMALIZATION1", "SLICE", "PADDING",
            "TILE", "TOP_K", "GATHER", "JOIN", "MULTIHEAD_ATTENTION"} <= set(OPERATORS)
    with pytest.raises(UsageError, match=r"^DML_OPERATOR_MAX_UNPOOLING's OutputTensor may have any Sizes \(no shape "
                                         r"rule gives them\): give --output-sizes N N ..., e.g. --output-sizes "
                                         r"1 2 4 4$"):
        OperatorRun("max_unpooling", None, (1, 2, 2, 2))


@pytest.mark.parametrize("short", RUNNABLE)
def test_every_operator_runs_bit_exact_with_its_defaults(short):
    run = _run(short)
    result = execute(run, random_inputs(run, 5))
    assert result.bit_exact, describe(run)
    assert result.outputs[0].dtype == golden.DATA_TYPES[run.output_type]


def test_every_data_type_runs_bit_exact_or_is_not_implemented():
    """Each operator on two types its first input accepts at DML_FEATURE_LEVEL_6_4 (FLOAT16 where it takes it,
    and the last type of its row: a narrow integer for most), the first input broadcast: bit-exact, or
    E_NOTIMPL with its sentence (the hypothesis test below draws the other types)."""
    def make_run(short, data_type):
        first = SCHEMAS_BY_NAME[OPERATORS[short]].inputs[0].field
        return _run(short, data_type, (2, 3), input_sizes={first: (1, 3)})

    exact, not_implemented = run_on_two_data_types(ELEMENT_WISE, lambda schema: schema.inputs[0].field, make_run, 9)
    assert exact >= 80 and len(not_implemented) <= 10, (exact, not_implemented)


def test_every_float16_operator_with_the_half_precision_flag_and_scale_bias():
    """FLOAT16 with DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION on a native-FP16 adapter (every step
    rounds to FLOAT16), a ScaleBias wherever the desc has one: the golden model follows the same flag."""
    count = 0
    for short in ELEMENT_WISE:
        schema = SCHEMAS_BY_NAME[OPERATORS[short]]
        if "FLOAT16" not in schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[schema.inputs[0].field].data_types:
            continue
        extra = dict(scale=0.3, bias=0.1) if schema.scale_bias else {}
        run = _run(short, "FLOAT16", (3, 5), flags=1, **extra)
        result = execute(run, random_inputs(run, 1), adapter="rtx3070")
        assert result.bit_exact, describe(run)
        count += 1
    assert count >= 40


@settings(max_examples=scaled(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_operators_ranks_broadcasts_and_seeds(data):
    short = data.draw(st.sampled_from(ELEMENT_WISE))
    schema = SCHEMAS_BY_NAME[OPERATORS[short]]
    types = schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[schema.inputs[0].field].data_types
    data_type = data.draw(st.sampled_from(types))
    sizes = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    broadcast = {}
    for role in schema.inputs:
        if role.field not in schema.single_element and data.draw(st.booleans()):
            broadcast[role.field] = tuple(data.draw(st.sampled_from([1, s])) for s in sizes)
    run = _run(short, data_type, sizes, input_sizes=broadcast)
    try:
        result = execute(run, random_inputs(run, data.draw(st.integers(0, 1000))))
    except HResultError as error:
        assert error.hresult == E_NOTIMPL, (describe(run), error)
        return
    assert result.bit_exact, describe(run)


# ---- names --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, short", [
    ("add", "ADD"), ("ELEMENT_WISE_ADD", "ADD"), ("DML_OPERATOR_ELEMENT_WISE_ADD", "ADD"), (" Add ", "ADD"),
    ("relu", "RELU"), ("ACTIVATION_RELU", "RELU"), ("DML_OPERATOR_ACTIVATION_RELU", "RELU"),
    ("leaky-relu", "LEAKY_RELU"), ("identity", "IDENTITY"), ("ELEMENT_WISE_IDENTITY", "IDENTITY"),
    ("ACTIVATION_IDENTITY", "ACTIVATION_IDENTITY"), ("cast", "CAST"), ("DML_OPERATOR_CAST", "CAST"),
])
def test_operator_names(text, short):
    assert parse_operator(text) == short


def test_every_name_and_short_name_round_trips():
    for short, name in OPERATORS.items():
        assert parse_operator(name) == short and parse_operator("DML_OPERATOR_" + name) == short
        assert parse_operator(short.lower()) == short


@pytest.mark.parametrize("text, sentence", [
    ("FOO", "operator 'FOO' is not a DirectML operator dmlemu knows; `dmlemu operators` lists the"),
    ("", "operator '' is not a DirectML operator dmlemu knows"),
])
def test_unknown_operator_sentences(text, sentence):
    with pytest.raises(UsageError) as info:
        parse_operator(text)
    assert str(info.value).startswith(sentence)


def test_an_operator_without_a_kernel_is_named_as_such():
    pending = sorted(n for n in SCHEMAS_BY_NAME if not has_kernel(n))
    if not pending:
        pytest.skip("every operator has a kernel")
    with pytest.raises(UsageError) as info:
        parse_operator(pending[0])
    assert str(info.value).startswith(f"DML_OPERATOR_{pending[0]} has no kernel in dmlemu yet (CreateOperator "
                                      f"validates its desc and answers E_NOTIMPL)")


# ---- tensor types -------------------------------------------------------------------------------------
@pytest.mark.parametrize("short, kwargs, types", [
    ("IF", dict(data_type="INT32"), ["UINT8", "INT32", "INT32", "INT32"]),
    ("IF", {}, ["UINT8", "FLOAT32", "FLOAT32", "FLOAT32"]),
    ("LOGICAL_GREATER_THAN", dict(data_type="INT16"), ["INT16", "INT16", "UINT8"]),
    ("LOGICAL_EQUALS", dict(output_type="UINT32"), ["FLOAT32", "FLOAT32", "UINT32"]),
    ("IS_NAN", dict(data_type="FLOAT16"), ["FLOAT16", "UINT8"]),
    ("BIT_COUNT", dict(data_type="UINT16"), ["UINT16", "UINT8"]),
    ("CAST", dict(data_type="INT8", output_type="FLOAT64"), ["INT8", "FLOAT64"]),
    ("LOGICAL_AND", {}, ["UINT32", "UINT32", "UINT32"]),
    ("THRESHOLD", dict(data_type="FLOAT64"), ["FLOAT64", "FLOAT64"]),   # refused by CreateOperator, not here
])
def test_tensor_types_come_from_the_support_tables(short, kwargs, types):
    assert OperatorRun(short, sizes=(2,), **kwargs).tensor_types() == types


def test_cast_needs_an_output_type():
    with pytest.raises(UsageError, match=r"^CAST needs --output-dtype: the OutputTensor's data type"):
        OperatorRun("CAST", "FLOAT32", (4,))


# ---- attributes ----------------------------------------------------------------------------------------
def test_attributes_from_text_reach_the_kernel_and_the_golden_model():
    cases = [
        ("ROUND", dict(attributes={"RoundingMode": "TOWARD_ZERO"}), "RoundingMode TOWARD_ZERO"),
        ("ROUND", dict(attributes={"roundingmode": "2"}), "RoundingMode TOWARD_INFINITY"),
        ("IS_INFINITY", dict(attributes={"InfinityMode": "DML_IS_INFINITY_MODE_NEGATIVE"}), "InfinityMode NEGATIVE"),
        ("LEAKY_RELU", dict(attributes={"Alpha": "0.125"}), "Alpha 0.125"),
        ("SHRINK", dict(attributes={"Bias": "1", "Threshold": "2"}), "Bias 1, Threshold 2"),
        ("CLIP1", dict(data_type="INT8", min_value=-3, max_value=40), "MinMaxDataType INT8, Min -3, Max 40"),
        ("CLIP_GRAD1", dict(data_type="UINT16", attributes={"Max": "0x10"}), "Min 0, Max 16"),
        ("ADD1", dict(fused="leaky_relu", fused_attributes={"Alpha": "0.5"}),
         "FusedActivation ACTIVATION_LEAKY_RELU (Alpha 0.5)"),
        ("THRESHOLD", {}, "Min 0"),
        ("CLIP", {}, "Min -1, Max 1"),
    ]
    for short, kwargs, text in cases:
        run = OperatorRun(short, kwargs.pop("data_type", None), (4, 4), **kwargs)
        assert text in describe(run)
        result = execute(run, random_inputs(run, 3))
        assert result.bit_exact, describe(run)
    # The attribute changes the result (so the check above could fail): ROUND's modes differ on 0.5 steps.
    x = [np.array([0.5, 1.5, -0.5, -2.5], dtype=np.float32)]
    outs = {mode: execute(OperatorRun("ROUND", None, (4,), attributes={"RoundingMode": mode}), x).outputs[0]
            for mode in ("HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY")}
    assert outs["HALVES_TO_NEAREST_EVEN"].tolist() == [0.0, 2.0, -0.0, -2.0]
    assert outs["TOWARD_ZERO"].tolist() == [0.0, 1.0, -0.0, -2.0]
    assert outs["TOWARD_INFINITY"].tolist() == [1.0, 2.0, -1.0, -3.0]


@pytest.mark.parametrize("short, kwargs, sentence", [
    ("ROUND", dict(attributes={"RoundingMode": "SIDEWAYS"}),
     "--attr RoundingMode=SIDEWAYS: RoundingMode of DML_OPERATOR_ELEMENT_WISE_ROUND is a DML_ROUNDING_MODE; "
     "'SIDEWAYS' is not one of its values: HALVES_TO_NEAREST_EVEN (0), TOWARD_ZERO (1), TOWARD_INFINITY (2)"),
    ("ROUND", dict(attributes={"RoundingMode": "7"}),
     "--attr RoundingMode=7: RoundingMode of DML_OPERATOR_ELEMENT_WISE_ROUND is a DML_ROUNDING_MODE; 7 is not "
     "one of its values: HALVES_TO_NEAREST_EVEN (0), TOWARD_ZERO (1), TOWARD_INFINITY (2)"),
    ("LEAKY_RELU", dict(attributes={"Alpha": "abc"}),
     "--attr Alpha=abc: Alpha of DML_OPERATOR_ACTIVATION_LEAKY_RELU is a FLOAT; 'abc' is not a number"),
    ("ADD", dict(attributes={"Alpha": "1"}),
     "--attr Alpha: DML_OPERATOR_ELEMENT_WISE_ADD has no attribute Alpha; its attributes: none"),
    ("ROUND", dict(attributes={"Alpha": "1"}),
     "--attr Alpha: DML_OPERATOR_ELEMENT_WISE_ROUND has no attribute Alpha; its attributes: RoundingMode"),
    ("CLIP1", dict(data_type="UINT8", attributes={"Max": "300"}),
     "--attr Max=300: Max of DML_OPERATOR_ELEMENT_WISE_CLIP1 is a DML_SCALAR_UNION read as UINT8; '300' is "
     "outside its range 0 to 255"),
    ("CLIP1", dict(data_type="INT8", attributes={"Min": "1.5"}),
     "--attr Min=1.5: Min of DML_OPERATOR_ELEMENT_WISE_CLIP1 is a DML_SCALAR_UNION read as INT8; '1.5' is not "
     "an integer"),
    ("CLIP", dict(min_value=1.0, attributes={"min": "2"}), "--min and --attr Min both give Min; give it once"),
    ("ADD", dict(scale=2.0),
     "ELEMENT_WISE_ADD has no ScaleBias; --scale and --bias apply to IDENTITY, THRESHOLD, CLIP, ABS"),
    ("SHRINK", dict(bias=2.0), "(its own Bias field: --attr Bias=V)"),
    ("ADD", dict(min_value=0.0), "ELEMENT_WISE_ADD has no Min; --min applies to THRESHOLD, CLIP, CLIP1"),
    ("ADD", dict(fused="relu"), "ELEMENT_WISE_ADD has no FusedActivation; --fused applies to ADD1"),
    ("ADD1", dict(fused="softmax"), "--fused 'softmax' is not an activation DirectML can fuse; choose one of "
                                    "LINEAR, SIGMOID"),
    ("ADD1", dict(fused_attributes={"Alpha": "1"}),
     "--fused-attr needs --fused: DML_OPERATOR_ELEMENT_WISE_ADD1 has no FusedActivation to give attributes to"),
    ("ADD1", dict(fused="relu", fused_attributes={"Alpha": "1"}),
     "--fused-attr Alpha: DML_OPERATOR_ACTIVATION_RELU has no attribute Alpha; its attributes: none"),
    ("ADD", dict(input_sizes={"C": (1, 3)}),
     "--input-sizes names 'C'; DML_OPERATOR_ELEMENT_WISE_ADD's input tensors are ATensor, BTensor"),
    ("ADD", dict(input_sizes={"B": (3, 3)}),
     "--input-sizes BTensor [3, 3] does not broadcast to --sizes [2, 3]: dimension 0 is 3; it must be 1 or 2"),
    ("ADD", dict(input_sizes={"B": (1, 2, 3)}),
     "--input-sizes BTensor: 3 sizes were given for a tensor of 2 dimensions (--sizes)"),
    ("ADD", dict(input_sizes={"B": (1, 3)}, strides=[3, 1]),
     "--input-sizes and --strides both give BTensor's layout; give one"),
    ("QUANTIZED_LINEAR_ADD", dict(input_sizes={"OutputZeroPointTensor": (2,)}),
     "--input-sizes OutputZeroPointTensor: ELEMENT_WISE_QUANTIZED_LINEAR_ADD's OutputZeroPointTensor holds one "
     "element, so it has no sizes to broadcast"),
])
def test_bad_attributes_and_options_are_one_sentence(short, kwargs, sentence):
    with pytest.raises(UsageError) as info:
        OperatorRun(short, kwargs.pop("data_type", None), (2, 3), **kwargs)
    assert sentence in str(info.value)
    assert "\n" not in str(info.value)


def test_a_mismatched_min_max_type_is_the_mirror_s_sentence():
    run = OperatorRun("CLIP1", "INT8", (4,), attributes={"MinMaxDataType": "FLOAT32"})
    with pytest.raises(HResultError, match=r"MinMaxDataType is DML_TENSOR_DATA_TYPE_FLOAT32; it must match "
                                           r"OutputTensor.DataType \(DML_TENSOR_DATA_TYPE_INT8\)"):
        execute(run, random_inputs(run))


# ---- broadcasting -----------------------------------------------------------------------------------------
def test_input_sizes_broadcast_through_stride_zero():
    run = OperatorRun("add", "INT32", (2, 3), input_sizes={"BTensor": (1, 3), "a": (2, 1)})
    assert run.strides == [(1, 0), (0, 1), None]
    a = np.array([[10], [20]], dtype=np.int32).repeat(3, axis=1)
    b = np.array([[1, 2, 3]], dtype=np.int32).repeat(2, axis=0)
    result = execute(run, [a, b])
    assert result.bit_exact and result.outputs[0].tolist() == [[11, 12, 13], [21, 22, 23]]


def test_an_input_file_may_hold_just_its_own_sizes(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    np.save(tmp_path / "b.npy", np.array([10.0, 20.0, 30.0], dtype=np.float32))
    status, out, err = cli("run", "add", "--sizes", 2, 3, "--input-sizes", "B=3", "--input", tmp_path / "a.npy",
                           tmp_path / "b.npy", "--output", tmp_path / "y.npy")
    assert status == 0, err
    assert np.load(tmp_path / "y.npy").tolist() == [[10.0, 21.0, 32.0], [13.0, 24.0, 35.0]]
    status, out, err = cli("run", "add", "--sizes", 2, 3, "--input", tmp_path / "a.npy", tmp_path / "b.npy")
    assert status == 2 and err.strip() == (f"dmlemu: error: BTensor has Sizes [2, 3] (6 elements); "
                                           f"{tmp_path / 'b.npy'} has shape (3,) (3 elements)")


# ---- dmlemu.run_operator on hand-written descs ------------------------------------------------------------
def _tensor(data_type, sizes, strides=None, element=4):
    count = sum((s - 1) * t for s, t in zip(sizes, strides)) + 1 if strides else int(np.prod(sizes))
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Sizes=list(sizes), Strides=strides, TotalTensorSizeInBytes=-(-count * element // 4) * 4))


def test_run_operator_on_new_operators_matches_golden():
    a = np.array([[1.0, -2.0, 3.5], [0.0, np.nan, -0.0]], dtype=np.float32)
    row = np.array([[0.5, 2.0, -1.0]], dtype=np.float32)
    b = np.repeat(row, 2, axis=0)
    add = DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
        ATensor=_tensor(DML_TENSOR_DATA_TYPE_FLOAT32, (2, 3)), BTensor=_tensor(DML_TENSOR_DATA_TYPE_FLOAT32, (2, 3),
                                                                                [0, 1]),
        OutputTensor=_tensor(DML_TENSOR_DATA_TYPE_FLOAT32, (2, 3)))
    [y] = dmlemu.run_operator(add, [a, b])
    assert same_bits(y, golden.run("ELEMENT_WISE_ADD", [a, b]))
    greater = DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC(
        ATensor=_tensor(DML_TENSOR_DATA_TYPE_FLOAT32, (2, 3)), BTensor=_tensor(DML_TENSOR_DATA_TYPE_FLOAT32, (2, 3)),
        OutputTensor=_tensor(DML_TENSOR_DATA_TYPE_UINT8, (2, 3), element=1))
    [z] = dmlemu.run_operator(greater, [a, b])
    assert z.dtype == np.uint8 and z.tolist() == [[1, 0, 1], [0, 0, 1]]
    assert same_bits(z, golden.run("ELEMENT_WISE_LOGICAL_GREATER_THAN", [a, b], output_type="UINT8"))


def test_golden_outputs_follow_the_half_precision_flag():
    run = OperatorRun("ADD", "FLOAT16", (64,), flags=1)
    inputs = [np.linspace(-3, 3, 64).astype(np.float16), np.full(64, 1e-3, dtype=np.float16)]
    result = execute(run, inputs, adapter="rtx3070")   # native FP16: every step rounds to FLOAT16
    assert result.bit_exact
    from dmlemu.presets import preset_by_key
    wide = golden_outputs(OperatorRun("ADD", "FLOAT16", (64,)), inputs, preset_by_key("rtx3070"))[0]
    assert same_bits(result.outputs[0], golden.add(*inputs, half_precision=True))
    assert same_bits(wide, golden.add(*inputs))


# ---- the command line -------------------------------------------------------------------------------------
def test_cli_runs_new_operators(tmp_path):
    status, out, err = cli("run", "add", "--dtype", "INT16", "--sizes", 2, 3, "--input-sizes", "B=1,3",
                           "--output", tmp_path / "y.npy", "--seed", 4)
    assert status == 0 and err == "", err
    assert "ELEMENT_WISE_ADD INT16 Sizes {2, 3}, BTensor.Strides {0, 1}" in out
    assert "bit-exact against dmlemu.golden: yes" in out
    run = OperatorRun("add", "INT16", (2, 3), input_sizes={"B": (1, 3)})
    a, b = random_inputs(run, 4)
    assert (b[0] == b[1]).all()
    assert same_bits(np.load(tmp_path / "y.npy"), golden.add(a, b))

    status, out, err = cli("run", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN", "--sizes", 5)
    assert status == 0 and "OutputTensor UINT8" in out and "bit-exact against dmlemu.golden: yes" in out
    status, out, err = cli("run", "cast", "--dtype", "float32", "--output-dtype", "float16", "--sizes", 4,
                           "--output", tmp_path / "h.npy")
    assert status == 0 and "CAST FLOAT32 Sizes {4}, OutputTensor FLOAT16" in out
    assert np.load(tmp_path / "h.npy").dtype == np.float16
    status, out, err = cli("run", "round", "--sizes", 4, "--attr", "RoundingMode=TOWARD_ZERO")
    assert status == 0 and "RoundingMode TOWARD_ZERO" in out
    status, out, err = cli("run", "ADD1", "--sizes", 4, "--fused", "LEAKY_RELU", "--fused-attr", "Alpha=0.1")
    assert status == 0 and "FusedActivation ACTIVATION_LEAKY_RELU (Alpha 0.1)" in out
    assert "bit-exact against dmlemu.golden: yes" in out
    status, out, err = cli("step", "--operator", "relu", "--dtype", "FLOAT32", "--sizes", 2, 3)
    assert status == 0 and err == "" and "ACTIVATION_RELU FLOAT32 Sizes {2, 3}" in out
    assert "(bit-exact against dmlemu.golden)" in out


@pytest.mark.parametrize("argv, line", [
    (("run", "round", "--sizes", 4, "--attr", "RoundingMode=UP"),
     "dmlemu: error: --attr RoundingMode=UP: RoundingMode of DML_OPERATOR_ELEMENT_WISE_ROUND is a DML_ROUNDING_MODE; "
     "'UP' is not one of its values: HALVES_TO_NEAREST_EVEN (0), TOWARD_ZERO (1), TOWARD_INFINITY (2)"),
    (("run", "relu", "--sizes", 4, "--attr", "Alpha"),
     "dmlemu: error: --attr 'Alpha' is not NAME=VALUE; give e.g. --attr Alpha=0.1"),
    (("run", "leaky_relu", "--sizes", 4, "--attr", "Alpha=1", "--attr", "alpha=2"),
     "dmlemu: error: --attr gives alpha twice"),
    (("run", "cast", "--sizes", 4),
     "dmlemu: error: CAST needs --output-dtype: the OutputTensor's data type (e.g. --dtype FLOAT32 "
     "--output-dtype FLOAT16)"),
    (("run", "add", "--sizes", 4, "--input-sizes", "B"),
     "dmlemu: error: --input-sizes 'B' is not TENSOR=N[,N...]; give e.g. --input-sizes B=1,4 (BTensor's own "
     "sizes, broadcast to --sizes through stride 0)"),
])
def test_cli_bad_attribute_lines(argv, line):
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert err.strip() == line


def test_operators_command_lists_every_operator_that_runs():
    status, out, err = cli("operators")
    assert status == 0
    heads = [line.split()[0] for line in out.splitlines() if " DML_OPERATOR_" in line and "since" in line]
    assert sorted(heads) == RUNNABLE
    add = out.splitlines().index(next(l for l in out.splitlines() if l.startswith("ADD ")))
    assert "ATensor, BTensor: FLOAT32 FLOAT16 INT64" in out.splitlines()[add + 1]
    assert "RoundingMode (HALVES_TO_NEAREST_EVEN | TOWARD_ZERO | TOWARD_INFINITY; default HALVES_TO_NEAREST_EVEN)" \
        in out
    assert "Alpha (FLOAT; default 0.2)" in out and "Min (FLOAT; default 0)" in out   # LEAKY_RELU, THRESHOLD
    assert "-> UINT32 UINT8" in out     # comparisons write UINT32 or UINT8
    status, old, _ = cli("operators", "--feature-level", "2_0")
    assert status == 0 and "DML_FEATURE_LEVEL_2_0" in old and old != out
