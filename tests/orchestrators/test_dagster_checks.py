"""gryph_asset_checks with Dagster's own test utilities: an asset writes a users CSV, its checks are
one gryph run's, materialized with ``materialize([...])``. Expected values are counted by hand
from the rows each test writes."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pytest
from dagster import AssetCheckSeverity, AssetKey, Definitions, asset, materialize

from gryph.client.orchestrators.dagster import gryph_asset_checks

HEADER = ("user_id", "name", "post_code")
GOOD = [(1, "Ada", "94022"), (2, "Zoë", "10115"), (3, "O'Brien", "94022")]
ONE_WITHOUT_POST_CODE = [(1, "Ada", "94022"), (2, "Zoë", None), (3, "O'Brien", "94022"), (3, "O'Brien", "94022")]


def _suite(tmp_path: Path) -> Path:
    data = tmp_path / "users.csv"
    suite = tmp_path / "users.dq"
    suite.write_text(
        f'suite dagster_users\nsource users = csv("{data}", schema = "user_id bigint, name string, post_code string")\n'
        'check "every post code": rows(users where post_code is null) == 0\n'
        'check "three or more": rows(users) >= 3\n'
        'warn check "no more than 3": rows(users) <= 3\n'
        "schema users: required(user_id bigint, name)\n",
        encoding="utf-8",
    )
    return suite


def _users_asset(path: Path, rows: list[tuple]):
    @asset(name="users")
    def users() -> None:
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(HEADER)
            writer.writerows(["" if v is None else v for v in row] for row in rows)

    return users


def _materialized(tmp_path: Path, rows: list[tuple], **options):
    users = _users_asset(tmp_path / "users.csv", rows)

    @asset(deps=[users])
    def mailing() -> None:  # downstream of users: a blocking check that fails stops it
        pass

    checks = gryph_asset_checks(_suite(tmp_path), asset=users, **options)
    result = materialize([users, mailing, *checks], raise_on_error=False)
    return result, {e.check_name: e for e in result.get_asset_check_evaluations()}


def test_every_check_passes_with_its_values_and_bounds(tmp_path):
    result, evaluations = _materialized(tmp_path, GOOD, history=tmp_path / "history.duckdb")
    assert result.success
    assert set(evaluations) == {"every_post_code", "three_or_more", "no_more_than_3", "schema_users", "gryph_verdict"}
    assert all(e.passed for e in evaluations.values())
    rows = evaluations["three_or_more"].metadata
    assert rows["values"].value == {"rows(users)": 3}
    assert rows["bounds"].value == [{"source": "measure", "name": "rows(users)", "path": [], "op": ">=", "value": 3}]
    assert rows["gryph_check"].value == "three or more"
    assert evaluations["every_post_code"].metadata["values"].value == {"rows(users where post_code is null)": 0}
    assert "failing_rows" not in evaluations["every_post_code"].metadata
    assert AssetKey("mailing") in _keys(result)
    with duckdb.connect(str(tmp_path / "history.duckdb"), read_only=True) as history:
        assert history.sql("select count(*) from runs").fetchall() == [(1,)]  # one run judged the five


def _keys(result) -> list[AssetKey]:
    return [event.asset_key for event in result.get_asset_materialization_events()]


def test_a_failing_check_blocks_with_its_failing_rows(tmp_path):
    result, evaluations = _materialized(tmp_path, ONE_WITHOUT_POST_CODE)
    post_codes = evaluations["every_post_code"]
    assert not post_codes.passed
    assert post_codes.severity == AssetCheckSeverity.ERROR
    assert post_codes.metadata["values"].value == {"rows(users where post_code is null)": 1}
    failing = post_codes.metadata["failing_rows"].value["rows(users where post_code is null)"]
    assert failing["count"] == 1
    assert failing["rows"] == [{"user_id": 2, "name": "Zoë", "post_code": None}]
    too_many = evaluations["no_more_than_3"]  # a warning: fails, does not block
    assert (too_many.passed, too_many.severity) == (False, AssetCheckSeverity.WARN)
    assert too_many.metadata["values"].value == {"rows(users)": 4}
    assert evaluations["three_or_more"].passed
    verdict = evaluations["gryph_verdict"]
    assert not verdict.passed
    assert verdict.metadata["checks"].value == {
        "every post code": "FAIL",
        "three or more": "PASS",
        "no more than 3": "WARN",
        "schema users": "PASS",
    }
    assert AssetKey("mailing") not in _keys(result)  # blocked by the failed blocking checks


def test_a_run_that_broke_fails_the_step_and_is_kept(tmp_path):
    users = _users_asset(tmp_path / "elsewhere.csv", GOOD)  # the suite's file is never written
    checks = gryph_asset_checks(_suite(tmp_path), asset=users, history=tmp_path / "history.duckdb")
    result = materialize([users, *checks], raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "SOURCE_NOT_FOUND" in failure.step_failure_data.error.message
    with duckdb.connect(str(tmp_path / "history.duckdb"), read_only=True) as history:
        assert history.sql("select passed, document like '%SOURCE_NOT_FOUND%' from runs").fetchall() == [(False, True)]


def test_names_dagster_takes_each_check_apart(tmp_path):
    suite = tmp_path / "odd.dq"
    suite.write_text(
        f'suite odd\nsource users = csv("{tmp_path / "u.csv"}", schema = "user_id bigint")\n'
        'check "a b": rows(users) >= 0\ncheck "a_b": rows(users) >= 0\ncheck "1 über": rows(users) >= 0\n'
        'check "gryph verdict": rows(users) >= 0\n',
        encoding="utf-8",
    )
    (checks,) = gryph_asset_checks(suite, asset="users")
    assert sorted(key.name for key in checks.check_keys) == [
        "a_b",
        "a_b_2",
        "check_1_uber",
        "gryph_verdict",
        "gryph_verdict_2",
    ]
    Definitions(asset_checks=[checks])  # Dagster takes them all


@pytest.mark.parametrize("asset_given", ["users", AssetKey("users")])
def test_the_asset_may_be_named_by_its_key(tmp_path, asset_given):
    (checks,) = gryph_asset_checks(_suite(tmp_path), asset=asset_given)
    assert {key.asset_key for key in checks.check_keys} == {AssetKey("users")}
