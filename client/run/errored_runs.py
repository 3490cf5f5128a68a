"""A run that broke before its checks could judge (a day's file missing, a column a rule reads
dropped): kept in the history as a run whose verdict is ``error``, so it leaves a trace, alerts
as an incident, and shows in reports; history functions and baselines read no value of it."""

from __future__ import annotations

import datetime as dt

from gryph.compiler.errors import GryphError
from gryph.compiler.suites.data_times import shown as shown_data_time
from gryph.compiler.suites.suite import Suite

from ..results.run_result import RunResult
from ..store.history import HistoryStore
from ..store.history_writes import HistoryWriteError


def errored_run(
    suite: Suite, engine: object, data_time: dt.datetime | None, error: GryphError, started: dt.datetime
) -> RunResult:
    """The result of ``suite``'s run, begun at ``started`` (UTC), that ended with ``error``: no
    metric, measure or check; its duration is the time it took to break."""
    return RunResult(
        name=suite.name,
        engine=str(getattr(engine, "name", engine)),
        started=started.isoformat(timespec="seconds"),
        duration_seconds=round((dt.datetime.now(dt.timezone.utc) - started).total_seconds(), 3),
        metrics={},
        records={},
        passed=False,
        policy=str(suite.policy),
        data_time=None if data_time is None else shown_data_time(data_time),
        error={"code": error.code, "message": str(error), "exit_code": error.exit_code},
    )


def store_errored(
    history: str | None, result: RunResult, data_time: dt.datetime | None, started: dt.datetime
) -> HistoryWriteError | None:
    """Keep the errored run, begun at ``started``, in ``history`` (a run of the same data time it
    replaces, as any rerun does); the write's own failure, if any, to be told beside the run's
    error. ``started`` keeps its fraction of a second, as a finished run's does: the history's
    order of runs begun within one second is their order."""
    if history is None:
        return None
    try:
        result.run_id = HistoryStore(history).record(result.document(), started, {}, data_time=data_time)
    except HistoryWriteError as error:
        return error
    return None
