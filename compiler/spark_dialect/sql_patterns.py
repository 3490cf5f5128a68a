"""Regular expressions written as literals in users' Spark SQL, checked as a rule's are: a pattern
one engine refuses, or reads otherwise than the other, is an error before anything runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidInput, Location
from .regex_syntax import REGEX_HINT, pattern_problem

if TYPE_CHECKING:
    from sqlglot import exp

# sqlglot's nodes for Spark's functions that take a regex as their second argument (`expression`)
_REGEX_CALLS = (
    "RegexpLike",  # rlike, regexp, regexp_like
    "RegexpILike",
    "RegexpExtract",
    "RegexpExtractAll",
    "RegexpReplace",
    "RegexpSplit",  # split
    "RegexpCount",
    "RegexpSubstr",
    "RegexpInstr",
)


def check_sql_patterns(query: exp.Query, what: str, location: Location | None) -> None:
    """Refuse (``BAD_REGEX``) a literal pattern of ``query`` that the engines would not read alike;
    a computed pattern runs as it is."""
    from sqlglot import exp

    calls = tuple(node for name in _REGEX_CALLS if (node := getattr(exp, name, None)) is not None)
    for call in query.find_all(*calls):
        pattern = call.args.get("expression")
        if isinstance(pattern, exp.Literal) and pattern.is_string and (problem := pattern_problem(pattern.this)):
            raise InvalidInput(
                "BAD_REGEX",
                f"{what}: the pattern {pattern.this!r}: {problem}",
                location=location,
                text=pattern.this,
                hint=REGEX_HINT,
            )
