"""Number literals read from the user's text, of any length, without Python's digit limit."""

from __future__ import annotations

import math

# Python refuses to convert integer text of more than 4300 digits; no exact use needs that many
MAX_INTEGER_DIGITS = 4000


def number_from_text(text: str) -> int | float:
    """An integer for integer text, else a float; integer text too long to hold is infinite."""
    if any(c in text for c in ".eE"):
        return float(text)
    if len(text.lstrip("+-").lstrip("0")) > MAX_INTEGER_DIGITS:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)
