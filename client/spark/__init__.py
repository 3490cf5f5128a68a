"""Spark Connect engine (needs the optional extra: pip install "gryph[spark]")."""
