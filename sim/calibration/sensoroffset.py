"""A fitted reading offset for every logged sensor after the first: sensors that disagree at one state.

The model places each logged sensor on one node of the profile's network, and two sensors on one
node (or on two nodes the network couples tightly) must then read alike.  Real on-die sensors do
not: an AGX Orin under a steady GPU load reads ``cpu-thermal`` about 3.3 K above ``gpu-thermal``
while the GPU rail draws about 13 times the CPU rail (docs/calibration.md, Session 29p), which no
placement of heat in this network reproduces.  Without a term for it the fit pulls its power
scales and paths to their bounds to split the two traces, and the forecast of the first sensor
(the one every figure is reported for) pays.  Tegra's thermal zones are separate sensors with
their own calibration and sit at different distances from the hot spots (NVIDIA Jetson Linux
Developer Guide, *Thermal Management*: the SOC_THERM zones CPU, GPU, CV, SOC are distinct
sensors), so a constant difference between them is the plainest thing the model lacks.

Each sensor after the first gets one additive offset in °C.  The first sensor carries none: its
level is the ambient's and the initial offset's, and an offset on every sensor would not be
identified against them.  The prior is centred on 0 (sensors agree unless the data say not) with
:data:`SENSOR_OFFSET_PRIOR_C`, and it is bounded to :data:`SENSOR_OFFSET_BOUND_C`: a board's
zones differ by a few kelvin at one state, a larger gap is a wrong mapping of sensor to node and
must stay visible as a misfit.  Both figures were set before measuring and not searched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from thermogov.sim.calibration.model import ParamSpec

KIND = "sensor_offset"
SENSOR_OFFSET_PRIOR_C = 2.0  # sensors of one board agree to a few kelvin (see the module docstring)
SENSOR_OFFSET_BOUND_C = 6.0  # beyond this the sensor-to-node mapping is wrong, not the offset


def sensor_offset_specs(sensors: Mapping[str, str]) -> list[ParamSpec]:
    """One offset for each logged sensor after the first (``sensors``: log sensor -> node, in order)."""
    return [
        ParamSpec(
            f"sensor_offset[{name}]",
            KIND,
            (name,),
            0.0,
            SENSOR_OFFSET_PRIOR_C,
            "°C",
            SENSOR_OFFSET_BOUND_C / SENSOR_OFFSET_PRIOR_C,
        )
        for name in list(sensors)[1:]
    ]


def sensor_offsets(
    specs: Sequence[ParamSpec], values: Sequence[float], sensors: Mapping[str, str]
) -> np.ndarray:
    """Each sensor's reading offset in °C (0 for the first and for any sensor without one), in ``sensors``' order."""
    by_name = {s.key[0]: float(v) for s, v in zip(specs, values, strict=True) if s.kind == KIND}
    return np.array([by_name.get(name, 0.0) for name in sensors])


def offset_column(specs: Sequence[ParamSpec], free: np.ndarray, sensor: str) -> int | None:
    """The free parameter (index into ``free``) that offsets ``sensor``'s readings, if any."""
    for j, i in enumerate(free):
        s = specs[int(i)]
        if s.kind == KIND and s.key == (sensor,):
            return j
    return None
