"""The `gryph` command line: one module per command family, its options declared with it."""
