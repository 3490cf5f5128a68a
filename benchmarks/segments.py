"""Cost of segments (issue 44 item 8): the same suite with and without `by segment`, on DuckDB and
a local Spark Connect server, on generated parquet with 100 segments (98 values, NULL and '').

    python -m benchmarks.segments --rows 10000000 --repeats 3 [--no-spark]

Prints each engine's median seconds unsegmented and segmented and their ratio (the target: at
most 1.3), beside the floor: the same aggregates written by hand as one query, plain and with
``GROUP BY GROUPING SETS ((), (segment))``; checks that both engines give identical metrics, per
segment included; writes the numbers to ``results/segments_ROWS.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import duckdb

from gryph.client import load_suite, run
from gryph.client.run.engines import open_engine

DATA = Path(__file__).resolve().parent / "data"
RESULTS = Path(__file__).resolve().parent / "results"
RULES = """suite segments_bench
source events = parquet("{path}")
completeness email_present on events{by}: email
completeness contact on events{by}: email, name
completeness account on events{by}: account_id
measure "rows"{by}: select count(*) as n, sum(amount) as amount, count(distinct user_id) as users from events
"""


def generate(rows: int) -> Path:
    """``rows`` events, their segment one of 98 values, NULL (1%) or '' (1%)."""
    path = DATA / f"segments_{rows}.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    duckdb.connect().execute(
        f"""COPY (SELECT i AS id, hash(i, 1) % {max(rows // 10, 1)} AS user_id,
          CASE WHEN hash(i, 2) % 100 = 0 THEN NULL WHEN hash(i, 2) % 100 = 1 THEN ''
               ELSE 'segment ' || (hash(i, 3) % 98) END AS segment,
          CASE WHEN hash(i, 4) % 100 < 3 THEN NULL ELSE 'user' || i || '@example.com' END AS email,
          CASE WHEN hash(i, 5) % 200 = 0 THEN NULL ELSE 'name' || (hash(i, 6) % 50) END AS name,
          CASE WHEN hash(i, 7) % 50 = 0 THEN NULL ELSE hash(i, 8) % 100000 END AS account_id,
          (hash(i, 9) % 100000) / 100.0 AS amount
        FROM range({rows}) r(i)) TO '{path}' (FORMAT parquet)"""
    )
    return path


def suite_text(path: Path, segmented: bool) -> str:
    return RULES.format(path=path, by=" by segment" if segmented else "")


def timed(engine, text: str, repeats: int) -> tuple[float, dict]:
    """The median seconds of ``repeats`` runs (after one warm-up) and the last run's document."""
    suite = load_suite(text)
    document = run(suite, engine, record_sample=0).to_dict()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        document = run(suite, engine, record_sample=0).to_dict()
        times.append(time.perf_counter() - start)
    return statistics.median(times), document


def comparable(document: dict) -> dict:
    """What both engines must agree on: metrics, measures and every segment, sums of doubles to 12
    significant digits (the engines add in different orders: at 10M rows the total of amount
    differed in the 14th digit, 4999621104.400126 against 4999621104.399937)."""

    def rounded(value):
        return float(f"{value:.12g}") if isinstance(value, float) else value

    parts = {k: document.get(k) for k in ("metrics", "measure", "segments", "measure_segments")}
    return json.loads(json.dumps(parts), parse_float=lambda text: rounded(float(text)))


# the suite's aggregates written by hand, over the whole file and per segment in the same query
AGGREGATES = (
    "count(*), count_if(email IS NULL), count_if(email IS NULL OR name IS NULL), count_if(account_id IS NULL),"
    " sum(amount), count(DISTINCT user_id)"
)
FLOOR = {
    "plain": "SELECT {aggregates} FROM {table}",
    "grouping_sets": "SELECT segment, grouping(segment), {aggregates} FROM {table} GROUP BY GROUPING SETS ((), (segment))",
}


def floor(name: str, engine, path: Path, repeats: int) -> dict[str, float]:
    """The median seconds of the hand-written queries (after one warm-up each) on ``engine``."""
    spark = name == "spark"
    table = f"parquet.`{path}`" if spark else f"read_parquet('{path}')"

    def collect(sql: str) -> list:
        return engine.spark.sql(sql).collect() if spark else engine.connection.execute(sql).fetchall()

    out = {}
    for kind, template in FLOOR.items():
        sql = template.format(aggregates=AGGREGATES, table=table)
        collect(sql)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            collect(sql)
            times.append(time.perf_counter() - start)
        out[kind] = statistics.median(times)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-spark", action="store_true")
    args = parser.parse_args(argv)
    path = generate(args.rows)
    engines = ["duckdb"] + ([] if args.no_spark else ["spark"])
    server = None
    documents = {}
    found: dict[str, dict] = {}
    for name in engines:
        if name == "spark":
            from gryph.client.spark.session.local_server import start_local_server

            server = start_local_server(confs={"spark.driver.memory": "4g"}, connectors=False)
            engine = open_engine("spark", remote=server.url)
        else:
            engine = open_engine("duckdb")
        try:
            plain, _ = timed(engine, suite_text(path, False), args.repeats)
            segmented, documents[name] = timed(engine, suite_text(path, True), args.repeats)
            by_hand = floor(name, engine, path, args.repeats)
        finally:
            engine.close()
            if server is not None:
                server.stop()
        segments = len(documents[name]["segments"]["contact"]["values"])
        found[name] = {
            "segments": segments,
            "unsegmented": plain,
            "segmented": segmented,
            "ratio": segmented / plain,
            "floor_plain": by_hand["plain"],
            "floor_grouping_sets": by_hand["grouping_sets"],
            "floor_ratio": by_hand["grouping_sets"] / by_hand["plain"],
        }
        print(
            f"{name:7} rows {args.rows:>11,}  segments {segments}  unsegmented {plain:7.2f}s  "
            f"segmented {segmented:7.2f}s  ratio {segmented / plain:5.2f}  by hand: plain "
            f"{by_hand['plain']:7.2f}s  grouping sets {by_hand['grouping_sets']:7.2f}s  "
            f"ratio {found[name]['floor_ratio']:5.2f}"
        )
    same = None
    if len(documents) == 2:
        same = comparable(documents["duckdb"]) == comparable(documents["spark"])
        print(f"identical metrics on both engines (per segment included): {same}")
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"segments_{args.rows}.json"
    record = {"rows": args.rows, "repeats": args.repeats, "engines": found, "identical_metrics": same}
    target.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 1 if same is False else 0


if __name__ == "__main__":
    raise SystemExit(main())
