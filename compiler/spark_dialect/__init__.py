"""Spark's dialect, read the same by the compiler and both engines: users' Spark SQL and the regular
expressions in it, regular expression syntax and replacement text, datetime patterns, quoted names."""
