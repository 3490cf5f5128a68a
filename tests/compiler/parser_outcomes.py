"""What each parser path makes of a text, as plain values to compare: the tree or the error."""

from __future__ import annotations

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language.ruletree.convert import parse_rule_text
from gryph.compiler.language.ruletree.convert_suite import parse_suite_tree
from gryph.compiler.language.ruletree.fast import fast_rule_text, fast_suite_tree
from gryph.compiler.language.ruletree.fast_scanner import Unhandled


def textx_outcome(grammar: str, text: str, monkeypatch):
    """What textX's path gives: the tree, or the error (code, message, location, text, hint)."""
    monkeypatch.setenv("GRYPH_PARSER", "textx")
    try:
        return entry_outcome(grammar, text)
    finally:
        monkeypatch.delenv("GRYPH_PARSER")


def entry_outcome(grammar: str, text: str):
    """What the parser's entry gives (the fast parser first, unless turned off)."""
    try:
        return ("tree", _tree(grammar, text))
    except InvalidInput as error:
        return ("error", error.code, error.message, error.location, error.text, error.hint)


def _tree(grammar: str, text: str):
    if grammar == "suite":
        return parse_suite_tree(text, "rules.dq")
    return parse_rule_text(grammar, text, "rules.dq", 2, 4)


def fast_outcome(grammar: str, text: str):
    """What the hand-written parser gives: the tree, or None when it leaves the text to textX."""
    try:
        if grammar == "suite":
            return ("tree", fast_suite_tree(text, "rules.dq"))
        return ("tree", fast_rule_text(grammar, text, "rules.dq", 2, 4))
    except Unhandled:
        return None
