"""
Do the chains agree? Traces, R-hat and effective sample size
============================================================

Every model of the package is fitted by a Markov chain, whose result is one
random draw. Whether a chain ran long enough shows only when several chains
from independent seeds are compared:
:func:`sklearn_pgtm.diagnostics.run_chains` fits four clones of a supervised
topic model on the embedded 20 Newsgroups corpus (alt.atheism vs
talk.religion.misc) in parallel, and
:func:`sklearn_pgtm.diagnostics.summary` compares their traces with the
rank-normalized split-R-hat and the bulk and tail effective sample sizes of
Vehtari et al. (2021), after matching the topics of the chains (topic labels
are arbitrary). Here both runs are flagged: a deliberately short one, and
one of 200 sweeps whose chains settle in different splits of the corpus
into five topics (as they still do after 1,000 sweeps, R-hat above 2.5).

The traces are those the estimators record (``log_likelihood_trace_`` and
``trace_``). Runs in under a minute (two chains at a time).
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_pgtm import GibbsSLDAClassifier
from sklearn_pgtm.datasets import load_religion_corpus
from sklearn_pgtm.diagnostics import rhat, run_chains

corpus = load_religion_corpus()
X, y = corpus.X_train, corpus.y_train
model = GibbsSLDAClassifier(n_components=5, c=25.0, max_iter=200)

# %%
# Four chains of 200 sweeps, two at a time. The summary says in words whether
# they agree; the first half of every trace is discarded as warm-up. They do
# not: R-hat is above 2 for the log-likelihood, every topic share and every
# weight, each chain staying in its own split of the corpus.
chains = run_chains(model, X, y, n_chains=4, n_jobs=2, random_state=0)
result = chains.summary()
print(result)

# %%
# The same model stopped after 12 sweeps: the chains are still moving away
# from their random starts, and the summary says so.
short = run_chains(model.set_params(max_iter=12), X, y, n_chains=4, n_jobs=2,
                   random_state=0)
short_result = short.summary()
print(short_result.message)

# %%
# Traces of the log-likelihood and of the share of tokens in two topics
# (matched across chains), with the discarded warm-up shaded.
traces = chains.traces()
short_traces = short.traces()
panels = [
    (traces["log_likelihood"], "log-likelihood, 200 sweeps"),
    (short_traces["log_likelihood"], "log-likelihood, 12 sweeps"),
    (traces["topic_share[0]"], "share of topic 0, 200 sweeps"),
    (traces["topic_share[1]"], "share of topic 1, 200 sweeps"),
]
fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), constrained_layout=True)
for ax, (draws, title) in zip(axes.ravel(), panels):
    n_iter = draws.shape[1]
    sweeps = np.arange(1, n_iter + 1)
    for c, chain in enumerate(draws):
        ax.plot(sweeps, chain, lw=0.8, label=f"chain {c + 1}")
    ax.axvspan(0, n_iter // 2, color="0.9", zorder=0)
    kept = draws[:, n_iter // 2:]
    ax.set_title(f"{title}: R-hat {rhat(kept):.3f}", fontsize=10)
    ax.set_xlabel("sweep")
axes[0, 0].legend(fontsize=8)
fig.suptitle("Four chains; grey: warm-up discarded before computing R-hat")
plt.show()
