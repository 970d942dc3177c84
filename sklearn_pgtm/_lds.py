"""Stick-breaking multinomial linear dynamical system (SBM-LDS).

Linderman, Johnson & Adams (2015), "Dependent multinomial models made easy:
stick-breaking with the Pólya-gamma augmentation", section 5. Equations:
the user guide page ``doc/lds.rst``.
"""

import math
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted

from ._base import (
    N_JOBS_CONSTRAINT,
    PG_TERMS_CONSTRAINT,
    FittedParamsMixin,
    IntegerInterval,
    averaged_sweeps,
    check_call_settings,
    check_counts,
    check_draw_totals,
    check_n_draws,
    is_integer_at_least,
    keep_state_on_failure,
    resolve_burn_in,
)
from ._kernels._lds import (
    add_probabilities,
    calibrate_offsets,
    draw_emission_rows,
    draw_omega,
    emission_statistics,
    fill_stick_rows,
    forecast_proba,
    row_log_likelihood,
    observation_potentials,
    particle_log_predictive,
    particle_predictive_proba,
    sample_states,
    sample_states_and_means,
)
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import make_streams, seed_from
from ._kernels._stick_breaking import inverse_stick_breaking, stick_breaking
from ._parallel import balanced_cuts, effective_n_jobs, map_ranges
from ._progress import ProgressReporter
from .exceptions import ChainDivergenceError

# Checks of scikit-learn that do not apply to a sequence model, with the reason
# (merged into tests/test_common.py's list).
_EXPECTED_FAILED_CHECKS = {
    "check_methods_subset_invariance": (
        "rows are time steps of one sequence: a row's state depends on its neighbours"
    ),
    "check_methods_sample_order_invariance": (
        "rows are time steps of one sequence: shuffling them changes the sequence"
    ),
    "check_estimator_sparse_array": (
        "the check reads classifier tags when predict_proba exists; this predict_proba "
        "returns category probabilities (sparse input itself is supported)"
    ),
    "check_estimator_sparse_matrix": (
        "the check reads classifier tags when predict_proba exists; this predict_proba "
        "returns category probabilities (sparse input itself is supported)"
    ),
}

# Parameters the post-fit methods read at each call (see the class's Notes).
_CALL_SETTINGS = ("n_infer_iter", "n_particles", "n_jobs")
# |z| or |C| beyond this is a run-off chain, not a plausible state.
_DIVERGENCE_BOUND = 1e6
# Smallest state_noise_prior: the scale matrix of Q's posterior adds it to
# terms of order 1 (the prior of A) less their cancelling part, and from
# about 1e-17 the rounding of that difference left it not positive definite
# (LinAlgError inside fit); 1e-10 keeps six orders of magnitude of margin.
_MIN_STATE_NOISE_PRIOR = 1e-10
# Largest state_noise_prior: steps of the states of standard deviation 100
# (in logits) a priori. Beyond it the first sweeps' states push every
# probability to 0 or 1 and the fit is meaningless (40 rows, 6 categories,
# L = 2: score -0.68 / -0.61 per count at 1e4 after 4 / 20 sweeps, -3.2e50 /
# -0.66 at 1e8, -3e190 / -5e101 at 1e15, NaN from 1e30).
_MAX_STATE_NOISE_PRIOR = 1e4
# The prior scales enter as precisions 1 / scale**2, finite and nonzero
# in float64 for scales in this range (outside it fit raised OverflowError or
# ZeroDivisionError).
_SCALE_RANGE = (1e-150, 1e150)
# Prior mean of the dynamics matrix: 0.99 I.
_PRIOR_DYNAMICS_DIAGONAL = 0.99

# The offsets are calibrated after each of this many first sweeps (or of the
# burn-in, if shorter), then held. Calibrating through the whole burn-in fed
# a drift: each recalibration let the states grow further, and the held-out
# score fell with the length of the chain (validation split of
# benchmarks/lds.py, three seeds, nats per token against the add-one
# unigram: -0.024 / -0.068 / -0.269 after 50 / 100 / 200 sweeps). Side
# measurement of the cap at 100 sweeps: 6 -0.014, 12 -0.007, 25 -0.039, the
# whole burn-in (50) -0.068; 12 at 50 / 200 sweeps: -0.004 / -0.012. The
# rotations of the recovery benchmark are found with it.
_CALIBRATION_SWEEPS = 12

# transform and predict_proba average the second half of their sweeps over the
# states, not all but the first eighth as the topic models do: the states start
# at zero, which on one-hot text they leave slowly. Measured
# (benchmarks/inference.py --part lds, section infer_averaging_lds; defaults,
# 20 sweeps): averaged from the third sweep, the states of Alice in Wonderland
# were 13 % further from a long run than over the second half, while on data
# drawn from the model they were 16 % closer (predict_proba 1.4 % closer to the
# true probabilities).
INFER_BURN_IN_DIVISOR = 2

# Fewest kept draws whose probabilities predict_next_proba and forecast hold at
# once before mixing them (each the size of the output); as many as there are
# threads when there are more, so that every thread has a draw. The draws are
# folded into the mixture one at a time in their order, so the result does not
# depend on the chunk (nor on n_jobs).
_PROBA_DRAW_CHUNK = 2


# ------------------------------------------------------------------ data


class _Sequences:
    """Count rows in stick order, as the ragged arrays of :mod:`._kernels._lds`.

    ``seq_ptr`` (n_sequences + 1) delimits the sequences; ``stick_ptr`` (n_rows
    + 1) the active sticks of each row; ``totals`` / ``kappa`` the stick counts
    and ``x - N / 2``; ``row_log_coef`` the log multinomial coefficient of each
    row; ``n_counts`` the total count.
    """

    def __init__(self, X, seq_ptr, n_sticks):
        X = sp.csr_matrix(X)
        X.sort_indices()
        n_rows = X.shape[0]
        self.n_rows = n_rows
        self.seq_ptr = np.asarray(seq_ptr, dtype=np.int64)
        last = np.full(n_rows, -1, dtype=np.int64)
        nonempty = np.diff(X.indptr) > 0
        last[nonempty] = X.indices[X.indptr[1:][nonempty] - 1]
        n_active = np.minimum(last + 1, n_sticks)
        self.stick_ptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(n_active, out=self.stick_ptr[1:])
        size = int(self.stick_ptr[-1])
        self.totals = np.empty(size)
        self.kappa = np.empty(size)
        fill_stick_rows(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                        X.data.astype(np.float64), self.stick_ptr, self.totals, self.kappa)
        row_totals = np.asarray(X.sum(axis=1)).ravel().astype(np.float64)
        row_factorials = np.zeros(n_rows)
        np.add.at(row_factorials, np.repeat(np.arange(n_rows), np.diff(X.indptr)),
                  gammaln(X.data + 1.0))
        self.row_log_coef = gammaln(row_totals + 1.0) - row_factorials
        self.n_counts = float(row_totals.sum())
        # Rows in which stick k is active: units of the emission update.
        per_stick = np.bincount(n_active, minlength=n_sticks + 1)[::-1].cumsum()[::-1]
        self.stick_weight = np.zeros(n_sticks + 1, dtype=np.int64)
        np.cumsum(per_stick[1:n_sticks + 1], out=self.stick_weight[1:])

    @property
    def n_sequences(self):
        return self.seq_ptr.shape[0] - 1


def _sequence_ptr(lengths, n_rows, whom):
    """Offsets of the sequences from hmmlearn-style ``lengths``."""
    if lengths is None:
        return np.array([0, n_rows], dtype=np.int64)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"{whom}: lengths must be a non-empty 1-d array of integers.")
    if np.any(lengths < 1):
        raise ValueError(f"{whom}: every sequence length must be at least 1.")
    # A length above n_rows first: their int64 sum wraps around (three
    # lengths of 2**62 and one of 2**62 + 30 "summed" to 30 rows, and an
    # IndexError followed).
    if np.any(lengths > n_rows) or int(lengths.sum()) != n_rows:
        raise ValueError(
            f"{whom}: lengths sum to {sum(int(v) for v in lengths)} but X has {n_rows} "
            "rows; lengths must split the rows of X into consecutive sequences."
        )
    seq_ptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=seq_ptr[1:])
    return seq_ptr


def _check_y_not_lengths(y, n_rows, whom):
    """A ValueError when ``y``, which is ignored, is not one value per row of
    X: then it is no target a pipeline passes through but most likely the
    sequence lengths given in second place, hmmlearn's ``fit(X, lengths)``,
    which would silently fit X as one sequence."""
    if y is None:
        return
    try:
        n_values = _num_samples(y)
    except TypeError:  # a scalar
        n_values = 0
    if n_values != n_rows:
        raise ValueError(
            f"{whom}: y is not used (a target of one value per row of X is accepted and "
            f"ignored), but it has {n_values} values for the {n_rows} rows of X. The lengths "
            "of the sequences go in lengths= (e.g. fit(X, lengths=lengths)); in second "
            "place they would be ignored and X read as one sequence.")


def _spectral_radius(matrices):
    """Largest modulus of the eigenvalues of a stack of square matrices."""
    return float(np.abs(np.linalg.eigvals(matrices)).max())


def _raise_state_overflow(whom, first_bad, n_wanted, unit, whose, radius):
    """ValueError for a roll-forward whose latent states left float64 at
    step ``first_bad`` (0-based): unstable dynamics (spectral radius above
    1) grow the states geometrically, about ``radius**t``, and NaN
    probabilities followed (numpy's 'pvals contains NaNs' in sample)."""
    raise ValueError(
        f"{whom}: the latent states overflow float64 at step {first_bad + 1} of the "
        f"{n_wanted} {unit}: {whose} unstable (spectral radius {radius:.4g} > 1), so the "
        f"states grow without bound. Ask for at most {first_bad} {unit}.")


# ------------------------------------------------------------ kept draws


class _KeptDraws:
    """The kept posterior draws of the parameters, stacked over the draws:
    ``A`` and ``Q`` (n_draws, L, L), ``C`` (n_draws, K - 1, L), ``mu``
    (n_draws, K - 1) and ``z_end`` (n_draws, L), the last state of the last
    training sequence."""

    _NAMES = ("A", "Q", "C", "mu", "z_end")

    def __init__(self):
        self._kept = []

    def keep(self, chain):
        """Record the chain's current draw."""
        self._kept.append(tuple(np.array(value) for value in
                                (chain.A, chain.Q, chain.C, chain.mu, chain.z[-1])))

    def stack(self):
        """Stack the recorded draws into contiguous arrays (after the chain)."""
        for name, values in zip(self._NAMES, zip(*self._kept)):
            setattr(self, name, np.ascontiguousarray(np.stack(values)))
        del self._kept
        return self

    @property
    def n_draws(self):
        return self.A.shape[0]


def _draw_chunk(n_threads):
    """Kept draws held at once by predict_next_proba and forecast."""
    return max(_PROBA_DRAW_CHUNK, n_threads)


class _DrawMixture:
    """Per-row probabilities mixed over the kept draws, each draw weighed by
    its predictive likelihood of the earlier rows of the row's sequence,
    folded in one draw at a time (a running log-sum-exp per row), so that
    the draws' probabilities need not be held together."""

    def __init__(self, seq_ptr, n_rows, n_features):
        self.seq_ptr = seq_ptr
        self.total = np.zeros((n_rows, n_features))
        self.weight = np.zeros(n_rows)
        self.scale = np.full(n_rows, -np.inf)  # log of the weights' common factor

    def add(self, log_pred, proba):
        """Fold in one draw: its per-row log predictive and probabilities."""
        before = np.zeros_like(log_pred)
        for a, b in zip(self.seq_ptr[:-1], self.seq_ptr[1:]):
            before[a + 1:b] = np.cumsum(log_pred[a:b - 1])
        scale = np.maximum(self.scale, before)
        old, new = np.exp(self.scale - scale), np.exp(before - scale)
        self.total *= old[:, None]
        self.total += new[:, None] * proba
        self.weight = self.weight * old + new
        self.scale = scale

    def mean(self):
        return self.total / self.weight[:, None]


# ---------------------------------------------------------------- priors


class _Prior:
    """Hyperparameters of the model (user guide ``doc/lds.rst``).

    Q ~ IW(S0, nu0) with nu0 = L + 2 and S0 = noise_variance I (prior mean of
    Q: noise_variance I); A | Q ~ MN(M0, Q, I) with M0 = 0.99 I (slowly
    varying states a priori; the data dominate the prior of A as soon as the
    states move); z_1 ~ N(0, P0) with P0 = noise_variance / (1 - 0.99^2) I,
    the stationary covariance of that prior mean; c_k ~ N(0, emission_scale^2
    I); mu_k ~ N(offset_mean_k, offset_scale^2) (fixed at offset_mean when
    the scale is 0).
    """

    def __init__(self, dim, offset_mean, emission_scale, offset_scale, noise_variance):
        self.dim = dim
        self.nu0 = dim + 2.0
        self.S0 = noise_variance * (self.nu0 - dim - 1.0) * np.eye(dim)
        self.M0 = _PRIOR_DYNAMICS_DIAGONAL * np.eye(dim)
        self.K0_inv = np.eye(dim)
        initial_variance = noise_variance / (1.0 - _PRIOR_DYNAMICS_DIAGONAL**2)
        self.J_init = np.eye(dim) / initial_variance
        self.h_init = np.zeros(dim)
        self.emission_precision = 1.0 / emission_scale**2
        self.offset_mean = np.ascontiguousarray(offset_mean, dtype=np.float64)
        self.offset_precision = math.inf if offset_scale == 0 else 1.0 / offset_scale**2


def _inverse_wishart(scale, df, gen):
    """Draw from IW(scale, df) as the inverse of a Wishart(df, scale^-1) draw
    (Bartlett decomposition: W = L B B' L', L = chol(scale^-1), B lower
    triangular with chi(df - i) diagonal and standard normals below)."""
    dim = scale.shape[0]
    chol = np.linalg.cholesky(np.linalg.inv(scale))
    bartlett = np.tril(gen.standard_normal((dim, dim)), -1)
    bartlett[np.diag_indices(dim)] = np.sqrt(gen.chisquare(df - np.arange(dim)))
    factor = chol @ bartlett
    # Q = (factor factor')^-1 = inv(factor)' inv(factor).
    inv_factor = np.linalg.inv(factor)
    Q = inv_factor.T @ inv_factor
    return 0.5 * (Q + Q.T)


def _draw_dynamics(z, seq_ptr, prior, gen):
    """(A, Q) from their matrix-normal inverse-Wishart posterior given the
    state pairs (z_{t-1}, z_t) inside each sequence."""
    starts = np.zeros(z.shape[0], dtype=bool)
    starts[seq_ptr[:-1]] = True
    nxt = np.flatnonzero(~starts)
    x, y = z[nxt - 1], z[nxt]
    K_inv = prior.K0_inv + x.T @ x
    K_n = np.linalg.inv(K_inv)
    K_n = 0.5 * (K_n + K_n.T)
    M_n = (prior.M0 @ prior.K0_inv + y.T @ x) @ K_n
    S_n = prior.S0 + prior.M0 @ prior.K0_inv @ prior.M0.T + y.T @ y - M_n @ K_inv @ M_n.T
    S_n = 0.5 * (S_n + S_n.T)
    Q = _inverse_wishart(S_n, prior.nu0 + nxt.size, gen)
    E = gen.standard_normal(Q.shape)
    A = M_n + np.linalg.cholesky(Q) @ E @ np.linalg.cholesky(K_n).T
    return np.ascontiguousarray(A), np.ascontiguousarray(Q)


# ----------------------------------------------------------------- chain


class _GibbsChain:
    """State and sweep of the Gibbs sampler (user guide ``doc/lds.rst``).

    One sweep draws, in order: omega | z, C, mu (per row, Pólya-Gamma); z |
    omega, A, Q (per sequence, information-form FFBS); (C, mu) | omega, z (per
    stick, Gaussian); (A, Q) | z (matrix-normal inverse-Wishart). Rows,
    sequences and sticks draw from their own random streams, so the chain
    depends on the seed only, not on the number of threads.
    """

    def __init__(self, data, prior, seed, n_threads, pg_method, pg_terms):
        seeds = np.random.SeedSequence(seed).spawn(4)
        dim = prior.dim
        n_sticks = prior.offset_mean.shape[0]
        self.prior = prior
        self.method = PG_METHODS[pg_method]
        self.n_terms = int(pg_terms)
        self.row_states = make_streams(seeds[0], data.n_rows)
        self.seq_states = make_streams(seeds[1], data.n_sequences)
        self.stick_states = make_streams(seeds[2], n_sticks)
        self.gen = np.random.default_rng(seeds[3])
        self.n_threads = n_threads
        self.J_obs = np.zeros((data.n_rows, dim, dim))
        self.h_obs = np.zeros((data.n_rows, dim))
        self.gram = np.zeros((n_sticks, dim + 1, dim + 1))
        self.moment = np.zeros((n_sticks, dim + 1))
        self.set_data(data)
        # Start: the prior means of A and Q, the offsets, a prior draw of C
        # and zero states (the first sweep's FFBS draws them). A data-driven
        # start (principal components of windowed logits) was measured worse
        # on the text benchmark: -0.135 vs -0.027 nats per held-out token.
        self.A = prior.M0.copy()
        self.Q = prior.S0 / (prior.nu0 - dim - 1.0)
        self.mu = prior.offset_mean.copy()
        self.C = self.gen.standard_normal((n_sticks, dim)) / math.sqrt(prior.emission_precision)
        self.z = np.zeros((data.n_rows, dim))

    def set_data(self, data):
        """Replace the counts (same rows, sequences and categories; the random
        streams continue). Used by the Geweke test, which redraws the data."""
        self.data = data
        self.omega = np.zeros(data.totals.shape[0])
        self.row_cuts = balanced_cuts(data.stick_ptr, self.n_threads)
        self.seq_cuts = balanced_cuts(data.seq_ptr, self.n_threads)
        self.stick_cuts = balanced_cuts(data.stick_weight, self.n_threads)

    def set_parameters(self, A, Q, C, mu, z):
        """Start from given parameters and states (used by the Geweke test)."""
        self.A, self.Q = np.array(A, dtype=float), np.array(Q, dtype=float)
        self.C, self.mu = np.array(C, dtype=float), np.array(mu, dtype=float)
        self.z = np.array(z, dtype=float)

    def draw_omega(self):
        d = self.data
        map_ranges(lambda lo, hi: draw_omega(
            d.stick_ptr, d.totals, self.C, self.mu, self.z, self.method, self.n_terms,
            self.row_states, lo, hi, self.omega), self.row_cuts)

    def potentials(self, C, mu):
        d = self.data
        map_ranges(lambda lo, hi: observation_potentials(
            d.stick_ptr, self.omega, d.kappa, C, mu, lo, hi, self.J_obs, self.h_obs),
            self.row_cuts)

    def draw_states(self, A, Q, mean=None):
        d = self.data
        p = self.prior
        Q_inv = np.linalg.inv(Q)
        Q_inv = np.ascontiguousarray(0.5 * (Q_inv + Q_inv.T))
        z = np.empty_like(self.z)
        if mean is None:
            ok = map_ranges(lambda lo, hi: sample_states(
                d.seq_ptr, p.J_init, p.h_init, A, Q_inv, self.J_obs, self.h_obs,
                self.seq_states, lo, hi, z), self.seq_cuts)
        else:
            ok = map_ranges(lambda lo, hi: sample_states_and_means(
                d.seq_ptr, p.J_init, p.h_init, A, Q_inv, self.J_obs, self.h_obs,
                self.seq_states, lo, hi, z, mean), self.seq_cuts)
        if not all(ok):
            raise ChainDivergenceError(
                "MultinomialLDS: a state precision matrix lost positive definiteness "
                "(the chain diverged)."
            )
        self.z = z

    def draw_emission(self):
        d = self.data
        p = self.prior
        C, mu = self.C.copy(), self.mu.copy()

        def block(lo, hi):
            emission_statistics(d.stick_ptr, self.omega, d.kappa, self.z, lo, hi,
                                self.gram, self.moment)
            return draw_emission_rows(self.gram, self.moment, p.emission_precision,
                                      p.offset_mean, p.offset_precision, self.stick_states,
                                      lo, hi, C, mu)

        if not all(map_ranges(block, self.stick_cuts)):
            raise ChainDivergenceError("MultinomialLDS: an emission precision was not "
                                     "positive definite.")
        self.C, self.mu = C, mu

    def sweep(self):
        self.draw_omega()
        self.potentials(self.C, self.mu)
        self.draw_states(self.A, self.Q)
        self.draw_emission()
        self.A, self.Q = _draw_dynamics(self.z, self.data.seq_ptr, self.prior, self.gen)
        # A run-off chain (logits beyond any plausible value) stops here with
        # a clear error instead of feeding infinite logits to the samplers.
        top = max(np.abs(self.z).max(initial=0.0), np.abs(self.C).max(initial=0.0))
        if not (np.isfinite(top) and top < _DIVERGENCE_BOUND
                and np.all(np.isfinite(self.A)) and np.all(np.isfinite(self.Q))):
            raise ChainDivergenceError(
                "MultinomialLDS: the chain diverged (states or emissions beyond "
                f"{_DIVERGENCE_BOUND:g}); try a smaller state_noise_prior or "
                "emission_prior_scale."
            )

    def calibrate_offsets(self, row_weight, target):
        """Set the offsets' prior mean (and the offsets, when they are fixed) so
        that the probabilities averaged over the current states, centred at
        their mean, match ``target`` (see :func:`._kernels._lds.calibrate_offsets`).
        Centring leaves the common shift of the states to the data (through
        ``C``) rather than folding it into the offsets."""
        offset = self.prior.offset_mean.copy()
        centred = np.ascontiguousarray(self.z - self.z.mean(axis=0))
        calibrate_offsets(self.C, centred, row_weight, target, offset)
        self.prior.offset_mean = offset
        if self.prior.offset_precision == math.inf:
            self.mu = offset.copy()

    def log_likelihood(self):
        """``log p(X | z, C, mu)`` (rows in parallel, summed in row order so
        that the value does not depend on the number of threads)."""
        d = self.data
        per_row = np.empty(d.n_rows)
        map_ranges(lambda lo, hi: row_log_likelihood(
            d.stick_ptr, d.totals, d.kappa, d.row_log_coef, self.C, self.mu, self.z, lo, hi,
            per_row), self.row_cuts)
        return float(per_row.sum())


# -------------------------------------------------------------- estimator


class MultinomialLDS(FittedParamsMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                     BaseEstimator):
    """Linear dynamical system with multinomial observations (SBM-LDS).

    A continuous-state model of sequences of count vectors (text word by
    word as one-hot rows, DNA, purchases, ...): a Gaussian state ``z_t`` in
    R^L moves linearly, ``z_t = A z_{t-1} + N(0, Q)``, and each row of counts
    is a multinomial draw with probabilities ``pi_SB(C z_t + mu)``, the
    stick-breaking map of K - 1 logits to K categories. Pólya-Gamma variables
    ``omega_tk ~ PG(N_tk, psi_tk)`` make every conditional Gaussian, so the
    Gibbs sampler draws all states of a sequence in one block by
    forward-filtering backward-sampling, each row of ``C`` from a Gaussian and
    ``(A, Q)`` from their matrix-normal inverse-Wishart posterior (Linderman,
    Johnson & Adams [1]_).

    Read more in the :ref:`User Guide <lds>`.

    Parameters
    ----------
    n_components : int, default=10
        Dimension L of the latent state (the paper uses 10 for text). On the
        validation split of the text benchmark (``benchmarks/RESULTS.md``,
        "MultinomialLDS: defaults"; three seeds, nats per token relative to
        the add-one multinomial) L = 5 / 10 / 20 scored -0.018 / -0.007 /
        -0.025, at 0.16 / 0.27 / 0.74 s per sweep.

    max_iter : int, default=100
        Gibbs sweeps in :meth:`fit`. On data drawn from the model 100 and 400
        sweeps give the same smoothed-probability error. On the validation
        split of the text benchmark (``benchmarks/RESULTS.md``,
        "MultinomialLDS: defaults"; three seeds, nats per token relative to
        the add-one multinomial, as are the validation figures of the
        parameters below) 25 sweeps score -0.006, 50 -0.004, 100 -0.007
        and 200 -0.012: flat within the standard error (about 0.02 per
        seed). 100 was chosen before ``calibrate_offset`` existed (then: 50
        +0.006, 100 +0.007, 400 -0.024); while the calibration ran through
        the whole burn-in the score fell with the length of the chain (50
        -0.024, 100 -0.068, 200 -0.269; see ``calibrate_offset``).

    burn_in : int or "auto", default="auto"
        Sweeps discarded before posterior draws are kept; ``"auto"`` means
        ``max_iter // 2``. A given value must be smaller than ``max_iter``
        (:meth:`fit` raises a ``ValueError`` otherwise). Measured in
        ``benchmarks/RESULTS.md``, "MultinomialLDS: kept draws, inference
        sweeps, Pólya-Gamma sampler"
        (``python benchmarks/lds.py --parts sampling``; 100 sweeps, five
        seeds, each setting's kept sweeps taken from the same chain,
        differences paired with the defaults, standard errors in brackets):
        a burn-in of 25 / 75 sweeps instead of 50 changes the validation
        score by -0.003 (0.006) / -0.004 (0.003) nats per token, and the
        held-out score on data drawn from the model by -0.0001 / +0.0003
        (0.0004) nats per count: flat within the errors.

    n_samples : int, default=20
        Posterior draws of the parameters kept after burn-in (evenly spaced
        over the remaining sweeps, the last sweep included; every remaining
        sweep when there are fewer than ``n_samples``). :meth:`score`,
        :meth:`predict_next_proba` and :meth:`forecast` average over them (the
        paper's averaging of the predictive likelihood over kept sweeps;
        :meth:`score` is the log of the draws' mean likelihood). Same
        measurement: 5 / 10 / 50 draws instead of 20 change the validation
        score by -0.016 (0.005) / -0.011 (0.004) / -0.005 (0.002) nats per
        token, and the held-out score on data drawn from the model by
        -0.0005 (0.0001) / -0.0007 (0.0003) / +0.0002 (0.0003) nats per
        count: 20 is the best of the four on the text.

    pg_method : {"auto", "exact", "gaussian", "pg1", "truncated"}, default="auto"
        Pólya-Gamma sampler (see :mod:`sklearn_pgtm.polyagamma`). ``"auto"``
        is the exact sampler for stick counts below 5 and a shifted gamma
        with the first three cumulants of PG(b, c) from 5 on, the switch
        point measured by ``python benchmarks/pg_samplers.py`` (:ref:`User
        Guide <polyagamma>`, "The auto rule and its measurement": from
        b = 5 on its Kolmogorov distance to PG(b, c) is at most 0.0105 / b,
        and two-sample tests at 10^4 draws per cell do not see it). The stick counts of
        one-hot rows are 1, so on text ``"auto"`` is the exact sampler (a
        5-sweep fit gives the same trace as with ``"exact"``; section
        "MultinomialLDS: kept draws, inference sweeps, Pólya-Gamma
        sampler"). With 20 counts per row (the data drawn from the model
        there; measured with the switch at 14, until 2026-11-29) 22.7% of
        the draws had b >= 14, and ``"exact"`` changes the
        held-out score by +0.0002 (0.0004) nats per count at 1.3 times the
        fit time (2.25 vs 1.75 s, five data sets).

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers (no default
        ``pg_method`` uses them), at most 100,000 (the bound of
        :func:`sklearn_pgtm.polyagamma.random_polyagamma`). Set before it was
        measured: at 8 terms both are coarser and slower than the default's
        approximations (Kolmogorov-Smirnov distance to exact draws 0.0095-0.036
        and 0.029-0.042 at b = 100 and 1,000, against at most 0.015; user guide
        :ref:`pg_terms`).

    state_noise_prior : float, default=1e-2
        Prior mean of the diagonal of the state noise covariance ``Q``
        (inverse-Wishart prior with L + 2 degrees of freedom; the prior mean
        of ``A`` is 0.99 I and the first state's covariance the matching
        stationary one). Small values favour slowly drifting states. The
        fitted ``Q`` follows this prior more than the data: on the
        validation split of the text benchmark (``benchmarks/lds.py --parts
        defaults``, 100 sweeps, three seeds, L = 10) the trace of the fitted
        ``Q`` is 0.010 / 0.094 / 1.0 / 3.0 / 8.7 for 1e-3 / 1e-2 / 0.1 /
        0.3 / 1.0, with scores -0.044 / -0.007 / +0.010 / -0.019 / +0.012
        (the standard error of one seed's score over the 100 tokens is
        about 0.02). From 1e-2 up the differences are within that error;
        the default is the value chosen before these measurements. From
        1e-10 (below about 1e-17 the posterior of ``Q`` is lost to rounding)
        to 1e4 (beyond, the states' first steps set every probability to 0
        or 1 and the score runs to -1e50 per count or NaN).

    emission_prior_scale : float, default=0.3
        Prior standard deviation of the entries of the emission matrix ``C``.
        Rows of rare categories stay close to their prior, and the noise
        ``c_k' z`` they add to the logits inflates the predicted probability
        of rare categories. Same validation split: 0.3 -0.007, 0.1 -0.048,
        1.0 -0.015. In [1e-150, 1e150], where ``1 / scale**2`` is a finite
        nonzero float.

    offset_prior_scale : float, default=0.0
        Prior standard deviation of the offsets ``mu`` around the logits of
        the training frequencies; 0 keeps ``mu`` fixed at those logits (same
        validation split: 0 -0.007, 0.3 -0.008). Otherwise in [1e-150,
        1e150], as ``emission_prior_scale``.

    offset_pseudo_count : float, default=1.0
        Pseudo-count added to every category's training count before the
        offsets ``mu = pi_SB^{-1}(frequencies)`` are computed; it sets how
        much probability categories unseen in training keep (same
        validation split: 1 -0.007, 3 -0.097).

    calibrate_offset : bool, default=True
        After each of the first 12 sweeps (of the burn-in, if shorter), set
        the offsets (their prior mean, and the offsets themselves when
        ``offset_prior_scale=0``) so that the probabilities averaged over
        the rows' current states (centred at their mean), ``sum_t N_t
        pi_SB(C z_t + mu) / sum_t N_t``, equal the training frequencies plus
        ``offset_pseudo_count``; they are held fixed afterwards, so the kept
        draws come from one posterior. Calibrating after every burn-in sweep
        fed a drift of the states, and the held-out score then fell with
        the length of the chain (validation split: 50 / 100 / 200 sweeps
        -0.024 / -0.068 / -0.269; calibrating over the first 6 / 12 / 25
        sweeps scored -0.014 / -0.007 / -0.039 at 100 sweeps, side
        measurement).
        Without it the offsets are the logits of those frequencies at
        ``z = 0``, and the noise ``c_k' z`` of rare categories (whose rows of
        ``C`` the data barely constrain) raises their average probability,
        a sigmoid being convex far below 0, at the expense of the categories
        after them along the stick. On data drawn from the model the
        uncalibrated chain spends a state dimension on a near-constant
        correction of the offsets (eigenvalue 0.999) and misses the fast
        rotation, which the calibrated chain recovers. On text
        (``benchmarks/RESULTS.md``, three seeds, 100 sweeps, nats per token
        relative to the add-one multinomial) calibration scores -0.033
        against -0.055 on the test tokens of "MultinomialLDS: Alice in
        Wonderland" (the held-out words unseen in training lose 0.18 each
        with it and 0.30 without; the seen words gain 0.006 with it and
        0.010 without), and -0.007 against -0.021 on the validation split
        of "MultinomialLDS: defaults".

    category_order : {"frequency", "given"}, default="frequency"
        Order of the categories along the stick-breaking construction.
        ``"frequency"`` puts the most frequent training categories first,
        which makes a one-hot row involve only as many sticks as its
        category's rank (and is the order the offsets are best estimated in);
        ``"given"`` keeps the column order of ``X``. On the validation split
        of the text benchmark, with the columns shuffled (an arbitrary order,
        as a vectorizer's alphabetical one is), ``"given"`` scored -0.002
        against -0.007 for ``"frequency"`` (three seeds) at 1.3 times the
        time per sweep (0.34 vs 0.27 s, section lds-defaults; 0.41 vs 0.13 s
        in an earlier run of that section). The default has not been changed
        on this one text and split (before ``calibrate_offset`` the same
        comparison gave -0.010 against +0.007, at 10 times the time).

    n_infer_iter : int, default=20
        Gibbs sweeps over the states of new data (parameters fixed) in
        :meth:`transform` and :meth:`predict_proba`; the second half is
        averaged (the topic models average all but the first eighth; from the
        third of 20 sweeps the states of the text were 13 % further from a
        long run, though 16 % closer on data drawn from the model:
        ``benchmarks/inference.py --part lds``, section
        ``infer_averaging_lds``). More sweeps only reduce the Monte Carlo
        error, at a cost linear in their number; 20 is a compromise on time
        chosen before the measurement ("MultinomialLDS: kept draws, inference
        sweeps, Pólya-Gamma sampler", ``--parts sampling``). On data drawn
        from the model (five data sets, L = 4) the smoothed probabilities'
        mean total-variation distance to the true ones is 0.125 / 0.116 /
        0.112 / 0.109 / 0.108 after 5 / 10 / 20 / 50 / 400 sweeps (0.16 / 0.33
        / 0.70 / 1.34 / 11.95 s for ``transform`` and ``predict_proba``). On
        the text (3,800 one-hot rows, L = 10) the states of :meth:`transform`
        are far noisier: their RMS distance to a 200-sweep run is 71 / 56 / 41
        / 30% of the states' RMS after 5 / 10 / 20 / 50 sweeps; raise
        ``n_infer_iter`` when those states matter. Read at each call: set
        after :meth:`fit`, it applies from the next call.

    n_particles : int, default=500
        Particles of the bootstrap particle filter of :meth:`score`,
        :meth:`predict_next_proba` and :meth:`forecast` (per kept draw). The
        text benchmark's validation score varies by 0.004 nats per token
        between filter seeds with 100 particles, 0.0008 with 500 and 0.0003
        with 2,000 (means -0.017, -0.018, -0.018). Read at each call: set
        after :meth:`fit`, it applies from the next call.

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw.

    n_jobs : int, default=None
        Threads for the per-row Pólya-Gamma draws, the per-sequence state
        draws and the per-stick emission draws (each unit has its own random
        stream: the result does not depend on ``n_jobs``). ``-1`` uses all
        cores. Also the threads of the post-fit methods, read at each call.

    verbose : int, default=0
        Print the complete-data log-likelihood and time during :meth:`fit`.

    Attributes
    ----------
    dynamics_matrix_ : ndarray of shape (n_components, n_components)
        Dynamics ``A`` of the last posterior draw.

    dynamics_covariance_ : ndarray of shape (n_components, n_components)
        State noise covariance ``Q`` of the last posterior draw.

    emission_matrix_ : ndarray of shape (n_features - 1, n_components)
        Emission matrix ``C`` of the last posterior draw; row k is the stick
        of category ``category_order_[k]``.

    emission_offset_ : ndarray of shape (n_features - 1,)
        Offsets ``mu`` of the sticks (same order).

    category_order_ : ndarray of shape (n_features,)
        Column of ``X`` of each position along the stick.

    initial_state_mean_ : ndarray of shape (n_components,)
        Mean of the first state of every sequence (the prior's, 0).

    initial_state_covariance_ : ndarray of shape (n_components, n_components)
        Covariance of the first state (the prior's): ``state_noise_prior /
        (1 - 0.99**2)`` times the identity, the stationary covariance of the
        prior mean of the dynamics, ``A = 0.99 I``, with noise
        ``state_noise_prior * I``.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        Complete-data log-likelihood ``log p(X | z, C, mu)`` after each sweep.

    n_iter_ : int
        Number of sweeps run.

    n_features_in_ : int
        Number of categories seen in :meth:`fit`.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the categories seen in :meth:`fit`, when ``X`` has string
        column names.

    See Also
    --------
    CorrelatedTopicModel : Stick-breaking Gaussian vectors behind topic
        proportions.

    Notes
    -----
    Only the products of the parameters are identified (any invertible
    change of state coordinates gives the same model), so the attributes are
    one coherent posterior draw rather than averages; the eigenvalues of
    ``dynamics_matrix_`` and all predicted probabilities are invariant.

    A fitted estimator behaves as fitted until it is fitted again, as in
    scikit-learn: the post-fit methods take the state dimension from the
    fitted arrays and every other parameter as it was at :meth:`fit`, whatever
    ``set_params`` changed since, except the settings of the inference on new
    data, ``n_infer_iter``, ``n_particles`` and ``n_jobs``, which they read at
    each call.

    References
    ----------
    .. [1] S. Linderman, M. Johnson, R. Adams, "Dependent multinomial models
       made easy: stick-breaking with the Pólya-gamma augmentation",
       NIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import MultinomialLDS
    >>> rng = np.random.RandomState(0)
    >>> X = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    >>> lds = MultinomialLDS(n_components=2, max_iter=20, random_state=0).fit(X)
    >>> lds.transform(X).shape
    (40, 2)
    >>> lds.predict_proba(X).shape
    (40, 3)
    >>> lds.forecast(3).shape
    (3, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left"), StrOptions({"auto"})],
        "n_samples": [IntegerInterval(1, None, closed="left")],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": PG_TERMS_CONSTRAINT,
        "state_noise_prior": [Interval(Real, _MIN_STATE_NOISE_PRIOR, _MAX_STATE_NOISE_PRIOR,
                                       closed="both")],
        "emission_prior_scale": [Interval(Real, *_SCALE_RANGE, closed="both")],
        "offset_prior_scale": [Options(Real, {0.0}),
                               Interval(Real, *_SCALE_RANGE, closed="both")],
        "offset_pseudo_count": [Interval(Real, 0, None, closed="neither")],
        "calibrate_offset": ["boolean"],
        "category_order": [StrOptions({"frequency", "given"})],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "n_particles": [IntegerInterval(1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=10,
        *,
        max_iter=100,
        burn_in="auto",
        n_samples=20,
        pg_method="auto",
        pg_terms=8,
        state_noise_prior=1e-2,
        emission_prior_scale=0.3,
        offset_prior_scale=0.0,
        offset_pseudo_count=1.0,
        calibrate_offset=True,
        category_order="frequency",
        n_infer_iter=20,
        n_particles=500,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.n_samples = n_samples
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.state_noise_prior = state_noise_prior
        self.emission_prior_scale = emission_prior_scale
        self.offset_prior_scale = offset_prior_scale
        self.offset_pseudo_count = offset_pseudo_count
        self.calibrate_offset = calibrate_offset
        self.category_order = category_order
        self.n_infer_iter = n_infer_iter
        self.n_particles = n_particles
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ------------------------------------------------------------ helpers
    def _validate(self, X, lengths, *, reset, whom):
        if not reset:
            check_call_settings(self, _CALL_SETTINGS)
        X = check_counts(self, X, reset=reset, whom=whom, as_tokens=False)
        if X.shape[0] == 0:
            raise ValueError(f"{whom}: X has no rows.")
        if reset and X.nnz == 0:
            raise ValueError(f"{whom}: X has no positive count (after rounding counts to "
                             "integers); nothing to fit.")
        seq_ptr = _sequence_ptr(lengths, X.shape[0], whom)
        return X, seq_ptr

    def _stick_data(self, X, seq_ptr):
        """Rows of X in stick order as :class:`_Sequences`."""
        return _Sequences(X[:, self.category_order_], seq_ptr, self.n_features_in_ - 1)

    def _threads(self, n_units):
        return effective_n_jobs(self.n_jobs, n_units)

    def _burn_in(self):
        """``burn_in``, or for "auto" half of ``max_iter``."""
        return resolve_burn_in(self.burn_in, self.max_iter, (1, 2))

    def _kept_sweeps(self):
        after = np.arange(self._burn_in(), self.max_iter)
        n_keep = min(self.n_samples, after.size)
        # Evenly spaced, ending at the last sweep.
        picks = after.size - 1 - np.round(np.linspace(0, after.size - 1, n_keep)).astype(int)
        return set(after[picks].tolist())

    def _n_states(self):
        """State dimension of the fitted model, from its arrays
        (``n_components`` may have changed since)."""
        return self.dynamics_matrix_.shape[0]

    def _to_columns(self, proba_sticks):
        """Probabilities in stick order -> columns of X."""
        out = np.empty_like(proba_sticks)
        out[:, self.category_order_] = proba_sticks
        return out

    # ---------------------------------------------------------------- fit
    @keep_state_on_failure
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, lengths=None):
        """Fit the model by Gibbs sampling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts (non-negative, rounded to integers); row t is the count
            vector of time step t (a one-hot row per token for text). Rows of
            several sequences are concatenated.

        y : Ignored
            Not used, present for API consistency: a target of one value per
            row of X (as a Pipeline passes it) is ignored; other values raise a
            ``ValueError`` (the sequence lengths go in ``lengths``).

        lengths : array-like of int, default=None
            Lengths of the consecutive sequences in X (hmmlearn's
            convention); ``None`` means one sequence.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # Named "MultinomialLDS.fit" in its messages, as every estimator's fit
        # and this one's other methods are ("MultinomialLDS.transform", ...).
        whom = f"{type(self).__name__}.fit"
        self._record_fit_params()
        X, seq_ptr = self._validate(X, lengths, reset=True, whom=whom)
        _check_y_not_lengths(y, X.shape[0], whom)
        if not isinstance(self.burn_in, str) and self.burn_in >= self.max_iter:
            # Cutting it to max_iter - 1 kept fewer draws than n_samples, silently.
            raise ValueError(f"{whom}: burn_in={self.burn_in} must be smaller than "
                             f"max_iter={self.max_iter}: no sweep would be kept.")
        rng = check_random_state(self.random_state)
        chain_seed = seed_from(rng)
        self._infer_seed = seed_from(rng)
        counts = np.asarray(X.sum(axis=0)).ravel()
        self.category_order_ = self._category_order(counts)
        # Category counts in stick order plus the pseudo-count: the prior's
        # offsets and their calibration target.
        freq = counts[self.category_order_] + float(self.offset_pseudo_count)
        data = self._stick_data(X, seq_ptr)
        prior = self._prior_of(freq)
        n_threads = self._threads(max(data.n_rows, X.shape[1]))
        chain = _GibbsChain(data, prior, chain_seed, n_threads, self.pg_method, self.pg_terms)
        reporter = ProgressReporter(type(self).__name__, self.verbose)
        with reporter:
            draws, trace = self._run_chain(chain, X, freq, reporter)
        self._draws = draws.stack()
        self._prior = prior
        self.dynamics_matrix_ = chain.A
        self.dynamics_covariance_ = chain.Q
        self.emission_matrix_ = chain.C
        self.emission_offset_ = chain.mu
        self.initial_state_mean_ = np.linalg.solve(prior.J_init, prior.h_init)
        self.initial_state_covariance_ = np.linalg.inv(prior.J_init)
        self.log_likelihood_trace_ = trace
        self.n_iter_ = self.max_iter
        reporter.summary(
            f"{self.max_iter} sweeps, {data.n_rows} rows in {data.n_sequences} sequence(s), "
            f"{int(data.n_counts)} counts, {self._draws.n_draws} draws kept, final "
            f"log-likelihood per count {trace[-1] / max(data.n_counts, 1.0):.4f}"
        )
        return self

    def _category_order(self, counts):
        """Column of X at each stick position, from the category ``counts``:
        most frequent first, or as given."""
        if self.category_order == "frequency":
            return np.argsort(-counts, kind="stable").astype(np.int64)
        return np.arange(counts.shape[0], dtype=np.int64)

    def _prior_of(self, freq):
        """The prior, its offsets' mean at the logits of ``freq`` (smoothed
        counts in stick order)."""
        offset_mean = np.empty((1, freq.shape[0] - 1))
        inverse_stick_breaking(freq[None, :], offset_mean)
        return _Prior(self.n_components, offset_mean[0], self.emission_prior_scale,
                      self.offset_prior_scale, self.state_noise_prior)

    def _run_chain(self, chain, X, freq, reporter):
        """``max_iter`` sweeps, the offsets calibrated towards ``freq`` during
        the first burn-in sweeps; returns the kept draws and the per-sweep
        log-likelihood."""
        kept = self._kept_sweeps()
        n_calibrate = min(self._burn_in(), _CALIBRATION_SWEEPS) if self.calibrate_offset else 0
        row_weight = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        target = freq * (row_weight.sum() / freq.sum())
        n_counts = max(chain.data.n_counts, 1.0)
        draws = _KeptDraws()
        trace = np.empty(self.max_iter)
        for it in range(self.max_iter):
            chain.sweep()
            if it < n_calibrate:
                chain.calibrate_offsets(row_weight, target)
            trace[it] = chain.log_likelihood()
            if it in kept:
                draws.keep(chain)
            if reporter.due(it, self.max_iter):
                reporter.report(it, self.max_iter, log_likelihood_per_count=trace[it] / n_counts)
        return draws, trace

    def fit_transform(self, X, y=None, *, lengths=None):
        """Fit, then return the posterior-mean states of X (:meth:`transform`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts, rows of consecutive sequences.

        y : Ignored
            Not used, present for API consistency: a target of one value per
            row of X (as a Pipeline passes it) is ignored; other values raise a
            ``ValueError`` (the sequence lengths go in ``lengths``).

        lengths : array-like of int, default=None
            Lengths of the sequences in X; ``None`` means one sequence.

        Returns
        -------
        states : ndarray of shape (n_samples, n_components)
            Posterior means of the states.
        """
        return self.fit(X, y, lengths=lengths).transform(X, lengths=lengths)

    # ------------------------------------------------------ state inference
    def _infer(self, X, lengths, whom, proba):
        """Gibbs sweeps over (omega, z) with the last posterior draw fixed;
        returns the averaged smoothed means and (if ``proba``) the averaged
        category probabilities, in stick order."""
        check_is_fitted(self)
        X, seq_ptr = self._validate(X, lengths, reset=False, whom=whom)
        data = self._stick_data(X, seq_ptr)
        # The sampler of the fit; the state arrays as wide as the fitted ones
        # (the kernels do not check widths). n_infer_iter is read now.
        chain = _GibbsChain(data, self._prior, self._infer_seed, self._threads(data.n_rows),
                            self._fitted_param("pg_method"), self._fitted_param("pg_terms"))
        A, Q = self.dynamics_matrix_, self.dynamics_covariance_
        C, mu = self.emission_matrix_, self.emission_offset_
        dim = self._n_states()
        chain.set_parameters(A, Q, C, mu, np.zeros((data.n_rows, dim)))
        n_average = averaged_sweeps(self.n_infer_iter, INFER_BURN_IN_DIVISOR)
        mean_sum = np.zeros((data.n_rows, dim))
        proba_sum = np.zeros((data.n_rows, self.n_features_in_)) if proba else None
        mean = np.empty((data.n_rows, dim))
        for it in range(self.n_infer_iter):
            chain.draw_omega()
            chain.potentials(C, mu)
            chain.draw_states(A, Q, mean=mean)
            if it >= self.n_infer_iter - n_average:
                mean_sum += mean
                if proba:
                    z = chain.z
                    map_ranges(lambda lo, hi: add_probabilities(C, mu, z, lo, hi, proba_sum),
                               chain.row_cuts)
        return mean_sum / n_average, (proba_sum / n_average if proba else None)

    def transform(self, X, *, lengths=None):
        """Posterior-mean states of sequences, with the parameters fixed.

        The states are in the coordinates of ``emission_matrix_`` and
        ``dynamics_matrix_`` (the last posterior draw): ``E[z_t | X]`` averaged
        over the second half of ``n_infer_iter`` Gibbs sweeps over the
        Pólya-Gamma variables and the states (each sweep contributes the exact
        smoothed mean given its Pólya-Gamma variables). Identical on repeated
        calls.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts, rows of consecutive sequences.

        lengths : array-like of int, default=None
            Lengths of the sequences in X; ``None`` means one sequence.

        Returns
        -------
        states : ndarray of shape (n_samples, n_components)
            Posterior means of the states.
        """
        return self._infer(X, lengths, f"{type(self).__name__}.transform", proba=False)[0]

    def predict_proba(self, X, *, lengths=None):
        """Smoothed category probabilities ``E[pi_SB(C z_t + mu) | X]``.

        Every row's probabilities given the whole sequence (past and future
        rows, and the row itself), with the parameters of the last posterior
        draw, averaged over the second half of ``n_infer_iter`` Gibbs sweeps.
        For predictions that do not see the row, use
        :meth:`predict_next_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts, rows of consecutive sequences.

        lengths : array-like of int, default=None
            Lengths of the sequences in X; ``None`` means one sequence.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_features)
            Rows sum to 1; columns in the order of X.
        """
        proba = self._infer(X, lengths, f"{type(self).__name__}.predict_proba", proba=True)[1]
        return self._to_columns(proba)

    # -------------------------------------------------- particle filtering
    def _particle_filter(self, X, lengths, continue_training, whom, proba, seed_offset):
        """Run a particle filter for every (kept draw, sequence) pair.

        Returns the per-row log predictive of each kept draw (n_draws,
        n_rows), when ``proba`` the per-row predictive probabilities (stick
        order) mixed over the draws, each weighed by its likelihood of the
        earlier rows of its sequence (:class:`_DrawMixture`), each draw's
        final particle cloud on the last sequence (n_draws, n_particles, L)
        and the data.
        """
        check_is_fitted(self)
        X, seq_ptr = self._validate(X, lengths, reset=False, whom=whom)
        if continue_training and seq_ptr.shape[0] != 2:
            raise ValueError(f"{whom}: with continue_training=True, X must be one sequence "
                             "(it continues the last training sequence).")
        data = self._stick_data(X, seq_ptr)
        n_draws = self._draws.n_draws
        n_seq = data.n_sequences
        states = make_streams([self._infer_seed, seed_offset], n_draws * n_seq)
        log_pred = np.zeros((n_draws, data.n_rows))
        # n_particles is read at each call; the state width is the fit's. Only
        # the last sequence's final clouds are kept (forecast continues them);
        # the other units filter in a scratch cloud of their thread (a cloud
        # per unit took 0.8 MB per sequence at the defaults: 801 MB to score
        # 1,000 one-row sequences).
        cloud_shape = (self.n_particles, self._n_states())
        last_clouds = np.zeros((n_draws,) + cloud_shape)
        # The draws' probabilities are held a chunk at a time (_draw_chunk; all
        # at once they took n_draws times the output).
        mixture = _DrawMixture(seq_ptr, data.n_rows, self.n_features_in_) if proba else None
        chunk = _draw_chunk(self._threads(n_draws)) if proba else n_draws
        S = self._draws
        chols = [np.linalg.cholesky(q) for q in S.Q]
        # Mean and Cholesky factor of a scored sequence's first state under
        # each kept draw.
        if continue_training:
            starts = [(S.A[s] @ S.z_end[s], chols[s]) for s in range(n_draws)]
        else:
            starts = [(self.initial_state_mean_,
                       np.linalg.cholesky(self.initial_state_covariance_))] * n_draws

        for first in range(0, n_draws, chunk):
            n_chunk = min(chunk, n_draws - first)
            probas = np.zeros((n_chunk, data.n_rows, self.n_features_in_)) if proba else None

            def run(lo, hi):
                scratch = np.empty(cloud_shape)
                for unit in range(first * n_seq + lo, first * n_seq + hi):
                    s, j = divmod(unit, n_seq)
                    a, b = int(seq_ptr[j]), int(seq_ptr[j + 1])
                    start_mean, start_chol = starts[s]
                    cloud = last_clouds[s] if j == n_seq - 1 else scratch
                    if proba:
                        particle_predictive_proba(
                            data.stick_ptr, data.totals, data.kappa, data.row_log_coef, a, b,
                            start_mean, start_chol, S.A[s], chols[s], S.C[s], S.mu[s],
                            states[unit], cloud, log_pred[s, a:b], probas[s - first, a:b])
                    else:
                        particle_log_predictive(
                            data.stick_ptr, data.totals, data.kappa, data.row_log_coef, a, b,
                            start_mean, start_chol, S.A[s], chols[s], S.C[s], S.mu[s],
                            states[unit], cloud, log_pred[s, a:b])

            n_units = n_chunk * n_seq
            map_ranges(run, balanced_cuts(np.arange(n_units + 1), self._threads(n_units)))
            if proba:
                for s in range(first, first + n_chunk):
                    mixture.add(log_pred[s], probas[s - first])
        return log_pred, mixture, last_clouds, data

    def score(self, X, y=None, *, lengths=None, continue_training=False):
        """Predictive log-likelihood per count of sequences.

        ``sum_t log p(x_t | x_1 .. x_{t-1}) / sum_t N_t`` over the rows of X,
        where ``p`` averages over the kept posterior draws (the chain rule of
        the log-likelihood of each sequence, estimated by a bootstrap particle
        filter with ``n_particles`` particles per draw; multinomial
        coefficients included, so for one-hot rows this is the log
        probability per token).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts, rows of consecutive sequences.

        y : Ignored
            Not used, present for API consistency: a target of one value per
            row of X (as a Pipeline passes it) is ignored; other values raise a
            ``ValueError`` (the sequence lengths go in ``lengths``).

        lengths : array-like of int, default=None
            Lengths of the sequences in X; ``None`` means one sequence.

        continue_training : bool, default=False
            If True, X is one sequence that continues the last training
            sequence (e.g. the held-out end of a text): its first row is
            predicted from the training chain's last states. Otherwise every
            sequence starts from the initial state distribution.

        Returns
        -------
        score : float
            Mean log predictive probability per count (higher is better).
        """
        whom = f"{type(self).__name__}.score"
        if y is not None:  # before the particle filters, which take a while
            _check_y_not_lengths(y, _num_samples(X), whom)
        log_pred, _, _, data = self._particle_filter(X, lengths, continue_training, whom,
                                                     proba=False, seed_offset=1)
        if data.n_counts == 0:
            return 0.0
        total = 0.0
        for j in range(data.n_sequences):
            a, b = data.seq_ptr[j], data.seq_ptr[j + 1]
            per_draw = log_pred[:, a:b].sum(axis=1)
            total += logsumexp(per_draw) - math.log(per_draw.shape[0])
        return float(total / data.n_counts)

    def predict_next_proba(self, X, *, lengths=None, continue_training=False):
        """One-step-ahead category probabilities ``p(x_t = . | x_1 .. x_{t-1})``.

        Row t of the result is the predictive distribution of row t given the
        earlier rows of its sequence (not row t itself): next-word prediction
        for text. Each kept posterior draw runs a particle filter; the draws
        are mixed with weights proportional to their likelihood of the
        earlier rows (Bayes' rule, consistent with :meth:`score`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts, rows of consecutive sequences.

        lengths : array-like of int, default=None
            Lengths of the sequences in X; ``None`` means one sequence.

        continue_training : bool, default=False
            If True, X is one sequence continuing the last training sequence.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_features)
            Rows sum to 1; columns in the order of X.
        """
        whom = f"{type(self).__name__}.predict_next_proba"
        _, mixture, _, _ = self._particle_filter(
            X, lengths, continue_training, whom, proba=True, seed_offset=2)
        return self._to_columns(mixture.mean())

    def forecast(self, n_steps, X=None, *, lengths=None, continue_training=False):
        """Category probabilities of the next ``n_steps`` rows.

        Without X: the rows that would follow the last training sequence
        (each kept posterior draw rolls its last training state forward with
        the dynamics). With X: the rows that follow the end of X's last
        sequence, after filtering through X (``continue_training`` says whether
        X continues the last training sequence or starts a new one).

        Parameters
        ----------
        n_steps : int
            Number of future rows (at least 1).

        X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
            Observed rows before the forecast.

        lengths : array-like of int, default=None
            Lengths of the sequences in X; the forecast follows the last one,
            and the kept draws are weighed by their likelihood of all of
            them (the sequences share the parameters). Only with X.

        continue_training : bool, default=False
            If True, X continues the last training sequence (without X the
            forecast always follows it).

        Returns
        -------
        proba : ndarray of shape (n_steps, n_features)
            Rows sum to 1; columns in the order of the training data.

        Raises
        ------
        ValueError
            When the states of a kept draw with unstable dynamics (spectral
            radius above 1) leave float64 range within ``n_steps``; the
            message gives the number of steps that can be forecast.
        """
        check_is_fitted(self)
        check_call_settings(self, _CALL_SETTINGS)
        if not is_integer_at_least(n_steps, 1):
            raise ValueError(f"{type(self).__name__}.forecast: n_steps must be a positive "
                             f"integer, got {n_steps!r}.")
        S = self._draws
        n_draws = S.n_draws
        whom = f"{type(self).__name__}.forecast"
        if X is None:
            if lengths is not None:
                raise ValueError(f"{whom}: lengths describe the sequences of X; without X "
                                 "the forecast follows the last training sequence.")
            clouds = np.repeat(S.z_end[:, None, :], self.n_particles, axis=1)
            weights = np.full(n_draws, 1.0 / n_draws)
        else:
            log_pred, _, clouds, data = self._particle_filter(
                X, lengths, continue_training, whom, proba=False, seed_offset=3)
            # Each draw weighed by its likelihood of all of X: the sequences
            # share the parameters, so every one of them informs the draws.
            per_draw = log_pred.sum(axis=1)
            weights = np.exp(per_draw - logsumexp(per_draw))
        clouds = np.ascontiguousarray(clouds)
        states = make_streams([self._infer_seed, 4], n_draws)
        mixed = np.zeros((n_steps, self.n_features_in_))
        finite = np.ones((n_draws, n_steps), dtype=bool)
        # The draws' forecasts held a chunk at a time, as in predict_next_proba
        # (all at once they took n_draws times the output).
        chunk = _draw_chunk(self._threads(n_draws))
        for first in range(0, n_draws, chunk):
            last = min(first + chunk, n_draws)
            out = np.zeros((last - first, n_steps, self.n_features_in_))

            def run(lo, hi):
                for s in range(first + lo, first + hi):
                    forecast_proba(clouds[s], S.A[s], np.linalg.cholesky(S.Q[s]), S.C[s],
                                   S.mu[s], states[s], out[s - first])

            map_ranges(run, balanced_cuts(np.arange(last - first + 1),
                                          self._threads(last - first)))
            finite[first:last] = np.isfinite(out).all(axis=2)
            if finite[first:last].all():
                for s in range(first, last):  # in draw order, whatever the chunk
                    mixed += weights[s] * out[s - first]
        if not finite.all():
            unstable = ~finite.all(axis=1)
            _raise_state_overflow(
                whom, int(np.argmin(finite.all(axis=0))), n_steps, "steps",
                f"the dynamics of {int(unstable.sum())} of the {n_draws} kept posterior draws "
                "are", _spectral_radius(S.A[unstable]))
        return self._to_columns(mixed)

    # ------------------------------------------------------------- sample
    def sample(self, n_samples=1, *, n_counts=1, random_state=None):
        """Draw a sequence from the model (parameters of the last posterior draw).

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows (time steps).

        n_counts : int or array-like of int, default=1
            Total count of each row (1: one-hot rows, i.e. tokens).

        random_state : int, RandomState instance or None, default=None
            Seed of the draw. None uses the estimator's ``random_state`` (as
            :meth:`sklearn.mixture.GaussianMixture.sample` does), so that a
            model with an integer ``random_state`` draws the same sequence on
            every call.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            Counts (columns in the order of the training data).

        states : ndarray of shape (n_samples, n_components)
            The latent states.

        Raises
        ------
        ValueError
            When ``dynamics_matrix_`` is unstable (spectral radius above 1)
            and the states leave float64 range within ``n_samples`` rows;
            the message gives the row at which they did.
        """
        check_is_fitted(self)
        whom = f"{type(self).__name__}.sample"
        n_samples = check_n_draws(n_samples, whom)
        n_counts = check_draw_totals(n_counts, n_samples, whom, "n_counts")
        # The class documents random_state as the "seed of every random
        # draw"; sample() with None drew from fresh entropy on every call.
        rng = check_random_state(self.random_state if random_state is None else random_state)
        dim = self._n_states()
        A, Q = self.dynamics_matrix_, self.dynamics_covariance_
        z = np.empty((n_samples, dim))
        z[0] = rng.multivariate_normal(self.initial_state_mean_, self.initial_state_covariance_)
        noise = rng.multivariate_normal(np.zeros(dim), Q, size=n_samples)
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            for t in range(1, n_samples):
                z[t] = A @ z[t - 1] + noise[t]
            psi = z @ self.emission_matrix_.T + self.emission_offset_
        pi = np.empty((n_samples, self.n_features_in_))
        stick_breaking(np.ascontiguousarray(psi), pi)
        finite = np.isfinite(pi).all(axis=1) & np.isfinite(z).all(axis=1)
        if not finite.all():
            _raise_state_overflow(whom, int(np.argmin(finite)), n_samples, "rows",
                                  "dynamics_matrix_ is", _spectral_radius(A[None]))
        X_sticks = np.vstack([rng.multinomial(n, p / p.sum()) for n, p in zip(n_counts, pi)])
        return self._to_columns(X_sticks), z

    @property
    def _n_features_out(self):
        return self._n_states()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags
