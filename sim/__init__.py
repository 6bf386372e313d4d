"""The simulated world: a board's thermal network, power draw and inference load in SimPy."""
