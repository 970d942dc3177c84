"""Evaluation of topic models: held-out document completion and topic coherence.

The protocol (Wallach et al. 2009; user guide, :ref:`document_completion`): every
word count of every held-out document is split binomially in half; the
topic proportions of each document are inferred from the first half with the
estimator's ``transform``, and the perplexity of the second half is computed
under those proportions and the estimator's topics (``components_``,
row-normalized). Works for any fitted estimator with ``transform`` and
``components_``: this package's and scikit-learn's
:class:`~sklearn.decomposition.LatentDirichletAllocation` alike.

:func:`topic_coherence` scores each topic by how often its top words occur
together in a reference corpus (UMass, NPMI and C_V, as in gensim's
``CoherenceModel``; User Guide: :ref:`coherence`).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted, check_non_negative

from . import _coherence
from ._base import MAX_ROW_COUNT, is_integer_at_least, real_array, warn_if_fractional
from ._parallel import ignoring_warnings
from .exceptions import _warn

__all__ = ["split_document_completion", "heldout_perplexity", "document_completion_perplexity",
           "topic_coherence"]

# Entries (nonzeros x topics) of the proportions and topic weights gathered
# at once by heldout_perplexity: 2^21 x 2 x 8 bytes = 32 MB.
_GATHER_ENTRIES = 2**21


def _as_count_csr(X, whom, name="X"):
    if X is None:
        raise ValueError(f"{whom}: X is None; pass a document-term count matrix.")
    # check_array reads pandas' nullable columns (pandas.NA becomes NaN, refused
    # below); scipy's constructor raised pandas' "boolean value of NA is
    # ambiguous". A 1-d X stays one document, as before.
    X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_2d=False,
                    ensure_min_samples=0, ensure_min_features=0, ensure_all_finite=False,
                    estimator=whom)
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    # A cell stored in several entries is their sum (as in check_counts).
    X.sum_duplicates()
    if X.data.size and not np.all(np.isfinite(X.data)):
        raise ValueError(f"Input X passed to {whom} contains NaN or infinity.")
    check_non_negative(X, whom)
    if X.data.size and X.data.max() > MAX_ROW_COUNT:
        raise ValueError(f"{whom}: a count of X is {X.data.max():.3g}; counts above "
                         f"{MAX_ROW_COUNT:.3g} are not supported.")
    # As the estimators do: TF-IDF or normalized rows rounded to counts
    # (mostly 0) were measured silently.
    warn_if_fractional(X.data, whom, name=name)
    X.data = np.rint(X.data)
    X.eliminate_zeros()
    return X.astype(np.int64)


def _transform_counts(model, counts, X):
    """``model.transform(counts)``, ``counts`` made from ``X`` by
    :func:`_as_count_csr`. A DataFrame X with the columns the model was
    fitted with loses them in the conversion, and scikit-learn then warned
    that "X does not have valid feature names"; that warning is left out
    when X's columns are the fitted ones (and kept otherwise)."""
    columns = getattr(X, "columns", None)
    fitted = getattr(model, "feature_names_in_", None)
    if columns is None or fitted is None or len(columns) != len(fitted) or any(
            str(a) != str(b) or not isinstance(a, str) for a, b in zip(columns, fitted)):
        return model.transform(counts)
    with ignoring_warnings(UserWarning, message="X does not have valid feature names"):
        return model.transform(counts)


def split_document_completion(X, *, random_state=None):
    """Split every word count of every document binomially in half.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Document-term counts (non-negative; rounded to integers, with a
        ``UserWarning`` when most nonzero entries are fractional).

    random_state : int, RandomState instance or None, default=None
        Seed of the binomial split.

    Returns
    -------
    X_observed : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        ``Binomial(n, 1/2)`` of each count ``n``: the part used to infer the
        documents' topic proportions.

    X_heldout : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The rest (``X - X_observed``): the part whose perplexity is measured.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.metrics import split_document_completion
    >>> X = np.array([[4, 0, 2], [1, 3, 0]])
    >>> observed, heldout = split_document_completion(X, random_state=0)
    >>> bool(((observed + heldout).toarray() == X).all())
    True
    """
    X = _as_count_csr(X, "split_document_completion")
    rng = check_random_state(random_state)
    observed = X.copy()
    observed.data = rng.binomial(X.data, 0.5).astype(np.int64)
    heldout = X.copy()
    heldout.data = X.data - observed.data
    observed.eliminate_zeros()
    heldout.eliminate_zeros()
    return observed, heldout


def _check_weights(values, whom, name):
    """A 2-d array of finite non-negative weights as float64, or a ValueError
    naming ``name`` (a scipy sparse matrix is densified)."""
    values = real_array(values, f"{whom}: {name}")
    if values.ndim != 2:
        raise ValueError(f"{whom}: {name} must be a 2-d array; got shape {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{whom}: {name} contains NaN or infinity.")
    if np.any(values < 0):
        raise ValueError(f"{whom}: {name} contains negative values; it must hold "
                         "non-negative weights.")
    return values


def heldout_perplexity(doc_topic, topic_word, X_heldout):
    """Perplexity of held-out counts under given proportions and topics.

    Step 4 of the document completion protocol (:ref:`User Guide
    <document_completion>`) for proportions and topics at hand;
    :func:`document_completion_perplexity` runs the whole protocol on a
    fitted estimator.

    Parameters
    ----------
    doc_topic : {array-like, sparse matrix} of shape (n_samples, n_components)
        Topic proportions of the documents: finite and non-negative (rows are
        renormalized; a row may be all zero only for a document without
        held-out counts).

    topic_word : {array-like, sparse matrix} of shape (n_components, n_features)
        Topics (e.g. ``components_``): finite and non-negative, no row all
        zero (rows are renormalized).

    X_heldout : {array-like, sparse matrix} of shape (n_samples, n_features)
        Held-out counts (non-negative; rounded to integers, with a
        ``UserWarning`` when most nonzero entries are fractional), at least
        one.

    Returns
    -------
    perplexity : float
        ``exp(-sum n_dw log(theta_d . phi_w) / sum n_dw)``: ``inf``, with a
        ``UserWarning``, when a held-out count has probability
        ``theta_d . phi_w = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.metrics import heldout_perplexity
    >>> doc_topic = np.array([[1.0, 0.0], [0.5, 0.5]])
    >>> topic_word = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    >>> X_heldout = np.array([[1, 1, 0], [0, 0, 2]])
    >>> round(heldout_perplexity(doc_topic, topic_word, X_heldout), 6)
    2.0
    """
    return _heldout_perplexity(doc_topic, topic_word, X_heldout, "heldout_perplexity",
                               "doc_topic", "topic_word", "X_heldout")


def _heldout_perplexity(doc_topic, topic_word, X_heldout, whom, theta_name, phi_name,
                        x_name):
    """:func:`heldout_perplexity`, its errors naming the arguments as the
    caller knows them."""
    X = _as_count_csr(X_heldout, whom, x_name)
    theta = _check_weights(doc_topic, whom, theta_name)
    phi = _check_weights(topic_word, whom, phi_name)
    if theta.shape[1] != phi.shape[0]:
        raise ValueError(f"{whom}: {theta_name} has {theta.shape[1]} topics (columns) but "
                         f"{phi_name} has {phi.shape[0]} (rows).")
    if theta.shape[0] != X.shape[0]:
        raise ValueError(f"{whom}: {theta_name} has {theta.shape[0]} rows but {x_name} has "
                         f"{X.shape[0]}: one row of proportions per held-out document.")
    if phi.shape[1] != X.shape[1]:
        raise ValueError(f"{whom}: {phi_name} has {phi.shape[1]} features (columns) but "
                         f"{x_name} has {X.shape[1]}.")
    n_total = X.sum()
    if n_total == 0:
        raise ValueError(f"{whom}: the held-out part {x_name} contains no token.")
    phi_totals = phi.sum(axis=1, keepdims=True)
    if np.any(phi_totals == 0):
        raise ValueError(f"{whom}: row {int(np.flatnonzero(phi_totals == 0)[0])} of "
                         f"{phi_name} is all zero; a topic needs a positive weight.")
    theta_totals = theta.sum(axis=1, keepdims=True)
    # A document without held-out counts is never scored: its row may be zero.
    empty_scored = (theta_totals[:, 0] == 0) & (np.diff(X.indptr) > 0)
    if np.any(empty_scored):
        raise ValueError(f"{whom}: row {int(np.flatnonzero(empty_scored)[0])} of "
                         f"{theta_name} is all zero, but its document has held-out "
                         "counts; its topic proportions need a positive sum.")
    theta = theta / np.where(theta_totals > 0, theta_totals, 1.0)
    phi = phi / phi_totals
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    # theta_d . phi_w for every nonzero (d, w) only: never a dense D x V
    # matrix, and the rows gathered in chunks of at most _GATHER_ENTRIES
    # entries (gathered at once they took nnz x K x 16 bytes: 790 MB for
    # 472,000 nonzeros at K = 100).
    word_topics = np.ascontiguousarray(phi.T)  # a word's K weights together
    prob = np.empty(X.nnz)
    step = max(1, _GATHER_ENTRIES // theta.shape[1])
    for lo in range(0, X.nnz, step):
        hi = min(lo + step, X.nnz)
        prob[lo:hi] = np.einsum("ik,ik->i", theta[rows[lo:hi]],
                                word_topics[X.indices[lo:hi]])
    impossible = prob <= 0.0
    if np.any(impossible):
        # The formula's value. Clipping at 1e-300 gave a finite number that
        # depended on the clip (exp(690.8 * share of such counts)).
        _warn(f"{whom}: {int(X.data[impossible].sum())} held-out count(s) have probability 0 "
              f"under {theta_name} and {phi_name}; the perplexity is infinite.", UserWarning)
        return float("inf")
    log_lik = np.sum(X.data * np.log(prob))
    return float(np.exp(-log_lik / n_total))


def document_completion_perplexity(estimator, X, *, random_state=None):
    """Held-out document completion perplexity of a fitted topic model.

    Parameters
    ----------
    estimator : estimator
        A fitted topic model with ``transform`` (topic proportions of
        documents) and ``components_`` (topics as rows over the features).

    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Held-out documents (not used in fitting ``estimator``): counts,
        rounded to integers, with a ``UserWarning`` when most nonzero entries
        are fractional.

    random_state : int, RandomState instance or None, default=None
        Seed of the binomial split of the counts
        (:func:`split_document_completion`).

    Returns
    -------
    perplexity : float
        Perplexity of the second halves given topic proportions inferred
        from the first halves; lower is better (``inf``, with a
        ``UserWarning``, when a held-out count has probability 0).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from sklearn_pgtm.metrics import document_completion_perplexity
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(2.0, size=(40, 12))
    >>> lda = LatentDirichletAllocation(n_components=3, random_state=0).fit(X[:30])
    >>> float(document_completion_perplexity(lda, X[30:], random_state=0)) > 1
    True
    """
    check_is_fitted(estimator)
    components = getattr(estimator, "components_", None)
    if components is None or np.ndim(components) != 2:
        raise ValueError(
            f"document_completion_perplexity needs a fitted topic model whose components_ "
            f"are (n_components, n_features) topics and whose transform takes counts; "
            f"{type(estimator).__name__} has "
            + ("none" if components is None else f"components_ of shape "
               f"{np.shape(components)}")
            + " (DynamicTopicModel: use its perplexity(X, times), which reads each "
            "document at its slice's topics; a Pipeline: pass its last step and the counts "
            "its first steps make).")
    counts = _as_count_csr(X, "document_completion_perplexity")
    observed, heldout = split_document_completion(counts, random_state=random_state)
    theta = _transform_counts(estimator, observed, X)
    return _heldout_perplexity(theta, components, heldout, "document_completion_perplexity",
                               f"{type(estimator).__name__}.transform(X)", "components_", "X")


def topic_coherence(estimator_or_components, X, *, measure="npmi", top_n=10, texts=None,
                    window_size=None):
    r"""Coherence of each topic: how often its top words occur together.

    Read more in the :ref:`User Guide <coherence>`.

    Let :math:`w_1, \dots, w_n` be the ``top_n`` heaviest words of a topic
    (heaviest first), :math:`D(w)` the number of reference documents (or
    windows, see ``texts``) that contain :math:`w`, :math:`D(w_i, w_j)` the
    number that contain both, :math:`N` the number of documents (windows),
    :math:`P(w) = D(w) / N`, :math:`P(w_i, w_j) = D(w_i, w_j) / N` and
    :math:`\epsilon = 10^{-12}`.

    - ``"umass"`` (Mimno et al. 2011, with gensim's smoothing and mean):

      .. math::

          C_\mathrm{UMass} = \frac{2}{n(n-1)} \sum_{i=2}^{n} \sum_{j=1}^{i-1}
          \log \frac{P(w_i, w_j) + \epsilon}{P(w_j)}.

      Mimno et al. sum :math:`\log \frac{D(w_i, w_j) + 1}{D(w_j)}` instead;
      the mean with :math:`\epsilon` is what gensim reports, so the numbers
      can be compared. Always counted over whole documents. At most 0 (up
      to :math:`\epsilon / P(w_j)`, for words that occur wherever
      :math:`w_j` does); closer to 0 is more coherent.

    - ``"npmi"`` (C_NPMI of Röder et al. 2015; the NPMI of Bouma 2009):

      .. math::

          \mathrm{NPMI}(w_i, w_j) = \frac{\log \frac{P(w_i, w_j) + \epsilon}
          {P(w_i) P(w_j)}}{-\log\big(P(w_i, w_j) + \epsilon\big)}, \qquad
          C_\mathrm{NPMI} = \frac{1}{n(n-1)} \sum_{i \ne j}
          \mathrm{NPMI}(w_i, w_j).

      In [-1, 1]; 0 for words that occur independently, near 1 for words
      that nearly always occur together. Words that both occur in every
      document (window) get -1: there :math:`P(w_i, w_j) = 1` and the
      :math:`\epsilon` of the formula (gensim's) decides the sign, as in
      gensim.

    - ``"cv"`` (C_V of Röder et al. 2015): each top word gets the vector
      :math:`\vec v_i = (\mathrm{NPMI}(w_i, w_j))_{j=1..n}` (with
      :math:`P(w_i, w_i) = P(w_i)`), the topic the vector
      :math:`\vec v = \sum_i \vec v_i`, and

      .. math::

          C_V = \frac{1}{n} \sum_{i=1}^{n} \cos(\vec v_i, \vec v).

    Parameters
    ----------
    estimator_or_components : estimator, Pipeline or array-like of shape (n_topics, n_features)
        A fitted topic model with ``components_`` (this package's estimators,
        scikit-learn's :class:`~sklearn.decomposition.LatentDirichletAllocation`,
        ...), a Pipeline containing one (its last step with ``components_``),
        or the topics themselves as rows of non-negative weights (an array or
        a sparse matrix).

    X : {array-like, sparse matrix} of shape (n_documents, n_features) or None
        The reference corpus as document-term counts over the topics'
        features (typically the training corpus; rounded to integers, with a
        ``UserWarning`` when most nonzero entries are fractional). Raw
        documents are accepted when ``estimator_or_components`` is a
        Pipeline: the steps before the topic model turn them into counts.
        May be None when ``texts`` is given (the texts are then also the
        documents).

    measure : {"umass", "npmi", "cv"}, default="npmi"
        The coherence measure. The default is NPMI: bounded, symmetric, and
        among the measures whose scores agree best with human ratings of
        topics in Röder et al.'s evaluation, where C_V came first; the
        authors' own coherence service (Palmetto) now advises against C_V
        because of known issues, and UMass agreed worst.

    top_n : int, default=10
        Number of top words per topic (at least 2). Ten is the length of the
        topics rated by people in the data sets behind Röder et al.'s
        evaluation.

    texts : sequence of sequences of int, default=None
        The reference documents in token order, each as the column indices
        of its tokens in ``X`` (negative indices for tokens outside the
        vocabulary: they take a place in a window but are no word). When
        given, "npmi" and "cv" count sliding windows instead of documents:
        every span of ``window_size`` consecutive tokens of a text is a
        virtual document (a text shorter than the window is one), and
        :math:`N` is the number of windows. With a CountVectorizer
        ``vec``: ``analyze = vec.build_analyzer(); texts =
        [[vec.vocabulary_.get(t, -1) for t in analyze(doc)] for doc in docs]``.

    window_size : int, default=None
        Width of the sliding windows (tokens), used with ``texts`` only.
        None means Röder et al.'s choice for the measure (10 for "npmi",
        110 for "cv"), the widths best correlated with human ratings in their
        evaluation. A window as long as the longest text gives whole-text
        co-occurrence.

    Returns
    -------
    coherence : ndarray of shape (n_topics,)
        The coherence of each topic (higher is more coherent, for every
        measure).

    See Also
    --------
    sklearn_pgtm.inspection.topic_summary : Top words, prevalence and
        coherence of each topic in one table.

    Notes
    -----
    Only the union of the topics' top words, and the pairs of words that
    share a topic, are counted, so the cost is one pass over those columns
    of ``X`` (or over the tokens of ``texts``), and memory grows with the
    number of topics, not with the square of the number of distinct top
    words. On the 20 Newsgroups training set (11,314 documents, 20 topics)
    it took 0.01 s over documents and 0.15 s over 10-token windows, 21 to 44
    times less than gensim (benchmarks/coherence.py, 2026-11-29).

    The values equal those of ``gensim.models.CoherenceModel`` on the same
    top words and documents (``coherence="u_mass"`` with the documents as
    bag-of-words corpus; ``"c_npmi"`` and ``"c_v"`` with the documents as
    texts and ``window_size`` at least the longest document): the test
    suite checks this to 1e-6 on 20 Newsgroups topics. With shorter windows
    the values differ from gensim's where a word occurs twice in a window:
    gensim's incremental window update (``WordOccurrenceAccumulator``)
    forgets a word when one of its tokens leaves the window even though
    another is still inside, while here a word is in a window whenever one
    of its tokens is.

    Conventions for top words that never occur in the reference corpus (a
    ``UserWarning`` names them): in "umass" a pair whose conditioning word
    :math:`w_j` never occurs counts 0 (as in gensim); in "npmi" and "cv"
    such a pair gets :math:`-1`, the NPMI of words never seen together
    (gensim returns an infinite value); a topic none of whose top words
    occurs then gets the vectors of "cv" all equal, and :math:`C_V = 1`.

    References
    ----------
    .. [1] Mimno, D., Wallach, H., Talley, E., Leenders, M. and McCallum, A.
       (2011). Optimizing semantic coherence in topic models. EMNLP.
    .. [2] Röder, M., Both, A. and Hinneburg, A. (2015). Exploring the space
       of topic coherence measures. WSDM.
    .. [3] Bouma, G. (2009). Normalized (pointwise) mutual information in
       collocation extraction. GSCL.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.metrics import topic_coherence
    >>> X = np.array([[2, 1, 0, 0], [1, 3, 0, 0], [0, 0, 1, 2], [0, 1, 2, 1]])
    >>> topics = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.5, 0.4]])
    >>> topic_coherence(topics, X, measure="npmi", top_n=2).round(3)
    array([0.415, 1.   ])
    >>> topic_coherence(topics, X, measure="umass", top_n=2).round(3)
    array([0., 0.])
    """
    if measure not in _coherence.MEASURES:
        raise ValueError(
            f"measure must be one of {list(_coherence.MEASURES)}; got {measure!r}."
        )
    if not is_integer_at_least(top_n, 2):
        raise ValueError(f"top_n must be an integer >= 2 (a coherence scores pairs of "
                         f"words); got {top_n!r}.")
    components = _coherence.topic_word_matrix(estimator_or_components)
    n_features = components.shape[1]
    if top_n > n_features:
        raise ValueError(f"top_n={top_n} is larger than the number of features "
                         f"({n_features}).")
    _, head = _coherence.find_topic_model(estimator_or_components)
    if X is None and texts is None:
        raise ValueError("Pass the reference corpus: X (document-term counts) and/or texts "
                         "(token-id sequences).")
    if X is not None:
        X = _as_count_csr(_coherence.counts_of(X, head), "topic_coherence")
        if X.shape[0] == 0:
            raise ValueError("topic_coherence: the reference corpus X has no document.")
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but the topics have {n_features}: X must be "
                "the counts over the vocabulary the topics were fitted on."
            )
    flat_texts = None
    if texts is not None:
        flat_texts = _coherence.flatten_texts(texts, n_features)
        if flat_texts[0].shape[0] == 1:
            raise ValueError("topic_coherence: texts holds no text; pass the reference "
                             "corpus as token-id sequences.")
        if window_size is None:
            window_size = _coherence.DEFAULT_WINDOW_SIZE.get(measure, 1)
        if not is_integer_at_least(window_size, 1):
            raise ValueError(f"window_size must be a positive integer; got {window_size!r}.")
    elif window_size is not None:
        raise ValueError("window_size is used with texts only (sliding windows need the "
                         "token order); pass texts, or leave window_size=None.")
    top = _coherence.top_word_ids(components, top_n)
    return _coherence.score_topics(measure, top, n_features, X=X, texts=flat_texts,
                                   window_size=window_size)
