"""``drift(...)`` as written -> a ``Drift`` check, its options checked before data is read.

    check "amounts steady": drift(orders.amount, method = ks, threshold = 0.1)

By then the column is a read of its sketch measure (``compiler/suites/drift_sketches.py``).
"""

from __future__ import annotations

from ..language.ruletree import check_nodes as c
from ..language.ruletree.nodes import Node
from .anomaly_syntax import Builder, constant_argument
from .check_functions import BaselineQuery, is_number
from .drift import CATEGORY_METHODS, DEFAULT_THRESHOLDS, NUMBER_METHODS, Drift
from .tree_nodes import MeasureRef, Traced

HINT = "e.g. drift(orders.amount, method = ks, threshold = 0.1), drift(orders.status, method = linf)"


def build_drift(builder: Builder, node: c.CheckCall, check: str, categorical: set[str]) -> Drift:
    """The check; ``categorical``: the sketch measures that count a text or boolean column's categories."""

    def bad(message: str, at: Node, hint: str | None = HINT) -> Exception:
        return builder.error("BAD_DRIFT_CHECK", message, at, hint)

    positional = [arg for arg in node.args if not isinstance(arg, c.CheckNamedArgument)]
    if len(positional) != 1 or node.args[0] is not positional[0]:
        raise bad("drift() takes a source's column, then named options", node)
    subject = builder.build(positional[0])
    sketch = subject.expr if isinstance(subject, Traced) else subject
    if not (isinstance(sketch, MeasureRef) and sketch.name.startswith("sketch(")):
        raise bad("drift() compares a source's column", positional[0], "write drift(source.column)")
    options: dict[str, object] = {}
    for arg in node.args[1:]:
        assert isinstance(arg, c.CheckNamedArgument)  # positional ones are checked above
        if arg.name not in ("method", "threshold"):
            raise bad(f"drift() has no parameter {arg.name!r}", arg, "its parameters: method, threshold")
        if arg.name in options:
            raise bad(f"{arg.name} is given twice", arg)
        options[arg.name] = constant_argument(builder, arg)
    method = str(options.get("method", "psi"))
    methods = CATEGORY_METHODS if sketch.name in categorical else NUMBER_METHODS
    if method not in methods:
        kind = "a text or boolean column's categories" if sketch.name in categorical else "a column of numbers"
        said = f"method must be {' or '.join(methods)} for {kind}, got {options['method']!r}"
        raise bad(said, _arg(node, "method"))
    threshold = options.get("threshold", DEFAULT_THRESHOLDS[method])
    if not is_number(threshold) or not threshold > 0:  # type: ignore[operator]
        raise bad(f"threshold must be a number > 0, got {threshold!r}", _arg(node, "threshold"))
    query = BaselineQuery("measure", sketch.name, check, include_failed=True, include_anomalies=True)
    return Drift(sketch, query, method, float(threshold))  # type: ignore[arg-type]


def _arg(node: c.CheckCall, name: str) -> Node:
    return next((a for a in node.args if isinstance(a, c.CheckNamedArgument) and a.name == name), node)
