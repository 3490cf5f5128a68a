"""What the DuckDB engine does not run, declared (none of the catalogue today: every declared
gap of another engine runs here), read as the Spark engine's declaration is (compiler/engine.py)."""

from __future__ import annotations

from gryph.compiler.engine import Capabilities

CAPABILITIES = Capabilities("duckdb")
