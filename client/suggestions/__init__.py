"""``gryph suggest``: a commented ``.dq`` suite proposed from a profile of each source.

from gryph.client.suggestions import suggest
text = suggest(["data/orders.parquet"])    # the suite's text; DuckDB by default
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

from gryph.compiler.engine import Engine
from gryph.compiler.redaction import redact
from gryph.compiler.suites.native_suites import parse_suite

from ..runner import check_for, opened_engine
from .declared_types import with_types
from .dsl_text import comment_text, identifier
from .profiles import SourceProfile, profile_source
from .proposals import source_statements
from .source_arguments import read_source_arguments
from .source_declarations import declaration

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
    with opened_engine(engine, remote) as active:
        profiles = [profile_source(with_types(spec, active), active) for spec in sources]
        text = _suite_text(profiles, arguments, output, base, now)
        # the suite must read back: a suggestion that does not validate is gryph's mistake, said here
        # (with the sources as profiled: a URL's password is not in the text)
        parsed = parse_suite(text, None if output is None else str(output), base)
        check_for(replace(parsed, sources={p.spec.name: p.spec for p in profiles}), active)
    return text


def _suite_text(
    profiles: list[SourceProfile], arguments: list[str], output: str | Path | None, base: Path, now: dt.datetime
) -> str:
    taken = {profile.spec.name for profile in profiles}
    name = identifier(Path(output).stem if output is not None else "suggested", set())
    what = comment_text(redact(", ".join(arguments)))
    lines = [HEADER.format(what=what, file=output or "suite.dq"), f"suite {name}"]
    for profile in profiles:
        rows, columns = profile.rows, len(profile.columns)
        counts = f"{rows} row{'' if rows == 1 else 's'}, {columns} column{'' if columns == 1 else 's'}"
        lines += ["", "", f"# ---- {profile.spec.name}: {counts}"]
        lines += declaration(profile.spec, base)
        lines += source_statements(profile, now, taken)
    lines += ["", "pass when all", ""]
    return "\n".join(lines)
