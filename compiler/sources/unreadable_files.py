"""A file that an engine fails to read, told as the failure of the source it belongs to.

Both engines open the files of a list, a glob or a folder as a query reaches them, so a corrupt
file among good ones fails a query, not the source's registration. Each engine finds the files
its error text names; which source a file belongs to, and what the error then says, is decided
here once, so both engines report ``SOURCE_UNREADABLE`` naming the source alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from ..errors import EngineError
from .local_files import DAMAGED, local_path
from .source_specs import FILE_FORMATS, SourceSpec


def source_of_file(specs: Iterable[SourceSpec], file: str) -> SourceSpec | None:
    """The file source among ``specs`` that reads ``file`` (a path or a ``file:`` URL): one of
    its paths is the file, a folder holding it, or a glob it matches."""
    path = local_path(file)
    for spec in specs:
        if spec.format not in FILE_FORMATS:
            continue
        for named in map(local_path, spec.paths):
            if path == named or path.startswith(named.rstrip("/") + "/") or fnmatchcase(path, named):
                return spec
    return None


def unreadable_source(spec: SourceSpec, reason: str, hint: str | None = None) -> EngineError:
    """``SOURCE_UNREADABLE``: ``spec``'s data cannot be read, for ``reason`` (at its declaration)."""
    return EngineError(
        "SOURCE_UNREADABLE",
        f"source {spec.name!r} ({spec.describe()}) cannot be read: {reason}",
        location=spec.location,
        hint=hint,
    )


def damaged_file(spec: SourceSpec, file: str, detail: str | None = None, hint: str = DAMAGED) -> EngineError:
    """``SOURCE_UNREADABLE``: ``file`` of ``spec`` is damaged, with what the reader said of it
    (``detail``: a line without SQL) where that says something."""
    return unreadable_source(spec, f"{local_path(file)} is damaged" + (f": {detail}" if detail else ""), hint)
