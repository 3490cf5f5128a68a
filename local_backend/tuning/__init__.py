"""Running a plan fast on DuckDB: one statement per run, perfect hashing, located rows, settings."""
