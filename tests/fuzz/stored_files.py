"""Fuzzing gryph's own DuckDB files: a real stream state and a real run history, one row value
mutated per case (NULL, a value of another type, a column retyped, JSON with a key deleted, a
node replaced by a value of another type, or its text cut short), then read by the commands
that read them (`gryph stream`, `gryph stream status`; `gryph history`, `gryph report`). The
property: each case ends as a result or as gryph's own error located at a file, never a
traceback. Cases are reproducible from a seed and their number.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tests.fuzz.fuzz_support import _ODD_VALUES

SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, user string", settle = "1ms",
                       max_files_per_batch = 1)
completeness users on landed: user
measure "rows": select count(*) from landed
check "some rows": measures["rows"] > 0
pass when all
"""
# a located error as the CLI prints it: "<file>[:line:col]: error CODE: ..."
_LOCATED = re.compile(r"^\S[^\n]*: error [A-Z_]+: ", re.MULTILINE)


@dataclass
class StoredCase:
    """One mutation of one value: ``kind`` is ``state`` or ``history``; ``sql`` the statements."""

    kind: str
    mutation: str
    sql: list[tuple[str, list]]


class StoredFiles:
    """A folder with a suite, its files, a stream state of three published batches (and one more
    batch committed but not published) and the history they were stored in."""

    def __init__(self, root: Path) -> None:
        from gryph.client.cli.main import main

        self.root = root
        (root / "incoming").mkdir(parents=True)
        (root / "landed.dq").write_text(SUITE, encoding="utf-8")
        for number in range(4):
            path = root / "incoming" / f"{number}.json"
            rows = [{"id": number, "user": None if number == 1 else f"u{number}"}]
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            moment = time.time() - 100 + number
            os.utime(path, (moment, moment))
        with _quiet(), _inside(root):
            main(["stream", "landed.dq", "--max-batches", "4", "--available-now", *self._files("state", "history")])
        with duckdb.connect(
            str(root / "state.duckdb")
        ) as con:  # batch 4: as a client killed before publishing leaves it
            con.execute("update batches set status = 'committed' where batch = 4")
        self.good = {kind: (root / f"{kind}.duckdb").read_bytes() for kind in ("state", "history")}

    def _files(self, state: str, history: str) -> list[str]:
        return ["--state", f"{state}.duckdb", "--history", f"{history}.duckdb"]

    def commands(self, kind: str) -> list[list[str]]:
        if kind == "state":
            stream = ["landed.dq", "--state", "case.duckdb", "--history", "history.duckdb"]
            return [["stream", *stream, "--available-now", "--format", "json"], ["stream", "status", *stream[:3]]]
        history = ["landed", "--history", "case.duckdb"]
        return [["history", *history], ["history", *history, "--measure", "rows"], ["report", *history, "-o", "r.html"]]

    def outcome(self, case: StoredCase) -> str | None:
        """None when every command ends with a result or a located gryph error; else what went wrong."""
        from gryph.client.cli.main import main

        (self.root / "case.duckdb").write_bytes(self.good[case.kind])
        if case.kind == "state":
            (self.root / "history.duckdb").write_bytes(self.good["history"])
        with duckdb.connect(str(self.root / "case.duckdb")) as con:
            for sql, params in case.sql:
                try:
                    con.execute(sql, params)
                except duckdb.Error:  # a key made NULL or a duplicate: DuckDB refuses it, the file is as it was
                    return None
        for argv in self.commands(case.kind):
            err = io.StringIO()
            with _quiet(err), _inside(self.root):
                code = main(argv)
            text = err.getvalue()
            if "internal error" in text or "Traceback" in text or code not in (0, 1, 2, 3, 4):
                return f"{case.mutation}: {argv[:2]} exit {code}: {text.strip()[:300]}"
            if code in (2, 3) and not _LOCATED.search(text):
                return f"{case.mutation}: {argv[:2]} exit {code} without a located error: {text.strip()[:300]}"
        shutil.rmtree(self.root / ".gryph", ignore_errors=True)
        return None


def stored_cases(files: StoredFiles, kind: str, seed: int, count: int):
    """``count`` mutations of the ``kind`` file's values, reproducible from ``seed``."""
    rng = random.Random(seed)
    with duckdb.connect(str(files.root / f"{kind}.duckdb"), read_only=True) as con:
        columns = con.execute(
            "select table_name, column_name, data_type from duckdb_columns() where not internal"
        ).fetchall()
        counts = {t: con.execute(f'select count(*) from "{t}"').fetchall()[0][0] for t, _, _ in columns}
        filled = [(t, c, kind_) for t, c, kind_ in columns if counts[t]]
        for _ in range(count):
            table, column, data_type = rng.choice(filled)
            row = rng.randrange(counts[table])
            value = con.execute(f'select "{column}" from "{table}" limit 1 offset {row}').fetchall()[0][0]
            where = f'where rowid = (select rowid from "{table}" limit 1 offset {row})'
            yield _mutation(rng, kind, table, column, data_type, value, where)


def _mutation(rng: random.Random, kind: str, table: str, column: str, data_type: str, value, where: str) -> StoredCase:
    name = f"{kind} {table}.{column}"
    update = f'update "{table}" set "{column}" = ? {where}'
    choice = rng.random()
    if choice < 0.15:
        return StoredCase(kind, f"{name} NULL", [(f'update "{table}" set "{column}" = null {where}', [])])
    if choice < 0.3:  # the column retyped, as another version or tool might leave it
        odd = rng.choice(["x", "", "-1", "1e999", "[]", "{}", "é日本"])
        retype = f'alter table "{table}" alter "{column}" type varchar'
        return StoredCase(kind, f"{name} retyped, {odd!r}", [(retype, []), (update, [odd])])
    if data_type != "VARCHAR" or not isinstance(value, str):
        odd = rng.choice([-1, 0, 2**62, -(2**62)]) if data_type in ("BIGINT", "INTEGER") else None
        return StoredCase(kind, f"{name} = {odd!r}", [(update, [odd])])
    try:
        document = json.loads(value)
    except ValueError:
        odd = rng.choice(["", "x", "é日本", "intent", "committed", "published", "\u0000", value + "x"])
        return StoredCase(kind, f"{name} = {odd!r}", [(update, [odd])])
    if choice < 0.4:
        cut = rng.randrange(len(value) + 1)
        return StoredCase(kind, f"{name} cut at {cut}", [(update, [value[:cut]])])
    path, mutated = _mutated_json(rng, document)
    return StoredCase(kind, f"{name} at {path}", [(update, [json.dumps(mutated)])])


def _mutated_json(rng: random.Random, document):
    """``document`` with one node deleted or replaced by a value of another type, and its path."""
    paths = list(_paths(document, ()))
    path = rng.choice(paths)
    if not path:
        return "the whole", rng.choice(_ODD_VALUES)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if rng.random() < 0.4:
        del parent[path[-1]]
        return f"{'/'.join(map(str, path))} deleted", document
    parent[path[-1]] = rng.choice(_ODD_VALUES)
    return "/".join(map(str, path)), document


def _paths(node, path: tuple):
    yield path
    if isinstance(node, dict):
        for key, child in node.items():
            yield from _paths(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _paths(child, (*path, index))


@contextlib.contextmanager
def _quiet(err: io.StringIO | None = None):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err or io.StringIO()):
        yield


@contextlib.contextmanager
def _inside(folder: Path):
    previous = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)
