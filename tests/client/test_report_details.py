"""The report's numbers as a reader sees them: percentages exact enough to tell a failing value
from its boundary, latency axes in units, a suite of measures only; and every file a run writes
(page, images, JUnit, Markdown, JSON) made with the user's umask."""

from __future__ import annotations

import datetime as dt
import stat
import subprocess
import sys

import pytest

from gryph.client.cli.main import main
from gryph.client.outputs.html.axes import duration_unit, percent_text, time_axis
from tests.client.test_html_report import chart, specs, values
from tests.support.gryph_cli import GRYPH, limited


@pytest.mark.parametrize(
    "fraction,text",
    [
        (0.8, "80%"),
        (0.98974, "98.974%"),  # the case: not 99.0% beside a failing `>= 0.99`
        (0.9995, "99.95%"),
        (0.99999999, "99.999999%"),  # six significant digits would round it onto 100%
        (1.0, "100%"),
        (0.0, "0%"),
        (1e-9, "0.0000001%"),
        (2 / 3, "66.6667%"),
        (float("nan"), "n/a"),
    ],
)
def test_percent_text(fraction, text):
    assert percent_text(fraction) == text


@pytest.mark.parametrize(
    "largest_ms,unit",
    [(0, ("ms", 1)), (1_999, ("ms", 1)), (2_000, ("s", 1_000)), (119_999, ("s", 1_000)), (120_000, ("min", 60_000))],
)
def test_duration_unit(largest_ms, unit):
    assert duration_unit(largest_ms) == unit
    assert duration_unit(1_600_000_000) == ("d", 86_400_000)  # the latency axis: 18.5 days


def test_a_failing_fraction_near_its_boundary_is_shown_exactly(tmp_path):
    """1,999 of 2,000 ids are in the reference (0.9995): the chart says 99.95%, not 100.0%."""
    (tmp_path / "a.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(2000)))
    (tmp_path / "b.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(1999)))
    (tmp_path / "s.dq").write_text(
        'suite near\nsource a = csv("a.csv")\nsource b = csv("b.csv")\n'
        "accuracy known on a, b: a.id = b.id\n"
        'check "all known": metrics["known"]["matchedFraction"] >= 0.9999\npass when all\n'
    )
    page = tmp_path / "r.html"
    assert main(["run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--html", str(page)]) == 1
    assert chart(specs(page.read_text()), "rule-known-")["title"] == "known: 99.95% matched of 2,000 rows"


def test_a_latency_histogram_in_hours(tmp_path):
    """Latencies of 1 h, 3 h and 5 h in 1 h steps: steps 1, 3, 5, the last ending at 6 h (>= 2 h:
    the axis is in hours); the median (percentile_disc 0.5 of 1 h, 3 h, 5 h) is 3 h."""
    rows = "".join(f"{i},2026-01-01 00:00:00,2026-01-01 0{h}:00:00\n" for i, h in enumerate((1, 3, 5)))
    (tmp_path / "o.csv").write_text("id,created,shipped\n" + rows)
    (tmp_path / "s.dq").write_text(
        'suite slow\nsource o = csv("o.csv", schema = "id bigint, created timestamp, shipped timestamp")\n'
        "timeliness delivery on o: created, shipped with step.size = 1h, percentile.values = (0.5)\n"
    )
    page = tmp_path / "r.html"
    assert main(["run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--html", str(page)]) == 0
    spec = chart(specs(page.read_text()), "rule-delivery-")
    found = values(spec)
    assert sorted((r["start"], r["end"], r["rows"]) for r in found if "rows" in r) == [(1, 2, 1), (3, 4, 1), (5, 6, 1)]
    assert [(r["percentile"], r["latency"]) for r in found if "percentile" in r] == [("p50", 3)]
    assert spec["layer"][0]["encoding"]["x"]["title"] == "latency (h)"


def test_a_suite_of_measures_only_shows_its_measures_and_no_empty_rules(tmp_path):
    (tmp_path / "t.csv").write_text("id,price\n1,2.5\n2,\n3,4\n")
    (tmp_path / "s.dq").write_text(
        'suite measured\nsource t = csv("t.csv")\n'
        "measure rows: select count(*) from t\n"
        "measure priced: select avg(price) from t\n"
        'check "enough rows": measures["rows"] >= 2 and measures["rows"] <= 10\npass when all\n'
    )
    page = tmp_path / "r.html"
    assert main(["run", str(tmp_path / "s.dq"), "--no-history", "--quiet", "--html", str(page)]) == 0
    html = page.read_text()
    section = html[html.index('<section id="measures">') : html.index("</section>", html.index('id="measures"'))]
    # 3 rows; the average of 2.5 and 4 (the NULL left out) is 3.25; one check reads rows
    assert '<td>rows</td><td class="num">3</td><td><div><span class="verdict pass">PASS</span> enough rows' in section
    assert '<td>priced</td><td class="num">3.25</td><td><span class="muted">no check reads it</span>' in section
    assert 'id="rules"' not in html


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_every_output_file_takes_the_users_umask(tmp_path, umask, mode):
    (tmp_path / "t.csv").write_text("id\n1\n1\n")
    (tmp_path / "s.dq").write_text(
        'suite m\nsource t = csv("t.csv")\nuniqueness ids on t: id with duplication.array = "dup"\n'
    )
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    outputs = ["--html", "r.html", "--junit", "j.xml", "--markdown", "m.md", "--output", "o.json", "--png", "png"]
    done = subprocess.run(
        limited([*command, "run", "s.dq", "--no-history", "--quiet", *outputs], umask=umask),
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    files = ["r.html", "j.xml", "m.md", "o.json", *(f"png/{p.name}" for p in (tmp_path / "png").iterdir())]
    assert len(files) == 5  # one chart: the uniqueness rule's
    assert {name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in files} == dict.fromkeys(files, mode)


def _ms(*moment: int) -> int:
    return round(dt.datetime(*moment, tzinfo=dt.timezone.utc).timestamp() * 1000)


@pytest.mark.parametrize(
    "first,last,ticks,label",
    [
        # 54 h: 6 h steps would need 9 ticks (more than 8), 12 h steps need 5
        (
            _ms(2026, 11, 20),
            _ms(2026, 11, 22, 6),
            [_ms(2026, 11, 20, h) for h in (0, 12)] + [_ms(2026, 11, 21, h) for h in (0, 12)] + [_ms(2026, 11, 22)],
            "%b %d %H:%M",
        ),
        # 39 s from 10:00:01: every 5 s from 10:00:05
        (
            _ms(2026, 1, 1, 10, 0, 1),
            _ms(2026, 1, 1, 10, 0, 40),
            [_ms(2026, 1, 1, 10, 0, s) for s in range(5, 41, 5)],
            "%H:%M:%S",
        ),
        # ten months: quarters (months would be 10 ticks)
        (_ms(2026, 1, 5), _ms(2026, 11, 20), [_ms(2026, m, 1) for m in (4, 7, 10)], "%b %Y"),
        # nearly three years: Januaries
        (_ms(2024, 1, 5), _ms(2026, 11, 20), [_ms(2025, 1, 1), _ms(2026, 1, 1)], "%Y"),
    ],
)
def test_time_axis_ticks_at_round_steps(first, last, ticks, label):
    axis = time_axis("when", "t", first, last).to_dict()
    assert (axis["axis"]["values"], axis["axis"]["format"], axis["scale"]) == (ticks, label, {"type": "utc"})
