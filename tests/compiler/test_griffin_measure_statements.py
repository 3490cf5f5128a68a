"""``griffin TYPE NAME on SOURCE[, REF]: ...`` in a native suite: read into the rule the measure's job
config gives, its mistakes located errors."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.rule_kinds import RuleKind
from gryph.compiler.suites.griffin_measure_specs import DuplicationConfig, SchemaConformanceConfig, SparkSqlConfig
from gryph.compiler.suites.native_suites import parse_suite

SOURCES = 'source t = csv("t.csv")\nsource u = parquet("u.parquet")\n'


def _suite(statement: str):
    return parse_suite(SOURCES + statement + "\n", "s.dq")


def test_each_type_reads_into_its_measure_s_rule():
    suite = _suite(
        'griffin duplication d on t: `a b`, c, c with bad.record.definition = "unique", records = false\n'
        "griffin schemaConformance s on t: cast(a as smallint), cast(b as date)\n"
        "griffin sparkSQL q on t: 'select a from t' with bad.record.definition = \"a > 1\", metric = false"
    )
    dups, types, query = suite.rules
    assert (dups.kind, dups.record_name, dups.metric is not None) == (RuleKind.GRIFFIN_DUPLICATION.value, None, True)
    assert isinstance(dups.body, DuplicationConfig)
    assert [c.name for c in dups.body.columns] == ["a b", "c"]  # a repeated column once, as Griffin
    assert isinstance(types.body, SchemaConformanceConfig)
    assert [(c.column.name, str(c.dtype), c.range) for c in types.body.checks] == [
        ("a", "integer", (-32768, 32767)),  # smallint's range, where Spark's cast is NULL beyond it
        ("b", "date", None),
    ]
    assert isinstance(query.body, SparkSqlConfig) and query.metric is None and query.record_name == "q"
    assert [view.sql for view in suite.views] == ["SELECT * FROM (\nselect a from t\n)"]  # one query, always


@pytest.mark.parametrize(
    ("statement", "code", "column", "hint"),
    [
        ("griffin completness c on t: a is not null", "UNKNOWN_MEASURE_TYPE", 1, "completeness"),
        ("griffin duplication d on t: a", "BAD_RECORD_DEFINITION", 1, "bad.record.definition"),
        ('griffin duplication d on t: a with bad.record.definition = "duplicates"', "BAD_RECORD_DEFINITION", 36,
         "duplicate"),
        ('griffin profiling p on t: a with round.scale = "2"', "BAD_DETAIL", 34, None),
        ("griffin profiling p on t: a with rounds.scale = 2", "UNKNOWN_DETAIL", 34, "round.scale"),
        ("griffin accuracy a on t: t.a = t.a", "MISSING_REF_SOURCE", 1, None),
        ("griffin completeness c on t, u: a is not null", "TARGET_NOT_ALLOWED", 1, None),
        ("griffin schemaConformance s on t: cast(a as blob)", "UNKNOWN_TYPE", 35, None),
        ("griffin accuracy a on t, u: t.a = x.b", "BAD_CONFIG", 29, None),
        ("griffin duplication d on t: a + 1 with bad.record.definition = \"unique\"", "BAD_CONFIG", 29, None),
        ("griffin sparkSQL q on t: select_me with bad.record.definition = \"x\"", "BAD_CONFIG", 1, None),
    ],
)  # fmt: skip
def test_a_measure_s_mistake_is_a_located_error(statement, code, column, hint):
    with pytest.raises(InvalidInput) as error:
        _suite(statement)
    assert error.value.code == code
    assert (error.value.location.line, error.value.location.column) == (3, column)
    if hint:
        assert hint in (error.value.hint or "")
