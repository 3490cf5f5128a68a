"""``gryph export odcs FILE [-o contract.yaml]``: a native suite, a Griffin job config or a contract
written as an ODCS v3.1.0 data contract."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..results.output_files import write_whole
from .exit_codes import EXIT_OK


def add_export_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("format", choices=["odcs"], help="what to write: odcs, an ODCS v3.1.0 data contract")
    command.add_argument("file", help="a native suite (.dq), a Griffin job config (.json) or a contract")
    command.add_argument("-o", "--output", metavar="PATH", help="write the contract here instead of stdout")


def export_command(args: argparse.Namespace) -> int:
    text = exported_contract(args.file)
    if args.output:
        write_whole(text, args.output)  # whole or not at all, as every output gryph writes
    else:
        sys.stdout.write(text)
    return EXIT_OK


def exported_contract(path: str) -> str:
    """The contract of a native suite, a contract, or a Griffin job config (``.json``: its suite text)."""
    from gryph.compiler.contracts.contract_export import export_contract, suite_contract  # YAML: this command only

    if Path(path).suffix == ".json":
        from gryph.compiler.griffin.suite_text import griffin_suite_text

        return suite_contract(griffin_suite_text(path), path)
    return export_contract(path)
