"""Database sources (PostgreSQL, MySQL/MariaDB, SQLite): where they are, who logs in, what they read.

Both engines connect from this one description: DuckDB through ADBC (connectorx for MySQL) on
the client, Spark through JDBC on the cluster. Credentials come from the URL or from environment variables the
suite names (``user_env``, ``password_env``); they are resolved only when a connection is made,
and registered with the redaction point (``redaction``) then, so no message, report or history row ever shows them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from ..errors import EngineError, InvalidInput, with_article
from ..language.time_literals import duration_ms
from ..plan.data_types import BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIMESTAMP, DataType, decimal
from ..redaction import redact, register_secret
from ..source_kinds import source_kind
from .source_specs import SourceSpec, check_option_names
from .table_names import split_qualified

# every option a database source takes (source_kinds.py); anything else is a mistake worth naming
# how a source connects: a native measure's hidden source connects the same way
CONNECTION_OPTIONS = ("user_env", "password_env", "connect_timeout", "statement_timeout")
# a server that accepts the connection and never answers fails the run after this long
DEFAULT_CONNECT_TIMEOUT_MS = 10_000
# a native measure's statement (the user's own SQL: a pg_sleep or SLEEP would hold the run) ends
# after this long unless its source sets statement_timeout; a table's scan may take its time
NATIVE_STATEMENT_TIMEOUT = "5m"
# the option of a native measure's hidden source that names its measure (errors name it)
NATIVE_MEASURE = "measure"
_MYSQL_READ_ONLY = "SET SESSION TRANSACTION READ ONLY"
_EXAMPLE_URLS = {"postgres": "postgresql://user@host:5432/db", "mysql": "mysql://user@host:3306/db"}
_JDBC = {
    "postgres": ("postgresql", "org.postgresql.Driver"),
    # Debian's MariaDB driver (libmariadb-java) reads MySQL too; jdbc:mysql picks Spark's MySQL dialect
    "mysql": ("mysql", "org.mariadb.jdbc.Driver"),
    "sqlite": ("sqlite", "org.sqlite.JDBC"),
}
# how a name is quoted in each database's SQL: MySQL's backticks (its double quotes are strings
# unless the server runs in ANSI_QUOTES mode), the standard's double quotes elsewhere
_NAME_QUOTE = {"postgres": '"', "mysql": "`", "sqlite": '"'}


@dataclass(frozen=True)
class Database:
    """A resolved connection: the URL drivers get (credentials included) and the secrets to hide."""

    kind: str  # postgres | mysql | sqlite
    url: str = field(repr=False)  # postgresql:// or mysql://user:password@host:port/db, or the SQLite file's path
    user: str | None
    password: str | None = field(repr=False)
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS
    statement_timeout_ms: int | None = None  # None: a statement may take as long as it takes

    def session_settings(self) -> str:
        """PostgreSQL's ``options`` for every session gryph opens: nothing it runs can write, a
        backslash in a '...' string is itself (the reading ``--var`` values are placed for), and
        a statement ends after the source's statement timeout."""
        settings = "-c default_transaction_read_only=on -c standard_conforming_strings=on"
        if self.statement_timeout_ms is not None:
            settings += f" -c statement_timeout={self.statement_timeout_ms}"
        return settings

    @property
    def networked(self) -> bool:
        """Reached over the network (PostgreSQL, MySQL), not a file (SQLite)."""
        return source_kind(self.kind).networked

    def adbc_uri(self) -> str:
        """The libpq URI (read-only sessions, the connect timeout added to the URL's own options),
        or SQLite's file opened read-only."""
        if not self.networked:
            return f"file:{self.url}?mode=ro"
        parts = urlsplit(self.url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        own = " ".join(value for key, value in query if key == "options")
        query = [(key, value) for key, value in query if key not in ("options", "connect_timeout")]
        options = f"{own} {self.session_settings()}".strip()
        query += [("connect_timeout", str(self.connect_timeout_s())), ("options", options)]
        return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))

    def connect_timeout_s(self) -> int:
        """The connect timeout in whole seconds, as libpq and the JDBC driver take it."""
        return max(1, math.ceil(self.connect_timeout_ms / 1000))

    def mysql_uri(self) -> str:
        """The URL connectorx reads MySQL through: the connect timeout added to the URL's options."""
        parts = urlsplit(self.url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "tcp_connect_timeout_ms"]
        query.append(("tcp_connect_timeout_ms", str(self.connect_timeout_ms)))
        return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))

    def mysql_session(self) -> tuple[str, ...]:
        """The statements every MySQL session gryph opens runs first: nothing it runs can write,
        and a statement ends after the source's statement timeout (MariaDB's max_statement_time)."""
        statements: tuple[str, ...] = (_MYSQL_READ_ONLY,)
        if self.statement_timeout_ms is not None:
            statements += (f"SET SESSION max_statement_time = {self.statement_timeout_ms / 1000}",)
        return statements

    def jdbc_properties(self) -> dict[str, str]:
        """The driver's properties for the same guards: SQLite opened read-only; PostgreSQL's and
        MySQL's read-only sessions, statement timeout, and timeouts on connecting and logging in."""
        if not self.networked:
            return {"open_mode": "1"}  # SQLITE_OPEN_READONLY
        return _JDBC_PROPERTIES[self.kind](self)

    def jdbc_url(self) -> str:
        """The JDBC URL, without credentials (they go to the driver as properties)."""
        if not self.networked:
            return f"jdbc:sqlite:{self.url}"
        parts = urlsplit(self.url)
        host = parts.hostname or "localhost"
        host = f"[{host}]" if ":" in host else host
        port = f":{parts.port}" if parts.port else ""
        query = f"?{parts.query}" if parts.query else ""
        return f"jdbc:{_JDBC[self.kind][0]}://{host}{port}{parts.path or '/'}{query}"

    def jdbc_driver(self) -> str:
        return _JDBC[self.kind][1]

    def quote(self, name: str) -> str:
        """A name quoted for the database's SQL: MySQL's backticks, the standard's double quotes."""
        return quote_name(self.kind, name)


def is_database(spec: SourceSpec) -> bool:
    return spec.kind.family == "database"


def check_database_source(spec: SourceSpec) -> None:
    """Refuse, at parse time, a database source that could never connect or read."""
    where = spec.location
    table, query = spec.option("table"), spec.option("query")
    if (table is None) == (query is None):
        raise InvalidInput(
            "BAD_SOURCE",
            f'source {spec.name!r}: {spec.format}(...) takes exactly one of table = "..." and query = "..."',
            location=where,
            text=spec.as_written(),
        )
    if table is not None:
        split_qualified(str(table))
    _check_timeouts(spec)
    check_option_names(spec)
    if spec.kind.networked:
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
            text=spec.as_written(),
        )


def _check_timeouts(spec: SourceSpec) -> None:
    """``connect_timeout`` and ``statement_timeout`` are durations, for a database reached over
    the network (a SQLite file has no connection to wait for)."""
    for key in ("connect_timeout", "statement_timeout"):
        value = spec.option(key)
        if value is None:
            continue
        problem = f"{spec.format}(...) has no {key}: a file has no connection to wait for"
        if spec.kind.networked:
            try:
                duration_ms(value)
                continue
            except ValueError as error:
                problem = f"{key} {error}"
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {spec.name!r}: {problem}",
            location=spec.location,
            text=str(value),
            hint=f'write e.g. {key} = "{"10s" if key == "connect_timeout" else "15m"}"',
        )


def _check_url(spec: SourceSpec) -> None:
    """A PostgreSQL or MySQL URL that names its host and port plainly: a ``/``, ``?`` or ``#`` left
    unencoded in the user or password would cut the URL in the wrong place (and show a part of
    the password as the host or port)."""
    url = spec.paths[0]
    scheme, _, rest = url.partition("://")
    schemes = spec.kind.url_schemes
    problem, hint = None, f'{spec.format}("{_EXAMPLE_URLS[spec.format]}", ...)'
    if scheme not in schemes or not rest:
        problem = f"{with_article(spec.format)} URL starts with {schemes[0]}://"
    elif "@" not in re.split(r"[/?#]", rest)[0] and re.search(r"[/?#][^@]*@", rest):
        problem = "the URL's user or password holds a '/', '?' or '#' that is not percent-encoded"
        hint = "percent-encode them: / as %2F, ? as %3F, # as %23 (or give the password with password_env)"
    else:
        try:
            _ = urlsplit(url).port  # reading the port is the check
        except ValueError:
            problem = "the URL's host or port cannot be read (a port is a number from 0 to 65535)"
    if problem is not None:
        raise InvalidInput(
            "BAD_SOURCE", f"source {spec.name!r}: {problem}", location=spec.location, text=redact(url), hint=hint
        )


def resolve(spec: SourceSpec) -> Database:
    """The connection of a database source, credentials read from the environment now."""
    if not spec.kind.networked:  # a file: no connection, no user
        return Database(spec.format, spec.paths[0], None, None)
    connect_ms = duration_ms(spec.option("connect_timeout")) or DEFAULT_CONNECT_TIMEOUT_MS
    statement_ms = duration_ms(spec.option("statement_timeout"))
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
    url = urlunsplit(parts._replace(scheme=spec.kind.url_schemes[0], netloc=netloc))
    return Database(spec.format, url, user, password, connect_ms, statement_ms)


def _postgres_jdbc(db: Database) -> dict[str, str]:
    seconds = str(db.connect_timeout_s())
    properties = {"options": db.session_settings(), "connectTimeout": seconds, "loginTimeout": seconds}
    if db.statement_timeout_ms is not None:  # a server silent for that long is past its timeout
        properties["socketTimeout"] = str(math.ceil(db.statement_timeout_ms / 1000) + int(seconds))
    return properties


def _mysql_jdbc(db: Database) -> dict[str, str]:
    """The MariaDB driver's: its timeouts are in milliseconds."""
    properties = {"connectTimeout": str(db.connect_timeout_ms), "sessionInitStatement": _MYSQL_READ_ONLY}
    if db.statement_timeout_ms is not None:
        # Spark runs one statement: MariaDB's read-only flag and statement timeout in one SET
        properties["sessionInitStatement"] = (
            f"SET SESSION tx_read_only = 1, SESSION max_statement_time = {db.statement_timeout_ms / 1000}"
        )
        properties["socketTimeout"] = str(db.statement_timeout_ms + db.connect_timeout_ms)
        # Spark's own per-statement timeout too: under its reads the session's timeout let a
        # SLEEP run its full length; this one, set on each statement Spark runs, ends it
        properties["queryTimeout"] = str(math.ceil(db.statement_timeout_ms / 1000))
    return properties


# each networked database's JDBC properties (Spark reads through its JDBC driver)
_JDBC_PROPERTIES = {"postgres": _postgres_jdbc, "mysql": _mysql_jdbc}


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


def quote_name(kind: str, name: str) -> str:
    """A name quoted for a database's SQL: MySQL's backticks (its double quotes are strings unless
    the server runs in ANSI_QUOTES mode), the standard's double quotes elsewhere."""
    mark = _NAME_QUOTE[kind]
    return mark + name.replace(mark, mark * 2) + mark


def from_clause(spec: SourceSpec) -> str:
    """What a ``SELECT ... FROM`` reads in the database: the quoted table, or the query as a subquery."""
    table = spec.option("table")
    if table is not None:
        return ".".join(quote_name(spec.format, part) for part in split_qualified(str(table)))
    return f"({query_text(spec)}) AS gryph_query"


def query_text(spec: SourceSpec) -> str:
    """The source's query as written, less a final semicolon (it is run inside a larger statement),
    ending with a new line: a trailing ``-- comment`` must not swallow the ``)`` put after it."""
    return str(spec.option("query")).strip().rstrip(";").rstrip() + "\n"


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


def mysql_columns_sql(spec: SourceSpec) -> str:
    """SQL listing a MySQL table's columns whose type its driver on DuckDB loses: DECIMAL's
    precision and scale (connectorx reads every DECIMAL as DECIMAL(38, 10)) and BOOLEAN, which
    MySQL keeps as TINYINT(1). The table's names go in as hex literals: no text of the suite
    enters the SQL (connectorx binds no parameters)."""
    parts = split_qualified(str(spec.option("table")))
    schema = _mysql_text(parts[-2]) if len(parts) > 1 else "DATABASE()"
    return (
        "SELECT column_name AS name, column_type AS type FROM information_schema.columns "
        f"WHERE table_schema = {schema} AND table_name = {_mysql_text(parts[-1])} "
        "AND (data_type = 'decimal' OR column_type LIKE 'tinyint(1)%')"
    )


def _mysql_text(value: str) -> str:
    return f"CONVERT(X'{value.encode().hex()}' USING utf8mb4)"


def mysql_type(column_type: str) -> DataType:
    """The type of a column ``mysql_columns_sql`` lists, as Spark's MySQL dialect reads it."""
    match = re.fullmatch(r"decimal\((\d+),(\d+)\).*", column_type.lower())
    return decimal(min(int(match.group(1)), 38), min(int(match.group(2)), 38)) if match else BOOLEAN


_SQLITE_AFFINITIES = (
    (("BOOL",), BOOLEAN),
    (("INT",), INTEGER),
    (("CHAR", "CLOB", "TEXT"), STRING),
    (("REAL", "FLOA", "DOUB"), DOUBLE),
    (("DATETIME", "TIMESTAMP"), TIMESTAMP),
    (("DATE",), DATE),
    (("DECIMAL", "NUMERIC"), decimal(38, 18)),
)


# words of the drivers' messages (PostgreSQL, MySQL/MariaDB, SQLite, their JDBC drivers) for a
# request the database understood and refused
_REFUSED_WORDS = (
    "does not exist",
    "doesn't exist",
    "no such table",
    "no such column",
    "unknown column",
    "syntax error",
    "error in your sql syntax",
)


# the servers' and drivers' words for a statement ended by its timeout: PostgreSQL's
# statement_timeout, MariaDB's max_statement_time, MySQL's max_execution_time
_TIMED_OUT_WORDS = (
    "canceling statement due to statement timeout",
    "max_statement_time exceeded",
    "maximum statement execution time exceeded",
)


def statement_timed_out(specs: Sequence[SourceSpec], message: str) -> EngineError | None:
    """``STATEMENT_TIMEOUT`` naming the native measure (or the source) whose statement the
    database ended after its statement timeout: the one of ``specs`` that has a timeout (Spark's
    failure does not say which of several it was: each is named); None for any other failure."""
    if not any(words in message.lower() for words in _TIMED_OUT_WORDS):
        return None
    timed = [spec for spec in specs if spec.option("statement_timeout") is not None]
    if not timed:
        return None
    names = [
        f"measure {spec.option(NATIVE_MEASURE)!r}"
        if spec.option(NATIVE_MEASURE) is not None
        else f"source {spec.name!r}"
        for spec in timed
    ]
    first = timed[0]
    after = ", ".join(dict.fromkeys(str(spec.option("statement_timeout")) for spec in timed))
    return EngineError(
        "STATEMENT_TIMEOUT",
        f"{' or '.join(names)}: the database ended the statement after {after} (statement_timeout)",
        location=first.location if len(timed) == 1 else None,
        text=str(first.option("query") or first.as_written()) if len(timed) == 1 else None,
        hint='make the query faster, or give its source a longer statement_timeout (e.g. statement_timeout = "30m")',
    )


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
        text=spec.as_written(),
        hint="check the table or query and its column names in the database",
    )
