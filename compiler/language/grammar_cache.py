"""A disk cache of the textX metamodels: building one from the grammar files costs every process
about 0.2 s, loading a pickled one a few milliseconds.

The pickle holds what the grammar files make (object processors are registered after loading)
and is keyed by the grammar files' contents, textX's options, the textX, Arpeggio and Python
versions and this module's format; a cache that is missing, stale, unreadable or unwritable is ignored and the
metamodel built as before, so the cache can neither change a result nor fail a run.
It lives in gryph's cache folder (``support/cache_folders.py``: ``GRYPH_CACHE_DIR`` moves it,
``GRYPH_CACHE_DIR=off`` turns it off).

textX makes a Python class per grammar rule and its model parser's class inside functions, and
keeps a few lambdas and ``sys.stdout``: pickle cannot name those, so the pickler below stores a
rule class as its name and attributes and remakes it at load with textX's own ``_new_class`` (on a
throwaway metamodel), makes the parser with textX's ``get_model_parser`` and then sets its
attributes, and refers to the lambdas, the stream and textX's constants (compared by identity) by name.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..support.cache_folders import cache_dir

Model = TypeVar("Model")

FORMAT = 2  # bump when the pickled layout changes


def cache_key(name: str, grammar_files: list[Path], options: dict[str, object]) -> str:
    """A name for the pickle of metamodel ``name`` that changes whenever anything it depends on does."""
    import arpeggio
    import textx

    digest = hashlib.sha256()
    for part in (
        str(FORMAT),
        textx.__version__,
        arpeggio.__version__,
        sys.version,
        name,
        repr(sorted(options.items())),
    ):
        digest.update(part.encode() + b"\0")
    for path in sorted(grammar_files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"metamodel-{name}-{digest.hexdigest()[:32]}.pickle"


def cached_metamodel(
    name: str,
    grammar_files: list[Path],
    options: dict[str, object],
    build: Callable[[], Model],
    directory: Path | None = None,
) -> Model:
    """The metamodel ``build()`` makes from ``grammar_files`` with textX ``options``, loaded from the
    cache (``directory``, by default ``cache_dir()``) when a valid pickle is there."""
    from ..support.recursion_room import recursion_room

    directory = directory or cache_dir()
    if directory is None:
        return build()
    try:
        path = directory / cache_key(name, grammar_files, options)
    except OSError:  # a grammar file unreadable: building will say so
        return build()
    with recursion_room():  # the metamodel is a deep graph: pickle walks it recursively
        try:
            loaded: Model = _Unpickler(io.BytesIO(path.read_bytes())).load()
            return loaded
        except Exception:  # missing, truncated or from another layout: rebuild
            pass
        model = build()
        _store(path, model)
    return model


def _store(path: Path, model: object) -> None:
    """Write the pickle atomically (a reader never sees half a file); failure only costs speed."""
    try:
        buffer = io.BytesIO()
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(model)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(buffer.getvalue())
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except Exception:  # read-only home, full disk, an unpicklable novelty of textX
        pass


def _is_rule_class(obj: object) -> bool:
    from textx.metamodel import TextXMetaClass

    return isinstance(obj, TextXMetaClass) and "<locals>" in obj.__qualname__


def _default_processors() -> dict[str, Callable[..., object]]:
    """textX's conversion lambdas of the base types, as a fresh metamodel has them."""
    processors: dict[str, Callable[..., object]] = _scratch_metamodel()._default_obj_processors
    return processors


_SCRATCH: list[Any] = []  # textX's TextXMetaModel, made once


def _scratch_metamodel() -> Any:
    """A metamodel without rules (cheap), whose ``_new_class`` makes rule classes as textX does."""
    if not _SCRATCH:
        from textx.metamodel import TextXMetaModel

        _SCRATCH.append(TextXMetaModel())
    return _SCRATCH[0]


def _new_rule_class(name: str) -> Any:
    return _scratch_metamodel()._new_class(name, None, 0)


_MODEL_PARSER = "get_model_parser.<locals>.TextXModelParser"


def _new_model_parser() -> Any:
    """A model parser of textX's own class, whose attributes the pickle then sets."""
    from textx.model import get_model_parser

    return get_model_parser(None, None)


def _fill_rule_class(cls: type, state: dict[str, object]) -> None:
    for attribute, value in state.items():
        setattr(cls, attribute, value)


# Attributes of a rule class that textX's _new_class sets itself, or Python owns.
_CLASS_OWN = {"__dict__", "__weakref__", "__repr__", "__module__", "__qualname__", "__doc__"}


def _textx_constants() -> dict[str, str]:
    """textX's rule-type and multiplicity strings by name: textX compares them with ``is``."""
    from textx import const

    return {name: value for name, value in vars(const).items() if name.isupper() and isinstance(value, str)}


class _Pickler(pickle.Pickler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._constants = {id(value): name for name, value in _textx_constants().items()}

    def persistent_id(self, obj: object) -> tuple[str, ...] | None:
        if isinstance(obj, io.TextIOBase):
            return ("stream",)
        if type(obj) is str and id(obj) in self._constants:
            return ("const", self._constants[id(obj)])
        return None

    def reducer_override(self, obj: Any) -> Any:
        if _is_rule_class(obj):
            state = {k: v for k, v in vars(obj).items() if k not in _CLASS_OWN}
            return _new_rule_class, (obj.__name__,), state, None, None, _fill_rule_class
        if type(obj).__qualname__ == _MODEL_PARSER:
            return _new_model_parser, (), vars(obj)
        if callable(obj) and getattr(obj, "__name__", "") == "<lambda>":
            # a metamodel makes its own lambdas: they are known by their code
            for key, known in _default_processors().items():
                if obj.__code__ is known.__code__:
                    return _default_processor, (key,)
        return NotImplemented


def _default_processor(key: str) -> Callable[..., object]:
    return _default_processors()[key]


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> object:
        if pid == ("stream",):
            return sys.stdout
        if pid[0] == "const":
            return _textx_constants()[pid[1]]
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
