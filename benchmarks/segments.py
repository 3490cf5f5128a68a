"""Cost of segments (issue 44 item 8): the same suite with and without `by segment`, on DuckDB and
a local Spark Connect server, on generated parquet with 100 segments (98 values, NULL and '').

    python -m benchmarks.segments --rows 10000000 --repeats 3 [--no-spark]

Two suites (``MEASURES``): the issue's own example, completeness rules and a measure of counts and
sums, and the same with a distinct count in its measure. Prints each engine's median seconds
(wall, and CPU: user + sys of this process, the client's only on Spark) of each suite unsegmented,
segmented, and (with the distinct count) with the measure unsegmented beside the segmented rules,
and their ratios (the target: at most 1.3), beside the floor: the same aggregates written by hand,
plain and in the segmented ways a user could write them (``FLOOR``); checks that both engines give
identical metrics, per segment included; writes the numbers to ``results/segments_ROWS.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
measure "rows"{by}: select {measure} from events
"""
# each suite's measure: the example (counts and sums), and the same with a distinct count
MEASURES = {
    "counts": "count(*) as n, sum(amount) as amount",
    "distinct": "count(*) as n, sum(amount) as amount, count(distinct user_id) as users",
}


def generate(rows: int) -> Path:
    """``data/segments_ROWS.parquet``, written once (``write_events``)."""
    path = DATA / f"segments_{rows}.parquet"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        write_events(path, rows)
    return path


def write_events(path: Path, rows: int) -> Path:
    """``rows`` events at ``path``, their segment one of 98 values, NULL (1%) or '' (1%)."""
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


def suite_text(path: Path, suite: str, segmented: bool) -> str:
    return RULES.format(path=path, by=" by segment" if segmented else "", measure=MEASURES[suite])


def mixed_text(path: Path, suite: str) -> str:
    """The completeness rules by segment, the measure over all rows only."""
    text = RULES.replace('measure "rows"{by}', 'measure "rows"')
    return text.format(path=path, by=" by segment", measure=MEASURES[suite])


def cpu_seconds() -> float:
    """User and system seconds of this process so far, every thread's (DuckDB's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def medians(work, repeats: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``repeats`` calls of ``work`` after one warm-up call."""
    work()
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), cpu_seconds()
        work()
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def timed(engine, text: str, repeats: int) -> tuple[tuple[float, float], dict]:
    """The median wall and CPU seconds of ``repeats`` runs (after one warm-up) and a run's document."""
    suite = load_suite(text)
    documents = []
    seconds = medians(lambda: documents.append(run(suite, engine, record_sample=0).to_dict()), repeats)
    return seconds, documents[-1]


def comparable(document: dict) -> dict:
    """What both engines must agree on: metrics, measures and every segment, sums of doubles to 12
    significant digits (the engines add in different orders: at 10M rows the total of amount
    differed in the 14th digit, 4999621104.400126 against 4999621104.399937)."""

    def rounded(value):
        return float(f"{value:.12g}") if isinstance(value, float) else value

    parts = {k: document.get(k) for k in ("metrics", "measure", "segments", "measure_segments")}
    return json.loads(json.dumps(parts), parse_float=lambda text: rounded(float(text)))


# the suite's aggregates written by hand, over the whole file and per segment
AGGREGATES = (
    "count(*), count_if(email IS NULL), count_if(email IS NULL OR name IS NULL), count_if(account_id IS NULL),"
    " sum(amount)"
)
DISTINCT = {"counts": "", "distinct": ", count(DISTINCT user_id)"}
# each way of writing them, as the statements it runs; "plain" is unsegmented, the others give the
# same metrics over the whole file and per segment; "pairs" only for the distinct count
FLOOR = {
    "plain": ["SELECT {aggregates}{distinct} FROM {table}"],
    # one statement, one read
    "grouping_sets": [
        "SELECT segment, grouping(segment), {aggregates}{distinct} FROM {table} GROUP BY GROUPING SETS ((), (segment))"
    ],
    # two reads: the plain query, and the segments' in a GROUP BY of their own
    "plain_and_group_by": [
        "SELECT {aggregates}{distinct} FROM {table}",
        "SELECT segment, {aggregates}{distinct} FROM {table} GROUP BY segment",
    ],
    # two reads: the plain query, then the distinct count per segment as a GROUP BY of (segment,
    # value) pairs counted per segment beside the other aggregates per segment
    "plain_and_pairs": [
        "SELECT {aggregates}{distinct} FROM {table}",
        "SELECT segment, sum(n), sum(e), sum(c), sum(a), sum(s), count(user_id) FROM (SELECT segment, user_id,"
        " count(*) AS n, count_if(email IS NULL) AS e, count_if(email IS NULL OR name IS NULL) AS c,"
        " count_if(account_id IS NULL) AS a, sum(amount) AS s FROM {table} GROUP BY segment, user_id)"
        " GROUP BY segment",
    ],
}


def floor(name: str, engine, path: Path, suite: str, repeats: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU seconds of each hand-written way of ``suite``'s aggregates (after one
    warm-up) on ``engine``."""
    spark = name == "spark"
    table = f"parquet.`{path}`" if spark else f"read_parquet('{path}')"

    def collect(sql: str) -> list:
        return engine.spark.sql(sql).collect() if spark else engine.connection.execute(sql).fetchall()

    out = {}
    for kind, templates in FLOOR.items():
        if kind == "plain_and_pairs" and suite != "distinct":
            continue
        statements = [t.format(aggregates=AGGREGATES, distinct=DISTINCT[suite], table=table) for t in templates]
        out[kind] = medians(lambda statements=statements: [collect(sql) for sql in statements], repeats)
    return out


def measured(engine, name: str, path: Path, suite: str, repeats: int) -> tuple[dict, dict]:
    """``suite``'s seconds on ``engine`` unsegmented, by segment and (with its distinct count) with
    the measure unsegmented, beside the hand-written floors; and its document by segment."""
    plain, _ = timed(engine, suite_text(path, suite, False), repeats)
    segmented, document = timed(engine, suite_text(path, suite, True), repeats)
    mixed = timed(engine, mixed_text(path, suite), repeats)[0] if suite == "distinct" else None
    by_hand = floor(name, engine, path, suite, repeats)
    best = min((kind for kind in by_hand if kind != "plain"), key=lambda kind: by_hand[kind][0])
    numbers = {
        "segments": len(document["segments"]["contact"]["values"]),
        "unsegmented": plain[0],
        "segmented": segmented[0],
        "ratio": segmented[0] / plain[0],
        "cpu_unsegmented": plain[1],
        "cpu_segmented": segmented[1],
        "cpu_ratio": segmented[1] / plain[1],
        "floor": {kind: {"wall": wall, "cpu": cpu} for kind, (wall, cpu) in by_hand.items()},
        "floor_best": best,
        "floor_ratio": by_hand[best][0] / by_hand["plain"][0],
        "segmented_to_floor": segmented[0] / by_hand[best][0],
    }
    if mixed is not None:
        numbers.update(mixed=mixed[0], cpu_mixed=mixed[1], mixed_ratio=mixed[0] / plain[0])
    return numbers, document


def report(key: str, rows: int, numbers: dict) -> None:
    """One suite's numbers on one engine, as the table in README.md gives them."""
    print(
        f"{key:16} rows {rows:>11,}  segments {numbers['segments']}  unsegmented {numbers['unsegmented']:7.2f}s"
        f" (CPU {numbers['cpu_unsegmented']:.2f})  segmented {numbers['segmented']:7.2f}s"
        f" (CPU {numbers['cpu_segmented']:.2f})  ratio {numbers['ratio']:5.2f} (CPU {numbers['cpu_ratio']:.2f})"
    )
    if "mixed" in numbers:
        print(
            f"                 measure unsegmented   {numbers['mixed']:7.2f}s (CPU {numbers['cpu_mixed']:.2f})"
            f"  ratio {numbers['mixed_ratio']:5.2f}"
        )
    for kind, seconds in numbers["floor"].items():
        print(f"                 by hand {kind:20} {seconds['wall']:7.2f}s (CPU {seconds['cpu']:.2f})")
    print(
        f"                 floor ({numbers['floor_best']}) / by hand plain {numbers['floor_ratio']:5.2f}"
        f"  segmented / floor {numbers['segmented_to_floor']:5.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-spark", action="store_true")
    args = parser.parse_args(argv)
    path = generate(args.rows)
    load_before = os.getloadavg()[0]
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
            for suite in MEASURES:
                key = f"{name} {suite}"
                found[key], documents[key] = measured(engine, name, path, suite, args.repeats)
                report(key, args.rows, found[key])
        finally:
            engine.close()
            if server is not None:
                server.stop()
    same = None
    if "spark" in engines:
        same = all(
            comparable(documents[f"duckdb {suite}"]) == comparable(documents[f"spark {suite}"]) for suite in MEASURES
        )
        print(f"identical metrics on both engines (per segment included): {same}")
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"segments_{args.rows}.json"
    load = os.getloadavg()[0]
    print(f"load average (1 min) before {load_before:.2f}, after {load:.2f}")
    record = {"rows": args.rows, "repeats": args.repeats, "load_average": [load_before, load], "engines": found}
    record["identical_metrics"] = same
    target.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 1 if same is False else 0


if __name__ == "__main__":
    raise SystemExit(main())
