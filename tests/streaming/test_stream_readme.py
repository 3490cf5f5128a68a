"""The streaming suite of docs/streams.md is a suite gryph reads: it validates, and ``gryph run`` refuses it
with the hint to stream it (no broker needed: a stream's schemas are declared)."""

from __future__ import annotations

from pathlib import Path

from gryph.client.cli.main import main

PAGE = (Path(__file__).parents[2] / "docs" / "streams.md").read_text(encoding="utf-8")


def _suite_block() -> str:
    return PAGE.split("```\n", 2)[1].split("```", 1)[0]


def test_the_docs_stream_suite_validates_and_run_points_at_stream(tmp_path, capsys):
    (tmp_path / "users.csv").write_text("name\nann\n", encoding="utf-8")
    (tmp_path / "incoming").mkdir()
    suite = tmp_path / "clicks.dq"
    suite.write_text(_suite_block(), encoding="utf-8")
    assert main(["validate", str(suite)]) == 0
    assert "ok (3 rules, 0 measures, 0 checks, 3 sources; pass when all)" in capsys.readouterr().out
    assert main(["run", str(suite)]) == 2
    assert "gryph stream" in capsys.readouterr().err
