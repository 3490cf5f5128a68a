"""What a failing check's rows cost (docs/checks.md): the same eight ``rows(events where ...)``
checks over the benchmark's events, run passing (thresholds the data meets) and failing (every
check fails, so each shows its rows and, for a condition on one column, its top values), in one
process on the same data, medians of ``--repeats``. A passing suite runs no sample query: its
plans are counted too.

    python -m benchmarks.failing_rows --rows 1000000 [--repeats 3] [--remote sc://... | --remote local]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from .common import paths
from .generate import generate

CONDITIONS = [
    "email is null",
    "country not in ('DE', 'FR', 'US', 'GB', 'IN', 'BR', 'JP')",
    "amount is nan",
    "amount < 10",
    "quantity > 19",
    "status = 'cancelled'",
    "name is null or country = ''",
    "shipped_ts < created_ts",
]
RESULTS = Path(__file__).resolve().parent / "results"


def suite_text(rows: int, failing: bool) -> str:
    """Eight checks of ``rows(events where C)``: bounded by the rows (passing) or by none (failing)."""
    bound = 0 if failing else rows
    lines = [f'source events = parquet("{paths(rows)["events"]}")']
    lines += [f'check "c{i}": rows(events where {c}) <= {bound}' for i, c in enumerate(CONDITIONS)]
    return "\n".join([*lines, "pass when all", ""])


class _Counting:
    """An engine counting the plans it runs (the suite's, then the failing checks' samples)."""

    def __init__(self, engine) -> None:
        self.engine, self.plans = engine, 0

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def run(self, plan, sources):
        self.plans += 1
        return self.engine.run(plan, sources)


def measure(rows: int, repeats: int, engine_name: str, remote: str | None) -> dict:
    from gryph.client import load_suite, run
    from gryph.client.run.engines import open_engine

    engine = _Counting(open_engine(engine_name, remote))
    out: dict = {"rows": rows, "engine": engine_name, "repeats": repeats}
    try:
        for case in ("passing", "failing"):
            suite = load_suite(suite_text(rows, case == "failing"))
            times, plans = [], 0
            run(suite, engine)  # warm: caches, and on Spark the session
            for _ in range(repeats):
                engine.plans = 0
                clock = time.perf_counter()
                result = run(suite, engine)
                times.append(time.perf_counter() - clock)
                plans = engine.plans
            failing = [c for c in result.checks if not c.passed]
            out[case] = {
                "median_s": statistics.median(times),
                "plans": plans,
                "failed_checks": len(failing),
                "sampled_rows": sum(len(s["rows"]) for c in failing for s in c.failing_rows.values()),
            }
    finally:
        engine.close()
    out["failing_over_passing"] = out["failing"]["median_s"] / out["passing"]["median_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--remote", help="a Spark Connect URL or 'local': run on Spark (default: DuckDB)")
    args = parser.parse_args(argv)
    generate(args.rows)
    found = measure(args.rows, args.repeats, "spark" if args.remote else "duckdb", args.remote)
    for case in ("passing", "failing"):
        each = found[case]
        print(
            f"{found['engine']} {args.rows:,} rows, {case}: {each['median_s']:.3f} s median, {each['plans']} plan(s), "
            f"{each['failed_checks']} failed checks, {each['sampled_rows']} rows shown"
        )
    print(f"failing / passing: {found['failing_over_passing']:.2f}x")
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"failing_rows_{found['engine']}_{args.rows}.json"
    target.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
