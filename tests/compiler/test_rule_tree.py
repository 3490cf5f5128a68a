"""The parser boundary: what leaves the parser is the typed rule tree, never a textX object.

Every rule, measure and check of the test corpus (the conformance cases, the example, golden and
benchmark suites, the Griffin job configs) is walked down to its leaves; and no module after the
parser imports textX or dispatches on class names.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from gryph.compiler.errors import GryphError, Location
from gryph.compiler.griffin.job import load_griffin_job
from gryph.compiler.language.ruletree import check_nodes, nodes
from gryph.compiler.language.ruletree.convert import parse_rule_text
from gryph.compiler.plan.data_types import DataType
from gryph.compiler.suites import griffin_measure_specs as griffin_measures
from gryph.compiler.suites.native_suites import parse_suite, parse_suite_file
from gryph.compiler.suites.suite import NativeSql, Suite
from gryph.compiler.suites.suite_variables import take_data_time

ROOT = Path(__file__).resolve().parents[2]
COMPILER = ROOT / "compiler"
# the parser: textX, its object processors, and the conversion into the rule tree
PARSER_MODULES = {
    "language/textx_parser.py",
    "language/grammar_cache.py",
    "language/precedence.py",
    "language/value_lists.py",
    "language/ruletree/convert.py",
    "language/ruletree/convert_suite.py",
}
LEAVES = (str, int, float, bool, type(None), Location, DataType)
TEXTX_IMPORT = re.compile(r"^\s*(from|import)\s+textx\b", re.M)
CLASS_NAME_CHECK = re.compile(r"type\([^)]*\)\.__name__\s*(==|!=|\bin\b|\bnot in\b)|\"_\"\s*\+\s*type\(")


def foreign_objects(value: object) -> list[str]:
    """Paths to every object under ``value`` that is neither a tree node nor a plain value."""
    found, stack = [], [(value, "body")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, LEAVES):
            continue
        if isinstance(item, tuple):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
        elif isinstance(item, (nodes.Node, NativeSql)) or type(item).__module__ == griffin_measures.__name__:
            stack.extend((getattr(item, f.name), f"{path}.{f.name}") for f in dataclasses.fields(item))
        else:
            found.append(f"{path}: {type(item).__module__}.{type(item).__name__}")
    return found


def assert_typed(suite: Suite) -> None:
    for rule in [*suite.rules, *suite.measures]:
        assert foreign_objects(rule.body) == [], rule.name
    for check in suite.checks:
        assert isinstance(check.expr, nodes.Node)
        assert foreign_objects(check.expr) == [], check.name


def corpus_suites() -> list[tuple[str, Suite]]:
    suites = []
    for path in sorted((ROOT / "tests/conformance/cases").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            text, _, _ = take_data_time(case["suite"], None)  # a run's data time, as load_suite takes it
            suites.append((case["name"], parse_suite(text, known_sources=tuple(case["tables"]))))
    for folder in ("examples", "tests/compiler/golden", "benchmarks"):
        for path in sorted((ROOT / folder).glob("*.dq")):
            suites.append((path.name, parse_suite_file(path)))
    for folder in ("examples/griffin", "tests/data/griffin/configs"):
        for path in sorted((ROOT / folder).glob("*.json")):
            try:
                suites.append((path.name, load_griffin_job(path)))
            except GryphError:
                continue  # the env config, and configs kept malformed on purpose
    return suites


def test_every_rule_of_the_corpus_is_a_typed_tree():
    suites = corpus_suites()
    kinds = {rule.kind for _, suite in suites for rule in suite.rules}
    # the corpus reaches every DQ type of the DSL and Griffin's measures
    assert {"accuracy", "profiling", "completeness", "uniqueness", "distinctness", "timeliness", "freshness"} <= kinds
    assert any(kind.startswith("griffin.") for kind in kinds)
    assert any(suite.checks for _, suite in suites)
    for _, suite in suites:
        assert_typed(suite)


def test_the_walker_finds_a_foreign_object():
    class Stranger:
        pass

    node = nodes.Paren(nodes.Name("a", location=Location(), text="a"), location=Location(), text="(a)")
    assert foreign_objects(node) == []
    bad = dataclasses.replace(node, expr=Stranger())
    assert foreign_objects(bad) == [f"body.expr: {__name__}.Stranger"]


def test_nodes_carry_file_line_column_and_text():
    suite = parse_suite(
        "source users = csv('u.csv')\n"
        "profiling p on users:\n"
        "  select `odd name` as n, count(*)\n"
        "  where age > 3d and not flag\n"
        'check "c": measures["m"] > 1\n'
        'measure "m" on users: select count(*)\n',
        file="s.dq",
    )
    query = suite.rules[0].body
    assert isinstance(query, nodes.SelectQuery)
    first = query.items[0]
    assert (first.location, first.text) == (Location("s.dq", 3, 10), "`odd name` as n")
    assert first.expr == nodes.Name("odd name", location=Location("s.dq", 3, 10), text="`odd name`")
    assert first.alias == "n"
    where = query.where
    assert isinstance(where, nodes.Logical) and where.op == "and"
    age, flag = where.operands
    assert isinstance(age, nodes.Compare) and age.location == Location("s.dq", 4, 9)
    assert age.right == nodes.TimeLit(3 * 86_400_000, location=Location("s.dq", 4, 15), text="3d")
    assert isinstance(flag, nodes.Not) and flag.count == 1 and flag.text == "not flag"
    check = suite.checks[0].expr
    assert isinstance(check, check_nodes.CheckChain) and check.ops == (">",)
    assert check.text == 'measures["m"] > 1'
    assert check.location == Location("s.dq", 5, 12)


def test_rule_text_inside_a_larger_file_is_placed_by_its_offsets():
    # a Griffin rule's text starts one column after its JSON string's quote: line 7, column 21
    body = parse_rule_text("selections", "a,\n  b.c", "job.json", 6, 20)
    assert isinstance(body, nodes.SelectList)
    a, bc = (item.expr for item in body.items)
    assert a.location == Location("job.json", 7, 21)  # line 1 of the text moves right by the offset
    assert bc.location == Location("job.json", 8, 3)  # later lines keep their own columns
    assert isinstance(bc, nodes.Selection) and bc.steps == (
        nodes.FieldStep("c", location=Location("job.json", 8, 4), text=".c"),
    )


def _after_parser() -> list[Path]:
    return [
        path for path in sorted(COMPILER.rglob("*.py")) if path.relative_to(COMPILER).as_posix() not in PARSER_MODULES
    ]


def test_no_module_after_the_parser_reads_textx():
    after = _after_parser()
    assert len(after) > 50  # the walk saw the compiler, not an empty folder
    offenders = [
        path.relative_to(COMPILER).as_posix()
        for path in after
        if TEXTX_IMPORT.search(text := path.read_text(encoding="utf-8")) or CLASS_NAME_CHECK.search(text)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "line",
    [
        'if type(node).__name__ == "Star":',
        'while type(node).__name__ in ("OrExpr", "AndExpr"):',
        'method = getattr(self, "_" + type(node).__name__, None)',
        "from textx import get_model",
    ],
)
def test_the_boundary_patterns_catch_what_they_are_for(line):
    assert TEXTX_IMPORT.search(line) or CLASS_NAME_CHECK.search(line)
