"""Spark Connect engine (needs the optional extra: pip install "gryph[spark]").

Importing this package does not import pyspark; ``SparkEngine`` loads it on first use.
"""

from __future__ import annotations

from .session.connect import Connection, connect
from .session.local_server import LocalSpark, start_local_cluster, start_local_server

__all__ = ["Connection", "LocalSpark", "SparkEngine", "connect", "start_local_cluster", "start_local_server"]


def __getattr__(name: str):
    if name == "SparkEngine":
        try:
            from .engine import SparkEngine
        except ImportError as exc:
            from gryph.compiler.errors import EngineError

            raise EngineError(
                "SPARK_MISSING", f"the Spark engine needs pyspark ({exc})", hint='pip install "gryph[spark]"'
            ) from exc
        return SparkEngine
    raise AttributeError(name)
