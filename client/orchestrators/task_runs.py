"""One suite run as an orchestrator's task makes it: the Python API's run, with the history, the
output files and the alerts ``gryph run`` gives, without a command line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gryph.compiler.errors import GryphError
from gryph.compiler.redaction import redact

from ..alerts.run_alerts import alert_targets, send_alerts, warn_not_sent
from ..cli.run_commands import keep_broken
from ..lineage import RunLineage
from ..outputs.gate import to_junit
from ..results.output_files import check_writable_path, write_whole
from ..results.run_result import RunResult, to_json
from ..run import runner
from ..store.history_writes import HistoryWriteError


@dataclass(frozen=True)
class TaskOutputs:
    """The files a task writes beside its result: JSON, JUnit and the HTML report (None: not written)."""

    json: str | Path | None = None
    junit: str | Path | None = None
    html: str | Path | None = None

    def check(self) -> None:
        """Each path refused before the run when it can never be written."""
        for option, path in (("json", self.json), ("junit", self.junit), ("html", self.html)):
            if path is not None:
                check_writable_path(option, str(path))


@dataclass(frozen=True)
class TaskRun:
    """What to run and where its run goes, as an operator's arguments say it."""

    suite: str | Path
    engine: str = "duckdb"
    remote: str | None = None
    history: str | Path | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    outputs: TaskOutputs = TaskOutputs()
    notify: Sequence[str] = ()
    strict: bool = False  # a failed warning fails the task too


def run_task(task: TaskRun, data_time: str | None = None) -> RunResult:
    """Run ``task``'s suite keyed at ``data_time``, write its outputs and send its alerts; the run's
    result, passed or failed. A run that breaks is kept in the history as an errored run and alerts
    as one, then its GryphError is raised; a history that could not be written is raised last."""
    task.outputs.check()
    suite = runner.load_suite(task.suite, variables=dict(task.variables))
    keyed = runner.run_data_time(suite, data_time)  # a bad data time is refused before the scan
    alerts = alert_targets(suite, list(task.notify))
    history = None if task.history is None else str(task.history)
    started = dt.datetime.now(dt.timezone.utc)
    not_stored: HistoryWriteError | None = None
    try:
        result = runner.run(suite, task.engine, remote=task.remote, history=history, data_time=data_time)
    except HistoryWriteError as error:  # the run is done: its outputs are written all the same
        assert error.result is not None
        result, not_stored = error.result, error
    except GryphError as error:
        keep_broken(suite, task.engine, history, alerts, keyed, started, error, RunLineage())
        raise
    _write_outputs(result, task.outputs, task.strict)
    report = None if task.outputs.html is None else str(Path(task.outputs.html).absolute())
    warn_not_sent(send_alerts(alerts, result, history, report), result.passed)
    if not_stored is not None:
        raise not_stored
    return result


def _write_outputs(result: RunResult, outputs: TaskOutputs, strict: bool) -> None:
    if outputs.json is not None:
        write_whole(to_json(result.to_dict()), str(outputs.json))
    if outputs.junit is not None:
        write_whole(redact(to_junit(result, strict)), str(outputs.junit))
    if outputs.html is not None:
        from ..outputs.html import Report  # altair takes half a second to import: only a task with a report pays it

        write_whole(Report([result.document()], strict=strict).html(), str(outputs.html))
