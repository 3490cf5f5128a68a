"""Trend lines over the stored runs of a suite: every numeric measure, rule metric and task metric,
one chart per measure or rule (a line per metric), failed runs marked so a drop shows at a glance."""

from __future__ import annotations

import altair as alt

from .chart import Chart, ShortLabels, chart_id, is_number, short_label

WIDTH = 420
MIN_RUNS = 2  # one run is a point, not a trend


def trend_charts(documents: list[dict]) -> list[Chart]:
    """The trend charts of ``documents`` (result documents, oldest first); none below two runs."""
    if len(documents) < MIN_RUNS:
        return []
    groups: dict[tuple[str, str], list[dict]] = {}
    for number, document in enumerate(documents, start=1):
        point = {"run": number, "passed": bool(document.get("pass", True))}
        for group, series, value in _numbers(document):
            groups.setdefault(group, []).append({**point, "series": series, "value": value})
    return [
        _chart(section, name, rows)
        for (section, name), rows in groups.items()
        if len({row["run"] for row in rows}) >= MIN_RUNS
    ]


def _numbers(document: dict):
    """(group, series, value) for every finite number of a document's measures, metrics and task
    metrics; a list or map is followed one level down (``name[0]``, ``name.c``)."""
    for name, value in (document.get("measure") or {}).items():
        for series, number in _flat(name, value):
            yield ("measure", name), series, number
    metrics = document.get("metrics") or {}
    if document.get("rules") and isinstance(metrics, dict) and set(metrics) <= set(document["rules"]):
        for rule, values in metrics.items():
            if isinstance(values, list) and len(values) == 1 and isinstance(values[0], dict):
                values = values[0]  # a profiling rule's single row: its columns trend
            if isinstance(values, dict):
                for key, value in values.items():
                    yield from ((("rule", rule), series, number) for series, number in _flat(key, value))
    elif isinstance(metrics, dict):  # Griffin's merged metric map
        for key, value in metrics.items():
            yield from ((("metrics", key), series, number) for series, number in _flat(key, value))
    task = document.get("metric") or {}
    if is_number(task.get("timeElapsed")):
        yield ("task", "time elapsed (ms)"), "timeElapsed", task["timeElapsed"]
    for source, rows in (task.get("rowsCounter") or {}).items():
        if is_number(rows):
            yield ("task", "rows read per source"), source, rows


def _flat(name: str, value: object):
    if is_number(value):
        yield name, value
    elif isinstance(value, list):
        yield from ((f"{name}[{i}]", v) for i, v in enumerate(value) if is_number(v))
    elif isinstance(value, dict):
        yield from ((f"{name}.{k}", v) for k, v in value.items() if is_number(v))


def _chart(section: str, name: str, rows: list[dict]) -> Chart:
    title = f"{section} {short_label(name)}: last {len({row['run'] for row in rows})} runs"
    series = ShortLabels()
    data = alt.Data(values=[{**row, "series": series(row["series"])} for row in rows])
    x = alt.X("run:Q", title="run (oldest to newest)", axis=alt.Axis(format="d", tickMinStep=1))
    # aria=False: no text label per mark in the SVG (1,000 runs must stay a few megabytes)
    line = (
        alt.Chart(data)
        .mark_line(point=False, aria=False)
        .encode(
            x=x,
            y=alt.Y("value:Q", title=None),
            color=alt.Color("series:N", title=None),
            tooltip=["run:Q", "series:N", "value:Q", "passed:N"],
        )
    )
    failed = (
        alt.Chart(data)
        .transform_filter("!datum.passed")
        .mark_point(shape="cross", color="#c62828", size=60, filled=True, aria=False)
        .encode(x=x, y="value:Q")
    )
    return Chart(
        chart_id("trend", f"{section} {name}"), title, alt.layer(line, failed, title=title, width=WIDTH, height=140)
    )
