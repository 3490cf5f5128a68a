"""The compiler's input: a ``Suite`` (whatever format it came from) and the native ``.dq`` front end."""
