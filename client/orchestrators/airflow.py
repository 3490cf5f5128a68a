"""``GryphOperator``: a suite run as an Airflow task. Its data time is the task's logical date
unless one is given; a failed verdict fails the task without a retry (the same data gives the same
verdict), a run that broke (a file not there yet) fails it as any error does, retries and all.
The result document is the task's XCom; a failed task pushes it under ``gryph_result``.

    from gryph.client.orchestrators.airflow import GryphOperator
    GryphOperator(task_id="users", suite="checks/users.dq", history="/data/gryph.duckdb")
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException

from gryph.compiler.errors import GryphError

from ..outputs.headline import gate_failures, gate_passes
from ..results.run_result import to_json
from .task_runs import TaskOutputs, TaskRun, run_task

FAILED_RESULT_KEY = "gryph_result"  # the XCom key of a failed run's result document


class GryphOperator(BaseOperator):
    """Run a gryph suite: ``engine`` duckdb or spark (``remote`` a Spark Connect URL or ``local``),
    ``history`` a history file, ``data_time`` the moment the data is about (default: the logical
    date), ``json``/``junit``/``html`` files to write, ``notify`` alert URLs as ``--notify`` takes
    them, ``variables`` the suite's ``${name}``, ``strict`` a failed warning fails the task too."""

    template_fields: Sequence[str] = ("suite", "history", "data_time", "variables", "json", "junit", "html")

    def __init__(
        self,
        *,
        suite: str | Path,
        engine: str = "duckdb",
        remote: str | None = None,
        history: str | Path | None = None,
        data_time: str | None = None,
        variables: Mapping[str, str] | None = None,
        json: str | Path | None = None,
        junit: str | Path | None = None,
        html: str | Path | None = None,
        notify: Sequence[str] = (),
        strict: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.suite = str(suite)
        self.engine = engine
        self.remote = remote
        self.history = None if history is None else str(history)
        self.data_time = data_time
        self.variables = dict(variables or {})
        self.json = None if json is None else str(json)
        self.junit = None if junit is None else str(junit)
        self.html = None if html is None else str(html)
        self.notify = tuple(notify)
        self.strict = strict

    def execute(self, context: Any) -> dict:
        task = TaskRun(
            suite=self.suite,
            engine=self.engine,
            remote=self.remote,
            history=self.history,
            variables=self.variables,
            outputs=TaskOutputs(json=self.json, junit=self.junit, html=self.html),
            notify=self.notify,
            strict=self.strict,
        )
        try:
            result = run_task(task, self.data_time or _logical_date(context))
        except GryphError as error:
            raise AirflowException(f"gryph: {error}") from error
        document = json.loads(to_json(result.to_dict()))  # JSON's own types: NaN travels as "NaN"
        if not gate_passes(result, self.strict):
            context["ti"].xcom_push(key=FAILED_RESULT_KEY, value=document)
            failing = gate_failures(result, self.strict)
            raise AirflowFailException(f"gryph: suite {result.name!r} failed: {', '.join(failing) or 'its policy'}")
        return document


def _logical_date(context: Any) -> str | None:
    """The run's logical date as a data time; None for a run that has none (a manual run of a
    DAG without a schedule), which takes the suite's own ``data_time`` or none."""
    moment = context.get("logical_date")
    return None if moment is None else moment.isoformat()
