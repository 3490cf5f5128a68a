"""Times one system in a process of its own, so its peak memory is its own.

    python -m benchmarks.worker SYSTEM --rows N --repeats R [--remote sc://... --ui-port P]

Prints one JSON document: times of each repeat, the client's memory, the metrics of the last
run and, on Spark, the jobs and file scans of each repeat. Memory is the process's resident
set: ``baseline`` after imports and connecting, ``peak`` from ``getrusage(RUSAGE_SELF).ru_maxrss``
(the high-water mark). On DuckDB the engine runs inside the process, so this is engine memory
too; on Spark Connect it is the client alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _duckdb(memory_limit: str | None):
    """One connection for every DuckDB system, under the same memory cap (spilling beyond it)."""
    import duckdb

    from gryph.local_backend.sql.quoting import string

    from .generate import DATA

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")
    if memory_limit:
        con.execute(f"SET memory_limit = {string(memory_limit)}")
        con.execute(f"SET temp_directory = {string(str(DATA / 'spill'))}")
    return con


def _gryph_duckdb(memory_limit: str | None):
    """gryph's DuckDB engine under the cap as a user sets it (``gryph run --memory-limit``): gryph
    then keeps its own perfect hash tables, which DuckDB does not count, within the cap too."""
    from gryph.local_backend.engine import DuckDBEngine

    from .generate import DATA

    if not memory_limit:
        return DuckDBEngine()
    return DuckDBEngine(memory_limit=memory_limit, temp_directory=str(DATA / "spill"))


def _spark(remote: str):
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(remote).getOrCreate()


def _gryph_metrics(result) -> dict:
    """Rule metrics, plus measures, checks and the verdict when the suite has them."""
    document = result.to_dict()
    metrics = dict(document["metrics"])
    for key in ("measure", "check", "pass"):
        if document.get(key):
            metrics[f"__{key}"] = document[key]
    return metrics


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("system")
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--remote")
    parser.add_argument("--ui-port", type=int)
    parser.add_argument("--with-checks", action="store_true")
    parser.add_argument("--duckdb-memory", help="DuckDB's memory_limit, e.g. 8GB")
    args = parser.parse_args(argv)

    from . import floor, griffin_steps, peers
    from .common import load_bench_suite, paths

    files = paths(args.rows)
    spark = _spark(args.remote) if args.system.startswith("spark-") else None
    gryph_on_duckdb = args.system.startswith("duckdb-gryph")
    con = None if spark is not None or gryph_on_duckdb else _duckdb(args.duckdb_memory)

    if args.system in ("duckdb-gryph", "duckdb-gryph-samples"):
        from gryph.client import run

        suite = load_bench_suite(args.rows, args.with_checks)
        engine = _gryph_duckdb(args.duckdb_memory)
        # the floor computes metrics only: so does "duckdb-gryph"; "-samples" adds the record
        # samples a default run fetches (20 rows per record output that has rows)
        sample = 20 if args.system.endswith("-samples") else 0
        once = lambda: _gryph_metrics(run(suite, engine, record_sample=sample))  # noqa: E731
    elif args.system == "duckdb-gryph-peer-checks":
        from gryph.client import run

        from .common import load_peer_suite

        suite = load_peer_suite(args.rows)
        engine = _gryph_duckdb(args.duckdb_memory)
        # cuallee reports violation counts, no rows: compare with gryph's metrics only
        once = lambda: run(suite, engine, record_sample=0).metrics  # noqa: E731
    elif args.system == "duckdb-griffin":
        once = lambda: griffin_steps.run_duckdb(con, files)  # noqa: E731
    elif args.system == "duckdb-floor":
        once = lambda: floor.run_duckdb(con, files)  # noqa: E731
    elif args.system == "duckdb-floor-peer-checks":
        once = lambda: floor.run_duckdb(con, files, peer=True)  # noqa: E731
    elif args.system == "duckdb-cuallee":
        once = lambda: peers.run_cuallee(con, files)  # noqa: E731
    elif args.system in ("spark-gryph", "spark-gryph-samples"):
        from gryph.client import run
        from gryph.client.spark.engine import SparkEngine
        from gryph.client.spark.session.connect import Connection

        suite = load_bench_suite(args.rows, args.with_checks)
        engine = SparkEngine(connection=Connection(spark, args.remote, spark.version))
        sample = 20 if args.system.endswith("-samples") else 0  # as on DuckDB
        once = lambda: _gryph_metrics(run(suite, engine, record_sample=sample))  # noqa: E731
    elif args.system == "spark-griffin":
        once = lambda: griffin_steps.run_spark(spark, files)  # noqa: E731
    elif args.system == "spark-floor":
        once = lambda: floor.run_spark(spark, files)  # noqa: E731
    else:
        raise SystemExit(f"unknown system {args.system!r}")

    ui = None
    if spark is not None and args.ui_port:
        from .spark_ui import SparkUI

        ui = SparkUI(args.ui_port)
    baseline = _rss_mib()
    times, work, metrics = [], [], None
    for _ in range(args.repeats):
        before = ui.snapshot() if ui else None
        clock = time.perf_counter()
        metrics = once()
        times.append(time.perf_counter() - clock)
        if ui:
            work.append(ui.since(before))
    out = {
        "system": args.system,
        "rows": args.rows,
        "times": times,
        "baseline_mib": baseline,
        "peak_mib": _peak_mib(),
        "spark": work,
        "metrics": metrics,
    }
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
