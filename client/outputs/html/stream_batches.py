"""The report of a stream (``gryph stream``): per batch what each source read (rows, lag,
malformed messages, offsets lost), a chart of them against the batch time (``__tmst``), and for
accuracy rules that match misses again, each batch time's first reported result beside its
current one (Griffin's rule: a later result with a lower miss replaces it)."""

from __future__ import annotations

import datetime as dt
from html import escape
from typing import Any

import altair as alt

from ...results.document import ResultDocument, StreamBatch
from ..text import cell
from .axes import WIDTH, count_axis
from .chart import Chart, ShortLabels, chart_id

SHOWN_BATCHES = 50  # the newest batches listed in the tables (the chart shows every one stored)
_READ = ("rows", "lag", "malformed", "lost")


FULL_TIME = "%Y-%m-%d %H:%M:%S.%L"


def batch_time_axis() -> alt.X:
    """Batch times on an x axis, in UTC: clock times (a stream's batches are seconds apart)."""
    return alt.X(
        "when:T", title="batch time (__tmst, UTC)", scale=alt.Scale(type="utc"), axis=alt.Axis(format="%H:%M:%S")
    )


def batch_time(tmst: object) -> str:
    """A batch time (epoch ms) as the report shows it: UTC, to the millisecond."""
    if not isinstance(tmst, int):
        return ""
    return dt.datetime.fromtimestamp(tmst / 1000, dt.timezone.utc).isoformat(timespec="milliseconds")


def stream_documents(documents: list[ResultDocument]) -> list[tuple[ResultDocument, StreamBatch]]:
    """The documents that are a stream's batches, each with its batch, oldest first."""
    return [(d, d.stream) for d in documents if d.stream is not None]


def stream_chart(documents: list[ResultDocument]) -> Chart | None:
    """Rows, lag and malformed messages of each source per batch, against the batch time."""
    batches = stream_documents(documents)
    if not batches:
        return None
    labels = ShortLabels()
    values: list[dict[str, Any]] = [
        {"when": batch.tmst, "batch": batch.number, "series": labels(f"{source} {what}"), "value": count}
        for _, batch in batches
        for source, read in batch.sources.items()
        for what, count in read.counts().items()
    ]
    title = f"stream: rows, lag and malformed messages per batch ({len(batches)} batches)"
    spec = (
        alt.Chart(alt.Data(values=values))
        .mark_line(point=True, aria=False)
        .encode(
            x=batch_time_axis(),
            y=alt.Y("value:Q", axis=count_axis(None, max((v["value"] for v in values), default=1))),
            color=alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=4)),
            tooltip=["batch:Q", alt.Tooltip("when:T", format=FULL_TIME), "series:N", "value:Q"],
        )
        .properties(title=title, width=WIDTH, height=140)
    )
    return Chart(chart_id("stream", "batches"), title, spec)


def stream_section(documents: list[ResultDocument], chart: Chart | None, figure) -> str:
    """The page's stream section (nothing for a report of runs that are not a stream's)."""
    batches = stream_documents(documents)
    if not batches:
        return ""
    shown = batches[-SHOWN_BATCHES:]
    sources = sorted({s for _, batch in shown for s in batch.sources})
    head = "".join(f"<th>{escape(s)} {what}</th>" for s in sources for what in _READ)
    rows = []
    for document, batch in reversed(shown):
        counts = {s: read.counts() for s, read in batch.sources.items()}
        cells = "".join(
            f'<td class="num">{escape(cell(counts.get(s, {}).get(what, "")))}</td>' for s in sources for what in _READ
        )
        verdict = "pass" if document.passed else "fail"
        rows.append(
            f"<tr><td>{batch.number}</td><td>{escape(batch_time(batch.tmst))}</td>"
            f'<td><span class="verdict {verdict}">{verdict.upper()}</span></td>{cells}</tr>'
        )
    table = f"<table><tr><th>batch</th><th>time (__tmst)</th><th>pass</th>{head}</tr>{''.join(rows)}</table>"
    parts = [
        '<section id="stream"><h2>Stream batches</h2>',
        f'<p class="muted">{len(batches)} batches stored; the newest {len(shown)} listed, newest first.</p>',
        figure(chart) if chart is not None else "",
        table,
        _accuracy_updates(batches),
        "</section>",
    ]
    return "\n".join(parts)


def _accuracy_updates(batches: list[tuple[ResultDocument, StreamBatch]]) -> str:
    """Per accuracy rule whose results later batches improved: each batch time's first result
    (its own batch's) and its current one (the last update of it)."""
    current: dict[str, dict[int, dict]] = {}
    for _, batch in batches:
        for rule, updates in batch.updates.items():
            current.setdefault(rule, {}).update(updates)
    if not current:
        return ""
    first = {batch.tmst: document for document, batch in batches}
    sections = []
    for rule, improved in current.items():
        rows = []
        for tmst in sorted(improved, reverse=True)[:SHOWN_BATCHES]:
            reported = _rule_metrics(first.get(tmst), rule)
            rows.append(
                f"<tr><td>{escape(batch_time(tmst))}</td><td>{escape(_metrics_text(reported))}</td>"
                f"<td>{escape(_metrics_text(improved[tmst]))}</td></tr>"
            )
        sections.append(
            f"<h3>{escape(rule)}: results matched again</h3><table><tr><th>batch time</th>"
            f"<th>first reported</th><th>current</th></tr>{''.join(rows)}</table>"
        )
    return "".join(sections)


def _rule_metrics(document: ResultDocument | None, rule: str) -> dict:
    """A rule's metrics in a document: under its name, or Griffin's one merged map."""
    metrics = document.metrics if document is not None else {}
    found = metrics.get(rule) if isinstance(metrics.get(rule), dict) else metrics
    return found if isinstance(found, dict) else {}


def _metrics_text(metrics: dict) -> str:
    return ", ".join(f"{key} {cell(value)}" for key, value in metrics.items()) if metrics else "(not stored)"
