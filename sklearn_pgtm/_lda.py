"""Latent Dirichlet allocation by collapsed Gibbs sampling: the base of the family."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import (
    MIN_PRIOR,
    N_JOBS_CONSTRAINT,
    GibbsRun,
    GibbsTopicModel,
    IntegerInterval,
    dirichlet_posterior,
    posterior_mean,
)
from ._chain import LDA_METHODS, TopicChain
from ._priors import DirichletPriors
from ._split_merge import MIN_TOPICS, SplitMerge

# A fixed or starting Dirichlet prior of every model of the family. Below 1e-10
# the augmentation of an estimated prior (EmpiricalBayesLDA's Gamma and Beta
# draws) and the dynamic model's first logits underflow (division by zero at
# about 1e-16 and 1e-300); no corpus wants a prior that small.
PRIOR_VALUE = Interval(Real, MIN_PRIOR, None, closed="left")
PRIOR_CONSTRAINT = [StrOptions({"auto"}), PRIOR_VALUE]
# topic_word_prior may also be an (n_components, n_features) array (seeded topics).
TOPIC_WORD_PRIOR_CONSTRAINT = PRIOR_CONSTRAINT + ["array-like"]


class DirichletTopicModel(GibbsTopicModel):
    """Shared parts of the models whose documents have a Dirichlet prior
    (LDA and the supervised model): the prior attributes, the split-merge
    moves of the burn-in and the inference of new documents. Not for direct
    use."""

    def _start_priors(self, chain, seed):
        beta = self._topic_word_prior_for(chain.n_topics, chain.n_words)
        return DirichletPriors.for_chain(chain, self.doc_topic_prior, beta, seed)

    def _start_moves(self, seed, seeded=False):
        """The chain's split-merge moves (user guide :ref:`split_merge`) from
        their own stream ``seed``, or None: ``split_merge`` off, a topic-word
        prior array (seeded topics) or fewer than three topics."""
        if self.split_merge and not seeded and self.n_components >= MIN_TOPICS:
            return SplitMerge.from_seed(seed)
        return None

    def _move_topics(self, run):
        """After the sweep of ``run.iteration``: a round of split-merge moves
        when one is due (symmetric priors), noted for the progress report:
        one line per round, one per accepted move with ``verbose >= 2``."""
        moves = run.split_merge
        if moves is not None and moves.due(run.iteration, self.burn_in_):
            made = moves.step(run.chain, float(run.priors.alpha[0]), float(run.priors.beta),
                              run.iteration)
            if len(made) == 1 or (made and self.verbose >= 2):
                run.notes.extend(str(move) for move in made)
            elif made:
                # At K = 100 a round can accept a dozen moves: a line each
                # buried the sweeps' progress lines.
                run.notes.append(
                    f"after sweep {made[0].sweep}, {len(made)} split-merge moves (log joint "
                    f"+{sum(move.gain for move in made):.1f}; verbose=2 lists them)")

    def _alpha_vector(self):
        return np.full(self._n_topics(), self.doc_topic_prior_)

    def _posterior(self, doc_ptr, word_ids, n_samples):
        alpha = self._alpha_vector()
        phi, rows = self._present_topics(word_ids)
        mean_counts, draws = dirichlet_posterior(doc_ptr, word_ids, rows, phi, alpha,
                                                 self.n_infer_iter, self._infer_seed,
                                                 self.n_jobs, n_samples)
        return posterior_mean(mean_counts, alpha), draws


class GibbsLDA(DirichletTopicModel):
    """Latent Dirichlet allocation fitted by collapsed Gibbs sampling.

    The topics of the tokens are resampled from their exact conditional
    (topic-word and document-topic distributions integrated out) by a fast
    numba sweep (dense for up to a few hundred topics, SparseLDA above), on
    one thread or, with ``n_jobs``, on a partitioned multi-threaded scheme.
    The Dirichlet priors are estimated from the corpus by default
    (``"auto"``: during the burn-in the chain moves them too, by the
    data-augmentation update of Xia & Doss, and at its end they are fixed at
    the empirical-Bayes estimate, the maximizer of the marginal likelihood
    estimated over the second half of the burn-in), or fixed to given values.
    After the burn-in, the topic-word counts are averaged over the remaining
    sweeps.

    Read more in the :ref:`User Guide <lda>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (K). The default is scikit-learn's
        (:class:`~sklearn.decomposition.LatentDirichletAllocation`), so that
        one estimator replaces the other at the same size. K is the user's
        modelling choice, which no default can make for every corpus; the
        other defaults were checked across it: at K = 5, 10, 20, 50 and 100
        this model at its defaults had a lower held-out perplexity than
        scikit-learn's and tomotopy's LDA on every corpus of
        ``benchmarks/defaults.py`` (sections defaults_peers and
        defaults_unseen of ``benchmarks/RESULTS.md``). To choose it, compare
        :func:`sklearn_pgtm.metrics.document_completion_perplexity` on
        held-out documents, or :meth:`score` (document completion too: the
        proportions inferred from half of each document's tokens, the other
        half scored; ``GridSearchCV`` over ``n_components`` uses it), and
        topic coherence (:func:`sklearn_pgtm.metrics.topic_coherence`).

    doc_topic_prior : "auto" or float, default="auto"
        Symmetric Dirichlet prior ``alpha`` of the documents' topic
        proportions. ``"auto"``: the empirical-Bayes estimate (the value that
        maximizes the marginal likelihood of the corpus; see
        ``doc_topic_prior_``). Against the fixed pairs (alpha, beta) users
        pick (``benchmarks/priors.py``, seeds 0 and 1, sections priors_auto
        and priors_auto_seed1 of ``benchmarks/RESULTS.md``; K = 20, held-out
        document-completion perplexity, mean of the two seeds), "auto" /
        (1 / K, 1 / K) (scikit-learn's defaults) / (0.1, 0.01) (tomotopy's)
        / (50 / K, 0.1) scored 1996 / 1971 / 2192 / 2408 on 432 20
        Newsgroups messages, 1020 / 1007 / 1028 / 1158 on the five comp.*
        groups ("auto" 984 and 1056 with the two seeds: this corpus's chains
        spread widely) and 2471 / 2498 / 2529 / 2803 on AP: within 1.3 % of
        the best fixed pair everywhere, without knowing which one it is.
        ``topic_word_prior="auto"`` is measured with it.

    topic_word_prior : "auto", float or array-like of shape (n_components, n_features), default="auto"
        Dirichlet prior ``beta`` of the topics' word distributions: a float
        is a symmetric prior, ``"auto"`` as above, and an array gives each
        topic its own prior over the words, held fixed: seeded topics
        (see :func:`sklearn_pgtm.priors.seeded_topic_word_prior`, which
        builds one from seed words).

    max_iter : int, default=1000
        Gibbs sweeps per call of :meth:`fit`. The default is what four chains
        needed to agree (split-R-hat of the log-likelihood below 1.05) on
        corpora drawn from LDA (200-1,000 documents of 80-150 words, 200-1,000
        words, K = 5-20, two seeds each): 1.003-1.036 at 1,000 sweeps with a
        burn-in of 500, against up to 2.12 at 200 / 100 and 1.15 at 600 / 300
        (user guide, :ref:`dirichlet_priors`). Tiny corpora mix more slowly
        (60 documents of 50 words over 30 words: 1.07 at 1,000 sweeps);
        check a fit with :func:`sklearn_pgtm.diagnostics.run_chains`.
        So do larger corpora: at K = 20 the log-likelihood still rose
        over the second half of 1,000 sweeps on AP and six 20 Newsgroups
        groups (trend z-scores 6.4 and 9.9; flat, -0.5, on 2,000 LDA-drawn
        documents; section convergence_warning of 2026-11-29; an earlier
        measurement over the kept sweeps gave 11.0-11.4 on all three); at
        3,000 sweeps it was flat on AP and the LDA-drawn corpus (z = -2.4,
        2.1) but still rose on the 20 Newsgroups groups (z = 11.1). The
        held-out perplexity moved little with the length (200 20 Newsgroups
        messages, six seeds: 1416, 1426, 1421 at 1,000, 2,000, 4,000 sweeps;
        seven corpora of ``benchmarks/defaults.py``, each fit continued by
        1,000 sweeps: -0.45 % to +0.17 %, ``benchmarks/convergence.py``), so
        the default was not raised, and the warning requires a rise of more
        than 0.01 nats per token over the kept half (1 % of the training
        perplexity), chosen by following its advice in that benchmark: the
        fits at the defaults rose by at most 0.0070, while 200-sweep chains
        that gained 0.78-1.73 % from 200 more sweeps had risen by
        0.0135-0.039.

    burn_in : int or "auto", default="auto"
        Sweeps before the topic-word counts are averaged; "auto" priors are
        estimated over the second half of the burn-in and held at the
        estimate afterwards (a shorter burn-in leaves chains at different
        estimates of the priors, measured with ``max_iter``); they need a
        burn-in of at least one sweep. ``"auto"``: half of ``max_iter`` (500
        at the default 1,000), the split that the R-hat measurements of
        ``max_iter`` used at every length, so that a shorter or longer chain
        keeps its proportions; a ``warm_start`` continuation keeps the
        burn-in its chain started with (``burn_in_``). A chain of ``max_iter
        <= burn_in`` sweeps keeps none: ``components_`` is then the last
        sweep's, and the fit raises a ``ConvergenceWarning`` saying so.

    n_infer_iter : int, default=100
        Gibbs sweeps over a new document's topics (topics fixed) in
        :meth:`transform`; the proportions are averaged over all of them but
        the first eighth, at least the first five (half below ten sweeps;
        user guide :ref:`infer_averaging`; until 2026-11-29 the second half,
        0.03-0.31 % higher held-out perplexity on seven corpora, section
        ``infer_averaging`` of ``benchmarks/RESULTS.md``).
        On the seven corpora of the peers table (fits at the defaults,
        held-out document-completion perplexity, three halvings;
        ``benchmarks/inference.py --part sweeps``, section ``infer_sweeps``)
        100 sweeps were 0.04-0.18 % below 50 and 200 / 400 another 0.03-0.12
        / 0.05-0.20 % below 100, at twice / four times the 0.01-0.15 s of a
        transform of the 48-351 held-out documents: 100 takes most of the
        gain, and inference stays cheap next to the fit (7-25 s there). With
        the second half averaged, AP had given 2487 / 2476 / 2467 at 50 / 100
        / 200 sweeps.

    split_merge : bool, default=True
        Split-merge moves during the first half of the burn-in: every 25
        sweeps, the moves (merge two topics, split a third in two) that raise
        the collapsed log joint, largest gain first (user guide,
        :ref:`split_merge`). They take the chain out of states where two true
        topics share one topic while another is cut in two, which
        single-token moves leave only after hundreds or thousands of sweeps.
        Measured (``benchmarks/defaults.py`` corpora, fits at the other
        defaults, K = 20): on 2,000 documents drawn from LDA the held-out
        perplexity of seeds 0-4 was 283.2-283.4 with the moves (every chain
        at the true topics, worst L1 distance 0.13) against 294.3 / 283.0 /
        293.0 for seeds 0-2 without (two chains kept merged topics, worst L1
        1.93 and 0.89); on three 20 Newsgroups subsets and AP, seed 0, 2006 /
        3357 / 984 / 2476 against 2006 / 3365 / 982 / 2476, and on the comp
        groups over seeds 0-2 a mean of 1000 against 1004. A round costs 0.9
        / 1.0 / 1.9 s on all of 20 Newsgroups at K = 20 / 100 / 1,000 (4 / 3
        / 1 sweeps; ten rounds in a fit at the defaults). Not made with
        fewer than three topics or with a topic-word prior array (seeded
        topics keep their slots).

    method : {"auto", "dense", "sparse"}, default="auto"
        Topic sweep: ``"dense"`` costs O(K) per token, ``"sparse"``
        (SparseLDA) grows with the topics of the document and of the word;
        ``"auto"`` takes the dense sweep below 300 topics and the sparse one
        from there (measured on 20 Newsgroups, see ``benchmarks/throughput.py``).
        Both sample the same conditional.

    warm_start : bool, default=False
        Keep the chain after :meth:`fit` and, on the next call with the same
        ``X``, continue it for ``max_iter`` more sweeps instead of starting
        anew: identical to one longer fit with the same ``random_state`` and
        ``burn_in`` (the continuation keeps the first fit's ``burn_in_``; with
        ``"auto"`` a fresh longer fit would resolve it from its own
        ``max_iter``).
        Other data, or another value of a parameter other than ``max_iter``,
        ``n_jobs``, ``verbose`` and the inference settings, raises
        ``ValueError`` (set ``warm_start=False`` to start a new chain).
        The kept chain (every token's word and topic, and the count tables)
        makes the fitted estimator and its pickle grow with the training
        tokens: 2.7 MB against 0.32 MB without it (4,000 documents of about 50
        tokens, K = 20, V = 2,000).

    n_jobs : int, default=None
        Threads of the topic sweep and of inference. ``None`` or 1 runs the
        exact serial sweep; more threads run the document x vocabulary
        partitioned sweep (user guide, :ref:`threads`). ``-1`` uses all cores.
        Results depend only on ``random_state`` and ``n_jobs``.

    random_state : int, RandomState instance or None, default=None
        Seed of the chain and of inference; the same value gives the same fit
        and the same ``transform`` output.

    verbose : int, default=0
        Print progress (sweeps, log-likelihood, time) and a summary; from 2
        on, every accepted split-merge move (1: one line per round of moves).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts (scikit-learn's meaning): ``topic_word_prior_``
        plus the topic-word counts averaged over the sweeps after the
        burn-in (the last sweep's when none followed it). Normalized rows are
        the posterior mean topics.

    doc_topic_prior_ : float
        The document-topic prior used (estimated when ``"auto"``).

    topic_word_prior_ : float or ndarray of shape (n_components, n_features)
        The topic-word prior used (estimated when ``"auto"``).

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        ``log p(w, z | alpha, beta)`` after each sweep.

    trace_ : ChainTrace
        Per-sweep record of the chain (log-likelihood, topic shares, the
        estimated priors), for diagnostics.

    n_iter_ : int
        Sweeps run (over every call of ``fit`` with ``warm_start``).

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
    EmpiricalBayesLDA : LDA with the empirical-Bayes priors and their confidence region.
    sklearn.decomposition.LatentDirichletAllocation : Variational LDA.

    References
    ----------
    .. [1] T. Griffiths, M. Steyvers, "Finding scientific topics", PNAS 2004.
    .. [2] W. Xia, H. Doss, "Scalable hyperparameter selection for latent
       Dirichlet allocation", JCGS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import GibbsLDA
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(40, 30))
    >>> lda = GibbsLDA(n_components=3, max_iter=40, burn_in=20, random_state=0).fit(X)
    >>> lda.components_.shape
    (3, 30)
    >>> lda.transform(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "doc_topic_prior": PRIOR_CONSTRAINT,
        "topic_word_prior": TOPIC_WORD_PRIOR_CONSTRAINT,
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "burn_in": [IntegerInterval(0, None, closed="left"), StrOptions({"auto"})],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "split_merge": ["boolean"],
        "method": [StrOptions(set(LDA_METHODS))],
        "warm_start": ["boolean"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=10,
        *,
        doc_topic_prior="auto",
        topic_word_prior="auto",
        max_iter=1000,
        burn_in="auto",
        n_infer_iter=100,
        split_merge=True,
        method="auto",
        warm_start=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.n_infer_iter = n_infer_iter
        self.split_merge = split_merge
        self.method = method
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------- the model's steps
    def _start_run(self, X, doc_ptr, word_ids, seed):
        chain_seed, prior_seed, move_seed = np.random.SeedSequence(seed).spawn(3)
        beta = self._topic_word_prior_for(self.n_components, X.shape[1])
        seeded = np.ndim(beta) == 2
        chain = TopicChain.random(doc_ptr, word_ids, self.n_components, X.shape[1], chain_seed,
                                  beta=beta if seeded else None)
        return GibbsRun(chain, self._start_priors(chain, prior_seed),
                        split_merge=self._start_moves(move_seed, seeded))

    def _sweep(self, run):
        priors = run.priors
        run.chain.sweep_lda(priors.alpha, priors.beta, self.n_jobs, self.method)
        self._move_topics(run)
        self._update_priors(run)

    def _log_likelihood(self, run):
        return run.priors.log_joint(run.chain)

    def _finish(self, run):
        self._finish_priors(run)
        self.components_ = run.components(self.topic_word_prior_)
