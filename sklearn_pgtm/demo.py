"""Demo: supervised topic model on the embedded religion corpus.

Run with ``python -m sklearn_pgtm.demo`` (what ``make demo`` does) or
``python -m sklearn_pgtm.demo --quick`` for a shorter run. It

1. loads the embedded 20 Newsgroups corpus alt.atheism vs talk.religion.misc
   (:func:`sklearn_pgtm.datasets.load_religion_corpus`, no network access);
2. fits :class:`sklearn_pgtm.GibbsSLDAClassifier` (K = 20 topics, every other
   parameter at its default, among them c = 25, the paper's value for binary
   tasks) and
   prints the test accuracy, the fit time and every topic's top words with
   its classifier weight;
3. fits :class:`sklearn_pgtm.EmpiricalBayesLDA` (K = 20, the rest at its
   defaults) on the training documents and prints the estimated Dirichlet
   hyperparameters.

What users get is the defaults, so the demo runs them; ``--quick`` (the
smoke test) runs shorter chains.

The first run also compiles the numba kernels (cached on disk afterwards).
"""

import argparse
import sys
import time

import numpy as np

#: Parameters of the full demo (the defaults but K) and of ``--quick``
#: (used by the smoke test too).
SETTINGS = {
    "full": {
        "slda": {"n_components": 20},
        "eblda": {"n_components": 20},
    },
    "quick": {
        "slda": {"n_components": 20, "max_iter": 60},
        "eblda": {"n_components": 20, "burn_in": 30, "n_samples": 60},
    },
}


def top_words(topic_word, feature_names, n_words=8):
    """Most probable words of each topic.

    Parameters
    ----------
    topic_word : ndarray of shape (n_topics, n_features)
        Topic-word weights (any non-negative scale per row).
    feature_names : array-like of str of shape (n_features,)
        The word of each column.
    n_words : int, default=8
        Number of words per topic.

    Returns
    -------
    words : list of list of str
        ``n_words`` words per topic, most probable first.
    """
    feature_names = np.asarray(feature_names)
    order = np.argsort(-np.asarray(topic_word), axis=1, kind="stable")[:, :n_words]
    return [list(feature_names[row]) for row in order]


def _call(name, params):
    """``Name(k=v, ...)`` as a user would type it."""
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"


def run_slda(corpus, *, random_state=0, n_words=8, out=print, **params):
    """Fit ``GibbsSLDAClassifier`` on the corpus and print what it learned.

    Parameters
    ----------
    corpus : Bunch
        As returned by :func:`sklearn_pgtm.datasets.load_religion_corpus`.
    random_state : int, default=0
        Passed to :class:`sklearn_pgtm.GibbsSLDAClassifier`.
    n_words : int, default=8
        Top words printed per topic.
    out : callable, default=print
        Receives each output line.
    **params
        Other parameters of :class:`sklearn_pgtm.GibbsSLDAClassifier` (at
        least ``n_components``; the others default).

    Returns
    -------
    result : dict
        ``model``, ``accuracy`` (test), ``fit_seconds``, ``topics`` (a list of
        ``(weight, words)`` sorted by weight).
    """
    from sklearn_pgtm import GibbsSLDAClassifier

    n_components = params["n_components"]
    model = GibbsSLDAClassifier(random_state=random_state, **params)
    out(f"Fitting {_call('GibbsSLDAClassifier', params)} (other parameters at their "
        f"defaults) on {corpus.X_train.shape[0]} training documents ...")
    start = time.perf_counter()
    model.fit(corpus.X_train, corpus.y_train)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    accuracy = model.score(corpus.X_test, corpus.y_test)
    predict_seconds = time.perf_counter() - start
    out(f"  fit time: {fit_seconds:.1f} s (includes numba compilation on a first run)")
    out(f"  prediction on {corpus.X_test.shape[0]} test documents: "
        f"{predict_seconds:.1f} s")
    out(f"  test accuracy: {accuracy:.3f}")

    weights = model.coef_[0]
    words = top_words(model.components_[:n_components], corpus.feature_names, n_words)
    topics = sorted(zip(weights, words), key=lambda item: item[0])
    negative, positive = corpus.target_names
    out("")
    out(f"Topics by classifier weight (coef_; < 0 favours {negative}, "
        f"> 0 favours {positive}):")
    for weight, topic_words in topics:
        out(f"  {weight:+7.2f}  {' '.join(topic_words)}")
    return {
        "model": model,
        "accuracy": accuracy,
        "fit_seconds": fit_seconds,
        "topics": topics,
    }


def run_eblda(corpus, *, random_state=0, out=print, **params):
    """Estimate LDA's Dirichlet hyperparameters on the training documents.

    Parameters
    ----------
    corpus : Bunch
        As returned by :func:`sklearn_pgtm.datasets.load_religion_corpus`.
    random_state : int, default=0
        Passed to :class:`sklearn_pgtm.EmpiricalBayesLDA`.
    out : callable, default=print
        Receives each output line.
    **params
        Other parameters of :class:`sklearn_pgtm.EmpiricalBayesLDA` (at
        least ``n_components``; the others default).

    Returns
    -------
    result : dict
        ``model``, ``alpha``, ``eta``, ``alpha_se``, ``eta_se`` (Monte Carlo
        standard errors), ``fit_seconds``.
    """
    from sklearn_pgtm import EmpiricalBayesLDA

    n_components = params["n_components"]
    model = EmpiricalBayesLDA(random_state=random_state, **params)
    out(f"Fitting {_call('EmpiricalBayesLDA', params)} (other parameters at their "
        "defaults) on the training documents ...")
    start = time.perf_counter()
    model.fit(corpus.X_train)
    fit_seconds = time.perf_counter() - start
    alpha = float(model.doc_topic_prior_)
    eta = float(model.topic_word_prior_)
    alpha_se, eta_se = np.sqrt(np.diag(model.hyperparameter_covariance_))
    out(f"  fit time: {fit_seconds:.1f} s")
    out(f"  empirical Bayes estimate: alpha = {alpha:.4f} (MC s.e. {alpha_se:.4f}), "
        f"eta = {eta:.4f} (MC s.e. {eta_se:.4f})")
    out(f"  common defaults for comparison: alpha = 1/K = {1 / n_components:.4f}, "
        f"eta = 0.01 to 0.1")
    return {
        "model": model,
        "alpha": alpha,
        "eta": eta,
        "alpha_se": float(alpha_se),
        "eta_se": float(eta_se),
        "fit_seconds": fit_seconds,
    }


def main(argv=None, out=print):
    """Run the demo; ``--quick`` uses fewer iterations, ``--no-eblda`` skips part 3."""
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_pgtm.demo",
        description="Pólya-Gamma topic models on the embedded religion corpus.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer Gibbs iterations")
    parser.add_argument("--no-eblda", action="store_true",
                        help="skip the EmpiricalBayesLDA part")
    parser.add_argument("--seed", type=int, default=0, help="random_state of the fits")
    args = parser.parse_args(argv)
    settings = SETTINGS["quick" if args.quick else "full"]

    from sklearn_pgtm.datasets import load_religion_corpus

    total_start = time.perf_counter()
    corpus = load_religion_corpus()
    n_train, n_features = corpus.X_train.shape
    out(f"Corpus: 20 Newsgroups {corpus.target_names[0]} vs {corpus.target_names[1]}: "
        f"{n_train} train / {corpus.X_test.shape[0]} test documents, "
        f"{n_features} words, {int(corpus.X_train.sum())} training tokens.")
    out("")
    results = {"slda": run_slda(corpus, random_state=args.seed, out=out,
                                **settings["slda"])}
    if not args.no_eblda:
        out("")
        results["eblda"] = run_eblda(corpus, random_state=args.seed, out=out,
                                     **settings["eblda"])
    out("")
    out(f"Total demo time: {time.perf_counter() - total_start:.1f} s")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
