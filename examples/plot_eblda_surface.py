"""
Empirical Bayes LDA: the marginal likelihood surface and its 95% ellipse
========================================================================

:class:`~sklearn_pgtm.EmpiricalBayesLDA` runs a Markov chain on the topics
and the Dirichlet hyperparameters :math:`h = (\\alpha, \\eta)` and estimates
the marginal likelihood :math:`m(h)` of the corpus up to a constant (see
:ref:`eblda`). Its maximizer :math:`\\hat h` is the empirical Bayes choice of
the hyperparameters; batch means give a 95% confidence ellipse for
:math:`\\hat h`, which measures the Monte Carlo error of the chain.

The corpus is drawn from LDA itself (:math:`\\alpha = 0.3`,
:math:`\\eta = 0.1`), so the hyperparameters that generated it are known. The
left panel shows the estimated surface where the chain went (as Figures 1
and 5 of Xia & Doss, 2020); the right panel zooms in on the estimate and its
ellipse.
"""

# %%
# A corpus drawn from LDA
# -----------------------
import matplotlib.pyplot as plt
import numpy as np

from sklearn_pgtm import EmpiricalBayesLDA

rng = np.random.RandomState(0)
n_docs, n_words, n_topics, doc_length = 600, 500, 5, 80
alpha_true, eta_true = 0.3, 0.1
phi = rng.dirichlet(np.full(n_words, eta_true), size=n_topics)
theta = rng.dirichlet(np.full(n_topics, alpha_true), size=n_docs)
X = np.zeros((n_docs, n_words), dtype=np.int64)
for d in range(n_docs):
    topic_counts = rng.multinomial(doc_length, theta[d])
    for t in np.flatnonzero(topic_counts):
        X[d] += rng.multinomial(topic_counts[t], phi[t])

# %%
# The chain, the estimate and its covariance
# ------------------------------------------
# 200 burn-in and 600 kept iterations (the defaults are 200 and 500).
model = EmpiricalBayesLDA(n_components=n_topics, n_samples=600, burn_in=200, random_state=0)
model.fit(X)
alpha_hat, eta_hat = model.doc_topic_prior_, model.topic_word_prior_
covariance = model.hyperparameter_covariance_
standard_error = np.sqrt(np.diag(covariance))
print(f"alpha_hat = {alpha_hat:.4f} (generating value {alpha_true}), "
      f"Monte Carlo s.e. {standard_error[0]:.4f}")
print(f"eta_hat   = {eta_hat:.4f} (generating value {eta_true}), "
      f"Monte Carlo s.e. {standard_error[1]:.4f}")
print("generating values in the 95% region:",
      model.in_confidence_region(alpha_true, eta_true))

# %%
# The ellipse bounds the Monte Carlo error of :math:`\hat h` (how far another
# chain on the same corpus would put it), not the sampling error of the
# corpus: the generating values need not lie inside it. A longer chain
# shrinks the ellipse; more documents move the estimate towards them.


def ellipse(center, cov, bound, n_points=200):
    """Boundary of {h : (h - center)^T cov^-1 (h - center) <= bound}."""
    angles = np.linspace(0, 2 * np.pi, n_points)
    circle = np.stack([np.cos(angles), np.sin(angles)])
    values, vectors = np.linalg.eigh(cov)
    radius = np.sqrt(bound)
    scale = radius * np.sqrt(np.maximum(values, 0))[:, None]
    return center[:, None] + vectors @ (scale * circle)


def draw_surface(ax, alpha_range, eta_range, title):
    """Filled contours of log m(h) - max over a grid, with the estimate and ellipse."""
    alpha, eta = np.meshgrid(np.linspace(*alpha_range, 100), np.linspace(*eta_range, 100))
    log_m = model.log_marginal_likelihood(alpha, eta)
    log_m -= log_m.max()
    levels = np.linspace(max(log_m.min(), -60), 0, 25)
    contours = ax.contourf(alpha, eta, np.maximum(log_m, levels[0]), levels=levels,
                           cmap="viridis")
    ax.plot(alpha_hat, eta_hat, "r+", ms=14, mew=2, label="estimate")
    ax.plot(*ellipse(np.array([alpha_hat, eta_hat]), covariance,
                     model.confidence_region_bound(0.95)), "r-", lw=1.5,
            label="95% region")
    ax.set_xlabel("alpha (doc_topic_prior)")
    ax.set_ylabel("eta (topic_word_prior)")
    ax.set_title(title, fontsize=10)
    return contours


# %%
# The surface
# -----------
samples = model.hyperparameter_samples_
low, high = samples.min(axis=0), samples.max(axis=0)
pad = 0.3 * (high - low)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
contours = draw_surface(axes[0], (low[0] - pad[0], high[0] + pad[0]),
                        (low[1] - pad[1], high[1] + pad[1]),
                        "log m(h) - max, where the chain went")
axes[0].plot(alpha_true, eta_true, "wx", ms=10, mew=2, label="generating values")
axes[0].legend(loc="upper right", fontsize=8)
fig.colorbar(contours, ax=axes[0])
contours = draw_surface(axes[1], (alpha_hat - 5 * standard_error[0], alpha_hat + 5 * standard_error[0]),
                        (eta_hat - 5 * standard_error[1], eta_hat + 5 * standard_error[1]),
                        "zoom: the estimate and its 95% confidence ellipse")
fig.colorbar(contours, ax=axes[1])
fig.tight_layout()
plt.show()
