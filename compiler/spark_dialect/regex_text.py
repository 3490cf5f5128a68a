"""What the compiler needs to know of a regular expression and of a replacement text.

Patterns are checked before any data is read, so a group index or a ``$n`` that Spark would
fail on mid-query is a located error instead.
"""

from __future__ import annotations


class ReplacementError(ValueError):
    """A replacement text Java's ``Matcher`` would refuse; the message says why."""


def capture_groups(pattern: str) -> int:
    """How many capturing groups a pattern has (``(...)``, ``(?<name>...)``, ``(?P<name>...)``)."""
    count = 0
    in_class = False
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position += 2  # an escaped character is never a group or a class bracket
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(" and _captures(pattern[position + 1 : position + 4]):
            count += 1
        position += 1
    return count


def _captures(after_paren: str) -> bool:
    """Whether the text after ``(`` opens a capturing group (named ones included, lookbehind not)."""
    if not after_paren.startswith("?"):
        return True
    return after_paren.startswith("?P<") or (after_paren.startswith("?<") and after_paren[2:3] not in ("=", "!"))


def replacement_parts(replacement: str, groups: int) -> list[str | int]:
    """A Java replacement as literal text and group numbers: ``$1`` is group 1, ``\\$`` a dollar.

    Group numbers are one digit (``$12`` is group 1 then ``2``): the syntax both engines share.
    """
    parts: list[str | int] = []
    position = 0
    while position < len(replacement):
        char = replacement[position]
        if char == "\\":
            if position + 1 == len(replacement):
                raise ReplacementError("the replacement ends with a lone backslash")
            parts.append(replacement[position + 1])
            position += 2
        elif char == "$":
            digit = replacement[position + 1 : position + 2]
            if not digit or digit not in "0123456789":
                raise ReplacementError("'$' must be followed by a group number; write '\\$' for a dollar sign")
            if int(digit) > groups:
                raise ReplacementError(f"the replacement refers to group {digit}, the pattern has {groups}")
            if groups >= 10 and replacement[position + 2 : position + 3].isdigit():
                raise ReplacementError(
                    "with ten or more groups '$1' followed by a digit is ambiguous; write '\\' between them"
                )
            parts.append(int(digit))
            position += 2
        else:
            parts.append(char)
            position += 1
    return parts
