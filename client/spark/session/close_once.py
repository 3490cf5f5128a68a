"""Closing a Spark Connect client that is closed already does nothing (applied when gryph loads PySpark).

PySpark 4.1 closes a session's client again when the session object is finalized, even after
``stop()`` closed it, and each close shuts down the release thread pool that every session of
the process shares. When the garbage collector finalizes such a session while another session
hands that pool a release request (inside the pool's ``submit``, which holds the pool's lock),
the shutdown waits for that lock for good and the process hangs; gryph's tests, which open many
sessions in one process, hung so. gryph stops every session it opens, so with this a finalized
session finds its client closed and leaves the shared pool alone.
"""

from __future__ import annotations

from typing import Any


def close_clients_once() -> None:
    """Make ``SparkConnectClient.close`` return at once for a closed client (idempotent)."""
    from pyspark.sql.connect.client.core import SparkConnectClient

    close: Any = SparkConnectClient.close
    if getattr(close, "closes_once", False):
        return

    def close_once(self: SparkConnectClient) -> None:
        if not self.is_closed:
            close(self)

    close_once.closes_once = True  # type: ignore[attr-defined]
    SparkConnectClient.close = close_once  # type: ignore[method-assign]
