"""
Top words of supervised topics, as bar charts
=============================================

A supervised topic model (:class:`~sklearn_pgtm.GibbsSLDAClassifier`) is fitted
on the embedded 20 Newsgroups corpus alt.atheism vs talk.religion.misc
(:func:`sklearn_pgtm.datasets.load_religion_corpus`). Each topic is then shown
by its heaviest words, with the topic's share of the corpus, its coherence
(NPMI of its top words in the training documents) and its weight in the
classifier, which says whether the topic pulls a message towards
talk.religion.misc (positive) or alt.atheism (negative).

:func:`sklearn_pgtm.inspection.topic_summary` gathers these numbers; printing
it gives the same table as text. Runs in about 20 seconds.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from sklearn_pgtm import GibbsSLDAClassifier
from sklearn_pgtm.datasets import load_religion_corpus
from sklearn_pgtm.inspection import topic_summary

corpus = load_religion_corpus()
model = GibbsSLDAClassifier(n_components=8, c=25.0, max_iter=100, random_state=0)
model.fit(corpus.X_train, corpus.y_train)
print(f"test accuracy: {model.score(corpus.X_test, corpus.y_test):.3f}")

# %%
# The topics as a table: prevalence in the training messages, NPMI coherence
# of the top words, and the classifier weight (coef).
summary = topic_summary(model, corpus.X_train, corpus.feature_names, n_words=8)
print(summary)

# %%
# One bar chart per topic, from the most negative classifier weight to the
# most positive: the probability of each top word under the topic.
order = np.argsort(summary.coef)
fig, axes = plt.subplots(2, 4, figsize=(13, 6.5), constrained_layout=True)
for ax, row in zip(axes.ravel(), order):
    words, weights = summary.words[row][::-1], summary.weights[row][::-1]
    color = "tab:red" if summary.coef[row] > 0 else "tab:blue"
    ax.barh(words, weights, color=color, alpha=0.8)
    ax.set_title(f"topic {summary.topics[row]}: coef {summary.coef[row]:+.2f}\n"
                 f"share {summary.prevalence[row]:.2f}, NPMI {summary.coherence[row]:.2f}",
                 fontsize=9)
    ax.tick_params(axis="both", labelsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(3))
    ax.set_xlabel("P(word | topic)", fontsize=8)
fig.suptitle("Top words per topic (red: towards talk.religion.misc, blue: towards "
             "alt.atheism)")
plt.show()
