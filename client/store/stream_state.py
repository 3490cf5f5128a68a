"""A stream's committed state, in one DuckDB file: where each source stands, the batches run.

Exactly once rests on three steps per batch (see ../shared/streaming.md §2): an *intent* names
the batch's number, time and exact input (offsets per partition, files) before anything is
read; the *commit* moves the sources' positions past that input and stores the batch's result
document in one transaction; *publishing* (history, outputs) follows, each output marked done
as it completes (outbox.py). After a crash, an intent without a commit runs again with the same
time and input; a commit not yet published is published to the outputs it had not reached.

The open state is the stream's lease: gryph's lock on the file (locked_files.py) is held until it
is closed, so a second client gets STREAM_LOCKED instead of sharing offsets with the first.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from gryph.compiler.errors import EngineError, InvalidInput, Location
from gryph.compiler.sources.stream_positions import FileSlice, KafkaRange

from ..results.checked_values import Damaged
from ..results.document import ResultDocument
from .locked_files import Busy, connect, gryph_lock, not_duckdb
from .state_rows import accuracy_row, batch_row, meta_format, meta_text, position_row

FORMAT_VERSION = 1  # the state format written; this gryph reads it and the earlier ones

_SCHEMA = (
    "create table if not exists meta (key varchar primary key, value varchar)",
    """create table if not exists batches (
        batch bigint primary key, tmst bigint, input varchar, status varchar, document varchar)""",
    """create table if not exists kafka_positions (
        source varchar, topic varchar, part integer, next_offset bigint, primary key (source, topic, part))""",
    """create table if not exists folder_files (
        source varchar, path varchar, mtime_ns bigint, size bigint, batch bigint, primary key (source, path))""",
    # an accuracy rule's result per batch time while its misses are matched again (accuracy_retries.py)
    """create table if not exists accuracy_times (
        rule varchar, tmst bigint, total bigint, miss bigint, primary key (rule, tmst))""",
    # the outbox: each output (history, the printed line, files, alerts) a committed batch has
    # been published to, until every one has and the batch is published (outbox.py)
    "create table if not exists outputs_done (batch bigint, output varchar, primary key (batch, output))",
)

INTENT, COMMITTED, PUBLISHED = "intent", "committed", "published"


@dataclass
class BatchInput:
    """What one batch reads: per Kafka source a ``KafkaRange`` per partition, per folder source a
    ``FileSlice`` per file, in reading order (stream_positions.py; stored as lists of their fields)."""

    kafka: dict[str, list[KafkaRange]] = field(default_factory=dict)
    files: dict[str, list[FileSlice]] = field(default_factory=dict)
    # Kafka offsets lost before they were read (a suite that accepts loss): source -> count
    lost: dict[str, int] = field(default_factory=dict)
    # per retrying accuracy rule: the file of the misses it matches again, and the oldest batch
    # time still matched (older misses are final)
    pending: dict[str, str] = field(default_factory=dict)
    cutoff: dict[str, int] = field(default_factory=dict)
    # per stream source read by a windowed uniqueness or distinctness: earlier batches' rows files
    history: dict[str, list[str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return all(r.empty for ranges in self.kafka.values() for r in ranges) and not any(self.files.values())

    @property
    def sources(self) -> list[str]:
        """The stream sources the batch reads (each in its part)."""
        return [*self.kafka, *self.files]

    def to_json(self) -> str:
        kafka = {name: [r.to_state() for r in ranges] for name, ranges in self.kafka.items()}
        files = {name: [f.to_state() for f in listed] for name, listed in self.files.items()}
        shaped = {"kafka": kafka, "files": files, "lost": self.lost}
        kept = {"pending": self.pending, "cutoff": self.cutoff, "history": self.history}
        return json.dumps({**shaped, **kept}, sort_keys=True)


@dataclass(frozen=True)
class Owner:
    """Which suite file a state belongs to (its resolved path), and what its stream sources read
    (shown when another suite file is refused)."""

    file: str
    sources: str


@dataclass(frozen=True)
class Batch:
    number: int
    tmst: int  # epoch milliseconds: every row's __tmst
    input: BatchInput
    status: str
    document: ResultDocument | None = None  # read back once committed


class StreamState:
    """The state file of one suite's stream, open (and leased) until ``close``."""

    def __init__(self, path: str | Path, suite: str, owner: Owner | None = None, adopt: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lease = contextlib.ExitStack()  # gryph's lock on the file, held until ``close``
        try:
            self._con = self._leased_connection()
        except BaseException:
            self._lease.close()
            raise
        try:
            foreign = self._foreign_tables()
            if foreign:
                raise self._broken(f"it is a DuckDB database of other tables ({', '.join(foreign)}), not a stream's")
            meta = self._meta()
            self._check_format(meta)  # before anything is written: a newer gryph's state is left as it is
            with self._transaction():  # one commit, not one per table: each writes the file
                for statement in _SCHEMA:
                    self._con.execute(statement)
                self._claim(meta, suite, owner, adopt)
        except duckdb.Error as error:
            self.close()
            raise self._broken(str(error).splitlines()[0]) from None
        except BaseException:  # another suite's, or a damaged one: its lease is not kept
            self.close()
            raise

    def _leased_connection(self) -> duckdb.DuckDBPyConnection:
        """DuckDB's connection to the state, under gryph's lock (STREAM_LOCKED when another process
        holds it); a file that is not DuckDB's is STREAM_STATE."""
        try:
            self._lease.enter_context(gryph_lock(self.path, shared=False))
            problem = not_duckdb(self.path)
            if problem is not None:
                raise self._broken(problem)
            return connect(self.path)
        except Busy:
            raise EngineError(
                "STREAM_LOCKED",
                f"the stream state {self.path} is in use by another process",
                location=Location(str(self.path)),
                text=str(self.path),
                hint="one client runs a stream at a time: stop the other, or give this one its own --state",
            ) from None
        except (duckdb.Error, OSError) as error:
            raise self._broken(str(error).splitlines()[0]) from None

    def _foreign_tables(self) -> list[str]:
        """The tables of a database that is no stream state (a new file has none; a state has its
        ``meta``): adopting it would write a stream's tables into the user's database."""
        names = sorted(name for (name,) in self._con.execute("select table_name from duckdb_tables()").fetchall())
        return [] if not names or "meta" in names else names[:5]

    def _broken(self, problem: str, hint: str = "") -> EngineError:
        return EngineError(
            "STREAM_STATE",
            f"the stream state {self.path} cannot be used: {problem}",
            location=Location(str(self.path)),
            text=str(self.path),
            hint=hint
            or "it is not a gryph stream state (or it is damaged): give another --state, or move it away to "
            "start the stream again",
        )

    def _meta(self) -> dict[str, str]:
        """The state's ``meta`` table; none in a new file."""
        if not self._con.execute("select 1 from duckdb_tables() where table_name = 'meta'").fetchall():
            return {}
        return dict(self._con.execute("select key, value from meta").fetchall())

    def _check_format(self, meta: dict[str, str]) -> None:
        """A state of a format this gryph does not read is refused: read as this format, its
        batches and positions would be taken for others, and writing would damage them."""
        if not meta:
            return
        found = self._checked(lambda: meta_format(meta))
        if found > FORMAT_VERSION:
            raise self._broken(
                f"it is of state format {found}, and this gryph reads formats up to {FORMAT_VERSION}",
                hint="it was written by a newer gryph: upgrade gryph to run this stream; the state was left as "
                "it is (do not reset or overwrite it with this version: the stream would lose its positions)",
            )

    def _claim(self, meta: dict[str, str], suite: str, owner: Owner | None, adopt: bool) -> None:
        """The file belongs to one suite's stream: another suite's state is refused, not mixed.
        Two suite files of the same name are two suites: the state records its file (a state
        older than that record is claimed by the first to open it); ``adopt`` hands it to
        ``owner`` (the suite file moved)."""
        if not meta:
            self._insert_many(
                "insert into meta values (?, ?)",
                [["suite", suite], ["stream_id", uuid.uuid4().hex], ["format", str(FORMAT_VERSION)]],
            )
            meta = self._meta()
        stored_suite = self._checked(lambda: meta_text(meta, "suite"))
        if stored_suite != suite:
            raise InvalidInput(
                "STREAM_OTHER_SUITE",
                f"the stream state {self.path} is the state of suite {stored_suite!r}, not {suite!r}",
                location=Location(str(self.path)),
                text=str(self.path),
                hint="give each suite its own --state",
            )
        self.stream_id = self._checked(lambda: meta_text(meta, "stream_id"))
        if owner is not None:
            recorded = meta.get("suite_file")
            if recorded not in (None, owner.file) and not adopt:
                raise InvalidInput(
                    "STREAM_OTHER_SUITE",
                    f"the stream state {self.path} is the state of suite {suite!r} of {recorded} "
                    f"(reading {meta.get('sources')}), not of {owner.file}",
                    location=Location(str(self.path)),
                    text=str(self.path),
                    hint="give each suite its own --state (two suite files of one name are two streams); "
                    "if the suite file moved here, --adopt-state hands its state to it",
                )
            self._insert_many(
                "insert or replace into meta values (?, ?)", [["suite_file", owner.file], ["sources", owner.sources]]
            )

    def close(self) -> None:
        self._con.close()
        self._lease.close()

    def _checked(self, read):
        """What ``read()`` gives from the state's rows; a damaged row is STREAM_STATE naming it."""
        try:
            return read()
        except Damaged as damaged:
            raise self._broken(str(damaged)) from None

    # -- reading ---------------------------------------------------------------------------

    def kafka_positions(self, source: str) -> dict[tuple[str, int], int]:
        rows = self._con.execute(
            "select topic, part, next_offset from kafka_positions where source = ?", [source]
        ).fetchall()
        return self._checked(lambda: dict(position_row(row, source) for row in rows))

    def taken_files(self, source: str) -> set[str]:
        rows = self._con.execute("select path from folder_files where source = ?", [source]).fetchall()
        return {path for (path,) in rows}

    def last_batch(self) -> Batch | None:
        rows = self._con.execute(
            "select batch, tmst, input, status, document from batches order by batch desc limit 1"
        ).fetchall()
        return self._checked(lambda: _batch(rows[0])) if rows else None

    def batches(self, status: str | None = None) -> list[Batch]:
        where, params = ("where status = ?", [status]) if status is not None else ("", [])
        rows = self._con.execute(
            f"select batch, tmst, input, status, document from batches {where} order by batch", params
        ).fetchall()
        return self._checked(lambda: [_batch(row) for row in rows])

    def accuracy_times(self, rule: str, since: int) -> dict[int, tuple[int, int]]:
        """The rule's ``(total, miss)`` per batch time from ``since`` on."""
        rows = self._con.execute(
            "select tmst, total, miss from accuracy_times where rule = ? and tmst >= ?", [rule, since]
        ).fetchall()
        return self._checked(lambda: dict(accuracy_row(row, rule) for row in rows))

    def batches_since(self, tmst: int) -> list[int]:
        """The numbers of the committed batches whose time is at least ``tmst``."""
        rows = self._con.execute(
            "select batch from batches where tmst >= ? and status != ? order by batch", [tmst, INTENT]
        ).fetchall()
        return [number for (number,) in rows]

    def started(self, source: str) -> bool:
        """Whether the stream ever positioned ``source`` (its first batch reads from ``starting``)."""
        return bool(
            self._con.execute("select count(*) from kafka_positions where source = ?", [source]).fetchall()[0][0]
        )

    # -- writing ---------------------------------------------------------------------------

    def write_intent(self, tmst: int, batch_input: BatchInput) -> Batch:
        """Record the next batch before it reads anything; its number."""
        with self._transaction():
            number = self._con.execute("select coalesce(max(batch), 0) + 1 from batches").fetchall()[0][0]
            self._con.execute(
                "insert into batches values (?, ?, ?, ?, null)", [number, tmst, batch_input.to_json(), INTENT]
            )
        return Batch(number, tmst, batch_input, INTENT)

    def position(self, source: str, positions: dict[tuple[str, int], int]) -> None:
        """Where a Kafka source starts before any batch read it (``starting = "latest"``)."""
        with self._transaction():
            self._set_positions(source, positions)

    def commit(self, batch: Batch, document: dict, accuracy: dict[str, dict[int, tuple[int, int]]]) -> None:
        """Move every source past the batch's input and store its result and its retrying
        accuracy rules' ``(total, miss)`` per batch time, in one transaction."""
        with self._transaction():
            self._insert_many(
                "insert or replace into accuracy_times values (?, ?, ?, ?)",
                [
                    [rule, tmst, total, miss]
                    for rule, times in accuracy.items()
                    for tmst, (total, miss) in times.items()
                ],
            )
            self._move_past(batch.input, batch.number)
            self._con.execute(
                "update batches set status = ?, document = ? where batch = ?",
                [COMMITTED, json.dumps(document, ensure_ascii=False, allow_nan=False), batch.number],
            )

    def outputs_done(self, batch: Batch) -> set[str]:
        """The outputs the committed ``batch`` has been published to."""
        rows = self._con.execute("select output from outputs_done where batch = ?", [batch.number]).fetchall()
        return {output for (output,) in rows}

    def output_done(self, batch: Batch, output: str) -> None:
        with self._transaction():
            self._con.execute("insert or ignore into outputs_done values (?, ?)", [batch.number, output])

    def published(self, batch: Batch) -> None:
        """Every output has the batch: its outbox entries are no longer needed."""
        with self._transaction():
            self._con.execute("update batches set status = ? where batch = ?", [PUBLISHED, batch.number])
            self._con.execute("delete from outputs_done where batch = ?", [batch.number])

    def skip(self, batch: Batch) -> None:
        """A batch that read no rows (only aborted transactions' messages or their markers, no
        file): its sources move past its input and it is forgotten, its number left to the next batch."""
        with self._transaction():
            self._move_past(batch.input, batch.number)
            self._con.execute("delete from batches where batch = ?", [batch.number])

    def reset(self, taken: BatchInput) -> None:
        """Forget an unfinished intent; set every source of ``taken`` to where it would be had a
        batch read ``taken`` and nothing before it: Kafka sources past its ranges, folders with
        its files taken (batch 0: skipped, never read)."""
        with self._transaction():
            self._con.execute("delete from batches where status = ?", [INTENT])
            for source in taken.kafka:
                self._con.execute("delete from kafka_positions where source = ?", [source])
            for source in taken.files:
                self._con.execute("delete from folder_files where source = ?", [source])
            self._move_past(taken, 0)

    def _move_past(self, taken: BatchInput, number: int) -> None:
        """Each source past what batch ``number`` read: a Kafka partition's next offset is its
        range's end, a folder's files are taken."""
        for source, ranges in taken.kafka.items():
            self._set_positions(source, {r.part: r.end for r in ranges})
        for source, files in taken.files.items():
            self._insert_many(
                "insert into folder_files values (?, ?, ?, ?, ?)",
                [[source, f.path, f.mtime_ns, f.size, number] for f in files],
            )

    def _set_positions(self, source: str, positions: dict[tuple[str, int], int]) -> None:
        self._insert_many(
            "insert or replace into kafka_positions values (?, ?, ?, ?)",
            [[source, topic, part, offset] for (topic, part), offset in positions.items()],
        )

    def _insert_many(self, sql: str, rows: list[list]) -> None:
        if rows:  # DuckDB refuses an executemany of no rows
            self._con.executemany(sql, rows)

    def _transaction(self):
        return _Transaction(self._con)


class _Transaction:
    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __enter__(self) -> None:
        self._con.execute("begin transaction")

    def __exit__(self, kind, value, traceback) -> None:
        self._con.execute("commit" if kind is None else "rollback")


def _batch(row: tuple) -> Batch:
    number, tmst, parts, status, document = batch_row(row)
    kafka = {name: [KafkaRange.from_state(r) for r in ranges] for name, ranges in parts.pop("kafka").items()}
    files = {name: [FileSlice.from_state(f) for f in listed] for name, listed in parts.pop("files").items()}
    return Batch(number, tmst, BatchInput(kafka=kafka, files=files, **parts), status, document)
