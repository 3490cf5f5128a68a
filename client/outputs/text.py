"""How a run reads: a table for people, one JSON document for machines."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TypeGuard

from gryph.compiler.checks.segment_checks import segment_label
from gryph.compiler.rule_kinds import RuleKind

from ..results.document import Check, MalformedColumn, ResultDocument, Rule
from ..results.run_result import RunResult, json_safe
from .headline import run_headline
from .readable_values import counted, duration, number
from .segments_text import cap_warning, ordered
from .visible_text import for_terminal

SAMPLE_ROWS_SHOWN = 5


def cell(value: object) -> str:
    """A value as one line of text: NULL, NaN, JSON for lists and maps."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (list, dict)):
        return json.dumps(json_safe(value), ensure_ascii=False)
    return str(value)


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A plain text table with aligned columns, for a terminal: control characters spelled out."""
    headers = [for_terminal(h) for h in headers]
    cells = [[for_terminal(cell(v)) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(), line]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(out)


def _is_rows(value: object) -> bool:
    """A list of row maps (profiling rows, histograms, duplication arrays): shown as a table."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _rows_table(rows: Sequence[Mapping]) -> str:
    headers = list(dict.fromkeys(key for row in rows for key in row))
    return table(headers, [[row.get(h) for h in headers] for row in rows])


def _metric_rows(
    name: str, metrics: object, below: list[tuple[str, list[dict]]], durations: frozenset[str] = frozenset()
) -> list[list[object]]:
    """One line per metric, ``durations`` (keys of milliseconds) with units; row lists, and a map of
    maps (Griffin's profiling: one map of statistics per column), go to ``below``, to be shown as
    tables of their own."""
    if isinstance(metrics, list):  # profiling rows
        metrics = {"rows": metrics}
    if not isinstance(metrics, dict):
        return [[name, "", metrics]]
    if metrics and all(isinstance(v, dict) for v in metrics.values()):
        below.append((name, [{"column": key, **value} for key, value in metrics.items()]))
        return [[name, "", f"{_row_count(list(metrics))}, below"]]
    lines = []
    for key, value in metrics.items():
        if _is_rows(value):
            below.append((f"{name} {key}", value))
            value = f"{_row_count(value)}, below"
        elif key in durations and _is_number(value):
            value = duration(value)
        lines.append([name, key, value])
    return lines


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _latency_names(declared: Rule | None) -> tuple[str, str, str] | None:
    """A timeliness rule's names for its average, its percentiles' prefix and its late records'
    latency column, as its details rename them; None for a rule of another kind."""
    if declared is None or declared.kind != RuleKind.TIMELINESS:
        return None
    details = declared.details

    def named(role: str) -> str:
        value = details.get(role)
        return value if isinstance(value, str) and value else role

    return named("avg"), named("percentile") + "_", named("latency")


def _durations(declared: Rule | None, metrics: object) -> frozenset[str]:
    """The keys of a rule's metrics that are milliseconds: a timeliness rule's average and
    percentiles, a freshness rule's age."""
    if declared is not None and declared.kind == RuleKind.FRESHNESS:
        renamed = declared.details.get("age_ms")
        return frozenset({renamed if isinstance(renamed, str) and renamed else "age_ms"})
    names = _latency_names(declared)
    if names is None or not isinstance(metrics, dict):
        return frozenset()
    average, percentile, _ = names
    return frozenset(key for key in metrics if key == average or key.startswith(percentile))


def metrics_summary(metrics: object) -> str:
    """A rule's metrics on one line: ``total 50, incomplete 1``; a list of rows as its count."""
    if isinstance(metrics, list):  # profiling rows
        return _row_count(metrics)
    if not isinstance(metrics, dict):
        return cell(metrics)
    return ", ".join(f"{key} {_row_count(v) if isinstance(v, list) else cell(v)}" for key, v in metrics.items())


def _row_count(rows: list) -> str:
    return f"{len(rows)} row{'s' if len(rows) != 1 else ''}"


def check_details(check: Check) -> str:
    """What a check read (and why it could not be evaluated, or judge yet): ``measures["x"] = 1, ...``."""
    values = ", ".join(f"{text} = {cell(value)}" for text, value in check.values.items())
    if check.skipped is not None:
        return f"skipped: {check.skipped}" + (f"; {values}" if values else "")
    if check.error:
        return f"error: {check.error}" + (f"; {values}" if values else "")
    return values


def failing_rows_text(check: Check, shown_under: dict[str, str] | None = None) -> list[str]:
    """A failing check's rows, per row-count measure (or rule) it reads: how many, the first few
    as a table, and the one column's most frequent values among them. ``shown_under``: the rows
    already shown, by what they are of, and under which check (a report shows them once)."""
    lines = []
    for name, sample in check.failing_rows.items():
        count = sample.count
        what = f"{count} row{'' if count == 1 else 's'} of {sample.source} where {sample.where}"
        if shown_under is not None and name in shown_under:
            lines += ["", for_terminal(f"{check.name}: {what}, shown under {shown_under[name]!r}")]
            continue
        if shown_under is not None:
            shown_under[name] = check.name
        lines += ["", for_terminal(f"{check.name}: {what}")]
        shown = list(sample.rows[:SAMPLE_ROWS_SHOWN])
        if shown:
            lines.append(_rows_table(shown))
        if isinstance(count, int) and count > len(shown):
            lines.append(f"... {count - len(shown)} more")
        if sample.column is not None:
            top = ", ".join(f"{cell(v.value)} ({v.count})" for v in sample.top_values)
            lines.append(for_terminal(f"most frequent {sample.column}: {top}"))
    return lines


def to_text(result: RunResult, strict: bool = False) -> str:
    """The run as a person reads it: one line per metric, the flagged records, then measures,
    checks and the verdict (with ``strict``, a failed warning fails it). Names and values are shown with their control characters spelled out."""
    document = result.document(redacted=False)
    lines = [f"suite {for_terminal(result.name)} on {result.engine} ({result.duration_seconds:.2f}s)"]
    if result.metrics:
        lines += ["", _metrics_table(result, document.rules)]
    lines += _segments_text(document)
    lines += _records_text(document)
    lines += _malformed_text(document.malformed_values)
    lines += _outputs_text(document.outputs)
    if result.measures:
        lines += ["", table(["measure", "value"], [[name, value] for name, value in result.measures.items()])]
    if document.checks:
        lines += [
            "",
            table(
                ["result", "check", "details"],
                [[check.status, check.name, check_details(check)] for check in document.checks],
            ),
        ]
    shown_under: dict[str, str] = {}
    for check in document.checks:
        lines += failing_rows_text(check, shown_under)
    if document.failed:
        lines += [
            "",
            table(
                ["failed", "error"],
                [[name, f"{error.code}: {error.message}"] for name, error in document.failed.items()],
            ),
        ]
    if document.checks or result.measures or document.failed:
        lines += ["", for_terminal(f"verdict: {run_headline(result, strict).text}")]
    return "\n".join(lines) + "\n"


def _metrics_table(result: RunResult, declared: Mapping[str, Rule]) -> str:
    rows: list[list[object]] = []
    below: list[tuple[str, list[dict]]] = []
    if (
        all(isinstance(v, (dict, list)) for v in result.metrics.values())
        and result.rules
        and set(result.metrics) == {r.rule for r in result.rules}
    ):
        for rule in result.rules:
            metrics = result.metrics[rule.rule]
            durations = _durations(declared.get(rule.rule), metrics)
            rows += _metric_rows(f"{rule.rule} ({rule.kind})", metrics, below, durations)
    else:  # Griffin's merged metric map
        rows = _metric_rows(result.name, result.metrics, below)
    parts = [table(["rule", "metric", "value"], rows)]
    parts += [f"\n{for_terminal(title)}:\n{_rows_table(value)}" for title, value in below]
    return "\n".join(parts)


def _segments_text(document: ResultDocument) -> list[str]:
    """Per segmented rule: its cap's warning if reached, then its segments, the worst first."""
    lines: list[str] = []
    segmented = [*document.segments.items(), *document.measure_segments.items()]
    for name, segments in segmented:
        listed, order = ordered(segments, document.rules.get(name))
        lines += ["", for_terminal(f"{name} by {segments.column}: {counted(len(listed), 'segment')}, {order}")]
        if segments.capped:
            lines.append(cap_warning(name, segments))
        keys = list(listed[0].metrics) if listed else []
        lines.append(
            table([segments.column, *keys], [[segment_label(s.value), *(s.metrics[k] for k in keys)] for s in listed])
        )
    return lines


def _shown(value: object, is_duration: bool) -> object:
    return duration(value) if is_duration and _is_number(value) else value


def _records_text(document: ResultDocument) -> list[str]:
    lines = []
    # a rule whose flagged rows a failing check shows (failing_checks.attach_rule_records) is not
    # shown twice: its rows stand under that check
    under_checks = {name for check in document.checks for name in check.failing_rows}
    for rule, record in document.records.items():
        if not record.count or rule in under_checks:
            continue
        count, output = record.count, record.output
        named = f" ({output})" if output != rule else ""  # Griffin's name for the records, when it has its own
        lines += ["", for_terminal(f"{rule}: {count} {'record' if count == 1 else 'records'}{named}")]
        sample = record.sample[:SAMPLE_ROWS_SHOWN]
        if sample:
            headers = list(sample[0])
            latency = _latency_names(document.rules.get(rule))
            # the late records' latency: the column timeliness adds last (its name prefixed with
            # "_" when a source column starts with it)
            timed = headers[-1] if latency is not None and headers[-1].lstrip("_") == latency[2] else None
            shown = [[_shown(row.get(h), h == timed) for h in headers] for row in sample]
            lines.append(table(headers, shown))
            if record.count > len(sample):
                lines.append(f"... {record.count - len(sample)} more")
    return lines


def _outputs_text(outputs: Mapping[str, Mapping]) -> list[str]:
    """Where each split source's rows went (``--quarantine-to``, or the suite's statements)."""
    rows = [
        [source, kind, written[kind]["rows"], written[kind]["path"]]
        for source, written in outputs.items()
        for kind in ("quarantine", "valid")
        if kind in written
    ]
    return ["", table(["source", "output", "rows", "folder"], rows)] if rows else []


def malformed_examples(column: MalformedColumn) -> str:
    """A column's first values that did not parse, with their rows: ``row 2: 'n/a', row 5: '-'``."""
    return ", ".join(f"row {example.get('row')}: {example.get('value')!r}" for example in column.examples)


def _malformed_text(malformed_values: Mapping[str, Mapping[str, MalformedColumn]]) -> list[str]:
    """Per source of declared types, its values that are not of their column's type (now NULL)."""
    lines = []
    for source, columns in malformed_values.items():
        total = sum(column.malformed for column in columns.values())
        lines += [
            "",
            for_terminal(
                f"{source}: {total} {'value' if total == 1 else 'values'} not of the declared type (read as NULL)"
            ),
        ]
        rows = [[name, c.type, c.malformed, malformed_examples(c)] for name, c in columns.items()]
        lines.append(table(["column", "type", "malformed", "first rows"], rows))
    return lines
