"""Reading the user's files as UTF-8 text, with located errors for files that are not."""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidInput, Location, closest


def read_utf8(path: Path) -> str:
    """The text of ``path`` (a UTF-8 byte-order mark is dropped); unreadable or non-UTF-8 files
    are ``InvalidInput`` naming the file, and for bad bytes their line and column."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InvalidInput(
            "FILE_NOT_FOUND",
            f"cannot read {path}: {error.strerror}",
            location=Location(str(path)),
            text=str(path),
            hint=_near_name(path) if isinstance(error, FileNotFoundError) else None,
        ) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise InvalidInput(
            "BAD_ENCODING",
            f"{path.name} is not UTF-8 text (byte 0x{raw[error.start]:02x})",
            location=Location(str(path), line, column),
            text=None,
            hint="save the file as UTF-8",
        ) from None


def _near_name(path: Path) -> str | None:
    """``did you mean 'first.dq'?`` when the missing file's folder holds a file of a near name and
    the same suffix (names are compared without it: a shared ``.dq`` makes any two names alike)."""
    try:
        stems = {
            entry.stem: entry.name for entry in path.parent.iterdir() if entry.is_file() and entry.suffix == path.suffix
        }
    except OSError:
        return None
    near = closest(path.stem, stems)
    return None if near is None else f"did you mean {str(path.with_name(stems[near]))!r}?"
