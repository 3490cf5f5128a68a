"""Samples of a shared anti join over parquet fetch whole rows by location (located_rows.py).

Every expected row below is worked out by hand from the rows written to the files.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import run
from gryph.compiler.plan import (
    Aggregate,
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Limit,
    Literal,
    Named,
    Plan,
    Project,
    Query,
    count_all,
    not_,
)
from gryph.compiler.plan import data_types as G
from gryph.compiler.plan.row_sources import row_source
from gryph.compiler.sources.source_specs import SourceSpec
from tests.support.plan_helpers import BOOL, INT, STR, multiset, read

# "filename" is a column of the data: the location's file must not take it
EVENTS = {
    "id": pa.array([1, 2, 2, 3, None, 4, 5], pa.int64()),
    "mail": pa.array(["a@x", "b@x", "b@x", None, "n@x", "é@x", "e@x"], pa.string()),
    "filename": pa.array(["f1", "f2", "f2", "f3", "f4", "f5", "f6"], pa.string()),
    "名 前": pa.array(["一", "二", "二", "三", "四", "五", "六"], pa.string()),
}
COPY = {"id": pa.array([1, 3, 4, None], pa.int64()), "mail": pa.array(["a@x", "", "é@x", "n@x"], pa.string())}
# misses of id <=> id and coalesce(mail, '') = coalesce(target mail, ''): the two rows of id 2
# (their mail is nowhere in the copy), and id 5; id 3's NULL mail matches the copy's ''
MISSES = [
    {"id": 2, "mail": "b@x", "filename": "f2", "名 前": "二"},
    {"id": 2, "mail": "b@x", "filename": "f2", "名 前": "二"},
    {"id": 5, "mail": "e@x", "filename": "f6", "名 前": "六"},
]


@pytest.fixture
def engine(recording_engine):
    """The engine, with every statement it gives DuckDB written down."""
    return recording_engine


def _parquet(path, columns: dict, row_group_size: int | None = None) -> str:
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return str(path)


def _accuracy_plan(engine, source: SourceSpec, target: SourceSpec, limit: int = 20) -> tuple[Plan, Filter]:
    """An accuracy rule's count and its sample, as the compiler lowers them."""
    t, c = read(engine, source), read(engine, target)
    ident, mail = Field("id", INT), Field("mail", STR)
    right = Project(c, (Named(Field("id", INT), "__t_id"), Named(Field("mail", STR), "__t_mail")))
    on = Call(
        Fn.AND,
        (
            Call(Fn.EQ_NULL_SAFE, (ident, Field("__t_id", INT)), BOOL),
            Call(
                Fn.EQ,
                (
                    Call(Fn.COALESCE, (mail, Literal("", STR)), STR),
                    Call(Fn.COALESCE, (Field("__t_mail", STR), Literal("", STR)), STR),
                ),
                BOOL,
            ),
        ),
        BOOL,
    )
    misses = Filter(Join(JoinKind.ANTI, t, right, on), not_(Call(Fn.AND, (IsNull(ident), IsNull(mail)), BOOL)))
    plan = Plan(
        (),
        (
            Query("miss", Aggregate(misses, (), (Named(count_all(), "n"),))),
            Query("sample", Limit(misses, limit)),
        ),
    )
    return plan, misses


def _statement(engine) -> str:
    (statement,) = [sql for sql in engine.connection.statements if sql.lstrip().startswith("WITH")]
    return statement


def test_a_sample_of_misses_fetches_whole_rows_by_location(engine, tmp_path):
    source = SourceSpec("events", "parquet", paths=(_parquet(tmp_path / "e.parquet", EVENTS),))
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", COPY),))
    plan, _ = _accuracy_plan(engine, source, target)
    rows = engine.run(plan, {"events": source, "copy": target})
    assert rows["miss"] == [{"n": 3}]
    assert multiset(rows["sample"]) == multiset(MISSES)
    statement = _statement(engine)
    # the shared join reads the located rows, and the sample joins the source on locations
    assert "__gryph_located" in statement and "SEMI JOIN" in statement
    # the located views live for the run only
    left = engine.connection.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE '%located%'")
    assert left.fetchone() == (0,)


def test_a_sample_of_fewer_rows_than_misses_holds_only_misses(engine, tmp_path):
    # 3,000 rows in row groups of 100: every third row misses (its mail differs in the copy)
    n = 3000
    source_rows = {"id": pa.array(range(n), pa.int64()), "mail": pa.array([f"m{i}" for i in range(n)], pa.string())}
    target_rows = {
        "id": pa.array(range(n), pa.int64()),
        "mail": pa.array([f"m{i}" if i % 3 else f"other{i}" for i in range(n)], pa.string()),
    }
    source = SourceSpec("events", "parquet", paths=(_parquet(tmp_path / "e.parquet", source_rows, 100),))
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", target_rows, 100),))
    plan, _ = _accuracy_plan(engine, source, target, limit=7)
    rows = engine.run(plan, {"events": source, "copy": target})
    assert rows["miss"] == [{"n": 1000}]
    sample = rows["sample"]
    assert len(sample) == 7 and len({r["id"] for r in sample}) == 7
    assert all(r["id"] % 3 == 0 and r["mail"] == f"m{r['id']}" for r in sample)


def test_rows_of_several_files_are_told_apart_by_file(engine, tmp_path):
    # the first file misses at row 1, the second at row 0: row numbers alone would fetch all four
    first = {"id": pa.array([1, 2], pa.int64()), "mail": pa.array(["a", "b"], pa.string())}
    second = {"id": pa.array([4, 3], pa.int64()), "mail": pa.array(["d", "c"], pa.string())}
    folder = tmp_path / "events"
    folder.mkdir()
    _parquet(folder / "part-0.parquet", first)
    _parquet(folder / "part-1.parquet", second)
    target_rows = {"id": pa.array([1, 3], pa.int64()), "mail": pa.array(["a", "c"], pa.string())}
    source = SourceSpec("events", "parquet", paths=(str(folder / "*.parquet"),))
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", target_rows),))
    plan, _ = _accuracy_plan(engine, source, target)
    rows = engine.run(plan, {"events": source, "copy": target})
    assert rows["miss"] == [{"n": 2}]
    assert multiset(rows["sample"]) == multiset([{"id": 2, "mail": "b"}, {"id": 4, "mail": "d"}])
    assert "__gryph_located" in _statement(engine)


def test_a_file_with_its_own_row_number_column_is_read_as_before(engine, tmp_path):
    # DuckDB's row number would be hidden by the file's column of that name: no location
    columns = dict(EVENTS, file_row_number=pa.array([0, 0, 0, 0, 0, 0, 0], pa.int64()))
    source = SourceSpec("events", "parquet", paths=(_parquet(tmp_path / "e.parquet", columns),))
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", COPY),))
    plan, _ = _accuracy_plan(engine, source, target)
    rows = engine.run(plan, {"events": source, "copy": target})
    assert rows["miss"] == [{"n": 3}]
    assert multiset(rows["sample"]) == multiset([dict(row, file_row_number=0) for row in MISSES])
    assert "__gryph_located" not in _statement(engine)


def test_a_declared_schema_holds_for_the_fetched_rows(engine, tmp_path):
    # the file stores id as text; the source declares it an integer
    columns = {"id": pa.array(["1", "2", "7"], pa.string()), "mail": pa.array(["a@x", "b", "c"], pa.string())}
    schema = G.Schema((G.Column("id", G.INTEGER), G.Column("mail", G.STRING)))
    source = SourceSpec("events", "parquet", paths=(_parquet(tmp_path / "e.parquet", columns),), schema=schema)
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", COPY),))
    plan, _ = _accuracy_plan(engine, source, target)
    rows = engine.run(plan, {"events": source, "copy": target})
    # id 1 ("a@x") matches the copy; 2 and 7 miss
    assert rows["miss"] == [{"n": 2}]
    assert multiset(rows["sample"]) == multiset([{"id": 2, "mail": "b"}, {"id": 7, "mail": "c"}])
    assert "__gryph_located" in _statement(engine)


def test_only_row_subsets_of_a_read_have_a_row_source(engine, tmp_path):
    source = SourceSpec("events", "parquet", paths=(_parquet(tmp_path / "e.parquet", EVENTS),))
    target = SourceSpec("copy", "parquet", paths=(_parquet(tmp_path / "c.parquet", COPY),))
    _, misses = _accuracy_plan(engine, source, target)
    assert row_source(misses) == read(engine, source)
    grouped = Aggregate(read(engine, source), (Named(Field("id", INT), "k"),), (Named(count_all(), "n"),))
    assert row_source(grouped) is None
    inner = Join(
        JoinKind.INNER,
        read(engine, source),
        Project(read(engine, target), (Named(Field("id", INT), "t"),)),
        Call(Fn.EQ, (Field("id", INT), Field("t", INT)), BOOL),
    )
    assert row_source(inner) is None


def test_a_suite_run_shows_the_missed_rows_of_parquet_sources(tmp_path):
    _parquet(tmp_path / "events.parquet", EVENTS)
    _parquet(tmp_path / "copy.parquet", COPY)
    suite = tmp_path / "located.dq"
    suite.write_text(
        "suite located\n"
        'source events = parquet("events.parquet")\n'
        'source copy = parquet("copy.parquet")\n'
        "accuracy same_mail on events, copy: events.id = copy.id and events.mail = copy.mail\n",
        encoding="utf-8",
    )
    result = run(suite, "duckdb")
    assert result.metrics["same_mail"]["miss"] == 3 and result.metrics["same_mail"]["total"] == 7
    (records,) = result.rules[0].records
    assert records.count == 3 and multiset(records.sample) == multiset(MISSES)
