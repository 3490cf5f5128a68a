"""A stream's HTML report (``gryph stream --html``, ``gryph report`` over its history): a table of
the batches with what each source read, a chart of rows and lag against the batch time, trends
placed at the batch times, and each accuracy result's first reported and current values.
Checked in headless Chromium as the other reports are."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from gryph.client.cli.main import main
from tests.client.browser import Browser

ARTIFACTS = Path(__file__).parents[2] / "test-artifacts"
SUITE = """suite orders_known
source orders = folder("incoming/", format = "json", schema = "id bigint, customer string", settle = "1ms",
                       max_files_per_batch = 1)
source customers = csv("customers.csv")
accuracy known on orders, customers: orders.customer = customers.name with retry = 1h
"""


def _arrive(folder: Path, name: str, rows: list[dict], age_s: float) -> None:
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    os.utime(path, (time.time() - age_s,) * 2)


def _batch(folder: Path, customers: list[str], capsys) -> dict:
    (folder / "customers.csv").write_text("name\n" + "".join(f"{c}\n" for c in customers), encoding="utf-8")
    args = ["stream", str(folder / "s.dq"), "--once", "--format", "json", "--state", str(folder / "s.duckdb")]
    assert main([*args, "--history", str(folder / "h.duckdb"), "--html", str(folder / "r.html")]) == 0
    return json.loads(capsys.readouterr().out)


def _text(html: str, section: str) -> str:
    start = html.index(f'<section id="{section}">')
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[start : html.index("</section>", start)]))


def test_the_report_of_a_stream_shows_its_batches_and_improved_results(tmp_path, capsys):
    (tmp_path / "incoming").mkdir()
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    _arrive(tmp_path, "a.json", [{"id": 1, "customer": "ann"}, {"id": 2, "customer": "bob"}], 60)
    _arrive(tmp_path, "b.json", [{"id": 3, "customer": "cy"}], 50)
    _arrive(tmp_path, "c.json", [{"id": 4, "customer": "ann"}], 40)
    first = _batch(tmp_path, ["ann"], capsys)  # a.json: bob missed
    second = _batch(tmp_path, ["ann", "bob"], capsys)  # b.json: cy missed; bob matched again
    third = _batch(tmp_path, ["ann", "bob", "cy"], capsys)  # c.json; cy matched again
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = _text(html, "stream")
    assert "3 batches stored" in section
    # rows read and files still waiting (lag) per batch: a.json (b and c wait), b.json, c.json
    for document, rows, lag in ((first, 2, 2), (second, 1, 1), (third, 1, 0)):
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(document["stream"]["tmst"] / 1000))
        number = document["stream"]["batch"]
        assert re.search(rf"{number} {when}\.\d{{3}}\+00:00 PASS {rows} {lag} ", section), (number, section)
    # batch 1 first reported 2 rows, 1 miss; now (bob matched in batch 2) no miss; batch 2's cy likewise
    assert "first reported current" in section
    assert "total 2, miss 1, matched 1, matchedFraction 0.5 total 2, miss 0, matched 2, matchedFraction 1" in section
    assert "total 1, miss 1, matched 0, matchedFraction 0 total 1, miss 0, matched 1, matchedFraction 1" in section
    specs = {
        m.group(1): json.loads(m.group(2).replace("\\u003c", "<"))
        for m in re.finditer(r'<figure class="chart" id="([^"]+)">.*?<script[^>]*>(.*?)</script>', html, re.S)
    }
    stream_spec = next(spec for name, spec in specs.items() if name.startswith("stream-"))
    assert stream_spec["encoding"]["x"]["field"] == "when"  # rows and lag against the batch time
    trend = next(spec for name, spec in specs.items() if name.startswith("trend-rule-known"))
    assert trend["layer"][0]["encoding"]["x"]["field"] == "when"  # metrics at the batch times too
    browser = Browser()
    try:
        page = tmp_path / "r.html"
        browser.open(page.as_uri())
        lines = browser.evaluate(
            "document.querySelector('figure[id^=\"stream-\"]').querySelectorAll('svg .mark-line path').length"
        )
        assert lines >= 2  # orders rows, orders lag (and malformed, lost where counted)
        assert browser.console_errors() == []
        browser.screenshot(ARTIFACTS / "stream_report.png")
    finally:
        browser.close()
    assert (ARTIFACTS / "stream_report.png").read_bytes().startswith(b"\x89PNG")
