"""Streaming sources and triggers that can never be read are located errors when the suite is
read (exit 2), before any broker or folder is touched; both parsers read the declarations alike."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from gryph.compiler.language.ruletree.convert_suite import SuiteConverter
from gryph.compiler.language.ruletree.fast import fast_suite_tree
from gryph.compiler.language.textx_parser import parse

RULE = "completeness c on s: id\n"
KAFKA = 'source s = kafka("127.0.0.1:9", topic = "t", format = "json", schema = "id bigint"{extra})\n'


@pytest.mark.parametrize(
    ("source", "code", "near", "hint"),
    [
        (
            KAFKA.format(extra=", max_record_per_batch = 5"),
            "BAD_SOURCE",
            "max_record_per_batch",
            "max_records_per_batch",
        ),
        (KAFKA.format(extra=", starting = 'oldest'"), "BAD_SOURCE", "oldest", None),
        (KAFKA.format(extra=", on_malformed = 'skip'"), "BAD_SOURCE", "skip", None),
        (KAFKA.format(extra=", max_records_per_batch = 0"), "BAD_SOURCE", "0", None),
        (KAFKA.format(extra=", accept_data_loss = 'yes'"), "BAD_SOURCE", "yes", None),
        ('source s = kafka("127.0.0.1:9", format = "json", schema = "id bigint")\n', "BAD_SOURCE", "s", "topic"),
        (
            'source s = kafka("127.0.0.1:9", topic = "t", format = "xml", schema = "id bigint")\n',
            "BAD_SOURCE",
            "xml",
            None,
        ),
        ('source s = kafka("127.0.0.1:9", topic = "t", format = "json")\n', "BAD_SOURCE", "s", "schema"),
        (
            'source s = kafka("127.0.0.1:9", topic = "t", format = "json", schema = "id bigint, offset bigint")\n',
            "BAD_SOURCE",
            "offset",
            "rename",
        ),
        ('source s = folder("in/", format = "orc", schema = "id bigint")\n', "BAD_SOURCE", "orc", None),
        (
            'source s = folder("in/", format = "csv", schema = "id bigint", settle = "soon")\n',
            "BAD_SOURCE",
            "soon",
            None,
        ),
    ],
)
def test_a_stream_that_cannot_be_read_is_a_located_error(tmp_path, capsys, source, code, near, hint):
    suite = tmp_path / "s.dq"
    suite.write_text(source + RULE, encoding="utf-8")
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    assert f"s.dq:1:1: error {code}" in err and f"near: {near}" in err
    if hint:
        assert hint in err


@pytest.mark.parametrize(
    ("trigger", "problem"), [("stream every 30s\nstream every 1m\n", "given twice"), ("stream every 0s\n", "no time")]
)
def test_a_trigger_given_twice_or_of_no_time_is_an_error(tmp_path, capsys, trigger, problem):
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source s = folder("in/", format = "json", schema = "id bigint")\n' + trigger + RULE, encoding="utf-8"
    )
    assert main(["validate", str(suite)]) == 2
    assert problem in capsys.readouterr().err


def test_both_parsers_read_stream_declarations_alike():
    text = (
        'suite s\nsource k = kafka("h:1", topics = "a,b", format = "text", kafka.security.protocol = "SSL")\n'
        'source f = folder("in/", format = "csv", schema = "id bigint", settle = "2s", max_files_per_batch = 3)\n'
        "stream every 45s\n" + RULE.replace(" on s:", " on f:")
    )
    fast = fast_suite_tree(text, "x.dq")
    model = parse("suite", text, "x.dq")
    converter = SuiteConverter(text, "x.dq")
    assert fast is not None
    assert fast.statements == tuple(converter.statement(statement) for statement in model.statements)
    assert fast.statements[2].interval_ms == 45_000
