"""thermogov: a thermal- and power-aware DVFS governor for edge AI boards.

The core (this package) is world-agnostic: sensors, fusion, policies, the governor tick and
the run record.  ``thermogov.sim`` simulates a board; ``thermogov.hw`` drives a real one.
"""

__version__ = "0.1.0"
