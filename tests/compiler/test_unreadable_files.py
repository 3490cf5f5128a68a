"""Which file source a file an engine could not read belongs to (both engines ask this)."""

from __future__ import annotations

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.unreadable_files import source_of_file, unreadable_source

ORDERS = SourceSpec("orders", "parquet", paths=("/data/orders/*.parquet",))
USERS = SourceSpec("users", "csv", paths=("/data/users.csv",))
LANDED = SourceSpec("landed", "json", paths=("/data/incoming",))
TABLE = SourceSpec("t", "table", table="main.t")
ALL = (TABLE, ORDERS, USERS, LANDED)


def test_a_file_belongs_to_the_source_whose_path_glob_or_folder_names_it():
    assert source_of_file(ALL, "/data/users.csv") is USERS
    assert source_of_file(ALL, "/data/orders/b.parquet") is ORDERS  # the glob
    assert source_of_file(ALL, "/data/incoming/2026/x.json") is LANDED  # under the folder
    assert source_of_file(ALL, "file:///data/orders/b%20c.parquet") is ORDERS  # Spark's URL, decoded


def test_a_file_no_source_names_belongs_to_none():
    assert source_of_file(ALL, "/data/incoming-old/x.json") is None  # a folder's name is no prefix
    assert source_of_file(ALL, "/data/orders/b.csv") is None
    assert source_of_file(ALL, "main.t") is None  # a table is no file


def test_the_error_names_the_source_and_why():
    error = unreadable_source(USERS, "line 3 is broken", hint="fix it")
    assert (error.code, error.exit_code, error.hint) == ("SOURCE_UNREADABLE", 3, "fix it")
    assert error.message == "source 'users' (csv(\"/data/users.csv\")) cannot be read: line 3 is broken"
