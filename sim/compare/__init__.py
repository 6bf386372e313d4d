"""Comparison: paired policy races over scenarios, the offline oracle and iso-limit baselines."""
