"""The shared API contract: every program in ../shared/contract runs unchanged and exits 0.

The contract folder sits beside the repository (../shared/contract from the project root);
DMLEMU_CONTRACT_DIR overrides it. The programs are run from the project root, as CI does.
"""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CANDIDATES = [os.environ.get("DMLEMU_CONTRACT_DIR", ""), os.path.join(ROOT, "..", "shared", "contract"),
              "/work/shared/contract"]
CONTRACT_DIR = next((os.path.abspath(c) for c in CANDIDATES if c and os.path.isdir(c)), None)
PROGRAMS = sorted(glob.glob(os.path.join(CONTRACT_DIR, "*.py"))) if CONTRACT_DIR else []


@pytest.mark.skipif(not PROGRAMS, reason="no shared contract folder next to this checkout")
@pytest.mark.parametrize("program", PROGRAMS, ids=os.path.basename)
def test_contract_program_runs_unchanged(program):
    result = subprocess.run([sys.executable, program], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{os.path.basename(program)} failed:\n{result.stdout}\n{result.stderr}"
    if os.path.basename(program) == "hello_directml.py":
        assert "GPU time of the dispatch:" in result.stdout
        assert "output:" in result.stdout
