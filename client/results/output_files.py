"""Files the CLI writes (reports, JUnit, Markdown): checked before a run, written whole or not at all."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from gryph.compiler.errors import EngineError, InvalidInput, Location


def check_writable_path(option: str, path: str, folder: bool = False) -> None:
    """Refuse, before anything runs, a ``path`` that can never be written: a folder where a file
    goes (or a file where a ``folder`` goes), a path through a file, or one the system cannot name."""
    target = Path(path)
    _check_nameable(option, path)
    if target.is_dir() and not folder:
        _refuse(option, path, "is a folder, not a file", "name a file inside it")
    if folder and target.exists() and not target.is_dir():
        _refuse(option, path, "is a file, not a folder", "name a folder (it is created when missing)")
    blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        _refuse(option, path, f"cannot be created: {blocking} is a file, not a folder", None)


def _check_nameable(option: str, path: str) -> None:
    """Refuse a path no file system here can hold: a part longer than its folder's name limit (also
    below a folder still to be made), or one the system refuses to look up (a loop of links)."""
    target = Path(path)
    existing = next((p for p in (target, *target.parents) if os.path.lexists(p)), Path("."))
    limit = os.pathconf(existing if existing.is_dir() else existing.parent, "PC_NAME_MAX")
    if any(len(os.fsencode(part)) > limit for part in target.parts):
        _refuse(option, path, f"cannot be written: a name in it is longer than {limit} bytes", None)
    try:
        os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        pass  # made by the write, or refused below as a path through a file
    except OSError as error:
        _refuse(option, path, f"cannot be written: {error.strerror}", None)


def _refuse(option: str, path: str, problem: str, hint: str | None) -> None:
    raise InvalidInput(
        "BAD_OUTPUT_PATH", f"{option} {path} {problem}", location=Location(file=path), text=path, hint=hint
    )


def write_whole(text: str | bytes, path: str) -> None:
    """Write ``text`` (or bytes) to ``path``: beside it then renamed, so a failed or interrupted write leaves
    no partial file and an earlier file intact. A symbolic link stays a link (the file it names is
    replaced); a stream (a device, a pipe, /dev/stderr) is written in place, never replaced."""
    try:
        if _names_a_stream(Path(path)):
            with _opened(path, text) as handle:
                handle.write(text)
            return
        target = Path(os.path.realpath(path))
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = str(target.parent / f".{target.name}.{secrets.token_hex(8)}")
        # made as any new file is (0666 less the umask: mkstemp's 0600 would hide a report from
        # its readers), then given the mode of the file it replaces
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            if target.exists():
                os.fchmod(fd, stat.S_IMODE(target.stat().st_mode))
            with _opened(fd, text) as handle:
                handle.write(text)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        raise EngineError(
            "OUTPUT_NOT_WRITTEN",
            f"cannot write {path}: {error.strerror or error}",
            location=Location(file=path),
            text=path,
        ) from None


def _opened(file, content: str | bytes):
    """``file`` (a path or a descriptor) opened to write ``content``: bytes as they are, text as UTF-8."""
    return open(file, "wb") if isinstance(content, bytes) else open(file, "w", encoding="utf-8")


def _names_a_stream(target: Path) -> bool:
    """A device or pipe, or a process's own descriptor (/dev/stdout -> /proc/self/fd/1, /dev/fd/2),
    which may be a regular file underneath but is no file of the user's to replace."""
    if not target.exists():
        return False
    if not target.is_file():
        return True
    return os.path.realpath(target.parent).startswith("/proc/") or (
        target.is_symlink() and os.readlink(target).startswith("/proc/")
    )
