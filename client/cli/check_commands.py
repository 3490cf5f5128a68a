"""``gryph validate SUITE`` (names and types, no data scanned) and ``gryph explain SUITE`` (the plan)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .. import validate
from ..outputs.readable_values import counted
from ..outputs.visible_text import for_terminal, for_terminal_lines
from ..run import runner
from . import options
from .exit_codes import EXIT_OK

if TYPE_CHECKING:
    from gryph.compiler.engine import Engine


def add_validate_options(command: argparse.ArgumentParser) -> None:
    options.suite_file(command)
    options.strict(command, with_checks=False)
    options.variables(command)


def add_explain_options(command: argparse.ArgumentParser) -> None:
    options.suite_file(command)
    options.variables(command)


def validate_command(args: argparse.Namespace, engine: Engine | str) -> int:
    variables = options.assigned(args.var)
    suite = validate(args.file, engine, remote=args.remote, variables=variables, server=args.server).suite
    print(
        for_terminal(
            f"{args.file}: ok ({counted(len(suite.rules), 'rule')}, {counted(len(suite.measures), 'measure')}, "
            f"{counted(len(suite.checks), 'check')}, {counted(len(suite.sources), 'source')}; pass when {suite.policy})"
        )
    )
    return EXIT_OK


def explain_command(args: argparse.Namespace, engine: Engine | str) -> int:
    variables = options.assigned(args.var)
    explained = runner.explain(args.file, engine, remote=args.remote, variables=variables, server=args.server)
    sys.stdout.write(for_terminal_lines(explained))
    return EXIT_OK
