"""Run the dmlemu command line in-process: (exit status, stdout, stderr)."""
import io
from contextlib import redirect_stderr, redirect_stdout

from dmlemu.tools.cli import main


def cli(*argv):
    """(exit status, stdout, stderr) of `dmlemu ARGV`, in-process; argparse's exit counts as a status."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main([str(a) for a in argv])
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


def run_on_two_data_types(shorts, field_of, make_run, seed):
    """Run each operator (tools.operators short names) on FLOAT16 where its tensor `field_of(schema)` takes it
    and on the last data type that tensor's feature-level-6.4 row lists, with random inputs: `make_run(short,
    data_type)` builds the OperatorRun. Every run is bit-exact against the golden model or answers E_NOTIMPL
    with the driver's sentence. Returns (bit-exact runs, the 'SHORT:TYPE' that answered E_NOTIMPL)."""
    from dmlemu.directml.enums import DML_FEATURE_LEVEL_6_4
    from dmlemu.directml.operators import SCHEMAS_BY_NAME
    from dmlemu.errors import E_NOTIMPL, HResultError
    from dmlemu.tools.operators import OPERATORS, describe, execute, random_inputs

    exact, not_implemented = 0, []
    for short in shorts:
        schema = SCHEMAS_BY_NAME[OPERATORS[short]]
        accepted = schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[field_of(schema)].data_types
        for data_type in dict.fromkeys([t for t in accepted if t == "FLOAT16"] + [accepted[-1]]):
            run = make_run(short, data_type)
            try:
                result = execute(run, random_inputs(run, seed))
            except HResultError as error:
                assert error.hresult == E_NOTIMPL and "was validated, but" in str(error), (short, data_type, error)
                not_implemented.append(f"{short}:{data_type}")
                continue
            assert result.bit_exact, describe(run)
            exact += 1
    return exact, not_implemented
