"""Room on Python's stack for the compiler's recursive walks.

Every input is bounded before it is walked (brackets nest at most ``parser.MAX_NESTING`` deep,
expression trees at most ``precedence.MAX_EXPRESSION_DEPTH``), but a bracket level costs the
parser and the checker about twenty Python frames each, more than Python's default limit of
1,000 allows at 64 levels. The limit is raised for those blocks alone.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

COMPILER_RECURSION_LIMIT = 20000


@contextlib.contextmanager
def recursion_room(limit: int = COMPILER_RECURSION_LIMIT) -> Iterator[None]:
    """Python's recursion limit raised to ``limit`` for the block (never lowered)."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
