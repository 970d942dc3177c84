"""Datasets shipped with sklearn-pgtm (no network access needed)."""

from ._religion import load_religion_corpus
from ._sotu import load_sotu_corpus
from ._wonderland import load_wonderland

__all__ = ["load_religion_corpus", "load_sotu_corpus", "load_wonderland"]
