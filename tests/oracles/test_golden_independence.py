"""The golden model stands apart: dmlemu.golden never imports the kernels, the functional or timing model (the
ISA's executor lives there) or the API mirror, directly or through the modules it imports.

Two checks: every `import` of every module the golden package reaches (parsed, imports inside functions
included, parent packages counted as imported), and a fresh interpreter's sys.modules after `import dmlemu.golden`.
"""
import ast
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The folder of each import name (pyproject.toml's package-dir); the longest prefix wins.
FOLDERS = {"dmlemu": "emulator", "dmlemu.isa": "isa", "dmlemu.kernels": "kernels", "dmlemu.traces": "traces",
           "dmlemu.tools": "tools"}
FORBIDDEN = ("dmlemu.kernels", "dmlemu.functional", "dmlemu.timing", "dmlemu.directml", "dmlemu.d3d12",
             "dmlemu.gpu", "dmlemu.convenience")


def module_file(name):
    """The source file of module or package `name` under the checkout, or None (not ours, or absent)."""
    prefix = max((p for p in FOLDERS if name == p or name.startswith(p + ".")), key=len, default=None)
    if prefix is None:
        return None
    base = os.path.join(ROOT, FOLDERS[prefix], *name[len(prefix):].strip(".").split(".")) if name != prefix \
        else os.path.join(ROOT, FOLDERS[prefix])
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def _nodes(tree, inside_functions):
    """The nodes of `tree`, those inside function bodies only when `inside_functions`."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if inside_functions or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def imports_of(source, name, is_package, inside_functions=True):
    """Every dmlemu module `source` (module `name`) imports, with the parent packages each import runs;
    imports inside functions too when `inside_functions`."""
    found = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in _nodes(ast.parse(source), inside_functions):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            parts = target.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in found if m == "dmlemu" or m.startswith("dmlemu.")}


def reached(start, read=lambda path: open(path, encoding="utf-8").read()):
    """{module: the module that imported it} for every dmlemu module `start` reaches: every import of a module
    of `start`'s package (a lazy one inside a function too), the module-level imports of any other module
    (dmlemu's own __init__ imports its convenience layer only on first use)."""
    seen, todo = {start: None}, [start]
    while todo:
        name = todo.pop()
        path = module_file(name)
        if path is None:
            continue
        ours = name == start or name.startswith(start + ".")
        for other in imports_of(read(path), name, path.endswith("__init__.py"), inside_functions=ours):
            if other not in seen and module_file(other) is not None:
                seen[other] = name
                todo.append(other)
    return seen


def forbidden_imports(start, read=None):
    """Sentences naming each forbidden module `start` reaches and the chain of imports that reaches it."""
    seen = reached(start, read) if read else reached(start)
    out = []
    for name in sorted(seen):
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
            chain, step = [name], seen[name]
            while step is not None:
                chain.append(step)
                step = seen[step]
            out.append(" <- ".join(chain))
    return out


def test_the_golden_package_reaches_no_kernel_model_or_mirror_module():
    assert reached("dmlemu.golden").keys() >= {"dmlemu.golden.transcendental", "dmlemu.math_constants",
                                               "dmlemu.data_types", "dmlemu.isa.numerics"}
    assert forbidden_imports("dmlemu.golden") == []


def test_the_check_finds_a_forbidden_import():
    """A golden module that read a kernel table (the driver's, which reaches the executor) fails the check."""
    path = module_file("dmlemu.golden.transcendental")

    def read(p):
        text = open(p, encoding="utf-8").read()
        if p == path:
            text += "\n\ndef _late():\n    from dmlemu.kernels.driver import VARIANTS\n"
        return text
    found = forbidden_imports("dmlemu.golden", read)
    assert "dmlemu.kernels <- dmlemu.golden.transcendental <- dmlemu.golden" in found
    assert any(f.startswith("dmlemu.functional.executor <- ") for f in found)


def test_importing_the_golden_model_loads_none_of_them():
    code = ("import sys, dmlemu.golden; "
            "print(sorted(m for m in sys.modules if m.startswith(('dmlemu.kernels', 'dmlemu.functional', "
            "'dmlemu.timing', 'dmlemu.directml', 'dmlemu.d3d12'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
