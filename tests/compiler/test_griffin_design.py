"""The older Griffin design's syntax: heads, selections, WHEN/IF, index hints, statements."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language.textx_parser import parse
from gryph.compiler.plan import Join, format_scalar, walk_relations
from gryph.compiler.plan.data_types import INTEGER, STRING, array, schema
from tests.compiler.compiler_support import compile_text

EVENTS = schema(("uid", INTEGER), ("first", INTEGER), ("tags", array(STRING)), ("value", STRING), ("__time", INTEGER))
SCHEMAS = {"src": EVENTS, "tgt": EVENTS}


def error_of(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        compile_text(text, SCHEMAS)
    return info.value


@pytest.mark.parametrize(
    "body,form",
    [
        ("$source.uid = $target.uid", "WhenRule"),
        ('$source.uid = $target.uid WHEN $source.first > 0 index: "uid"', "WhenRule"),
        ("IF ($source.__time + 24h <= $target.__time) $source.uid = $target.uid", "IfRule"),
        (
            "SLA = 24h; @Invalid ${source}['__time'] + ${SLA} > ${target}['__time'];\n"
            "@Key ${source}['uid'] === ${target}['uid']; ${source}['first'] === ${target}['first'];",
            "StatementRule",
        ),
    ],
)
def test_accuracy_body_forms(body, form):
    model = parse("suite", f"accuracy a on src, tgt: {body}")
    assert type(model.statements[0].rule).__name__ == form
    compile_text(f"accuracy a on src, tgt: {body}", SCHEMAS)


def test_griffin_config_rule_text_takes_the_same_forms():
    assert type(parse("accuracy", "@Key $source.uid === $target.uid;").body).__name__ == "StatementRule"


# What each selection compares with the target, from the rules of docs/language.md: indexes are 0-based, a
# selection that yields several values stands for the first of them.
@pytest.mark.parametrize(
    "selection,compared",
    [
        ("$source.tags[$source.first]", "element_at(tags, first)"),
        ("$source.tags[1 + 2]", "element_at(tags, (1 + 2))"),
        ("$source.tags[(0, -1)]", "element_at(slice(tags, 0, -1), 0)"),
        ("$source.tags[*]", "element_at(tags, 0)"),
        (
            "$source.json().a['b'][0]",
            "CAST(element_at(json_items(json_field(json_field(json_parse(value), 'a'), 'b')), 0) AS string)",
        ),
        ("$source.json().list['name' = 'URL'].values[0]", "(CAST(json_field(__e0, 'name') AS string) = 'URL')"),
        ("${source}['value'].json().x", "CAST(json_field(json_parse(value), 'x') AS string)"),
    ],
)
def test_selections_compile(selection, compared):
    compiled = compile_text(f"accuracy a on src, tgt: {selection} = $target.value", SCHEMAS)
    joins = [r for q in compiled.plan.queries for r in walk_relations(q.relation) if isinstance(r, Join)]
    assert joins and all(compared in format_scalar(join.on) for join in joins)
    assert all("__target_value" in format_scalar(join.on) for join in joins)


def test_an_index_may_not_read_the_other_head():
    line = "    $source.tags[$target.first] = $target.value"
    error = error_of("accuracy a on src, tgt:\n" + line)
    assert (error.code, error.line, error.column) == ("CROSS_HEAD_SELECTION", 2, line.index("[") + 1)


def test_a_filter_may_not_read_the_other_head():
    line = "$source.json().xs['n' = $target.value].v = $target.value"
    error = error_of("accuracy a on src, tgt: " + line)
    prefix = len("accuracy a on src, tgt: ")
    assert (error.code, error.line, error.column) == ("CROSS_HEAD_SELECTION", 1, prefix + line.index("[") + 1)


@pytest.mark.parametrize(
    "body,code",
    [
        ("$nope.uid = $target.uid", "UNKNOWN_NAME"),
        ("$source = $target.uid", "HEAD_NEEDS_SELECTION"),
        ("$source.value.x = $target.value", "NOT_A_STRUCT"),
        ('$source.uid = $target.uid index: "first"', "INDEX_NOT_A_KEY"),
        ("${source}['uid'] === ${target}['uid'];", "NO_KEY"),
        ("@Key ${source}['uid'] === ${source}['first'];", "BAD_KEY"),
        ("$source.json().a = $target.tags", "TYPE_MISMATCH"),
    ],
)
def test_errors(body, code):
    assert error_of(f"accuracy a on src, tgt: {body}").code == code
