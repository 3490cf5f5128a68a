"""The HTML report, task metrics and chart images: numbers read back from the page's specs, bad
input refused whole, and the page opened in a real headless Chromium."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import replace
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gryph.client import run
from gryph.client.cli.main import main
from gryph.client.outputs.html import Report
from gryph.client.results.document import read_document
from gryph.client.store.history import HistoryStore
from tests.client.browser import Browser
from tests.client.report_suite import write_suite
from tests.support.gryph_cli import gryph
from tests.support.result_documents import result_document

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ODD = "</script><b>odd</b> ünï"


class _Specs(HTMLParser):
    """The page's chart specs by figure id, and its figures."""

    def __init__(self) -> None:
        super().__init__()
        self.figure = None
        self.in_spec = False
        self.specs: dict[str, dict] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self.figure = attrs["id"]
        self.in_spec = tag == "script" and attrs.get("class") == "vl-spec"

    def handle_data(self, data):
        if self.in_spec:
            self.specs[self.figure] = json.loads(data)

    def handle_endtag(self, tag):
        self.in_spec = False


def specs(html: str) -> dict[str, dict]:
    parser = _Specs()
    parser.feed(html)
    return parser.specs


def values(spec: dict) -> list[dict]:
    """Every data row of a spec: inline in it or its layers (a layer's data once per distinct set)."""
    found: list[list[dict]] = [rows for rows in spec.get("datasets", {}).values()]
    for part in [spec, *spec.get("layer", [])]:
        rows = part.get("data", {}).get("values")
        if rows is not None and rows not in found:
            found.append(rows)
    return [row for rows in found for row in rows]


def chart(found: dict[str, dict], prefix: str) -> dict:
    [spec] = [spec for key, spec in found.items() if key.startswith(prefix)]
    return spec


@pytest.fixture
def suite(tmp_path):
    return write_suite(tmp_path)


def test_task_metrics_count_rows_per_source_and_are_stored(suite, tmp_path):
    history = tmp_path / "h.duckdb"
    result = run(suite, history=history)
    metric = result.to_dict()["metric"]
    # the CSVs' lines, by hand; the copy is read only by the accuracy join, in no scan of its own
    assert metric["rowsCounter"] == {"users": 5, "orders": 4}
    assert isinstance(metric["timeElapsed"], int) and metric["timeElapsed"] >= 0
    [stored] = HistoryStore(history).documents("shop", 5)
    assert stored.rows_read == {"users": 5, "orders": 4} and stored.elapsed_ms == metric["timeElapsed"]
    assert stored.run_id == result.run_id


def test_task_metrics_of_an_empty_source_is_zero(tmp_path):
    (tmp_path / "e.csv").write_text("id\n")
    result = run(f'source e = csv("{tmp_path / "e.csv"}", schema = "id bigint")\ncompleteness c on e: id')
    assert result.to_dict()["metric"]["rowsCounter"] == {"e": 0}


def test_task_metrics_are_the_same_on_spark(suite, spark_remote):
    assert run(suite, "spark", remote=spark_remote).rows_read == {"users": 5, "orders": 4}


def test_report_specs_carry_the_runs_numbers(suite, tmp_path):
    page = tmp_path / "r.html"
    assert main(["run", str(suite), "--no-history", "--html", str(page)]) == 1  # the check fails
    html = page.read_text()
    found = specs(html)
    accuracy = {row["outcome"]: row["rows"] for row in values(chart(found, "rule-same-"))}
    assert accuracy == {"matched": 4, "miss": 1}
    assert chart(found, "rule-same-")["title"] == "same: 80% matched of 5 rows"
    assert {row["outcome"]: row["rows"] for row in values(chart(found, "rule-contact-"))} == {
        "complete": 4,
        "incomplete": 1,
    }
    ids = chart(found, "rule-ids-")
    assert values(ids) == [{"extra copies": 1, "values": 1}]
    # id 3 twice: one value with one extra copy, one extra row; a bar labelled with its count
    assert ids["title"] == "ids: 1 value occurs more than once, 1 extra row"
    assert [layer["mark"]["type"] for layer in ids["layer"]] == ["bar", "text"]
    delivery = values(chart(found, "rule-delivery-"))
    # the longest latency bucket ends at 8 min (>= 2 min, < 2 h): the axis is in minutes
    assert {(r["from_ms"], r["to_ms"], r["rows"], r["start"], r["end"]) for r in delivery if "rows" in r} == {
        (0, 120000, 2, 0, 2),
        (120000, 240000, 1, 2, 4),
        (360000, 480000, 1, 6, 8),
    }
    assert [r for r in delivery if "percentile" in r] == [{"percentile": "p50", "latency_ms": 60000, "latency": 1}]
    assert chart(found, "rule-delivery-")["layer"][0]["encoding"]["x"]["title"] == "latency (min)"
    # counts on whole-number axes, no more ticks than whole numbers: 4 matched rows, 2 rows of a
    # latency step, 1 duplicated value
    axes = [
        chart(found, "rule-same-")["encoding"]["x"]["axis"],
        chart(found, "rule-delivery-")["layer"][0]["encoding"]["y"]["axis"],
        ids["layer"][0]["encoding"]["x"]["axis"],
    ]
    assert [(axis["format"], axis["tickCount"]) for axis in axes] == [(",d", 4), (",d", 2), (",d", 1)]
    assert values(chart(found, "rule-by-email-domain-")) == [{"group": "NULL", "value": 1}, {"group": "x", "value": 4}]
    # verdict, policy, the failed check with its expression and value, all escaped
    assert "FAIL" in html and "failed (policy: all)" in html and "no missing email" in html
    assert ODD not in html and "&lt;/script&gt;&lt;b&gt;odd&lt;/b&gt; ünï" in html
    assert "<b>odd" not in html
    # no history: no trend charts, a note instead
    assert not [key for key in found if key.startswith("trend-")]
    assert "Trends appear once two runs" in html


def _epoch_ms(*moment: int) -> int:
    return round(dt.datetime(*moment, tzinfo=dt.timezone.utc).timestamp() * 1000)


def test_trends_follow_the_stored_runs_and_mark_failed_ones(suite, tmp_path):
    history = tmp_path / "h.duckdb"
    users = tmp_path / "users.csv"
    main(["run", str(suite), "--history", str(history), "--data-time", "2026-11-20"])  # 1 NULL email: fails
    users.write_text("id,email\n1,a@x\n2,b@x\n")  # no NULL email: passes
    main(["run", str(suite), "--history", str(history), "--data-time", "2026-11-21T06:00"])
    page = tmp_path / "r.html"
    assert main(["report", "shop", "--history", str(history), "-o", str(page)]) == 0
    found = specs(page.read_text())
    # each run at its data time, not its number
    day_one, day_two = _epoch_ms(2026, 11, 20), _epoch_ms(2026, 11, 21, 6)
    rows_chart = chart(found, "trend-task-rows-read")
    rows = values(rows_chart)
    assert [(r["series"], r["value"], r["passed"], r["when"]) for r in rows if r["series"] == "users"] == [
        ("users", 5, False, day_one),
        ("users", 2, True, day_two),
    ]
    x = rows_chart["layer"][0]["encoding"]["x"]
    assert (x["field"], x["type"], x["title"]) == ("when", "temporal", "data time, else start (UTC)")
    assert rows_chart["layer"][0]["encoding"]["y"]["axis"]["format"] == ",d"  # rows: whole numbers
    measure = values(chart(found, "trend-measure-"))
    assert [r["value"] for r in measure if "value" in r] == [1, 0]
    # the check `measures[...] <= 0` draws a rule at 0, as the newest run judged it (passed)
    assert [r for r in measure if "limit" in r] == [
        {"series": "</script><b>odd</b> ünï", "limit": 0, "check": "no missing email ≤ 0", "status": "PASS"}
    ]
    # accuracy's counts and its fraction on two charts: 0.8 and 1.0 are not flattened against 5
    counts, fraction = chart(found, "trend-rule-same-count"), chart(found, "trend-rule-same-fraction")
    assert {r["series"] for r in values(counts)} == {"total", "missing", "matched"}
    assert [(r["series"], r["value"]) for r in values(fraction)] == [("matchedFraction", 0.8), ("matchedFraction", 1)]
    assert fraction["layer"][0]["encoding"]["y"]["axis"]["format"] == ".3~%"
    assert fraction["title"] == "rule same (fractions): last 2 runs"
    # timeliness: total counts rows; avg and p50 are durations, (1+1+3+7)/4 = 3 min and 1 min:
    # over 2 min, so in minutes
    durations = chart(found, "trend-rule-delivery-duration")
    assert {(r["series"], r["value"], r["y"]) for r in values(durations)} == {
        ("avg", 180000, 3),
        ("percentile_50", 60000, 1),
    }
    assert durations["layer"][0]["encoding"]["y"]["title"] == "min"
    assert main(["report", "shop", "--history", str(history), "--runs", "1", "-o", str(page)]) == 0
    assert not [key for key in specs(page.read_text()) if key.startswith("trend-")]


def test_runs_without_a_data_time_are_placed_at_their_start():
    documents = [
        result_document("s", {"m": 1}, started="2026-11-24T10:00:00+00:00"),
        result_document("s", {"m": 2}, started="2026-11-25T09:30:00Z"),
        result_document("s", {"m": 3}, started="2026-11-25T12:00:00Z", data_time="2026-11-26"),
    ]
    [trend] = [c for c in Report(documents).trends if c.id.startswith("trend-measure-m-")]
    spec = trend.vega_lite
    assert [(r["when"], r["value"]) for r in values(spec)] == [
        (_epoch_ms(2026, 11, 24, 10), 1),
        (_epoch_ms(2026, 11, 25, 9, 30), 2),
        (_epoch_ms(2026, 11, 26), 3),
    ]
    assert Report(documents[:2]).trends[0].vega_lite["layer"][0]["encoding"]["x"]["title"] == "run start (UTC)"
    # a run with no time at all (a document from another tool): the runs in their order
    [untimed] = Report([replace(documents[0], started=""), documents[1]]).trends
    assert untimed.vega_lite["layer"][0]["encoding"]["x"]["field"] == "run"


def test_a_thousand_runs_stay_under_five_megabytes(suite, tmp_path):
    # the documents as the history gives them back (storing 1,000 runs one by one takes minutes)
    document = run(suite).to_dict()
    documents = [read_document({**document, "pass": i % 7 != 0, "run_id": f"r{i}"}) for i in range(1000)]
    html = Report(documents).html()
    assert len(html.encode("utf-8")) < 5 * 1024 * 1024
    elapsed = values(chart(specs(html), "trend-task-time-elapsed"))
    assert len(elapsed) == 1000 and sum(not r["passed"] for r in elapsed) == len(range(0, 1000, 7))


def test_chart_images(suite, tmp_path):
    assert (
        main(["run", str(suite), "--no-history", "--png", str(tmp_path / "png"), "--svg", str(tmp_path / "svg")]) == 1
    )
    pngs, svgs = sorted((tmp_path / "png").iterdir()), sorted((tmp_path / "svg").iterdir())
    assert [p.stem for p in pngs] == [p.stem for p in svgs] and len(pngs) == 5  # one per charted rule
    assert all(p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for p in pngs)
    assert all(p.read_text().lstrip().startswith("<svg") for p in svgs)


def test_report_refuses_bad_input_and_writes_nothing(suite, tmp_path, capsys):
    history = tmp_path / "h.duckdb"
    page = tmp_path / "r.html"
    assert main(["report", "shop", "--history", str(history), "-o", str(page)]) == 2
    assert "no stored runs of suite 'shop'" in capsys.readouterr().err and not page.exists()
    run(suite, history=history)
    assert main(["report", "nope", "--history", str(history), "-o", str(page)]) == 2
    assert "suites stored there: shop" in capsys.readouterr().err and not page.exists()
    assert main(["report", "shop", "--history", str(history), "-o", str(tmp_path)]) == 2  # a folder
    (tmp_path / "file").write_text("x")
    assert main(["report", "shop", "--history", str(history), "--png", str(tmp_path / "file")]) == 2
    assert main(["report", "shop", "--history", str(history)]) == 2  # nowhere to write
    assert "NO_OUTPUT" in capsys.readouterr().err
    page.write_text("earlier")
    for foreign in (b"SQLite format 3\x00" + b"\x00" * 100, b"id,email\n1,a\n"):
        (tmp_path / "other.db").write_bytes(foreign)
        assert main(["report", "shop", "--history", str(tmp_path / "other.db"), "-o", str(page)]) == 3
        assert "is not a gryph run history" in capsys.readouterr().err
    assert page.read_text() == "earlier"
    # a write that fails (a full disk: /dev/full refuses every byte) is exit 3 and says so
    assert main(["report", "shop", "--history", str(history), "-o", "/dev/full"]) == 3
    assert "OUTPUT_NOT_WRITTEN" in capsys.readouterr().err
    # a path through a file can never be written: refused before the history is read
    assert main(["report", "shop", "--history", str(history), "-o", str(tmp_path / "file" / "r.html")]) == 2
    assert "BAD_OUTPUT_PATH" in capsys.readouterr().err


def test_report_of_another_tools_duckdb_file(tmp_path, capsys):
    import duckdb

    with duckdb.connect(str(tmp_path / "x.duckdb")) as con:
        con.execute("create table runs (suite varchar, n int)")
        con.execute("insert into runs values ('shop', 1)")
    assert main(["report", "shop", "--history", str(tmp_path / "x.duckdb"), "-o", str(tmp_path / "r.html")]) == 3
    assert "is not a gryph run history" in capsys.readouterr().err and not (tmp_path / "r.html").exists()


# checks whose bounds are drawn on the trends: unique is 3 (fails), matchedFraction 0.8 (fails),
# the average latency 3 min (passes)
BOUNDED_CHECKS = """check "enough ids": metrics["ids"]["unique"] >= 40
check "matched": 0.99 <= metrics["same"]["matchedFraction"]
check "fast delivery": metrics["delivery"]["avg"] <= 4m
"""


def test_report_in_headless_chromium(suite, tmp_path):
    suite.write_text(suite.read_text().replace("pass when all", BOUNDED_CHECKS + "pass when all"))
    history = tmp_path / "h.duckdb"
    for day in ("2026-11-20", "2026-11-21", "2026-11-23"):
        main(["run", str(suite), "--history", str(history), "--data-time", day, "--quiet"])
    page = tmp_path / "r.html"
    assert main(["report", "shop", "--history", str(history), "-o", str(page)]) == 0
    found = specs(page.read_text())
    limits = {
        prefix: [
            (r["series"], r["limit"], r["check"], r["status"]) for r in values(chart(found, prefix)) if "limit" in r
        ]
        for prefix in ("trend-rule-ids-", "trend-rule-same-fraction", "trend-rule-delivery-duration")
    }
    assert limits == {
        "trend-rule-ids-": [("unique", 40, "enough ids ≥ 40", "FAIL")],
        "trend-rule-same-fraction": [("matchedFraction", 0.99, "matched ≥ 0.99", "FAIL")],
        # 4m is 240,000 ms, drawn at 4 on an axis in minutes
        "trend-rule-delivery-duration": [("avg", 240000, "fast delivery ≤ 4 min", "PASS")],
    }
    assert [r["y_limit"] for r in values(chart(found, "trend-rule-delivery-duration")) if "limit" in r] == [4]
    browser = Browser()
    try:
        browser.open(page.as_uri())
        figures = browser.evaluate(
            "[...document.querySelectorAll('figure.chart')].map(f => [f.id, "
            "f.querySelectorAll('svg .mark-rect path, svg .mark-line path, svg .mark-rule line, "
            "svg .mark-symbol path').length, f.querySelector('svg').getBoundingClientRect().width])"
        )
        assert len(figures) == len(found) >= 5 + 6
        assert all(marks > 0 for _, marks, _ in figures), figures
        # every chart spans the page's column (1,068 px at this window), none the old 400 px
        column = browser.evaluate("document.querySelector('#rules').getBoundingClientRect().width")
        assert all(width >= 0.85 * column for _, _, width in figures), (column, figures)
        # the bound's rule and its label on the trend of ids
        labels = browser.evaluate(
            "[...document.querySelector('figure[id^=\"trend-rule-ids-\"]').querySelectorAll('svg .mark-text.role-mark text')]"
            ".map(t => t.textContent)"
        )
        assert labels == ["enough ids ≥ 40"]
        measures = browser.evaluate("document.querySelector('#measures').innerText")
        assert measures.split("\n")[2:] == [
            "</script><b>odd</b> ünï\t1\t",
            'FAIL no missing email: measures["</script><b>odd</b> ünï"] <= 0',
        ], measures
        assert browser.console_errors() == []
        assert browser.requested_urls() == [page.as_uri()]  # the page itself, nothing else
        browser.screenshot(ARTIFACTS / "html_report.png")
    finally:
        browser.close()
    assert (ARTIFACTS / "html_report.png").read_bytes().startswith(b"\x89PNG")


def test_progress_shows_on_a_terminal_only(suite, tmp_path):
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    gryph = [sys.executable, "-m", "gryph.client.cli.main", "run", str(suite), "--no-history"]

    def on_terminal(*extra: str) -> str:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # 200 columns
        process = subprocess.Popen(gryph + list(extra), stdin=follower, stdout=follower, stderr=follower)
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            out += chunk
        process.wait()
        os.close(leader)
        return out.decode("utf-8", "replace")

    shown = on_terminal()
    assert "reading 3 sources" in shown and "suite shop on duckdb" in shown
    assert "reading 3 sources" not in on_terminal("--quiet")
    json_out = on_terminal("--format", "json")
    assert "reading 3 sources" not in json_out and re.search(r'"timeElapsed": \d+', json_out)
    piped = subprocess.run(gryph, capture_output=True, text=True)
    assert "reading" not in piped.stdout + piped.stderr and "suite shop on duckdb" in piped.stdout


def test_a_megabyte_long_group_value_is_cut_in_its_chart(tmp_path):
    """Chart text takes time superlinear in its length to lay out (a megabyte took over ten
    minutes): a chart's label is cut, its full length stated, and the rows table keeps the whole
    value; two long values alike in their first characters and length stay two bars."""
    first, second = "<" + "a" * 999_999, "<" + "a" * 999_998 + "b"
    (tmp_path / "t.csv").write_text(f"g\n{first}\n{second}\n{second}\nshort\n")
    (tmp_path / "s.dq").write_text(
        'suite big\nsource t = csv("t.csv")\n'
        "profiling groups: select g, count(*) as n from t group by g order by n, g\n"
    )
    page = tmp_path / "r.html"
    done = gryph("run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--html", str(page), timeout=60)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    cut = "<" + "a" * 199 + "… (1,000,000 characters)"
    # ordered by count, then value: first (1), short (1), second (2)
    assert [row["group"] for row in values(chart(specs(html), "rule-groups"))] == [cut, "short", f"{cut} #2"]
    assert f"<td>{escape(first)}</td>" in html and f"<td>{escape(second)}</td>" in html


ANOMALY_SUITE = """suite watched
source t = csv("t.csv")
measure rows: select count(*) from t
check "rows steady": anomaly(measures["rows"], absolute_change(max_increase = 5, max_decrease = 5))
pass when all
"""


def test_anomalies_bands_and_schema_changes_in_the_report(tmp_path):
    """Rows 10, 12, 14, 30 (an id column, then a second column on the last day). Each run's bounds
    are the previous run's rows ± 5: none on the first run (no history), [5, 15], [7, 17], [9, 19];
    30 is outside the last, an anomaly."""
    (tmp_path / "s.dq").write_text(ANOMALY_SUITE)
    history, page = tmp_path / "h.duckdb", tmp_path / "r.html"
    run = ["run", str(tmp_path / "s.dq"), "--history", str(history), "--quiet", "--data-time"]
    for day, rows in ((20, 10), (21, 12), (22, 14)):  # a day apart: the runs spread along the time axis
        (tmp_path / "t.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(rows)))
        assert main([*run, f"2026-11-{day}"]) == 0
    (tmp_path / "t.csv").write_text("id,extra\n" + "".join(f"{i},x\n" for i in range(30)))
    assert main([*run, "2026-11-23", "--html", str(page)]) == 1
    html = page.read_text()
    trend = chart(specs(html), "trend-measure-rows")
    rows = values(trend)
    line = [(r["run"], r["value"], r["anomaly"]) for r in rows if "value" in r]
    assert line == [(1, 10, False), (2, 12, False), (3, 14, False), (4, 30, True)]
    bands = [(r["run"], r["lower"], r["upper"]) for r in rows if "lower" in r]
    assert bands == [(1, None, None), (2, 5.0, 15.0), (3, 7.0, 17.0), (4, 9.0, 19.0)]
    assert [layer["mark"]["type"] for layer in trend["layer"]] == ["area", "tick", "line", "point", "point"]
    assert '<span class="verdict anomaly">anomaly</span>' in html  # the check's row is marked
    # the schema section: t gained a column since the previous run
    schemas = html[html.index('<section id="schemas">') : html.index("</section>", html.index('id="schemas"'))]
    assert "<td>t</td><td>id integer, extra string</td><td>extra</td><td>—</td><td>—</td>" in schemas
    browser = Browser()
    try:
        browser.open(page.as_uri())
        marks = browser.evaluate(
            "(() => { const f = document.querySelector('figure[id^=\"trend-measure-rows\"]');"
            " return [f.querySelectorAll('svg .mark-area path').length,"
            " f.querySelectorAll('svg .mark-rect path').length,"
            " f.querySelectorAll('svg .mark-symbol.layer_4_marks path').length]; })()"
        )
        # the band, a tick for each of the 3 x 2 bounds, one ring (layers: area, ticks, line, failed, anomalies)
        assert marks == [1, 6, 1], marks
        assert browser.console_errors() == []
        browser.screenshot(ARTIFACTS / "html_report_anomalies.png")
    finally:
        browser.close()
    assert (ARTIFACTS / "html_report_anomalies.png").read_bytes().startswith(b"\x89PNG")


CHECKED = """source t = csv("t.csv")
check "has rows": rows(t) > 0
warn check "small ids": rows(t where id > 2) == 0
check "known kinds": rows(t where kind not in ('a', 'b')) == 0
check "no zero": rows(t where id = 0) == 0
pass when all
"""


def test_failures_come_first_with_their_rows_and_the_checks_filter_by_result(tmp_path):
    (tmp_path / "t.csv").write_text("id,kind\n1,a\n2,b\n3,zz\n4,zz\n5,<b>\n")
    (tmp_path / "s.dq").write_text(CHECKED)
    page = tmp_path / "r.html"
    assert main(["run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--html", str(page)]) == 1
    browser = Browser()
    try:
        browser.open(page.as_uri())
        shown = "[...document.querySelectorAll('#checks > table > tbody > tr[class]')].filter(r => r.offsetParent)"
        names = f"{shown}.map(r => r.cells[1].innerText)"
        # FAIL, then WARN, then the rest in the suite's order; each failing check followed by its rows
        # (kinds zz, zz and <b> are not a or b; ids 3, 4 and 5 are above 2)
        assert browser.evaluate(names) == [
            "known kinds",
            "3 rows of t where kind not in ('a', 'b'):\n\nid\tkind\n3\tzz\n4\tzz\n5\t<b>\n\nmost frequent kind: zz (2), <b> (1)",
            "small ids",
            "3 rows of t where id > 2:\n\nid\tkind\n3\tzz\n4\tzz\n5\t<b>\n\nmost frequent id: 3 (1), 4 (1), 5 (1)",
            "has rows",
            "no zero",
        ]
        browser.evaluate("document.querySelector('label[for=show-fail]').click()")
        assert browser.evaluate(names)[0] == "known kinds" and len(browser.evaluate(names)) == 2
        browser.evaluate("document.querySelector('label[for=show-pass]').click()")
        assert browser.evaluate(names) == ["has rows", "no zero"]
        labels = browser.evaluate("[...document.querySelectorAll('#checks label')].map(l => l.innerText)")
        assert labels == ["all (4)", "FAIL (1)", "WARN (1)", "PASS (2)"]
        browser.evaluate("document.querySelector('label[for=show-all]').click()")
        assert len(browser.evaluate(names)) == 6
        assert browser.console_errors() == []
        assert browser.requested_urls() == [page.as_uri()]  # the page itself, nothing else
    finally:
        browser.close()


def test_lines_of_sizes_far_apart_get_charts_of_their_own():
    documents = [
        result_document("s", {"m": {"total": t, "bad": b, "other": o}}, started=f"2026-11-2{day}T10:00:00Z")
        for day, (t, b, o) in enumerate([(50, 1, 3), (52, 0, 9)], start=1)
    ]
    trends = [c for c in Report(documents).trends if c.id.startswith("trend-measure-m")]
    # bad (1) and other (9) are within ten times each other; total (52) is over ten times 1
    assert sorted(sorted({row["series"] for row in values(c.vega_lite)}) for c in trends) == [
        ["m.bad", "m.other"],
        ["m.total"],
    ]
    assert sorted(c.title for c in trends) == [
        "measure m (m.bad, m.other): last 2 runs",
        "measure m (m.total): last 2 runs",
    ]
