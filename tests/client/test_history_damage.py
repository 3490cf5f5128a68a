"""A run history is a valid DuckDB file whose rows may be damaged or edited: a NULL, another type
or JSON of another shape in any value `gryph history` or `gryph report` reads is
HISTORY_UNREADABLE naming the file and the value, never a traceback (these were TypeError,
AttributeError and JSONDecodeError)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from gryph.client.cli.main import main

SUITE = """suite users
source t = csv("{data}")
completeness named on t: name
measure "rows": select count(*) from t
"""

BOTH, HISTORY, REPORT = (
    ("history", "report"),
    ("history",),
    ("report",),
)  # the report reads no measures list nor rule metrics


def _document(part: str) -> str:
    """A statement changing the stored result document's ``part`` (its other parts as they were)."""
    return f"update runs set document = json_merge_patch(document, '{{{part}}}')"


# (the damage, an SQL statement on a history holding one run; what the error names; the commands reading it)
DAMAGES = [
    ("document cut short", "update runs set document = '{\"pass\": tr'", "'s document is no JSON", BOTH),
    ("document NULL", "update runs set document = null", "'s document is NULL, not a text", BOTH),
    ("document a list", "update runs set document = '[1]'", "'s document is list [1], not a JSON object", BOTH),
    ("measures a list", _document('"measure": [1]'), "'s 'measure' is list [1], not an object", BOTH),
    ("no verdict", _document('"pass": null'), "'s document has no 'pass'", BOTH),
    ("another tool's JSON", "update runs set document = '{\"id\": 7}'", "'s document has no 'name'", BOTH),
    ("start NULL", "update runs set started = null", "'s start is NULL, not a time", BOTH),
    ("suite NULL", "update runs set suite = null", "a run's suite is NULL, not a text", BOTH),
    ("a metric cut short", "update metric_values set value = '{'", "metrics of rule 'named' is no JSON", HISTORY),
    # parts of a document the report follows, of another shape (these were AttributeError and TypeError)
    ("measures a number", _document('"measure": 7'), "'s 'measure' is int 7, not an object", BOTH),
    ("report rules a number", _document('"rules": 7'), "'s 'rules' is int 7, not an object", REPORT),
    (
        "report a rule a number",
        _document('"rules": {"named": 7}'),
        "'s rules of 'named' is int 7, not an object",
        REPORT,
    ),
    (
        "report check details a number",
        _document('"check_details": 7'),
        "'s 'check_details' is int 7, not a list",
        REPORT,
    ),
    (
        "report a check detail a list",
        _document('"check_details": [[1]]'),
        "'s check 1 is list [1], not an object",
        REPORT,
    ),
    # a document of another gryph's making: a newer format, or parts this gryph does not know
    ("report a newer format", _document('"format_version": 2'), "is of result format 2; this gryph reads", REPORT),
    ("report a format not a number", _document('"format_version": "1"'), "format_version is str '1'", REPORT),
    (
        "report a rule of an unknown kind",
        _document('"rules": {"named": {"kind": "closeness"}}'),
        "rules of 'named' is of kind 'closeness', no rule kind of gryph's",
        REPORT,
    ),
    (
        "report a check of an unknown status",
        _document('"check_details": [{"name": "c", "expression": "true", "status": "MAYBE"}]'),
        "'s check 1's status is 'MAYBE', not one of PASS, FAIL, WARN, SKIP",
        REPORT,
    ),
    (
        "report a stream batch's time a text",
        _document('"stream": {"batch": 1, "tmst": "x"}'),
        "'tmst' is str 'x'",
        REPORT,
    ),
]
CASES = [(which, *damage[:3]) for damage in DAMAGES for which in damage[3]]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A history holding one run of a real suite."""
    folder = tmp_path_factory.mktemp("history")
    (folder / "t.csv").write_text('name\na\n""\n', encoding="utf-8")
    (folder / "users.dq").write_text(SUITE.format(data=folder / "t.csv"), encoding="utf-8")
    assert main(["run", str(folder / "users.dq"), "--history", str(folder / "h.duckdb")]) in (0, 1)
    return folder


def _command(which: str, history: Path) -> list[str]:
    if which == "history":
        return ["history", "users", "--history", str(history)]
    return ["report", "users", "--history", str(history), "--html", str(history.parent / "r.html")]


@pytest.mark.parametrize(("which", "name", "damage", "named"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_damaged_row_is_history_unreadable_naming_the_file(stored, tmp_path, capsys, which, name, damage, named):
    history = tmp_path / "h.duckdb"
    shutil.copy(stored / "h.duckdb", history)
    with duckdb.connect(str(history)) as con:
        con.execute(damage)
    capsys.readouterr()
    assert main(_command(which, history)) == 3
    err = capsys.readouterr().err
    assert f"error HISTORY_UNREADABLE: the history {history} holds a damaged run: " in err
    assert named in err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("which", ["history", "report"])
@pytest.mark.parametrize("replaced_by", ["run_id", "'no-such-run'"])
def test_every_run_marked_replaced_is_history_unreadable(stored, tmp_path, capsys, which, replaced_by):
    """A rerun replaces the runs of its data time before it, never the newest: a history whose every
    run of a suite is marked replaced (by itself, by a run it does not hold) was edited (the report
    was an IndexError, `history` an empty list)."""
    history = tmp_path / "h.duckdb"
    shutil.copy(stored / "h.duckdb", history)
    with duckdb.connect(str(history)) as con:
        con.execute("delete from data_times")
        con.execute(f"insert into data_times select run_id, suite, timestamp '2026-11-24', {replaced_by} from runs")
    capsys.readouterr()
    assert main(_command(which, history)) == 3
    err = capsys.readouterr().err
    assert (
        f"error HISTORY_UNREADABLE: the history {history} marks every stored run of suite 'users' as replaced "
        "by a rerun of its data time" in err
    )
    assert "internal error" not in err and "Traceback" not in err
    assert main(["history", "users", "--history", str(history), "--all"]) == 0  # listed as they are stored
    assert "(superseded)" in capsys.readouterr().out
