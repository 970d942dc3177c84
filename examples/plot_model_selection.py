"""
Choosing the number of topics by cross-validation
=================================================

A topic model's ``score`` is its held-out document completion
log-likelihood (:ref:`evaluation`): each document's tokens are split in
halves, the topic proportions are inferred from one half and the other half
is scored. So :class:`~sklearn.model_selection.GridSearchCV` can choose
``n_components`` like any other parameter, comparing how well each number of
topics predicts words it did not see. (Scoring the same words that inferred
the proportions would reward every extra topic.)

First on a corpus drawn from LDA with a known number of topics, then on the
embedded 20 Newsgroups messages
(:func:`~sklearn_pgtm.datasets.load_religion_corpus`) in a pipeline that
starts from raw text. The chains are shorter than the default 1,000 sweeps so
the example runs in seconds.
"""

# %%
# A corpus with 8 topics
# ----------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from sklearn_pgtm import GibbsLDA
from sklearn_pgtm.datasets import load_religion_corpus

# The short chains of this example are still rising when they end, and each
# of the grid's fits would say so with a ConvergenceWarning; keep the default
# max_iter for real use.
warnings.filterwarnings("ignore", category=ConvergenceWarning)

rng = np.random.default_rng(0)
n_topics, n_words, n_docs, doc_length = 8, 400, 600, 60
topics = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
proportions = rng.dirichlet(np.full(n_topics, 0.3), size=n_docs)
X = np.vstack([rng.multinomial(doc_length, p @ topics) for p in proportions])

candidates = [2, 4, 8, 16, 32]
grid = GridSearchCV(GibbsLDA(max_iter=200, random_state=0), {"n_components": candidates},
                    cv=3)
grid.fit(X)
drawn_scores = grid.cv_results_["mean_test_score"]
drawn_errors = grid.cv_results_["std_test_score"]
for k, score in zip(candidates, drawn_scores):
    print(f"  {k:3d} topics: held-out log-likelihood {score:,.0f}")
print(f"true number of topics: {n_topics}, chosen: {grid.best_params_['n_components']}")

# %%
# Raw messages, a pipeline, and the same search
# ----------------------------------------------
# The embedded corpus stores counts; a text version (each word repeated by
# its count) stands in for raw messages. The vectorizer is refitted on every
# training fold, as it would be on your own texts.
corpus = load_religion_corpus()
vocabulary = np.asarray(corpus.feature_names)
docs = [" ".join(np.repeat(vocabulary[row.indices], row.data)) for row in corpus.X_train]

pipe = Pipeline([
    ("counts", CountVectorizer(min_df=2)),
    ("lda", GibbsLDA(max_iter=150, random_state=0)),
])
text_candidates = [5, 10, 20, 40]
text_grid = GridSearchCV(pipe, {"lda__n_components": text_candidates}, cv=3).fit(docs)
for k, score in zip(text_candidates, text_grid.cv_results_["mean_test_score"]):
    print(f"  {k:3d} topics: held-out log-likelihood {score:,.0f}")
print(f"chosen: {text_grid.best_params_['lda__n_components']} topics")

# %%
# Held-out log-likelihood against the number of topics
# ----------------------------------------------------
# On the drawn corpus the score rises up to the true number of topics and
# falls beyond it, where further topics only split true ones and fit noise.
# On the messages it is still rising at 40 topics: with the "auto" priors
# estimated inside the chain, more topics keep predicting held-out words
# better on these 857 messages.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
axes[0].errorbar(candidates, drawn_scores, yerr=drawn_errors, marker="o")
axes[0].axvline(n_topics, color="grey", linestyle=":", label="true number")
axes[0].set(xscale="log", xlabel="n_components", ylabel="mean held-out log-likelihood",
            title="drawn from LDA")
axes[0].set_xticks(candidates, [str(k) for k in candidates])
axes[0].legend()
axes[1].errorbar(text_candidates, text_grid.cv_results_["mean_test_score"],
                 yerr=text_grid.cv_results_["std_test_score"], marker="o")
axes[1].set(xscale="log", xlabel="n_components", title="20 Newsgroups messages")
axes[1].set_xticks(text_candidates, [str(k) for k in text_candidates])
fig.tight_layout()
plt.show()
