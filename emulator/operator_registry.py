"""The operator registry: every operator dmlemu implements, its parts joined by its DirectML name.

An operator is one row in each place one of its parts lives, each keyed by the name without DML_OPERATOR_
(e.g. ELEMENT_WISE_CLIP):

  type value       dmlemu.directml.enums.OPERATOR_TYPE_TABLE (DirectML.h: every operator, implemented or not)
  schema, desc     one `_op(...)` row of dmlemu.directml.operators: DirectML's tables for CreateOperator; the row
                   also defines the desc struct DML_<NAME>_OPERATOR_DESC (dmlemu.directml.structs)
  kernel           one `_row(...)` of dmlemu.kernels.element_wise_ops; an element_wise.s body is the block
                   `.if BODY == "<body>"` of kernels/element_wise_bodies.inc (element_wise_math.inc,
                   element_wise_quantize.inc); or, for the reduction family, one row of
                   dmlemu.kernels.reduce_ops, each function it serves the block `.if FUNCTION == "<function>"`
                   of kernels/reduce_functions.inc; or, for matrix multiplication, one row of
                   dmlemu.kernels.gemm_ops (its source, kernels/gemm.s, selects no body); or, for the softmax
                   family and the cumulative scans, one row of dmlemu.kernels.softmax_ops or scan_ops (their
                   sources, softmax.s and scan.s, select by the row's KIND or COMBINE, no body); or, for the
                   normalizations, one row of dmlemu.kernels.normalization_ops (kernels/normalization.s); or, for
                   the data movement operators, one row of dmlemu.kernels.data_movement_ops (kernels/copy_region.s);
                   or, for convolution and pooling, one row of dmlemu.kernels.window_ops (kernels/window.s, no body
                   either)
  golden           one `@operator(name=...)` registration in dmlemu.golden

`REGISTRY` joins them, one `RegisteredOperator` per name any part knows; `missing_parts()` names, one sentence
each, every part an operator lacks, every disagreement between its schema and its kernel row (tensors,
ScaleBias, attributes, whether a FusedActivation may name it), every body a variant selects that no block
defines and every block no operator selects, and for the reduction family every function a row serves that
the schema's enum lacks or no `.if FUNCTION` block defines, and every such block no row serves
(tests/package/test_operator_registry.py requires none).
"""
import os
import re
from dataclasses import dataclass

from dmlemu import golden
from dmlemu.directml.enums import DML_OPERATOR_TYPE, OPERATOR_INTRODUCED_AT
from dmlemu.directml.operators import FUSABLE_ACTIVATIONS, SCHEMAS_BY_NAME
from dmlemu.directml.structs import OPERATOR_DESC_TYPES
from dmlemu.kernels import driver
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.kernels.reduce_ops import OPERATORS as REDUCTION_ROWS

# every kernel row, of every family (kernels/driver.FAMILIES lists the families beside the element-wise table)
KERNEL_ROWS = {**ELEMENT_WISE_ROWS, **{name: row for family in driver.FAMILIES for name, row in family.OPERATORS.items()}}

__all__ = ["RegisteredOperator", "REGISTRY", "KERNEL_ROWS", "TEST_BODIES", "body_blocks", "function_blocks",
           "selected_bodies", "missing_parts"]

# Blocks of the kernel sources that no operator selects: bodies a test assembles on its own
# (tests/kernels/test_element_wise_ops.py: the sum of every input, to check nine-tensor addressing).
TEST_BODIES = ("ADD_EVERY_INPUT",)
_BLOCK = re.compile(r'BODY == "([A-Z0-9_]+)"')
_FUNCTION_BLOCK = re.compile(r'FUNCTION == "([A-Z0-9_]+)"')


@dataclass(frozen=True)
class RegisteredOperator:
    """One operator's parts (None where a part is missing)."""
    name: str                   # without DML_OPERATOR_
    type: object                # the DML_OPERATOR_TYPE member
    schema: object              # dmlemu.directml.operators.OperatorSchema
    desc_type: object           # the desc struct class
    kernel: object              # element_wise_ops.ElementWiseOperator, reduce_ops.ReductionOperator, gemm_ops.GemmOperator
                                # or window_ops.WindowOperator
    golden: object              # dmlemu.golden.registry.GoldenOperator

    @property
    def introduced_at(self):
        return None if self.type is None else OPERATOR_INTRODUCED_AT[int(self.type)]


def _join(name):
    op_type = DML_OPERATOR_TYPE.__members__.get("DML_OPERATOR_" + name)
    return RegisteredOperator(
        name=name, type=op_type, schema=SCHEMAS_BY_NAME.get(name),
        desc_type=None if op_type is None else OPERATOR_DESC_TYPES.get(int(op_type)),
        kernel=KERNEL_ROWS.get(name), golden=golden.OPERATORS.get(name))


REGISTRY = {name: _join(name) for name in dict.fromkeys([*SCHEMAS_BY_NAME, *KERNEL_ROWS, *golden.OPERATORS])}


def body_blocks(kernel_dir=driver.KERNEL_DIR, pattern=_BLOCK):
    """{body name: the kernel source file with its `.if BODY == "<name>"` block}."""
    blocks = {}
    for file in sorted(os.listdir(kernel_dir)):
        if file.endswith((".inc", ".s")):
            with open(os.path.join(kernel_dir, file), encoding="utf-8") as f:
                for name in pattern.findall(f.read()):
                    blocks.setdefault(name, file)
    return blocks


def function_blocks(kernel_dir=driver.KERNEL_DIR):
    """{function name: the kernel source file with its `.if FUNCTION == "<name>"` block} (the reductions)."""
    return body_blocks(kernel_dir, _FUNCTION_BLOCK)


def _reduction_problems(where, op, functions):
    """The reduction family's checks of one operator: every function its row serves is a value of the schema's
    enum attribute and has its `.if FUNCTION` block."""
    problems = []
    values = {v for entry in op.schema.support_by for v in entry.values} if op.schema is not None else set()
    if op.kernel.function is not None:       # a single reduction (ARGMAX): its own function only
        values = {op.kernel.function}
    for function in op.kernel.functions:
        if op.schema is not None and function not in values:
            problems.append(f"{where}'s kernel row serves the function {function}; its schema has no such value.")
        if function not in functions:
            problems.append(f'{where} serves the function {function}; no kernel source has its block '
                            f'`.if FUNCTION == "{function}"`.')
    return problems


def selected_bodies(row):
    """The BODY symbols the driver gives the variants of kernel row `row` (every data type it serves), and the
    row's name where a FusedActivation may name it (the tail then selects the body by that name)."""
    bodies = set()
    for types in row.type_combos or [driver.tensor_types(row.name, t) for t in row.types]:
        symbols = driver.variant_symbols(row.name, types[row.type_tensor], True, False, False, types=types)
        bodies.add(symbols["BODY"])
    if row.name in FUSABLE:
        bodies.add(row.name)
    return bodies


def missing_parts(registry=None, blocks=None, functions=None):
    """One sentence per missing part or disagreement (see the module docstring); [] when every operator is whole."""
    registry = REGISTRY if registry is None else registry
    blocks = body_blocks() if blocks is None else blocks
    functions = function_blocks() if functions is None else functions
    problems, selected, served = [], set(), set()
    for name, op in registry.items():
        where = f"DML_OPERATOR_{name}"
        if op.type is None:
            problems.append(f"{where} is no DML_OPERATOR_TYPE value (dmlemu.directml.enums.OPERATOR_TYPE_TABLE).")
        for part, place in (("schema", "a schema row in dmlemu.directml.operators"),
                            ("desc_type", "a desc struct (its schema row defines it)"),
                            ("kernel", "a kernel row in dmlemu.kernels.element_wise_ops"),
                            ("golden", "a golden function registered in dmlemu.golden")):
            if getattr(op, part) is None:
                problems.append(f"{where} has no {part}: it needs {place}.")
        if op.schema is not None and op.kernel is not None:
            schema_tensors = tuple(t.field for t in op.schema.tensors)
            if op.kernel.tensors != schema_tensors:
                problems.append(f"{where}'s kernel row has tensors {op.kernel.tensors}; its schema has "
                                f"{schema_tensors}.")
            if op.kernel.scale_bias != op.schema.scale_bias:
                problems.append(f"{where}'s kernel row has scale_bias={op.kernel.scale_bias}; its schema has "
                                f"scale_bias={op.schema.scale_bias}.")
            fields = {a.field for a in op.schema.attributes}
            for field in (*op.kernel.bounds, *(f for f, _ in op.kernel.params)):
                if field not in fields:
                    problems.append(f"{where}'s kernel row reads {field}; its schema has no such attribute.")
        if op.kernel is not None and op.kernel.name in REDUCTION_ROWS:
            problems += _reduction_problems(where, op, functions)
            served |= set(op.kernel.functions)
        elif op.kernel is not None and op.kernel.name not in ELEMENT_WISE_ROWS:
            pass     # the other families' sources (gemm.s, softmax.s, window.s, gather.s ..) select no BODY block
        elif op.kernel is not None:
            bodies = selected_bodies(op.kernel)
            selected |= bodies
            if op.kernel.source == "element_wise.s" or op.kernel.name in FUSABLE:
                for body in sorted(bodies - set(blocks)):
                    problems.append(f'{where} selects BODY "{body}"; no kernel source has its block '
                                    f'`.if BODY == "{body}"`.')
    for name in sorted(set(FUSABLE_ACTIVATIONS) ^ set(FUSABLE)):
        side = "dmlemu.kernels.element_wise_ops.FUSABLE" if name in FUSABLE else "operators.FUSABLE_ACTIVATIONS"
        problems.append(f"DML_OPERATOR_{name} is a fusable activation in {side} only.")
    for body, file in sorted(blocks.items()):
        if body not in selected and body not in TEST_BODIES:
            problems.append(f'kernels/{file} has a block `.if BODY == "{body}"` that no operator selects.')
    for function, file in sorted(functions.items()):
        if function not in served:
            problems.append(f'kernels/{file} has a block `.if FUNCTION == "{function}"` that no operator serves.')
    return problems
