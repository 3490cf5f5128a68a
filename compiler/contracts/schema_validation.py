"""A contract checked against the ODCS v3.1.0 JSON Schema, its errors located in the YAML."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

import jsonschema

from ..errors import InvalidInput, InvalidInputs, did_you_mean
from .yaml_document import YamlDocument, show_path

SCHEMA_FILE = "odcs-json-schema-v3.1.0.json"  # Bitol's, unchanged (schema/NOTICE)


@functools.lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    text = resources.files(__package__).joinpath("schema").joinpath(SCHEMA_FILE).read_text("utf-8")
    schema = json.loads(text)
    return jsonschema.Draft201909Validator(schema)


def validate_contract(document: YamlDocument) -> None:
    """Every way the contract breaks the ODCS schema, each at its line and column, reported together."""
    found: dict[tuple[str, str], InvalidInput] = {}
    for error in _validator().iter_errors(document.data):
        located = _located(document, error)
        found.setdefault((located.message, str(located.location)), located)
    errors = sorted(found.values(), key=lambda e: (e.location.line or 0, e.location.column or 0))
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InvalidInputs(errors)


def _located(document: YamlDocument, error: jsonschema.ValidationError) -> InvalidInput:
    """The deepest reason of ``error`` at the key it is about, with the nearest ODCS key as a hint."""
    error = jsonschema.exceptions.best_match([error])
    path = tuple(error.absolute_path)
    where = show_path(path) or "the contract"
    unexpected = _UNEXPECTED.search(error.message) if error.validator in _CLOSED else None
    if unexpected is not None:
        extra = unexpected.group(1)
        return InvalidInput(
            "CONTRACT_INVALID",
            f"{where}: unknown key {extra!r}",
            location=document.key_location((*path, extra)),
            text=extra,
            hint=None if extra in _known_keys() else did_you_mean(extra, _known_keys()),
        )
    return InvalidInput(
        "CONTRACT_INVALID",
        f"{where}: {error.message}",
        location=document.key_location(path),
        hint=f"add the key under {where}" if error.validator == "required" else None,
    )


_CLOSED = ("additionalProperties", "unevaluatedProperties")
_UNEXPECTED = re.compile(r"'([^']+)' (?:was|were) unexpected")


@functools.lru_cache(maxsize=1)
def _known_keys() -> frozenset[str]:
    """Every key the ODCS schema names anywhere: what a misspelt key is compared with."""
    keys: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            keys.update(node.get("properties", {}) if isinstance(node.get("properties"), dict) else ())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(_validator().schema)
    return frozenset(keys)
