"""When a run alerts and what the alert says.

A run's verdict for alerts is its headline's tone: ``fail``, ``warn`` (it passed, but a check
failed), ``pass``, or ``error`` (it broke: a missing file, a dropped column). An alert goes out
when the tone differs from the previous run's of the same suite (``recovery`` when it turns to
pass); with no previous run, on failure, warning and error only. A run that keeps breaking the
same way is one incident: one alert.
"""

from __future__ import annotations

import datetime as dt

from ..outputs.headline import document_headline
from ..results.document import Check, Outcome, ResultDocument, Severity
from ..store.history import HistoryStore

EVENTS = {"fail": "failure", "warn": "warning", "pass": "recovery", "error": "error"}


def previous_tone(
    history: str | None, suite: str, run_id: str | None, data_time: dt.datetime | None = None
) -> str | None:
    """The tone of the stored run of ``suite`` before this one (``run_id``), or None when there is
    no history, no such run, or the history cannot be read (then alerts go out as for a first
    run). A run with a ``data_time`` compares with the current run just before that time: a
    backfilled day with the day before it, not with the newest run."""
    from gryph.compiler.errors import GryphError

    if history is None:
        return None
    store = HistoryStore(history)
    try:
        documents = store.before(data_time).documents(suite, 1) if data_time else store.documents(suite, 2)
    except GryphError:
        return None
    earlier = [d for d in documents if d.run_id != run_id]
    return document_headline(earlier[-1]).tone if earlier else None


def alert_event(tone: str, previous: str | None) -> str | None:
    """``failure``, ``warning`` or ``recovery`` when this run alerts, else None."""
    if tone == previous or (previous is None and tone == "pass"):
        return None
    return EVENTS[tone]


def alert_message(document: ResultDocument, event: str, report: str | None) -> dict:
    """The one message of a run: verdict, suite, data time, failed and warning checks with the
    values and bounds they read, rules that could not finish, and the report's path."""
    headline = document_headline(document)
    failed = [c for c in document.checks if c.outcome is Outcome.FAIL]
    message: dict[str, object] = {
        "event": event,
        "verdict": headline.tone,
        "headline": headline.text,
        "suite": document.name,
        "started": document.started,
        "engine": document.engine,
        "failed": [_check(c) for c in failed if c.severity is Severity.ERROR],
        "warnings": [_check(c) for c in failed if c.severity is Severity.WARNING],
    }
    if document.data_time is not None:
        message["data_time"] = document.data_time
    if document.failed:
        message["unfinished"] = document.unfinished()
    if document.error is not None:
        message["error"] = {"code": document.error.code, "message": document.error.message}
    if report is not None:
        message["report"] = report
    return message


def _check(check: Check) -> dict:
    shown = {"name": check.name, "expression": check.expression, "values": dict(check.values)}
    if check.error:
        shown["error"] = check.error
    return shown
