"""Example files shipped with the package (``thermogov service install`` copies thermogov.toml)."""
