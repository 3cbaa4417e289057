"""One registry row per operator: every implemented operator has all its parts (DML_OPERATOR_TYPE value, schema,
desc struct, kernel row with its body block, golden function), and nothing exists in one place but not the others."""
import dataclasses

from dmlemu import golden
from dmlemu.com import Count
from dmlemu.directml import structs
from dmlemu.directml.operators import SCHEMAS
from dmlemu.operator_registry import KERNEL_ROWS, REGISTRY, TEST_BODIES, body_blocks, function_blocks, missing_parts


def test_every_operator_has_all_its_parts():
    assert missing_parts() == []
    assert set(REGISTRY) == {s.name for s in SCHEMAS.values()} == set(KERNEL_ROWS) == set(golden.OPERATORS)


def test_each_desc_struct_is_its_schema_row():
    for schema in SCHEMAS.values():
        desc = schema.desc_type
        assert desc is getattr(structs, f"DML_{schema.name}_OPERATOR_DESC")
        assert desc.__name__ in structs.__all__
        assert desc._fields_ == tuple(f for f, _ in schema.desc_fields())
        assert ("ScaleBias" in desc._fields_) == schema.scale_bias
        assert desc._defaults_ == {f: (None if isinstance(v, Count) else v) for f, v in schema.desc_fields()}


def test_the_check_finds_a_missing_part_a_disagreement_and_an_orphan_block():
    clip = REGISTRY["ELEMENT_WISE_CLIP"]
    add = REGISTRY["ELEMENT_WISE_ADD"]
    registry = {
        "ELEMENT_WISE_CLIP": dataclasses.replace(clip, golden=None),
        "ELEMENT_WISE_ADD": dataclasses.replace(add, kernel=dataclasses.replace(add.kernel, tensors=("ATensor",),
                                                                              scale_bias=True)),
        "ELEMENT_WISE_SUBTRACT": REGISTRY["ELEMENT_WISE_SUBTRACT"],
    }
    blocks = {**{b: "element_wise_bodies.inc" for b in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", *TEST_BODIES)}}
    found = missing_parts(registry, blocks, {})
    assert found == [
        "DML_OPERATOR_ELEMENT_WISE_CLIP has no golden: it needs a golden function registered in dmlemu.golden.",
        "DML_OPERATOR_ELEMENT_WISE_ADD's kernel row has tensors ('ATensor',); its schema has "
        "('ATensor', 'BTensor', 'OutputTensor').",
        "DML_OPERATOR_ELEMENT_WISE_ADD's kernel row has scale_bias=True; its schema has scale_bias=False.",
        'DML_OPERATOR_ELEMENT_WISE_SUBTRACT selects BODY "ELEMENT_WISE_SUBTRACT"; no kernel source has its block '
        '`.if BODY == "ELEMENT_WISE_SUBTRACT"`.',
        'kernels/element_wise_bodies.inc has a block `.if BODY == "ELEMENT_WISE_MULTIPLY"` that no operator '
        'selects.',
    ]


def test_the_blocks_are_read_from_the_kernel_sources():
    blocks = body_blocks()
    assert blocks["ELEMENT_WISE_ADD"] == "element_wise_bodies.inc"
    assert blocks["ELEMENT_WISE_EXP"] == "element_wise_math.inc"
    assert blocks["ELEMENT_WISE_QUANTIZE_LINEAR"] == "element_wise_quantize.inc"
    assert set(TEST_BODIES) <= set(blocks)


def test_the_reduction_family_is_checked_by_its_function_blocks():
    reduce = REGISTRY["REDUCE"]
    functions = dict(function_blocks())
    assert functions["SUM"] == functions["MAX"] == "reduce_functions.inc"
    del functions["MAX"]
    functions["MEDIAN_OF_THREE"] = "reduce_functions.inc"
    kernel = dataclasses.replace(reduce.kernel, functions={**reduce.kernel.functions, "MEDIAN": None})
    found = missing_parts({"REDUCE": dataclasses.replace(reduce, kernel=kernel)}, {}, functions)
    assert found == [
        'DML_OPERATOR_REDUCE serves the function MAX; no kernel source has its block `.if FUNCTION == "MAX"`.',
        "DML_OPERATOR_REDUCE's kernel row serves the function MEDIAN; its schema has no such value.",
        'DML_OPERATOR_REDUCE serves the function MEDIAN; no kernel source has its block `.if FUNCTION == "MEDIAN"`.',
        'kernels/reduce_functions.inc has a block `.if FUNCTION == "MEDIAN_OF_THREE"` that no operator serves.',
    ]
