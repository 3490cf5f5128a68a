"""gryph's tests: one package per package of the product, plus `support` (helpers every folder shares)."""
