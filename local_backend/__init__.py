"""gryph local backend: runs plans on embedded DuckDB."""
