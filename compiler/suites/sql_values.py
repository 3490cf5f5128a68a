"""``--var`` values placed in SQL text so that each can only ever be one literal.

The text is cut into tokens by its dialect's rules (``sql_tokens.py``) with a marker word where
each ``${name}`` stands; what surrounds a marker decides what its value becomes:

- a word of its own (outside any quotes): a quoted string literal of the dialect holding the value;
- inside a string literal: the value escaped by that literal's rules;
- inside a comment: nothing (the ``${name}`` stays as written: a comment is no code);
- anywhere else (inside a quoted name, a MySQL ``/*! */`` comment the server runs, a hex or
  unicode string, glued to other text), or where the dialect's reading of a literal depends on a
  server setting: refused.

The text with its values is then cut again: its tokens must be the same as with the markers
(a value only ever changes one literal's contents), or the value is refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .sql_tokens import Token, Unterminated, tokens


class Refused(ValueError):
    """A value that cannot stand where its ``${name}`` is: ``index`` is which reference."""

    def __init__(self, index: int, message: str, hint: str) -> None:
        super().__init__(message)
        self.index, self.hint = index, hint


@dataclass(frozen=True)
class Placed:
    """What each reference becomes: SQL text, or None where it stays as written (a comment)."""

    replacements: tuple[str | None, ...]


def place(pieces: Sequence[str], values: Sequence[str], dialect: str) -> Placed:
    """The SQL for ``values[i]``, which stands between ``pieces[i]`` and ``pieces[i + 1]``."""
    marker = _marker(pieces)
    markers = [f"{marker}x{index}" for index in range(len(values))]
    template = _join(pieces, markers)
    try:
        cut = tokens(template, dialect)
    except Unterminated as error:
        raise Refused(0, f"the SQL cannot be read safely: {error}", _QUOTE_HINT) from None
    starts = _marker_starts(pieces, markers)
    replacements = [_replacement(i, v, cut, starts[i], len(markers[i]), dialect) for i, v in enumerate(values)]
    if any(replacement is not None for replacement in replacements):  # else every one is in a comment
        final = _join(pieces, [markers[i] if r is None else r for i, r in enumerate(replacements)])
        _same_structure(template, cut, final, dialect, starts, markers, replacements)
    return Placed(tuple(replacements))


_QUOTE_HINT = "write ${name} outside the SQL's quotes and comments: it becomes a quoted SQL literal"


def _marker(pieces: Sequence[str]) -> str:
    text = "".join(pieces)
    while True:  # a word no piece holds, so each marker is found where it was put
        marker = "gryphvar" + secrets.token_hex(6)
        if marker not in text:
            return marker


def _join(pieces: Sequence[str], between: Sequence[str]) -> str:
    return "".join(piece + (between[i] if i < len(between) else "") for i, piece in enumerate(pieces))


def _marker_starts(pieces: Sequence[str], markers: Sequence[str]) -> list[int]:
    starts, at = [], 0
    for piece, marker in zip(pieces, markers, strict=False):
        at += len(piece)
        starts.append(at)
        at += len(marker)
    return starts


def _containing(cut: list[Token], start: int, length: int) -> Token | None:
    for token in cut:
        if token.start <= start and start + length <= token.end:
            return token
    return None


def _replacement(index: int, value: str, cut: list[Token], start: int, length: int, dialect: str) -> str | None:
    if "\0" in value:
        raise Refused(index, "holds a NUL character, which no SQL text may hold", "drop it from the value")
    token = _containing(cut, start, length)
    if token is None:  # a gap between Spark's tokens: a comment (sqlglot drops them)
        return None if dialect == "spark" else _refuse_glued(index)
    if token.kind == "comment":
        if token.flavour == "code":
            raise Refused(index, "stands inside a /*! ... */ comment, which MySQL runs as code", _QUOTE_HINT)
        return None
    if token.kind == "word" and (token.start, token.end) == (start, start + length):
        if any(t.kind == "comment" and t.flavour == "code" for t in cut):
            raise Refused(index, "stands in SQL holding a /*! ... */ comment, which MySQL runs as code", _QUOTE_HINT)
        return _literal(index, value, dialect)
    if token.kind == "string":
        return _inside_string(index, value, token.flavour, dialect)
    if token.kind == "name":
        raise Refused(index, "stands inside a quoted SQL name", _QUOTE_HINT)
    return _refuse_glued(index)


def _refuse_glued(index: int) -> str:
    raise Refused(index, "stands next to other SQL text, not as a value of its own", _QUOTE_HINT)


def _literal(index: int, value: str, dialect: str) -> str:
    """A string literal of ``dialect`` holding ``value``."""
    if dialect == "spark":
        return "'" + _backslashed(value, "'") + "'"
    if dialect == "mysql":
        _no_backslash(index, value)
    return "'" + value.replace("'", "''") + "'"


def _inside_string(index: int, value: str, flavour: str, dialect: str) -> str:
    """``value`` as the contents of a string literal of ``flavour``."""
    if flavour == "backslash" and dialect == "spark":
        return _backslashed(value, "'\"")
    if flavour in ("standard", "backslash"):  # MySQL's: ' doubled is read alike in both of its modes
        if dialect == "mysql":
            _no_backslash(index, value)
        return value.replace("'", "''")
    if flavour == "escape":  # PostgreSQL's E'...'
        return value.replace("\\", "\\\\").replace("'", "''")
    if flavour == "dollar" and "$" not in value:
        return value
    if flavour == "raw" and not any(c in value for c in "'\"\\"):
        return value
    problem = {
        "dollar": "holds a $ and stands inside a dollar-quoted string",
        "raw": "holds a quote or backslash and stands inside a raw string",
        "ambiguous": 'stands inside "...", which this database reads as a string or as a name',
    }.get(flavour, "stands inside a hex, bit or unicode string")
    raise Refused(index, problem, _QUOTE_HINT)


def _backslashed(value: str, quotes: str) -> str:
    """Spark's escapes: a backslash before each backslash and each quote that could end the literal."""
    out = value.replace("\\", "\\\\")
    for quote in quotes:
        out = out.replace(quote, "\\" + quote)
    return out


def _no_backslash(index: int, value: str) -> None:
    if "\\" in value:
        raise Refused(
            index,
            "holds a backslash, which MySQL reads as an escape or as itself depending on the server's sql_mode",
            "drop the backslash from the value",
        )


def _same_structure(
    template: str,
    cut: list[Token],
    final: str,
    dialect: str,
    starts: list[int],
    markers: list[str],
    replacements: list[str | None],
) -> None:
    """The final text's tokens are the template's, but for the contents of the literals that
    received a value; in MySQL no literal that holds a backslash (its reading depends on sql_mode)."""
    try:
        after = tokens(final, dialect)
    except Unterminated:
        after = []
    changed = {
        _containing(cut, start, len(markers[i])) for i, start in enumerate(starts) if replacements[i] is not None
    }
    expected = [(t.kind, t.flavour, None if t in changed else template[t.start : t.end]) for t in cut]
    expected = [
        ("string", "", None) if kind == "word" and text is None else (kind, flavour, text)
        for kind, flavour, text in expected
    ]
    found = [(t.kind, t.flavour, final[t.start : t.end]) for t in after]
    same = len(found) == len(expected) and all(
        e[0] == f[0] and (e[2] is None or (e[1], e[2]) == (f[1], f[2])) for e, f in zip(expected, found, strict=True)
    )
    first = next(i for i, replacement in enumerate(replacements) if replacement is not None)
    if not same:
        raise Refused(first, "would change the SQL around it, not only a literal's contents", _QUOTE_HINT)
    if dialect == "mysql" and any(t.kind == "string" and "\\" in template[t.start : t.end] for t in cut):
        raise Refused(
            first,
            "stands in MySQL text whose strings hold a backslash, read as an escape or as itself depending on sql_mode",
            "write the string without a backslash (or use CHAR(92))",
        )
