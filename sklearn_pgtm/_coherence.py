"""Topic coherence: which words a topic ranks first, how often they occur
together in a reference corpus, and the confirmation measures built on those
counts (the public entry point is :func:`sklearn_pgtm.metrics.topic_coherence`).

Counting is done once for the union of the topics' top words (at most
``n_topics * top_n`` words), so the cost does not depend on the vocabulary:

- whole documents: one sparse product ``B.T @ B`` of the binarized
  document-word columns of those words;
- sliding windows: one compiled pass over the token sequences that tracks,
  for every top word, the run of consecutive windows that contain it, and adds
  the overlap of two runs when the first of them ends. Each pair count is
  updated once per run instead of once per window, so the pass costs
  O(tokens + runs x words present), not O(windows x words present ^ 2).

The measures use gensim's smoothing constant ``EPSILON`` and its conventions
(documented in :func:`sklearn_pgtm.metrics.topic_coherence`), so that
numbers can be compared with ``gensim.models.CoherenceModel``.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.utils.validation import check_is_fitted

from ._base import real_array
from ._kernels._config import CACHE
from .exceptions import _warn

EPSILON = 1e-12
# Röder et al. (2015), Table 2: the window sizes of C_NPMI and C_V, chosen
# there by correlation with human topic ratings.
DEFAULT_WINDOW_SIZE = {"npmi": 10, "cv": 110}
MEASURES = ("umass", "npmi", "cv")


# -- the topics --------------------------------------------------------------
def find_topic_model(obj):
    """Split ``obj`` into (topic model, preceding pipeline steps or None).

    A Pipeline's topic model is its last step with ``components_`` (so that a
    classifier after the topic model is allowed); the steps before it turn
    raw documents into counts and give the feature names. An object without
    pipeline steps is returned as it is.
    """
    steps = getattr(obj, "steps", None)
    if steps is None or not hasattr(obj, "__getitem__"):
        return obj, None
    for index in range(len(steps) - 1, -1, -1):
        if hasattr(steps[index][1], "components_"):
            return steps[index][1], (obj[:index] if index > 0 else None)
    raise ValueError(
        "None of the steps of this Pipeline has a components_ attribute: it contains "
        "no fitted topic model."
    )


def topic_word_matrix(obj):
    """Topics as rows over the features: ``components_`` of a fitted topic
    model (a Pipeline's topic step) or a (n_topics, n_features) array."""
    model, _ = find_topic_model(obj)
    if hasattr(model, "components_"):
        components = model.components_
    elif hasattr(model, "fit"):
        name = type(model).__name__
        alternatives = ("pass a fitted topic model (an estimator with components_) or a "
                        "(n_topics, n_features) array.")
        # NotFittedError (a ValueError) when unfitted; a fitted estimator
        # without components_ is no topic model, and fitting will not help.
        check_is_fitted(model, msg=f"{name} is not fitted and has no components_: fit it "
                                   f"first, or {alternatives}")
        raise ValueError(f"{name} is fitted but has no components_: it is not a topic "
                         f"model; {alternatives}")
    else:
        components = model
    components = real_array(components, "Topics (components_)")
    if components.ndim == 3 and hasattr(model, "time_slices_"):
        raise ValueError(
            f"{type(model).__name__} has one set of topics per time slice (components_ of "
            f"shape {components.shape}): pass one slice's topics, "
            "model.components_[s], or use its get_topic_words / topic_evolution."
        )
    if components.ndim != 2 or components.shape[0] < 1 or components.shape[1] < 2:
        raise ValueError(
            "Topics must be a 2-d array of shape (n_topics, n_features) with at least one "
            f"topic and two features; got shape {components.shape}."
        )
    if not np.all(np.isfinite(components)) or np.any(components < 0):
        raise ValueError("Topics (components_) must be finite and non-negative.")
    return components


def top_word_ids(components, top_n):
    """Ids of each topic's ``top_n`` heaviest words, heaviest first (ties: lower id first)."""
    order = np.argsort(-components, axis=1, kind="stable")
    return order[:, :top_n].astype(np.int64)


# -- counting ----------------------------------------------------------------
def document_cooccurrence(X, word_ids):
    """Document frequencies of ``word_ids`` and of their pairs in CSR counts ``X``.

    Returns ``(occurrences, cooccurrences, n_documents)``: how many documents
    contain each word (R,), each pair (R, R; the diagonal equals
    ``occurrences``), and the number of documents (every row counts, empty
    ones included).
    """
    present = X[:, word_ids]
    present = sp.csc_matrix((present > 0).astype(np.float64))
    cooccurrences = np.rint((present.T @ present).toarray()).astype(np.int64)
    return np.diag(cooccurrences).copy(), cooccurrences, X.shape[0]


@njit(cache=CACHE, nogil=True)
def count_window_cooccurrences(text_ptr, tokens, window_size, lo, hi, occurrences,
                               cooccurrences):
    """Add the window counts of texts ``lo:hi`` to ``occurrences`` and
    ``cooccurrences``; return the number of windows.

    ``tokens[text_ptr[t]:text_ptr[t + 1]]`` is text ``t`` as indices of the
    counted words (``-1``: any other token, which still takes a place in the
    window). The windows of a text of length ``L`` are its ``L - W + 1``
    spans of ``W = window_size`` consecutive tokens; a text shorter than the
    window (empty texts included) is one window. A word occurs in a window
    when at least one of its tokens does.
    """
    n_words = occurrences.shape[0]
    in_window = np.zeros(n_words, dtype=np.int64)  # tokens of each word in the window
    run_start = np.zeros(n_words, dtype=np.int64)  # first window of the word's current run
    present = np.empty(n_words, dtype=np.int64)  # words with in_window > 0
    slot = np.full(n_words, -1, dtype=np.int64)  # index of a word in ``present``
    n_windows = 0
    for t in range(lo, hi):
        start = text_ptr[t]
        length = text_ptr[t + 1] - start
        n_text_windows = max(length - window_size + 1, 1)
        n_present = 0
        for p in range(start, start + min(window_size, length)):
            w = tokens[p]
            if w >= 0:
                in_window[w] += 1
                if in_window[w] == 1:
                    run_start[w] = 0
                    slot[w] = n_present
                    present[n_present] = w
                    n_present += 1
        for s in range(1, n_text_windows):
            # Window s drops token s - 1 and takes token s + W - 1.
            w = tokens[start + s - 1]
            if w >= 0:
                in_window[w] -= 1
                if in_window[w] == 0:
                    # w's run covered windows run_start[w] .. s - 1.
                    occurrences[w] += s - run_start[w]
                    last = present[n_present - 1]
                    present[slot[w]] = last
                    slot[last] = slot[w]
                    slot[w] = -1
                    n_present -= 1
                    for i in range(n_present):
                        b = present[i]
                        overlap = s - max(run_start[w], run_start[b])
                        cooccurrences[w, b] += overlap
                        cooccurrences[b, w] += overlap
            w = tokens[start + s + window_size - 1]
            if w >= 0:
                in_window[w] += 1
                if in_window[w] == 1:
                    run_start[w] = s
                    slot[w] = n_present
                    present[n_present] = w
                    n_present += 1
        # Runs still open at the end of the text end with its last window.
        for i in range(n_present):
            a = present[i]
            occurrences[a] += n_text_windows - run_start[a]
            for j in range(i + 1, n_present):
                b = present[j]
                overlap = n_text_windows - max(run_start[a], run_start[b])
                cooccurrences[a, b] += overlap
                cooccurrences[b, a] += overlap
            in_window[a] = 0
            slot[a] = -1
        n_windows += n_text_windows
    return n_windows


def flatten_texts(texts, n_features):
    """Token-id sequences as one array and their offsets; ids must be < n_features
    (negative ids stand for tokens outside the vocabulary)."""
    arrays = []
    for index, text in enumerate(texts):
        text = np.asarray(text)
        if text.size and (text.ndim != 1 or text.dtype.kind not in "iu"):
            raise ValueError(
                "texts must be sequences of integer token ids (column indices of X, "
                f"negative for tokens outside the vocabulary); text {index} is not."
            )
        arrays.append(text.astype(np.int64).ravel())
    lengths = np.array([a.size for a in arrays], dtype=np.int64)
    text_ptr = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum(lengths, out=text_ptr[1:])
    tokens = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    if tokens.size and tokens.max() >= n_features:
        raise ValueError(
            f"texts contain the token id {int(tokens.max())}, but the topics have only "
            f"{n_features} features (ids 0..{n_features - 1})."
        )
    return text_ptr, tokens


def window_cooccurrence(text_ptr, tokens, word_ids, n_features, window_size):
    """Window frequencies of ``word_ids`` and of their pairs in token sequences.

    Returns ``(occurrences, cooccurrences, n_windows)`` like
    :func:`document_cooccurrence`, counting sliding windows of
    ``window_size`` tokens instead of documents.
    """
    index = np.full(n_features, -1, dtype=np.int64)
    index[word_ids] = np.arange(word_ids.shape[0])
    local = np.where(tokens >= 0, index[np.maximum(tokens, 0)], -1)
    n_words = word_ids.shape[0]
    occurrences = np.zeros(n_words, dtype=np.int64)
    cooccurrences = np.zeros((n_words, n_words), dtype=np.int64)
    n_windows = count_window_cooccurrences(
        text_ptr, local, int(window_size), 0, text_ptr.shape[0] - 1, occurrences,
        cooccurrences,
    )
    np.fill_diagonal(cooccurrences, occurrences)
    return occurrences, cooccurrences, n_windows


# -- the measures ------------------------------------------------------------
def umass(top, occurrences, cooccurrences, n):
    """Mean over i > j of log((D(w_i, w_j) / N + eps) / (D(w_j) / N)) per topic
    (a pair whose conditioning word w_j never occurs counts 0, as in gensim)."""
    n_top = top.shape[1]
    later, earlier = np.tril_indices(n_top, k=-1)
    n = float(n)
    joint = cooccurrences[top[:, later], top[:, earlier]] / n
    given = occurrences[top[:, earlier]] / n
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log((joint + EPSILON) / given)
    values[given == 0] = 0.0
    return values.mean(axis=1)


def npmi_matrix(ids, occurrences, cooccurrences, n):
    """NPMI of every pair of ``ids`` (diagonal included), with gensim's smoothing:
    log((P_ij + eps) / (P_i P_j)) / -log(P_ij + eps). Pairs with a word that
    never occurs get -1, NPMI's value for words never seen together."""
    n = float(n)
    p_word = occurrences[ids] / n
    p_joint = cooccurrences[np.ix_(ids, ids)] / n
    marginal = np.multiply.outer(p_word, p_word)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log((p_joint + EPSILON) / marginal) / -np.log(p_joint + EPSILON)
    values[marginal == 0] = -1.0
    return values


def npmi(top, occurrences, cooccurrences, n):
    """Mean NPMI over the pairs of distinct top words of each topic."""
    n_top = top.shape[1]
    off_diagonal = ~np.eye(n_top, dtype=bool)
    return np.array([
        npmi_matrix(ids, occurrences, cooccurrences, n)[off_diagonal].mean() for ids in top
    ])


def cv(top, occurrences, cooccurrences, n):
    """Röder's C_V: mean cosine between each top word's NPMI vector and the
    sum of the topic's NPMI vectors (a zero vector has cosine 0)."""
    scores = np.empty(top.shape[0])
    for k, ids in enumerate(top):
        vectors = npmi_matrix(ids, occurrences, cooccurrences, n)
        topic_vector = vectors.sum(axis=0)
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(topic_vector)
        with np.errstate(divide="ignore", invalid="ignore"):
            cosines = np.where(norms > 0, vectors @ topic_vector / norms, 0.0)
        scores[k] = cosines.mean()
    return scores


MEASURE_FUNCTIONS = {"umass": umass, "npmi": npmi, "cv": cv}


def score_topics(measure, top, n_features, X=None, texts=None, window_size=None):
    """Coherence of each topic (rows of ``top``: feature ids, heaviest first).

    ``X`` (CSR counts) gives document co-occurrence; ``texts`` (the pair
    ``(text_ptr, tokens)`` of :func:`flatten_texts`) gives sliding windows of
    ``window_size`` tokens. "umass" always counts documents (of ``X``, else
    the texts as documents); "npmi" and "cv" count windows when ``texts`` is
    given, documents otherwise.
    """
    word_ids, local = np.unique(top, return_inverse=True)
    local = local.reshape(top.shape)
    if texts is not None and (measure != "umass" or X is None):
        text_ptr, tokens = texts
        if measure == "umass":  # the texts are the documents
            window_size = max(int(np.diff(text_ptr).max(initial=0)), 1)
        counts = window_cooccurrence(text_ptr, tokens, word_ids, n_features, window_size)
    else:
        counts = document_cooccurrence(X, word_ids)
    occurrences = counts[0]
    missing = np.flatnonzero(occurrences == 0)
    if missing.size:
        shown = word_ids[missing][:10].tolist()
        _warn(
            f"{missing.size} top word(s) never occur in the reference corpus (feature ids "
            f"{shown}{'...' if missing.size > 10 else ''}); pairs with them get the "
            "measure's conventional value (see the Notes of topic_coherence).",
            UserWarning,
        )
    return MEASURE_FUNCTIONS[measure](local, *counts)
