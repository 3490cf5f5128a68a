"""A third front end: an ODCS v3.1.0 data contract (YAML) read into a ``Suite``."""

from .contract_suite import is_contract, load_contract

__all__ = ["is_contract", "load_contract"]
