"""Loader of the embedded 20 Newsgroups religion corpus."""

from importlib import resources

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

_DATA_FILE = "religion.npz"

_DESCR = """\
.. _religion_corpus:

20 Newsgroups religion corpus (embedded)
----------------------------------------

The binary task "alt.atheism" (label 0) versus "talk.religion.misc" (label 1)
of the 20 Newsgroups "bydate" collection, as used for the binary experiments
of Zhu et al. (2013), stored inside the package as document-term counts so
that it loads without network access.

**Data Set Characteristics:**

=================  ==========================================
Documents          857 train (480 / 377), 570 test (319 / 251)
Features           9,307 words (vocabulary of the train part)
Tokens             142,088 train, 89,759 test
Values             non-negative integer counts
Target             0 = alt.atheism, 1 = talk.religion.misc
=================  ==========================================

Preprocessing: the messages of the two newsgroups were read with
``sklearn.datasets.fetch_20newsgroups(subset=..., categories=["alt.atheism",
"talk.religion.misc"], shuffle=False, remove=())``, i.e. the full text
including headers, signatures and quoted replies, in the order of
scikit-learn's cache. They were vectorized with
``CountVectorizer(stop_words="english", min_df=2)`` (lowercasing, tokens of
two or more word characters, scikit-learn's English stop-word list removed,
words in fewer than two training documents dropped) fitted on the training
part only; the test part uses the same vocabulary, so words seen only in test
documents are dropped. ``sklearn_pgtm/datasets/_build_religion.py``
regenerates the file from a local copy of the scikit-learn 20 Newsgroups
cache.

Note that headers (e.g. the "Newsgroups:" and "Subject:" lines) are kept, as
in the classic benchmark; they make the task easier than on bodies alone.

.. rubric:: References

* Lang, K. (1995). NewsWeeder: learning to filter netnews. ICML.
* Zhu, J., Chen, N., Perkins, H. and Zhang, B. (2013). Gibbs max-margin topic
  models with data augmentation. Section on Gibbs sLDA with regularization.
"""


def _read_arrays():
    source = resources.files(__package__).joinpath("data", _DATA_FILE)
    with source.open("rb") as handle, np.load(handle, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def _csr(arrays, part, n_features):
    X = sp.csr_matrix(
        (
            arrays[f"{part}_data"].astype(np.int64),
            arrays[f"{part}_indices"].astype(np.int32),
            arrays[f"{part}_indptr"].astype(np.int32),
        ),
        shape=(arrays[f"{part}_indptr"].shape[0] - 1, n_features),
    )
    return X


def load_religion_corpus(*, return_X_y=False):
    """Load the embedded 20 Newsgroups corpus alt.atheism vs talk.religion.misc.

    A small binary text-classification corpus shipped with the package (about
    300 KiB, no network access): the 857 training and 570 test messages of
    the newsgroups ``alt.atheism`` (label 0) and ``talk.religion.misc``
    (label 1) from the 20 Newsgroups "bydate" split, as document-term counts
    over a vocabulary of 9,307 words.

    Preprocessing (exactly how the stored file was made): the messages were
    read with ``fetch_20newsgroups(subset=..., categories=["alt.atheism",
    "talk.religion.misc"], shuffle=False, remove=())`` (full message text,
    headers, signatures and quotes included; documents in the order of
    scikit-learn's cache) and vectorized with
    ``CountVectorizer(stop_words="english", min_df=2)`` fitted on the training
    messages only; the test messages are transformed with the same
    vocabulary. The script ``sklearn_pgtm/datasets/_build_religion.py``
    rebuilds the file from a local 20 Newsgroups cache.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(X_train, X_test, y_train, y_test)`` (the order of
        :func:`sklearn.model_selection.train_test_split`) instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        X_train : sparse matrix of shape (857, 9307)
            Word counts of the training documents (CSR, int64).
        y_train : ndarray of shape (857,)
            Labels of the training documents (0 or 1).
        X_test : sparse matrix of shape (570, 9307)
            Word counts of the test documents (CSR, int64).
        y_test : ndarray of shape (570,)
            Labels of the test documents.
        feature_names : ndarray of str of shape (9307,)
            The word of each column, sorted alphabetically.
        vocabulary : dict
            Mapping from word to column index (like
            ``CountVectorizer.vocabulary_``).
        target_names : list of str
            ``["alt.atheism", "talk.religion.misc"]``.
        doc_ids_train, doc_ids_test : ndarray of int
            Message numbers (file names in the bydate archive).
        DESCR : str
            Description of the corpus.

    (X_train, X_test, y_train, y_test) : tuple
        Only if ``return_X_y`` is True.

    See Also
    --------
    sklearn.datasets.fetch_20newsgroups_vectorized : All 20 newsgroups,
        downloaded on first use.

    Examples
    --------
    >>> from sklearn_pgtm.datasets import load_religion_corpus
    >>> corpus = load_religion_corpus()
    >>> corpus.X_train.shape, corpus.X_test.shape
    ((857, 9307), (570, 9307))
    >>> corpus.target_names
    ['alt.atheism', 'talk.religion.misc']
    >>> X_train, X_test, y_train, y_test = load_religion_corpus(return_X_y=True)
    >>> int(y_train.sum()), int(y_test.sum())
    (377, 251)
    """
    arrays = _read_arrays()
    n_features = int(arrays["n_features"])
    feature_names = np.array(str(arrays["vocabulary"]).split("\n"), dtype=object)
    if feature_names.shape[0] != n_features:
        raise RuntimeError("the embedded corpus file is corrupt (vocabulary size)")
    X_train = _csr(arrays, "train", n_features)
    X_test = _csr(arrays, "test", n_features)
    y_train = arrays["train_target"].astype(np.int64)
    y_test = arrays["test_target"].astype(np.int64)
    if return_X_y:
        return X_train, X_test, y_train, y_test
    return Bunch(
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        feature_names=feature_names,
        vocabulary={word: i for i, word in enumerate(feature_names)},
        target_names=str(arrays["target_names"]).split("\n"),
        doc_ids_train=arrays["train_doc_ids"].astype(np.int64),
        doc_ids_test=arrays["test_doc_ids"].astype(np.int64),
        DESCR=_DESCR,
    )
