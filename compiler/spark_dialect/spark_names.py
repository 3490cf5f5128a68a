"""Names in Spark SQL text: the one quoting rule every writer of Spark SQL shares."""


def quoted(name: str) -> str:
    """A name backquoted for Spark's parser, so dots, spaces, backquotes and keywords are literal."""
    return "`" + name.replace("`", "``") + "`"
