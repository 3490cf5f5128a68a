"""The check pass: validate stops after it (no plan is built), every name and type error is raised
there, and lowering reads only checked rules (it resolves nothing itself)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from gryph.client import validate
from gryph.client.run.runner import compile_source
from gryph.compiler.analysis import CheckedSuite
from gryph.compiler.analysis.checked_rules import (
    CheckedAccuracy,
    CheckedCompleteness,
    CheckedKeyedAccuracy,
    CheckedQuery,
    CheckedRule,
    CheckedTimeliness,
    OrderKey,
)
from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import AggFn, AggregateCall, Call, Field, Fn, IsNull, Literal, Named
from gryph.compiler.plan.data_types import BOOLEAN, DOUBLE, INTEGER, STRING

LOWERING = Path(__file__).resolve().parents[2] / "compiler" / "lowering"
# what lowering may not read: the resolver, the parsed rule tree, the parser, or raise input errors
RESOLVES = re.compile(
    r"^\s*from\s+\.\.(analysis\.resolve|language|suites\.griffin_measure_specs)\b|^\s*import\s+.*\bresolve\b|\bResolver\b|\bInvalidInput\b",
    re.M,
)
FRAMES = {
    "t": pl.DataFrame({"a": [1, 2], "s": ["x", None], "ts": [1, 2]}),
    "u": pl.DataFrame({"a": [1], "s": ["x"]}),
}


def test_lowering_modules_do_not_resolve():
    modules = sorted(LOWERING.glob("*.py"))
    assert len(modules) > 10  # the scan saw the lowerings, not an empty folder
    offenders = [path.name for path in modules if RESOLVES.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize(
    "line",
    [
        "from ..analysis.resolve import Context, Resolver",
        "from ..language.ruletree.nodes import SelectList",
        "    resolver = Resolver(scope)",
        "raise InvalidInput('X', 'y')",
        "from ..language.textx_parser import unquote_name",
    ],
)
def test_the_scan_catches_what_it_is_for(line):
    assert RESOLVES.search(line)


def test_validate_returns_checked_rules_and_no_plan():
    checked = validate("completeness c on t: s\nprofiling p on t: select max(a) as m, count(*) as n", frames=FRAMES)
    assert isinstance(checked, CheckedSuite) and not hasattr(checked, "plan")
    completeness, profiling = checked.rules
    # written out by hand: a row is incomplete where s is NULL; a's type comes from the frame
    assert completeness == CheckedCompleteness(completeness.spec, "t", IsNull(Field("s", STRING)))
    assert isinstance(profiling, CheckedQuery) and profiling.fused and profiling.source == "t"
    assert profiling.items == (
        (AggregateCall(AggFn.MAX, (Field("a", INTEGER),), INTEGER), "m"),
        (AggregateCall(AggFn.COUNT_ALL, (), INTEGER), "n"),
    )


def test_checked_rules_carry_decided_names_and_typed_expressions():
    text = (
        "accuracy acc on t, u: t.a = u.a when t.a > 0\n"
        "timeliness late on t: ts\n"
        "profiling p on t: select s, count(*) as n group by s order by n desc limit 5\n"
        "accuracy keyed on t, u: @Key ${source}['a'] === ${target}['a']; ${source}['s'] === ${target}['s'];\n"
    )
    accuracy, timeliness, profiling, keyed = validate(text, frames=FRAMES).rules
    assert isinstance(accuracy, CheckedAccuracy) and accuracy.prefix == "__target_"
    # Griffin's equality on integers: NULL-safe; the source-only conjunct chooses the judged rows
    assert accuracy.terms == (Call(Fn.EQ_NULL_SAFE, (Field("a", INTEGER), Field("__target_a", INTEGER)), BOOLEAN),)
    assert accuracy.judged == (Call(Fn.GT, (Field("a", INTEGER), Literal(0, INTEGER)), BOOLEAN),)
    assert accuracy.joined == () and accuracy.source_fields == (Field("a", INTEGER),)
    assert isinstance(timeliness, CheckedTimeliness)
    assert (timeliness.begin, timeliness.end) == (Field("ts", INTEGER), Literal(0, INTEGER))
    assert isinstance(profiling, CheckedQuery) and not profiling.fused and profiling.limit == 5
    assert profiling.grouping is not None
    assert profiling.grouping.keys == (Named(Field("s", STRING), "__group0"),)
    assert profiling.grouping.aggregates == (Named(AggregateCall(AggFn.COUNT_ALL, (), INTEGER), "__agg0"),)
    assert profiling.items == ((Field("__group0", STRING), "s"), (Field("__agg0", INTEGER), "n"))
    assert profiling.orders == (OrderKey(Field("__agg0", INTEGER), ascending=False),)
    assert isinstance(keyed, CheckedKeyedAccuracy) and len(keyed.keys) == 1 and len(keyed.mappings) == 1
    assert keyed.mappings[0][1] == "${source}['s'] === ${target}['s']"


def test_measures_are_checked_queries_or_sql_text_as_is():
    checked = validate(
        'completeness c on t: a\nmeasure m: select avg(a) from t\nmeasure n: sql "select 1"', frames=FRAMES
    )
    query, text = checked.measures
    assert isinstance(query, CheckedQuery)
    assert query.items == ((AggregateCall(AggFn.AVG, (Field("a", INTEGER),), DOUBLE), "avg(a)"),)
    assert type(text) is CheckedRule and text.spec.body == "select 1"


# Errors lowering used to raise while it built the plan, each at the place written by hand
# (line, column): validate raises them now, and compiling raises the very same error.
LATE_ERRORS = [
    ("profiling p on t: select s, a group by s", "NOT_GROUPED", (1, 29)),
    ("profiling p on t: select a limit 99999999999999999999", "LIMIT_TOO_LARGE", (1, 1)),
    ("profiling p on t: select a from u", "CONFLICTING_SOURCE", (1, 1)),
    ("profiling p on t: select a, a", "DUPLICATE_NAME", (1, 29)),
    ("accuracy x on t, u: t.a > 1", "NO_TARGET_COLUMN", (1, 1)),
    ("accuracy x on t, u: u.a > 1", "NO_SOURCE_COLUMN", (1, 1)),
    ("accuracy x on t, u: @Key ${source}['a'] === ${source}['a'];", "BAD_KEY", (1, 26)),
    ("accuracy x on t, u: ${source}['a'] === ${target}['a'];", "NO_KEY", (1, 1)),
    ("timeliness x on t: s", "TYPE_MISMATCH", (1, 20)),
    ("timeliness x on t: ts, ts as b, ts as c", "WRONG_ARITY", (1, 1)),
    ("completeness x on t: missing", "UNKNOWN_COLUMN", (1, 22)),
    ("completeness x on nowhere: a", "UNKNOWN_SOURCE", (1, 19)),
    ("uniqueness x on t, u: upper(s) = nosuch(s)", "UNKNOWN_FUNCTION", (1, 34)),
]


@pytest.mark.parametrize("text, code, position", LATE_ERRORS, ids=[case[1] for case in LATE_ERRORS])
def test_validate_raises_what_compiling_raised(text, code, position):
    with pytest.raises(InvalidInput) as checked:
        validate(text, frames=FRAMES)
    with pytest.raises(InvalidInput) as compiled:
        compile_source(text, frames=FRAMES)
    assert (checked.value.code, (checked.value.line, checked.value.column)) == (code, position)
    assert _described(checked.value) == _described(compiled.value)


def _described(error: InvalidInput) -> tuple:
    return error.code, error.message, error.location, error.text, error.hint
