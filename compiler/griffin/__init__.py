"""Apache Griffin job configs: generation A (``evaluate.rule``) and generation B (``measures``)."""

from .job import load_griffin_job

__all__ = ["load_griffin_job"]
