"""Loading Griffin generation-B measures: what each becomes, shared scans, and located errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gryph.client import validate
from gryph.client.run.runner import compile_source
from gryph.compiler.errors import InvalidInput
from gryph.compiler.griffin import load_griffin_job
from gryph.compiler.plan import Aggregate, Read

USERS = "id,name,gender\n1,John Smith,Male\n2,John Smith,\n3,Rebecca Davis,Female\n"
GENDERS = "gender\nMale\n"


def _job(tmp_path: Path, measures: list[dict]) -> Path:
    (tmp_path / "users.csv").write_text(USERS)
    (tmp_path / "genders.csv").write_text(GENDERS)
    sources = [
        {
            "name": name,
            "connector": {
                "type": "file",
                "config": {"format": "csv", "options": {"header": "true", "inferSchema": "true"}, "paths": [file]},
            },
        }
        for name, file in (("source", "users.csv"), ("reference", "genders.csv"))
    ]
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "job", "data.sources": sources, "measures": measures}, indent=2))
    return path


def _measure(kind: str, config, name: str = "m", source: str = "source", out=({"type": "metric"},)) -> dict:
    return {"name": name, "type": kind, "data.source": source, "config": config, "out": list(out)}


def _at(path: Path, needle: str, skip: int = 0) -> tuple[int, int]:
    """Line and column of the ``skip``-th occurrence of ``needle`` in the job file."""
    text = path.read_text()
    index = -1
    for _ in range(skip + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _error(path: Path) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        validate(path)
    return info.value


def _located(error: InvalidInput) -> tuple:
    return error.code, error.line, error.column


# -- what measures become --------------------------------------------------------------------------


def test_measures_load_as_rules_with_griffin_outputs(tmp_path):
    path = _job(
        tmp_path,
        [
            _measure(
                "Completeness",
                {"expr": "name is not null"},
                "comp",
                out=({"type": "metric", "name": "ignored", "flatten": "array"}, {"type": "record"}),
            ),
            _measure("profiling", {}, "prof", out=({"type": "metric"}, {"type": "record"})),
            _measure("SPARKSQL", {"expr": "select * from source", "bad.record.definition": "id > 1"}, "sql", out=()),
        ],
    )
    suite = load_griffin_job(path)
    comp, prof, sql = suite.rules
    assert [r.kind for r in suite.rules] == ["griffin.completeness", "griffin.profiling", "griffin.sparksql"]
    # Griffin writes metrics and records under the measure's name, with its default layout
    assert (comp.metric.name, comp.metric.flatten, comp.record_name) == ("comp", "map", "comp")
    assert prof.record_name is None  # profiling writes no records in Griffin
    assert sql.metric is None and sql.record_name is None  # no out: nothing written
    assert [v.name for v in suite.views] == ["sql__query"]


def test_measures_on_one_source_share_one_scan(tmp_path):
    path = _job(
        tmp_path,
        [
            _measure("completeness", {"expr": "name is not null"}, "a"),
            _measure("schemaConformance", {"expr": [{"source.col": "id", "type": "int"}]}, "b"),
            _measure("profiling", {"expr": "name"}, "c"),
        ],
    )
    plan = compile_source(path).plan
    scans = [
        q
        for q in plan.queries
        if isinstance(q.relation.input, Aggregate)
        and isinstance(q.relation.input.input, Read)
        and q.relation.input.input.source == "source"
    ]
    assert len(scans) == 1


# -- located errors ----------------------------------------------------------------------------------

# a value that names nothing known: located at the value, the closest known name as hint
NAMES_NOTHING = {
    "measure_type": (
        _measure("duplicaton", {"bad.record.definition": "duplicate"}),
        '"duplicaton"',
        "UNKNOWN_MEASURE_TYPE",
        "duplication",
    ),
    "source": (_measure("completeness", {"expr": "id > 0"}, source="sorce"), '"sorce"', "UNKNOWN_SOURCE", "source"),
    "bad_record_definition": (
        _measure("duplication", {"bad.record.definition": "duplicates"}),
        '"duplicates"',
        "BAD_RECORD_DEFINITION",
        "duplicate",
    ),
    "reference_column": (
        _measure("accuracy", {"ref.source": "reference", "expr": [{"source.col": "gender", "ref.col": "gendr"}]}),
        '"gendr"',
        "UNKNOWN_COLUMN",
        "gender",
    ),
    "conformance_type": (
        _measure("schemaConformance", {"expr": [{"source.col": "id", "type": "integr"}]}),
        '"integr"',
        "UNKNOWN_TYPE",
        "integer",
    ),
}


@pytest.mark.parametrize("case", sorted(NAMES_NOTHING))
def test_value_naming_nothing_known(tmp_path, case):
    measure, needle, code, closest = NAMES_NOTHING[case]
    path = _job(tmp_path, [measure])
    error = _error(path)
    assert _located(error) == (code, *_at(path, needle))
    assert error.hint == f"did you mean {closest!r}?"


def test_accuracy_without_ref_source(tmp_path):
    path = _job(tmp_path, [_measure("accuracy", {"expr": [{"source.col": "gender", "ref.col": "gender"}]})])
    error = _error(path)
    line, column = _at(path, '"config": ', 2)  # the first two belong to the data sources
    assert _located(error) == ("MISSING_REF_SOURCE", line, column + len('"config": '))


def test_spark_sql_bad_record_definition_not_boolean(tmp_path):
    path = _job(tmp_path, [_measure("sparkSQL", {"expr": "select * from source", "bad.record.definition": "name"})])
    error = _error(path)
    line, column = _at(path, '"bad.record.definition": "name"')
    assert _located(error) == ("TYPE_MISMATCH", line, column + len('"bad.record.definition": "'))


def test_duplicate_measure_names(tmp_path):
    path = _job(
        tmp_path,
        [_measure("completeness", {"expr": "id > 0"}, "same"), _measure("completeness", {"expr": "id > 1"}, "same")],
    )
    assert _located(_error(path)) == ("DUPLICATE_MEASURE", *_at(path, '"same"', 1))


def test_unknown_column_in_duplication_expr(tmp_path):
    path = _job(tmp_path, [_measure("duplication", {"expr": "id, nmae", "bad.record.definition": "unique"})])
    error = _error(path)
    line, column = _at(path, "nmae")
    assert _located(error) == ("UNKNOWN_COLUMN", line, column)
    assert error.hint == "did you mean 'name'?"


def test_unknown_column_in_completeness_expr(tmp_path):
    path = _job(tmp_path, [_measure("completeness", {"expr": "id > 0 and nam is not null"})])
    error = _error(path)
    line, column = _at(path, "nam is")
    assert (error.line, error.column) == (line, column)


def test_completeness_expr_syntax_error(tmp_path):
    path = _job(tmp_path, [_measure("completeness", {"expr": "name is not"})])
    error = _error(path)
    assert (error.code, error.line) == ("SYNTAX_ERROR", _at(path, '"name is not"')[0])


@pytest.mark.parametrize(
    "config, needle, code",
    [
        ("not an object", '"not an object"', "BAD_CONFIG"),
        ({"round.scale": "2"}, '"2"', "BAD_CONFIG"),
        ({"approx.distinct.count": "false"}, '"false"', "BAD_CONFIG"),
        ({"dataset.sample": 0.5}, "0.5", "UNSUPPORTED"),
    ],
)
def test_profiling_config_of_wrong_type(tmp_path, config, needle, code):
    path = _job(tmp_path, [_measure("profiling", config)])
    assert _located(_error(path)) == (code, *_at(path, needle))


def test_cli_reports_a_located_error_with_exit_code_2(tmp_path):
    path = _job(tmp_path, [_measure("duplication", {"expr": "id, nmae", "bad.record.definition": "unique"})])
    done = subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", "validate", str(path)], capture_output=True, text=True
    )
    line, column = _at(path, "nmae")
    assert done.returncode == 2
    assert f"job.json:{line}:{column}" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_spark_sql_expr_must_be_one_query(tmp_path):
    # the query is wrapped in SELECT * FROM (...): a second statement cannot run
    path = _job(
        tmp_path,
        [_measure("sparkSQL", {"expr": "select * from source; drop table source", "bad.record.definition": "id > 1"})],
    )
    error = _error(path)
    assert (error.line, error.column) == _at(path, '"select * from source;')
