"""Quarantine outputs against the same suite's metrics-only run and a hand-written split, on
DuckDB or Spark, over the benchmark data (``benchmarks/generate.py``), each timed in the same process.

    python -m benchmarks.quarantine --rows 1000000 [--memory-limit 2GB] [--repeat 3] [--engine duckdb --engine spark]
        [--spark-memory 6g] [--spark-logs DIR]

The hand-written split is the floor: the four rules' predicates written once as SQL, the rows
flagged in one ``CREATE TEMP TABLE ... AS`` (Spark: the same SELECT over the two files, cached)
and written by two ``COPY ... WHERE`` (Spark: a ``filter`` pair, each written by the cluster); it
checks that gryph's folders hold the same number of rows. The run with outputs is also put
against the metrics-only run and the floor together: what a user runs for the same metrics and
tables without it. Spark runs on a local server (``--remote local``) unless ``--remote`` names
one. Each time is the wall clock and, on DuckDB, the process's CPU time (on a shared machine the
wall clock waits for other work); the results go to ``benchmarks/results/quarantine-ENGINE-ROWS.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from .common import HERE, paths
from .generate import generate

SUITE = """suite quarantine_bench
source events = parquet("{events}")
source events_copy = parquet("{copy}")
completeness contact on events: email, country
validity amounts on events: amount >= 0 as non_negative
uniqueness id_unique on events: id
accuracy copy_email on events, events_copy: events.id = events_copy.id and events.email = events_copy.email
"""

# the same four rules by hand: Griffin's accuracy (coalesce to '', an all-NULL row is no miss)
HAND_FLAGGED = """
CREATE TEMP TABLE flagged AS
WITH misses AS (
  SELECT DISTINCT e.id, e.email FROM read_parquet({events}) e
  WHERE NOT (e.id IS NULL AND e.email IS NULL) AND NOT EXISTS (
    SELECT 1 FROM read_parquet({copy}) c
    WHERE coalesce(CAST(e.id AS VARCHAR), '') = coalesce(CAST(c.id AS VARCHAR), '')
      AND coalesce(e.email, '') = coalesce(c.email, ''))
), counts AS (SELECT id, count(*) AS n FROM read_parquet({events}) GROUP BY id)
SELECT e.*, (e.email IS NULL OR e.country IS NULL) OR NOT coalesce(e.amount >= 0, false)
  OR coalesce(counts.n > 1, false) OR m.id IS NOT NULL OR m.email IS NOT NULL AS __bad
FROM read_parquet({events}) e
LEFT JOIN counts ON e.id IS NOT DISTINCT FROM counts.id
LEFT JOIN misses m ON e.id IS NOT DISTINCT FROM m.id AND e.email IS NOT DISTINCT FROM m.email
"""


def _gryph(suite_text: str, engine, quarantine_to: str | None) -> dict:
    from gryph.client.run.runner import load_suite, run

    return run(load_suite(suite_text), engine, record_sample=0, quarantine_to=quarantine_to).outputs


def _duckdb_gryph(suite_text: str, memory_limit: str | None, quarantine_to: str | None) -> dict:
    from gryph.client.run.engines import open_engine

    engine = open_engine("duckdb", memory_limit=memory_limit)
    try:
        return _gryph(suite_text, engine, quarantine_to)
    finally:
        engine.close()


def _spark_hand(spark, files: dict[str, str], out: Path) -> tuple[int, int]:
    """The hand-written split on Spark: the flagged rows cached once, a filter pair written by the cluster."""
    for name in ("events", "events_copy"):
        spark.read.parquet(files[name]).createOrReplaceTempView(name)
    sql = HAND_FLAGGED.split("AS", 1)[1]  # the same SELECT, over the registered files
    for name in ("events_copy", "events"):  # copy first: 'events' is a prefix of it
        sql = sql.replace("read_parquet({" + name.replace("events_copy", "copy") + "})", name)
    # joins shuffled as gryph's are (Join.shuffled): a broadcast of 1M keys fails a 2 GB local server
    threshold = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        flagged = spark.sql(sql.replace("IS NOT DISTINCT FROM", "<=>").replace("AS VARCHAR", "AS STRING")).cache()
        for name, where in (("bad", "__bad"), ("good", "NOT __bad")):
            flagged.filter(where).drop("__bad").write.mode("overwrite").parquet(str(out / f"spark-{name}"))
        counts = flagged.selectExpr("count_if(__bad)", "count_if(NOT __bad)").collect()[0]
        flagged.unpersist()
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", threshold)
    return int(counts[0]), int(counts[1])


def _hand(files: dict[str, str], out: Path, memory_limit: str | None) -> tuple[int, int]:
    con = duckdb.connect()
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    quoted = {k: "'" + v.replace("'", "''") + "'" for k, v in files.items()}
    con.execute(HAND_FLAGGED.format(events=quoted["events"], copy=quoted["events_copy"]))
    for name, where in (("bad", "__bad"), ("good", "NOT __bad")):
        con.execute(f"COPY (SELECT * EXCLUDE (__bad) FROM flagged WHERE {where}) TO '{out / name}.parquet'")
    counts = con.execute("SELECT count(*) FILTER (__bad), count(*) FILTER (NOT __bad) FROM flagged").fetchone()
    con.close()
    assert counts is not None
    return int(counts[0]), int(counts[1])


def _timed(work, repeat: int) -> tuple[float, float, object]:
    """The median wall clock and CPU time of ``repeat`` runs of ``work``, and its last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        clock, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - clock)
        cpus.append(time.process_time() - cpu)
        print(f"  one run: {walls[-1]:.2f} s (cpu {cpus[-1]:.2f})", file=sys.stderr)  # kept if a later run fails
    return statistics.median(walls), statistics.median(cpus), result


def _measure(engine: str, args: argparse.Namespace, suite_text: str, files: dict[str, str], work: Path) -> dict:
    """The three runs on one engine, timed in this process."""
    spark = server = None
    try:
        if engine == "spark":
            from gryph.client.run.engines import open_engine

            remote = args.remote
            if remote == "local" and args.spark_memory:  # a private server with that heap
                from gryph.client.spark.session.local_server import start_local_server

                server = start_local_server(confs={"spark.driver.memory": args.spark_memory}, connectors=False)
                remote = server.url
            spark = open_engine("spark", remote=remote)
            metrics = _timed(lambda: _gryph(suite_text, spark, None), args.repeat)
            split = _timed(lambda: _gryph(suite_text, spark, str(work / "q")), args.repeat)
            hand = _timed(lambda: _spark_hand(spark.spark, files, work), args.repeat)
        else:
            metrics = _timed(lambda: _duckdb_gryph(suite_text, args.memory_limit, None), args.repeat)
            split = _timed(lambda: _duckdb_gryph(suite_text, args.memory_limit, str(work / "q")), args.repeat)
            hand = _timed(lambda: _hand(files, work, args.memory_limit), args.repeat)
    finally:
        if spark is not None:
            spark.close()
        if server is not None:
            if args.spark_logs:  # the server's folder goes with it: its logs say why a server died
                shutil.copytree(server.workdir, args.spark_logs, dirs_exist_ok=True)
            server.stop()
    written = split[2]["events"]  # type: ignore[index]
    return {
        "engine": engine,
        "rows": args.rows,
        "memory_limit": args.memory_limit if engine == "duckdb" else None,
        "repeat": args.repeat,
        "seconds": {"metrics_only": metrics[0], "quarantine_and_valid": split[0], "hand_split": hand[0]},
        # a Spark run's work is on the server: the client's CPU time says nothing of it
        "cpu_seconds": None
        if engine == "spark"
        else {"metrics_only": metrics[1], "quarantine_and_valid": split[1], "hand_split": hand[1]},
        "rows_written": {
            "gryph": [written["quarantine"]["rows"], written["valid"]["rows"]],
            "by_hand": list(hand[2]),  # type: ignore[arg-type]
        },
    }


def _report(found: dict) -> None:
    seconds, cpu = found["seconds"], found["cpu_seconds"] or {}
    metrics, split, hand = seconds["metrics_only"], seconds["quarantine_and_valid"], seconds["hand_split"]
    rows = found["rows_written"]
    print(
        f"{found['engine']}: rows {found['rows']:,}  memory limit {found['memory_limit'] or 'none'}  median of {found['repeat']}"
    )
    for label, key, value in (
        ("gryph metrics only", "metrics_only", ""),
        (
            "gryph with quarantine",
            "quarantine_and_valid",
            f"{split / metrics:5.2f}x metrics only, {split / hand:5.2f}x floor",
        ),
        ("hand-written split (floor)", "hand_split", f"{hand / metrics:5.2f}x metrics only"),
    ):
        used = f"  cpu {cpu[key]:7.2f} s" if cpu else ""
        print(f"  {label:28s} {seconds[key]:8.2f} s{used}   {value}")
    # what a user without quarantine outputs runs for the same result: the metrics, then a split by hand
    both = metrics + hand
    used = f" (cpu {cpu['quarantine_and_valid'] / (cpu['metrics_only'] + cpu['hand_split']):4.2f}x)" if cpu else ""
    print(f"  gryph with quarantine / (metrics only + floor): {split / both:4.2f}x{used}")
    same = "same" if rows["gryph"] == rows["by_hand"] else "DIFFERENT"
    print(f"  quarantined / valid: gryph {rows['gryph']}, by hand {rows['by_hand']}: {same}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-limit", default=None)
    parser.add_argument("--engine", choices=("duckdb", "spark"), action="append", help="one or both (default: duckdb)")
    parser.add_argument("--remote", default="local", help="Spark: the sc:// server (default: a local one)")
    parser.add_argument("--spark-memory", default=None, help="Spark: the local server's heap (default: its own, 2g)")
    parser.add_argument("--spark-logs", default=None, help="Spark: a folder for the private server's logs, kept")
    args = parser.parse_args(argv)
    generate(args.rows, quiet=True)
    files = paths(args.rows)
    suite_text = SUITE.format(events=files["events"], copy=files["events_copy"])
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    for engine in args.engine or ["duckdb"]:
        work = Path(tempfile.mkdtemp(prefix="gryph-quarantine-bench-"))
        try:
            found = _measure(engine, args, suite_text, files, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        _report(found)
        (results / f"quarantine-{engine}-{args.rows}.json").write_text(json.dumps(found, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
