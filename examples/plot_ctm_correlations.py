"""
Which topics appear together: a correlated topic model
======================================================

:class:`~sklearn_pgtm.CorrelatedTopicModel` learns which topics tend to
appear in the same documents, and which exclude each other: the topic
proportions of a document are a transformation of a Gaussian vector whose
covariance is learned with the topics (see :ref:`ctm`). Here it is fitted to
the messages of the embedded 20 Newsgroups pair alt.atheism /
talk.religion.misc (:func:`~sklearn_pgtm.datasets.load_religion_corpus`);
``topic_correlation_`` is then drawn as a matrix and as a graph of the
strongest links.
"""

# %%
# The corpus
# ----------
# The stored messages keep their headers, so words such as "edu",
# "subject" or "lines" occur in nearly every document; like ``max_df`` of
# :class:`~sklearn.feature_extraction.text.CountVectorizer`, drop the words
# found in more than a fifth of the documents.
import matplotlib.pyplot as plt
import numpy as np

from sklearn_pgtm import CorrelatedTopicModel
from sklearn_pgtm.datasets import load_religion_corpus

corpus = load_religion_corpus()
document_frequency = np.asarray((corpus.X_train > 0).mean(axis=0)).ravel()
keep = document_frequency <= 0.2
X = corpus.X_train[:, keep]
vocabulary = np.asarray(corpus.feature_names)[keep]
print(f"{X.shape[0]} documents, {X.shape[1]} words, {X.sum()} tokens")

# %%
# Fit
# ---
# The logistic-normal link with the moment-matched Gaussian Pólya-Gamma
# sampler, which is fast for long documents (see :ref:`polyagamma`). A short
# chain keeps the proportions of the default one: ``burn_in="auto"`` takes
# three fifths of ``max_iter`` (90 of these 150 sweeps), the first third of
# them a plain LDA warm-up. Chains this short still climb, and ``fit`` says
# so with a ConvergenceWarning (kept short for the gallery's build time; the
# default is 1,250 sweeps).
n_topics = 16
ctm = CorrelatedTopicModel(n_topics, pg_method="gaussian", max_iter=150, random_state=0).fit(X)
top_words = [
    " ".join(vocabulary[np.argsort(-ctm.components_[k])[:4]]) for k in range(n_topics)
]
for k, words in enumerate(top_words):
    print(f"[{k:2d}] {words}")

# %%
# The strongest positive and negative pairs
# -----------------------------------------
correlation = ctm.topic_correlation_
upper = np.triu_indices(n_topics, 1)
order = np.argsort(correlation[upper])
for index in np.r_[order[::-1][:4], order[:4]]:
    i, j = upper[0][index], upper[1][index]
    print(f"{correlation[i, j]:+.2f}  [{i}] {top_words[i]}  <->  [{j}] {top_words[j]}")

# %%
# Correlation matrix
# ------------------
# The correlation of the centred log proportions of every pair of topics
# (the part of the Gaussian that the data identify).
fig, ax = plt.subplots(figsize=(8, 6.5))
image = ax.imshow(correlation, cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_xticks(range(n_topics))
ax.set_yticks(range(n_topics), [f"{words} [{k}]" for k, words in enumerate(top_words)],
              fontsize=8)
ax.set_title("topic_correlation_")
fig.colorbar(image, ax=ax, fraction=0.046)
fig.tight_layout()

# %%
# Correlation graph
# -----------------
# The topics on a circle, linked when their correlation exceeds 0.3 in
# absolute value (red: they appear together; blue: they exclude each other;
# line width: strength).
threshold = 0.3
angles = np.linspace(0, 2 * np.pi, n_topics, endpoint=False)
position = np.c_[np.cos(angles), np.sin(angles)]
fig, ax = plt.subplots(figsize=(9, 6.5))
for i, j in zip(*upper):
    r = correlation[i, j]
    if abs(r) > threshold:
        ax.plot(*position[[i, j]].T, color="tab:red" if r > 0 else "tab:blue",
                lw=8 * abs(r), alpha=0.7, zorder=1)
ax.scatter(*position.T, s=150, color="white", edgecolor="black", zorder=2)
for k, (x, y) in enumerate(position):
    ax.text(1.08 * x, 1.08 * y, f"[{k}] {top_words[k]}", fontsize=8, va="center",
            ha="left" if x > 0.01 else ("right" if x < -0.01 else "center"))
ax.set_xlim(-2.1, 2.1)
ax.set_ylim(-1.2, 1.2)
ax.set_aspect("equal")
ax.axis("off")
ax.set_title(f"Topic pairs with |correlation| > {threshold}")
fig.tight_layout()
plt.show()
