"""Plots of run folders (``thermogov plot``) and the figures notebooks draw."""
