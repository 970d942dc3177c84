"""Rebuild the embedded text of Alice's Adventures in Wonderland.

The text is the Canterbury Corpus file ``alice29.txt`` (Lewis Carroll, 1865,
Project Gutenberg's "Millennium Fulcrum Edition 2.9"; public domain), as
shipped in the source distribution of the ``brotli`` package on PyPI
(``tests/testdata/alice29.txt``). Run from the repository root::

    .venv/bin/python -m sklearn_pgtm.datasets._build_wonderland            # pip downloads the sdist
    .venv/bin/python -m sklearn_pgtm.datasets._build_wonderland --sdist brotli-1.2.1.tar.gz

The script checks the file's SHA-256, turns CRLF line ends into LF, drops the
final DOS end-of-file character and writes
``sklearn_pgtm/datasets/data/wonderland.txt.gz`` (gzip with a zero time stamp,
so rebuilding gives identical bytes). :func:`load_wonderland` never imports
this module.
"""

import argparse
import gzip
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The package version whose source distribution holds the file.
SDIST = "brotli==1.2.1"
MEMBER = "brotli-1.2.1/tests/testdata/alice29.txt"
#: SHA-256 of ``alice29.txt`` as distributed (CRLF line ends).
SOURCE_SHA256 = "7467306ee0feed4971260f3c87421154a05be571d944e9cb021a5713700c38f0"
DATA_FILE = Path(__file__).resolve().parent / "data" / "wonderland.txt.gz"


def read_source(sdist=None):
    """The bytes of ``alice29.txt`` from the brotli sdist (downloaded by pip
    into a temporary directory when ``sdist`` is None)."""
    with tempfile.TemporaryDirectory() as tmp:
        if sdist is None:
            subprocess.run([sys.executable, "-m", "pip", "download", SDIST, "--no-deps",
                            "--no-binary", ":all:", "-d", tmp], check=True)
            sdist = next(Path(tmp).glob("brotli-*.tar.gz"))
        with tarfile.open(sdist) as tar:
            raw = tar.extractfile(MEMBER).read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SOURCE_SHA256:
        raise RuntimeError(f"{MEMBER}: SHA-256 {digest} differs from {SOURCE_SHA256}")
    return raw


def normalized_text(raw):
    """The stored text: ASCII, LF line ends, without the DOS end-of-file
    character (0x1A) that closes the original file."""
    return raw.decode("ascii").replace("\r\n", "\n").rstrip("\x1a")


def write(text, path=DATA_FILE):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        with gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=0,
                           compresslevel=9) as gz:
            gz.write(text.encode("ascii"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", default=None, help="path of brotli-1.2.1.tar.gz")
    args = parser.parse_args(argv)
    text = normalized_text(read_source(args.sdist))
    write(text)
    print(f"wrote {DATA_FILE} ({DATA_FILE.stat().st_size} bytes, {len(text)} characters)")


if __name__ == "__main__":
    main()
