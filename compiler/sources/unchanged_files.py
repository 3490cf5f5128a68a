"""What is learnt from a source's files, kept while they stay as they were (path, size, mtime).

A run registers a source more than once (for its schema, then for each plan), and a stream for
every batch: a file's dialect and types are found once, not at every read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

_KNOWN: dict[tuple[object, ...], object] = {}
_KNOWN_LIMIT = 64
_T = TypeVar("_T")


def while_unchanged(what: str, files: list[str], learn: Callable[[], _T]) -> _T:
    """``learn()``, kept under ``what`` while ``files`` are unchanged; asked every time when a
    file is a URL (whether it changed cannot be told)."""
    key = _state(what, files)
    if key is None:
        return learn()
    if key not in _KNOWN:
        if len(_KNOWN) >= _KNOWN_LIMIT:
            _KNOWN.pop(next(iter(_KNOWN)))
        _KNOWN[key] = learn()
    return _KNOWN[key]  # type: ignore[return-value]  # stored by the call with this key


def _state(what: str, files: list[str]) -> tuple[object, ...] | None:
    """``what`` and each local file's size and modification time; None when a file is a URL."""
    if any("://" in f for f in files):
        return None
    stats = [os.stat(f) for f in files]
    return what, tuple((f, s.st_size, s.st_mtime_ns) for f, s in zip(files, stats, strict=True))
