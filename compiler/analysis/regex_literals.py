r"""A string literal written as a regular expression that loses a backslash on the way.

A string literal applies backslash escapes before the pattern sees it (as Spark's do): ``'^a\.c$'``
is the pattern ``^a.c$``, which matches ``abc``. Where the pattern then means something else than
it reads, the rule gets a warning with the fix (``'\\.'`` or ``[.]``), located at the literal.
"""

from __future__ import annotations

import re
import warnings

from ..errors import InvalidInput, LocatedWarning
from ..language.ruletree.nodes import Node, StringLit

_KEPT = frozenset("ntr0\\'\"")  # the escapes a string literal means (see textx_parser.unquote_string)
_ESCAPE = re.compile(r"\\(.)", re.S)


class RegexEscapeWarning(LocatedWarning):
    """A pattern's literal drops a backslash; ``error`` says where and what to write."""


def warn_lost_backslashes(pattern: Node) -> None:
    """Warn when the string literal ``pattern`` drops a backslash the regex it spells needed."""
    if not isinstance(pattern, StringLit) or len(pattern.text) < 2:
        return
    body = pattern.text[1:-1]
    lost = [m for m in _ESCAPE.finditer(body) if m.group(1) not in _KEPT]
    if not lost:
        return
    quote = pattern.text[0]
    fixed = _ESCAPE.sub(lambda m: m.group(0) if m.group(1) in _KEPT else "\\\\" + m.group(1), body)
    first = lost[0].group(1)
    error = InvalidInput(
        "REGEX_BACKSLASH_LOST",
        f"the string {pattern.text} is the pattern {pattern.value}: a string literal drops the backslash "
        f"of \\{first}, so the pattern does not read as written",
        location=pattern.location,
        text=pattern.text,
        hint=f"write {quote}{fixed}{quote}" + (f" (or [{first}])" if not first.isalnum() else ""),
    )
    warnings.warn(RegexEscapeWarning(error), stacklevel=2)
