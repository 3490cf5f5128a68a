"""Run history in an embedded DuckDB file: every run's result document, measure values, rule
metrics, and which anomaly checks found an anomaly (left out of later baselines). The file and its
lock: history_file.py; writes: history_writes.py; reads: history_reads.py."""

from __future__ import annotations

import datetime as dt

from .history_reads import HistoryReads
from .history_writes import HistoryWrites


class HistoryStore(HistoryReads, HistoryWrites):
    """The history file at ``path`` (created on the first write)."""

    def before(self, moment: dt.datetime) -> HistoryStore:
        """This history as a run at ``moment`` (its data time, else its start) reads it: the current
        runs whose time (data time, else start) is earlier, so a backfilled day reads the days
        before it and a rerun does not read the run it replaces."""
        return HistoryStore(self.path, before=moment)
