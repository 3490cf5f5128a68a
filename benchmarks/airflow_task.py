"""The time gryph adds to an Airflow task over a bare DuckDB query (issue 45).

    python -m benchmarks.airflow_task --processes 3 --runs 4

One DAG of two tasks over examples/data/users.csv, the same check in each: ``bare_duckdb``, a
``@task`` running ``duckdb.sql(...)`` and failing on a NULL user_id, and ``gryph``, a
``GryphOperator`` on a suite with that one check (no history, no output file). Each process (a
fresh one, an SQLite metadata database in a temporary AIRFLOW_HOME) runs the DAG ``--runs`` times
through ``dag.test()``; each task's time is its task instance's duration as Airflow records it
(start to end, XCom push included). A ``warm_up`` task runs before both: the first task of a
process starts dag.test()'s in-process API server (~10-20 s here), which is no task's own cost. The
first run of a process is shown apart: its two tasks pay what a process pays once (DuckDB's first
connection, gryph's grammar), as each task of a real worker, which starts a process per task, does.

A worker also parses the DAG file in that process: the import of GryphOperator's module beyond
what any DAG file with an operator loads (``airflow.sdk``'s DAG, task and BaseOperator, and
duckdb) is measured apart, in fresh processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USERS = ROOT / "examples" / "data" / "users.csv"
SCHEMA = (
    "user_id bigint, first_name string, last_name string, address string, email string, phone string, post_code string"
)

DAG_FILE = """
import datetime as dt, json
import duckdb
from airflow.sdk import DAG, task
from airflow.sdk.exceptions import AirflowFailException
from gryph.client.orchestrators.airflow import GryphOperator

CONFIG = json.load(open(__file__ + ".json"))
with DAG("gryph_overhead", schedule=None, start_date=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)) as dag:

    @task(task_id="bare_duckdb")
    def bare_duckdb():
        query = "select count(*) from read_csv(?, header = true) where user_id is null"
        (nulls,) = duckdb.execute(query, [CONFIG["csv"]]).fetchone()
        if nulls != 0:
            raise AirflowFailException(f"{nulls} users without an id")
        return nulls

    @task(task_id="warm_up")
    def warm_up():  # the first task of a process starts dag.test's in-process API: before both measured ones
        pass

    warm_up() >> [bare_duckdb(), GryphOperator(task_id="gryph", suite=CONFIG["suite"])]

if __name__ == "__main__":
    from airflow.utils.db import initdb
    from airflow.utils.session import create_session

    initdb()
    runs = []
    for day in range(CONFIG["runs"]):
        run = dag.test(logical_date=dt.datetime(2026, 11, 1 + day, tzinfo=dt.timezone.utc))
        with create_session() as session:
            runs.append({ti.task_id: [str(ti.state), ti.duration] for ti in run.get_task_instances(session=session)})
    print("BENCH " + json.dumps(runs))
"""

IMPORT_SCRIPT = """
import time
import duckdb
from airflow.sdk import DAG, BaseOperator, task  # what any DAG file with an operator loads
import airflow.sdk.exceptions
clock = time.perf_counter()
import gryph.client.orchestrators.airflow
print(time.perf_counter() - clock)
"""


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False")
    env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{home / 'airflow.db'}"
    return env


def one_process(runs: int) -> list[dict[str, list]]:
    """The DAG run ``runs`` times by dag.test() in one fresh process: per run, each task's state and seconds."""
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "airflow"
        (home / "dags").mkdir(parents=True)
        suite = Path(folder) / "users.dq"
        suite.write_text(
            f'suite users_overhead\nsource users = csv("{USERS}", schema = "{SCHEMA}")\n'
            'check "every user has an id": rows(users where user_id is null) == 0\n',
            encoding="utf-8",
        )
        dag = home / "dags" / "gryph_overhead.py"
        dag.write_text(DAG_FILE, encoding="utf-8")
        Path(f"{dag}.json").write_text(json.dumps({"csv": str(USERS), "suite": str(suite), "runs": runs}))
        done = subprocess.run(
            [sys.executable, str(dag)], env=_environment(home), cwd=folder, capture_output=True, text=True, check=False
        )
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the DAG failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    results = json.loads(lines[-1].removeprefix("BENCH "))
    for run in results:
        if any(state != "success" for state, _ in run.values()):
            raise SystemExit(f"a task did not succeed: {run}")
    return results


def import_seconds() -> float:
    """Seconds to import GryphOperator's module in a fresh process that has loaded duckdb and
    Airflow's DAG, task and BaseOperator: gryph's own share of a DAG file's parse."""
    done = subprocess.run([sys.executable, "-c", IMPORT_SCRIPT], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def measure(processes: int, runs: int) -> dict:
    first: dict[str, list[float]] = {"bare_duckdb": [], "gryph": []}
    later: dict[str, list[float]] = {"bare_duckdb": [], "gryph": []}
    for _ in range(processes):
        for number, run in enumerate(one_process(runs)):
            for name in first:
                (first if number == 0 else later)[name].append(run[name][1])
    imports = [import_seconds() for _ in range(processes)]

    def summary(times: dict[str, list[float]]) -> dict:
        if not times["gryph"]:
            return {}
        medians = {name: statistics.median(values) for name, values in times.items()}
        return {"times": times, "medians": medians, "added": medians["gryph"] - medians["bare_duckdb"]}

    return {
        "processes": processes,
        "runs": runs,
        "first_run": summary(first),
        "later_runs": summary(later),
        "import_seconds": imports,
        "import_median": statistics.median(imports),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3, help="fresh processes, each running the DAG")
    parser.add_argument("--runs", type=int, default=4, help="dag.test() runs per process")
    parser.add_argument("--output", type=Path, help="write the measurements here as JSON")
    args = parser.parse_args(argv)
    document = measure(args.processes, args.runs)
    text = json.dumps(document, indent=2)
    if args.output is not None:
        args.output.write_text(text + "\n", encoding="utf-8")
    for label in ("first_run", "later_runs"):
        part = document[label]
        if part:
            bare, gryph = part["medians"]["bare_duckdb"], part["medians"]["gryph"]
            print(
                f"{label}: bare DuckDB task {bare:.3f} s, GryphOperator task {gryph:.3f} s, added {part['added']:.3f} s"
            )
    print(f"importing GryphOperator's module: {document['import_median']:.3f} s (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
