"""What an alert says, and the runs it is compared with.

A run's verdict for alerts is its headline's tone: ``fail``, ``warn`` (it passed, but a check
failed), ``pass``, or ``error`` (it broke: a missing file, a dropped column). Whether a target is
told, and of what, is routing.py's: an incident opens, changes, stays open or recovers.
"""

from __future__ import annotations

import datetime as dt

from gryph.compiler.suites.suite import NotifySpec

from ..outputs.headline import document_headline
from ..results.document import Check, ResultDocument, Severity
from ..store.history import HistoryStore
from .routing import Event, failing_segments, watched_failures


def previous_documents(
    history: str | None, suite: str, run_id: str | None, data_time: dt.datetime | None = None, limit: int = 1
) -> list[ResultDocument]:
    """The stored runs of ``suite`` before this one (``run_id``), at most ``limit``, oldest first;
    none when there is no history or it cannot be read (then alerts go out as for a first run). A
    run with a ``data_time`` compares with the current runs before that time: a backfilled day
    with the days before it, not with the newest run."""
    from gryph.compiler.errors import GryphError

    if history is None:
        return []
    store = HistoryStore(history)
    try:
        documents = store.before(data_time).documents(suite, limit) if data_time else store.documents(suite, limit + 1)
    except GryphError:
        return []
    return [d for d in documents if d.run_id != run_id][-limit:]


def alert_message(document: ResultDocument, event: Event, report: str | None, target: NotifySpec) -> dict:
    """The one message of a run to ``target``: verdict, suite, data time, the failed and warning
    checks it watches with the values and bounds they read (routed to segments: each one's failing
    segments), what recovered, rules that could not finish, and the report's path."""
    headline = document_headline(document)
    failed = watched_failures(document, target)
    message: dict[str, object] = {
        "event": event.kind,
        "verdict": headline.tone,
        "headline": headline.text,
        "suite": document.name,
        "started": document.started,
        "engine": document.engine,
        "failed": [_check(c, target) for c in failed if c.severity is Severity.ERROR],
        "warnings": [_check(c, target) for c in failed if c.severity is Severity.WARNING],
    }
    if target.checks:
        message["checks"] = list(target.checks)
    if target.segments:
        message["segments"] = list(target.segments)
    if event.recovered:
        message["recovered"] = list(event.recovered)
    if event.recovered_segments:
        message["recovered_segments"] = {name: list(values) for name, values in event.recovered_segments}
    if event.open_since is not None:
        message["open_since"] = event.open_since
    if document.data_time is not None:
        message["data_time"] = document.data_time
    if document.failed:
        message["unfinished"] = document.unfinished()
    if document.error is not None:
        message["error"] = {"code": document.error.code, "message": document.error.message}
    if report is not None:
        message["report"] = report
    return message


def _check(check: Check, target: NotifySpec) -> dict:
    shown: dict[str, object] = {"name": check.name, "expression": check.expression, "values": dict(check.values)}
    if check.error:
        shown["error"] = check.error
    if target.segments:  # the segments of the target's that failed
        shown["segments"] = list(failing_segments(check, target))
    return shown
