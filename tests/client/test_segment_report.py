"""The HTML report's segments: each check judged `by` a column with its segments the worst first,
their verdict and value, a small trend of their last runs from the history, and the cap's warning,
read in headless Chromium as a person sees the page."""

from __future__ import annotations

from gryph.client.cli.main import main
from gryph.client.outputs.html.segment_tables import failed_count, sparkline
from gryph.client.results.document import Check, CheckSegment
from gryph.compiler.checks.segment_checks import VANISHED
from tests.client.browser import Browser
from tests.client.test_html_report import ARTIFACTS

SUITE = """suite orders
source t = csv("t.csv")
measure "rows" by country top 3: select count(*) from t
check "two per country" by country: measures["rows"] >= 2
"""


def _day(**rows: int) -> str:
    countries = [country for country, count in rows.items() for _ in range(count)]
    return "id,country\n" + "".join(f"{i},{country}\n" for i, country in enumerate(countries))


def test_the_segments_of_a_check_worst_first_with_their_trend(tmp_path):
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    page = tmp_path / "r.html"
    run = ["run", str(tmp_path / "s.dq"), "--history", str(tmp_path / "h.db"), "--quiet", "--data-time"]
    # four countries, three kept (the most rows, ties by value): 03-01 DE 4, FR 3, ES 2 all pass;
    # 03-02 ES has 1 (kept before PT's 1): it fails; 03-03 FR has 1: it fails, ES has 2 again
    days = [_day(ES=2, FR=3, DE=4, PT=1), _day(ES=1, FR=3, DE=4, PT=1), _day(ES=2, FR=1, DE=4, PT=1)]
    for number, data in enumerate(days, start=1):
        (tmp_path / "t.csv").write_text(data, encoding="utf-8")
        html = ["--html", str(page)] if number == 3 else []
        assert main([*run, f"2026-03-0{number}", *html]) == (0 if number == 1 else 1)
    browser = Browser()
    try:
        browser.open(page.as_uri())
        section = "document.querySelector('#segments')"
        rows = browser.evaluate(
            f"[...{section}.querySelectorAll('table.segments tr[class]')]"
            ".map(r => [...r.cells].slice(0, 3).map(c => c.innerText))"
        )
        # FR failed, then the passing ones as the engine gave them (DE 4 rows, ES 2)
        assert rows == [
            ['"FR"', "FAIL", 'measures["rows"] = 1'],
            ['"DE"', "PASS", 'measures["rows"] = 4'],
            ['"ES"', "PASS", 'measures["rows"] = 2'],
        ]
        trends = browser.evaluate(f"[...{section}.querySelectorAll('svg.trend title')].map(t => t.textContent)")
        assert trends == ["3 → 3 → 1", "4 → 4 → 4", "2 → 1 → 2"]
        drawn = browser.evaluate(
            f"[...{section}.querySelectorAll('svg.trend')].map(s => s.getBoundingClientRect().width)"
        )
        assert drawn == [120, 120, 120]
        heading = browser.evaluate(f"{section}.querySelector('h3').innerText")
        assert heading == "FAIL two per country: 1 of 3 segments failed"
        shown = browser.evaluate(f"{section}.querySelector('.cap-warning').innerText")
        assert "rows by country: more than 3 segments; the 3 with the most rows are kept" in shown
        assert browser.console_errors() == []
        assert browser.requested_urls() == [page.as_uri()]
        browser.screenshot(ARTIFACTS / "html_report_segments.png")
    finally:
        browser.close()


def test_a_trend_leaves_a_gap_where_a_run_lacked_the_segment():
    # 4 runs 38 px apart from x = 3; values 1..2 span y 21..3
    drawn = sparkline([2, None, 1, 2])
    assert drawn.count("<polyline") == 2
    assert 'points="3.0,3.0"' in drawn and 'points="79.0,21.0 117.0,3.0"' in drawn
    assert '<circle cx="117.0" cy="3.0"' in drawn and "<title>2 → — → 1 → 2</title>" in drawn
    assert sparkline([5, None]) == '<span class="muted">—</span>'  # one number is no trend


def test_a_vanished_segment_is_counted_apart_from_the_failed_ones():
    # as the check's verdict counts them: DE failed of the 3 judged (PT skipped), ES gone since the run before
    segments = (
        CheckSegment("DE", "FAIL", {'measures["rows"]': 40}),
        CheckSegment("ES", "WARN", {VANISHED: "in the run before, not in this one's country"}),
        CheckSegment("FR", "PASS", {'measures["rows"]': 5}),
        CheckSegment("PT", "SKIP", skipped="a new segment, not in the run before: not evaluated"),
    )
    check = Check("rows steady", "anomaly(...)", "FAIL", segments=segments)
    assert failed_count(check) == "1 of 3 segments failed, 1 vanished"
    only_gone = Check("rows steady", "anomaly(...)", "PASS", segments=segments[1:3])
    assert failed_count(only_gone) == "0 of 1 segment failed, 1 vanished"
