"""Spark's behaviour on DuckDB: users' Spark SQL, case mapping, text casts, datetime formats, CSV header names."""
