"""docs/GRAPHS.md documents the graph file format of `dmlemu graph FILE.json`: its example, and
examples/example_graph.json, are the built-in graph."""
import json
import os

from dmlemu.tools.graph_view import EXAMPLE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_documented_example_is_the_built_in_graph():
    with open(os.path.join(ROOT, "docs", "GRAPHS.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## The graph file format")[1]
    block = section.split("```json\n")[1].split("```")[0]
    assert json.loads(block) == EXAMPLE
    for key in ("dtype", "sizes", "inputs", "nodes", "outputs", "name", "op", "attrs", "scale"):
        assert f"| `{key}`" in section


def test_the_example_graph_file_is_the_built_in_graph():
    with open(os.path.join(ROOT, "examples", "example_graph.json"), encoding="utf-8") as f:
        assert json.load(f) == EXAMPLE
