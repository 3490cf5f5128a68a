"""Streaming (issue 31, item 9): ``gryph stream`` against hand-written consumers, side by side.

    python -m benchmarks.streaming --repeats 5                                  # or: make bench-stream
    python -m benchmarks.streaming --messages 20000 --repeats 1 --no-spark     # a quick look

The run starts a Kafka broker of its own (tests/kafka_server.py) and, for Spark, a local Spark
Connect server with the Kafka connector. Every round runs each system once, the order turning
from round to round; one untimed round first. Medians are reported.

- **A batch on DuckDB** (``--messages``, 100,000 by default; stream_data.py): ``duckdb-floor``
  (stream_floor.run_duckdb: confluent-kafka into Arrow, DuckDB's ``json_transform``, one
  statement), ``duckdb-gryph`` (``gryph.client.stream(suite, once=True)`` on a new state, the
  metrics alone as the floor computes them: ``record_sample=0``) and ``duckdb-gryph-samples``
  (the same with the default 20-row record samples, as ``gryph stream`` runs). Each system
  reads a topic of its own in each round: a topic read before in this process could be served
  from memory.
- **Overhead on DuckDB**: on a topic whose messages the stream has all read, ``empty-floor``
  (a hand-written check for news: the partition's high watermark against the position),
  ``empty-api`` (``stream(suite, once=True)``, which finds nothing new) and ``empty-cli``
  (``gryph stream SUITE --once`` as a fresh process: the library call plus starting Python and
  importing gryph). Then one message is produced before each of ``one-floor`` (the floor over
  that message), ``one-api`` (``stream(suite, once=True)``: one batch of one message) and
  ``one-running`` (the next batch of a stream that keeps running in this process, triggered
  every 10 ms: the cost of a batch without the call's start).
- **A batch on Spark** (``--spark-messages``, 1,000,000 by default, two partitions):
  ``spark-floor`` (stream_floor.run_spark: a Kafka batch read of the same offsets, ``from_json``,
  kept once, the same metrics), ``spark-gryph`` (``stream(suite, "spark", remote=...)``, metrics
  alone) and ``spark-gryph-samples``; one topic for every round (the cluster reads it).

Every gryph batch's metrics must equal its floor's. Targets: an empty batch's library call under
0.2 s, and a batch of one message too; DuckDB within 1.5x of its floor; Spark within 1.25x.
Results: ``benchmarks/results/stream-<time>.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from . import stream_data, stream_floor
from .common import differences

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
GRYPH = str(Path(sys.executable).with_name("gryph"))
EMPTY_TARGET_S = 0.2
DUCKDB_TARGET = 1.5
SPARK_TARGET = 1.25

System = Callable[[], dict | None]  # a system's run: its metrics (None: it computes none)


def _gryph_batch(suite: Path, work: Path, record_sample: int, engine: str = "duckdb", remote: str | None = None):
    """One batch of ``suite`` on a new state: its metrics."""
    from gryph.client import stream

    state = work / f"state-{uuid.uuid4().hex[:8]}.duckdb"
    (result,) = stream(suite, engine, remote=remote, once=True, state=state, record_sample=record_sample)
    return json.loads(json.dumps(result.metrics, default=str))


def _cpu() -> float:
    """CPU seconds of this process (all its threads: DuckDB's, librdkafka's) and its children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _rounds(systems: dict[str, Callable[[int], System]], repeats: int) -> tuple[dict[str, dict[str, list]], dict]:
    """Wall and CPU seconds of each system per round (round 0 untimed), the order turning each
    round, and the metrics of each system's last run. ``systems[name](round)`` prepares a run of
    that round."""
    names = list(systems)
    times: dict[str, dict[str, list]] = {name: {"wall": [], "cpu": []} for name in names}
    metrics: dict = {}
    for round_ in range(repeats + 1):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            run = systems[name](round_)
            cpu, started = _cpu(), time.perf_counter()
            metrics[name] = run()
            seconds, cpu = time.perf_counter() - started, _cpu() - cpu
            if round_ > 0:
                times[name]["wall"].append(seconds)
                times[name]["cpu"].append(cpu)
        print(f"  round {round_}{' (warm-up)' if round_ == 0 else ''} done", flush=True)
    return times, metrics


def _topic(bootstrap: str, count: int, partitions: int = 1) -> tuple[str, dict[int, tuple[int, int]]]:
    """A new topic holding ``count`` benchmark messages, and its ranges (partition: (0, end))."""
    from tests.streaming.kafka_topics import new_topic

    topic = new_topic(bootstrap, partitions, prefix="bench")
    stream_data.produce(bootstrap, topic, stream_data.messages(count), partitions)
    return topic, {p: (0, len(range(p, count, partitions))) for p in range(partitions)}


def duckdb_batch(bootstrap: str, work: Path, users: Path, messages: int, repeats: int) -> dict:
    """A batch of ``messages`` on DuckDB: the floor, gryph's metrics, gryph with samples."""
    names = ("duckdb-floor", "duckdb-gryph", "duckdb-gryph-samples")
    topics = {(round_, name): _topic(bootstrap, messages) for round_ in range(repeats + 1) for name in names}

    def floor(round_: int) -> System:
        topic, ranges = topics[(round_, "duckdb-floor")]
        return lambda: stream_floor.run_duckdb(bootstrap, topic, ranges, str(users))

    def gryph(name: str, record_sample: int) -> Callable[[int], System]:
        def prepare(round_: int) -> System:
            suite = stream_data.write_suite(work, bootstrap, topics[(round_, name)][0], users)
            return lambda: _gryph_batch(suite, work, record_sample)

        return prepare

    systems = {"duckdb-floor": floor, "duckdb-gryph": gryph("duckdb-gryph", 0)}
    systems["duckdb-gryph-samples"] = gryph("duckdb-gryph-samples", 20)
    times, metrics = _rounds(systems, repeats)
    return {"messages": messages, "times": times, "agree": _agreement(metrics, "duckdb-floor")}


def overhead(bootstrap: str, work: Path, users: Path, repeats: int) -> dict:
    """An empty batch and a batch of one message, against the hand-written floor of each. The
    floor, the library call and the running stream each have a topic of their own, so that each
    batch holds exactly the message produced for it."""
    from confluent_kafka import Consumer, TopicPartition

    from gryph.client import stream

    topics = {who: _topic(bootstrap, 1)[0] for who in ("floor", "api", "running")}
    ends = dict.fromkeys(topics, 1)
    suite = stream_data.write_suite(work, bootstrap, topics["api"], users)
    state = work / "overhead.duckdb"
    list(stream(suite, once=True, state=state))  # the stream has read the topic's one message
    running_suite = stream_data.write_suite(work, bootstrap, topics["running"], users)
    running = stream(running_suite, trigger_ms=10, state=work / "running.duckdb", record_sample=0)
    next(running)  # the running stream has read its topic's one message

    def empty_floor() -> None:
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "floor"})
        try:
            _, high = consumer.get_watermark_offsets(TopicPartition(topics["floor"], 0), timeout=10)
        finally:
            consumer.close()
        assert high == ends["floor"], "the floor saw a message the benchmark did not produce"

    def empty_api() -> None:
        assert list(stream(suite, once=True, state=state)) == [], "an empty batch ran"

    def empty_cli() -> None:
        argv = [GRYPH, "stream", str(suite), "--once", "--state", str(state), "--format", "json"]
        done = subprocess.run(argv, cwd=work, capture_output=True, text=True)
        if done.returncode != 0 or done.stdout.strip():
            raise SystemExit(f"gryph stream --once on nothing new: exit {done.returncode}\n{done.stdout}{done.stderr}")

    def one_message(who: str, run: Callable[[int], dict]) -> Callable[[int], System]:
        def prepare(round_: int) -> System:
            # in a round every system gets a message of the same value: their metrics are equal
            stream_data.produce(bootstrap, topics[who], iter([next(stream_data.messages(1, seed=round_))]))
            ends[who] += 1
            return lambda: run(ends[who] - 1)

        return prepare

    def one_floor(offset: int) -> dict:
        return stream_floor.run_duckdb(bootstrap, topics["floor"], {0: (offset, offset + 1)}, str(users))

    def one_api(_: int) -> dict:
        (result,) = stream(suite, once=True, state=state, record_sample=0)
        return json.loads(json.dumps(result.metrics, default=str))

    def one_running(_: int) -> dict:
        return json.loads(json.dumps(next(running).metrics, default=str))

    empty: dict[str, Callable[[int], System]] = {
        "empty-floor": lambda _: empty_floor,
        "empty-api": lambda _: empty_api,
        "empty-cli": lambda _: empty_cli,
    }
    one = {"one-floor": one_message("floor", one_floor), "one-api": one_message("api", one_api)}
    one["one-running"] = one_message("running", one_running)
    try:
        times, _ = _rounds(empty, repeats)
        one_times, metrics = _rounds(one, repeats)
    finally:
        running.close()
    return {"times": {**times, **one_times}, "agree": _agreement(metrics, "one-floor")}


def spark_batch(bootstrap: str, work: Path, users: Path, messages: int, repeats: int, memory: str) -> dict:
    """A batch of ``messages`` over two partitions, read by a local Spark Connect server."""
    from pyspark.sql.connect.session import SparkSession

    from gryph.client.spark.session.local_server import start_local_server

    topic, ranges = _topic(bootstrap, messages, partitions=2)
    suite = stream_data.write_suite(work, bootstrap, topic, users)
    server = start_local_server(confs={"spark.driver.memory": memory})
    try:

        def floor() -> dict:
            spark = SparkSession.builder.remote(server.url).create()
            try:
                metrics = stream_floor.run_spark(spark, bootstrap, topic, ranges, str(users))
            finally:
                spark.stop()
            return json.loads(json.dumps(metrics, default=str))

        systems: dict[str, Callable[[int], System]] = {
            "spark-floor": lambda _: floor,
            "spark-gryph": lambda _: lambda: _gryph_batch(suite, work, 0, "spark", server.url),
            "spark-gryph-samples": lambda _: lambda: _gryph_batch(suite, work, 20, "spark", server.url),
        }
        times, metrics = _rounds(systems, repeats)
    finally:
        server.stop()
    return {"messages": messages, "times": times, "agree": _agreement(metrics, "spark-floor")}


def _agreement(metrics: dict, floor: str) -> dict[str, list[str]]:
    """Per system, how its metrics differ from the floor's (empty: none)."""
    return {name: differences(metrics[floor], got) for name, got in metrics.items() if got is not None}


def report(parts: dict) -> tuple[list[str], list[str]]:
    """The table (markdown) and the targets, MET or MISS."""
    lines = [
        "| part | system | median s | x floor | client CPU s | runs (s) |",
        "|---|---|---|---|---|---|",
    ]
    medians: dict[str, float] = {}
    for part, floor in (("overhead", None), ("duckdb", "duckdb-floor"), ("spark", "spark-floor")):
        if part not in parts:
            continue
        for name, values in parts[part]["times"].items():
            medians[name] = statistics.median(values["wall"])
            base = floor or ("empty-floor" if name.startswith("empty") else "one-floor")
            ratio = medians[name] / statistics.median(parts[part]["times"][base]["wall"])
            cpu = statistics.median(values["cpu"])
            runs = " ".join(f"{v:.3f}" for v in values["wall"])
            lines.append(f"| {part} | {name} | {medians[name]:.3f} | {ratio:.2f} | {cpu:.3f} | {runs} |")
    targets = []

    def target(what: str, value: float, bound: float, unit: str) -> None:
        targets.append(f"{'MET ' if value <= bound else 'MISS'} {what}: {value:.3f}{unit} (target {bound}{unit})")

    if "overhead" in parts:
        target("empty batch, library call", medians["empty-api"], EMPTY_TARGET_S, " s")
        target("batch of one message, library call", medians["one-api"], EMPTY_TARGET_S, " s")
    if "duckdb" in parts:
        ratio = medians["duckdb-gryph"] / medians["duckdb-floor"]
        target(f"duckdb {parts['duckdb']['messages']:,} messages within {DUCKDB_TARGET}x", ratio, DUCKDB_TARGET, "x")
    if "spark" in parts:
        ratio = medians["spark-gryph"] / medians["spark-floor"]
        target(f"spark {parts['spark']['messages']:,} messages within {SPARK_TARGET}x", ratio, SPARK_TARGET, "x")
    for part in parts.values():
        for name, diff in part["agree"].items():
            if diff:
                targets.append(f"MISS {name} computed other metrics than its floor: {diff[:3]}")
    return lines, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000, help="messages of the DuckDB batch")
    parser.add_argument("--spark-messages", type=int, default=1_000_000, help="messages of the Spark batch")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (one untimed round first)")
    parser.add_argument("--no-spark", action="store_true", help="DuckDB only")
    parser.add_argument("--spark-memory", default="6g", help="driver memory of the local Spark server")
    parser.add_argument("--output", type=Path, help="JSON file (default: benchmarks/results/stream-<time>.json)")
    parser.add_argument("--bootstrap", help="a running Kafka broker, host:port (default: start one for the run)")
    args = parser.parse_args(argv)
    from tests.kafka_server import KafkaServer

    load_start = os.getloadavg()[0]
    broker = KafkaServer() if args.bootstrap is None else None
    bootstrap = args.bootstrap or broker.bootstrap
    work = Path(tempfile.mkdtemp(prefix="gryph-bench-stream-"))
    parts: dict[str, dict] = {}
    try:
        users = stream_data.write_users(work / "users.csv")
        print(f"broker {bootstrap}; load average {load_start:.1f} ({os.cpu_count()} cores)", flush=True)
        print("overhead (DuckDB) ...", flush=True)
        parts["overhead"] = overhead(bootstrap, work, users, args.repeats)
        print(f"duckdb, {args.messages:,} messages ...", flush=True)
        parts["duckdb"] = duckdb_batch(bootstrap, work, users, args.messages, args.repeats)
        if not args.no_spark:
            print(f"spark, {args.spark_messages:,} messages ...", flush=True)
            parts["spark"] = spark_batch(bootstrap, work, users, args.spark_messages, args.repeats, args.spark_memory)
    finally:
        if broker is not None:
            broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    table, targets = report(parts)
    print("\n" + "\n".join(table) + "\n\n" + "\n".join(targets))
    document = {
        "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "repeats": args.repeats,
        "machine": {"cpus": os.cpu_count(), "load_average": [load_start, os.getloadavg()[0]]},
        "parts": parts,
        "targets": targets,
        "table": table,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    output = args.output or RESULTS / f"stream-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    output.write_text(json.dumps(document, indent=2, default=str))
    print(f"\nresults: {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
