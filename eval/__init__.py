"""Evaluation: scenario suite, metrics and benchmarks (``python -m eval``)."""
