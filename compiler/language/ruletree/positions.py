"""Where a node of the rule tree stands: line and column of an offset into the parsed text."""

from __future__ import annotations

import bisect
import re
from typing import Any

from ...errors import Location


class Positions:
    """Locations in one text; the offsets place that text inside a larger file (a JSON string)."""

    def __init__(self, text: str, file: str | None, line_offset: int = 0, column_offset: int = 0) -> None:
        self.input = text
        self.file = file
        self.line_offset = line_offset
        self.column_offset = column_offset
        self._line_ends = [match.start() for match in re.finditer("\n", text)]

    def location_at(self, position: int) -> Location:
        """Where ``position`` stands (lines and columns as textX counts them), offsets applied."""
        line = bisect.bisect_left(self._line_ends, position)
        column = position - (self._line_ends[line - 1] + 1 if line else 0) + 1
        line += 1
        if line == 1:
            column += self.column_offset
        return Location(self.file, line + self.line_offset, column)

    def span(self, start: int, end: int) -> dict[str, Any]:
        """The ``location`` and ``text`` of the node read from ``start`` to ``end``."""
        return {"location": self.location_at(start), "text": self.input[start:end].strip()}
