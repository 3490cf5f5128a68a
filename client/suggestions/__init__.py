"""``gryph suggest``: a commented ``.dq`` suite proposed from a profile of each source.

from gryph.client.suggestions import suggest
text = suggest(["data/orders.parquet"])    # the suite's text; DuckDB by default
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
from dataclasses import replace
from pathlib import Path

from gryph.compiler.engine import Engine
from gryph.compiler.errors import InvalidInput
from gryph.compiler.redaction import redact
from gryph.compiler.suites.native_suites import parse_suite

from ..run.engines import open_engine
from ..run.runner import check_for, opened_engine
from .declared_types import with_types
from .dsl_text import comment_text, identifier
from .profiles import SourceProfile, profile_source
from .proposals import source_statements
from .source_arguments import database_kind, read_source_arguments
from .source_declarations import declaration

_DECLARED = re.compile(r"\s*[A-Za-z]+\s*\(")  # a source as a suite declares it, not a file
HEADER = """\
# Suggested by `gryph suggest` from a profile of each source ({what}).
# Every check passed on the data it was suggested from: the thresholds are what that data showed,
# so edit them to what you expect. Ranges and lengths as profiled are `warn check`s (reported,
# never failing the run); the row-count anomaly checks judge from the second run on.
# Run it:   gryph run {file}"""


def suggest(
    arguments: list[str],
    engine: Engine | str = "duckdb",
    *,
    remote: str | None = None,
    output: str | Path | None = None,
    now: dt.datetime | None = None,
    cwd: Path | None = None,
) -> str:
    """The suggested suite's text for the sources ``arguments`` name (files, folders, source
    declarations, Griffin job configs), profiled on ``engine``. Paths in it are written from the
    folder of ``output`` (where the suite will be kept; default ``cwd``); ``now`` is the time
    freshness is measured from (default: now)."""
    cwd = cwd or Path.cwd()
    now = now or dt.datetime.now(dt.timezone.utc)
    base = (cwd / output).parent if output is not None else cwd
    sources = read_source_arguments(arguments, cwd)
    database = duckdb_file(arguments, cwd)
    shown = None if database is None else Path(os.path.relpath(database, cwd)).as_posix()
    with contextlib.ExitStack() as stack:
        if database is not None and isinstance(engine, str):  # opened here on its file, closed here
            engine = stack.enter_context(contextlib.closing(_on_database(engine, remote, database)))
        active = stack.enter_context(opened_engine(engine, remote))
        profiles = [profile_source(with_types(spec, active), active) for spec in sources]
        text = _suite_text(profiles, arguments, output, base, now, shown)
        # the suite must read back: a suggestion that does not validate is gryph's mistake, said here
        # (with the sources as profiled: a URL's password is not in the text)
        parsed = parse_suite(text, None if output is None else str(output), base)
        check_for(replace(parsed, sources={p.spec.name: p.spec for p in profiles}), active)
    return text


def duckdb_file(arguments: list[str], cwd: Path) -> Path | None:
    """The DuckDB database file among the arguments, whose tables the engine reads; one at most."""
    files = [cwd / a for a in arguments if not _DECLARED.match(a) and database_kind(cwd / a) == "duckdb"]
    if len(files) > 1:
        raise InvalidInput(
            "BAD_SOURCE",
            "more than one DuckDB database file: a run reads the tables of one (--database)",
            text=str(files[1]),
            hint="suggest from each database file in a suite of its own",
        )
    return files[0] if files else None


def _on_database(engine: str, remote: str | None, database: Path) -> Engine:
    """The DuckDB engine opened on ``database`` (read-only), for an engine given by name (one given
    open is the caller's: ``--database`` opened it)."""
    if engine != "duckdb" or remote is not None:
        raise InvalidInput(
            "BAD_SOURCE",
            f"{database} is a DuckDB database file: its tables are read by the duckdb engine",
            text=str(database),
            hint="drop --remote and --engine spark",
        )
    return open_engine("duckdb", database=str(database), read_only=True)


def _suite_text(
    profiles: list[SourceProfile],
    arguments: list[str],
    output: str | Path | None,
    base: Path,
    now: dt.datetime,
    database: str | None,
) -> str:
    taken = {profile.spec.name for profile in profiles}
    name = identifier(Path(output).stem if output is not None else "suggested", set())
    what = comment_text(redact(", ".join(arguments)))
    run = f"{output or 'suite.dq'}"
    if database is not None:  # its tables are table("...") sources of the database the run opens
        run += f" --database {database}"
    lines = [HEADER.format(what=what, file=comment_text(run)), f"suite {name}"]
    for profile in profiles:
        rows, columns = profile.rows, len(profile.columns)
        counts = f"{rows} row{'' if rows == 1 else 's'}, {columns} column{'' if columns == 1 else 's'}"
        lines += ["", "", f"# ---- {profile.spec.name}: {counts}"]
        lines += declaration(profile.spec, base)
        lines += source_statements(profile, now, taken)
    lines += ["", "pass when all", ""]
    return "\n".join(lines)
