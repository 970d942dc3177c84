"""
=====================================================================
Empirical Bayes LDA: the estimated marginal likelihood surface
=====================================================================

:class:`~sklearn_pgtm.EmpiricalBayesLDA` runs a Markov chain on the topics and
the Dirichlet hyperparameters ``h = (alpha, eta)`` and estimates the marginal
likelihood ``m(h)`` of the corpus up to a constant. Its maximizer is the
empirical Bayes choice of ``h``; batch means give a 95% confidence ellipse
for that maximizer (its Monte Carlo error).

The corpus is drawn from LDA itself (``alpha = 0.3``, ``eta = 0.1``), so the
true hyperparameters are known. The left panel shows the surface where the
chain went (like Figures 1 and 5 of Xia & Doss, 2020); the right panel zooms
on the estimate and its 95% ellipse.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import chi2

from sklearn_pgtm import EmpiricalBayesLDA

# %%
# A corpus drawn from LDA
rng = np.random.RandomState(0)
n_docs, n_words, n_topics, doc_length = 1000, 500, 5, 80
alpha_true, eta_true = 0.3, 0.1
phi = rng.dirichlet(np.full(n_words, eta_true), size=n_topics)
theta = rng.dirichlet(np.full(n_topics, alpha_true), size=n_docs)
X = np.zeros((n_docs, n_words), dtype=np.int64)
for d in range(n_docs):
    z = rng.multinomial(doc_length, theta[d])
    for t in np.flatnonzero(z):
        X[d] += rng.multinomial(z[t], phi[t])

# %%
# Fit: the chain, the estimate and its covariance
model = EmpiricalBayesLDA(n_components=n_topics, n_samples=1000, burn_in=300, random_state=0)
model.fit(X)
a_hat, e_hat = model.doc_topic_prior_, model.topic_word_prior_
cov = model.hyperparameter_covariance_
print(f"alpha_hat = {a_hat:.4f} (true {alpha_true}), eta_hat = {e_hat:.4f} (true {eta_true})")
print("Monte Carlo standard errors:", np.sqrt(np.diag(cov)))


def ellipse(center, cov, level=0.95, n=200):
    """Points of {h : (h - c)^T cov^-1 (h - c) = chi2_2(level)}."""
    angles = np.linspace(0, 2 * np.pi, n)
    circle = np.stack([np.cos(angles), np.sin(angles)])
    vals, vecs = np.linalg.eigh(cov)
    radius = np.sqrt(chi2.ppf(level, 2))
    return center[:, None] + vecs @ (radius * np.sqrt(np.maximum(vals, 0))[:, None] * circle)


def surface(ax, a_range, e_range, title):
    A, E = np.meshgrid(np.linspace(*a_range, 120), np.linspace(*e_range, 120))
    log_m = model.log_marginal_likelihood(A, E)
    log_m -= log_m.max()
    levels = np.linspace(max(log_m.min(), -60), 0, 25)
    cs = ax.contourf(A, E, np.maximum(log_m, levels[0]), levels=levels, cmap="viridis")
    ax.plot(a_hat, e_hat, "r+", ms=14, mew=2, label="estimate")
    ax.plot(*ellipse(np.array([a_hat, e_hat]), cov), "r-", lw=1.5, label="95% region")
    ax.set_xlabel("alpha (doc_topic_prior)")
    ax.set_ylabel("eta (topic_word_prior)")
    ax.set_title(title)
    return cs


samples = model.hyperparameter_samples_
lo, hi = samples.min(axis=0), samples.max(axis=0)
pad = 0.3 * (hi - lo)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
cs = surface(axes[0], (lo[0] - pad[0], hi[0] + pad[0]), (lo[1] - pad[1], hi[1] + pad[1]),
             "log m(h) - max, where the chain went")
axes[0].plot(alpha_true, eta_true, "wx", ms=10, mew=2, label="truth")
axes[0].legend(loc="upper right", fontsize=8)
fig.colorbar(cs, ax=axes[0])
sd = np.sqrt(np.diag(cov))
cs = surface(axes[1], (a_hat - 5 * sd[0], a_hat + 5 * sd[0]), (e_hat - 5 * sd[1], e_hat + 5 * sd[1]),
             "zoom: estimate and 95% confidence ellipse")
fig.colorbar(cs, ax=axes[1])
fig.tight_layout()
fig.savefig("plot_eblda_surface.png", dpi=100)
print("saved plot_eblda_surface.png")
