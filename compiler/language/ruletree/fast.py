"""The fast parser's entries: a native suite or one rule's text, or ``Unhandled``.

``GRYPH_PARSER=textx`` turns the fast parser off (every text goes to textX), to compare.
"""

from __future__ import annotations

import os

from ...support.recursion_room import recursion_room
from ..textx_parser import MAX_NESTING, bracket_nesting
from . import nodes as n
from . import statements as s
from .fast_scanner import Unhandled
from .fast_suite import SuiteParser


def _checked(text: str) -> str:
    """``text`` if the fast parser may read it: turned on, brackets within ``MAX_NESTING``."""
    if os.environ.get("GRYPH_PARSER", "").lower() == "textx":
        raise Unhandled("turned off")
    if text.count("(") + text.count("[") > MAX_NESTING and bracket_nesting(text)[0] > MAX_NESTING:
        raise Unhandled("nested too deep")  # textX's path reports where
    return text


def fast_suite_tree(text: str, file: str | None = None) -> s.SuiteTree | None:
    """A native suite's statements (None when it declares nothing), as ``parse_suite_tree``."""
    parser = SuiteParser(_checked(text), file)
    with recursion_room():
        return parser.suite()


def fast_rule_text(
    grammar: str, text: str, file: str | None = None, line_offset: int = 0, column_offset: int = 0
) -> n.AccuracyBody | n.SelectQuery | n.SelectList:
    """The body of one rule's text, as ``parse_rule_text``."""
    parser = SuiteParser(_checked(text), file, line_offset, column_offset)
    body: n.AccuracyBody | n.SelectQuery | n.SelectList
    with recursion_room():
        if grammar == "accuracy":
            body = parser.accuracy()
        elif grammar == "profiling":
            body = parser.query()
        elif grammar == "selections":
            start = parser.pos
            items = parser.select_items()
            body = n.SelectList(items, **parser.span(start, parser.last_end))
        else:
            raise Unhandled(grammar)
    if not parser.at_end():
        raise Unhandled("text after the rule")
    return body
