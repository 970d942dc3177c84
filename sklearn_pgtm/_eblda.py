"""Empirical Bayes LDA: Dirichlet hyperparameters from the marginal likelihood,
with their Monte Carlo uncertainty.

The fully-Bayes empirical Bayes method of Xia & Doss (2020), user guide
:ref:`eblda`: a Markov chain on the topics ``z`` and the hyperparameters
``h = (alpha, beta)`` under a flat-ish Gamma prior; the Rao-Blackwellized
estimate of the posterior density of ``h`` divided by the prior estimates the
marginal likelihood ``m(h)`` up to a constant, whose maximizer is the
estimate. :class:`EmpiricalBayesLDA` is :class:`~sklearn_pgtm.GibbsLDA` whose
chain runs longer with ``h`` moving, plus what only it has: the HMC update of
``h``, one alpha per topic with label alignment, the batch-means covariance
and confidence region of the estimate, and the estimated marginal-likelihood
surface.
"""

import math
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from scipy.stats import chi2, f
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import N_JOBS_CONSTRAINT, GibbsRun, IntegerInterval, real_array, trend_z_score
from ._chain import TopicChain
from ._kernels._dirichlet import align_topics, gamma_draw, hmc_update
from ._lda import PRIOR_VALUE, GibbsLDA
from ._priors import ConsensusDensity, DirichletPriors, RaoBlackwellDensity
from .exceptions import _warn

# |trend z-score| of the chains' kept log h (combined over the chains) above
# which h is taken to be still drifting. Higher than the log-likelihood
# check's 4: the AR(1) correction of the z-score understates the error of the
# strongly autocorrelated h, and single stationary chains on corpora drawn
# from LDA reached |z| = 4.3, while chains started at alpha = beta = 1e4 gave
# -4 to -15 each and -9 to -16 combined over three (tests/test_eblda.py).
DRIFT_Z = 6.0
# The lower threshold of the same test above which the burn-in is extended
# (below): a chain that still drifts slowly biases the estimate, and an
# extension only costs sweeps. On the embedded religion corpus (K = 20,
# seeds 0-7; 857 / 300 messages) alpha was 0.0566 / 0.0725 extended at
# DRIFT_Z, 0.0549 / 0.0701 at 3 and 0.0539 / 0.0671 with a burn-in of 800,
# its spread across fits fell by 40-55 %, the held-out perplexity by 0.3 %,
# for 1.1-1.3 times the fit time (benchmarks/eblda_coverage.py --part
# burn-in, section eblda_burn_in_extension).
EXTEND_Z = 3.0
# The burn-in grows while the chains of h still drift over their kept draws
# (those draws become burn-in and as many are drawn again), up to this many
# times burn_in; past it the drift warning is raised. On the embedded religion
# corpus (857 messages, K = 20, seeds 0-7) a burn-in of 200 left alpha at
# 0.0582 (reported sd 0.0016) against 0.0539 at 800; extended (EXTEND_Z),
# 0.0549 after 325-575 (benchmarks/eblda_coverage.py --part burn-in).
MAX_BURN_IN_FACTOR = 3
# HMC acceptance of a chain after the burn-in below which that chain of h is
# taken to be stuck (one stuck chain is enough: started at 1e4 with a burn-in
# of 20, two of three chains accepted nothing from alpha = 80-99 while the
# third reached 0.3 and lifted the mean acceptance to 0.30). The tuned step
# ("auto") accepts 0.66-0.67; fixed steps of 0.05 and 0.2 with the unit mass
# matrix accepted 0.00 on four 20 Newsgroups groups (K = 10, 10 fits each)
# and returned estimates 35 % / 31 % from the tuned ones, near the start,
# with no other warning (benchmarks/RESULTS.md, eblda_defaults_hmc_step).
LOW_ACCEPTANCE = 0.1
# Chains whose estimates of alpha (the sum of the alphas when there is one per
# topic) or of beta differ by more than this factor, largest over smallest,
# have not reached one region of h: a warning, and a reason to extend the
# burn-in. At the defaults the chains' estimates lay within a factor of 1.35
# (alpha) and 1.16 (beta) of one another in 72 fits on the corpora of
# benchmarks/eblda_coverage.py (--part chains, section eblda_chains_apart);
# HMC chains stuck or still travelling from a start of 1e4 were 30 to 22,500
# times apart, and without this test fits returned alpha 78 or 2.0 (truth
# 0.3) with no warning.
FAR_APART_FACTOR = 2.0
# Singular values of a covariance below this fraction of the largest are taken
# for zero (np.linalg.pinv's default, 1e-15, is far below the optimizer's
# resolution). Each chain's batch means span at most n_batches - 1 directions
# (its estimate is nearly their consensus), so with one alpha per topic and
# n_chains * (n_batches - 1) < p the mean batch-means covariance W is singular.
# At the defaults with K = 20 (p = 21, 4 x 4 directions; 300 documents drawn
# from LDA, seeds 0 and 1) its singular values fell from 1e-2 to 1e-12 of the
# largest after the 16th, pinv inverted the rounding there, tr(W^+ B) / p came
# to 1e12-1e13 and the reported sd of each alpha (0.2) to 4,500-22,000. The
# estimable directions reached 2e-3 of the largest in those fits and 3e-5
# with two batches; the round-off 1e-10 at K = 30.
RANK_RCOND = 1e-8


@dataclass
class _HMCTuner:
    """Step size (and diagonal mass) of the HMC update of ``log h``, tuned
    during the burn-in: dual averaging over its first half, then a diagonal
    mass matrix from the draws of the burn-in's second quarter (the first
    quarter's are still far from the posterior; at least five draws) and
    Robbins-Monro on the log step, whose last value
    is kept (near the leapfrog stability limit the acceptance drops steeply,
    so an average of oscillating steps would overshoot 0.65)."""

    step: float
    inv_mass: np.ndarray
    adapt: bool
    burn_in: int
    dual: object = None
    window: list = field(default_factory=list)
    accept_sum: float = 0.0

    def __post_init__(self):
        if self.adapt:
            self.dual = _DualAveraging(self.step)

    def after(self, it, accept, u):
        """Adapt after the HMC step of iteration ``it`` (accepted with ``accept``)."""
        if it >= self.burn_in:
            self.accept_sum += accept
            return
        if not self.adapt:
            return
        self.step = self.dual.update(accept)
        mass_at = max(self.burn_in // 2, 1)
        if it >= mass_at // 2:
            self.window.append(u.copy())
        if it + 1 == mass_at and len(self.window) >= 5:
            var = np.var(np.array(self.window), axis=0)
            restart = self.dual.final()
            if np.all(var > 0) and np.all(np.isfinite(var)):
                self.inv_mass = var
                restart = 1.0  # about one posterior sd per step
            self.dual = _RobbinsMonro(restart)
        if it + 1 == self.burn_in:
            self.step = self.dual.final()


@dataclass
class _HChain:
    """One chain of (z, h): its topics, priors, HMC tuner, topic alignment and
    kept draws of h."""

    chain: TopicChain
    priors: DirichletPriors
    hmc: _HMCTuner = None
    perm: np.ndarray = None  # reference label of each current topic
    samples: list = field(default_factory=list)


@dataclass
class _EBRun(GibbsRun):
    """A :class:`~sklearn_pgtm._base.GibbsRun` with the estimator's extra state:
    every chain of h (the first one's topics and priors are ``chain`` and
    ``priors``, those of the trace and of the final sweeps)."""

    h_chains: list = field(default_factory=list)
    reference: np.ndarray = None
    h_hat: np.ndarray = None
    chain_estimates: np.ndarray = None
    pooled: "PooledCovariance" = None
    density: ConsensusDensity = None
    chain_log_joints: np.ndarray = None
    final_chain: int = 0

    def in_reference_labels(self, values):
        """Per-topic ``values`` of the chain the trace follows (the first one,
        then ``final_chain``) moved from its own topic labels to those of
        ``components_`` (the same labels with one alpha: no alignment)."""
        aligned = np.empty_like(values)
        aligned[self.h_chains[self.final_chain].perm] = values
        return aligned

    def topic_share(self):
        return self.in_reference_labels(super().topic_share())


class EmpiricalBayesLDA(GibbsLDA):
    """Latent Dirichlet allocation with empirical Bayes Dirichlet hyperparameters.

    Estimates the document-topic prior ``alpha`` and the topic-word prior
    ``beta`` by maximizing the marginal likelihood of the corpus with the
    fully-Bayes Markov chain of Xia & Doss (2020), reports a 95% confidence
    region for the estimate, and then is an ordinary LDA fitted at the
    estimated hyperparameters. (:class:`~sklearn_pgtm.GibbsLDA` with
    ``"auto"`` priors computes the same estimate inside a shorter chain; this
    estimator adds the Monte Carlo uncertainty of the estimate, one alpha per
    topic, HMC and the marginal-likelihood surface.)

    Read more in the :ref:`User Guide <eblda>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics ``T``. The default and the choice of K are
        :class:`GibbsLDA`'s: scikit-learn's default, checked for this model
        too at K = 5-100 against the peers (sections defaults_peers and
        defaults_unseen of ``benchmarks/RESULTS.md``). With ``T = 1`` every
        document's proportion is 1 whatever ``alpha``: the corpus says
        nothing of it (``doc_topic_prior_`` only reflects the hyperprior),
        and the convergence checks, :meth:`log_marginal_likelihood` and
        :meth:`in_confidence_region` judge ``topic_word_prior`` alone; so
        when no document has two tokens or more (a one-token document's
        topic has probability ``1 / T`` whatever ``alpha``; the fit warns).

    sampler : {"augmentation", "hmc"}, default="augmentation"
        Update of ``h`` given the topics: ``"augmentation"`` is the augmented
        collapsed Gibbs step (conjugate Gamma draws after beta / Bernoulli
        auxiliaries; no tuning), ``"hmc"`` is Hamiltonian Monte Carlo on
        ``log h`` whose step size (and diagonal mass) are tuned during the
        burn-in to an acceptance rate near 0.65. The default needs no tuning
        and gave the more honest confidence region: over 48 fits per corpus
        at the defaults of 2026-11-29 (``benchmarks/eblda_coverage.py``,
        section eblda_coverage_defaults_48 of ``benchmarks/RESULTS.md``),
        the spread of the estimates over the reported standard deviation was
        1.01-1.23 with ``"augmentation"`` in all five settings (four
        corpora, one of them at K = 10 and 20), and 0.99-1.46 with ``"hmc"``
        (1.46 for ``alpha`` on 300 demo documents at K = 10, 1.44 for
        ``eta`` on four 20 Newsgroups groups; with 24 fits at the defaults
        before, section eblda_coverage, 0.80-1.16 against 0.81-1.26 but
        1.91 on the four groups); the two recovered known
        hyperparameters equally well, within 0.0-4.8 % of the truth, in about
        the same time (``benchmarks/eblda_recovery.py``, section
        eblda_recovery, 2026-11-30).

    symmetric_alpha : bool, default=True
        One ``alpha`` shared by all topics, or one per topic (with topics
        aligned to a reference sample against label switching). The default
        is measured (``benchmarks/eblda_alpha.py``, section eblda_alpha of
        ``benchmarks/RESULTS.md``; two seeds, other parameters at their
        defaults): one alpha per topic changed the held-out perplexity by
        -3.2 % on 432 20 Newsgroups messages and -1.9 % on short documents
        drawn with alphas from 0.05 to 1, by +0.01 / +0.09 % on AP and the
        religion corpus, and by +0.95 / +3.2 % on the five comp.* groups and
        documents drawn with a symmetric alpha, where one chain in two drove
        a topic's alpha to 0.001 and emptied the topic; it took 1.1-1.8
        times as long.

    n_samples : int, default=500
        Iterations kept after the burn-in for the estimate, shared by the
        ``n_chains`` chains: each keeps ``ceil(n_samples / n_chains)`` (at
        least 4). At 500 the reported standard deviation of the estimate
        matches the spread of the estimates across fits: ratios 0.99-1.46
        on five corpora with both samplers (48 fits per row, with the
        burn-in extension; section ``eblda_coverage_defaults_48`` of
        ``benchmarks/RESULTS.md``, see ``n_chains``; 0.84-1.34 before the
        extension, on another machine). With 24 fits (and the extension at
        the drift warning's threshold) four rows fell at 1.65-1.84, by
        chance of 24 fits (section ``eblda_coverage_defaults_24``). Against
        250 and 1,000 (``python benchmarks/eblda_coverage.py --part settings
        --fits 10``, section
        ``eblda_defaults_chain``, 10 fits per row): on 300 documents drawn
        from LDA (K = 3) the reported sd of alpha / beta was 6.0 / 2.4, 4.1
        / 1.7 and 3.3 / 1.15 (x 1e-3) for 250 / 500 / 1,000, at 2.8 / 3.7 /
        4.6 s per fit, and the chains of 5 of the 10 fits at 250 disagreed
        (``between_chain_ratio_`` above the 99 % point for agreeing chains;
        1 at 500); on four 20 Newsgroups groups (K = 10), where
        the chains sit in different modes and their spread sets the
        covariance, it was 3.5 / 3.9 / 3.7 for alpha and 3.0 / 3.2 / 3.1
        for beta, at 5.6 / 6.3 / 9.0 s: longer chains do not narrow it
        there. The mean estimate moved by at most 0.6 % (``|z|`` <= 1.0)
        between the three.

    burn_in : int, default=200
        Iterations of each chain discarded at the start (the HMC sampler
        tunes there). Each chain runs ``burn_in + ceil(n_samples /
        n_chains)`` topic sweeps. When the chains of ``h`` still drift over
        their kept draws (the drift warning's test at a trend z-score of 3
        instead of 6) or their estimates lie more than a factor of 2 apart,
        those draws become burn-in and as many are drawn again, while the
        burn-in stays within three times ``burn_in`` (``burn_in_``): on the
        embedded religion corpus (857 messages, K = 20, seeds 0-7) alpha was
        0.0582 at 200 without the extension, 0.0549 with it (burn-ins of
        325-575), 0.0546 / 0.0539 with ``burn_in`` 400 / 800, at 9.5 /
        16.2 / 17.4 / 24.8 s per fit (section ``eblda_burn_in_extension``;
        user guide, :ref:`eblda_chains`).
        Against 100 and 400 (section ``eblda_defaults_chain``, same command
        and rows as ``n_samples``, before the extension):
        with 100 a chain of h still drifted over its kept draws (the
        ConvergenceWarning) in 2 of 10 fits on the four 20 Newsgroups
        groups, with 200 and 400 in none; the mean estimate moved by at most
        2.4 % (``|z|`` <= 1.1) and the reported sd by at most 17 %, while 400
        took 1.3-1.5 times the fit time of 200 (4.8 against 3.7 s on the
        LDA draw, 9.4 against 6.3 s on 20 Newsgroups). The default stays at
        200: the extension lengthens only the fits that drift, where 400
        would lengthen every fit; neither removes all of a slow drift (on
        300 of the religion messages, eight seeds, alpha is 0.0701 extended,
        0.0689 at 400 and 0.0671 at 800; section
        ``eblda_burn_in_extension``).

    n_final_iter : int, default=500
        Topic sweeps with ``h`` fixed at the estimate after the chains, by
        the chain with the highest collapsed log joint there (see
        ``n_chains``); the topic-word counts of their second half give
        ``components_``. That chain then runs 825 sweeps at the
        defaults, near :class:`GibbsLDA`'s 1,000: held-out perplexity at 100
        / 500 / 1,000 final sweeps (K = 20, one fit each, the corpora of
        ``benchmarks/defaults.py``) was 1053 / 1030 / 1015 on five
        ``comp.*`` groups of 20 Newsgroups, 2506 / 2496 on AP and 2162 /
        2120 on 480 documents of four groups, for 1.25 times the fit time
        of 100 at 500 (2.0 at 1,000).

    hmc_n_steps : int, default=2
        Leapfrog steps per HMC transition (``sampler="hmc"``); 2 as in Xia &
        Doss (2020). Against 1 and 4 (section ``eblda_defaults_hmc``, the
        command of ``n_samples``, 10 fits per row, the step tuned to an
        acceptance of 0.64-0.68 each time): on the LDA draw (K = 3) the
        reported sd of alpha / beta was 3.7 / 1.2, 3.5 / 1.2 and 4.2 / 1.8
        (x 1e-3) with 1 / 2 / 4 steps, at about the same fit time (3.3 /
        3.5 / 3.6 s: the update of h is cheap next to a sweep); on the four
        20 Newsgroups groups (K = 10), where the spread between the chains
        sets the covariance, 3.3 / 3.2, 3.6 / 2.5 and 3.3 / 3.4. The mean
        estimate moved by at most 1.2 % (``|z|`` <= 1.0).

    hmc_step_size : "auto" or float, default="auto"
        Leapfrog step in ``log h``. ``"auto"`` tunes it during the burn-in
        (dual averaging, then a diagonal mass matrix and Robbins-Monro); a
        float is used as is with a unit mass matrix. The posterior of
        ``log h`` is narrow and its coordinates differ in scale, so a fixed
        step rarely fits: with 0.05 and 0.2 (10 fits each,
        ``benchmarks/eblda_coverage.py --part settings --groups hmc_step``,
        section eblda_defaults_hmc_step of ``benchmarks/RESULTS.md``) the
        acceptance after the burn-in was 0.00 on four 20 Newsgroups groups
        (K = 10) and the estimates stayed near their start (alpha 35 %
        above, beta 31 % below the tuned fits'), and 0.91 / 0.00 on the LDA
        draw (K = 3); ``"auto"`` accepted 0.66-0.67 on both. When a chain
        accepts under 0.1 the fit raises a ``ConvergenceWarning``; a step
        too small to move the chains (1e-4: every proposal accepted, ``h``
        still at its start) raises one because the estimate lies outside the
        values they drew.

    n_batches : int, default=None
        Number of batches for the batch-means covariance of the estimate.
        ``None`` means ``max(2, floor(n ** (1/3)))`` for the ``n`` kept
        draws of each chain (5 for the default 125): fewer, longer batches
        than the paper's ``sqrt(n)``, because the slow mixing of the topics
        makes short batches underestimate the covariance. With the default
        four chains the spread between them usually sets the covariance and
        the number of batches matters little: on the LDA draw (K = 3) and
        four 20 Newsgroups groups (K = 10), 10 fits each, 5 / 11 / 2
        batches reported an sd of alpha of 4.09 / 4.11 / 4.56 and 3.86 /
        3.86 / 3.86 (x 1e-3) against 4.33 and 3.90 across the fits; the
        chains disagreed (``between_chain_ratio_``, which compares the
        chains' spread with their batch means) in 1 / 5 / 2 of the 10 fits
        of the LDA draw (``benchmarks/eblda_coverage.py --part settings
        --groups batches``, section eblda_defaults_batches of
        ``benchmarks/RESULTS.md``). Each chain's batches span at most
        ``n_batches - 1`` directions of ``h``: with one alpha per topic,
        ``n_chains * (n_batches - 1)`` below ``n_components + 1`` (K = 16
        and more at the defaults) leaves the covariance singular, and the
        fit warns. At most half the kept draws of a chain.

    n_chains : int, default=4
        Independent chains of ``(z, h)`` (own random topics and streams, the
        same starting ``h``); the estimate maximizes the mean of their log
        marginal likelihoods. One chain cannot see that its topics sit in
        one region of a multimodal posterior; with several, the spread of
        their estimates sets the covariance when it exceeds what each
        chain's batch means imply (see ``between_chain_ratio_``; user guide,
        :ref:`eblda_chains`). In
        ``benchmarks/eblda_coverage.py`` (24 fits per row) the spread of the
        estimates across fits over the reported standard deviation was, for
        alpha / beta, 0.80 / 0.97 with four chains against 1.45 / 1.03 with
        one on a corpus drawn from LDA (augmentation sampler), and 0.83 /
        0.98 against 2.13 / 3.89 on 300 documents of the demo corpus (K =
        10); a fit's region held another fit's estimate in 89% and 89% of
        the pairs against 57% and 10%. With 48 fits per row, four chains
        meet the target (ratios 0.7-1.5, 70% of the pairs) on all five
        corpora of the benchmark with both samplers. Four chains cost 1.5
        times the sweeps of one at the defaults (4 x 325 + 500 against 200 +
        500 + 500; 1.5 times the CPU time of one on 500 documents drawn from
        LDA, K = 5). The chains also end in different
        modes of the topics: the final sweeps, which give ``components_``,
        continue the chain whose topics have the highest collapsed log joint
        ``log p(w, z | h_hat)`` at the estimate (``chain_log_likelihoods_``,
        ``final_chain_``). Measured with every chain continued in turn
        (``benchmarks/defaults.py --part eblda``, K = 20, four real corpora x
        three seeds): held-out perplexity -0.8 % on average relative to
        continuing the first chain (from -5.2 % to +1.4 %), and the worst
        fit 2.8 % above the best of its four chains instead of 7.9 %; the five
        ``comp.*`` groups of 20 Newsgroups at seed 0, where the first chain
        scored 1054.5, get 999.7. That chain runs ``burn_in + ceil(n_samples
        / n_chains) + n_final_iter`` sweeps, fewer than one chain would: in a
        quick run of ``benchmarks/eblda_20news.py`` (2 units per corpus,
        ``n_final_iter`` then 100, the first chain continued) the held-out
        perplexity was 1025 against 997 with one chain on five ``comp.*``
        groups, and 1455 for both on six distinct groups.

    hyperprior : tuple of two floats, default=(1.0, 0.01)
        Shape ``a`` and rate ``b`` of the Gamma prior put on each component
        of ``h`` for the chain. It only guides the chain: the estimate
        divides it out, as long as the chain can reach the estimate (an
        informative one, such as (1e10, 1e10), holds the chains away from
        it, and the fit warns that the estimate lies outside the values they
        drew). The default is nearly flat over the usual range of
        ``h`` (its density falls by 1 % from 0 to 1). Against (1, 0.1) and
        (2, 0.01) (section ``eblda_defaults_hyperprior``, the command of
        ``n_samples``, 10 fits per row): the mean estimate moved by -0.8 to
        +0.3 % on the LDA draw (K = 3) and by -2.0 to +0.2 % on the four 20
        Newsgroups groups (K = 10), within 1.3 standard errors of the
        difference, and the default fits' 95 % regions held the other fits'
        estimates in 77-92 % of the pairs (84-89 % of each other's).

    doc_topic_prior : float, default=None
        Starting value of ``alpha`` in the chain (scikit-learn's name);
        ``None`` means ``1 / n_components``. The estimate does not depend on
        the start within seed noise: starting both priors at 0.01 or at 1
        instead of 1 / K (section ``eblda_defaults_start``, the command of
        ``n_samples``, 10 fits per row), no fit warned of a drifting chain;
        on the LDA draw (K = 3) the mean estimate moved by at most 0.6 %
        (``|z|`` <= 0.8); on the four 20 Newsgroups groups (K = 10) by -3.9 and
        -4.5 % for alpha and +1.7 and +2.3 % for beta (``|z|`` 1.7-2.2), both
        starts the same way, which a trend with the start (1 / K lies
        between them) would not give, and the default fits' regions held
        86-90 % of their estimates (84 % of each other's). A far start does
        show: from 1e4 the chains report drift z-scores of -4 to -15
        (user guide, :ref:`eblda_chains`).

    topic_word_prior : float, default=None
        Starting value of ``beta`` in the chain; ``None`` means
        ``1 / n_components``. Measured with ``doc_topic_prior`` (the same
        starting value for both).

    n_infer_iter : int, default=100
        Gibbs sweeps used by :meth:`transform` to infer document topics
        with the topics fixed, averaged over all of them but the first
        eighth, at least the first five (half below ten sweeps; user guide
        :ref:`infer_averaging`; the second half until 2026-11-29, 0.06-0.45
        % higher held-out perplexity on seven corpora). :class:`GibbsLDA`'s default, the same
        inference: on the seven corpora of the peers table (fits at the
        defaults, held-out document-completion perplexity, three halvings;
        ``benchmarks/inference.py --part sweeps``, section ``infer_sweeps``)
        100 sweeps lowered the perplexity against 50 (the default until
        2026-11-30) by 0.09-0.23 % on every corpus, 200 / 400 by a further
        0.03-0.13 / 0.04-0.25 %, for a transform of 0.03-0.10 s of the
        48-351 held-out documents at 100 (twice that at 200).

    n_jobs : int, default=None
        Threads of the topic sweep and of inference (user guide,
        :ref:`threads`); ``None`` means 1, ``-1`` all cores. Results depend
        only on ``random_state`` and ``n_jobs``.

    random_state : int, RandomState instance or None, default=None
        Seeds the chain; ``transform`` is deterministic given the fit.

    verbose : int, default=0
        Print progress and a summary.

    Attributes
    ----------
    doc_topic_prior_ : float or ndarray of shape (n_components,)
        Empirical Bayes estimate of ``alpha`` (a float when
        ``symmetric_alpha``; else one value per topic, in the order of
        ``components_``).

    topic_word_prior_ : float
        Empirical Bayes estimate of ``beta``.

    hyperparameter_covariance_ : ndarray of shape (p, p)
        Estimate of the Monte Carlo covariance of the estimate
        ``(alpha..., beta)`` (p = 2, or ``n_components + 1``): the chains'
        mean batch-means covariance divided by ``n_chains`` while
        ``between_chain_ratio_`` is at most 1; above, the sample covariance
        of ``chain_estimates_`` divided by ``n_chains`` (or, when ``p >=
        n_chains`` makes that singular, the batch-means one multiplied by
        ``between_chain_ratio_``).

    hyperparameter_covariance_dof_ : float
        Degrees of freedom of that covariance: inf for batch means (taken
        as known), ``n_chains - 1`` for the sample covariance of the chains'
        estimates, ``p (n_chains - 1)`` for the scaled batch means. They set
        the bound of :meth:`in_confidence_region`.

    hyperparameter_samples_ : ndarray of shape (n_chains * n_kept, p)
        The chains' kept draws of ``(alpha..., beta)``, chain after chain
        (topics aligned to the first chain); ``n_kept = max(ceil(n_samples /
        n_chains), 4)`` per chain (see ``n_samples``).

    chain_estimates_ : ndarray of shape (n_chains, p)
        Each chain's own estimate of ``(alpha..., beta)`` (the maximizer of
        its own Rao-Blackwellized marginal likelihood). The estimate
        maximizes their mean log marginal likelihood.

    between_chain_ratio_ : float
        ``tr(W^+ B) / p``: the sample covariance ``B`` of
        ``chain_estimates_`` relative to the mean batch-means covariance
        ``W`` of a one-chain estimate; about 1 when the chains agree, larger
        when they sit in different regions (with ``verbose``, a note of the
        progress report above the 99% point of its distribution for
        agreeing chains; no warning, since the covariance then includes
        the spread). NaN for one chain.

    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts at the estimate: ``topic_word_prior_`` plus
        the topic-word counts averaged over the second half of the final
        sweeps. Row-normalized, the posterior mean topic-word distributions.

    chain_log_likelihoods_ : ndarray of shape (n_chains,)
        Collapsed log joint ``log p(w, z | h_hat)`` of each chain's topics at
        the end of the chains, at the estimate.

    final_chain_ : int
        The chain with the highest of them, which ran the final sweeps.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        ``log p(w, z | alpha, beta)`` after each iteration: of the first
        chain until the estimate, then of ``final_chain_`` at the estimate
        (from the chains' last iteration on, after which the estimate is
        made).

    trace_ : ChainTrace
        Per-iteration record (log-likelihood, topic shares, ``h``), of the
        same chains as ``log_likelihood_trace_``; ``trace_.topic_share`` and
        (one column per topic with ``symmetric_alpha=False``)
        ``trace_.doc_topic_prior`` in the labels of ``components_``.

    n_iter_ : int
        Iterations done by ``fit``: ``burn_in_`` plus the kept iterations of
        the chains, ``ceil(n_samples / n_chains)`` and at least 4 (each
        sweeps every chain once), and
        ``n_final_iter`` sweeps of ``final_chain_``.

    burn_in_ : int
        The burn-in of the chains of ``h``: ``burn_in``, extended by windows
        of kept iterations (``ceil(n_samples / n_chains)``, at least 4) while
        they drifted or lay far apart.

    acceptance_rate_ : float
        Mean HMC acceptance probability after the burn-in, over the chains
        (NaN for the augmentation sampler).

    hmc_step_size_ : float
        Step size of the first chain after the burn-in (NaN for the
        augmentation sampler).

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    GibbsLDA : LDA whose "auto" priors are this estimate, from a shorter chain.
    sklearn.decomposition.LatentDirichletAllocation : variational LDA with
        fixed (or online-updated) priors.

    Notes
    -----
    The estimate is ``argmax_h (1/m) sum_c log(nu_c(h) / prior(h))`` where
    ``nu_c`` is chain ``c``'s Rao-Blackwellized density ``(1/n) sum_i prod_j
    Gamma(h_j | shape_ij, rate_ij)`` built from the conditional Gamma
    parameters of the augmentation step at each of its retained iterations
    (for the HMC chain the auxiliaries are drawn from each ``z_i`` for this
    purpose); with one chain, the maximizer of its ``nu_hat / prior``. The
    hyperparameter updates use histograms of the count matrices only and
    never pass over tokens. The covariance is a Monte Carlo error (how much
    the estimate would move with another run), not a sampling error of the
    corpus. The burn-in is extended (``burn_in_``), and past its limit a
    ConvergenceWarning is raised, when the chains of ``h`` still drift over
    their kept draws (trend z-score of ``log h``, combined over the chains,
    above 6) or their estimates lie more than a factor of 2 apart (a chain
    stuck, or still travelling from a far start); a warning is raised too
    when the HMC update of a chain accepted under 10 % of its proposals. The
    estimate is not to be trusted as is then. Chains that disagree less (in
    different modes of the topics, ``between_chain_ratio_``) widen the
    region instead.

    References
    ----------
    .. [1] Xia, W. and Doss, H. (2020). "Scalable Hyperparameter Selection
       for Latent Dirichlet Allocation". Journal of Computational and
       Graphical Statistics, 29(4), 875-895.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import EmpiricalBayesLDA
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(40, 30))
    >>> model = EmpiricalBayesLDA(n_components=3, n_samples=50, burn_in=20,
    ...                           random_state=0).fit(X)
    >>> model.components_.shape
    (3, 30)
    >>> model.transform(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "sampler": [StrOptions({"augmentation", "hmc"})],
        "symmetric_alpha": ["boolean"],
        "n_samples": [IntegerInterval(4, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left")],
        "n_final_iter": [IntegerInterval(1, None, closed="left")],
        "hmc_n_steps": [IntegerInterval(1, None, closed="left")],
        "hmc_step_size": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "n_batches": [None, IntegerInterval(2, None, closed="left")],
        "n_chains": [IntegerInterval(1, None, closed="left")],
        "hyperprior": [tuple, list],
        "doc_topic_prior": [None, PRIOR_VALUE],
        "topic_word_prior": [None, PRIOR_VALUE],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _iterations_parameter = "n_final_iter"
    method = "auto"
    warm_start = False

    def __init__(
        self,
        n_components=10,
        *,
        sampler="augmentation",
        symmetric_alpha=True,
        n_samples=500,
        burn_in=200,
        n_final_iter=500,
        hmc_n_steps=2,
        hmc_step_size="auto",
        n_batches=None,
        n_chains=4,
        hyperprior=(1.0, 0.01),
        doc_topic_prior=None,
        topic_word_prior=None,
        n_infer_iter=100,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.sampler = sampler
        self.symmetric_alpha = symmetric_alpha
        self.n_samples = n_samples
        self.burn_in = burn_in
        self.n_final_iter = n_final_iter
        self.hmc_n_steps = hmc_n_steps
        self.hmc_step_size = hmc_step_size
        self.n_batches = n_batches
        self.n_chains = n_chains
        self.hyperprior = hyperprior
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.n_infer_iter = n_infer_iter
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Fit the model: the chains of the hyperparameters, then the final chain.

        Each fit runs new chains: unlike :class:`GibbsLDA`, this model has no
        warm start that would continue them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # Only the docstring differs: the base's spoke of warm_start.
        return super().fit(X, y)

    def _check_params(self):
        self._hyperprior = self._check_hyperprior()

    def _check_hyperprior(self):
        # Named by the estimator, as the other models' parameter errors are.
        message = (f"{type(self).__name__}: hyperprior must be a pair (shape, rate) of "
                   f"positive floats; got {self.hyperprior!r}.")
        try:
            a, b = (float(x) for x in self.hyperprior)
        except (TypeError, ValueError):
            raise ValueError(message) from None
        if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
            raise ValueError(message)
        return a, b

    def _n_kept_per_chain(self):
        """Kept iterations of each chain: ``n_samples`` shared by the chains
        (rounded up), at least 4 for the batch means."""
        return max(-(-self.n_samples // self.n_chains), 4)

    def _new_burn_in(self):
        # An int (the chains' burn-in, extended while they drift): no
        # "auto", no max_iter to take a share of.
        return self.burn_in

    def _n_chain_iterations(self, extra=0):
        """Iterations of the chains of h (each sweeps every chain once),
        before the final sweeps, with the burn-in extended by ``extra``."""
        return self.burn_in + extra + self._n_kept_per_chain()

    def _n_sweeps_per_fit(self):
        # The final sweeps run one chain; an extended burn-in adds its sweeps
        # during the fit (run.extra_sweeps).
        return self._n_chain_iterations() + self.n_final_iter

    def _trend_trace(self):
        """The final sweeps only: the trace moves from the first chain to
        ``final_chain_`` there, a jump that is no trend, and the topics are
        averaged over the second half of these sweeps."""
        return self.log_likelihood_trace_[self.burn_in_ + self._n_kept_per_chain():]

    # ------------------------------------------------------- the model's steps
    def _start_run(self, X, doc_ptr, word_ids, seed):
        n_topics = self.n_components
        # alpha acts through documents of two or more tokens only: one
        # token's topic has probability 1 / K whatever alpha (and with one
        # topic every proportion is 1).
        self._alpha_informed = n_topics > 1 and bool(np.diff(doc_ptr).max(initial=0) >= 2)
        if n_topics > 1 and not self._alpha_informed:
            _warn(f"{type(self).__name__}.fit: no document has two or more tokens, so the "
                  "corpus says nothing of doc_topic_prior (a one-token document's topic has "
                  "probability 1 / n_components whatever it is): doc_topic_prior_ only "
                  "reflects the hyperprior, and log_marginal_likelihood and "
                  "in_confidence_region judge topic_word_prior alone.", UserWarning)
        start = tuple(1.0 / n_topics if v is None else float(v)
                      for v in (self.doc_topic_prior, self.topic_word_prior))
        h_chains = []
        for chain_seed, prior_seed in (s.spawn(2) for s in
                                       np.random.SeedSequence(seed).spawn(self.n_chains)):
            chain = TopicChain.random(doc_ptr, word_ids, n_topics, X.shape[1], chain_seed)
            priors = DirichletPriors.for_chain(chain, "auto", "auto", prior_seed,
                                               symmetric_alpha=self.symmetric_alpha,
                                               hyperprior=self._hyperprior, start=start)
            hmc = None
            if self.sampler == "hmc":
                adapt = self.hmc_step_size == "auto"
                hmc = _HMCTuner(0.05 if adapt else float(self.hmc_step_size),
                                np.ones(priors.n_estimated), adapt, self.burn_in)
            h_chains.append(_HChain(chain, priors, hmc, np.arange(n_topics, dtype=np.int64)))
        first = h_chains[0]
        return _EBRun(first.chain, first.priors, h_chains=h_chains)

    def _sweep(self, run):
        it = run.iteration
        n_chain = self._n_chain_iterations(run.extra_sweeps)
        if it < n_chain:
            for hc in run.h_chains:
                hc.chain.sweep_lda(hc.priors.alpha, hc.priors.beta, self.n_jobs, self.method)
                self._update_h(run, hc, kept=it >= self.burn_in + run.extra_sweeps)
            if it + 1 == n_chain and not self._extend_burn_in(run):
                self._estimate(run)
                self._continue_best_chain(run)
        else:
            priors = run.priors
            run.chain.sweep_lda(priors.alpha, priors.beta, self.n_jobs, self.method)
            if it >= n_chain + self.n_final_iter - max(self.n_final_iter // 2, 1):
                run.keep_counts()
        run.trace.record(doc_topic_prior=self._traced_alpha(run),
                         topic_word_prior=run.priors.beta)

    def _traced_alpha(self, run):
        """The document-topic prior of the chain the trace follows: its one
        value, or (``symmetric_alpha=False``) one per topic in the labels of
        ``components_`` (the chain's own labels moved to the reference ones)."""
        alpha = run.priors.alpha
        if self.symmetric_alpha:
            return alpha[0]
        return run.in_reference_labels(alpha)

    def _update_h(self, run, hc, kept):
        """One update of h given the topics of chain ``hc`` (augmentation or
        HMC), recording the Gamma parameters of the Rao-Blackwellized density
        (topics aligned to a reference sample of the first chain when alpha is
        per topic) after the burn-in."""
        chain, priors = hc.chain, hc.priors
        if hc.hmc is None:
            shapes, rates = priors.conditionals(chain)
            priors.set_estimated([gamma_draw(priors.states[2], s, r)
                                  for s, r in zip(shapes, rates)])
        else:
            u = np.log(priors.estimated_values())
            accept = hmc_update(u, hc.hmc.inv_mass, hc.hmc.step, self.hmc_n_steps,
                                priors.symmetric_alpha, priors._count(chain), chain.topic_total,
                                priors.n_words, *self._hyperprior, priors.states[2])
            hc.hmc.after(run.iteration, accept, u)
            priors.set_estimated(np.exp(u))
            shapes, rates = priors.conditionals(chain) if kept else (None, None)
        if not (np.all(np.isfinite(priors.alpha)) and np.all(priors.alpha > 0)
                and math.isfinite(priors.beta) and priors.beta > 0):
            from .exceptions import ChainDivergenceError

            raise ChainDivergenceError(
                f"{type(self).__name__}.fit: the hyperparameter chain diverged at iteration "
                f"{run.iteration + 1} (alpha={priors.alpha}, beta={priors.beta}); try a "
                "different hyperprior or sampler.")
        if not kept:
            return
        values = priors.estimated_values()
        if not priors.symmetric_alpha:
            # Current topic t is reference topic perm[t]: store alpha_t and its
            # shape there (the rates of the alphas are all equal). Every chain
            # is aligned to the first chain's reference, so that their draws
            # can be pooled.
            if run.reference is None:
                run.reference = _column_normalize(chain.word_topic)
            align_topics(chain.word_topic, chain.topic_total, run.reference, hc.perm)
            shapes, values = _aligned(shapes, hc.perm), _aligned(values, hc.perm)
        priors.record(shapes, rates)
        hc.samples.append(values)

    def _extend_burn_in(self, run):
        """At the end of the kept iterations: when the chains of h still
        drift over them (the drift warning's test at the lower threshold
        ``EXTEND_Z``) or sit far apart, and the burn-in may grow
        by as many again without passing ``MAX_BURN_IN_FACTOR * burn_in``,
        they become burn-in and as many are drawn again. Returns whether it
        extended."""
        n_kept = self._n_kept_per_chain()
        longest = MAX_BURN_IN_FACTOR * self.burn_in
        if self.burn_in + run.extra_sweeps + n_kept > longest:
            return False
        chain_means = np.exp(np.array([np.log(hc.samples).mean(axis=0)
                                       for hc in run.h_chains]))
        if not (self._drifting_components(run, EXTEND_Z)
                or self._far_apart_components(chain_means)):
            return False
        for hc in run.h_chains:
            hc.samples.clear()
            hc.priors.clear_record()
            if hc.hmc is not None:
                hc.hmc.accept_sum = 0.0
        run.extra_sweeps += n_kept
        run.notes.append("the chains of the hyperparameters still drift or sit apart: "
                         f"burn-in extended to {self.burn_in + run.extra_sweeps} iterations")
        return True

    def _drifting_components(self, run, threshold=DRIFT_Z):
        """Names of the components of h whose chains still drift over their
        kept draws: trend z-scores of each chain's kept log h, combined over
        the chains (Stouffer), above ``threshold`` in absolute value. A start
        far from the estimate moves every chain the same way, while the
        chance excursions of agreeing chains cancel."""
        draws = np.log(np.array([hc.samples for hc in run.h_chains]))
        z = np.array([[trend_z_score(chain_draws[:, j]) for j in range(draws.shape[2])]
                      for chain_draws in draws])
        combined = z.sum(axis=0) / math.sqrt(z.shape[0])
        return [name for name, value in zip(self._h_names(), combined)
                if abs(value) > threshold and self._identified(name)]

    def _alpha_identified(self):
        """Whether the corpus informs alpha. With one topic every document's
        proportion is 1 whatever alpha, and a one-token document's topic has
        probability 1 / K whatever alpha: without a document of two tokens
        or more its chains draw from the hyperprior alone, drift and
        disagree by nature, the checks of the chains (burn-in extension,
        warnings) judge beta alone, and so do the post-fit methods."""
        return self._alpha_informed

    def _identified(self, name):
        """Whether the chains' checks judge the component ``name`` of ``h``
        (one of :meth:`_h_names`): beta always, alpha when the corpus informs
        it (:meth:`_alpha_identified`)."""
        return name == "topic_word_prior" or self._alpha_identified()

    def _far_apart_components(self, chain_values):
        """(name, smallest, largest) of alpha (the sum of the alphas when
        there is one per topic) and beta when the chains' values
        ``chain_values`` (n_chains, p) differ by more than
        ``FAR_APART_FACTOR``: chains that have not reached one region of h
        (stuck, or still travelling from a far start), which the drift test
        misses when only some of them move."""
        if chain_values.shape[0] < 2:
            return []
        alpha = chain_values[:, :-1].sum(axis=1)
        name = "doc_topic_prior" if self.symmetric_alpha else "the sum of doc_topic_prior"
        far = []
        checked = [(name, alpha)] if self._alpha_identified() else []
        for label, values in checked + [("topic_word_prior", chain_values[:, -1])]:
            if values.max() > FAR_APART_FACTOR * values.min():
                far.append((label, float(values.min()), float(values.max())))
        return far

    def _estimate(self, run):
        """h_hat, the maximizer of the chains' mean log Rao-Blackwellized
        density (:class:`~sklearn_pgtm._priors.ConsensusDensity`), its
        covariance (batch means within chains, inflated by the spread between
        chains) and the warnings."""
        recorded = [hc.priors.recorded() for hc in run.h_chains]
        for shapes, rates in recorded:
            if not (np.all(np.isfinite(shapes)) and np.all(np.isfinite(rates))
                    and np.all(rates > 0)):
                from .exceptions import ChainDivergenceError

                raise ChainDivergenceError(f"{type(self).__name__}.fit: the chain produced "
                                           "non-finite Gamma parameters; try another "
                                           "hyperprior.")
        densities = [RaoBlackwellDensity(shapes, rates, self._hyperprior)
                     for shapes, rates in recorded]
        n_kept = self._n_kept_per_chain()
        n_batches = self.n_batches or max(2, int(np.floor(n_kept ** (1.0 / 3.0) + 1e-9)))
        n_batches = max(min(n_batches, n_kept // 2), 2)
        estimates, within = [], []
        for (shapes, rates), density, hc in zip(recorded, densities, run.h_chains):
            estimates.append(density.argmax(np.exp(np.log(np.array(hc.samples)).mean(axis=0))))
            within.append(_batch_means_covariance(shapes, rates, self._hyperprior,
                                                  estimates[-1], n_batches))
        run.chain_estimates = np.array(estimates)
        run.density = ConsensusDensity(densities)
        run.h_hat = run.density.argmax(run.chain_estimates.mean(axis=0))
        run.pooled = _pooled_covariance(run.chain_estimates, np.mean(within, axis=0))
        self._warn_if_singular(run, n_batches)
        self._warn_if_unsettled(run)
        self._warn_if_unvisited(run)
        self._warn_if_stuck(run)

    def _continue_best_chain(self, run):
        """Fix h at h_hat in every chain (in its own topic labels) and hand
        the final sweeps to the chain whose topics the model prefers there:
        the highest collapsed log joint ``log p(w, z | h_hat)``."""
        log_joints = []
        for hc in run.h_chains:
            if hc.priors.symmetric_alpha:
                hc.priors.set_estimated(run.h_hat)
            else:
                hc.priors.alpha[:] = run.h_hat[:-1][hc.perm]
                hc.priors.beta = float(run.h_hat[-1])
            log_joints.append(hc.priors.log_joint(hc.chain))
        run.chain_log_joints = np.array(log_joints)
        run.final_chain = int(np.argmax(run.chain_log_joints))
        best = run.h_chains[run.final_chain]
        run.chain, run.priors = best.chain, best.priors

    def _warn_if_unsettled(self, run):
        """ConvergenceWarning when the chains of h still drift over their
        kept draws or their estimates lie far apart (far starting values, a
        stuck chain, too short a burn-in). Chains that disagree about h
        beyond what their batch means explain, but not far apart, get a note
        in the progress report, not a warning: their spread is already the
        covariance (``between_chain_ratio_``), so the region is honest, and
        on real corpora nearly every fit's chains sit in different modes of
        the topics, which no setting the user can change removes (user
        guide, :ref:`eblda_chains`)."""
        whom = type(self).__name__
        drifting = self._drifting_components(run)
        if drifting:
            _warn(
                f"{whom}: the hyperparameter chain is still moving over its kept draws "
                f"({', '.join(drifting)}; trend z-score above {DRIFT_Z:g}): it "
                "has not reached the region of the estimate, and the estimate and its "
                "covariance are not reliable. Increase burn_in and n_samples, or start "
                "nearer (doc_topic_prior, topic_word_prior).",
                ConvergenceWarning)
        far = self._far_apart_components(run.chain_estimates)
        if far:
            ranges = "; ".join(f"{name} from {low:.4g} to {high:.4g}" for name, low, high in far)
            _warn(
                f"{whom}: the {self.n_chains} chains' estimates lie more than a factor of "
                f"{FAR_APART_FACTOR:g} apart ({ranges}): the chains have not reached one "
                "region of the hyperparameters (stuck, or still on their way from the "
                "start), and the estimate and its covariance are not reliable. Increase "
                "burn_in, or start nearer (doc_topic_prior, topic_word_prior).",
                ConvergenceWarning)
        if self.n_chains > 1 and run.pooled.ratio > _disagreement_threshold(
                run.chain_estimates.shape[1], self.n_chains):
            run.notes.append(
                f"the {self.n_chains} chains' estimates of the hyperparameters are "
                f"{math.sqrt(run.pooled.ratio):.1f} times as spread as their batch means "
                "imply (different modes of the topics); the covariance includes the spread")

    def _warn_if_singular(self, run, n_batches):
        """Warning when the covariance of the estimate is singular: the batch
        means of the chains span fewer directions than there are
        hyperparameters (one alpha per topic and few batches), so the
        covariance and the region say nothing of the others."""
        p = run.chain_estimates.shape[1]
        rank = run.pooled.rank()
        if rank >= p:
            return
        advice = max(-(-p // self.n_chains) + 1, n_batches + 1)
        _warn(
            f"{type(self).__name__}: the covariance of the estimate has rank {rank} for "
            f"{p} hyperparameters: the batch means of the {self.n_chains} chains "
            f"({n_batches} batches each) span too few directions, and "
            "hyperparameter_covariance_ and the confidence region (flat along the "
            "missing directions) are not reliable. Set n_batches to at least "
            f"{advice} (at most half the kept draws per chain; raise n_samples if "
            "needed) or n_chains higher.",
            ConvergenceWarning)

    def _warn_if_unvisited(self, run):
        """ConvergenceWarning when a component of the estimate lies outside
        the values the chains drew of it. The Rao-Blackwellized density
        estimates the marginal likelihood from topics drawn near the chains'
        h; beyond them it extrapolates. At the defaults the estimate lay at
        0.30-0.65 of the range of the draws (18 fits: corpora drawn from LDA
        at K = 3 and 5, 300 religion messages at K = 10; both samplers, one
        alpha per topic). Chains of h that could not reach it put it far
        outside: hmc_step_size=1e-4 kept beta's draws at 0.3315-0.3339 (the
        start, 1 / 3) for an estimate of 0.196 against 0.088 tuned, with no
        other warning, and hyperprior=(1e10, 1e10) held them at 1."""
        draws = np.concatenate([np.array(hc.samples) for hc in run.h_chains])
        low, high = draws.min(axis=0), draws.max(axis=0)
        outside = [f"{name} {value:.4g} (drawn from {lo:.4g} to {hi:.4g})"
                   for name, value, lo, hi in zip(self._h_names(), run.h_hat, low, high)
                   if not lo <= value <= hi and self._identified(name)]
        if outside:
            _warn(
                f"{type(self).__name__}: the estimate lies outside the values the chains "
                f"drew ({'; '.join(outside)}): the marginal likelihood there is "
                "extrapolated, and the estimate is not reliable. The chains of the "
                "hyperparameters did not reach it: a fixed hmc_step_size that leaves them "
                "where they started (use 'auto'), a hyperprior that holds them (use a flat one, "
                "such as the default (1, 0.01)), or too short a burn_in.",
                ConvergenceWarning)

    def _acceptance_rates(self, run):
        """HMC acceptance of each chain after the burn-in (empty without HMC)."""
        n_kept = self._n_kept_per_chain()
        return np.array([hc.hmc.accept_sum / n_kept for hc in run.h_chains
                         if hc.hmc is not None])

    def _acceptance_rate(self, run):
        """Mean HMC acceptance after the burn-in over the chains (NaN without HMC)."""
        rates = self._acceptance_rates(run)
        return float(rates.mean()) if rates.size else float("nan")

    def _warn_if_stuck(self, run):
        """ConvergenceWarning when the HMC update of h accepted almost none
        of its proposals after the burn-in in some chain (a step size too
        large for the posterior's scale there): that chain of h then stayed
        where the burn-in left it."""
        rates = self._acceptance_rates(run)
        stuck = rates[rates < LOW_ACCEPTANCE]
        if stuck.size:
            # With the tuned step, asking for it is no advice: the step was
            # tuned over too few iterations (burn_in=1 left it at 0.94 and
            # every chain at 0 %).
            advice = (f"The step was tuned over the burn_in of {self.burn_in} iterations: "
                      "use a longer burn_in." if self.hmc_step_size == "auto" else
                      "Use hmc_step_size='auto' (tuned during the burn-in) or a smaller "
                      "step, or a longer burn_in.")
            _warn(
                f"{type(self).__name__}: the HMC update of the hyperparameters accepted "
                f"{', '.join(f'{100 * r:.0f} %' for r in stuck)} of its proposals after the "
                f"burn-in in {stuck.size} of the {rates.size} chains (below "
                f"{100 * LOW_ACCEPTANCE:.0f} %), so those chains hardly moved and the "
                f"estimate is not reliable. {advice}",
                ConvergenceWarning)

    def _h_names(self):
        if self.symmetric_alpha:
            return ["doc_topic_prior", "topic_word_prior"]
        return [f"doc_topic_prior[{t}]" for t in range(self.n_components)] + [
            "topic_word_prior"]

    def _finish(self, run):
        if run.h_hat is None:
            raise ValueError(f"{type(self).__name__}: the chain ended before the estimate "
                             "(burn_in + n_samples sweeps).")
        symmetric = self.symmetric_alpha
        h_hat = run.h_hat
        self._density = run.density
        self.hyperparameter_samples_ = np.concatenate([np.array(hc.samples)
                                                       for hc in run.h_chains])
        self._pooled = run.pooled
        self.hyperparameter_covariance_ = run.pooled.covariance
        self.hyperparameter_covariance_dof_ = run.pooled.dof
        self.chain_estimates_ = run.chain_estimates
        self.between_chain_ratio_ = run.pooled.ratio
        self.chain_log_likelihoods_ = run.chain_log_joints
        self.final_chain_ = run.final_chain
        self.burn_in_ = self.burn_in + run.extra_sweeps
        self.doc_topic_prior_ = float(h_hat[0]) if symmetric else h_hat[:-1].copy()
        self.topic_word_prior_ = float(h_hat[-1])
        tuners = [hc.hmc for hc in run.h_chains if hc.hmc is not None]
        self.acceptance_rate_ = self._acceptance_rate(run)
        self.hmc_step_size_ = float(tuners[0].step) if tuners else float("nan")
        components = np.empty((self.n_components, run.chain.n_words))
        components[run.h_chains[run.final_chain].perm] = run.components(self.topic_word_prior_)
        self.components_ = components

    def _alpha_vector(self):
        return np.broadcast_to(np.asarray(self.doc_topic_prior_, dtype=np.float64),
                               (self._n_topics(),)).copy()

    # ---------------------------------------------------------- post-fit
    def _h_points(self, doc_topic_prior, topic_word_prior):
        check_is_fitted(self)
        alpha = real_array(doc_topic_prior, "doc_topic_prior")
        beta = real_array(topic_word_prior, "topic_word_prior")
        if self._fitted_param("symmetric_alpha"):
            _check_broadcast(alpha.shape, beta.shape)
            alpha, beta = np.broadcast_arrays(alpha, beta)
            shape = alpha.shape
            h = np.stack([alpha.ravel(), beta.ravel()], axis=1)
        else:
            n_topics = self._n_topics()
            if alpha.shape[-1:] != (n_topics,):
                raise ValueError(
                    f"doc_topic_prior must have a last dimension of {n_topics} "
                    f"(one alpha per topic); got shape {alpha.shape}.")
            shape = _check_broadcast(alpha.shape[:-1], beta.shape,
                                     f" (points of shape {alpha.shape[:-1]}, one alpha per "
                                     "topic each)", alpha.shape)
            alpha = np.broadcast_to(alpha, shape + (n_topics,))
            beta = np.broadcast_to(beta, shape)
            h = np.concatenate([alpha.reshape(-1, n_topics), beta.reshape(-1, 1)], axis=1)
        if not np.all(h > 0) or not np.all(np.isfinite(h)):
            raise ValueError("hyperparameters must be positive and finite.")
        return h, shape

    def log_marginal_likelihood(self, doc_topic_prior, topic_word_prior):
        """Estimated log marginal likelihood ``log m(h)`` up to an additive constant.

        Parameters
        ----------
        doc_topic_prior : float or array-like
            ``alpha`` values (symmetric) or arrays whose last dimension has
            ``n_components`` entries (``symmetric_alpha=False``).

        topic_word_prior : float or array-like
            ``beta`` values, broadcast against ``doc_topic_prior``.

        Returns
        -------
        log_m : ndarray or float
            ``log nu_hat(h) - log prior(h)``; the maximum is at
            ``(doc_topic_prior_, topic_word_prior_)``. Where the corpus says
            nothing of alpha (one topic, or no document of two tokens or
            more) it is taken at ``doc_topic_prior_`` whatever
            ``doc_topic_prior`` is: ``m(h)`` does not depend on it there.

        Notes
        -----
        ``nu_hat`` averages the densities of ``h`` given the kept topic
        draws, so the estimate is good where the chains of ``h`` went (the
        confidence region and around it) and degrades away from them, where
        few draws carry the average: on a 19-token corpus, whose exact
        ``m(h)`` (all 2^19 topic assignments summed) is flat within 2 nats
        over ``alpha, beta`` in [0.05, 5] while the chains went to ``h``
        near (178, 151), differences of the estimate were off by up to 51
        nats there.
        """
        h, shape = self._h_points(doc_topic_prior, topic_word_prior)
        if not self._alpha_identified():  # m(h) does not depend on alpha: evaluate at its
            h[:, :-1] = self.doc_topic_prior_  # estimate, where the density has draws
        out = self._density.log_ratio(h).reshape(shape)
        return float(out) if out.ndim == 0 else out

    def confidence_region_bound(self, level=0.95):
        """The bound ``q`` of the ``level`` confidence ellipsoid
        ``(h - h_hat)^T C^{-1} (h - h_hat) <= q``, ``C =
        hyperparameter_covariance_`` (for drawing the region).

        ``q`` is the ``level`` quantile of ``chi2_p`` when ``C`` comes from
        the batch means (``hyperparameter_covariance_dof_`` is inf); of
        Hotelling's ``p nu / (nu - p + 1) F(p, nu - p + 1)``, ``nu =
        n_chains - 1``, when ``C`` is the sample covariance of the chains'
        estimates; and of ``p F(p, nu)``, ``nu = p (n_chains - 1)``, when
        ``C`` is the batch-means covariance scaled by the chains' spread.
        A covariance estimated from a few chains needs the wider bound, as a
        t interval does (user guide, :ref:`eblda_chains`).

        Parameters
        ----------
        level : float, default=0.95
            Confidence level, in (0, 1).

        Returns
        -------
        bound : float
        """
        check_is_fitted(self)
        # A string compared with floats raised a bare TypeError ("'<' not
        # supported"); a bool is no confidence level.
        if not isinstance(level, Real) or isinstance(level, bool) or not 0.0 < level < 1.0:
            raise ValueError(f"level must lie in (0, 1); got {level!r}.")
        return self._pooled.bound(level)

    def in_confidence_region(self, doc_topic_prior, topic_word_prior, level=0.95):
        """Whether ``h`` lies in the ``level`` confidence ellipsoid of the estimate.

        The ellipsoid is ``(h_hat - h)^T C^{-1} (h_hat - h) <= q`` with ``C =
        hyperparameter_covariance_`` and ``q = confidence_region_bound(level)``
        (``chi2_p`` when ``C`` comes from the batch means, wider when the
        spread between chains set it). A singular ``C`` (the fit warns) makes
        the ellipsoid flat: points off its plane are outside. Where the corpus
        says nothing of alpha (one topic, or no document of two tokens or
        more) the region is unbounded in alpha: beta's interval alone decides
        (user guide :ref:`eblda_estimate`).

        Parameters
        ----------
        doc_topic_prior : float or array-like
            Value(s) of alpha (scalar, or one value per topic when
            ``symmetric_alpha=False``); broadcast against ``topic_word_prior``.
        topic_word_prior : float or array-like
            Value(s) of beta.
        level : float, default=0.95
            Confidence level of the ellipsoid.

        Returns
        -------
        inside : bool or ndarray of bool
            Whether each point lies in the region.
        """
        h, shape = self._h_points(doc_topic_prior, topic_word_prior)
        h_hat = np.r_[np.atleast_1d(self.doc_topic_prior_), self.topic_word_prior_]
        bound = self.confidence_region_bound(level)
        region = self._pooled
        if not self._alpha_identified():  # the region is unbounded in alpha
            h, h_hat, region = h[:, -1:], h_hat[-1:], region.marginal(-1)
            bound = region.bound(level)
        stat = region.distance(h - h_hat)
        inside = (stat <= bound).reshape(shape)
        return bool(inside) if inside.ndim == 0 else inside


def _check_broadcast(alpha_shape, beta_shape, what="", given_shape=None):
    """The common shape of the points, or a ValueError naming both parameters
    (numpy's says "arg 0" and "arg 1")."""
    try:
        return np.broadcast_shapes(alpha_shape, beta_shape)
    except ValueError:
        given = alpha_shape if given_shape is None else given_shape
        raise ValueError(
            f"doc_topic_prior of shape {given}{what} and topic_word_prior of shape "
            f"{beta_shape} do not broadcast to one shape of points.") from None


def _aligned(h, perm):
    """``h = (alpha_1..K, beta)`` with the alphas moved to their reference labels."""
    out = h.copy()
    out[perm] = h[:-1]
    return out


def _column_normalize(word_topic):
    totals = word_topic.sum(axis=0).astype(np.float64)
    totals[totals == 0] = 1.0
    return np.ascontiguousarray(word_topic / totals)


@dataclass
class PooledCovariance:
    """The covariance of the pooled estimate of ``m`` chains and how it was
    estimated, which sets the bound of its confidence region.

    ``form`` is ``"batch means"`` (the chains agree: ``W / m``, ``W`` the
    mean of the chains' batch-means covariances, taken as known: ``dof`` is
    inf), ``"between chains"`` (they scatter more than ``W`` implies: the
    sample covariance ``B`` of their ``m`` estimates over ``m``, ``dof = m -
    1``), or ``"scaled batch means"`` (as before, but ``B`` is singular
    because ``p >= m``: ``ratio * W / m`` with ``ratio = tr(W^+ B) / p``
    estimated with ``dof = p (m - 1)``).
    """

    covariance: np.ndarray
    ratio: float
    dof: float
    form: str

    def distance(self, diff):
        """``diff^T C^+ diff`` for the rows of ``diff`` (points minus the
        estimate); inf for a row with a part outside the range of ``C``: a
        singular ``C`` makes the region a flat ellipsoid, whose pseudo-inverse
        alone would let points move freely along the directions it lacks."""
        prec = np.linalg.pinv(self.covariance, rcond=RANK_RCOND)
        stat = np.einsum("ij,jk,ik->i", diff, prec, diff)
        # On rows scaled to a largest entry of 1 (points at 1e200 overflowed
        # the norms).
        scale = np.abs(diff).max(axis=1, keepdims=True)
        unit = diff / np.where(scale > 0, scale, 1.0)
        off = unit - unit @ (self.covariance @ prec)
        outside = (np.linalg.norm(off, axis=1)
                   > math.sqrt(RANK_RCOND) * np.linalg.norm(unit, axis=1))
        return np.where(outside, np.inf, stat)

    def marginal(self, index):
        """The same estimate's covariance of its component ``index`` alone."""
        variance = self.covariance[index, index]
        return PooledCovariance(np.array([[variance]]), self.ratio, self.dof, self.form)

    def rank(self):
        """Rank of ``C`` (singular values above ``RANK_RCOND`` of the largest)."""
        values = np.linalg.svd(self.covariance, compute_uv=False)
        return int(np.sum(values > RANK_RCOND * values[0])) if values[0] > 0 else 0

    def bound(self, level):
        """Bound of ``(h - h_hat)^T C^{-1} (h - h_hat)`` in the ``level``
        region: ``chi2_p`` for a known ``C``; Hotelling's ``p dof / (dof - p
        + 1) F(p, dof - p + 1)`` for a sample covariance with ``dof``
        degrees of freedom; ``p F(p, dof)`` for a known shape whose scale has
        ``dof`` (as a t interval widens a normal one)."""
        p = self.covariance.shape[0]
        if self.form == "batch means":
            return float(chi2.ppf(level, p))
        if self.form == "between chains":
            return float(p * self.dof / (self.dof - p + 1) * f.ppf(level, p, self.dof - p + 1))
        return float(p * f.ppf(level, p, self.dof))


def _pooled_covariance(estimates, within):
    """:class:`PooledCovariance` of the estimate of the ``m`` chains whose own
    estimates are the rows of ``estimates``.

    ``within`` is the mean of the chains' batch-means covariances and
    ``between`` the sample covariance of their estimates. (A sandwich
    covariance of the maximizer of their mean log density, which weighs the
    chains by their curvature, followed the spread across fits less well:
    on the demo corpus, K = 10, 6 fits, 2.06 times too narrow for alpha
    against 1.10 with ``between / m``.) If the
    chains mix, both estimate the same covariance and the estimate's is
    ``within / m``. If they sit in different regions of the topics, they
    scatter more, by ``ratio = tr(within^+ between) / p`` (about 1 when
    they agree), the batch means miss that spread, and the covariance is
    ``between / m``, with ``m - 1`` degrees of freedom (or ``ratio * within
    / m`` when ``p >= m`` leaves ``between`` singular). One chain:
    ``within``.
    """
    m, p = estimates.shape
    if m == 1:
        return PooledCovariance(within, float("nan"), float("inf"), "batch means")
    between = np.atleast_2d(np.cov(estimates.T, ddof=1))
    ratio = float(np.trace(np.linalg.pinv(within, rcond=RANK_RCOND) @ between) / p)
    if ratio <= 1.0:
        return PooledCovariance(within / m, ratio, float("inf"), "batch means")
    if p < m:
        return PooledCovariance(between / m, ratio, float(m - 1), "between chains")
    return PooledCovariance(ratio * within / m, ratio, float(p * (m - 1)),
                            "scaled batch means")


def _disagreement_threshold(p, m):
    """Between-chain ratio exceeded with probability 1% by chains that agree
    (the ratio is then about chi2 with p (m - 1) degrees of freedom, divided
    by them)."""
    df = p * (m - 1)
    return float(chi2.ppf(0.99, df) / df)


def _batch_means_covariance(shapes, rates, hyperprior, h_hat, n_batches):
    """Covariance of the estimate by batch means with J = ``n_batches`` batches.

    Sigma = m / (J - 1) sum_j (h_j - h)(h_j - h)^T estimates the asymptotic
    covariance of sqrt(n) (h_hat - h*); returned divided by n.
    """
    n = shapes.shape[0]
    m = n // n_batches
    offset = n - m * n_batches
    estimates = []
    for j in range(n_batches):
        sl = slice(offset + j * m, offset + (j + 1) * m)
        estimates.append(RaoBlackwellDensity(shapes[sl], rates[sl], hyperprior).argmax(h_hat))
    diff = np.array(estimates) - h_hat
    sigma = m / (n_batches - 1) * diff.T @ diff
    return sigma / n


class _RobbinsMonro:
    """Stochastic approximation of log step towards acceptance ``target``."""

    def __init__(self, step, target=0.65, t0=10.0, kappa=0.6):
        self.log_step = math.log(step)
        self.target, self.t0, self.kappa = target, t0, kappa
        self.count = 0

    def update(self, accept):
        self.count += 1
        self.log_step += (accept - self.target) / (self.count + self.t0) ** self.kappa
        return math.exp(self.log_step)

    def final(self):
        return math.exp(self.log_step)


class _DualAveraging:
    """Step-size adaptation of Hoffman & Gelman (2014) towards acceptance 0.65."""

    def __init__(self, step, target=0.65, gamma=0.05, t0=10.0, kappa=0.75):
        self.mu = math.log(10.0 * step)
        self.target, self.gamma, self.t0, self.kappa = target, gamma, t0, kappa
        self.h_bar = 0.0
        self.log_step_bar = math.log(step)
        self.count = 0

    def update(self, accept):
        self.count += 1
        c = self.count
        eta = 1.0 / (c + self.t0)
        self.h_bar = (1.0 - eta) * self.h_bar + eta * (self.target - accept)
        log_step = self.mu - math.sqrt(c) / self.gamma * self.h_bar
        w = c ** (-self.kappa)
        self.log_step_bar = w * log_step + (1.0 - w) * self.log_step_bar
        return math.exp(log_step)

    def final(self):
        return math.exp(self.log_step_bar)
