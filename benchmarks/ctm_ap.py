"""CorrelatedTopicModel on the AP corpus, side by side with its peers.

Held-out document completion perplexity (5% of the documents held out, each
held-out document's counts split binomially in half, MODELS.md protocol),
K = 50, for both links, against scikit-learn's LatentDirichletAllocation and
tomotopy's CTModel, all in this one run; and training throughput
(token-sweeps per second, one thread) at K = 50 and K = 100 as a ratio to
tomotopy's CTModel.

Usage: python benchmarks/ctm_ap.py [--quick]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import DATA, ap  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402


def word_lists(X, vocab):
    X = X.tocsr()
    out = []
    for i in range(X.shape[0]):
        sl = slice(X.indptr[i], X.indptr[i + 1])
        out.append([vocab[j] for j, n in zip(X.indices[sl], X.data[sl]) for _ in range(int(n))])
    return out


class TomotopyCTM:
    """Adapter: tomotopy's CTModel with ``transform`` and ``components_`` over our vocabulary."""

    def __init__(self, n_components, iterations, seed):
        self.n_components, self.iterations, self.seed = n_components, iterations, seed

    def fit(self, X, vocab):
        import tomotopy as tp

        self.vocab = vocab
        self.model = tp.CTModel(k=self.n_components, seed=self.seed)
        for words in word_lists(X, vocab):
            if words:
                self.model.add_doc(words)
        t0 = time.perf_counter()
        self.model.train(self.iterations, workers=1)
        self.seconds = time.perf_counter() - t0
        index = {w: i for i, w in enumerate(vocab)}
        phi = np.full((self.n_components, len(vocab)), 1e-12)
        cols = np.array([index[w] for w in self.model.used_vocabs])
        for k in range(self.n_components):
            phi[k, cols] = self.model.get_topic_word_dist(k)
        self.components_ = phi / phi.sum(axis=1, keepdims=True)
        self.n_tokens = self.model.num_words
        return self

    def transform(self, X):
        theta = np.full((X.shape[0], self.n_components), 1.0 / self.n_components)
        docs, rows = [], []
        for i, words in enumerate(word_lists(X, self.vocab)):
            words = [w for w in words if w in self.model.used_vocabs]
            if words:
                docs.append(self.model.make_doc(words))
                rows.append(i)
        if docs:
            dists, _ = self.model.infer(docs, iterations=100, workers=1)
            theta[rows] = np.array(dists)
        return theta

    def __sklearn_is_fitted__(self):
        return hasattr(self, "components_")


def perplexities(X_train, X_test, vocab, K, max_iter, seed):
    from sklearn.decomposition import LatentDirichletAllocation

    from sklearn_pgtm import CorrelatedTopicModel
    from sklearn_pgtm.metrics import heldout_perplexity, split_document_completion

    observed, heldout = split_document_completion(X_test, random_state=seed)
    rows = []

    def evaluate(name, model, seconds):
        theta = model.transform(observed)
        rows.append([name, heldout_perplexity(theta, model.components_, heldout), seconds])
        print(rows[-1], flush=True)

    for link in ["logistic_normal", "stick_breaking"]:
        model = CorrelatedTopicModel(K, link=link, pg_method="gaussian", max_iter=max_iter,
                                     random_state=seed)
        t0 = time.perf_counter()
        model.fit(X_train)
        evaluate(f"CorrelatedTopicModel link={link}, pg_method=gaussian", model,
                 time.perf_counter() - t0)
    lda = LatentDirichletAllocation(n_components=K, learning_method="batch", max_iter=50,
                                    random_state=seed)
    t0 = time.perf_counter()
    lda.fit(X_train)
    evaluate("sklearn LatentDirichletAllocation (batch VB, 50 iter)", lda,
             time.perf_counter() - t0)
    tp_model = TomotopyCTM(K, max_iter, seed).fit(X_train, vocab)
    evaluate(f"tomotopy CTModel ({max_iter} iter)", tp_model, tp_model.seconds)
    return rows


def throughput(X, vocab, K, iters):
    from sklearn_pgtm import CorrelatedTopicModel

    n_tokens = int(X.sum())
    rates = {}
    CorrelatedTopicModel(K, pg_method="gaussian", max_iter=2, random_state=0).fit(X[:50])
    for link in ["logistic_normal", "stick_breaking"]:
        seconds = {}
        for n_iter in (iters, 100, 200):
            model = CorrelatedTopicModel(K, link=link, pg_method="gaussian", max_iter=n_iter,
                                         random_state=0)
            t0 = time.perf_counter()
            model.fit(X)
            seconds[n_iter] = time.perf_counter() - t0
        rates[link] = n_tokens * iters / seconds[iters]
        # Both longer fits start with the same 20 warm-start LDA sweeps, so
        # their difference is the cost of correlated sweeps alone.
        rates[link + " correlated"] = n_tokens * 100 / (seconds[200] - seconds[100])
    tp_model = TomotopyCTM(K, iters, 0).fit(X, vocab)
    rates["tomotopy"] = tp_model.n_tokens * iters / tp_model.seconds
    return rates


def main(quick=False):
    if not (DATA / "ap").exists():
        print("AP data not found at", DATA / "ap")
        return
    X, vocab = ap()
    if quick:
        X = X[:800]
    rng = np.random.RandomState(0)
    order = rng.permutation(X.shape[0])
    n_test = int(round(0.05 * X.shape[0]))
    X_test, X_train = X[order[:n_test]], X[order[n_test:]]
    K = 10 if quick else 50
    max_iter = 20 if quick else 200
    rows = perplexities(X_train, X_test, vocab, K, max_iter, 0)
    body = (
        f"AP: {X_train.shape[0]} training / {X_test.shape[0]} held-out documents "
        f"(5%), {X.shape[1]} words, K = {K}, {max_iter} Gibbs sweeps for the samplers. "
        "Document completion: held-out counts split binomially in half, proportions "
        "inferred from the first half, perplexity of the second (lower is better).\n\n"
        + markdown_table(["model", "held-out perplexity", "fit seconds"], rows)
    )
    rate_rows = []
    summary = {f"perplexity {name}": round(float(ppl), 1) for name, ppl, _ in rows}
    for K_rate in ([10] if quick else [50, 100]):
        iters = 5 if quick else 20
        rates = throughput(X_train, vocab, K_rate, iters)
        for link in ["logistic_normal", "stick_breaking"]:
            corr = rates[link + " correlated"]
            rate_rows.append([K_rate, link, f"{rates[link]:,.0f}", f"{corr:,.0f}",
                              f"{rates['tomotopy']:,.0f}",
                              f"{rates[link] / rates['tomotopy']:.1f}x",
                              f"{corr / rates['tomotopy']:.1f}x"])
            summary[f"K={K_rate} {link} vs tomotopy (correlated sweeps; target 5)"] = round(
                corr / rates["tomotopy"], 2)
        print(rate_rows[-2:], flush=True)
    body += (
        f"\n\nTraining throughput, one thread, token-sweeps per second (pg_method='gaussian', "
        f"n_subiter=8; tomotopy CTModel workers=1, default settings, over a {iters}-iteration fit); "
        "target >= 5x. 'whole fit': a "
        f"{iters}-sweep fit whose first 20% are the warm-start LDA sweeps; 'correlated sweeps': "
        "the difference between a 200- and a 100-sweep fit (both with 20 "
        "warm-start sweeps), i.e. correlated sweeps alone:\n\n"
        + markdown_table(["K", "link", "ours, whole fit", "ours, correlated sweeps",
                          "tomotopy CTModel", "ratio (whole fit)",
                          "ratio (correlated sweeps)"], rate_rows)
    )
    print(body)
    write_section("ctm_ap", "CorrelatedTopicModel on AP", body)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
