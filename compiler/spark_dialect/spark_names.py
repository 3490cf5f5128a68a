"""Names in Spark SQL text: the one quoting rule every writer of Spark SQL shares, and users' queries
wrapped so they stay one query."""


def quoted(name: str) -> str:
    """A name backquoted for Spark's parser, so dots, spaces, backquotes and keywords are literal."""
    return "`" + name.replace("`", "``") + "`"


def with_frames(text: str, frames: dict[str, str]) -> str:
    """``text`` run with each name of ``frames`` bound to the view it stands for (as CTEs, which
    shadow any table of the same name for this query alone)."""
    query = text.strip().rstrip(";").rstrip()
    bindings = ", ".join(f"{quoted(name)} AS (SELECT * FROM {quoted(view)})" for name, view in frames.items())
    # the query stays inside parentheses, so it can only ever be one query
    return f"{'WITH ' + bindings + ' ' if bindings else ''}SELECT * FROM (\n{query}\n)"
