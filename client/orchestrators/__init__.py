"""gryph inside orchestrators: Airflow's ``GryphOperator`` (airflow.py) and Dagster's asset checks
(dagster.py), each a suite run through task_runs.run_task, the Python API's run with the command
line's outputs, history and alerts. Each module imports its orchestrator: install ``gryph[airflow]``
or ``gryph[dagster]``."""
