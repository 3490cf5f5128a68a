"""gryph compiler: the Griffin DSL, its checks, and the backend-neutral plan."""
