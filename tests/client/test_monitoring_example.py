"""The anomaly-check example of docs/monitoring.md, run over 30 generated days and a day that drops: the suite
block is the page's own, the numbers it quotes are the ones the run prints."""

from __future__ import annotations

import re

from gryph.client import run
from gryph.client.outputs.text import to_text
from tests.support.gryph_cli import ROOT

PAGE = ROOT / "docs" / "monitoring.md"
SECTION = "## Monitoring: anomaly checks"


def page_suite() -> str:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    return re.search(r"^```\n(.*?)^```", section, re.MULTILINE | re.DOTALL).group(1)


def test_the_docs_monitoring_example(tmp_path):
    suite = tmp_path / "orders.dq"
    suite.write_text(page_suite(), encoding="utf-8")
    history = tmp_path / "history.duckdb"

    def day(rows: int):
        (tmp_path / "orders.csv").write_text("order_id\n" + "".join(f"{i}\n" for i in range(rows)))
        return run(str(suite), history=history)

    days = [day(98 if n % 2 == 0 else 102) for n in range(30)]
    assert [d.checks[0].status for d in days[:5]] == ["SKIP"] * 5 and all(d.passed for d in days)
    assert days[3].checks[0].skipped == "not enough history: 3 earlier runs, 5 needed"
    assert all(d.checks[0].status == "PASS" for d in days[5:])
    dropped = day(30)
    assert not dropped.passed and [c.status for c in dropped.checks] == ["FAIL", "FAIL"]
    # the last 14 days alternate 98 and 102: mean 100, sample variance 14 * 4 / 13
    assert dropped.checks[0].values["lower bound"] == 100 - 3 * (56 / 13) ** 0.5
    shown = 'measures["rows"] = 30, lower bound = 93.7735, baseline runs = 14, baseline mean = 100'
    assert shown in to_text(dropped) and shown in PAGE.read_text(encoding="utf-8")
