"""Smoke test of ``python -m sklearn_pgtm.demo`` with its quick settings."""

import numpy as np

from sklearn_pgtm import demo
from sklearn_pgtm.datasets import load_religion_corpus


def test_top_words_matches_sorting_oracle():
    rng = np.random.RandomState(0)
    weights = rng.permutation(12).reshape(2, 6).astype(float)
    names = np.array(list("abcdef"))
    expected = [[names[j] for j in sorted(range(6), key=lambda j: -row[j])[:3]]
                for row in weights]
    assert demo.top_words(weights, names, n_words=3) == expected


def test_quick_demo_runs_and_learns():
    lines = []
    results = demo.main(["--quick"], out=lines.append)
    text = "\n".join(lines)
    slda = results["slda"]
    n_topics = demo.SETTINGS["quick"]["slda"]["n_components"]
    # The majority class of the test part is 319 / 570 = 0.56: beat it clearly.
    assert slda["accuracy"] > 0.7
    assert f"test accuracy: {slda['accuracy']:.3f}" in text
    weights = [weight for weight, _ in slda["topics"]]
    assert len(weights) == n_topics and weights == sorted(weights)
    np.testing.assert_allclose(sorted(slda["model"].coef_[0]), weights)
    vocabulary = load_religion_corpus().vocabulary
    for _, words in slda["topics"]:
        assert len(set(words)) == 8 and all(w in vocabulary for w in words)
    for weight, words in slda["topics"]:
        assert f"{weight:+7.2f}  {' '.join(words)}" in text
    eblda = results["eblda"]
    assert 0 < eblda["alpha"] < 10 and 0 < eblda["eta"] < 10
    assert np.isfinite(eblda["alpha_se"]) and np.isfinite(eblda["eta_se"])
    assert "Total demo time" in lines[-1]
