"""Built-in board profiles (TOML data files); loaded by :mod:`thermogov.board`."""
