"""Every option of the ``gryph`` command, declared once: a command takes the groups it needs, so
an option means, is named and is helped the same wherever it appears."""

from __future__ import annotations

import argparse
import weakref

from gryph.compiler.suites.suite_variables import parse_assignment

from ..run.engines import ENGINES
from ..store.history_file import DEFAULT_PATH

REPORT_RUNS = 30  # runs in a report's trends: the proposal's "previous 30 runs"

# the groups a command's --help shows its options in, in this order
GROUPS = {
    "engine": "where the rules run",
    "engine settings": "DuckDB's memory, Spark's session and reads",
    "outputs": "what the run writes beside its report on stdout",
    "history": "the runs kept for trends, anomaly checks and reports",
    "alerts": None,
    "data time": "the moment a run's data is about, and the suite's ${NAME} values",
    "verdict": None,
    "lineage": "OpenLineage run events (also configured by OPENLINEAGE_URL or OPENLINEAGE_CONFIG)",
}
_groups: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def group(command: argparse.ArgumentParser, title: str):
    """The argument group ``title`` of ``command`` (made the first time it is asked for)."""
    made = _groups.setdefault(command, {})
    if title not in made:
        made[title] = command.add_argument_group(title, GROUPS[title])
    return made[title]


def debug(command: argparse.ArgumentParser) -> None:
    """Every command's: a traceback instead of one line when gryph itself fails."""
    command.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")


def engine(command: argparse.ArgumentParser, what: str = "rules run") -> None:
    """Where the work runs: the engine, a Spark Connect server, a DuckDB file."""
    command = group(command, "engine")
    command.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help=f"where {what} (default: duckdb, or spark when --remote is given)",
    )
    command.add_argument(
        "--remote",
        help="Spark Connect URL sc://host:port/;token=... or 'local' (default: $SPARK_REMOTE with --engine spark)",
    )
    command.add_argument(
        "--database",
        metavar="PATH",
        help='a DuckDB database file whose tables table("...") sources and hive connectors read (duckdb engine)',
    )


def engine_tuning(command: argparse.ArgumentParser) -> None:
    """How the engine is set up for a suite's run: DuckDB's memory, Spark's settings and reads."""
    command = group(command, "engine settings")
    command.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="duckdb: the most memory DuckDB may take, e.g. 8GB; larger work spills to disk",
    )
    command.add_argument(
        "--temp-directory",
        metavar="PATH",
        help="duckdb: where work beyond --memory-limit spills (default: .tmp in the current folder)",
    )
    command.add_argument(
        "--env", metavar="PATH", help="a Griffin env.json: its spark.config settings go to the Spark session"
    )
    command.add_argument(
        "--read-per-scan",
        action="store_true",
        help="spark: read a source once per query that scans it, instead of once "
        "per run into the cluster's storage (for sources too large to keep)",
    )


def suite_file(command: argparse.ArgumentParser) -> None:
    """The suite a command reads, with the engine it runs on."""
    command.add_argument(
        "file", help="a native suite (.dq), a Griffin job config (.json) or an ODCS data contract (.yaml)"
    )
    command.add_argument("--server", metavar="NAME", help="a data contract's server to read (default: its first)")
    engine(command)
    engine_tuning(command)


def output_format(command: argparse.ArgumentParser) -> None:
    group(command, "outputs").add_argument(
        "--format", choices=("text", "json"), default="text", help="the report on stdout: a table, or one JSON document"
    )


def history(command: argparse.ArgumentParser, default: str | None = str(DEFAULT_PATH), what: str = "") -> None:
    shown = f" (default {DEFAULT_PATH})" if default is not None else ""
    group(command, "history").add_argument(
        "--history", metavar="PATH", default=default, help=f"the run history, an embedded DuckDB file{what}{shown}"
    )


def variables(command: argparse.ArgumentParser, each_data_time: bool = False) -> None:
    extra = "; {data_time} in VALUE is each run's data time" if each_data_time else ""
    group(command, "data time").add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"a value for ${{NAME}} in the suite{extra} (repeatable)",
    )


def assigned(assignments: list[str]) -> dict[str, str]:
    """The values ``--var NAME=VALUE`` gave, by name (a malformed one is ``BAD_VAR``)."""
    values: dict[str, str] = {}
    for text in assignments:
        name, value = parse_assignment(text)
        values[name] = value
    return values


def data_time(command: argparse.ArgumentParser) -> None:
    group(command, "data time").add_argument(
        "--data-time",
        metavar="TIME",
        help="the moment the data is about (2026-11-24): keys the run in the history; a rerun replaces it",
    )


def sample(command: argparse.ArgumentParser) -> None:
    group(command, "outputs").add_argument(
        "--sample", type=int, default=20, metavar="N", help="rows kept per record output (0: none)"
    )


def gate_files(command: argparse.ArgumentParser, each: str = "") -> None:
    """The CI outputs: JUnit XML and a Markdown summary (of ``each`` batch, for a stream)."""
    command = group(command, "outputs")
    command.add_argument("--junit", metavar="PATH", help=f"write JUnit XML{each}, one testcase per check")
    command.add_argument("--markdown", metavar="PATH", help=f"write a Markdown summary{each} (for a CI job page)")


def report_files(command: argparse.ArgumentParser, what: str, names: tuple[str, ...] = ("--html",)) -> None:
    """The HTML report and its charts as image files."""
    command = group(command, "outputs")
    command.add_argument(
        *names,
        dest="html",
        metavar="PATH",
        help=f"write an HTML report of {what}, with charts and trends (one offline file)",
    )
    command.add_argument("--png", metavar="DIR", help="write each chart of the report as a PNG file here")
    command.add_argument("--svg", metavar="DIR", help="write each chart of the report as an SVG file here")


def strict(command: argparse.ArgumentParser, with_checks: bool = True) -> None:
    checks = "a failed warning check fails the run (exit 1); " if with_checks else ""
    group(command, "verdict").add_argument(
        "--strict", action="store_true", help=f"{checks}a Griffin config key Griffin does not know is an error"
    )


def notify(command: argparse.ArgumentParser) -> None:
    """``--notify URL`` (repeatable), on every command that runs a suite."""
    group(command, "alerts").add_argument(
        "--notify",
        action="append",
        default=[],
        metavar="URL",
        help="alert here when the verdict changes: http(s)://..., slack:https://..., teams:https://..., "
        "smtp://host:port/?from=...&to=... (STARTTLS), smtps://... or smtp+insecure://... "
        "(repeatable; beside the suite's notify statements)",
    )


def positive(text: str) -> int:
    """A whole number, at least 1 (an option's type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, at least 1, got {text!r}")
    return int(text)


def lineage(command: argparse.ArgumentParser) -> None:
    """``--openlineage URL|FILE`` and its namespace, on every command that runs a suite."""
    command = group(command, "lineage")
    command.add_argument(
        "--openlineage",
        metavar="URL|FILE",
        help="send the run's START and COMPLETE/FAIL events to an OpenLineage collector (http(s)://host:port, "
        "e.g. Marquez) or append them to a file, one JSON line each",
    )
    command.add_argument(
        "--openlineage-namespace",
        metavar="NAME",
        help="the namespace of the suite's job (default: $OPENLINEAGE_NAMESPACE, else gryph)",
    )


def quarantine_to(command: argparse.ArgumentParser) -> None:
    group(command, "outputs").add_argument(
        "--quarantine-to",
        metavar="DIR",
        help="write each source's rows that fail a completeness, validity, accuracy or uniqueness rule (or a "
        "contract's row-level clause), with their errors, to DIR/SOURCE/quarantine/ and the others to "
        "DIR/SOURCE/valid/, one folder per data time (a rerun replaces it; a stream: one per batch); "
        "table:PREFIX: tables PREFIX+SOURCE__quarantine and PREFIX+SOURCE__valid of the --database DuckDB file",
    )
