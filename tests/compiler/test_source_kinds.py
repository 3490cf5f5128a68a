"""compiler/source_kinds.py against the code that reads it: the types it declares for an option
are the ones the source checks accept, and every family holds what SourceSpec requires."""

from __future__ import annotations

import re

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.source_kinds import SOURCE_KINDS, SourceKind, dsl_keywords
from gryph.compiler.suites.native_suites import parse_suite
from tests.support.gryph_cli import ROOT

# a declaration of each kind that the checks accept, its options added after it
VALID = {
    SourceKind.POSTGRES: 'postgres("postgresql://u@127.0.0.1:5432/db", table = "t"',
    SourceKind.MYSQL: 'mysql("mysql://u@127.0.0.1:3306/db", table = "t"',
    SourceKind.SQLITE: 'sqlite("shop.db", table = "t"',
    SourceKind.KAFKA: 'kafka("127.0.0.1:9092", topic = "clicks"',
    SourceKind.FOLDER: 'folder("landing", schema = "id bigint"',
    SourceKind.DELTA: 'delta("lake/orders"',
    SourceKind.ICEBERG: 'iceberg("lake/items"',
    SourceKind.CSV: 'csv("d.csv"',
    SourceKind.TSV: 'tsv("d.tsv"',
    SourceKind.JSON: 'json("d.json"',
}
# a value of each declared type, and one of none of them
SAMPLES = {str: '"ünï"', int: "3", bool: "true"}
# each option of a type it does not declare (the text options that name what is read left out)
REFUSED = [
    (kind.value, option.name, python_type)
    for kind, spec in SOURCE_KINDS.items()
    for option in spec.options
    for python_type in SAMPLES
    if kind in VALID
    and option.types
    and python_type not in option.types
    and option.name not in ("table", "query", "topic")
]


def _parse(kind: SourceKind, option: str, value: str, tmp_path) -> None:
    text = f"suite s\nsource src = {VALID[kind]}, {option} = {value})\ncompleteness c on src: id\n"
    parse_suite(text, "s.dq", tmp_path)


def test_every_declared_kind_with_options_has_a_valid_declaration_here():
    assert {kind for kind, spec in SOURCE_KINDS.items() if spec.options} == set(VALID)


@pytest.mark.parametrize(("kind", "option", "python_type"), REFUSED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_an_option_of_a_type_its_kind_does_not_declare_is_refused_at_the_source(kind, option, python_type, tmp_path):
    with pytest.raises(InvalidInput) as info:
        _parse(SourceKind(kind), option, SAMPLES[python_type], tmp_path)
    assert info.value.code == "BAD_SOURCE" and info.value.location.line == 2


def test_text_and_frame_are_no_keywords_of_the_dsl():
    assert set(SOURCE_KINDS) - set(dsl_keywords()) == {SourceKind.TEXT, SourceKind.FRAME}


# each option of a number or flag type, with a value of that type (1: num_partitions alone must be 1)
ACCEPTED_VALUES = {int: "1", bool: "true"}
ACCEPTED = [
    (kind.value, option.name, python_type)
    for kind, spec in SOURCE_KINDS.items()
    for option in spec.options
    for python_type in (int, bool)
    if kind in VALID and python_type in option.types
]


@pytest.mark.parametrize(("kind", "option", "python_type"), ACCEPTED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_an_option_of_its_declared_type_is_accepted(kind, option, python_type, tmp_path):
    _parse(SourceKind(kind), option, ACCEPTED_VALUES[python_type], tmp_path)


def test_code_branches_on_a_source_kind_string_in_few_places():
    """A source kind's properties are read from its declaration (source_kinds.py) or from an
    engine's table of readers, not by comparing the kind's name: at most 10 such comparisons stay
    in the code (issue 41: 76 by this count before), among them a Kafka value's format and
    Griffin's connector types, which merely share words with the kinds."""
    pattern = re.compile(
        r'(\.format|\bfmt|\bdatabase\.kind|self\.kind|\bkind)\s*(==|!=|in\b|not in\b)\s*\(?"('
        + "|".join(kind.value for kind in SourceKind)
        + r')"'
        r"|(\.format|\bfmt)\s*(==|!=|in\b|not in\b)"
    )
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("compiler", "client", "local_backend")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and "args.format" not in line
    ]
    assert len(found) <= 10, found
