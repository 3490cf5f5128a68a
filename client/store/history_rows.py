"""A run history's rows read back, every value checked (``Damaged`` names the one that is not
what gryph wrote): HistoryStore reads each row through one of these, so an edited or damaged
row is HISTORY_UNREADABLE naming the file, never a traceback in ``gryph history`` or ``report``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from functools import partial

from gryph.compiler.suites.data_times import shown as shown_data_time

from ..results.checked_values import Damaged, text
from ..results.document import ResultDocument, RuleSegments, read_document
from .stored_values import json_object, json_text


def stored_value(value: object, what: str = "a stored value") -> object:
    """A measure's value or a rule's metrics, stored as JSON (NaN and infinities as their names)."""
    decoded = json_text(value, what)
    return float(decoded) if decoded in ("NaN", "Infinity", "-Infinity") else decoded


def moment(value: object, what: str) -> dt.datetime:
    """A stored time: UTC without a zone."""
    if not isinstance(value, dt.datetime):
        raise Damaged(f"{what} is {'NULL' if value is None else repr(value)[:40]}, not a time")
    return value


def metric_row(row: tuple) -> tuple[str, str, object]:
    run_id, rule, value = row
    what = f"run {run_id}'s metrics of rule {rule!r}"
    return text(run_id, "a run's id"), text(rule, what), stored_value(value, what)


def point_row(row: tuple) -> tuple[object, dt.datetime]:
    value, started = row
    return stored_value(value), moment(started, "a stored value's time")


def columns_row(row: tuple) -> dict[str, str]:
    columns = json_object(row[0], "a source's stored columns")
    for name, kind in columns.items():
        text(kind, f"the stored type of column {name!r}")
    return columns


def run_row(row: tuple, superseded: bool) -> dict:
    """A line of ``gryph history``: the run's id, times, engine, verdict and measures."""
    run_id, started, engine, passed, document, data_time, superseded_by = row
    what = f"run {text(run_id, 'a run id')}"
    stored = read_document(json_object(document, f"{what}'s document"), f"{what}'s document")
    if not isinstance(passed, bool):
        raise Damaged(f"{what}'s verdict is {passed!r}, not true or false")
    run = {
        "run_id": run_id,
        "started": moment(started, f"{what}'s start").isoformat(sep=" ", timespec="seconds") + "Z",
        "data_time": None if data_time is None else shown_data_time(_utc_aware(data_time, what)),
        "engine": text(engine, f"{what}'s engine"),
        "pass": passed,
        "measure": dict(stored.measures),
        # per measure and rule `by COLUMN`, its values per segment as the run stored them
        "measure_segments": {
            name: _segments(part, "value", partial(measure_shaped, stored.measures.get(name)))
            for name, part in stored.measure_segments.items()
        },
        "segments": {name: _segments(part, "metrics", dict) for name, part in stored.segments.items()},
    }
    if stored.error is not None:  # a run that broke: why, in place of values it never measured
        run["error"] = {"code": stored.error.code, "message": stored.error.message}
    if superseded:
        run["superseded_by"] = superseded_by
    return run


def _segments(part: RuleSegments, key: str, shaped: Callable[[Mapping[str, object]], object]) -> dict:
    """A rule's or measure's segments as ``gryph history`` lists them: its column, whether its cap
    left segments out, and each segment's value (JSON: NULL is null) with its metrics or value."""
    values = [{"segment": segment.value, key: shaped(segment.metrics)} for segment in part.values]
    return {"column": part.column, "capped": part.capped, "values": values}


def measure_shaped(whole: object, row: Mapping[str, object]) -> object:
    """A segment's row as its measure over all rows is stored: a map, a list, or its one value."""
    if isinstance(whole, dict):
        return dict(row)
    if isinstance(whole, list):
        return list(row.values())
    return next(iter(row.values()))


def document_row(row: tuple) -> ResultDocument:
    """A run's stored result document, read (of this gryph's format or an earlier one), with its run
    id and start time (UTC, ISO 8601)."""
    run_id, started, document, _, _ = row
    what = f"run {text(run_id, 'a run id')}"
    stored = json_object(document, f"{what}'s document")
    shown = moment(started, f"{what}'s start").isoformat(sep="T", timespec="seconds") + "Z"
    return read_document({**stored, "run_id": run_id, "started": shown}, f"{what}'s document")


def _utc_aware(value: object, what: str) -> dt.datetime:
    return moment(value, f"{what}'s data time").replace(tzinfo=dt.timezone.utc)
