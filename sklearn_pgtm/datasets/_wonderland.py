"""Loader of the embedded text of Alice's Adventures in Wonderland."""

import gzip
import re
from importlib import resources

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from .._base import is_integer_at_least

_DATA_FILE = "wonderland.txt.gz"
#: SHA-256 of the stored (LF) text; checked by the tests.
TEXT_SHA256 = "99e53cbb0aeb274344a254733db996ca2d05d5fcd10fc0ca02d6966f2b2bc961"
# Lower-case words with inner apostrophes kept ("don't", "alice's"); the text
# uses ` and ' as quotation marks, which this leaves out.
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")

_DESCR = """\
.. _wonderland_text:

Alice's Adventures in Wonderland (embedded)
-------------------------------------------

Lewis Carroll's novel (1865; public domain), Project Gutenberg's "Millennium
Fulcrum Edition 2.9" as distributed in the Canterbury Corpus (``alice29.txt``),
stored gzipped inside the package (about 52 KiB), so it loads without network
access. The text of the book only: title, author, chapters I-XII.

**Characteristics:**

=================  ==========================================
Characters         148,480 (ASCII)
Word tokens        26,683 (lower-cased, see below)
Distinct words     2,636
=================  ==========================================

Tokenization: lower-case, words are runs of letters with inner apostrophes
(``don't``, ``alice's``); punctuation, digits and quotation marks are dropped.
The vocabulary is sorted by decreasing frequency (ties alphabetically).

``sklearn_pgtm/datasets/_build_wonderland.py`` rebuilds the file from the
source distribution of the ``brotli`` package (version 1.2.1) on PyPI, which
ships ``alice29.txt`` among its test data, after checking its SHA-256.

Used by Linderman, Johnson & Adams (2015), section 5, for the multinomial
linear dynamical system (a 4,000-word excerpt, vocabulary of 1,000 words).
"""


def _read_text():
    source = resources.files(__package__).joinpath("data", _DATA_FILE)
    with source.open("rb") as handle:
        return gzip.decompress(handle.read()).decode("ascii")


def tokenize(text):
    """Lower-cased word tokens of ``text`` (the loader's tokenizer)."""
    return _WORD.findall(text.lower())


def load_wonderland(*, n_words=1000, n_tokens=None):
    """Load Alice's Adventures in Wonderland as a sequence of words.

    The full text of Lewis Carroll's novel (public domain) is embedded in the
    package (no network access). It is tokenized into lower-case words, the
    ``n_words`` most frequent words form the vocabulary, and the tokens in
    that vocabulary become one-hot rows of ``X``: the input of
    :class:`~sklearn_pgtm.MultinomialLDS` (one sequence, rows in reading
    order).

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    n_words : int, default=1000
        Size of the vocabulary (the most frequent words; ``None`` keeps every
        word).

    n_tokens : int, default=None
        Keep only the first ``n_tokens`` in-vocabulary tokens (``None``: all).
        The paper's protocol uses ``n_words=1000, n_tokens=4000``.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        X : sparse matrix of shape (n_tokens, n_words)
            One-hot rows (CSR, int64) of the in-vocabulary tokens.
        token_ids : ndarray of shape (n_tokens,)
            Vocabulary index of each kept token.
        positions : ndarray of shape (n_tokens,)
            Index of each kept token in ``words``.
        vocabulary : ndarray of str of shape (n_words,)
            The words, most frequent first (ties alphabetically).
        word_counts : ndarray of shape (n_words,)
            Count of each vocabulary word in the whole book.
        words : ndarray of str
            Every word token of the book, in order.
        text : str
            The text.
        DESCR : str
            Description of the data.

    See Also
    --------
    load_religion_corpus : Embedded document-term counts for topic models.

    Examples
    --------
    >>> from sklearn_pgtm.datasets import load_wonderland
    >>> alice = load_wonderland(n_words=1000, n_tokens=4000)
    >>> alice.X.shape
    (4000, 1000)
    >>> list(alice.vocabulary[:5])
    ['the', 'and', 'to', 'a', 'she']
    >>> " ".join(alice.vocabulary[alice.token_ids[:9]])
    "alice's adventures in the chapter i down the rabbit"
    """
    text = _read_text()
    words = np.array(tokenize(text), dtype=object)
    distinct, inverse, counts = np.unique(words, return_inverse=True, return_counts=True)
    # Most frequent first; np.unique sorts alphabetically, so a stable sort
    # by count keeps ties in alphabetical order.
    order = np.argsort(-counts, kind="stable")
    if n_words is not None:
        if not is_integer_at_least(n_words, 1):
            raise ValueError(f"n_words must be a positive integer or None, got {n_words!r}.")
        order = order[: int(n_words)]
    rank = np.full(distinct.shape[0], -1, dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    token_rank = rank[inverse]
    positions = np.flatnonzero(token_rank >= 0)
    if n_tokens is not None:
        if not is_integer_at_least(n_tokens, 1):
            raise ValueError(f"n_tokens must be a positive integer or None, got {n_tokens!r}.")
        positions = positions[: int(n_tokens)]
    token_ids = token_rank[positions]
    n_rows = positions.shape[0]
    X = sp.csr_matrix((np.ones(n_rows, dtype=np.int64), token_ids, np.arange(n_rows + 1)),
                      shape=(n_rows, order.shape[0]))
    return Bunch(
        X=X,
        token_ids=token_ids,
        positions=positions,
        vocabulary=np.array(distinct[order], dtype=object),
        word_counts=counts[order],
        words=words,
        text=text,
        DESCR=_DESCR,
    )
