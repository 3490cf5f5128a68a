"""Names and data that try to forge or disturb what people read: terminal escape sequences,
carriage returns and bidi overrides in the text output and on stderr; line breaks, pipes,
backticks and HTML in the Markdown summary; the same run's JUnit XML still parses."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.support.gryph_cli import gryph

COLUMN = "na\x1b[31mme\x07\u202e"  # the CSV's second column
# t.csv: the hostile values, each twice (the uniqueness rule flags them all); as strings their
# order is "\x1b..." < "<!--..." < "<img..." < "`..."
VALUES = ["\x1b[31mred\x07over\u202eevil\x9b2J", "<!-- hide", "<img src=x onerror=alert(1)>", "`tick` | x"]
SUITE_NAME = "<!-- s\r\n| x |\x1b[2J"
MEASURE = "m\r\n| x | y |<!--"
CHECK = "c|\r\n| forged | row |<script>"
SUITE = f"""suite `{SUITE_NAME}`
source t = csv("t.csv")
uniqueness `u\x1b[31m\r\u202e` on t: `{COLUMN}`
profiling `p<!--\r`: select `{COLUMN}` as `g\x1b[1m`, count(*) as n from t group by `{COLUMN}`
measure "{MEASURE}": select concat(min(`{COLUMN}`), '\r\n| a | b |') from t
measure "img`": select min(`{COLUMN}`) from t where `{COLUMN}` like '<img%'
check "{CHECK}": measures["{MEASURE}"] == "q"
check "`tick` <!--": measures["img`"] == "z"
pass when all
"""
RAW = ["\x1b", "\r", "\x07", "\u202e", "\x9b"]  # none of these may reach a terminal


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    rows = "".join(f'{i},"{v}"\n' for i, v in enumerate(VALUES + VALUES))
    (tmp_path / "t.csv").write_text(f'id,"{COLUMN}"\n{rows}', encoding="utf-8")
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    return tmp_path


def test_text_output_shows_control_characters_escaped(hostile):
    done = gryph("run", str(hostile / "s.dq"), "--no-history", "--quiet")
    assert done.returncode == 1, done.stderr  # both checks fail
    for raw in RAW:
        assert raw not in done.stdout and raw not in done.stderr, repr(raw)
    # the names, the profiling group and the uniqueness sample's value, spelled out
    assert "u\\x1b[31m\\x0d\\u202e (uniqueness)" in done.stdout
    assert "g\\x1b[1m" in done.stdout and "\\x1b[31mred\\x07over\\u202eevil\\x9b2J" in done.stdout
    assert "m\\x0d\\x0a| x | y |<!--" in done.stdout  # one line: its line break cannot add a row
    assert done.stdout.rstrip().endswith("verdict: failed (policy: all) — 2 of 2 checks failed")


def test_error_quoting_control_characters_is_escaped_on_stderr(hostile):
    (hostile / "s.dq").write_text(f'source t = csv("t.csv")\nmeasure "m": select max(`{COLUMN}`) or 1 from t\n')
    done = gryph("run", str(hostile / "s.dq"), "--no-history")
    assert done.returncode == 2
    for raw in RAW:
        assert raw not in done.stderr, repr(raw)
    # the error's own lines stay lines; the text it quotes is spelled out
    assert done.stderr.splitlines()[1] == "    near: max(`na\\x1b[31mme\\x07\\u202e`)"


class _Tables(HTMLParser):
    """The rendered page's tables (rows of cell texts) and every tag it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.tags: set[str] = set()
        self.comments: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.tables[-1][-1].append("")

    def handle_data(self, data):
        if self.tables and self.tables[-1] and self.tables[-1][-1] and data.strip("\n"):
            self.tables[-1][-1][-1] += data

    def handle_comment(self, data):
        self.comments.append(data)


def test_markdown_summary_keeps_its_tables_and_verdict(hostile):
    markdown, junit = hostile / "s.md", hostile / "j.xml"
    done = gryph(
        "run", str(hostile / "s.dq"), "--no-history", "--markdown", str(markdown), "--junit", str(junit), "--quiet"
    )
    assert done.returncode == 1, done.stderr
    text = markdown.read_text(encoding="utf-8")
    assert "<" not in text and "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("## ❌ gryph: suite ") and lines[0].endswith(
        " failed (policy: all) — 2 of 2 checks failed"
    )
    # as GitHub renders it: raw HTML passes through, so forged tags or rows would show here
    page = _Tables()
    page.feed(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))
    assert page.tags <= {"h2", "p", "table", "thead", "tbody", "tr", "th", "td"} and not page.comments
    measures, checks = page.tables
    assert [len(row) for row in measures] == [2, 2, 2] and [len(row) for row in checks] == [3, 3, 3]
    # each name and value reads as it is, its line breaks and escape characters spelled out
    assert measures[1] == ["m\\x0d\\x0a| x | y |<!--", "\\x1b[31mred\\x07over\\u202eevil\\x9b2J\\x0d\\x0a| a | b |"]
    assert measures[2] == ["img`", "<img src=x onerror=alert(1)>"]
    assert [row[0] for row in checks[1:]] == ["c|\\x0d\\x0a| forged | row |<script>", "`tick` <!--"]
    assert checks[2][2] == 'measures["img`"] = <img src=x onerror=alert(1)>'
    heading = MarkdownIt("commonmark").renderInline(lines[0][3:])
    assert heading == "❌ gryph: suite &lt;!-- s\\x0d\\x0a| x |\\x1b[2J failed (policy: all) — 2 of 2 checks failed"
    # the JUnit XML of the same run parses, with the same names
    cases = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase")]
    assert cases == [CHECK, "`tick` <!--"]
