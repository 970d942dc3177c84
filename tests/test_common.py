"""scikit-learn's estimator checks over every public estimator of the package.

Each model's own test file runs the checks on more configurations; this file
makes sure that every estimator exported by ``sklearn_pgtm`` passes them with
small, fast settings, and that none is forgotten.
"""

import ast
import inspect
import re
import sys
import warnings
from numbers import Integral

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

import sklearn_pgtm
from sklearn_pgtm import (
    CorrelatedTopicModel,
    DynamicTopicModel,
    EmpiricalBayesLDA,
    GibbsLDA,
    GibbsSLDAClassifier,
    MultinomialGaussianProcess,
    MultinomialLDS,
)
from sklearn_pgtm.polyagamma import random_polyagamma

# Small settings: a handful of sweeps is enough for the API checks.
ESTIMATORS = [
    GibbsLDA(n_components=3, max_iter=6, burn_in=2, n_infer_iter=4),
    GibbsSLDAClassifier(n_components=3, max_iter=6, burn_in=2, n_infer_iter=5),
    CorrelatedTopicModel(n_components=3, max_iter=4, burn_in=2, n_infer_iter=2),
    EmpiricalBayesLDA(2, n_samples=8, burn_in=2, n_final_iter=2, n_infer_iter=4,
                      random_state=0),
    # The checks send one-column targets (tags: multi-output only), i.e. a
    # single category; tests/test_gp.py runs the same invariances on K >= 2.
    MultinomialGaussianProcess(max_iter=4, burn_in=2, random_state=0),
    MultinomialLDS(2, max_iter=4, n_samples=2, n_infer_iter=2, n_particles=20),
    # fit(X, y) reads y as the documents' time labels (None: one slice).
    DynamicTopicModel(3, max_iter=4, warm_start_iter=2, n_init=1, n_infer_iter=4),
]

# Checks expected to fail, with the reason. An estimator module may define its
# own dict ``_EXPECTED_FAILED_CHECKS`` (check name -> reason); it is merged in.
EXPECTED_FAILED_CHECKS = {
    "GibbsSLDAClassifier": {
        "check_decision_proba_consistency": (
            "the check's blobs contain negative values, which are not word counts"
        ),
    },
}


def _expected_failed_checks(estimator):
    name = type(estimator).__name__
    module = sys.modules[type(estimator).__module__]
    return {
        **EXPECTED_FAILED_CHECKS.get(name, {}),
        **getattr(module, "_EXPECTED_FAILED_CHECKS", {}),
    }


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_every_public_estimator_is_checked():
    public = {
        name
        for name in sklearn_pgtm.__all__
        if inspect.isclass(getattr(sklearn_pgtm, name))
        and issubclass(getattr(sklearn_pgtm, name), BaseEstimator)
    }
    checked = {type(est).__name__ for est in ESTIMATORS}
    assert public == checked


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda est: type(est).__name__)
def test_public_estimator_documented(estimator):
    # numpydoc sections the API docs rely on.
    doc = inspect.getdoc(type(estimator))
    for section in ("Parameters", "Attributes", "See Also", "References", "Examples"):
        assert f"\n{section}\n" in doc, f"{type(estimator).__name__} lacks {section}"


@pytest.mark.parametrize("name", sklearn_pgtm.__all__)
def test_documented_parameters_and_defaults_are_the_code_s(name):
    # Every parameter of __init__ has its "name : type, default=value" entry,
    # with the value the code has, and no entry documents a parameter that
    # is gone.
    cls = getattr(sklearn_pgtm, name)
    doc = inspect.getdoc(cls)
    section = doc.split("\nParameters\n----------\n")[1].split("\n\nAttributes\n")[0]
    entries = dict(re.findall(r"^(\w+) : (.*)$", section, flags=re.M))
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert set(entries) == {p.name for p in parameters}
    for parameter in parameters:
        documented = re.search(r"default=(.*)$", entries[parameter.name])
        if parameter.default is inspect.Parameter.empty:
            assert documented is None, parameter.name
            continue
        assert documented, f"{name}: {parameter.name} does not say its default"
        assert ast.literal_eval(documented.group(1)) == parameter.default, parameter.name


# Documented attributes that a default fit does not set: the GP's
# hyperparameter draws (hyperparameters="sample" only).
CONDITIONAL_ATTRIBUTES = {"hyperparameter_samples_", "acceptance_rate_"}


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda est: type(est).__name__)
def test_fitted_attributes_are_the_documented_ones(estimator):
    # A fit sets exactly the public attributes the docstring lists
    # (feature_names_in_, set by a fit on a DataFrame, was missing from the
    # Attributes of five of the seven estimators).
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.random.default_rng(0).poisson(2.0, size=(30, 8)),
                     columns=list("abcdefgh"))
    estimator = clone(estimator).set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains warn
        if isinstance(estimator, MultinomialGaussianProcess):
            estimator.fit(pd.DataFrame({"year": np.linspace(0.0, 1.0, 30)}), X.to_numpy())
        elif isinstance(estimator, GibbsSLDAClassifier):
            estimator.fit(X, np.arange(30) % 2)
        else:
            estimator.fit(X)
    doc = inspect.getdoc(type(estimator))
    section = doc.split("\nAttributes\n----------\n")[1].split("\n\nSee Also\n")[0]
    documented = set(re.findall(r"^(\w+) : ", section, flags=re.M))
    fitted = {name for name in vars(estimator) if name.endswith("_") and name[0] != "_"}
    assert "feature_names_in_" in fitted
    assert fitted - documented == set(), "fitted but not documented"
    assert documented - fitted - CONDITIONAL_ATTRIBUTES == set(), "documented but not fitted"


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda est: type(est).__name__)
def test_a_boolean_is_not_an_integer_parameter(estimator):
    # bool is an Integral: n_components=True passed scikit-learn's interval as
    # 1 and then failed inside fit in numpy ("an integer is required"); and
    # integers beyond int64 (n_components=10**30) failed in numpy or numba.
    integers = [name for name, constraints in estimator._parameter_constraints.items()
                if any(getattr(c, "type", None) is Integral for c in constraints)]
    assert integers
    for name in integers:
        for value in (True, 10**30, -10**30):
            with pytest.raises(InvalidParameterError, match=name):
                clone(estimator).set_params(**{name: value})._validate_params()


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if "pg_terms" in e.get_params()],
                         ids=lambda est: type(est).__name__)
def test_pg_terms_has_the_samplers_bound(estimator):
    # Each term costs time linearly (10**6 terms: 24 s for a 3-sweep fit of 20
    # documents); random_polyagamma refuses more than 10**5, so do the models.
    clone(estimator).set_params(pg_terms=100_000)._validate_params()
    with pytest.raises(InvalidParameterError, match="pg_terms"):
        clone(estimator).set_params(pg_terms=100_001)._validate_params()
    with pytest.raises(ValueError, match="n_terms"):
        random_polyagamma(1.0, method="truncated", n_terms=100_001)


def test_boolean_n_components_is_refused_before_fitting():
    X = np.random.default_rng(0).poisson(2.0, size=(8, 5))
    with pytest.raises(InvalidParameterError, match="n_components"):
        GibbsLDA(n_components=True, max_iter=2, burn_in=1).fit(X)
