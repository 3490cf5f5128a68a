"""Helpers shared by every test folder: the one value comparison, plans built by hand, the CLI."""
