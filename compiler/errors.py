"""Errors with stable codes and source locations.

Every problem in what the user wrote is a ``GryphError`` carrying a code, the file, line and
column, the offending text and a hint. Engine and data problems are ``EngineError``. Callers
never see textX or engine exception types. Codes are declared once, in ``error_codes``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .error_codes import BAD_INPUT, RUN_FAILED, declared
from .redaction import redact


@dataclass(frozen=True, slots=True)
class Location:
    """Where in the user's input a problem is (1-based line and column)."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


class GryphError(Exception):
    """Base of all gryph errors; ``exit_code`` is what the CLI returns."""

    exit_code = BAD_INPUT

    def __init__(
        self,
        code: str,
        message: str,
        *,
        location: Location | None = None,
        text: str | None = None,
        hint: str | None = None,
    ) -> None:
        if declared(code).exit_code != self.exit_code:
            raise ValueError(
                f"error code {code!r} is declared with exit {declared(code).exit_code}, "
                f"raised as a {type(self).__name__} (exit {self.exit_code})"
            )
        # no secret ever shows, whatever text an error quotes (and again when it is rendered:
        # a secret may be registered after the error was made)
        message = redact(message) if message else message
        text = redact(text) if text else text
        hint = redact(hint) if hint else hint
        super().__init__(message)
        self.code = code
        self.message = message
        self.location = location or Location()
        self.text = text
        self.hint = hint

    @property
    def line(self) -> int | None:
        return self.location.line

    @property
    def column(self) -> int | None:
        return self.location.column

    def __str__(self) -> str:
        out = f"{self.location}: error {self.code}: {self.message}"
        if self.text:
            out += f"\n    near: {self.text}"
        if self.hint:
            out += f"\n    hint: {self.hint}"
        return redact(out)

    def to_dict(self) -> dict[str, Any]:
        document = {
            "code": self.code,
            "message": self.message,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "text": self.text,
            "hint": self.hint,
        }
        return {key: redact(value) if isinstance(value, str) else value for key, value in document.items()}


class InvalidInput(GryphError):
    """Syntax, name, type or configuration errors: the user's input is wrong (exit 2)."""

    exit_code = BAD_INPUT


class ResultError(InvalidInput):
    """A rule's or measure's result breaks its contract once the data has run (too many rows,
    not one row): that rule or measure fails in the run's result, and the run goes on."""


class EngineError(GryphError):
    """The engine or the data failed: missing file, unreadable data, server down (exit 3)."""

    exit_code = RUN_FAILED


class UnsupportedError(EngineError):
    """A plan node or function that an engine cannot run."""


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate nearest to ``name`` (case-insensitive), if any is close. Names from a
    config may be numbers or other JSON values: they are compared as their text."""
    pool = [str(c) for c in candidates]
    lowered = {c.lower(): c for c in pool}
    name = str(name)
    if name.lower() in lowered:
        return lowered[name.lower()]
    match = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean" hint, or a list of what exists."""
    pool = sorted({str(c) for c in candidates})
    best = closest(name, pool)
    if best is not None:
        return f"did you mean {best!r}?"
    if pool:
        shown = ", ".join(pool[:12]) + (", ..." if len(pool) > 12 else "")
        return f"known names: {shown}"
    return None
