"""Sources on Spark: files, catalog tables, databases and uploaded frames as DataFrames."""
