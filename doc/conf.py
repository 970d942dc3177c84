"""Sphinx configuration of the sklearn-pgtm documentation (``make docs``).

The site looks like scikit-learn's: pydata-sphinx-theme, equations rendered by
MathJax, the API reference generated from the numpydoc docstrings (validated
at build time), and a sphinx-gallery of ``examples/plot_*.py`` executed with
their figures. ``make docs`` builds it with warnings as errors; ``make
docs-noplot`` skips running the examples (``-D plot_gallery=0``).
"""

import importlib
import pkgutil
import re
import sys
from pathlib import Path

from sphinx import addnodes
from sphinx.util import logging

DOC = Path(__file__).resolve().parent
ROOT = DOC.parent
# Document (and run the examples against) the package of this source tree.
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
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build"]
root_doc = "index"

# -- HTML: the theme of scikit-learn, NumPy, SciPy, pandas -------------------
html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-pgtm {release}"
html_static_path = []
html_theme_options = {
    "logo": {"text": "sklearn-pgtm"},
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
# No left sidebar on the landing page (as on scikit-learn's).
html_sidebars = {"index": []}

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

# -- sphinx-gallery: examples/plot_*.py, run, with their figures --------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # Every examples/plot_*.py is executed and its figures kept; any other
    # example file is rendered without running it.
    "filename_pattern": r"[\\/]plot_",
    "ignore_pattern": r"__init__\.py|[\\/]_",
    "within_subsection_order": "FileNameSortKey",
    # "Examples using X" under each entry of the API reference.
    "doc_module": ("sklearn_pgtm",),
    "backreferences_dir": "generated/backreferences",
    "image_scrapers": ("matplotlib",),
    "remove_config_comments": True,
    "min_reported_time": 1,
    "show_memory": False,
    # Examples run in this process: a failing example fails the build.
    "only_warn_on_example_error": False,
}


# -- every public object is linked from the user guide -----------------------
_logger = logging.getLogger(__name__)
_USER_GUIDE_ROOT = "user_guide"


def _user_guide_docs(env):
    """The user guide page and every page below it in the toctree."""
    found, pending = set(), [_USER_GUIDE_ROOT]
    while pending:
        docname = pending.pop()
        if docname not in found:
            found.add(docname)
            pending.extend(env.toctree_includes.get(docname, ()))
    return found


def _public_names():
    """``module.name`` for every name in ``__all__`` of the package and its public modules."""
    modules = [sklearn_pgtm] + [
        importlib.import_module(f"sklearn_pgtm.{info.name}")
        for info in pkgutil.iter_modules(sklearn_pgtm.__path__)
        if not info.name.startswith("_")
    ]
    return {f"{module.__name__}.{name}"
            for module in modules for name in getattr(module, "__all__", ())}


def check_user_guide_links(app, env):
    """Warn about public objects missing from the API reference or the user guide.

    Public objects are the names in ``__all__`` of ``sklearn_pgtm`` and of its
    public modules; each must have an autosummary page in ``generated/`` (an
    entry of ``api.rst``) and be linked by a ``:class:`` / ``:func:`` role
    from a user guide page. With ``-W`` (``make docs``) either omission fails
    the build, so a new public object needs both.
    """
    python = env.get_domain("py")
    public = {
        name for name, entry in python.objects.items()
        if entry.objtype in {"class", "function"} and not entry.aliased
        and entry.docname.startswith("generated/")
    }
    for name in sorted(_public_names() - public):
        _logger.warning(
            "%s is public (in __all__) but not in the API reference (add it to doc/api.rst)",
            name, type="sklearn_pgtm", subtype="api_reference",
        )
    linked = set()
    for docname in _user_guide_docs(env):
        if docname not in env.found_docs:
            continue
        for node in env.get_doctree(docname).findall(addnodes.pending_xref):
            if node.get("refdomain") != "py":
                continue
            target = node["reftarget"].lstrip(".~")
            module = node.get("py:module") or ""
            linked.update({target, f"{module}.{target}"})
    for name in sorted(public - linked):
        _logger.warning(
            "%s is in the API reference but no user guide page links it "
            "(add a :class:/:func: reference to the page describing it)",
            name, type="sklearn_pgtm", subtype="user_guide_link",
        )


# -- docstrings inherited from scikit-learn ----------------------------------
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
    app.connect("autodoc-process-docstring", strip_foreign_refs)
    # Before numpydoc (default priority 500) turns the sections into RST.
    app.connect("autodoc-process-docstring", quote_attribute_names_in_types, priority=100)
    app.connect("env-check-consistency", check_user_guide_links)
