"""upper and lower as Spark (Java) maps case: full case mapping, Greek final sigma.

DuckDB maps one character to one character: 'ß' -> 'ẞ', 'ﬁ' -> 'ﬁ', 'İ' -> 'i', and every 'Σ'
to 'σ'. Java writes 'SS', 'FI', 'i̇' and, at the end of a word, 'ς'. Strings without those
characters take DuckDB's own upper/lower; the rest are rewritten first.
"""

from __future__ import annotations

from functools import cache

from ..sql.quoting import string

# Where Unicode's unconditional multi-character uppercase mappings live (SpecialCasing.txt)
_SPECIAL_UPPER_RANGES = (
    (0xDF, 0x149),
    (0x1F0, 0x1F0),
    (0x390, 0x3B0),
    (0x587, 0x587),
    (0x1E96, 0x1E9A),
    (0x1F50, 0x1FFC),
    (0xFB00, 0xFB17),
)

_CASED = r"\p{Lu}\p{Ll}\p{Lt}"
# case-ignorable: marks, format characters, modifiers and the word-internal punctuation
_CASE_IGNORABLE = r"\p{Mn}\p{Me}\p{Cf}\p{Lm}\p{Sk}'.:·‘’․"
# a capital sigma after a cased letter and not before one ends a word: its lower case is 'ς'
_FINAL_SIGMA = string(f"([{_CASED}][{_CASE_IGNORABLE}]*)Σ([{_CASE_IGNORABLE}]*)([^{_CASED}{_CASE_IGNORABLE}]|$)")


@cache
def _special_upper() -> dict[str, str]:
    """Characters whose upper case is several characters ('ß' -> 'SS'), from Python's tables."""
    chars = (chr(c) for low, high in _SPECIAL_UPPER_RANGES for c in range(low, high + 1))
    return {ch: ch.upper() for ch in chars if len(ch.upper()) > 1}


def upper_sql(sql: str) -> str:
    """DuckDB SQL for Java's upper case of the text ``sql``."""
    special = _special_upper()
    rewritten = sql
    for ch, upper in special.items():
        rewritten = f"replace({rewritten}, {string(ch)}, {string(upper)})"
    return (
        f"(CASE WHEN regexp_matches({sql}, {string('[' + ''.join(special) + ']')})"
        f" THEN upper({rewritten}) ELSE upper({sql}) END)"
    )


def lower_sql(sql: str) -> str:
    """DuckDB SQL for Java's lower case of the text ``sql``."""
    rewritten = f"regexp_replace(replace({sql}, 'İ', 'i̇'), {_FINAL_SIGMA}, '\\1ς\\2\\3', 'g')"
    return f"(CASE WHEN regexp_matches({sql}, '[İΣ]') THEN lower({rewritten}) ELSE lower({sql}) END)"
