"""Result documents built by hand for the history's tests, read as gryph reads a run's."""

from __future__ import annotations

from gryph.client.results.document import FORMAT_VERSION, ResultDocument, read_document


def result_document(name: str, measure: dict, passed: bool = True, **parts: object) -> ResultDocument:
    """A run's document of suite ``name`` with these measure values and verdict, the parts not
    given as an empty run has them."""
    document = {
        "format_version": FORMAT_VERSION,
        "name": name,
        "engine": "duckdb",
        "started": "2026-11-18T12:00:00",
        "duration_seconds": 0.1,
        "metrics": {},
        "records": {},
        "measure": measure,
        "pass": passed,
        "policy": "always",
        **parts,
    }
    return read_document(document)
