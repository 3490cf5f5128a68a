"""Runs keyed by data time: ``--var`` values for ``${name}``, ``--data-time`` and the suite's
``data_time``, reruns that supersede, history read in data-time order, ``gryph backfill``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gryph.client import runner
from gryph.client.cli.main import main
from gryph.compiler.errors import InvalidInput
from gryph.compiler.suites.suite_variables import substitute

from ..support.gryph_cli import gryph

# one file per day, whose rows are the day's: 2 rows on the 1st, 1 on the 2nd, 4 on the 3rd
DAYS = {"2026-11-01": [5, 7], "2026-11-02": [1], "2026-11-03": [2, 2, None, 9]}

SUITE = """suite daily
data_time = ${day}
source part = csv("days/${day}/orders.csv")
measure rows: select count(*) from part
measure same_day: select count(*) from part where cast(day as string) = ${day}
measure sql_day: sql "select count(*) from part where cast(day as string) = ${day}"
completeness amounts on part: amount
check "grew": measures["rows"] > previous_metric("amounts", "total")
pass when all
"""


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    for day, amounts in DAYS.items():
        folder = tmp_path / "days" / day
        folder.mkdir(parents=True)
        lines = ["day,amount"] + [f"{day},{'' if a is None else a}" for a in amounts]
        (folder / "orders.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "daily.dq").write_text(SUITE)
    return tmp_path


def _run(suite_dir: Path, day: str, history: Path):
    return runner.run(suite_dir / "daily.dq", history=history, variables={"day": day})


def test_a_value_is_a_dsl_string_a_path_part_and_a_sql_literal():
    text = (
        'source s = csv("d/${p}/x.csv")\nsource t = postgres("postgresql://h/db", query = "select ${v}")\n'
        "measure m: select 1 where a = ${v}\n"
    )
    out = substitute(text, {"p": "2026", "v": 'it"s'}, "s.dq")
    assert out.text == (
        'source s = csv("d/2026/x.csv")\nsource t = postgres("postgresql://h/db", query = "select \'it\\"s\'")\n'
        'measure m: select 1 where a = "it\\"s"\n'
    )
    assert out.used == {"p", "v"}


def test_griffin_heads_and_statement_variables_stay_as_written():
    text = "accuracy k on a, b: SLA = 24h; @Invalid ${source}['t'] + ${SLA} > ${target}['t'];"
    assert substitute(text, {}, None).text == text


def test_a_comment_and_an_escaped_dollar_are_not_variables():
    assert substitute("# ${x}\nmeasure m: select '$${y}'", {}, None).text == "# ${x}\nmeasure m: select '${y}'"


@pytest.mark.parametrize(
    ("text", "values", "code", "where", "message"),
    [
        ("measure m: select 1\ncheck c:  ${nope} == 1", {}, "UNDEFINED_VAR", (2, 11), "${nope} has no value"),
        ('source s = csv("a/${d}.csv")', {"d": "../etc"}, "BAD_VAR", (1, 19), "one path part"),
        ('source s = csv("a/${d}.csv")', {"d": ""}, "BAD_VAR", (1, 19), "one path part"),
        ('source s = csv("a/${d}.csv")', {"d": "*"}, "BAD_VAR", (1, 19), "matching only itself"),
        ('source s = csv("a/${d}/x.csv")', {"d": "2026-11-2?"}, "BAD_VAR", (1, 19), "matching only itself"),
        ('source s = csv("a/${d}.csv")', {"d": "[ab]"}, "BAD_VAR", (1, 19), "matching only itself"),
        ("check c: ${d} == 1", {"d": "caf\udce9"}, "BAD_VAR", None, "is not UTF-8 text"),
        ('measure m: sql "select ${d}"', {"d": "x\0"}, "BAD_VAR", (1, 24), "NUL character"),
        ('measure m: sql "select `${d}`"', {"d": "x"}, "BAD_VAR", (1, 25), "inside a quoted SQL name"),
        ('measure m: sql "select a${d}"', {"d": "x"}, "BAD_VAR", (1, 25), "next to other SQL text"),
        ('measure m on s: native "select ${d}"', {"d": "x"}, "BAD_VAR", (1, 32), "cannot be told"),
        ('source s = csv("a.csv", delimiter = "${d}")', {"d": ";"}, "BAD_VAR", (1, 38), "not in this string"),
        ("check c: ${1x} == 1", {}, "BAD_VAR", (1, 10), "starts no variable"),
    ],
)
def test_misplaced_or_missing_values_are_located_errors(text, values, code, where, message):
    with pytest.raises(InvalidInput) as raised:
        substitute(text, values, "s.dq")
    error = raised.value
    assert (error.code, where and (error.location.line, error.location.column)) == (code, where)
    assert message in error.message


def test_paths_filters_and_sql_read_the_day(suite_dir: Path, tmp_path: Path):
    result = _run(suite_dir, "2026-11-03", tmp_path / "h.duckdb")
    # the 3rd's file has 4 rows, all of that day; one amount is empty
    assert result.measures == {"rows": 4, "same_day": 4, "sql_day": 4}
    assert result.metrics["amounts"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert result.to_dict()["data_time"] == "2026-11-03"


def test_history_reads_earlier_data_times_and_a_rerun_supersedes(suite_dir: Path, tmp_path: Path):
    history = tmp_path / "h.duckdb"
    # run out of order: the 3rd first, then the 1st, then the 2nd
    third = _run(suite_dir, "2026-11-03", history)
    first = _run(suite_dir, "2026-11-01", history)
    second = _run(suite_dir, "2026-11-02", history)
    # "grew" compares with the previous data time's total, not the previous run's:
    # the 3rd ran first, with nothing before it (the check cannot judge: SKIP); the 1st has
    # nothing before it either; the 2nd (1 row) reads the 1st (2 rows): did not grow
    assert [c.status for r in (third, first, second) for c in r.checks] == ["SKIP", "SKIP", "FAIL"]
    rerun = _run(suite_dir, "2026-11-03", history)  # reads the 2nd (1 row): 4 > 1
    assert [c.passed for c in rerun.checks] == [True]

    listed = json.loads(gryph("history", "daily", "--history", str(history), "--format", "json").stdout)
    assert [(r["data_time"], r["run_id"]) for r in listed["runs"]] == [
        ("2026-11-03", rerun.run_id),
        ("2026-11-02", second.run_id),
        ("2026-11-01", first.run_id),
    ]
    every = json.loads(gryph("history", "daily", "--history", str(history), "--format", "json", "--all").stdout)
    assert [(r["data_time"], r["superseded_by"]) for r in every["runs"]] == [
        ("2026-11-03", None),
        ("2026-11-03", rerun.run_id),  # the first run of the 3rd: kept, marked
        ("2026-11-02", None),
        ("2026-11-01", None),
    ]
    assert every["runs"][1]["run_id"] == third.run_id


def test_backfill_runs_each_day_in_order(suite_dir: Path, tmp_path: Path, capsys):
    history = tmp_path / "h.duckdb"
    args = ["backfill", str(suite_dir / "daily.dq"), "--history", str(history)]
    code = main([*args, "--from", "2026-11-01", "--to", "2026-11-03", "--var", "day={data_time}", "--format", "json"])
    runs = json.loads(capsys.readouterr().out)["runs"]
    # the 1st has no earlier day (skipped: passes), the 2nd shrank (fails), the 3rd grew (passes): exit 1
    assert code == 1
    assert [(r["data_time"], r["pass"]) for r in runs] == [
        ("2026-11-01", True),
        ("2026-11-02", False),
        ("2026-11-03", True),
    ]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["run", "{suite}", "--var", "day=2026-11-01", "--var", "dya=1"], "UNUSED_VAR", "did you mean 'day'?"),
        (["run", "{suite}"], "UNDEFINED_VAR", "daily.dq:2:13"),
        (["run", "{suite}", "--var", "day=2026-11-01", "--data-time", "2026-11-31"], "BAD_DATA_TIME", "2026-11-31"),
        (["run", "{suite}", "--var", "day"], "BAD_VAR", "is not name=value"),
        # bytes that are not UTF-8 (Latin-1's e-acute), as Python holds them from the command line
        (["run", "{suite}", "--var", "day=caf\udce9"], "BAD_VAR", "--var day=caf\\xe9 is not UTF-8 text"),
        (["backfill", "{suite}", "--from", "2026-11-03", "--to", "2026-11-01"], "BAD_RANGE", "is after --to"),
        (["backfill", "{suite}", "--from", "2026-11-01", "--to", "2026-11-03", "--step", "0d"], "BAD_RANGE", "--step"),
    ],
)
def test_bad_input_exits_2_with_a_located_error(suite_dir: Path, args, code, message, capsys):
    argv = [a.replace("{suite}", str(suite_dir / "daily.dq")) for a in args] + ["--history", str(suite_dir / "h")]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert f"error {code}" in error and message in error
    assert not (suite_dir / "h").exists()  # nothing ran, nothing stored


def test_a_glob_character_in_a_value_never_reads_other_folders(suite_dir: Path):
    # days/2026-11-0?/ would match all three days' folders: the value must name one folder
    with pytest.raises(InvalidInput) as raised:
        runner.run(suite_dir / "daily.dq", variables={"day": "2026-11-0?"})
    assert raised.value.code == "BAD_VAR" and "matching only itself" in raised.value.message


def test_values_in_a_path_a_filter_and_sql_read_the_same_on_spark(suite_dir: Path, spark_remote):
    # the substitution happens before compilation: both engines see the same suite
    for engine, remote in (("duckdb", None), ("spark", spark_remote)):
        result = runner.run(suite_dir / "daily.dq", engine, remote=remote, variables={"day": "2026-11-03"})
        assert result.measures == {"rows": 4, "same_day": 4, "sql_day": 4}, engine
        assert result.metrics["amounts"] == {"total": 4, "incomplete": 1, "complete": 3}, engine


def test_the_report_of_a_backfilled_day_is_that_days_run(tmp_path):
    """A run for an earlier data time than the history's newest: its report shows it, with the
    days before it as the trend, not the later day's run."""
    from gryph.client.cli.main import main

    for day, rows in (("2026-11-24", 2), ("2026-11-25", 5)):
        (tmp_path / f"{day}.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(rows)), encoding="utf-8")
    (tmp_path / "s.dq").write_text('source t = csv("${day}.csv")\nmeasure "rows": select count(*) from t\n')
    history = str(tmp_path / "h.duckdb")
    base = ["run", str(tmp_path / "s.dq"), "--history", history, "--quiet"]
    assert main([*base, "--var", "day=2026-11-25", "--data-time", "2026-11-25"]) == 0
    page = tmp_path / "r.html"
    assert main([*base, "--var", "day=2026-11-24", "--data-time", "2026-11-24", "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "rows read: t: 2</p>" in html  # the 24th's 2 rows, not the 25th's 5
    assert "Trends appear once two runs" in html  # no run comes before the 24th: the 25th is later
