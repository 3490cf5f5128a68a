"""A suite's ``quarantine SOURCE to "PATH"`` and ``valid SOURCE to "PATH"`` statements, checked:
the source is declared and a row-level rule reads it, the folder lies inside the suite's folder,
and each output is named once. A table output (``iceberg(...)``, ``postgres(...)``)
is described as a source of its kind, so its name, catalog and credentials are read as a source's;
``"table:[schema.]name"`` is a table of the ``--database`` DuckDB file, a ``table`` source's."""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidInput, did_you_mean
from ..language.ruletree.statements import OutputDecl
from ..rule_kinds import RuleKind
from ..source_kinds import SourceKindSpec, source_kind
from ..sources.databases import check_database_source
from ..sources.source_specs import SourceSpec
from ..sources.table_names import split_qualified
from .suite import Suite

DATABASE_TABLE = "table:"  # a target in the --database DuckDB file: table:[schema.]name

# the rule kinds whose failures are rows of their source (compiler/lowering/row_failures.py)
ROW_KINDS = (RuleKind.COMPLETENESS, RuleKind.VALIDITY, RuleKind.ACCURACY, RuleKind.UNIQUENESS)


def row_level_sources(suite: Suite) -> list[str]:
    """The sources whose rows a row-level rule or a contract's row-level clause judges, in name
    order (uniqueness against another target judges values, not rows)."""
    return sorted(
        {
            rule.source
            for rule in suite.rules
            if rule.source and rule.kind in ROW_KINDS and not (rule.kind == RuleKind.UNIQUENESS and rule.target)
        }
        | {clause.source for clause in suite.row_clauses}
    )


def split_output(
    statement: OutputDecl, suite: Suite, base: Path, known_sources: tuple[str, ...], earlier: set[tuple[str, str]]
) -> tuple[str, str]:
    """The folder of one output statement, as a path from the current folder, and its format.
    ``earlier`` holds the (source, output) of the statements before it, those found wrong too: a
    mistake in one is not reported again as a missing or second statement in the next."""
    source, kind = statement.source, statement.kind
    if source not in suite.sources and source not in known_sources:
        raise InvalidInput(
            "UNKNOWN_SOURCE",
            f"{kind} {source!r} names an unknown source",
            location=statement.location,
            text=source,
            hint=did_you_mean(source, list(suite.sources)) or 'declare it first: source NAME = csv("path")',
        )
    problem = None
    if (source, kind) in earlier:
        problem = f"is the second {kind} folder of source {source!r}"
    elif source not in row_level_sources(suite):
        problem = f"holds rows of source {source!r}, which no completeness, validity, accuracy or uniqueness rule reads"
    elif kind == "valid" and (source, "quarantine") not in earlier:
        problem = f"comes before a 'quarantine {source} to ...' statement"
    elif kind == "valid" and _mixes_database(statement, suite):
        problem = "must be a table: of the --database file as its quarantine is, or neither (they commit together)"
    elif in_database(statement):
        if database_table_parts(statement.path[len(DATABASE_TABLE) :]) is None:
            problem = "is not a table name of the form table:[schema.]name"
    elif _is_folder(statement) and (Path(statement.path).is_absolute() or not _inside(base / statement.path, base)):
        problem = "is outside the suite's folder"
    if problem is not None:
        raise InvalidInput(
            "QUARANTINE_TARGET",
            f"{kind} folder {statement.path!r} {problem}",
            location=statement.location,
            text=statement.path,
            hint=f'write: quarantine {source} to "out/{source}_bad" (a folder under the suite\'s), then valid ...',
        )
    if not _is_folder(statement):
        return statement.path, statement.format
    if in_database(statement):
        return statement.path, "table"
    return str(base / statement.path), statement.format


def in_database(statement: OutputDecl) -> bool:
    """A ``"table:[schema.]name"`` target: a table of the ``--database`` DuckDB file."""
    return statement.format == "parquet" and statement.path.startswith(DATABASE_TABLE)


def database_table_parts(name: str) -> list[str] | None:
    """The parts of a ``[schema.]name`` table (a part may be double-quoted), or None when it is no such name."""
    try:
        parts = split_qualified(name)
    except InvalidInput:
        return None
    return parts if len(parts) <= 2 else None


def _mixes_database(statement: OutputDecl, suite: Suite) -> bool:
    """A valid output in the DuckDB file beside a quarantine elsewhere, or the other way round."""
    quarantine = suite.outputs.get((statement.source, "quarantine"))
    return quarantine is not None and (quarantine[1] == "table") != in_database(statement)


def output_table(statement: OutputDecl) -> SourceSpec | None:
    """A table output as a source of its kind (checked as one; a ``table:`` one a ``table``
    source of the DuckDB file), or None for a folder."""
    kind = source_kind(statement.format)
    odd = next((key for key, _ in statement.options if not _output_option(kind, key)), None)
    if odd is not None:
        _refuse(statement, f"has no option {odd!r}", 'iceberg("lake.dq.bad_orders", catalog.uri = "sqlite:///...")')
    name = f"{statement.kind} of {statement.source}"
    if in_database(statement):
        return SourceSpec(name, "table", table=statement.path[len(DATABASE_TABLE) :], location=statement.location)
    if _is_folder(statement):
        return None
    form = statement.format
    spec = SourceSpec(name, form, paths=(statement.path,), options=statement.options, location=statement.location)
    if kind.family == "database":
        if spec.option("query") is not None:
            _refuse(statement, "is a query: an output is a table", 'postgres("URL", table = "dq.bad_orders")')
        check_database_source(spec)
    elif len(statement.path.split(".")) < 3:
        _refuse(statement, "is not a catalog's table", 'iceberg("lake.dq.bad_orders", catalog.uri = "sqlite:///...")')
    return spec


def _is_folder(statement: OutputDecl) -> bool:
    """A parquet or Delta output: the files of a folder (an Iceberg or database one is a table)."""
    return source_kind(statement.format).paths_are == "files"


def _output_option(kind: SourceKindSpec, key: str) -> bool:
    """An option an output of ``kind`` takes: a database's (its table, its credentials) or a
    catalog's property; what a source is read by (a version, a snapshot) is no output's."""
    return kind.family == "database" or (bool(kind.option_prefix) and key.startswith(kind.option_prefix))


def _refuse(statement: OutputDecl, problem: str, example: str) -> None:
    raise InvalidInput(
        "QUARANTINE_TARGET",
        f"{statement.kind} table {statement.path!r} {problem}",
        location=statement.location,
        text=statement.path,
        hint=f"write: {statement.kind} {statement.source} to {example}",
    )


def _inside(path: Path, base: Path) -> bool:
    return path.resolve().is_relative_to(base.resolve())
