"""Trend lines over the stored runs of a suite: every numeric measure, rule metric and task metric,
one chart per measure or rule and scale (a line per metric: counts apart from fractions and
durations), placed at each run's time, failed runs marked so a drop shows at a glance. The bounds
the newest run's checks set on a line are drawn as rules across it; where an anomaly check watches
a line, the bounds it used in each run are drawn as the expected band (ticks for a one-sided
bound) and the runs where it found an anomaly are ringed."""

from __future__ import annotations

import datetime as dt

import altair as alt

from ...results.document import Reference, ResultDocument
from ..readable_values import duration
from .axes import PERCENT_TOOLTIP, WIDTH, time_axis
from .chart import Chart, ShortLabels, chart_id, is_number, short_label
from .stream_batches import batch_time_axis
from .trend_scales import Scale, by_values, metric_scale, scale_of

MIN_RUNS = 2  # one run is a point, not a trend
POINTS_UP_TO = 60  # runs drawn with a dot each; more are a line (1,000 runs stay a few megabytes)
MAGNITUDES = 10  # the largest values of a chart's lines are at most this many times apart
SYMBOLS = {"<": "<", ">": ">", "<=": "≤", ">=": "≥", "==": "=", "!=": "≠"}


def trend_charts(documents: list[ResultDocument]) -> list[Chart]:
    """The trend charts of ``documents`` (result documents, oldest first); none below two runs."""
    if len(documents) < MIN_RUNS:
        return []
    groups: dict[tuple[str, str], list[dict]] = {}
    bands: dict[tuple[str, str], list[dict]] = {}
    scales: dict[tuple[tuple[str, str], str], str] = {}  # a line's scale, as its newest run says
    times, x = _run_times(documents)
    for number, (document, when) in enumerate(zip(documents, times, strict=True), start=1):
        point = {"run": number, "passed": document.passed}
        if when is not None:
            point["when"] = when
        found = _anomaly_bands(document, number)
        for group, band in found.items():
            bands.setdefault(group, []).extend({**b, **point} for b in band)
        for group, series, value, scale in _numbers(document):
            row = {**point, "series": series, "value": value}
            if group in found:
                row["anomaly"] = any(b["anomaly"] for b in found[group] if b["series"] == series)
            groups.setdefault(group, []).append(row)
            if scale is not None:
                scales[group, series] = scale
    limits = _bounds(documents[-1])
    charts = []
    for group, rows in groups.items():
        values: dict[str, list[float]] = {}
        for row in rows:
            values.setdefault(row["series"], []).append(row["value"])
        kinds = {series: scales.get((group, series)) or by_values(line) for series, line in values.items()}
        parts: dict[str, list[dict]] = {}
        for row in rows:
            parts.setdefault(kinds[row["series"]], []).append(row)
        for kind, whole_part in parts.items():
            pieces = _by_magnitude(whole_part, kind)
            for part in pieces:
                if len({row["run"] for row in part}) < MIN_RUNS:
                    continue
                lines = {row["series"] for row in part}
                chart_bands = [b for b in bands.get(group, []) if b["series"] in lines]
                chart_limits = [b for b in limits.get(group, []) if b["series"] in lines]
                # named in the title when a group has two scales, and by its lines when split by size
                shown = [_SCALE_TITLES[kind]] if len(parts) > 1 else []
                if len(pieces) > 1:
                    shown.append(", ".join(short_label(line) for line in dict.fromkeys(r["series"] for r in part)))
                scale = scale_of(kind, _all(part, chart_limits))
                charts.append(_chart(group, "; ".join(shown) or None, part, chart_bands, chart_limits, x, scale))
    return charts


def _by_magnitude(rows: list[dict], kind: str) -> list[list[dict]]:
    """The rows of one chart's lines, parted so that no chart holds lines of sizes more than
    ``MAGNITUDES`` apart (a count of 1 beside one of 50 would be a flat line at the bottom): lines
    by their largest value (below 1 counted as 1), smallest first. Fractions and times share one
    axis whatever their values."""
    if kind in ("fraction", "time"):
        return [rows]
    size: dict[str, float] = {}
    for row in rows:
        size[row["series"]] = max(size.get(row["series"], 1.0), abs(row["value"]))
    groups: list[list[str]] = []
    for line in sorted(size, key=lambda name: size[name]):
        if groups and size[line] <= MAGNITUDES * size[groups[-1][0]]:
            groups[-1].append(line)
        else:
            groups.append([line])
    return [[row for row in rows if row["series"] in group] for group in groups]


def _run_times(documents: list[ResultDocument]) -> tuple[list[int | None], alt.X]:
    """Each run's place on the x axis (epoch ms) and the axis: a stream's batches at their batch
    time (__tmst), other runs at their data time, else their start; in their order (no time) when
    a run has neither."""
    batches = [d.stream for d in documents]
    if all(batch is not None for batch in batches):
        return [batch.tmst for batch in batches if batch is not None], batch_time_axis()
    times = [_epoch_ms(d.data_time or d.started) for d in documents]
    if any(t is None for t in times):
        axis = alt.Axis(format="d", tickMinStep=1)
        return [None] * len(documents), alt.X("run:Q", title="run (oldest to newest)", axis=axis)
    title = "data time, else start (UTC)" if any(d.data_time for d in documents) else "run start (UTC)"
    known = [t for t in times if t is not None]
    return times, time_axis("when", title, min(known), max(known))


def _epoch_ms(text: object) -> int | None:
    """An ISO date or time (UTC unless it says otherwise) in epoch milliseconds; None for no time."""
    try:
        moment = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return round(moment.timestamp() * 1000)


def _bounds(document: ResultDocument) -> dict[tuple[str, str], list[dict]]:
    """Per trend group, the bounds the run's checks set on its lines (``>= 40``), each with its
    check's name and status."""
    found: dict[tuple[str, str], list[dict]] = {}
    for check in document.checks:
        for bound in check.bounds:
            line = _watched(bound.reference)
            if line is None or not is_number(bound.value):
                continue
            group, series = line
            found.setdefault(group, []).append(
                {
                    "series": series,
                    "limit": bound.value,
                    "check": f"{short_label(check.name)} {SYMBOLS.get(bound.op, '?')}",
                    "status": check.status,
                }
            )
    return found


def _all(rows: list[dict], limits: list[dict]) -> list[float]:
    return [row["value"] for row in rows] + [limit["limit"] for limit in limits]


def _anomaly_bands(document: ResultDocument, run: int) -> dict[tuple[str, str], list[dict]]:
    """Per trend group, the bounds and finding of each anomaly check of one run that watches a line
    of it (a check without enough history yet has no bounds, and finds nothing)."""
    bands: dict[tuple[str, str], list[dict]] = {}
    for check in document.checks:
        line = None if check.watches is None else _watched(check.watches)
        if line is None:
            continue
        group, series = line
        bounds = {side: check.values.get(f"{side} bound") for side in ("lower", "upper")}
        band = {side: value if is_number(value) else None for side, value in bounds.items()}
        bands.setdefault(group, []).append(
            {"run": run, "series": series, **band, "anomaly": check.anomaly is True, "check": check.name}
        )
    return bands


def _watched(watches: Reference) -> tuple[tuple[str, str], str] | None:
    """The trend group and line of what an anomaly check watches (``measures["m"]``, ``metrics["r"]["k"]``)."""
    name, path = watches.name, list(watches.path)
    if watches.source == "measure":
        return ("measure", name), name + "".join(_step(p) for p in path)
    if path[:1] == [0] and len(path) > 1:  # a profiling rule's single row: its columns are the lines
        path = path[1:]
    if not path or not isinstance(path[0], str):
        return None
    return ("rule", name), path[0] + "".join(_step(p) for p in path[1:])


def _step(key: object) -> str:
    return f"[{key}]" if isinstance(key, int) else f".{key}"


def _numbers(document: ResultDocument):
    """(group, series, value, scale) for every finite number of a document's measures, metrics and
    task metrics; a list or map is followed one level down (``name[0]``, ``name.c``); the scale
    where the rule's kind says it (else None: the values say)."""
    for name, value in document.measures.items():
        for series, number in _flat(name, value):
            yield ("measure", name), series, number, None
    metrics, rules = document.metrics, document.rules
    if rules and set(metrics) <= set(rules):
        for rule, values in metrics.items():
            if isinstance(values, list) and len(values) == 1 and isinstance(values[0], dict):
                values = values[0]  # a profiling rule's single row: its columns trend
            if isinstance(values, dict):
                info = rules[rule]
                for key, value in values.items():
                    scale = metric_scale(info.kind, dict(info.details), str(key))
                    yield from ((("rule", rule), series, number, scale) for series, number in _flat(key, value))
    else:  # Griffin's merged metric map
        for key, value in metrics.items():
            yield from ((("metrics", key), series, number, None) for series, number in _flat(key, value))
    if document.elapsed_ms is not None:
        yield ("task", "time elapsed"), "timeElapsed", document.elapsed_ms, "duration"
    for source, rows in document.rows_read.items():
        yield ("task", "rows read per source"), source, rows, "count"


def _flat(name: str, value: object):
    if is_number(value):
        yield name, value
    elif isinstance(value, list):
        yield from ((f"{name}[{i}]", v) for i, v in enumerate(value) if is_number(v))
    elif isinstance(value, dict):
        yield from ((f"{name}.{k}", v) for k, v in value.items() if is_number(v))


def _chart(
    group: tuple[str, str],
    shown: str | None,
    rows: list[dict],
    bands: list[dict],
    limits: list[dict],
    x: alt.X,
    scale: Scale,
) -> Chart:
    section, name = group
    runs = len({row["run"] for row in rows})
    what = f" ({shown})" if shown else ""
    title = f"{section} {short_label(name)}{what}: last {runs} runs"
    series = ShortLabels()
    data = alt.Data(values=[_placed({**row, "series": series(row["series"])}, scale, "value", "y") for row in rows])
    value = alt.Tooltip("value:Q", format=PERCENT_TOOLTIP) if scale.kind == "fraction" else "value:Q"
    # aria=False: no text label per mark in the SVG (1,000 runs must stay a few megabytes)
    line = (
        alt.Chart(data)
        .mark_line(point=runs <= POINTS_UP_TO, aria=False)
        .encode(
            x=x,
            y=scale.y,
            color=alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=4, labelLimit=400)),
            tooltip=["run:Q", "series:N", value, "passed:N"],
        )
    )
    failed = (
        alt.Chart(data)
        .transform_filter("!datum.passed")
        .mark_point(shape="cross", color="#c62828", size=60, filled=True, aria=False)
        .encode(x=x, y=_y(scale))
    )
    layers = [line, failed]
    if limits and scale.kind != "time":
        layers += _limit_layers(limits, scale)
    if bands and scale.kind != "time":
        layers = [*_band_layers(bands, x, series, scale), *layers, _anomalies(data, x, scale)]
    chart = alt.layer(*layers, title=title, width=WIDTH, height=160)
    return Chart(chart_id("trend", f"{section} {name}" + (f" ({shown})" if shown else "")), title, chart)


_SCALE_TITLES = {
    "count": "counts",
    "whole": "whole numbers",
    "fraction": "fractions",
    "duration": "durations",
    "time": "times",
    "number": "numbers",
}


def _placed(row: dict, scale: Scale, raw: str, placed: str) -> dict:
    """``row`` with its ``raw`` value in the axis's unit as ``placed`` (a duration; else as it is)."""
    if scale.size != 1 and is_number(row.get(raw)):
        return {**row, placed: row[raw] / scale.size}
    return row


def _y(scale: Scale, field: str | None = None) -> str:
    """The y field of a layer: the line's, or ``field`` as placed on the chart's scale."""
    name = scale.field if field is None else (f"y_{field}" if scale.size != 1 else field)
    return f"{name}:{'T' if scale.kind == 'time' else 'Q'}"


def _limit_layers(limits: list[dict], scale: Scale) -> list[alt.Chart]:
    """Each bound a check sets on a line, as a dashed rule across the chart labelled with the check:
    red when the check failed in the newest run (not when it could not judge yet, SKIP)."""
    # each labelled with its check, its comparison and its bound as the axis reads it (4 min, not 240000)
    shown = [{**limit, "check": f"{limit['check']} {_bound_text(limit['limit'], scale)}"} for limit in limits]
    data = alt.Data(values=[_placed(limit, scale, "limit", "y_limit") for limit in shown])
    color = alt.condition(
        "datum.status == 'PASS' || datum.status == 'SKIP'", alt.value("#455a64"), alt.value("#c62828")
    )
    rules = (
        alt.Chart(data)
        .mark_rule(strokeDash=[6, 4], strokeWidth=1.5, aria=False)
        .encode(y=_y(scale, "limit"), color=color, tooltip=["check:N", "limit:Q"])
    )
    labels = (
        alt.Chart(data)
        .mark_text(align="right", baseline="bottom", dy=-2, aria=False)
        .encode(y=_y(scale, "limit"), x=alt.value(WIDTH), text="check:N", color=color)
    )
    return [rules, labels]


def _bound_text(value: float, scale: Scale) -> str:
    return duration(value) if scale.kind == "duration" else f"{value:,}"


def _band_layers(bands: list[dict], x: alt.X, series: ShortLabels, scale: Scale) -> list[alt.Chart]:
    """The expected band of each anomaly check (shaded between two bounds) and its bounds as ticks."""
    placed = [_placed(_placed(band, scale, "lower", "y_lower"), scale, "upper", "y_upper") for band in bands]
    data = alt.Data(values=[{**band, "series": series(band["series"])} for band in placed])
    tooltip = ["run:Q", "check:N", "lower:Q", "upper:Q"]
    lower, upper = _y(scale, "lower").split(":")[0], _y(scale, "upper").split(":")[0]
    area = (
        alt.Chart(data)
        .transform_filter("isValid(datum.lower) && isValid(datum.upper)")
        .mark_area(opacity=0.18, color="#1565c0", aria=False)
        .encode(x=x, y=alt.Y(f"{lower}:Q", title=None), y2=f"{upper}:Q", detail="check:N", tooltip=tooltip)
    )
    ticks = (
        alt.Chart(data)
        .transform_fold([lower, upper], as_=["bound", "band_limit"])
        .transform_filter("isValid(datum.band_limit)")
        .mark_tick(color="#1565c0", thickness=2, aria=False)
        .encode(x=x, y="band_limit:Q", tooltip=tooltip)
    )
    return [area, ticks]


def _anomalies(data: alt.Data, x: alt.X, scale: Scale) -> alt.Chart:
    """A ring around each run where an anomaly check found an anomaly on the line."""
    return (
        alt.Chart(data)
        .transform_filter("datum.anomaly")
        .mark_point(shape="circle", size=160, filled=False, color="#ef6c00", strokeWidth=2, aria=False)
        .encode(x=x, y=_y(scale), tooltip=["run:Q", "series:N", "value:Q"])
    )
