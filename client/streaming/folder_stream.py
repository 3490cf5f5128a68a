"""A folder source as a stream source: its position is the set of files the stream has taken.

A batch takes the settled files not taken before, oldest first, at most ``max_files_per_batch``
(arrived_files.py); each is recorded as the ``FileSlice`` it was listed as, so a file deleted or
changed before it was read is named in the batch's result. A folder with nothing new in a batch
whose other sources have rows is read as no rows of its declared columns (empty_batches.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import FileSlice
from gryph.compiler.sources.stream_sources import bounded_files

from .arrived_files import gone_and_changed, linked_outside, settled_files
from .empty_batches import empty_frame
from .stream_source import Bound, declared_limit

if TYPE_CHECKING:
    from ..results.run_result import RunResult
    from ..store.stream_state import BatchInput, StreamState

SAMPLE_FILES = 10  # the newest files validation reads, when a view learns its columns from the data


@dataclass(frozen=True)
class FolderStream:
    """A ``folder(...)`` source of a stream (see the module's docstring)."""

    spec: SourceSpec
    part: Literal["kafka", "files"] = "files"

    @property
    def default_limit(self) -> int | None:
        return declared_limit(self.spec, "max_files_per_batch")

    def latest(self) -> tuple[FileSlice, ...]:
        """Every settled file there now (where ``reset --to latest`` puts the source: all taken)."""
        return tuple(settled_files(self.spec, time.time_ns()))

    def earliest(self) -> tuple[FileSlice, ...]:
        return ()

    def start(self, state: StreamState) -> set[str]:
        return state.taken_files(self.spec.name)

    def bound(self, start: set[str], limit: int | None) -> Bound[FileSlice]:
        ready = settled_files(self.spec, time.time_ns(), start)
        chosen = ready if limit is None else ready[:limit]
        return Bound(tuple(chosen), len(ready) - len(chosen))

    def bounded(self, read: Sequence[FileSlice], tmst: int) -> SourceSpec:
        paths = tuple(f.path for f in read)
        return bounded_files(self.spec, paths, tmst) if paths else empty_frame(self.spec, tmst)

    def readable(self, read: Sequence[FileSlice]) -> tuple[tuple[FileSlice, ...], dict[str, list[str]]]:
        """The files the engine reads, asked right before it does: a file deleted since it was
        listed, or a link out of the folder, is left out (and named); it counts as taken."""
        left_out = {"gone": gone_and_changed(read)[0], "linked_outside": linked_outside(self.spec, read)}
        skipped = {path for paths in left_out.values() for path in paths}
        return tuple(f for f in read if f.path not in skipped), left_out

    def sample(self) -> tuple[FileSlice, ...]:
        files = self.latest()
        outside = linked_outside(self.spec, files)
        return tuple(f for f in files if f.path not in outside)[-SAMPLE_FILES:]

    def unplanned(self, read: Sequence[FileSlice]) -> tuple[str, str] | None:
        """The first file of ``read`` that is not one this folder's listing takes (what, why)."""
        folder = self.spec.paths[0]
        for f in read:
            entry = os.path.basename(f.path)
            if f.path != os.path.join(folder, entry) or entry in ("", ".", "..") or entry.startswith((".", "_")):
                return f.path, f"which is not a file of the folder {folder}"
        return None

    def describe(self, batch_input: BatchInput, result: RunResult, lag: int, left_out: dict) -> dict:
        """Its files, rows and lag; then what was read is not what was listed: files gone since,
        changed since (asked after the read), linked out of the folder."""
        name = self.spec.name
        files = batch_input.files[name]
        part: dict = {"files": [f.path for f in files], "rows": result.rows_read.get(name, 0), "lag": lag}
        skipped = {path for paths in left_out.values() for path in paths}
        changed = gone_and_changed([f for f in files if f.path not in skipped])[1]
        named = {"gone": left_out["gone"], "changed": changed, "linked_outside": left_out["linked_outside"]}
        return {**part, **{key: paths for key, paths in named.items() if paths}}

    def read_nothing(self, batch_input: BatchInput, result: RunResult) -> bool:
        """Whether the batch took no file (a new file, even empty, is something new)."""
        return not batch_input.files[self.spec.name]

    def status(self, state: StreamState) -> list[str]:
        taken = state.taken_files(self.spec.name)
        ready = settled_files(self.spec, time.time_ns(), taken)
        return [f"{self.spec.name}: {len(taken)} files read, {len(ready)} settled files pending"]
