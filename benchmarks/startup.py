"""Small runs and cold validation (issue 18, targets 1 and 4), side by side in one run.

    python -m benchmarks.startup --repeats 7        # or: make bench-startup

Every system is a fresh process, timed wall to wall by this one; the systems take turns in each
repeat (one untimed warm-up round first, which also compiles .pyc files and fills the grammar
cache, as a user's second run finds them), and the table shows medians:

- ``import-duckdb``: ``python -c "import duckdb"``;
- ``floor``: ``benchmarks/startup_floor.py``, examples/users.dq's metrics and samples as plain
  DuckDB SQL (the baseline of target 1; its metrics are checked against gryph's);
- ``gryph-run`` / ``gryph-validate``: ``gryph run|validate examples/users.dq --no-history``;
- ``gryph-run-uncached``: the same run with the grammar cache off (``GRYPH_CACHE_DIR=off``);
- ``cold-validate-1000``: a fresh process validates 1,000 rules (``run.rules_text``); its time is
  that first ``validate`` call (target 4), the process's wall time is shown too;
- ``cold-validate-1000-textx``: the same with ``GRYPH_PARSER=textx`` (every text parsed by textX,
  not the hand-written parser), the baseline of the parser's speed-up.

Beside wall time, each process's CPU time (user + system, all its threads) is reported: on a
machine shared with other work it moves less than wall time.

Python runs with ``PYTHONDONTWRITEBYTECODE`` unset, as on a user's machine with .pyc files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .common import close
from .generate import generate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
GRYPH = str(Path(sys.executable).with_name("gryph"))
SUITE = "examples/users.dq"
RULES_ROWS = 2000  # the 1,000 rules validate against the schemas of this benchmark data
RUN_TARGET = 1.6  # gryph run / validate within this many times the floor
COLD_TARGET = 0.3  # seconds for the first validation of 1,000 rules in a process

COLD_SCRIPT = """
import sys, time
from benchmarks.run import rules_text
text = rules_text({rows}, 1000)
from gryph.client import validate
clock = time.perf_counter()
validate(text)
print(time.perf_counter() - clock)
"""

SYSTEMS = {
    "import-duckdb": [sys.executable, "-c", "import duckdb"],
    "floor": [sys.executable, str(HERE / "startup_floor.py")],
    "gryph-run": [GRYPH, "run", SUITE, "--no-history"],
    "gryph-run-uncached": [GRYPH, "run", SUITE, "--no-history"],
    "gryph-validate": [GRYPH, "validate", SUITE],
    "cold-validate-1000": [sys.executable, "-c", COLD_SCRIPT.format(rows=RULES_ROWS)],
    "cold-validate-1000-textx": [sys.executable, "-c", COLD_SCRIPT.format(rows=RULES_ROWS)],
}


def _environment(system: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)  # the cold-validation script imports benchmarks.run
    if system == "gryph-run-uncached":
        env["GRYPH_CACHE_DIR"] = "off"
    if system == "cold-validate-1000-textx":
        env["GRYPH_PARSER"] = "textx"
    return env


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(system: str) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system, all threads) and output of one fresh process."""
    cpu, clock = _cpu_of_children(), time.perf_counter()
    done = subprocess.run(SYSTEMS[system], cwd=ROOT, env=_environment(system), capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - clock, _cpu_of_children() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{system} failed ({done.returncode}):\n{done.stderr}")
    return seconds, cpu, done.stdout


def _same_metrics() -> bool:
    """The floor computes what gryph computes: its metrics against `gryph run --format json`."""
    floor = json.loads(_timed("floor")[2])
    env = _environment("gryph-run")
    done = subprocess.run(
        [GRYPH, "run", SUITE, "--no-history", "--format", "json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return close(floor, json.loads(done.stdout)["metrics"])


def measure(repeats: int) -> dict:
    generate(RULES_ROWS)
    for system in SYSTEMS:  # warm-up: .pyc files, the grammar cache, the OS file cache
        _timed(system)
    walls: dict[str, list[float]] = {system: [] for system in SYSTEMS}
    cpus: dict[str, list[float]] = {system: [] for system in SYSTEMS}
    calls: dict[str, list[float]] = {"cold-validate-1000": [], "cold-validate-1000-textx": []}
    for _ in range(repeats):
        for system in SYSTEMS:
            seconds, cpu, out = _timed(system)
            walls[system].append(seconds)
            cpus[system].append(cpu)
            if system in calls:
                calls[system].append(float(out.strip().splitlines()[-1]))
    medians = {system: statistics.median(times) for system, times in walls.items()}
    return {
        "cpu": cpus,
        "cpu_medians": {system: statistics.median(times) for system, times in cpus.items()},
        "repeats": repeats,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "walls": walls,
        "medians": medians,
        "cold_validate_1000": {
            "times": calls["cold-validate-1000"],
            "median": statistics.median(calls["cold-validate-1000"]),
        },
        "cold_validate_1000_textx": {
            "times": calls["cold-validate-1000-textx"],
            "median": statistics.median(calls["cold-validate-1000-textx"]),
        },
        "same_metrics": _same_metrics(),
    }


def report(result: dict) -> list[str]:
    medians, floor = result["medians"], result["medians"]["floor"]
    cpu, cpu_floor = result["cpu_medians"], result["cpu_medians"]["floor"]
    lines = ["| system | median wall s | x floor | median CPU s | x floor |", "|---|---|---|---|---|"]
    lines += [
        f"| {system} | {seconds:.3f} | {seconds / floor:.2f} | {cpu[system]:.3f} | {cpu[system] / cpu_floor:.2f} |"
        for system, seconds in medians.items()
    ]
    cold = result["cold_validate_1000"]["median"]
    textx = result["cold_validate_1000_textx"]["median"]
    lines.append(f"| cold-validate-1000 (the validate call) | {cold:.3f} | | | |")
    lines.append(f"| cold-validate-1000-textx (the validate call) | {textx:.3f} | | | |")

    def verdict(ok: bool) -> str:
        return "MET " if ok else "MISS"

    lines += [
        "",
        f"{verdict(medians['gryph-run'] <= RUN_TARGET * floor)} small run: gryph run "
        f"{medians['gryph-run'] / floor:.2f}x the floor (target {RUN_TARGET}x)",
        f"{verdict(medians['gryph-validate'] <= RUN_TARGET * floor)} small validate: gryph validate "
        f"{medians['gryph-validate'] / floor:.2f}x the floor (target {RUN_TARGET}x)",
        f"{verdict(cold < COLD_TARGET)} cold validation: 1,000 rules in {cold:.3f} s in a fresh process "
        f"(target {COLD_TARGET} s; with textX parsing every text {textx:.3f} s, {textx / cold:.1f}x)",
        f"(CPU time, less moved by other load: run {cpu['gryph-run'] / cpu_floor:.2f}x, validate "
        f"{cpu['gryph-validate'] / cpu_floor:.2f}x the floor)",
        f"{verdict(result['same_metrics'])} the floor's metrics equal gryph's",
        f"load average {', '.join(f'{x:.1f}' for x in result['load_average'])} on {result['cpus']} CPUs, "
        f"{result['repeats']} repeats",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--output", type=Path, help="the JSON result (default: benchmarks/results/startup-<time>.json)")
    args = parser.parse_args(argv)
    result = measure(args.repeats)
    print("\n".join(report(result)))
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    output = args.output or RESULTS / f"startup-{stamp}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
