"""The check language (measure -> check -> pass): checks built with names checked, evaluated, judged."""
