"""Topic coherence: which words a topic ranks first, how often they occur
together in a reference corpus, and the confirmation measures built on those
counts (the public entry point is :func:`sklearn_pgtm.metrics.topic_coherence`).

Counting is done once for the union of the topics' top words (at most
``n_topics * top_n`` words), and only for the pairs of words that share a
topic (at most ``n_topics * top_n * (top_n - 1) / 2``; no matrix over all
pairs of the R distinct top words, which at 1,000 topics of 10 words would
hold ~60 million entries), so the cost depends neither on the vocabulary nor
on R ** 2:

- whole documents: per pair, one compiled scan of the documents of its rarer
  word against the marked documents of the other (columns of the binarized
  document-word matrix of those words);
- sliding windows: one compiled pass over the token sequences that tracks,
  for every top word, the run of consecutive windows that contain it, and adds
  the overlap of two runs, for each needed pair, when the first of them ends.
  Each pair count is updated once per run instead of once per window, so the
  pass costs O(tokens + runs x words present), not O(windows x words
  present ^ 2).

The counts are then laid out per topic, (n_topics, top_n, top_n), for the
measures. They use gensim's smoothing constant ``EPSILON`` and its conventions
(documented in :func:`sklearn_pgtm.metrics.topic_coherence`), so that
numbers can be compared with ``gensim.models.CoherenceModel``.
"""

from numbers import Number

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


def counts_of(X, head):
    """``X`` as counts: through ``head`` (the steps of a Pipeline before its
    topic model, or None) unless ``X`` already holds numbers.

    Decided without copying ``X``: ``np.asarray`` of raw documents built a
    fixed-width string array of n_documents x the longest document (434 MB
    for 216,000 characters with one long document) and failed on token
    lists of different lengths (a ``CountVectorizer(analyzer=callable)``).
    """
    if head is None or _holds_numbers(X):
        return X
    return head.transform(X)


def _holds_numbers(X):
    """Whether ``X`` holds counts rather than documents: a sparse matrix, a
    numeric array, Series or DataFrame, or a sequence whose first entry is a
    number or a sequence of numbers."""
    if sp.issparse(X):
        return True
    dtypes = getattr(X, "dtypes", None)  # DataFrame (a Series' dtypes is its dtype)
    if dtypes is not None and not hasattr(X, "dtype"):
        return all(getattr(d, "kind", "O") in "biuf" for d in dtypes)
    dtype = getattr(X, "dtype", None)
    if dtype is not None and dtype.kind != "O":
        return dtype.kind in "biuf"
    if iter(X) is X:  # a generator of documents: reading one would consume it
        return False
    first = next(iter(X), None)
    if first is None or isinstance(first, (str, bytes)):
        return False
    if isinstance(first, (Number, np.number, np.bool_)):
        return True
    return isinstance(next(iter(first), None), (Number, np.number, np.bool_))


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


def top_word_ids(components, top_n, chunk_size=2 ** 17):
    """Ids of each topic's ``top_n`` heaviest words, heaviest first (ties: lower id first).

    The same ids as ``np.argsort(-components, axis=1, kind="stable")[:,
    :top_n]`` without sorting (or copying) all of ``components``: topics are
    taken a few at a time (about ``chunk_size`` entries), a partition finds
    each topic's ``top_n``-th largest weight, and only the words at least as
    heavy are sorted, by weight and then id.
    """
    n_topics, n_features = components.shape
    top_n = min(int(top_n), n_features)
    top = np.empty((n_topics, top_n), dtype=np.int64)
    if top_n == 0:
        return top
    rows_per_chunk = max(1, chunk_size // n_features)
    for lo in range(0, n_topics, rows_per_chunk):
        block = components[lo:lo + rows_per_chunk]
        threshold = np.partition(block, n_features - top_n, axis=1)[:, n_features - top_n]
        rows, cols = np.nonzero(block >= threshold[:, None])  # row-major: ids ascending
        order = np.lexsort((cols, -block[rows, cols], rows))
        starts = np.searchsorted(rows, np.arange(block.shape[0]))
        top[lo:lo + block.shape[0]] = cols[order[starts[:, None] + np.arange(top_n)]]
    return top


# -- counting ----------------------------------------------------------------
def topic_pairs(local):
    """The distinct pairs of words that share a topic.

    ``local`` (n_topics, top_n) holds each topic's words as indices into the
    counted words (distinct within a row). Returns ``(first, second,
    pair_of)``: the pairs as ``first < second`` (P,), sorted, and
    ``pair_of`` (n_topics, top_n, top_n), the index of the pair of words
    ``i`` and ``j`` of topic ``k`` (-1 on the diagonal). Only these pairs are
    counted: at most ``n_topics * top_n * (top_n - 1) / 2`` of them, however
    many distinct words the topics have.
    """
    n_topics, n_top = local.shape
    rows, cols = np.triu_indices(n_top, k=1)
    a, b = local[:, rows], local[:, cols]
    n_words = int(local.max(initial=0)) + 1
    keys = (np.minimum(a, b) * n_words + np.maximum(a, b)).ravel()
    keys, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(n_topics, rows.shape[0])
    pair_of = np.full((n_topics, n_top, n_top), -1, dtype=np.int64)
    pair_of[:, rows, cols] = inverse
    pair_of[:, cols, rows] = inverse
    return keys // n_words, keys % n_words, pair_of


def topic_blocks(local, occurrences, pair_counts, pair_of):
    """Counts of each topic's words and of their pairs as (n_topics, top_n,
    top_n) blocks: entry ``[k, i, j]`` counts words ``i`` and ``j`` of topic
    ``k`` together, the diagonal each word alone."""
    blocks = pair_counts[np.maximum(pair_of, 0)]
    diagonal = np.arange(local.shape[1])
    blocks[:, diagonal, diagonal] = occurrences[local]
    return blocks


@njit(cache=CACHE, nogil=True)
def count_document_pairs(indptr, indices, n_documents, owner, other, counts):
    """``counts[p]`` = number of documents that contain both ``owner[p]`` and
    ``other[p]``; ``indices[indptr[w]:indptr[w + 1]]`` are the (distinct)
    documents that contain word ``w``, and equal owners are contiguous.

    The documents of each owner are marked once; each of its pairs then
    costs the document count of the other word (the rarer one, see
    :func:`document_cooccurrence`).
    """
    marked = np.zeros(n_documents, dtype=np.bool_)
    n_pairs = owner.shape[0]
    p = 0
    while p < n_pairs:
        a = owner[p]
        for q in range(indptr[a], indptr[a + 1]):
            marked[indices[q]] = True
        while p < n_pairs and owner[p] == a:
            b = other[p]
            count = 0
            for q in range(indptr[b], indptr[b + 1]):
                if marked[indices[q]]:
                    count += 1
            counts[p] = count
            p += 1
        for q in range(indptr[a], indptr[a + 1]):
            marked[indices[q]] = False


def document_cooccurrence(X, word_ids, first, second):
    """Document frequencies of ``word_ids`` and of the pairs ``(first, second)``
    (indices into ``word_ids``) in CSR counts ``X``.

    Returns ``(occurrences, pair_counts, n_documents)``: how many documents
    contain each word (R,), each pair (P,), and the number of documents
    (every row counts, empty ones included).
    """
    present = X[:, word_ids]
    present = sp.csc_matrix(present > 0)
    present.eliminate_zeros()
    present.sum_duplicates()
    indptr = present.indptr.astype(np.int64)
    indices = present.indices.astype(np.int64)
    occurrences = np.diff(indptr)
    # Each pair scans the documents of its rarer word (ties: the later id),
    # with those of the other word marked.
    swap = occurrences[first] < occurrences[second]
    owner = np.where(swap, second, first)
    other = np.where(swap, first, second)
    order = np.argsort(owner, kind="stable")
    counts = np.zeros(first.shape[0], dtype=np.int64)
    count_document_pairs(indptr, indices, X.shape[0], owner[order], other[order], counts)
    pair_counts = np.empty_like(counts)
    pair_counts[order] = counts
    return occurrences, pair_counts, X.shape[0]


def pair_adjacency(first, second, n_words):
    """Both directions of the pairs ``(first, second)`` as a CSR adjacency:
    the partners of word ``w`` are ``partners[ptr[w]:ptr[w + 1]]`` (sorted),
    and ``pair[q]`` is the index of the pair of ``w`` and ``partners[q]``."""
    words = np.concatenate([first, second])
    partners = np.concatenate([second, first])
    pair = np.concatenate([np.arange(first.shape[0])] * 2).astype(np.int64)
    order = np.lexsort((partners, words))
    ptr = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(np.bincount(words, minlength=n_words), out=ptr[1:])
    return ptr, partners[order].astype(np.int64), pair[order]


@njit(cache=CACHE, nogil=True)
def add_run_overlaps(w, end, candidates, n_candidates, run_start, slot, ptr, partners, pair,
                     pair_counts):
    """Add to the pairs of ``w`` with the words of ``candidates[:n_candidates]``
    (words present with ``slot >= 0``) the overlap of their runs up to window
    ``end`` (exclusive). Loops over whichever is shorter: ``w``'s partners
    (keeping those present) or the candidates (looking each up among the
    partners)."""
    lo = ptr[w]
    hi = ptr[w + 1]
    if hi - lo <= n_candidates:
        for q in range(lo, hi):
            b = partners[q]
            if slot[b] >= 0:
                pair_counts[pair[q]] += end - max(run_start[w], run_start[b])
    elif hi > lo:
        for i in range(n_candidates):
            b = candidates[i]
            left = lo  # binary search for b in partners[lo:hi]
            right = hi
            while left < right:
                middle = (left + right) >> 1
                if partners[middle] < b:
                    left = middle + 1
                else:
                    right = middle
            if left < hi and partners[left] == b:
                pair_counts[pair[left]] += end - max(run_start[w], run_start[b])


@njit(cache=CACHE, nogil=True)
def count_window_cooccurrences(text_ptr, tokens, window_size, lo, hi, ptr, partners, pair,
                               occurrences, pair_counts):
    """Add the window counts of texts ``lo:hi`` to ``occurrences`` and to the
    ``pair_counts`` of the pairs in the adjacency ``(ptr, partners, pair)``
    of :func:`pair_adjacency`; return the number of windows.

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
                    add_run_overlaps(w, s, present, n_present, run_start, slot, ptr,
                                     partners, pair, pair_counts)
            w = tokens[start + s + window_size - 1]
            if w >= 0:
                in_window[w] += 1
                if in_window[w] == 1:
                    run_start[w] = s
                    slot[w] = n_present
                    present[n_present] = w
                    n_present += 1
        # Runs still open at the end of the text end with its last window;
        # each pair is added once, when its first word (in ``present``) is
        # closed, its second still having slot >= 0.
        for i in range(n_present):
            a = present[i]
            occurrences[a] += n_text_windows - run_start[a]
            slot[a] = -1
            add_run_overlaps(a, n_text_windows, present[i + 1:], n_present - i - 1,
                             run_start, slot, ptr, partners, pair, pair_counts)
            in_window[a] = 0
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


def window_cooccurrence(text_ptr, tokens, word_ids, n_features, window_size, first, second):
    """Window frequencies of ``word_ids`` and of the pairs ``(first, second)``
    in token sequences.

    Returns ``(occurrences, pair_counts, n_windows)`` like
    :func:`document_cooccurrence`, counting sliding windows of
    ``window_size`` tokens instead of documents.
    """
    index = np.full(n_features, -1, dtype=np.int64)
    index[word_ids] = np.arange(word_ids.shape[0])
    local = np.where(tokens >= 0, index[np.maximum(tokens, 0)], -1)
    n_words = word_ids.shape[0]
    ptr, partners, pair = pair_adjacency(first, second, n_words)
    occurrences = np.zeros(n_words, dtype=np.int64)
    pair_counts = np.zeros(first.shape[0], dtype=np.int64)
    n_windows = count_window_cooccurrences(
        text_ptr, local, int(window_size), 0, text_ptr.shape[0] - 1, ptr, partners, pair,
        occurrences, pair_counts,
    )
    return occurrences, pair_counts, n_windows


# -- the measures ------------------------------------------------------------
# Each measure takes the per-topic count blocks of :func:`topic_blocks`
# (n_topics, top_n, top_n) and the number of documents (windows).
def umass(blocks, n):
    """Mean over i > j of log((D(w_i, w_j) / N + eps) / (D(w_j) / N)) per topic
    (a pair whose conditioning word w_j never occurs counts 0, as in gensim)."""
    n_top = blocks.shape[1]
    later, earlier = np.tril_indices(n_top, k=-1)
    n = float(n)
    joint = blocks[:, later, earlier] / n
    given = blocks[:, earlier, earlier] / n
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log((joint + EPSILON) / given)
    values[given == 0] = 0.0
    return values.mean(axis=1)


def npmi_matrix(block, n):
    """NPMI of every pair of a topic's words (diagonal included) from its
    count block, with gensim's smoothing: log((P_ij + eps) / (P_i P_j)) /
    -log(P_ij + eps). Pairs with a word that never occurs get -1, NPMI's
    value for words never seen together."""
    n = float(n)
    p_word = np.diagonal(block) / n
    p_joint = block / n
    marginal = np.multiply.outer(p_word, p_word)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log((p_joint + EPSILON) / marginal) / -np.log(p_joint + EPSILON)
    values[marginal == 0] = -1.0
    return values


def npmi(blocks, n):
    """Mean NPMI over the pairs of distinct top words of each topic."""
    n_top = blocks.shape[1]
    off_diagonal = ~np.eye(n_top, dtype=bool)
    return np.array([npmi_matrix(block, n)[off_diagonal].mean() for block in blocks])


def cv(blocks, n):
    """Röder's C_V: mean cosine between each top word's NPMI vector and the
    sum of the topic's NPMI vectors (a zero vector has cosine 0)."""
    scores = np.empty(blocks.shape[0])
    for k, block in enumerate(blocks):
        vectors = npmi_matrix(block, n)
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
    first, second, pair_of = topic_pairs(local)
    if texts is not None and (measure != "umass" or X is None):
        text_ptr, tokens = texts
        if measure == "umass":  # the texts are the documents
            window_size = max(int(np.diff(text_ptr).max(initial=0)), 1)
        occurrences, pair_counts, n = window_cooccurrence(
            text_ptr, tokens, word_ids, n_features, window_size, first, second)
    else:
        occurrences, pair_counts, n = document_cooccurrence(X, word_ids, first, second)
    missing = np.flatnonzero(occurrences == 0)
    if missing.size:
        shown = word_ids[missing][:10].tolist()
        _warn(
            f"{missing.size} top word(s) never occur in the reference corpus (feature ids "
            f"{shown}{'...' if missing.size > 10 else ''}); pairs with them get the "
            "measure's conventional value (see the Notes of topic_coherence).",
            UserWarning,
        )
    blocks = topic_blocks(local, occurrences, pair_counts, pair_of)
    return MEASURE_FUNCTIONS[measure](blocks, n)
