"""``gryph export odcs FILE [-o contract.yaml]``: a native suite, a Griffin job config or a contract
written as an ODCS v3.1.0 data contract."""

from __future__ import annotations

import argparse
import sys

from ..results.output_files import write_whole
from .exit_codes import EXIT_OK


def add_export_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("format", choices=["odcs"], help="what to write: odcs, an ODCS v3.1.0 data contract")
    command.add_argument("file", help="a native suite (.dq), a Griffin job config (.json) or a contract")
    command.add_argument("-o", "--output", metavar="PATH", help="write the contract here instead of stdout")


def export_command(args: argparse.Namespace) -> int:
    from gryph.compiler.contracts.contract_export import export_contract  # YAML loads for this command only

    text = export_contract(args.file)
    if args.output:
        write_whole(text, args.output)  # whole or not at all, as every output gryph writes
    else:
        sys.stdout.write(text)
    return EXIT_OK
