"""Parsing with textX: grammars load once, textX errors become ``InvalidInput`` at this boundary."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, Location, closest
from ..support.gc_pause import without_cyclic_gc
from ..support.recursion_room import recursion_room
from .grammar_cache import cached_metamodel
from .precedence import ShapeError, reshape_additive, reshape_expression
from .value_lists import expand_value_list

if TYPE_CHECKING:
    from textx import TextXSyntaxError

GRAMMAR_DIR = Path(__file__).parent / "grammar"
MAX_NESTING = 64  # brackets inside brackets, in any rule, check or policy

GRAMMAR_OPTIONS: dict[str, object] = {"ignore_case": True, "autokwd": True}


@functools.cache
def metamodel(name: str) -> Any:  # a textX metamodel
    """The textX metamodel of ``grammar/<name>.tx``, once per process, from the disk cache if it can."""
    files = sorted(GRAMMAR_DIR.glob("*.tx"))
    return _with_processors(
        _ascii_keywords(cached_metamodel(name, files, GRAMMAR_OPTIONS, lambda: _from_grammar(name)))
    )


def build_metamodel(name: str) -> Any:
    """The textX metamodel of ``grammar/<name>.tx``, built from the grammar files."""
    return _with_processors(_ascii_keywords(_from_grammar(name)))


def _from_grammar(name: str) -> Any:
    """What the cache holds: the metamodel without object processors (they are code, not grammar)."""
    from textx import metamodel_from_file  # imported when needed: the fast parser reads most texts

    return metamodel_from_file(str(GRAMMAR_DIR / f"{name}.tx"), **GRAMMAR_OPTIONS)


def _ascii_keywords(model: Any) -> Any:
    """Keywords match their ASCII letters only, in any case.

    textX matches keywords with ``re.IGNORECASE``, which in Unicode folds ``ı``, ``İ``, ``ſ`` and the
    Kelvin sign into ``i``, ``s`` and ``k``: ``dıstinctness`` read as a rule type that no lookup
    knows. The scoped ``(?a:...)`` folds ASCII only, so such a word is a name (and a located syntax
    error where a keyword is due); the ``\\b`` after it stays Unicode, as for every name.
    """
    from arpeggio import RegExMatch

    seen: set[int] = set()
    stack = [model._parser_blueprint.parser_model]
    while stack:
        expression = stack.pop()
        if id(expression) in seen:
            continue
        seen.add(id(expression))
        stack.extend(getattr(expression, "nodes", ()))
        if isinstance(expression, RegExMatch) and expression.to_match_regex == rf"{expression.to_match}\b":
            expression.to_match_regex = rf"(?a:{expression.to_match})\b"  # autokwd's keyword pattern
            expression.compile()
    return model


def _with_processors(model: Any) -> Any:
    model.register_obj_processors(
        {"Expression": reshape_expression, "Additive": reshape_additive, "InTail": expand_value_list}
    )
    return model


# Readable names for the token patterns of the grammar, used in "expected ..." hints:
# first by the rule a pattern is, then by a marker in its text.
_RULE_NAMES = {
    "StepStart": "an operator",
    "SuffixStart": "'.', '['",
}
_TOKEN_NAMES = (
    ("[^\\W\\d]", "a name"),  # before the keywords a name must not be
    ("(ms|d|h|m|s)", "a time literal"),
    ("\\d+\\.", "a number"),
    ("(?:[^'", "a string"),
    ("true|false", "true or false"),
    ("`", "a `quoted name`"),
)


def _token_name(pattern: str) -> str | None:
    for marker, name in _TOKEN_NAMES:
        if marker in pattern:
            return name
    if re.fullmatch(r"[A-Za-z]+", pattern) or not re.search(r"[\\\[\](){}?+*^$|]", pattern):
        return f"'{pattern}'"  # a keyword or operator
    if pattern in ("(", ")", "*", "+"):
        return f"'{pattern}'"
    return None


def _expected_hint(error: TextXSyntaxError, found: str | None) -> str | None:
    """What the parser expected; first a did-you-mean when the word ``found`` there is a
    misspelt keyword it expected (``completness``)."""
    names = []
    for rule in getattr(error, "expected_rules", None) or ():
        name = _RULE_NAMES.get(getattr(rule, "rule_name", "")) or _token_name(str(getattr(rule, "to_match", "")))
        if name and name not in names:
            names.append(name)
    if not names:
        return None
    expected = "expected " + ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
    word = re.match(r"[A-Za-z_]\w*", found or "")
    keywords = [name.strip("'") for name in names if re.fullmatch(r"'[A-Za-z_]+'", name)]
    best = closest(word.group(), keywords) if word else None
    if best is None or best.lower() == word.group().lower():  # type: ignore[union-attr]
        return expected
    return f"did you mean {best!r}? ({expected})"


def _line_text(text: str, line: int | None, column: int | None) -> str | None:
    """The offending text: from the error column to the end of its line."""
    if line is None:
        return None
    lines = text.splitlines() or [""]
    if not 1 <= line <= len(lines):
        return None
    rest = lines[line - 1][(column or 1) - 1 :].strip()
    return rest[:60] if rest else "end of input"


@without_cyclic_gc
def parse(grammar: str, text: str, file: str | None = None, line_offset: int = 0, column_offset: int = 0) -> Any:
    """Parse ``text`` with a grammar; offsets place the text inside a larger file.

    Brackets may nest ``MAX_NESTING`` deep (refused before parsing, at the first bracket too
    many); the parser recurses per level, so it gets the stack that needs.
    """
    from textx import TextXError, TextXSyntaxError

    depth, at = bracket_nesting(text)
    if depth > MAX_NESTING:
        line, column = _line_column(text, at)
        raise InvalidInput(
            "NESTED_TOO_DEEP",
            f"brackets nest {depth} deep, more than {MAX_NESTING}",
            location=Location(file, line + line_offset, column + (column_offset if line == 1 else 0)),
            text=_line_text(text, line, column),
            hint="split the expression into smaller ones",
        )
    try:
        with recursion_room():
            return metamodel(grammar).model_from_str(text)
    except TextXSyntaxError as error:
        line, column = error.line, error.col
        location = Location(file, (line or 1) + line_offset, (column or 1) + (column_offset if (line or 1) == 1 else 0))
        found = _line_text(text, line, column)
        raise InvalidInput(
            "SYNTAX_ERROR", "the rule does not parse", location=location, text=found, hint=_expected_hint(error, found)
        ) from None
    except ShapeError as error:
        line, column = _line_column(text, error.position)
        raise InvalidInput(
            error.code,
            str(error),
            location=Location(file, line + line_offset, column + (column_offset if line == 1 else 0)),
            text=_line_text(text, line, column),
        ) from None
    except TextXError as error:  # semantic errors raised while building the model
        location = Location(file, (error.line or 1) + line_offset, error.col)
        raise InvalidInput("SYNTAX_ERROR", str(error.message), location=location) from None


_BRACKET_OR_QUOTE = re.compile("[()\\[\\]'\"`]")


def bracket_nesting(text: str) -> tuple[int, int]:
    """How deep brackets nest outside quotes, and the offset of the first one past ``MAX_NESTING``
    (or of the deepest)."""
    depth = deepest = at = 0
    quote = None
    for match in _BRACKET_OR_QUOTE.finditer(text):  # only these characters change the count
        index, char = match.start(), match.group()
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest <= MAX_NESTING + 1:
                    at = index
        elif char in ")]":
            depth -= 1
    return deepest, at


def _line_column(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of an offset into ``text``."""
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}
# \uXXXX: a character by its code point (how gryph suggest writes controls and bidi marks)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)


def unquote_string(token: str) -> str:
    """The value of a string literal token: quotes removed, backslash escapes applied."""
    return _ESCAPE.sub(_unescaped, token[1:-1])


def _unescaped(match: re.Match[str]) -> str:
    escape = match.group(1)
    return chr(int(escape[1:], 16)) if len(escape) == 5 else _ESCAPES.get(escape, escape)


def string_value(token: str) -> str:
    """``unquote_string``, quicker for the many strings without an escape (IN lists hold thousands)."""
    body = token[1:-1]
    return body if "\\" not in body else unquote_string(token)


def unquote_name(token: str) -> str:
    """The name a plain or back-quoted identifier token stands for."""
    if token.startswith("`") and token.endswith("`") and len(token) >= 2:
        return token[1:-1].replace("``", "`")
    return token


def unquote_label(token: str) -> str:
    """The name a measure or check label stands for: a string, or a plain or back-quoted name."""
    return unquote_string(token) if token[:1] in ("'", '"') else unquote_name(token)
