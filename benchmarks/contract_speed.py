"""Speed on one ODCS contract: a 10M-row parquet file and 20 rules, run by ``gryph run`` (DuckDB) and
by datacontract-cli's ``datacontract test`` (DuckDB and Soda), each as a user runs it (a process of
its own, start-up included), alternately in one run; the median of ``--repeats``.

    .venv/bin/python -m benchmarks.contract_speed [--rows 10000000] [--repeats 3] [--data DIR] [--peer PATH]

The data is generated once per size under ``--data`` (default ``~/.cache/gryph/contract-bench``,
outside the checkout). Results: benchmarks/README.md ("Data contracts").
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

from .contract_peer import peer_executable

DATA = Path.home() / ".cache" / "gryph" / "contract-bench"
GRYPH = Path(sys.executable).parent / "gryph"

# 10M orders: id unique, ref with ~1% repeated, customer NULL 1 in 50, status of 4 (1 in 1000 NULL),
# amount 0..9999.99, quantity 1..100, email with '@', country two letters or '' (1 in 200)
_GENERATE = """
COPY (
  SELECT i AS id,
         CASE WHEN i % 100 = 0 THEN i - 1 ELSE i END AS ref,
         CASE WHEN i % 50 = 0 THEN NULL ELSE i % 100000 + 1 END AS customer_id,
         CASE WHEN i % 1000 = 0 THEN NULL ELSE ['new', 'paid', 'shipped', 'returned'][i % 4 + 1] END AS status,
         (i * 7919 % 1000000) / 100.0 AS amount,
         i % 100 + 1 AS quantity,
         'user' || (i % 1000003) || '@example.org' AS email,
         CASE WHEN i % 200 = 0 THEN '' ELSE ['DE', 'FR', 'US', 'JP', 'BR'][i % 5 + 1] END AS country
  FROM range({rows}) t(i)
) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
"""


def contract(path: str, rows: int, keys: bool = True) -> dict[str, object]:
    """20 rules that both tools state alike (no mustBeBetween on a boundary, no NULL in a missing list);
    without ``keys``, 17: the three duplicate counts over whole-table keys left out."""

    def prop(name: str, logical: str, *quality: dict[str, object], **fields: object) -> dict[str, object]:
        return {"name": name, "logicalType": logical, **fields, **({"quality": list(quality)} if quality else {})}

    properties = [
        prop("id", "integer", required=True, **({"unique": True} if keys else {})),  # 2
        prop("ref", "integer", *([{"metric": "duplicateValues", "mustBeLessThan": rows // 50 + 1}] if keys else [])),
        prop("customer_id", "integer", {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 5},
             logicalTypeOptions={"minimum": 1}),  # 5
        prop("status", "string", {"metric": "nullValues", "mustBeLessThan": 20000},
             {"metric": "invalidValues", "arguments": {"validValues": ["new", "paid", "shipped", "returned"]},
              "mustBe": 0}),  # 7
        prop("amount", "number", logicalTypeOptions={"minimum": 0, "maximum": 100000}),  # 9
        prop("quantity", "integer", {"metric": "nullValues", "mustBe": 0},
             logicalTypeOptions={"minimum": 1, "maximum": 100}),  # 12
        prop("email", "string", required=True, logicalTypeOptions={"pattern": "@"}),  # 14
        prop("country", "string", {"metric": "missingValues", "arguments": {"missingValues": [""]},
                                   "unit": "percent", "mustBeLessThan": 1},
             logicalTypeOptions={"maxLength": 2}),  # 16
    ]  # fmt: skip
    quality = [
        {"metric": "rowCount", "mustBeGreaterThan": 0},
        *([{"metric": "duplicateValues", "arguments": {"properties": ["id", "country"]}, "mustBe": 0}] if keys else []),
        {"type": "sql", "query": "SELECT count(*) FROM {object} WHERE amount > 9000", "mustBeLessThan": 10**9},
        {"type": "sql", "query": "SELECT avg(quantity) FROM {object}", "mustBeGreaterThan": 1},
    ]  # 20
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "orders_bench",
        "name": "orders_bench",
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "local", "type": "local", "format": "parquet", "path": path}],
        "schema": [{"name": "orders", "physicalName": "orders", "properties": properties, "quality": quality}],
    }


def prepare(rows: int, data: Path, keys: bool = True) -> Path:
    """The contract over ``rows`` generated orders (the parquet file made once per size)."""
    folder = data / f"rows_{rows}"
    folder.mkdir(parents=True, exist_ok=True)
    parquet = folder / "orders.parquet"
    if not parquet.exists():
        import duckdb

        partial = folder / "orders.parquet.part"
        duckdb.connect().execute(_GENERATE.format(rows=int(rows), path=partial))
        partial.rename(parquet)
    path = folder / ("orders.odcs.yaml" if keys else "orders_no_keys.odcs.yaml")
    path.write_text(yaml.safe_dump(contract(str(parquet), rows, keys), sort_keys=False), encoding="utf-8")
    return path


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=3600)
    return time.perf_counter() - start, done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--peer", type=Path, help="the datacontract executable (default: its venv in ~/.cache/gryph)")
    args = parser.parse_args(argv)
    peer = args.peer or peer_executable()
    for keys in (True, False):
        _compare(prepare(args.rows, args.data, keys), peer, args.repeats, args.rows)
    return 0


def _compare(path: Path, peer: Path, repeats: int, rows: int) -> None:
    """Both tools on the contract at ``path``, alternately, ``repeats`` times: their medians and ratio."""
    commands = {
        "gryph run (duckdb)": [str(GRYPH), "run", str(path), "--format", "json", "--no-history"],
        "datacontract test": [str(peer), "test", str(path), "--output", str(path.with_suffix(".peer.json")),
                              "--output-format", "json"],
    }  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in commands}
    report = ""
    for _ in range(repeats):
        for name, command in commands.items():
            seconds, done = timed(command, path.parent)
            times[name].append(seconds)
            if name.startswith("gryph"):
                if done.returncode != 0:
                    raise SystemExit(f"gryph did not pass: {done.stdout[-2000:]}{done.stderr[-2000:]}")
                report = done.stdout
    failed = [name for name, ok in json.loads(report)["check"].items() if not ok]
    peer_checks = json.loads(path.with_suffix(".peer.json").read_text(encoding="utf-8"))["checks"]
    peer_failed = [c["name"] for c in peer_checks if c["result"] not in ("passed", "warning")]
    print(f"{path.name}, {rows:,} rows; checks failed: gryph {failed}, datacontract-cli {peer_failed}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"{name:22} median {medians[name]:7.2f} s   runs {', '.join(f'{v:.2f}' for v in values)}")
    ratio = medians["datacontract test"] / medians["gryph run (duckdb)"]
    print(f"datacontract-cli / gryph: {ratio:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
