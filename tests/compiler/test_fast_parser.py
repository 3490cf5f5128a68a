"""The hand-written parser (compiler/language/ruletree/fast_*.py) on tricky texts.

Each text must be read by the fast parser itself (not left to textX) and give exactly the tree
textX's path gives (``GRYPH_PARSER=textx``), positions and texts included; the shapes asserted
by hand below are derived from the language reference (precedence, literals), not from either
parser's output. Texts the fast parser leaves alone must still give textX's result or error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gryph.compiler.errors import Location
from gryph.compiler.language.ruletree import fast_expressions, fast_scanner, fast_suite
from gryph.compiler.language.ruletree import nodes as n
from gryph.compiler.language.ruletree.check_nodes import CheckChain, CheckUnary
from gryph.compiler.language.ruletree.fast import fast_rule_text, fast_suite_tree
from gryph.compiler.language.ruletree.fast_scanner import Unhandled
from tests.compiler.parser_outcomes import entry_outcome, fast_outcome, textx_outcome

GRAMMAR_DIR = Path(fast_scanner.__file__).resolve().parents[1] / "grammar"


def same_tree(grammar: str, text: str, monkeypatch):
    """The fast parser's tree, after checking it read the text itself and built textX's tree."""
    got = fast_outcome(grammar, text)
    assert got is not None, "left to textX"
    assert got == textx_outcome(grammar, text, monkeypatch)
    return got[1]


EXPRESSIONS = [
    # precedence, chains, NOT and predicates
    "a or b and c or not d",
    "a + b * c - d / e % f",
    "not a = b and not not c is null",
    "! a or !b && c || d",
    "- - a * + b",
    "not -a > 1",
    "a between 1 and 2 and b not between -1 and x + 1",
    "a between (1, 2) or b between (c) and 3",
    "a like 'x%' or b not rlike '^a' and c is not nan",
    "a <=> b or a <> b or a == b or a != b or a >= b or a <= b",
    "(((a)))",
    "a and b and c and d and e and f and g and h and i",
    # numbers, strings, times
    "x = 1e-3 or x = .5 or x = -0 or x = 1. or x = 1.5E+10",
    "d < 3d or d < 5H or d < 2m or d < 4s or d < 500ms",
    r"""s = 'it\'s' or s = 'a\\b' or s = 'tab\there' or s = "dq \"x\"" or s = ''""",
    "s = 'ünï' or `naïve col` = 'x' or `a``b` > 1 or été = 2",
    # keywords as column names, and names that start with keywords
    "`select` = 1 or `from` is null or index > 0 or `on` = source or nullable = notes",
    "cast = 1 or if = 2 or when_x = 3 or is_ok or in_x = inx",
    # IN lists: the value-list shortcut, expressions, negation, both quotes
    "a in (1, 2.5, .5, 1e3, 'x', \"y\")",
    r"a not in ('a,b', 'c\'', 'd')",
    "a in (b, c + 1, lower('X'), -1)",
    "a in ('x' , 'y'\n , 'z')",
    "a in ('x', 'y' # a comment\n)",
    "a in (1, 2) and b not in (3)",
    # calls, casts, selections, heads
    "count(*) > 0 and count(distinct a) = sum(b) and f() is null",
    "cast(a as decimal(10, 2)) > cast(b as int) and cast(c AS string) = 'x'",
    "$source.a.b = ${target}.c and $source['k'] = x[0] and x[*] = y[(1, 2)] and z['f' = 1] = 1",
    "a.max().max() > s.count(distinct x) and t.* is not null",
    "if(a > 0, 1, 2) = 1",
    # comments, line breaks, CRLF, tabs
    "a = 1 # trailing comment\n and b = 2",
    "a = 1\r\n and\tb = 2\r\n",
    "\n\n   a\n   =\n   1\n",
    "# only a comment line first\na = 1",
    "a # c1\n . # c2\n b = 1",
]


@pytest.mark.parametrize("text", EXPRESSIONS)
@pytest.mark.parametrize("grammar", ["accuracy", "profiling", "selections"])
def test_expressions_read_as_textx_reads_them(grammar, text, monkeypatch):
    body = text if grammar == "accuracy" else f"{text} as v" if grammar == "selections" else f"select {text} as v"
    same_tree(grammar, body, monkeypatch)


def test_precedence_shapes():
    rule = fast_rule_text("accuracy", "a or b and not c = d + e * f").rule
    assert isinstance(rule, n.Logical) and rule.op == "or"
    right = rule.operands[1]
    assert isinstance(right, n.Logical) and right.op == "and"
    negated = right.operands[1]
    assert isinstance(negated, n.Not) and negated.count == 1
    compare = negated.operand
    assert isinstance(compare, n.Compare) and compare.op == "="
    sum_ = compare.right
    assert isinstance(sum_, n.Arithmetic) and sum_.ops == ("+",)
    assert isinstance(sum_.operands[1], n.Arithmetic) and sum_.operands[1].ops == ("*",)


def test_literals_keep_their_text_and_values():
    rule = fast_rule_text("accuracy", "x in (1e-3, .5, 'it\\'s') and y = -0 and z < 2h").rule
    in_list, minus_zero, hours = rule.operands
    assert [o.token if isinstance(o, n.NumberLit) else o.value for o in in_list.options] == ["1e-3", ".5", "it's"]
    assert minus_zero.right == n.Signed(
        ("-",), n.NumberLit("0", location=Location(None, 1, 35), text="0"), location=Location(None, 1, 34), text="-0"
    )
    assert hours.right.millis == 2 * 3_600_000


def test_positions_count_lines_columns_and_offsets():
    """Offsets place a rule text inside its JSON file: line offset 2, column offset 4 on line 1."""
    rule = fast_rule_text("accuracy", "a = 1 and\r\n  b = 2", "t.json", 2, 4).rule
    first, second = rule.operands
    assert first.location == Location("t.json", 3, 5) and first.text == "a = 1"
    assert second.location == Location("t.json", 4, 3) and second.text == "b = 2"


SUITES = [
    "suite s\nsource t = csv('a.csv', header = true, sep = ';', skip = 1, x = null, y = 1.5)\n"
    "completeness c on t: a, b as `B b`\n",
    "source t = parquet(\"p\")\r\nuniqueness u on t, t: a with threshold = 5m, keys = (1, 'a', 2h), mode = strict\r\n",
    "accuracy a on s, t: s.id = t.id when s.ok index: \"id, ts\"\naccuracy b on s, t: if (s.x > 0) s.id = t.id index 'id'\n",
    "profiling p on t: select distinct a, count(*) as n from t where a > 0 group by a, b having n > 1 "
    "order by a desc, b asc, c limit 10\nprofiling q: count(*)\n",
    "timeliness t on e: created, shipped with threshold = 1d, nan_ok = nan, flag = false\n",
    "measure m as value on t: select max(a)\nmeasure 'two words': sql 'select 1'\n"
    'measure `n` as list: native "select 2"\nmeasure k as map: count(*)\n',
    'check c1: measures[\'m\'] < 3 and not metrics["r"]["x"] >= 1 || !(a == b)\n'
    "warn check 'c 2': -measures['m'] * 2 + 1 % 3 / 4 - [1, 2][0] != abs(-1, 2.5e3) or null == true\n"
    "pass when checks(c1, 'c 2')\n",
    "pass when passed >= 3\n",
    "pass when ALWAYS\n",
    "SOURCE t = CSV('a.csv')\nCOMPLETENESS c ON t: a # comment\n# more\nPASS WHEN any",
    "# nothing but a comment\n",
    "",
    "suite only_a_name",
    # schema statements (a column's type is optional) and alert targets
    "schema users: required(user_id bigint, email string)\nSCHEMA `odd t`: EXACT(`a b` decimal(10, 2), c, `é` timestamp)\n",
    'notify \'https://hooks.example/x\' with token_env = "HOOK_TOKEN"\nnotify "slack:https://h/1"\n',
    'notify "https://h/2" on fail, `error` for "a", b with repeat = 6h\nnotify "https://h/3" for \'a b\'\n',
    # freshness: `on` may be left out; durations in checks
    "freshness orders: created_ts with warn = 6h, error = 24h\nFRESHNESS f ON `my t`, t: ts\n",
    "check c: metrics['orders']['age_ms'] < 24h and 7D > 2m * 3 or -500ms + 1s == 0.5 or 1e3 > 2ms\n",
    # rows(...): a count of a source's rows under a DSL condition, inside a check
    "check c: rows(t) > 0 and rows (`a b` where x not in ('a', 'b') or y is null) <= 0.5 * rows(t)\n"
    "warn check d: max(rows(t where a between 1 and 2), 1) == [rows(t where b like 'x%')][0]\n",
    # drift(...): a source's column, plain, back-quoted or with spaces around the dot
    "check c: drift(orders.amount)\ncheck d: drift(`my t` . `a b`, method = ks, threshold = 0.1)\n"
    "check e: t.x > 0 or drift(é.ü)\n",
    # validity: named row conditions, an alias or the text naming each
    'validity orders_valid on orders: amount >= 0, status in ("new", "sent", "done"),\n'
    "  email rlike '^[^@]+@[^@]+$' as email_format, x is null or x > 0 with invalid = \"bad\"\n"
    "VALIDITY v ON `odd t`: `a b` between 1 and 2 as `in range`\n",
    # an option of several texts: null markers
    "source t = csv('a.csv', nullValue = [\"n/a\", '-', ''], schema = 'a double')\nsource u = csv('b.csv', nullValue = ['NA'])\n",
    # quarantine and valid outputs: folders and tables, a table's options as a source's
    'quarantine t to "out/bad"\nvalid t to delta("out/good")\n'
    "quarantine `a b` to iceberg('lake.dq.bad', catalog.uri = \"sqlite:///c.db\", catalog.warehouse = 'file:///w')\n"
    'valid u to postgres("postgresql://u@h/db", table = "dq.good", password_env = "PW", connect_timeout = "5s")\n',
    # Griffin's generation-B measures, as export writes them
    "griffin completeness c on t: a is not null and `b c` > 0\nGRIFFIN duplication d on t: * with bad.record.definition"
    ' = "duplicate", metric = false\ngriffin accuracy a on s, `r t`: s.id = `r t`.id, s.x = `r t`.y\n'
    "griffin schemaConformance s on t: cast(a as int), cast(`é` as decimal(10, 2))\n"
    "griffin sparkSQL q on t: 'select 1 as x' with bad.record.definition = \"x > 1\", records = false\n",
]


@pytest.mark.parametrize("text", SUITES)
def test_suites_read_as_textx_reads_them(text, monkeypatch):
    same_tree("suite", text, monkeypatch)


def test_an_option_of_several_texts_is_a_tuple():
    first, second = fast_suite_tree(
        "source t = csv('a.csv', nullValue = [\"n/a\", '-', ''])\nsource u = csv('b', x = ['NA'])"
    ).statements
    assert first.options == (("nullValue", ("n/a", "-", "")),)
    assert second.options == (("x", ("NA",)),)


def test_check_shapes():
    tree = fast_suite_tree("check c: not a < 1 and -b > 2\n")
    chain = tree.statements[0].expr
    assert isinstance(chain, CheckChain) and chain.ops == ("and",)
    negated, compare = chain.operands
    assert isinstance(negated, CheckUnary) and negated.ops == ("not",)
    assert isinstance(negated.operand, CheckChain) and negated.operand.ops == ("<",)
    assert isinstance(compare.operands[0], CheckUnary) and compare.operands[0].ops == ("-",)


def test_a_duration_in_a_check_is_its_milliseconds():
    """``24h`` is the number 86400000 (the language reference's units), written as ``24h``."""
    tree = fast_suite_tree("check c: x < 24h or x > 7d or x == 2m or x == 2ms or x == 1.5\n")
    numbers = [chain.operands[1] for chain in tree.statements[0].expr.operands]
    assert [(number.token, number.text) for number in numbers] == [
        ("86400000", "24h"),
        ("604800000", "7d"),
        ("120000", "2m"),
        ("2", "2ms"),
        ("1.5", "1.5"),
    ]


LEFT_TO_TEXTX = [
    ("accuracy", "@Key $source.uid === $target.uid;"),  # the older statement form
    ("accuracy", "İstanbul = 1"),  # İ matches `i` in the grammar's case-insensitive patterns
    ("accuracy", "a = "),
    ("accuracy", "a = b = c"),
    ("accuracy", "a + not b"),
    ("accuracy", "f(" * 70 + "a" + ")" * 70),
    ("accuracy", "a" + " + a" * 200),  # deeper than MAX_EXPRESSION_DEPTH
    ("profiling", "select from"),
    ("suite", "completeness c on t: a\nbogus"),
    ("suite", "measure m: sql + 1"),
    ("suite", "source t = csv('a.csv'"),
    ("suite", "schema t: loose(a)"),
    ("suite", "schema t: required()"),
    ("suite", "notify x"),
]


@pytest.mark.parametrize(("grammar", "text"), LEFT_TO_TEXTX)
def test_what_the_fast_parser_leaves_to_textx(grammar, text, monkeypatch):
    assert fast_outcome(grammar, text) is None
    assert entry_outcome(grammar, text) == textx_outcome(grammar, text, monkeypatch)


def test_the_depth_limit_is_textx_s():
    """An expression exactly as deep as allowed is read here; one level more goes to textX."""
    limit = fast_expressions.MAX_EXPRESSION_DEPTH
    assert fast_rule_text("accuracy", "a" + " + a" * limit)
    with pytest.raises(Unhandled):
        fast_rule_text("accuracy", "a" + " + a" * (limit + 1))


def test_a_long_value_list_is_read_in_one_match(monkeypatch):
    text = "a in (" + ", ".join(f"'v{i}'" for i in range(20_000)) + ")"
    tree = same_tree("accuracy", text, monkeypatch)
    assert len(tree.rule.options) == 20_000 and tree.rule.options[-1].value == "v19999"


def test_the_patterns_are_the_grammars():
    """The patterns the fast parser matches are copied from the grammar files: kept equal."""
    grammar = "\n".join(path.read_text() for path in sorted(GRAMMAR_DIR.glob("*.tx")))
    patterns = [
        fast_scanner.QUOTED_NAME, fast_scanner.STRING, fast_scanner.NUMBER, fast_scanner.TIME,
        fast_expressions.STEP_START, fast_expressions.BINARY_OP, fast_expressions.ARITH_OP,
        fast_expressions.HEAD, fast_expressions.TYPE_NAME, fast_expressions.VALUE_LIST,
        fast_suite.SOURCE_FORMAT, fast_suite.OPTION_KEY, fast_suite.CHECK_NAME, fast_suite.CHECK_KEYWORD,
    ]  # fmt: skip
    for pattern in patterns:
        assert f"/{pattern.pattern}/" in grammar, pattern.pattern
    keywords = re.search(r"\(\?!\(\?ai:([a-z|]+)\)", grammar).group(1).split("|")
    assert set(keywords) == fast_expressions.KEYWORDS


def test_gryph_parser_textx_turns_it_off(monkeypatch):
    monkeypatch.setenv("GRYPH_PARSER", "textx")
    with pytest.raises(Unhandled):
        fast_rule_text("accuracy", "a = 1")


@pytest.mark.parametrize("parser", ["fast", "textx"])
def test_a_star_step_is_read_by_both_parsers(parser, monkeypatch):
    """`t.*` was a KeyError on textX's path (a StarSuffix had no attribute, so textX gave a str)."""
    from gryph.client import validate
    from gryph.compiler.errors import GryphError

    if parser == "textx":
        monkeypatch.setenv("GRYPH_PARSER", "textx")
    users = Path(__file__).resolve().parents[2] / "examples" / "data" / "users.csv"
    base = f"source users = csv('{users}')\n"
    assert validate(base + "profiling p on users: select users.* from users")
    with pytest.raises(GryphError) as refused:
        validate(base + "completeness c on users: users.*")
    assert refused.value.code == "STAR_NOT_ALLOWED" and refused.value.location.line == 2


def test_a_column_in_a_check_is_its_source_and_name():
    """``drift(`my t` . `a b`)``: back-quoted names unquoted, spaces around the dot allowed."""
    [statement] = fast_suite_tree("check d: drift(`my t` . `a b`)\n").statements
    [column] = statement.expr.args
    assert (type(column).__name__, column.source, column.column, column.text) == (
        "CheckColumn",
        "my t",
        "a b",
        "`my t` . `a b`",
    )
