"""Pólya-Gamma topic models for scikit-learn."""

__version__ = "0.1.0.dev0"

__all__ = []
