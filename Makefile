.PHONY: setup test example bench

setup:
	.ci/bootstrap.sh

test: setup
	.venv/bin/python -m pytest -q

example: setup
	.venv/bin/gryph run examples/users.dq

# The benchmark (benchmarks/README.md): DuckDB and a local Spark Connect server, side by side.
# `make bench ROWS=10000000` for the size the targets are stated at.
ROWS ?= 1000000
REPEATS ?= 3

bench: setup
	.venv/bin/pip install -q -e ".[bench]"
	.venv/bin/python -m benchmarks.run --rows $(ROWS) --repeats $(REPEATS)
