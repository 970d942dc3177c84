"""Reading a fitted topic model: each topic's top words, and a table of the
topics with their prevalence, coherence and (for supervised models)
classifier weight.

Works on every topic model of the package with one set of topics (for
:class:`~sklearn_pgtm.DynamicTopicModel`, pass one slice's topics,
``components_[s]``, or use its own ``get_topic_words``), on scikit-learn's
:class:`~sklearn.decomposition.LatentDirichletAllocation`, on anything with
``components_`` (topics as rows of non-negative weights over the features),
and on a :class:`~sklearn.pipeline.Pipeline` that contains one: the
Pipeline's steps before the topic model (e.g. a
:class:`~sklearn.feature_extraction.text.CountVectorizer`) then give the
words. User Guide: :ref:`inspection`.
"""

import numpy as np

from . import _coherence
from ._base import check_feature_names, is_integer_at_least
from .metrics import _as_count_csr, _transform_counts, topic_coherence

__all__ = ["TopicSummary", "top_words", "topic_summary"]


def _feature_names(estimator, feature_names, n_features):
    """The words of the features: the argument, else a Pipeline's steps before
    the topic model, else the model's ``feature_names_in_``."""
    if feature_names is not None:
        return check_feature_names(feature_names, n_features)
    model, head = _coherence.find_topic_model(estimator)
    if head is not None:
        try:
            names = np.asarray(head.get_feature_names_out(), dtype=object)
        except (AttributeError, ValueError) as exc:
            raise ValueError(
                "The Pipeline's steps before the topic model do not provide feature names "
                f"({exc}); pass feature_names= explicitly."
            ) from exc
        if names.shape[0] == n_features:
            return names
        raise ValueError(
            f"The Pipeline's steps before the topic model give {names.shape[0]} feature "
            f"names, but the topics have {n_features} features; pass feature_names=."
        )
    names = getattr(model, "feature_names_in_", None)
    if names is not None and len(names) == n_features:
        return np.asarray(names, dtype=object)
    raise ValueError(
        "No feature names: pass feature_names= (e.g. vectorizer.get_feature_names_out()), "
        "or pass a Pipeline in which a CountVectorizer precedes the topic model."
    )


def _check_n_words(n_words, n_features):
    if not is_integer_at_least(n_words, 1):
        raise ValueError(f"n_words must be a positive integer; got {n_words!r}.")
    return min(int(n_words), n_features)


def top_words(estimator, feature_names=None, n_words=10):
    """The heaviest words of each topic, heaviest first.

    Read more in the :ref:`User Guide <inspection>`.

    Parameters
    ----------
    estimator : estimator, Pipeline or array-like of shape (n_topics, n_features)
        A fitted topic model with ``components_`` (any estimator of this
        package, scikit-learn's
        :class:`~sklearn.decomposition.LatentDirichletAllocation`, ...), a
        fitted Pipeline containing one, or the topics as rows of weights (an
        array or a sparse matrix).

    feature_names : array-like of str of shape (n_features,), default=None
        The words of the features. None: taken from a Pipeline's steps
        before the topic model (``pipeline[:i].get_feature_names_out()``,
        e.g. a CountVectorizer's vocabulary), else from the model's
        ``feature_names_in_`` (set when it was fitted on a DataFrame); a
        ``ValueError`` says so when neither exists.

    n_words : int, default=10
        Number of words per topic (at most the number of features).

    Returns
    -------
    words : list of list of str
        ``words[k]`` are topic ``k``'s ``n_words`` heaviest words (ties:
        the earlier feature first).

    See Also
    --------
    topic_summary : Top words with prevalence and coherence of each topic.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.inspection import top_words
    >>> topics = np.array([[5.0, 1.0, 0.1], [0.2, 0.3, 4.0]])
    >>> top_words(topics, feature_names=["god", "bible", "car"], n_words=2)
    [['god', 'bible'], ['car', 'bible']]
    """
    components = _coherence.topic_word_matrix(estimator)
    names = _feature_names(estimator, feature_names, components.shape[1])
    n_words = _check_n_words(n_words, components.shape[1])
    top = _coherence.top_word_ids(components, n_words)
    return [[str(names[j]) for j in row] for row in top]


class TopicSummary:
    """Per-topic table made by :func:`topic_summary`.

    ``str(summary)`` (or ``print(summary)``) is the table as plain text;
    :meth:`to_frame` is a pandas DataFrame (pandas is not a dependency of
    the package: it must be installed to call it). The parameters are kept
    as attributes of the same names.

    Parameters
    ----------
    topics : ndarray of shape (n_topics,)
        Topic indices (rows of ``components_``), in the table's order.
    words : list of list of str
        Top words of each topic, heaviest first.
    weights : ndarray of shape (n_topics, n_words)
        Probability of each top word under its topic (the row-normalized
        ``components_``).
    prevalence : ndarray of shape (n_topics,) or None, default=None
        Fraction of the tokens in the topic (see :func:`topic_summary`).
    coherence : ndarray of shape (n_topics,) or None, default=None
        Coherence of each topic under ``measure``.
    measure : str or None, default=None
        Name of the coherence measure.
    coef : ndarray of shape (n_topics,) or None, default=None
        The topic's weight in the classifier (supervised models with one
        weight per topic: ``coef_``).
    """

    def __init__(self, topics, words, weights, prevalence=None, coherence=None,
                 measure=None, coef=None):
        self.topics = topics
        self.words = words
        self.weights = weights
        self.prevalence = prevalence
        self.coherence = coherence
        self.measure = measure
        self.coef = coef

    def _columns(self):
        columns = [("topic", self.topics, "{:d}")]
        if self.prevalence is not None:
            columns.append(("prevalence", self.prevalence, "{:.3f}"))
        if self.coherence is not None:
            columns.append((self.measure or "coherence", self.coherence, "{:.3f}"))
        if self.coef is not None:
            columns.append(("coef", self.coef, "{:+.3f}"))
        return columns

    def to_text(self):
        """The table as plain text, one line per topic.

        Returns
        -------
        text : str
            A header line, then per topic its numbers and top words.
        """
        columns = self._columns()
        cells = [[fmt.format(v.item() if hasattr(v, "item") else v) for v in values]
                 for _, values, fmt in columns]
        widths = [max([len(name)] + [len(c) for c in col])
                  for (name, _, _), col in zip(columns, cells)]
        header = "  ".join(name.rjust(w) for (name, _, _), w in zip(columns, widths))
        lines = [header + "  top words"]
        for i, words in enumerate(self.words):
            numbers = "  ".join(col[i].rjust(w) for col, w in zip(cells, widths))
            lines.append(numbers + "  " + " ".join(words))
        return "\n".join(lines)

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return self.to_text()

    def to_frame(self, long=False):
        """The table as a pandas DataFrame.

        Parameters
        ----------
        long : bool, default=False
            False: one row per topic (its numbers and its top words joined by
            spaces). True: one row per (topic, word) with the word's rank and
            weight, e.g. for bar charts of the top words.

        Returns
        -------
        frame : pandas.DataFrame
            The summary.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "TopicSummary.to_frame needs pandas (pip install pandas); str(summary) "
                "gives the same table as plain text."
            ) from exc
        if long:
            n_words = self.weights.shape[1]
            return pd.DataFrame({
                "topic": np.repeat(self.topics, n_words),
                "rank": np.tile(np.arange(1, n_words + 1), len(self.topics)),
                "word": [w for words in self.words for w in words],
                "weight": self.weights.ravel(),
            })
        data = {name: values for name, values, _ in self._columns()}
        data["top_words"] = [" ".join(words) for words in self.words]
        return pd.DataFrame(data)


def _training_topic_share(model, n_topics):
    """Mean fraction of training tokens per topic over the second half of the
    sweeps, from the model's ``trace_`` (None when it has no such trace)."""
    trace = getattr(model, "trace_", None)
    share = getattr(trace, "topic_share", None)
    if share is None:
        return None
    share = np.asarray(share, dtype=np.float64)
    if share.ndim != 2 or share.shape[1] != n_topics or share.shape[0] < 1:
        return None
    return share[share.shape[0] // 2:].mean(axis=0)


def _prevalence(model, counts, X, n_topics):
    """Token-weighted mean of ``transform(counts)``: the fraction of the
    tokens in each topic (None when the model has no transform of that
    width); ``counts`` is ``X`` checked by ``_as_count_csr``."""
    if not hasattr(model, "transform"):
        return None
    theta = np.asarray(_transform_counts(model, counts, X), dtype=np.float64)
    if theta.ndim != 2 or theta.shape[1] != n_topics:
        return None
    lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    if lengths.sum() == 0:
        return None
    # Blocks of topics (one per binary model of a one-vs-rest classifier)
    # each sum to 1 per document, so each block's prevalences sum to 1.
    return lengths @ theta / lengths.sum()


def _classifier_weights(model, n_topics):
    coef = getattr(model, "coef_", None)
    if coef is None:
        return None
    coef = np.asarray(coef, dtype=np.float64)
    return coef.ravel() if coef.size == n_topics else None


def topic_summary(estimator, X=None, feature_names=None, *, n_words=10, measure="npmi",
                  sort_by=None):
    """Table of the topics: top words, their weights, prevalence, coherence.

    Read more in the :ref:`User Guide <inspection>`.

    Parameters
    ----------
    estimator : estimator, Pipeline or array-like of shape (n_topics, n_features)
        A fitted topic model with ``components_``, a fitted Pipeline
        containing one, or the topics as rows of weights (see
        :func:`top_words`).

    X : {array-like, sparse matrix} of shape (n_documents, n_features), default=None
        Documents as counts over the topics' features (raw documents when
        ``estimator`` is a Pipeline whose steps before the topic model
        vectorize them; counts are rounded to integers, with a
        ``UserWarning`` when most nonzero entries are fractional), typically
        the training corpus. Gives the prevalences (from the model's
        ``transform``) and the coherences (co-occurrence of the top words in
        X). Without X, the prevalences come from the model's
        ``trace_.topic_share`` (training tokens per topic, averaged over the
        second half of the sweeps) when it has one, and there are no
        coherences.

    feature_names : array-like of str of shape (n_features,), default=None
        The words of the features; see :func:`top_words`.

    n_words : int, default=10
        Number of top words per topic. Ten is the usual length of a topic
        shown to people, and the length with which the coherence measures
        were validated (Röder et al. 2015).

    measure : {"umass", "npmi", "cv"} or None, default="npmi"
        Coherence measure (:func:`~sklearn_pgtm.metrics.topic_coherence`,
        over whole documents of X, with the top ``n_words``, at least 2);
        None for no coherence.

    sort_by : {"prevalence", "coherence"} or None, default=None
        Order of the rows, largest first; None keeps the topics' order.

    Returns
    -------
    summary : TopicSummary
        Printing it shows the table; ``summary.to_frame()`` gives a pandas
        DataFrame.

    See Also
    --------
    top_words : Only the top words.
    sklearn_pgtm.metrics.topic_coherence : The coherence measures.

    Notes
    -----
    The prevalence of a topic is the fraction of X's tokens it explains,
    :math:`\\sum_d N_d \\hat\\theta_{dk} / \\sum_d N_d` with
    :math:`\\hat\\theta_d` the model's ``transform`` of document :math:`d`
    and :math:`N_d` its length; for a one-vs-rest classifier each binary
    model's topics sum to 1. The coefficient column is the topic's weight in
    the classifier (``coef_``) for supervised models with one weight per
    topic (binary and one-vs-rest); the topics of a
    ``multi_class="multinomial"`` model have one weight per class, and the
    table has no coefficient column.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from sklearn_pgtm.inspection import topic_summary
    >>> X = np.array([[3, 2, 0, 0], [2, 3, 1, 0], [0, 0, 3, 2], [0, 1, 2, 3]] * 5)
    >>> lda = LatentDirichletAllocation(n_components=2, random_state=0).fit(X)
    >>> summary = topic_summary(lda, X, ["god", "bible", "car", "road"], n_words=2)
    >>> summary.words
    [['bible', 'god'], ['car', 'road']]
    >>> print(summary)
    topic  prevalence   npmi  top words
        0       0.496  0.415  bible god
        1       0.504  0.415  car road
    """
    if measure is not None and measure not in _coherence.MEASURES:
        raise ValueError(
            f"measure must be one of {list(_coherence.MEASURES)} or None; got {measure!r}."
        )
    if sort_by not in (None, "prevalence", "coherence"):
        raise ValueError(f"sort_by must be None, 'prevalence' or 'coherence'; got {sort_by!r}.")
    components = _coherence.topic_word_matrix(estimator)
    n_topics, n_features = components.shape
    names = _feature_names(estimator, feature_names, n_features)
    n_words = _check_n_words(n_words, n_features)
    model, head = _coherence.find_topic_model(estimator)
    top = _coherence.top_word_ids(components, n_words)
    totals = components.sum(axis=1, keepdims=True)
    probabilities = components / np.where(totals > 0, totals, 1.0)
    weights = np.take_along_axis(probabilities, top, axis=1)

    prevalence = coherence = None
    if X is not None:
        X = _coherence.counts_of(X, head)
        counts = X
        if hasattr(model, "transform") or measure is not None:
            # Validated (and fractional input warned about) once for both uses.
            counts = _as_count_csr(X, "topic_summary")
        prevalence = _prevalence(model, counts, X, n_topics)
        if measure is not None:
            if n_words < 2:
                raise ValueError("A coherence needs n_words >= 2; pass measure=None.")
            coherence = topic_coherence(components, counts, measure=measure, top_n=n_words)
    else:
        prevalence = _training_topic_share(model, n_topics)
    coef = _classifier_weights(model, n_topics)

    order = np.arange(n_topics)
    if sort_by is not None:
        key = prevalence if sort_by == "prevalence" else coherence
        if key is None:
            raise ValueError(
                f"sort_by={sort_by!r} needs the {sort_by} of the topics: pass X "
                + ("and a measure." if sort_by == "coherence" else "or a model with trace_.")
            )
        order = np.argsort(-key, kind="stable")

    def pick(values):
        return None if values is None else values[order]

    return TopicSummary(
        topics=order,
        words=[[str(names[j]) for j in top[k]] for k in order],
        weights=weights[order],
        prevalence=pick(prevalence),
        coherence=pick(coherence),
        measure=measure if coherence is not None else None,
        coef=pick(coef),
    )
