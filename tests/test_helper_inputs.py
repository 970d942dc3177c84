"""Bad or degenerate input to the public helper functions (metrics,
diagnostics, inspection, priors, polyagamma) and to the post-fit helpers of
DynamicTopicModel / MultinomialLDS: a clear ValueError naming the problem,
or a well-defined result, never an error from deep inside NumPy or SciPy."""

from types import SimpleNamespace

import numpy as np
import pytest

from sklearn_pgtm import DynamicTopicModel, MultinomialLDS
from sklearn_pgtm.diagnostics import ess_bulk, ess_tail, rhat, summary
from sklearn_pgtm.datasets import load_wonderland
from sklearn_pgtm.inspection import TopicSummary, top_words
from sklearn_pgtm.metrics import (
    document_completion_perplexity,
    split_document_completion,
    topic_coherence,
)
from sklearn_pgtm.polyagamma import pg_mean, pg_var, random_polyagamma
from sklearn_pgtm.priors import seeded_topic_word_prior

TOPICS = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.5, 0.4]])


@pytest.fixture(scope="module")
def dtm_chains():
    X = np.random.RandomState(0).poisson(1.0, (20, 8))
    times = np.repeat([0, 1], 10)
    return X, times, [DynamicTopicModel(2, max_iter=10, warm_start_iter=5, n_init=1,
                                        n_infer_iter=5, random_state=seed).fit(X, times)
                      for seed in (0, 1)]


def test_metrics_reject_what_they_cannot_measure(dtm_chains):
    X, _, (dtm, _) = dtm_chains
    with pytest.raises(ValueError, match="DynamicTopicModel: use its perplexity"):
        document_completion_perplexity(dtm, X, random_state=0)
    with pytest.raises(ValueError, match="X is None"):
        split_document_completion(None)
    with pytest.raises(ValueError, match="counts above"):
        split_document_completion([[1e20, 1.0]])
    with pytest.raises(ValueError, match="has no document"):
        topic_coherence(TOPICS, np.zeros((0, 4)), top_n=2)
    with pytest.raises(ValueError, match="texts holds no text"):
        topic_coherence(TOPICS, None, texts=[], top_n=2)


def test_rhat_and_ess_need_a_chain():
    for function in (rhat, ess_bulk, ess_tail):
        with pytest.raises(ValueError, match="no chain"):
            function(np.zeros((0, 10)))


def test_summary_with_nothing_to_compare_does_not_claim_agreement():
    chains = [SimpleNamespace(log_likelihood_trace_=np.full(20, float(c))) for c in (1, 2, 3)]
    result = summary(chains)
    assert not result.agree and result.names == []
    assert "Nothing to compare" in str(result) and "fixed within each chain" in str(result)


def test_summary_thresholds_and_one_chain():
    chain = SimpleNamespace(log_likelihood_trace_=np.random.RandomState(0).normal(size=50))
    with pytest.raises(ValueError, match="rhat_threshold must be a number above 1"):
        summary([chain, chain], rhat_threshold="x")
    with pytest.raises(ValueError, match="ess_threshold must be a positive number"):
        summary([chain, chain], ess_threshold=-1)
    assert summary([chain]).message.startswith("The chain's two halves")


def test_summary_of_dynamic_and_lds_chains(dtm_chains):
    # DynamicTopicModel: topics matched by their mean over the slices;
    # MultinomialLDS: its per-sweep log_likelihood_trace_.
    result = summary(dtm_chains[2])
    assert result.alignment_distance.shape == (2, 2) and "log_likelihood" in result.names
    X = np.eye(4, dtype=int)[np.random.RandomState(0).randint(0, 4, 40)]
    chains = [MultinomialLDS(2, max_iter=12, burn_in=4, n_samples=3, n_particles=20,
                             random_state=seed).fit(X) for seed in (0, 1)]
    assert summary(chains).names == ["log_likelihood"]


def test_dynamic_topic_words_arguments(dtm_chains):
    _, _, (dtm, _) = dtm_chains
    for kwargs, match in [({"n_words": -1}, "n_words must be a positive integer"),
                          ({"feature_names": set("abcdefgh")}, "sequence of names"),
                          ({"feature_names": list("abc")},
                           "feature_names has 3 entries, but the topics have 8 features")]:
        with pytest.raises(ValueError, match=match):
            dtm.get_topic_words(0, 0, **kwargs)
    for topic in (1.7, True, 2, -1):
        with pytest.raises(ValueError, match="topic must be an integer"):
            dtm.get_topic_words(topic, 0)
    # A sequence of labels was compared element-wise: as many labels as slices
    # gave the first slice's words, another length numpy's broadcast error.
    for time_slice in (list(dtm.time_slices_), [1], [0, 1, 2], [[0], [0, 1]]):
        with pytest.raises(ValueError, match="one label of time_slices_, not a sequence"):
            dtm.get_topic_words(0, time_slice)
    words = dtm.get_topic_words(np.int64(1), 1, 3, feature_names=np.array(list("abcdefgh")))
    assert len(words) == 3 and all(isinstance(w, str) for w, _ in words)
    with pytest.raises(ValueError, match="one set of topics per time slice"):
        top_words(dtm, list("abcdefgh"))
    assert len(top_words(dtm.components_[0], list("abcdefgh"), 2)) == 2


def test_lds_forecast_steps_must_be_an_integer():
    X = np.eye(3, dtype=int)[np.random.RandomState(0).randint(0, 3, 30)]
    lds = MultinomialLDS(1, max_iter=4, n_particles=10, random_state=0).fit(X)
    with pytest.raises(ValueError, match="MultinomialLDS.forecast: n_steps must be a positive integer"):
        lds.forecast(True)


def test_seeded_prior_arguments():
    vocabulary = ["a", "b", "c"]
    with pytest.raises(ValueError, match="repeats words"):
        seeded_topic_word_prior({0: ["a"]}, ["a", "a", "b"], 2)
    for n_components in (2.7, "3", 0, True):
        with pytest.raises(ValueError, match="n_components must be a positive integer"):
            seeded_topic_word_prior({0: ["a"]}, vocabulary, n_components)
    with pytest.raises(ValueError, match="not a word -> column dict"):
        seeded_topic_word_prior({0: ["a"]}, {"a": 0, "b": 1}, 2)
    # Words compared as the vocabulary is: as strings.
    prior = seeded_topic_word_prior({0: [1]}, [1, 2, 3], 2, prior=0.5, seed_prior=2.0)
    np.testing.assert_allclose(prior[:, 0], [2.0, 0.005])


def test_random_polyagamma_arguments():
    for kwargs, match in [({"n_terms": 2.7, "method": "truncated"}, "n_terms must be"),
                          ({"n_terms": 2**63}, "n_terms must be"),
                          ({"size": "3"}, "size must be"),
                          ({"size": (2, -1)}, "size must be")]:
        with pytest.raises(ValueError, match=match):
            random_polyagamma(1.0, 0.5, random_state=0, **kwargs)
    assert random_polyagamma(1.0, 0.5, size=np.int64(3), random_state=0).shape == (3,)
    # A 0-d array raised numpy's "iteration over a 0-d array" TypeError.
    assert random_polyagamma(1.0, 0.5, size=np.array(3), random_state=0).shape == (3,)
    with pytest.raises(ValueError, match="size must be"):
        random_polyagamma(1.0, 0.5, size=np.array(2.5))


@pytest.mark.parametrize("value", [None, "a", 1 + 1j, [1.0, None], np.array(["1"])])
def test_polyagamma_parameters_must_be_real_numbers(value):
    # None was refused as "NaN or infinity"; strings and complex numbers
    # failed in numpy's float conversion, naming neither b nor c.
    for func in (random_polyagamma, pg_mean, pg_var):
        with pytest.raises(ValueError, match=f"{func.__name__}: b must be a real number"):
            func(value, 0.5)
        with pytest.raises(ValueError, match=f"{func.__name__}: c must be a real number"):
            func(1.0, value)
    assert pg_mean(np.array([True, False]), np.int8(0)).tolist() == [0.25, 0.0]


def test_seeded_prior_rejects_bools_and_non_numbers():
    vocabulary = ["ball", "game", "vote"]
    # True used to seed topic 1.
    with pytest.raises(ValueError, match="topic True is not one of the integers 0 .. 2"):
        seeded_topic_word_prior({True: ["ball"]}, vocabulary, 3)
    # These used to raise a TypeError from inside the arithmetic.
    for name, value in [("prior", "a"), ("prior", None), ("prior", True),
                        ("seed_prior", "1"), ("seed_prior", [1.0]),
                        ("other_prior", "x"), ("other_prior", np.nan)]:
        with pytest.raises(ValueError, match=f"{name} must be a positive float"):
            seeded_topic_word_prior({0: ["ball"]}, vocabulary, 3, **{name: value})
    with pytest.raises(ValueError, match="seed_words must be a dict"):
        seeded_topic_word_prior(["ball"], vocabulary, 3)
    # NumPy integers and scalars are numbers.
    prior = seeded_topic_word_prior({np.int64(2): ["ball"]}, vocabulary, 3,
                                    prior=np.float32(0.5))
    np.testing.assert_allclose(prior[:, 0], [0.005, 0.005, 1.0])


def test_random_polyagamma_shapes_and_negative_b():
    # Shapes that do not broadcast used to give numpy's error, naming neither
    # b, c nor size.
    with pytest.raises(ValueError, match=r"b of shape \(3,\) and c of shape \(2,\) cannot "
                                         "be broadcast together"):
        random_polyagamma([1, 2, 3], [1, 2], size=3)
    with pytest.raises(ValueError, match=r"b of shape \(3,\) and c of shape \(\) cannot "
                                         r"be broadcast to size \(4,\)"):
        random_polyagamma([1, 2, 3], 1.0, size=4)
    with pytest.raises(ValueError, match="cannot be broadcast together"):
        random_polyagamma([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="pg_mean: b of shape"):
        pg_mean([1, 2, 3], [1, 2])
    assert random_polyagamma([1, 2, 3], 1.0, size=(2, 3), random_state=0).shape == (2, 3)
    # The message used to say b > 0 was needed, though b = 0 gives 0.
    with pytest.raises(ValueError, match=r"non-negative \(b = 0 gives the point mass at 0\); "
                                         r"got b = -1.0"):
        random_polyagamma(-1, 1.0)
    assert random_polyagamma(0.0, 1.0, random_state=0) == 0.0


def test_topic_summary_prints_without_topics_or_measure():
    empty = TopicSummary(np.zeros(0, dtype=int), [], np.zeros((0, 3)))
    assert str(empty).split()[0] == "topic"
    unnamed = TopicSummary(np.arange(2), [["a"], ["b"]], np.ones((2, 1)),
                           coherence=np.array([0.1, 0.2]))
    assert "coherence" in str(unnamed)


def test_wonderland_sizes_must_be_integers():
    for kwargs in ({"n_words": 2.7}, {"n_words": "10"}, {"n_words": True}, {"n_tokens": 3.9}):
        with pytest.raises(ValueError, match="must be a positive integer or None"):
            load_wonderland(**kwargs)
