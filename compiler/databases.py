"""Database sources (PostgreSQL, SQLite): where they are, who logs in, what they read.

Both engines connect from this one description: DuckDB through ADBC on the client, Spark
through JDBC on the cluster. Credentials come from the URL or from environment variables the
suite names (``user_env``, ``password_env``); they are resolved only when a connection is made,
and registered with url_secrets then, so no message, report or history row ever shows them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from .errors import InvalidInput
from .sources import DATABASE_FORMATS, SourceSpec
from .table_names import split_qualified
from .types import BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIMESTAMP, DataType, decimal
from .url_secrets import redact, register_secret

# every option a database source takes; anything else is a mistake worth naming
DATABASE_OPTIONS = ("table", "query", "user_env", "password_env", "partition_column", "num_partitions")
_SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class Database:
    """A resolved connection: the URL drivers get (credentials included) and the secrets to hide."""

    kind: str  # postgres | sqlite
    url: str = field(repr=False)  # postgresql://user:password@host:port/db, or the SQLite file's path
    user: str | None
    password: str | None = field(repr=False)

    def adbc_uri(self) -> str:
        return self.url if self.kind == "postgres" else f"file:{self.url}?mode=ro"

    def jdbc_url(self) -> str:
        """The JDBC URL, without credentials (they go to the driver as properties)."""
        if self.kind == "sqlite":
            return f"jdbc:sqlite:{self.url}"
        parts = urlsplit(self.url)
        host = parts.hostname or "localhost"
        host = f"[{host}]" if ":" in host else host
        port = f":{parts.port}" if parts.port else ""
        query = f"?{parts.query}" if parts.query else ""
        return f"jdbc:postgresql://{host}{port}{parts.path or '/'}{query}"

    def jdbc_driver(self) -> str:
        return "org.postgresql.Driver" if self.kind == "postgres" else "org.sqlite.JDBC"


def is_database(spec: SourceSpec) -> bool:
    return spec.format in DATABASE_FORMATS


def check_database_source(spec: SourceSpec) -> None:
    """Refuse, at parse time, a database source that could never connect or read."""
    where = spec.location
    table, query = spec.option("table"), spec.option("query")
    if (table is None) == (query is None):
        raise InvalidInput(
            "BAD_SOURCE",
            f'source {spec.name!r}: {spec.format}(...) takes exactly one of table = "..." and query = "..."',
            location=where,
            text=spec.describe(),
        )
    if table is not None:
        split_qualified(str(table))
    for key, _ in spec.options:
        if key not in DATABASE_OPTIONS:
            raise InvalidInput(
                "BAD_SOURCE",
                f"source {spec.name!r}: {spec.format}(...) has no option {key!r}",
                location=where,
                text=key,
                hint="options: " + ", ".join(DATABASE_OPTIONS),
            )
    if spec.format == "postgres":
        _check_url(spec)
    partitions = spec.option("num_partitions")
    if partitions is not None and (not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1):
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {spec.name!r}: num_partitions must be a whole number >= 1",
            location=where,
            text=str(partitions),
        )
    if (partitions is None) != (spec.option("partition_column") is None) and partitions != 1:
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {spec.name!r}: partition_column and num_partitions go together",
            location=where,
            text=spec.describe(),
        )


def _check_url(spec: SourceSpec) -> None:
    """A PostgreSQL URL that names its host and port plainly: a ``/``, ``?`` or ``#`` left
    unencoded in the user or password would cut the URL in the wrong place (and show a part of
    the password as the host or port)."""
    url = spec.paths[0]
    scheme, _, rest = url.partition("://")
    problem, hint = None, 'postgres("postgresql://user@host:5432/db", ...)'
    if scheme not in _SCHEMES or not rest:
        problem = "a PostgreSQL URL starts with postgresql://"
    elif "@" not in re.split(r"[/?#]", rest)[0] and re.search(r"[/?#][^@]*@", rest):
        problem = "the URL's user or password holds a '/', '?' or '#' that is not percent-encoded"
        hint = "percent-encode them: / as %2F, ? as %3F, # as %23 (or give the password with password_env)"
    else:
        try:
            urlsplit(url).port
        except ValueError:
            problem = "the URL's host or port cannot be read (a port is a number from 0 to 65535)"
    if problem is not None:
        raise InvalidInput(
            "BAD_SOURCE", f"source {spec.name!r}: {problem}", location=spec.location, text=redact(url), hint=hint
        )


def resolve(spec: SourceSpec) -> Database:
    """The connection of a database source, credentials read from the environment now."""
    if spec.format == "sqlite":
        return Database("sqlite", spec.paths[0], None, None)
    parts = urlsplit(spec.paths[0])
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    user = _from_env(spec, "user_env") or user
    password = _from_env(spec, "password_env") or password
    register_secret(password)  # a driver's message may quote it bare, without its URL
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    login = (
        quote(user, safe="") + (f":{quote(password, safe='')}" if password is not None else "") + "@"
        if user is not None
        else ""
    )
    netloc = login + host + (f":{parts.port}" if parts.port else "")
    return Database("postgres", urlunsplit(parts._replace(scheme="postgresql", netloc=netloc)), user, password)


def _from_env(spec: SourceSpec, key: str) -> str | None:
    variable = spec.option(key)
    if variable is None:
        return None
    value = os.environ.get(str(variable))
    if value is None:
        raise InvalidInput(
            "MISSING_CREDENTIAL",
            f"source {spec.name!r}: the environment variable {variable!r} ({key}) is not set",
            location=spec.location,
            text=str(variable),
            hint=f"export {variable}=... before the run",
        )
    register_secret(value)
    return value


def from_clause(spec: SourceSpec) -> str:
    """What a ``SELECT ... FROM`` reads in the database: the quoted table, or the query as a subquery."""
    table = spec.option("table")
    if table is not None:
        return ".".join('"' + part.replace('"', '""') + '"' for part in split_qualified(str(table)))
    return f"({query_text(spec)}) AS gryph_query"


def query_text(spec: SourceSpec) -> str:
    """The source's query as written, less a final semicolon (it is run inside a larger statement)."""
    return str(spec.option("query")).strip().rstrip(";").rstrip()


def sqlite_columns_sql(spec: SourceSpec) -> tuple[str, tuple[str, ...]]:
    """SQL (with ``?`` parameters) listing a SQLite table's columns and declared types, in order."""
    parts = split_qualified(str(spec.option("table")))
    if len(parts) == 1:
        return "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", (parts[0],)
    return "SELECT name, type FROM pragma_table_info(?, ?) ORDER BY cid", (parts[-1], parts[-2])


def sqlite_type(declared: str) -> DataType:
    """The type of a SQLite column from its declared type, by SQLite's affinity rules (its
    section 3.1 of "Datatypes In SQLite"), with the names drivers give a meaning of their own
    (boolean, date, datetime, timestamp, decimal) read as those types. Both engines read a
    SQLite table in these types, whatever each driver would guess from the values."""
    text = declared.upper()
    match = re.search(r"(DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", text)
    if match:
        return decimal(min(int(match.group(2)), 38), min(int(match.group(3) or 0), 38))
    for words, dtype in _SQLITE_AFFINITIES:
        if any(word in text for word in words):
            return dtype
    return STRING  # no declared type, or BLOB: values are read as their text


_SQLITE_AFFINITIES = (
    (("BOOL",), BOOLEAN),
    (("INT",), INTEGER),
    (("CHAR", "CLOB", "TEXT"), STRING),
    (("REAL", "FLOA", "DOUB"), DOUBLE),
    (("DATETIME", "TIMESTAMP"), TIMESTAMP),
    (("DATE",), DATE),
    (("DECIMAL", "NUMERIC"), decimal(38, 18)),
)


# words of the drivers' messages (PostgreSQL, SQLite, their JDBC drivers) for a request the
# database understood and refused
_REFUSED_WORDS = ("does not exist", "no such table", "no such column", "syntax error")


def refused_by_database(spec: SourceSpec, message: str, sqlstate: str = "") -> InvalidInput | None:
    """The suite's mistake (exit 2) when the database understood the request and refused it: no
    such table or column, a query it cannot run (SQLSTATE class 42, or the drivers' words for
    it); None for other failures (a server out of reach, a refused login), which fail the run."""
    if not (sqlstate.startswith("42") or any(word in message.lower() for word in _REFUSED_WORDS)):
        return None
    return InvalidInput(
        "TABLE_NOT_FOUND",
        f"source {spec.name!r} ({spec.describe()}): the database refuses what it reads: {message}",
        location=spec.location,
        text=spec.describe(),
        hint="check the table or query and its column names in the database",
    )
