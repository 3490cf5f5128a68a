"""Tests of gryph.local_backend, the DuckDB engine."""
