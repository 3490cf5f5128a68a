"""The same failure is the same error on both engines: users script on codes and exit codes."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import Plan, Query, Sql
from gryph.compiler.sources.source_specs import SourceSpec


def test_a_missing_source_file(dq_engine, tmp_path):
    spec = SourceSpec("t", "parquet", paths=(str(tmp_path / "nowhere.parquet"),))
    with pytest.raises(EngineError) as info:
        dq_engine.schema_of(spec)
    assert (info.value.code, info.value.exit_code) == ("SOURCE_NOT_FOUND", 3)


def test_a_query_that_fails_where_it_runs(dq_engine):
    frame = pa.table({"a": [1, 2]})
    plan = Plan((), (Query("q", Sql("SELECT no_such_column FROM t", ("t",), "spark")),))
    with pytest.raises(EngineError) as info:
        dq_engine.run(plan, {"t": SourceSpec("t", "frame", frame=frame)})
    assert (info.value.code, info.value.exit_code) == ("QUERY_FAILED", 3)
    assert "'q'" in info.value.message
