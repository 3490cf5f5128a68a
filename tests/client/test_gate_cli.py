"""The CI gate from the command line: exit codes, JUnit XML, Markdown, --strict and `gryph history`."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.gryph_cli import ROOT, gryph

SUITE = """source t = csv("t.csv", schema = "id bigint, email string")
measure "nulls": select count(*) from t where email is null
measure "ids" as map: count(id) as c, count(distinct id) as cd
check "no nulls": measures["nulls"] == 0
check "unique": measures["ids"]["c"] == measures["ids"]["cd"]
warn check "small": measures["ids"]["c"] < 3
{policy}
"""
# t.csv: ids 1, 2, 2, 3; one NULL email -> nulls 1, ids {c: 4, cd: 3}


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "t.csv").write_text("id,email\n1,a@x\n2,\n2,b@x\n3,c@x\n")
    return tmp_path


def write_suite(workdir: Path, policy: str) -> str:
    (workdir / "s.dq").write_text(SUITE.format(policy=policy))
    return str(workdir / "s.dq")


@pytest.mark.parametrize(
    "policy,strict,code,verdict",
    [
        ("pass when always", False, 0, "passed (policy: always)"),
        ("pass when all", False, 1, "failed (policy: all)"),  # both deciding checks fail
        ("pass when any", False, 1, "failed (policy: any)"),
        ("pass when passed >= 0", False, 0, "passed (policy: passed >= 0)"),
        ("pass when passed >= 0", True, 1, "failed (policy: passed >= 0, strict)"),  # --strict fails the warning
        ('pass when checks("unique")', False, 1, 'failed (policy: checks("unique"))'),
    ],
)
def test_exit_codes_follow_the_pass_policy(workdir, policy, strict, code, verdict):
    args = ["run", write_suite(workdir, policy), "--history", str(workdir / "h.duckdb")]
    done = gryph(*args, *(["--strict"] if strict else []))
    assert done.returncode == code, done.stderr
    # every check fails: nulls 1 != 0, ids 4 != 3 distinct, and the warning's 4 < 3
    assert done.stdout.rstrip().endswith(f"verdict: {verdict} — 3 of 3 checks failed, 1 of them a warning")


def test_invalid_check_exits_2_with_location(workdir):
    (workdir / "s.dq").write_text(
        'source t = csv("t.csv", schema = "id bigint, email string")\n'
        'measure "nulls": count(*)\ncheck "c": measures["null"] == 0\n'
    )
    done = gryph("validate", str(workdir / "s.dq"))
    assert done.returncode == 2
    assert f"{workdir / 's.dq'}:3:20: error UNKNOWN_MEASURE" in done.stderr and "nulls" in done.stderr
    assert gryph("run", str(workdir / "s.dq"), "--no-history").returncode == 2


def test_engine_error_exits_3(workdir):
    path = write_suite(workdir, "pass when all")
    (workdir / "t.csv").unlink()
    assert gryph("run", path, "--no-history").returncode == 3


def test_junit_has_one_testcase_per_check_with_values(workdir):
    junit = workdir / "out" / "junit.xml"
    done = gryph("run", write_suite(workdir, "pass when all"), "--no-history", "--junit", str(junit))
    assert done.returncode == 1, done.stderr
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["no nulls", "unique", "small"]
    assert suite.get("tests") == "3" and suite.get("failures") == "2" and suite.get("skipped") == "1"
    failure = cases["no nulls"].find("failure")
    assert failure.get("message") == 'measures["nulls"] == 0 is not true: measures["nulls"] = 1'
    assert 'measures["ids"]["c"] = 4' in cases["unique"].find("failure").get("message")
    assert cases["small"].find("skipped") is not None  # a failed warning


def test_strict_junit_fails_warnings_and_markdown_summary(workdir):
    junit, markdown, page = workdir / "j.xml", workdir / "summary.md", workdir / "report.html"
    done = gryph(
        "run",
        write_suite(workdir, "pass when always"),
        "--no-history",
        "--strict",
        "--junit",
        str(junit),
        "--markdown",
        str(markdown),
        "--html",
        str(page),
    )
    assert done.returncode == 1
    assert ET.parse(junit).getroot().find("testsuite").get("failures") == "3"
    text = markdown.read_text()
    assert text.startswith("## ❌ gryph: suite s failed (policy: always, strict) — 3 of 3 checks failed")
    assert "| nulls | 1 |" in text and '| ids | {"c": 4, "cd": 3} |' in text
    assert '| no nulls | ❌ FAIL | measures["nulls"] = 1 |' in text
    assert "| small | ⚠️ WARN |" in text
    html = page.read_text()  # the page's verdict is the same headline, strict included
    assert "failed (policy: always, strict) — 3 of 3 checks failed" in html
    assert '<span class="verdict fail">FAIL</span>' in html


def test_history_command_lists_past_values(workdir):
    history = str(workdir / "h.duckdb")
    path = write_suite(workdir, "pass when always")
    for _ in range(2):
        assert gryph("run", path, "--history", history, "--format", "json").returncode == 0
    done = gryph("history", "s", "--history", history, "--measure", "nulls", "--format", "json")
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["value"] for r in runs] == [1, 1] and all(r["pass"] is True for r in runs)
    text = gryph("history", "s", "--history", history)
    assert text.returncode == 0 and len(re.findall(r'measures\["nulls"\]\s+1\n', text.stdout)) == 2


def test_an_unknown_suite_is_one_error_for_history_and_report(workdir):
    history = str(workdir / "h.duckdb")
    for name in ("s", "orders_daily"):
        (workdir / f"{name}.dq").write_text(SUITE.format(policy="pass when always"))
        assert gryph("run", str(workdir / f"{name}.dq"), "--history", history).returncode == 0
    report = ("-o", str(workdir / "r.html"))
    for command, extra in (("history", ()), ("report", report)):
        done = gryph(command, "orders_dialy", "--history", history, *extra)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.startswith(f"{history}: error NO_STORED_RUNS: no stored runs of suite 'orders_dialy'")
        assert "hint: did you mean 'orders_daily'?" in done.stderr
        done = gryph(command, "other", "--history", history, *extra)
        assert done.returncode == 2 and "hint: suites stored there: orders_daily, s" in done.stderr
        done = gryph(command, "s", "--history", str(workdir / "none.duckdb"), *extra)
        assert done.returncode == 2 and "hint: gryph run SUITE --history PATH stores runs" in done.stderr
    assert not (workdir / "r.html").exists() and not (workdir / "none.duckdb").exists()
    # a stored suite whose runs the options leave out is no error
    done = gryph("history", "s", "--history", history, "--limit", "0")
    assert done.returncode == 0 and done.stdout.startswith("no runs of 's'")


def test_default_history_file(workdir):
    path = write_suite(workdir, "pass when always")
    assert gryph("run", path, cwd=workdir).returncode == 0
    assert (workdir / ".gryph" / "history.duckdb").exists()
    assert gryph("run", path, "--no-history", cwd=workdir).returncode == 0
    done = gryph("history", "s", "--format", "json", cwd=workdir)
    assert len(json.loads(done.stdout)["runs"]) == 1


def test_seed_example_runs_from_examples():
    done = gryph("run", "examples/seed.dq", "--format", "json", "--no-history")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["measure"] == {
        "Null Count": 1,
        "count vs count distinct": [60, 40],
        "multiple values": {"c": 60, "cd": 40},
        "sql nulls": 1,
    }
    assert document["check"] == {
        "no null value": False,
        "count bigger than 50": True,
        "count > 50 in another way": True,
        "all order is unique": False,
        "match rate": False,  # a warning: 48 of 50 users match (10039, 10050 differ), 0.96 < 0.99
    }
    assert document["metrics"]["users_match"] == {"total": 50, "miss": 2, "matched": 48, "matchedFraction": 0.96}
    assert document["pass"] is True
    assert ROOT.joinpath("examples", "seed.dq").exists()


def test_a_run_that_passes_with_failed_checks_never_looks_green(tmp_path):
    """seed.dq passes (policy always) while 2 checks and 1 warning fail: every output says so."""
    junit, markdown, html = tmp_path / "j.xml", tmp_path / "s.md", tmp_path / "r.html"
    outputs = ["--junit", str(junit), "--markdown", str(markdown), "--html", str(html)]
    done = gryph("run", "examples/seed.dq", "--no-history", *outputs)
    assert done.returncode == 0, done.stderr
    line = "passed (policy: always) — 3 of 5 checks failed, 1 of them a warning"
    assert done.stdout.rstrip().endswith(f"verdict: {line}")
    summary = markdown.read_text(encoding="utf-8")
    assert summary.startswith(f"## ⚠️ gryph: suite seed {line}\n") and "✅ gryph" not in summary
    properties = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert properties["verdict"] == line and properties["pass"] == "true"
    page = html.read_text(encoding="utf-8")
    assert line in page and '<span class="verdict warn">PASS</span>' in page
    assert '<span class="verdict pass">PASS</span></h1>' not in page


def test_junit_spells_out_characters_xml_forbids(workdir):
    """Control characters in check names and data values would make the XML unreadable: each is
    written as its escape, while tab, unicode and XML's own specials survive as they are."""
    (workdir / "t.csv").write_text("id,email\n1,a\x01b\x1b[31m\x7f\n", encoding="utf-8")
    (workdir / "s.dq").write_text(
        'source t = csv("t.csv", schema = "id bigint, email string")\n'
        'measure "e": select max(email) from t\n'
        'check "nul\x00 é\t<&>\x0b\ufffe": measures["e"] == "x"\n',
        encoding="utf-8",
    )
    junit = workdir / "j.xml"
    done = gryph("run", str(workdir / "s.dq"), "--no-history", "--junit", str(junit))
    assert done.returncode == 1, done.stderr  # the check fails, and with no `pass when` line so does the run
    (case,) = ET.parse(junit).getroot().iter("testcase")
    assert case.get("name") == "nul\\x00 é\t<&>\\x0b\\ufffe"
    assert case.find("failure").get("message").endswith('measures["e"] = a\\x01b\\x1b[31m\x7f')
