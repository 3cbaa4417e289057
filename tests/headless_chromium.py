"""Load a page in headless Chromium (Debian's `chromium` package) and report what its console said.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending
in a NUL byte, we write on its fd 3 and read its fd 4), so nothing listens on a port. `load(url)` opens
the page, waits for its load event, collects every console message of level error or warning
(Runtime.consoleAPICalled), uncaught exception (Runtime.exceptionThrown), browser log entry
(Log.entryAdded: failed resource loads, blocked requests) and network request (so a test can say the
page asked for nothing outside itself), and can take a screenshot of the whole page. `page(url)` keeps
the tab open for more: evaluate JavaScript, wait for a condition, screenshots of the viewport
(bench/perfetto_screenshot.py drives the Perfetto UI with it).
"""
import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

__all__ = ["CHROMIUM", "load", "page", "Page"]

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


class _Pipe:
    def __init__(self, write_fd, read_fd):
        self.w, self.r = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.w, json.dumps(message).encode() + b"\0")
        return self.next_id

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("headless Chromium did not answer in time")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise EOFError("headless Chromium closed its pipe")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, params=None, session=None, timeout=30):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            message = self._read(deadline)
            self.events.append(message)
            if message.get("method") == method:
                return message


def _above_nine(fd):
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


def load(url, screenshot=None, width=1400, height=1000, settle=0.3):
    """Open `url`; returns {'console': [(level, text)], 'exceptions': [text], 'log': [(level, text)],
    'requests': [url]}; screenshot: a PNG path for the whole page."""
    with page(url, width, height) as tab:
        time.sleep(settle)
        tab.evaluate("1")   # drain what arrived meanwhile
        if screenshot:
            tab.screenshot(screenshot, whole_page=True)
        return tab.seen()


class Page:
    """A tab of a running headless Chromium (see page()): evaluate JavaScript, wait for a condition,
    take screenshots, and read back what the console, the log and the network saw."""

    def __init__(self, pipe, session):
        self.pipe, self.session = pipe, session

    def evaluate(self, expression, timeout=30):
        """The value of a JavaScript expression (awaited when it is a promise; JSON-like values only)."""
        result = self.pipe.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                     "awaitPromise": True}, session=self.session, timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}: {result['exceptionDetails'].get('text', '')}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60, poll=0.25):
        """Poll a JavaScript expression until it is truthy; its value, or TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"headless Chromium: {expression[:80]} still false after {timeout} s")
            time.sleep(poll)

    def screenshot(self, path, whole_page=False):
        shot = self.pipe.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": whole_page},
                              session=self.session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def seen(self):
        """What the page said and asked for so far (the dict load() returns)."""
        result = {"console": [], "exceptions": [], "log": [], "requests": []}
        for m in self.pipe.events:
            method, params = m.get("method"), m.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                result["console"].append((params["type"], text))
            elif method == "Runtime.exceptionThrown":
                result["exceptions"].append(params["exceptionDetails"].get("text", ""))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                result["log"].append((params["entry"]["level"], params["entry"]["text"]))
            elif method == "Network.requestWillBeSent":
                result["requests"].append(params["request"]["url"])
        return result


@contextlib.contextmanager
def page(url, width=1400, height=1000):
    """A Page on `url` in a fresh headless Chromium (its own profile), after the page's load event;
    the browser is closed on exit."""
    profile = tempfile.mkdtemp(prefix="dmlemu-chromium-")
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    # the child's ends above fd 9, so moving them onto 3 and 4 never overwrites the other
    to_chrome_r, from_chrome_w = (_above_nine(fd) for fd in (to_chrome_r, from_chrome_w))
    # Chromium reads fd 3 and writes fd 4: bash (dash takes no fd above 9) moves the pipe ends there
    # before it execs Chromium.
    moves = f"3<&{to_chrome_r} 4>&{from_chrome_w} {to_chrome_r}<&- {from_chrome_w}>&-"
    process = subprocess.Popen(
        ["bash", "-c", f'exec "$0" "$@" {moves}', CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--remote-debugging-pipe", "--no-first-run",
         f"--user-data-dir={profile}", "--hide-scrollbars", "about:blank"],
        pass_fds=(to_chrome_r, from_chrome_w),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    pipe = _Pipe(to_chrome_w, from_chrome_r)
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            pipe.call(f"{domain}.enable", session=session)
        pipe.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=session)
        pipe.call("Page.navigate", {"url": url}, session=session)
        pipe.wait_event("Page.loadEventFired")
        yield Page(pipe, session)
    finally:
        try:
            pipe.send("Browser.close")
        except OSError:
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(to_chrome_w)
        os.close(from_chrome_r)
        shutil.rmtree(profile, ignore_errors=True)
