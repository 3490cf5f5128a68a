"""``gryph validate SUITE`` (names and types, no data scanned) and ``gryph explain SUITE`` (the plan)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .. import validate
from ..outputs.visible_text import for_terminal, for_terminal_lines
from ..run import runner
from . import options
from .exit_codes import EXIT_OK

if TYPE_CHECKING:
    from gryph.compiler.engine import Engine


def add_validate_options(command: argparse.ArgumentParser) -> None:
    options.suite_file(command)
    options.strict(command, with_checks=False)


def validate_command(args: argparse.Namespace, engine: Engine | str) -> int:
    suite = validate(runner.suite_argument(args.file, args.server), engine, remote=args.remote).suite
    print(
        for_terminal(
            f"{args.file}: ok ({len(suite.rules)} rules, {len(suite.measures)} measures, "
            f"{len(suite.checks)} checks, {len(suite.sources)} sources; pass when {suite.policy})"
        )
    )
    return EXIT_OK


def explain_command(args: argparse.Namespace, engine: Engine | str) -> int:
    sys.stdout.write(
        for_terminal_lines(runner.explain(runner.suite_argument(args.file, args.server), engine, remote=args.remote))
    )
    return EXIT_OK
