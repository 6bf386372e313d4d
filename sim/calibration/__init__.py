"""Calibration: fit a board profile's thermal model to a logged run (``thermogov calibrate``)."""
