"""One retry budget for a whole run: how long requests wait for a Spark Connect server that stopped answering."""

from __future__ import annotations

import threading
import time

from pyspark.sql.connect.client.retries import DefaultPolicy


class OutageBudget(DefaultPolicy):
    """Spark's default retry policy, bounded by one outage budget that every request shares.

    PySpark gives each request its own ten minutes, and a failing run makes several requests one
    after another (reading, querying, cleaning up), so a server that is gone would be waited for
    once per request. Here the failures of all requests form one outage: it starts with the
    first failure and lasts while failures keep coming no further apart than the longest
    backoff; once it is ``seconds`` old, no request retries any more. A later outage, after
    requests succeeded again, gets the whole budget anew.
    """

    MAX_BACKOFF_MS = 5000

    def __init__(self, seconds: float) -> None:
        super().__init__(max_retries=None, max_backoff=self.MAX_BACKOFF_MS)
        self.seconds = seconds
        self._lock = threading.Lock()  # requests fail in several threads at once
        self._outage_start = 0.0
        self._last_failure: float | None = None

    def can_retry(self, e: BaseException) -> bool:
        if not super().can_retry(e):
            return False
        now = time.monotonic()
        longest_gap = (self.MAX_BACKOFF_MS + self.jitter) / 1000 + 1.0
        with self._lock:
            if self._last_failure is None or now - self._last_failure > longest_gap:
                self._outage_start = now
            self._last_failure = now
            return now - self._outage_start < self.seconds
