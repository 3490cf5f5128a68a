"""Griffin config keys: a key Griffin does not know is a located warning whose hint names the
known key (an error with --strict); a quoted flag is an error naming its key; a required key's
hint names the user's misspelling of it, never suggests writing it again."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.griffin.job import load_griffin_job
from gryph.compiler.griffin.known_keys import UnknownKeyWarning

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"


def job(tmp_path: Path, edit=lambda config: None) -> Path:
    """examples/griffin/accuracy.json's shape over the bundled avro files, edited by ``edit``."""
    source = {"type": "avro", "version": "1.7", "config": {"file.name": str(DATA / "users_info_src.avro")}}
    target = {"type": "avro", "version": "1.7", "config": {"file.name": str(DATA / "users_info_target.avro")}}
    config = {
        "name": "accu",
        "process.type": "batch",
        "data.sources": [
            {"name": "source", "baseline": True, "connector": source},
            {"name": "target", "connector": target},
        ],
        "evaluate.rule": {
            "rules": [
                {
                    "dsl.type": "griffin-dsl",
                    "dq.type": "accuracy",
                    "out.dataframe.name": "accu",
                    "rule": "source.user_id = target.user_id",
                    "details": {"source": "source", "target": "target", "total": "total_count"},
                    "out": [{"type": "metric", "name": "accu"}],
                }
            ]
        },
    }
    edit(config)
    path = tmp_path / "job.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def rename(obj: dict, old: str, new: str) -> None:
    obj[new] = obj.pop(old)


def rule(config: dict) -> dict:
    return config["evaluate.rule"]["rules"][0]


def unknown_keys(path: Path) -> list[InvalidInput]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_griffin_job(path)
    return [w.message.error for w in caught if isinstance(w.message, UnknownKeyWarning)]


def test_a_config_of_known_keys_warns_of_nothing(tmp_path):
    assert unknown_keys(job(tmp_path)) == []
    for config in sorted((ROOT / "tests" / "data" / "griffin" / "configs").glob("*.json")):
        if "env" in config.name or "malformed" in config.name:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnknownKeyWarning)
            load_griffin_job(config)


@pytest.mark.parametrize(
    "edit,path,key,known",
    [
        (lambda c: rename(rule(c), "details", "detail"), "evaluate.rule.rules[0].detail", "detail", "details"),
        (
            lambda c: rename(rule(c), "out.dataframe.name", "out.dataframe.nam"),
            "evaluate.rule.rules[0].out.dataframe.nam",
            "out.dataframe.nam",
            "out.dataframe.name",
        ),
        (
            lambda c: c["data.sources"][1]["connector"].update(versoin="1.7"),
            "data.sources[1].connector.versoin",
            "versoin",
            "version",
        ),
        (
            lambda c: rule(c)["out"][0].update(flaten="map"),
            "evaluate.rule.rules[0].out[0].flaten",
            "flaten",
            "flatten",
        ),
        (lambda c: c.update(sink=["CONSOLE"]), "sink", "sink", "sinks"),
    ],
)
def test_an_unknown_key_is_a_located_warning_naming_the_known_key(tmp_path, edit, path, key, known):
    config = job(tmp_path, edit)
    [error] = unknown_keys(config)
    assert error.code == "UNKNOWN_KEY" and error.text == key and error.hint == f"did you mean {known!r}?"
    assert error.message.startswith(f"{path}: Griffin knows no key {key!r}")
    # located at the key itself: json.dumps(indent=2) puts it first on its own line
    line = next(n for n, text in enumerate(config.read_text().splitlines(), 1) if text.lstrip().startswith(f'"{key}"'))
    assert error.location.line == line


def test_a_misspelt_required_key_warns_then_names_the_misspelling(tmp_path):
    config = job(tmp_path, lambda c: rename(c, "data.sources", "data.source"))
    with warnings.catch_warnings(record=True) as caught, pytest.raises(InvalidInput) as raised:
        warnings.simplefilter("always")
        load_griffin_job(config)
    assert [w.message.error.hint for w in caught] == ["did you mean 'data.sources'?"]
    assert raised.value.message == "data.sources is required: a list"
    assert raised.value.hint == "rename 'data.source' to 'data.sources'"


def test_an_avro_file_key_misspelt_is_named(tmp_path):
    config = job(tmp_path, lambda c: rename(c["data.sources"][0]["connector"]["config"], "file.name", "file.nme"))
    with warnings.catch_warnings(record=True) as caught, pytest.raises(InvalidInput):
        warnings.simplefilter("always")
        load_griffin_job(config)
    [warning] = [w.message.error for w in caught]
    assert warning.text == "file.nme" and warning.hint == "did you mean 'file.name'?"


@pytest.mark.parametrize("value,hint", [("true", "write true without quotes"), (1, None)])
def test_a_flag_of_another_type_is_an_error_naming_its_key(tmp_path, value, hint):
    config = job(tmp_path, lambda c: c["data.sources"][0].update(baseline=value))
    with pytest.raises(InvalidInput) as raised:
        load_griffin_job(config)
    assert raised.value.code == "BAD_CONFIG" and raised.value.hint == hint
    assert raised.value.message.startswith("data.sources[0].baseline must be true or false, not ")


def gryph(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_strict_makes_an_unknown_key_an_error_on_validate_and_run(tmp_path):
    config = str(job(tmp_path, lambda c: rename(rule(c), "details", "detail")))
    done = gryph("validate", config)
    assert done.returncode == 0
    assert "warning: " in done.stderr and "UNKNOWN_KEY" in done.stderr and "did you mean 'details'?" in done.stderr
    for command in (["validate"], ["run", "--no-history"]):
        done = gryph(*command, config, "--strict")
        assert done.returncode == 2, done.stderr
        assert "error UNKNOWN_KEY: evaluate.rule.rules[0].detail" in done.stderr and done.stdout == ""
