"""Cases held as data, run on both engines with the same expected values."""
