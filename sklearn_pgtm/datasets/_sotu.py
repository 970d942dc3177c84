"""Loader of the embedded State of the Union sample (paragraphs with years)."""

import lzma
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

_DATA_FILE = "sotu_paragraphs.tsv.xz"

_DESCR = """\
.. _sotu_corpus:

State of the Union paragraphs (embedded sample)
-----------------------------------------------

Paragraphs of the U.S. Presidential Annual Messages (1790-1946) and State of
the Union Addresses (1947 onwards), each with the year and president of its
address: a small time-stamped corpus for dynamic topic models, stored inside
the package (about 540 KiB) so that it loads without network access.

**Data Set Characteristics:**

=================  ==========================================
Documents          3,600 paragraphs (150 from every decade)
Decades            24 (1790s to 2020s)
Values             raw paragraph text (str)
Time labels        year of the address (``decade = year // 10 * 10``)
=================  ==========================================

How it was made: every canonical address of the ``sotu`` package (version
0.1.2, texts from the American Presidency Project of UC Santa Barbara) was
split into paragraphs at blank lines; bracketed stage directions of spoken
addresses ("[Applause]") were removed, whitespace collapsed, and paragraphs
of fewer than 20 words dropped. From every decade 150 paragraphs were drawn
at random without replacement (seed 0) and are kept in chronological order.
``sklearn_pgtm/datasets/_build_sotu.py`` regenerates the file from the
``sotu`` package; the full corpus (21,243 paragraphs) is what the package's
benchmarks use.

The texts are works of the U.S. federal government (public domain). Please
cite the American Presidency Project (G. Peters and J. T. Woolley,
https://www.presidency.ucsb.edu/) when using them.
"""


def _read_rows():
    source = resources.files(__package__).joinpath("data", _DATA_FILE)
    with source.open("rb") as handle:
        text = lzma.decompress(handle.read()).decode("utf-8")
    lines = text.rstrip("\n").split("\n")
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:]]
    if header != ["fileid", "year", "president", "paragraph", "text"] or any(
            len(row) != 5 for row in rows):
        raise RuntimeError("the embedded SOTU file is corrupt")
    return rows


def load_sotu_corpus(*, return_X_y=False):
    """Load the embedded sample of State of the Union paragraphs with their years.

    A small time-stamped text corpus shipped with the package (about 540 KiB,
    no network access): 3,600 paragraphs of U.S. presidential annual messages
    and State of the Union addresses, 150 drawn at random from every decade
    from the 1790s to the 2020s, for dynamic topic models.

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, year)`` instead of a Bunch.

    Returns
    -------
    corpus : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : list of str of length 3600
            The paragraphs, in chronological order.
        year : ndarray of int of shape (3600,)
            Year of each paragraph's address.
        decade : ndarray of int of shape (3600,)
            ``year // 10 * 10``, the time slices of the user guide.
        president : ndarray of str of shape (3600,)
            Surname of the president who gave the address.
        address : ndarray of str of shape (3600,)
            Identifier of the address in the ``sotu`` package
            (``"1790-Washington-1"``).
        paragraph : ndarray of int of shape (3600,)
            Position of the paragraph among the kept paragraphs of its address.
        DESCR : str
            Description of the corpus.

    (data, year) : tuple
        Only if ``return_X_y`` is True.

    See Also
    --------
    sklearn_pgtm.DynamicTopicModel : Topics that drift over time.

    Examples
    --------
    >>> from sklearn_pgtm.datasets import load_sotu_corpus
    >>> corpus = load_sotu_corpus()
    >>> len(corpus.data), int(corpus.year.min()), int(corpus.decade.max())
    (3600, 1790, 2020)
    >>> texts, years = load_sotu_corpus(return_X_y=True)
    >>> len(texts) == years.shape[0]
    True
    """
    rows = _read_rows()
    data = [row[4] for row in rows]
    year = np.array([int(row[1]) for row in rows], dtype=np.int64)
    if return_X_y:
        return data, year
    return Bunch(
        data=data,
        year=year,
        decade=year // 10 * 10,
        president=np.array([row[2] for row in rows], dtype=object),
        address=np.array([row[0] for row in rows], dtype=object),
        paragraph=np.array([int(row[3]) for row in rows], dtype=np.int64),
        DESCR=_DESCR,
    )
