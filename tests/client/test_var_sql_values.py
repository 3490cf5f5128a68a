"""A ``--var`` value in SQL text stays one literal (issue 39 item 13): each case of the issue run
as written against the real readers (DuckDB and Spark for ``sql "..."``, PostgreSQL and MariaDB
for ``native "..."``), and generated SQL texts with comments and quotes of every kind whose
results, as each database computes them, never depend on the value but through a literal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gryph.client import runner
from gryph.compiler.errors import GryphError, InvalidInput
from gryph.compiler.suites.suite_variables import substitute

SECRET = "TopSecret-77"  # in a table no suite declares: it must show nowhere


def _outcome(suite: str, value: str, **engine):
    """The measures of a run with ``--var x=value``, or the error's code and message."""
    try:
        result = runner.run(suite, variables={"x": value}, record_sample=0, **engine)
    except GryphError as error:
        assert SECRET not in str(error)
        return error.code, error.message
    assert SECRET not in str(result.to_dict())
    return result.measures


@pytest.fixture(params=("duckdb", "spark"))
def engine(request):
    if request.param == "duckdb":
        return {"engine": "duckdb"}
    return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}


@pytest.fixture
def users(tmp_path: Path) -> Path:
    """50 users u0@x.org ... u49@x.org, and o'brien@x.org as the 51st."""
    lines = ["id,email"] + [f"{i},u{i}@x.org" for i in range(50)] + ["50,o'brien@x.org"]
    path = tmp_path / "u.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


# the DuckDB cases: ${x} inside the SQL's quotes, after a comment holding a quote; the
# value " OR 1=1 OR " gave n = 51 (every row) where no email is that text
SPARK_CASES = {
    "block comment": "select count(*) from u /* it's */ where email = '${x}'",
    "escaped quote": "select count(*) from u where email = 'it\\\\'s ${x}'",  # SQL text: 'it\'s ${x}'
    "line comment": "select count(*) from u -- don't\\n where email = '${x}'",
    "double quotes": 'select count(*) from u /* it\'s */ where email = \\"${x}\\"',
    "outside quotes": "select count(*) from u /* it's */ where email = ${x}",
}


@pytest.mark.parametrize("sql", SPARK_CASES.values(), ids=SPARK_CASES.keys())
@pytest.mark.parametrize(
    ("value", "expected"),
    [(" OR 1=1 OR ", 0), ("' OR 1=1 OR '", 0), ("\\' OR 1=1 OR \\'", 0), ("u7@x.org", 1), ("o'brien@x.org", 1)],
)
def test_a_value_in_spark_sql_is_one_literal(users, engine, sql, value, expected):
    suite = f'source u = csv("{users}")\nmeasure "n": sql "{sql}"\n'
    if "it\\\\'s" in sql and value.endswith("@x.org"):
        expected = 0  # the literal is "it's " + the value: no email
    assert _outcome(suite, value, **engine) == {"n": expected}


def test_a_dsl_quote_that_leaves_the_sql_string_open_is_bad_var(users):
    # written with one backslash, \' is the DSL's escape: the SQL reads 'it's ${x}', never closed
    suite = f'source u = csv("{users}")\nmeasure "n": sql "select count(*) from u where email = \'it\\\'s ${{x}}\'"\n'
    code, message = _outcome(suite, " OR 1=1 OR ")
    assert code == "BAD_VAR" and "never closed" in message


@pytest.fixture(scope="module")
def shop(postgres):
    for statement in (
        "DROP SCHEMA IF EXISTS varsql CASCADE",
        "CREATE SCHEMA varsql",
        "CREATE TABLE varsql.orders (id int, day text)",
        "INSERT INTO varsql.orders VALUES (1, '2026-11-24'), (2, '2026-11-24'), (3, '2026-11-25')",
        "CREATE TABLE varsql.secrets (v text)",
        f"INSERT INTO varsql.secrets VALUES ('{SECRET}')",
    ):
        postgres.execute(statement)
    return postgres


def _postgres_suite(shop, native: str) -> str:
    return (
        f'source orders = postgres("{shop.url()}", table = "varsql.orders")\nmeasure "n" on orders: native "{native}"\n'
    )


# the PostgreSQL cases: a value that ended the string read another table and a file
POSTGRES_ATTACKS = [
    " || cast((select v from varsql.secrets) as int) || ",
    "' || cast((select v from varsql.secrets) as int) || '",
    " || cast(pg_read_file('/etc/hostname') as int) || ",
    "\\' || cast((select v from varsql.secrets) as int) || \\'",
]


@pytest.mark.parametrize(
    "native",
    [
        "select count(*) from varsql.orders /* don't count tests */ where day = '${x}'",
        "select count(*) from varsql.orders /* a /* nested */ don't */ where day = '${x}'",
        "select count(*) from varsql.orders -- don't\\n where day = '${x}'",
        "select count(*) from varsql.orders where day = E'it\\\\'s ${x}'",  # SQL text: E'it\'s ${x}'
        "select count(*) from varsql.orders /* don't */ where day = ${x}",
        "select count(*) from varsql.orders where day = $q$ ${x} $q$",
    ],
    ids=["block comment", "nested comment", "line comment", "E string", "outside quotes", "dollar quotes"],
)
@pytest.mark.parametrize("value", POSTGRES_ATTACKS)
def test_a_value_in_postgres_sql_is_one_literal(shop, native, value):
    # no day is the value's text: 0 rows, and the secret table read nowhere
    assert _outcome(_postgres_suite(shop, native), value) == {"n": 0}


@pytest.mark.parametrize(
    ("native", "value", "expected"),
    [
        ("select count(*) from varsql.orders /* don't */ where day = '${x}'", "2026-11-24", 2),
        ("select count(*) from varsql.orders where day = ${x}", "2026-11-25", 1),
        ("select count(*) from varsql.orders where day = E'${x}'", "2026-11-25", 1),
        ("select length('${x}')", "a'b\\c", 5),
        ("select length(E'${x}')", "a'b\\c", 5),
        ("select length(${x})", "a'b\\c", 5),
    ],
)
def test_postgres_values_keep_their_text(shop, native, value, expected):
    assert _outcome(_postgres_suite(shop, native), value) == {"n": expected}


@pytest.mark.parametrize(
    ("native", "value", "message"),
    [
        ("select count(*) from varsql.orders where day = $q$ ${x} $q$", "$q$ || 1 || $q$", "dollar-quoted"),
        ("select count(*) from varsql.orders where day = $q$ ${x}$q$", "x$", "dollar-quoted"),
        ('select count(*) from varsql.orders where \\"${x}\\" = 1', "day", "quoted SQL name"),
        ("select count(*) from varsql.orders where day = U&'${x}'", "d", "unicode"),
        ("select count(*) from varsql.orders where day = 'a'${x}", "d", None),
        ("select count(*) from varsql.orders where day = '${x}", "d", "never closed"),
    ],
)
def test_postgres_placements_that_cannot_be_one_literal_are_bad_var(shop, native, value, message):
    code, said = _outcome(_postgres_suite(shop, native), value)
    assert code == "BAD_VAR"
    assert message is None or message in said


def test_a_postgres_reference_in_a_comment_stays_as_written(shop):
    native = "select count(*) from varsql.orders /* ${x} */ where day = '2026-11-24'"
    suite = _postgres_suite(shop, native) + 'measure "v" on orders: native "select ${x}"\n'
    assert _outcome(suite, "*/ or 1=1 /*") == {"n": 2, "v": "*/ or 1=1 /*"}


@pytest.fixture(scope="module")
def maria(mariadb):
    mariadb.execute(
        "DROP TABLE IF EXISTS var_orders; DROP TABLE IF EXISTS var_secrets;"
        "CREATE TABLE var_orders (id int, day varchar(20));"
        "INSERT INTO var_orders VALUES (1, '2026-11-24'), (2, '2026-11-24'), (3, '2026-11-25');"
        f"CREATE TABLE var_secrets (v varchar(20)); INSERT INTO var_secrets VALUES ('{SECRET}');",
        database="gryph",
    )
    return mariadb


def _mysql_suite(maria, native: str) -> str:
    return f'source orders = mysql("{maria.url()}", table = "var_orders")\nmeasure "n" on orders: native "{native}"\n'


@pytest.mark.parametrize(
    "native",
    [
        "select count(*) from var_orders /* don't count tests */ where day = '${x}'",
        "select count(*) from var_orders # don't\\n where day = '${x}'",
        "select count(*) from var_orders -- don't\\n where day = '${x}'",
        "select count(*) from var_orders where day = ${x}",
    ],
    ids=["block comment", "hash comment", "dash comment", "outside quotes"],
)
@pytest.mark.parametrize(
    "value", [" OR 1=1 OR ", "' OR 1=1 OR '", "' OR (select count(*) from var_secrets) OR '", "x'' OR 1=1 -- "]
)
def test_a_value_in_mysql_sql_is_one_literal(maria, native, value):
    assert _outcome(_mysql_suite(maria, native), value) == {"n": 0}


@pytest.mark.parametrize(
    ("native", "value", "message"),
    [
        ("select count(*) from var_orders where day = 'it\\\\'s ${x}'", "x", "backslash"),
        ("select count(*) from var_orders where day = '${x}'", "\\' OR 1=1 OR \\'", "backslash"),
        ('select count(*) from var_orders where day = \\"${x}\\"', "x", "string or as a name"),
        ("select count(*) from var_orders /*! where day = ${x} */", "x", "runs as code"),
        ("select count(*) from var_orders /*!99999 it's */ where day = ${x}", "x", "runs as code"),
        ("select count(*) from var_orders where day = X'${x}'", "41", "hex"),
    ],
)
def test_mysql_placements_that_depend_on_the_server_are_bad_var(maria, native, value, message):
    code, said = _outcome(_mysql_suite(maria, native), value)
    assert code == "BAD_VAR" and message in said


def test_a_mysql_dash_without_a_space_is_no_comment(maria):
    # 3 --1 is 3 - (-1): the ${x} after it is code, a literal of its own
    native = "select 3 --1\\n + length(${x})"
    assert _outcome(_mysql_suite(maria, native), "a'b") == {"n": 7}


# ---- generated texts: SELECT lists of literals of every kind, comments and bare values ----

# pieces values and fixed texts are made of: quotes, escapes, comment marks and dollar tags
_PIECES = ["a", "Z", " ", "'", '"', "\\", "$", "$q$", "*/", "/*", "--", "#", "\n", "`", "é", ";", "''", "\\'"]
_VALUES = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)
_FIXED = st.lists(st.sampled_from([p for p in _PIECES if p not in ("\\", "\\'")] + ["b"]), max_size=4).map("".join)

# per dialect: literal kinds, each (how its text is written, which characters its fixed text may not hold)
_LITERALS = {
    "spark": {
        "single": lambda t: "'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'",
        "double": lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"',
    },
    "postgres": {
        "standard": lambda t: "'" + t.replace("'", "''") + "'",
        "escape": lambda t: "E'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'",
        "dollar": lambda t: "$q$" + t + "$q$",
    },
    "mysql": {"single": lambda t: "'" + t.replace("'", "''") + "'"},
}
_COMMENTS = {
    "spark": (lambda t: "/* " + t + " */", lambda t: "/* a /* " + t + " */ b */", lambda t: "-- " + t + "\n"),
    "postgres": (lambda t: "/* " + t + " */", lambda t: "/* a /* " + t + " */ b */", lambda t: "-- " + t + "\n"),
    "mysql": (lambda t: "/* " + t + " */", lambda t: "# " + t + "\n", lambda t: "-- " + t + "\n"),
}
_MARK = "\x00"  # where ${x} goes in a generated text: a character no fixed text holds


def _fits(dialect: str, kind: str, text: str) -> bool:
    """Whether ``text`` can be a fixed part of a literal (or comment) of ``kind``."""
    if kind == "dollar":
        return "$" not in text
    if kind == "comment":
        return not any(mark in text for mark in ("*/", "/*", "\n"))
    return True


@st.composite
def _select_lists(draw, dialect: str):
    """SQL with ${x} in literals, comments and on its own, and what each column holds for a
    value (``_MARK`` standing for it)."""
    items, columns = [], []
    for index in range(draw(st.integers(1, 4))):
        shape = draw(st.sampled_from(["literal", "bare", "comment", "number"]))
        if shape == "literal":
            kind = draw(st.sampled_from(sorted(_LITERALS[dialect])))
            parts = draw(st.lists(_FIXED.filter(lambda t, k=kind: _fits(dialect, k, t)), min_size=1, max_size=3))
            # the literal's text, built from the escaped fixed parts with ${x} between them
            text = _LITERALS[dialect][kind]("\x01".join(parts))
            items.append(f"{text.replace(chr(1), '${x}')} AS c{index}")
            columns.append(_MARK.join(parts))
        elif shape == "bare":
            items.append(f"${{x}} AS c{index}")
            columns.append(_MARK)
        elif shape == "number":
            items.append(f"{index} AS c{index}")
            columns.append(index)
        else:
            comment = draw(st.sampled_from(_COMMENTS[dialect]))
            parts = draw(st.lists(_FIXED.filter(lambda t: _fits(dialect, "comment", t)), min_size=1, max_size=2))
            items.append(comment("${x}".join(parts)) + f"{index} AS c{index}")
            columns.append(index)
    return "select " + ", ".join(items) + f", {len(items)} AS c{len(items)}", [*columns, len(items)]


def _dsl(sql: str) -> str:
    """SQL text as the inside of a DSL string."""
    return sql.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _generated_runs(dialect: str, suite_head: str, examples: int):
    """Runs generated texts with generated values; each result is the columns the text says, the
    value in place of ``_MARK`` (or the placement is BAD_VAR). Returns how many ran."""
    ran = []

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(select=_select_lists(dialect), value=_VALUES)
    def check(select, value):
        sql, columns = select
        assume("$${" not in sql)  # the suite's escape for the text ${
        keyword = "sql" if dialect == "spark" else "native"
        suite = suite_head + f'measure "m" as map{" on t" if keyword == "native" else ""}: {keyword} "{_dsl(sql)}"\n'
        try:
            result = runner.run(suite, variables={"x": value}, record_sample=0)
        except InvalidInput as error:
            assert error.code in ("BAD_VAR", "UNUSED_VAR"), error  # UNUSED: every ${x} in a comment
            return
        expected = {f"c{i}": c.replace(_MARK, value) if isinstance(c, str) else c for i, c in enumerate(columns)}
        assert result.measures["m"] == expected, sql
        ran.append(sql)

    check()
    return len(ran)


def test_generated_spark_sql_depends_on_a_value_only_through_its_literals(users):
    ran = _generated_runs("spark", f'source u = csv("{users}")\n', 120)
    assert ran >= 30  # most texts placed their values (a test that refused all would prove nothing)


def test_generated_postgres_sql_depends_on_a_value_only_through_its_literals(shop):
    ran = _generated_runs("postgres", f'source t = postgres("{shop.url()}", table = "varsql.orders")\n', 120)
    assert ran >= 30


def test_generated_mysql_sql_depends_on_a_value_only_through_its_literals(maria):
    ran = _generated_runs("mysql", f'source t = mysql("{maria.url()}", table = "var_orders")\n', 80)
    assert ran >= 20


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    import sqlite3

    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (id integer, day text)")
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "2026-11-24"), (2, "2026-11-24"), (3, "it's")])
    return path


@pytest.mark.parametrize(
    ("native", "value", "expected"),
    [
        ("select count(*) from orders /* don't */ where day = '${x}'", "' OR 1=1 OR '", {"n": 0}),
        ("select count(*) from orders -- don't\\n where day = '${x}'", "2026-11-24", {"n": 2}),
        ("select count(*) from orders where day = ${x}", "it's", {"n": 1}),
        ("select count(*) from orders where day = [${x}]", "day", "BAD_VAR"),
        ('select count(*) from orders where day = \\"${x}\\"', "day", "BAD_VAR"),  # a name, or a string
    ],
)
def test_a_value_in_sqlite_sql_is_one_literal(sqlite_file, native, value, expected):
    suite = f'source orders = sqlite("{sqlite_file}", table = "orders")\nmeasure "n" on orders: native "{native}"\n'
    outcome = _outcome(suite, value)
    assert (outcome[0] if isinstance(outcome, tuple) else outcome) == expected


def test_a_commented_out_declaration_does_not_decide_the_dialect():
    # read as SQLite's, 'it\'s ${x}' would end at the backslash and place the value outside it;
    # the source is MySQL's, whose backslash reading depends on sql_mode: refused
    text = (
        '# source o = sqlite("x.db", table = "t")\nsource o = mysql("mysql://h/db", table = "t")\n'
        'measure "n" on o: native "select 1 from t where d = \'it\\\\\'s ${x}\'"\n'
    )
    with pytest.raises(InvalidInput) as raised:
        substitute(text, {"x": "' OR 1=1 -- "}, "s.dq")
    assert raised.value.code == "BAD_VAR" and "MySQL" in raised.value.message
