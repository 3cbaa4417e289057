"""The package's import graph: one import name, no cycles, and the layers' rules.

Every `import` and `from ... import` in every module of dmlemu (including imports inside functions,
and the `import`/`cimport` lines of the Cython timing engine's .pyx source) is an edge;
`from dmlemu.x import y` points at dmlemu.x.y when y is a submodule, else at dmlemu.x. A cycle means
two modules that cannot be understood (or loaded) one without the other.

The one import name: pyproject.toml maps folders into `dmlemu` (package-dir) and lists the packages;
every source file under a mapped folder must be a module of a listed package, found by the import
system at that file, and every module the graph reaches must be one of those files.
"""
import ast
import importlib.util
import os
import pkgutil
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SOURCE_SUFFIXES = (".py", ".pyx")


def _find(name):
    """The source path of module `name` (.py, or the .pyx of a compiled module), or None (find_spec
    honours the editable install's mapping)."""
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    if spec is not None and spec.origin and spec.origin.endswith(".py"):
        return spec.origin
    if spec is not None and spec.origin:
        folders = [os.path.dirname(spec.origin)]
    else:   # a Cython module not built here: its source beside the parent package's modules
        parent = _spec(name.rpartition(".")[0])
        folders = list(parent.submodule_search_locations or ()) if parent is not None else []
    # A compiled module's source: its .py (Cython's pure-Python mode) or its .pyx.
    for folder in folders:
        for suffix in (".py", ".pyx"):
            source = os.path.join(folder, name.rpartition(".")[2] + suffix)
            if os.path.exists(source):
                return source
    return None


def _spec(name):
    try:
        return importlib.util.find_spec(name) if name else None
    except ModuleNotFoundError:
        return None


_PYX_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+c?import\s+(.+)$")
_PYX_IMPORT = re.compile(r"^\s*c?import\s+(.+)$")


def _pyx_statements(text):
    """(level, module, [imported names]) or (None, None, [modules]) per import line of Cython source."""
    text = re.sub(r"\(([^)]*)\)", lambda m: m.group(1).replace("\n", " "), text)
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        m = _PYX_FROM.match(line)
        if m:
            yield len(m.group(1)), m.group(2), [a.split()[0] for a in m.group(3).split(",") if a.strip()]
            continue
        m = _PYX_IMPORT.match(line)
        if m:
            yield None, None, [a.split()[0] for a in m.group(1).split(",") if a.strip()]


def _parse_imports(name, path, known):
    """Absolute names a module imports (candidates: `from a import b` gives a.b and a)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    if path.endswith(".pyx"):
        statements = list(_pyx_statements(text))
    else:
        statements = []
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.Import):
                statements.append((None, None, [a.name for a in node.names]))
            elif isinstance(node, ast.ImportFrom):
                statements.append((node.level, node.module or "", [a.name for a in node.names]))
    names = []
    for level, base, imported in statements:
        if level is None:
            names += [[n] for n in imported]
            continue
        if level:
            parts = package.split(".")
            parts = parts[:len(parts) - (level - 1)]
            base = ".".join(parts + ([base] if base else []))
        names += [[f"{base}.{n}", base] for n in imported]
    return names


def module_paths():
    """{module: source path} for every module reachable from dmlemu's packages."""
    return _scan()[0]


def _scan():
    modules, queue = {}, ["dmlemu"]
    parsed = {}
    while queue:
        name = queue.pop()
        if not name or name in modules:
            continue
        path = _find(name)
        if path is None:
            continue
        modules[name] = path
        queue.append(name.rpartition(".")[0])
        if path.endswith("__init__.py"):
            folder = os.path.dirname(path)
            queue += [f"{name}.{m.name}" for m in pkgutil.iter_modules([folder])]
            queue += [f"{name}.{f[:-4]}" for f in os.listdir(folder) if f.endswith(".pyx")]
        parsed[name] = _parse_imports(name, path, modules)
        for candidates in parsed[name]:
            queue += [c for c in candidates if c.startswith("dmlemu.") and c not in modules]
    return modules, parsed


def import_graph():
    """{module: set of dmlemu modules it imports} for every module reachable from dmlemu's packages."""
    modules, parsed = _scan()
    graph = {}
    for name, candidate_lists in parsed.items():
        edges = set()
        for candidates in candidate_lists:
            for target in candidates:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    break
            if target and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph):
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def test_the_package_has_no_import_cycle():
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def _setuptools_config():
    """pyproject.toml's [tool.setuptools]: `packages` and `package-dir`."""
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def mapped_sources(root, packages, package_dir):
    """What the mapping promises: ({module name: source path} for every source file of a listed
    package, [problems]) where a problem is a listed package with no folder or no __init__.py, or a
    source file under a mapped folder that is in no listed package."""
    def folder(package):
        base = max((k for k in package_dir if package == k or package.startswith(k + ".")), key=len, default=None)
        if base is None:
            return None
        rest = package[len(base) + 1:].split(".") if package != base else []
        return os.path.normpath(os.path.join(root, package_dir[base], *rest))

    expected, problems, folders = {}, [], {}
    for package in packages:
        where = folder(package)
        if where is None or not os.path.isfile(os.path.join(where, "__init__.py")):
            problems.append(f"package {package} has no folder with an __init__.py under the mapping")
            continue
        folders[where] = package
        for file in sorted(os.listdir(where)):
            stem, suffix = os.path.splitext(file)
            if suffix in _SOURCE_SUFFIXES:
                name = package if stem == "__init__" else f"{package}.{stem}"
                expected[name] = os.path.join(where, file)
    for mapped in set(package_dir.values()):
        for where, dirs, files in os.walk(os.path.join(root, mapped)):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            for file in files:
                if file.endswith(_SOURCE_SUFFIXES) and os.path.normpath(where) not in folders:
                    problems.append(f"{os.path.relpath(os.path.join(where, file), root)} is in no listed package")
    return expected, problems


def mapping_problems(found, expected):
    """Differences between the modules the import system finds ({name: path}) and the mapping's."""
    problems = []
    for name, path in sorted(expected.items()):
        if name not in found:
            problems.append(f"{name} ({path}) is not found under the import name")
        elif os.path.realpath(found[name]) != os.path.realpath(path):
            problems.append(f"{name} is found at {found[name]}, not at {path}")
    for name, path in sorted(found.items()):
        if name not in expected:
            problems.append(f"{name} ({path}) is outside the mapped folders")
    return problems


def test_every_module_is_under_the_one_import_name():
    config = _setuptools_config()
    expected, problems = mapped_sources(ROOT, config["packages"], config["package-dir"])
    found = module_paths()
    # every file is found by the import system itself, not only by the graph's walk
    found_directly = {name: _find(name) for name in expected}
    problems += mapping_problems(found, expected)
    problems += mapping_problems({n: p for n, p in found_directly.items() if p}, expected)
    assert len(expected) > 40
    assert problems == [], "\n".join(problems)


def test_the_mapping_check_finds_what_is_wrong(tmp_path):
    for folder in ("emulator", "emulator/timing", "isa", "isa/loose"):
        (tmp_path / folder).mkdir()
    for file in ("emulator/__init__.py", "emulator/gpu.py", "emulator/timing/__init__.py", "isa/__init__.py",
                 "isa/opcodes.py", "isa/loose/helper.py"):
        (tmp_path / file).write_text("")
    expected, problems = mapped_sources(str(tmp_path), ["dmlemu", "dmlemu.timing", "dmlemu.isa", "dmlemu.tools"],
                                        {"dmlemu": "emulator", "dmlemu.isa": "isa"})
    assert sorted(expected) == ["dmlemu", "dmlemu.gpu", "dmlemu.isa", "dmlemu.isa.opcodes", "dmlemu.timing"]
    assert problems == ["package dmlemu.tools has no folder with an __init__.py under the mapping",
                        os.path.join("isa", "loose", "helper.py") + " is in no listed package"]
    found = dict(expected, **{"dmlemu.stray": "/elsewhere/stray.py", "dmlemu.gpu": "/site-packages/dmlemu/gpu.py"})
    del found["dmlemu.isa.opcodes"]
    assert mapping_problems(found, expected) == [
        f"dmlemu.gpu is found at /site-packages/dmlemu/gpu.py, not at {expected['dmlemu.gpu']}",
        f"dmlemu.isa.opcodes ({expected['dmlemu.isa.opcodes']}) is not found under the import name",
        "dmlemu.stray (/elsewhere/stray.py) is outside the mapped folders"]
    assert mapping_problems(expected, expected) == []


def test_the_graph_reads_cython_sources():
    """A .pyx source's imports are edges too (compiled or not, it would be a module of the package)."""
    statements = list(_pyx_statements("from libc.stdlib cimport malloc\nfrom dmlemu.timing import (caches,\n"
                                       "    kernel_path as kp)\nimport dmlemu.functional.executor as ex\n"
                                       "cdef int x  # import nothing\n"))
    assert statements == [(0, "libc.stdlib", ["malloc"]), (0, "dmlemu.timing", ["caches", "kernel_path"]),
                          (None, None, ["dmlemu.functional.executor"])]


def test_the_functional_model_never_imports_the_timing_model():
    graph = import_graph()
    for name, edges in graph.items():
        if name.startswith("dmlemu.functional"):
            assert not [e for e in edges if e.startswith("dmlemu.timing")], name


def layer_violations(graph, layer, forbidden):
    """Modules of `layer` that import a module of a `forbidden` layer, as 'importer -> imported'."""
    def within(name, prefix):
        return name == prefix or name.startswith(prefix + ".")
    return sorted(f"{name} -> {edge}" for name, edges in graph.items() if within(name, layer)
                  for edge in edges if any(within(edge, f) for f in forbidden))


def test_the_timing_model_imports_neither_the_functional_model_nor_the_kernels():
    """Timing reads only what the ISA and the DispatchRecord say; it never reaches into the executor
    or the kernel driver."""
    graph = import_graph()
    assert {"dmlemu.timing.kernel_path", "dmlemu.timing.simd", "dmlemu.timing.events"} <= set(graph)
    assert layer_violations(graph, "dmlemu.timing", ("dmlemu.functional", "dmlemu.kernels")) == []


def test_the_layer_check_finds_a_violation():
    graph = {"dmlemu.timing.simd": {"dmlemu.timing.kernel_path", "dmlemu.functional.executor"},
             "dmlemu.timing": {"dmlemu.kernels"}, "dmlemu.timingx": {"dmlemu.kernels.driver"},
             "dmlemu.functional.executor": {"dmlemu.isa.program"}}
    assert layer_violations(graph, "dmlemu.timing", ("dmlemu.functional", "dmlemu.kernels")) == [
        "dmlemu.timing -> dmlemu.kernels", "dmlemu.timing.simd -> dmlemu.functional.executor"]


def test_the_isa_imports_nothing_but_itself():
    """The ISA (opcode table, encoding, decoded Program) is what the executor and the timing model
    share; it knows neither of them, nor anything else of dmlemu but the shared fact tables that import
    nothing of dmlemu themselves (the data-type table)."""
    graph = import_graph()
    assert "dmlemu.isa.program" in graph
    tables = {"dmlemu.data_types"}
    assert all(graph.get(table, set()) <= {"dmlemu"} for table in tables), "a shared table imports dmlemu modules"
    outside = sorted(f"{name} -> {edge}" for name, edges in graph.items()
                     if name == "dmlemu.isa" or name.startswith("dmlemu.isa.")
                     for edge in edges if not (edge == "dmlemu.isa" or edge.startswith("dmlemu.isa.")
                                               or edge in tables or edge == "dmlemu"))
    assert outside == []
