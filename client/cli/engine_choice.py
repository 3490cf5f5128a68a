"""The engine a command runs on, from its options: a name (opened when first needed), DuckDB on
the user's database file or with its memory set, or Spark set up by Griffin's env.json."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gryph.compiler.contracts.contract_files import is_contract
from gryph.compiler.errors import EngineError, InvalidInput

from ..outputs.visible_text import for_terminal
from ..run.engines import open_engine, open_spark

if TYPE_CHECKING:  # Griffin's env.json reader loads only when --env names one
    from gryph.compiler.engine import Engine

    from ..griffin.env import GriffinEnv


def load_env(path: str | None) -> GriffinEnv | None:
    """Griffin's env.json named by --env, if any."""
    if path is None:
        return None
    from ..griffin.env import load_env as load

    return load(path)


def engine_for(args: argparse.Namespace, env: GriffinEnv | None) -> Engine | str:
    """The engine name, or an open engine: DuckDB on the user's database file, Spark set up by env.json."""
    name = args.engine or ("spark" if args.remote else "duckdb")
    _refuse_other_engines_options(args, name)
    settings = env.spark_config if env is not None else {}
    if settings and name != "spark":
        print(for_terminal(f"note: {args.env}: spark.config does not apply to the duckdb engine"), file=sys.stderr)
    if name == "spark" and (settings or args.read_per_scan):
        spark = open_spark(args.remote, read_once=not args.read_per_scan, settings=settings)
        if spark.refused_settings:
            refused = ", ".join(spark.refused_settings)
            print(
                for_terminal(f"note: {args.env}: not applied, set them on the Spark server: {refused}"), file=sys.stderr
            )
        return spark
    database = args.database if args.database is not None else _contract_database(args, name)
    if database is not None and not Path(database).is_file():
        raise EngineError("DATABASE_NOT_FOUND", f"no DuckDB database at {database}", text=database)
    if database is None and args.memory_limit is None and args.temp_directory is None:
        return name
    # the user's database is only read, unless the run writes its records or outputs into it (a
    # suite's own table: outputs reopen it writable before the scan: client/run/quarantine_database.py)
    writes = any((getattr(args, option, None) or "").startswith("table:") for option in ("records_to", "quarantine_to"))
    return open_engine(
        "duckdb",
        database=database,
        memory_limit=args.memory_limit,
        temp_directory=args.temp_directory,
        read_only=database is not None and not writes,
    )


def _contract_database(args: argparse.Namespace, name: str) -> str | None:
    """The DuckDB file a data contract's chosen server of type duckdb names (read by the duckdb engine only)."""
    file = getattr(args, "file", None)
    if file is None or not is_contract(Path(file)):
        return None
    from gryph.compiler.contracts.contract_suite import contract_database  # YAML: only for a contract

    database = contract_database(file, getattr(args, "server", None))
    if database is not None and name != "duckdb":
        raise InvalidInput(
            "BAD_OPTION",
            f"the contract's server is the DuckDB file {database}: the duckdb engine reads it",
            text=str(database),
            hint="drop --engine/--remote, or pick another server with --server",
        )
    return None if database is None else str(database)


def _refuse_other_engines_options(args: argparse.Namespace, name: str) -> None:
    """An option of one engine given with the other is refused, not ignored."""
    if args.database is not None and name != "duckdb":
        raise InvalidInput(
            "BAD_OPTION",
            "--database names a DuckDB file: it goes with the duckdb engine",
            text=args.database,
            hint="drop --database, or --engine/--remote",
        )
    for option, value in (("--memory-limit", args.memory_limit), ("--temp-directory", args.temp_directory)):
        if value is not None and name != "duckdb":
            raise InvalidInput(
                "BAD_OPTION",
                f"{option} sets how DuckDB uses memory: it goes with the duckdb engine",
                text=value,
                hint=f"drop {option}; a Spark cluster's memory is set on the cluster",
            )
    if args.read_per_scan and name != "spark":
        raise InvalidInput(
            "BAD_OPTION",
            "--read-per-scan is how the spark engine reads sources",
            text="--read-per-scan",
            hint="drop it, or add --engine spark/--remote",
        )
