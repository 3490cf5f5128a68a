"""IN lists of plain values, read in one match.

Tools write IN lists of thousands of strings or numbers; parsing each item as an expression costs
the parser about a third of a millisecond, so a list of 100,000 values took half a minute. The
grammar matches such a list (strings and unsigned numbers only, nothing else between the commas)
as one token, and this module turns it into the literal nodes the slower path would have built,
each with its own position, so checks and errors see no difference.
"""

from __future__ import annotations

import re
from typing import Any

from .precedence import _Node

# The grammar's ValueList has checked every value; splitting needs only to keep the commas
# inside strings: a value is a string, or the run of characters up to the next comma or space.
VALUE = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,\s]+""")


# The class names are the grammar's, which the checker dispatches on.
class StringLiteral(_Node):
    pass


class NumberLiteral(_Node):
    pass


def expand_value_list(tail: Any) -> None:  # a textX InTail
    """Give an ``InTail`` matched as a ``ValueList`` its ``options``, one literal node per value."""
    values = getattr(tail, "values", None)
    if values is None:
        return
    start, text = values._tx_position, values.text
    options = []
    for match in VALUE.finditer(text):  # only values and ", " separators lie between them
        cls = StringLiteral if match.group()[0] in "'\"" else NumberLiteral
        options.append(cls(tail, start + match.start(), start + match.end(), value=match.group()))
    tail.options = options
    tail.values = None
