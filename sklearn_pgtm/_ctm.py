"""Correlated topic model fitted by Pólya-Gamma Gibbs sampling.

Logistic-normal link: Chen, Zhu, Wang, Zheng, Zhang (2013), "Scalable
inference for logistic-normal topic models". Stick-breaking link: Linderman,
Johnson, Adams (2015), "Dependent multinomial models made easy". User guide:
:ref:`ctm`.
"""

from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.stats import invwishart
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import (
    N_JOBS_CONSTRAINT,
    PG_TERMS_CONSTRAINT,
    GibbsRun,
    GibbsTopicModel,
    IntegerInterval,
    averaged_sweeps,
    initial_topics,
)
from ._chain import TopicChain, factorize, infer_topics
from ._kernels._ctm import (
    largest_deviation,
    logistic_normal_update,
    softmax_rows,
    stick_breaking_update,
)
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import document_streams, make_streams
from ._kernels._stick_breaking import stick_breaking
from ._lda import PRIOR_CONSTRAINT
from ._parallel import balanced_cuts, effective_n_jobs, map_ranges
from ._priors import DirichletPriors
from .exceptions import ChainDivergenceError, _warn

# |eta - mu| beyond this is a run-off chain (the failure mode of approximate
# PG samplers reported by Chen et al.), not a plausible log-odds.
_DIVERGENCE_BOUND = 1e4
# False: start from random topics (the start before issue 12's fix; the
# tests switch it off to show that their recovery check sees merged topics).
_FACTOR_START = True
# The warm-up's first sweep smooths the topics with a topic-word prior whose
# V * beta pseudo-counts are this share of a topic's mean token count; the
# prior then falls geometrically to the model's own over the first half of
# the warm-up (0: no annealing). Chosen by benchmarks/ctm_settings.py --part
# anneal (user guide :ref:`ctm_anneal`): of 12 fits to drawn corpora at K =
# 20, 7 ended with a pair of topics merged (worst L1 >= 1.27) without
# annealing, 3 at 0.05, none at 0.1 (worst L1 <= 0.80) and 6 at 0.25, which
# smooths enough to merge pairs anew.
_ANNEAL_MASS = 0.1
# The warm-up's documents have a symmetric Dirichlet prior of this
# concentration (proportions integrated out). Under it the collapsed LDA
# joint prefers two topics that nearly always co-occur merged into one (K =
# 20, D = 4,000, the state after a warm-up: merging either separated 0.85
# pair raised it by 6,000-6,900 nats at 1, 3,200-4,200 at 2). A
# concentration of 2 (and 40 / K above K = 20) was tried and not adopted
# (user guide :ref:`ctm_warmup_prior`): it fixed the two misses of 18 fits
# with 4,000 documents but merged as many fits with 2,000, and raised the
# held-out perplexity on all of 20 Newsgroups (by 4.6-5.0 % with seed 0,
# 0.3 % with seed 1).
_WARMUP_DOC_PRIOR = 1.0


# A topic is present in a document, for the stick order, when it holds at
# least this share of the document's tokens (and at least one token). Chosen
# by benchmarks/ctm_settings.py --part stick-order (user guide
# :ref:`ctm_stick_order`) among 0.02 / 0.05 / 0.1: on drawn corpora at K = 20
# the worst L1 of the three seeds was 0.89 / 0.80 / 0.72 with 2,000
# documents, 0.49 / 0.57 / 0.49 with 4,000 and 0.49 / 0.36 / 0.36 with
# 8,000; mean held-out perplexity on three real corpora 1988 / 2004 / 1994,
# 986.0 / 983.7 / 980.2 and 2472 / 2464 / 2463.
_PRESENCE_SHARE = 0.1


def stick_order(doc_topic):
    """Order of the topics along the stick (user guide :ref:`ctm_stick_order`).

    Topics that are present in the same documents go next to each other: the
    two topics whose presence indicators (at least 10 % of a document's
    tokens, ``_PRESENCE_SHARE``) are most correlated across documents take the
    first two places (in their own order), the most correlated pair of the
    remaining topics the next two, and so on; topics left without a partner
    (odd K, or presence that never varies) keep their relative order at the
    end.

    Parameters
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics)
        Document-topic counts.

    Returns
    -------
    order : ndarray of shape (n_topics,)
        ``order[k]`` is the topic that goes to stick position ``k``.
    """
    counts = np.asarray(doc_topic, dtype=np.float64)
    n_topics = counts.shape[1]
    floor = np.maximum(1.0, _PRESENCE_SHARE * counts.sum(axis=1, keepdims=True))
    present = (counts >= floor).astype(np.float64)
    present -= present.mean(axis=0)
    scale = np.sqrt(np.sum(present**2, axis=0))
    varies = scale > 0
    association = np.full((n_topics, n_topics), -np.inf)
    inner = present[:, varies].T @ present[:, varies] / np.outer(scale[varies], scale[varies])
    association[np.ix_(varies, varies)] = 0.5 * (inner + inner.T)  # exactly symmetric
    np.fill_diagonal(association, -np.inf)
    order, free = [], np.ones(n_topics, dtype=bool)
    while free.sum() >= 2:
        candidates = np.flatnonzero(free)
        block = association[np.ix_(candidates, candidates)]
        i, j = np.unravel_index(np.argmax(block), block.shape)
        if not np.isfinite(block[i, j]):
            break
        pair = sorted([candidates[i], candidates[j]])
        order += pair
        free[pair] = False
    order += list(np.flatnonzero(free))
    return np.asarray(order, dtype=np.int64)


def _niw_posterior_draw(x, mean0, kappa0, psi0, nu0, rng):
    """Draw (mu, Sigma) from the Normal-Inverse-Wishart posterior given rows x."""
    n = x.shape[0]
    xbar = x.mean(axis=0)
    centered = x - xbar
    scatter = centered.T @ centered
    kappa_n = kappa0 + n
    nu_n = nu0 + n
    mean_n = (kappa0 * mean0 + n * xbar) / kappa_n
    diff = xbar - mean0
    psi_n = psi0 + scatter + (kappa0 * n / kappa_n) * np.outer(diff, diff)
    psi_n = 0.5 * (psi_n + psi_n.T)
    sigma = np.atleast_2d(invwishart.rvs(df=nu_n, scale=psi_n, random_state=rng))
    sigma = 0.5 * (sigma + sigma.T)
    mu = rng.multivariate_normal(mean_n, sigma / kappa_n, method="cholesky")
    return mu, sigma


@dataclass
class _CTMRun(GibbsRun):
    """A run of the correlated model: the documents' Gaussian vectors and
    their (mu, Sigma) besides the topic chain."""

    gauss: np.ndarray = None  # (D, dim): eta (logistic normal) or psi (stick breaking)
    weights: np.ndarray = None  # (D, K): the documents' proportions
    gauss_states: np.ndarray = None
    mu: np.ndarray = None
    sigma: np.ndarray = None
    niw: tuple = None  # (mean0, kappa0, psi0, nu0)
    rng: np.random.Generator = None
    mu_sum: np.ndarray = None
    sigma_sum: np.ndarray = None
    n_moments: int = 0


class CorrelatedTopicModel(GibbsTopicModel):
    """Correlated topic model with Pólya-Gamma Gibbs sampling.

    Documents' topic proportions are a transformation of a Gaussian vector
    with a learned mean and covariance, so topics that tend to co-occur (or
    to exclude each other) are modelled as such. Two links are available:

    - ``"logistic_normal"``: ``theta_d = softmax(eta_d)``, ``eta_d ~ N(mu,
      Sigma)`` in R^K, fitted by single-site Gibbs updates of each
      ``eta_dk`` with one Pólya-Gamma variable ``PG(N_d, rho_dk)`` (Chen et
      al. [1]_).
    - ``"stick_breaking"``: ``theta_d = pi(psi_d)``, ``psi_d ~ N(mu, Sigma)``
      in R^(K-1), ``pi_k = sigmoid(psi_k) prod_{j<k} (1 - sigmoid(psi_j))``;
      the multinomial becomes a product of binomials, and with
      ``omega_dk ~ PG(N_dk, psi_dk)`` the whole vector ``psi_d`` is drawn from
      one Gaussian (Linderman et al. [2]_).

    The topic-word distributions are integrated out (collapsed Gibbs over the
    tokens' topics, the sweep shared with every model of the package), and
    ``(mu, Sigma)`` are drawn every sweep from their Normal-Inverse-Wishart
    posterior.

    Read more in the :ref:`User Guide <ctm>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (K). The default and the choice of K are
        :class:`GibbsLDA`'s: scikit-learn's default, checked for this model
        too at K = 5-100 against the peers (sections defaults_peers and
        defaults_unseen of ``benchmarks/RESULTS.md``).
        With ``K = 1`` the model degenerates to a unigram model (every
        proportion is 1; ``mean_`` and ``covariance_`` keep their prior
        values).

    link : {"logistic_normal", "stick_breaking"}, default="logistic_normal"
        How the Gaussian vector maps to topic proportions. The stick-breaking
        link is not symmetric in the topics: after the warm-up its topics are
        renumbered so that those most often present in the same documents
        are neighbours along the stick (user guide :ref:`ctm_stick_order`).
        Measured on corpora drawn from the model (K = 20, pairs at
        correlation 0.85, benchmarks/ctm_settings.py --part stick-order):
        worst L1 of a true topic to its match 0.49 / 0.49 / 0.48 with 4,000
        documents and 0.32 / 0.29 / 0.36 with 8,000 (seeds 0-2), against
        0.70 / 0.57 / 0.80 and 0.52 / 0.38 / 0.53 in the warm-up's order;
        mean held-out perplexity on three real corpora +0.1 / -0.3 / -0.2 %.
        Cost: the stick-breaking link factors a (K - 1) x (K - 1) matrix per
        document and sweep. On AP (2,021 documents, one thread) a sweep
        took 0.054 / 0.098 / 0.212 / 0.411 s with the logistic-normal link
        and 0.049 / 0.100 / 0.243 / 0.780 s with the stick-breaking link at
        K = 20 / 50 / 100 / 200 (``benchmarks/ctm_throughput.py --part
        topics``, section ctm_throughput_topics of ``benchmarks/RESULTS.md``;
        user guide :ref:`ctm_speed_topics`): above about 100 topics the
        logistic-normal link is the cheaper.

    pg_method : {"auto", "exact", "gaussian", "pg1", "truncated"}, default="auto"
        Pólya-Gamma sampler of the augmentation variables (see
        :mod:`sklearn_pgtm.polyagamma`). Their ``b`` is the document's length
        (logistic normal) or its tokens left along the stick (stick breaking);
        ``"auto"`` draws exactly below ``b = 5`` and the three-moment shifted
        gamma from there on. The switch point is measured
        (``benchmarks/pg_samplers.py``, section pg_samplers of
        ``benchmarks/RESULTS.md``): from ``b = 5`` on the approximation's
        Kolmogorov distance is below half the 5 % critical value of a
        two-sample test at 10^5 draws, 27 times the draws per cell of a
        default fit (1,250 sweeps x 3 sub-iterations), and tests at 10^4 draws
        reject at the nominal rate. On the embedded demo corpus (K = 20) a
        draw costs 37 / 39 ns (logistic normal / stick breaking; 37 / 58 ns
        with the switch at 14) against 4.5 / 2.5 µs for ``"exact"``, whose
        cost grows with ``b``. The switch was 14 (the same rule at
        10^6 draws) until 2026-11-29; on documents of 5-13 tokens every draw
        of the logistic-normal link was then exact and its fit took 4.4 times
        as long (4,000 20 Newsgroups messages cut to 8-12 tokens, K = 20: 19.5
        against 4.4 s of CPU for 250 sweeps). If the chain diverges with an
        approximate sampler, fitting stops with a
        :class:`~sklearn_pgtm.exceptions.ChainDivergenceError` naming it.

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers (no default
        ``pg_method`` uses them), at most 100,000 (the bound of
        :func:`sklearn_pgtm.polyagamma.random_polyagamma`). Set before it was
        measured: at 8 terms both are coarser and slower than the default's
        approximations (Kolmogorov-Smirnov distance to exact draws 0.0095-0.036
        and 0.029-0.042 at b = 100 and 1,000, against at most 0.015; user guide
        :ref:`pg_terms`).

    n_subiter : int, default=3
        Sub-iterations S of the (lambda, eta) updates per document and sweep
        (logistic-normal link). Measured at the then default 1,000 sweeps
        (with the 20-sweep warm-up of then; benchmarks/ctm_settings.py --part
        subiter, K = 20, two seeds, S = 1 / 2 / 3 / 4 / 8): mean held-out
        perplexity 1997 / 1993 / 1970 / 1973 / 1966 on 432 20 Newsgroups
        messages, 994 / 992 / 989 / 990 / 990 on the five comp.* groups and
        2473 / 2453 / 2451 / 2451 / 2448 on AP;
        recovery on a drawn corpus (K = 10, D = 2,000) the same for every S.
        S = 3 is within the seeds' noise of 4 and of the paper's 8 (Chen et
        al. found 8 fastest to converge at K = 200 and 1,000, where the topic
        sweep costs far more than these updates) at a quarter less work than
        4 and 40 % of 8; S = 1 and 2 are worse on the two 20 Newsgroups
        corpora. (At 300 sweeps, the default before, S = 4 had been chosen
        the same way: 2013 / 1006 / 2463 against 2036 / 1011 / 2466 for S =
        2; S = 3 was not measured then.)

    prior_strength : float, default=0.01
        Pseudo-observations of the Normal-Inverse-Wishart prior on (mu,
        Sigma), as a fraction of the number of documents (the paper's
        ``a = 0.01 D``): ``kappa0 = a``, ``nu0 = dim + 1 + a``, prior mean
        the point of uniform proportions (0 for the logistic-normal link) and
        prior expected covariance the identity, whatever D and K (user guide
        :ref:`ctm_niw`). Its weight relative to the documents is
        ``prior_strength`` at every D. Measured at the other defaults
        (``benchmarks/ctm_settings.py``, section ctm_settings, 2026-11-30;
        0.001 / 0.01 / 0.1 / 1): on corpora drawn from the model (K = 10) r
        of the fitted correlations 0.982 / 0.983 / 0.978 / 0.947 (logistic
        normal) and 0.921 / 0.923 / 0.899 / 0.648 (stick breaking) with 1,000
        documents, 0.996 / 0.996 / 0.983 / 0.900 and 0.961 / 0.958 / 0.933 /
        0.659 with 4,000, where the worst topic L1 was 0.14-0.16 up to 0.01
        and 0.34-0.51 at 0.1 and 1; held-out perplexity on the five comp.*
        groups of 20 Newsgroups (K = 20, one seed) 981.2 / 985.7 / 989.8 /
        974.8 and 1003.5 / 1000.9 / 1005.8 / 992.1, within 1.6 % of each
        other where two seeds of the default differ by 6 % (section
        ctm_drift). Larger values lose the correlations the model is for,
        so the paper's 0.01 stays.

    topic_word_prior : "auto" or float, default="auto"
        Symmetric Dirichlet prior (beta) of the topic-word distributions;
        ``"auto"`` estimates it inside the chain (empirical Bayes, as
        :class:`GibbsLDA` does). Against fixed values (``benchmarks/priors.py``,
        seeds 0 and 1, sections priors_auto and priors_auto_seed1 of
        ``benchmarks/RESULTS.md``; K = 20, held-out document-completion
        perplexity, mean of the two seeds), "auto" / 0.01 (the default before
        "auto") / 0.1 scored 1982 / 2101 / 2030 (logistic normal) and
        2010 / 2104 / 2029 (stick breaking) on 432 20 Newsgroups messages,
        977 / 992 / 978 and 981 / 1001 / 982 on the five comp.* groups, and
        2450 / 2503 / 2442 and 2466 / 2522 / 2461 on AP (estimates 0.025-0.05):
        better than 0.01 everywhere, and from 2.3 % better to 0.3 % worse
        than 0.1.

    max_iter : int, default=1250
        Gibbs sweeps per call of :meth:`fit`. The chain starts from topics
        drawn by a nonnegative factorization of the counts (a start that
        keeps co-occurring topics apart; user guide :ref:`ctm_merged`); the
        first ``burn_in // 3`` sweeps are plain LDA sweeps with a
        Dirichlet(1) prior (:ref:`ctm_warmup`), the topic-word prior annealed
        over their first half (:ref:`ctm_anneal`). 1,250 with the burn-in of
        750 (see ``burn_in``; user guide :ref:`ctm_averaging`): 500 sweeps
        are averaged, as with the 1,000 sweeps and burn-in of 500 before, at
        a quarter more fit time. 1,500 sweeps (same burn-in) did a little
        better on the drawn corpora of ``burn_in`` (0.43 / 0.38 / 0.41 and
        0.43 / 0.40 / 0.41) and by up to 0.6 % on the real ones, for a fifth
        more time again. Continued to 2,500 / 5,000 sweeps (three real
        corpora, both links, two seeds; ``benchmarks/ctm_settings.py --part
        drift``, user guide :ref:`ctm_sweeps`) the held-out perplexity moved
        by a median of -0.3 % (-2.9 to +0.6 % and -4.2 to +1.3 %), less than
        it differs between seeds at 1,250.
        Measured before that on three real corpora at K = 20
        (``benchmarks/RESULTS.md``, "number of sweeps on real corpora": 432
        to 2,642 documents, 69,000 to 472,000 tokens; two seeds, ``burn_in =
        max_iter // 2``, ``n_subiter=4`` and the 20-sweep warm-up, the
        defaults then), the held-out perplexity was lower at 1,000 sweeps
        than at 300 on every corpus and link: 300 / 600 / 1,000 sweeps gave
        2030 / 2000 / 1973 (logistic normal) and 2053 / 2032 / 2034 (stick
        breaking) on 432 20 Newsgroups messages, 1006 / 994 / 990 and 1009 /
        996 / 993 on the five comp.* groups, 2463 / 2455 / 2451 and 2487 /
        2470 / 2469 on AP (means of the two seeds). The chain is still not
        stationary at 1,000 sweeps on most of them (the ConvergenceWarning,
        then at 0.005 nats per token, fired on 10 of 12 fits): the
        log-likelihood rises by 0.002-0.05 nats per token over the kept half,
        partly from the topics and partly from the covariance, whose variances
        keep growing along directions the data barely constrain (the log
        proportions of topics absent from a document; user guide
        :ref:`ctm_sweeps`). At the present defaults the warning (a rise above
        0.01) fires on 7 of 8 fits on four real corpora; continuing them by
        1,250 sweeps lowered the held-out perplexity by 2.1-2.9 % on five
        comp.* groups and changed it by -0.5 % to +0.2 % on the others
        (``benchmarks/convergence.py``).

    burn_in : int or "auto", default="auto"
        Sweeps before ``(mu, Sigma)`` and the topic-word counts are averaged.
        ``"auto"``: three fifths of ``max_iter`` (750 at the default 1,250,
        the split measured below; a ``warm_start`` continuation keeps its
        chain's, ``burn_in_``), so that a shorter chain keeps a warm-up,
        correlated burn-in sweeps and kept sweeps in the same proportions.
        Its first third is the plain LDA warm-up (250 sweeps at the defaults;
        the topic-word prior annealed over the warm-up's first half,
        :ref:`ctm_anneal`); an "auto" ``topic_word_prior`` is estimated over
        the burn-in's second half (at least one sweep; ``burn_in=0`` with an
        "auto" prior raises ``ValueError``) and held at the estimate
        afterwards. With ``max_iter <= burn_in`` no sweep is kept and the
        fitted values are the last sweep's, with a ``ConvergenceWarning``.
        Measured against the defaults before (1,000 sweeps, burn-in 500, the
        same 250-sweep warm-up; ``benchmarks/ctm_settings.py --part
        averaging``, user guide :ref:`ctm_averaging`): on corpora drawn from
        the model at K = 20 with 4,000 documents (pairs at correlation 0.85)
        the worst L1 of a true topic to its match went from 0.51 / 0.38 /
        0.44 to 0.46 / 0.38 / 0.41 (logistic normal) and from 0.49 / 0.49 /
        0.48 to 0.45 / 0.41 / 0.42 (stick breaking; seeds 0-2): 250
        correlated sweeps had not finished separating the strongly
        correlated pairs. The mean held-out perplexity on the three real
        corpora of ``max_iter`` moved by -0.05 / +0.12 / +0.05 % (logistic
        normal) and +0.22 / -0.02 / +0.08 % (stick breaking), within the
        seeds' spread; the same burn-in with 1,000 sweeps (250 averaged) was
        0.04-0.28 % worse on every real corpus. The warm-up was at most 20
        sweeps before 2026-11-27; 250 sweeps (``benchmarks/RESULTS.md``,
        "length of the LDA warm-up", then half the burn-in) took a drawn
        corpus (K = 10, D = 4,000, a pair at correlation 0.85) from a merged
        pair (worst L1 1.69, both links) to every topic found (0.18 / 0.19),
        raised r at K = 20 to at least 0.91 on every seed, and gave lower or
        equal (within 0.2 %) held-out perplexity on the three real corpora.

    n_infer_iter : int, default=400
        Gibbs sweeps over a new document's topics and Gaussian vector (topics
        and (mu, Sigma) fixed) in :meth:`transform`; the returned proportions
        are averaged over all of them but the first eighth, at least the first
        five (half below ten sweeps; user guide :ref:`infer_averaging`; until
        2026-11-29 the second half, 0.06-0.42 % / 0.14-0.35 % higher held-out
        perplexity on seven corpora with the logistic-normal / stick-breaking
        link). Averaged that way, on the seven corpora of the peers table
        (fits at the defaults, three halvings; ``benchmarks/inference.py
        --part sweeps``, section ``infer_sweeps``), 400 sweeps were below 200
        by 0.05-0.23 % (logistic normal; the 432 short 20 Newsgroups messages
        +0.10 %) and 0.07-0.39 % (stick breaking, all seven), and below 100
        by 0.08-0.58 % and 0.46-0.95 %, for 0.13-1.04 s per transform of the
        48-351 held-out documents (twice the time of 200): unlike the LDA models'
        inference (:class:`GibbsLDA`, 100 sweeps), whose gains past 100 are
        0.03-0.12 %, the Gaussian vector's single-site updates still gain
        there. Earlier, with the second half averaged (two halvings;
        ``benchmarks/ctm_settings.py --part infer``, section ctm_infer_iter),
        200 / 400 sweeps changed it by -0.80 to +0.20 % / -1.25 to +0.50 %
        (logistic normal; 400 lower on six corpora of seven, the 432 short 20
        Newsgroups messages +0.50 %) and -0.31 to -0.67 % / -0.53 to -1.53 %
        (stick breaking, lower on all seven); 1,000 sweeps moved AP at K = 3
        no further than 400 (side measurement). The transform of the held-out
        documents took 0.06-0.35 s with 100 sweeps and 0.16-1.41 s with 400
        (about 4 ms per document of the comp.* groups, logistic normal).
        Before that (five comp.* groups, K = 20, benchmarks/ctm_settings.py):
        1057.9 / 1047.5 / 1040.2 with 10 / 30 / 100 sweeps (logistic normal)
        and 1083.8 / 1059.7 / 1044.9 (stick breaking). tomotopy's inference
        runs 100 iterations.

    warm_start : bool, default=False
        Keep the chain after :meth:`fit` and, on the next call with the same
        ``X``, continue it for ``max_iter`` more sweeps: identical to one
        longer fit with the same ``random_state`` and ``burn_in`` (the
        continuation keeps the first fit's ``burn_in_``; with ``"auto"`` a
        fresh longer fit would resolve it from its own ``max_iter``).
        Other data, or another value of a parameter other than ``max_iter``,
        ``n_jobs``, ``verbose`` and the inference settings, raises
        ``ValueError`` (set ``warm_start=False`` to start a new chain).
        The kept chain (every token's word and topic, and the count tables)
        makes the fitted estimator and its pickle grow with the training
        tokens: 4.1 MB against 0.33 MB without it (4,000 documents of about 50
        tokens, K = 20, V = 2,000).

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw.

    n_jobs : int, default=None
        Threads of the topic sweep (partitioned, user guide :ref:`threads`) and
        of the per-document Gaussian updates; ``None`` means 1, ``-1`` all
        cores. Results depend only on ``random_state`` and ``n_jobs``.

    verbose : int, default=0
        Print progress (sweeps, log-likelihood, time) and a summary.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts (scikit-learn's meaning): ``topic_word_prior_``
        plus the topic-word counts averaged over the sweeps after the burn-in.
        Normalized rows are the posterior mean topics.

    topic_word_prior_ : float
        The topic-word prior used (estimated when ``"auto"``).

    mean_ : ndarray of shape (n_components,) or (n_components - 1,)
        Mean ``mu`` of the Gaussian vector (posterior mean over the sweeps
        after the burn-in).

    covariance_ : ndarray of shape (n_components, n_components) or (n_components - 1, n_components - 1)
        Covariance ``Sigma`` of the Gaussian vector (posterior mean over the
        sweeps after the burn-in). A fit that ends inside the burn-in gives
        the last draw of ``mean_`` and ``covariance_``; one that ends inside
        the LDA warm-up (``max_iter <= burn_in // 3``), before any correlated
        sweep, gives their starting values and a ``ConvergenceWarning``.

    topic_correlation_ : ndarray of shape (n_components, n_components)
        Correlation between topics, for both links that of the centred log
        proportions ``log theta_k - mean_j log theta_j`` under ``N(mean_,
        covariance_)`` (the identifiable part: softmax ignores a shift of
        eta). Logistic-normal link: exactly from ``C Sigma C``, ``C = I -
        11^T / K``. Stick-breaking link (whose Gaussian lives in K-1 stick
        coordinates): estimated from 20,000 Monte Carlo draws.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        ``log p(w | z, beta) + sum_d sum_k C_dk log theta_dk`` after each
        sweep; during the LDA warm-up (the first ``burn_in // 3`` sweeps,
        whose documents have no Gaussian vectors yet) the words' term alone,
        so the trace drops where the warm-up ends.

    trace_ : ChainTrace
        Per-sweep record of the chain (log-likelihood, topic shares, ``mean``
        and, when estimated, ``topic_word_prior``).

    n_iter_ : int
        Number of sweeps run.

    burn_in_ : int
        The burn-in of the chain: ``burn_in``, or the share of ``max_iter``
        that ``"auto"`` stands for (of the first fit of a ``warm_start``
        chain).

    n_features_in_ : int
        Number of words seen in :meth:`fit`.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the words seen in :meth:`fit`, when ``X`` has string column
        names.

    See Also
    --------
    GibbsLDA : LDA by the same topic sweep.
    sklearn.decomposition.LatentDirichletAllocation : Variational LDA.

    References
    ----------
    .. [1] J. Chen, J. Zhu, Z. Wang, X. Zheng, B. Zhang, "Scalable inference
       for logistic-normal topic models", NIPS 2013.
    .. [2] S. Linderman, M. Johnson, R. Adams, "Dependent multinomial models
       made easy: stick-breaking with the Pólya-gamma augmentation",
       NIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import CorrelatedTopicModel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(30, 20))
    >>> ctm = CorrelatedTopicModel(n_components=3, max_iter=10, burn_in=4,
    ...                            random_state=0).fit(X)
    >>> ctm.transform(X[:2]).shape
    (2, 3)
    >>> ctm.topic_correlation_.shape
    (3, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "link": [StrOptions({"logistic_normal", "stick_breaking"})],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": PG_TERMS_CONSTRAINT,
        "n_subiter": [IntegerInterval(1, None, closed="left")],
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        "topic_word_prior": PRIOR_CONSTRAINT,
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left"), StrOptions({"auto"})],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=10,
        *,
        link="logistic_normal",
        pg_method="auto",
        pg_terms=8,
        n_subiter=3,
        prior_strength=0.01,
        topic_word_prior="auto",
        max_iter=1250,
        burn_in="auto",
        n_infer_iter=400,
        warm_start=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.link = link
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.n_subiter = n_subiter
        self.prior_strength = prior_strength
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.n_infer_iter = n_infer_iter
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ----------------------------------------------------------- helpers
    # Measured (benchmarks/convergence.py, section convergence_warning): at
    # the defaults the warning fires on most real corpora, where continuing
    # moved the held-out perplexity by -0.5 to +0.2 % but for the comp.*
    # groups (-2.1 / -2.9 %): part of the rise is the covariance's random walk.
    _trend_note = (
        "For this model part of the rise can be the covariance's variances growing "
        "along directions the documents barely constrain; continuing such fits moved "
        "the held-out perplexity by less than 0.5 % on most corpora measured (user "
        "guide: 'The number of sweeps on real corpora').")

    def _trend_trace(self):
        """The trace the ConvergenceWarning judges: the whole chain's, from
        the end of the warm-up on when the warm-up reaches into its second
        half. The warm-up's values lack the documents' term ``sum C_dk log
        theta_dk``, so the trace drops where the warm-up ends, a jump that is
        no trend; inside the judged half it hid the rise after it
        (``max_iter=60, burn_in=120``, logistic normal, 300 drawn documents at
        K = 6: 0.058 nats per token over the last 10 correlated sweeps,
        z-score 10.0, judged -2.5 with the jump). The default fits (warm-up
        250 of 1,250 sweeps) judge the same half as before."""
        trace = self.log_likelihood_trace_
        n_warmup = self._n_warmup()
        if trace.shape[0] // 2 < n_warmup < trace.shape[0]:
            return trace[n_warmup:]
        return trace

    def _dim(self):
        return self.n_components - 1 if self.link == "stick_breaking" else self.n_components

    # _proportions and _update_gaussian serve the fit and inference: they read
    # the link and the sampler's settings of the fit (_fitted_param) and the
    # number of topics from their arrays.
    def _proportions(self, gauss, out):
        """The documents' topic proportions ``out`` (D, K) from their Gaussian
        vectors, in blocks of rows on ``n_jobs`` threads."""
        if out.shape[1] == 1:
            out[:] = 1.0
            return
        link = self._fitted_param("link")
        to_proportions = stick_breaking if link == "stick_breaking" else softmax_rows
        n_docs = gauss.shape[0]
        bounds = balanced_cuts(np.arange(n_docs + 1), effective_n_jobs(self.n_jobs, n_docs))
        map_ranges(lambda lo, hi: to_proportions(gauss[lo:hi], out[lo:hi]), bounds)

    def _precision(self, sigma):
        """The symmetrized inverse of the covariance ``sigma``."""
        precision = np.linalg.inv(sigma)
        if not np.all(np.isfinite(precision)):
            # A covariance of subnormal entries (the draw's scale is the
            # prior's a when the documents leave a direction unconstrained):
            # its inverse overflows and every Gaussian vector becomes NaN.
            raise self._covariance_failure(sigma.shape[0])
        return 0.5 * (precision + precision.T)

    def _update_gaussian(self, doc_topic, doc_ptr, gauss, mu, precision, states):
        """Per-document PG-augmented update of the Gaussian vectors, in place,
        in blocks of documents on ``n_jobs`` threads (``precision``: the
        inverse covariance, :meth:`_precision`)."""
        if doc_topic.shape[1] == 1:
            return  # one topic: nothing to correlate, theta = 1
        pg_method, pg_terms = self._fitted_param("pg_method"), self._fitted_param("pg_terms")
        method = PG_METHODS[pg_method]
        lengths = np.diff(doc_ptr)
        bounds = balanced_cuts(doc_ptr, effective_n_jobs(self.n_jobs, gauss.shape[0]))
        if self._fitted_param("link") == "stick_breaking":
            precision_mean = precision @ mu
            step = lambda lo, hi: stick_breaking_update(  # noqa: E731
                doc_topic, lengths, gauss, precision, precision_mean, method, pg_terms,
                states, lo, hi)
        else:
            n_subiter = self._fitted_param("n_subiter")
            step = lambda lo, hi: logistic_normal_update(  # noqa: E731
                doc_topic, lengths, gauss, mu, precision, n_subiter, method, pg_terms,
                states, lo, hi)

        def update(lo, hi):
            # Each block checks its own rows (a whole-array check after the
            # update was a serial pass as long as a tenth of the update).
            step(lo, hi)
            return largest_deviation(gauss[lo:hi], mu)

        deviation = max(map_ranges(update, bounds), default=0.0)
        if not deviation <= _DIVERGENCE_BOUND:
            # An approximate Polya-Gamma sampler is the usual cause; with exact
            # draws only the prior of the covariance is left to change.
            advice = ("Change prior_strength." if pg_method == "exact" else
                      "Use pg_method='exact' or more pg_terms.")
            raise ChainDivergenceError(
                f"CorrelatedTopicModel diverged: the documents' Gaussian vectors ran off "
                f"(largest distance from their mean {deviation:.3g}) with "
                f"pg_method={pg_method!r}. {advice}")

    def _covariance_failure(self, n_dims):
        """The error of a covariance (``n_dims`` square) that float64 cannot
        hold: the setting to change is ``prior_strength``, not the sampler."""
        prior_strength = self._fitted_param("prior_strength")
        return ChainDivergenceError(
            f"CorrelatedTopicModel: the covariance of the documents' Gaussian vectors "
            f"cannot be drawn in float64 (prior_strength={prior_strength!r}, {n_dims} "
            "dimensions); the chain diverged. Change prior_strength: one so small that "
            "its pseudo-observations vanish next to the documents' scatter leaves the "
            "covariance singular where fewer documents than dimensions constrain it, "
            "one so large overflows.")

    def _neutral_mean(self):
        """The Gaussian vector of uniform proportions, the prior mean of
        ``mu``: 0 for the logistic-normal link; ``psi_k = -log(K - 1 - k)``
        for the stick-breaking link (stick ``k`` takes ``1 / (K - k)`` of what
        is left). A zero prior mean in stick coordinates would mean
        proportions 1/2, 1/4, 1/8, ...: its pull in the first correlated
        sweeps starved the last topics of the stick (K = 20, D = 2,000: the
        smallest topic share fell from 0.047 to 0.009 in two sweeps and the
        fitted topics lost a true one; user guide :ref:`ctm_stick_mean`)."""
        dim = self._dim()
        if self.link == "stick_breaking":
            return -np.log(np.arange(dim, 0, -1, dtype=np.float64))
        return np.zeros(dim)

    # burn_in="auto": three fifths of max_iter (750 of the default 1,250).
    _AUTO_BURN_IN_SHARE = (3, 5)

    def _n_warmup(self):
        """Plain LDA sweeps (Dirichlet(1) prior) before the correlated ones:
        the first third of the burn-in (user guide :ref:`ctm_warmup`)."""
        return self.burn_in_ // 3

    def _warmup_beta(self, run):
        """Topic-word prior of the warm-up sweep ``run.iteration``.

        Annealed (user guide :ref:`ctm_anneal`): over the first half of the
        warm-up it falls geometrically from ``beta_0``, whose ``V * beta_0``
        pseudo-counts are :data:`_ANNEAL_MASS` of a topic's mean token count,
        to the chain's prior ``beta`` (never below it); afterwards it is
        ``beta``. Smooth topics let the tokens
        of two co-occurring topics that the start merged move apart.
        """
        beta = run.priors.beta
        n_anneal = self._n_warmup() // 2
        if run.iteration >= n_anneal:
            return beta
        chain = run.chain
        start = np.maximum(_ANNEAL_MASS * chain.n_tokens / (chain.n_topics * chain.n_words), beta)
        return start * (beta / start) ** (run.iteration / n_anneal)

    def _order_sticks(self, run):
        """Renumber the warm-up's topics in :func:`stick_order` (their topic
        shares recorded so far follow)."""
        order = stick_order(run.chain.tokens.doc_topic)
        run.chain.relabel(order)
        run.trace.topic_share[:] = [share[order] for share in run.trace.topic_share]
        run.notes.append(f"topics put in stick order {order.tolist()}")

    # ------------------------------------------------------- the model's steps
    def _start_run(self, X, doc_ptr, word_ids, seed):
        seeds = np.random.SeedSequence(seed).spawn(5)
        chain_seed, prior_seed, gauss_seed, niw_seed, factor_seed = seeds
        n_docs, n_words = X.shape
        dim = self._dim()
        if self.n_components > 1 and _FACTOR_START:
            chain = TopicChain.from_factors(doc_ptr, word_ids,
                                            *factorize(X, self.n_components, factor_seed),
                                            chain_seed)
        else:
            chain = TopicChain.random(doc_ptr, word_ids, self.n_components, n_words, chain_seed)
        priors = DirichletPriors.for_chain(chain, None, self.topic_word_prior, prior_seed)
        priors.alpha[:] = _WARMUP_DOC_PRIOR  # the warm-up's Dirichlet documents
        a = self.prior_strength * n_docs
        mean0 = self._neutral_mean()
        return _CTMRun(
            chain, priors, gauss=np.tile(mean0, (n_docs, 1)),
            weights=np.full((n_docs, self.n_components), 1.0 / self.n_components),
            gauss_states=make_streams(gauss_seed, n_docs), mu=mean0.copy(), sigma=np.eye(dim),
            niw=(mean0, a, a * np.eye(dim), dim + 1.0 + a),
            rng=np.random.default_rng(niw_seed), mu_sum=np.zeros(dim),
            sigma_sum=np.zeros((dim, dim)))

    def _sweep(self, run):
        chain = run.chain
        if run.iteration == self._n_warmup() and self.link == "stick_breaking":
            self._order_sticks(run)
        if run.iteration < self._n_warmup():
            # Warm start: plain LDA sweeps with a smooth Dirichlet prior
            # separate co-occurring topics before the (more peaked)
            # correlated proportions take over.
            chain.sweep_lda(run.priors.alpha, self._warmup_beta(run), self.n_jobs)
        else:
            self._update_gaussian(chain.tokens.doc_topic, chain.tokens.doc_ptr, run.gauss,
                                  run.mu, self._precision(run.sigma), run.gauss_states)
            if self.n_components > 1:
                try:
                    run.mu, run.sigma = _niw_posterior_draw(run.gauss, *run.niw, run.rng)
                except (np.linalg.LinAlgError, ValueError) as exc:
                    # scipy's inverse-Wishart factors the posterior scale
                    # Psi_n = a I + S + ...: with fewer documents than
                    # dimensions S is singular, and a tiny a is lost to
                    # rounding ("not positive definite"); a huge a overflows
                    # ("must not contain infs or NaNs").
                    raise self._covariance_failure(run.sigma.shape[0]) from exc
            self._proportions(run.gauss, run.weights)
            chain.sweep_weighted(run.weights, run.priors.beta, self.n_jobs)
        self._update_priors(run)
        if run.iteration >= self.burn_in_:
            run.mu_sum += run.mu
            run.sigma_sum += run.sigma
            run.n_moments += 1
        run.trace.record(mean=run.mu)

    def _log_likelihood(self, run):
        doc_side = 0.0
        if run.iteration > self._n_warmup():  # (sweeps done) the last one was correlated
            doc_side = float(np.sum(run.chain.tokens.doc_topic
                                    * np.log(np.maximum(run.weights, 1e-300))))
        return run.priors.log_word_joint(run.chain) + doc_side

    def _finish(self, run):
        self._finish_priors(run)
        self.components_ = run.components(self.topic_word_prior_)
        n = max(run.n_moments, 1)
        self.mean_ = run.mu_sum / n if run.n_moments else run.mu.copy()
        self.covariance_ = run.sigma_sum / n if run.n_moments else run.sigma.copy()
        self.topic_correlation_ = self._topic_correlation(self.mean_, self.covariance_)

    def _warn_if_nothing_kept(self, run):
        if self.n_components > 1 and run.iteration <= self._n_warmup():
            # Only plain LDA sweeps ran: (mu, Sigma) were never drawn, and
            # topic_correlation_ was -1 / (K - 1) for every pair, silently.
            _warn(f"{type(self).__name__}: the chain ended inside its LDA warm-up "
                  f"({run.iteration} sweeps; the warm-up is the first burn_in // 3 = "
                  f"{self._n_warmup()}): no correlated sweep ran, so mean_, covariance_ and "
                  "topic_correlation_ are the starting values (identity covariance), not "
                  "estimates. Increase max_iter or lower burn_in.", ConvergenceWarning)
        else:
            super()._warn_if_nothing_kept(run)

    def _topic_correlation(self, mu, sigma):
        """Correlation of the centred log proportions log theta_k - mean_j log theta_j.

        Softmax is unchanged by adding a constant to eta, so only the centred
        vector is identified: for the logistic-normal link its covariance is
        ``C Sigma C`` with ``C = I - 11^T / K`` exactly; for the stick-breaking
        link it is estimated from 20,000 draws of N(mu, Sigma).
        """
        n_topics = self.n_components
        if n_topics == 1:
            return np.ones((1, 1))
        if self.link == "logistic_normal":
            centring = np.eye(n_topics) - 1.0 / n_topics
            cov = centring @ sigma @ centring
        else:
            gen = np.random.default_rng(self._infer_seed)
            draws = gen.multivariate_normal(mu, sigma, size=20000, method="cholesky")
            props = np.empty((draws.shape[0], n_topics))
            stick_breaking(draws, props)
            logp = np.log(np.maximum(props, 1e-300))
            cov = np.cov((logp - logp.mean(axis=1, keepdims=True)).T)
        # Rounding left C Sigma C asymmetric in its last bits (most fits at
        # K >= 4: scipy's squareform(1 - corr) refused it) and put
        # correlations of +-1 one unit in the last place outside [-1, 1]
        # (K = 2: arccos and arctanh gave NaN).
        cov = 0.5 * (cov + cov.T)
        sd = np.sqrt(np.maximum(np.diag(cov), 1e-300))
        corr = np.clip(cov / np.outer(sd, sd), -1.0, 1.0)
        np.fill_diagonal(corr, 1.0)
        return corr

    # ------------------------------------------------------------- inference
    def _posterior(self, doc_ptr, word_ids, n_samples):
        """Gibbs over the tokens' topics and the Gaussian vectors, topics and
        (mu, Sigma) fixed; the proportions of each sweep are draws."""
        n_docs, n_topics = doc_ptr.shape[0] - 1, self._n_topics()
        phi, rows = self._present_topics(word_ids)
        states = document_streams(self._infer_seed, doc_ptr, word_ids)
        tokens = initial_topics(doc_ptr, rows, phi)
        gauss = np.tile(self.mean_, (n_docs, 1))
        weights = np.empty((n_docs, n_topics))
        n_iter = self.n_infer_iter
        n_average = averaged_sweeps(n_iter)
        mean = np.zeros((n_docs, n_topics))
        draws = np.empty((n_samples, n_docs, n_topics)) if n_samples else None
        # The covariance is fixed: its inverse once, not at every sweep (an
        # O(K^3) step that was most of a small batch's time at large K).
        precision = self._precision(self.covariance_)
        for it in range(n_iter + n_samples):
            self._update_gaussian(tokens.doc_topic, doc_ptr, gauss, self.mean_, precision, states)
            self._proportions(gauss, weights)
            infer_topics(tokens, phi, states, self.n_jobs, weights=weights)
            if n_iter - n_average <= it < n_iter:
                mean += weights
            elif it >= n_iter:
                draws[it - n_iter] = weights
        mean /= n_average
        return mean / mean.sum(axis=1, keepdims=True), draws
