"""A contract checked against the ODCS v3.1.0 JSON Schema, its errors located in the YAML."""

from __future__ import annotations

import functools
import json
from importlib import resources

import jsonschema

from ..errors import InvalidInput, InvalidInputs, did_you_mean
from .yaml_document import YamlDocument

SCHEMA_FILE = "odcs-json-schema-v3.1.0.json"  # Bitol's, unchanged (schema/NOTICE)


@functools.lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    text = resources.files(__package__).joinpath("schema").joinpath(SCHEMA_FILE).read_text("utf-8")
    schema = json.loads(text)
    return jsonschema.Draft201909Validator(schema)


def validate_contract(document: YamlDocument) -> None:
    """Every way the contract breaks the ODCS schema, each at its line and column, reported together."""
    errors = sorted(
        _validator().iter_errors(document.data), key=lambda e: document.location(tuple(e.absolute_path)).line or 0
    )
    located = [_located(document, error) for error in errors]
    if len(located) == 1:
        raise located[0]
    if located:
        raise InvalidInputs(located)


def _located(document: YamlDocument, error: jsonschema.ValidationError) -> InvalidInput:
    """The deepest reason of ``error`` at the key it is about, with the nearest allowed key as a hint."""
    error = jsonschema.exceptions.best_match([error])
    path = tuple(error.absolute_path)
    where = ".".join(str(part) for part in path) or "the contract"
    hint = None
    if error.validator == "additionalProperties" or error.validator == "unevaluatedProperties":
        extra = _unexpected_key(error)
        if extra is not None:
            allowed = tuple((error.schema or {}).get("properties", {}))
            hint = did_you_mean(extra, allowed)
            return InvalidInput(
                "CONTRACT_INVALID",
                f"{where}: unknown key {extra!r}",
                location=document.key_location((*path, extra)),
                text=extra,
                hint=hint,
            )
    if error.validator == "required":
        hint = f"add the key under {where}"
    return InvalidInput(
        "CONTRACT_INVALID",
        f"{where}: {error.message}",
        location=document.key_location(path) if path else document.location(path),
        hint=hint,
    )


def _unexpected_key(error: jsonschema.ValidationError) -> str | None:
    """The first key the schema does not allow, read from the instance (messages vary by validator)."""
    if not isinstance(error.instance, dict):
        return None
    allowed = (error.schema or {}).get("properties", {})
    return next((key for key in error.instance if key not in allowed), None)
