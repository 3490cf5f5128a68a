"""Where gryph keeps what it caches between runs, outside any checkout.

``GRYPH_CACHE_DIR`` moves the cache (default: ``$XDG_CACHE_HOME/gryph`` or ``~/.cache/gryph``);
``GRYPH_CACHE_DIR=off`` turns off what only saves time (the grammar's pickled metamodels).
"""

from __future__ import annotations

import os
from pathlib import Path

DISABLED = "off"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/gryph``, or ``~/.cache/gryph``: the cache when nothing moves it."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gryph"


def cache_dir() -> Path | None:
    """Where the cache goes, or None when ``GRYPH_CACHE_DIR`` turns it off."""
    chosen = os.environ.get("GRYPH_CACHE_DIR")
    if chosen == DISABLED:
        return None
    if chosen:
        return Path(chosen)
    return default_cache_dir()
