"""Griffin DSL rules' output tables for the Spark SQL rules that read them.

In Griffin a rule's result is a table named after its ``out.dataframe.name`` (the metric row of
an accuracy rule, the rows of a profiling query) and a later ``spark-sql`` rule may read it.
gryph computes DSL metrics itself, so such a Spark SQL rule runs in a second plan, after the
first, over the DSL rules' finished metrics given as inline rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..plan import Plan
from ..results import RuleResult
from ..spark_dialect.spark_names import quoted
from ..suites.suite import Suite


@dataclass(frozen=True)
class LateRules:
    """The Spark SQL rules that read DSL rules' tables, compiled to run after the rest: their plan,
    the rules each reads, the plan's queries of each, and the DSL rules they read (all rules as
    indexes into ``suite.rules``)."""

    plan: Plan
    reads: dict[int, frozenset[int]]
    queries: dict[int, frozenset[str]]
    inputs: tuple[int, ...]


def late_rules(suite: Suite) -> dict[int, frozenset[int]]:
    """The Spark SQL rules that read a DSL rule's table (directly or through another such rule),
    each with the rules it reads (DSL rules and late rules): all as indexes into ``suite.rules``.
    A rule reads only rules before it, as in Griffin."""
    dsl_names: dict[str, int] = {}
    late_names: dict[str, int] = {}
    reads: dict[int, frozenset[int]] = {}
    for index, rule in enumerate(suite.rules):
        if rule.kind != "sql":
            dsl_names[rule.name] = index
            continue
        tables = _tables(str(rule.body))
        read = frozenset(names[name] for names in (dsl_names, late_names) for name in tables if name in names)
        if read:
            reads[index] = read
            late_names[rule.name] = index
    return reads


def blocked_by(reads: dict[int, frozenset[int]], failed: dict[int, str]) -> dict[int, str]:
    """The late rules that read, directly or through another late rule, a rule that failed:
    each with the name of the failed rule it depends on."""
    blocked: dict[int, str] = {}
    for index in sorted(reads):  # a rule reads only rules before it: one pass in order
        culprit = next(
            (failed.get(r) or blocked.get(r) for r in sorted(reads[index]) if r in failed or r in blocked), None
        )
        if culprit is not None:
            blocked[index] = culprit
    return blocked


def _tables(text: str) -> set[str]:
    """The tables a query reads (its own CTE names left out); none when it does not parse."""
    from sqlglot import exp

    from ..errors import InvalidInput
    from ..spark_dialect.user_sql import parse_spark_query

    try:
        query = parse_spark_query(text)
    except InvalidInput:
        return set()  # the rule's own translation reports it, located
    ctes = {cte.alias_or_name for cte in query.find_all(exp.CTE)}
    return {table.name for table in query.find_all(exp.Table)} - ctes


def output_table_sql(result: RuleResult, timestamp_ms: int | None) -> str:
    """Spark SQL giving a finished rule's table: its rows (profiling) or its one metric row,
    with Griffin's ``__tmst``; values that are lists or maps (histograms) are left out."""
    if result.rows_metric:
        rows = result.writes[0].rows if result.writes else []
    else:
        row: dict[str, Any] = {}
        for write in result.writes:
            if len(write.rows) == 1:
                row.update(write.rows[0])
        rows = [row]
    columns = [name for name in (rows[0] if rows else {}) if all(_scalar(r.get(name)) for r in rows)]
    columns = [c for c in columns if c != "__tmst"]
    stamp = "NULL" if timestamp_ms is None else str(int(timestamp_ms))
    names = ", ".join(quoted(c) for c in [*columns, "__tmst"])
    if not rows:
        return f"SELECT * FROM VALUES ({stamp}) AS t({quoted('__tmst')}) WHERE false"
    values = ", ".join("(" + ", ".join([*(_literal(r.get(c)) for c in columns), stamp]) + ")" for r in rows)
    return f"SELECT * FROM VALUES {values} AS t({names})"


def _scalar(value: object) -> bool:
    return not isinstance(value, (list, dict, tuple))


def _literal(value: object) -> str:
    """A Spark SQL literal for a finished metric value (values come normalized: times are text)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"CAST({value} AS BIGINT)" if abs(value) < 2**63 else f"CAST('{value}' AS DECIMAL(38, 0))"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"CAST('{'NaN' if math.isnan(value) else ('Infinity' if value > 0 else '-Infinity')}' AS DOUBLE)"
        return f"CAST({value!r} AS DOUBLE)"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"
