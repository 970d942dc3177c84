"""Do several Markov chains agree? R-hat and effective sample sizes, and
running and comparing chains of a topic model.

Every estimator of the package is a Markov chain: its result is one draw of
a random process, and whether the chain has run long enough can only be
judged by running several chains from independent seeds and comparing them.
:func:`run_chains` fits clones of an estimator with independent seeds (in
parallel through joblib); :func:`summary` compares their traces with the
rank-normalized split-R-hat and the bulk and tail effective sample sizes of
Vehtari et al. (2021), after matching the topics of the chains (topic labels
are arbitrary, so topic 3 of one chain may be topic 7 of another), and says
in words whether the chains agree. :func:`rhat`, :func:`ess_bulk` and
:func:`ess_tail` work on any draws of shape (n_chains, n_draws).

User Guide: :ref:`diagnostics`.
"""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import ndtri
from scipy.stats import rankdata
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from . import _coherence
from ._base import is_integer_at_least
from ._parallel import effective_n_jobs

__all__ = ["Chains", "ChainSummary", "ess_bulk", "ess_tail", "rhat", "run_chains", "summary"]

# Vehtari et al. (2021), Section 4: R-hat below 1.01 and bulk- and tail-ESS
# above 100 per chain (400 for 4 chains) before trusting the draws.
RHAT_THRESHOLD = 1.01
ESS_PER_CHAIN = 100


# -- R-hat and ESS -------------------------------------------------------------
def _as_draws(draws, whom):
    try:
        x = np.asarray(draws, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # Chains of different lengths gave numpy's "inhomogeneous shape" error.
        raise ValueError(f"{whom}: draws must be numbers of shape (n_chains, n_draws), every "
                         f"chain as long ({exc}).") from exc
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"{whom}: draws must have shape (n_chains, n_draws); got {x.shape}.")
    if x.shape[0] < 1:
        raise ValueError(f"{whom}: draws hold no chain; got shape {x.shape}.")
    if x.shape[1] < 4:
        raise ValueError(f"{whom}: at least 4 draws per chain are needed; got {x.shape[1]}.")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{whom}: draws contain NaN or infinity.")
    return x


def _split_chains(x):
    """Each chain's first and second halves as two chains (the middle draw of
    an odd-length chain is dropped)."""
    half = x.shape[1] // 2
    return np.vstack([x[:, :half], x[:, x.shape[1] - half:]])


def _rank_normalize(x):
    """Normal scores of the pooled ranks: Phi^-1((r - 3/8) / (S + 1/4)), ties
    getting their average rank."""
    ranks = rankdata(x, method="average").reshape(x.shape)
    return ndtri((ranks - 0.375) / (x.size + 0.25))


def _potential_scale_reduction(x):
    """sqrt(var+ / W) with W the mean within-chain variance and
    var+ = (n - 1) / n W + B / n (B / n the variance of the chain means)."""
    n = x.shape[1]
    within = x.var(axis=1, ddof=1).mean()
    between = x.mean(axis=1).var(ddof=1) if x.shape[0] > 1 else 0.0
    if within == 0.0:
        # Constant chains: they agree only if they are the same constant.
        return 1.0 if between == 0.0 else np.inf
    return float(np.sqrt(((n - 1) / n * within + between) / within))


def _autocovariance(x):
    """Biased autocovariance of each chain at every lag, by FFT."""
    n = x.shape[1]
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectrum = np.fft.rfft(x - x.mean(axis=1, keepdims=True), n=size, axis=1)
    return np.fft.irfft(spectrum * np.conjugate(spectrum), n=size, axis=1)[:, :n] / n


def _effective_sample_size(x):
    """Multi-chain ESS of chains ``x`` (Vehtari et al. 2021).

    The combined autocorrelation rho_t = 1 - (W - mean_m acov_m(t)) / var+
    is summed in pairs P_k = rho_2k + rho_2k+1 up to the first negative pair
    (Geyer's initial positive sequence) and made non-increasing (initial
    monotone sequence); tau = -1 + 2 sum P_k plus, as in Stan's reference
    implementation, the even term of the pair that ended the sum when it is
    positive. tau is bounded below by 1 / log10(S), i.e. ESS <= S log10 S.
    """
    n_chains, n = x.shape
    total = n_chains * n
    if np.ptp(x) < np.finfo(np.float64).resolution:
        return float(total)
    acov = _autocovariance(x)
    within = acov[:, 0].mean() * n / (n - 1.0)
    var_plus = within * (n - 1.0) / n
    if n_chains > 1:
        var_plus += x.mean(axis=1).var(ddof=1)
    rho = 1.0 - (within - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    # Pairs k = 0 .. k_max whose lags (2k, 2k + 1) leave room at the end of
    # the chain (2k < n - 2, as in the reference implementation).
    k_max = max((n - 3) // 2, 0)
    pairs = rho[0:2 * k_max + 1:2][:k_max + 1] + rho[1:2 * k_max + 2:2][:k_max + 1]
    non_positive = np.flatnonzero(pairs[1:] <= 0.0)
    k_end = non_positive[0] + 1 if non_positive.size else k_max
    kept = np.minimum.accumulate(pairs[:k_end]) if k_end > 0 else pairs[:0]
    last_even = rho[2 * k_end] if 2 * k_end < n else 0.0
    if pairs[k_end] < 0.0 or k_end == 0:
        last_even = max(last_even, 0.0)
    tau = -1.0 + 2.0 * kept.sum() + last_even
    tau = max(tau, 1.0 / np.log10(total))
    return float(total / tau)


def rhat(draws):
    """Rank-normalized split-R-hat of Vehtari et al. (2021).

    Read more in the :ref:`User Guide <diagnostics>`.

    Each chain is split in halves; the pooled draws are replaced by the
    normal scores of their ranks, :math:`z = \\Phi^{-1}((r - 3/8) / (S +
    1/4))`, and the classic potential scale reduction is computed on them,

    .. math::

        \\hat R = \\sqrt{\\frac{\\frac{N-1}{N} W + \\frac{B}{N}}{W}},

    with :math:`W` the mean within-chain variance and :math:`B / N` the
    variance of the chain means. The same is done for the folded draws
    :math:`|\\theta - \\mathrm{median}(\\theta)|` (which detects chains with
    equal means but different spreads), and the larger of the two is
    returned.

    Parameters
    ----------
    draws : array-like of shape (n_chains, n_draws)
        Draws of one scalar quantity, one row per chain (a 1-d array is one
        chain, compared half against half). At least 4 draws per chain.

    Returns
    -------
    rhat : float
        1 for chains that sample the same distribution; Vehtari et al.
        advise trusting the chains only when it is below 1.01. Chains that
        are each constant give 1 when they share the constant, else inf.

    See Also
    --------
    ess_bulk, ess_tail : Effective sample sizes.
    summary : R-hat and ESS of every traced quantity of fitted chains.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner,
       P.-C. (2021). Rank-normalization, folding, and localization: an
       improved R-hat for assessing convergence of MCMC. Bayesian Analysis
       16(2), 667-718.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.diagnostics import rhat
    >>> rng = np.random.default_rng(0)
    >>> same = rng.normal(size=(4, 1000))
    >>> bool(rhat(same) < 1.01)
    True
    >>> bool(rhat(same + np.arange(4)[:, None]) > 1.5)   # chains at different levels
    True
    """
    x = _split_chains(_as_draws(draws, "rhat"))
    bulk = _potential_scale_reduction(_rank_normalize(x))
    tail = _potential_scale_reduction(_rank_normalize(np.abs(x - np.median(x))))
    return max(bulk, tail)


def ess_bulk(draws):
    """Bulk effective sample size of Vehtari et al. (2021).

    Read more in the :ref:`User Guide <diagnostics>`.

    The multi-chain effective sample size :math:`S / \\hat\\tau` of the
    rank-normalized split chains: how many independent draws would estimate
    the centre of the distribution as well. :math:`\\hat\\tau = -1 + 2
    \\sum_{t} \\hat\\rho_t` sums the chains' combined autocorrelations

    .. math::

        \\hat\\rho_t = 1 - \\frac{W - \\frac{1}{M}\\sum_m \\hat\\gamma_{m,t}}
        {\\widehat{\\mathrm{var}}^+}

    (:math:`\\hat\\gamma_{m,t}` the autocovariance of chain :math:`m` at lag
    :math:`t`) in consecutive pairs, up to the first negative pair and made
    non-increasing (Geyer's initial monotone sequence).

    Parameters
    ----------
    draws : array-like of shape (n_chains, n_draws)
        Draws of one scalar quantity, one row per chain. At least 4 draws
        per chain.

    Returns
    -------
    ess : float
        Effective number of draws, at most :math:`S \\log_{10} S` for
        :math:`S` draws in all (anti-correlated chains can exceed S).

    See Also
    --------
    ess_tail : Effective sample size of the 5 % and 95 % quantiles.
    rhat : Rank-normalized split-R-hat.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner,
       P.-C. (2021). Rank-normalization, folding, and localization: an
       improved R-hat for assessing convergence of MCMC. Bayesian Analysis
       16(2), 667-718.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.diagnostics import ess_bulk
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros((4, 2000))
    >>> for t in range(1, 2000):   # AR(1) with rho = 0.8: ESS about S / 9
    ...     x[:, t] = 0.8 * x[:, t - 1] + rng.normal(size=4)
    >>> 600 < ess_bulk(x) < 1200
    True
    """
    return _effective_sample_size(_rank_normalize(_split_chains(_as_draws(draws, "ess_bulk"))))


def ess_tail(draws):
    """Tail effective sample size of Vehtari et al. (2021).

    Read more in the :ref:`User Guide <diagnostics>`.

    The smaller of the effective sample sizes (see :func:`ess_bulk`) of the
    split chains of the indicators :math:`I(\\theta \\le q_{0.05})` and
    :math:`I(\\theta \\le q_{0.95})`, with :math:`q_p` the empirical
    quantiles of all draws: how well the 5 % and 95 % quantiles, hence
    90 % intervals, are estimated.

    Parameters
    ----------
    draws : array-like of shape (n_chains, n_draws)
        Draws of one scalar quantity, one row per chain. At least 4 draws
        per chain.

    Returns
    -------
    ess : float
        Effective number of draws for the tails.

    See Also
    --------
    ess_bulk : Effective sample size of the bulk.
    rhat : Rank-normalized split-R-hat.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner,
       P.-C. (2021). Rank-normalization, folding, and localization: an
       improved R-hat for assessing convergence of MCMC. Bayesian Analysis
       16(2), 667-718.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.diagnostics import ess_tail
    >>> draws = np.random.default_rng(0).normal(size=(4, 1000))
    >>> 3000 < ess_tail(draws) < 5000   # independent draws: about 4000
    True
    """
    x = _as_draws(draws, "ess_tail")
    sizes = []
    for p in (0.05, 0.95):
        below = (x <= np.quantile(x, p)).astype(np.float64)
        sizes.append(_effective_sample_size(_split_chains(below)))
    return min(sizes)


# -- several chains of a topic model -----------------------------------------
def _chain_seeds(random_state, n_chains):
    """``n_chains`` distinct seeds drawn from ``random_state``."""
    rng = check_random_state(random_state)
    for _ in range(100):  # a repeat has probability ~ n^2 / 2^32 per draw
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=n_chains)
        if np.unique(seeds).size == n_chains:
            return [int(s) for s in seeds]
    raise RuntimeError("could not draw distinct seeds")  # pragma: no cover


def _seeded_clone(estimator, seed):
    """A clone with every ``random_state`` parameter (nested ones of a
    Pipeline included) set to ``seed``."""
    est = clone(estimator)
    names = [name for name in est.get_params(deep=True)
             if name == "random_state" or name.endswith("__random_state")]
    if not names:
        raise ValueError(
            f"{type(estimator).__name__} has no random_state parameter: independent chains "
            "need one."
        )
    return est.set_params(**{name: seed for name in names})


def _fit_chain(estimator, X, y, params):
    return estimator.fit(X, **params) if y is None else estimator.fit(X, y, **params)


def run_chains(estimator, X, y=None, *, n_chains=4, n_jobs=None, random_state=None,
               params=None):
    """Fit clones of an estimator with independent seeds: several Markov chains.

    Read more in the :ref:`User Guide <diagnostics>`.

    Parameters
    ----------
    estimator : estimator or Pipeline
        An unfitted (or fitted: it is cloned) estimator with a
        ``random_state`` parameter, e.g. any topic model of this package,
        or a Pipeline containing one (every ``random_state`` in it is set).

    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data, passed to every chain's ``fit``.

    y : array-like of shape (n_samples,), default=None
        Targets for supervised estimators.

    n_chains : int, default=4
        Number of chains. Four is the number Vehtari et al. (2021) use for
        their thresholds (R-hat < 1.01, ESS > 400 = 100 per chain).

    n_jobs : int, default=None
        Chains fitted at the same time, on joblib threads (the package's
        kernels release the GIL); None means 1, -1 all cores. A joblib
        backend set with ``joblib.parallel_config`` (e.g. dask) is used
        instead when it is active. The chains do not depend on ``n_jobs``.
        A thread cannot be stopped from outside: after an interrupt
        (Ctrl-C) the chains already running on threads finish their fits in
        the background before the process exits.

    random_state : int, RandomState instance or None, default=None
        Draws the chains' seeds (distinct integers); the same value gives the
        same chains.

    params : dict, default=None
        Further arguments of every chain's ``fit``, e.g. ``{"lengths":
        lengths}`` for :class:`~sklearn_pgtm.MultinomialLDS` with several
        sequences (as scikit-learn's ``cross_validate(params=...)``).

    Returns
    -------
    chains : Chains
        The fitted clones (``chains.estimators_``), their seeds, and
        :meth:`Chains.summary`.

    See Also
    --------
    summary : Whether the chains agree, in numbers and words.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from sklearn_pgtm.diagnostics import run_chains
    >>> X = np.random.default_rng(0).poisson(1.0, size=(30, 8))
    >>> chains = run_chains(LatentDirichletAllocation(n_components=2, max_iter=5), X,
    ...                     n_chains=2, random_state=0)
    >>> len(chains.estimators_), chains.random_states_ == run_chains(
    ...     LatentDirichletAllocation(n_components=2, max_iter=5), X, n_chains=2,
    ...     random_state=0).random_states_
    (2, True)
    """
    if not is_integer_at_least(n_chains, 1):
        raise ValueError(f"n_chains must be a positive integer; got {n_chains!r}.")
    if n_jobs is not None and (not isinstance(n_jobs, Integral) or isinstance(n_jobs, bool)):
        # effective_n_jobs truncates with int(): 1.5 ran one chain at a time
        # and 0.5 was told that "n_jobs == 0 has no meaning".
        raise ValueError(f"n_jobs must be None or an integer (-1: all cores); got {n_jobs!r}.")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"params must be a dict of fit arguments or None; got {params!r}.")
    n_threads = effective_n_jobs(n_jobs, n_chains)
    seeds = _chain_seeds(random_state, int(n_chains))
    clones = [_seeded_clone(estimator, seed) for seed in seeds]
    fitted = Parallel(n_jobs=n_threads, prefer="threads")(
        delayed(_fit_chain)(est, X, y, params or {}) for est in clones
    )
    return Chains(fitted, seeds)


class Chains:
    """Fitted chains of one estimator, made by :func:`run_chains`.

    Parameters
    ----------
    estimators : list of estimators
        The fitted chains.

    random_states : list of int
        Their seeds.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted chains.
    random_states_ : list of int
        The seed of each chain.
    """

    def __init__(self, estimators, random_states):
        self.estimators_ = list(estimators)
        self.random_states_ = list(random_states)

    def __len__(self):
        return len(self.estimators_)

    def traces(self):
        """Every traced scalar of every chain, topics matched to the first chain's.

        Returns
        -------
        traces : dict of str to ndarray of shape (n_chains, n_iter)
            ``"log_likelihood"``, ``"topic_share[k]"``, ``"coef[k]"``, ... (the
            names of :func:`summary`), over all sweeps (warm-up included),
            truncated to the shortest chain. Per-topic traces are in the first
            chain's topic order.
        """
        models = _models_of(self)
        return _aligned_traces(models, _common_length(models))[0]

    def summary(self, *, burn_in=None, rhat_threshold=RHAT_THRESHOLD, ess_threshold=None):
        """Whether the chains agree: :func:`summary` of these chains.

        Parameters
        ----------
        burn_in : int, float or None, default=None
            Warm-up sweeps to discard (see :func:`summary`).
        rhat_threshold : float, default=1.01
            R-hat below which a quantity's chains agree.
        ess_threshold : float, default=None
            Bulk- and tail-ESS above which there are enough draws (None:
            100 per chain).

        Returns
        -------
        summary : ChainSummary
            The table and the verdict.
        """
        return summary(self, burn_in=burn_in, rhat_threshold=rhat_threshold,
                       ess_threshold=ess_threshold)


class ChainSummary:
    """R-hat and ESS of the traced quantities of several chains, and the
    verdict (made by :func:`summary`).

    ``print(summary)`` shows the verdict and the main rows of the table;
    :meth:`to_frame` gives every row as a pandas DataFrame (pandas must be
    installed). The parameters are kept as attributes of the same names.

    Parameters
    ----------
    names : list of str
        The quantities, e.g. ``"log_likelihood"``, ``"topic_share[3]"``.
    rhat, ess_bulk, ess_tail, mean, sd : ndarray of shape (n_quantities,)
        Per quantity: R-hat, bulk- and tail-ESS, and the mean and standard
        deviation of the kept draws of all chains.
    agree : bool
        True when at least one quantity was compared and every R-hat is
        below ``rhat_threshold`` and every ESS above ``ess_threshold``.
    message : str
        The verdict in words.
    n_chains, n_draws, burn_in : int
        Chains, kept draws per chain, and discarded warm-up sweeps.
    alignment_distance : ndarray of shape (n_chains, n_topics) or None
        Hellinger distance between each chain's topic and the first chain's
        topic it was matched to (None without ``components_``).
    rhat_threshold, ess_threshold : float
        The thresholds of the verdict.
    """

    def __init__(self, names, rhat, ess_bulk, ess_tail, mean, sd, *, agree, message,
                 n_chains, n_draws, burn_in, alignment_distance, rhat_threshold,
                 ess_threshold):
        self.names = names
        self.rhat = rhat
        self.ess_bulk = ess_bulk
        self.ess_tail = ess_tail
        self.mean = mean
        self.sd = sd
        self.agree = agree
        self.message = message
        self.n_chains = n_chains
        self.n_draws = n_draws
        self.burn_in = burn_in
        self.alignment_distance = alignment_distance
        self.rhat_threshold = rhat_threshold
        self.ess_threshold = ess_threshold

    def _shown_rows(self, max_rows=12):
        """All rows when few; else the log-likelihood and each group's worst."""
        if len(self.names) <= max_rows:
            return list(range(len(self.names)))
        groups = {}
        for i, name in enumerate(self.names):
            groups.setdefault(name.split("[")[0], []).append(i)
        rows = []
        for members in groups.values():
            worst_rhat = max(members, key=lambda i: self.rhat[i])
            worst_ess = min(members, key=lambda i: min(self.ess_bulk[i], self.ess_tail[i]))
            rows += [i for i in dict.fromkeys([worst_rhat, worst_ess]) if i not in rows]
        return rows

    def to_text(self):
        """The verdict and a table of the main rows as plain text.

        Returns
        -------
        text : str
            The message, then one line per shown quantity.
        """
        rows = self._shown_rows()
        width = max([len("quantity")] + [len(self.names[i]) for i in rows])
        lines = [self.message, "",
                 f"{'quantity'.ljust(width)}  {'R-hat':>7}  {'ESS bulk':>8}  {'ESS tail':>8}"
                 f"  {'mean':>11}  {'sd':>9}"]
        for i in rows:
            lines.append(
                f"{self.names[i].ljust(width)}  {self.rhat[i]:7.3f}  {self.ess_bulk[i]:8.0f}"
                f"  {self.ess_tail[i]:8.0f}  {self.mean[i]:11.5g}  {self.sd[i]:9.3g}"
            )
        if len(rows) < len(self.names):
            lines.append(f"({len(self.names) - len(rows)} more rows: the worst of each group "
                         "are shown; to_frame() has them all)")
        return "\n".join(lines)

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return self.to_text()

    def to_frame(self):
        """Every row as a pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            Columns quantity, rhat, ess_bulk, ess_tail, mean, sd.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("ChainSummary.to_frame needs pandas (pip install pandas); "
                              "str(summary) gives the table as text.") from exc
        return pd.DataFrame({"quantity": self.names, "rhat": self.rhat,
                             "ess_bulk": self.ess_bulk, "ess_tail": self.ess_tail,
                             "mean": self.mean, "sd": self.sd})


def _hellinger(p, q):
    """Hellinger distances between the rows of p and of q (distributions)."""
    affinity = np.sqrt(p) @ np.sqrt(q).T
    return np.sqrt(np.maximum(1.0 - affinity, 0.0))


def _topic_alignment(models, n_blocks):
    """Column order that maps each chain's topics onto the first chain's.

    Topics are matched block by block (one block per binary model of a
    one-vs-rest classifier) by the Hungarian method on the Hellinger distance
    between the row-normalized ``components_``. Returns (orders of shape
    (n_chains, n_topics), distances of the same shape).
    """
    topics = []
    for model in models:
        components = np.asarray(model.components_, dtype=np.float64)
        # Rows without weight (a topic no token reached) count as uniform.
        components = np.where(components.sum(axis=-1, keepdims=True) > 0, components, 1.0)
        components = components / components.sum(axis=-1, keepdims=True)
        if components.ndim == 3:
            # DynamicTopicModel (slices x topics x words): a topic is matched
            # by its word distribution averaged over the slices.
            components = components.mean(axis=0)
        topics.append(components)
    n_topics = topics[0].shape[0]
    if any(t.shape != topics[0].shape for t in topics):
        raise ValueError("The chains' components_ have different shapes: they are not "
                         "chains of the same model.")
    if n_topics % n_blocks:
        raise ValueError(f"{n_topics} topics cannot be cut into {n_blocks} models.")
    size = n_topics // n_blocks
    orders = np.tile(np.arange(n_topics), (len(models), 1))
    distances = np.zeros((len(models), n_topics))
    for c in range(1, len(models)):
        for b in range(n_blocks):
            block = slice(b * size, (b + 1) * size)
            cost = _hellinger(topics[0][block], topics[c][block])
            rows, cols = linear_sum_assignment(cost)
            orders[c, b * size + rows] = b * size + cols
            distances[c, b * size + rows] = cost[rows, cols]
    return orders, distances


def _trace_part(model, name):
    trace = getattr(model, "trace_", None)
    value = getattr(trace, name, None) if trace is not None else None
    if value is None and name == "log_likelihood":
        value = getattr(model, "log_likelihood_trace_", None)
    return None if value is None else np.asarray(value, dtype=np.float64)


def _burn_in_count(burn_in, n_iter):
    if burn_in is None:
        return n_iter // 2
    if isinstance(burn_in, bool):
        raise ValueError(f"burn_in must be an int, a fraction in [0, 1) or None; got {burn_in!r}.")
    if isinstance(burn_in, Integral):
        if not 0 <= burn_in < n_iter:
            raise ValueError(f"burn_in={burn_in} must be in [0, {n_iter}) (sweeps traced).")
        return int(burn_in)
    if isinstance(burn_in, Real) and 0.0 <= burn_in < 1.0:
        return int(burn_in * n_iter)
    raise ValueError(f"burn_in must be an int, a fraction in [0, 1) or None; got {burn_in!r}.")


def _collect_quantities(models, n_iter, orders, n_blocks):
    """Name -> draws (n_chains, n_iter) of every traced scalar, topics aligned."""
    quantities = {"log_likelihood": np.array([_trace_part(m, "log_likelihood")[:n_iter]
                                              for m in models])}
    notes = []
    n_topics = orders.shape[1]
    size = n_topics // n_blocks

    def aligned(name, arrays, axis_topics):
        """Reorder the topic axis of each chain's array by its alignment."""
        out = []
        for c, a in enumerate(arrays):
            if axis_topics == "flat":
                out.append(a[:, orders[c]])
            else:  # (n_iter, n_blocks, size): per-block orders
                local = (orders[c] - np.repeat(np.arange(n_blocks) * size, size)).reshape(
                    n_blocks, size)
                out.append(np.stack([a[:, b, local[b]] for b in range(n_blocks)], axis=1))
        return np.stack(out)

    for name in ("topic_share", "coef", "doc_topic_prior", "topic_word_prior", "mean"):
        parts = [_trace_part(m, name) for m in models]
        if any(p is None for p in parts):
            continue
        parts = [p[:n_iter] for p in parts]
        shape = parts[0].shape[1:]
        if shape and n_topics == 0:
            notes.append(f"{name} is left out: without components_ the chains' topics "
                         "cannot be matched.")
            continue
        if name == "coef" and shape == (n_blocks, size):
            draws = aligned(name, parts, "blocks")
            for b in range(n_blocks):
                for k in range(size):
                    key = f"coef[{k}]" if n_blocks == 1 else f"coef[{b}, {k}]"
                    quantities[key] = draws[:, :, b, k]
        elif name == "coef" and n_blocks == 1 and len(shape) == 2 and shape[1] == n_topics:
            # A multinomial classifier: one row per class over the shared
            # topics, every row reordered by the chain's one alignment.
            draws = np.stack([p[:, :, orders[c]] for c, p in enumerate(parts)])
            for row in range(shape[0]):
                for k in range(n_topics):
                    quantities[f"coef[{row}, {k}]"] = draws[:, :, row, k]
        elif shape == ():
            quantities[name] = np.stack(parts)
        elif (name in ("doc_topic_prior", "topic_word_prior") and n_blocks > 1
              and shape == (n_blocks,)):
            # One symmetric prior per binary model of a one-vs-rest
            # classifier: the models are the classes, in the same order in
            # every chain, and a symmetric prior does not depend on the topics'.
            draws = np.stack(parts)
            for b in range(n_blocks):
                quantities[f"{name}[{b}]"] = draws[:, :, b]
        elif len(shape) == 1 and shape[0] == n_topics:
            draws = aligned(name, parts, "flat")
            for k in range(n_topics):
                quantities[f"{name}[{k}]"] = draws[:, :, k]
        elif name in ("doc_topic_prior", "mean") and len(shape) == 1 and n_blocks == 1:
            # Not one entry per topic (e.g. the K - 1 coordinates of a
            # stick-breaking mean): the entries are tied to the topic order,
            # so they are compared only when no chain was relabelled.
            if np.all(orders == np.arange(n_topics)):
                draws = np.stack(parts)
                for j in range(shape[0]):
                    quantities[f"{name}[{j}]"] = draws[:, :, j]
            else:
                notes.append(f"{name} (not one entry per topic) is left out: the chains' "
                             "topics are relabelled and its entries depend on the order.")
        else:
            notes.append(f"{name} of shape {shape} is left out (unexpected shape).")
    return quantities, notes


def _common_length(models):
    """Number of sweeps traced by every chain (they must trace the log-likelihood)."""
    lengths = []
    for index, model in enumerate(models):
        trace = _trace_part(model, "log_likelihood")
        if trace is None:
            if hasattr(model, "fit"):
                # An unfitted chain was told it "does not record its chain".
                check_is_fitted(model, msg=(
                    f"Chain {index} (%(name)s) is not fitted: the chains are compared by "
                    "the traces of their fits; fit them first (run_chains does)."))
            raise ValueError(
                f"{type(model).__name__} has no log_likelihood_trace_ (nor "
                "trace_.log_likelihood): it does not record its chain, so the chains cannot "
                "be compared."
            )
        lengths.append(trace.shape[0])
    return min(lengths)


def _n_topic_blocks(model):
    """Number of models whose topics are stacked in ``components_``: one per
    binary model of a one-vs-rest classifier, else 1. The weights
    ``trace_.coef`` have ``n_components`` columns, so the blocks are the
    topics over those columns; their rows are not the blocks (a multinomial
    classifier has one row per class over one shared set of topics)."""
    coef = _trace_part(model, "coef")
    components = getattr(model, "components_", None)
    if coef is None or coef.ndim != 3 or components is None or np.ndim(components) != 2:
        return 1
    n_topics, size = np.shape(components)[0], coef.shape[2]
    return n_topics // size if size and n_topics % size == 0 else 1


def _aligned_traces(models, n_iter):
    """(name -> draws (n_chains, n_iter), alignment distances or None, notes)."""
    n_blocks = _n_topic_blocks(models[0])
    alignment_distance = None
    if all(hasattr(m, "components_") for m in models):
        orders, alignment_distance = _topic_alignment(models, n_blocks)
    else:
        orders = np.zeros((len(models), 0), dtype=int)
    quantities, notes = _collect_quantities(models, n_iter, orders, n_blocks)
    return quantities, alignment_distance, notes


def _models_of(chains):
    if hasattr(chains, "fit"):
        raise ValueError(
            "Pass several fitted chains (the result of run_chains, or a list of fitted "
            f"estimators), not one {type(chains).__name__}: one chain cannot be compared "
            "with others."
        )
    estimators = chains.estimators_ if isinstance(chains, Chains) else list(chains)
    if not estimators:
        raise ValueError("No chains to compare.")
    return [_coherence.find_topic_model(est)[0] for est in estimators]


def summary(chains, *, burn_in=None, rhat_threshold=RHAT_THRESHOLD, ess_threshold=None):
    """Do the chains agree? R-hat and ESS of their traces, in numbers and words.

    Read more in the :ref:`User Guide <diagnostics>`.

    For every traced quantity of the fitted chains -- the training
    log-likelihood of each sweep and, when the estimators trace them, the
    share of tokens in each topic, the classifier weights, the Dirichlet
    hyperparameters and the Gaussian mean -- :func:`rhat`, :func:`ess_bulk`
    and :func:`ess_tail` over the sweeps after ``burn_in``. Topic labels are
    arbitrary, so before per-topic quantities are compared each chain's
    topics are matched to the first chain's (Hungarian method on the
    Hellinger distance between the normalized ``components_``).

    Parameters
    ----------
    chains : Chains or sequence of fitted estimators
        The result of :func:`run_chains`, or chains fitted by hand (same
        estimator, different seeds). Each estimator (or the topic model of
        a Pipeline) must have ``log_likelihood_trace_`` (per-sweep training
        log-likelihood) or ``trace_.log_likelihood``; ``trace_`` may also have
        ``topic_share`` (n_iter, n_topics), ``coef`` (n_iter, n_models,
        n_components), or (n_iter, n_classes, n_components) for a
        multinomial classifier over shared topics, ``doc_topic_prior``
        (n_iter,), (n_iter, n_topics) or (n_iter, n_models) for a
        one-vs-rest classifier, ``topic_word_prior`` (n_iter,) or
        (n_iter, n_models) and
        ``mean`` (n_iter, dim), each None when not applicable; per-topic
        quantities need ``components_`` (a
        DynamicTopicModel's topics are matched by their word distributions
        averaged over the slices).

    burn_in : int, float or None, default=None
        Warm-up to discard from the start of every trace: a number of
        sweeps, or a fraction of them. None discards the first half, the
        usual conservative choice (Gelman et al., BDA3; Vehtari et al.
        2021): it needs no guess of when the chains reached their
        distribution, and a chain still drifting in the second half shows up
        in R-hat.

    rhat_threshold : float, default=1.01
        R-hat below which the chains of a quantity agree (Vehtari et al.'s
        recommendation).

    ess_threshold : float, default=None
        Bulk- and tail-ESS above which the draws suffice; None means 100
        per chain (400 for 4 chains), Vehtari et al.'s recommendation.

    Returns
    -------
    summary : ChainSummary
        The table (``names``, ``rhat``, ``ess_bulk``, ``ess_tail``, ``mean``,
        ``sd``), ``agree`` and the verdict ``message``; print it to read.

    See Also
    --------
    run_chains : Fit the chains.
    rhat, ess_bulk, ess_tail : The diagnostics of one quantity.

    Notes
    -----
    Quantities that are constant in every chain (e.g. a prior that is not
    sampled), or constant within each chain (e.g. an "auto" prior held at
    each chain's estimate after the burn-in; the note gives their range
    across chains), are left out. When the traces have different lengths, the
    common first sweeps are used. When R-hat shows disagreement but at least
    two chains are each stable on their own (split R-hat of the
    log-likelihood within the chain below 1.05) and still disagree with each
    other, the verdict says the chains sit in different modes, which a longer
    run may not join, instead of advising a longer run.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner,
       P.-C. (2021). Rank-normalization, folding, and localization: an
       improved R-hat for assessing convergence of MCMC. Bayesian Analysis
       16(2), 667-718.
    .. [2] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari,
       A. and Rubin, D. B. (2013). Bayesian Data Analysis, 3rd ed., Section
       11.4.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from sklearn_pgtm.diagnostics import summary
    >>> rng = np.random.default_rng(0)
    >>> fake_chains = [SimpleNamespace(log_likelihood_trace_=rng.normal(-100, 1, 2000))
    ...                for _ in range(4)]
    >>> result = summary(fake_chains)
    >>> result.agree
    True
    >>> print(result.message)
    The 4 chains agree: R-hat < 1.01 and bulk/tail ESS > 400 for 1 traced quantity ...
    """
    models = _models_of(chains)
    n_chains = len(models)
    n_iter = _common_length(models)
    discarded = _burn_in_count(burn_in, n_iter)
    if n_iter - discarded < 4:
        raise ValueError(
            f"Only {_count(n_iter - discarded, 'sweep')} per chain left after discarding "
            f"{discarded} of {n_iter} as warm-up; at least 4 are needed (run longer)."
        )
    if not isinstance(rhat_threshold, Real) or not rhat_threshold > 1.0:
        raise ValueError(f"rhat_threshold must be a number above 1; got {rhat_threshold!r}.")
    if ess_threshold is None:
        ess_threshold = ESS_PER_CHAIN * n_chains
    elif not isinstance(ess_threshold, Real) or not ess_threshold > 0:
        raise ValueError(f"ess_threshold must be a positive number or None; got "
                         f"{ess_threshold!r}.")
    quantities, alignment_distance, notes = _aligned_traces(models, n_iter)

    names, rows = [], []
    for name, draws in quantities.items():
        kept = draws[:, discarded:]
        if np.ptp(kept) == 0.0:
            notes.append(f"{name} is constant and left out.")
            continue
        if np.all(np.ptp(kept, axis=1) == 0.0):
            # Held fixed within each chain (e.g. "auto" priors estimated over
            # the burn-in): no within-chain variance to compare with.
            notes.append(f"{name} is fixed within each chain (from {kept[:, 0].min():.4g} "
                         f"to {kept[:, 0].max():.4g} across chains) and left out.")
            continue
        if not np.all(np.isfinite(kept)):
            raise ValueError(f"The trace of {name} contains NaN or infinity.")
        names.append(name)
        rows.append((rhat(kept), ess_bulk(kept), ess_tail(kept), kept.mean(), kept.std()))
    values = tuple(np.array(column, dtype=np.float64) for column in zip(*rows)) if rows else (
        tuple(np.zeros(0) for _ in range(5)))
    agree, message = _verdict(names, values, n_chains, n_iter, discarded, rhat_threshold,
                              ess_threshold, alignment_distance, notes,
                              quantities["log_likelihood"][:, discarded:],
                              _length_setting(models[0]))
    return ChainSummary(names, *values, agree=agree, message=message, n_chains=n_chains,
                        n_draws=n_iter - discarded, burn_in=discarded,
                        alignment_distance=alignment_distance, rhat_threshold=rhat_threshold,
                        ess_threshold=ess_threshold)


def _count(n, noun):
    """'1 quantity', '3 quantities'."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"


# Split R-hat of one chain's own log-likelihood below which the chain counts
# as settled, and R-hat between settled chains above which they sit in
# different modes.
SETTLED_RHAT = 1.05
MODES_RHAT = 1.1


def _separate_modes(loglik):
    """The verdict's advice when chains have settled in different modes, else
    None: at least two chains each stable on its own (split R-hat of its
    log-likelihood below SETTLED_RHAT) whose levels still disagree. On the
    embedded religion messages four GibbsLDA chains disagreed as much after
    4,000 sweeps as after 1,000 (R-hat 2.70 and 2.42; user guide
    :ref:`diagnostics`), so "run longer" would not help there."""
    if loglik.shape[0] < 2 or loglik.shape[1] < 8:
        return None
    settled = loglik[[rhat(chain[None]) < SETTLED_RHAT for chain in loglik]]
    if settled.shape[0] < 2 or not rhat(settled) >= MODES_RHAT:
        return None
    gap = np.ptp(settled.mean(axis=1)) / settled.std(axis=1).mean()
    return (f"{settled.shape[0]} of the {loglik.shape[0]} chains are each stable on their "
            f"own (split R-hat of the log-likelihood below {SETTLED_RHAT:g}), but their "
            f"levels differ by up to {gap:.1f} within-chain standard deviations: the chains "
            "sit in different modes, which a longer run may not join. Compare the chains "
            "by a held-out score (e.g. perplexity) and keep the best, or report the spread.")


def _length_setting(model):
    """The parameter that lengthens ``model``'s chain, for the verdict's
    advice: ``max_iter``, or EmpiricalBayesLDA's ``burn_in`` and
    ``n_samples`` (it has no ``max_iter``)."""
    params = model.get_params() if hasattr(model, "get_params") else {}
    if "max_iter" in params or "n_samples" not in params:
        return "max_iter"
    return "burn_in and n_samples"


def _verdict(names, values, n_chains, n_iter, discarded, rhat_threshold, ess_threshold,
             alignment_distance, notes, loglik, length_setting):
    r_hat, bulk, tail = values[0], values[1], values[2]
    ess = np.minimum(bulk, tail)
    bad_rhat = np.flatnonzero(~(r_hat < rhat_threshold))
    bad_ess = np.flatnonzero(~(ess > ess_threshold))
    kept = f"(draws {discarded + 1}-{n_iter} of each chain; the first {discarded} discarded)"
    agree = bool(names) and bad_rhat.size == 0 and bad_ess.size == 0
    # One chain: split R-hat compares its two halves.
    chains = "The chain's two halves" if n_chains == 1 else f"The {n_chains} chains"
    if not names:
        lines = [f"Nothing to compare {kept}: no traced quantity varies within the chains "
                 "(see below), so they cannot be judged to agree."]
    elif agree:
        lines = [f"{chains} agree: R-hat < {rhat_threshold:g} and bulk/tail ESS > "
                 f"{ess_threshold:g} for {_count(len(names), 'traced quantity')} {kept}."]
    else:
        lines = [f"{chains} do NOT agree yet {kept}."]
        if bad_rhat.size:
            worst = bad_rhat[np.argmax(r_hat[bad_rhat])]
            lines.append(
                f"R-hat >= {rhat_threshold:g} for {bad_rhat.size} of "
                f"{_count(len(names), 'quantity')} "
                f"(worst: {names[worst]}, R-hat {r_hat[worst]:.3f}): the chains have not "
                "reached the same distribution. "
                + (_separate_modes(loglik)
                   or f"Run longer (larger {length_setting}) and look at the traces.")
            )
        if bad_ess.size:
            worst = bad_ess[np.argmin(ess[bad_ess])]
            lines.append(
                f"ESS <= {ess_threshold:g} for {bad_ess.size} of "
                f"{_count(len(names), 'quantity')} "
                f"(smallest: {names[worst]}, {ess[worst]:.0f}): too few effective draws for "
                "stable estimates. Run longer or more chains."
            )
    if names and names[0] == "log_likelihood":
        lines.append(f"Log-likelihood: R-hat {r_hat[0]:.3f}, bulk-ESS {bulk[0]:.0f}, "
                     f"tail-ESS {tail[0]:.0f}.")
    if alignment_distance is not None and n_chains > 1:
        matched = alignment_distance[1:]
        lines.append(
            f"Topics matched to the first chain's at Hellinger distance {matched.mean():.2f} "
            f"on average (largest {matched.max():.2f})"
            + ("; some topics have no close counterpart in the first chain (distance > 0.5): "
               "the chains found different topics." if matched.max() > 0.5 else ".")
        )
    lines += notes
    return agree, "\n".join(lines)
