"""Trend lines over the stored runs of a suite: every numeric measure, rule metric and task metric,
one chart per measure or rule (a line per metric), failed runs marked so a drop shows at a glance.
Where an anomaly check watches a line, the bounds it used in each run are drawn as the expected
band (ticks for a one-sided bound) and the runs where it found an anomaly are ringed."""

from __future__ import annotations

import altair as alt

from .chart import Chart, ShortLabels, chart_id, is_number, short_label
from .stream_batches import batch_time_axis

WIDTH = 420
MIN_RUNS = 2  # one run is a point, not a trend


def trend_charts(documents: list[dict]) -> list[Chart]:
    """The trend charts of ``documents`` (result documents, oldest first); none below two runs."""
    if len(documents) < MIN_RUNS:
        return []
    groups: dict[tuple[str, str], list[dict]] = {}
    bands: dict[tuple[str, str], list[dict]] = {}
    # a stream's batches are placed at their batch time (__tmst), other runs in their order
    timed = all(isinstance((d.get("stream") or {}).get("tmst"), int) for d in documents)
    for number, document in enumerate(documents, start=1):
        point = {"run": number, "passed": bool(document.get("pass", True))}
        if timed:
            point["when"] = document["stream"]["tmst"]
        found = _anomaly_bands(document, number)
        for group, band in found.items():
            bands.setdefault(group, []).extend({**b, **point} for b in band)
        for group, series, value in _numbers(document):
            row = {**point, "series": series, "value": value}
            if group in found:
                row["anomaly"] = any(b["anomaly"] for b in found[group] if b["series"] == series)
            groups.setdefault(group, []).append(row)
    x = (
        batch_time_axis()
        if timed
        else alt.X("run:Q", title="run (oldest to newest)", axis=alt.Axis(format="d", tickMinStep=1))
    )
    return [
        _chart(section, name, rows, bands.get((section, name), []), x)
        for (section, name), rows in groups.items()
        if len({row["run"] for row in rows}) >= MIN_RUNS
    ]


def _anomaly_bands(document: dict, run: int) -> dict[tuple[str, str], list[dict]]:
    """Per trend group, the bounds and finding of each anomaly check of one run that watches a line
    of it (a check without enough history yet has no bounds, and finds nothing)."""
    bands: dict[tuple[str, str], list[dict]] = {}
    for check in document.get("check_details") or []:
        line = _watched(check.get("watches"))
        if line is None:
            continue
        group, series = line
        shown = check.get("values") or {}
        bounds = {side: shown.get(f"{side} bound") for side in ("lower", "upper")}
        band = {side: value if is_number(value) else None for side, value in bounds.items()}
        bands.setdefault(group, []).append(
            {"run": run, "series": series, **band, "anomaly": check.get("anomaly") is True, "check": check["name"]}
        )
    return bands


def _watched(watches: object) -> tuple[tuple[str, str], str] | None:
    """The trend group and line of what an anomaly check watches (``measures["m"]``, ``metrics["r"]["k"]``)."""
    if not isinstance(watches, dict):
        return None
    name, path = str(watches.get("name")), list(watches.get("path") or [])
    if watches.get("source") == "measure":
        return ("measure", name), name + "".join(_step(p) for p in path)
    if path[:1] == [0] and len(path) > 1:  # a profiling rule's single row: its columns are the lines
        path = path[1:]
    if not path or not isinstance(path[0], str):
        return None
    return ("rule", name), path[0] + "".join(_step(p) for p in path[1:])


def _step(key: object) -> str:
    return f"[{key}]" if isinstance(key, int) else f".{key}"


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


def _chart(section: str, name: str, rows: list[dict], bands: list[dict], x: alt.X) -> Chart:
    title = f"{section} {short_label(name)}: last {len({row['run'] for row in rows})} runs"
    series = ShortLabels()
    data = alt.Data(values=[{**row, "series": series(row["series"])} for row in rows])
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
    layers = [line, failed]
    if bands:
        layers = [*_band_layers(bands, x, series), *layers, _anomalies(data, x)]
    return Chart(
        chart_id("trend", f"{section} {name}"), title, alt.layer(*layers, title=title, width=WIDTH, height=140)
    )


def _band_layers(bands: list[dict], x: alt.X, series: ShortLabels) -> list[alt.Chart]:
    """The expected band of each anomaly check (shaded between two bounds) and its bounds as ticks."""
    data = alt.Data(values=[{**band, "series": series(band["series"])} for band in bands])
    tooltip = ["run:Q", "check:N", "lower:Q", "upper:Q"]
    area = (
        alt.Chart(data)
        .transform_filter("isValid(datum.lower) && isValid(datum.upper)")
        .mark_area(opacity=0.18, color="#1565c0", aria=False)
        .encode(x=x, y=alt.Y("lower:Q", title=None), y2="upper:Q", detail="check:N", tooltip=tooltip)
    )
    ticks = (
        alt.Chart(data)
        .transform_fold(["lower", "upper"], as_=["bound", "limit"])
        .transform_filter("isValid(datum.limit)")
        .mark_tick(color="#1565c0", thickness=2, aria=False)
        .encode(x=x, y="limit:Q", tooltip=tooltip)
    )
    return [area, ticks]


def _anomalies(data: alt.Data, x: alt.X) -> alt.Chart:
    """A ring around each run where an anomaly check found an anomaly on the line."""
    return (
        alt.Chart(data)
        .transform_filter("datum.anomaly")
        .mark_point(shape="circle", size=160, filled=False, color="#ef6c00", strokeWidth=2, aria=False)
        .encode(x=x, y="value:Q", tooltip=["run:Q", "series:N", "value:Q"])
    )
