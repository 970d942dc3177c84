"""Stick-breaking multinomial Gaussian process (Linderman, Johnson & Adams 2015).

Count vectors ``y_m`` observed at inputs ``u_m``; the K - 1 stick-breaking
logits of every input are ``psi_mk = mu_k + f_k(u_m)`` with independent
Gaussian processes ``f_k ~ GP(0, kernel)`` sharing one kernel. Pólya-Gamma
augmentation makes every ``f_k`` conditionally Gaussian, so the Gibbs
sampler alternates exact draws of the PG variables and of whole latent
functions. Equations: user guide page ``doc/gp.rst``.
"""

import functools
import math
import operator
from numbers import Real

import numpy as np
from scipy.linalg.lapack import dpstrf
from scipy.special import expit, log_expit, ndtr
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import (
    ConstantKernel,
    Hyperparameter,
    Kernel,
    Matern,
    WhiteKernel,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from ._base import (
    N_JOBS_CONSTRAINT,
    PG_TERMS_CONSTRAINT,
    FittedParamsMixin,
    IntegerInterval,
    check_call_settings,
    check_draw_totals,
    check_n_draws,
    check_row_totals,
    keep_state_on_failure,
    resolve_burn_in,
    warn_if_fractional,
)
from ._progress import ProgressReporter
from ._kernels._gp import (
    draw_latent,
    expected_sigmoids,
    latent_predictive,
    latent_predictive_covariance,
    log_marginal,
)
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import make_streams, seed_from
from ._kernels._stick_breaking import (
    draw_stick_augmentation,
    inverse_stick_breaking,
    stick_counts,
)
from ._parallel import (
    balanced_cuts,
    effective_n_jobs,
    ignoring_warnings,
    map_ranges,
    one_blas_thread,
)

__all__ = ["ColumnKernel", "MultinomialGaussianProcess"]

# Trapezoid rule on [-9, 9] sd for E[sigmoid(psi)], psi Gaussian, with a
# step of min(0.1, 1 / sd) sd. For an integrand analytic in a strip its error
# falls like exp(-2 pi d / h), d = pi / sd the distance of sigmoid's poles:
# with h = 1 / sd that is exp(-2 pi^2), and the relative error stays below
# 1e-8 (measured against adaptive quadrature: step 0.1 alone held it to sd =
# 10, then gave 5e-4 at sd = 30 and 1.4e-2 at sd = 100, the variances a
# prediction far from the data reaches; Gauss-Hermite with 48 nodes is off by
# up to 3% at sd = 10, the poles slow it down).
_QUAD_HALF_WIDTH = 9.0
_QUAD_STEP = 0.1
# Above this sd the rule would need more than 1,801 nodes (1.8e16 at sd =
# 1e15, a user's jitter of 1e30); there E[sigmoid(psi)] is Phi(m / sd) plus
# the first two terms of its expansion in 1 / sd^2 (_wide_sigmoid), whose
# next term is below 1e-11 at sd = 100.
_QUAD_MAX_SD = 100.0
# Initial random-walk step (log-hyperparameters) of the Metropolis update,
# adapted during burn-in towards this acceptance rate (Roberts, Gelman &
# Gilks 1997: ~0.44 in one dimension, ~0.23 in many).
_MH_INITIAL_STEP = 0.1
_MH_TARGET_ACCEPT = 0.3
# Relative size of a negative eigenvalue of a kernel matrix that is not
# rounding: valid kernels reach -2.5e-12 of the largest eigenvalue (rational
# quadratic with alpha = 1e5, the top of its default bounds, 15-300 inputs),
# PairwiseKernel(metric="sigmoid") -6e-3 and "additive_chi2" -1.
_PSD_TOLERANCE = 1e-6


def _column_indices(columns, n_columns):
    """The ``columns`` of a :class:`ColumnKernel` as a list of indices into
    inputs with ``n_columns`` columns, or a ValueError naming the problem."""
    try:
        items = list(columns)
        # A bool passes operator.index as 0 or 1: a mask [True, False] would
        # select columns 1 and 0 instead of column 0.
        if any(isinstance(c, (bool, np.bool_)) for c in items):
            raise ValueError(f"ColumnKernel: columns must be integer column indices, not a "
                             f"boolean mask (use np.flatnonzero(mask)); got {columns!r}.")
        indices = [operator.index(c) for c in items]
    except TypeError:
        raise ValueError(f"ColumnKernel: columns must be a sequence of integer column "
                         f"indices, got {columns!r}.") from None
    if not indices:
        raise ValueError("ColumnKernel: columns is empty; give the indices of the input "
                         "columns the kernel sees.")
    outside = [c for c in indices if not -n_columns <= c < n_columns]
    if outside:
        raise ValueError(f"ColumnKernel: columns {outside} are out of range for inputs with "
                         f"{n_columns} column(s).")
    return indices


def _shown_columns(columns):
    """``columns`` as a list for display and comparison; as given when it is
    not a sequence (e.g. an int), which the kernel's calls refuse with a
    ValueError, so that printing or comparing the kernel does not fail."""
    if isinstance(columns, str) or not np.iterable(columns):
        return columns
    return columns.tolist() if isinstance(columns, np.ndarray) else list(columns)


class ColumnKernel(Kernel):
    """A kernel applied to chosen columns of the inputs.

    scikit-learn's kernels act on every input column. ``ColumnKernel(kernel,
    columns)`` evaluates ``kernel`` on ``X[:, columns]`` only, so that kernels
    on different columns can be combined, e.g. a smooth kernel over the year
    times a kernel over the location::

        ColumnKernel(Matern(10.0, nu=2.5), [0]) * ColumnKernel(RBF(5.0), [1, 2])

    Its hyperparameters are those of ``kernel``, prefixed ``kernel__``.

    Read more in the :ref:`User Guide <gp>`.

    Parameters
    ----------
    kernel : Kernel
        The kernel to apply.

    columns : sequence of int
        Indices of the input columns it sees (not a boolean mask: pass
        ``np.flatnonzero(mask)``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> from sklearn_pgtm import ColumnKernel
    >>> X = np.array([[0.0, 5.0], [1.0, -3.0]])
    >>> k = ColumnKernel(RBF(1.0), [0])
    >>> np.allclose(k(X), RBF(1.0)(X[:, [0]]))
    True
    """

    def __init__(self, kernel, columns):
        self.kernel = kernel
        self.columns = columns

    def _select(self, X):
        if X is None:
            return None
        # A 1-d array is one input, as for scikit-learn's kernels (atleast_2d).
        X = np.atleast_2d(np.asarray(X))
        if X.ndim != 2:
            raise ValueError(f"ColumnKernel: X must be a 2-d array of shape (n_samples, "
                             f"n_features), got shape {X.shape}.")
        return X[:, _column_indices(self.columns, X.shape[1])]

    def get_params(self, deep=True):
        """Get the parameters of this kernel.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of the wrapped kernel (``kernel__*``).

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        params = {"kernel": self.kernel, "columns": self.columns}
        if deep:
            params.update(("kernel__" + k, v) for k, v in self.kernel.get_params().items())
        return params

    def set_params(self, **params):
        """Set the parameters of this kernel (``kernel__*`` for the wrapped one).

        Parameters
        ----------
        **params : dict
            Parameter names mapped to their new values.

        Returns
        -------
        self : ColumnKernel
            This kernel.
        """
        return super().set_params(**params)

    def clone_with_theta(self, theta):
        """A copy of this kernel with the log-hyperparameters ``theta``.

        Parameters
        ----------
        theta : ndarray of shape (n_dims,)
            Log-transformed free hyperparameters.

        Returns
        -------
        kernel : ColumnKernel
            The copy.
        """
        return super().clone_with_theta(theta)

    @property
    def hyperparameters(self):
        """The wrapped kernel's hyperparameters, prefixed ``kernel__``."""
        return [
            Hyperparameter("kernel__" + h.name, h.value_type, h.bounds, h.n_elements, h.fixed)
            for h in self.kernel.hyperparameters
        ]

    @property
    def theta(self):
        """Log-transformed free hyperparameters of the wrapped kernel."""
        return self.kernel.theta

    @theta.setter
    def theta(self, theta):
        self.kernel.theta = theta

    @property
    def bounds(self):
        """Log-transformed bounds of :attr:`theta`."""
        return self.kernel.bounds

    def __eq__(self, other):
        return (type(self) is type(other) and self.kernel == other.kernel
                and _shown_columns(self.columns) == _shown_columns(other.columns))

    def __call__(self, X, Y=None, eval_gradient=False):
        """Kernel ``k(X[:, columns], Y[:, columns])`` and optionally its gradient.

        Parameters
        ----------
        X : ndarray of shape (n_samples_X, n_features)
            Left argument (a 1-d array is one input, as for scikit-learn's
            kernels).

        Y : ndarray of shape (n_samples_Y, n_features), default=None
            Right argument; ``None`` evaluates ``k(X, X)``.

        eval_gradient : bool, default=False
            Also return the gradient with respect to :attr:`theta` (only
            when ``Y`` is None).

        Returns
        -------
        K : ndarray of shape (n_samples_X, n_samples_Y)
            Kernel matrix.

        K_gradient : ndarray of shape (n_samples_X, n_samples_X, n_dims)
            Its gradient, when ``eval_gradient`` is True.
        """
        return self.kernel(self._select(X), self._select(Y), eval_gradient=eval_gradient)

    def diag(self, X):
        """Diagonal of ``k(X, X)``.

        Parameters
        ----------
        X : ndarray of shape (n_samples_X, n_features)
            Argument of the kernel (a 1-d array is one input).

        Returns
        -------
        K_diag : ndarray of shape (n_samples_X,)
            Diagonal of the kernel matrix.
        """
        return self.kernel.diag(self._select(X))

    def is_stationary(self):
        """Whether the wrapped kernel is stationary.

        Returns
        -------
        stationary : bool
            That of the wrapped kernel.
        """
        return self.kernel.is_stationary()

    @property
    def requires_vector_input(self):
        """Column selection needs array inputs."""
        return True

    def __repr__(self):
        return f"ColumnKernel({self.kernel!r}, columns={_shown_columns(self.columns)!r})"


def _default_kernel(X):
    """Signal variance times a Matern 5/2 kernel whose length scales start at
    the spread of each input column (then fitted; see the class docstring)."""
    spread = np.ptp(X, axis=0) if X.shape[0] > 1 else np.ones(X.shape[1])
    spread = np.where(spread > 0, spread, 1.0)
    length_scale = spread if X.shape[1] > 1 else float(spread[0])
    return ConstantKernel(1.0, (1e-3, 1e3)) * Matern(
        length_scale=length_scale, length_scale_bounds=(1e-3 * spread.min(), 1e3 * spread.max()),
        nu=2.5)


@functools.lru_cache(maxsize=8)
def _quadrature(n_nodes):
    """Nodes (in standard deviations) and normalized weights of the
    trapezoid rule for a standard normal on ``n_nodes`` points of [-9, 9]."""
    nodes = np.linspace(-_QUAD_HALF_WIDTH, _QUAD_HALF_WIDTH, n_nodes)
    weights = np.exp(-0.5 * nodes ** 2)
    return nodes, weights / weights.sum()


def _expected_sigmoid(mean, var):
    """``E[sigmoid(psi)]`` for ``psi ~ N(mean, var)`` (elementwise), and
    ``E[sigmoid(-psi)]``: by the trapezoid rule (step ``min(0.1, 1 / sd)``
    standard deviations for the largest sd up to 100), by
    :func:`_wide_sigmoid` where the sd is larger."""
    mean, sd = np.broadcast_arrays(mean, np.sqrt(var))
    shape = mean.shape
    mean = np.ascontiguousarray(mean, dtype=np.float64).ravel()
    sd = np.ascontiguousarray(sd, dtype=np.float64).ravel()
    p_stick, p_rest = np.empty(mean.shape), np.empty(mean.shape)
    wide = sd > _QUAD_MAX_SD
    if wide.any():
        p_stick[wide], p_rest[wide] = _wide_sigmoid(mean[wide], sd[wide])
        mean, sd = mean[~wide], sd[~wide]
    step = min(_QUAD_STEP, 1.0 / max(float(sd.max(initial=0.0)), 1e-300))
    nodes, weights = _quadrature(int(np.ceil(2 * _QUAD_HALF_WIDTH / step - 1e-9)) + 1)
    narrow = (np.empty(mean.shape), np.empty(mean.shape))
    expected_sigmoids(mean, sd, nodes, weights, *narrow)
    p_stick[~wide], p_rest[~wide] = narrow
    return p_stick.reshape(shape), p_rest.reshape(shape)


def _wide_sigmoid(mean, sd):
    """``E[sigmoid(psi)]`` and ``E[sigmoid(-psi)]`` for ``psi ~ N(mean, sd^2)``
    with a large ``sd``: with ``z = mean / sd``,
    ``Phi(z) - pi^2 / 6 z phi(z) / sd^2 - 7 pi^4 / 360 (z^3 - 3 z) phi(z) / sd^4``.

    ``sigmoid - step`` is odd, so only the odd derivatives of the density at 0
    enter, times its moments ``-pi^2 / 6`` and ``-7 pi^4 / 60``; the next term
    is of order ``sd^-6``.
    """
    z = mean / sd
    near = np.clip(z, -40.0, 40.0)  # the density is 0 beyond; z^3 may overflow
    density = np.exp(-0.5 * near * near) / math.sqrt(2.0 * math.pi)
    inverse_var = 1.0 / (sd * sd)  # sd^4 would overflow near the largest floats
    correction = density * inverse_var * (
        math.pi ** 2 / 6.0 * near
        + 7.0 * math.pi ** 4 / 360.0 * (near ** 3 - 3.0 * near) * inverse_var)
    return ndtr(z) - correction, ndtr(-z) + correction


def _stick_probabilities(p_stick, p_rest):
    """Category probabilities from per-stick ``P(stop)`` and ``P(go on)``:
    ``pi_k = p_k prod_{j<k} q_j``, ``pi_K = prod_j q_j``."""
    n, n_sticks = p_stick.shape
    out = np.empty((n, n_sticks + 1))
    rest = np.ones(n)
    for k in range(n_sticks):
        out[:, k] = p_stick[:, k] * rest
        rest = rest * p_rest[:, k]
    out[:, n_sticks] = rest
    return out


def _over_units(kernel, n_units, n_threads, weights=None):
    """Run ``kernel(lo, hi)`` over ``n_units`` units cut into ``n_threads``
    blocks of about equal weight; returns the blocks' results."""
    if n_threads == 1:
        return [kernel(0, n_units)]
    if weights is None:
        cumulative = np.arange(n_units + 1)
    else:
        cumulative = np.concatenate(([0.0], np.cumsum(weights)))
    return map_ranges(kernel, balanced_cuts(cumulative, n_threads))


class _StickGP:
    """The sampler's state and its steps, shared by ``fit`` and the tests.

    ``counts`` (M, K) at inputs ``inputs``; ``kmat`` the kernel matrix with
    jitter; ``latent`` (M, K - 1) the current ``f``; ``omega`` and
    ``information`` (``kappa - omega mu``) the current potentials.
    """

    def __init__(self, inputs, counts, mean, kernel, jitter, pg_method, pg_terms, seed,
                 n_threads):
        self.inputs = inputs
        self.counts = counts
        self.mean = mean
        self.jitter = float(jitter)
        self.method = PG_METHODS[pg_method]
        self.pg_terms = int(pg_terms)
        self.n_threads = n_threads
        n_inputs, n_sticks = counts.shape[0], counts.shape[1] - 1
        self.n_sticks = n_sticks
        row_seed, stick_seed = np.random.SeedSequence(seed).spawn(2)
        self.row_states = make_streams(row_seed, n_inputs)
        self.stick_states = make_streams(stick_seed, n_sticks)
        self.latent = np.zeros((n_inputs, n_sticks))
        self.omega = np.zeros((n_inputs, n_sticks))
        self.kappa = np.zeros((n_inputs, n_sticks))
        self.information = np.zeros((n_inputs, n_sticks))
        # Exact PG draws cost O(stick count): balance the rows by their totals.
        self.row_weights = 1.0 + np.minimum(counts.sum(axis=1), 64.0)
        self.set_kernel(kernel)

    def set_kernel(self, kernel):
        self.kernel = kernel
        self.theta = kernel.theta
        self.bounds = kernel.bounds
        # Proposals are evaluated on a copy (setting theta is far cheaper than
        # cloning a kernel); an accepted proposal swaps the two.
        self._proposal_kernel = clone(kernel)
        self.kmat = kernel_matrix(kernel, self.inputs, self.jitter)
        self.prior_factor = prior_factor(self.kmat)

    def draw_omega(self):
        psi = np.ascontiguousarray(self.latent + self.mean)

        def block(lo, hi):
            draw_stick_augmentation(self.counts, psi, self.method, self.pg_terms,
                                    self.row_states, lo, hi, self.omega, self.kappa)

        _over_units(block, self.counts.shape[0], self.n_threads, self.row_weights)
        self.information = self.kappa - self.omega * self.mean

    def draw_latent(self):
        def block(lo, hi):
            draw_latent(self.kmat, self.prior_factor, self.omega, self.information,
                        self.stick_states, lo, hi, self.latent)

        _over_units(block, self.n_sticks, self.n_threads)

    def log_marginal(self, kmat):
        return sum_log_marginal(kmat, self.omega, self.information, self.n_threads)

    def metropolis(self, log_step, gen):
        """One random-walk Metropolis update of the log-hyperparameters given
        omega (f integrated out); uniform prior within the kernel's bounds.
        Returns whether the proposal was accepted."""
        bounds = self.bounds
        proposal = self.theta + math.exp(log_step) * gen.standard_normal(self.theta.shape[0])
        log_u = math.log(gen.uniform())
        if np.any(proposal < bounds[:, 0]) or np.any(proposal > bounds[:, 1]):
            return False
        candidate = self._proposal_kernel
        candidate.theta = proposal
        kmat = kernel_matrix(candidate, self.inputs, self.jitter)
        if log_u < self.log_marginal(kmat) - self.log_marginal(self.kmat):
            self._proposal_kernel, self.kernel = self.kernel, candidate
            self.theta = proposal
            self.kmat = kmat
            self.prior_factor = prior_factor(kmat)
            return True
        return False

    def log_likelihood(self):
        """Multinomial log-likelihood of the counts at the current logits
        (stick-breaking binomial form, without the multinomial coefficient)."""
        psi = self.latent + self.mean
        rest = np.empty_like(psi)
        stick_counts(self.counts, rest)
        x = self.counts[:, :-1]
        return float(np.sum(x * log_expit(psi) + (rest - x) * log_expit(-psi)))


def kernel_matrix(kernel, inputs, jitter):
    """``k(U, U) + jitter I``."""
    kmat = np.array(kernel(inputs), dtype=np.float64, order="C")
    kmat[np.diag_indices_from(kmat)] += jitter
    return kmat


def check_positive_semidefinite(kmat, kernel, whom):
    """A ValueError when the kernel matrix ``kmat`` of ``kernel`` has an
    eigenvalue below ``-_PSD_TOLERANCE`` times its largest in absolute value:
    the kernel is no covariance function. Such kernels (scikit-learn's
    ``PairwiseKernel`` with metric "sigmoid" or "additive_chi2", a negative
    ``ConstantKernel``) made the sampler's Cholesky factor fail with a
    message blaming the counts, or, when it did not fail, gave latent draws
    whose covariance was not the kernel matrix (the pivoted Cholesky factor
    drops the negative part)."""
    if not np.all(np.isfinite(kmat)):
        return
    eigenvalues = np.linalg.eigvalsh(kmat)
    scale = np.abs(eigenvalues).max(initial=0.0)
    if eigenvalues.min(initial=0.0) < -_PSD_TOLERANCE * scale:
        raise ValueError(
            f"{whom}: the kernel {kernel} is not positive semi-definite at the inputs X "
            f"(eigenvalues of its matrix from {eigenvalues.min():.3g} to "
            f"{eigenvalues.max():.3g}), so it is not the covariance of a Gaussian process. "
            "Use a positive semi-definite kernel (e.g. not PairwiseKernel with metric "
            "'sigmoid' or 'additive_chi2', nor a negative ConstantKernel).")


def prior_factor(kmat):
    """Square ``F`` with ``F F^T = kmat`` by pivoted Cholesky (LAPACK
    ``dpstrf``; columns beyond the numerical rank are zero).

    Exists for every positive semi-definite kernel matrix, however
    ill-conditioned or singular (repeated inputs, long length scales), so no
    jitter is needed for the prior draws; 10-40x faster than an
    eigendecomposition at M = 50-300.
    """
    factor, pivots, rank, info = dpstrf(kmat, lower=1)
    if info < 0:  # pragma: no cover - argument error, not a property of the data
        raise ValueError(f"dpstrf failed (info={info}).")
    lower = np.tril(factor)
    lower[:, rank:] = 0.0
    out = np.empty_like(lower)
    out[pivots - 1] = lower  # P^T K P = L L^T, so K = (P L)(P L)^T
    return np.ascontiguousarray(out)


def sum_log_marginal(kmat, precision, information, n_threads):
    """``sum_k log N(y~_k | 0, kmat + W_k^-1)`` over the sticks."""
    out = np.zeros(precision.shape[1])

    def block(lo, hi):
        log_marginal(kmat, precision, information, lo, hi, out)

    _over_units(block, precision.shape[1], n_threads)
    return float(out.sum())


def empirical_potentials(counts, mean, pseudo_count):
    """Gaussian potentials of the empirical logits.

    ``psi^ = pi_SB^-1((y + a) / N)``; each is treated as a noisy observation of
    ``mu_k + f_k`` with the binomial (delta-method) precision ``w = N_k p (1 -
    p)``, ``p = sigmoid(psi^)``, ``N_k`` the stick count (``w = 0``, no
    information, where ``N_k = 0``). Returns ``(w, h = w (psi^ - mu))``.
    """
    n_inputs, n_categories = counts.shape
    psi_hat = np.empty((n_inputs, n_categories - 1))
    inverse_stick_breaking(counts + pseudo_count, psi_hat)
    rest = np.empty_like(psi_hat)
    stick_counts(counts, rest)
    p = expit(psi_hat)
    precision = rest * p * (1.0 - p)
    return precision, precision * (psi_hat - mean)


class MultinomialGaussianProcess(FittedParamsMixin, BaseEstimator):
    """Multinomial observations with Gaussian-process logits (stick-breaking GP).

    Count vectors ``y[m]`` over K categories are observed at inputs
    ``X[m]`` (years, locations, ...). Their category probabilities vary
    smoothly with the input: ``pi(x) = pi_SB(mu + f(x))``, where ``pi_SB`` is
    the logistic stick-breaking map and each of the K - 1 logits is a
    Gaussian process ``f_k ~ GP(0, kernel)`` (one kernel shared by all). With
    Pólya-Gamma variables ``omega_mk ~ PG(N_mk, psi_mk)`` the latent
    functions are Gaussian given omega and are drawn whole, exactly, without
    inverting the kernel matrix; predictions at new inputs integrate the
    latent functions out given omega (Linderman et al. [1]_).

    Read more in the :ref:`User Guide <gp>`.

    Parameters
    ----------
    kernel : kernel instance, default=None
        Any :mod:`sklearn.gaussian_process.kernels` kernel, e.g. products of
        kernels on chosen input columns (:class:`ColumnKernel`). ``None``:
        ``ConstantKernel(1.0) * Matern(nu=2.5)`` with its length scale (one
        per input column) starting at each column's range, then fitted.
        Measured on the baby-names benchmark (``benchmarks/RESULTS.md``,
        gp_defaults, 6 subsamples): Matern 3/2, RBF, or an added
        ``WhiteKernel`` change the predictive log-likelihood by -0.003 to
        +0.003 nats per name, a tenth of its spread over subsamples (0.03);
        Matern 5/2 is also the paper's choice.

    hyperparameters : {"empirical", "sample", "fixed"}, default="empirical"
        How the kernel's hyperparameters are set.

        - ``"empirical"``: type-II maximum likelihood of a GP regression on
          the empirical logits ``pi_SB^-1((y + pseudo_count) / N) - mu`` (the
          K - 1 sticks are outputs sharing the kernel, with a white-noise term
          fitted alongside and then dropped; inputs without counts have no
          empirical logits and are left out), then held fixed: the paper's
          method, run by scikit-learn's
          :class:`~sklearn.gaussian_process.GaussianProcessRegressor`;
        - ``"sample"``: start there, then one random-walk Metropolis update
          of the log-hyperparameters per sweep, with the latent functions
          integrated out given omega (uniform prior on the log scale within
          the kernel's bounds; step size adapted during burn-in);
        - ``"fixed"``: use ``kernel`` as given.

        Measured (``benchmarks/RESULTS.md``): on data drawn from the model
        both ``"empirical"`` and ``"sample"`` give 90% bands that hold the
        true curves 88-90% of the time at inputs within the training range
        (gp_recovery), but 76-77% at inputs 0.5-1.5 length scales beyond it
        (87% with the true kernel; gp_extrapolation); on the baby names
        ``"empirical"`` predicts 2012-2013 better (0.580 vs 0.532 nats per
        name for boys, 0.420 vs 0.399 for girls, and more top/bottom-10
        names; gp_names) at two thirds of the time: the sampled kernels have
        shorter length scales, which forecast worse.

    n_restarts_optimizer : int, default=0
        Extra runs of the regression's optimizer from random starting points
        (``"empirical"`` and ``"sample"``); the best is kept. Measured
        (``benchmarks/RESULTS.md``, gp_restarts, ``python benchmarks/gp.py
        --part restarts``): on the baby names (boys, 6 subsamples) 2 or 5
        restarts found no better optimum (log-hyperparameters within 7e-6 of
        the default's) and took 2.7 / 3.3 s against 2.2 s for fit and
        prediction. On the 20 data sets drawn from the model (gp_recovery)
        they found a higher one on one set (log marginal likelihood -229.8
        -> -227.5) with a length scale of 0.41 for a true 2, which doubled
        that set's error on the held-out probabilities (0.0166 -> 0.0329).

    pseudo_count : float, default=0.1
        Added to every count for the empirical logits and for the mean
        ``mu = pi_SB^-1(sum_m y[m] + pseudo_count)`` (the paper's 0.1).
        Measured (``benchmarks/gp.py --part defaults``, section gp_defaults
        of ``benchmarks/RESULTS.md``): on the baby names (six subsamples per
        sex) 0.01 / 0.03 / 0.3 / 1 changed the predictive log-likelihood by
        +0.010 / +0.011 / -0.025 / -0.072 nats per name for boys and -0.012 /
        -0.001 / -0.034 / -0.110 for girls against 0.1; on data drawn from
        the model 0.1 predicted the held-out probabilities best (mean
        absolute error 0.0158) and every value from 0.01 to 0.3 kept the
        90 % bands' coverage within 85-95 %.

    jitter : float, default=0.0
        Added to the diagonal of the kernel matrix (a nugget: independent
        variance of each input's latent values). The sampler needs none: the
        prior factor is a pivoted Cholesky factor, which exists for singular
        kernel matrices, and ``B = I + W^1/2 K W^1/2`` has eigenvalues >= 1.
        Measured on the baby names (gp_defaults): 1e-6 and 1e-3 change the
        predictive log-likelihood by at most 0.001 nats per name.

    max_iter : int, default=200
        Gibbs sweeps in total (burn-in included). Measured on the baby names
        (gp_defaults): predictions averaged over sweeps 50-200 are within
        0.0063 nats per name of those over sweeps 200-1000 of the same
        chain, a fifth of the spread over subsamples.

    burn_in : int or "auto", default="auto"
        Sweeps discarded before predictions are averaged; must be below
        ``max_iter``. Every later sweep is kept. ``"auto"``: a quarter of
        ``max_iter`` (50 at the default 200; a shorter chain keeps the
        proportion). The chain starts at the posterior mean given the
        empirical logits, so a short burn-in suffices (gp_defaults: 10
        sweeps already within 0.008 nats).

    pg_method : {"auto", "exact", "truncated", "pg1", "gaussian"}, default="auto"
        Pólya-Gamma sampler (:mod:`sklearn_pgtm.polyagamma`); ``"auto"`` is
        the exact sampler for stick counts (the counts of a category and of
        those after it) below 5 and a shifted gamma with the first three
        cumulants of PG(b, c) from 5 on, the switch point measured by
        ``python benchmarks/pg_samplers.py`` (:ref:`User Guide
        <polyagamma>`, "The auto rule and its measurement": from b = 5 on
        its Kolmogorov distance to PG(b, c) is at most 0.0105 / b, and
        two-sample tests at 10^4 draws per cell do not see it).
        Measured in gp_restarts with the switch at 14 (until 2026-11-29):
        with 50 counts per input 45.6% of the draws on the baby names and
        52.5% on the data drawn from the model had b >= 14; ``"exact"`` changes
        the predictive log-likelihood on the names by +0.0015 (standard
        error 0.0019) nats per name at 3.4 against 2.2 s, and leaves the
        held-out error on the model's data unchanged (-0.00000, standard
        error 0.00005).

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers (no default
        ``pg_method`` uses them), at most 100,000 (the bound of
        :func:`sklearn_pgtm.polyagamma.random_polyagamma`). Set before it was
        measured: at 8 terms both are coarser and slower than the default's
        approximations (Kolmogorov-Smirnov distance to exact draws 0.0095-0.036
        and 0.029-0.042 at b = 100 and 1,000, against at most 0.015; user guide
        :ref:`pg_terms`).

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw; predictions are deterministic given the fit.

    n_jobs : int, default=None
        Threads for the Pólya-Gamma draws (over inputs) and the latent-function
        draws (over sticks); every input and every stick has its own random
        stream, so results do not depend on ``n_jobs``. ``-1`` uses all cores.
        Also the threads of the predictions, read at each call.

    verbose : int, default=0
        Print the log-likelihood per count and the elapsed time during the
        sweeps, and a summary at the end.

    Attributes
    ----------
    kernel_ : kernel instance
        The kernel with the hyperparameters used: the optimum for
        ``"empirical"``, the posterior mean of the log-hyperparameters for
        ``"sample"``, ``kernel`` for ``"fixed"``. When y has one column or
        the kernel has no free hyperparameters, nothing is fitted or sampled
        and ``kernel_`` is ``kernel`` as given (for ``kernel=None`` the
        default kernel at its starting hyperparameters) for every setting.

    log_marginal_likelihood_value_ : float or None
        Log marginal likelihood of the GP regression on the empirical logits
        at its optimum; None for ``"fixed"``, and for every setting when y has
        one column or the kernel has no free hyperparameters (no regression
        is fitted).

    mean_ : ndarray of shape (n_categories - 1,)
        The fixed mean ``mu`` of the logits.

    X_train_ : ndarray of shape (n_samples, n_features)
        Training inputs (predictions need them).

    hyperparameter_samples_ : ndarray of shape (max_iter - burn_in, n_dims)
        Kept draws of ``kernel_.theta`` (``"sample"`` only, when y has at
        least two columns and the kernel free hyperparameters).

    acceptance_rate_ : float
        Metropolis acceptance rate after burn-in (set when
        ``hyperparameter_samples_`` is).

    n_categories_ : int
        Number of categories K (columns of ``y``).

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        Multinomial log-likelihood of the training counts at each sweep's
        latent values (without the multinomial coefficient).

    n_iter_ : int
        Number of sweeps run.

    n_features_in_ : int
        Number of input columns seen in :meth:`fit`.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the input columns seen in :meth:`fit`, when ``X`` has string
        column names.

    See Also
    --------
    sklearn.gaussian_process.GaussianProcessRegressor : GP regression with
        Gaussian noise (on empirical logits, the paper's "raw GP").
    CorrelatedTopicModel : Uses the same stick-breaking augmentation for
        topic proportions.

    Notes
    -----
    One sweep costs K - 1 Cholesky factorizations of M x M matrices (M
    training inputs) and one PG draw per (input, stick); prediction costs as
    much per kept sweep. Categories are ordered: the first ones have the
    best-determined sticks, so put frequent categories first.

    The predictions average over the kept sweeps, so the fitted estimator
    keeps the Pólya-Gamma draws of each: ``max_iter`` minus the burn-in
    float64 arrays of shape (n_samples, n_categories - 1), with the training
    inputs. Its memory and pickle grow with ``max_iter x n_samples x
    n_categories``: 17 MiB at the defaults (150 kept sweeps) for 800 inputs
    and 20 categories.

    A fitted estimator behaves as fitted until it is fitted again, as in
    scikit-learn: the prediction methods use the fitted kernel (``kernel_``
    and the kept hyperparameter draws; :meth:`fit` works on a copy of
    ``kernel``) and ``jitter`` as it was at :meth:`fit`, whatever
    ``set_params`` changed since, the kernel's nested parameters included;
    only ``n_jobs`` is read at each call.

    References
    ----------
    .. [1] S. Linderman, M. Johnson, R. Adams, "Dependent multinomial models
       made easy: stick-breaking with the Pólya-gamma augmentation",
       NIPS 2015.
    .. [2] C. E. Rasmussen, C. K. I. Williams, "Gaussian Processes for
       Machine Learning", MIT Press 2006, section 3.4.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import MultinomialGaussianProcess
    >>> rng = np.random.RandomState(0)
    >>> X = np.linspace(0, 10, 25)[:, None]
    >>> p = np.c_[np.sin(X[:, 0] / 3) ** 2, np.ones(25), np.full(25, 0.5)]
    >>> Y = np.array([rng.multinomial(40, q / q.sum()) for q in p])
    >>> gp = MultinomialGaussianProcess(max_iter=60, burn_in=20, random_state=0).fit(X, Y)
    >>> gp.predict([[2.5], [7.5]]).shape
    (2, 3)
    """

    _parameter_constraints: dict = {
        "kernel": [None, HasMethods(["__call__", "diag", "clone_with_theta"])],
        "hyperparameters": [StrOptions({"empirical", "sample", "fixed"})],
        "n_restarts_optimizer": [IntegerInterval(0, None, closed="left")],
        "pseudo_count": [Interval(Real, 0, None, closed="neither")],
        "jitter": [Interval(Real, 0, None, closed="left")],
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left"), StrOptions({"auto"})],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": PG_TERMS_CONSTRAINT,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        hyperparameters="empirical",
        n_restarts_optimizer=0,
        pseudo_count=0.1,
        jitter=0.0,
        max_iter=200,
        burn_in="auto",
        pg_method="auto",
        pg_terms=8,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.hyperparameters = hyperparameters
        self.n_restarts_optimizer = n_restarts_optimizer
        self.pseudo_count = pseudo_count
        self.jitter = jitter
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _check_counts(self, X, Y, reset):
        whom = f"{type(self).__name__}.{'fit' if reset else 'score'}"
        if Y is None:
            raise ValueError(f"{whom} requires y to be passed, but the target y is None "
                             "(y holds the count vectors, shape (n_samples, n_categories)).")
        X, Y = validate_data(self, X, Y, reset=reset, multi_output=True, y_numeric=True,
                             dtype=np.float64)
        Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y, dtype=np.float64)
        if Y.ndim != 2:
            raise ValueError(
                f"{whom}: y must be a 2-D array of counts of shape (n_samples, "
                f"n_categories); got shape {Y.shape}. For one category label per "
                "input, one-hot encode the labels first."
            )
        check_non_negative(Y, whom)
        with np.errstate(over="ignore"):  # an overflowing total is inf, refused
            check_row_totals(Y.sum(axis=1), whom)
        warn_if_fractional(Y.ravel(), whom, name="y")
        return X, np.rint(Y)

    def _burn_in(self):
        """``burn_in``, or for "auto" a quarter of ``max_iter``."""
        return resolve_burn_in(self.burn_in, self.max_iter, (1, 4))

    # ------------------------------------------------------------------- fit
    @keep_state_on_failure
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model by Gibbs sampling.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs (e.g. year, latitude, longitude).

        y : array-like of shape (n_samples, n_categories)
            Count vectors (non-negative; rounded to integers, with a
            ``UserWarning`` when most nonzero entries are fractional). Rows may
            be all zero (inputs without observations).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        self._record_fit_params()
        X, Y = self._check_counts(X, y, reset=True)
        whom = f"{type(self).__name__}.fit"
        if self._burn_in() >= self.max_iter:
            raise ValueError(f"{whom}: burn_in={self.burn_in} must be smaller than "
                             f"max_iter={self.max_iter}: no sweep would be kept.")
        if not np.any(Y > 0):
            raise ValueError(f"{whom}: y has no positive count; nothing to fit.")
        n_threads = effective_n_jobs(self.n_jobs)
        rng = check_random_state(self.random_state)
        with one_blas_thread():
            try:
                self._run_sampler(X, Y, rng, n_threads)
            except np.linalg.LinAlgError as exc:
                # The Cholesky factor of I + W^1/2 K W^1/2 (W the Polya-Gamma
                # precisions, about the counts / 4) loses its identity term
                # to rounding once counts times the kernel's variance reach
                # about 1e16 (numba's "Matrix is not positive definite").
                raise ValueError(
                    "MultinomialGaussianProcess.fit: the posterior covariance of the latent "
                    f"functions is not positive definite in float64 (largest count "
                    f"{Y.max():.3g}): the counts times the kernel's variance exceed float "
                    "precision. Scale the counts down or bound the kernel's amplitude."
                ) from exc
        return self

    def _run_sampler(self, X, Y, rng, n_threads):
        """Hyperparameters, then the Gibbs sweeps; sets the fitted attributes."""
        n_inputs, n_categories = Y.shape
        n_sticks = n_categories - 1
        self.X_train_ = X
        self.n_categories_ = n_categories
        self.n_iter_ = self.max_iter
        kernel = clone(self.kernel) if self.kernel is not None else _default_kernel(X)
        whom = f"{type(self).__name__}.fit"
        # Before the regression, whose Cholesky factor fails on such kernels.
        check_positive_semidefinite(kernel_matrix(kernel, X, self.jitter), kernel, whom)
        given = kernel

        mean = np.empty((1, n_sticks))
        inverse_stick_breaking(Y.sum(axis=0, keepdims=True) + self.pseudo_count, mean)
        self.mean_ = mean[0]
        kernel, self.log_marginal_likelihood_value_ = self._fit_hyperparameters(
            kernel, X, Y, rng)

        state = _StickGP(X, Y, self.mean_, kernel, self.jitter, self.pg_method,
                         self.pg_terms, seed_from(rng), n_threads)
        if kernel is not given:  # the fitted hyperparameters
            check_positive_semidefinite(state.kmat, kernel, whom)
        gen = np.random.default_rng(seed_from(rng))
        # Start from the posterior mean of f given the empirical logits (each
        # with its binomial variance): the chain begins near the data.
        if n_sticks:
            precision, information = empirical_potentials(Y, self.mean_, self.pseudo_count)
            state.latent = _latent_moments(state.kmat, state.kmat, np.diag(state.kmat).copy(),
                                           precision, information, n_threads)[0]
        burn_in = self._burn_in()
        n_kept = self.max_iter - burn_in
        self._omega = np.empty((n_kept, n_inputs, n_sticks))
        sampling = self.hyperparameters == "sample" and n_sticks > 0 and kernel.n_dims > 0
        thetas = np.empty((n_kept, kernel.n_dims))
        log_step, accepted = math.log(_MH_INITIAL_STEP), 0
        total = max(float(Y.sum()), 1.0)
        trace = np.empty(self.max_iter)
        reporter = ProgressReporter(type(self).__name__, self.verbose)
        with reporter:
            for it in range(self.max_iter):
                if n_sticks:
                    state.draw_omega()
                    if sampling:
                        accept = state.metropolis(log_step, gen)
                        if it < burn_in:
                            # Robbins-Monro adaptation, frozen after burn-in so
                            # that the kept chain is a plain Metropolis chain.
                            log_step += (float(accept) - _MH_TARGET_ACCEPT) / math.sqrt(it + 1.0)
                        else:
                            accepted += accept
                    state.draw_latent()
                if it >= burn_in:
                    keep = it - burn_in
                    self._omega[keep] = state.omega
                    thetas[keep] = state.theta
                trace[it] = state.log_likelihood()
                if reporter.due(it, self.max_iter):
                    reporter.report(it, self.max_iter, log_likelihood_per_count=trace[it] / total)
        self.log_likelihood_trace_ = trace
        self._kappa = state.kappa
        if sampling:
            self.hyperparameter_samples_ = thetas
            self.acceptance_rate_ = accepted / n_kept
            kernel = kernel.clone_with_theta(thetas.mean(axis=0))
            self._thetas = thetas
        else:
            # A refit must not leave the draws of an earlier "sample" fit.
            self.__dict__.pop("hyperparameter_samples_", None)
            self.__dict__.pop("acceptance_rate_", None)
            self._thetas = None
        self.kernel_ = kernel
        reporter.summary(
            f"{self.max_iter} sweeps ({n_kept} kept), {n_inputs} inputs, {n_categories} "
            f"categories, kernel {self.kernel_}"
        )

    def _fit_hyperparameters(self, kernel, X, Y, rng):
        """Type-II maximum likelihood of a GP regression on the empirical logits
        (the paper's method), unless the kernel is to be used as given.

        The logits ``pi_SB^-1((y + pseudo_count) / N) - mu`` of the K - 1 sticks
        are K - 1 outputs sharing the kernel, plus a white-noise term fitted
        with it and then dropped (the multinomial likelihood replaces it);
        inputs whose counts are all zero have no empirical logits and are
        left out.
        Returns the kernel and the log marginal likelihood of the regression.
        """
        if self.hyperparameters == "fixed" or Y.shape[1] < 2 or kernel.n_dims == 0:
            return kernel, None
        # Inputs without counts carry no empirical logit (theirs would be the
        # pseudo-counts' alone): they are left out of the regression.
        observed = Y.sum(axis=1) > 0
        X, Y = X[observed], Y[observed]
        logits = np.empty((Y.shape[0], Y.shape[1] - 1))
        inverse_stick_breaking(Y + self.pseudo_count, logits)
        regression = GaussianProcessRegressor(
            kernel + WhiteKernel(1.0, (1e-5, 1e5)),
            n_restarts_optimizer=self.n_restarts_optimizer,
            random_state=seed_from(rng) % 2**32,
        )
        # A bound reached by a hyperparameter is reported in kernel_.
        with ignoring_warnings(ConvergenceWarning):
            regression.fit(X, logits - self.mean_)
        return regression.kernel_.k1, float(regression.log_marginal_likelihood_value_)

    # ------------------------------------------------------------ prediction
    def _kept_kernels(self):
        """The kernel of each kept sweep (one shared kernel unless sampled)."""
        if self._thetas is None:
            return None
        return [self.kernel_.clone_with_theta(t) for t in self._thetas]

    def _predictive_moments(self, X):
        """Per kept sweep, the Gaussian mean and variance of ``f`` at X:
        yields ``(mean, var)`` arrays of shape (n_new, K - 1)."""
        n_threads = effective_n_jobs(self.n_jobs)
        kernels = self._kept_kernels()
        train = self.X_train_
        shared = None
        for s in range(self._omega.shape[0]):
            if kernels is None:
                if shared is None:
                    shared = self._kernel_blocks(self.kernel_, train, X)
                blocks = shared
            else:
                blocks = self._kernel_blocks(kernels[s], train, X)
            yield _latent_moments(*blocks, self._omega[s], self._potential(s), n_threads)

    def _potential(self, s):
        """``h = kappa - omega mu`` of kept sweep ``s``."""
        return self._kappa - self._omega[s] * self.mean_

    def _kernel_blocks(self, kernel, train, X):
        # The kept omega were drawn under the jitter of the fit.
        jitter = self._fitted_param("jitter")
        kmat = kernel_matrix(kernel, train, jitter)
        cross = self._finite(kernel(X, train), kernel)
        prior_diag = self._finite(kernel.diag(X), kernel) + jitter
        return kmat, cross, prior_diag

    def _finite(self, values, kernel):
        """Kernel ``values`` at new inputs as a C-contiguous float array, or a
        clear error when they are not finite (e.g. Matern at distances near
        1e155 computes inf * 0), instead of NaN predictions."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"{type(self).__name__}: the kernel {kernel} is not finite at the inputs X "
                "(inputs too large for it, e.g. beyond about 1e150 "
                "for the default Matern kernel); rescale X.")
        return values

    def _check_fitted_call(self):
        """Fitted, and the settings a post-fit call reads (``n_jobs``) valid."""
        check_is_fitted(self)
        check_call_settings(self, ("n_jobs",))

    def _check_inputs(self, X):
        self._check_fitted_call()
        return validate_data(self, X, reset=False, dtype=np.float64)

    def predict(self, X):
        """Expected category probabilities at the inputs X.

        ``E[pi_SB(mu + f(x))]`` under the posterior: for each kept sweep the
        latent values are integrated out given omega (Gaussian, computed by
        quadrature per stick), then averaged over the kept sweeps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_categories)
            Rows sum to 1.
        """
        return self._predict(self._check_inputs(X))

    def _predict(self, X):
        """:meth:`predict` of inputs X already validated (``_check_inputs``)."""
        n_sticks = self.n_categories_ - 1
        if n_sticks == 0:
            return np.ones((X.shape[0], 1))
        proba = np.zeros((X.shape[0], self.n_categories_))
        n_kept = 0
        with one_blas_thread():
            for mean, var in self._predictive_moments(X):
                p_stick, p_rest = _expected_sigmoid(mean + self.mean_, var)
                proba += _stick_probabilities(p_stick, p_rest)
                n_kept += 1
        proba /= n_kept
        return proba / proba.sum(axis=1, keepdims=True)

    def predict_latent(self, X, return_std=False):
        """Posterior mean (and standard deviation) of the logits at X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        return_std : bool, default=False
            Also return the posterior standard deviation.

        Returns
        -------
        latent_mean : ndarray of shape (n_samples, n_categories - 1)
            ``E[mu + f(x)]``, the stick-breaking logits.

        latent_std : ndarray of shape (n_samples, n_categories - 1)
            Their posterior standard deviation (law of total variance over
            the kept sweeps). Only when ``return_std`` is True.
        """
        X = self._check_inputs(X)
        n_sticks = self.n_categories_ - 1
        first = np.zeros((X.shape[0], n_sticks))
        second = np.zeros((X.shape[0], n_sticks))
        n_kept = 0
        if n_sticks:
            with one_blas_thread():
                for mean, var in self._predictive_moments(X):
                    first += mean
                    second += var + mean * mean
                    n_kept += 1
            first /= n_kept
            second /= n_kept
        latent_mean = first + self.mean_
        if return_std:
            return latent_mean, np.sqrt(np.maximum(second - first * first, 0.0))
        return latent_mean

    def sample_y(self, X, n_samples=1, random_state=0, total_count=None):
        """Draw category probabilities (or counts) from the posterior at X.

        Each draw picks a kept sweep at random and draws the latent functions
        jointly over the inputs X from their Gaussian given that sweep's
        omega, so a draw is a smooth curve, not independent points.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
            Inputs.

        n_samples : int, default=1
            Number of draws.

        random_state : int, RandomState instance or None, default=0
            Seed of the draws (fixed by default, like scikit-learn's
            ``GaussianProcessRegressor.sample_y``).

        total_count : int or array-like of shape (n_samples_X,), default=None
            If given, draw multinomial counts with these totals from each
            probability draw instead of returning the probabilities.

        Returns
        -------
        draws : ndarray of shape (n_samples_X, n_categories, n_samples)
            Probabilities (rows sum to 1), or counts if ``total_count`` is set.
        """
        whom = f"{type(self).__name__}.sample_y"
        n_samples = check_n_draws(n_samples, whom)
        X = self._check_inputs(X)
        totals = (None if total_count is None
                  else check_draw_totals(total_count, X.shape[0], whom, "total_count"))
        rng = check_random_state(random_state)
        n_new, n_sticks = X.shape[0], self.n_categories_ - 1
        psi = np.zeros((n_samples, n_new, n_sticks))
        sweeps = rng.randint(0, self._omega.shape[0], size=n_samples)
        with one_blas_thread():
            self._draw_latent_curves(X, sweeps, rng, psi)
        proba = np.empty((n_samples, n_new, self.n_categories_))
        for i in range(n_samples):
            proba[i] = _stick_probabilities(expit(psi[i]), expit(-psi[i]))
        draws = np.moveaxis(proba, 0, -1)
        if totals is None:
            return draws
        counts = np.empty(draws.shape, dtype=np.int64)
        for i in range(n_samples):
            for j in range(n_new):
                p = draws[j, :, i]
                counts[j, :, i] = rng.multinomial(totals[j], p / p.sum())
        return counts

    def _draw_latent_curves(self, X, sweeps, rng, psi):
        """Fill ``psi[i]`` with a joint draw of the logits at X given kept
        sweep ``sweeps[i]``."""
        n_sticks = self.n_categories_ - 1
        n_new = X.shape[0]
        kernels = self._kept_kernels()
        jitter = self._fitted_param("jitter")
        for s in np.unique(sweeps):
            rows = np.flatnonzero(sweeps == s)
            kernel = self.kernel_ if kernels is None else kernels[s]
            kmat = kernel_matrix(kernel, self.X_train_, jitter)
            cross = self._finite(kernel(X, self.X_train_), kernel)
            prior_cov = self._finite(kernel(X), kernel)
            prior_cov[np.diag_indices_from(prior_cov)] += jitter
            for k in range(n_sticks):
                mean, cov = latent_predictive_covariance(
                    kmat, cross, prior_cov, self._omega[s], self._potential(s), k)
                factor = prior_factor(0.5 * (cov + cov.T))
                z = rng.standard_normal((n_new, rows.shape[0]))
                psi[rows, :, k] = (mean[:, None] + factor @ z).T + self.mean_[k]

    def score(self, X, y):
        """Mean log predictive probability per count of y at the inputs X.

        ``sum_mk Y_mk log p_mk / sum_mk Y_mk`` with ``p = predict(X)`` (the
        posterior predictive probability of one more count; the multinomial
        coefficient is left out). Higher is better.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples, n_categories)
            Count vectors.

        Returns
        -------
        score : float
            Log-likelihood per count (nats).
        """
        self._check_fitted_call()
        X, Y = self._check_counts(X, y, reset=False)
        if Y.shape[1] != self.n_categories_:
            raise ValueError(f"y has {Y.shape[1]} categories; the model was fitted with "
                             f"{self.n_categories_}.")
        # Not predict(X): X is already an array here, and a second validation
        # warned that "X does not have valid feature names" after a DataFrame fit.
        proba = self._predict(X)
        total = Y.sum()
        if total == 0:
            return 0.0
        mask = Y > 0
        return float(np.sum(Y[mask] * np.log(proba[mask])) / total)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.target_tags.positive_only = True
        return tags


def _latent_moments(kmat, cross, prior_diag, precision, information, n_threads):
    """Mean and variance of ``f`` at new inputs given the potentials (all sticks)."""
    n_new, n_sticks = cross.shape[0], precision.shape[1]
    mean = np.empty((n_new, n_sticks))
    var = np.empty((n_new, n_sticks))
    precision = np.ascontiguousarray(precision)
    information = np.ascontiguousarray(information)

    def block(lo, hi):
        latent_predictive(kmat, cross, prior_diag, precision, information, lo, hi, mean, var)

    _over_units(block, n_sticks, n_threads)
    return mean, var
