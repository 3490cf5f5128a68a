"""The benchmark: gryph against Griffin-style steps, a hand-written floor and a peer, same data, same run.

    python -m benchmarks.run                    # default size (1,000,000 rows), DuckDB and Spark Connect
    python -m benchmarks.run --rows 10000000    # the size the targets are stated at
    python -m benchmarks.run --rows 2000 --repeats 1 --systems duckdb-gryph,duckdb-floor --no-spark

Each system runs in a process of its own (``benchmarks.worker``) for ``--repeats`` timed runs;
the table shows the median, the ratio to the floor of the same engine, rows per second of the
source, the client's peak resident memory and, on Spark, jobs and parquet scans per run.
Every system's metrics are checked against the floor's. Results: ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .common import differences
from .generate import generate

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DUCKDB_SYSTEMS = (
    "duckdb-floor",
    "duckdb-gryph",
    "duckdb-gryph-samples",
    "duckdb-griffin",
    "duckdb-floor-peer-checks",
    "duckdb-cuallee",
    "duckdb-gryph-peer-checks",
)
SPARK_SYSTEMS = ("spark-floor", "spark-gryph", "spark-gryph-samples", "spark-griffin")
# Rules the peer cannot express are left out of its comparison (see suite_peer.dq): the peer,
# gryph on the same checks and a hand-written floor of those checks form a group of their own.
PEER_FLOOR = "duckdb-floor-peer-checks"
PEER_PAIR = ("duckdb-gryph-peer-checks", "duckdb-cuallee")


def floor_of(system: str) -> str:
    """The floor a system's time is compared with: its engine's, or the peer checks' own."""
    if system in PEER_PAIR or system == PEER_FLOOR:
        return PEER_FLOOR
    return "duckdb-floor" if system.startswith("duckdb-") else "spark-floor"


def _worker(system: str, rows: int, repeats: int, extra: list[str]) -> dict:
    argv = [sys.executable, "-m", "benchmarks.worker", system, "--rows", str(rows), "--repeats", str(repeats), *extra]
    done = subprocess.run(argv, cwd=HERE.parent, capture_output=True, text=True)
    if done.returncode != 0:
        return {"system": system, "rows": rows, "error": [_failure(done.stderr)]}
    return json.loads(done.stdout)


def _failure(stderr: str) -> str:
    """What a worker died of: its exception's line (DuckDB adds lines of advice after it)."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    raised = [line for line in lines if re.match(r"^[\w.]+(Error|Exception)\b", line)]
    return (raised or lines or ["failed"])[-1]


def compile_cost(rows: int, rules: int = 1000, repeats: int = 3) -> dict:
    """Seconds to parse, name-check, type-check and lower ``rules`` rules (schemas read, no data scanned).

    The median of ``repeats`` compilations (``validate`` stops before lowering: this measures
    both), as for every system; the first (cold: grammars loaded, caches empty) is reported too.
    """
    from gryph.client.run.runner import compile_source

    text = rules_text(rows, rules)
    times = []
    for _ in range(max(1, repeats)):
        clock = time.perf_counter()
        compiled = compile_source(text)
        times.append(time.perf_counter() - clock)
    return {
        "rules": rules,
        "seconds": statistics.median(times),
        "cold_seconds": times[0],
        "times": times,
        "queries": len(compiled.plan.queries),
    }


def rules_text(rows: int, rules: int) -> str:
    """A suite of ``rules`` rules of every type over the benchmark data of ``rows`` rows."""
    from .common import paths

    kinds = [
        "accuracy a{i} on events, events_copy: events.id = events_copy.id and events.email = events_copy.email",
        "completeness c{i} on events: email, country",
        "uniqueness u{i} on events: user_id, status",
        "distinctness d{i} on events: country",
        "timeliness t{i} on events: created_ts, shipped_ts with threshold = {i}m",
        "profiling p{i} on events: count(*) as n, max(amount) as m where score > 0.{i}",
        "profiling g{i} on events: select status, count(*) as cnt from events group by status",
    ]
    header = "\n".join(f'source {name} = parquet("{path}")' for name, path in paths(rows).items())
    return header + "\n" + "\n".join(kinds[i % len(kinds)].format(i=i) for i in range(rules)) + "\n"


def _summary(result: dict, floors: dict) -> dict:
    if "error" in result:
        return result
    median = statistics.median(result["times"])
    floor = floors.get(floor_of(result["system"]))
    out = {
        "system": result["system"],
        "rows": result["rows"],
        "median_s": median,
        "times": result["times"],
        "rows_per_s": result["rows"] / median if median else None,
        "ratio_to_floor": median / floor if floor else None,
        "client_peak_mib": result["peak_mib"],
        "client_baseline_mib": result["baseline_mib"],
    }
    if result.get("spark"):
        out["jobs"] = result["spark"][-1]["jobs"]
        out["scans"] = result["spark"][-1]["scans"]
    return out


def _table(rows: list[dict]) -> str:
    head = (
        f"{'system':28} {'rows':>11} {'median s':>9} {'x floor':>8} {'rows/s':>12} {'peak MiB':>9} {'jobs':>5}  scans"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['system']:28} {r['rows']:>11,} ERROR {' '.join(r['error'])}")
            continue
        scans = ", ".join(f"{k.split('.')[0]}={v}" for k, v in sorted(r.get("scans", {}).items()))
        ratio = f"{r['ratio_to_floor']:.2f}" if r["ratio_to_floor"] else "-"
        lines.append(
            f"{r['system']:28} {r['rows']:>11,} {r['median_s']:>9.2f} {ratio:>8} "
            f"{r['rows_per_s']:>12,.0f} {r['client_peak_mib']:>9.0f} {r.get('jobs', '')!s:>5}  {scans}"
        )
    return "\n".join(lines)


def _targets(by: dict, compile_result: dict, flat: dict | None, growth: dict | None, rows: int) -> list[str]:
    out = []

    def median(name):
        return by[name]["median_s"] if name in by and "error" not in by[name] else None

    def verdict(ok):
        return "MET " if ok else "MISS"

    g, f, gs = median("duckdb-gryph"), median("duckdb-floor"), median("duckdb-griffin")
    if g and f:
        out.append(f"{verdict(g <= 1.25 * f)} duckdb: gryph within 1.25x of the floor ({g / f:.2f}x)")
    if g and gs:
        out.append(f"{verdict(gs >= 2 * g)} duckdb: gryph at least 2x faster than Griffin steps ({gs / g:.2f}x)")
    pg, pc, pf = median(PEER_PAIR[0]), median(PEER_PAIR[1]), median(PEER_FLOOR)
    if pg and pc:
        out.append(
            f"{verdict(pc >= 2 * pg)} duckdb: gryph at least 2x faster than cuallee on the same checks ({pc / pg:.2f}x)"
        )
    if pg and pc and pf:
        out.append(
            f"     (on those checks the hand-written floor takes {pf:.2f} s: cuallee {pc / pf:.2f}x of it, "
            f"gryph {pg / pf:.2f}x)"
        )
    sg, sf = median("spark-gryph"), median("spark-floor")
    if sg and sf:
        out.append(
            f"{verdict(sg <= 1.25 * sf)} spark: gryph within 1.25x of the hand-written PySpark plan ({sg / sf:.2f}x)"
        )
    for engine in ("duckdb", "spark"):
        metrics_only, with_samples = median(f"{engine}-gryph"), median(f"{engine}-gryph-samples")
        if metrics_only and with_samples:
            out.append(
                f"{verdict(with_samples <= 1.15 * metrics_only)} {engine}: the default run (20-row record samples) "
                f"within 1.15x of the metrics alone ({with_samples / metrics_only:.2f}x)"
            )
    if "spark-gryph" in by and "scans" in by["spark-gryph"]:
        scans = by["spark-gryph"]["scans"]
        out.append(
            f"{verdict(bool(scans) and max(scans.values()) <= 1)} spark: one scan per source "
            f"({', '.join(f'{k}={v}' for k, v in sorted(scans.items()))})"
        )
    if growth:
        factor = growth["large"] / growth["small"]
        out.append(
            f"{verdict(factor <= 12)} duckdb: time grows {factor:.1f}x as rows grow 10x, at most 12x "
            f"({growth['small']:.2f} s at {rows // 10:,} rows, {growth['large']:.2f} s at {rows:,})"
        )
    if flat:
        small, large = flat["small"], flat["large"]
        growth = large - small
        out.append(
            f"{verdict(growth <= max(0.1 * small, 20))} spark: client memory flat as rows grow 10x "
            f"({small:.0f} MiB at {rows // 10:,} rows, {large:.0f} MiB at {rows:,})"
        )
    out.append(
        f"{verdict(compile_result['seconds'] < 1)} compile: {compile_result['rules']} rules validate in "
        f"{compile_result['seconds']:.2f} s (median; the first, cold: {compile_result['cold_seconds']:.2f} s)"
    )
    if rows < 10_000_000:
        out.append(f"(targets are stated at 10,000,000 rows; this run has {rows:,})")
    return out


def _start_spark(memory: str):
    from gryph.client.spark.session.local_server import free_port, start_local_server

    ui_port = free_port()
    server = start_local_server(
        confs={
            "spark.ui.enabled": "true",
            "spark.ui.port": str(ui_port),
            "spark.driver.memory": memory,
            "spark.sql.ui.retainedExecutions": "100000",
        }
    )
    return server, ui_port


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="gryph benchmark")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--systems", help="comma-separated subset (default: all)")
    parser.add_argument("--no-spark", action="store_true", help="DuckDB only")
    parser.add_argument("--spark-memory", default="6g", help="driver memory of the local Spark server")
    parser.add_argument(
        "--duckdb-memory", default="8GB", help="DuckDB's memory_limit for every DuckDB system (spills beyond it)"
    )
    parser.add_argument(
        "--with-checks",
        action="store_true",
        help="run benchmarks/suite_checks.dq (the suite with measures and checks) for gryph",
    )
    parser.add_argument("--output", type=Path, help="JSON file (default: benchmarks/results/<time>-<rows>.json)")
    args = parser.parse_args(argv)
    wanted = set(args.systems.split(",")) if args.systems else set(DUCKDB_SYSTEMS + SPARK_SYSTEMS)
    if args.no_spark:
        wanted -= set(SPARK_SYSTEMS)
    from .peers import available

    if not available() and PEER_PAIR[1] in wanted:
        print("cuallee is not installed (pip install -e '.[bench]'): the peer is skipped")
        wanted.discard(PEER_PAIR[1])
    RESULTS.mkdir(parents=True, exist_ok=True)
    generate(args.rows)
    extra = ["--with-checks"] if args.with_checks else []
    duckdb_extra = [*extra, "--duckdb-memory", args.duckdb_memory]

    compile_result = compile_cost(args.rows, repeats=max(3, args.repeats))
    print(
        f"compile: {compile_result['rules']} rules validated in {compile_result['seconds']:.2f} s (median of "
        f"{len(compile_result['times'])}; cold {compile_result['cold_seconds']:.2f} s)"
    )
    raw: dict[str, dict] = {}
    for system in DUCKDB_SYSTEMS:
        if system in wanted:
            print(f"running {system} ...", flush=True)
            raw[system] = _worker(system, args.rows, args.repeats, duckdb_extra)
    growth = None
    if "duckdb-gryph" in raw and "error" not in raw["duckdb-gryph"] and args.rows >= 10:
        small_rows = args.rows // 10
        generate(small_rows)
        print(f"running duckdb-gryph at {small_rows:,} rows (growth) ...", flush=True)
        small = _worker("duckdb-gryph", small_rows, args.repeats, duckdb_extra)
        if "error" not in small:
            growth = {
                "small": statistics.median(small["times"]),
                "large": statistics.median(raw["duckdb-gryph"]["times"]),
            }

    flat = None
    spark_systems = [s for s in SPARK_SYSTEMS if s in wanted]
    if spark_systems:
        server, ui_port = _start_spark(args.spark_memory)
        try:
            remote = ["--remote", server.url, "--ui-port", str(ui_port)]
            for system in spark_systems:
                print(f"running {system} ...", flush=True)
                raw[system] = _worker(system, args.rows, args.repeats, extra + remote)
            if "spark-gryph" in raw and "error" not in raw["spark-gryph"] and args.rows >= 10:
                small_rows = args.rows // 10
                generate(small_rows)
                print(f"running spark-gryph at {small_rows:,} rows (client memory) ...", flush=True)
                small = _worker("spark-gryph", small_rows, 1, extra + remote)
                if "error" not in small:
                    flat = {"small": small["peak_mib"], "large": raw["spark-gryph"]["peak_mib"]}
        finally:
            server.stop()

    floors = {
        name: statistics.median(raw[name]["times"])
        for name in ("duckdb-floor", "spark-floor", PEER_FLOOR)
        if name in raw and "error" not in raw[name]
    }
    summaries = [_summary(raw[s], floors) for s in DUCKDB_SYSTEMS + SPARK_SYSTEMS if s in raw]
    by = {s["system"]: s for s in summaries}

    agreement = _agreement(raw)

    table = _table(summaries)
    targets = _targets(by, compile_result, flat, growth, args.rows)
    print()
    print(table)
    print()
    print("\n".join(targets))
    document = {
        "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rows": args.rows,
        "repeats": args.repeats,
        "machine": {"cpus": _cpus()},
        "compile": compile_result,
        "systems": summaries,
        "client_memory_flat": flat,
        "duckdb_growth_10x": growth,
        "duckdb_memory_limit": args.duckdb_memory,
        "metrics_agree_with_floor": {k: not v for k, v in agreement.items()},
        "targets": targets,
        "table": table,
    }
    output = args.output or RESULTS / f"{dt.datetime.now():%Y%m%d-%H%M%S}-rows{args.rows}.json"
    output.write_text(json.dumps(document, indent=2, default=str))
    print(f"\nresults: {output}")
    return 0


def _agreement(raw: dict) -> dict:
    """Every system must compute its floor's numbers (the peer computes its own notions)."""

    def metrics(name):
        ok = name in raw and "error" not in raw[name]
        return json.loads(json.dumps(raw[name]["metrics"], default=str)) if ok else None

    main = next((m for m in map(metrics, ("duckdb-floor", "spark-floor")) if m is not None), None)
    agreement = {}
    for name, result in raw.items():
        reference = metrics(PEER_FLOOR) if name == PEER_PAIR[0] else main
        if "error" in result or name in (PEER_FLOOR, PEER_PAIR[1]) or reference is None:
            continue
        diff = differences(reference, metrics(name))
        agreement[name] = diff
        if diff:
            print(f"WARNING: {name} metrics differ from the floor: {diff[:3]}")
    return agreement


def _cpus() -> int:
    import os

    return os.cpu_count() or 0


if __name__ == "__main__":
    sys.exit(main())
