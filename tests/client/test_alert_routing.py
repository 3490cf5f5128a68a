"""Alert routing, run as a user runs it against a local HTTP server that records each POST:
``notify`` limited to tones (``on fail, error``) and to checks (``for "a", "b"``); one message per
run listing every failed check; no repeat while an incident stays open (same tone, same checks)
unless ``repeat = 6h``; a recovery names what recovered."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from tests.client.test_alerts import Hook, hooks_named

SUITE = """suite orders
source t = csv("t.csv")
measure nulls: select count(*) from t where email is null
measure rows: select count(*) from t
measure old: select count(*) from t where age > 100
check "no nulls": measures["nulls"] == 0
check "rows steady": measures["rows"] >= 2
warn check "no old": measures["old"] == 0
"""
GOOD = "id,email,age\n1,a@x,30\n2,b@x,40\n"
NULL = "id,email,age\n1,,30\n2,b@x,40\n"  # "no nulls" fails
NULL_AND_SHORT = "id,email,age\n1,,30\n"  # "no nulls" and "rows steady" fail
SHORT = "id,email,age\n1,a@x,30\n"  # "rows steady" fails
OLD = "id,email,age\n1,a@x,130\n2,b@x,40\n"  # the warning "no old" fails: the run passes
BROKEN = "id,email\n1,a@x\n"  # the column age is gone: the run breaks (exit 2)


@pytest.fixture
def hooks():
    with hooks_named("all", "routed") as servers:
        yield servers


def _run(tmp_path, data: str, when: str, notify: str) -> int:
    (tmp_path / "s.dq").write_text(SUITE + notify, encoding="utf-8")
    (tmp_path / "t.csv").write_text(data, encoding="utf-8")
    history = ["--history", str(tmp_path / "h.duckdb")]
    return main(["run", str(tmp_path / "s.dq"), "--data-time", when, "--quiet", *history])


def _told(hook: Hook) -> list[tuple[str, list[str], list[str]]]:
    """Each message: its event, the failed and warning checks it lists, what it says recovered."""
    return [
        (
            body["event"],
            [c["name"] for c in body["failed"] + body["warnings"]],
            body.get("recovered", []),
        )
        for body in (received["body"] for received in hook.received)
    ]


def test_one_message_per_run_lists_every_failed_check_and_a_recovery_names_them(tmp_path, hooks):
    notify = f'notify "{hooks["all"].url}"\n'
    days = [GOOD, NULL_AND_SHORT, NULL_AND_SHORT, NULL, NULL, GOOD]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [0, 1, 1, 1, 1, 0]
    assert _told(hooks["all"]) == [
        ("failure", ["no nulls", "rows steady"], []),  # 03-02: one message, both checks
        # 03-03: the same incident, no repeat; 03-04: other checks, so told again, with what recovered
        ("failure", ["no nulls"], ["rows steady"]),
        ("recovery", [], ["no nulls"]),  # 03-06 (03-05 the same as 03-04: nothing)
    ]


def test_a_route_on_fail_and_error_is_told_neither_warnings_nor_their_recovery(tmp_path, hooks):
    notify = f'notify "{hooks["all"].url}"\nnotify "{hooks["routed"].url}" on fail, error\n'
    days = [GOOD, OLD, GOOD, BROKEN, GOOD, NULL, BROKEN]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [0, 0, 0, 2, 0, 1, 2]
    assert [event for event, _, _ in _told(hooks["all"])] == [
        "warning",
        "recovery",
        "error",
        "recovery",
        "failure",
        "error",
    ]
    # the warning of 03-02 and its recovery on 03-03 are not this route's; the error and its recovery are
    assert [event for event, _, _ in _told(hooks["routed"])] == ["error", "recovery", "failure", "error"]
    # a run that broke judged no check, so "no nulls" (failing on 03-06) is not said to have recovered
    assert _told(hooks["all"])[-1] == ("error", [], [])
    error = hooks["routed"].received[0]["body"]
    assert error["error"]["code"] == "UNKNOWN_COLUMN" and error["data_time"] == "2026-03-04"


def test_a_route_on_fail_hears_its_failure_recover_when_only_a_warning_is_left(tmp_path, hooks):
    notify = f'notify "{hooks["routed"].url}" on fail\n'
    days = [NULL, OLD, GOOD]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [1, 0, 0]
    # 03-02 leaves only the warning "no old", which this route is not told of: for it the failure
    # of "no nulls" recovered there; 03-03 passes: nothing more to tell it
    assert _told(hooks["routed"]) == [("failure", ["no nulls"], []), ("recovery", ["no old"], ["no nulls"])]


def test_a_recovery_after_a_run_that_broke_names_what_failed_before_it(tmp_path, hooks):
    notify = f'notify "{hooks["all"].url}"\nnotify "{hooks["routed"].url}" on fail\n'
    days = [NULL, BROKEN, GOOD]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [1, 2, 0]
    # the run that broke judged nothing: what recovered on 03-03 is what failed on 03-01
    assert _told(hooks["all"]) == [("failure", ["no nulls"], []), ("error", [], []), ("recovery", [], ["no nulls"])]
    # not told of errors, the route on fail saw the incident of 03-01 go on through 03-02
    assert _told(hooks["routed"]) == [("failure", ["no nulls"], []), ("recovery", [], ["no nulls"])]


def test_a_route_for_some_checks_hears_of_them_alone(tmp_path, hooks):
    notify = f'notify "{hooks["routed"].url}" for "rows steady"\n'
    days = [GOOD, NULL, NULL_AND_SHORT, SHORT, GOOD]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [0, 1, 1, 1, 0]
    # 03-02 failed on "no nulls" only: not this route's; 03-03 "rows steady" fails (listed alone);
    # 03-04 "no nulls" recovered but "rows steady" still fails: the same incident for this route
    assert _told(hooks["routed"]) == [("failure", ["rows steady"], []), ("recovery", [], ["rows steady"])]
    first = hooks["routed"].received[0]["body"]
    assert first["checks"] == ["rows steady"] and first["verdict"] == "fail"


def test_repeat_tells_an_open_incident_again_each_period(tmp_path, hooks):
    notify = f'notify "{hooks["routed"].url}" with repeat = 6h\n'
    hours = range(14)  # 00:00 .. 13:00, every hour failing the same way
    codes = [_run(tmp_path, NULL, f"2026-03-01T{hour:02d}:00", notify) for hour in hours]
    assert codes == [1] * 14
    bodies = [received["body"] for received in hooks["routed"].received]
    # opened at 00:00, told again at 06:00 and 12:00 (6 and 12 hours since it opened)
    assert [body["data_time"] for body in bodies] == ["2026-03-01", "2026-03-01T06:00:00Z", "2026-03-01T12:00:00Z"]
    assert "open_since" not in bodies[0]
    assert bodies[1]["open_since"] == bodies[2]["open_since"] == "2026-03-01T00:00:00+00:00"


def test_slack_says_a_broken_run_broke_with_its_error(tmp_path, hooks):
    notify = f'notify "slack:{hooks["routed"].url}" on error\n'
    assert _run(tmp_path, BROKEN, "2026-03-01", notify) == 2
    [slack] = [received["body"] for received in hooks["routed"].received]
    assert slack["text"] == "gryph: suite orders broke"
    text = slack["blocks"][0]["text"]["text"]
    lines = text.splitlines()
    assert lines[:2] == ["gryph: suite orders broke", "data time: 2026-03-01"]
    # the located error once, whole (not again as the headline, nor its code twice in one line)
    assert lines[2].endswith("s.dq:5:43: error UNKNOWN_COLUMN: unknown column 'age'") and lines[3:] == [
        "    near: age",
        "    hint: known names: email, id",
    ]


@pytest.mark.parametrize(
    "notify,code,text",
    [
        ('notify "http://127.0.0.1:9/" on failure', "BAD_NOTIFY", "'failure' is no tone to alert on"),
        ('notify "http://127.0.0.1:9/" on fail for "no nul"', "UNKNOWN_CHECK", "did you mean 'no nulls'?"),
        ('notify "http://127.0.0.1:9/" with repeat = "often"', "BAD_NOTIFY", 'a time of at least 1m, got "often"'),
        (
            'notify "smtp://dq@mail.example:587/?from=d@example.org&to=a@example.org" with token_env = "T"',
            "BAD_NOTIFY",
            "an smtp target takes no option 'token_env'",
        ),
    ],
)
def test_bad_routes_are_refused_before_the_run(tmp_path, capsys, notify, code, text):
    (tmp_path / "s.dq").write_text(SUITE + notify + "\n", encoding="utf-8")
    (tmp_path / "t.csv").write_text(GOOD, encoding="utf-8")
    assert main(["validate", str(tmp_path / "s.dq")]) == 2
    err = capsys.readouterr().err
    assert f"s.dq:9:1: error {code}" in err and text in err


@pytest.mark.parametrize("parser", ["fast", "textx"])
@pytest.mark.parametrize(
    "written,said",
    [
        ("30s", "got 30s"),  # as written, not the 30000 milliseconds it is read as
        ("59999ms", "got 59999ms"),
        ('"30s"', 'got "30s"'),
        ("0", "got 0"),
        ("30000", "got 30000 (a number is milliseconds: 30s)"),
    ],
)
def test_a_repeat_under_a_minute_is_refused_as_the_suite_writes_it(
    tmp_path, capsys, monkeypatch, parser, written, said
):
    monkeypatch.setenv("GRYPH_PARSER", parser)
    (tmp_path / "s.dq").write_text(SUITE + f'notify "http://127.0.0.1:9/" with repeat = {written}\n', encoding="utf-8")
    assert main(["validate", str(tmp_path / "s.dq")]) == 2
    err = capsys.readouterr().err
    assert f"s.dq:9:1: error BAD_NOTIFY: notify http:...: repeat must be a time of at least 1m, {said}\n" in err, err
