"""Run Maven to fetch jars, showing the user how far the download has come.

A first fetch of Spark's connectors is some 150 MB: Maven's batch output says each file it
downloaded (``[INFO] Downloaded from central: <url> (1.2 MB at 3.4 MB/s)``); those lines are summed
into one progress line on stderr (redrawn in place on a terminal, a line per 20 MB otherwise).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from typing import TextIO

_DOWNLOADED = re.compile(r"^(?:\[INFO\] )?Downloaded from \S+: \S+ \((\d+(?:\.\d+)?) (B|kB|MB|GB) at")
_UNITS = {"B": 1e-6, "kB": 1e-3, "MB": 1.0, "GB": 1e3}
_PLAIN_STEP_MB = 20.0  # without a terminal, a progress line each time this much more arrived


class Progress:
    """Sums Maven's ``Downloaded`` lines and shows files and megabytes so far on ``out``."""

    def __init__(self, what: str, out: TextIO) -> None:
        self.what = what
        self.out = out
        self.files = 0
        self.megabytes = 0.0
        self._shown_mb = 0.0
        self._live = out.isatty()

    def line(self, text: str) -> None:
        """Read one line of Maven's output."""
        found = _DOWNLOADED.match(text)
        if found is None:
            return
        self.files += 1
        self.megabytes += float(found.group(1)) * _UNITS[found.group(2)]
        if self._live:
            print(f"\r{self._text()}", end="", file=self.out, flush=True)
        elif self.megabytes - self._shown_mb >= _PLAIN_STEP_MB:
            self._shown_mb = self.megabytes
            print(self._text(), file=self.out, flush=True)

    def done(self) -> None:
        if self.files:
            print(f"{chr(13) if self._live else ''}{self._text()}, done", file=self.out, flush=True)

    def _text(self) -> str:
        return f"fetching {self.what}: {self.files} files, {self.megabytes:.1f} MB"


def run_maven(command: list[str], what: str, timeout: float) -> tuple[int | None, str]:
    """Run ``command`` (Maven in batch mode), progress on stderr; its exit code (None: it ran past
    ``timeout`` seconds and was killed) and its whole output."""
    progress = Progress(what, sys.stderr)
    lines: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as maven:
        timer = threading.Timer(timeout, maven.kill)
        timer.start()
        try:
            assert maven.stdout is not None
            for text in maven.stdout:
                lines.append(text)
                progress.line(text)
            code = maven.wait()
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
    progress.done()
    return (None if timed_out else code), "".join(lines)
