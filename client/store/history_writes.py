"""A run stored in the history: its document, measure values, rule metrics, anomaly findings,
source schemas and data time, in one transaction."""

from __future__ import annotations

import datetime as dt
import json
import uuid

from gryph.compiler.checks.segment_checks import segment_check, segment_key
from gryph.compiler.error_codes import HISTORY_NOT_STORED
from gryph.compiler.errors import GryphError

from ..results.document import ResultDocument
from ..results.run_result import RunResult, json_safe
from .history_file import _SCHEMA, HistoryFile, _utc
from .history_rows import measure_shaped


class HistoryWriteError(GryphError):
    """A run that finished but could not be stored in the history; ``result`` is the run, so its
    outputs are still written (the CLI ends with exit 4, or 1 when the run failed its checks)."""

    exit_code = HISTORY_NOT_STORED
    result: RunResult | None = None


class HistoryWrites(HistoryFile):
    """Writing runs to the history file."""

    def record(
        self,
        document: ResultDocument,
        started: dt.datetime,
        measures: dict[str, object],
        run_id: str | None = None,
        data_time: dt.datetime | None = None,
    ) -> str:
        """Store one run (its document and each measure's value) in one transaction; its run id.
        A ``run_id`` given and already stored is not stored again (a stream's batch published
        twice after a crash is one run). A run with a ``data_time`` supersedes the current run of
        the suite with the same one. Any failure is a ``HistoryWriteError``: the history is
        as it was."""
        import duckdb

        run_id = run_id or uuid.uuid4().hex
        try:
            with self._open() as con:
                con.execute("begin transaction")
                try:
                    for statement in _SCHEMA:
                        con.execute(statement)
                    if con.execute("select count(*) from runs where run_id = ?", [run_id]).fetchall()[0][0]:
                        con.execute("rollback")
                        return run_id
                    seq = con.execute("select nextval('run_order')").fetchall()[0][0]
                    self._write_run(con, run_id, seq, document, _utc(started))
                    self._write_measures(con, run_id, seq, document.name, _utc(started), measures)
                    self._write_metrics(con, run_id, seq, document, _utc(started))
                    self._write_schemas(con, run_id, seq, document, _utc(started))
                    self._write_segments(con, run_id, seq, document, _utc(started), measures)
                    if data_time is not None:
                        self._write_data_time(con, run_id, document.name, _utc(data_time))
                    con.execute("commit")
                except BaseException:
                    con.execute("rollback")
                    raise
        except GryphError as error:
            raise self._not_written(error.message) from None
        except (duckdb.Error, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error).splitlines()[0]
            raise self._not_written(reason) from None
        return run_id

    def accept(self, suite: str, data_time: dt.datetime) -> str | None:
        """Mark the current run of ``suite`` at ``data_time`` as normal: every anomaly baseline
        includes its values from now on, whatever its verdict and findings. Its run id; None when
        there is no such run."""
        with self._open() as con:
            for statement in _SCHEMA:
                con.execute(statement)
            found = con.execute(
                "select run_id from data_times where suite = ? and data_time = ? and superseded_by is null",
                [suite, _utc(data_time)],
            ).fetchall()
            if not found:
                return None
            [(run_id,)] = found
            con.execute(
                "insert into accepted_runs select ?, ?, ? where not exists "
                "(select 1 from accepted_runs where run_id = ?)",
                [run_id, suite, _utc(dt.datetime.now(dt.timezone.utc)), run_id],
            )
        return str(run_id)

    def _not_written(self, reason: str) -> HistoryWriteError:
        return HistoryWriteError(
            "HISTORY_NOT_WRITTEN",
            f"the run was not stored in the history {self.path}: {reason}",
            location=self._location,
            text=str(self.path),
            hint="its outputs are written; free space or fix the history file, then run again to store a run",
        )

    @staticmethod
    def _write_run(con, run_id: str, seq: int, document: ResultDocument, started: dt.datetime) -> None:
        con.execute(
            "insert into runs values (?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                seq,
                document.name,
                started,
                document.engine,
                document.passed,
                json.dumps(json_safe(document.source), ensure_ascii=False, allow_nan=False),
            ],
        )

    @staticmethod
    def _write_measures(
        con, run_id: str, seq: int, suite: str, started: dt.datetime, measures: dict[str, object]
    ) -> None:
        if measures:
            con.executemany(
                "insert into measure_values values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, suite, name, started, json.dumps(json_safe(value), allow_nan=False)]
                    for name, value in measures.items()
                ],
            )

    @staticmethod
    def _write_metrics(con, run_id: str, seq: int, document: ResultDocument, started: dt.datetime) -> None:
        """Each rule's metrics, and each anomaly check's finding, for later runs' history functions."""
        suite, metrics = document.name, document.metrics
        if metrics:
            con.executemany(
                "insert into metric_values values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, suite, rule, started, json.dumps(json_safe(value), allow_nan=False)]
                    for rule, value in metrics.items()
                ],
            )
        findings = [(c.name, c.anomaly) for c in document.checks if c.anomaly is not None]
        findings += [
            (segment_check(c.name, segment_key(s.value)), s.anomaly)
            for c in document.checks
            for s in c.segments
            if s.anomaly is not None
        ]
        if findings:
            con.executemany(
                "insert into check_anomalies values (?, ?, ?, ?)",
                [[run_id, suite, name, anomaly] for name, anomaly in findings],
            )

    @staticmethod
    def _write_segments(
        con, run_id: str, seq: int, document: ResultDocument, started: dt.datetime, measures: dict[str, object]
    ) -> None:
        """Each segment's metrics of a rule `by COLUMN`, and each segment's value of a measure in the
        shape its value over all rows is stored in, for per-segment anomaly checks."""
        rows: list[tuple[str, str, object, object]] = [
            ("metric", name, segment.value, dict(segment.metrics))
            for name, part in document.segments.items()
            for segment in part.values
        ]
        rows += [
            ("measure", name, segment.value, measure_shaped(measures.get(name), segment.metrics))
            for name, part in document.measure_segments.items()
            for segment in part.values
        ]
        if rows:
            con.executemany(
                "insert into segment_values values (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, document.name, source, name, segment_key(value), started, _json(metrics)]
                    for source, name, value, metrics in rows
                ],
            )

    @staticmethod
    def _write_schemas(con, run_id: str, seq: int, document: ResultDocument, started: dt.datetime) -> None:
        if document.schemas:
            con.executemany(
                "insert into source_schemas values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, document.name, source, started, json.dumps(columns, ensure_ascii=False)]
                    for source, columns in document.schemas.items()
                ],
            )

    @staticmethod
    def _write_data_time(con, run_id: str, suite: str, data_time: dt.datetime) -> None:
        con.execute(
            "update data_times set superseded_by = ? where suite = ? and data_time = ? and superseded_by is null",
            [run_id, suite, data_time],
        )
        con.execute("insert into data_times values (?, ?, ?, null)", [run_id, suite, data_time])


def _json(value: object) -> str:
    return json.dumps(json_safe(value), allow_nan=False)
