"""
=====================================================================
Supervised topics in a scikit-learn Pipeline, tuned by GridSearchCV
=====================================================================

:class:`~sklearn_pgtm.GibbsSLDAClassifier` drops into a text-classification
pipeline like any scikit-learn classifier: here raw messages go through
``CountVectorizer`` and then the supervised topic model, and ``GridSearchCV``
chooses the regularization constant ``c`` (how much the labels weigh against
the words) and the number of topics.

The corpus is the embedded 20 Newsgroups pair alt.atheism vs
talk.religion.misc (:func:`sklearn_pgtm.datasets.load_religion_corpus`); the
pipeline needs raw text, so a small text version is rebuilt from its counts
(each document as its words repeated by count). With raw messages, put them
in ``docs`` directly. Runs in about a minute.
"""

import time

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from sklearn_pgtm import GibbsSLDAClassifier
from sklearn_pgtm.datasets import load_religion_corpus

corpus = load_religion_corpus()
vocab = np.asarray(corpus.feature_names)


def as_text(X):
    X = X.tocsr()
    return [
        " ".join(np.repeat(vocab[X.indices[X.indptr[i]:X.indptr[i + 1]]],
                           X.data[X.indptr[i]:X.indptr[i + 1]]))
        for i in range(X.shape[0])
    ]


docs_train, docs_test = as_text(corpus.X_train), as_text(corpus.X_test)

# %%
# The pipeline: words -> counts -> supervised topic model
pipe = Pipeline([
    ("counts", CountVectorizer(min_df=2)),
    ("slda", GibbsSLDAClassifier(max_iter=60, random_state=0)),
])

# %%
# Grid search over c and the number of topics (3-fold cross-validation)
grid = GridSearchCV(
    pipe,
    {"slda__c": [1.0, 25.0], "slda__n_components": [10, 20]},
    cv=3,
    n_jobs=1,
)
t0 = time.perf_counter()
grid.fit(docs_train, corpus.y_train)
print(f"grid search: {time.perf_counter() - t0:.0f} s")
for params, score in zip(grid.cv_results_["params"], grid.cv_results_["mean_test_score"]):
    print(f"  {params}: cross-validated accuracy {score:.3f}")
print("best:", grid.best_params_)
print(f"test accuracy of the refitted best pipeline: {grid.score(docs_test, corpus.y_test):.3f}")

# %%
# The topics of the best model, with their classifier weights
slda = grid.best_estimator_.named_steps["slda"]
words = grid.best_estimator_.named_steps["counts"].get_feature_names_out()
for k in np.argsort(slda.coef_[0]):
    top = words[np.argsort(-slda.components_[k])[:8]]
    print(f"weight {slda.coef_[0, k]:+6.2f}: {' '.join(top)}")
