"""The package's import graph: one import name, and no cycles between its modules.

Every `import` and `from ... import` in every module of dmlemu (including imports inside functions)
is an edge; `from dmlemu.x import y` points at dmlemu.x.y when y is a submodule, else at dmlemu.x.
A cycle means two modules that cannot be understood (or loaded) one without the other.
"""
import ast
import importlib.util
import os
import pkgutil


def _find(name):
    """The source path of module `name`, or None (find_spec honours the editable install's mapping)."""
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    return spec.origin if spec is not None and spec.origin and spec.origin.endswith(".py") else None


def _parse_imports(name, path, known):
    """Absolute names a module imports (candidates: `from a import b` gives a.b and a)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [[a.name] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            names += [[f"{base}.{a.name}", base] for a in node.names]
    return names


def import_graph():
    """{module: set of dmlemu modules it imports} for every module reachable from dmlemu's packages."""
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
            queue += [f"{name}.{m.name}" for m in pkgutil.iter_modules([os.path.dirname(path)])]
        parsed[name] = _parse_imports(name, path, modules)
        for candidates in parsed[name]:
            queue += [c for c in candidates if c.startswith("dmlemu.") and c not in modules]
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


def test_every_module_is_under_the_one_import_name():
    graph = import_graph()
    assert len(graph) > 40
    assert all(name == "dmlemu" or name.startswith("dmlemu.") for name in graph)
    for layer in ("dmlemu.functional", "dmlemu.timing", "dmlemu.isa", "dmlemu.kernels", "dmlemu.d3d12",
                  "dmlemu.directml", "dmlemu.traces", "dmlemu.tools"):
        assert layer in graph


def test_the_functional_model_never_imports_the_timing_model():
    graph = import_graph()
    for name, edges in graph.items():
        if name.startswith("dmlemu.functional"):
            assert not [e for e in edges if e.startswith("dmlemu.timing")], name
