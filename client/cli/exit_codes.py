"""The ``gryph`` command's exit codes beside an error's own (``GryphError.exit_code``: 2 invalid
input, 3 engine or data error, 4 not stored in the history, 5 an alert not delivered)."""

EXIT_OK = 0  # the run passed
EXIT_FAILED = 1  # the pass policy does not hold (or, with --strict, a warning failed)
