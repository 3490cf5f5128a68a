"""Errors a newcomer can act on: validate reports every independent error (up to 20), typos of
keywords, commands, options and file names get a did-you-mean, and a regex literal that loses a
backslash gets a warning with the fix."""

from __future__ import annotations

import json

import pytest

from gryph.client import validate
from gryph.compiler.errors import MAX_ERRORS, InvalidInput, InvalidInputs
from tests.support.gryph_cli import gryph

USERS = "user_id,email,post_code\n1,a@x.org,94022\n2,,\n"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "users.csv").write_text(USERS)
    return tmp_path


def _errors(suite) -> list[tuple[str, int, int]]:
    with pytest.raises(InvalidInput) as caught:
        validate(suite)
    error = caught.value
    found = error.errors if isinstance(error, InvalidInputs) else [error]
    return [(e.code, e.line, e.column) for e in found]


def test_one_bad_statement_hides_none_of_the_others(folder):
    suite = folder / "s.dq"
    suite.write_text(
        'source users = csv("users.csv")\n'
        "completness contact on users: email, post_code\n"  # a keyword typo: the statement is left out
        "uniqueness ids on users: user_idd\n"  # an unknown column
        "measure rows: select count(*) from users\n"
        'check "rows": measures["rowz"] > 0\n'  # an unknown measure
        'check "contact": metrics["contact"]["incomplete"] == 0\n'  # reads the rule left out: no error of its own
        'source users = csv("users.csv")\n'  # declared twice
    )
    assert _errors(suite) == [
        ("SYNTAX_ERROR", 2, 1),
        ("DUPLICATE_SOURCE", 7, 1),
        ("UNKNOWN_COLUMN", 3, 26),
        ("UNKNOWN_MEASURE", 5, 23),
    ]
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and done.stderr.rstrip().endswith("4 errors")
    assert "hint: did you mean 'completeness'?" in done.stderr and "hint: did you mean 'user_id'?" in done.stderr
    assert "hint: did you mean 'rows'?" in done.stderr and "Traceback" not in done.stderr


def test_a_statement_over_several_lines_is_left_out_whole(folder):
    suite = folder / "s.dq"
    suite.write_text(
        'source users = csv("users.csv")\n'
        "completeness contact on users:\n"
        "    email,, post_code\n"  # the syntax error, on the statement's second line
        "uniqueness ids on users: user_id\n"
        "check bad: metrics[ids] == 0\n"  # a bare name: an error of its own, found though line 3 does not parse
        'check "ok": metrics["ids"]["unique"] > 0\n'
    )
    assert [(code, line) for code, line, _ in _errors(suite)] == [("SYNTAX_ERROR", 3), ("UNKNOWN_NAME", 5)]


def test_one_error_reads_as_before(folder):
    suite = folder / "s.dq"
    suite.write_text('source users = csv("users.csv")\ncompleteness c on users: emial\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2
    assert done.stderr == (
        f"{suite}:2:26: error UNKNOWN_COLUMN: unknown column 'emial'\n    near: emial\n"
        "    hint: did you mean 'email'?\n"
    )


def test_at_most_twenty_errors(folder):
    suite = folder / "s.dq"
    lines = ['source users = csv("users.csv")'] + [f"completeness c{i} on users: nope{i}" for i in range(25)]
    suite.write_text("\n".join(lines) + "\n")
    found = _errors(suite)
    assert len(found) == MAX_ERRORS and found[0] == ("UNKNOWN_COLUMN", 2, 27) and found[-1][1] == 21
    done = gryph("validate", str(suite))
    assert done.stderr.rstrip().endswith(
        f"{MAX_ERRORS} errors (the first {MAX_ERRORS}; more may follow once they are fixed)"
    )


def test_every_unknown_column_of_a_statement_is_reported(folder):
    suite = folder / "s.dq"
    suite.write_text('source users = csv("users.csv")\ncompleteness c on users: emial, post_cod\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2
    assert done.stderr == (
        f"{suite}:2:26: error UNKNOWN_COLUMN: unknown column 'emial'\n    near: emial\n"
        "    hint: did you mean 'email'?\n"
        f"{suite}:2:33: error UNKNOWN_COLUMN: unknown column 'post_cod'\n    near: post_cod\n"
        "    hint: did you mean 'post_code'?\n"
        "2 errors\n"
    )


@pytest.mark.parametrize(
    "statement,unknown",
    [
        # the where clause is read first: its errors still come in the order they stand
        (
            "profiling p on users: max(emial) as m, count(*) as n where user_idd > 1 and post_cod is null",
            ["emial", "user_idd", "post_cod"],
        ),
        # the keys read from the source and again from the target: each error once
        ("uniqueness u on users, copy: emial, user_idd", ["emial", "user_idd"]),
        ("distinctness d on users: emial, user_idd", ["emial", "user_idd"]),
        (
            "accuracy a on users, copy: users.user_idd = copy.user_idd and users.emial = copy.email "
            "when post_cod is not null",
            [".user_idd = copy", ".user_idd and", ".emial", "post_cod"],
        ),
        # no NO_SOURCE_COLUMN: the rule's source column is the unknown one
        ("accuracy a on users, copy: users.user_idd = copy.user_id", [".user_idd"]),
        # an unknown function hides neither its arguments nor the next condition
        ("validity v on users: lenght(emial) > 1, post_cod is not null", ["lenght(", "emial", "post_cod"]),
        # no TYPE_MISMATCH for times that are not there; the segment's name (at its `by`) checked with theirs
        ("timeliness t on users by regionn: created_at, shipped_at", ["by regionn", "created_at", "shipped_at"]),
        (
            'griffin duplication d on users: emial, user_idd with bad.record.definition = "duplicate"',
            ["emial", "user_idd"],
        ),
        # a measure's segment (located at its `by`) is a column of its source, not a name its query gives
        ('measure "m" by n: select count(*) as n from users', ["by n"]),
    ],
)
def test_each_unknown_name_of_a_rule_is_its_own_located_error(folder, statement, unknown):
    (folder / "copy.csv").write_text(USERS)
    suite = folder / "s.dq"
    suite.write_text(f'source users = csv("users.csv")\nsource copy = csv("copy.csv")\n{statement}\n')
    expected = [
        ("UNKNOWN_FUNCTION" if text.endswith("(") else "UNKNOWN_COLUMN", 3, statement.index(text) + 1)
        for text in unknown
    ]
    assert _errors(suite) == expected


@pytest.mark.parametrize(
    "declared,column,hint",
    [
        # a tab-separated file told to split by "|": its header is one column holding the names
        ('delimiter = "|"', "email", "t was read as one column, 'user_id\\temail': declare its delimiter, "
         'delimiter = "\\t"'),
        # qualified, the same hint
        ('delimiter = "|"', "t.email", "t was read as one column, 'user_id\\temail': declare its delimiter, "
         'delimiter = "\\t"'),
        # a name that is not among the header's parts: the usual list of what exists (its tab
        # shown as the terminal output shows a control character)
        ('delimiter = "|"', "mail", "known names: user_id\\x09email"),
    ],
)  # fmt: skip
def test_a_file_read_as_one_column_names_the_delimiter_to_declare(folder, declared, column, hint):
    (folder / "tabs.csv").write_text("user_id\temail\n1\ta@x\n", encoding="utf-8")
    suite = folder / "s.dq"
    suite.write_text(f'source t = csv("tabs.csv", {declared})\nmeasure m: select count({column}) from t\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and done.stderr.splitlines()[2] == f"    hint: {hint}", done.stderr


def test_at_most_twenty_errors_of_one_statement(folder):
    suite = folder / "s.dq"
    line = "completeness c on users: " + ", ".join(f"nope{i}" for i in range(25))
    suite.write_text(f'source users = csv("users.csv")\n{line}\n')
    found = _errors(suite)
    assert len(found) == MAX_ERRORS and found[-1] == ("UNKNOWN_COLUMN", 2, line.index("nope19") + 1)


@pytest.mark.parametrize(
    "declaration,code,message",
    [
        ('csv("data/empty.csv")', "SOURCE_EMPTY", "{base}/data/empty.csv is empty: no header, no rows"),
        ('csv("data/binary.csv")', "SOURCE_NOT_TEXT", "{base}/data/binary.csv is not csv text (it holds NUL bytes)"),
        ('csv( "data/empty.csv" , header = true)', "SOURCE_EMPTY", "{base}/data/empty.csv is empty"),
        ('sqlite("data/shop.db", table = "t", query = "select 1")', "BAD_SOURCE", "takes exactly one of"),
    ],
)
def test_an_error_at_a_source_quotes_it_as_the_suite_writes_it(folder, declaration, code, message):
    """Paths are read from the suite's folder: the message names the file so read, near: the
    declaration as written."""
    suites = folder / "suites"
    (suites / "data").mkdir(parents=True)
    (suites / "data" / "empty.csv").write_bytes(b"")
    (suites / "data" / "binary.csv").write_bytes(b"id\0\n")
    (suites / "s.dq").write_text(f"source orders = {declaration}\ncompleteness c on orders: id\n")
    done = gryph("validate", "suites/s.dq", cwd=folder)
    assert done.returncode in (2, 3)
    first, near = done.stderr.splitlines()[:2]
    assert first.startswith(f"suites/s.dq:1:1: error {code}: source 'orders'")
    assert message.format(base=suites.resolve()) in first
    assert near == f"    near: {declaration}"


def test_a_griffin_config_and_suggest_quote_a_path_as_written(folder):
    (folder / "data").mkdir()
    (folder / "data" / "empty.csv").write_bytes(b"")
    config = {
        "name": "g",
        "process.type": "batch",
        "data.sources": [
            {
                "name": "source",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "options": {"header": "true"}, "paths": ["data/empty.csv"]},
                },
            }
        ],
        "evaluate.rule": {
            "rules": [{"dsl.type": "griffin-dsl", "dq.type": "profiling", "rule": "count(*) as n from source"}]
        },
    }
    (folder / "g.json").write_text(json.dumps(config))
    empty = folder.resolve() / "data" / "empty.csv"
    for done in (gryph("validate", "g.json", cwd=folder), gryph("suggest", "data/empty.csv", cwd=folder)):
        assert done.returncode == 3
        first, near = done.stderr.splitlines()[:2]
        assert "error SOURCE_EMPTY: source " in first and f"{empty} is empty" in first
        assert near == "    near: data/empty.csv"


def test_run_reports_the_syntax_errors_of_every_statement(folder):
    suite = folder / "s.dq"
    suite.write_text('source users = csv("users.csv")\ncompletness c on users: email\npass whn all\n')
    done = gryph("run", str(suite), "--no-history")
    assert done.returncode == 2 and done.stdout == ""
    assert f"{suite}:2:1: error SYNTAX_ERROR" in done.stderr and f"{suite}:3:6: error SYNTAX_ERROR" in done.stderr
    assert "hint: did you mean 'when'? (expected 'when')" in done.stderr


@pytest.mark.parametrize(
    "args,hint",
    [
        (["rn", "{suite}"], "did you mean 'run'?"),
        (["histroy", "s"], "did you mean 'history'?"),
        (["run", "{suite}", "--fromat", "json"], "did you mean '--format' (for '--fromat')?"),
        (["validate", "{suite}", "--remtoe", "local"], "did you mean '--remote' (for '--remtoe')?"),
        (["run", "{suite}", "--engine", "duckbd"], "did you mean 'duckdb'?"),
        (
            ["validate", "{suite}", "--html", "r.html"],
            "--html is an option of gryph run, stream, report, not of gryph validate",
        ),
    ],
)
def test_a_mistyped_command_or_option_names_the_near_one(folder, args, hint):
    suite = folder / "first.dq"
    suite.write_text('source users = csv("users.csv")\ncompleteness c on users: email\n')
    done = gryph(*[a.replace("{suite}", str(suite)) for a in args])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.rstrip().endswith(f"hint: {hint}")


def test_validate_and_explain_take_the_values_a_suite_asks_for(folder):
    # the error without a value says "run with --var f=VALUE": validate and explain take it too
    (folder / "users.csv").write_text("id,email\n1,a@x\n")
    suite = folder / "daily.dq"
    suite.write_text('source users = csv("${f}.csv")\ncompleteness c on users: email\n')
    unset = gryph("validate", str(suite))
    assert unset.returncode == 2 and "UNDEFINED_VAR" in unset.stderr and "--var f=VALUE" in unset.stderr
    done = gryph("validate", str(suite), "--var", "f=users")
    assert done.returncode == 0, done.stderr  # one of a kind is counted in the singular
    assert done.stdout == f"{suite}: ok (1 rule, 0 measures, 0 checks, 1 source; pass when all)\n"
    explained = gryph("explain", str(suite), "--var", "f=users")
    assert explained.returncode == 0 and "Read users [id, email]" in explained.stdout, explained.stderr
    unused = gryph("validate", str(suite), "--var", "f=users", "--var", "g=1")
    assert unused.returncode == 2 and "UNUSED_VAR" in unused.stderr


def test_a_missing_file_names_a_near_one(folder):
    (folder / "first.dq").write_text('source users = csv("users.csv")\ncompleteness c on users: email\n')
    done = gryph("run", "frist.dq", cwd=folder)
    assert done.returncode == 2
    assert (
        "error FILE_NOT_FOUND: cannot read frist.dq" in done.stderr and "hint: did you mean 'first.dq'?" in done.stderr
    )
    far = gryph("run", "other.dq", cwd=folder)
    assert far.returncode == 2 and "hint" not in far.stderr  # nothing near: no guess
    # the suffix all suites share makes no name near: s.dq is no guess for frist.dq
    (folder / "first.dq").rename(folder / "s.dq")
    (folder / "frist.csv").write_text("id\n1\n")
    shared_suffix = gryph("run", "frist.dq", cwd=folder)
    assert shared_suffix.returncode == 2 and "hint" not in shared_suffix.stderr


def test_a_regex_literal_that_loses_a_backslash_is_a_warning_with_the_fix(folder):
    (folder / "r.csv").write_text("a\nabc\na.c\n12\n")
    suite = folder / "r.dq"
    suite.write_text(
        'source r = csv("r.csv")\n'
        "measure dots: select count(*) from r where a rlike '^a\\.c$'\n"  # the regex ^a.c$: abc and a.c
        "measure kept: select count(*) from r where a rlike '^a\\\\.c$'\n"  # the regex ^a\.c$: a.c
        'measure tabs: select count(*) from r where a rlike "\\t|\\d"\n'  # \t is a tab; \d loses its backslash
        'check "one dot": measures["dots"] == 2\n'
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"warning: {suite}:2:52: REGEX_BACKSLASH_LOST: the string '^a\\.c$' is the pattern ^a.c$: a string "
        "literal drops the backslash of \\., so the pattern does not read as written\n"
        "    near: '^a\\.c$'\n"
        "    hint: write '^a\\\\.c$' (or [.])\n"
        f'warning: {suite}:4:52: REGEX_BACKSLASH_LOST: the string "\\t|\\d" is the pattern \\x09|d: a string '
        "literal drops the backslash of \\d, so the pattern does not read as written\n"
        '    near: "\\t|\\d"\n'
        '    hint: write "\\t|\\\\d"\n'
    )
    run = gryph("run", str(suite), "--no-history", "--format", "json")
    assert run.returncode == 0 and '"dots": 2' in run.stdout.replace("\n", "").replace("  ", "")


def test_a_pattern_argument_that_loses_a_backslash_is_a_warning_too(folder):
    """regexp_extract, regexp_replace and split read their second argument as a regex, as rlike
    does: '^a\\.(c)$' is the regex ^a.(c)$, which extracts from abc too."""
    (folder / "r.csv").write_text("a\nabc\na.c\n12\n")
    suite = folder / "p.dq"
    line = "measure ex: select count(*) from r where regexp_extract(a, '^a\\.(c)$', 1) = 'c'"
    suite.write_text(
        'source r = csv("r.csv")\n'
        f"{line}\n"
        "measure parts: select count(*) from r where size(split(a, 'a\\\\.')) = 2\n"  # '\\.' keeps its backslash
        "measure swap: select count(*) from r where regexp_replace(a, '\\.', '-') = 'a-c'\n"
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 0, done.stderr
    # columns by hand: the literal of line 2 starts after "...regexp_extract(a, ", that of line 4 after "...(a, "
    extract_column = line.index("'^a") + 1
    swap_column = "measure swap: select count(*) from r where regexp_replace(a, ".__len__() + 1
    assert (
        f"warning: {suite}:2:{extract_column}: REGEX_BACKSLASH_LOST: the string '^a\\.(c)$' is the pattern ^a.(c)$"
        in done.stderr
    )
    assert f"warning: {suite}:4:{swap_column}: REGEX_BACKSLASH_LOST: the string '\\.' is the pattern ." in done.stderr
    assert done.stderr.count("REGEX_BACKSLASH_LOST") == 2  # split's '\\\\.' keeps its backslash
    assert "hint: write '^a\\\\.(c)$' (or [.])" in done.stderr
