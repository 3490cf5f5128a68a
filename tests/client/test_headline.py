"""The verdict line every output shows: its words and its tone, from the checks' statuses."""

from __future__ import annotations

import pytest

from gryph.client.outputs.headline import Headline, broke, error_text, headline


@pytest.mark.parametrize(
    "passed,policy,statuses,unfinished,strict,expected",
    [
        (True, "always", [], 0, False, Headline("passed (policy: always)", "pass")),
        (True, "all", ["PASS"], 0, False, Headline("passed (policy: all) — the check passed", "pass")),
        (True, "all", ["PASS"] * 4, 0, False, Headline("passed (policy: all) — all 4 checks passed", "pass")),
        # the case: the default policy holds while checks fail, so the tone is not green
        (
            True,
            "always",
            ["FAIL", "PASS", "FAIL", "PASS", "PASS"],
            0,
            False,
            Headline("passed (policy: always) — 2 of 5 checks failed", "warn"),
        ),
        (
            True,
            "all",
            ["PASS", "WARN"],
            0,
            False,
            Headline("passed (policy: all) — 1 of 2 checks failed (a warning)", "warn"),
        ),
        (
            True,
            "all",
            ["WARN", "WARN"],
            0,
            False,
            Headline("passed (policy: all) — 2 of 2 checks failed (warnings)", "warn"),
        ),
        (
            False,
            "any",
            ["FAIL", "WARN", "WARN"],
            0,
            False,
            Headline("failed (policy: any) — 3 of 3 checks failed, 2 of them warnings", "fail"),
        ),
        (
            False,
            "always",
            ["PASS", "WARN"],
            0,
            True,
            Headline("failed (policy: always, strict) — 1 of 2 checks failed (a warning)", "fail"),
        ),
        # a check that could not judge yet is neither passed nor failed: counted apart, tone unchanged
        (
            True,
            "all",
            ["PASS", "SKIP", "PASS"],
            0,
            False,
            Headline("passed (policy: all) — all 2 checks passed, 1 skipped", "pass"),
        ),
        (True, "all", ["SKIP"], 0, False, Headline("passed (policy: all) — 1 check skipped", "pass")),
        (
            True,
            "all",
            ["WARN", "SKIP", "SKIP", "PASS"],
            0,
            False,
            Headline("passed (policy: all) — 1 of 2 checks failed (a warning), 2 skipped", "warn"),
        ),
        (
            False,
            "all",
            ["FAIL", "SKIP"],
            0,
            False,
            Headline("failed (policy: all) — 1 of 1 check failed, 1 skipped", "fail"),
        ),
        (
            False,
            "always",
            [],
            1,
            False,
            Headline("failed (policy: always) — 1 rule or measure could not finish", "fail"),
        ),
        (
            False,
            "all",
            ["FAIL"],
            2,
            False,
            Headline("failed (policy: all) — 1 of 1 check failed, 2 rules or measures could not finish", "fail"),
        ),
    ],
)
def test_headline_words_and_tone(passed, policy, statuses, unfinished, strict, expected):
    assert headline(passed, policy, statuses, unfinished, strict) == expected


@pytest.mark.parametrize(
    "code,message,text,line",
    [
        # a located error carries its code: said once, whole (near: and hint: kept); the headline
        # leads with the verdict and the code, and says where last
        (
            "UNKNOWN_COLUMN",
            "s.dq:5:43: error UNKNOWN_COLUMN: unknown column 'age'\n    near: age",
            "s.dq:5:43: error UNKNOWN_COLUMN: unknown column 'age'\n    near: age",
            "error UNKNOWN_COLUMN: unknown column 'age' (at s.dq:5:43)",
        ),
        # an error of no file says no place
        (
            "SPARK_UNREACHABLE",
            "<input>: error SPARK_UNREACHABLE: no server at sc://x",
            "<input>: error SPARK_UNREACHABLE: no server at sc://x",
            "error SPARK_UNREACHABLE: no server at sc://x",
        ),
        # a message without its code (an older history's): the code leads it
        ("SOURCE_NOT_FOUND", "no file t.csv", "error SOURCE_NOT_FOUND: no file t.csv", None),
        ("SOURCE_NOT_FOUND", "", "error SOURCE_NOT_FOUND", None),
        # another error's code quoted in the message is not this error's own
        ("RULE_FAILED", "x: error UNKNOWN_COLUMN: a", "error RULE_FAILED: x: error UNKNOWN_COLUMN: a", None),
    ],
)
def test_a_broken_run_names_its_error_code_once(code, message, text, line):
    assert error_text(code, message) == text
    assert broke(code, message) == Headline(line or text, "error")
