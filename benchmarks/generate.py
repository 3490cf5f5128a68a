"""Realistic, reproducible benchmark data written as parquet: ``events`` and a perturbed copy.

Every value derives from a hash of the row number, so a size always yields the same files.
``events`` (13 columns) has integer keys with duplicates, strings with NULLs and empty
strings, doubles with NaN and NULL, and begin/end timestamps; ``events_copy`` drops, and
changes a few values of, a small share of rows so that accuracy rules find misses.

    python -m benchmarks.generate --rows 1000000          # -> benchmarks/data/rows_1000000/
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import duckdb

DATA = Path(__file__).resolve().parent / "data"

COUNTRIES = [
    "US",
    "DE",
    "FR",
    "GB",
    "IN",
    "CN",
    "BR",
    "JP",
    "ES",
    "IT",
    "NL",
    "SE",
    "PL",
    "MX",
    "CA",
    "AU",
    "KR",
    "ZA",
    "AR",
    "NG",
]
NAMES = [
    "Ada",
    "Alan",
    "Grace",
    "Linus",
    "Ken",
    "Barbara",
    "Edsger",
    "Donald",
    "Frances",
    "John",
    "Margaret",
    "Dennis",
    "Radia",
    "Tim",
    "Guido",
    "Anita",
    "Bjarne",
    "Niklaus",
    "Hedy",
    "Claude",
]
STATUSES = ["new", "paid", "shipped", "delivered", "returned"]


def data_dir(rows: int) -> Path:
    return DATA / f"rows_{rows}"


def _pick(values: list[str], h: str) -> str:
    listed = ", ".join(f"'{v}'" for v in values)
    return f"([{listed}])[1 + ({h} % {len(values)})::INTEGER]"


def _events_sql(rows: int) -> str:
    # h(k): an independent pseudo-random non-negative integer per row and purpose k
    h = lambda k: f"hash(i, {k})"  # noqa: E731
    users = max(rows // 10, 1)
    return f"""
    SELECT
      -- about 1% of ids repeat the previous row's id
      CASE WHEN {h(1)} % 100 = 0 AND i > 0 THEN i - 1 ELSE i END::BIGINT AS id,
      ({h(2)} % {users})::BIGINT AS user_id,
      CASE WHEN {h(3)} % 50 = 0 THEN NULL ELSE ({h(3)} % 100000)::BIGINT END AS account_id,
      CASE WHEN {h(4)} % 100 = 0 THEN NULL WHEN {h(4)} % 100 = 1 THEN ''
           ELSE {_pick(COUNTRIES, h(5))} END AS country,
      CASE WHEN {h(6)} % 100 < 3 THEN NULL WHEN {h(6)} % 100 = 3 THEN ''
           ELSE 'user' || ({h(2)} % {users}) || '@example.com' END AS email,
      CASE WHEN {h(7)} % 200 = 0 THEN NULL ELSE {_pick(NAMES, h(8))} END AS name,
      {_pick(STATUSES, h(9))} AS status,
      CASE WHEN {h(10)} % 200 = 0 THEN 'NaN'::DOUBLE WHEN {h(10)} % 200 = 1 THEN NULL
           ELSE ({h(11)} % 1000000) / 100.0 END::DOUBLE AS amount,
      ({h(12)} % 10000) / 10000.0 AS score,
      (1 + {h(13)} % 20)::INTEGER AS quantity,
      TIMESTAMP '2024-01-01' + to_milliseconds(({h(14)} % 31536000000)::BIGINT) AS created_ts,
      CASE WHEN {h(15)} % 20 = 0 THEN NULL
           ELSE TIMESTAMP '2024-01-01' + to_milliseconds(({h(14)} % 31536000000)::BIGINT)
                + to_milliseconds(({h(16)} % 3600000 + ({h(17)} % 10) * ({h(18)} % 3600000))::BIGINT)
      END AS shipped_ts,
      ({h(19)} % 1000)::VARCHAR AS batch
    FROM range({rows}) AS r(i)
    """


def _copy_sql() -> str:
    h = lambda k: f"hash(id, user_id, {k})"  # noqa: E731
    return f"""
    SELECT id, user_id, account_id, country,
      CASE WHEN {h(21)} % 100 = 0 THEN 'changed' || email ELSE email END AS email,
      CASE WHEN {h(22)} % 200 = 0 THEN 'Someone' ELSE name END AS name,
      status, amount, score, quantity, created_ts, shipped_ts, batch
    FROM events
    WHERE {h(23)} % 200 <> 0   -- about 0.5% of rows are missing from the copy
    """


def generate(rows: int, force: bool = False, quiet: bool = False) -> Path:
    """Write ``events.parquet`` and ``events_copy.parquet`` for ``rows`` rows (kept if present)."""
    out = data_dir(rows)
    events, copy = out / "events.parquet", out / "events_copy.parquet"
    if not force and events.exists() and copy.exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    clock = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET preserve_insertion_order = false")
    # files of this process's own, renamed into place: processes generating the same size at
    # once (test workers) write the same bytes and never read each other's half-written files
    tmp_events, tmp_copy = (path.with_suffix(f".{os.getpid()}.tmp") for path in (events, copy))
    try:
        con.execute(f"COPY ({_events_sql(rows)}) TO '{tmp_events}' (FORMAT parquet, COMPRESSION zstd)")
        con.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{tmp_events}')")
        con.execute(f"COPY ({_copy_sql()}) TO '{tmp_copy}' (FORMAT parquet, COMPRESSION zstd)")
        con.close()
        tmp_events.replace(events)
        tmp_copy.replace(copy)
    finally:
        con.close()
        tmp_events.unlink(missing_ok=True)
        tmp_copy.unlink(missing_ok=True)
    if not quiet:
        print(f"generated {rows:,} rows in {time.perf_counter() - clock:.1f} s -> {out}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--force", action="store_true", help="rewrite existing files")
    args = parser.parse_args(argv)
    generate(args.rows, args.force)


if __name__ == "__main__":
    main()
