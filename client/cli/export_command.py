"""``gryph export odcs SUITE [-o contract.yaml]``: a native suite written as an ODCS v3.1.0 data contract."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gryph.compiler.contracts.contract_export import export_contract

from .exit_codes import EXIT_OK


def add_export_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("format", choices=["odcs"], help="what to write: odcs, an ODCS v3.1.0 data contract")
    command.add_argument("file", help="a native suite (.dq) of one file source")
    command.add_argument("-o", "--output", metavar="PATH", help="write the contract here instead of stdout")


def export_command(args: argparse.Namespace) -> int:
    text = export_contract(args.file)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK
