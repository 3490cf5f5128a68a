"""From a source's profile to the statements of a suggested suite, each block with a comment
saying what the data showed (or why a column got no rule).

Every check is written so that it passes on the profiled data: fractions are rounded down,
observed ranges and lengths are the bounds, freshness allows a day more than the data's age (and
data already older than ``STALE_DAYS`` gets no hard freshness check: it is historical, and would
fail in a day or two). A constraint on each row's values (allowed values, non-negativity, no NaN,
a fixed length) is one condition of the source's ``validity`` rule, and those the data showed
(ranges and lengths as profiled) of a second one whose check is a ``warn check``: new data may move
them without being wrong. A run samples a failing rule's rows with the conditions each failed.
Every other constraint is one statement too: a ``rows(SOURCE where CONDITION)`` check (whose
failing check shows the rows it counts), a completeness or a freshness rule.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

from gryph.compiler.plan.data_types import Kind

from .dsl_text import comment_text, dsl_name, dsl_number, dsl_string, identifier, writable_name
from .profiles import LISTED, NUMBERS, ColumnProfile, SourceProfile

KEY_FRACTION = Fraction(95, 100)  # distinct values per filled row from which a column is a key
KEY_ROWS = 3  # fewer filled rows tell nothing of a key
# key checks per source: each is a distinct count, and DuckDB's time for the distinct counts of one
# scan grows with their square (a table of 2,000 unique columns would take hours)
MAX_KEYS = 10
DAY = 86400
STALE_DAYS = 30  # data whose newest value is older than this when profiled is historical
_SCHEMA_TYPES = {Kind.BOOLEAN, Kind.INTEGER, Kind.DOUBLE, Kind.STRING, Kind.DATE, Kind.TIMESTAMP, Kind.BINARY}
_PER_LINE = 8  # names per line in a long list


@dataclass(frozen=True)
class Condition:
    """One condition every row of a column's source must meet, named by what it says; ``warn``:
    what the data showed when profiled (a range, lengths), not a rule of the data."""

    name: str
    text: str
    warn: bool = False


def source_statements(profile: SourceProfile, now: dt.datetime, taken: set[str]) -> list[str]:
    """The suite's lines about one source (its declaration excluded); ``taken`` holds the names
    of sources and rules so far (a rule name is added to it)."""
    source, rows = profile.spec.name, profile.rows
    lines = _schema(profile)
    steady = "; a change beyond half fewer or twice as many is an anomaly" if rows else ""
    lines += ["", f"# rows: {rows} when profiled{steady}"]
    if rows:
        lines.append(f"check {dsl_string(f'{source} has rows')}: rows({source}) > 0")
        lines.append(
            f"check {dsl_string(f'{source} row count steady')}: anomaly(rows({source}), "
            "relative_change(max_increase = 1, max_decrease = 0.5))   # SKIP until a run is in the history"
        )
    else:  # from nothing, any rows at all would be an anomaly
        lines.append("# no row-count checks: the source was empty")
    complete = [c for c in profile.columns if rows and c.filled == rows and writable_name(c.name)]
    if complete:
        rule = identifier(f"{source}_complete", taken)
        lines += ["", f"# no NULL in any of the {rows} rows: {len(complete)} of {len(profile.columns)} columns"]
        lines += _listed(f"completeness {rule} on {source}: ", [dsl_name(c.name) for c in complete])
        lines.append(f'check {dsl_string(f"{source} complete")}: metrics[{dsl_string(rule)}]["incomplete"] == 0')
    keys = [c.name for c in profile.columns if _is_key(c) and writable_name(c.name)][:MAX_KEYS]
    if keys:  # one measure of every key, read by a check each
        items = ",\n    ".join(f"count(distinct {dsl_name(k)}) / count({dsl_name(k)}) as {dsl_name(k)}" for k in keys)
        measure = f"measure {dsl_string(_distinct_measure(source))} as map: select\n    {items}\nfrom {source}"
        lines += ["", "# the key columns' distinct values per filled row, each read by its column's check", measure]
    conditions: list[Condition] = []
    for column in profile.columns:
        block = _column_block(source, rows, column, now, column.name in keys, conditions, taken)
        lines += ["", *block]
    lines += _validity(source, [c for c in conditions if not c.warn], "valid", taken)
    lines += _validity(source, [c for c in conditions if c.warn], "as_profiled", taken)
    return lines


def _validity(source: str, conditions: list[Condition], what: str, taken: set[str]) -> list[str]:
    """A validity rule of ``conditions``, one a line, and its check of the rows failing any."""
    if not conditions:
        return []
    rule = identifier(f"{source}_{what}", taken)
    listed = ",\n".join(f"    {c.text} as {dsl_name(c.name)}" for c in conditions)
    about = (
        "as profiled: a warning when new data moves them"
        if conditions[0].warn
        else "; a run samples failing rows, naming the conditions each failed"
    )
    return [
        "",
        f"# each row's values{' ' if conditions[0].warn else ''}{about}",
        f"validity {rule} on {source}:\n{listed}",
        _check(
            f"{source} {what.replace('_', ' ')}", f'metrics[{dsl_string(rule)}]["invalid"] == 0', conditions[0].warn
        ),
    ]


def _schema(profile: SourceProfile) -> list[str]:
    """The columns as profiled: a schema check (nested and decimal types by name only: their
    exact types differ between engines)."""
    items = [
        dsl_name(c.name) + (f" {c.dtype.kind.value}" if c.dtype.kind in _SCHEMA_TYPES else "")
        for c in profile.columns
        if writable_name(c.name)
    ]
    if not items:
        return ["# no columns: no schema check"]
    return _listed(f"schema {profile.spec.name}: required(", items, ")")


def _column_block(
    source: str,
    rows: int,
    column: ColumnProfile,
    now: dt.datetime,
    key: bool,
    conditions: list[Condition],
    taken: set[str],
) -> list[str]:
    """The column's summary and its statements; its conditions are added to ``conditions``."""
    label = f"{source}.{column.name}"
    lines = [f"# {comment_text(dsl_name(column.name))} ({column.dtype}): {_summary(rows, column)}"]
    if not writable_name(column.name):  # written raw, it would act on the terminal or editor showing the suite
        return [*lines, "# no rule: its name holds control or bidirectional characters; rename the column to check it"]
    if _is_key(column) and not key:
        lines.append(f"# no key check: the first {MAX_KEYS} key columns of the source have one")
    found = list(_column_rules(source, rows, label, column, now, key, taken))
    if not found:
        return [*lines, f"# no rule: {_why_none(rows, column)}"]
    statements = [f for f in found if isinstance(f, str)]
    # a NULL fails a condition: where the data had NULLs, its condition lets them pass
    missing = f"{dsl_name(column.name)} is null or " if column.filled < rows else ""
    conditions += [replace(f, text=missing + f.text) for f in found if isinstance(f, Condition)]
    return lines + statements


def _column_rules(
    source: str, rows: int, label: str, column: ColumnProfile, now: dt.datetime, key: bool, taken: set[str]
) -> Iterator[str | Condition]:
    name, kind = dsl_name(column.name), column.dtype.kind
    if rows == 0 or column.filled == 0:
        return
    if column.filled < rows:
        least = _floor_hundredths(Fraction(column.filled, rows))
        if least > 0:  # filled / rows >= least, in whole numbers: 100 * nulls <= (100 - least%) * rows
            yield _check(
                f"{label} filled in at least {_percent(least)} of rows",
                f"100 * rows({source} where {name} is null) <= {100 - int(least * 100)} * rows({source})",
            )
    if key and column.distinct is not None:
        distinct = Fraction(column.distinct, column.filled)
        unique = distinct == 1
        yield _check(
            f"{label} unique" if unique else f"{label} nearly unique",
            f"{_measure(_distinct_measure(source))}[{dsl_string(column.name)}] "
            + ("== 1" if unique else f">= {_decimal(_floor_hundredths(distinct))}"),
        )
    if column.values:  # says more than a range or a length would
        literals = ", ".join(_value(v) for v in column.values)
        only = len(column.values) == 1
        what = f"is always {literals}" if only else f"is one of its {len(column.values)} values"
        yield Condition(f"{column.name} {what}", f"{name} in ({literals})")
        return
    if kind in NUMBERS:
        yield from _number_rules(name, column)
    if kind is Kind.STRING and column.shortest is not None and column.longest is not None:
        yield from _length_rules(name, column.name, column.shortest, column.longest)
    if kind in (Kind.DATE, Kind.TIMESTAMP) and column.newest is not None:
        yield from _freshness(source, column.name, name, column.newest, now, taken)


def _is_key(column: ColumnProfile) -> bool:
    """Nearly every filled value distinct, in a column of codes or names (not measurements)."""
    return (
        column.dtype.kind in LISTED
        and column.filled >= KEY_ROWS
        and column.distinct is not None
        and Fraction(column.distinct, column.filled) >= KEY_FRACTION
    )


def _number_rules(name: str, column: ColumnProfile) -> Iterator[str | Condition]:
    double = column.dtype.kind is Kind.DOUBLE
    if double and column.nans == 0:
        yield Condition(f"{column.name} has no NaN", f"{name} is not nan")
    low, high = column.low, column.high
    if low is None or high is None:
        return
    if low >= 0:  # NaN is above every number: it is not negative
        yield Condition(f"{column.name} not negative", f"{name} >= 0")
    low_text, high_text = dsl_number(low), dsl_number(high)
    if low_text is None or high_text is None:
        yield f"# no range check: the values reach {low} .. {high}"
        return
    within = f"{name} between {low_text} and {high_text}"
    # a NaN, where the data had one, is no value out of range
    text = f"{name} is nan or {within}" if double and column.nans else within
    yield Condition(f"{column.name} within {low_text} .. {high_text}", text, warn=True)


def _length_rules(name: str, column: str, shortest: int, longest: int) -> Iterator[Condition]:
    if shortest == longest:
        plural = "" if shortest == 1 else "s"
        yield Condition(f"{column} is {shortest} character{plural} long", f"length({name}) = {shortest}")
        return
    yield Condition(
        f"{column} {shortest} to {longest} characters long",
        f"length({name}) between {shortest} and {longest}",
        warn=True,
    )


def _freshness(source: str, column: str, name: str, newest: int, now: dt.datetime, taken: set[str]) -> Iterator[str]:
    """A freshness rule: the newest value's age at the run against a day more than it had when
    profiled; for historical data (older than ``STALE_DAYS``), commented out, saying why."""
    age = int(now.timestamp()) - newest
    days = max(1, math.ceil(age / DAY) + 1)
    shown = dt.datetime.fromtimestamp(newest, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    rule = identifier(f"{source}_{column}_fresh", taken)
    statement = f"freshness {rule} on {source}: {name} with error = {days}d"
    if age > STALE_DAYS * DAY:
        yield f"# newest {shown} UTC, {_age(age)}: historical data (older than {STALE_DAYS} days), so no"
        yield "# freshness check (it would fail in a day); if new rows are still to come, uncomment:"
        yield f"# {statement}"
        return
    yield f"# newest {shown} UTC, {_age(age)}; a day older than that is stale"
    yield statement


def _check(name: str, expression: str, warn: bool = False) -> str:
    return f"{'warn ' if warn else ''}check {dsl_string(name)}: {expression}"


def _distinct_measure(source: str) -> str:
    """The measure of the distinct values per filled row of each key column of ``source``."""
    return f"{source} distinct per filled row"


def _measure(name: str) -> str:
    return f"measures[{dsl_string(name)}]"


def _value(value: object) -> str:
    return dsl_string(value) if isinstance(value, str) else str(value)


def _listed(head: str, items: list[str], tail: str = "") -> list[str]:
    """``head`` and items separated by commas, a few per line (a rule may span lines)."""
    groups = [", ".join(items[i : i + _PER_LINE]) for i in range(0, len(items), _PER_LINE)]
    return [head + ",\n    ".join(groups) + tail]


def _summary(rows: int, column: ColumnProfile) -> str:
    parts = [f"{column.filled} of {rows} filled"]
    if column.distinct is not None:
        parts.append(f"{column.distinct} distinct")
    if column.nans:
        parts.append(f"{column.nans} NaN")
    if column.low is not None:
        parts.append(f"{column.low} .. {column.high}")
    if column.shortest is not None:
        lengths = f"{column.shortest} to {column.longest}" if column.shortest != column.longest else column.shortest
        parts.append(f"{lengths} character{'' if column.longest == 1 else 's'}")
    if column.values:
        parts.append("values " + ", ".join(comment_text(_value(v)) for v in column.values))
    return ", ".join(parts)


def _why_none(rows: int, column: ColumnProfile) -> str:
    if rows == 0:
        return "the source was empty: nothing to learn from"
    if column.filled == 0:
        return "every value is NULL"
    if column.dtype.kind is Kind.DOUBLE and column.low is None:
        return "every value is NaN or NULL"
    return f"nothing to check in a column of type {column.dtype} beyond its completeness"


def _floor_hundredths(value: Fraction) -> Fraction:
    return Fraction(math.floor(value * 100), 100)


def _decimal(value: Fraction) -> str:
    """A fraction of hundredths as a decimal literal: 0.96, 1."""
    hundredths = int(value * 100)
    whole, rest = divmod(hundredths, 100)
    return str(whole) if rest == 0 else f"{whole}.{rest:02d}".rstrip("0")


def _percent(value: Fraction) -> str:
    return f"{int(value * 100)}%"


def _age(seconds: int) -> str:
    """How long before the suggestion (or after it, for a time in the future)."""
    when = "before" if seconds >= 0 else "after"
    seconds = abs(seconds)
    if seconds < 2 * 3600:
        return f"{seconds // 60} min {when} the suggestion"
    if seconds < 2 * DAY:
        return f"{seconds // 3600} h {when} the suggestion"
    return f"{seconds // DAY} days {when} the suggestion"
