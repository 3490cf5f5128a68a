"""Which target is told what about a run: each target sees the run through its ``notify`` route
(the checks it watches, the tones it is told of) and compares that view with the runs before.

A target's view of a run is a tone (``fail``, ``warn``, ``error`` or ``pass``) and the failed
checks it watches (routed to segments, ``for segments "ES", "FR"``: the checks failing in one of
those segments, with those segments). A view that is not ``pass`` is an open incident: the target is told when the
incident opens or changes (another tone, other checks), not again while it stays the same unless
the route says ``repeat = 6h`` (then once each time another period has passed since it opened,
counted in run time: data time, else start), and told of the recovery when the view turns
``pass`` again, naming the checks that recovered. A tone the target is not told of is no incident
for it (a warning, to ``on fail``: its failure recovered); a run that broke judged no check, so
what recovered after it is what failed in the last run that judged them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from gryph.compiler.suites.data_times import parse_data_time
from gryph.compiler.suites.suite import NotifySpec

from ..outputs.headline import document_headline
from ..results.document import Check, Outcome, ResultDocument, Severity

EVENTS = {"fail": "failure", "warn": "warning", "pass": "recovery", "error": "error"}
INCIDENT_LOOKBACK = 500  # earlier runs read to find when an open incident began (for repeat)
BROKEN_LOOKBACK = 20  # earlier runs read past the runs that broke, to the last one that judged its checks


# per failed check a target routed to segments watches, its failing segments among those
SegmentSets = tuple[tuple[str, tuple[object, ...]], ...]


@dataclass(frozen=True)
class View:
    """A run as one target sees it: its tone and the failed checks it watches, in the run's order;
    for a target routed to segments, each one's failing segments it watches (an incident is a
    check and its set of segments)."""

    tone: str
    failed: tuple[str, ...]
    segments: SegmentSets = ()


@dataclass(frozen=True)
class Event:
    """What a target is told of a run: ``kind`` failure, warning, error or recovery; the checks
    failing in the run before that no longer fail and, for a target routed to segments, each
    check's segments that no longer fail; for a repeat, when the incident opened."""

    kind: str
    recovered: tuple[str, ...] = ()
    open_since: str | None = None
    recovered_segments: SegmentSets = ()


def view(document: ResultDocument, target: NotifySpec) -> View:
    """The run's tone and failed checks for ``target``: the run's own tone when it watches every
    check and segment, else the tone of its checks alone (an errored run is ``error`` to every target)."""
    watched = watched_failures(document, target)
    failed = tuple(check.name for check in watched)
    segments = tuple((check.name, failing_segments(check, target)) for check in watched) if target.segments else ()
    if document.error is not None or not (target.checks or target.segments):
        return View(document_headline(document).tone, failed, segments)
    if any(check.severity is Severity.ERROR for check in watched):
        return View("fail", failed, segments)
    return View("warn" if watched else "pass", failed, segments)


def watched_failures(document: ResultDocument, target: NotifySpec) -> list[Check]:
    """The run's failed checks (failures and warnings) that ``target`` watches, in the run's order:
    for a target routed to segments, the checks failing in one of its segments."""
    return [
        c
        for c in document.checks
        if c.outcome is Outcome.FAIL
        and (not target.checks or c.name in target.checks)
        and (not target.segments or failing_segments(c, target))
    ]


def failing_segments(check: Check, target: NotifySpec) -> tuple[object, ...]:
    """The segments where a `by COLUMN` check failed, those ``target`` watches when it names some."""
    return tuple(
        segment.value
        for segment in check.segments
        if segment.status in ("FAIL", "WARN") and (not target.segments or _named(segment.value, target.segments))
    )


def _named(value: object, values: tuple[object, ...]) -> bool:
    """Whether a segment's value is one of ``values`` (a boolean segment is never the number 1 or 0)."""
    return any(value == named and isinstance(value, bool) == isinstance(named, bool) for named in values)


def _recovered(before: SegmentSets, now: SegmentSets) -> SegmentSets:
    """Each check's segments failing before and not now."""
    failing = dict(now)
    gone = ((name, tuple(v for v in values if v not in failing.get(name, ()))) for name, values in before)
    return tuple((name, values) for name, values in gone if values)


def event_for(target: NotifySpec, document: ResultDocument, earlier: list[ResultDocument]) -> Event | None:
    """What ``target`` is told of ``document`` after the runs ``earlier`` (oldest first; the
    newest is the run just before), or None: nothing."""
    now = _seen(target, view(document, target))
    if now is None:
        return None  # a run that broke, of a tone the target is not told of: its incident stands
    views = _views_before(target, earlier)
    before = views[0] if views else None
    # what failed in the last run that judged its checks (a run that broke judged none)
    judged = next((v for v in views if v.tone != "error"), PASSED)
    if now.tone == "pass":
        if before is None or before.tone == "pass":
            return None
        return Event("recovery", judged.failed, recovered_segments=judged.segments)
    if before != now:
        if now.tone == "error":  # it says nothing of what recovered
            return Event(EVENTS[now.tone])
        recovered = tuple(name for name in judged.failed if name not in now.failed)
        return Event(EVENTS[now.tone], recovered, recovered_segments=_recovered(judged.segments, now.segments))
    opened = _repeat_due(target, now, document, earlier)
    return None if opened is None else Event(EVENTS[now.tone], open_since=opened.isoformat())


def needs_incidents(targets: tuple[NotifySpec, ...]) -> int:
    """How many earlier runs the targets' events need: for a repeat, the incident's runs; else
    the run before, and the runs that broke before it (to find what the last judged run failed)."""
    return INCIDENT_LOOKBACK if any(target.repeat_ms for target in targets) else BROKEN_LOOKBACK


PASSED = View("pass", ())


def _seen(target: NotifySpec, seen: View) -> View | None:
    """A view as ``target`` follows it: a tone it is not told of is no incident for it (``on
    fail`` sees a run with only warnings as passed: its failure recovered); a run that broke, when
    it is not told of errors, is no news at all (None: the incident before it stands)."""
    if _told_of(target, seen.tone) or seen.tone == "pass":
        return seen
    return None if seen.tone == "error" else PASSED


def _views_before(target: NotifySpec, earlier: list[ResultDocument]) -> list[View]:
    """The earlier runs as ``target`` follows them, the newest first (runs that are no news to it
    left out)."""
    seen = (_seen(target, view(run, target)) for run in reversed(earlier))
    return [one for one in seen if one is not None]


def _told_of(target: NotifySpec, tone: str) -> bool:
    return not target.tones or tone in target.tones


def _repeat_due(
    target: NotifySpec, now: View, document: ResultDocument, earlier: list[ResultDocument]
) -> dt.datetime | None:
    """When the open incident began, if another ``repeat`` period has passed since then between
    the run before and this one; else None."""
    if target.repeat_ms is None:
        return None
    opened = _run_time(earlier[-1])
    for run in reversed(earlier):
        seen = _seen(target, view(run, target))
        if seen is None:
            continue  # no news to the target: the incident went on through it
        if seen != now:
            break
        opened = _run_time(run)
    period = dt.timedelta(milliseconds=target.repeat_ms)
    return opened if (_run_time(document) - opened) // period > (_run_time(earlier[-1]) - opened) // period else None


def _run_time(document: ResultDocument) -> dt.datetime:
    """A run's place in time: its data time, else its start (UTC)."""
    if document.data_time is not None:
        return parse_data_time(document.data_time)
    return dt.datetime.fromisoformat(document.started.replace("Z", "+00:00"))
