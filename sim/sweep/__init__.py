"""What-if sweeps: many simulated runs over config and board keys, on local cores or Dask.

``spec`` reads and validates a sweep file, ``keys`` applies its keys to a point's world,
``point`` runs one point as a normal run, ``executors`` runs many, ``table`` writes the results,
``engine`` ties them together and ``cli`` is ``thermogov sweep``.
"""
