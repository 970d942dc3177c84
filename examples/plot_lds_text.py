"""
Next-word prediction in Alice in Wonderland
===========================================

:class:`~sklearn_pgtm.MultinomialLDS` reads a text word by word (one-hot rows)
and keeps a continuous state that drifts with the text. This example fits it
to the beginning of Alice's Adventures in Wonderland (embedded in the
package, :func:`~sklearn_pgtm.datasets.load_wonderland`), then predicts each
of the next 100 words from all the words before it
(:meth:`~sklearn_pgtm.MultinomialLDS.predict_next_proba` with
``continue_training=True``), and compares those predictions with the word
frequencies of the training text. The figure shows the cumulative
log-likelihood gain over the frequencies along the held-out words and the
posterior-mean states of the training text; it is saved as
``plot_lds_text.png``. On a text this short the states follow slow drifts of
the vocabulary and the next-word predictions stay close to the training
frequencies (the benchmark, ``benchmarks/RESULTS.md``, measures this on the
paper's protocol). Small settings (500 words, 3,000 tokens, 60 sweeps): about
30 s of CPU time.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from sklearn_pgtm import MultinomialLDS
from sklearn_pgtm.datasets import load_wonderland

alice = load_wonderland(n_words=500, n_tokens=3000)
X_train, X_test = alice.X[:-100], alice.X[-100:]
train_ids, test_ids = alice.token_ids[:-100], alice.token_ids[-100:]
words = alice.vocabulary

# %%
# Fit: a 10-dimensional state, 60 Gibbs sweeps (the default is 100).
lds = MultinomialLDS(n_components=10, max_iter=60, random_state=0).fit(X_train)

# %%
# Next-word probabilities of the held-out words, each given every earlier
# word (the training text included), against the training frequencies
# (add-one smoothed).
proba = lds.predict_next_proba(X_test, continue_training=True)
unigram = np.bincount(train_ids, minlength=len(words)) + 1.0
unigram /= unigram.sum()
ll_lds = np.log(proba[np.arange(100), test_ids])
ll_unigram = np.log(unigram[test_ids])
top10 = np.argsort(-proba, axis=1)[:, :10]
hit_lds = np.mean([w in row for w, row in zip(test_ids, top10)])
hit_unigram = np.mean(np.isin(test_ids, np.argsort(-unigram)[:10]))
print(f"log-likelihood per word: LDS {ll_lds.mean():.3f}, frequencies {ll_unigram.mean():.3f}")
print(f"true word among the top 10: LDS {hit_lds:.2f}, frequencies {hit_unigram:.2f}")
for t in range(40, 52):
    guess = ", ".join(words[top10[t, :3]])
    print(f"... {words[test_ids[t - 1]]:>10s} -> {words[test_ids[t]]:<10s} (LDS: {guess})")

# %%
# Figure: cumulative gain over the frequencies, and the states of the
# training text (posterior means in the coordinates of the last draw).
states = lds.transform(X_train)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
axes[0].plot(np.cumsum(ll_lds - ll_unigram))
axes[0].axhline(0.0, color="grey", lw=0.8)
axes[0].set_xlabel("held-out word")
axes[0].set_ylabel("cumulative log-likelihood gain (nats)")
axes[0].set_title("MultinomialLDS vs training frequencies")
for k in range(3):
    axes[1].plot(states[:, k], lw=0.8, label=f"state {k}")
axes[1].set_xlabel("word of the training text")
axes[1].set_title("posterior-mean states")
axes[1].legend(loc="upper right", fontsize=8)
fig.tight_layout()
fig.savefig("plot_lds_text.png", dpi=100)
