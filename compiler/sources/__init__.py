"""Sources: where a suite's rows come from (files, databases, in-memory tables), as engines load them."""
