"""Whether a file is a data contract, told without loading the YAML and JSON Schema readers: every
run asks it of its suite file, and a contract's modules load only for a contract."""

from __future__ import annotations

from pathlib import Path

from ..support.text_files import read_utf8

_SUFFIXES = (".yaml", ".yml")


def is_contract(path: Path) -> bool:
    """A YAML file whose top level says ``kind: DataContract`` (ODCS), whatever it is named."""
    if path.suffix.lower() not in _SUFFIXES or not path.is_file():
        return False
    head = read_utf8(path)[:20000]
    return any(
        line.split("#")[0].strip() in ("kind: DataContract", 'kind: "DataContract"') for line in head.splitlines()
    )
