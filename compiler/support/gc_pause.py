"""Building a model and a plan makes many small linked objects, none of them garbage.

Python's cyclic collector would walk them again and again while they are made (about half of
the time of validating a thousand rules), so it is paused for the duration and run once after.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

Params = ParamSpec("Params")
Result = TypeVar("Result")


def without_cyclic_gc(function: Callable[Params, Result]) -> Callable[Params, Result]:
    """Run ``function`` with the cyclic garbage collector paused (reference counting goes on)."""

    @functools.wraps(function)
    def wrapper(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        if not gc.isenabled():  # already paused by a caller
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper
