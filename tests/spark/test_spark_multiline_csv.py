"""A CSV whose quoted field holds a line break, read with multiLine on Spark as on DuckDB
(tests/local_backend/test_duckdb_sources.py reads the same file)."""

from __future__ import annotations

from gryph.compiler.sources.source_specs import SourceSpec
from tests.support.plan_helpers import read, run_one

MULTI_LINE = 'id,note\n1,"two\nlines"\n2,one\n'


def test_multiline_csv_reads_a_quoted_line_break_as_part_of_its_field(spark_engine, tmp_path):
    """Two records, the first over two lines."""
    (tmp_path / "m.csv").write_text(MULTI_LINE, encoding="utf-8")
    spec = SourceSpec("m", "csv", paths=(str(tmp_path / "m.csv"),), options=(("multiLine", True),))
    rows = run_one(spark_engine, read(spark_engine, spec), {"m": spec})
    assert sorted(rows, key=lambda r: r["id"]) == [{"id": 1, "note": "two\nlines"}, {"id": 2, "note": "one"}]
