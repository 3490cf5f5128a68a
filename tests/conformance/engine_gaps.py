"""What an engine does not run, as each engine declares it (its ``CAPABILITIES``; ibis marks
``notimpl`` and ``notyet`` the same way) rather than as the tests know it.

A test over a declared gap expects that engine to refuse with ``UnsupportedError`` in the
declared wording; when the engine learns it, the test fails until the declaration goes.
"""

from __future__ import annotations

import contextlib
import re

import pytest

from gryph.client.run.engines import ENGINES, capabilities_of
from gryph.compiler.engine import unsupported_message
from gryph.compiler.errors import UnsupportedError


def engine_gap(engine, feature: str):
    """The block runs ``feature`` on ``engine``: where it is a declared gap, it must be refused."""
    declared = {r.feature for name in ENGINES for r in capabilities_of(name).refusals}
    assert feature in declared, f"undeclared gap {feature!r}"
    refused = {r.feature: r for r in engine.capabilities.refusals}
    if feature in refused:
        message = unsupported_message(feature, engine.name, refused[feature].gap)
        return pytest.raises(UnsupportedError, match=re.escape(message))
    return contextlib.nullcontext()
