"""Datasets shipped with sklearn-pgtm (no network access needed)."""

from ._religion import load_religion_corpus

__all__ = ["load_religion_corpus"]
