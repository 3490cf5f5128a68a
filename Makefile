.PHONY: setup test example bench fuzz

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

# Mutation fuzzing of suites and configs (tests/fuzz): every input must end as a result or a
# located error. `make fuzz N=100000 SEED=7`; failing inputs land in fuzz-failures/.
N ?= 10000
SEED ?= 1

fuzz: setup
	.venv/bin/python tests/fuzz/fuzz_run.py --cases $(N) --seed $(SEED)
