"""The real Linux world: sysfs sensors and frequency caps, and the root daemon.

One job per module: ``sysfs`` (the only code that opens kernel files), ``discovery`` (what the
board has), ``mapping`` (board profile -> devices), ``limits`` (valid min/max write order),
``devices`` (sensor sources, cap actuators), ``telemetry`` (board power, inference count),
``journal`` (lock, restore journal), ``workload`` / ``infer`` (inference load), ``tickstats``,
``daemon`` (the real-time runner), ``doctor`` and ``commands`` (the CLI).
"""
