"""Sources on DuckDB: files as views (CSV types as Spark infers them), databases, type mapping."""
