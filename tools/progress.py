"""A progress bar on stderr, drawn only when stderr is a terminal.

Long commands (`dmlemu demo`, `dmlemu run` on large tensors, plotting) advance it stage by stage.
When stderr is a file or a pipe (tests, CI, `2> log`) it writes nothing at all, so captured output
stays clean and deterministic.
"""
import sys

__all__ = ["Progress"]


class Progress:
    """`with Progress(total, "demo") as bar: bar.advance("CLIP")` ... one call per finished stage."""

    def __init__(self, total, label="", stream=None, width=30):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = max(1, total)
        self.label = label
        self.width = width
        self.done = 0

    def start(self, text=""):
        self._draw(text)

    def advance(self, text="", steps=1):
        """Mark `steps` stages finished; `text` names the stage now running."""
        self.done = min(self.total, self.done + steps)
        self._draw(text)

    def _draw(self, text):
        if not self.enabled:
            return
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {text[:40]:<40}")
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\r" + " " * (len(self.label) + self.width + 52) + "\r")
            self.stream.flush()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False
