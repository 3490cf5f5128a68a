"""Every error code the sources raise is declared once, with its exit code; nothing else is declared."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gryph.compiler.error_codes import CODES
from gryph.compiler.errors import EngineError, InvalidInput, Location

ROOT = Path(__file__).resolve().parents[2]
# a code is the first (or second) argument of an error or of a helper that builds one: error("CODE", ...
RAISED = re.compile(r'(?:Error|Input|error|_refused)\(\s*(?:\w+,\s*)?"([A-Z][A-Z0-9_]+)"|code = "([A-Z][A-Z0-9_]+)"')
SPELLED_ELSEWHERE = {  # codes built from parts, or chosen between
    "DUPLICATE_RULE",
    "DUPLICATE_CHECK",
    "AGGREGATE_IN_WHERE",
    "AGGREGATE_NOT_ALLOWED",
}


def _raised_codes() -> set[str]:
    codes = set()
    for folder in ("compiler", "client", "local_backend"):
        for path in (ROOT / folder).rglob("*.py"):
            codes |= {a or b for a, b in RAISED.findall(path.read_text(encoding="utf-8"))}
    return codes


def test_every_raised_code_is_declared_and_every_declared_code_is_raised():
    raised = _raised_codes()
    assert raised - set(CODES) == set()
    assert set(CODES) - raised - SPELLED_ELSEWHERE == set()


def test_the_exit_code_comes_with_the_code():
    assert InvalidInput("UNKNOWN_COLUMN", "unknown column 'x'").exit_code == 2
    assert EngineError("QUERY_FAILED", "query 'q' failed").exit_code == 3
    with pytest.raises(ValueError, match="declared with exit 3"):
        InvalidInput("QUERY_FAILED", "a run failure raised as bad input")
    with pytest.raises(ValueError, match="not declared"):
        InvalidInput("NO_SUCH_CODE", "a code nobody declared")


def test_location_text_and_hint_are_keywords():
    with pytest.raises(TypeError):
        InvalidInput("UNKNOWN_COLUMN", "unknown column 'x'", Location("a.dq", 1, 2))  # type: ignore[misc]
    error = InvalidInput(
        "UNKNOWN_COLUMN", "unknown column 'x'", location=Location("a.dq", 1, 2), text="x", hint="did you mean 'y'?"
    )
    assert str(error) == "a.dq:1:2: error UNKNOWN_COLUMN: unknown column 'x'\n    near: x\n    hint: did you mean 'y'?"
