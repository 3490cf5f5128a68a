"""gryph local backend: runs plans on embedded DuckDB."""

from .engine import DuckDBEngine

__all__ = ["DuckDBEngine"]
