"""Guided experiments: a prediction, a run of a lab on its page, and the outcome in words."""

from lab.guided.tasks import TaskError, run_task, task_outcome, task_params

__all__ = ["TaskError", "run_task", "task_outcome", "task_params"]
