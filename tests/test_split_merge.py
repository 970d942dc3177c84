"""Split-merge moves of the LDA burn-in: every gain against the collapsed log
joint computed with NumPy before and after the move, the restricted scans on
a state with two topics merged and one cut in two, the greedy choice against
a brute-force one, and GibbsLDA's use of the moves."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from sklearn_pgtm import GibbsLDA, GibbsSLDAClassifier
from sklearn_pgtm._base import to_tokens
from sklearn_pgtm._chain import TopicChain
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._split_merge import (
    move_tokens,
    pair_separations,
    split_every_topic,
    topic_members,
)
from sklearn_pgtm._split_merge import SplitMerge, best_moves

from _corpora import lda_corpus
from test_lda import _matched_l1
from test_priors import _log_joint_reference, _log_rising_by_sum
from test_sweeps import _assert_counts_exact, _recount

ALPHA, BETA = 0.2, 0.05


def _chain(X, n_topics, seed=0):
    doc_ptr, word_ids = to_tokens(sp.csr_matrix(X))
    return TopicChain.random(doc_ptr, word_ids, n_topics, X.shape[1], seed)


def _set_topics(chain, topics):
    """Give the tokens ``topics`` and recount everything with NumPy."""
    chain.tokens.topics[:] = topics
    chain.tokens.doc_topic[:], chain.word_topic[:], chain.topic_total[:] = _recount(chain)


def _counts(chain):
    return (chain.tokens.doc_topic.copy(), chain.word_topic.copy(), chain.topic_total.copy())


def _log_joint(chain, alpha=ALPHA, beta=BETA):
    """log p(w, z | alpha, beta) of collapsed LDA, symmetric priors (NumPy)."""
    return sum(_log_joint_reference(chain.tokens.doc_topic, chain.word_topic,
                                    np.full(chain.n_topics, alpha), beta))


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus(40, 30, 4, 25, 0.3, 0.2, seed=5)[0]


def test_pair_separation_is_the_log_joint_lost_by_merging(corpus):
    chain = _chain(corpus, 5)
    sep = pair_separations(chain.tokens.doc_topic, chain.word_topic, chain.topic_total,
                           ALPHA, BETA)
    before, topics = _log_joint(chain), chain.tokens.topics.copy()
    np.testing.assert_array_equal(sep, sep.T)
    for i, j in itertools.combinations(range(5), 2):
        _set_topics(chain, np.where(topics == j, i, topics))
        np.testing.assert_allclose(sep[i, j], before - _log_joint(chain), rtol=1e-9, atol=1e-8)
    _set_topics(chain, topics)


def _exact_log_joint(chain, alpha, beta):
    """The collapsed log joint as rising factorials summed log by log (exact
    at any prior, unlike differences of gammaln)."""
    doc_topic, word_topic = chain.tokens.doc_topic, chain.word_topic
    n_words, n_topics = word_topic.shape
    return (sum(_log_rising_by_sum(alpha, c) for c in doc_topic.ravel())
            - sum(_log_rising_by_sum(n_topics * alpha, n) for n in doc_topic.sum(axis=1))
            + sum(_log_rising_by_sum(beta, c) for c in word_topic.ravel())
            - sum(_log_rising_by_sum(n_words * beta, m) for m in chain.topic_total))


def test_pair_separation_at_huge_priors_is_exact(corpus):
    """At priors of 1e16 the gains were differences of lgamma values of about
    3.6e17, whose rounding (64) swamped them: moves followed the noise."""
    chain = _chain(corpus, 4)
    alpha, beta = 1e16, 1e16
    sep = pair_separations(chain.tokens.doc_topic, chain.word_topic, chain.topic_total,
                           alpha, beta)
    before, topics = _exact_log_joint(chain, alpha, beta), chain.tokens.topics.copy()
    for i, j in itertools.combinations(range(4), 2):
        _set_topics(chain, np.where(topics == j, i, topics))
        np.testing.assert_allclose(sep[i, j], before - _exact_log_joint(chain, alpha, beta),
                                   rtol=1e-9, atol=1e-6)
    _set_topics(chain, topics)


def test_split_gain_is_the_log_joint_gained_by_splitting(corpus):
    # Topics 0-3 hold the tokens; slot 4 is empty and receives part 1.
    chain = _chain(corpus, 5)
    topics = np.random.RandomState(0).randint(0, 4, chain.n_tokens).astype(np.int32)
    _set_topics(chain, topics)
    t = chain.tokens
    members, offsets, member_doc, member_word = topic_members(t.doc_ptr, t.word_ids,
                                                              t.topics, 5)
    np.testing.assert_array_equal(members[offsets[2]:offsets[3]], np.flatnonzero(topics == 2))
    docs = np.repeat(np.arange(chain.n_docs), np.diff(t.doc_ptr))
    np.testing.assert_array_equal(member_doc, docs[members])
    np.testing.assert_array_equal(member_word, t.word_ids[members])
    counts = _counts(chain)
    gains, parts = split_every_topic(offsets, member_doc, member_word, t.doc_topic,
                                     chain.word_topic, ALPHA, BETA, 3, make_streams(1, 1)[0])
    for left, right in zip(counts, _counts(chain)):  # the scans change no count
        np.testing.assert_array_equal(left, right)
    before = _log_joint(chain)
    assert gains[4] == 0.0
    for k in range(4):
        seg = members[offsets[k]:offsets[k + 1]]
        moved = topics.copy()
        moved[seg[parts[offsets[k]:offsets[k + 1]] == 1]] = 4
        _set_topics(chain, moved)
        np.testing.assert_allclose(gains[k], _log_joint(chain) - before, rtol=1e-9, atol=1e-8)
        _set_topics(chain, topics)


def test_move_tokens_keeps_the_counts(corpus):
    chain = _chain(corpus, 4)
    t = chain.tokens
    docs = np.repeat(np.arange(chain.n_docs), np.diff(t.doc_ptr))
    chosen = np.flatnonzero(t.topics == 1)[::2]
    expected = t.topics.copy()
    expected[chosen] = 3
    move_tokens(chosen, docs[chosen], t.word_ids[chosen], t.topics, t.doc_topic,
                chain.word_topic, chain.topic_total, 3)
    np.testing.assert_array_equal(t.topics, expected)
    _assert_counts_exact(chain)


def test_a_round_separates_merged_topics_and_joins_a_cut_one():
    # Three topics on disjoint words; the state holds true topics 0 and 1 in
    # slot 0 and true topic 2 cut at random across slots 1 and 2.
    rng = np.random.RandomState(3)
    n_docs, n_words = 90, 30
    truth = np.repeat(np.arange(3), n_docs // 3)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    for d, k in enumerate(truth):
        X[d, 10 * k:10 * (k + 1)] = rng.multinomial(40, np.full(10, 0.1))
    chain = _chain(X, 3)
    true_topic = chain.tokens.word_ids // 10
    _set_topics(chain, np.where(true_topic == 2, 1 + rng.randint(0, 2, chain.n_tokens),
                                0).astype(np.int32))
    before = _log_joint(chain)
    moves = SplitMerge.from_seed(0).step(chain, ALPHA, BETA, iteration=24)
    assert len(moves) == 1 and moves[0].split == 0 and moves[0].sweep == 25
    # Each slot now holds exactly one true topic.
    table = np.zeros((3, 3), dtype=int)
    np.add.at(table, (chain.tokens.topics, true_topic), 1)
    assert ((table > 0).sum(axis=1) == 1).all() and ((table > 0).sum(axis=0) == 1).all()
    np.testing.assert_allclose(_log_joint(chain) - before, moves[0].gain, rtol=1e-9)
    _assert_counts_exact(chain)
    # At the true topics there is nothing left to gain.
    assert SplitMerge.from_seed(1).step(chain, ALPHA, BETA, iteration=49) == []


def _brute_force_moves(gains, sep):
    free, moves = set(range(len(gains))), []
    while True:
        best = max(((gains[k] - sep[i, j], k, i, j)
                    for k in free for i, j in itertools.combinations(sorted(free - {k}), 2)),
                   default=None)
        if best is None or best[0] <= 0:
            return moves
        moves.append((best[1], best[2], best[3]))
        free -= set(best[1:])


@pytest.mark.parametrize("seed", range(20))
def test_greedy_choice_matches_brute_force(seed):
    rng = np.random.RandomState(seed)
    n_topics = rng.randint(3, 9)
    gains = rng.normal(0, 5, n_topics)
    sep = rng.normal(0, 5, (n_topics, n_topics))
    sep = sep + sep.T
    np.fill_diagonal(sep, 0)
    got = [move[:3] for move in best_moves(gains, sep)]
    assert got == _brute_force_moves(gains, sep)


@pytest.fixture(scope="module")
def merged_corpus():
    # Seed 0 of GibbsLDA without moves keeps two true topics in one topic
    # (worst L1 1.64 after 200 sweeps).
    return lda_corpus(300, 100, 8, 40, 0.1, 0.05, seed=0)


@pytest.mark.parametrize("random_state", range(3))
def test_gibbs_lda_recovers_the_topics_a_chain_without_moves_merges(merged_corpus,
                                                                     random_state):
    X, phi = merged_corpus
    params = dict(n_components=8, max_iter=200, burn_in=100, random_state=random_state)
    fitted = GibbsLDA(**params).fit(X)
    assert _matched_l1(fitted.components_, phi).max() < 0.4
    if random_state == 0:
        plain = GibbsLDA(split_merge=False, **params).fit(X)
        assert _matched_l1(plain.components_, phi).max() > 1.0


def test_gibbs_lda_moves_are_reproducible_and_survive_warm_start(merged_corpus):
    X, _ = merged_corpus
    params = dict(n_components=8, burn_in=60, random_state=0)
    one = GibbsLDA(max_iter=70, warm_start=True, **params).fit(X)
    assert [(m.sweep, m.split) for m in one._run.split_merge.moves] == [(25, 2)]
    again = GibbsLDA(max_iter=70, **params).fit(X)
    np.testing.assert_array_equal(one.components_, again.components_)
    warm = GibbsLDA(max_iter=10, warm_start=True, **params).fit(X)
    while warm.n_iter_ < 70:
        warm.fit(X)
    np.testing.assert_array_equal(warm.components_, one.components_)
    assert warm._run.split_merge.moves == one._run.split_merge.moves


def test_no_moves_when_disabled_or_seeded():
    X = lda_corpus(60, 40, 3, 20, 0.2, 0.1, seed=1)[0]
    off = GibbsLDA(3, max_iter=60, burn_in=60, split_merge=False, warm_start=True,
                   random_state=0).fit(X)
    assert off._run.split_merge is None
    prior = np.full((3, 40), 0.1)
    seeded = GibbsLDA(3, max_iter=60, burn_in=60, topic_word_prior=prior, warm_start=True,
                      random_state=0).fit(X)
    assert seeded._run.split_merge is None


def test_verbose_reports_the_moves(merged_corpus, capsys):
    X, _ = merged_corpus
    GibbsLDA(8, max_iter=30, burn_in=60, random_state=0, verbose=1).fit(X)
    assert "[GibbsLDA] after sweep 25, topics" in capsys.readouterr().out


def test_verbose_notes_one_line_per_round_of_several_moves(capsys):
    # K = 100 on a 30-topic corpus: the round after sweep 25 accepts a dozen
    # moves; verbose=1 notes the round in one line, verbose=2 each move.
    X = lda_corpus(300, 200, 30, 60, 0.1, 0.05, seed=0)[0]
    params = dict(n_components=100, max_iter=30, burn_in=60, random_state=0)
    moves = GibbsLDA(warm_start=True, **params).fit(X)._run.split_merge.moves
    assert len(moves) > 1
    capsys.readouterr()
    GibbsLDA(verbose=1, **params).fit(X)
    out = capsys.readouterr().out
    assert out.count("after sweep") == 1
    assert f"after sweep 25, {len(moves)} split-merge moves" in out
    GibbsLDA(verbose=2, **params).fit(X)
    assert capsys.readouterr().out.count("after sweep 25, topics") == len(moves)


# -- the supervised model's chains make the same moves ------------------------
def _labels(X):
    """A binary label from the documents' use of the first 50 words."""
    share = np.asarray(X[:, :50].sum(axis=1)).ravel()
    return (share > np.median(share)).astype(int)


def test_classifier_recovers_the_topics_a_chain_without_moves_merges(merged_corpus):
    # Seed 1 of the classifier without moves keeps two true topics in one
    # (worst L1 1.47); seeds 0 and 2 make no move and are unchanged. (At c = 1,
    # where these chains were found: other c give other chains.)
    X, phi = merged_corpus
    y = _labels(X)
    params = dict(n_components=8, c=1.0, max_iter=200, burn_in=100, warm_start=True)
    plain = {}
    for seed in range(3):
        fitted = GibbsSLDAClassifier(random_state=seed, **params).fit(X, y)
        plain[seed] = GibbsSLDAClassifier(split_merge=False, random_state=seed,
                                          **params).fit(X, y)
        assert _matched_l1(fitted.components_, phi).max() < 0.4
        if not fitted._run.split_merge.moves:
            np.testing.assert_array_equal(fitted.components_, plain[seed].components_)
            np.testing.assert_array_equal(fitted.coef_, plain[seed].coef_)
    assert _matched_l1(plain[1].components_, phi).max() > 1.0
    assert _matched_l1(plain[2].components_, phi).max() < 0.4


@pytest.mark.parametrize("multi_class, corpus_seed", [("ovr", 0), ("multinomial", 3)])
def test_multiclass_chains_make_moves_and_report_them(multi_class, corpus_seed, capsys):
    # Three classes by the documents' use of the first 30 words; on these
    # corpora a chain of each mode makes a move at sweep 25 (random_state 1).
    X = lda_corpus(300, 100, 8, 40, 0.1, 0.05, seed=corpus_seed)[0]
    y = np.asarray(X[:, :30].sum(axis=1)).ravel().argsort().argsort() * 3 // X.shape[0]
    params = dict(n_components=8, max_iter=30, burn_in=60, multi_class=multi_class,
                  random_state=1)
    fitted = GibbsSLDAClassifier(verbose=1, **params).fit(X, y)
    out = capsys.readouterr().out
    assert "[GibbsSLDAClassifier] " in out and "after sweep 25, topics" in out
    if multi_class == "ovr":
        assert any(f"class {label}: after sweep 25, topics" in out for label in range(3))
    again = GibbsSLDAClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(fitted.components_, again.components_)
    np.testing.assert_array_equal(fitted.coef_, again.coef_)
    off = GibbsSLDAClassifier(split_merge=False, **params).fit(X, y)
    assert not np.array_equal(off.components_, fitted.components_)


@pytest.mark.parametrize("burn_in", [0, 24, 50, 51, 500])
def test_rounds_are_due_every_25_sweeps_of_the_first_half_of_the_burn_in(burn_in):
    # The documented schedule: a round after sweeps 25, 50, ... up to
    # burn_in // 2, none later.
    due = [i + 1 for i in range(2 * burn_in + 60) if SplitMerge.due(i, burn_in)]
    assert due == list(range(25, burn_in // 2 + 1, 25))



# The restricted scans of a split move each token of the topic with
# p(part j) proportional to (d_j + alpha)(w_j + beta) / (n_j + V beta), counts
# without the token (Jain & Neal 2004). The gain test above holds for any
# split, so a wrong conditional (part 0's total counted with the token)
# passed it (mutation testing). Oracle: after 25 scans the labelled split of
# a 5-token topic follows exp(log joint of the parts) (all 2^5 splits).
_SCAN_PRIORS = (0.5, 0.1)
_SCAN_DOCS = np.array([0, 0, 0, 1, 1], dtype=np.int64)  # D = 2
_SCAN_WORDS = np.array([0, 1, 1, 1, 2], dtype=np.int64)  # V = 3


def _log_joint_of_parts(part):
    """log joint of the tokens with the two parts as topics (up to a constant)."""
    alpha, beta = _SCAN_PRIORS
    doc_topic = np.zeros((2, 2))
    word_topic = np.zeros((3, 2))
    np.add.at(doc_topic, (_SCAN_DOCS, part), 1)
    np.add.at(word_topic, (_SCAN_WORDS, part), 1)
    return sum(_log_joint_reference(doc_topic, word_topic, np.full(2, alpha), beta))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_restricted_scans_sample_the_restricted_posterior(seed):
    n = _SCAN_DOCS.shape[0]
    # Two topics: topic 0 holds the five tokens, topic 1 is empty.
    doc_topic = np.zeros((2, 2), dtype=np.int32)
    word_topic = np.zeros((3, 2), dtype=np.int32)
    np.add.at(doc_topic, (_SCAN_DOCS, 0), 1)
    np.add.at(word_topic, (_SCAN_WORDS, 0), 1)
    offsets = np.array([0, n, n], dtype=np.int64)
    n_rep = 6000
    states = make_streams(seed, n_rep)
    codes = np.empty(n_rep, dtype=np.int64)
    for r in range(n_rep):
        _, parts = split_every_topic(offsets, _SCAN_DOCS, _SCAN_WORDS, doc_topic, word_topic,
                                     *_SCAN_PRIORS, 25, states[r])
        codes[r] = int(np.dot(parts.astype(np.int64), 1 << np.arange(n)))
    splits = [np.array(p) for p in itertools.product((0, 1), repeat=n)]
    code_of = [int(np.dot(p, 1 << np.arange(n))) for p in splits]
    log_w = np.array([_log_joint_of_parts(p) for p in splits])
    prob = np.exp(log_w - log_w.max())
    prob /= prob.sum()
    observed = np.bincount(codes, minlength=2**n)[code_of]
    expected = prob * n_rep
    rare = expected < 5  # pooled into one cell
    obs = np.append(observed[~rare], observed[rare].sum())
    exp = np.append(expected[~rare], expected[rare].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp).pvalue > 1e-3


# The split-merge rounds score moves with the chain's own alpha and beta:
# every round raises the collapsed log joint log p(w, z | alpha, beta) by the
# sum of its moves' gains. The fits of the suite ran with 'auto' priors:
# alpha and beta swapped in SplitMerge.step passed (mutation testing). Fixed,
# very different priors here, and chains that accept a move.
@pytest.mark.parametrize("random_state", [0, 1, 6])
def test_move_gains_are_the_rise_of_the_collapsed_log_joint(monkeypatch, random_state):
    alpha, beta = 0.2, 0.02
    X = lda_corpus(300, 100, 8, 40, 0.1, 0.05, seed=0)[0]
    rounds = []
    original = SplitMerge.step

    def step(self, chain, *args):
        before = _log_joint(chain, alpha, beta)
        made = original(self, chain, *args)
        rounds.append((_log_joint(chain, alpha, beta) - before, sum(m.gain for m in made),
                       len(made)))
        return made

    monkeypatch.setattr(SplitMerge, "step", step)
    GibbsLDA(8, doc_topic_prior=alpha, topic_word_prior=beta, max_iter=100, burn_in=100,
             random_state=random_state).fit(X)
    assert len(rounds) == 2  # after sweeps 25 and 50
    assert sum(n for _, _, n in rounds) >= 1
    for rise, gain, n in rounds:
        assert rise == pytest.approx(gain, rel=1e-6, abs=1e-6)
        assert n == 0 or rise > 0
