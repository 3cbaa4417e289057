"""Load a page in headless Chromium (Debian's `chromium` package) and report what its console said.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending
in a NUL byte, we write on its fd 3 and read its fd 4), so nothing listens on a port. `load(url)` opens
the page, waits for its load event, collects every console message of level error or warning
(Runtime.consoleAPICalled), uncaught exception (Runtime.exceptionThrown), browser log entry
(Log.entryAdded: failed resource loads, blocked requests) and network request (so a test can say the
page asked for nothing outside itself), and can take a screenshot of the whole page.
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

__all__ = ["CHROMIUM", "load"]

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
        time.sleep(settle)
        pipe.call("Runtime.evaluate", {"expression": "1"}, session=session)   # drain what arrived meanwhile
        if screenshot:
            shot = pipe.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        result = {"console": [], "exceptions": [], "log": [], "requests": []}
        for m in pipe.events:
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
        try:
            pipe.send("Browser.close")
        except OSError:
            pass
        return result
    finally:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(to_chrome_w)
        os.close(from_chrome_r)
        shutil.rmtree(profile, ignore_errors=True)
