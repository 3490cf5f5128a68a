"""DuckDB settings changed for a block of work and restored after it."""

from __future__ import annotations

import contextlib

import duckdb

from ..sql.quoting import string


def current_setting(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """A setting's value as text, whether the user set it or DuckDB's default holds."""
    return str(con.execute("SELECT current_setting(?)", [name]).fetchall()[0][0])


@contextlib.contextmanager
def setting(con: duckdb.DuckDBPyConnection, name: str, value: str):
    """``SET name = value`` for the block; the value before is back afterwards (also on errors)."""
    before = current_setting(con, name)
    if value == before:
        yield
        return
    con.execute(f"SET {name} = {string(value)}")
    try:
        yield
    finally:
        con.execute(f"SET {name} = {string(before)}")
