"""Which files of a folder source the next batch takes: those not taken before, whose name does
not start with ``.`` or ``_`` (temporary and marker files), that have not changed for the settle
time (a writer may still be appending), oldest first by modification time then path, capped by
``max_files_per_batch``. Each file is taken once: the state remembers every path it committed.
A link that leads out of the folder is taken but not read (``linked_outside``), unless the source
says ``follow_links = true``."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import follows_links, settle_ms


def arrived_files(
    spec: SourceSpec, taken: Iterable[str], now_ns: int, capped: bool = True
) -> tuple[list[tuple[str, int, int]], int]:
    """The next batch's files ``(path, mtime_ns, size)``, in reading order, and how many more
    settled files wait for a later batch (the source's lag); all of them when not ``capped``."""
    folder = spec.paths[0]
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        raise EngineError(
            "SOURCE_UNREADABLE",
            f"source {spec.name!r}: the folder {folder} does not exist",
            location=spec.location or Location(folder),
            text=folder,
            hint="create it (files arriving later are read by later batches), or fix the path",
        ) from None
    except OSError as error:
        raise EngineError(
            "SOURCE_UNREADABLE",
            f"source {spec.name!r}: the folder {folder} cannot be listed: {error.strerror}",
            location=spec.location or Location(folder),
            text=folder,
        ) from None
    seen = set(taken)
    settled_before = now_ns - settle_ms(spec) * 1_000_000
    ready = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith((".", "_")) or path in seen:
            continue
        try:
            info = os.stat(path)
        except FileNotFoundError:  # gone between listing and looking: it never arrived
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mtime_ns <= settled_before:
            ready.append((info.st_mtime_ns, path, info.st_size))
    ready.sort()
    cap = spec.option("max_files_per_batch")
    chosen = ready if cap is None or not capped else ready[: int(str(cap))]
    return [(path, mtime, size) for mtime, path, size in chosen], len(ready) - len(chosen)


def gone_and_changed(files: list[tuple[str, int, int]]) -> tuple[list[str], list[str]]:
    """Of a batch's files ``(path, mtime_ns, size)`` as listed: those no longer there, and those
    whose time or size is no longer what was listed (a writer went on after the settle time)."""
    gone, changed = [], []
    for path, mtime, size in files:
        try:
            info = os.stat(path)
        except FileNotFoundError:
            gone.append(path)
            continue
        if (info.st_mtime_ns, info.st_size) != (mtime, size):
            changed.append(path)
    return gone, changed


def linked_outside(spec: SourceSpec, files: list[tuple[str, int, int]]) -> list[str]:
    """Of a batch's files, those that resolve outside the source's folder (a link, or a path
    through one), asked right before they are read: they are skipped, and named, on every engine.
    None with ``follow_links = true``."""
    if follows_links(spec):
        return []
    folder = os.path.realpath(spec.paths[0])
    return [path for path, _, _ in files if os.path.commonpath((folder, os.path.realpath(path))) != folder]
