"""Guided experiments: a prediction, a run of a lab on its page, and the outcome in words."""

from lab.experiment.outcome import ExperimentError, experiment_outcome

__all__ = ["ExperimentError", "experiment_outcome"]
