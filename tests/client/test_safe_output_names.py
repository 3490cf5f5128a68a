"""Names of rules, records and jobs never write outside the destination they are written into:
each hostile name is run for real through the CLI and every file created is listed."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import duckdb
import pytest

from gryph.compiler.safe_names import safe_file_name
from tests.support.gryph_cli import GRYPH, limited

STAMP = 1700000000000
LONG = "x" * 300


def _cut(name: str) -> str:
    """The rule for a name (docs/reliability.md) over 200 bytes: its first 183 bytes, ``~``, 16 hex digits of its sha256."""
    return name[:183] + "~" + hashlib.sha256(name.encode()).hexdigest()[:16]


# (name, how docs/reliability.md says it is spelled in a file name); each is read as a rule's or a job's name
HOSTILE = [
    ("users_complete", "users_complete"),
    ("..", "%2E%2E"),
    ("../../x", "%2E%2E%2F..%2Fx"),
    ("/tmp/x", "%2Ftmp%2Fx"),
    ("a/b", "a%2Fb"),
    ("a\\b", "a%5Cb"),
    ("a\x00b", "a%00b"),
    ("a\nb", "a%0Ab"),
    ("a:b", "a%3Ab"),
    ("50%", "50%25"),
    ("a\u2215b", "a\u2215b"),  # DIVISION SLASH, FULLWIDTH SOLIDUS, ONE DOT LEADER: kept as they are
    ("a\uff0fb", "a\uff0fb"),
    ("\u2024\u2024", "\u2024\u2024"),
    (" ", "%20"),
    (".hidden", "%2Ehidden"),
]
IDS = [repr(name) for name, _ in HOSTILE]
# dots are encoded only at either end of a name: a record's file starts with its rule's name
RECORD_OF_RULE_C = {"..": "c__%2E%2E", "../../x": "c__..%2F..%2Fx", ".hidden": "c__.hidden"}


def gryph(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    return subprocess.run(command + list(args), cwd=cwd, capture_output=True, text=True, timeout=300)


def files_under(folder: Path) -> set[str]:
    return {str(Path(root, f).relative_to(folder)) for root, _, files in os.walk(folder) for f in files}


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    """A folder two levels down, so ``../..`` would land in the test's own tmp folder."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "ids.csv").write_text('id\n1\n""\n3\n', encoding="utf-8")
    return work


@pytest.mark.parametrize("name, spelled", [*HOSTILE, (LONG, _cut(LONG + "__incompleteRecords"))], ids=[*IDS, "long"])
def test_a_rule_name_writes_its_records_inside_records_to(tmp_path, workdir, name, spelled):
    rule = "`" + name.replace("`", "``") + "`"
    (workdir / "s.dq").write_text(f'source t = csv("ids.csv")\ncompleteness {rule} on t: id\n', encoding="utf-8")
    before = files_under(tmp_path)
    done = gryph(workdir, "run", "s.dq", "--records-to", "out/records", "--no-history", "--format", "json")
    assert done.returncode == 0, done.stderr
    file = spelled if name == LONG else f"{spelled}__incompleteRecords"
    assert files_under(tmp_path) - before == {f"a/b/out/records/{file}.parquet"}
    written = json.loads(done.stdout)["records"][name]["written_to"]
    assert written == f"out/records/{file}.parquet"


@pytest.mark.parametrize("name, spelled", [*HOSTILE, (LONG, _cut(LONG))], ids=[*IDS, "long"])
def test_a_griffin_job_and_record_name_write_inside_their_folders(tmp_path, workdir, name, spelled):
    job = {
        "name": name,
        "timestamp": STAMP,
        "sinks": ["hdfs"],
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "paths": ["ids.csv"], "options": {"header": "true"}},
                },
            }
        ],
        "evaluate.rule": {
            "rules": [
                {
                    "dsl.type": "griffin-dsl",
                    "dq.type": "completeness",
                    "out.dataframe.name": "c",
                    "rule": "id",
                    "out": [{"type": "record", "name": name}],
                }
            ]
        },
    }
    (workdir / "job.json").write_text(json.dumps(job), encoding="utf-8")
    env = {"spark": {"config": {}}, "sinks": [{"name": "hdfs", "type": "HDFS", "config": {"path": "persist"}}]}
    (workdir / "env.json").write_text(json.dumps(env), encoding="utf-8")
    before = files_under(tmp_path)
    done = gryph(workdir, "run", "job.json", "--env", "env.json", "--records-to", "out", "--no-history")
    assert done.returncode == 0, done.stderr
    record = _cut(f"c__{LONG}") if name == LONG else RECORD_OF_RULE_C.get(name, f"c__{spelled}")
    job_folder = f"a/b/persist/{spelled}/{STAMP}"
    assert files_under(tmp_path) - before == {
        f"a/b/out/{record}.parquet",
        f"{job_folder}/_START",
        f"{job_folder}/_METRICS",
        f"{job_folder}/_FINISH",
    }
    assert json.loads((tmp_path / job_folder / "_METRICS").read_text(encoding="utf-8"))["job_name"] == name


def test_spelled_names_give_the_name_back_and_never_meet():
    names = [name for name, _ in HOSTILE] + ["", "%", "%25", "a\u202eb", "\ud800"]
    spelled = [safe_file_name(name) for name in names]
    assert len(set(spelled)) == len(names)
    assert safe_file_name("") == "%"  # the one spelling unquote does not read back
    assert [unquote(s, errors="surrogatepass") for s in spelled if s != "%"] == [n for n in names if n]
    # a bidi override is a format character, a lone surrogate no character at all: both encoded
    assert (safe_file_name("a\u202eb"), safe_file_name("\ud800")) == ("a%E2%80%AEb", "%ED%A0%80")


def test_long_names_are_cut_on_whole_characters():
    # e-acute is 2 bytes: 91 of them fill 182 of the 183 bytes kept, a 92nd would not fit
    name = "\u00e9" * 150
    assert safe_file_name(name) == "\u00e9" * 91 + "~" + hashlib.sha256(name.encode()).hexdigest()[:16]
    # an escape is never cut in half: 1 + 60 escapes of 3 bytes are 181 bytes, a 61st would need 184
    slashes = "a" + "/" * 100
    assert safe_file_name(slashes) == "a" + "%2F" * 60 + "~" + hashlib.sha256(slashes.encode()).hexdigest()[:16]
    assert len(safe_file_name("y" * 200)) == 200 and safe_file_name("y" * 200) == "y" * 200


@pytest.mark.parametrize("name", ["x.t", 'x"."t', "x.t; drop table x.keep"])
def test_a_dot_in_a_rule_name_never_picks_the_schema_of_a_records_table(workdir, name):
    database = workdir / "db.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE SCHEMA x; CREATE TABLE x.keep(a INT)")
    rule = "`" + name + "`"
    (workdir / "s.dq").write_text(f'source t = csv("ids.csv")\ncompleteness {rule} on t: id\n', encoding="utf-8")
    done = gryph(workdir, "run", "s.dq", "--database", "db.duckdb", "--records-to", "table:dq_", "--no-history")
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(database)) as con:
        tables = sorted(con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall())
    assert tables == [("main", f"dq_{name}__incompleteRecords"), ("x", "keep")]


def test_reports_are_written_with_the_users_umask_and_keep_an_existing_mode(workdir):
    (workdir / "s.dq").write_text('source t = csv("ids.csv")\ncompleteness c on t: id\n', encoding="utf-8")
    (workdir / "old.json").write_text("earlier\n")
    os.chmod(workdir / "old.json", 0o644)
    (workdir / "private.json").write_text("earlier\n")
    os.chmod(workdir / "private.json", 0o640)
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    for output in ("old.json", "new.json", "private.json"):
        done = subprocess.run(
            limited([*command, "run", "s.dq", "--no-history", "--format", "json", "--output", output], umask=0o022),
            cwd=workdir,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    modes = {name: stat.S_IMODE((workdir / name).stat().st_mode) for name in ("old.json", "new.json", "private.json")}
    # 0666 less the umask 022 for a new file; an existing file keeps its own mode
    assert modes == {"old.json": 0o644, "new.json": 0o644, "private.json": 0o640}
