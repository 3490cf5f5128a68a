"""Whether a regular expression reads the same on both engines: RE2 (DuckDB) and Java (Spark).

A pattern written in a rule is checked before any data is read, so a pattern one engine refuses
mid-query (or reads otherwise than the other) is a located error. RE2's own parser says what RE2
refuses: DuckDB, a required dependency, compiles it on an in-memory connection that reads no data
(no JVM is started to ask Java). A scan of the text refuses what RE2 takes but Java refuses or
reads otherwise.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# Unicode general categories: the only \p{...} names both engines know (Java wants IsGreek, RE2 Greek)
_CATEGORIES = frozenset(
    "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Co Cs".split()
)
_REPETITION = re.compile(r"\{\d+(,\d*)?\}")
_FLAGS = re.compile(r"\(\?([A-Za-z-]*)[:)]")
_RE2_LOCK = threading.Lock()  # one connection, used by one thread at a time

REGEX_HINT = "a pattern runs as RE2 on DuckDB and as a Java regex on Spark: write what both read alike"


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot run alike on both engines, or None when it can."""
    return _java_problem(pattern) or _re2_problem(pattern)


def _re2_problem(pattern: str) -> str | None:
    import duckdb

    with _RE2_LOCK:
        try:
            _re2().execute("SELECT regexp_matches('', ?)", [pattern])
        except duckdb.Error as error:
            return f"RE2 (DuckDB) refuses it: {str(error).removeprefix('Invalid Input Error: ')}"
    return None


@functools.lru_cache(maxsize=1)
def _re2() -> duckdb.DuckDBPyConnection:
    import duckdb

    return duckdb.connect()


def _java_problem(pattern: str) -> str | None:
    """What RE2 accepts that Java refuses or reads otherwise (what both refuse is RE2's to say)."""
    position, class_start = 0, -1  # class_start: where the body of an open [...] begins
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            if pattern.startswith("Q", position + 1):  # \Q...\E: literal text to both
                end = pattern.find("\\E", position + 2)
                position = len(pattern) if end < 0 else end + 2
                continue
            problem, position = _escape(pattern, position)
            if problem:
                return problem
            continue
        if class_start >= 0:
            if char == "[":
                return "'[' inside [...] is a nested class to Java and a '[' (or [:name:]) to RE2: write \\["
            if pattern.startswith("&&", position):
                return "'&&' inside [...] is an intersection to Java and two '&' to RE2: write \\&\\&"
            if char == "]" and position > class_start:
                class_start = -1
            position += 1
            continue
        if char == "[":
            class_start = position + (2 if pattern.startswith("^", position + 1) else 1)
        elif char == "{" and not _REPETITION.match(pattern, position):
            return "a '{' that starts no repetition {n}, {n,} or {n,m}: Java refuses it; write \\{"
        elif pattern.startswith("(?P", position):
            return "(?P<name>...) is RE2 only (Java writes (?<name>...), RE2 refuses that): use a plain group"
        elif (flags := _FLAGS.match(pattern, position)) and "U" in flags.group(1):
            return "the flag U is ungreedy to RE2 and Unicode classes to Java: write lazy quantifiers (*?)"
        position += 1
    return None


def _escape(pattern: str, position: int) -> tuple[str | None, int]:
    """The problem of the escape at ``position`` (a backslash), and where the next token starts."""
    letter = pattern[position + 1 : position + 2]
    end = position + 2
    if letter in ("p", "P", "x") and pattern.startswith("{", end):
        close = pattern.find("}", end)
        end = len(pattern) if close < 0 else close + 1
    if letter == "C":
        return "\\C (any byte) is RE2 only", end
    if letter == "v":
        return "\\v is a vertical tab to RE2 and any vertical space to Java: write \\x0B", end
    if letter and letter in "123456789":
        return f"\\{letter} is a backreference to Java and an octal escape or an error to RE2", end
    if letter == "0" and not (pattern[end : end + 1] and pattern[end] in "01234567"):
        return "\\0 needs octal digits to Java (\\012); write \\x00 for the NUL character", end
    if letter in ("p", "P"):
        name = pattern[position + 3 : end - 1] if pattern.startswith("{", position + 2) else pattern[end : end + 1]
        if not pattern.startswith("{", position + 2):
            end += 1
        if name not in _CATEGORIES:
            return (
                f"\\{letter}{{{name}}}: only general categories (\\p{{L}}, \\p{{Lu}}, \\p{{Nd}}...) mean the same to both",
                end,
            )
    return None, end
