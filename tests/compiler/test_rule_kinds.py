"""The rule kinds' registry (compiler/rule_kinds.py) is the one list of rule kinds: each place that
reads a kind (the grammar, both parsers, Griffin's loader, the check pass, lowering, the docs)
is held to it here, kind by kind; the report's charts in tests/client/test_html_report.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gryph.client import run
from gryph.compiler.analysis.check_pass import CHECKERS
from gryph.compiler.errors import InvalidInput
from gryph.compiler.griffin import load_griffin_job
from gryph.compiler.language.ruletree.convert import parse_rule_text
from gryph.compiler.language.ruletree.convert_suite import parse_suite_tree
from gryph.compiler.language.ruletree.fast import fast_rule_text, fast_suite_tree
from gryph.compiler.language.ruletree.statements import RuleDecl
from gryph.compiler.language.textx_parser import GRAMMAR_DIR
from gryph.compiler.lowering import LOWERINGS, MeasureLowering
from gryph.compiler.rule_kinds import RULE_KINDS, RuleKind, dsl_keywords, griffin_names, metric_keys, spec_of

ROOT = Path(__file__).resolve().parents[2]
# one rule's text in each grammar a DSL kind can name
BODIES = {"accuracy": "a.id = b.id", "profiling": "select count(*) as n from a", "selections": "a.name"}


def _grammar_rules(text: str) -> dict[str, str]:
    """A .tx file's rules by name (comments removed), each its right-hand side."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    return {name: body for name, body in re.findall(r"^(\w+)\s*:(.*?);\s*$", text, flags=re.M | re.S)}


def test_the_grammars_rule_keywords_are_the_registrys_kinds():
    """The keywords of suite.tx's rule statements (``kind=`` of each Statement alternative, a
    rule of keyword alternatives followed) are the registry's DSL kinds, and no more."""
    rules = _grammar_rules((GRAMMAR_DIR / "suite.tx").read_text())
    keywords = set()
    for alternative in rules["Statement"].split("|"):
        kind = re.search(r"kind=(\w+|'\w+')", rules[alternative.strip()])
        if kind is None:
            continue  # sources, measures, checks, the pass policy
        written = kind.group(1)
        keywords |= {written.strip("'")} if written.startswith("'") else set(re.findall(r"'(\w+)'", rules[written]))
    assert keywords == set(dsl_keywords())
    assert keywords == {
        "accuracy",
        "profiling",
        "completeness",
        "uniqueness",
        "distinctness",
        "timeliness",
        "freshness",
        "validity",
    }


@pytest.mark.parametrize("parser", ["fast", "textx"])
def test_a_named_source_kind_may_leave_out_on(parser, monkeypatch, tmp_path):
    """``named_source`` in the registry: without ``on``, both parsers give no source and the suite
    reads the source of the rule's name; other kinds still need ``on``."""
    named = [spec.keyword for spec in RULE_KINDS.values() if spec.named_source]
    assert named == ["freshness"]
    text = "freshness orders: created_ts with warn = 6h"
    if parser == "textx":
        monkeypatch.setenv("GRYPH_PARSER", "textx")
        (rule,) = parse_suite_tree(text, "s.dq").statements
    else:
        (rule,) = fast_suite_tree(text, "s.dq").statements
    assert (rule.kind, rule.name, rule.source, rule.target) == ("freshness", "orders", None, None)
    (tmp_path / "orders.csv").write_text("created_ts\n2024-01-01T00:00:00\n")
    suite = tmp_path / "s.dq"
    suite.write_text(f'source orders = csv("{tmp_path / "orders.csv"}")\n{text}\n')
    assert run(suite).rules[0].rule == "orders"
    with pytest.raises(InvalidInput) as caught:
        parse_suite_tree("completeness orders: created_ts", "s.dq")
    assert caught.value.code == "SYNTAX_ERROR"


@pytest.mark.parametrize("keyword", dsl_keywords())
@pytest.mark.parametrize("parser", ["fast", "textx"])
def test_every_dsl_kind_parses_with_both_parsers(keyword, parser, monkeypatch):
    """A rule of each kind, as a native suite's statement and as a Griffin rule's text, in the
    grammar the registry names for it; both parsers give the registry's source and target."""
    spec = spec_of(keyword)
    assert spec.grammar is not None and (GRAMMAR_DIR / f"{spec.grammar}.tx").is_file()
    targets = ", b" if spec.target != "none" else ""
    text = f"{keyword.upper()} r on a{targets}: {BODIES[spec.grammar]}"
    if parser == "textx":
        monkeypatch.setenv("GRYPH_PARSER", "textx")
        tree = parse_suite_tree(text, "s.dq")
        body = parse_rule_text(spec.grammar, BODIES[spec.grammar])
    else:  # each raises Unhandled if it left the text to textX
        tree = fast_suite_tree(text, "s.dq")
        body = fast_rule_text(spec.grammar, BODIES[spec.grammar])
    (rule,) = tree.statements
    assert isinstance(rule, RuleDecl)
    assert (rule.kind, rule.source, rule.target) == (keyword, "a", "b" if targets else None)
    assert type(body) is type(rule.body)  # a Griffin rule's text reads as the statement's body


def test_a_one_source_kind_refuses_a_target(tmp_path):
    """``target = "none"`` in the registry: a native suite naming a target is refused."""
    (tmp_path / "a.csv").write_text("id\n1\n")
    for spec in RULE_KINDS.values():
        if spec.keyword is None or spec.grammar != "selections":
            continue
        path = tmp_path / "s.dq"
        path.write_text(f'source a = csv("{tmp_path / "a.csv"}")\n{spec.keyword} r on a, a: id\n')
        if spec.target == "none":
            with pytest.raises(InvalidInput) as caught:
                run(path)
            assert caught.value.code == "TARGET_NOT_ALLOWED"
        else:
            run(path)


def _csv(path: str) -> dict:
    return {"format": "csv", "options": {"header": "true", "inferSchema": "true"}, "paths": [path]}


def test_every_griffin_dq_type_loads_as_its_kind(tmp_path):
    """Each ``dq.type`` spelling the registry declares, in any case, loads as its kind."""
    source = {"name": "a", "connector": {"type": "file", "config": _csv("a.csv")}}
    target = dict(source, name="b")
    aliases = griffin_names("rule")
    native_only = {RuleKind(k) for k in dsl_keywords() if not spec_of(k).griffin_names}
    assert native_only == {RuleKind.FRESHNESS, RuleKind.VALIDITY}  # Griffin has neither rule
    assert set(aliases.values()) == {RuleKind(k) for k in dsl_keywords()} - native_only
    rules = [
        {"dq.type": name.title(), "out.dataframe.name": f"r{i}", "rule": BODIES[spec_of(kind).grammar or ""]}
        for i, (name, kind) in enumerate(aliases.items())
    ]
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "data.sources": [source, target], "evaluate.rule": {"rules": rules}}))
    suite = load_griffin_job(str(path))
    assert [rule.kind for rule in suite.rules] == [kind.value for kind in aliases.values()]
    for rule in suite.rules:
        assert type(rule.kind) is str  # a plain string in the result document and the history
        assert rule.target == ("b" if spec_of(rule.kind).target != "none" else None)


def test_every_kind_has_one_checker_and_one_lowering():
    assert set(CHECKERS) == set(RuleKind)
    assert all(checker.kind is kind for kind, checker in CHECKERS.items())
    assert set(LOWERINGS) == set(RuleKind) - {RuleKind.MEASURE}
    assert MeasureLowering.kinds == (RuleKind.MEASURE,)  # a measure's result is a value, not metrics
    assert all(kind in lowering.kinds for kind, lowering in LOWERINGS.items())


def test_forms_families_and_targets_are_consistent():
    for kind, spec in RULE_KINDS.items():
        assert spec.kind is kind
        assert (spec.grammar is not None) == (spec.family == "rule")
        if spec.form_of is not None:
            assert RULE_KINDS[spec.form_of].keyword is not None and spec.keyword is None
    # every metric key a form writes is a key of the kind it is a form of
    assert set(RULE_KINDS[RuleKind.KEYED_ACCURACY].metrics) <= set(metric_keys("accuracy"))


SUITE = """
source a = csv("{a}")
source b = csv("{b}")
accuracy acc on a, b: a.id = b.id
accuracy keyed on a, b: @Key ${{source}}['id'] === ${{target}}['id']; ${{source}}['name'] === ${{target}}['name'];
completeness comp on a: name
uniqueness uniq on a: name with duplication.array = "dups"
distinctness dist on a: name with duplication.array = "dups"
timeliness late on a: t0, t1 with threshold = 1ms, step.size = 1s, percentile.values = (0.5)
profiling prof on a: select count(*) as n from a
freshness fresh on a: t1 with warn = 1s, error = 1d
validity valid on a: id > 1
"""
# the kind of each rule of SUITE (``keyed`` is accuracy's statement form)
SUITE_KINDS = {
    "acc": RuleKind.ACCURACY,
    "keyed": RuleKind.KEYED_ACCURACY,
    "comp": RuleKind.COMPLETENESS,
    "uniq": RuleKind.UNIQUENESS,
    "dist": RuleKind.DISTINCTNESS,
    "late": RuleKind.TIMELINESS,
    "prof": RuleKind.PROFILING,
    "fresh": RuleKind.FRESHNESS,
    "valid": RuleKind.VALIDITY,
}
# Griffin generation B: a measure of each type
MEASURES = {
    RuleKind.GRIFFIN_COMPLETENESS: ("completeness", {"expr": "name is not null"}),
    RuleKind.GRIFFIN_DUPLICATION: ("duplication", {"expr": "name", "bad.record.definition": "duplicate"}),
    RuleKind.GRIFFIN_PROFILING: ("profiling", {"expr": "id"}),
    RuleKind.GRIFFIN_ACCURACY: ("accuracy", {"ref.source": "b", "expr": [{"source.col": "id", "ref.col": "id"}]}),
    RuleKind.GRIFFIN_SPARK_SQL: ("sparkSQL", {"expr": "select * from a", "bad.record.definition": "id > 1"}),
    RuleKind.GRIFFIN_SCHEMA_CONFORMANCE: ("schemaConformance", {"expr": [{"source.col": "name", "type": "int"}]}),
}


def _written_names(result, columns: set[str]) -> set[str]:
    """The metric names a rule's result writes: its writes' names and row keys, its records'
    columns that are no source column (``percentile_NN`` read as ``percentile``)."""
    names = {write.name for write in result.writes[1:]} - {"dups", "__percentile"}
    names |= {key for write in result.writes for row in write.rows for key in row}
    names |= {key for output in result.records for row in output.sample for key in row} - columns
    return {re.sub(r"^percentile_\d+$", "percentile", name) for name in names}


@pytest.fixture
def data(tmp_path):
    (tmp_path / "a.csv").write_text("id,name,t0,t1\n1,x,1000,2500\n2,x,1000,1200\n3,,2000,2000\n")
    (tmp_path / "b.csv").write_text("id,name\n1,x\n2,y\n")
    return tmp_path


def test_each_kind_writes_exactly_the_registrys_metric_keys(data):
    """Run on DuckDB, a rule of every DSL kind writes its registry keys (the names details
    rename) and no other: what a later ``validate`` can hold a metric name to."""
    suite = data / "s.dq"
    suite.write_text(SUITE.format(a=data / "a.csv", b=data / "b.csv"))
    assert {kind for kind in RuleKind if RULE_KINDS[kind].family == "rule"} == set(SUITE_KINDS.values())
    results = {result.rule: result for result in run(suite).rules}
    for name, kind in SUITE_KINDS.items():
        written = _written_names(results[name], {"id", "name", "t0", "t1"})
        if kind is RuleKind.VALIDITY:  # and one count per condition, by its text, and the failed ones named
            assert written == {*RULE_KINDS[kind].metrics, "id > 1", "_dq_failed"}, name
        elif kind is RuleKind.FRESHNESS:  # the newest time, or with `of = oldest` the oldest: one of them
            assert written == set(RULE_KINDS[kind].metrics) - {"oldest"}, name
        elif RULE_KINDS[kind].metrics:
            assert written == set(RULE_KINDS[kind].metrics), name
        else:
            assert written == {"n"}  # a query's kind writes its query's columns


def test_each_griffin_measure_type_loads_and_writes_the_registrys_keys(data):
    assert set(MEASURES) == {kind for kind in RuleKind if RULE_KINDS[kind].family == "griffin measure"}
    sources = [
        {"name": name, "connector": {"type": "file", "config": _csv(str(data / f"{name}.csv"))}} for name in ("a", "b")
    ]
    measures = [
        {
            "name": kind.value,
            "type": type_name.upper(),
            "data.source": "a",
            "config": config,
            "out": [{"type": "metric"}],
        }
        for kind, (type_name, config) in MEASURES.items()
    ]
    path = data / "job.json"
    path.write_text(json.dumps({"name": "j", "data.sources": sources, "measures": measures}))
    assert [rule.kind for rule in load_griffin_job(str(path)).rules] == [kind.value for kind in MEASURES]
    for result in run(path).rules:
        spec = spec_of(result.kind)
        (row,) = result.writes[0].rows
        assert set(row) == (set(spec.metrics) if spec.metrics else {"id"}), result.kind


def test_a_lowering_names_only_the_registrys_metric_keys():
    """``name_of`` refuses a key its kind does not declare: a new metric is declared first."""
    from gryph.compiler.lowering.completeness import CompletenessLowering

    checked = _checked_completeness()
    lowering = CompletenessLowering(checked, {}, None, None)
    assert lowering.name_of("incomplete") == "incomplete"
    with pytest.raises(KeyError, match=r"rule_kinds\.py"):
        lowering.name_of("missing")


def _checked_completeness():
    from gryph.compiler.analysis.check_pass import check_suite
    from gryph.compiler.suites.native_suites import parse_suite
    from tests.compiler.compiler_support import SCHEMAS

    suite = parse_suite("completeness c on users: user_id", known_sources=tuple(SCHEMAS))
    return check_suite(suite, SCHEMAS).rules[0]


# -- the docs -------------------------------------------------------------------------------------

DOCS = {page.name: page.read_text(encoding="utf-8") for page in (ROOT / "docs").glob("*.md")}
# words in the table that are values, not keys: error.confs' kinds, a placeholder
TABLE_VALUES = {"hive_none", "name"}


def _metrics_table() -> dict[str, tuple[str, str]]:
    """The "Metrics per rule type" table (docs/rules.md): each type's metrics and details cells."""
    section = DOCS["rules.md"].split("# Metrics per rule type", 1)[1].split("\n\n", 2)[1]
    rows = [line.strip("|").split("|") for line in section.splitlines()[2:]]
    return {cells[0].strip(): (cells[1], cells[2]) for cells in rows}


def _code_words(cell: str) -> set[str]:
    words = {w for span in re.findall(r"`([^`]*)`", cell) for w in re.findall(r"[A-Za-z_][\w.]*", span)}
    return {re.sub(r"_NN$", "", word) for word in words} - TABLE_VALUES


def test_readme_metrics_table_is_the_registrys():
    """One row per DSL kind; each names every metric key and option of its kind, and nothing else."""
    table = _metrics_table()
    assert sorted(table) == sorted(dsl_keywords())  # one row each, in the order the docs read best
    for keyword, (metrics, details) in table.items():
        spec = spec_of(keyword)
        forms = [s for s in RULE_KINDS.values() if s.form_of is spec.kind]
        assert set(spec.metrics) <= _code_words(metrics) <= set(spec.details), keyword
        assert set(spec.options) <= _code_words(details) <= set(spec.details), keyword
        assert not forms or all(f"`{key}`" in "".join(DOCS.values()) for form in forms for key in form.metrics)


def test_readme_dq_type_spellings_are_the_registrys():
    """The Griffin section lists the ``dq.type`` spellings the loader accepts, no more."""
    paragraph = DOCS["griffin.md"].split("`dq.type` as Griffin names them", 1)[1].split("; `rule`", 1)[0]
    assert set(re.findall(r"`(\w+)`", paragraph)) == set(griffin_names("rule"))


def test_the_recipe_for_a_rule_type_names_files_that_exist():
    """The "A rule type" recipe (docs/development.md): every file it names is there."""
    recipe = DOCS["development.md"].split("- **A rule type**", 1)[1].split("\n- **", 1)[0]
    paths = re.findall(r"`((?:compiler|client|tests|local_backend)/[\w/.*]+)`", recipe)
    assert "compiler/rule_kinds.py" in paths
    for path in paths:
        assert list(ROOT.glob(path)), path
