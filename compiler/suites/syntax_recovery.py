"""A suite's statement tree with the statements that do not parse left out, each one's error kept.

Statements are independent: one that does not parse should not hide a mistake in the next. After
a syntax error, the statement holding it (from its first line to the line before the next line
that starts with a statement's keyword) is blanked out, its lines kept so that every location
stays right, and the text is parsed again, up to ``MAX_ERRORS`` times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import MAX_ERRORS, InvalidInput
from ..language.ruletree.convert_suite import parse_suite_tree
from ..language.ruletree.statements import SuiteTree
from ..rule_kinds import dsl_keywords

# the words a statement starts with (the grammar's Statement), a rule's kind among them
_STATEMENT_WORDS = frozenset({"source", "measure", "check", "warn", "pass", "stream", "schema", "notify", "griffin"})
# the name a statement declares, read from its text (for statements that do not parse)
_DECLARED_NAME = re.compile(
    r"""\s*(?:source\s+(?P<source>\w+)|(?:warn\s+)?check\s+(?P<check>"[^"]*"|'[^']*'|\w+)"""
    r"""|measure\s+(?P<measure>"[^"]*"|'[^']*'|\w+)|\w+\s+(?P<rule>\w+)\s+on\b)""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RecoveredTree:
    """The statements that parse (None when none is left), the syntax errors of the others, and
    the names those others declared."""

    tree: SuiteTree | None
    errors: tuple[InvalidInput, ...]
    dropped: frozenset[str]


def parse_recovering(text: str, file: str | None) -> RecoveredTree:
    """``text``'s statement tree; a statement that does not parse is left out and its error kept."""
    errors: list[InvalidInput] = []
    dropped: set[str] = set()
    lines = text.split("\n")
    while True:
        try:
            return RecoveredTree(parse_suite_tree("\n".join(lines), file), tuple(errors), frozenset(dropped))
        except InvalidInput as error:
            span = _statement_at(lines, error.line)
            errors.append(error)
            if span is None or len(errors) >= MAX_ERRORS:
                return RecoveredTree(None, tuple(errors), frozenset(dropped))
            first, last = span
            declared = _DECLARED_NAME.match(lines[first])
            if declared is not None:
                dropped.add(next(name for name in declared.groups() if name is not None).strip("\"'"))
            lines[first : last + 1] = [""] * (last + 1 - first)


def _statement_at(lines: list[str], line: int | None) -> tuple[int, int] | None:
    """The 0-based first and last line of the statement holding 1-based ``line``: back to the
    nearest line starting in column 1, on to the line before the next statement's keyword."""
    if line is None or not 1 <= line <= len(lines):
        return None
    first = line - 1
    while first > 0 and not _starts_statement(lines[first], any_word=True):
        first -= 1
    if not lines[first].strip():
        return None  # nothing there to leave out: the error is not one statement's
    last = line - 1
    while last + 1 < len(lines) and not _starts_statement(lines[last + 1], any_word=False):
        last += 1
    return first, last


def _starts_statement(line: str, any_word: bool) -> bool:
    """Whether ``line`` starts a statement: a word in column 1 (a statement's keyword, unless
    ``any_word``: a misspelt keyword starts a statement too)."""
    word = re.match(r"[A-Za-z_]\w*", line)
    if word is None:
        return False
    return any_word or word.group().lower() in _STATEMENT_WORDS or word.group().lower() in _keywords()


def _keywords() -> frozenset[str]:
    return frozenset(keyword.lower() for keyword in dsl_keywords())
