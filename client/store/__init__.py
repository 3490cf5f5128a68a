"""gryph's own DuckDB files: the run history and a stream's state, every value read back checked."""
