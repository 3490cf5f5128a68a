"""A segmented rule in the result document (read back typed, a damaged part named), in the
history and in the text report: the worst segments first, NULL and "" told apart, the cap's
located warning."""

from __future__ import annotations

import json

import pytest

from gryph.client import load_suite, run
from gryph.client.cli.main import main
from gryph.client.outputs.text import to_text
from gryph.client.results.checked_values import Damaged
from gryph.client.results.document import read_document
from gryph.client.store.history import HistoryStore
from tests.support.gryph_cli import gryph

# country: FR 1 of 3 rows without email, NULL 2 of 2, '' 0 of 1, 'Ü' 1 of 1
ROWS = [
    (1, "a@x", "FR"),
    (2, None, "FR"),
    (3, "b@x", "FR"),
    (4, None, None),
    (5, None, None),
    (6, "c@x", ""),
    (7, None, "Ü"),
]


@pytest.fixture
def suite_file(tmp_path):
    lines = [json.dumps({"id": i, "email": e, "country": c}, ensure_ascii=False) for i, e, c in ROWS]
    (tmp_path / "users.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'suite segs\nsource users = json("users.json")\ncompleteness contact on users by country: email\n',
        encoding="utf-8",
    )
    return suite


def test_the_text_report_shows_the_worst_segments_first(suite_file):
    text = to_text(run(str(suite_file)))
    table = text[text.index("contact by country: 4 segments, the worst first") :].splitlines()
    # shares without an email: NULL 2/2 and "Ü" 1/1 (tied at 1.0: the larger first), FR 1/3, "" 0/1
    assert [line.split()[0] for line in table[3:7]] == ["NULL", '"Ü"', '"FR"', '""']


def test_the_document_reads_back_typed_and_the_history_keeps_it(suite_file, tmp_path):
    history = tmp_path / "h.duckdb"
    done = gryph("run", str(suite_file), "--history", str(history), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    part = read_document(json.loads(done.stdout)).segments["contact"]
    assert (part.column, part.cap, part.capped) == ("country", 1000, False)
    assert part.at.endswith("s.dq:3:31")  # the `by` of line 3
    assert {s.value: s.metrics["incomplete"] for s in part.values} == {"FR": 1, None: 2, "": 0, "Ü": 1}
    (stored,) = HistoryStore(history).documents("segs", 1)
    assert stored.segments == {"contact": part}


def test_a_damaged_segments_part_is_named():
    document = run(load_suite("completeness c on t by k: v", {"t": _table()})).to_dict()
    values = document["segments"]["c"]["values"]
    document["segments"]["c"]["values"] = [["x"]]
    with pytest.raises(Damaged, match="segment 1"):
        read_document(document)
    document["segments"]["c"]["values"] = values
    del document["segments"]["c"]["cap"]
    with pytest.raises(Damaged, match="'cap'"):
        read_document(document)


def test_the_cap_is_a_located_warning_naming_it(tmp_path):
    result = run(load_suite("completeness c on t by k top 1: v", {"t": _table()}))
    assert result.to_dict()["segments"]["c"]["capped"] is True
    text = to_text(result)
    # k holds "a" and "b": one segment kept, counted in the singular
    assert "c by k: 1 segment, the worst first" in text
    assert "warning: c by k: more than 1 segment; the 1 with the most rows is kept" in text
    plural = to_text(run(load_suite("completeness c on t by k: v", {"t": _table()})))
    assert "c by k: 2 segments, the worst first" in plural


@pytest.mark.parametrize("where", [["--format", "json"], ["--output", "report.txt"]])
def test_the_caps_warning_reaches_stderr_when_no_text_report_is_on_the_terminal(suite_file, tmp_path, where):
    suite_file.write_text(suite_file.read_text(encoding="utf-8").replace("by country:", "by country top 2:"))
    done = gryph("run", str(suite_file), "--no-history", "--quiet", *where, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # four countries (FR, NULL, "", "Ü"), two kept
    warning = "s.dq:3:31: warning: contact by country: more than 2 segments; the 2 with the most rows are kept"
    assert warning in done.stderr and done.stderr.count("warning:") == 1
    assert warning not in done.stdout
    if where[0] == "--format":
        assert json.loads(done.stdout)["segments"]["contact"]["capped"] is True


def test_a_text_report_on_the_terminal_says_the_cap_once(suite_file, tmp_path):
    suite_file.write_text(suite_file.read_text(encoding="utf-8").replace("by country:", "by country top 2:"))
    done = gryph("run", str(suite_file), "--no-history", "--quiet", cwd=tmp_path)
    assert "more than 2 segments" in done.stdout and "warning" not in done.stderr


def _table():
    import pyarrow as pa

    return pa.table({"k": ["a", "a", "b"], "v": [1, None, None]})


def test_a_backfill_says_each_runs_cap_on_stderr(suite_file, tmp_path, capsys):
    text = suite_file.read_text(encoding="utf-8").replace("by country:", "by country top 2:")
    suite_file.write_text(text.replace("suite segs\n", "suite segs\ndata_time = ${day}\n"), encoding="utf-8")
    days = ["--from", "2026-03-01", "--to", "2026-03-02", "--var", "day={data_time}"]
    assert main(["backfill", str(suite_file), *days, "--history", str(tmp_path / "h.duckdb")]) == 0
    # four countries, two kept, in each day's run (the `by` now on line 4)
    said = "s.dq:4:31: warning: contact by country: more than 2 segments; the 2 with the most rows are kept"
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 1)[0] for line in err] == ["2026-03-01", "2026-03-02"]
    assert all(said in line for line in err), err
