"""What a check reads and the bounds it sets, for reports: the measures and metrics it names
(``measures["rows"]``, ``metrics["ids"]["unique"]``), and each comparison of one of them with a
number that the check requires (``metrics["ids"]["unique"] >= 40``: a bound at 40 on that line).
"""

from __future__ import annotations

from .tree_nodes import Binary, Call, Const, Index, ListOf, MeasureRef, MetricRef, Traced, Unary

# a comparison read from the number's side: ``40 <= x`` is ``x >= 40``
_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
Reference = dict[str, object]  # {"source": "measure" | "metric", "name": str, "path": [str | int, ...]}


def reads(expr: object) -> list[Reference]:
    """Every measure and metric ``expr`` names, in order, each once (a subscript that is not a
    constant ends its path)."""
    found: list[Reference] = []
    _collect(expr, found)
    return [ref for i, ref in enumerate(found) if ref not in found[:i]]


def _collect(expr: object, found: list[Reference]) -> None:
    reference = _reference(expr)
    if reference is not None:
        found.append(reference)
    if isinstance(expr, Traced):
        _collect(expr.expr, found)
    elif isinstance(expr, Index):
        _collect(expr.base, found)
        _collect(expr.index, found)
    elif isinstance(expr, Binary):
        _collect(expr.left, found)
        _collect(expr.right, found)
    elif isinstance(expr, Unary):
        _collect(expr.operand, found)
    elif isinstance(expr, Call):
        for arg in expr.args:
            _collect(arg, found)
    elif isinstance(expr, ListOf):
        for item in expr.items:
            _collect(item, found)


def _reference(expr: object) -> Reference | None:
    """The measure or metric a traced access names, its path up to its first subscript that is
    not a constant."""
    if not isinstance(expr, Traced):
        return None
    indices: list[object] = []
    node = expr.expr
    while isinstance(node, Index):
        indices.insert(0, node.index)
        node = node.base
    path: list[object] = []
    for index in indices:
        if not (isinstance(index, Const) and isinstance(index.value, (str, int))):
            break
        path.append(index.value)
    if isinstance(node, MeasureRef):
        return {"source": "measure", "name": node.name, "path": path}
    if isinstance(node, MetricRef):
        return {"source": "metric", "name": node.rule, "path": path}
    return None


def bounds(expr: object) -> list[dict[str, object]]:
    """The comparisons of a measure or metric with a number that ``expr`` requires: the whole
    check, or a part of ``and``s (a comparison under ``or`` or ``not`` requires nothing alone);
    each a reference with its ``op`` and ``value``, the reference on the left."""
    if isinstance(expr, Binary) and expr.op == "and":
        return bounds(expr.left) + bounds(expr.right)
    if not (isinstance(expr, Binary) and expr.op in _MIRRORED):
        return []
    for side, other, op in ((expr.left, expr.right, expr.op), (expr.right, expr.left, _MIRRORED[expr.op])):
        reference, value = _reference(side), _number(other)
        if reference is not None and value is not None and _whole_path(side):
            return [{**reference, "op": op, "value": value}]
    return []


def _whole_path(expr: object) -> bool:
    """Every subscript of an access a constant: a bound on a line of a trend chart."""
    node = expr.expr if isinstance(expr, Traced) else expr
    while isinstance(node, Index):
        if not (isinstance(node.index, Const) and isinstance(node.index.value, (str, int))):
            return False
        node = node.base
    return True


def _number(expr: object) -> int | float | None:
    """A numeric constant, a negative one included."""
    if isinstance(expr, Unary) and expr.op in ("-", "+"):
        value = _number(expr.operand)
        return None if value is None else (-value if expr.op == "-" else value)
    if isinstance(expr, Const) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return expr.value
    return None
