"""The process's stderr (fd 2) held while a driver's native code runs, its panics left out.

connectorx is Rust: a query that fails while it streams (MySQL ending a statement at its
``statement_timeout``) makes it panic, and Rust's panic hook prints the panic's text (with a
backtrace under ``RUST_BACKTRACE``) to fd 2, from whichever thread pulled the batch, before the
error reaches Python as an exception. gryph reports that error itself, from the exception, which
carries the same text. Python cannot replace the hook, so fd 2 points at a file while such code
runs; whatever else was written meanwhile (another thread's output) is written on when the last
hold ends.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

# Rust's hook: a blank line, "thread 'NAME' (ID) panicked at FILE:LINE:COL:", the message, a
# backtrace when asked for, and a closing "note: ..." line (none after a full backtrace: to the end)
_PANIC = re.compile(rb"^\n?thread [^\n]* panicked at .*?(?:^note: [^\n]*(?:\n|\Z)|\Z)", re.MULTILINE | re.DOTALL)


class _Hold:
    """fd 2 redirected to one file for as long as any thread holds it (holds may overlap: two
    streams read by two of DuckDB's threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._saved = -1
        self._file: IO[bytes] | None = None

    def enter(self) -> None:
        with self._lock:
            if self._holders == 0:
                sys.stderr.flush()  # what Python wrote before goes where it was going
                self._file = tempfile.TemporaryFile()
                self._saved = os.dup(2)
                os.dup2(self._file.fileno(), 2)
            self._holders += 1

    def leave(self) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders > 0:
                return
            sys.stderr.flush()
            os.dup2(self._saved, 2)
            os.close(self._saved)
            assert self._file is not None
            self._file.seek(0)
            written = self._file.read()
            self._file.close()
            self._file = None
        others = memoryview(_PANIC.sub(b"", written))
        while others:
            others = others[os.write(2, others) :]


_HOLD = _Hold()


@contextlib.contextmanager
def panics_held() -> Iterator[None]:
    """fd 2 held for the block: a native panic's text is dropped, anything else written later."""
    _HOLD.enter()
    try:
        yield
    finally:
        _HOLD.leave()
