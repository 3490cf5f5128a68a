"""A run's alerts from start to end: its targets checked before the run, each target's one
message sent after it when its route says so (routing.py)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from gryph.compiler.errors import Location
from gryph.compiler.suites.data_times import parse_data_time
from gryph.compiler.suites.notify_targets import notify_target
from gryph.compiler.suites.suite import NotifySpec, Suite

from ..outputs.visible_text import for_terminal_lines
from ..results.document import ResultDocument
from ..results.run_result import RunResult
from .delivery import AlertDeliveryError, resolve_secrets, send
from .events import alert_message, previous_documents
from .routing import event_for, needs_incidents


@dataclass(frozen=True)
class AlertTargets:
    """Where a run's alerts go, each with its secret (read from the environment before the run)."""

    targets: tuple[NotifySpec, ...] = ()
    secrets: dict[NotifySpec, str] = field(default_factory=dict)


def alert_targets(suite: Suite, urls: list[str]) -> AlertTargets:
    """The suite's ``notify`` targets and those of ``--notify``; a bad URL or an unset secret is
    refused here, before the run (exit 2)."""
    targets = suite.notify + tuple(notify_target(url, Location("--notify")) for url in urls)
    # a target named twice with the same route (in the suite and on the command line) gets one message
    unique: dict[tuple[object, ...], NotifySpec] = {}
    for target in targets:
        unique.setdefault(
            (target.kind, target.url, target.tones, target.checks, target.repeat_ms, target.segments), target
        )
    return AlertTargets(tuple(unique.values()), resolve_secrets(tuple(unique.values())))


def send_alerts(
    alerts: AlertTargets, result: RunResult, history: str | None, report: str | None
) -> list[AlertDeliveryError]:
    """Send each target what its route tells it of the run, compared with the stored runs before
    it; the deliveries that failed (the others are still tried)."""
    if not alerts.targets:
        return []
    data_time = parse_data_time(result.data_time) if result.data_time is not None else None
    limit = needs_incidents(alerts.targets)
    return send_on_change(
        alerts, result, previous_documents(history, result.name, result.run_id, data_time, limit), report
    )


def send_on_change(
    alerts: AlertTargets, result: RunResult, earlier: list[ResultDocument], report: str | None
) -> list[AlertDeliveryError]:
    """As ``send_alerts``, against runs before it the caller knows (``earlier``, oldest first), as
    a stream without history knows its last batches."""
    document = result.document()
    failures = []
    for target in alerts.targets:
        event = event_for(target, document, earlier)
        if event is None:
            continue
        try:
            send(target, alert_message(document, event, report, target), alerts.secrets.get(target))
        except AlertDeliveryError as error:
            failures.append(error)
    return failures


def warn_not_sent(failures: list[AlertDeliveryError], passed: bool) -> None:
    """Each delivery that failed, as a warning on stderr: the data verdict stands."""
    for error in failures:
        print(for_terminal_lines(f"warning: {error}\n    the run {'passed' if passed else 'failed'}"), file=sys.stderr)
