"""Throughput of the LDA Gibbs sweep vs tomotopy and the ``lda`` package.

Token-sweeps per second (tokens x iterations / seconds) on 20 Newsgroups
(all 18,846 documents, ``CountVectorizer(stop_words="english", min_df=2)``)
at K = 20, 100 and 1000, all samplers in the same process, symmetric
alpha = 0.1, beta = 0.01 fixed in every sampler (tomotopy's prior
optimization off), each started from its own random state, warm-up sweeps
(numba loading, tomotopy initialization; 3 at K <= 100, 2 at K = 1000) then
the timed sweeps. Ours through the public API only: a
``GibbsLDA(warm_start=True)`` is fitted for the warm-up sweeps, then its fit
is continued for the timed ones (each ``fit`` call validates X and records
the per-sweep log-likelihood trace: both are in the timing), with
``method="dense"``, ``"sparse"`` and ``"auto"``; ``auto`` on 1 and 2 threads
(``n_jobs=2``: document x vocabulary partitions) and tomotopy's
``LDAModel.train(n, workers=1)`` and ``workers=2`` timed as four chains
whose calls alternate, so that the ratios to tomotopy and the 2-thread
speed-ups compare calls made side by side on this shared machine; ``lda``
timed per call of its Cython sweep.

Peak memory at K = 1000: each sampler is run for two iterations in its own
subprocess, which reports its peak RSS (``VmHWM``); a subprocess that only loads the
corpus gives the baseline.

``--part threads``: the two-thread speed-up of the other models' whole fits
at their defaults (K = 20): the supervised model (binary: the five comp.*
groups against the rest of the 11,314 training messages; and multinomial
over the 20 classes) and the correlated model (both links, all 18,846
messages). Each pair is a warm-started chain on 1 thread and one on 2, in
rounds of a 1-thread fit then a 2-thread fit of the same number of sweeps;
the speed-up is reported over all rounds and as the median of the rounds'
own speed-ups (robust to a change of machine speed between rounds).
Then the host's own two-thread scaling on two reference kernels (a
compute-bound loop; random read-modify-writes of a private array per thread,
1, 4 and 16 MB), for reading the speed-ups against what this machine allows.

Usage: ``python benchmarks/throughput.py [--quick] [--part {lda,threads}]``.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import twenty_news_all  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402

ALPHA = 0.1
BETA = 0.01
# The timed fits of one configuration are this many calls of `fit` (at most
# max_iter sweeps each); several calls keep a change of machine speed from
# hitting one configuration only.
N_CALLS = 3
# --part threads: rounds of one 1-thread and one 2-thread fit each.
THREAD_ROUNDS = 7
# At least this many sweeps per timed call (ours and tomotopy's). A fit has
# fixed costs besides its sweeps (validating X: 0.01-0.15 s here; writing
# components_: 0.2 s at K = 1000, 2.5 s when its 576 MiB are first touched
# on this machine, whose kernel compacts memory for numpy's huge pages);
# a fit at the defaults spreads them over max_iter = 1000 sweeps. With 3
# sweeps per call (before) they were a third of a timed call at K = 1000;
# they are reported on their own instead ("fixed s per fit").
MIN_SWEEPS_PER_CALL = 10


def load_corpus(quick):
    """CSR counts and vocabulary of 20 Newsgroups (first 500 documents with --quick)."""
    X, vocab = twenty_news_all()
    return (X[:500] if quick else X), list(vocab)


def _n_iter(first_seconds, budget, max_iter, min_iter=1):
    return int(np.clip(budget / max(first_seconds, 1e-6), min(min_iter, max_iter), max_iter))


def _gibbs_lda(K, method):
    """``make(n_jobs)``: the timed GibbsLDA (fixed priors, every sweep kept)."""
    from sklearn_pgtm import GibbsLDA

    return lambda n_jobs: GibbsLDA(K, doc_topic_prior=ALPHA, topic_word_prior=BETA, burn_in=0,
                                   method=method, n_jobs=n_jobs)


def time_ours(X, K, method, n_jobs, budget, max_iter, n_warm=1):
    run = _model_chain(_gibbs_lda(K, method), X, None, n_jobs, n_warm)
    n = _n_iter(run(1), budget, max_iter, MIN_SWEEPS_PER_CALL)
    seconds = sum(run(n) for _ in range(N_CALLS))
    return int(X.sum()) * n * N_CALLS / seconds, n * N_CALLS


def _alternated_rates(chains, n_tokens, budget, max_iter):
    """Token-sweeps per second, timed iterations and fixed seconds per call
    of each chain of ``{name: run}`` (``run(n)`` continues a chain by ``n`` sweeps and
    returns the seconds; ``n_tokens`` an int, or a dict by name): one sweep
    of each to size the timed fits, then ``N_CALLS`` rounds of their fits
    alternated, so that a change of machine speed hits every chain alike."""
    first = {name: run(1) for name, run in chains.items()}
    n = _n_iter(sum(first.values()), len(chains) * budget, max_iter, MIN_SWEEPS_PER_CALL)
    seconds = dict.fromkeys(chains, 0.0)
    for _ in range(N_CALLS):
        for name, run in chains.items():
            seconds[name] += run(n)
    tokens = n_tokens if isinstance(n_tokens, dict) else dict.fromkeys(chains, n_tokens)
    rates = {j: tokens[j] * n * N_CALLS / seconds[j] for j in chains}
    # The one-sweep call less one sweep at the timed rate: the fixed cost of a call.
    return {j: (rates[j], n * N_CALLS, first[j] - tokens[j] / rates[j]) for j in chains}


def _model_chain(make, X, y, n_jobs, n_warm):
    """``make(n_jobs)`` (a warm-startable estimator) fitted for ``n_warm``
    sweeps; returns ``run(n)``, which continues it by ``n`` sweeps and
    returns the seconds they took."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)  # short timed fits by design
    model = make(n_jobs).set_params(max_iter=n_warm, warm_start=True, random_state=0)
    model.fit(X, y)

    def run(n):
        model.set_params(max_iter=n)
        t0 = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - t0

    return run


def model_one_vs_two_threads(make, X, y, budget, max_iter, n_rounds, n_warm=3):
    """The two-thread speed-up of ``make``: a chain on 1 thread and one on 2
    (warm-started), then ``n_rounds`` rounds, each a fit of the same number
    of sweeps on 1 thread then on 2 (sized for ``budget`` seconds per fit).

    Returns the rates ``(one, two)`` over all rounds (token-sweeps per
    second), the sweeps per fit, and each round's speed-up (its 1-thread
    over its 2-thread seconds). A round's two fits run back to back, so a
    change of machine speed between rounds cancels in its speed-up; the
    rates over all rounds do not have that protection (one slow fit on a
    shared host moves them)."""
    chains = [_model_chain(make, X, y, n_jobs, n_warm) for n_jobs in (1, 2)]
    first = sum(run(1) for run in chains)
    n = _n_iter(first, 2 * budget, max_iter, MIN_SWEEPS_PER_CALL)
    seconds = np.array([[run(n) for run in chains] for _ in range(n_rounds)])
    tokens = int(X.sum()) * n * n_rounds
    one, two = tokens / seconds.sum(axis=0)
    return one, two, n, seconds[:, 0] / seconds[:, 1]


def _host_kernels():
    """Two reference kernels of the host's own two-thread scaling, compiled
    here (benchmark code, not the package's): a compute-bound loop (a
    xorshift generator and a logarithm per step, no memory traffic) and
    random read-modify-writes of a private int32 array (the access pattern
    of a token's row of the topic-word counts, without the arithmetic)."""
    from numba import njit

    @njit(nogil=True, cache=True)
    def compute(n, seed):
        x = seed
        total = 0.0
        for _ in range(n):
            x ^= (x << 13) & 0xFFFFFFFFFFFF
            x ^= x >> 7
            x ^= (x << 17) & 0xFFFFFFFFFFFF
            total += np.log(1.0 + (x & 0xFFFF))
        return total

    @njit(nogil=True, cache=True)
    def random_access(counts, n, seed):
        x = seed
        total = 0
        m = counts.shape[0]
        for _ in range(n):
            x = (x * 6364136223846793005 + 1442695040888963407) & 0x7FFFFFFFFFFFFFFF
            j = (x >> 20) % m
            counts[j] += 1
            total += counts[(j * 7) % m]
        return total

    return compute, random_access


def host_scaling(n_rounds=5, quick=False):
    """The host's two-thread throughput on the reference kernels of
    :func:`_host_kernels`: one call alone, then two at once on two threads,
    alternated ``n_rounds`` times; returns rows (kernel, median seconds of one
    call alone, median seconds of the two at once, 2 x alone / together)."""
    from concurrent.futures import ThreadPoolExecutor

    compute, random_access = _host_kernels()
    n_steps = 2_000_000 if quick else 10_000_000
    cases = [("compute-bound loop", lambda k: compute(n_steps, k + 1))]
    for megabytes in (1, 4, 16):
        arrays = [np.zeros(megabytes * 2**18, dtype=np.int32) for _ in range(2)]
        cases.append((f"random increments, {megabytes} MB per thread",
                      lambda k, arrays=arrays: random_access(arrays[k], n_steps, k + 1)))
    rows = []
    with ThreadPoolExecutor(2) as pool:
        for name, call in cases:
            call(0)  # compilation / first touch
            alone, together = [], []
            for _ in range(n_rounds):
                t0 = time.perf_counter()
                call(0)
                alone.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                for future in [pool.submit(call, k) for k in range(2)]:
                    future.result()
                together.append(time.perf_counter() - t0)
            one, two = float(np.median(alone)), float(np.median(together))
            rows.append([name, f"{one:.3f}", f"{two:.3f}", f"{2 * one / two:.2f}"])
    return rows


def threads(quick=False):
    """Two-thread speed-up of the supervised and correlated models' fits."""
    from _corpora import twenty_news

    from sklearn_pgtm import CorrelatedTopicModel, GibbsSLDAClassifier

    news = twenty_news(None, max_docs_per_class=25 if quick else None)
    X_news, y_news = news["X_train"], np.asarray(news["y_train"])
    names = np.asarray(news["target_names"])
    comp = np.char.startswith(names[y_news].astype(str), "comp.").astype(int)
    X_all, _ = load_corpus(quick)
    budget = 0.5 if quick else 3.0
    max_iter = 2 if quick else 20
    n_rounds = 2 if quick else THREAD_ROUNDS
    cases = [
        # prediction="average": the sweeps alone, without the refit that
        # ends each (warm-started) fit at the default prediction="refit".
        ("GibbsSLDAClassifier, binary (comp.* vs rest)", X_news, comp,
         lambda j: GibbsSLDAClassifier(split_merge=False, prediction="average", n_jobs=j)),
        ("GibbsSLDAClassifier, multinomial (20 classes)", X_news, y_news,
         lambda j: GibbsSLDAClassifier(multi_class="multinomial", split_merge=False,
                                       prediction="average", n_jobs=j)),
        # The correlated chain's first burn_in // 2 sweeps are plain LDA sweeps
        # (250 at the defaults): a burn-in of 40 keeps that warm-up at 20
        # sweeps, so that the timed sweeps are correlated ones, the bulk of a
        # default fit, except the first round's first 16 (iterations 4-19, after
        # the 3 warm-start sweeps and the sizing sweep).
        ("CorrelatedTopicModel, logistic normal", X_all, None,
         lambda j: CorrelatedTopicModel(burn_in=40, n_jobs=j)),
        ("CorrelatedTopicModel, stick breaking", X_all, None,
         lambda j: CorrelatedTopicModel(link="stick_breaking", burn_in=40, n_jobs=j)),
    ]
    load_before = uptime()
    rows = []
    for name, X, y, make in cases:
        one, two, n, speedups = model_one_vs_two_threads(make, X, y, budget, max_iter,
                                                         n_rounds, n_warm=1 if quick else 3)
        rows.append([name, f"{X.shape[0]:,}", f"{int(X.sum()):,}", n, f"{one / 1e6:.2f}",
                     f"{two / 1e6:.2f}", f"{two / one:.2f}", f"{np.median(speedups):.2f}",
                     " ".join(f"{v:.2f}" for v in sorted(speedups))])
        print(rows[-1], flush=True)
    body = "\n".join([
        "Whole fits at the defaults (K = 20; the classifier without its split-merge "
        "moves, which are not sweeps; the correlated model with a burn-in of 40, so "
        "that its plain-LDA warm-up, half the burn-in, ends after 20 sweeps and the "
        "timed sweeps are correlated ones, except in the first round) continuing "
        "warm-started chains (3 warm-up "
        "sweeps from a random start, compilation included there), one chain on 1 thread "
        f"and one on 2, in {n_rounds} rounds of two fits of the same number of sweeps "
        f"(timed iters per fit, chosen for about {budget:g} s per fit), the 1-thread fit "
        "then the 2-thread one. Supervised: the 20 Newsgroups training messages (binary "
        "target: the five comp.* groups against the rest); correlated: all 20 Newsgroups "
        "messages. M token-sweeps per second over all rounds, and their ratio; then the "
        "median and the sorted values of the rounds' own speed-ups (1-thread seconds over "
        "2-thread seconds of the same round: a change of machine speed between rounds "
        "cancels in them, while one slow fit moves the ratio of the totals).",
        "",
        markdown_table(["model", "documents", "tokens", "timed iters", "1 thread",
                        "2 threads", "ratio of totals", "median round (target >= 1.6)",
                        "rounds"], rows),
        "",
        f"Machine load (2-core machine): before `{load_before}`; after `{uptime()}`.",
        "",
        "The host's own two-thread scaling, measured right after (reference kernels "
        "compiled by this script: a compute-bound loop, and random read-modify-writes of "
        "a private int32 array per thread, the access pattern of the sweeps' topic-word "
        "rows without their arithmetic; one call alone against two at once on two "
        "threads, alternated 5 times, medians): what a loop bound by computation, and "
        "one bound by memory accesses over working sets of three sizes, gain from a "
        "second thread on this host.",
        "",
        markdown_table(["reference kernel", "1 call alone (s)", "2 calls at once (s)",
                        "two-thread throughput"], host_scaling(quick=quick)),
    ])
    if not quick:
        write_section("throughput_threads",
                      "Two threads: the supervised and correlated models", body)
    print(body)


def tomotopy_model(X, vocab, K):
    import tomotopy as tp

    mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=0)
    vocab = np.asarray(vocab, dtype=object)
    for d in range(X.shape[0]):
        s, e = X.indptr[d], X.indptr[d + 1]
        mdl.add_doc(list(np.repeat(vocab[X.indices[s:e]], X.data[s:e])))
    mdl.optim_interval = 0
    return mdl


def _tomotopy_chain(X, vocab, K, workers, n_warm):
    """tomotopy's LDAModel trained ``n_warm`` iterations; returns ``(run,
    n_tokens)``, ``run(n)`` training ``n`` more and returning the seconds."""
    mdl = tomotopy_model(X, vocab, K)
    mdl.train(n_warm, workers=workers)

    def run(n):
        t0 = time.perf_counter()
        mdl.train(n, workers=workers)
        return time.perf_counter() - t0

    return run, mdl.num_words


def time_with_tomotopy(X, vocab, K, budget, max_iter, n_warm):
    """Rates of GibbsLDA ``auto`` on 1 and 2 threads and tomotopy's LDAModel
    on 1 and 2 workers, four chains whose timed calls are alternated
    (:func:`_alternated_rates`): the ratios to tomotopy are taken between
    calls made side by side."""
    chains, tokens = {}, {}
    for n_jobs in (1, 2):
        name = "auto" if n_jobs == 1 else "auto x2"
        chains[name] = _model_chain(_gibbs_lda(K, "auto"), X, None, n_jobs, n_warm)
        tokens[name] = int(X.sum())
    for workers in (1, 2):
        name = "tomotopy" if workers == 1 else "tomotopy x2"
        chains[name], tokens[name] = _tomotopy_chain(X, vocab, K, workers, n_warm)
    return _alternated_rates(chains, tokens, budget, max_iter)


def time_lda(X, K, budget, max_iter, n_warm=1):
    import lda

    model = lda.LDA(n_topics=K, n_iter=1, alpha=ALPHA, eta=BETA, random_state=0)
    model._initialize(X)
    rands = model._rands.copy()
    for _ in range(n_warm):
        model._sample_topics(rands)  # warm-up, same as the others
    t0 = time.perf_counter()
    model._sample_topics(rands)
    n = _n_iter(time.perf_counter() - t0, budget, max_iter)
    t0 = time.perf_counter()
    for _ in range(n):
        model._sample_topics(rands)
    return len(model.WS) * n / (time.perf_counter() - t0), n


def memory_child(which, quick, K):
    """Run in a subprocess: fit two iterations and print peak RSS (MiB)."""
    X, vocab = load_corpus(quick)
    if which == "imports":
        import sklearn_pgtm  # noqa: F401
    elif which in ("ours", "ours_dense"):
        _gibbs_lda(K, "auto" if which == "ours" else "dense")(1).set_params(max_iter=2).fit(X)
    elif which == "tomotopy":
        _tomotopy_chain(X, vocab, K, 1, 2)
    # VmHWM is the peak RSS of this process image (ru_maxrss would carry the
    # parent's peak over fork/exec on Linux).
    peak = None
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    except OSError:
        pass
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"maxrss_mib": peak}))


def peak_memory(which, quick, K):
    cmd = [sys.executable, os.path.abspath(__file__), "--memory-child", which, "--k", str(K)]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["maxrss_mib"]


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "n/a"


def main(quick=False):
    X, vocab = load_corpus(quick)
    n_tokens = int(X.sum())
    Ks = (20,) if quick else (20, 100, 1000)
    budget = 0.5 if quick else 8.0
    max_iter = 2 if quick else 30
    load_before = uptime()
    rows = []
    summary = {}
    for K in Ks:
        r = {}
        n_warm = 1 if quick else (2 if K >= 1000 else 3)
        for method in ("dense", "sparse"):
            r[method] = time_ours(X, K, method, 1, budget, max_iter, n_warm)
        r.update(time_with_tomotopy(X, vocab, K, budget, max_iter, n_warm))
        r["lda"] = time_lda(X, K, budget, max_iter, 1 if K >= 1000 else n_warm)
        from sklearn_pgtm._chain import SPARSE_MIN_TOPICS

        auto = "sparse" if K >= SPARSE_MIN_TOPICS else "dense"
        tomo = r["tomotopy"][0]
        for name, (rate, n, *_) in r.items():
            rows.append([K, name, n, f"{rate / 1e6:.2f}", f"{rate / tomo:.2f}",
                         f"{rate / r['lda'][0]:.2f}"])
        summary[K] = {
            "auto": auto,
            "auto_vs_tomotopy": r["auto"][0] / tomo,
            "dense_vs_tomotopy": r["dense"][0] / tomo,
            "two_thread_speedup": r["auto x2"][0] / r["auto"][0],
            "tomotopy_two_thread_speedup": r["tomotopy x2"][0] / tomo,
            "fixed_seconds": r["auto"][2],
        }
        print(markdown_table(["K", "sampler", "timed iters", "M tok-sweeps/s",
                              "vs tomotopy", "vs lda"], rows[-len(r):]), flush=True)
    K_mem = Ks[-1] if quick else 1000
    mem = {w: peak_memory(w, quick, K_mem) for w in ("none", "imports", "ours", "ours_dense",
                                                     "tomotopy")}
    load_after = uptime()

    body = [
        f"20 Newsgroups ({'first 500 docs' if quick else 'all'}): {X.shape[0]} documents, "
        f"{X.shape[1]} words, {n_tokens} tokens; alpha = {ALPHA}, beta = {BETA}. "
        "Rates in millions of token-sweeps per second after warm-up iterations from a "
        "random start (3 at K <= 100, 2 at K = 1000 (1 for `lda`), 1 in --quick; "
        "compilation included in the warm-up), timed iterations chosen for about "
        f"{budget:g} s per call (at least {MIN_SWEEPS_PER_CALL} per call for ours and "
        f"tomotopy), in {N_CALLS} calls: ours of `GibbsLDA.fit` continuing a "
        "warm-started chain (validation of X and the per-sweep log-likelihood trace "
        "included), tomotopy's of `train`. `auto` picks `dense` for K < 300, `sparse` "
        "above; `auto`, `auto x2`, `tomotopy` and `tomotopy x2` are four chains whose "
        "calls alternate (the ratios to tomotopy compare calls made side by side). "
        "'fixed s per fit': the time of a one-sweep call of `auto` less one sweep at its "
        "timed rate (validation of X, writing `components_`; a fit at the defaults runs "
        "1000 sweeps in one call).",
        "",
        markdown_table(["K", "sampler", "timed iters", "M tok-sweeps/s", "vs tomotopy",
                        "vs lda"], rows),
        "",
        markdown_table(
            ["K", "auto =", "auto / tomotopy (target >= 1.2 / 1.33 / 1.33)",
             "dense / tomotopy", "2-thread speedup (target >= 1.6)",
             "tomotopy 2-worker speedup", "auto: fixed s per fit"],
            [[K, s["auto"], f"{s['auto_vs_tomotopy']:.2f}", f"{s['dense_vs_tomotopy']:.2f}",
              f"{s['two_thread_speedup']:.2f}", f"{s['tomotopy_two_thread_speedup']:.2f}",
              f"{s['fixed_seconds']:.2f}"]
             for K, s in summary.items()],
        ),
        "",
        f"Peak RSS at K = {K_mem} (two iterations, one subprocess each; "
        f"baseline = Python + corpus only): baseline {mem['none']:.0f} MiB, "
        f"baseline + numba kernels imported {mem['imports']:.0f} MiB, "
        f"ours (auto) {mem['ours']:.0f} MiB, ours (dense) {mem['ours_dense']:.0f} MiB, "
        f"tomotopy {mem['tomotopy']:.0f} MiB.",
        "",
        f"Machine load (shared 2-core machine): before `{load_before}`; after `{load_after}`.",
    ]
    if not quick:  # a smoke run must not replace the measured numbers
        write_section("throughput", "Throughput of the LDA Gibbs sweep", "\n".join(body))
    print("\n".join(body))
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--memory-child", default=None)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--part", choices=("lda", "threads"), default="lda")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child, args.quick, args.k)
    elif args.part == "threads":
        threads(quick=args.quick)
    else:
        main(quick=args.quick)
