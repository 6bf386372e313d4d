"""Fit a board profile's thermal model to a logged run, so the simulator predicts *your* board.

This module is the public face of the calibration; each stage lives in its own module:

* :mod:`~thermogov.sim.calibration.data` reads a run folder, trace or raw log into arrays
  (:class:`LogData`) and block-averages long logs;
* :mod:`~thermogov.sim.calibration.inputs` derives the power model's inputs per domain, inferring
  what the log lacks (no clock -> top OPP; no load -> busy while the clock is raised; neither ->
  the load step seen in the temperature), and maps log sensors to thermal nodes;
* :mod:`~thermogov.sim.calibration.model` is the model: the fitted parameters and their priors,
  the input between samples (the *expected* power, interpolated, because a logged change
  happened somewhere between two samples), the exact linear response used by the fit and the
  simulator's own plant used for the open-loop check;
* :mod:`~thermogov.sim.calibration.fit` runs the least-squares fit on the training part, the
  Laplace uncertainty and the held-out RMSE (:func:`calibrate`, :class:`CalibrationResult`);
* :mod:`~thermogov.sim.calibration.select` chooses how many parameters the training part
  supports (validation inside it), and :mod:`~thermogov.sim.calibration.state` estimates the
  model's state at the split (a Kalman filter) so the held-out forecast starts where the board is;
* :mod:`~thermogov.sim.calibration.steady` predicts (and, when the log got there, measures) the
  steady state under the main load;
* :mod:`~thermogov.sim.calibration.profile` writes the calibrated profile as TOML.

The method and the results on the reference logs are in ``docs/calibration.md``.
"""

from __future__ import annotations

from thermogov.sim.calibration.data import LogData, decimate, load_log_data, log_data_from_columns
from thermogov.sim.calibration.fit import CalibrationResult, FittedParam, calibrate, effective_samples
from thermogov.sim.calibration.inputs import Inputs, derive_inputs, infer_step, sensor_nodes
from thermogov.sim.calibration.model import ParamSpec, apply_params, make_grid, param_specs
from thermogov.sim.calibration.profile import board_to_dict, board_toml, calibrated_profile_text
from thermogov.sim.calibration.steady import SteadyState, steady_state_c

__all__ = [
    "CalibrationResult",
    "FittedParam",
    "Inputs",
    "LogData",
    "ParamSpec",
    "SteadyState",
    "apply_params",
    "board_to_dict",
    "board_toml",
    "calibrate",
    "calibrated_profile_text",
    "decimate",
    "derive_inputs",
    "effective_samples",
    "infer_step",
    "load_log_data",
    "log_data_from_columns",
    "make_grid",
    "param_specs",
    "sensor_nodes",
    "steady_state_c",
]
