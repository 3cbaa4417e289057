"""The map is true: docs/LAYOUT.md's tree names every module of the package and nothing that does not exist,
and the banners and docs name only files that exist.

A newcomer finds the file for a concept through docs/LAYOUT.md; a stale row sends them to a file that was
renamed, a missing row hides a module. Both fail here, naming the file.
"""
import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_FOLDERS = ("emulator", "isa", "kernels", "traces", "tools")
SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".s", ".inc")
# A file name as docs and banners write it: an optional folder path, a name, a known suffix.
FILE_NAME = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:py|pyx|pxd|s|inc))\b")


def _layout_tree():
    with open(os.path.join(ROOT, "docs", "LAYOUT.md"), encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    assert len(blocks) == 1, f"docs/LAYOUT.md has {len(blocks)} ```text blocks; the tree is the one such block"
    return blocks[0]


def _sections(tree):
    """{top-level folder: the tree's text of that folder's rows}: a row that starts in column 0 opens a
    section; indented rows and continuation lines belong to the last one opened."""
    sections, current = {}, None
    for line in tree.splitlines():
        if line and not line[0].isspace():
            current = line.split()[0].rstrip("/")
            sections.setdefault(current, "")
        if current is not None:
            sections[current] += line + "\n"
    return sections


def _package_files():
    """Repository paths of every source file of the installed package (caches and build outputs left out)."""
    found = []
    for folder in PACKAGE_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    found.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return found


def _is_placeholder(name):
    """A name that stands for any file in prose: FILE.s, SOURCE.s, k.s, emulator/x/y.py."""
    stem = os.path.splitext(os.path.basename(name))[0]
    return stem.isupper() or len(stem) == 1


def _names_in(text):
    return {m.group(1) for m in FILE_NAME.finditer(text) if not _is_placeholder(m.group(1))}


def test_every_package_module_has_a_row_in_the_layout():
    sections = _sections(_layout_tree())
    missing = []
    for path in _package_files():
        folder, name = path.split(os.sep)[0], os.path.basename(path)
        text = sections.get(folder, "")
        if not re.search(rf"(?<![\w.-]){re.escape(name)}\b", text):
            missing.append(path)
    assert not missing, f"docs/LAYOUT.md's tree does not name {', '.join(missing)}"


def test_every_file_the_layout_names_exists():
    sections = _sections(_layout_tree())
    everything = {os.path.basename(p) for p in _package_files()}
    stale = []
    for folder, text in sections.items():
        for name in _names_in(text):
            if os.path.exists(os.path.join(ROOT, folder, name)) or os.path.exists(os.path.join(ROOT, name)):
                continue
            if "/" not in name and name in everything:
                continue
            if "/" not in name and any(os.path.exists(os.path.join(d, name))
                                        for d, _, _ in os.walk(os.path.join(ROOT, folder))):
                continue
            stale.append(f"{folder}/: {name}")
    assert not stale, f"docs/LAYOUT.md's tree names files that do not exist: {', '.join(sorted(stale))}"


def _all_repository_names():
    names, paths = set(), set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "build")
                       and not d.endswith(".egg-info")]
        for name in filenames:
            names.add(name)
            paths.add(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return names, paths


def _mentions_exist(text, names, paths):
    """The file names in `text` that name no file of the repository (a bare name: any file of that name; a
    path: that path from the root, or a path ending so)."""
    bad = []
    for name in _names_in(text):
        if "/" in name:
            if name in paths or any(p.endswith("/" + name) for p in paths):
                continue
            # Package paths are written with their import folder (dmlemu/timing/simd.py) or the repository's.
            if name.startswith("dmlemu/") and any(p.endswith(name[len("dmlemu"):]) for p in paths):
                continue
        elif name in names:
            continue
        bad.append(name)
    return bad


def test_banners_name_only_files_that_exist():
    names, paths = _all_repository_names()
    stale = []
    for path in _package_files():
        if not path.endswith(".py"):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            doc = ast.get_docstring(ast.parse(f.read())) or ""
        stale += [f"{path}: {name}" for name in _mentions_exist(doc, names, paths)]
    assert not stale, "module banners name files that do not exist: " + "; ".join(stale)


def test_docs_name_only_files_that_exist():
    names, paths = _all_repository_names()
    stale = []
    docs = ["README.md"] + [os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs")))
                            if n.endswith(".md")]
    for path in docs:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            # Box-drawing diagrams ("  |  timing/command_" / "  |    processor.py") wrap names: left out.
            text = "".join(line for line in f if not line.lstrip().startswith("|  "))
        stale += [f"{path}: {name}" for name in _mentions_exist(text, names, paths)]
    assert not stale, "docs name files that do not exist: " + "; ".join(stale)
