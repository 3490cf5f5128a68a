"""The files of a folder source a batch may take: those whose name does not start with ``.`` or
``_`` (temporary and marker files), that have not changed for the settle time (a writer may still
be appending), oldest first by modification time then path. Each file is taken once: the state
remembers every path it committed (folder_stream.py leaves those out and caps the rest).
A link that leads out of the folder is taken but not read (``linked_outside``), unless the source
says ``follow_links = true``."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import FileSlice
from gryph.compiler.sources.stream_sources import follows_links, settle_ms


def settled_files(spec: SourceSpec, now_ns: int, taken: AbstractSet[str] = frozenset()) -> list[FileSlice]:
    """The folder's settled files as they are at ``now_ns``, in reading order, but those ``taken``
    (left out before they are looked at: a folder keeps every file a stream read)."""
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
    settled_before = now_ns - settle_ms(spec) * 1_000_000
    ready = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith((".", "_")) or path in taken:
            continue
        try:
            info = os.stat(path)
        except FileNotFoundError:  # gone between listing and looking: it never arrived
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mtime_ns <= settled_before:
            ready.append((info.st_mtime_ns, path, info.st_size))
    return [FileSlice(path, mtime, size) for mtime, path, size in sorted(ready)]


def gone_and_changed(files: Sequence[FileSlice]) -> tuple[list[str], list[str]]:
    """Of a batch's files as listed: those no longer there, and those whose time or size is no
    longer what was listed (a writer went on after the settle time)."""
    gone, changed = [], []
    for listed in files:
        try:
            info = os.stat(listed.path)
        except FileNotFoundError:
            gone.append(listed.path)
            continue
        if (info.st_mtime_ns, info.st_size) != (listed.mtime_ns, listed.size):
            changed.append(listed.path)
    return gone, changed


def linked_outside(spec: SourceSpec, files: Sequence[FileSlice]) -> list[str]:
    """Of a batch's files, those that resolve outside the source's folder (a link, or a path
    through one), asked right before they are read: they are skipped, and named, on every engine.
    None with ``follow_links = true``."""
    if follows_links(spec):
        return []
    folder = os.path.realpath(spec.paths[0])
    return [f.path for f in files if os.path.commonpath((folder, os.path.realpath(f.path))) != folder]
