"""Plan -> PySpark Connect DataFrames and Columns: one function per node, types both ways."""
