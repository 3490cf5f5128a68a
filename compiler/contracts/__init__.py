"""A third front end: an ODCS v3.1.0 data contract (YAML) read into a ``Suite``
(``contract_suite.load_contract``); ``contract_files.is_contract`` tells one without loading it."""
