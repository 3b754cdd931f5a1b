"""biarena: benchmark, judge and rank AI data analysts on SQL databases."""

__version__ = "0.1.0"
