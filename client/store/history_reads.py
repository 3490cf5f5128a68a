"""The history read back: measure values, rule metrics, anomaly baselines, stored schemas, runs
and their documents, each row checked (history_rows.py)."""

from __future__ import annotations

import datetime as dt

from gryph.compiler.checks.check_functions import BaselineQuery, Point
from gryph.compiler.errors import EngineError

from ..results.checked_values import text
from ..results.document import ResultDocument
from .history_file import HistoryFile, _utc
from .history_rows import columns_row, document_row, metric_row, point_row, run_row, stored_value


class HistoryReads(HistoryFile):
    """Reading runs from the history file."""

    def measure_values(
        self,
        suite: str,
        measure: str,
        limit: int,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
    ) -> list[object]:
        """A measure's values in the runs of ``suite`` (started at or after ``since``, at or before
        ``until``), newest first."""
        window = "".join(f"and run_time {op} ? " for op, moment in ((">=", since), ("<=", until)) if moment is not None)

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "measure_values" not in tables:
                return None
            params: list[object] = []
            rows = self._current("measure_values", tables, params)
            params += [suite, measure] + [_utc(m) for m in (since, until) if m is not None] + [limit]
            sql = f"select value from {rows} where suite = ? and measure = ? {window}order by run_time desc, seq desc limit ?"
            return sql, params

        return self._query_with(build, lambda row: stored_value(row[0]))

    def run_metrics(self, run_ids: list[str]) -> dict[str, dict[str, object]]:
        """Each of these runs' rule metrics (rule -> its map, or its rows), in the order the run
        wrote them; a run stored before the history kept rule metrics has none."""
        if not run_ids:
            return {}
        sql = f"select run_id, rule, value from metric_values where run_id in ({', '.join('?' * len(run_ids))}) "
        sql += "order by rowid"
        metrics: dict[str, dict[str, object]] = {}
        for run_id, rule, value in self._query_with(
            lambda tables: (sql, list(run_ids)) if "metric_values" in tables else None, metric_row
        ):
            metrics.setdefault(run_id, {})[rule] = value
        return metrics

    def metric_values(self, suite: str, rule: str, limit: int) -> list[object]:
        """A rule's metrics (its map, or its rows) in the runs of ``suite``, newest first."""

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "metric_values" not in tables:
                return None
            params: list[object] = []
            rows = self._current("metric_values", tables, params)
            sql = f"select value from {rows} where suite = ? and rule = ? order by run_time desc, seq desc limit ?"
            return sql, [*params, suite, rule, limit]

        return self._query_with(build, lambda row: stored_value(row[0]))

    def baseline(self, suite: str, query: BaselineQuery, limit: int) -> list[Point]:
        """The values an anomaly check learns from (a measure's, or a rule's metrics), newest first:
        runs that passed, and where the check found no anomaly, unless the query includes them; runs
        accepted by hand, and those of a streak of ``relearn_after`` anomalies, whatever their verdict."""
        table, column = ("measure_values", "measure") if query.source == "measure" else ("metric_values", "rule")
        if query.segment is not None:
            table, column = "segment_values", "name"

        def build(tables: set[str]) -> tuple[str, list] | None:
            if table not in tables:
                return None
            # table and column are one of the pairs above, never the user's text
            params: list[object] = []
            sql = f"select v.value, v.run_time from {self._current(table, tables, params)} v join runs r on r.run_id = v.run_id "
            sql += f"where v.suite = ? and v.{column} = ? "
            params += [suite, query.name]
            if query.segment is not None:
                sql += "and v.source = ? and v.segment = ? "
                params += [query.source, query.segment]
            usual = ["r.passed"] if not query.include_failed else []
            if not query.include_anomalies and "check_anomalies" in tables:
                usual.append(
                    "not exists (select 1 from check_anomalies a "
                    "where a.run_id = v.run_id and a.check_name = ? and a.anomaly)"
                )
                params.append(query.check)
            kept = [" and ".join(usual) or "true"]
            if "accepted_runs" in tables:
                kept.append("v.run_id in (select run_id from accepted_runs)")
            if query.relearn_after and "check_anomalies" in tables:
                kept.append(f"v.run_id in ({self._relearned(tables, params, suite, query)})")
            sql += f"and ({' or '.join(kept)}) "
            for bound, op in ((query.since, ">="), (query.until, "<=")):
                if bound is not None:
                    sql += f"and v.run_time {op} ? "
                    params.append(_utc(bound))
            return sql + "order by v.run_time desc, v.seq desc limit ?", [*params, limit]

        return [
            Point(value, started.replace(tzinfo=dt.timezone.utc))
            for value, started in self._query_with(build, point_row)
        ]

    def _relearned(self, tables: set[str], params: list[object], suite: str, query: BaselineQuery) -> str:
        """A query of the runs in a streak of at least ``query.relearn_after`` consecutive anomalies
        of the check (consecutive among the current runs it judged, by run time): each run counts
        the runs without an anomaly before it, and a streak is the anomalies with the same count."""
        runs = self._current("runs", tables, params)
        params += [suite, query.check, query.relearn_after]
        return (
            "select run_id from (select run_id, anomaly, count(*) filter (where anomaly) over (partition by calm) "
            "as streak from (select a.run_id, a.anomaly, sum(case when a.anomaly then 0 else 1 end) over "
            "(order by c.run_time, c.seq rows unbounded preceding) as calm "
            f"from check_anomalies a join {runs} c on c.run_id = a.run_id "
            "where a.suite = ? and a.check_name = ?)) where anomaly and streak >= ?"
        )

    def segments(self, suite: str, source: str, name: str) -> list[str] | None:
        """The segments (their keys) of measure or rule ``name`` in the newest current run of
        ``suite`` that stored some, or None."""

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "segment_values" not in tables:
                return None
            params: list[object] = []
            rows = self._current("segment_values", tables, params)
            newest = f"select run_id from {rows} where suite = ? and source = ? and name = ? "
            newest += "order by run_time desc, seq desc limit 1"
            params += [suite, source, name]
            return (
                f"select segment from segment_values where run_id = ({newest}) and source = ? and name = ? order by rowid",
                [
                    *params,
                    source,
                    name,
                ],
            )

        found = self._query_with(build, lambda row: text(row[0], "a stored segment"))
        return found or None

    def schema(self, suite: str, source: str) -> dict[str, str] | None:
        """The columns of ``source`` stored with the newest current run of ``suite`` that read it, or None."""

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "source_schemas" not in tables:
                return None
            params: list[object] = []
            rows = self._current("source_schemas", tables, params)
            sql = f"select columns from {rows} where suite = ? and source = ? order by run_time desc, seq desc limit 1"
            return sql, [*params, suite, source]

        rows = self._query_with(build, columns_row)
        return rows[0] if rows else None

    def runs(self, suite: str, limit: int = 50, superseded: bool = False) -> list[dict]:
        """The newest current runs of ``suite`` (newest data time, else start, first): run id, start
        time, data time (None without), engine, verdict and measures; ``superseded`` adds the runs
        a rerun of their data time replaced, each with ``superseded_by``."""
        runs = self._query_with(
            lambda tables: self._runs_sql(
                "run_id, started, engine, passed, document", tables, superseded, suite, limit
            ),
            lambda row: run_row(row, superseded),
        )
        return runs if superseded else self._current_runs(suite, runs, limit)

    def _current_runs(self, suite: str, found: list, limit: int) -> list:
        """``found``, the current runs of ``suite``; none though it has runs is a damaged history
        (HISTORY_UNREADABLE): a rerun replaces only the runs before it, so in a history gryph wrote
        the newest run of each data time stays current."""
        if found or limit <= 0 or self._before is not None or suite not in self.suites():
            return found
        raise EngineError(
            "HISTORY_UNREADABLE",
            f"the history {self.path} marks every stored run of suite {suite!r} as replaced by a rerun "
            "of its data time, which gryph never writes: its data_times table was changed",
            location=self._location,
            text=suite,
            hint=f"gryph history {suite} --all --history {self.path} lists the runs and what replaced each",
        )

    def _runs_sql(
        self, columns: str, tables: set[str], superseded: bool, suite: str, limit: int
    ) -> tuple[str, list] | None:
        """A query of ``columns`` of a suite's runs and their data time and superseding run, newest
        first; without ``superseded``, the current runs only; with ``before``, those earlier than it."""
        if "runs" not in tables:
            return None
        at = "coalesce(d.data_time, r.started)" if "data_times" in tables else "r.started"
        earlier = f"and {at} < ? " if self._before is not None else ""
        params = [suite, *([_utc(self._before)] if self._before is not None else []), limit]
        if "data_times" not in tables:
            sql = f"select {columns}, null, null from runs r where suite = ? {earlier}order by started desc, seq desc limit ?"
            return sql, params
        keep = "" if superseded else "and d.superseded_by is null "
        picked = ", ".join(f"r.{column.strip()}" for column in columns.split(","))
        return (
            f"select {picked}, d.data_time, d.superseded_by from runs r left join data_times d "
            f"on d.run_id = r.run_id where r.suite = ? {keep}{earlier}"
            f"order by {at} desc, r.seq desc limit ?",
            params,
        )

    def accepted(self, suite: str) -> set[str]:
        """The run ids of ``suite`` that ``gryph history accept`` marked as normal."""
        return set(
            self._query_with(
                lambda tables: (
                    ("select run_id from accepted_runs where suite = ?", [suite]) if "accepted_runs" in tables else None
                ),
                lambda row: text(row[0], "an accepted run's id"),
            )
        )

    def suites(self) -> list[str]:
        """The names of the suites with stored runs."""
        return self._query(
            "select distinct suite from runs order by suite", [], lambda row: text(row[0], "a run's suite")
        )

    def documents(self, suite: str, limit: int) -> list[ResultDocument]:
        """The result documents of the newest ``limit`` current runs of ``suite`` (by data time, else
        start; with ``before``, earlier than it), oldest first, each with its run id and its start
        time (UTC, ISO 8601)."""
        documents = self._query_with(
            lambda tables: self._runs_sql("run_id, started, document", tables, False, suite, limit), document_row
        )
        return self._current_runs(suite, documents, limit)[::-1]
