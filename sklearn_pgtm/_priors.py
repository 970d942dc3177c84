"""Dirichlet hyperparameters of a collapsed topic model, fixed or estimated.

A prior given as a float is held fixed. A prior given as ``"auto"`` is
estimated inside the model's own chain by the empirical-Bayes machinery of
Xia & Doss (2020) (user guide, :ref:`dirichlet_priors`): after each topic
sweep, :meth:`DirichletPriors.update` draws the auxiliary variables of the
data-augmentation step and then the hyperparameters from their Gamma full
conditionals under a flat Gamma(a, b) hyperprior; the Gamma parameters of
every recorded sweep make up the Rao-Blackwellized estimate of the posterior
density of ``h``, whose ratio to the hyperprior estimates the marginal
likelihood ``m(h)`` up to a constant (:class:`RaoBlackwellDensity`); its
maximizer is the empirical-Bayes estimate ``h_hat``.

The same object serves every model of the package (LDA, the supervised and
the correlated models, EmpiricalBayesLDA): the update needs only the
document-topic and topic-word counts of the chain.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp

from ._kernels._dirichlet import (
    alpha_rate,
    alpha_shapes,
    beta_augmentation,
    clear_word_histogram,
    count_doc_histograms,
    count_histograms,
    count_word_histogram,
    doc_length_log_q,
    empty_histograms,
    gamma_draw,
    log_doc_joint,
    log_word_joint,
    log_word_joint_seeded,
)
from ._chain import topic_word_prior_array
from ._kernels._random import make_streams
from ._parallel import thread_pool

#: Shape and rate of the Gamma hyperprior put on each estimated component:
#: nearly flat over the values that matter (it only guides the chain; the
#: estimate divides it out).
DEFAULT_HYPERPRIOR = (1.0, 0.01)


def log_gamma_pdf(h, shape, rate):
    """log Gamma(shape, rate) density; broadcasts."""
    return shape * np.log(rate) - gammaln(shape) + (shape - 1.0) * np.log(h) - rate * h


class RaoBlackwellDensity:
    """Rao-Blackwellized estimate of the posterior density of h and of log m(h).

    ``shapes`` and ``rates`` are (n, p): the Gamma parameters of the full
    conditional of each of the p estimated components of h at each of n
    recorded sweeps; ``hyperprior`` the (shape, rate) of the Gamma prior.
    """

    def __init__(self, shapes, rates, hyperprior):
        self.shapes = np.asarray(shapes, dtype=np.float64)
        self.rates = np.asarray(rates, dtype=np.float64)
        self.prior_shape, self.prior_rate = hyperprior
        self.const = self.shapes * np.log(self.rates) - gammaln(self.shapes)

    def log_ratio(self, h):
        """log nu_hat(h) - log prior(h) for points ``h`` of shape (G, p)."""
        h = np.atleast_2d(h)
        log_h = np.log(h)
        out = np.empty(h.shape[0])
        chunk = max(1, 2_000_000 // max(self.shapes.size, 1))
        # rate * h overflows to inf from h of about 1e305: the density's limit
        # there, log 0, whatever the prior's (the conditional rates are at
        # least the prior's, so the ratio falls to 0 too; -inf - -inf was NaN).
        with np.errstate(over="ignore", invalid="ignore"):
            for start in range(0, h.shape[0], chunk):
                lh = log_h[start:start + chunk, None, :]
                hh = h[start:start + chunk, None, :]
                terms = self.const[None] + (self.shapes[None] - 1.0) * lh - self.rates[None] * hh
                out[start:start + chunk] = logsumexp(terms.sum(axis=2), axis=1)
            out -= np.log(self.shapes.shape[0])
            prior = log_gamma_pdf(h, self.prior_shape, self.prior_rate).sum(axis=1)
            ratio = out - prior
        return np.where(np.isneginf(out), -np.inf, ratio)

    def _objective(self, u):
        h = np.exp(u)
        terms = self.const + (self.shapes - 1.0) * u - self.rates * h
        log_terms = terms.sum(axis=1)
        value = logsumexp(log_terms)
        w = np.exp(log_terms - value)
        grad = w @ ((self.shapes - 1.0) - self.rates * h)
        value -= np.sum((self.prior_shape - 1.0) * u - self.prior_rate * h)
        grad -= (self.prior_shape - 1.0) - self.prior_rate * h
        return -value, -grad

    def argmax(self, start):
        """Maximize log nu_hat(h) - log prior(h) over log h from ``start`` (an h)."""
        return _maximize(self._objective, start)


class ConsensusDensity:
    """The mean over chains of their log Rao-Blackwellized densities.

    Each of ``densities`` (one :class:`RaoBlackwellDensity` per chain) gives
    ``log nu_c(h) - log prior(h)``; this object gives their mean and its
    maximizer. Why not one density of all the draws pooled: on real corpora
    chains stay in different regions of the topics, each density is then a
    narrow peak of its own, and the maximizer of their mixture is the
    tallest peak, so the estimate scatters across fits like one chain's
    (about ``sqrt(n_chains)`` times its reported standard deviation; user
    guide :ref:`eblda_chains`). The mean of the logs peaks between the
    chains' maximizers (at their precision-weighted mean when the peaks are
    Gaussian), an average of ``n_chains`` estimates; when the chains agree,
    every density is the same and so is the estimate.
    """

    def __init__(self, densities):
        self.densities = list(densities)

    def log_ratio(self, h):
        """Mean over chains of ``log nu_c(h) - log prior(h)`` at points (G, p)."""
        return np.mean([d.log_ratio(h) for d in self.densities], axis=0)

    def _objective(self, u):
        values, grads = zip(*(d._objective(u) for d in self.densities))
        return float(np.mean(values)), np.mean(grads, axis=0)

    def argmax(self, start):
        """Maximize the mean log density over log h from ``start`` (an h)."""
        return _maximize(self._objective, start)


def _maximize(objective, start):
    """L-BFGS on log h of ``objective(u) -> (value, gradient)`` (to minimize)."""
    u0 = np.log(np.asarray(start, dtype=np.float64))
    res = minimize(objective, u0, jac=True, method="L-BFGS-B",
                   options={"maxiter": 500, "gtol": 1e-9})
    return np.exp(res.x)


# From this many topic-word cells on, a threaded fit counts the histograms on
# its threads. All of 20 Newsgroups, two threads against one (ms per call,
# side measurement): 1.5 M cells (K = 20) 5.2-5.7 against 5.2, 7.6 M (K =
# 100) 10-11 against 18, 22.7 M (K = 300) 27-30 against 41-44.
_THREADED_HISTOGRAM_CELLS = 2**22


def _count_histograms(chain, hist):
    """Fill ``hist`` from ``chain``'s counts on as many threads as its last
    sweep used: the document side on one, the word side cut into slices of
    the vocabulary on the others (each slice into its own bins, then added
    up; the histograms are the same whatever the threads). On two threads
    at K = 1000 on all of 20 Newsgroups the two sides take about 65 and 60
    ms, a sweep about 0.9 s."""
    n_threads = chain.n_threads
    doc_topic, word_topic = chain.tokens.doc_topic, chain.word_topic
    # The rows of words without tokens stay 0: scanning them was most of a
    # short EmpiricalBayesLDA fit on a hashed vocabulary (7,209 of 2^20
    # columns used, K = 20: 4.5 of 6.1 CPU seconds).
    words = chain.present_words
    if n_threads == 1 or words.size * word_topic.shape[1] < _THREADED_HISTOGRAM_CELLS:
        count_histograms(doc_topic, word_topic, words, hist)
        return
    clear_word_histogram(hist)
    n_slices = n_threads - 1
    cuts = np.linspace(0, words.size, n_slices + 1).astype(np.int64)
    bins = [hist.word_counts] + [np.zeros_like(hist.word_counts) for _ in range(n_slices - 1)]
    pool = thread_pool(n_threads)
    doc_side = pool.submit(count_doc_histograms, doc_topic, hist)
    word_side = [pool.submit(count_word_histogram, word_topic, words[cuts[p]:cuts[p + 1]],
                             bins[p]) for p in range(n_slices)]
    tops = [future.result() for future in word_side]
    doc_side.result()
    for extra in bins[1:]:
        hist.word_counts[:] += extra
    hist.word_top[0] = max(tops)


@dataclass
class DirichletPriors:
    """The Dirichlet hyperparameters of a chain and their updates.

    Attributes
    ----------
    alpha : ndarray of shape (n_topics,)
        Document-topic prior (all entries equal when symmetric).
    beta : float or ndarray of shape (n_words, n_topics)
        Topic-word prior (an array: seeded or asymmetric topics, held fixed).
    estimate_alpha, estimate_beta : bool
        Which of the two are updated by :meth:`update`.
    symmetric_alpha : bool
        One estimated alpha shared by every topic, or one per topic.
    hyperprior : (float, float)
        Shape and rate of the Gamma prior of each estimated component.
    """

    alpha: np.ndarray
    beta: float
    estimate_alpha: bool
    estimate_beta: bool
    hist: object
    states: np.ndarray
    n_words: int
    symmetric_alpha: bool = True
    hyperprior: tuple = DEFAULT_HYPERPRIOR
    _shapes: list = field(default_factory=list, repr=False)
    _rates: list = field(default_factory=list, repr=False)
    _alpha_shape: np.ndarray = None
    _hist_sweep: int = -1

    @classmethod
    def for_chain(cls, chain, doc_topic_prior, topic_word_prior, seed, *, symmetric_alpha=True,
                  hyperprior=DEFAULT_HYPERPRIOR, start=None):
        """Priors of ``chain`` from the estimator's ``doc_topic_prior`` and
        ``topic_word_prior`` (a float, ``"auto"``, or ``None`` for a prior
        the model does not have).

        ``start``: the starting values ``(alpha, beta)`` of estimated priors
        (default ``1 / K`` each, scikit-learn's default for both). A
        ``topic_word_prior`` array is (n_words, n_topics), word-major.
        """
        n_topics = chain.n_topics
        start_alpha, start_beta = start if start is not None else (1.0 / n_topics,
                                                                   1.0 / n_topics)
        estimate_alpha = isinstance(doc_topic_prior, str) and doc_topic_prior == "auto"
        estimate_beta = isinstance(topic_word_prior, str) and topic_word_prior == "auto"
        alpha = np.full(n_topics, start_alpha if estimate_alpha or doc_topic_prior is None
                        else float(doc_topic_prior))
        beta = (float(start_beta) if estimate_beta
                else topic_word_prior_array(topic_word_prior))
        return cls(alpha=alpha, beta=beta, estimate_alpha=estimate_alpha,
                   estimate_beta=estimate_beta, hist=None, states=make_streams(seed, 3),
                   n_words=chain.n_words, symmetric_alpha=symmetric_alpha,
                   hyperprior=tuple(float(x) for x in hyperprior),
                   _alpha_shape=np.empty(1 if symmetric_alpha else n_topics))

    @property
    def estimated(self):
        """Whether any prior is estimated."""
        return self.estimate_alpha or self.estimate_beta

    @property
    def n_estimated(self):
        """Number of estimated components of h (the p of the RB density)."""
        if not self.estimate_alpha:
            return int(self.estimate_beta)
        n_alpha = 1 if self.symmetric_alpha else self.alpha.shape[0]
        return n_alpha + int(self.estimate_beta)

    def conditionals(self, chain):
        """Draw the auxiliaries given the chain's counts and the current h.

        Returns the (shape, rate) arrays, of length :attr:`n_estimated`, of
        the Gamma full conditionals of the estimated components (alpha
        first, beta last).
        """
        self._count(chain)
        a, b = self.hyperprior
        # Three families of auxiliaries, each from its own stream: on a
        # threaded fit one pool thread draws the Q_d and the word side while
        # this one draws the I_dt (the same draws as one after the other;
        # 6.2 -> 3.9 ms per sweep for the binary supervised model on
        # the 20 Newsgroups training messages, K = 20).
        def others():
            # On copies of the streams: the three share a cache line, which
            # two threads writing it would pass back and forth at every draw.
            q_state, word_state = self.states[0].copy(), self.states[2].copy()
            log_q = (doc_length_log_q(self.alpha, self.hist, q_state)
                     if self.estimate_alpha else None)
            word_side = (beta_augmentation(self.beta, self.hist, chain.topic_total,
                                           self.n_words, a, b, word_state)
                         if self.estimate_beta else None)
            self.states[0], self.states[2] = q_state, word_state
            return log_q, word_side

        pending = thread_pool(2).submit(others) if chain.n_threads > 1 else None
        shapes, rates = [], []
        if self.estimate_alpha:
            alpha_shapes(self.alpha, self.symmetric_alpha, self.hist, a, self.states[1],
                         self._alpha_shape)
        log_q, word_side = pending.result() if pending is not None else others()
        if self.estimate_alpha:
            rate = alpha_rate(self.alpha, self.symmetric_alpha, b, log_q)
            shapes.extend(self._alpha_shape)
            rates.extend([rate] * self._alpha_shape.shape[0])
        if self.estimate_beta:
            shape, rate = word_side
            shapes.append(shape)
            rates.append(rate)
        return np.array(shapes), np.array(rates)

    def update(self, chain, record=False):
        """One data-augmentation update of the estimated priors given the chain.

        With ``record``, the Gamma parameters are kept for :meth:`estimate`.
        """
        if not self.estimated:
            return
        shapes, rates = self.conditionals(chain)
        if record:
            self._shapes.append(shapes)
            self._rates.append(rates)
        draws = np.array([gamma_draw(self.states[2], s, r) for s, r in zip(shapes, rates)])
        self.set_estimated(draws)

    def record(self, shapes, rates):
        """Keep externally computed Gamma parameters (for the HMC chain)."""
        self._shapes.append(np.asarray(shapes, dtype=np.float64))
        self._rates.append(np.asarray(rates, dtype=np.float64))

    def estimated_values(self):
        """The current values of the estimated components (alpha first)."""
        out = []
        if self.estimate_alpha:
            out.extend(self.alpha[:1] if self.symmetric_alpha else self.alpha)
        if self.estimate_beta:
            out.append(self.beta)
        return np.array(out, dtype=np.float64)

    def set_estimated(self, values):
        """Set the estimated components from ``values`` (alpha first)."""
        values = np.asarray(values, dtype=np.float64)
        if self.estimate_alpha:
            n_alpha = 1 if self.symmetric_alpha else self.alpha.shape[0]
            self.alpha[:] = values[:n_alpha] if not self.symmetric_alpha else values[0]
        if self.estimate_beta:
            self.beta = float(values[-1])

    def recorded(self):
        """(shapes, rates) of the recorded sweeps, each (n, p)."""
        return np.array(self._shapes), np.array(self._rates)

    def density(self):
        """:class:`RaoBlackwellDensity` over the recorded sweeps."""
        shapes, rates = self.recorded()
        return RaoBlackwellDensity(shapes, rates, self.hyperprior)

    def estimate(self):
        """The empirical-Bayes estimate ``h_hat`` over the recorded sweeps
        (alpha first); :meth:`set_estimated` applies it."""
        shapes, rates = self.recorded()
        start = shapes / rates  # conditional means: a good start for the maximizer
        h_hat = self.density().argmax(np.exp(np.log(start).mean(axis=0)))
        if not np.all(np.isfinite(h_hat)) or not np.all(h_hat > 0):
            raise FloatingPointError("the empirical-Bayes estimate of the Dirichlet priors is "
                                     "not finite; set doc_topic_prior / topic_word_prior to "
                                     "floats.")
        return h_hat

    def clear_record(self):
        self._shapes.clear()
        self._rates.clear()

    def _count(self, chain):
        """Histograms of the chain's counts, rebuilt once per sweep."""
        if self.hist is None:
            self.hist = empty_histograms(chain.doc_lengths, chain.n_topics,
                                         chain.largest_word_frequency)
        if self._hist_sweep != chain.n_sweeps:
            _count_histograms(chain, self.hist)
            self._hist_sweep = chain.n_sweeps
        return self.hist

    def log_joint(self, chain):
        """log p(w, z | alpha, beta) of the chain (collapsed joint)."""
        return log_doc_joint(self.alpha, self._count(chain)) + self.log_word_joint(chain)

    def log_word_joint(self, chain):
        """log p(w | z, beta) of the chain (the topic-word part only)."""
        if np.ndim(self.beta):
            return log_word_joint_seeded(self.beta, chain.word_topic, chain.topic_total)
        return log_word_joint(self.beta, self._count(chain), chain.topic_total, self.n_words)
