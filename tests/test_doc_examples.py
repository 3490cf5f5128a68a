"""Every example in README.md and docs/**/*.md runs, and prints what the page shows.

A page is read as a script, top to bottom, in a folder of its own holding a copy of ``examples/``
(the rules are written down in docs/development.md, "Examples on these pages are tested"):

- a fenced block right after ``<!-- file: PATH -->`` is the file PATH of that folder; where the
  repository holds PATH too (``examples/seed.dq``), the block must be that file, word for word;
- a block whose first line starts with ``$ gryph`` is run: each ``$ gryph ...`` line is a command
  (``# exits N`` at its end: the exit code it must give, else 0), and the lines below it, up to the
  next ``$`` line, are what it prints (standard output, then standard error);
- a ``python`` block runs in that folder;
- a block right after ``<!-- not run: REASON -->`` is shown only (a server, a cluster, a diagram);
- any other block is an error of this test: a page cannot hold an example nobody runs.

Shown output is compared exactly, line by line, but for ``...``: a line that is ``...`` alone stands
for any number of lines, and ``...`` inside a line for any text. Output that is JSON is compared as
JSON: an object that shows ``...`` among its members has at least the members shown, with the values
shown; any other object, list or value is compared whole.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from tests.support.gryph_cli import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(?P<lang>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"<!--\s*(?P<kind>file|not run):\s*(?P<value>.*?)\s*-->\s*\Z")
EXITS = re.compile(r"#\s*exits\s+(\d+)\s*$")
ELIDED = "\u2026elided\u2026"  # stands for `...` in a JSON object while it is parsed


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it starts, its language, its marker and its text."""

    page: Path
    line: int
    lang: str
    marker: tuple[str, str] | None
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for fence in FENCE.finditer(text):
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.search(before)
        found.append(
            Block(
                page,
                text.count("\n", 0, fence.start()) + 1,
                fence["lang"].strip(),
                (marker["kind"], marker["value"]) if marker else None,
                fence["body"],
            )
        )
    return found


def kind_of(block: Block) -> str:
    if block.marker:
        return block.marker[0]
    if block.text.startswith("$ gryph"):
        return "commands"
    if block.lang == "python":
        return "python"
    return "unmarked"


# -- comparing what a command printed with what the page shows ----------------------------------


def _line_matches(shown: str, printed: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed) is not None


def text_matches(shown: list[str], printed: list[str]) -> bool:
    """``shown`` against ``printed``, line by line; a ``...`` line takes any number of lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(text_matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and _line_matches(shown[0], printed[0]) and text_matches(shown[1:], printed[1:])


def _as_json(shown: str) -> object | None:
    """The shown text as JSON, each `...` member of an object kept as a mark; None if it is no JSON."""
    marked = re.sub(r"\.\.\.(?=\s*[,}])", f'"{ELIDED}": null', shown)
    try:
        return json.loads(marked)
    except json.JSONDecodeError:
        return None


def json_matches(shown: object, printed: object) -> bool:
    if isinstance(shown, dict):
        if not isinstance(printed, dict):
            return False
        keys = set(shown) - {ELIDED}
        if ELIDED not in shown and keys != set(printed):
            return False
        return all(key in printed and json_matches(shown[key], printed[key]) for key in keys)
    if isinstance(shown, list):
        return (
            isinstance(printed, list)
            and len(shown) == len(printed)
            and all(json_matches(s, p) for s, p in zip(shown, printed, strict=True))
        )
    return shown == printed and type(shown) is type(printed)


def output_matches(shown: str, printed: str) -> bool:
    expected = _as_json(shown) if shown.lstrip().startswith(("{", "[")) else None
    if expected is not None:
        try:
            return json_matches(expected, json.loads(printed))
        except json.JSONDecodeError:
            return False
    return text_matches(
        [line.rstrip() for line in shown.strip("\n").splitlines()],
        [line.rstrip() for line in printed.strip("\n").splitlines()],
    )


# -- running a page ------------------------------------------------------------------------------


def commands_of(block: Block) -> list[tuple[str, int, str]]:
    """(command line, exit code, shown output) for each `$` line of a block."""
    found: list[tuple[str, int, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            code = EXITS.search(line)
            found.append((line[2:], int(code[1]) if code else 0, []))
        else:
            found[-1][2].append(line)
    return [(command, code, "\n".join(shown)) for command, code, shown in found]


def run_block(block: Block, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kind = kind_of(block)
    if kind == "file":
        path = block.marker[1]
        if (ROOT / path).is_file():
            assert block.text == (ROOT / path).read_text(encoding="utf-8"), f"{block.where}: the block is not {path}"
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(block.text, encoding="utf-8")
    elif kind == "python":
        exec(compile(block.text, block.where, "exec"), {"__name__": "__doc_example__"})
    elif kind == "commands":
        for command, code, shown in commands_of(block):
            args = shlex.split(command, comments=True)
            assert args[0] == "gryph", f"{block.where}: only gryph commands run: {command}"
            capsys.readouterr()
            returned = main(args[1:])
            out, err = capsys.readouterr()
            assert returned == code, f"{block.where}: `{command}` exited {returned}, not {code}:\n{out}{err}"
            printed = out + err
            assert output_matches(shown, printed), (
                f"{block.where}: `{command}` printed\n{printed}\nthe page shows\n{shown}"
            )


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_example_on_the_page_runs_as_shown(page: Path, tmp_path: Path, monkeypatch, capsys):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    for block in blocks_of(page):
        run_block(block, tmp_path, capsys)


def test_every_block_is_run_or_says_why_not():
    unmarked = [b.where for page in PAGES for b in blocks_of(page) if kind_of(b) == "unmarked"]
    assert not unmarked, "blocks neither run nor marked `<!-- not run: REASON -->`: " + ", ".join(unmarked)
    for page in PAGES:
        for block in blocks_of(page):
            assert block.marker is None or block.marker[1], f"{block.where}: a marker without its file or reason"


def test_the_measure_check_example_is_the_bundled_seed_suite():
    blocks = blocks_of(ROOT / "docs" / "checks.md")
    assert ("file", "examples/seed.dq") in [b.marker for b in blocks]
    assert any(
        command.startswith("gryph run examples/seed.dq")
        for b in blocks
        if kind_of(b) == "commands"
        for command, _, _ in commands_of(b)
    )


def test_the_readme_shows_a_first_suite_run():
    kinds = [kind_of(b) for b in blocks_of(ROOT / "README.md")]
    assert "file" in kinds and "commands" in kinds


# -- the comparison rules themselves, on hand-made cases -----------------------------------------


def test_a_dots_line_stands_for_any_lines_and_dots_in_a_line_for_any_text():
    assert output_matches("a\n...\nd", "a\nb\nc\nd")
    assert output_matches("a\n...\nd", "a\nd")
    assert not output_matches("a\n...\nd", "a\nb\nc")
    assert output_matches("took ... s", "took 0.12 s")
    assert not output_matches("took ... s", "took 0.12 ms")
    assert not output_matches("a\nb", "a\nb\nc")


def test_json_objects_with_dots_hold_at_least_the_members_shown():
    printed = json.dumps({"name": "s", "pass": True, "check": {"a": True, "b": False}})
    assert output_matches('{ ..., "pass": true, ... }', printed)
    assert not output_matches('{ ..., "pass": false, ... }', printed)
    assert not output_matches('{"pass": true}', printed)  # no dots: every member
    assert output_matches('{ ..., "check": {"a": true, "b": false} }', printed)
    assert not output_matches('{ ..., "check": {"a": true} }', printed)
    assert not output_matches('{ ..., "pass": 1 }', printed)  # true is not 1
