"""One chart per rule of a run, fitting its type: good/bad bars for accuracy and completeness, the
step histogram with its percentiles for timeliness, the duplication histogram for uniqueness and
distinctness, a freshness rule's age against its warn and error ages, bars for a profiling result
grouped with one numeric column."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import altair as alt

from gryph.compiler.language.time_literals import duration_ms
from gryph.compiler.rule_kinds import RuleKind

from .axes import WIDTH, count_axis, duration_unit, percent_text
from .chart import Chart, ShortLabels, chart_id, is_number, short_label

GOOD, BAD, NEUTRAL = "#2e7d32", "#c62828", "#9e9e9e"
HEIGHT = 160
BAR_HEIGHT = 24  # a bar of a horizontal bar chart, its gap included

# the outcomes of each rule kind, good first, by the metric keys its details may rename
OUTCOMES = {
    RuleKind.ACCURACY: (("matched", GOOD), ("miss", BAD), ("mismatch", BAD), ("invalid", NEUTRAL)),
    RuleKind.COMPLETENESS: (("complete", GOOD), ("incomplete", BAD)),
    RuleKind.VALIDITY: (("valid", GOOD), ("invalid", BAD)),
}


def rule_chart(rule: str, kind: RuleKind, details: dict, metrics: object) -> Chart | None:
    """The chart of one rule's metrics, or None when its kind or its metrics have none."""
    chart = CHARTS.get(kind)
    if chart is None:
        return None
    shape, draw = chart
    return draw(rule, kind, details, metrics) if isinstance(metrics, shape) else None


def _number(value: object) -> float:
    """``value`` where it is a number, else 0 (a count the chart cannot place)."""
    return float(value) if is_number(value) else 0  # type: ignore[arg-type]


def _name(details: dict, role: str) -> str:
    """A metric's name: renamed in the rule's details, else the role itself."""
    value = details.get(role)
    return value if isinstance(value, str) and value else role


def _outcome_bars(rule: str, kind: RuleKind, details: dict, metrics: dict) -> Chart | None:
    rows = [
        {"outcome": role, "rows": metrics[_name(details, role)], "color": color}
        for role, color in OUTCOMES[kind]
        if is_number(metrics.get(_name(details, role)))
    ]
    if not rows:
        return None
    counted = sum(row["rows"] for row in rows)
    good = rows[0]["rows"] if rows[0]["outcome"] == OUTCOMES[kind][0][0] else 0
    fraction = good / counted if counted else math.nan
    title = (
        f"{short_label(rule)}: {percent_text(fraction)} {OUTCOMES[kind][0][0]} of {counted:,} row{'s' * (counted != 1)}"
    )
    spec = (
        alt.Chart(alt.Data(values=rows), title=title, width=WIDTH)
        .mark_bar()
        .encode(
            y=alt.Y("outcome:N", sort=None, title=None),
            x=alt.X("rows:Q", axis=count_axis("rows", max(row["rows"] for row in rows))),
            color=alt.Color("color:N", scale=None, legend=None),
            tooltip=["outcome:N", "rows:Q"],
        )
    )
    return Chart(chart_id("rule", rule), title, spec)


def _step_histogram(rule: str, details: dict, metrics: dict) -> Chart | None:
    steps = metrics.get(_name(details, "step"))
    count_name = _name(details, "count")
    if not isinstance(steps, list) or not steps:
        return None
    try:
        step_ms = duration_ms(details.get("step.size"))
    except ValueError:
        step_ms = None
    width = step_ms or 1
    rows = [
        {"from_ms": row["step"] * width, "to_ms": (row["step"] + 1) * width, "rows": row.get(count_name)}
        for row in steps
        if is_number(row.get("step"))
    ]
    prefix = _name(details, "percentile") + "_"
    marks = [
        {"percentile": f"p{key[len(prefix) :]}", "latency_ms": value}
        for key, value in metrics.items()
        if key.startswith(prefix) and is_number(value)
    ]
    # the axis in the unit the longest latency reads best in (hours, not 1,600,000,000 ms)
    unit, size = duration_unit(max((row["to_ms"] for row in rows), default=0)) if step_ms else ("step", 1)
    for row in rows:
        row.update(start=row["from_ms"] / size, end=row["to_ms"] / size)
    for mark in marks:
        mark["latency"] = mark["latency_ms"] / size
    bars = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar(color="#1565c0", stroke="white")
        .encode(
            x=alt.X("start:Q", title=f"latency ({unit})" if step_ms else "step"),
            x2="end:Q",
            y=alt.Y("rows:Q", axis=count_axis("rows", max((_number(row["rows"]) for row in rows), default=1))),
            y2=alt.datum(0),
            tooltip=["from_ms:Q", "to_ms:Q", "rows:Q"],
        )
    )
    title = f"{short_label(rule)}: latency histogram"
    layers = [bars]
    if marks and step_ms:
        title += " with percentiles"
        rule_marks = (
            alt.Chart(alt.Data(values=marks))
            .mark_rule(color=BAD, strokeDash=[4, 3])
            .encode(x="latency:Q", tooltip=["percentile:N", "latency_ms:Q"])
        )
        labels = rule_marks.mark_text(align="left", dx=3, dy=-4, color=BAD, baseline="bottom").encode(
            text=alt.Text("percentile:N"), y=alt.value(0)
        )
        layers += [rule_marks, labels]
    return Chart(chart_id("rule", rule), title, alt.layer(*layers, title=title, width=WIDTH, height=HEIGHT))


def _duplication_histogram(rule: str, details: dict, metrics: dict) -> Chart | None:
    array = metrics.get(_name(details, "duplication.array"))
    dup, num = _name(details, "dup"), _name(details, "num")
    if not isinstance(array, list) or not array:
        return None
    rows = [{"extra copies": row.get(dup), "values": row.get(num)} for row in array]
    counted = [
        (r["extra copies"], r["values"]) for r in rows if is_number(r["extra copies"]) and is_number(r["values"])
    ]
    values = sum(n for _, n in counted)
    most = max((n for _, n in counted), default=1)
    extra = sum(d * n for d, n in counted)
    title = (
        f"{short_label(rule)}: {values:,} value{'s' * (values != 1)} occur{'s' * (values == 1)} more than once, "
        f"{extra:,} extra row{'s' * (extra != 1)}"
    )
    # one bar per number of extra copies, labelled with its count: a single bucket is one bar,
    # not a block filling the chart
    bars = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar(color=BAD, height={"band": 0.7})
        .encode(
            y=alt.Y("extra copies:O", title=f"extra copies ({dup})", sort="ascending"),
            x=alt.X("values:Q", axis=count_axis(f"values with that many extra copies ({num})", most)),
            tooltip=["extra copies:O", "values:Q"],
        )
    )
    labels = bars.mark_text(align="left", dx=4, color="#1b1b1b").encode(text=alt.Text("values:Q", format=",d"))
    height = min(BAR_HEIGHT * len(rows), 24 * BAR_HEIGHT)
    return Chart(chart_id("rule", rule), title, alt.layer(bars, labels, title=title, width=WIDTH, height=height))


HOUR_MS = 3_600_000
WARN = "#ef6c00"


def _freshness_bar(rule: str, details: dict, metrics: dict) -> Chart | None:
    """The newest row's age in hours, against the rule's warn and error ages (dashed marks)."""
    age = metrics.get(_name(details, "age_ms"))
    if not isinstance(age, (int, float)) or not is_number(age):
        return None  # no row has a time (the checks say so), or no number
    hours = float(age) / HOUR_MS
    limits: list[tuple[str, float, str]] = []  # (threshold, hours, colour), the warning first
    for key, color in (("warn", WARN), ("error", BAD)):
        try:
            limit = duration_ms(details.get(key))
        except ValueError:
            limit = None
        if limit is not None:
            limits.append((key, limit / HOUR_MS, color))
    passed = [color for _, limit_hours, color in limits if hours > limit_hours]
    title = f"{short_label(rule)}: newest row {hours:,.1f} h old"
    bar = (
        alt.Chart(alt.Data(values=[{"rule": short_label(rule), "hours": hours}]))
        .mark_bar(color=passed[-1] if passed else GOOD)
        .encode(
            x=alt.X("hours:Q", title="age of the newest row (hours)"),
            y=alt.Y("rule:N", title=None),
            tooltip=["hours:Q"],
        )
    )
    layers = [bar]
    if limits:
        rows = [{"threshold": key, "hours": limit_hours, "color": color} for key, limit_hours, color in limits]
        marks = (
            alt.Chart(alt.Data(values=rows))
            .mark_rule(strokeDash=[4, 3], size=2)
            .encode(
                x="hours:Q", color=alt.Color("color:N", scale=None, legend=None), tooltip=["threshold:N", "hours:Q"]
            )
        )
        labels = marks.mark_text(align="left", dx=3, dy=-4, baseline="bottom").encode(
            text=alt.Text("threshold:N"), y=alt.value(0)
        )
        layers += [marks, labels]
    return Chart(chart_id("rule", rule), title, alt.layer(*layers, title=title, width=WIDTH, height=60))


def _profile_bars(rule: str, rows: list) -> Chart | None:
    """Bars when the rows are groups: one text (or other) column and exactly one numeric one."""
    if len(rows) < 2 or not all(isinstance(row, dict) for row in rows):
        return None
    columns = list(rows[0])
    numeric = [c for c in columns if all(is_number(row.get(c)) or row.get(c) is None for row in rows)]
    labels = [c for c in columns if c not in numeric]
    if len(numeric) != 1 or len(labels) != 1:
        return None
    label, value = labels[0], numeric[0]
    group = ShortLabels()  # a group's whole value is in the rows table below the chart
    data = [
        {"group": group("NULL" if row.get(label) is None else str(row.get(label))), "value": row.get(value)}
        for row in rows
    ]
    label_title, value_title = short_label(label), short_label(value)
    title = f"{short_label(rule)}: {value_title} by {label_title}"
    whole = all(row["value"] is None or float(row["value"]).is_integer() for row in data)
    largest = max((abs(row["value"]) for row in data if row["value"] is not None), default=1)
    spec = (
        alt.Chart(alt.Data(values=data), title=title, width=WIDTH)
        .mark_bar(color="#1565c0")
        .encode(
            y=alt.Y("group:N", sort=None, title=label_title),
            x=alt.X("value:Q", axis=count_axis(value_title, largest) if whole else alt.Axis(title=value_title)),
            tooltip=["group:N", "value:Q"],
        )
    )
    return Chart(chart_id("rule", rule), title, spec)


# the chart of each rule kind: the shape its metrics take, and how it is drawn
Draw = Callable[[str, RuleKind, dict, Any], "Chart | None"]
CHARTS: dict[RuleKind, tuple[type, Draw]] = {
    RuleKind.ACCURACY: (dict, _outcome_bars),  # its keyed form's rules are accuracy rules
    RuleKind.COMPLETENESS: (dict, _outcome_bars),
    RuleKind.VALIDITY: (dict, _outcome_bars),
    RuleKind.TIMELINESS: (dict, lambda rule, _, details, metrics: _step_histogram(rule, details, metrics)),
    RuleKind.UNIQUENESS: (dict, lambda rule, _, details, metrics: _duplication_histogram(rule, details, metrics)),
    RuleKind.DISTINCTNESS: (dict, lambda rule, _, details, metrics: _duplication_histogram(rule, details, metrics)),
    RuleKind.FRESHNESS: (dict, lambda rule, _, details, metrics: _freshness_bar(rule, details, metrics)),
    RuleKind.PROFILING: (list, lambda rule, _, details, rows: _profile_bars(rule, rows)),
    RuleKind.SQL: (list, lambda rule, _, details, rows: _profile_bars(rule, rows)),
}
# kinds with no chart of their own: keyed accuracy's rules carry the kind accuracy, a native
# measure is a value that checks read, and Griffin's measures write metric maps for its sinks
UNCHARTED = frozenset(
    {
        RuleKind.KEYED_ACCURACY,
        RuleKind.MEASURE,
        RuleKind.GRIFFIN_COMPLETENESS,
        RuleKind.GRIFFIN_DUPLICATION,
        RuleKind.GRIFFIN_PROFILING,
        RuleKind.GRIFFIN_ACCURACY,
        RuleKind.GRIFFIN_SPARK_SQL,
        RuleKind.GRIFFIN_SCHEMA_CONFORMANCE,
    }
)
