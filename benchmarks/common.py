"""What every system of the benchmark shares: the suite at a size, and metric comparison."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from .generate import data_dir

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite.dq"
# Measures and checks (issue 4) go here once `measure` / `check` statements parse.
CHECKS_SUITE = HERE / "suite_checks.dq"
PEER_SUITE = HERE / "suite_peer.dq"


def paths(rows: int) -> dict[str, str]:
    """The parquet file of each source at ``rows`` rows."""
    out = data_dir(rows)
    return {"events": str(out / "events.parquet"), "events_copy": str(out / "events_copy.parquet")}


def load_bench_suite(rows: int, with_checks: bool = False):
    """The benchmark suite with its sources pointed at the data of ``rows`` rows."""
    from gryph.client.run.runner import load_suite

    if with_checks:  # the suite's text followed by its measures and checks
        suite = load_suite(SUITE.read_text() + "\n" + CHECKS_SUITE.read_text())
    else:
        suite = load_suite(SUITE)
    files = paths(rows)
    sources = {name: dataclasses.replace(spec, paths=(files[name],)) for name, spec in suite.sources.items()}
    return dataclasses.replace(suite, sources=sources)


def load_peer_suite(rows: int):
    """The rules the peer can express too, over the data of ``rows`` rows."""
    from gryph.client.run.runner import load_suite

    suite = load_suite(PEER_SUITE)
    files = paths(rows)
    sources = {name: dataclasses.replace(spec, paths=(files[name],)) for name, spec in suite.sources.items()}
    return dataclasses.replace(suite, sources=sources)


def close(a: object, b: object, rel: float = 1e-9) -> bool:
    """Equal as the engines' contract says: numbers to a relative 1e-9, NaN equals NaN."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, rel) for x, y in zip(a, b, strict=True))
    return a == b


def differences(expected: dict, actual: dict) -> list[str]:
    """Which metrics of ``actual`` differ from ``expected`` (keys of ``expected`` only)."""
    out = []
    for rule, value in expected.items():
        if rule not in actual:
            out.append(f"{rule}: missing")
        elif not close(value, actual[rule]):
            out.append(f"{rule}: expected {value!r}, got {actual[rule]!r}")
    return out
