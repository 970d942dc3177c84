"""
=====================================================================
Correlated topics of the AP corpus
=====================================================================

:class:`~sklearn_pgtm.CorrelatedTopicModel` learns which topics tend to
appear together in a document (and which exclude each other). This example
fits it on the Associated Press corpus of Blei et al. (the lda-c files
``ap.dat`` and ``vocab.txt``, expected in ``../shared/data/ap`` next to the
repository, or at the path given as the first argument), then draws the
topic correlation matrix and lists the most positively and most negatively
correlated pairs of topics with their top words. The picture is saved as
``plot_ctm_ap.png``. Runs in about a minute.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

from sklearn_pgtm import CorrelatedTopicModel

ap = Path(sys.argv[1]) if len(sys.argv) > 1 else (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ap")
vocab = np.array((ap / "vocab.txt").read_text().split())
rows, cols, vals = [], [], []
lines = [line.split() for line in (ap / "ap.dat").read_text().splitlines() if line.strip()]
for d, parts in enumerate(lines):
    for item in parts[1:]:
        w, c = item.split(":")
        rows.append(d)
        cols.append(int(w))
        vals.append(int(c))
X = sp.csr_matrix((vals, (rows, cols)), shape=(len(lines), len(vocab)))
print(f"AP: {X.shape[0]} documents, {X.shape[1]} words, {X.sum()} tokens")

# %%
# Fit: logistic-normal link, Gaussian approximation of the PG draws (fast for
# long documents; see sklearn_pgtm.polyagamma).
K = 20
ctm = CorrelatedTopicModel(K, pg_method="gaussian", max_iter=150, random_state=0, verbose=1)
ctm.fit(X)
top = [" ".join(vocab[np.argsort(-ctm.components_[k])[:5]]) for k in range(K)]

# %%
# The strongest positive and negative pairs
corr = ctm.topic_correlation_
iu = np.triu_indices(K, 1)
order = np.argsort(corr[iu])
pairs = [(iu[0][i], iu[1][i]) for i in np.concatenate([order[::-1][:5], order[:5]])]
lines_out = []
for i, j in pairs:
    lines_out.append(f"{corr[i, j]:+.2f}  [{i}] {top[i]}  <->  [{j}] {top[j]}")
    print(lines_out[-1])

fig, (ax, ax_text) = plt.subplots(1, 2, figsize=(16, 7), gridspec_kw={"width_ratios": [1, 1.3]})
im = ax.imshow(corr, cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_title("topic correlation (centred log proportions)")
ax.set_xticks(range(K))
ax.set_yticks(range(K))
fig.colorbar(im, ax=ax, fraction=0.046)
ax_text.axis("off")
ax_text.set_title("strongest positive (top) and negative (bottom) pairs")
ax_text.text(0, 1, "\n".join(["Topics:"] + [f"[{k}] {t}" for k, t in enumerate(top)]
                             + ["", "Pairs:"] + lines_out),
             va="top", family="monospace", fontsize=8)
fig.tight_layout()
fig.savefig("plot_ctm_ap.png", dpi=90)
print("saved plot_ctm_ap.png")
