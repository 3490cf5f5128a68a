"""The Spark engine's rewrite passes: declared once, in order (capabilities.py), and applied by
``run`` as declared (rewrites/passes.py)."""

from __future__ import annotations

import pyarrow as pa

from gryph.client.spark.capabilities import CAPABILITIES
from gryph.client.spark.rewrites import passes
from gryph.compiler.plan import Plan, Query, Sql
from gryph.compiler.sources.source_specs import SourceSpec


def test_every_declared_rewrite_is_a_pass_and_every_pass_is_declared():
    assert len(set(CAPABILITIES.rewrites)) == len(CAPABILITIES.rewrites)
    assert set(CAPABILITIES.rewrites) == set(passes.PASSES)


def test_run_applies_the_declared_passes_in_the_declared_order(spark_engine, monkeypatch):
    applied = []

    def recording(name, rewrite):
        def apply(state):
            applied.append(name)
            return rewrite(state)

        return apply

    for name, rewrite in list(passes.PASSES.items()):
        monkeypatch.setitem(passes.PASSES, name, recording(name, rewrite))
    plan = Plan((), (Query("n", Sql("SELECT count(*) AS n FROM t", ("t",), "spark")),))
    sources = {"t": SourceSpec("t", "frame", frame=pa.table({"a": [1, 2, 3]}))}
    assert spark_engine.run(plan, sources) == {"n": [{"n": 3}]}
    assert applied == [
        "shared histograms",
        "take samples",
        "pruning",
        "small sources",
        "read once",
        "number samples",
    ]
    assert tuple(applied) == CAPABILITIES.rewrites


def test_a_pass_left_out_of_the_declaration_is_not_applied(spark_engine, monkeypatch):
    applied = []
    monkeypatch.setitem(passes.PASSES, "pruning", lambda state: applied.append("pruning") or state)
    declared = tuple(name for name in CAPABILITIES.rewrites if name != "pruning")
    monkeypatch.setattr(spark_engine, "capabilities", CAPABILITIES.__class__(CAPABILITIES.engine, (), declared))
    plan = Plan((), (Query("n", Sql("SELECT count(*) AS n FROM t", ("t",), "spark")),))
    sources = {"t": SourceSpec("t", "frame", frame=pa.table({"a": [1, 2, 3]}))}
    assert spark_engine.run(plan, sources) == {"n": [{"n": 3}]}
    assert applied == []
