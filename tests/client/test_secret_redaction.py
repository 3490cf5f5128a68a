"""No secret is ever printed or stored: a corpus of the places a suite or a Griffin config can
hold one, each run through the CLI with every output asked for (messages, JSON, HTML, Markdown,
JUnit, OpenLineage events, the history and ``gryph history``), and ``validate`` and ``explain`` too; every byte of
them is searched for the secret, as written and URL-encoded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest

from gryph.client.spark.session.local_server import free_port
from tests.postgres_server import DATABASE, PASSWORD, USER

SSL_SECRET = "ssl-key-secret-4408"
ENV_USER = "env-user-secret-3316"  # a user name read from the environment is a secret too
UNENCODED = "Part0ne/Part2wo#Part3hree"


@pytest.fixture(scope="module")
def server(postgres):
    postgres.execute("CREATE SCHEMA IF NOT EXISTS secrets")
    postgres.execute("CREATE TABLE IF NOT EXISTS secrets.orders (id bigint, note text)")
    postgres.execute("DELETE FROM secrets.orders")
    postgres.execute("INSERT INTO secrets.orders VALUES (1, 'a'), (2, NULL), (3, 'c')")
    return postgres


@dataclass
class Case:
    """A suite (``.dq``) or Griffin config (``.json``) text, the secrets it holds, how its run ends."""

    name: str
    text: str
    secrets: tuple[str, ...]
    exit_code: int
    says: str  # what the run's message or report says (the secret's neighbourhood, masked)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def suffix(self) -> str:
        return ".json" if self.text.lstrip().startswith("{") else ".dq"


# the suite's rules: 3 rows, one note NULL; a native measure with no row fails in the result,
# so its error is in every report too
_RULES = """completeness notes on o: note
measure "none" on o: native "select id from secrets.orders where id > 100"
"""


def _griffin(config: str) -> str:
    return f"""{{
  "name": "secret_job",
  "process.type": "batch",
  "data.sources": [
    {{"name": "source", "connector": {{"type": "jdbc", "config": {{
      {config}
    }}}}}}
  ],
  "evaluate.rule": {{"rules": [{{"dsl.type": "griffin-dsl", "dq.type": "profiling",
    "out.dataframe.name": "p", "rule": "count(*) as cnt from source"}}]}}
}}
"""


def _corpus(port: int) -> list[Case]:
    host = f"127.0.0.1:{port}"
    return [
        Case(
            "url-password-wrong",
            f'source o = postgres("postgresql://{USER}:not-{PASSWORD}@{host}/{DATABASE}", table = "secrets.orders")\n'
            + _RULES,
            (f"not-{PASSWORD}",),
            3,
            "password authentication failed",
        ),
        Case(
            "query-password",
            f'suite q\nsource o = postgres("postgresql://{USER}@{host}/{DATABASE}?password={PASSWORD}", '
            'table = "secrets.orders")\n' + _RULES,
            (PASSWORD,),
            1,
            "MEASURE_NOT_ONE_ROW",
        ),
        Case(
            "sslpassword",
            f'suite s\nsource o = postgres("postgresql://{USER}:{PASSWORD}@{host}/{DATABASE}'
            f'?sslmode=disable&sslpassword={SSL_SECRET}", table = "secrets.orders")\n' + _RULES,
            (PASSWORD, SSL_SECRET),
            1,
            "MEASURE_NOT_ONE_ROW",
        ),
        Case(
            "key-value-dsn",
            f'source o = postgres("host=127.0.0.1 port={port} user={USER} password={PASSWORD} dbname={DATABASE}", '
            'table = "secrets.orders")\n' + _RULES,
            (PASSWORD,),
            2,
            "password=***",
        ),
        Case(
            "unencoded-special-characters",
            f'source o = postgres("postgresql://{USER}:{UNENCODED}@{host}/{DATABASE}", table = "secrets.orders")\n'
            + _RULES,
            tuple(UNENCODED.replace("#", "/").split("/")),
            2,
            "percent-encode",
        ),
        Case(
            "env-password-and-user",
            f'suite e\nsource o = postgres("postgresql://{host}/{DATABASE}", table = "secrets.orders", '
            'user_env = "SECRET_TEST_USER", password_env = "SECRET_TEST_PW")\n' + _RULES,
            (ENV_USER, PASSWORD),
            3,
            'password authentication failed for user "***"',
            env={"SECRET_TEST_USER": ENV_USER, "SECRET_TEST_PW": PASSWORD},
        ),
        Case(
            "env-password",
            f'suite p\nsource o = postgres("postgresql://{USER}@{host}/{DATABASE}", table = "secrets.orders", '
            'password_env = "SECRET_TEST_PW")\n' + _RULES,
            (PASSWORD,),
            1,
            "MEASURE_NOT_ONE_ROW",
            env={"SECRET_TEST_PW": PASSWORD},
        ),
        Case(
            "griffin-json-password",
            _griffin(
                f'"url": "jdbc:postgresql://{host}/{DATABASE}", "user": "{USER}", "password": "{PASSWORD}",\n'
                '      "database": "secrets", "tablename": "orders"'
            ),
            (PASSWORD,),
            0,
            '"cnt": 3',
        ),
        Case(
            "griffin-jdbc-query-password",
            _griffin(
                f'"url": "jdbc:postgresql://{host}/{DATABASE}?user={USER}&password=not-{PASSWORD}",\n'
                '      "database": "secrets", "tablename": "orders"'
            ),
            (f"not-{PASSWORD}",),
            3,
            "password=***",
        ),
        Case(
            "griffin-malformed-json-next-to-the-password",
            _griffin(
                f'"url": "jdbc:postgresql://{host}/{DATABASE}", "user": "{USER}",\n'
                f'      "password": "{PASSWORD}" "tablename": "orders"'
            ),
            (PASSWORD,),
            2,
            '"password": "***"',
        ),
    ]


def _gryph(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "gryph.client.cli.main", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, env=dict(os.environ, **env))


def _forms(secret: str) -> set[str]:
    return {secret, quote(secret, safe=""), json.dumps(secret)[1:-1]}


@pytest.mark.parametrize("index", range(10), ids=[case.name for case in _corpus(0)])
def test_no_output_holds_the_secret(server, tmp_path, index):
    case = _corpus(server.port)[index]
    suite = tmp_path / f"{case.name}{case.suffix}"
    suite.write_text(case.text, encoding="utf-8")
    outputs = {kind: tmp_path / f"out.{kind}" for kind in ("json", "html", "md", "xml", "jsonl")}
    history = tmp_path / "history.duckdb"
    run = _gryph(
        "run", str(suite), "--format", "json", "--output", str(outputs["json"]), "--html", str(outputs["html"]),
        "--markdown", str(outputs["md"]), "--junit", str(outputs["xml"]), "--history", str(history),
        "--openlineage", str(outputs["jsonl"]),  # OpenLineage's events: START and COMPLETE or FAIL
        cwd=tmp_path, env=case.env,
    )  # fmt: skip
    assert run.returncode == case.exit_code, run.stderr
    shown = [run, _gryph("validate", str(suite), cwd=tmp_path, env=case.env)]
    shown.append(_gryph("explain", str(suite), cwd=tmp_path, env=case.env))
    written = [path for path in (*outputs.values(), history) if path.exists()]
    if case.exit_code in (0, 1):  # the run finished: every output is there, and the history lists it
        assert len(written) == 6, written
        name = json.loads(outputs["json"].read_text())["name"]
        listed = _gryph("history", name, "--history", str(history), "--format", "json", cwd=tmp_path, env={})
        assert listed.returncode == 0 and json.loads(listed.stdout)["runs"], listed.stderr
        shown.append(listed)
    everything = "".join(done.stdout + done.stderr for done in shown) + "".join(
        path.read_bytes().decode("utf-8", "replace") for path in written
    )
    assert case.says in everything
    for secret in case.secrets:
        for form in _forms(secret):
            assert form not in everything, f"{case.name}: {form!r} is shown"


def test_a_spark_jdbc_error_does_not_print_the_urls_password(server, tmp_path, spark_remote):
    """On Spark the URL's ?password= reaches the JDBC driver in the URL itself; a refused login
    is reported by the Spark engine, without it."""
    wrong = f"not-{PASSWORD}"
    suite = tmp_path / "spark.dq"
    suite.write_text(
        f'source o = postgres("postgresql://{USER}@127.0.0.1:{server.port}/{DATABASE}?password={wrong}", '
        'table = "secrets.orders")\ncompleteness c on o: note\n',
        encoding="utf-8",
    )
    done = _gryph("run", str(suite), "--remote", spark_remote, "--no-history", cwd=tmp_path, env={})
    assert done.returncode == 3, done.stderr
    assert "source 'o'" in done.stderr and "password=***" in done.stderr
    assert wrong not in done.stdout + done.stderr


def test_an_unreachable_server_does_not_print_the_query_password(tmp_path):
    """The checklist's first case: nothing listens on the port; the URL is quoted, its password not."""
    suite = tmp_path / "down.dq"
    suite.write_text(
        f'source t = postgres("postgresql://app@127.0.0.1:{free_port()}/shop?password=S3cret-down", '
        'table = "public.nosuch")\ncompleteness c on t: name\n',
        encoding="utf-8",
    )
    done = _gryph("run", str(suite), "--no-history", cwd=tmp_path, env={})
    assert done.returncode == 3 and "SOURCE_UNREADABLE" in done.stderr, done.stderr
    assert "?password=***" in done.stderr and "S3cret-down" not in done.stderr
