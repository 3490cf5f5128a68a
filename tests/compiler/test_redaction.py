"""The one redaction point: every kind of secret masked wherever it stands, nothing else touched."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from gryph.client.store.history import HistoryStore
from gryph.compiler import redaction
from gryph.compiler.errors import EngineError
from gryph.compiler.redaction import redact, redact_document, register_secret
from gryph.compiler.sources.source_specs import SourceSpec


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://app:S3cret@h:5432/db", "postgresql://app:***@h:5432/db"),
        # unencoded / ? # @ in the password: all of it up to the host is hidden
        ("postgresql://app:MyP4ss/word@h:5432/db", "postgresql://app:***@h:5432/db"),
        ("postgresql://app:a#b?c@d@h/db", "postgresql://app:***@h/db"),
        ('postgres("postgresql://app:S3cret@h/db", table = "t")', 'postgres("postgresql://app:***@h/db", table = "t")'),
        ("postgresql://app@h/db?password=S3cret", "postgresql://app@h/db?password=***"),
        (
            "jdbc:postgresql://h/db?user=app&password=S3cret&sslpassword=K3y&sslmode=require",
            "jdbc:postgresql://h/db?user=app&password=***&sslpassword=***&sslmode=require",
        ),
        ("https://h/x?api_key=K3y&token=T0k", "https://h/x?api_key=***&token=***"),
        ("sc://h:15002/;user_id=me;token=T0k", "sc://h:15002/;user_id=me;token=***"),
        ("host=h user=app password=S3cret dbname=shop", "host=h user=app password=*** dbname=shop"),
        ("host=h password = 'S 3cret' port=1", "host=h password = *** port=1"),
        ('"password": "S3cret",', '"password": "***",'),
        ('"password": "S3cr', '"password": "***"'),  # a line cut short in a message
        ('"password": "S\\"3cret" "tablename": "t"', '"password": "***" "tablename": "t"'),
        ('{"client_secret":"S3cret"}', '{"client_secret":"***"}'),
    ],
)
def test_every_placement_of_a_secret_is_masked(text, shown):
    assert redact(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://app@h:5432/db?sslmode=require",
        "completeness c on t: key, password",
        "where key = 5 and token_count > 2",
        '"dataframe.name": "t", "monkey": 1',
        "sc://h:15002",
    ],
)
def test_text_without_secrets_is_left_alone(text):
    assert redact(text) == text


def test_a_registered_secret_is_masked_as_written_and_url_encoded():
    register_secret("pw with @ sign 6021")
    text = "as is pw with @ sign 6021, encoded pw%20with%20%40%20sign%206021, form pw+with+%40+sign+6021."
    assert redact(text) == "as is ***, encoded ***, form ***."


def test_documents_are_redacted_in_every_string_value_and_keep_their_keys():
    document = {"a": ["postgresql://u:S3cret@h/db", ("password=S3cret",)], "?token=T0k": 1, "n": 2.5}
    assert redact_document(document) == {
        "a": ["postgresql://u:***@h/db", ("password=***",)],
        "?token=T0k": 1,  # a key is a field or rule name that readers look up: never rewritten
        "n": 2.5,
    }


@pytest.fixture()
def registry_restored():
    """The process's registered secrets as they were before the test (the registry is global)."""
    before = set(redaction._registered)
    yield
    redaction._registered.clear()
    redaction._registered.update(before)


def test_a_registered_value_too_short_to_mask_leaves_text_whole(registry_restored):
    # a one-letter password masked everywhere turned `name` into `n***me`, and a history write
    # that looked its document up by "name" failed (found by the command-line fuzzer)
    for value in ("a", "ab", "abc"):
        register_secret(value)
    assert redact("name abc latency") == "name abc latency"
    register_secret("abcd")
    assert redact("name abcd latency") == "name *** latency"


def test_a_run_stores_its_history_whatever_short_secret_was_registered(registry_restored, tmp_path):
    register_secret("a")
    register_secret("name")  # long enough to mask, and a key of every result document
    suite = tmp_path / "s.dq"
    (tmp_path / "t.csv").write_text('name\nx\n""\n')
    suite.write_text(f'source t = csv("{tmp_path / "t.csv"}")\ncompleteness c on t: name\n')
    history = tmp_path / "h.duckdb"
    assert main(["run", str(suite), "--history", str(history), "--quiet", "--output", str(tmp_path / "o")]) == 0
    assert HistoryStore(history).runs("s")[0]["pass"] is True


def test_a_source_repr_and_description_hide_its_secrets():
    spec = SourceSpec("t", "postgres", paths=("postgresql://app@h/db?password=S3cret",), options=(("table", "x"),))
    assert "S3cret" not in repr(spec)
    assert spec.describe() == 'postgres("postgresql://app@h/db?password=***", table = "x")'


def test_an_error_made_before_its_secret_was_registered_hides_it_when_shown():
    error = EngineError("SOURCE_UNREADABLE", "login of user late-secret-7710 refused", text="late-secret-7710")
    register_secret("late-secret-7710")
    assert str(error) == "<input>: error SOURCE_UNREADABLE: login of user *** refused\n    near: ***"
    assert error.to_dict()["message"] == "login of user *** refused" and error.to_dict()["text"] == "***"
