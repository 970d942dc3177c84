"""Pólya-Gamma random variables: samplers and closed-form moments.

``X ~ PG(b, c)`` with ``b > 0`` is the infinite convolution
``X = 1 / (2 pi^2) sum_k g_k / ((k - 1/2)^2 + c^2 / (4 pi^2))`` with
``g_k ~ Gamma(b, 1)`` (Polson, Scott & Windle 2013). Every model of this
package draws such variables in its inner loop; the same samplers are
exposed here, vectorized, so that users can check, compare and choose them.
The user guide (:ref:`polyagamma`) has the equations and the measurements.

Methods:

- ``"exact"``: Devroye's alternating-series method for PG(1, c), summed over
  the integer part of ``b`` (sum rule); a non-integer remainder ``r < 1`` is
  drawn exactly by the alternate method of Windle, Polson & Scott (2014).
  Cost grows linearly with ``b`` (about 40 ns per unit); above ``b = 2^20``
  the three-moment approximation of ``"auto"`` is drawn instead (Kolmogorov
  distance to PG(b, c) below 1e-8 there).
- ``"truncated"``: the first ``n_terms`` terms of the gamma series, rescaled so
  that the mean is exact (Chen et al. 2013).
- ``"pg1"``: ``n_terms`` exact PG(1, c) draws combined to match the mean and
  variance of PG(b, c): ``b E1 + sqrt(b / M) sum_m (X_m - E1)``; exact draws
  (those of ``"exact"``) when ``b <= n_terms``.
- ``"gaussian"``: the moment-matched normal ``N(E[X], Var[X])``, a draw
  that is not positive drawn again; for large ``b`` only: at ``b = 1``,
  ``c = 0`` the redraws bias it (mean 0.293 against 0.25, variance 0.029
  against 0.042), at ``b = 10`` they no longer show (2.498 against 2.5).
- ``"auto"``: exact for ``b < 5``; from ``b = 5`` on a shifted gamma
  ``s + theta Gamma(k)`` with the mean, variance and third cumulant of
  PG(b, c), whose Kolmogorov distance to PG(b, c) (at most ``0.0105 / b``
  there) is below half the 5 % critical value of a two-sample KS test at
  10^5 draws, 27 times a default chain's draws per (b, c) cell; tests with
  10^4 draws reject at the nominal rate (benchmarks/pg_samplers.py).
  Constant cost above the switch.

Every method returns finite values >= 0 for every finite ``b > 0`` and every
finite ``c`` (``|c|`` up to the largest double) in bounded time; the
approximate methods are redrawn while not positive. For tiny ``b`` most of the
mass of PG(b, c) lies near ``b^2 / 4``, and draws underflow to 0 below
``b`` of about 1e-154; for huge ``|c|`` PG(b, c) is concentrated at its mean
``b / (2 |c|)`` and the draws are that mean (but those of "truncated", whose
variance is too large).
"""

import numpy as np
from sklearn.utils import check_random_state

from ._base import is_integer_at_least
from ._kernels._polyagamma import MAX_PG_TERMS, PG_METHODS, pg_draw_many
from ._kernels._random import make_streams, seed_from

__all__ = ["random_polyagamma", "pg_mean", "pg_var"]


def _check_parameters(b, c, whom):
    for name, value in (("b", b), ("c", c)):
        kind = np.asarray(value).dtype.kind
        if kind not in "biuf":
            # None became NaN ("must be finite (got NaN or infinity)"), a
            # string or a complex number numpy's conversion error.
            raise ValueError(f"{whom}: {name} must be a real number or an array of real "
                             f"numbers; got {value!r}.")
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    if np.any(np.isnan(b)) or np.any(np.isnan(c)) or np.any(np.isinf(b)) or np.any(np.isinf(c)):
        raise ValueError(f"{whom}: b and c must be finite (got NaN or infinity).")
    if np.any(b < 0):
        raise ValueError(f"{whom}: the shape b must be non-negative (b = 0 gives the point "
                         f"mass at 0); got b = {float(b.min())!r}.")
    try:
        np.broadcast_shapes(b.shape, c.shape)
    except ValueError:
        raise ValueError(f"{whom}: b of shape {b.shape} and c of shape {c.shape} cannot be "
                         "broadcast together.") from None
    return b, c


def pg_mean(b, c=0.0):
    """Mean of PG(b, c): ``b / (2c) tanh(c / 2)`` (``b / 4`` at ``c = 0``).

    Read more in the :ref:`User Guide <polyagamma>`.

    Parameters
    ----------
    b : array-like of float
        Shape parameter(s), ``b >= 0``.
    c : array-like of float, default=0.0
        Tilting parameter(s); broadcast against ``b``.

    Returns
    -------
    mean : ndarray or float
        Stable near ``c = 0`` (Taylor series) and for large ``|c|``.

    Examples
    --------
    >>> from sklearn_pgtm.polyagamma import pg_mean
    >>> float(pg_mean(1.0, 0.0))
    0.25
    """
    b, c = _check_parameters(b, c, "pg_mean")
    x = 0.5 * np.abs(c)
    small = x < 1e-4
    safe = np.where(small, 1.0, x)
    x_series = np.where(small, x, 0.0)
    ratio = np.where(small, 1.0 - x_series * x_series / 3.0, np.tanh(safe) / safe)
    out = 0.25 * b * ratio
    return out if out.ndim else float(out)


def pg_var(b, c=0.0):
    """Variance of PG(b, c): ``b (sinh c - c) / (4 c^3 cosh^2(c / 2))``.

    Read more in the :ref:`User Guide <polyagamma>`.

    Computed as ``b (2 tanh(c/2) - c sech^2(c/2)) / (4 c^3)``, which cannot
    overflow, with a Taylor series ``b/24 - b c^2 / 120 + ...`` near 0.

    Parameters
    ----------
    b : array-like of float
        Shape parameter(s), ``b >= 0``.
    c : array-like of float, default=0.0
        Tilting parameter(s); broadcast against ``b``.

    Returns
    -------
    var : ndarray or float

    Examples
    --------
    >>> from sklearn_pgtm.polyagamma import pg_var
    >>> round(float(pg_var(24.0, 0.0)), 12)
    1.0
    """
    b, c = _check_parameters(b, c, "pg_var")
    c = np.abs(c)
    small = c < 1e-2
    c_safe = np.where(small, 1.0, c)
    c_series = np.where(small, c, 0.0)
    x = 0.5 * c_safe
    sech = np.where(x < 350.0, 1.0 / np.cosh(np.minimum(x, 350.0)), 0.0)
    with np.errstate(over="ignore"):  # c^3 overflows to inf above 5e102: Var -> 0
        large = b * ((2.0 * np.tanh(x) - c_safe * sech * sech) / (4.0 * c_safe**3))
    c2 = c_series * c_series
    series = b * (1.0 / 24.0 - c2 / 120.0 + 17.0 * c2 * c2 / 13440.0)
    out = np.where(small, series, large)
    return out if out.ndim else float(out)


def random_polyagamma(b=1.0, c=0.0, *, method="exact", n_terms=8, size=None,
                      random_state=None):
    """Draw Pólya-Gamma PG(b, c) random variables.

    Read more in the :ref:`User Guide <polyagamma>`.

    Parameters
    ----------
    b : array-like of float, default=1.0
        Shape parameter(s), ``b >= 0`` (``b = 0`` gives 0: PG(0, c) is the
        point mass at 0). Any real value, not only integers.
    c : array-like of float, default=0.0
        Tilting parameter(s), any finite real; broadcast against ``b``.
    method : {"exact", "truncated", "pg1", "gaussian", "auto"}, default="exact"
        Sampler (see the module documentation). ``"auto"`` draws exactly for
        ``b < 5`` and, from ``b = 5`` on, from the shifted gamma
        ``s + theta Gamma(k)`` that matches the mean, variance and third
        cumulant of PG(b, c): its Kolmogorov distance to PG(b, c) is at most
        ``0.0105 / b`` there, below what a two-sample Kolmogorov-Smirnov test sees
        with 10^5 draws (measured in benchmarks/pg_samplers.py), at a
        constant cost per draw.
    n_terms : int, default=8
        Number of terms M of the ``"truncated"`` and ``"pg1"`` methods (1 to
        10^5).
    size : int or tuple of int, default=None
        Output shape, to which ``b`` and ``c`` must broadcast; by default the
        broadcast shape of ``b`` and ``c``.
    random_state : int, RandomState instance or None, default=None
        Seed; the same value gives the same draws.

    Returns
    -------
    samples : ndarray or float
        Draws of shape ``size`` (a float for scalar inputs and no size).

    Notes
    -----
    Every method returns finite values >= 0 in bounded time for every finite
    ``b >= 0`` and finite ``c``. At the extremes: ``"exact"`` costs time
    proportional to ``b`` (about 40 ns per unit) up to ``b = 2^20`` and draws
    the shifted gamma above (Kolmogorov distance below 1e-8 there); for huge
    ``|c|`` (say 1e300) PG(b, c) is concentrated at its mean ``b / (2 |c|)``
    and the draws equal it (but those of ``"truncated"``, 0.33-1.95 times
    it: its variance is too large); for tiny ``b`` (say 1e-6) the draws lie near
    ``b^2 / 4`` and underflow to 0 below ``b`` of about 1e-154. NaN or
    infinite ``b`` or ``c`` raise a ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.polyagamma import random_polyagamma, pg_mean
    >>> x = random_polyagamma(2.5, 1.0, size=20000, random_state=0)
    >>> bool(abs(x.mean() - pg_mean(2.5, 1.0)) < 0.01)
    True
    >>> y = random_polyagamma(500.0, 3.0, method="auto", size=20000, random_state=0)
    >>> bool(abs(y.mean() - pg_mean(500.0, 3.0)) < 0.05)
    True
    """
    if method not in PG_METHODS:
        raise ValueError(f"method must be one of {sorted(PG_METHODS)}; got {method!r}.")
    if not is_integer_at_least(n_terms, 1) or n_terms > MAX_PG_TERMS:
        raise ValueError(f"n_terms must be an integer in [1, {MAX_PG_TERMS}]; got {n_terms!r}.")
    b, c = _check_parameters(b, c, "random_polyagamma")
    if size is None:
        shape = np.broadcast_shapes(b.shape, c.shape)
    else:
        # np.ndim: a 0-d array (np.array(3)) is one size, not a tuple of them
        # (tuple() of it raised "iteration over a 0-d array").
        if isinstance(size, np.ndarray):
            size = size.tolist()
        shape = (size,) if np.ndim(size) == 0 else tuple(size)
        if not all(is_integer_at_least(n, 0) for n in shape):
            raise ValueError(f"size must be a non-negative integer or a tuple of them; got "
                             f"{size!r}.")
        shape = tuple(int(n) for n in shape)
        # As numpy's generators: b and c broadcast to size, size is not stretched.
        try:
            fits = np.broadcast_shapes(b.shape, c.shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"random_polyagamma: b of shape {b.shape} and c of shape "
                             f"{c.shape} cannot be broadcast to size {shape}.")
    b_full = np.ascontiguousarray(np.broadcast_to(b, shape), dtype=np.float64).ravel()
    c_full = np.ascontiguousarray(np.broadcast_to(c, shape), dtype=np.float64).ravel()
    rng = check_random_state(random_state)
    out = np.empty(b_full.shape[0])
    pg_draw_many(make_streams(seed_from(rng), 1), b_full, c_full, PG_METHODS[method],
                 int(n_terms), out)
    out = out.reshape(shape)
    return out if out.ndim else float(out)
