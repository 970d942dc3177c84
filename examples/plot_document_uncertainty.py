"""
How sure is the model of a document's topics? Posterior draws and bands
=======================================================================

:meth:`~sklearn_pgtm.GibbsLDA.transform` returns each document's posterior
mean topic proportions; :meth:`~sklearn_pgtm.GibbsLDA.sample_transform`
returns draws from their posterior (Gibbs sweeps over the document's tokens
with the topics fixed, one Dirichlet draw of the proportions per sweep), so
the spread of the draws shows how much the words of a document pin its
topics down. A long message about one subject gets narrow bands; a short one,
or one that mixes subjects, gets wide ones.

The same draws give the uncertainty of a supervised model's prediction: the
classifier's score of a document is its weights ``coef_`` times the topic
frequencies, so the score of each draw (and its logistic) spreads as the
topics do. Fitted on the embedded corpus
(:func:`sklearn_pgtm.datasets.load_religion_corpus`) with small settings;
runs in about 15 seconds.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_pgtm import GibbsLDA, GibbsSLDAClassifier
from sklearn_pgtm.datasets import load_religion_corpus

corpus = load_religion_corpus()
lda = GibbsLDA(n_components=8, random_state=0)     # the default 1,000 sweeps
lda.fit(corpus.X_train)

# %%
# Four test messages: the two shortest and the two longest with at least ten
# words. 200 posterior draws of their topic proportions; the bands are the
# 5 % and 95 % quantiles of the draws, the dots the posterior means.
lengths = np.asarray(corpus.X_test.sum(axis=1)).ravel()
order = np.argsort(lengths)
order = order[lengths[order] >= 10]
chosen = np.concatenate([order[:2], order[-2:]])
X = corpus.X_test[chosen]
draws = lda.sample_transform(X, n_samples=200)         # (200, 4, 8)
mean = lda.transform(X)
low, high = np.quantile(draws, [0.05, 0.95], axis=0)

fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), sharey=True, constrained_layout=True)
topics = np.arange(lda.n_components)
for ax, d in zip(axes, range(len(chosen))):
    ax.vlines(topics, low[d], high[d], color="tab:blue", lw=6, alpha=0.35,
              label="90 % band")
    ax.plot(topics, mean[d], "o", color="tab:blue", label="posterior mean")
    ax.set_title(f"test message {chosen[d]}: {lengths[chosen[d]]} words", fontsize=10)
    ax.set_xlabel("topic")
    ax.set_xticks(topics)
axes[0].set_ylabel("topic proportion")
axes[0].legend(fontsize=8, loc="upper left")
plt.show()

# %%
# The band width, averaged over topics, falls with the length of a message:
# more words, less doubt about its topics.
all_draws = lda.sample_transform(corpus.X_test[order], n_samples=100)
width = np.diff(np.quantile(all_draws, [0.05, 0.95], axis=0), axis=0)[0].mean(axis=1)
fig, ax = plt.subplots(figsize=(6, 3.4), constrained_layout=True)
ax.loglog(lengths[order], width, ".", alpha=0.5)
ax.set_xlabel("words in the message")
ax.set_ylabel("mean width of the 90 % bands")
plt.show()

# %%
# A supervised model: the probability of talk.religion.misc from each draw.
# ``sample_transform`` of a binary classifier draws the proportions of its
# one topic model; the score of a draw is ``coef_[0] @ theta`` (the model
# scores the topic frequencies of the tokens, whose expectation is close to
# theta), and its logistic a probability. The spread of these probabilities
# says how sure the prediction is; ``predict_proba`` gives the point value.
# ``prediction_topics="inferred"``: the weights score the topic frequencies
# that Gibbs inference gives, as the draws are (the default scores each
# token's expected topic, without sampling). The 100 sweeps keep the
# gallery's build short; ``fit`` warns that the chain still climbs (the
# default is 1,000).
clf = GibbsSLDAClassifier(n_components=8, c=25.0, max_iter=100, prediction_topics="inferred",
                          random_state=0)
clf.fit(corpus.X_train, corpus.y_train)
theta = clf.sample_transform(X, n_samples=200)           # (200, 4, 8)
score_draws = theta @ clf.coef_[0]
proba_draws = 1.0 / (1.0 + np.exp(-score_draws))
point = clf.predict_proba(X)[:, 1]
for d in range(len(chosen)):
    s_lo, s_hi = np.quantile(score_draws[:, d], [0.05, 0.95])
    p_lo, p_hi = np.quantile(proba_draws[:, d], [0.05, 0.95])
    print(f"message {chosen[d]:4d} ({lengths[chosen[d]]:4d} words): "
          f"P(talk.religion.misc) = {point[d]:.3f}; 90 % of the draws: score "
          f"[{s_lo:+.1f}, {s_hi:+.1f}], probability [{p_lo:.3f}, {p_hi:.3f}]")
