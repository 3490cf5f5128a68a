"""Names, strings and numbers written as the native suite language reads them back."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from gryph.compiler.language.ruletree.fast_expressions import KEYWORDS
from gryph.compiler.spark_dialect.spark_names import quoted

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
# what a terminal or an editor acts on instead of showing: C0 and C1 controls (ESC starts a
# terminal's escape sequence) and the bidirectional marks that reorder the text shown around them
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def writable_name(name: str) -> bool:
    """Whether a column name can be written as an identifier that shows as itself: a back-quoted
    name has no escapes, so one holding a control character or a bidirectional mark cannot."""
    return _HIDDEN.search(name) is None


def dsl_name(name: str) -> str:
    """A column name as an identifier: plain when it is one, else back-quoted (spaces, unicode,
    keywords, backquotes)."""
    if _PLAIN.match(name) and name.lower() not in KEYWORDS:
        return name
    return quoted(name)  # the suite's variables leave back-quoted text alone


def dsl_string(text: str) -> str:
    """A double-quoted string literal holding ``text`` exactly."""
    body = "".join(_ESCAPES.get(char, char) for char in text).replace('"', '\\"')
    return '"' + _no_variables(_HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", body)) + '"'


def dsl_number(value: int | float | Decimal) -> str | None:
    """A number literal (negative ones with a leading minus), None for NaN and infinities."""
    if isinstance(value, bool):
        raise TypeError("a boolean is no number literal")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Decimal):
        if not value.is_finite():
            return None
        text = format(value, "f")
    else:
        text = repr(value)
    return text


def identifier(text: str, taken: set[str]) -> str:
    """A plain identifier made of ``text`` (a source's or rule's name), not in ``taken``; added to it."""
    base = re.sub(r"\W+", "_", text.encode("ascii", "ignore").decode()).strip("_").lower() or "data"
    if base[0].isdigit() or base in KEYWORDS:
        base = f"t_{base}"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    taken.add(name)
    return name


def comment_text(text: str) -> str:
    """Text that stays inside one comment line and shows as itself: control characters as
    ``\\xNN``, bidirectional marks as ``\\uNNNN``."""
    return _HIDDEN.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def _no_variables(text: str) -> str:
    """``${`` kept as text: the suite's variables (``--var``) would read it as one."""
    return text.replace("${", "$${")
