"""The language: grammar, the textX and hand-written parsers, the typed rule tree, and literals."""
