"""``${name}`` in a native suite's text, given values by ``--var name=value`` before it is parsed.

A value never becomes code. Where a ``${name}`` may stand, and what it becomes there:

- where a value stands in a rule, measure, check or ``data_time`` statement (outside any quotes):
  a string literal of the DSL holding the value (``where day = ${day}`` compares with the text
  ``2026-11-24``; cast it for another type);
- inside a source's path (``csv("data/${day}/orders.csv")``): the value as one path part that
  matches only itself, so it may hold no ``/``, ``\\`` or glob character and may not be ``.`` or ``..``;
- inside SQL text (``sql "..."``, ``native "..."``, a source's ``query = "..."``): placed by the
  lexical rules of the dialect that reads the text (``sql_values.py``): a quoted literal outside
  the SQL's quotes, escaped inside a string literal, left as written in a comment, refused
  wherever it could be anything but one literal.

Anywhere else (another option; comments of the suite are ignored) a ``${name}`` is an error, and
so is one with no value or a value that is not UTF-8; ``$${`` stands for the text ``${``. The
older Griffin design's ``${source}``, ``${target}`` and a statement-form rule's own variables
(``SLA = 24h; ... ${SLA}``) are its syntax and stay as written. Columns after a substitution on
the same line shift by the difference in length; lines never do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import InvalidInput, Location, did_you_mean
from ..language.textx_parser import unquote_string
from .sql_values import Refused, place

RESERVED = ("source", "target")  # the older Griffin design's heads: ${source}['uid']
_REFERENCE = re.compile(r"\$\{([^}\n]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SOURCE_NAME = r"(\w+|`(?:[^`]|``)*`)"
_SOURCE_CALL = re.compile(r"\bsource\s+" + _SOURCE_NAME + r"\s*=\s*(\w+)\s*\Z", re.IGNORECASE)
_SQL_KEYWORD = re.compile(r"\b(sql|native)\s*\Z", re.IGNORECASE)
_NATIVE_ON = re.compile(r"\bon\s+" + _SOURCE_NAME + r"\s*:\s*native\s*\Z", re.IGNORECASE)
_DATABASE_DIALECTS = ("postgres", "mysql", "sqlite")
# what one path part may not hold: separators, NUL, and what DuckDB, Python or Hadoop read as a glob
_NOT_IN_A_PART = "/\\\0*?[]{}"
_OPTION_KEY = re.compile(r"\b([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*\Z")


@dataclass(frozen=True)
class Substituted:
    """A suite's text with its ``${name}`` replaced, and the names it used."""

    text: str
    used: frozenset[str]


def parse_assignment(text: str) -> tuple[str, str]:
    """``name=value`` of a ``--var`` as a pair; anything else is refused."""
    _check_utf8(text, None)
    name, equals, value = text.partition("=")
    if not equals or not _NAME.match(name) or name in RESERVED:
        raise InvalidInput(
            "BAD_VAR",
            f"--var {text!r} is not name=value"
            if name not in RESERVED
            else f"--var {name} is a rule's own ${{{name}}}",
            text=text,
            hint="write --var day=2026-11-24 (a name of letters, digits and _; not source or target)",
        )
    return name, value


def substitute(text: str, values: Mapping[str, str], file: str | None) -> Substituted:
    """``text`` with every ``${name}`` replaced as the module says; errors are located."""
    for name, value in values.items():
        _check_utf8(f"{name}={value}", file)
    return _Substitution(text, values, file).run()


def _check_utf8(assignment: str, file: str | None) -> None:
    """A ``--var`` whose bytes are not UTF-8 (Python holds them as lone surrogates) is refused:
    no reader of the suite's text could hold it."""
    try:
        assignment.encode("utf-8")
    except UnicodeEncodeError:
        shown = assignment.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        raise InvalidInput(
            "BAD_VAR",
            f"--var {shown} is not UTF-8 text",
            location=Location(file),
            text=shown,
            hint="give the value as UTF-8 (iconv -t UTF-8 converts text of another encoding)",
        ) from None


def check_all_used(values: Mapping[str, str], used: frozenset[str], file: str | None) -> None:
    """A ``--var`` the suite never reads is an error (a misspelt name would be silently ignored)."""
    for name in values:
        if name not in used:
            raise InvalidInput(
                "UNUSED_VAR",
                f"--var {name} is not used by the suite: it has no ${{{name}}}",
                location=Location(file),
                text=name,
                hint=did_you_mean(name, sorted(used)) or "drop the --var, or write ${" + name + "} in the suite",
            )


class _Substitution:
    def __init__(self, text: str, values: Mapping[str, str], file: str | None) -> None:
        self.text, self.values, self.file = text, values, file
        self.out: list[str] = []
        self.used: set[str] = set()
        self.pos = 0
        self.source_depth = 0  # inside a source's ( ... ): its strings without a key are paths
        self.source_format = ""  # and that source's format

    def run(self) -> Substituted:
        text, depth = self.text, 0
        while self.pos < len(text):
            char = text[self.pos]
            if char == "#":
                end = text.find("\n", self.pos)
                self._copy(len(text) if end < 0 else end)
            elif char in "'\"":
                self._string(char)
            elif char == "`":
                self._copy(_quoted_end(text, self.pos, "`"))
            elif text.startswith("$${", self.pos):
                self.out.append("${")
                self.pos += 3
            elif text.startswith("${", self.pos):
                name, end = self._reference(self.pos)
                if self._griffin_head(name):
                    self._copy(end)
                else:
                    self.out.append(_dsl_string(self._value(name, self.pos)))
                    self.pos = end
            else:
                if char == "(":
                    depth += 1
                    call = _SOURCE_CALL.search(text, max(0, self.pos - 300), self.pos)
                    if self.source_depth == 0 and call is not None:
                        self.source_depth, self.source_format = depth, call.group(2).lower()
                elif char == ")":
                    if depth == self.source_depth:
                        self.source_depth = 0
                    depth -= 1
                self._copy(self.pos + 1)
        return Substituted("".join(self.out), frozenset(self.used))

    def _griffin_head(self, name: str) -> bool:
        """Whether ``${name}`` is the older Griffin design's own: a rule's ``${source}`` or
        ``${target}``, or a variable a statement-form rule assigns (``SLA = 24h; ... ${SLA}``)."""
        if name in RESERVED:
            return True
        return re.search(r"[:;]\s*" + name + r"\s*=(?!=)", self.text) is not None

    def _copy(self, end: int) -> None:
        self.out.append(self.text[self.pos : end])
        self.pos = end

    def _string(self, quote: str) -> None:
        """A DSL string literal: its ``${name}`` replaced by what its place allows."""
        start, end = self.pos, _quoted_end(self.text, self.pos, quote)
        body = self.text[start + 1 : end - 1]
        if "${" not in body:
            self._copy(end)
            return
        before = self.text[:start].rstrip()
        key = _OPTION_KEY.search(before)
        keyword = _SQL_KEYWORD.search(before)
        if keyword is not None or (key is not None and key.group(1).lower() == "query"):
            replaced = self._sql(body, quote, start + 1, self._dialect(before, keyword))
        elif self.source_depth and key is None and before.endswith(("(", ",")):
            replaced = self._path(body, start + 1)
        else:
            replaced = self._each_reference(body, start + 1, self._misplaced)
        self.out.append(quote + replaced + quote)
        self.pos = end

    def _dialect(self, before: str, keyword: re.Match[str] | None) -> str | None:
        """Whose SQL a string is: Spark's for ``sql "..."``; the database's for a ``native "..."``
        measure (its ``on`` source's format) or a source's ``query`` (None when not a database)."""
        if keyword is not None and keyword.group(1).lower() == "sql":
            return "spark"
        if keyword is None:
            return self.source_format if self.source_format in _DATABASE_DIALECTS else None
        on = _NATIVE_ON.search(before)
        if on is None:
            return None
        # the declarations of that source outside comments (a commented one must not decide the
        # dialect); none, or two of different formats, and the text's dialect is unknown
        declaration = re.compile(r"\bsource\s+" + re.escape(on.group(1)) + r"\s*=\s*(\w+)\s*\(", re.I)
        formats = {m.group(1).lower() for m in declaration.finditer(re.sub(r"#[^\n]*", "", self.text))}
        return formats.pop() if len(formats) == 1 and formats <= set(_DATABASE_DIALECTS) else None

    def _misplaced(self, name: str, at: int) -> str:
        raise self._error(
            "BAD_VAR",
            "a ${...} may stand in a source's path, in SQL text, or where a value stands; not in this string",
            at,
            hint="write it outside the quotes, e.g. where day = ${day}",
        )

    def _path(self, body: str, offset: int) -> str:
        def part(name: str, at: int) -> str:
            value = self._value(name, at)
            if value in ("", ".", "..") or any(c in value for c in _NOT_IN_A_PART):
                raise self._error(
                    "BAD_VAR",
                    f"--var {name}={value!r} stands in a path: it must be one path part, matching only itself",
                    at,
                    hint="a value in a path holds no / or \\, no glob character * ? [ ] { } and is not empty, . or ..",
                )
            return value

        return self._each_reference(body, offset, part)

    def _sql(self, body: str, quote: str, offset: int, dialect: str | None) -> str:
        """SQL text: each ``${name}`` placed by ``sql_values`` as one literal of ``dialect``'s SQL."""
        pieces, references = self._split(body, offset)
        if not references:  # only $${
            return pieces[0]
        if dialect is None:
            raise self._error(
                "BAD_VAR",
                f"${{{references[0][0]}}} stands in SQL whose database cannot be told from the suite",
                references[0][1],
                hint="declare the source as postgres(...), mysql(...) or sqlite(...) in this file",
            )
        values = [self.values.get(name, "") for name, _ in references]
        try:
            placed = place([unquote_string("'" + piece + "'") for piece in pieces], values, dialect)
        except Refused as refused:
            name, at = references[refused.index]
            shown = f" ({name}={values[refused.index]!r})" if name in self.values else ""
            raise self._error("BAD_VAR", f"${{{name}}}{shown} {refused}", at, hint=refused.hint) from None
        out = []
        for piece, (name, at), replacement in zip(pieces, references, placed.replacements, strict=False):
            if replacement is None:  # inside a SQL comment: kept as written
                out.append(piece + "${" + name + "}")
            else:
                self._value(name, at)
                out.append(piece + _dsl_escaped(replacement, quote))
        return "".join(out) + pieces[-1]

    def _each_reference(self, body: str, offset: int, replace: Callable[[str, int], str]) -> str:
        """``body`` with each ``${name}`` replaced by ``replace(name, where)``."""
        pieces, references = self._split(body, offset)
        return (
            "".join(piece + replace(name, at) for piece, (name, at) in zip(pieces, references, strict=False))
            + (pieces[-1])
        )

    def _split(self, body: str, offset: int) -> tuple[list[str], list[tuple[str, int]]]:
        """``body``'s text between its ``${name}`` (one piece more than references, ``$${`` made
        ``${``) and each reference's name and place in the suite."""
        pieces, references, index, piece = [], [], 0, ""
        while (found := body.find("${", index)) >= 0:
            if found > 0 and body[found - 1] == "$":
                piece += body[index : found - 1] + "${"
                index = found + 2
                continue
            pieces.append(piece + body[index:found])
            name, end = self._reference(offset + found)
            references.append((name, offset + found))
            piece, index = "", end - offset
        pieces.append(piece + body[index:])
        return pieces, references

    def _reference(self, at: int) -> tuple[str, int]:
        match = _REFERENCE.match(self.text, at)
        if match is None or not _NAME.match(match.group(1)):
            raise self._error(
                "BAD_VAR",
                "${ starts no variable: write ${name} (letters, digits and _), or $${ for the text ${",
                at,
            )
        return match.group(1), match.end()

    def _value(self, name: str, at: int) -> str:
        if name not in self.values:
            raise self._error(
                "UNDEFINED_VAR",
                f"${{{name}}} has no value",
                at,
                hint=f"run with --var {name}=VALUE"
                + (f" ({did_you_mean(name, list(self.values))})" if did_you_mean(name, list(self.values)) else ""),
            )
        self.used.add(name)
        return self.values[name]

    def _error(self, code: str, message: str, at: int, hint: str | None = None) -> InvalidInput:
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        end = self.text.find("}", at)
        shown = self.text[at : end + 1] if 0 <= end < at + 60 else self.text[at : at + 20]
        return InvalidInput(code, message, location=Location(self.file, line, column), text=shown, hint=hint)


def _quoted_end(text: str, start: int, quote: str) -> int:
    """Where the quoted text starting at ``start`` ends (just past its closing quote; the text's
    end when it has none: the parser reports that)."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "`":
            index += 2
            continue
        if char == quote:
            return index + 1
        index += 1
    return len(text)


def _dsl_string(value: str) -> str:
    """A DSL string literal holding ``value`` exactly (its escapes undone by the parser)."""
    return '"' + _dsl_escaped(value, '"') + '"'


def _dsl_escaped(value: str, quote: str) -> str:
    """``value`` as the inside of a DSL string literal quoted with ``quote``: on one line."""
    escaped = value.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n").replace("\r", "\\r")
    return escaped.replace("\t", "\\t").replace("\0", "\\0")


_DATA_TIME = re.compile(
    r"""^[ \t]*data_time[ \t]*=[ \t]*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')[ \t]*(?:#[^\n]*)?$""", re.M
)


def take_data_time(text: str, file: str | None) -> tuple[str, str | None, Location | None]:
    """The suite's ``data_time = "..."`` statement (on a line of its own, after substitution: so
    ``data_time = ${day}`` works) taken out of ``text``, which keeps its lines; its value and where."""
    found = list(_DATA_TIME.finditer(text))
    if not found:
        return text, None, None
    match = found[0]
    line = text.count("\n", 0, match.start()) + 1
    location = Location(file, line, match.start(1) - (text.rfind("\n", 0, match.start()) + 1) + 1)
    if len(found) > 1:
        twice = found[1]
        raise InvalidInput(
            "BAD_DATA_TIME",
            "the suite states its data_time twice",
            location=Location(file, text.count("\n", 0, twice.start()) + 1, 1),
            text=twice.group(0).strip(),
            hint="keep one data_time = ... line",
        )
    value = unquote_string(match.group(1))
    return text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :], value, location
