"""Generated inputs beside the mutated seeds (fuzz_support.py): database URLs, alert (notify) URLs,
Griffin env files with their sinks, and whole command lines with odd output paths. The property is the same: each
ends as a result or as gryph's own error (located where a file holds it), never an internal error.

A case is a command line for ``gryph.client.cli.main.main``, run in the workspace (its files and
outputs stay there); every host in a URL is local and every port closed or invalid, so no case
waits on a network.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz.fuzz_support import REPO

_ODD_TEXT = ["", "a", "p@ss", "p:w", "p/w", "p?w", "p#w", "p%w", "%zz", "%00", "é日", "'", '"', "\\", " ", "a b", "\t"]
_PORTS = ["", ":", ":0", ":1", ":65535", ":65536", ":-1", ":abc", ":99999999999999999999", ":5432:5432"]
_HOSTS = ["127.0.0.1", "localhost", "[::1]", "", "[::1", "127.0.0.1.", "999.1.1.1"]
_PARAMS = ["", "?", "?sslmode=disable", "?sslmode=nope", "?password=x&user=y", "?a", "?=&&", "?connect_timeout=-1",
           "?statement_timeout=abc", "?application_name=%ff", "#frag", "?;token=t"]  # fmt: skip
_SCHEMES = ["postgres", "postgresql", "jdbc:postgresql", "sqlite", "jdbc:sqlite", "mysql", "", "postgres:", "file"]
# relative paths stay in the workspace (the fuzzer may run as root: nothing outside it is named)
_PATHS = ["out.json", "", ".", "sub/..", "new/dir/out.json", "/proc/none/x", "a\nb.json", "x" * 300, "é.json",
          "report.md/", "-", "out.json/child", "examples"]  # fmt: skip
_SINK_TYPES = ["console", "CONSOLE", "log", "hdfs", "HDFS", "es", "http", "mongo", "custom", "kafka", "", 7, None]


@dataclass
class CommandCase:
    """A generated command line, and the files it needs written in the workspace first."""

    kind: str
    argv: list[str]
    files: dict[str, str]


def database_url(rng: random.Random) -> str:
    scheme = rng.choice(_SCHEMES)
    login = ""
    if rng.random() < 0.7:
        login = rng.choice(_ODD_TEXT) + (":" + rng.choice(_ODD_TEXT) if rng.random() < 0.7 else "") + "@"
    if scheme.endswith("sqlite") or scheme == "file":
        return f"{scheme}:{rng.choice(['', '//', '///'])}{rng.choice(_PATHS)}{rng.choice(_PARAMS)}"
    port = rng.choice(_PORTS) if rng.random() < 0.8 else ":1"  # port 1: closed, refused at once
    return f"{scheme}://{login}{rng.choice(_HOSTS)}{port}/{rng.choice(['', 'db', 'd b', 'é'])}{rng.choice(_PARAMS)}"


# in a notify URL, a webhook path and a password written into it are secrets: never shown
NOTIFY_SECRETS = ("Secret58", "PwInUrl77")
_NOTIFY_SCHEMES = ["http", "https", "HTTPS", "slack:https", "teams:http", "slack:ftp", "smtp", "smtps", "SMTP",
                   "smtp+insecure", "smtp+tls", "ftp", "", "http:", "javascript"]  # fmt: skip
_NOTIFY_LOGINS = ["", "", "user@", "user:PwInUrl77@", "@", ":@", "a b@", "%40@"]
_NOTIFY_PATHS = ["", "/", "/hook", "/services/T0/B0/HookSecret58", "/services/T0/B0/Hook Secret58",
                 "/services/Hook%20Secret58", "/é/Secret58", "/x\nSecret58", "/\tSecret58", "/%00Secret58"]  # fmt: skip
_NOTIFY_QUERIES = ["", "?from=a@x&to=b@x", "?from=a@x&to=b@x,c@x", "?from=a@x", "?to=b@x", "?from=&to=",
                   "?from=a@x%0d%0aBcc:e@x&to=b@x", "?from=a@x&to=b", "#Secret58", "?k=Secret58"]  # fmt: skip


def notify_url(rng: random.Random) -> str:
    """A notify URL from odd parts, each sound half of the time: every host is local and every
    port closed or invalid."""

    def part(sound: str, odd: list[str]) -> str:
        return sound if rng.random() < 0.5 else rng.choice(odd)

    scheme = rng.choice(_NOTIFY_SCHEMES[:7]) if rng.random() < 0.6 else rng.choice(_NOTIFY_SCHEMES)
    login, host, port = part("", _NOTIFY_LOGINS), part("127.0.0.1", _HOSTS), part(":1", _PORTS)
    path, query = rng.choice(_NOTIFY_PATHS), part("?from=a@x&to=b@x", _NOTIFY_QUERIES)
    return f"{scheme}://{login}{host}{port}{path}{query}"


def _notify_suite(rng: random.Random) -> CommandCase:
    url = notify_url(rng)
    options = rng.choice(["", ' with timeout = 2', ' with token_env = "HOME"', ' with password_env = "HOME"',
                          " with timeout = 0", ' with timeout = "x"', " with timeout = 99999"])  # fmt: skip
    command = rng.choice([["validate", "notify.dq"], ["run", "notify.dq", "--no-history"]])
    statement = f"notify {_quoted(url)}{options}\n"
    if command[0] == "run" and rng.random() < 0.4:  # the same URL on the command line instead
        statement, command = "", [*command, "--notify", url]
    text = f'source t = csv("notify.csv")\nmeasure n: select count(*) from t\nwarn check "n": measures["n"] == 0\n{statement}'
    return CommandCase("notify URL", command, {"notify.dq": text, "notify.csv": "a\n1\n"})


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _database_suite(rng: random.Random) -> CommandCase:
    kind = rng.choice(["postgres", "sqlite", "postgres", "table"])
    options = rng.choice(
        ['table = "t"', 'query = "select 1 -- c"', 'table = "a.b.c"', 'password_env = "GRYPH_FUZZ_NONE"',
         'table = "t", connect_timeout = -1', 'table = "t", statement_timeout = "x"', ""]
    )  # fmt: skip
    source = f"source d = {kind}({_quoted(database_url(rng))}{', ' + options if options else ''})"
    text = f"{source}\ncompleteness c on d: a\n"
    if rng.random() < 0.5:
        text += 'measure "m" on d: native "select count(*) from t"\n'
    return CommandCase("database URL", ["validate", "db.dq"], {"db.dq": text})


def _env_file(rng: random.Random) -> str:
    sinks = []
    for _ in range(rng.randint(0, 3)):
        sink: dict[str, object] = {
            "name": rng.choice(["console", "files", "", "x", 1]),
            "type": rng.choice(_SINK_TYPES),
        }
        if rng.random() < 0.6:
            sink["config"] = rng.choice(
                [{"path": rng.choice(_PATHS)}, {"path": "hdfs://nn/x"}, {"path": None}, {}, [], "x",
                 {"path": "file://" + rng.choice(_PATHS)}]
            )  # fmt: skip
        sinks.append(rng.choice([sink, sink, "console", None, []]))
    env: object = {"spark": {"config": rng.choice([{"spark.sql.shuffle.partitions": rng.choice(["2", 2, None, [], "x"])},
                                                   {}, [], None, {"": ""}])},
                   "sinks": rng.choice([sinks, sinks, {}, "console", None])}  # fmt: skip
    if rng.random() < 0.1:
        env = rng.choice([[], "x", None, {"data.sources": []}])
    return json.dumps(env)


def _griffin_with_env(rng: random.Random) -> CommandCase:
    job = json.loads((REPO / "examples/griffin/profiling.json").read_text(encoding="utf-8"))
    job["sinks"] = rng.choice([["CONSOLE"], ["files"], ["console", "x"], [], "CONSOLE", [None], ["HDFS"]])
    argv = [rng.choice(["run", "validate"]), "examples/griffin/job.json", "--env", "env.json"]
    if argv[0] == "run":
        argv.append("--no-history")
    files = {"examples/griffin/job.json": json.dumps(job), "env.json": _env_file(rng)}
    return CommandCase("Griffin env and sinks", argv, files)


def _command_line(rng: random.Random) -> CommandCase:
    argv = [rng.choice(["run", "run", "validate", "explain", "report", "history"])]
    argv.append(rng.choice(["examples/users.dq", "examples/griffin/accuracy.json", "none.dq", "", ".", "examples"]))
    for _ in range(rng.randint(0, 4)):
        option = rng.choice(
            ["--output", "--junit", "--markdown", "--history", "--format", "--sample", "--engine", "--limit",
             "--measure", "--no-history", "--strict", "--quiet", "--remote"]
        )  # fmt: skip
        argv.append(option)
        if option in ("--output", "--junit", "--markdown", "--history"):
            argv.append(rng.choice(_PATHS))
        elif option == "--format":
            argv.append(rng.choice(["json", "text", "html", ""]))
        elif option in ("--sample", "--limit"):
            argv.append(rng.choice(["0", "-1", "abc", "99999999999999999999", "1"]))
        elif option == "--engine":
            argv.append(rng.choice(["duckdb", "spark", "x", ""]))
        elif option == "--remote":
            argv.append(rng.choice(["sc://127.0.0.1:1", "x", "", "sc://[::1"]))
        elif option == "--measure":
            argv.append(rng.choice(["m", "", "é"]))
    if "--remote" in argv or "spark" in argv:  # a Spark run would start a server: DuckDB only here
        argv = [a for a in argv if a not in ("--remote", "spark", "sc://127.0.0.1:1", "sc://[::1")]
    return CommandCase("command line", argv, {})


GENERATORS = (_database_suite, _griffin_with_env, _command_line, _notify_suite)


def generated_cases(seed: int, count: int):
    """``count`` generated command lines, reproducible from ``seed``."""
    rng = random.Random(seed)
    for _ in range(count):
        yield rng.choice(GENERATORS)(rng)


def command_outcome(case: CommandCase, root: Path) -> str | None:
    """None when the command ends with a result or gryph's own error; else what went wrong."""
    from gryph.client.cli.main import main

    for name, text in case.files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(root)  # relative output paths land in the workspace
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(case.argv)
            except SystemExit as exit:  # argparse refusing an argument: its usage message, exit 2
                code = exit.code if isinstance(exit.code, int) else 2
    finally:
        os.chdir(previous)
    stderr = err.getvalue()
    if "internal error" in stderr or "Traceback" in stderr:
        return f"{case.kind} {case.argv!r}: {stderr.strip()[:300]}"
    if code not in (0, 1, 2, 3, 4) and not (case.kind == "notify URL" and code == 5):  # 5: an alert not sent
        return f"{case.kind} {case.argv!r}: exit {code}"
    shown = [secret for secret in NOTIFY_SECRETS if secret in out.getvalue() + stderr]
    if case.kind == "notify URL" and shown:
        return f"{case.kind} {case.argv!r}: shows {shown}: {stderr.strip()[:300]}"
    return None
