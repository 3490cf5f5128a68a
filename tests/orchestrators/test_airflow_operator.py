"""GryphOperator in a real Airflow (apache-airflow from PyPI, an SQLite metadata database in a
temporary AIRFLOW_HOME): one DAG of four tasks over the bundled users data, run by ``dag.test()``.

The DAG runs in its own Python process, as ``python dags/file.py`` runs it: Airflow reads
AIRFLOW_HOME and sets up its settings and logging when first imported, and ``dag.test()`` reads
the DAG from its bundle's folder, so the DAG file lives in AIRFLOW_HOME/dags and no Airflow
setting reaches the other tests' process. Expected values are counted by hand from
examples/data/users.csv: 50 rows, user_id 10001..10050, one empty post_code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.client.test_alerts import Hook

ROOT = Path(__file__).resolve().parents[2]
USERS = ROOT / "examples" / "data" / "users.csv"
LOGICAL_DATE = "2026-11-24T06:00:00+00:00"
SCHEMA = (
    "user_id bigint, first_name string, last_name string, address string, email string, phone string, post_code string"
)

DAG_FILE = """
import datetime as dt, json
from airflow.sdk import DAG
from gryph.client.orchestrators.airflow import GryphOperator

PATHS = json.load(open(__file__ + ".json"))  # the bundle parses this file too: no argv there
with DAG("gryph_users", schedule=None, start_date=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)) as dag:
    GryphOperator(task_id="passing", suite=PATHS["passing"], history=PATHS["history"],
                  json=PATHS["json"], junit=PATHS["junit"], html=PATHS["html"])
    GryphOperator(task_id="failing", suite=PATHS["failing"], history=PATHS["history"], notify=[PATHS["hook"]])
    GryphOperator(task_id="broken", suite=PATHS["broken"], history=PATHS["history"], notify=[PATHS["hook"]])
    GryphOperator(task_id="templated", suite=PATHS["templated"], history=PATHS["history"], data_time="{{ ds }}")

if __name__ == "__main__":
    from airflow.models.xcom import XComModel
    from airflow.utils.db import initdb
    from airflow.utils.session import create_session

    initdb()
    run = dag.test(logical_date=dt.datetime.fromisoformat(PATHS["logical_date"]))
    with create_session() as session:
        states = {ti.task_id: str(ti.state) for ti in run.get_task_instances(session=session)}
        rows = session.query(XComModel).filter_by(dag_id="gryph_users", run_id=run.run_id).all()
        xcom = {row.task_id + ":" + row.key: row.value for row in rows}
    print("DAG-RESULT " + json.dumps({"states": states, "xcom": xcom}))
"""


def _suite(path: Path, name: str, body: str, source: Path = USERS) -> str:
    path.write_text(f'suite {name}\nsource users = csv("{source}", schema = "{SCHEMA}")\n{body}', encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def hook():
    server = Hook()
    yield server
    server.close()


@pytest.fixture(scope="module")
def dag_run(tmp_path_factory: pytest.TempPathFactory, hook: Hook) -> dict:
    home = tmp_path_factory.mktemp("airflow_home")
    work = tmp_path_factory.mktemp("gryph")
    counts = (
        "measure rows: select count(*) from users\n"
        "measure no_post_code: select count(*) from users where post_code is null\n"
        "measure top_id: select max(user_id) from users\n"
    )
    paths = {
        "passing": _suite(
            work / "passing.dq",
            "af_passing",
            counts + 'check "fünfzig users": measures["rows"] == 50\ncheck "one without post code": '
            'measures["no_post_code"] == 1\ncheck "ids end at 10050": measures["top_id"] == 10050\n',
        ),
        "failing": _suite(
            work / "failing.dq",
            "af_failing",
            counts + 'check "more than 50": measures["rows"] > 50\nwarn check "at most 40": measures["rows"] <= 40\n',
        ),
        "broken": _suite(work / "broken.dq", "af_broken", counts, source=work / "not_landed.csv"),
        "templated": _suite(work / "templated.dq", "af_templated", counts),
        "history": str(work / "history.duckdb"),
        "json": str(work / "out" / "result.json"),
        "junit": str(work / "out" / "junit.xml"),
        "html": str(work / "out" / "report.html"),
        "logical_date": LOGICAL_DATE,
        "hook": hook.url,
    }
    (work / "out").mkdir()
    dags = home / "dags"
    dags.mkdir()
    (dags / "gryph_users.py").write_text(DAG_FILE, encoding="utf-8")
    (dags / "gryph_users.py.json").write_text(json.dumps(paths), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False")
    env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{home / 'airflow.db'}"
    done = subprocess.run(
        [sys.executable, str(dags / "gryph_users.py")],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("DAG-RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-4000:] + done.stderr[-4000:]
    return {
        **json.loads(lines[-1].removeprefix("DAG-RESULT ")),
        "paths": paths,
        "log": done.stdout + done.stderr,
        "alerts": [json.dumps(post["body"]) for post in hook.received],
    }


def _history_rows(path: str) -> dict[str, tuple]:
    with duckdb.connect(path, read_only=True) as history:
        rows = history.sql(
            "select r.suite, cast(d.data_time as varchar), r.passed, r.document from runs r "
            "join data_times d using (run_id) where d.superseded_by is null"
        ).fetchall()
    return {suite: (data_time, passed, json.loads(document)) for suite, data_time, passed, document in rows}


def test_a_passing_suite_succeeds_and_returns_its_result_as_xcom(dag_run):
    assert dag_run["states"]["passing"] == "success"
    result = dag_run["xcom"]["passing:return_value"]
    assert result["pass"] is True
    assert result["measure"] == {"rows": 50, "no_post_code": 1, "top_id": 10050}
    assert result["check"] == {"fünfzig users": True, "one without post code": True, "ids end at 10050": True}
    assert result["data_time"] == "2026-11-24T06:00:00Z"  # the logical date


def test_the_data_time_is_the_logical_date_in_the_history(dag_run):
    rows = _history_rows(dag_run["paths"]["history"])
    assert rows["af_passing"][:2] == ("2026-11-24 06:00:00", True)
    assert rows["af_failing"][:2] == ("2026-11-24 06:00:00", False)
    assert rows["af_templated"][0] == "2026-11-24 00:00:00"  # data_time="{{ ds }}": the day, rendered


def test_a_failing_check_fails_the_task_with_its_result_pushed(dag_run):
    assert dag_run["states"]["failing"] == "failed"
    assert "failing:return_value" not in dag_run["xcom"]
    result = dag_run["xcom"]["failing:gryph_result"]
    assert result["pass"] is False
    assert result["check"] == {"more than 50": False, "at most 40": False}
    assert result["measure"]["rows"] == 50
    # the failed warning is no reason the task failed (the operator is not strict)
    assert "suite 'af_failing' failed: more than 50\n" in dag_run["log"]


def test_a_run_that_broke_fails_the_task_and_is_kept_as_an_errored_run(dag_run):
    assert dag_run["states"]["broken"] == "failed"
    data_time, passed, document = _history_rows(dag_run["paths"]["history"])["af_broken"]
    assert (data_time, passed) == ("2026-11-24 06:00:00", False)
    assert document["error"]["code"] == "SOURCE_NOT_FOUND"
    assert "not_landed.csv" in document["error"]["message"]


def test_the_output_files_hold_the_run(dag_run):
    paths = dag_run["paths"]
    written = json.loads(Path(paths["json"]).read_text(encoding="utf-8"))
    assert written["measure"] == {"rows": 50, "no_post_code": 1, "top_id": 10050}
    junit = Path(paths["junit"]).read_text(encoding="utf-8")
    assert 'tests="3"' in junit and 'failures="0"' in junit
    assert "af_passing" in Path(paths["html"]).read_text(encoding="utf-8")


def test_the_failed_and_the_broken_run_alert(dag_run):
    assert len(dag_run["alerts"]) == 2
    failed = next(alert for alert in dag_run["alerts"] if "af_failing" in alert)
    assert "more than 50" in failed
    broken = next(alert for alert in dag_run["alerts"] if "af_broken" in alert)
    assert "SOURCE_NOT_FOUND" in broken
