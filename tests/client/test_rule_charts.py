"""The report's rule charts against the rule kinds' registry (compiler/rule_kinds.py): every kind
has a chart or is declared to have none, and each charted DSL kind draws one from a real run."""

from __future__ import annotations

from gryph.client import run
from gryph.client.outputs.html.rule_charts import CHARTS, OUTCOMES, UNCHARTED, rule_chart
from gryph.compiler.rule_kinds import RULE_KINDS, RuleKind, dsl_keywords, metric_keys

SUITE = """
source a = csv("{a}")
source b = csv("{b}")
accuracy accuracy on a, b: a.id = b.id
completeness completeness on a: name
uniqueness uniqueness on a: name with duplication.array = "dups"
distinctness distinctness on a: name with duplication.array = "dups"
timeliness timeliness on a: t0, t1 with step.size = 1s, percentile.values = (0.5)
profiling profiling on a: select name, count(*) as n from a group by name order by name
freshness freshness on a: t1 with warn = 1h, error = 1d
validity validity on a: id > 1
"""


def test_every_kind_has_a_chart_or_is_declared_without_one():
    assert set(CHARTS) | set(UNCHARTED) == set(RuleKind)
    assert not set(CHARTS) & set(UNCHARTED)
    assert {RuleKind(keyword) for keyword in dsl_keywords()} <= set(CHARTS)


def test_outcome_bars_read_their_kinds_metric_keys():
    for kind, outcomes in OUTCOMES.items():
        assert {role for role, _ in outcomes} <= set(metric_keys(kind)), kind
        assert outcomes[0][0] in RULE_KINDS[kind].metrics  # the good outcome of the kind's own form


def test_each_dsl_kind_draws_its_chart_from_a_run(tmp_path):
    """Each rule is named after its kind: the run's document gives every chart its metrics."""
    (tmp_path / "a.csv").write_text("id,name,t0,t1\n1,x,1000,2500\n2,x,1000,1200\n3,,2000,2000\n")
    (tmp_path / "b.csv").write_text("id,name\n1,x\n2,y\n")
    suite = tmp_path / "s.dq"
    suite.write_text(SUITE.format(a=tmp_path / "a.csv", b=tmp_path / "b.csv"))
    document = run(suite).to_dict()
    assert set(document["rules"]) == set(dsl_keywords())
    for rule, info in document["rules"].items():
        assert info["kind"] == rule
        chart = rule_chart(rule, info["kind"], info.get("details") or {}, document["metrics"][rule])
        assert chart is not None, rule
    assert rule_chart("m", "griffin.completeness", {}, {"total": 1}) is None  # declared without one
    assert rule_chart("m", "no such kind", {}, {"total": 1}) is None


def test_a_freshness_chart_colours_the_age_by_the_thresholds_it_passed():
    """The age in hours against dashed marks at the warn and error ages; the bar takes the colour
    of the worst threshold passed (none: good)."""
    from gryph.client.outputs.html.rule_charts import BAD, GOOD, WARN

    details = {"warn": 6 * 3_600_000, "error": "24h"}  # a time literal's milliseconds, or its text

    def drawn(age_ms):
        chart = rule_chart("orders", "freshness", details, {"total": 1, "newest": 0, "age_ms": age_ms})
        return None if chart is None else chart.spec.to_dict()

    for age_hours, color in ((1.5, GOOD), (6, GOOD), (7.5, WARN), (25.5, BAD)):
        spec = drawn(age_hours * 3_600_000)
        bar, marks, _labels = spec["layer"]
        assert bar["mark"]["color"] == color, age_hours
        assert spec["title"] == f"orders: newest row {age_hours:,.1f} h old"
        assert [(row["threshold"], row["hours"]) for row in marks["data"]["values"]] == [("warn", 6), ("error", 24)]
    assert drawn(None) is None  # no row has a time: nothing to draw
