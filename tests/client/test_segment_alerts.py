"""Alerts routed to segments, run as a user runs them against a local HTTP server that records each
POST: ``notify URL for segments "ES", "FR"`` hears only when one of its segments fails a check
judged `by` a column, its message names them, an incident is a check and its set of failing
segments, and a recovery names the segments that recovered."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from tests.client.test_alerts import Hook, hooks_named

SUITE = """suite orders
source t = csv("t.csv")
measure "rows" by country: select count(*) from t
check "two per country" by country: measures["rows"] >= 2
"""


def _day(es: int, fr: int, de: int, null: int) -> str:
    """A day's orders: so many rows of each country (NULL: an empty field)."""
    countries = ["ES"] * es + ["FR"] * fr + ["DE"] * de + [""] * null
    return "id,country\n" + "".join(f"{i},{country}\n" for i, country in enumerate(countries))


@pytest.fixture
def hooks():
    with hooks_named("all", "es_fr", "de_null") as servers:
        yield servers


def _run(tmp_path, data: str, when: str, notify: str) -> int:
    (tmp_path / "s.dq").write_text(SUITE + notify, encoding="utf-8")
    (tmp_path / "t.csv").write_text(data, encoding="utf-8")
    return main(["run", str(tmp_path / "s.dq"), "--data-time", when, "--quiet", "--history", str(tmp_path / "h.db")])


def _told(hook: Hook) -> list[tuple[str, list, dict]]:
    """Each message: its event, the failing segments it names, the segments it says recovered."""
    told = []
    for body in (received["body"] for received in hook.received):
        failing = [segment for check in body["failed"] for segment in check.get("segments", [])]
        told.append((body["event"], failing, body.get("recovered_segments", {})))
    return told


def test_a_target_hears_of_its_segments_alone(tmp_path, hooks):
    notify = (
        f'notify "{hooks["all"].url}"\n'
        f'notify "{hooks["es_fr"].url}" for segments "ES", "FR"\n'
        f'notify "{hooks["de_null"].url}" for "two per country" for segments "DE", null\n'
    )
    days = [
        _day(2, 2, 2, 2),  # 03-01: every segment has two rows
        _day(1, 2, 2, 2),  # 03-02: ES fails
        _day(1, 1, 2, 2),  # 03-03: ES and FR
        _day(1, 1, 1, 1),  # 03-04: all four
        _day(2, 1, 2, 2),  # 03-05: FR alone
        _day(2, 2, 2, 2),  # 03-06: none
    ]
    codes = [_run(tmp_path, data, f"2026-03-0{i + 1}", notify) for i, data in enumerate(days)]
    assert codes == [0, 1, 1, 1, 1, 0]
    check = "two per country"
    # ES and FR: told when ES fails, again when the set becomes ES and FR (another incident), not when
    # DE and NULL join (not its segments), again when ES recovers, and of FR's recovery at the end
    assert _told(hooks["es_fr"]) == [
        ("failure", ["ES"], {}),
        ("failure", ["ES", "FR"], {}),
        ("failure", ["FR"], {check: ["ES"]}),
        ("recovery", [], {check: ["FR"]}),
    ]
    # DE and NULL fail on 03-04 alone (one row each; NULL is listed first among equal counts)
    assert _told(hooks["de_null"]) == [("failure", [None, "DE"], {}), ("recovery", [], {check: [None, "DE"]})]
    # a target without segments hears of the check as before: it opened, recovered
    assert [body["body"]["event"] for body in hooks["all"].received] == ["failure", "recovery"]
    first = hooks["es_fr"].received[0]["body"]
    assert first["segments"] == ["ES", "FR"] and first["verdict"] == "fail"
    assert "segments" not in hooks["all"].received[0]["body"]["failed"][0]


def test_slack_names_the_failing_and_recovered_segments(tmp_path, hooks):
    notify = f'notify "slack:{hooks["es_fr"].url}" for segments "ES", "FR"\n'
    assert _run(tmp_path, _day(1, 1, 2, 0), "2026-03-01", notify) == 1
    assert _run(tmp_path, _day(2, 1, 2, 0), "2026-03-02", notify) == 1
    texts = [received["body"]["blocks"][0]["text"]["text"] for received in hooks["es_fr"].received]
    assert 'FAIL two per country in "ES", "FR": ' in texts[0]
    assert 'FAIL two per country in "FR": ' in texts[1] and 'recovered: two per country in "ES"' in texts[1]


def test_a_segment_route_and_a_check_route_are_both_read_by_both_parsers(monkeypatch):
    from tests.compiler.parser_outcomes import fast_outcome, textx_outcome

    text = 'notify "http://127.0.0.1:9/" on fail for "a", b for segments "ES", 7, null with timeout = 5'
    fast = fast_outcome("suite", text)
    assert fast is not None, "left to textX"
    assert fast == textx_outcome("suite", text, monkeypatch)
    (notify,) = fast[1].statements
    assert (notify.tones, notify.checks, notify.segments) == (("fail",), ("a", "b"), ("ES", 7, None))
    (alone,) = fast_outcome("suite", 'notify "http://127.0.0.1:9/" for segments "ES"')[1].statements
    assert (alone.checks, alone.segments) == ((), ("ES",))


@pytest.mark.parametrize(
    "suite,line",
    [
        # no check of the suite is judged by a column
        (
            SUITE.replace(' by country: measures["rows"]', ': measures["rows"]')
            + 'notify "http://127.0.0.1:9/" for segments "ES"',
            5,
        ),
        # the one it watches is not
        (SUITE + 'check "rows": measures["rows"] >= 1\nnotify "http://127.0.0.1:9/" for "rows" for segments "ES"', 6),
    ],
)
def test_a_segment_route_watching_no_check_by_a_column_is_refused(tmp_path, capsys, suite, line):
    (tmp_path / "s.dq").write_text(suite + "\n", encoding="utf-8")
    (tmp_path / "t.csv").write_text(_day(2, 2, 2, 0), encoding="utf-8")
    assert main(["validate", str(tmp_path / "s.dq")]) == 2
    err = capsys.readouterr().err
    assert f"s.dq:{line}:1: error BAD_NOTIFY: notify ... for segments: no check it watches is judged by a column" in err
