"""An ODCS quality rule (library metric or SQL) as the measure and check of a native suite.

Semantics (docs/contracts.md, "Semantics"): counts are of rows; ``percent`` is 100 times the count
over the object's row count (0 rows: 0 percent); NULL is never an invalid value; a missing value is
one of ``missingValues`` as listed (NULL only when ``null`` is listed); ``duplicateValues`` counts
the rows whose (non-NULL) value another row had before them; ``mustBeBetween`` is exclusive, as
the ODCS text says ("the equivalent to mustBeGreaterThan and mustBeLessThan").
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..spark_dialect.regex_syntax import pattern_problem
from ..spark_dialect.spark_names import quoted
from .yaml_document import Path, YamlMap

# the ODCS comparison operators, each a check over the measured value ``v``
OPERATORS = {
    "mustBe": "{v} == {a}",
    "mustNotBe": "{v} != {a}",
    "mustBeGreaterThan": "{v} > {a}",
    "mustBeGreaterOrEqualTo": "{v} >= {a}",
    "mustBeLessThan": "{v} < {a}",
    "mustBeLessOrEqualTo": "{v} <= {a}",
    "mustBeBetween": "({v} > {a} and {v} < {b})",
    "mustNotBeBetween": "({v} <= {a} or {v} >= {b})",
}
NON_BLOCKING = frozenset({"info", "warning", "low", "minor", "trivial"})  # as datacontract-cli: `warn check`


class ContractProblem(Exception):
    """A part of the contract gryph cannot run, at its path."""

    def __init__(self, path: Path, message: str):
        super().__init__(message)
        self.path = path


class Unsupported(Exception):
    """What a rule asks that gryph cannot run alike on both engines (its message says why)."""


def literal(value: object) -> str:
    """A value of the contract as a literal of the check language (strings quoted, never pasted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def comparison(rule: YamlMap, value: str) -> str:
    """The check over ``value`` that the rule's one operator states."""
    used = [name for name in OPERATORS if name in rule]
    if len(used) != 1:
        raise Unsupported(f"a rule needs exactly one operator of {', '.join(OPERATORS)} (it has {len(used)})")
    bound = rule[used[0]]
    if used[0].endswith("Between"):
        if not (isinstance(bound, list) and len(bound) == 2):
            raise Unsupported(f"{used[0]} takes two numbers, [low, high]")
        return OPERATORS[used[0]].format(v=value, a=literal(bound[0]), b=literal(bound[1]))
    return OPERATORS[used[0]].format(v=value, a=literal(bound))


def on_exclusive_bound(rule: YamlMap, value: str) -> str | None:
    """For ``mustBeBetween``: the check that ``value`` is on neither bound, so that a value failing
    only because ODCS's bounds are exclusive warns as such; None for the other operators."""
    bound = rule.get("mustBeBetween")
    if not isinstance(bound, list) or len(bound) != 2:
        return None
    return f"({value} != {literal(bound[0])} and {value} != {literal(bound[1])})"


def pattern_condition(column: str, pattern: object) -> str:
    """Rows whose non-NULL value the pattern does not find (JSON Schema patterns search, unanchored)."""
    if not isinstance(pattern, str):
        raise Unsupported("a pattern must be text")
    problem = pattern_problem(pattern)
    if problem is not None:
        raise Unsupported(f"the pattern {pattern!r} is outside the subset both engines read alike: {problem}")
    return f"{column} is not null and not ({column} rlike {literal(pattern)})"


def duplicate_keys(column: str | None, arguments: YamlMap) -> list[str]:
    """The columns whose values duplicateValues compares: the property's, or ``arguments.properties``."""
    names = arguments.get("properties") or ([column] if column else None)
    if not names or not all(isinstance(name, str) for name in names):
        raise Unsupported("duplicateValues on an object needs arguments.properties, a list of property names")
    return names


def library_condition(metric: str, column: str | None, arguments: YamlMap) -> str | None:
    """The condition of the rows the library metric counts (None for ``rowCount``: every row);
    ``duplicateValues`` is a measure of its own (``duplicates_measure``)."""
    if metric == "rowCount":
        return None
    if column is None:
        raise Unsupported(f"{metric} is a property's metric: write it under a property")
    if metric == "nullValues":
        return f"{column} is null"
    if metric == "missingValues":
        listed = arguments.get("missingValues")
        if not isinstance(listed, list) or not listed:
            raise Unsupported("missingValues needs arguments.missingValues, a list of values")
        return _among(column, listed)
    if metric == "invalidValues":
        if "validValues" in arguments:
            valid = [value for value in arguments["validValues"] if value is not None]
            if not valid:
                return f"{column} is not null"
            listed = ", ".join(literal(value) for value in valid)
            return f"{column} is not null and {column} not in ({listed})"
        if "pattern" in arguments:
            return pattern_condition(column, arguments["pattern"])
        raise Unsupported("invalidValues needs arguments.validValues or arguments.pattern")
    raise Unsupported(f"unknown library metric {metric!r}")


def rows_where(table: str, condition: str | None) -> str:
    """The check language's count of the object's rows under ``condition`` (None: all of them)."""
    return f"rows({table})" if condition is None else f"rows({table} where {condition})"


def _among(column: str, listed: Sequence[object]) -> str:
    values = [value for value in listed if value is not None]
    parts = [f"{column} in ({', '.join(literal(value) for value in values)})"] if values else []
    if any(value is None for value in listed):
        parts.append(f"{column} is null")
    return " or ".join(parts)


def duplicates_measure(table: str, names: Sequence[str], integers: Collection[str] = ()) -> str:
    """Spark SQL counting the rows whose key (no part NULL) an earlier row had: rows minus distinct keys.

    A key of several parts, one of them among ``integers`` (a declared integer column), is grouped
    only over the rows whose integer part repeats: the rows of a repeated key repeat each of its
    parts, so the count is the same, and grouping by one integer first is DuckDB's perfect hash
    table (local_backend/tuning/perfect_hashing.py), not a hash table of every row's whole key:
    0.7 s of CPU instead of 2.4 s for (id, country) over 10M rows of distinct ids."""
    columns = ", ".join(quoted(name) for name in names)
    present = " and ".join(f"{quoted(name)} is not null" for name in names)
    rows = f"from {quoted(table)} where {present}"
    part = next((name for name in names if name in integers), None) if len(names) > 1 else None
    if part is not None:
        repeated = f"select {quoted(part)} {rows} group by {quoted(part)} having count(*) > 1"
        rows += f" and {quoted(part)} in ({repeated})"
    return f"select coalesce(sum(n - 1), 0) from (select count(*) as n {rows} group by {columns})"


def percent_of(count: str, table: str) -> str:
    """``count`` as a percent of the object's rows (an empty object counts nothing: 0 percent)."""
    return f"({count} * 100.0 / max(rows({table}), 1))"
