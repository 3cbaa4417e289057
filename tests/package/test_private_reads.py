"""Tests read the mirror's and the models' state through public or sanctioned APIs (dmlemu.d3d12.inspect,
dmlemu.directml.inspect, the timing units' public fields), not through underscore attributes: at most 22 such
reads in tests/, counted as `grep -rnoE "\\._[a-z][a-zA-Z0-9_]*" tests/ | grep -v __` counts them, less ctypes'
structure protocol (`_fields_`, `_defaults_`: the C field list every CStruct declares, public by convention)."""
import pathlib
import re

TESTS = pathlib.Path(__file__).resolve().parents[1]
PRIVATE = re.compile(r"\._[a-z][a-zA-Z0-9_]*")
PROTOCOL = {"." + "_fields_", "." + "_defaults_"}   # (built so that the grep does not count them)
LIMIT = 22


def private_reads():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [(path.relative_to(TESTS), number, name) for name in PRIVATE.findall(line)
                      if "__" not in name and name not in PROTOCOL]
    return found


def test_tests_read_private_attributes_at_most_22_times():
    found = private_reads()
    assert len(found) <= LIMIT, (
        f"tests/ reads {len(found)} underscore attributes (at most {LIMIT}); read state through "
        "dmlemu.d3d12.inspect / dmlemu.directml.inspect or a public field instead:\n"
        + "\n".join(f"  {path}:{number}: {name}" for path, number, name in found))


def test_the_count_sees_a_private_read():
    dot = "."          # (the examples are built so that the grep above does not count this file)
    assert PRIVATE.findall(f"value = device{dot}_removed_reason") == [f"{dot}_removed_reason"]
    assert not [name for name in PRIVATE.findall(f"x{dot}__class__, s{dot}_fields_") if "__" not in name
                and name not in PROTOCOL]
