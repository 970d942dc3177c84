"""
Exploring topics with pyLDAvis
==============================

`pyLDAvis <https://github.com/bmabey/pyLDAvis>`_ draws an interactive map of
the topics (their distances and sizes) and the words that define them. Its
``pyLDAvis.lda_model.prepare`` reads a scikit-learn topic model through
``components_`` (topic-word pseudo-counts) and ``transform`` (document-topic
proportions), the meaning every topic model of this package gives them, so
it works unchanged on :class:`~sklearn_pgtm.GibbsLDA`,
:class:`~sklearn_pgtm.EmpiricalBayesLDA` and
:class:`~sklearn_pgtm.CorrelatedTopicModel`.

pyLDAvis is not a dependency of the package (``pip install pyLDAvis``, or the
``examples`` extra). This recipe is shown, not run, when the documentation is
built; it writes ``topics.html``, which opens in any browser (in a notebook,
``pyLDAvis.display(panel)`` shows it inline).
"""

import pyLDAvis
import pyLDAvis.lda_model
from sklearn.feature_extraction.text import CountVectorizer

from sklearn_pgtm import GibbsLDA
from sklearn_pgtm.datasets import load_religion_corpus

# %%
# pyLDAvis wants the fitted vectorizer for the vocabulary; the embedded corpus
# is already counted, so a vectorizer with its vocabulary stands in for it.
corpus = load_religion_corpus()
vectorizer = CountVectorizer(vocabulary=corpus.feature_names).fit([])
model = GibbsLDA(n_components=10, random_state=0).fit(corpus.X_train)

# %%
# ``mds="mmds"`` places the topics by metric multidimensional scaling of
# their Jensen-Shannon distances (scikit-learn's MDS).
panel = pyLDAvis.lda_model.prepare(model, corpus.X_train, vectorizer, mds="mmds")
pyLDAvis.save_html(panel, "topics.html")
