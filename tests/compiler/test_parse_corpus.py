"""The cached grammars parse exactly as the grammar files do, on every rule text the tests hold.

The corpus: every .dq file of the tests, examples and benchmarks, every string of the JSON files
(Griffin job configs and the fuzzer's regressions), and every string literal of the test modules.
Each text is parsed with each grammar twice, by the metamodel built from the grammar files and by
the one loaded from the disk cache; the models (class, position and attributes of every node, the
precedence trees included) or the errors (code, message, location, text, hint) must be equal.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language import textx_parser as parser
from gryph.compiler.language.grammar_cache import cache_key, cached_metamodel
from tests.compiler.parser_outcomes import fast_outcome, textx_outcome

ROOT = Path(__file__).resolve().parents[2]
GRAMMARS = ("suite", "accuracy", "profiling", "selections")
LONGEST = 20_000  # longer literals are generated inputs of the limit tests, not rule texts


def _strings_of_json(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings_of_json(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_of_json(item)


def corpus() -> list[str]:
    """Every rule text of the tests, examples and benchmarks, each once, in a stable order."""
    texts: dict[str, None] = {}
    for folder in ("tests", "examples", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.dq")):
            texts[path.read_text(encoding="utf-8", errors="replace")] = None  # some test bad encodings
    for folder in ("tests", "examples"):
        for path in sorted((ROOT / folder).rglob("*.json")):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:  # the malformed configs of the error tests
                continue
            texts.update(dict.fromkeys(_strings_of_json(document)))
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts[node.value] = None
    return [text for text in texts if text.strip() and len(text) <= LONGEST]


def shape(node):
    """A model as plain data: class names, source positions and attributes, parents left out."""
    if isinstance(node, list):
        return [shape(item) for item in node]
    if node is None or isinstance(node, (str, int, float, bool)):
        return node
    fields = {
        name: shape(value)
        for name, value in vars(node).items()
        if name != "parent" and (not name.startswith("_tx_") or name in ("_tx_position", "_tx_position_end"))
    }
    return type(node).__name__, fields


def outcome(grammar: str, text: str):
    try:
        return ("model", shape(parser.parse(grammar, text, "rules.dq", 2, 4)))
    except InvalidInput as error:
        return ("error", error.code, error.message, error.location, error.text, error.hint)


@pytest.fixture(scope="module")
def metamodels(tmp_path_factory):
    """Per grammar: the metamodel built from the files, and the one the cache gives back."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRYPH_CACHE_DIR", str(tmp_path_factory.mktemp("grammar-cache")))
        pairs = {}
        for grammar in GRAMMARS:
            parser.metamodel.__wrapped__(grammar)  # builds and stores
            built = parser.build_metamodel(grammar)
            with pytest.MonkeyPatch.context() as no_build:
                no_build.setattr(parser, "_from_grammar", _must_not_build)
                pairs[grammar] = (built, parser.metamodel.__wrapped__(grammar))
    return pairs


def _must_not_build(name):
    raise AssertionError(f"the cache was not used for {name}")


def test_the_corpus_is_the_tests_rule_texts():
    texts = corpus()
    assert len(texts) > 1000
    assert (ROOT / "examples" / "users.dq").read_text() in texts


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_cached_grammar_parses_the_corpus_as_the_grammar_files_do(grammar, metamodels, monkeypatch):
    built, loaded = metamodels[grammar]
    texts = corpus()
    monkeypatch.setattr(parser, "metamodel", lambda name: built)
    expected = [outcome(grammar, text) for text in texts]
    monkeypatch.setattr(parser, "metamodel", lambda name: loaded)
    actual = [outcome(grammar, text) for text in texts]
    parsed = sum(1 for result in expected if result[0] != "error")
    assert parsed > 20, "the corpus must hold texts this grammar reads"
    for text, want, got in zip(texts, expected, actual, strict=True):
        assert got == want, text


def _files():
    return sorted(parser.GRAMMAR_DIR.glob("*.tx"))


def _built(name):
    return lambda: parser.build_metamodel(name)


OPTIONS = parser.GRAMMAR_OPTIONS


def test_an_unreadable_cache_is_rebuilt_and_replaced(tmp_path):
    files = _files()
    stored = tmp_path / "cache" / cache_key("selections", files, OPTIONS)
    stored.parent.mkdir()
    stored.write_bytes(b"not a pickle")
    model = cached_metamodel("selections", files, OPTIONS, _built("selections"), tmp_path / "cache")
    assert shape(model.model_from_str("a, b").body) == shape(
        parser.build_metamodel("selections").model_from_str("a, b").body
    )
    assert stored.read_bytes() != b"not a pickle"  # the next process loads the good one
    assert not [path for path in stored.parent.iterdir() if path.suffix == ".tmp"]


def test_an_unwritable_cache_only_costs_speed(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache directory cannot be made inside a file")
    model = cached_metamodel("profiling", _files(), OPTIONS, _built("profiling"), blocker / "cache")
    assert model.model_from_str("count(*) as n").body.items[0].alias == "n"


def test_the_cache_key_follows_the_grammar_text_and_options(tmp_path):
    files = _files()
    copies = []
    for path in files:
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        copies.append(copy)
    assert cache_key("suite", copies, OPTIONS) == cache_key("suite", files, OPTIONS)
    assert cache_key("suite", files, {**OPTIONS, "autokwd": False}) != cache_key("suite", files, OPTIONS)
    assert cache_key("accuracy", files, OPTIONS) != cache_key("suite", files, OPTIONS)
    copies[0].write_bytes(copies[0].read_bytes() + b"\n// changed\n")
    assert cache_key("suite", copies, OPTIONS) != cache_key("suite", files, OPTIONS)


def test_the_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("GRYPH_CACHE_DIR", "off")
    built = []
    cached_metamodel("selections", _files(), OPTIONS, lambda: built.append(1) or parser.build_metamodel("selections"))
    assert built == [1]


# -- the hand-written parser against textX, on the same corpus ---------------------------------------
@pytest.mark.parametrize("grammar", GRAMMARS)
def test_the_fast_parser_builds_textx_trees_on_the_corpus(grammar, monkeypatch):
    """Every text the fast parser reads gives the tree textX's path gives, node by node (dataclass
    equality: positions and texts included); texts it leaves alone go to textX, errors included."""
    handled = parsed = 0
    for text in corpus():
        want = textx_outcome(grammar, text, monkeypatch)
        got = fast_outcome(grammar, text)
        parsed += want[0] == "tree"
        if got is None:
            continue
        handled += 1
        assert got == want, text
    assert parsed > 20
    assert handled >= 0.9 * parsed, f"the fast parser read {handled} of the {parsed} texts textX reads"
