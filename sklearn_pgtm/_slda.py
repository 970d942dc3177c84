"""Gibbs supervised LDA with a logistic likelihood and regularization constant c.

Zhu, Zheng, Zhang (2013), "Improved Bayesian logistic supervised topic models
with data augmentation" ("gSLDA"). User guide: :ref:`slda`.
"""

import hashlib
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, softmax
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.preprocessing import LabelEncoder
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, column_or_1d

from ._base import (
    N_JOBS_CONSTRAINT,
    PG_TERMS_CONSTRAINT,
    ChainTrace,
    GibbsRun,
    IntegerInterval,
    check_finite,
    dirichlet_posterior,
    keep_state_on_failure,
    posterior_mean,
)
from ._chain import TopicChain
from ._kernels._likelihood import log_predictive
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import make_streams
from ._kernels._slda import (
    draw_augmentation,
    draw_class_augmentation,
    draw_eta,
    response_terms,
)
from ._kernels._sweeps import BinaryResponse, SoftmaxResponse
from ._lda import PRIOR_CONSTRAINT, DirichletTopicModel
from ._parallel import (
    balanced_cuts,
    effective_n_jobs,
    map_ranges,
    one_blas_thread,
    thread_pool,
)
from .exceptions import ChainDivergenceError


@dataclass
class _BinaryRun(GibbsRun):
    """The chain of one binary gSLDA model (one-vs-rest: one per class)."""

    y: np.ndarray = None  # 0/1 labels
    kappa: np.ndarray = None  # c (y_d - 1/2), 0 for empty documents
    lam: np.ndarray = None  # lambda_d ~ PG(c, omega_d)
    response: BinaryResponse = None
    eta: np.ndarray = None
    eta_sum: np.ndarray = None
    n_eta: int = 0
    pg_states: np.ndarray = None
    eta_rng: np.random.Generator = None
    weights_seed: int = 0  # of the refitted weights (prediction="refit")


@dataclass
class _SoftmaxRun(GibbsRun):
    """The chain of the multinomial model: K shared topics, C classes."""

    labels: np.ndarray = None  # class index of each document
    kappa: np.ndarray = None  # (D, C): c (1[y_d = j] - 1/2), 0 for empty documents
    lam: np.ndarray = None  # (D, C): lambda_dj ~ PG(c, omega_dj - C_dj)
    response: SoftmaxResponse = None
    eta: np.ndarray = None  # (C, K)
    eta_sum: np.ndarray = None
    n_eta: int = 0
    pg_states: np.ndarray = None
    eta_rng: np.random.Generator = None
    weights_seed: int = 0


@dataclass
class _OneVsRestRun:
    """One binary run per class, swept together."""

    runs: list
    iteration: int = 0
    trace: ChainTrace = field(default_factory=ChainTrace)
    notes: list = field(default_factory=list)  # for the progress report (GibbsRun.notes)

    def topic_share(self):
        return np.concatenate([run.topic_share() for run in self.runs])

    def chains(self):
        return [run.chain for run in self.runs]


# prediction="refit": draws of the weights given the training documents' topic
# frequencies, the first WEIGHT_BURN_IN left out of their mean (the chain starts
# at the posterior mode, _weights_mode). Ten times as many (1,000, the first 330 left
# out) changed the predicted class of 0.06-0.43 % of the test documents of the
# multi-class subsets (means per subset), and 300 draws (100 left out), the
# former default, gave the same test accuracy (each subset's mean within 0.0014,
# multinomial +0.0001 and one-vs-rest -0.0003 on average: benchmarks/
# slda_20news.py --part prediction, section slda_prediction; on 30 binary fits,
# six pairs x five seeds, 0.9186 against 0.9184 and 0.9185 with 1,000) for three
# times the refit's cost (18 / 13 s on all 20 classes against 55 / 26 s, the
# multinomial model / one-vs-rest: --part refit-draws, section slda_refit_draws).
N_WEIGHT_DRAWS = 100
WEIGHT_BURN_IN = 33


def _integer_seed(seed_sequence):
    """A 64-bit integer from a SeedSequence (kept in a run: a SeedSequence's
    ``spawn`` moves on with each call, an integer seeds the same streams each time)."""
    return int(seed_sequence.generate_state(1, dtype=np.uint64)[0])


def _model_runs(run):
    """The binary runs of a one-vs-rest run, else ``[run]`` (binary or multinomial)."""
    return run.runs if isinstance(run, _OneVsRestRun) else [run]


def _average_weights(runs):
    """Each run's weights averaged over the draws after the burn-in (its
    current weights if there were none): (n_models, K) or (C, K)."""
    return np.vstack([r.eta_sum / r.n_eta if r.n_eta else r.eta for r in runs])


def _weights_mode(zbar, kappa, prior_variance, start):
    """Posterior mode of the weights given fixed topic frequencies ``zbar``
    (D, K) and ``kappa`` (``c (y - 1/2)``, 0 for empty documents): a binary
    model's (K,) for ``kappa`` of shape (D,), the multinomial model's (C, K)
    for (D, C). Newton-CG from ``start``, returned if the search fails.

    The log posterior is ``kappa . omega - b log(2 cosh(omega / 2))`` per
    document (binary; ``b = c`` for documents with tokens, 0 otherwise) or
    ``(kappa + b / 2) . omega - b logsumexp(omega)`` (multinomial, the
    labels' one-hot vector times c), ``omega = zbar eta``, less
    ``|eta|^2 / (2 nu^2)``: strictly concave. The refit's Gibbs chain starts
    here because at large ``c`` on (nearly) separable frequencies each of its
    updates moves the weights only a little: started at the fit's average
    weights, 100 draws at c = 1,024 ended thousands of nats of log
    posterior below the mode (user guide :ref:`slda_refit`).
    """
    multinomial = kappa.ndim == 2
    weight = 2.0 * np.abs(kappa).max(axis=-1) if multinomial else 2.0 * np.abs(kappa)
    shape = start.shape

    def scores(eta):
        return zbar @ eta.T if multinomial else zbar @ eta

    def log_likelihood(omega):
        """Its value and its gradient with respect to ``eta``."""
        if multinomial:
            target = kappa + 0.5 * weight[:, None]
            value = np.sum(target * omega) - weight @ logsumexp(omega, axis=1)
            return value, (target - weight[:, None] * softmax(omega, axis=1)).T @ zbar
        tail = np.abs(omega)
        value = kappa @ omega - weight @ (0.5 * tail + np.log1p(np.exp(-tail)))
        return value, zbar.T @ (kappa - 0.5 * weight * np.tanh(0.5 * omega))

    def curvature(omega, v):
        """Minus its Hessian times ``v``."""
        if multinomial:
            p, u = softmax(omega, axis=1), zbar @ v.T
            return (weight[:, None] * p * (u - np.sum(p * u, axis=1, keepdims=True))).T @ zbar
        slope = expit(omega)
        return zbar.T @ (weight * slope * (1.0 - slope) * (zbar @ v))

    def objective(x):
        eta = x.reshape(shape)
        value, gradient = log_likelihood(scores(eta))
        return (-value + x @ x / (2.0 * prior_variance),
                (-gradient + eta / prior_variance).ravel())

    def hessian_product(x, v):
        eta, v = x.reshape(shape), v.reshape(shape)
        return (curvature(scores(eta), v) + v / prior_variance).ravel()

    with np.errstate(over="ignore"):  # the line search's longest trial steps
        result = minimize(objective, start.ravel(), jac=True, hessp=hessian_product,
                          method="Newton-CG")
    mode = result.x.reshape(shape)
    return mode if np.all(np.isfinite(mode)) else start


def _mean_after_burn_in(draws):
    """Mean of the draws after the first :data:`WEIGHT_BURN_IN`."""
    total, n = 0.0, 0
    for i, draw in enumerate(draws):
        if i >= WEIGHT_BURN_IN:
            total, n = total + draw, n + 1
    return total / n


class GibbsSLDAClassifier(ClassifierMixin, DirichletTopicModel):
    """Supervised LDA with a logistic likelihood, fitted by Pólya-Gamma Gibbs sampling.

    The generalized logistic supervised topic model ("gSLDA") of Zhu et al.
    [1]_: LDA topics for the words and, for the label, the pseudo-likelihood
    ``exp(c y omega) / (1 + exp(omega))^c`` with ``omega = eta . zbar`` where
    ``zbar`` are the document's empirical topic frequencies. The
    regularization constant ``c`` balances the response against the words.
    Pólya-Gamma augmentation makes every conditional simple: the topics are
    resampled by a collapsed Gibbs sweep, the classifier weights ``eta`` from a
    Gaussian, and one ``lambda_d ~ PG(c, omega_d)`` per document.

    Multi-class targets are handled one of two ways (``multi_class``):
    ``"ovr"``, as in the paper, one binary model (its own topics and weights)
    per class, their chains run side by side on ``n_jobs`` threads; or
    ``"multinomial"``, one model of ``n_components`` topics shared by every
    class, class weights ``eta_1..eta_C`` and the pseudo-likelihood
    ``softmax(omega_d)_{y_d}^c`` with ``omega_dj = eta_j . zbar_d``: each
    class's weights are drawn given the others by the Pólya-Gamma
    augmentation of the conditional logistic form, and the topics with the
    exact softmax factor (no augmentation). The predicted class has the
    highest score.

    Read more in the :ref:`User Guide <slda>`.

    Parameters
    ----------
    n_components : int, default=20
        Number of topics (K) of each binary model (of the one shared model
        for ``multi_class="multinomial"``).
        The K at which the classifier's other defaults were measured (section
        defaults_classifier of ``benchmarks/RESULTS.md``). On three binary
        20 Newsgroups pairs (alt.atheism vs talk.religion.misc,
        comp.sys.ibm.pc.hardware vs comp.sys.mac.hardware, sci.electronics
        vs sci.med; seeds 0 and 1; the other defaults) the mean test
        accuracy was 0.879 / 0.876 / 0.885 at K = 10 / 20 / 50 (sections
        defaults_classifier_k10_c25, slda_c, defaults_classifier_k50_c25),
        above tomotopy's SLDAModel at each K, for about half / twice the fit
        time of K = 20 at K = 10 / 50: accuracy depends little on K here,
        so a value of K chosen for the topics themselves costs little.

    c : float, default=25.0
        Regularization constant of the response likelihood: each document's
        label counts ``c`` times against its words (``c = 1`` is the
        standard logistic sLDA; the paper uses 25 for binary and 256 for
        one-vs-all 20-class problems). Any positive real. The default is
        measured (``benchmarks/slda_c.py``, section slda_c of
        ``benchmarks/RESULTS.md``; K = 20, the other parameters at their
        defaults): mean test accuracy with c = 1 / 5 / 25 / 100 was 0.894 /
        0.909 / 0.919 / 0.920 on the six binary 20 Newsgroups pairs of
        issue 12 (two seeds), 0.863 / 0.887 / 0.894 / 0.898 on four other
        pairs, 0.702 / 0.715 / 0.720 / 0.698 on a corpus drawn from the model
        and 0.814 / 0.844 / 0.852 / 0.851 on a 3- and a 4-class subset (both
        ``multi_class`` modes); 25 was within 0.01 of the best value
        on 13 of these 15 tasks, 100 on 12, 1 on one. Tune it for your task
        (for example with ``GridSearchCV``; on all 20 classes, with K = 50
        and 40 sweeps, a validation split chose 64 for one-vs-rest and 1,024
        for the multinomial model, section slda_twenty_alpha_auto): too large
        a value fits the labels of the training documents through their
        topic assignments. The labels also shape the topics: on corpora
        drawn from the model with ``c = 1`` (section slda_recovery, K = 5 /
        10 / 20, multinomial) the default matched the true topics at worst
        L1 0.35-0.53 / 0.66-1.00 / 1.31-1.58 against 0.04 / 0.10-0.11 /
        0.19-0.20 with ``c = 1``, at as high a test accuracy (0.726 / 0.571
        / 0.329 against 0.724 / 0.565 / 0.315); set ``c=1`` where the topics
        themselves are the result.

    prior_variance : float, default=1.0
        Variance (nu^2) of the Gaussian prior on the classifier weights eta.
        The standard normal prior; the accuracy hardly depends on it. On
        three binary 20 Newsgroups pairs (K = 20, c = 25, two seeds each, the
        other parameters at their defaults) the mean test accuracy was
        0.9136 at 0.1, 0.9113 at 1 and 0.9025 at 10, mean changes within the
        spread of single fits (paired changes -0.0114 to +0.0154 at 0.1,
        -0.0347 to +0.0076 at 10; the two seeds at the defaults differ by up
        to 0.0114); with ``prediction_topics="inferred"`` (the default
        before) 0.8879 / 0.8910 / 0.8894
        (``benchmarks/defaults.py --part classifier_settings``,
        ``benchmarks/RESULTS.md``, section defaults_classifier_settings).

    multi_class : {"ovr", "multinomial"}, default="ovr"
        How more than two classes are modelled: ``"ovr"``, one binary model
        (topics and weights) per class; ``"multinomial"``, one model with K
        shared topics and one weight vector per class (the cost of about one
        chain: the supervised factor costs ``O(K C)`` per token instead of
        the one-vs-rest models' ``C`` times ``O(K)``). Both are the binary
        model for two classes. The default stays ``"ovr"``, neither mode
        winning every comparison. At the defaults, on four 20 Newsgroups
        subsets of 3-6 classes (K = 20, c = 16, 150 documents per class, two
        seeds) one-vs-rest was the more accurate on three (by 0.009, 0.007
        and 0.004) and the multinomial model on one (by 0.003) (section
        slda_prediction); on all 20 classes (K = 50, 40 sweeps, two threads,
        c chosen on a validation split for each: 1024, the grid's end, and
        64) the multinomial model reached 0.8330 ± 0.0050 over three seeds
        against 0.8140 ± 0.0030 for one-vs-rest, in 84 s against 247 s
        (section slda_twenty_alpha_auto). With ``prediction="average"`` (the
        default before the refit) the subsets split two and two (30 sweeps:
        by 0.009 / 0.009 and 0.027 / 0.014, section slda_subsets), and on
        all 20 classes the multinomial model reached 0.7940 ± 0.0012 against
        0.8042 ± 0.0051 at the paper's alpha = 5.6 (section slda_twenty) and
        0.8011 ± 0.0036 against 0.7905 ± 0.0017 at ``"auto"``
        (``benchmarks/slda_20news.py``, ``benchmarks/RESULTS.md``).

    doc_topic_prior : "auto" or float, default="auto"
        Symmetric Dirichlet prior (alpha) of the document-topic proportions;
        ``"auto"`` estimates it inside the chain (empirical Bayes, as
        :class:`GibbsLDA` does). Measured against fixed values, ``"auto"``
        was the better only for the multinomial model. On all 20 Newsgroups
        classes (K = 50, 40 sweeps, c chosen on a validation split;
        ``benchmarks/slda_20news.py --part twenty`` with
        ``--twenty-alpha auto`` or the paper's 5.6, sections
        slda_twenty_alpha_auto and slda_twenty of ``benchmarks/RESULTS.md``)
        it was the better for ``multi_class="multinomial"`` (0.8011 ± 0.0036
        against 0.7940 ± 0.0012 over three seeds) and the worse for
        one-vs-rest (0.7905 ± 0.0017 against 0.8042 ± 0.0051), measured
        with the former ``prediction="average"`` (the run before in section
        slda_twenty_alpha_auto; at the defaults of now ``"auto"`` gives
        0.8330 / 0.8140, 5.6 not remeasured). On three binary pairs at
        the defaults (K = 20, c = 25, two seeds) ``"auto"`` estimated alpha
        at 0.046-0.068 and reached a mean test accuracy of 0.9113, against
        0.9126 at alpha = 1 (paired changes -0.0114 to +0.0151, within the
        seed noise; ``benchmarks/defaults.py --part classifier_settings
        --settings doc_topic_prior=1.0 "prediction_topics='inferred'"``,
        section
        defaults_classifier_settings_doc_topic_prior_1_0_prediction_topics_inferred).
        With ``prediction_topics="inferred"`` a fixed alpha gains: 0.8910
        against 0.9051 at alpha = 1 (section defaults_classifier_settings,
        the run before),
        and with ``prediction="average"`` too 0.8817 against 0.8862 / 0.9032
        / 0.9060 at alpha = 0.1 / 1 / 5.6 (``--settings doc_topic_prior=0.1
        doc_topic_prior=5.6``, section
        defaults_classifier_settings_doc_topic_prior_0_1_doc_topic_prior_5_6),
        most of it through the prior of the new documents' inference
        (section defaults_classifier_settings_doc_topic_prior_1_0), which the
        expected topic frequencies do not use.

    topic_word_prior : "auto" or float, default="auto"
        Symmetric Dirichlet prior (beta) of the topic-word distributions;
        ``"auto"`` as above.

    max_iter : int, default=1000
        Gibbs sweeps per call of :meth:`fit`; :class:`GibbsLDA`'s default,
        for the same reason: four chains must agree (split-R-hat of the
        log-likelihood below 1.05). On corpora drawn from LDA with a binary
        label (four shapes from 200 documents of 80 words over 200 words,
        K = 5, to 1,000 documents of 150 words over 1,000 words, K = 20; two
        seeds each; c = 1), four chains of 500 / 1,000 sweeps (half burn-in)
        gave R-hat 1.006-1.064 / 1.001-1.018; at the former default of 100
        sweeps, up to 2.10 (without ``split_merge``). The test accuracy of
        the binary 20 Newsgroups tasks at c = 25 is in the user guide
        (:ref:`slda_advice`).

    burn_in : int or "auto", default="auto"
        Sweeps before the classifier weights and the topic-word counts are
        averaged; "auto" priors are estimated over the second half of the
        burn-in (at least one sweep) and held at the estimate afterwards.
        With ``max_iter <= burn_in`` no sweep is kept: the fitted weights and
        topics are the last sweep's, with a ``ConvergenceWarning``.
        ``"auto"``: half of ``max_iter`` (500 at the default 1,000; a
        ``warm_start`` continuation keeps its chain's, ``burn_in_``), as in
        :class:`GibbsLDA`: the R-hat figures of
        ``max_iter`` are those of the sweeps after a burn-in of half the
        chain. The accuracy does not
        depend on it beyond the seed noise: on three binary 20 Newsgroups
        pairs (K = 20, c = 25, two seeds, 1,000 sweeps) a burn-in of 250
        gave a mean test accuracy of 0.9149 against 0.9113 at 500 (paired
        change +0.0036, 0 to +0.0090 over the six fits; the two seeds of a
        pair differ by up to 0.0114), with ``prediction_topics="inferred"``
        (the default before) 0.8925 against 0.8910 (-0.0064 to +0.0090)
        (``benchmarks/defaults.py --part classifier_settings``,
        section defaults_classifier_settings of ``benchmarks/RESULTS.md``).

    n_infer_iter : int, default=100
        Gibbs sweeps over a new document's topics (topics fixed) in
        :meth:`transform` and :meth:`sample_transform`, and in prediction
        with ``prediction_topics="inferred"`` (with ``prediction="refit"``
        the fit then infers the training documents' topics with these sweeps
        too); prediction at the default ``prediction_topics="expected"``
        runs none. 100 is :class:`GibbsLDA`'s default for the same inference
        (this model's was 50 until 2026-11-30): there 100 sweeps lowered the
        held-out perplexity against 50 by 0.04-0.18 % on seven corpora, 200
        another 0.03-0.12 % at twice the time (``benchmarks/inference.py
        --part sweeps``, section ``infer_sweeps``). For prediction, a
        compromise of accuracy and time: with
        ``prediction_topics="inferred"`` (the default then), on three binary
        20 Newsgroups pairs (K = 20, c = 25, two seeds, the models fitted at
        the defaults and predicted with each value set after the fit) the
        mean test accuracy was 0.8862 / 0.8868 / 0.8910 /
        0.8930 / 0.8974 at 10 / 20 / 50 / 100 / 200 sweeps, in 0.09 / 0.22 /
        0.49 / 0.90 / 1.73 s per predict of about 790 test documents (shared
        machine): 200 sweeps gain 0.0064 on average (-0.0025 to +0.0114 per
        fit) for four times the time
        (``benchmarks/defaults.py --part classifier_settings``, section
        defaults_classifier_settings of ``benchmarks/RESULTS.md``, the run
        before the default became ``"expected"``).

    prediction : {"refit", "average", "last"}, default="refit"
        The weights eta that score a new document's topic frequencies (those
        of ``prediction_topics``). ``"last"``: the paper's rule, the last
        draw of eta (with ``prediction_topics="inferred"``, scoring the
        topic frequencies of the last inference sweep). ``"average"``: eta
        averaged over its draws after the burn-in. ``"refit"``: eta drawn
        again given the training documents' topic frequencies computed as a
        new document's are, without their labels (user guide
        :ref:`slda_refit`): the chain's draws of eta fit the training
        documents' topics sampled with their labels, which a new document's
        topic frequencies, computed without one, do not share. The refit
        costs the training documents' topic frequencies and a short Gibbs
        chain of eta (100 draws): 0.2-0.7 % of the fit at the defaults on 20
        Newsgroups subsets of 3-6 classes (with 300 draws 0.5-2.0 %, and
        2.3-3.3 % with ``prediction_topics="inferred"``, whose frequencies
        take Gibbs sweeps), 18.3 s (multinomial) and 12.6 s (one-vs-rest) on
        all 20 classes (11,314 documents, K = 50, two threads; 54.6 and 26.4 s
        with 300 draws, for the same accuracy on the subsets and on six binary
        pairs; sections slda_prediction and slda_refit_draws). With the
        inferred frequencies
        (the default then; the rows of the former defaults in the sections
        below), on six binary 20 Newsgroups pairs (K = 20, c = 25, five
        seeds each, the other parameters at their defaults) it raised the
        mean test accuracy from 0.8986 to 0.9031 on the same fits (every
        pair, +0.0010 to +0.0103), on four other pairs from 0.8755 to 0.8818
        (+0.0008 to +0.0139), and on a corpus drawn from the model from
        0.5937 to 0.6957 (``benchmarks/defaults.py --part classifier``, with
        and without ``--pairs``, sections defaults_classifier and
        defaults_classifier_other_pairs of ``benchmarks/RESULTS.md``). On
        four subsets of 3-6 classes (two seeds) one-vs-rest gained 0.0081 on
        average (6 of 8 fits better) and the multinomial model nothing
        (-0.0011, 3 of 8 better; ``benchmarks/slda_20news.py --part
        prediction``, section slda_prediction). Probabilities: on binary
        tasks drawn from the model, ``predict_proba`` with ``"refit"`` is as
        calibrated as the weights' posterior mode given the true topic
        frequencies (c = 1 and 25); with ``"average"`` or ``"last"`` at
        c = 25 its logits are 3.5-6 times too spread (excess log loss
        0.22-0.51 nats per document against 0.006-0.009;
        ``benchmarks/slda_calibration.py``, section slda_calibration). Read
        at fit (``coef_`` depends on it): set after fit, it applies from the
        next fit.

    prediction_topics : {"expected", "inferred"}, default="expected"
        The topic frequencies ``zbar`` of a document that the weights score
        (and, with ``prediction="refit"``, those of the training documents
        that they are refitted to), computed with the fitted topics (user
        guide :ref:`slda_prediction`). ``"expected"``: each token's topic
        probabilities given its word alone, ``p(k | w)`` proportional to
        topic k's probability of w, averaged over the document's tokens: the
        limit of the inferred frequencies as the document's prior grows,
        computed without sampling (one sparse product; ``n_infer_iter``
        unused). ``"inferred"``: ``n_infer_iter`` collapsed Gibbs sweeps over
        the document's topics with the prior ``doc_topic_prior_``, averaged
        over all but the first eighth of them (at least five left out, half
        below ten sweeps; with ``prediction="last"``, the last sweep's). At
        the small estimated prior (0.05-0.07 on 20 Newsgroups pairs)
        inference concentrates a document's tokens on a few topics, each
        token taking one topic per sweep; the expected
        frequencies average over every token's topics instead. Measured on
        the same fits (only the weights and frequencies differ): six binary
        20 Newsgroups pairs (K = 20, c = 25, five seeds each, the other
        parameters at their defaults) 0.9184 against 0.9031, every pair
        better (+0.0052 to +0.0309); four other pairs 0.8930 against 0.8818
        (+0.0050 to +0.0176); a corpus drawn from the model 0.7127 against
        0.6957 (``benchmarks/defaults.py --part
        classifier``, with and without ``--pairs``, sections
        defaults_classifier and defaults_classifier_other_pairs of
        ``benchmarks/RESULTS.md``); four subsets of 3-6 classes (two seeds,
        c = 16): the multinomial model +0.0190 and one-vs-rest +0.0148 on
        average, every one of the 8 fits of each better
        (``benchmarks/slda_20news.py --part prediction``, section
        slda_prediction). Prediction is deterministic either way. Read at
        fit (the refitted weights fit these frequencies): set after fit, it
        applies from the next fit.

    split_merge : bool, default=True
        Split-merge moves of the topics during the first half of the burn-in,
        as :class:`GibbsLDA` makes them (user guide :ref:`split_merge`),
        judged by the collapsed log joint of the words and topics (the
        response is left out of the criterion; the weights are drawn again
        given the new topics at the next sweep). Without them, on the two
        corpora of 1,000 documents above, one chain in four stayed in a mode
        1,000-8,000 nats below the others for most of its sweeps (R-hat 1.19
        and 1.67 at 1,000 sweeps, where :class:`GibbsLDA`'s chains agreed:
        1.005-1.018); with them, 1.018 and 1.013.

    pg_method : {"auto", "exact", "truncated", "pg1", "gaussian"}, default="auto"
        Pólya-Gamma sampler of the augmentation variables (see
        :mod:`sklearn_pgtm.polyagamma`). Every draw of this model is
        ``PG(b, omega)`` with ``b = c`` for every document, whatever its
        length, and the tilt ``omega`` its score ``eta . zbar_d`` (for the
        multinomial model ``omega_dj - C_dj``). ``"auto"`` draws exactly
        (Devroye's method, cost growing with ``b``) when ``c < 5``, and
        from ``c = 5`` on (the default and the paper's 25, and 256) the
        three-moment shifted gamma, of constant cost, whose
        Kolmogorov distance ``D`` to ``PG(b, omega)`` is then at most
        ``0.0105 / b``: 5 is the smallest ``b`` from which ``D`` stays below
        ``0.5 sqrt(2 / n)`` at ``n = 10^5`` draws per ``(b, omega)`` cell
        (14 at ``10^6``, the switch until 2026-11-29), well
        under the 5 % critical value of a two-sample Kolmogorov-Smirnov test
        (``1.36 sqrt(2 / n)``), for every ``omega`` of the grid (user guide
        :ref:`polyagamma`, section "The auto rule and its measurement",
        ``benchmarks/pg_samplers.py``). On the classifier at c = 25 (three
        binary 20 Newsgroups pairs, K = 20, two seeds) ``"exact"`` gave a
        mean test accuracy of 0.9138 against 0.9113 for ``"auto"`` (paired
        change +0.0025, -0.0101 to +0.0126, within the seed noise; with
        ``prediction_topics="inferred"``, the default before, 0.8906
        against 0.8910; fit 23.6 against 20.8 s on a shared machine)
        (``benchmarks/defaults.py --part classifier_settings``, section
        defaults_classifier_settings of ``benchmarks/RESULTS.md``).

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers (no default
        ``pg_method`` uses them), at most 100,000 (the bound of
        :func:`sklearn_pgtm.polyagamma.random_polyagamma`). Set before it was
        measured: at 8 terms both are coarser and slower than the default's
        approximations (Kolmogorov-Smirnov distance to exact draws 0.0095-0.036
        and 0.029-0.042 at b = 100 and 1,000, against at most 0.015; user guide
        :ref:`pg_terms`).

    warm_start : bool, default=False
        Keep the chains after :meth:`fit` and, on the next call with the same
        data, continue them for ``max_iter`` more sweeps: identical to one
        longer fit with the same ``random_state`` and ``burn_in`` (the
        continuation keeps the first fit's ``burn_in_``; with ``"auto"`` a
        fresh longer fit would resolve it from its own ``max_iter``).
        Other data, or another value of a parameter other than ``max_iter``,
        ``n_jobs``, ``verbose`` and the inference settings, raises
        ``ValueError`` (set ``warm_start=False`` to start new chains).
        The kept chains (every token's word and topic, and the count tables)
        make the fitted estimator and its pickle grow with the training
        tokens: 7.5 MB against 1.0 MB without them (one-vs-rest, three
        classes, 4,000 documents of about 50 tokens, K = 20, V = 2,000).

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw; the same value gives the same fit and the
        same predictions.

    n_jobs : int, default=None
        Threads: of the topic sweep of a binary or multinomial model (the
        partitioned sweep, user guide :ref:`threads`; the multinomial model's
        Pólya-Gamma draws too), or of the side-by-side one-vs-rest chains;
        after the fit, of the inference over documents (``transform``,
        ``score``, ``predict`` with ``prediction_topics="inferred"``). ``None``
        means 1, ``-1`` all cores. Results depend only on ``random_state`` and
        ``n_jobs``.

    verbose : int, default=0
        Print progress (sweeps, log-likelihood, time) and a summary; from 2
        on, every accepted split-merge move (1: one line per round of moves).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.

    components_ : ndarray of shape (n_models * n_components, n_features)
        Topic-word pseudo-counts (scikit-learn's meaning: the prior plus the
        averaged counts; normalized rows are the topics); ``n_models`` is 1
        for a binary problem or the multinomial model and ``n_classes`` for
        one-vs-rest, the topics of model ``m`` being rows ``m *
        n_components`` to ``(m + 1) * n_components``.

    coef_ : ndarray of shape (n_models, n_components) or (n_classes, n_components)
        Classifier weights eta: of each binary model, or (multinomial) of
        each class over the shared topics: refitted to the training
        documents' topic frequencies of ``prediction_topics``
        (``prediction="refit"``), the
        posterior mean of the chain's draws after the burn-in (``"average"``)
        or its last draw (``"last"``).

    last_coef_ : ndarray of the shape of ``coef_``
        The last draw of the weights.

    doc_topic_prior_ : float or ndarray of shape (n_models,)
        The document-topic prior of each model (estimated when ``"auto"``);
        a float when there is one model.

    topic_word_prior_ : float or ndarray of shape (n_models,)
        The topic-word prior of each model.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        After each sweep, ``log p(w, z | alpha, beta)`` plus the response's
        log pseudo-likelihood, summed over the models.

    trace_ : ChainTrace
        Per-sweep record of the chains, including the weights (``coef``);
        for one-vs-rest the estimated priors have one column per model
        (``doc_topic_prior`` and ``topic_word_prior`` of shape
        (n_iter, n_classes)).

    n_features_in_ : int
        Number of words (features) seen in :meth:`fit`.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the words seen in :meth:`fit`, when ``X`` has string column
        names.

    n_iter_ : int
        Number of Gibbs sweeps run by each binary model.

    burn_in_ : int
        The burn-in of the chain: ``burn_in``, or the share of ``max_iter``
        that ``"auto"`` stands for (of the first fit of a ``warm_start``
        chain).

    See Also
    --------
    GibbsLDA : Unsupervised LDA by the same sampler.
    sklearn.decomposition.LatentDirichletAllocation : Unsupervised LDA.

    Notes
    -----
    Counts are rounded to the nearest integer (halves to even). Documents
    without tokens are allowed: they do not inform the classifier during
    training (their ``zbar`` is zero) and their score at prediction time is
    0 (probability 1/2 in a binary problem). ``score`` is the accuracy (as
    for every scikit-learn classifier); ``perplexity`` averages the binary
    models' log likelihoods per token.

    References
    ----------
    .. [1] J. Zhu, X. Zheng, B. Zhang, "Improved Bayesian logistic supervised
       topic models with data augmentation", ACL 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import GibbsSLDAClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.poisson([6, 6, 0.2, 0.2], size=(20, 4)),
    ...                rng.poisson([0.2, 0.2, 6, 6], size=(20, 4))])
    >>> y = np.repeat([0, 1], 20)
    >>> clf = GibbsSLDAClassifier(n_components=2, c=4.0, max_iter=30, burn_in=10,
    ...                           random_state=0).fit(X, y)
    >>> clf.score(X, y)
    1.0
    """

    # ``prediction`` and ``prediction_topics`` only change how fitted chains predict.
    _continuation_free_params = (DirichletTopicModel._continuation_free_params
                                 | {"prediction", "prediction_topics"})

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "c": [Interval(Real, 0, None, closed="neither")],
        "prior_variance": [Interval(Real, 0, None, closed="neither")],
        "multi_class": [StrOptions({"ovr", "multinomial"})],
        "doc_topic_prior": PRIOR_CONSTRAINT,
        "topic_word_prior": PRIOR_CONSTRAINT,
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left"), StrOptions({"auto"})],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "prediction": [StrOptions({"refit", "average", "last"})],
        "prediction_topics": [StrOptions({"expected", "inferred"})],
        "split_merge": ["boolean"],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": PG_TERMS_CONSTRAINT,
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=20,
        *,
        c=25.0,
        prior_variance=1.0,
        multi_class="ovr",
        doc_topic_prior="auto",
        topic_word_prior="auto",
        max_iter=1000,
        burn_in="auto",
        n_infer_iter=100,
        prediction="refit",
        prediction_topics="expected",
        split_merge=True,
        pg_method="auto",
        pg_terms=8,
        warm_start=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.c = c
        self.prior_variance = prior_variance
        self.multi_class = multi_class
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.n_infer_iter = n_infer_iter
        self.prediction = prediction
        self.prediction_topics = prediction_topics
        self.split_merge = split_merge
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @keep_state_on_failure
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model: one Gibbs chain per binary (one-vs-rest) problem,
        or one chain of the multinomial model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        whom = f"{type(self).__name__}.fit"
        self._check_params()
        continuing = self._continuing()
        X = self._check_fit_counts(X, whom)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target "
                             "y is None.")
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        check_classification_targets(y)
        encoder = LabelEncoder()
        y_index = encoder.fit_transform(y)
        if len(encoder.classes_) < 2:
            raise ValueError(
                "GibbsSLDAClassifier needs samples of at least 2 classes in the data, "
                f"but the data contains only one class: {encoder.classes_[0]!r}.")
        if continuing and not np.array_equal(encoder.classes_, self.classes_):
            raise ValueError(f"{whom}: warm_start continues the previous chains, which were "
                             "fitted on other classes.")
        self.classes_ = encoder.classes_
        n_classes = len(self.classes_)
        self._labels = y_index.astype(np.int64)
        self._multinomial = self.multi_class == "multinomial" and n_classes > 2
        self._targets = [y_index == 1] if n_classes == 2 else [y_index == k
                                                               for k in range(n_classes)]
        try:
            return self._fit_counts(X, whom)
        finally:
            # The training labels start the chains and fingerprint the data
            # of this fit only (each fit sets them anew; a warm start's kept
            # chains hold their own): kept, they made every fitted model,
            # and its pickle, carry 8 + n_classes bytes per training document.
            del self._labels, self._targets

    def _data_fingerprint(self, X):
        shape, digest = super()._data_fingerprint(X)
        return shape, digest + hashlib.blake2b(self._labels.tobytes(), digest_size=8).hexdigest()

    # ------------------------------------------------------- the model's steps
    def _start_run(self, X, doc_ptr, word_ids, seed):
        if self._multinomial:
            return self._start_softmax(X, doc_ptr, word_ids, self._labels,
                                       np.random.SeedSequence(seed))
        seeds = np.random.SeedSequence(seed).spawn(len(self._targets))
        runs = [self._start_binary(X, doc_ptr, word_ids, target.astype(np.int8), s)
                for target, s in zip(self._targets, seeds)]
        return runs[0] if len(runs) == 1 else _OneVsRestRun(runs)

    def _start_binary(self, X, doc_ptr, word_ids, y, seed):
        # The moves' stream is the fifth child: the first four are as before
        # the moves existed (a chain without accepted moves is unchanged); the
        # refitted weights' the sixth (the chain is the same for every prediction).
        chain_seed, prior_seed, pg_seed, eta_seed, move_seed, weights_seed = seed.spawn(6)
        chain = TopicChain.random(doc_ptr, word_ids, self.n_components, X.shape[1], chain_seed)
        lengths = chain.doc_lengths
        n_docs = chain.n_docs
        kappa = np.where(lengths > 0, self.c * (y - 0.5), 0.0)
        return _BinaryRun(
            chain, self._start_priors(chain, prior_seed), y=y, kappa=kappa,
            lam=np.where(lengths > 0, 1.0, 0.0),  # the paper starts lambda at 1
            response=BinaryResponse(np.zeros(self.n_components), np.empty(n_docs),
                                    np.empty(n_docs), np.empty(n_docs)),
            eta_sum=np.zeros(self.n_components), pg_states=make_streams(pg_seed, n_docs),
            eta_rng=np.random.default_rng(eta_seed), split_merge=self._start_moves(move_seed),
            weights_seed=_integer_seed(weights_seed))

    def _start_softmax(self, X, doc_ptr, word_ids, labels, seed):
        chain_seed, prior_seed, pg_seed, eta_seed, move_seed, weights_seed = seed.spawn(6)
        chain = TopicChain.random(doc_ptr, word_ids, self.n_components, X.shape[1], chain_seed)
        lengths = chain.doc_lengths
        n_classes = len(self.classes_)
        one_hot = labels[:, None] == np.arange(n_classes)[None, :]
        kappa = np.where(lengths[:, None] > 0, self.c * (one_hot - 0.5), 0.0)
        eta = np.zeros((n_classes, self.n_components))
        inv_length = np.where(lengths > 0, 1.0 / np.maximum(lengths, 1), 0.0)
        return _SoftmaxRun(
            chain, self._start_priors(chain, prior_seed), labels=labels, kappa=kappa,
            lam=np.zeros((chain.n_docs, n_classes)),
            response=SoftmaxResponse(eta, labels, float(self.c), inv_length,
                                     np.zeros((chain.n_docs, n_classes))),
            eta=eta, eta_sum=np.zeros_like(eta), pg_states=make_streams(pg_seed, chain.n_docs),
            eta_rng=np.random.default_rng(eta_seed), split_merge=self._start_moves(move_seed),
            weights_seed=_integer_seed(weights_seed))

    def _divergence_setting(self):
        # The response term scales with c: an extreme c (1e300) overflows it
        # before anything else can.
        return "c (the regularization constant), the priors or the sampler's settings"

    def _sweep(self, run):
        if isinstance(run, _SoftmaxRun):
            self._sweep_softmax(run)
            run.trace.record(coef=run.eta.copy())
        elif isinstance(run, _OneVsRestRun):
            # The classes' chains side by side, one thread each.
            n_threads = effective_n_jobs(self.n_jobs, len(run.runs))
            pool = thread_pool(n_threads) if n_threads > 1 else None
            for r in run.runs:
                r.iteration = run.iteration
            sweep = lambda r: self._sweep_binary(r, n_jobs=1)  # noqa: E731
            if pool is None:
                for r in run.runs:
                    sweep(r)
            else:
                list(pool.map(sweep, run.runs))
            for label, r in zip(self.classes_, run.runs):
                run.notes.extend(f"class {label}: {note}" for note in r.notes)
                r.notes.clear()
            run.trace.record(coef=np.array([r.eta for r in run.runs]))
            # Each model's "auto" priors, as a binary run records its own
            # (_update_priors): one column per model.
            priors = [r.priors for r in run.runs]
            if priors[0].estimate_alpha:
                run.trace.record(doc_topic_prior=[p.alpha[0] for p in priors])
            if priors[0].estimate_beta:
                run.trace.record(topic_word_prior=[p.beta for p in priors])
        else:
            self._sweep_binary(run, self.n_jobs)
            run.trace.record(coef=run.eta[None, :].copy())

    def _sweep_binary(self, run, n_jobs):
        """eta | z, lambda; then the topics with the supervised factor; then
        lambda | z, eta; then the priors (Gibbs sLDA, Zhu et al. 2013)."""
        chain = run.chain
        lengths = chain.doc_lengths
        zbar = chain.tokens.doc_topic / np.maximum(lengths, 1)[:, None]
        run.eta = self._draw_weights(zbar, run.lam, run.kappa, run.eta_rng)
        run.response.eta[:] = run.eta
        response_terms(chain.tokens.doc_topic, lengths, run.eta, run.kappa, run.lam,
                       run.response)
        chain.sweep_supervised(run.priors.alpha, run.priors.beta, run.response, n_jobs)
        self._move_topics(run)
        bounds = balanced_cuts(chain.tokens.doc_ptr, effective_n_jobs(n_jobs, chain.n_docs))
        method = PG_METHODS[self.pg_method]
        map_ranges(lambda lo, hi: draw_augmentation(
            chain.tokens.doc_topic, lengths, run.eta, float(self.c), method, self.pg_terms,
            run.pg_states, lo, hi, run.lam), bounds)
        self._update_priors(run)
        if run.iteration >= self.burn_in_:
            run.eta_sum += run.eta
            run.n_eta += 1

    def _sweep_softmax(self, run):
        """Each class's weights given the others (lambda_j, then eta_j); then
        the topics with the exact softmax factor; then the priors (user guide
        :ref:`slda_multinomial`)."""
        chain = run.chain
        lengths = chain.doc_lengths
        zbar = chain.tokens.doc_topic / np.maximum(lengths, 1)[:, None]
        bounds = balanced_cuts(chain.tokens.doc_ptr, effective_n_jobs(self.n_jobs, chain.n_docs))
        self._draw_class_weights(zbar, lengths, run.kappa, run.eta, run.pg_states, run.eta_rng,
                                 bounds, run.lam)
        # The response's arrays are the run's: eta in place, the discriminant
        # sum_n eta_{l, z_dn} recomputed from the counts.
        np.matmul(chain.tokens.doc_topic, run.eta.T, out=run.response.discriminant)
        chain.sweep_softmax(run.priors.alpha, run.priors.beta, run.response, self.n_jobs)
        self._move_topics(run)
        self._update_priors(run)
        if run.iteration >= self.burn_in_:
            run.eta_sum += run.eta
            run.n_eta += 1

    def _draw_weights(self, zbar, lam, kappa, rng, offset=None):
        """One draw of a weight vector from its Gaussian conditional
        (:func:`draw_eta`), its failures as the chain's divergence."""
        whom = f"{type(self).__name__}.fit"
        try:
            eta = draw_eta(zbar, lam, kappa, self.prior_variance, rng, offset)
        except np.linalg.LinAlgError as exc:
            # The precision I / nu^2 + sum_d lambda_d zbar_d zbar_d^T loses its
            # prior term to rounding once the Polya-Gamma terms (growing with
            # c) exceed 1 / nu^2 by about 1e16 in a direction that the
            # documents' frequencies leave (nearly) undetermined, e.g. fewer
            # documents than topics: numpy's Cholesky factorization then fails.
            raise ChainDivergenceError(
                f"{whom}: the precision matrix of the classifier weights is not positive "
                f"definite in float64 (c={self.c!r}, prior_variance={self.prior_variance!r}); "
                "the chain diverged. Change c (smaller) or prior_variance (smaller).") from exc
        check_finite(eta, whom, "the classifier weights", "c (smaller) or prior_variance")
        return eta

    def _draw_class_weights(self, zbar, lengths, kappa, eta, pg_states, rng, bounds, lam_out):
        """Each class's weights ``eta`` (C, K) given the others, in place:
        ``lambda_j`` (into ``lam_out[:, j]``), then ``eta_j``; the documents'
        augmentation split into the thread ranges ``bounds``."""
        # C_dj = log sum_{l != j} exp(omega_dl): softmax_j = expit(omega_dj - C_dj).
        n_docs = zbar.shape[0]
        omega = zbar @ eta.T  # (D, C)
        method = PG_METHODS[self.pg_method]
        offset = np.empty(n_docs)
        lam = np.empty(n_docs)
        for j in range(eta.shape[0]):
            map_ranges(lambda lo, hi: draw_class_augmentation(
                omega, j, lengths, float(self.c), method, self.pg_terms, pg_states, lo, hi,
                offset, lam), bounds)
            lam_out[:, j] = lam
            eta_j = self._draw_weights(zbar, lam, kappa[:, j], rng, offset)
            eta[j] = eta_j
            omega[:, j] = zbar @ eta_j

    def _log_likelihood(self, run):
        if isinstance(run, _SoftmaxRun):
            lengths = run.chain.doc_lengths
            omega = (run.chain.tokens.doc_topic @ run.eta.T) / np.maximum(lengths, 1)[:, None]
            log_soft = omega - logsumexp(omega, axis=1, keepdims=True)
            response = self.c * log_soft[np.arange(len(lengths)), run.labels]
            return run.priors.log_joint(run.chain) + response[lengths > 0].sum()
        runs = _model_runs(run)
        total = 0.0
        for r in runs:
            omega = (r.chain.tokens.doc_topic @ r.eta) / np.maximum(r.chain.doc_lengths, 1)
            response = self.c * (r.y * omega + log_expit(-omega))  # log psi(y | omega)
            total += r.priors.log_joint(r.chain) + response[r.chain.doc_lengths > 0].sum()
        return total

    def _trend_trace(self):
        """The trace the ConvergenceWarning judges: the models' mean
        log-likelihood. One-vs-rest sums its models' log-likelihoods, each
        over every token; the warning's least rise is per token of one model
        (``MIN_RISE_PER_TOKEN``), which the sum would reach when each model
        rose by 1 / n_classes of it."""
        return self.log_likelihood_trace_ / self._n_models()

    def _finish(self, run):
        runs = _model_runs(run)
        priors = []
        for r in runs:
            self._finish_priors(r)
            priors.append((self.doc_topic_prior_, self.topic_word_prior_))
        alphas, betas = (np.array(v) for v in zip(*priors))
        self.doc_topic_prior_ = float(alphas[0]) if len(runs) == 1 else alphas
        self.topic_word_prior_ = float(betas[0]) if len(runs) == 1 else betas
        # Each model's topics written in place into its rows: a stack of
        # per-model copies held components_ twice (480 MB more at K = 100,
        # V = 200,000, three classes).
        n_topics, n_words = runs[0].chain.n_topics, runs[0].chain.n_words
        self.components_ = np.empty((len(runs) * n_topics, n_words))
        for m, (r, b) in enumerate(zip(runs, betas)):
            r.components(b, out=self.components_[m * n_topics:(m + 1) * n_topics])
        # (n_models, K) binary / one-vs-rest, (C, K) multinomial
        self.last_coef_ = np.vstack([r.eta for r in runs])
        average = _average_weights(runs)
        if self.prediction == "last":
            self.coef_ = self.last_coef_.copy()
        elif self.prediction == "average":
            self.coef_ = average
        else:
            self.coef_ = self._refit_weights(runs, average)

    def _refit_weights(self, runs, start):
        """The weights refitted to the topic frequencies that prediction sees
        (``prediction="refit"``, user guide :ref:`slda_refit`).

        The training documents' topic frequencies are computed as a new
        document's are (topics fixed, labels unused,
        :meth:`_prediction_frequencies`); the weights' posterior given them
        and the labels is the fit's Pólya-Gamma Gibbs update with those
        frequencies held fixed, started at the posterior mode
        (:func:`_weights_mode`, searched from ``start``, the weights' average
        over the fit); the mean of its draws after :data:`WEIGHT_BURN_IN` is
        returned.
        """
        tokens = runs[0].chain.tokens
        lengths = runs[0].chain.doc_lengths
        frequencies = self._prediction_frequencies(tokens.doc_ptr, tokens.word_ids)
        # One-vs-rest: the models side by side on threads, as their chains
        # (each model's augmentation then on one thread).
        n_threads = effective_n_jobs(self.n_jobs, len(runs))
        bounds = balanced_cuts(tokens.doc_ptr, effective_n_jobs(
            self.n_jobs if n_threads == 1 else 1, len(lengths)))

        def refit(m):
            run, zbar = runs[m], frequencies[m]
            pg_seed, eta_seed = np.random.SeedSequence(run.weights_seed).spawn(2)
            streams = (make_streams(pg_seed, len(lengths)), np.random.default_rng(eta_seed))
            if isinstance(run, _SoftmaxRun):
                mode = _weights_mode(zbar, run.kappa, self.prior_variance, start)
                draws = self._class_weights_draws(zbar, lengths, run.kappa, mode, *streams,
                                                  bounds)
            else:
                mode = _weights_mode(zbar, run.kappa, self.prior_variance, start[m])
                draws = self._binary_weights_draws(zbar, lengths, run.kappa, mode, *streams,
                                                   bounds)
            return _mean_after_burn_in(draws)

        with one_blas_thread():  # small products, as in the sweeps (see _fit_counts)
            if n_threads == 1:
                return np.vstack([refit(m) for m in range(len(runs))])
            return np.vstack(list(thread_pool(n_threads).map(refit, range(len(runs)))))

    def _binary_weights_draws(self, zbar, lengths, kappa, eta, pg_states, rng, bounds):
        """Draws of a binary model's weights given fixed topic frequencies
        ``zbar``: ``lambda | eta`` (split into the thread ranges ``bounds``),
        then ``eta | lambda``."""
        # draw_augmentation's omega is eta . counts / length: zbar over one "token".
        has_tokens = np.minimum(lengths, 1)
        method = PG_METHODS[self.pg_method]
        lam = np.empty(len(lengths))
        for _ in range(N_WEIGHT_DRAWS):
            map_ranges(lambda lo, hi: draw_augmentation(
                zbar, has_tokens, eta, float(self.c), method, self.pg_terms, pg_states, lo, hi,
                lam),
                bounds)
            eta = self._draw_weights(zbar, lam, kappa, rng)
            yield eta

    def _class_weights_draws(self, zbar, lengths, kappa, eta, pg_states, rng, bounds):
        """Draws of the multinomial model's weights (C, K) given fixed topic
        frequencies ``zbar`` (augmentation split into the thread ranges ``bounds``)."""
        eta = eta.copy()
        lam = np.empty((len(lengths), eta.shape[0]))
        for _ in range(N_WEIGHT_DRAWS):
            self._draw_class_weights(zbar, lengths, kappa, eta, pg_states, rng, bounds, lam)
            yield eta.copy()

    # ------------------------------------------------------------- inference
    def _n_topics(self):
        """Topics of each model, from the fitted weights (``components_``
        stacks one block per model; the weights' refit in ``_finish`` reads
        it after setting ``last_coef_``)."""
        return self.last_coef_.shape[1]

    def _n_models(self):
        """Topic models in ``components_``: 1 (binary, multinomial) or one per class."""
        return self.components_.shape[0] // self._n_topics()

    def _model_alphas(self):
        """The alpha vector of each binary model."""
        n_models = self._n_models()
        alphas = np.broadcast_to(self.doc_topic_prior_, (n_models,))
        return [np.full(self._n_topics(), alphas[m]) for m in range(n_models)]

    def _model_blocks(self, word_ids):
        """``(blocks, rows)``: the (topics (U, K), alpha vector) of each binary
        model, topics of the U words among ``word_ids`` only, and the row of
        each token's word in them (:func:`~._base.present_words`)."""
        topics, rows = self._present_topics(word_ids)
        k = self._n_topics()
        return [(np.ascontiguousarray(topics[:, m * k:(m + 1) * k]), alpha)
                for m, alpha in enumerate(self._model_alphas())], rows

    def _posterior_per_model(self, doc_ptr, word_ids, n_samples, n_average=None):
        """Averaged counts (and draws) of each binary model: the models in
        threads, or one model's documents in threads when there are fewer
        models than threads (each model has its own seed and each document
        its own stream, so the result does not depend on n_jobs)."""
        blocks, rows = self._model_blocks(word_ids)
        n_threads = effective_n_jobs(self.n_jobs, len(blocks))
        doc_jobs = self.n_jobs if n_threads == 1 else 1

        def infer(m):
            phi, alpha = blocks[m]
            return dirichlet_posterior(doc_ptr, word_ids, rows, phi, alpha, self.n_infer_iter,
                                       self._infer_seed + m, doc_jobs, n_samples, n_average)

        if n_threads == 1:
            return [infer(m) for m in range(len(blocks))]
        return list(thread_pool(n_threads).map(infer, range(len(blocks))))

    def _prediction_frequencies(self, doc_ptr, word_ids):
        """The documents' topic frequencies ``zbar`` (D, K) that each model's
        weights score (``prediction_topics``; user guide :ref:`slda_prediction`)."""
        # The settings of the fit: with prediction="refit" the weights were
        # fitted to these very frequencies, and "last" scores the last sweep's.
        lengths = np.maximum(np.diff(doc_ptr), 1)[:, None]
        if self._fitted_param("prediction_topics") == "expected":
            # Each token's topic probabilities given its word alone, summed by
            # a sparse product (repeated word ids add up).
            blocks, rows = self._model_blocks(word_ids)
            word_counts = sp.csr_matrix((np.ones(len(word_ids)), rows, doc_ptr),
                                        shape=(len(doc_ptr) - 1, blocks[0][0].shape[0]))
            return [np.asarray(word_counts @ (phi / phi.sum(axis=1, keepdims=True))) / lengths
                    for phi, _ in blocks]
        n_average = 1 if self._fitted_param("prediction") == "last" else None
        return [counts / lengths
                for counts, _ in self._posterior_per_model(doc_ptr, word_ids, 0, n_average)]

    def _posterior(self, doc_ptr, word_ids, n_samples):
        results = self._posterior_per_model(doc_ptr, word_ids, n_samples)
        means = [posterior_mean(counts, alpha)
                 for (counts, _), alpha in zip(results, self._model_alphas())]
        draws = None if not n_samples else np.concatenate([d for _, d in results], axis=2)
        return np.hstack(means), draws

    def _log_predictive(self, doc_ptr, rows, theta, topics):
        # The binary models' log-likelihoods, averaged (each explains every token).
        k = self._n_topics()
        values = [log_predictive(doc_ptr, rows, theta[:, m * k:(m + 1) * k].copy(),
                                 np.ascontiguousarray(topics[:, m * k:(m + 1) * k]))
                  for m in range(self._n_models())]
        return float(np.mean(values))

    def decision_function(self, X):
        """Scores eta . zbar of each binary model (of each class for the
        multinomial model).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For a binary problem the score of ``classes_[1]`` (positive means
            that class), else one column per class.
        """
        doc_ptr, word_ids = self._validated_tokens(X, "decision_function")
        frequencies = self._prediction_frequencies(doc_ptr, word_ids)
        if len(frequencies) == 1:
            scores = frequencies[0] @ self.coef_.T
        else:
            scores = np.column_stack([zbar @ eta for zbar, eta in zip(frequencies, self.coef_)])
        return scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """Class with the highest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities: the logistic of the score (binary), the softmax
        of the scores (multinomial), or the logistic of each one-vs-rest score
        normalized over classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``; rows sum to 1.
        """
        return np.exp(self.predict_log_proba(X))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed without overflow.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probabilities in the order of ``classes_`` (finite for any
            score).
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        if self._n_models() == 1:
            return scores - logsumexp(scores, axis=1, keepdims=True)
        log_p = log_expit(scores)
        return log_p - logsumexp(log_p, axis=1, keepdims=True)

    def transform(self, X):
        """Topic proportions of documents, with the topics fixed.

        The posterior mean of each document's topic proportions given its
        words and each fitted model's topics (Gibbs sampling over the
        tokens' topics, ``n_infer_iter`` sweeps), as in
        :meth:`~sklearn_pgtm.GibbsLDA.transform`; no label is used.
        Deterministic.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        doc_topic_distr : ndarray of shape (n_samples, n_models * n_components)
            One block of ``n_components`` columns per model, in the order of
            the rows of ``components_`` (one block for a binary problem or the
            multinomial model, one per class for one-vs-rest); the columns of
            each block sum to one in every row.
        """
        return super().transform(X)

    def sample_transform(self, X, n_samples=100):
        """Posterior draws of documents' topic proportions, with the topics fixed.

        As :meth:`~sklearn_pgtm.GibbsLDA.sample_transform`, for each fitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        n_samples : int, default=100
            Number of draws.

        Returns
        -------
        draws : ndarray of shape (n_samples, n_documents, n_models * n_components)
            The blocks of :meth:`transform`; each block of each draw sums to
            one.
        """
        return super().sample_transform(X, n_samples)

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A topic model of 2-5 "words" cannot separate the checks' Gaussian
        # blobs as well as a linear model on the raw features.
        tags.classifier_tags.poor_score = True
        return tags

