"""A check `by COLUMN` is judged once per segment of the metrics it reads (each reads the
segment's values, not those over all rows), fails naming the failing segments, and its outcome per
segment is in the result document (read back typed), the text report, JUnit and the history; a
check by a column that what it reads is not split by is a located BAD_SEGMENT_CHECK."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from gryph.client import load_suite, run
from gryph.client.outputs.text import to_text
from gryph.client.results.document import read_document
from gryph.client.store.history import HistoryStore
from gryph.compiler.errors import InvalidInput
from tests.compiler.parser_outcomes import fast_outcome, textx_outcome
from tests.support.gryph_cli import gryph

# per country: FR 3 rows (1 without email), DE 2 (1), NULL 1 (0), "" 1 (0), "Ü" 1 (1)
TABLE = pa.table(
    {
        "id": [1, 2, 3, 4, 5, 6, 7, 8],
        "email": ["a@x", None, "c@x", None, "e@x", "f@x", "g@x", None],
        "country": ["FR", "FR", "FR", "DE", "DE", None, "", "Ü"],
    }
)
RULES = 'completeness contact on t by country: email\nmeasure "rows" by country: select count(*) from t\n'


def _run(checks: str):
    return run(load_suite(RULES + checks, {"t": TABLE}))


def _segments(outcome) -> dict:
    return {value: o.status for value, o in outcome.segments}


def test_a_check_by_a_column_is_judged_per_segment_and_names_the_failing_ones():
    result = _run('check "two rows" by country: measures["rows"] >= 2\n')
    (check,) = result.checks
    # 3, 2, then the three 1-row segments (ties by value, NULL first)
    assert _segments(check) == {"FR": "PASS", "DE": "PASS", None: "FAIL", "": "FAIL", "Ü": "FAIL"}
    assert check.status == "FAIL" and check.error is None  # failed, not broken
    assert check.values["segments failed"] == '3 of 5: NULL, "", "Ü"'
    assert check.values['"Ü"'] == {'measures["rows"]': 1}
    assert result.passed is False


def test_each_segment_reads_its_own_metrics_not_those_of_every_row():
    # over all rows 5 of 8 are complete (62%): only "Ü" (0 of 1) and DE (1 of 2) fall under 60%
    result = _run(
        'check "mostly complete" by country: metrics["contact"]["complete"] / metrics["contact"]["total"] >= 0.6\n'
    )
    (check,) = result.checks
    assert [value for value, o in check.segments if o.status == "FAIL"] == ["DE", "Ü"]


def test_a_check_passing_in_every_segment_passes():
    (check,) = _run('check "some rows" by country: measures["rows"] > 0\n').checks
    assert check.status == "PASS" and len(check.segments) == 5


def test_a_warning_by_segment_warns():
    result = _run('warn check "two rows" by country: measures["rows"] >= 2\n')
    assert result.checks[0].status == "WARN" and result.passed is True


def test_a_segment_whose_evaluation_breaks_is_the_checks_error_naming_it():
    (check,) = _run('check "bad type" by country: measures["rows"][0] > 0\n').checks
    assert check.status == "FAIL"
    assert check.error.startswith('in segment "FR": a number cannot be subscripted; in segment "DE": ')


def test_the_document_text_junit_and_history_hold_each_segment(tmp_path):
    (tmp_path / "t.csv").write_text("id,country\n1,FR\n2,FR\n3,DE\n", encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'suite s\nsource t = csv("t.csv")\nmeasure "rows" by country: select count(*) from t\n'
        'check "two rows" by country: measures["rows"] >= 2\n',
        encoding="utf-8",
    )
    history, junit = tmp_path / "h.duckdb", tmp_path / "j.xml"
    done = gryph("run", str(suite), "--history", str(history), "--junit", str(junit), "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    (check,) = read_document(json.loads(done.stdout)).checks
    assert [(s.value, s.status, dict(s.values)) for s in check.segments] == [
        ("FR", "PASS", {'measures["rows"]': 2}),
        ("DE", "FAIL", {'measures["rows"]': 1}),
    ]
    assert "segments failed = 1 of 2: &quot;DE&quot;" in junit.read_text(encoding="utf-8")
    (stored,) = HistoryStore(history).documents("s", 1)
    assert stored.checks[0].segments == check.segments
    text = to_text(_run('check "two rows" by country: measures["rows"] >= 2\n'))
    assert 'FAIL    two rows  segments failed = 3 of 5: NULL, "", "Ü"' in text


@pytest.mark.parametrize(
    "check,message",
    [
        ('check "c" by country: measures["whole"] > 0', 'measures["whole"] is not split by country'),
        ('check "c" by id: measures["rows"] > 0', 'measures["rows"] is not split by id'),
        ('check "c" by country: 1 > 0', "it reads no measure or metric"),
        ('check "c" by country top 2: measures["rows"] > 0', "`top` belongs to the rules and measures"),
    ],
)
def test_a_check_by_a_column_its_reads_are_not_split_by_is_located(check, message):
    text = RULES + 'measure "whole": select count(*) from t\n' + check + "\n"
    with pytest.raises(InvalidInput) as caught:
        load_suite(text, {"t": TABLE}).checks  # noqa: B018
        run(load_suite(text, {"t": TABLE}))
    error = caught.value
    assert error.code == "BAD_SEGMENT_CHECK" and message in error.message
    assert (error.line, error.column) == (4, check.index(" by ") + 2) and error.text.startswith("by ")


def test_both_parsers_read_a_checks_by(monkeypatch):
    text = 'check "c" by `ville natale`: measures["rows"] > 0'
    fast = fast_outcome("suite", text)
    assert fast is not None and fast == textx_outcome("suite", text, monkeypatch)
    assert fast[1].statements[0].segment.column == "ville natale"
