"""Mutation fuzzing of everything a user hands gryph: native suites, Griffin job configs (both
generations) and the check language. The property: every input is validated into a result or
ends in gryph's own error carrying a code, the file, a line and a column; never another
exception, never a hang.

Inputs are the repository's own suites and configs, mutated (bytes flipped, tokens deleted,
duplicated and swapped, JSON values replaced by values of other types) by a seeded generator,
so a run is reproducible from its seed and case number.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT_SECONDS = 10  # per case: a case still running then is a hang
SEEDS = sorted(
    [
        *REPO.glob("examples/*.dq"),
        *REPO.glob("examples/griffin/*.json"),
        *REPO.glob("tests/compiler/golden/*.dq"),
        *REPO.glob("tests/data/griffin/configs/*-griffindsl*.json"),
    ]
)
_TOKEN = re.compile(r"\w+|'[^'\n]*'|\"[^\"\n]*\"|\S")
_ODD_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1e999,
    2.5,
    "",
    "x" * 10,
    [],
    {},
    [1, "a"],
    {"a": None},
    "`",
    "'; drop table t; --",
    "\u0000\x01\u202e",
    "é日本",
    "1e999",
    "#yyyyMMdd#",
]


@dataclass
class Case:
    """One mutated input: which seed, how it was mutated, and its text."""

    seed: Path
    mutation: str
    text: str

    @property
    def suffix(self) -> str:
        return self.seed.suffix


class Workspace:
    """A temporary folder laid out like the repository, so mutated inputs find the data their
    seeds name (relative paths) without writing inside the checkout."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gryph-fuzz-"))
        for folder in ("examples", "tests/compiler/golden", "tests/data/griffin/configs", "examples/griffin"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        for link, target in (("examples/data", "examples/data"),):
            os.symlink(REPO / target, self.root / link)
        for data in (REPO / "tests/data/griffin").iterdir():
            if data.is_file():
                os.symlink(data, self.root / "tests/data/griffin" / data.name)

    def place(self, case: Case) -> Path:
        path = self.root / case.seed.relative_to(REPO)
        path.write_bytes(case.text.encode("utf-8", "surrogatepass") if isinstance(case.text, str) else case.text)
        return path

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def mutate(rng: random.Random, seed: Path) -> Case:
    """One mutation of one seed, chosen by ``rng``."""
    text = seed.read_text(encoding="utf-8")
    kinds = ["flip", "delete", "duplicate", "swap", "splice", "chain"]
    if seed.suffix == ".json":
        kinds += ["json_value"] * 3
    kind = rng.choice(kinds)
    if kind == "json_value":
        return Case(seed, kind, _replace_json_value(rng, json.loads(text)))
    if kind == "flip":
        data = bytearray(text.encode("utf-8"))
        for _ in range(rng.randint(1, 4)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return Case(seed, kind, data.decode("utf-8", "surrogateescape"))
    tokens = _TOKEN.findall(text) and [m for m in _TOKEN.finditer(text)]
    if not tokens:
        return Case(seed, kind, text)
    one = tokens[rng.randrange(len(tokens))]
    if kind == "delete":
        return Case(seed, kind, text[: one.start()] + text[one.end() :])
    if kind == "chain":  # long operator chains and prefix runs: what recursion per operand breaks on
        word = one.group()
        piece = rng.choice(
            [
                (" + " + word) * 600,
                (" and " + word) * 600,
                (" or " + word) * 300,
                "not " * 600 + word,
                "-" * 600 + word,
                "[" + ", ".join(["1"] * 3000) + "]",
                word + ".max()" * 60,
                "f(" * 100 + word + ")" * 100,
            ]
        )
        return Case(seed, kind, text[: one.start()] + piece + text[one.end() :])
    if kind == "duplicate":
        count = rng.choice((2, 3, 60, 600))
        return Case(seed, kind, text[: one.start()] + one.group() * count + text[one.end() :])
    other = tokens[rng.randrange(len(tokens))]
    if kind == "splice":  # a token from elsewhere, or an odd literal, put in its place
        piece = rng.choice(
            [
                other.group(),
                "(" * 60,
                "9" * 5000,
                "1e999",
                "`a``b`",
                "'\\'",
                "null",
                "nan",
                "a.max().max()",
                "é",
                "\x00",
            ]
        )
        return Case(seed, kind, text[: one.start()] + piece + text[one.end() :])
    first, second = sorted((one, other), key=lambda m: m.start())
    if first.end() > second.start():
        return Case(seed, kind, text)
    return Case(
        seed,
        kind,
        text[: first.start()]
        + second.group()
        + text[first.end() : second.start()]
        + first.group()
        + text[second.end() :],
    )


def _replace_json_value(rng: random.Random, data: object) -> str:
    """The document with one value somewhere in it replaced by a value of another type."""
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, (*path, index))

    walk(data, ())
    path = rng.choice(paths[1:] or paths)
    replacement = rng.choice(_ODD_VALUES)
    if not path:
        return json.dumps(replacement)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = replacement
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=True, default=str)


class Hang(Exception):
    """A case ran past the time limit."""


def _alarm(signum, frame):
    raise Hang(f"no answer within {TIME_LIMIT_SECONDS} s")


def outcome(path: Path, engine) -> str | None:
    """None when ``path`` validates or fails as gryph's located error; else what went wrong."""
    from gryph.client import validate
    from gryph.compiler.errors import GryphError

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_SECONDS)
    try:
        validate(path, engine)
        return None
    except GryphError as error:
        if error.location.file is None or error.location.line is None or error.location.column is None:
            return f"{error.code} without a location: {error}"
        return None
    except Hang as hang:
        return f"hang: {hang}"
    except Exception as error:  # what the property forbids: anything but gryph's own error
        frames = traceback.extract_tb(error.__traceback__)
        where = next(
            (
                f"{Path(f.filename).name}:{f.lineno} {f.name}"
                for f in reversed(frames)
                if "/gryph/" in f.filename or str(REPO) in f.filename
            ),
            "?",
        )
        return f"{type(error).__name__} at {where}: {str(error)[:200]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def regression_case(path: Path) -> Case:
    """A failing input kept in ``regressions/``, as a case of the seed it was mutated from."""
    seed = REPO / path.name.split("__fuzzfail")[0].replace("__", "/")
    return Case(seed, "regression", path.read_bytes())


def cases(seed: int, count: int):
    """``count`` mutated cases, reproducible from ``seed``."""
    rng = random.Random(seed)
    for _ in range(count):
        yield mutate(rng, rng.choice(SEEDS))


def parsers_disagree(case: Case) -> str | None:
    """None when the hand-written parser leaves the case's texts to textX or builds exactly the trees
    textX's path builds (a suite; for a config, each of its strings as every kind of rule text)."""
    from gryph.compiler.errors import InvalidInput
    from gryph.compiler.language.ruletree.convert import parse_rule_text
    from gryph.compiler.language.ruletree.convert_suite import parse_suite_tree
    from gryph.compiler.language.ruletree.fast import fast_rule_text, fast_suite_tree
    from gryph.compiler.language.ruletree.fast_scanner import Unhandled

    if not isinstance(case.text, str):
        return None
    if case.suffix == ".json":
        try:
            document = json.loads(case.text)
        except ValueError:
            return None
        jobs = [(grammar, text) for text in _strings(document) for grammar in ("accuracy", "profiling", "selections")]
    else:
        jobs = [("suite", case.text)]
    for grammar, text in jobs:
        try:
            fast = fast_suite_tree(text, "f") if grammar == "suite" else fast_rule_text(grammar, text, "f", 1, 2)
        except Unhandled:
            continue
        os.environ["GRYPH_PARSER"] = "textx"
        try:
            textx = parse_suite_tree(text, "f") if grammar == "suite" else parse_rule_text(grammar, text, "f", 1, 2)
        except InvalidInput as error:
            textx = error
        finally:
            del os.environ["GRYPH_PARSER"]
        if fast != textx:
            return f"the parsers disagree on this {grammar} text: {text[:200]!r}"
    return None


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
