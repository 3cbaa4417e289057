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
