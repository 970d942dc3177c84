"""Sphinx configuration of the sklearn-pgtm documentation (``make docs``)."""

import ast
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent
ROOT = DOC.parent
sys.path.insert(0, str(ROOT))

import sklearn_pgtm  # noqa: E402

project = "sklearn-pgtm"
author = "sklearn-pgtm developers"
copyright = "2026, sklearn-pgtm developers"
release = sklearn_pgtm.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "generated/*.inc"]
root_doc = "index"
html_theme = "alabaster"
html_title = f"sklearn-pgtm {release}"
html_static_path = []

# -- autodoc / autosummary ---------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"

# -- numpydoc ----------------------------------------------------------------
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Validation of the public docstrings: the checks below are the ones whose
# failure makes the rendered API reference wrong or misleading (missing or
# unknown parameters, missing returns/summary, bad section order). Style-only
# checks (punctuation, capitalization, line length of the summary, ...) are off.
numpydoc_validation_checks = {
    "GL06",  # unknown section
    "GL07",  # sections in the wrong order
    "PR01",  # parameter not documented
    "PR02",  # documented parameter that does not exist
    "PR10",  # "name:type" without a space
    "RT01",  # no Returns section
    "SS01",  # no summary
}
# Objects not written by this project, or documented elsewhere.
numpydoc_validation_exclude = {
    r"\.__init__$",
    r"\.set_\w+_request$",
    r"\.set_output$",
    r"\.get_metadata_routing$",
    r"\.__sklearn_tags__$",
}


# -- examples page -------------------------------------------------------------
def _example_entries():
    """Title and description of each ``examples/*.py`` from its docstring."""
    entries = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        lines = [line.rstrip() for line in docstring.strip().splitlines()]
        # Drop sphinx-gallery style over/underlines around the title.
        lines = [line for line in lines if not (line and set(line) <= set("=-~#*"))]
        title = lines[0].strip() if lines else path.stem
        body = "\n".join(lines[1:]).strip()
        entries.append((path, title, body))
    return entries


def write_examples_include(app=None):
    """Write ``generated/examples.inc`` (included by ``examples.rst``)."""
    out = DOC / "generated"
    out.mkdir(exist_ok=True)
    parts = []
    for path, title, body in _example_entries():
        heading = f"{title} (``{path.name}``)"
        parts += [heading, "-" * len(heading), "", body, "",
                  f"Run: ``.venv/bin/python examples/{path.name}``", "",
                  ".. container:: toggle", "",
                  f"   .. literalinclude:: /../examples/{path.name}",
                  "      :language: python", ""]
    if not parts:
        parts = ["(No examples yet.)", ""]
    text = "\n".join(parts) + "\n"
    target = out / "examples.inc"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


_FOREIGN_REF = re.compile(r":ref:`([^`<]*?)\s*<[^`>]+>`")


def strip_foreign_refs(app, what, name, obj, options, lines):
    """Turn ``:ref:`text <label>``` into plain text in inherited docstrings.

    Methods inherited from scikit-learn (``score``, ``get_params``, ...) point
    to labels of scikit-learn's own user guide, which do not exist here.
    """
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] == "sklearn_pgtm":
        return
    lines[:] = [_FOREIGN_REF.sub(r"\1", line) for line in lines]


_TYPE_LINE = re.compile(r"^(\s*\w+ : )(.*)$")
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])(\w+_)(?=[,)\s]|$)")


def quote_attribute_names_in_types(app, what, name, obj, options, lines):
    """Render ``shape (n_features_in_,)`` in a type as a literal.

    In the type of a numpydoc entry, a bare name ending in ``_`` is an RST
    link reference (``n_features_in_`` -> unknown target "n_features_in").
    """
    for i, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match:
            head, type_ = match.groups()
            lines[i] = head + _TRAILING_UNDERSCORE.sub(r"``\1``", type_)


def setup(app):
    app.connect("builder-inited", write_examples_include)
    app.connect("autodoc-process-docstring", strip_foreign_refs)
    # Before numpydoc (default priority 500) turns the sections into RST.
    app.connect("autodoc-process-docstring", quote_attribute_names_in_types, priority=100)
