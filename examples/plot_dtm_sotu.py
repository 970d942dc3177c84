"""
Topics of the State of the Union over two centuries
===================================================

:class:`~sklearn_pgtm.DynamicTopicModel` gives every topic one word
distribution per time slice and lets it drift between consecutive slices.
This example fits it, inside a scikit-learn pipeline, to the embedded sample
of State of the Union paragraphs (:func:`~sklearn_pgtm.datasets.load_sotu_corpus`,
150 paragraphs per decade, 1790s-2020s) with one slice per decade, then draws

- the prevalence of every topic per decade (``topic_prevalence_``), and
- the drift of one topic: the probability of its top words in every decade
  (``components_``, also listed by ``topic_evolution``).

Small settings (60 sweeps, two warm-start chains) keep it short: the fit
takes well under a minute once the numba kernels are compiled.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

from sklearn_pgtm import DynamicTopicModel
from sklearn_pgtm.datasets import load_sotu_corpus

texts, years = load_sotu_corpus(return_X_y=True)
decades = years // 10 * 10
print(f"{len(texts)} paragraphs, decades {decades.min()}-{decades.max()}")

# %%
# Fit: the second argument of ``fit`` is each document's time label, so
# ``Pipeline.fit(texts, decades)`` passes it through. ``doc_topic_prior``
# keeps its default, ``"auto"``: estimated during the burn-in. 60 sweeps keep
# the example short; the chain is still settling then (``fit`` may say so
# with a ConvergenceWarning): keep the default ``max_iter=200`` for real use.
K = 8
pipe = make_pipeline(
    CountVectorizer(stop_words="english", min_df=5, token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z]+\b"),
    DynamicTopicModel(K, max_iter=60, warm_start_iter=30, n_init=2, random_state=0,
                      verbose=1),
)
pipe.fit(texts, decades)
dtm = pipe[-1]
words = pipe[0].get_feature_names_out()

# Label each topic by its top words over the whole period (tokens pooled).
pooled = dtm.components_.sum(axis=0)
labels = [" ".join(words[np.argsort(-pooled[k])[:3]]) for k in range(K)]
for k, label in enumerate(labels):
    print(f"topic {k}: {label}")

# %%
# The topic whose top words change most between the first and last decades.
topics = dtm.components_ / dtm.components_.sum(axis=2, keepdims=True)
drift = np.abs(topics[0] - topics[-1]).sum(axis=1)
topic = int(np.argmax(drift))
evolution = dtm.topic_evolution(topic, n_words=4, feature_names=words)
for decade in dtm.time_slices_[::4]:
    print(decade, ", ".join(w for w, _ in evolution[decade]))
# The words that are in the top 4 of this topic in some decade.
tracked = sorted({w for top in evolution.values() for w, _ in top})
columns = [int(np.flatnonzero(words == w)[0]) for w in tracked]
shown = np.argsort(-topics[:, topic][:, columns].max(axis=0))[:10]

# %%
# Plot.
fig, (ax_prev, ax_drift) = plt.subplots(2, 1, figsize=(11, 9), sharex=True)
ax_prev.stackplot(dtm.time_slices_, dtm.topic_prevalence_.T, labels=labels, alpha=0.85)
ax_prev.set_ylabel("topic prevalence")
ax_prev.set_ylim(0, 1)
ax_prev.set_title("Topic prevalence per decade")
ax_prev.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
for j in shown:
    ax_drift.plot(dtm.time_slices_, topics[:, topic, columns[j]], marker=".",
                  label=tracked[j])
ax_drift.set_ylabel("word probability in the topic")
ax_drift.set_xlabel("decade")
ax_drift.set_title(f"Drift of topic {topic} ({labels[topic]}): its top words over time")
ax_drift.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
print(f"estimated doc_topic_prior: {dtm.doc_topic_prior_:.3f}")
fig.tight_layout()
plt.show()
