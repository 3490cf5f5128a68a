"""The report as one self-contained HTML page: the verdict, the checks, the measures (each beside
the checks that read it), the checks' segments, a collapsible section per rule (chart, metrics, record sample) and the
trends. Charts are inline SVG, each beside its
Vega-Lite spec (JSON, for tools); the page loads nothing, runs no script, and escapes every text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape

from gryph.compiler.checks.schema_checks import schema_changes

from ...results.document import Check, FailingRows, Records, ResultDocument
from ..headline import document_headline
from ..text import cell, json_safe
from .chart import Chart
from .drift_charts import drift_chart
from .malformed_values import malformed_section
from .render import to_svg

OPEN_UP_TO = 12  # sections of a suite with more rules than this start closed
SAMPLE_ROWS = 20

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;
color:#1b1b1b;padding:0 16px}
h1{margin:0 0 4px}h2{margin:28px 0 8px;border-bottom:1px solid #ddd}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:600}
.pass{background:#2e7d32}.fail{background:#c62828}.error{background:#b71c1c}.warn{background:#ef6c00}.anomaly{background:#6a1b9a}
.skip{background:#757575}
table{border-collapse:collapse;margin:6px 0 12px}td,th{border:1px solid #ddd;padding:3px 8px;
text-align:left;vertical-align:top}th{background:#f5f5f5}td.num{text-align:right}
details{border:1px solid #e0e0e0;border-radius:4px;margin:6px 0;padding:4px 10px}
summary{cursor:pointer;font-weight:600}figure{margin:8px 0}code{font-size:13px}
figure svg{max-width:100%;height:auto}
.muted{color:#666}.cap-warning{color:#ef6c00}svg.trend{vertical-align:middle}
input[name=show]{margin:0 2px 0 12px}input[name=show]:first-of-type{margin-left:0}
"""


def html_page(
    document: ResultDocument,
    rule_charts: dict[str, Chart],
    trends: list[Chart],
    runs: int,
    previous: ResultDocument | None = None,
    stream: str = "",
    broken: tuple[ResultDocument, ...] = (),
    strict: bool = False,
    segments: str = "",
) -> str:
    """The page of one run (``document``) with its rules' charts and the trends of ``runs`` runs;
    its sources' schemas are compared with the ``previous`` run's; ``stream``: the section of a
    stream's batches (stream_batches.py), when the runs are a stream's; ``broken``: the runs among
    them that broke (an error, no value), listed newest first; ``strict``: the verdict as
    ``--strict`` gives it (a failed warning fails the run); ``segments``: the section of the checks
    judged by segment (segment_tables.py)."""
    parts = [
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>gryph report: {escape(document.name)}</title><style>{STYLE}</style></head><body>",
        _header(document, strict),
        _checks(document.checks),
        segments,
        _measures(document.measures, document.checks),
        _schemas(document.schemas, previous.schemas if previous is not None and previous.schemas else None),
        malformed_section(document.malformed_values),
        stream,
        _rules(document, rule_charts),
        _broken_runs(broken),
        _trends(trends, runs),
        "</body></html>\n",
    ]
    return "\n".join(parts)


def _broken_runs(broken: tuple[ResultDocument, ...]) -> str:
    """The runs that broke before their checks judged: when, and the error (a gap in the trends)."""
    if not broken:
        return ""
    rows = "".join(
        f"<tr><td>{escape(run.data_time or run.started)}</td><td>{escape(run.error.code)}</td>"
        f"<td>{escape(run.error.message)}</td></tr>"
        for run in reversed(broken)
        if run.error is not None
    )
    return (
        f"<h2>Runs that broke ({len(broken)})</h2><table><tr><th>data time or start</th><th>error</th>"
        f"<th>message</th></tr>{rows}</table>"
    )


def _header(document: ResultDocument, strict: bool) -> str:
    headline = document_headline(document, strict)
    verdict = f'<span class="verdict {headline.tone}">{ {"fail": "FAIL", "error": "ERROR"}.get(headline.tone, "PASS") }</span>'
    read = ", ".join(f"{escape(str(source))}: {cell(rows)}" for source, rows in document.rows_read.items())
    elapsed = document.elapsed_ms if document.elapsed_ms is not None else round(1000 * document.duration_seconds)
    facts = [
        escape(headline.text),
        f"engine {escape(document.engine)}",
        f"started {escape(document.started)}",
        f"{cell(elapsed)} ms",
    ]
    if read:
        facts.append(f"rows read: {read}")
    return f'<header><h1>{escape(document.name)} {verdict}</h1><p class="muted">{" · ".join(facts)}</p></header>'


def _checks(checks: tuple[Check, ...]) -> str:
    """The checks, failures first, with the rows each failing one failed on; radio buttons above
    the table show the checks of one result (CSS only: the page runs no script)."""
    if not checks:
        return ""
    ordered = sorted(checks, key=lambda check: _FIRST.get(check.status, len(_FIRST)))
    rows = []
    for check in ordered:
        values = ", ".join(f"{text} = {cell(value)}" for text, value in check.values.items())
        if check.skipped:
            values = f"skipped: {check.skipped}" + (f"; {values}" if values else "")
        elif check.error:
            values = f"error: {check.error}" + (f"; {values}" if values else "")
        anomaly = ' <span class="verdict anomaly">anomaly</span>' if check.anomaly is True else ""
        shows = f' class="result-{_slug(check.status)}"'
        rows.append(
            f"<tr{shows}><td>{badge(check.status)}{anomaly}</td>"
            f"<td>{escape(check.name)}</td><td><code>{escape(check.expression)}"
            f"</code></td><td>{escape(values)}</td></tr>"
        )
        if check.failing_rows:
            rows.append(f'<tr{shows}><td></td><td colspan="3">{_failing_rows(check.failing_rows)}</td></tr>')
        drift = drift_chart(check.name, check.values)
        if drift is not None:
            rows.append(f'<tr{shows}><td></td><td colspan="3">{figure(drift)}</td></tr>')
    return (
        f'<section id="checks"><h2>Checks</h2>{_result_filter([c.status for c in ordered])}'
        "<table><tr><th>result</th><th>check</th><th>expression</th>"
        f"<th>values read</th></tr>{''.join(rows)}</table></section>"
    )


_FIRST = {"FAIL": 0, "WARN": 1}  # then the rest, in the suite's order


def _slug(status: str) -> str:
    return "".join(char for char in status.lower() if char.isalnum()) or "none"


def _result_filter(statuses: list[str]) -> str:
    """Radio buttons showing every check or those of one result, and the CSS that hides the rest."""
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    buttons = [
        f'<input type="radio" name="show" id="show-all" checked><label for="show-all">all ({len(statuses)})</label>'
    ]
    rules = []
    for status, count in counts.items():
        slug = _slug(status)
        buttons.append(
            f'<input type="radio" name="show" id="show-{slug}"><label for="show-{slug}">{escape(status)} ({count})</label>'
        )
        rules.append(f"#show-{slug}:checked~table tr[class]:not(.result-{slug}){{display:none}}")
    # the buttons stand beside the table (no wrapper): the CSS finds the table as their sibling
    return f"<style>{''.join(rules)}</style>{''.join(buttons)}"


def _failing_rows(failing: Mapping[str, FailingRows]) -> str:
    """A failing check's rows, per row-count measure it reads: how many, a table of the first, and
    the one column's most frequent values there."""
    parts = []
    for sample in failing.values():
        count = sample.count
        what = f"{cell(count)} row{'' if count == 1 else 's'} of {sample.source} where {sample.where}"
        parts.append(f"<p>{escape(what)}:</p>{rows_table(list(sample.rows))}")
        if sample.top_values:
            shown = ", ".join(f"{cell(v.value)} ({cell(v.count)})" for v in sample.top_values)
            parts.append(f"<p>most frequent {escape(str(sample.column))}: {escape(shown)}</p>")
    return "".join(parts)


def badge(status: str) -> str:
    tone = {"PASS": "pass", "WARN": "warn", "SKIP": "skip"}.get(status, "fail")  # SKIP: grey, not judged yet
    return f'<span class="verdict {tone}">{escape(status)}</span>'


def _measures(measures: Mapping[str, object], checks: tuple[Check, ...]) -> str:
    """Each measure's value, beside the checks that read it (their result and expression)."""
    if not measures:
        return ""
    rows = []
    for name, value in measures.items():
        reading = [
            f"<div>{badge(check.status)} {escape(check.name)}: <code>{escape(check.expression)}</code></div>"
            for check in checks
            if any(ref.source == "measure" and ref.name == name for ref in check.reads)
        ]
        shown = "".join(reading) or '<span class="muted">no check reads it</span>'
        rows.append(f'<tr><td>{escape(str(name))}</td><td class="num">{escape(cell(value))}</td><td>{shown}</td></tr>')
    return (
        '<section id="measures"><h2>Measures</h2><table><tr><th>measure</th><th>value</th><th>checks</th></tr>'
        f"{''.join(rows)}</table></section>"
    )


def _schemas(schemas: Mapping[str, Mapping[str, str]], before: Mapping[str, Mapping[str, str]] | None) -> str:
    """Each source's columns, and what changed since the previous run (columns added, removed,
    changed type); nothing to compare with before a run that stored its schemas."""
    if not schemas:
        return ""
    rows = []
    for source, columns in schemas.items():
        earlier = before.get(source) if before is not None else None
        if earlier is None:
            changed = '<td colspan="3" class="muted">no earlier run to compare with</td>'
        else:
            found = schema_changes(dict(earlier), dict(columns))
            retyped = [f"{c['column']}: {c['was']} → {c['now']}" for c in found["changed"]]
            changed = "".join(
                f"<td>{escape(', '.join(map(str, names))) or '—'}</td>"
                for names in (found["added"], found["removed"], retyped)
            )
        shown = ", ".join(f"{name} {kind}" for name, kind in columns.items())
        rows.append(f"<tr><td>{escape(str(source))}</td><td>{escape(shown)}</td>{changed}</tr>")
    return (
        '<section id="schemas"><h2>Schemas</h2><table><tr><th>source</th><th>columns</th><th>added</th>'
        f"<th>removed</th><th>changed type</th></tr>{''.join(rows)}</table></section>"
    )


def _rules(document: ResultDocument, charts: dict[str, Chart]) -> str:
    metrics, rules, records = document.metrics, document.rules, document.records
    if rules and set(metrics) <= set(rules):
        sections: list[tuple[str, str, object]] = [(name, rule.kind, metrics.get(name)) for name, rule in rules.items()]
    elif metrics:  # Griffin's merged metric map: one section of every metric
        sections = [("metrics", "griffin", metrics)]
    else:  # a suite of measures only
        return ""
    opened = " open" if len(sections) <= OPEN_UP_TO else ""
    parts = ['<section id="rules"><h2>Rules</h2>']
    for rule, kind, values in sections:
        body = [figure(charts[rule])] if rule in charts else []
        body.append(_metrics_table(values))
        if rule in records:
            body.append(_records(records[rule]))
        parts.append(
            f'<details{opened}><summary>{escape(str(rule))} <span class="muted">({escape(str(kind))})'
            f"</span></summary>{''.join(body)}</details>"
        )
    parts.append("</section>")
    return "".join(parts)


def _metrics_table(values: object) -> str:
    if isinstance(values, list):
        return rows_table(values)
    if not isinstance(values, dict):
        return f"<p>{escape(cell(values))}</p>"
    lines, below = [], []
    for key, value in values.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            below.append(f"<p>{escape(str(key))}:</p>{rows_table(value)}")
        else:
            lines.append(f'<tr><th>{escape(str(key))}</th><td class="num">{escape(cell(value))}</td></tr>')
    return f"<table>{''.join(lines)}</table>{''.join(below)}"


def rows_table(rows: list) -> str:
    rows = [row for row in rows if isinstance(row, dict)]
    if not rows:
        return '<p class="muted">no rows</p>'
    headers = list(dict.fromkeys(key for row in rows for key in row))
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell(row.get(h)))}</td>" for h in headers) + "</tr>"
        for row in rows[:SAMPLE_ROWS]
    )
    more = f'<p class="muted">... {len(rows) - SAMPLE_ROWS} more rows</p>' if len(rows) > SAMPLE_ROWS else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def _records(record: Records) -> str:
    if not record.count:
        return ""
    where = f", written to {escape(record.written_to)}" if record.written_to else ""
    return f"<p>{escape(cell(record.count))} {escape(record.output)}{where}:</p>" + rows_table(list(record.sample))


def _trends(trends: list[Chart], runs: int) -> str:
    if not trends:
        return (
            '<section id="trends"><h2>Trends</h2><p class="muted">Trends appear once two runs of the '
            f"suite are stored in the history ({runs} stored).</p></section>"
        )
    opened = " open" if len(trends) <= OPEN_UP_TO else ""
    items = "".join(
        f"<details{opened}><summary>{escape(chart.title)}</summary>{figure(chart)}</details>" for chart in trends
    )
    return f'<section id="trends"><h2>Trends over the last {runs} runs</h2>{items}</section>'


def figure(chart: Chart) -> str:
    """The chart as inline SVG, with its spec as inert JSON (``<`` escaped: it cannot end the script)."""
    spec = json.dumps(json_safe(chart.vega_lite), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    spec = spec.replace("<", "\\u003c")
    return (
        f'<figure class="chart" id="{chart.id}">{to_svg(chart)}'
        f'<script type="application/json" class="vl-spec">{spec}</script></figure>'
    )
