"""What reading a CSV source's local files whole costs on Spark (docs/sources.md, "CSV files"):
the scan for a byte that is not UTF-8 or a quoted line break past the first MiB
(compiler/sources/csv_whole_files.py), timed against DuckDB counting the same file's rows, on a
plain file (no quote, ASCII) and on one quoting every text field. DuckDB runs no such scan.

    python -m benchmarks.csv_scan --rows 1000000 [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from gryph.compiler.sources.csv_dialects import CsvDialect
from gryph.compiler.sources.csv_whole_files import misread_in


def write(path: Path, rows: int, quoted: bool) -> None:
    q = '"' if quoted else ""
    with open(path, "w", encoding="utf-8") as out:
        out.write("id,name,city,amount,note\n")
        for i in range(rows):
            out.write(f"{i},{q}Name {i}{q},{q}City {i % 100}{q},{i * 1.5},{q}some note text {i}{q}\n")


def median_seconds(work, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("| file | MiB | scan s | DuckDB count(*) s |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for quoted in (False, True):
            path = Path(folder) / f"{'quoted' if quoted else 'plain'}.csv"
            write(path, args.rows, quoted)
            assert misread_in(str(path), CsvDialect()) is None
            scan = median_seconds(lambda path=path: misread_in(str(path), CsvDialect()), args.repeats)
            count = f"SELECT count(*) FROM read_csv('{path}', all_varchar = true)"
            read = median_seconds(lambda count=count: duckdb.sql(count).fetchall(), args.repeats)
            print(f"| {path.name} | {path.stat().st_size >> 20} | {scan:.3f} | {read:.3f} |")


if __name__ == "__main__":
    main()
