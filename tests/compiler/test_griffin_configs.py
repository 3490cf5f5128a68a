"""Loading Griffin job configs: every form Griffin reads, and bad input as located errors
(file, line and column of the JSON value, a code and a hint), never a Python exception."""

from __future__ import annotations

import json

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.griffin import load_griffin_job

SOURCE = {"name": "src", "connector": {"type": "file", "config": {"format": "parquet", "paths": ["x.parquet"]}}}
RULE = {"dsl.type": "griffin-dsl", "dq.type": "completeness", "out.dataframe.name": "c", "rule": "id"}


def job(**fields) -> dict:
    return {
        "name": "j",
        "process.type": "batch",
        "data.sources": [SOURCE],
        "evaluate.rule": {"rules": [RULE]},
        **fields,
    }


def write(tmp_path, config, indent=2) -> str:
    path = tmp_path / "job.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config, indent=indent), encoding="utf-8")
    return str(path)


def error_of(tmp_path, config) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        load_griffin_job(write(tmp_path, config))
    return caught.value


def position(text: str, needle: str) -> tuple[int, int]:
    """Line and column (1-based) of the first occurrence of ``needle`` in ``text``."""
    index = text.index(needle)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


@pytest.mark.parametrize(
    "name, kind",
    [
        ("DISTINCT", "distinctness"),
        ("distinct", "distinctness"),
        ("Duplicate", "uniqueness"),
        ("UNIQUENESS", "uniqueness"),
        ("Accuracy", "accuracy"),
        ("distinctness", "distinctness"),
    ],
)
def test_griffin_dq_type_names_case_insensitive(tmp_path, name, kind):
    rule = dict(RULE, **{"dq.type": name, "rule": "src.id = tgt.id" if kind == "accuracy" else "id"})
    target = {"name": "tgt", "connector": SOURCE["connector"]}
    suite = load_griffin_job(
        write(tmp_path, job(**{"data.sources": [SOURCE, target], "evaluate.rule": {"rules": [rule]}}))
    )
    assert suite.rules[0].kind == kind


def test_dsl_type_spelled_as_griffin_reads_it(tmp_path):
    rules = [dict(RULE, **{"dsl.type": "GriffinDsl"}), {"dsl.type": "SparkSql", "rule": "select 1 as one"}]
    suite = load_griffin_job(write(tmp_path, job(**{"evaluate.rule": {"rules": rules}})))
    assert [rule.kind for rule in suite.rules] == ["completeness", "sql"]


def test_wrong_json_types_are_located(tmp_path):
    config = job()
    config["data.sources"] = [{"name": "src", "connector": 5}]
    text = json.dumps(config, indent=2)
    error = error_of(tmp_path, text)
    assert error.code == "BAD_CONFIG"
    assert "data.sources[0].connector must be an object" in error.message
    assert (error.line, error.column) == position(text, "5\n")


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("evaluate.rule", "rules"), True, "evaluate.rule.rules must be a list"),
        (("data.sources",), {"a": 1}, "data.sources must be a list"),
        (("name",), ["x"], "name must be a string"),
        (("process.type",), None, None),  # null: Griffin's default (batch)
    ],
)
def test_values_of_other_types(tmp_path, path, value, message):
    config = job()
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    if message is None:
        assert load_griffin_job(write(tmp_path, config)).rules
        return
    error = error_of(tmp_path, config)
    assert message in error.message and error.line is not None and error.column is not None


def test_unknown_dq_type_hints_the_closest(tmp_path):
    text = json.dumps(job(**{"evaluate.rule": {"rules": [dict(RULE, **{"dq.type": "completness"})]}}), indent=2)
    error = error_of(tmp_path, text)
    assert error.code == "UNKNOWN_RULE_TYPE"
    assert "completeness" in error.hint
    assert (error.line, error.column) == position(text, '"completness"')


def test_unknown_rule_column_points_into_the_rule_text(tmp_path):
    text = json.dumps(job(**{"evaluate.rule": {"rules": [dict(RULE, rule="id, emial")]}}), indent=2)
    path = write(tmp_path, text)
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gryph.client import validate

    pq.write_table(pa.table({"id": [1], "email": ["a"]}), tmp_path / "x.parquet")
    with pytest.raises(InvalidInput) as caught:
        validate(path)
    line, column = position(text, "emial")
    assert (caught.value.code, caught.value.line, caught.value.column) == ("UNKNOWN_COLUMN", line, column)
    assert "email" in caught.value.hint


def test_connectors_griffin_does_not_reach_here_are_named(tmp_path):
    config = job(**{"data.sources": [{"name": "k", "connector": {"type": "KAFKA", "config": {}}}]})
    error = error_of(tmp_path, config)
    assert error.code == "UNSUPPORTED" and "kafka" in error.message and "'k'" in error.message


def test_a_streaming_job_without_a_stream_is_refused_by_name(tmp_path):
    error = error_of(tmp_path, job(**{"process.type": "streaming"}))
    assert error.code == "BAD_CONFIG" and "no data source reads a kafka connector" in error.message
    other = error_of(tmp_path, job(**{"process.type": "micro-batch"}))
    assert other.code == "BAD_CONFIG" and "streaming" in str(other)


def test_neither_measures_nor_rules(tmp_path):
    config = job()
    del config["evaluate.rule"]
    error = error_of(tmp_path, config)
    assert error.code == "BAD_CONFIG" and "neither measures nor evaluate.rule" in error.message


def test_env_json_given_as_the_job_gets_a_hint(tmp_path):
    error = error_of(tmp_path, {"spark": {"config": {}}, "sinks": [{"name": "c", "type": "console"}]})
    assert "env.json" in error.message and "--env" in error.hint


def test_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "job.json"
    path.write_bytes(b'{\n  "name": "caf\xe9"\n}')
    with pytest.raises(InvalidInput) as caught:
        load_griffin_job(str(path))
    assert (caught.value.code, caught.value.line, caught.value.column) == ("BAD_ENCODING", 2, 15)


def test_where_filter_must_be_one_condition(tmp_path):
    connector = {"type": "hive", "config": {"table.name": "t", "where": "dt = '1' UNION SELECT * FROM secrets"}}
    error = error_of(tmp_path, job(**{"data.sources": [{"name": "src", "connector": connector}]}))
    assert error.code == "BAD_CONFIG" and "single condition" in error.message


def test_csv_needs_a_header_option_or_a_schema_as_in_griffin(tmp_path):
    connector = {"type": "file", "config": {"format": "csv", "paths": ["x.csv"]}}
    error = error_of(tmp_path, job(**{"data.sources": [{"name": "src", "connector": connector}]}))
    assert "options.header" in error.message


def test_file_formats_griffin_names(tmp_path):
    for name, fmt in (("com.databricks.spark.avro", "avro"), ("TEXT", "text"), ("tsv", "tsv")):
        connector = {"type": "file", "config": {"format": name, "paths": ["x"], "options": {"header": True}}}
        suite = load_griffin_job(write(tmp_path, job(**{"data.sources": [{"name": "src", "connector": connector}]})))
        assert suite.sources["src"].format == fmt


def test_avro_connector_with_a_folder_only(tmp_path):
    connector = {"type": "avro", "config": {"file.path": "data/avro"}}
    suite = load_griffin_job(write(tmp_path, job(**{"data.sources": [{"name": "src", "connector": connector}]})))
    assert suite.sources["src"].paths == (str(tmp_path.resolve() / "data/avro"),)


def test_skip_error_paths_leaves_missing_paths_out(tmp_path):
    (tmp_path / "here.parquet").write_bytes(b"")
    config = {"format": "parquet", "paths": ["here.parquet", "gone.parquet"], "skipErrorPaths": True}
    with pytest.warns(UserWarning, match="gone.parquet"):
        suite = load_griffin_job(
            write(tmp_path, job(**{"data.sources": [{"name": "src", "connector": {"type": "file", "config": config}}]}))
        )
    assert suite.sources["src"].paths == (str(tmp_path.resolve() / "here.parquet"),)


def test_out_types_and_flatten_names(tmp_path):
    rule = dict(RULE, out=[{"type": "metric", "name": "m", "flatten": "list"}, {"type": "records", "name": "bad"}])
    suite = load_griffin_job(write(tmp_path, job(**{"evaluate.rule": {"rules": [rule]}})))
    assert (suite.rules[0].metric.flatten, suite.rules[0].record_name) == ("array", "bad")
    error = error_of(
        tmp_path, job(**{"evaluate.rule": {"rules": [dict(RULE, out=[{"type": "metric", "flatten": "arry"}])]}})
    )
    assert "array" in error.hint


def test_duplicate_data_source_names_keep_the_first(tmp_path):
    second = {"name": "src", "connector": {"type": "file", "config": {"format": "orc", "paths": ["y.orc"]}}}
    suite = load_griffin_job(write(tmp_path, job(**{"data.sources": [SOURCE, second]})))
    assert suite.sources["src"].format == "parquet"


def test_json_schema_inferred_by_sparks_rules():
    from gryph.compiler.griffin.json_frames import infer_json_schema
    from gryph.compiler.plan.data_types import BOOLEAN, DOUBLE, INTEGER, JSON, STRING

    schema = infer_json_schema(
        [
            '{"b": 1, "a": true, "c": null}',
            '{"b": 2.5, "d": [1], "e": 1}',
            '{"e": "x", "f": {"g": 1}}',
            "[1, 2]",
            "not json",
            None,
        ]
    )
    # fields by name; 1 and 2.5 are double; 1 and "x" are text; always null is text
    assert [(c.name, c.dtype) for c in schema.columns] == [
        ("a", BOOLEAN),
        ("b", DOUBLE),
        ("c", STRING),
        ("d", JSON),
        ("e", STRING),
        ("f", JSON),
    ]
    assert infer_json_schema(['{"n": 9223372036854775807}']).columns[0].dtype == INTEGER
