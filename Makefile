.PHONY: setup setup-tests test test-fast lint typecheck typecheck-tree example bench bench-startup bench-warm-spark bench-stream fuzz

# Installs run only when what they install from changed: a stamp in .venv named after the hash of
# pyproject.toml and the bootstrap script says this environment already has it (a new venv has
# no stamps). `rm .venv/.installed-*` forces a reinstall.
INSTALL_KEY := $(shell cat pyproject.toml .ci/bootstrap.sh | sha256sum | cut -c1-16)
STAMP = .venv/.installed-$(INSTALL_KEY)

setup: $(STAMP)-base

# also Java 17, Chromium, PostgreSQL and the JDBC drivers: the real servers the tests start
setup-tests: $(STAMP)-tests

$(STAMP)-base:
	.ci/bootstrap.sh
	touch $@

$(STAMP)-tests:
	.ci/bootstrap.sh tests
	touch $@ $(STAMP)-base

# mypy reads the engines' client libraries (PySpark, the database and Kafka drivers): every extra
$(STAMP)-dev: | $(STAMP)-base
	.venv/bin/pip install -q -e ".[all,dev]"
	touch $@

# Two worker processes (pytest-xdist), one a core. Every Spark test goes to one worker
# (loadgroup: tests/conftest.py groups them), so one Spark server serves the run while the
# other worker runs the DuckDB tests. WORKERS=0 runs in this process.
WORKERS ?= 2

# --durations: the slowest tests, printed by every run, so a run that grows shows where
test: setup-tests
	.venv/bin/python -m pytest -q -n $(WORKERS) --dist loadgroup --durations=30

# DuckDB only: the tests that need a Spark server carry the `spark` marker (tests/conftest.py); the
# wheel's build and install (`wheel` marker) are left to `make test` too
test-fast: setup-tests
	.venv/bin/python -m pytest -q -n $(WORKERS) -m "not spark and not wheel"

# mypy, one folder at a time (strict on compiler/, default mode elsewhere: pyproject.toml).
# TYPED: the folders `make lint` holds clean (all three: a new top-level package joins here).
TYPED = compiler client local_backend
# each folder's own errors: the modules it imports from the others are read, not reported
MYPY = .venv/bin/mypy --follow-imports=silent --no-error-summary

lint: typecheck-tree
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	for d in $(TYPED); do $(MYPY) -p gryph.$$d || exit 1; done
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet

# every folder's count, clean or not; fails if any folder has errors
typecheck: typecheck-tree
	@failed=0; for d in $(TYPED); do \
		$(MYPY) -p gryph.$$d > build/typecheck/$$d.txt; \
		n=$$(grep -c ": error:" build/typecheck/$$d.txt); \
		if [ $$n -eq 0 ]; then echo "$$d/: clean"; else cat build/typecheck/$$d.txt; echo "$$d/: $$n errors"; failed=1; fi; \
	done; exit $$failed

# mypy reads the package as it installs (gryph.compiler -> compiler/): build/typecheck/gryph
# lays the three folders out so, as setuptools' package-dir maps them
typecheck-tree: $(STAMP)-dev
	mkdir -p build/typecheck/gryph
	for d in compiler client local_backend; do ln -sfn ../../../$$d build/typecheck/gryph/$$d; done

# the base package alone: DuckDB suites need no extra
example: setup
	.venv/bin/gryph run examples/users.dq

# The benchmark (benchmarks/README.md): DuckDB and a local Spark Connect server, side by side.
# `make bench ROWS=10000000` for the size the targets are stated at.
ROWS ?= 1000000
# DuckDB's memory cap in the benchmark (it spills beyond it); SYSTEMS=a,b runs a subset
DUCKDB_MEMORY ?= 8GB
SYSTEMS ?=
REPEATS ?= 3

bench: setup-tests
	.venv/bin/pip install -q -e ".[bench]"
	.venv/bin/python -m benchmarks.run --rows $(ROWS) --repeats $(REPEATS) --duckdb-memory $(DUCKDB_MEMORY) \
		$(if $(SYSTEMS),--systems $(SYSTEMS))

# A warm Spark run (benchmarks/warm_spark.py): examples/users.dq on one running local Connect
# server, gryph's CLI and API against the same metrics hand-written in PySpark
bench-warm-spark: setup-tests
	.venv/bin/python -m benchmarks.warm_spark --repeats $(REPEATS)

# Streams (benchmarks/streaming.py): gryph stream against hand-written Kafka consumers, on a broker
# and a local Spark Connect server the run starts; `make bench-stream REPEATS=5`, NO_SPARK=1 for DuckDB only
bench-stream: setup-tests
	.venv/bin/python -m benchmarks.streaming --repeats $(REPEATS) $(if $(NO_SPARK),--no-spark)

# Small runs and cold validation (benchmarks/startup.py): fresh processes side by side, medians.
bench-startup: setup
	.venv/bin/python -m benchmarks.startup --repeats $(or $(STARTUP_REPEATS),7)

# Mutation fuzzing of suites and configs (tests/fuzz): every input must end as a result or a
# located error. `make fuzz N=100000 SEED=7`; failing inputs land in fuzz-failures/.
N ?= 10000
SEED ?= 1

fuzz: setup
	.venv/bin/python -m tests.fuzz.fuzz_run --cases $(N) --seed $(SEED)
