"""
Supervised topics in a scikit-learn pipeline, tuned by grid search
==================================================================

:class:`~sklearn_pgtm.GibbsSLDAClassifier` drops into a text-classification
pipeline like any scikit-learn classifier: raw messages go through
:class:`~sklearn.feature_extraction.text.CountVectorizer`, then through the
supervised topic model, and :class:`~sklearn.model_selection.GridSearchCV`
chooses the regularization constant ``c``, which sets how much the labels
weigh against the words (see :ref:`slda`).

The corpus is the embedded 20 Newsgroups pair alt.atheism vs
talk.religion.misc (:func:`~sklearn_pgtm.datasets.load_religion_corpus`). The
pipeline needs raw text, so a text version is rebuilt from the stored counts
(each document as its words repeated by count); with your own messages, pass
them directly. The settings are small so the example runs in seconds; the
quick start of the user guide uses 20 topics and the default 1,000 sweeps.
"""

# %%
# Raw text for the pipeline
# -------------------------
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from sklearn_pgtm import GibbsSLDAClassifier
from sklearn_pgtm.datasets import load_religion_corpus

corpus = load_religion_corpus()
vocabulary = np.asarray(corpus.feature_names)


def as_text(X):
    """One string per document: each word repeated as often as it occurs."""
    X = X.tocsr()
    return [
        " ".join(np.repeat(vocabulary[X.indices[start:end]], X.data[start:end]))
        for start, end in zip(X.indptr[:-1], X.indptr[1:])
    ]


docs_train, docs_test = as_text(corpus.X_train), as_text(corpus.X_test)
print(f"{len(docs_train)} training and {len(docs_test)} test messages")

# %%
# Words -> counts -> supervised topics, and a grid over ``c``
# ------------------------------------------------------------
# ``c = 1`` is the classic supervised LDA, in which a document's hundreds of
# words outweigh its one label; ``c = 25``, the default, is the value of Zhu
# et al. (2013) for binary tasks. Three-fold cross-validation picks one.
pipe = Pipeline([
    ("counts", CountVectorizer(min_df=2)),
    ("slda", GibbsSLDAClassifier(n_components=10, max_iter=60, random_state=0)),
])
grid = GridSearchCV(pipe, {"slda__c": [1.0, 25.0]}, cv=3)
start = time.perf_counter()
grid.fit(docs_train, corpus.y_train)
print(f"grid search: {time.perf_counter() - start:.0f} s")
for params, score in zip(grid.cv_results_["params"], grid.cv_results_["mean_test_score"]):
    print(f"  c = {params['slda__c']:4.0f}: cross-validated accuracy {score:.3f}")
print(f"test accuracy of the refitted best pipeline: {grid.score(docs_test, corpus.y_test):.3f}")

# %%
# The topics of the best model and their classifier weights
# ----------------------------------------------------------
# Each topic has one weight in ``coef_``: positive weights vote for
# talk.religion.misc, negative ones for alt.atheism. The labels shaped the
# topics, so the topics at both ends of the scale are the ones that separate
# the two groups.
slda = grid.best_estimator_.named_steps["slda"]
words = grid.best_estimator_.named_steps["counts"].get_feature_names_out()
weights = slda.coef_[0]
order = np.argsort(weights)
labels = [" ".join(words[np.argsort(-slda.components_[k])[:6]]) for k in order]

fig, ax = plt.subplots(figsize=(9, 4.5), layout="constrained")
colors = np.where(weights[order] > 0, "tab:orange", "tab:blue")
ax.barh(np.arange(len(order)), weights[order], color=colors)
ax.set_yticks(np.arange(len(order)), labels, fontsize=8)
ax.axvline(0.0, color="black", lw=0.8)
ax.set_xlabel("classifier weight (coef_): < 0 alt.atheism, > 0 talk.religion.misc")
ax.set_title(f"Topics of the best pipeline (c = {grid.best_params_['slda__c']:g}), top words")
plt.show()
