.PHONY: setup test example

setup:
	.ci/bootstrap.sh

test: setup
	.venv/bin/python -m pytest -q

example: setup
	.venv/bin/gryph run examples/users.dq
