"""Errors with stable codes and source locations.

Every problem in what the user wrote is a ``GryphError`` carrying a code, the file, line and
column, the offending text and a hint. Engine and data problems are ``EngineError``. Callers
never see textX or engine exception types. Codes are declared once, in ``error_codes``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .error_codes import BAD_INPUT, RUN_FAILED, declared
from .redaction import redact

UNLOCATED = "<input>"  # where an error with no file is said to be


@dataclass(frozen=True, slots=True)
class Location:
    """Where in the user's input a problem is (1-based line and column)."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.file or UNLOCATED]
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
                f"raised as {with_article(type(self).__name__)} (exit {self.exit_code})"
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


class LocatedWarning(UserWarning):
    """Something in the user's input that the run goes on without, located as an error is;
    ``error`` is it as an error (what ``--strict`` raises, where a command offers it)."""

    def __init__(self, error: InvalidInput) -> None:
        super().__init__(str(error).replace(": error ", ": ", 1))  # shown after "warning: "
        self.error = error


MAX_ERRORS = 20  # errors of one input reported together
# errors that only say a name is missing: left out when the statement declaring it had an error
_MISSING_NAME = frozenset({"UNKNOWN_SOURCE", "UNKNOWN_MEASURE", "UNKNOWN_RULE", "UNKNOWN_CHECK"})


class InvalidInputs(InvalidInput):
    """Several independent errors of one input, reported together (at most ``MAX_ERRORS``), as the
    first one's code. ``partial`` is what the input gives without the statements in error (a suite
    that the check pass goes on checking), ``dropped`` the names those statements declared."""

    def __init__(self, errors: list[InvalidInput], partial: Any = None, dropped: frozenset[str] = frozenset()):
        first = errors[0]
        super().__init__(first.code, first.message, location=first.location, text=first.text, hint=first.hint)
        self.errors = errors[:MAX_ERRORS]
        self.partial = partial
        self.dropped = dropped

    def __str__(self) -> str:
        if len(self.errors) == 1:  # one error travelling with its partial input reads as itself
            return str(self.errors[0])
        shown = "\n".join(str(error) for error in self.errors)
        more = (
            f" (the first {MAX_ERRORS}; more may follow once they are fixed)" if len(self.errors) == MAX_ERRORS else ""
        )
        return f"{shown}\n{len(self.errors)} errors{more}"

    def to_dict(self) -> dict[str, Any]:
        if len(self.errors) == 1:
            return self.errors[0].to_dict()
        return {**super().to_dict(), "errors": [error.to_dict() for error in self.errors]}


class ErrorList:
    """Errors of independent statements, collected so that one does not hide the next."""

    def __init__(self, dropped: frozenset[str] = frozenset()) -> None:
        self.errors: list[InvalidInput] = []
        self.dropped = set(dropped)

    def add(self, error: InvalidInput) -> None:
        """``error`` (each of several), unless it only says a name from a statement in error is
        missing, or is one already kept (a name read twice at one place: a rule's selections
        read from its source and from its target)."""
        if isinstance(error, InvalidInputs):
            self.dropped |= error.dropped
        for one in error.errors if isinstance(error, InvalidInputs) else [error]:
            missing = one.code in _MISSING_NAME and any(repr(name) in one.message for name in self.dropped)
            kept = any(_same(one, other) for other in self.errors)
            if not missing and not kept and len(self.errors) < MAX_ERRORS:
                self.errors.append(one)

    @contextmanager
    def statement(self) -> Iterator[None]:
        """Run one statement's checks: its error is kept, and the caller goes on with the next."""
        try:
            yield
        except InvalidInput as error:
            self.add(error)

    def raise_any(self, partial: Any = None) -> None:
        """Raise what was collected: one error as itself (unless ``partial`` is to travel with it)."""
        if len(self.errors) == 1 and partial is None:
            raise self.errors[0]
        if self.errors:
            raise InvalidInputs(self.errors, partial, frozenset(self.dropped))


def _same(one: InvalidInput, other: InvalidInput) -> bool:
    return (one.code, one.location, one.message) == (other.code, other.location, other.message)


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


def with_article(word: str) -> str:
    """``word`` after "a" or "an", by how it sounds: an avro, an orc, a parquet, a uniqueness; a
    word with no vowel is said letter by letter: an smtp, an sql, a csv."""
    lowered = word.lower()
    if not any(letter in "aeiouy" for letter in lowered):
        vowel = lowered[:1] in ("f", "h", "l", "m", "n", "r", "s", "x")  # ef, aitch, el, em, en, ar, ess, ex
    else:
        vowel = lowered[:1] in ("a", "e", "i", "o", "u") and not lowered.startswith(("uni", "use", "usu", "eu"))
    return f"{'an' if vowel else 'a'} {word}"


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
