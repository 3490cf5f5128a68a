"""Every error code gryph reports, declared once: the exit code it ends the CLI with and the
shape of its message (what the message says; the offending text and a hint come separately).

Exit 2: what the user wrote is wrong. Exit 3: the engine or the data failed the run. Exit 4: the
run finished and its outputs are written, but it could not be stored in the history. Exit 5: the
run finished, stored and written, but an alert could not be delivered.
tests/compiler/test_error_codes.py checks that every code the sources raise is declared here.
"""

from __future__ import annotations

from dataclasses import dataclass

BAD_INPUT = 2
RUN_FAILED = 3
HISTORY_NOT_STORED = 4
ALERT_NOT_SENT = 5


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    exit_code: int
    shape: str


def _declare(exit_code: int, **shapes: str) -> dict[str, ErrorCode]:
    return {code: ErrorCode(code, exit_code, shape) for code, shape in shapes.items()}


CODES: dict[str, ErrorCode] = {
    **_declare(
        BAD_INPUT,
        # syntax and structure of suites, checks and Griffin configs
        SYNTAX_ERROR="<what the parser expected> at the offending text",
        EXPRESSION_TOO_DEEP="an expression nests deeper than gryph reads",
        CHECK_TOO_DEEP="a check nests deeper than gryph reads",
        NESTED_TOO_DEEP="<input> nests deeper than gryph reads",
        BAD_CONFIG="<where in the config> must be <what>",
        CONTRACT_INVALID="<path in the contract>: <what the ODCS v3.1.0 schema says>",
        CONTRACT_UNSUPPORTED="<path in the contract>: <what gryph cannot run, and why>",
        TYPE_NOT_COMPARED="<path in the contract>: physicalType <name> is no type gryph knows (a warning: not compared)",
        BLANK_BEFORE_QUOTE="<file> line <n>: a blank before a quote (a warning: the engines read that field apart)",
        BAD_ENCODING="<file> is not UTF-8 text",
        EMPTY_JSON="<file> holds no JSON document",
        FILE_NOT_FOUND="no file <path>",
        EMPTY_SUITE="suite <name> has no rules and no measures",
        DUPLICATE_SOURCE="two sources are named <name>",
        DUPLICATE_RULE="two rules are named <name>",
        DUPLICATE_MEASURE="two measures are named <name>",
        DUPLICATE_CHECK="two checks are named <name>",
        DUPLICATE_PASS="the suite has more than one pass policy",
        DUPLICATE_NAME="<name> is defined twice in <scope>",
        BAD_NUMBER="<number> is not a number gryph can hold",
        NUMBER_TOO_LARGE="<number> is too large",
        LIMIT_TOO_LARGE="LIMIT <n> is larger than gryph fetches",
        WARNING_IN_POLICY="the pass policy names warning check <name>",
        UNKNOWN_CHECK="the pass policy (or a notify) names unknown check <name>",
        UNSUPPORTED="<feature of the input> is not supported (on any engine)",
        # names
        UNKNOWN_SOURCE="<rule> reads unknown source <name>",
        UNKNOWN_COLUMN="unknown column <name> (in <source>)",
        UNKNOWN_FIELD="<value> has no field <name>",
        UNKNOWN_FUNCTION="unknown function <name>",
        UNKNOWN_NAME="unknown name <name>",
        UNKNOWN_MEASURE="unknown measure <name>",
        UNKNOWN_METRIC="rule <name> writes no metric <key>",
        UNKNOWN_KEY="<path>: Griffin knows no key <key> in a <object> (a warning; an error with --strict)",
        UNKNOWN_RULE="unknown rule <name>",
        UNKNOWN_RULE_TYPE="unknown rule type <name>",
        UNKNOWN_MEASURE_TYPE="unknown measure type <name>",
        UNKNOWN_TYPE="unknown type <name>",
        UNKNOWN_DETAIL="<rule> has no detail <key>",
        UNKNOWN_ENGINE="unknown engine <name>",
        ENGINE_REFUSES="<feature> is not supported on <engine> (<not implemented or not possible>)",
        UNSUPPORTED_NAME="<name> cannot be used as <what>",
        AMBIGUOUS_COLUMN="column <name> is in more than one source",
        # sources and outputs
        BAD_SOURCE="source <name>: <problem>",
        BAD_SCHEMA="<schema text> is not a schema",
        BAD_OPTION="<option> <problem>",
        BAD_VAR="--var <name>=<value> or ${<name>}: <problem>",
        UNDEFINED_VAR="${<name>} has no value",
        UNUSED_VAR="--var <name> is not used by the suite",
        BAD_DATA_TIME="<data time> is no date or time",
        BAD_RANGE="<backfill range> <problem>",
        BAD_FRAME="cannot read the <type> given for source <name> as a table",
        # streams (gryph stream)
        STREAM_SUITE="suite <name> reads the stream <source>: it runs a micro-batch at a time",
        BAD_STREAM="<problem> in the suite's stream settings",
        NOT_A_STREAM="suite <name> reads no kafka or folder source",
        STREAM_OTHER_SUITE="the stream state <path> is the state of suite <name>",
        BAD_OUTPUT_PATH="<option> <path> <problem>",
        BAD_TABLE_NAME="<name> is not a table name",
        QUARANTINE_TARGET="quarantine folder <path> <problem>",
        SOURCE_NO_PATH="source <name> has no path",
        SOURCE_NO_TABLE="source <name> has no table",
        SOURCE_NO_FRAME="source <name> has no data frame",
        SOURCE_BAD_SCHEMA="source <name>: its schema <problem>",
        SOURCE_BAD_OPTION="source <name>: option <key> <problem>",
        SOURCE_NOT_ALLOWED="<rule> may not name source <name>",
        TARGET_NOT_ALLOWED="<rule kind> has no target",
        MISSING_CREDENTIAL="<source or notify target>: the environment variable <variable> is not set",
        NATIVE_NEEDS_DATABASE="<rule> reads its database natively: the source must be a database",
        NO_OUTPUT="gryph report needs somewhere to write",
        NO_STORED_RUNS="no stored runs of suite <name> in <history>",
        NO_RUN_AT_DATA_TIME="suite <name> has no current run of data time <time> to accept",
        TABLE_NOT_FOUND="source <name>: the database has no table <table>",
        LAKE_TABLE_NOT_FOUND="source <name>: <path or name> is not a Delta or Iceberg table",
        LAKE_VERSION_NOT_FOUND="source <name>: the table has no version, timestamp or snapshot <asked>",
        SQL_UNTRANSLATABLE="the Spark SQL <text> has no DuckDB form: <reason>",
        SQL_NOT_ALLOWED="<rule> reads <table or function>: SQL reads the suite's declared sources only",
        # rules and their expressions
        TYPE_MISMATCH="<operation> wants <type>, got <type>",
        WRONG_ARITY="<function> takes <n> arguments, got <m>",
        NAMED_ARGUMENT="<function> takes no named argument <name>",
        BAD_ANOMALY_CHECK="anomaly check: <problem>",
        BAD_NOTIFY="notify <target>: <problem>",
        ANOMALY_NOT_NUMERIC="an anomaly check watches <value>, which is not a number",
        ANOMALY_EXTRA_MISSING="<strategy> needs <package>, which is not installed",
        BAD_DRIFT_CHECK="drift check: <problem>",
        BAD_SEGMENT_CHECK="check <name> by <column>: <problem>",
        NOT_CONSTANT="<argument> of <function> must be a constant",
        ARGUMENT_OUT_OF_RANGE="<argument> of <function> must be in <range>",
        BAD_FRACTION="<fraction> is not in [0, 1]",
        BAD_ACCURACY="<argument> is not an accuracy",
        BAD_REPLACEMENT="<replacement>: <problem>",
        REGEX_GROUP="the pattern has no group <n>",
        BAD_REGEX="the pattern <pattern> cannot run alike on both engines: <problem>",
        REGEX_BACKSLASH_LOST="(a warning) the string <literal> is the pattern <value>: a backslash is dropped",
        UNSUPPORTED_FORMAT="the datetime pattern <pattern>: <problem>",
        BAD_DETAIL="<rule> detail <key> <problem>",
        BAD_KEY="<key> is not a key: <problem>",
        BAD_SUBSCRIPT="<subscript> cannot select from <value>",
        BAD_ERROR_CONF="error.confs <problem>",
        BAD_RECORD_DEFINITION="<where> must be one of <flags>",
        NO_KEY="<rule> names no key",
        NO_PAYLOAD="<source> has no payload column",
        NO_SOURCE_COLUMN="<rule> names no source column",
        NO_TARGET_COLUMN="<rule> names no target column",
        MISSING_SOURCE="<rule> names no source",
        MISSING_TARGET="<rule> names no target",
        MISSING_REF_SOURCE="<rule> names no reference source",
        CONFLICTING_SOURCE="<rule> is on <source> but reads from <other>",
        CROSS_HEAD_SELECTION="a selection of one head reads the other head",
        HEAD_NEEDS_SELECTION="<head> must select a value",
        INDEX_NOT_A_KEY="index <name> is not a key of the comparison",
        NOT_A_STRUCT="<value> is not a struct",
        NOT_AN_ARRAY="<value> is not an array",
        NOT_INDEXABLE="<value> cannot be indexed",
        NOT_GROUPED="<column> is neither grouped nor aggregated",
        NESTED_AGGREGATE="an aggregate inside an aggregate",
        AGGREGATE_IN_WHERE="an aggregate in WHERE",
        AGGREGATE_NOT_ALLOWED="an aggregate in <clause>",
        DISTINCT_NOT_ALLOWED="DISTINCT in <function>",
        STAR_NOT_ALLOWED="* in <clause>",
        CAST_NOT_ALLOWED="a cast from <type> to <type>",
        # a rule's result once the data has run: the rule fails, the run goes on
        TOO_MANY_ROWS="<rule> returns more than <n> rows",
        MEASURE_NOT_ONE_ROW="measure <name> returns no rows / more than one row",
        MEASURE_NOT_ONE_VALUE="measure <name> is a value but returns <n> columns",
        INPUT_RULE_FAILED="<rule> reads <rule>, whose result failed",
    ),
    **_declare(
        RUN_FAILED,
        QUARANTINE_NOT_WRITTEN="output folder <path> was not written where the client can see it",
        SOURCE_NOT_FOUND="source <name> does not exist",
        SOURCE_UNKNOWN="the plan reads <name>, which is neither a source nor a view",
        SOURCE_UNREADABLE="source <name>: <path> cannot be read",
        SOURCE_EMPTY="source <name>: <path> is empty",
        SOURCE_NOT_TEXT="source <name>: <path> is not text",
        SOURCE_NOT_A_FILE="source <name>: <path> is not a regular file",
        SOURCE_READ_AS_TEXT="source <name>: column <column> was read as string because some of its values are not numbers",
        DATABASE_NOT_FOUND="no DuckDB database at <path>",
        DATABASE_UNREADABLE="cannot open the DuckDB database <path>",
        HISTORY_UNREADABLE="cannot open the history <path>",
        HISTORY_LOCKED="the history <path> stayed locked by another process",
        OUTPUT_NOT_WRITTEN="<path> could not be written",
        QUERY_FAILED="<what> failed on <engine>: <reason>",
        STATEMENT_TIMEOUT="measure <name> / source <name>: the database ended its statement after <timeout>",
        UNSUPPORTED_ON_ENGINE="<plan node or function> is not supported on <engine>",
        DRIVER_MISSING="the <database> driver is not installed",
        SPARK_MISSING="PySpark is not installed",
        SPARK_URL="<url> is not a Spark Connect URL",
        SPARK_UNREACHABLE="no Spark Connect server at <url>",
        SPARK_CONNECT="connecting to <url> failed",
        SPARK_AUTH="the server at <url> refused the credentials",
        SPARK_VERSION="the server runs Spark <version>; gryph needs <version>",
        SPARK_RETRY="<variable>=<value> is not a number of seconds",
        SPARK_START="the local Spark server did not start: <reason>",
        SPARK_JAVA="no Java for the local Spark server",
        SPARK_AVRO="<what>: this Spark server has no Avro support",
        SPARK_CONNECTORS="cannot fetch <jars> from Maven Central: <reason>",
        STREAM_LOCKED="the stream state <path> is in use by another process",
        STREAM_STATE="the stream state <path> <problem>",
        DATA_LOST="source <name>: <topic>/<partition> lost offsets <from> to <to> before they were read",
        KAFKA_UNREACHABLE="source <name>: no Kafka broker answered at <address> within <n> s",
        KAFKA_FAILED="source <name>: the Kafka broker at <address> failed <what>: <reason>",
        KAFKA_NOT_ENABLED="<what>: this Spark server has no Kafka connector",
        CATALOG_UNREADABLE="source <name>: the Iceberg catalog <catalog> cannot be opened: <reason>",
        LAKE_NOT_ENABLED="source <name>: this Spark server has no <Delta or Iceberg> package or settings",
        STREAM_UNKNOWN_TOPIC="source <name>: the broker at <address> has no topic <topic>",
        STREAM_MALFORMED="source <name>: the message at <topic>/<partition>/<offset> is not <format> of the schema",
    ),
    **_declare(
        HISTORY_NOT_STORED,
        HISTORY_NOT_WRITTEN="the run was not stored in the history <path>: <reason>",
    ),
    **_declare(
        ALERT_NOT_SENT,
        ALERT_NOT_SENT="the alert to <target> was not delivered: <reason>",
        LINEAGE_NOT_SENT="the OpenLineage <event> event to <target> was not delivered: <reason>",
    ),
}


def declared(code: str) -> ErrorCode:
    """The declaration of ``code``; a code nobody declared is a bug in gryph, not in the input."""
    try:
        return CODES[code]
    except KeyError:
        raise ValueError(f"error code {code!r} is not declared in gryph.compiler.error_codes") from None
