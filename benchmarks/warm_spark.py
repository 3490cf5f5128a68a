"""Warm Spark (issue 18, target 2): examples/users.dq against an already running Connect server.

    python -m benchmarks.warm_spark --repeats 5               # starts a local server of its own
    python -m benchmarks.warm_spark --remote sc://host:15002   # or uses one that runs already
    python -m benchmarks.warm_spark --remote local             # `gryph spark start`'s, gryph run --remote local

Side by side, in turns, on one warm server: ``--warm-up`` untimed rounds of every system first
(3 by default: a server that has served a few dozen runs, as one that runs already has; its JIT
compiler has then compiled the paths a run takes, and the first runs on a new server were up to
1.3x slower than the tenth):

- ``import-pyspark``: a fresh process that imports PySpark's Connect session and nothing else
  (not a target: what any PySpark client pays before its first request)
- ``hand-process``: ``warm_spark_by_hand.py`` in a fresh Python process (imports PySpark only)
- ``gryph-cli``: ``gryph run examples/users.dq --no-history`` in a fresh process, as a user runs it
  (record samples on, the default)
- ``gryph-cli-metrics``: the same with ``--sample 0``: the metrics alone, the hand script's work
- ``hand-api``: the hand script's function in this process, a new session each time
- ``gryph-api``: ``gryph.client.run`` in this process (record samples on)

Every gryph run's metrics must equal the hand script's. Targets: the CLI run under 1.5 s, and
gryph within 1.5x of the hand script (CLI against a fresh process, API against the function).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import warm_spark_by_hand

ROOT = Path(__file__).resolve().parent.parent
SUITE = "examples/users.dq"
WALL_TARGET = 1.5  # seconds per CLI run
RATIO_TARGET = 1.5  # against the hand-written script


def _process(argv: list[str]) -> tuple[float, dict | None]:
    """Wall time of a fresh process, and the metrics it printed as JSON (None: it printed none)."""
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    if not done.stdout.strip():
        return wall, None
    out = json.loads(done.stdout)
    return wall, out.get("metrics", out)


def _gryph_cli(url: str, *extra: str) -> list[str]:
    gryph = str(Path(sys.executable).parent / "gryph")
    return [gryph, "run", SUITE, "--no-history", "--engine", "spark", "--remote", url, "--format", "json", *extra]


def _hand_api(url: str) -> tuple[float, dict]:
    from pyspark.sql.connect.session import SparkSession

    started = time.perf_counter()
    spark = SparkSession.builder.remote(url).create()
    try:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        metrics = warm_spark_by_hand.metrics(spark)
    finally:
        spark.stop()
    return time.perf_counter() - started, json.loads(json.dumps(metrics, default=str))


def _gryph_api(url: str) -> tuple[float, dict]:
    from gryph.client.run.runner import run

    started = time.perf_counter()
    result = run(str(ROOT / SUITE), "spark", remote=url)
    return time.perf_counter() - started, json.loads(json.dumps(result.metrics, default=str))


def systems(url: str, cli_remote: str) -> dict:
    """Each system: a function returning (seconds, metrics as JSON values); gryph's CLI is given
    ``cli_remote`` (``url``, or ``local`` for the server `gryph spark start` keeps at ``url``)."""
    hand = [sys.executable, "-m", "benchmarks.warm_spark_by_hand", url]
    return {
        "import-pyspark": lambda: _process([sys.executable, "-c", "import pyspark.sql.connect.session"]),
        "hand-process": lambda: _process(hand),
        "gryph-cli": lambda: _process(_gryph_cli(cli_remote)),
        "gryph-cli-metrics": lambda: _process(_gryph_cli(cli_remote, "--sample", "0")),
        "hand-api": lambda: _hand_api(url),
        "gryph-api": lambda: _gryph_api(url),
    }


def measure(url: str, cli_remote: str, repeats: int, warm_up: int) -> dict[str, list[float]]:
    """Seconds of each system, ``repeats`` times after ``warm_up`` untimed rounds, the order
    turning each round; metrics compared."""
    runs = systems(url, cli_remote)
    names = list(runs)
    _, expected = runs["hand-process"]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(-warm_up, repeats):  # rounds below 0 warm up the server, its caches, the file cache
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            seconds, metrics = runs[name]()
            if metrics is not None and metrics != expected:
                raise SystemExit(f"{name} computed other metrics than hand-process:\n{metrics}\n{expected}")
            if round_ >= 0:
                times[name].append(seconds)
    return times


def report(times: dict[str, list[float]]) -> bool:
    """Print the table and the targets; whether every target was met."""
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"\n{'system':<18} {'median s':>9}  runs")
    for name, values in times.items():
        print(f"{name:<18} {median[name]:>9.2f}  {' '.join(f'{v:.2f}' for v in values)}")
    targets = [
        (f"gryph-cli under {WALL_TARGET} s", median["gryph-cli"], median["gryph-cli"] < WALL_TARGET),
    ]
    for gryph, hand in (
        ("gryph-cli", "hand-process"),
        ("gryph-cli-metrics", "hand-process"),
        ("gryph-api", "hand-api"),
    ):
        ratio = median[gryph] / median[hand]
        targets.append((f"{gryph} within {RATIO_TARGET}x of {hand}", ratio, ratio <= RATIO_TARGET))
    print()
    for what, value, met in targets:
        print(f"{'MET ' if met else 'MISS'} {what}: {value:.2f}")
    return all(met for _, _, met in targets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warm-up", type=int, default=3, help="untimed rounds first (default 3)")
    parser.add_argument(
        "--remote",
        help="a running Connect server, or local: the one `gryph spark start` keeps (default: start one for the run)",
    )
    args = parser.parse_args()
    server = None
    if args.remote == "local":
        from gryph.client.spark.session.warm_server import running_server

        kept = running_server()
        if kept is None:
            raise SystemExit("no local Spark server is running: `gryph spark start` first")
        args.remote = kept.url
        cli_remote = "local"
    else:
        cli_remote = args.remote
    if args.remote is None:
        from gryph.client.spark.session.local_server import start_local_server

        server = start_local_server()
    try:
        url = args.remote or server.url
        print(f"server {url}; load average at start {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
        times = measure(url, cli_remote or url, args.repeats, max(args.warm_up, 1))
        print(f"load average at end {os.getloadavg()[0]:.1f}")
    finally:
        if server is not None:
            server.stop()
    return 0 if report(times) else 1


if __name__ == "__main__":
    sys.exit(main())
