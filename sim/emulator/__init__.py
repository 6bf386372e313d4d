"""Emulator: a fake sysfs tree driven by the simulated board, so the real daemon runs against it."""
