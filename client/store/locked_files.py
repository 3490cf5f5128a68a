"""gryph's own DuckDB files (the run history, a stream's state), opened one way.

DuckDB lets one process at a time open a file for writing, and reads the file's header before it
takes its own lock: a process that read the header while another wrote, and got the lock once
the other had closed, would work from the earlier state and write over the other's work. So
every access first takes gryph's lock, a ``flock`` on ``<file>.lock`` beside the file (exclusive
to write, shared to read; the kernel drops it when the process dies), holds it until DuckDB has
closed the file, and opens only a file whose header says it is DuckDB's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # DuckDB loads when a file is opened: a run without history does not pay for it
    import duckdb

T = TypeVar("T")


class Busy(Exception):
    """Another process holds the file (gryph's lock on it, or DuckDB's): try again, or give up."""


@contextlib.contextmanager
def gryph_lock(path: Path, shared: bool, wait: Callable[[Callable[[], None]], None] | None = None) -> Iterator[None]:
    """gryph's lock on the file at ``path``, held for the ``with`` block. Taking it is tried by
    ``wait`` (e.g. ``waiting``'s retries); without, ``Busy`` at once when another process holds
    it. A folder this process cannot write is read without the lock: a writer there needs the
    folder writable."""
    lock_file = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_file, os.O_RDONLY | os.O_CREAT, 0o666)
    except OSError:
        if not shared:
            raise
        yield
        return
    try:
        take = lambda: _flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)  # noqa: E731
        take() if wait is None else wait(take)
        yield
    finally:
        os.close(fd)  # releases the lock


def _flock(fd: int, kind: int) -> None:
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        raise Busy from None


def waiting(attempt: Callable[[], T], seconds: float, gave_up: Callable[[], Exception]) -> T:
    """What ``attempt()`` gives, tried again with backoff while it finds the file ``Busy``; after
    ``seconds``, the error ``gave_up()`` makes."""
    deadline = time.monotonic() + seconds
    delay = 0.02
    while True:
        try:
            return attempt()
        except Busy:
            if time.monotonic() > deadline:
                raise gave_up() from None
        # jitter keeps processes that collided from colliding again in step
        time.sleep(delay * (1 + random.random()))
        delay = min(delay * 2, 0.5)


def connect(path: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection to the file; ``Busy`` when a process other than gryph's holds it. Another
    tool's file (SQLite, ...) must not make DuckDB fetch an extension to read it."""
    import duckdb

    try:
        return duckdb.connect(
            str(path),
            read_only=read_only,
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
    except duckdb.IOException as error:
        if "conflicting lock" in str(error).lower():
            raise Busy from None
        raise


def not_duckdb(path: Path) -> str | None:
    """Why the file at ``path`` is no DuckDB database (its header says ``DUCK`` at byte 8), or None
    when it is one or is not there. A pipe is never opened: that would wait for a writer. Asked
    under gryph's lock, so never while DuckDB is creating the file: an empty file is foreign too."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return "it is not a regular file (a pipe, device or folder)"
        with open(path, "rb") as handle:
            header = handle.read(12)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"it cannot be read: {error.strerror or error}"
    if header[8:12] != b"DUCK":
        return "the file is no DuckDB database"
    return None
