"""Split-merge moves of a collapsed LDA chain during the first half of its burn-in.

Why (user guide :ref:`split_merge`): from random topics the collapsed sweep
often settles, in its first sweeps, on a state where two true topics share
one topic and another true topic is cut in two. Single-token moves leave it
only through states of much lower probability, so a chain can keep it for
thousands of sweeps. A split-merge move leaves it in one step: merge the two
topics that lose least by being one, split the topic that gains most by
being two (its parts found by restricted Gibbs scans), and keep the move if
the collapsed log joint rises. The moves are made during the first half of
the burn-in only: they choose where the chain starts, and the chain that is
averaged afterwards is the plain collapsed Gibbs chain.
"""

from dataclasses import dataclass

import numpy as np

from ._kernels._random import make_streams
from ._kernels._split_merge import (
    move_tokens,
    pair_separations,
    split_every_topic,
    topic_members,
)

# Every this many sweeps of the first half of the burn-in, one round of moves.
# On the LDA-drawn corpus of benchmarks/defaults.py (K = 20), seeds 0-4 all
# found the true topics in the round after sweep 25 or 50 (side measurement
# in the note of 2026-11-26). A round costs 0.9 / 1.0 / 1.9 s on all of 20
# Newsgroups at K = 20 / 100 / 1000, as much as 4 / 3 / 1 sweeps.
MOVE_INTERVAL = 25
# Restricted Gibbs scans over a topic's tokens to split it.
SPLIT_SCANS = 10
# A move merges two topics and splits a third: none below three topics.
MIN_TOPICS = 3


@dataclass
class Move:
    """One accepted move: ``merged`` (i, j) became topic i, ``split`` k was
    cut in two, its second part taking topic j; ``gain`` is the rise of the
    collapsed log joint."""

    sweep: int
    merged: tuple
    split: int
    gain: float

    def __str__(self):
        return (f"after sweep {self.sweep}, topics {self.merged[0]} and {self.merged[1]} "
                f"merged, topic {self.split} split (log joint +{self.gain:.1f})")


@dataclass
class SplitMerge:
    """The split-merge schedule of a chain and its random stream.

    Attributes
    ----------
    state : ndarray of shape (4,), uint64
        The moves' random stream (separate from the documents' streams, so
        a chain without accepted moves is the chain without moves).
    moves : list of Move
        The moves accepted so far.
    """

    state: np.ndarray
    moves: list

    @classmethod
    def from_seed(cls, seed):
        return cls(make_streams(seed, 1)[0], [])

    @staticmethod
    def due(iteration, burn_in):
        """Whether a round follows the sweep of 0-based ``iteration``."""
        done = iteration + 1
        return done % MOVE_INTERVAL == 0 and done <= burn_in // 2

    def step(self, chain, alpha, beta, iteration):
        """One round on ``chain`` (symmetric priors: ``alpha`` and ``beta``
        floats): every topic's best split, every pair's merge, and the moves
        that raise the log joint, greedily, each topic in at most one move.
        Returns the moves made."""
        tokens = chain.tokens
        members, offsets, member_doc, member_word = topic_members(
            tokens.doc_ptr, tokens.word_ids, tokens.topics, chain.n_topics)
        separations = pair_separations(tokens.doc_topic, chain.word_topic, chain.topic_total,
                                       alpha, beta)
        gains, parts = split_every_topic(offsets, member_doc, member_word, tokens.doc_topic,
                                         chain.word_topic, alpha, beta, SPLIT_SCANS,
                                         self.state)
        counts = (tokens.topics, tokens.doc_topic, chain.word_topic, chain.topic_total)
        made = []
        for k, i, j, gain in best_moves(gains, separations):
            merged = slice(offsets[j], offsets[j + 1])
            move_tokens(members[merged], member_doc[merged], member_word[merged], *counts, i)
            lo, hi = offsets[k], offsets[k + 1]
            second = lo + np.flatnonzero(parts[lo:hi])
            move_tokens(members[second], member_doc[second], member_word[second], *counts, j)
            made.append(Move(iteration + 1, (int(i), int(j)), int(k), float(gain)))
        self.moves.extend(made)
        return made


def best_moves(gains, separations):
    """Greedy choice of disjoint moves ``(k, i, j, gain)``: split ``k``
    (gain ``gains[k]``), merge ``i < j`` (loss ``separations[i, j]``), the
    largest positive ``gain = gains[k] - separations[i, j]`` first, each
    topic in at most one move."""
    n_topics = gains.shape[0]
    first, second = np.triu_indices(n_topics, 1)
    order = np.argsort(separations[first, second], kind="stable")
    first, second = first[order], second[order]
    free = np.ones(n_topics, dtype=bool)
    moves = []
    while free.sum() >= 3:
        keep = free[first] & free[second]
        first, second = first[keep], second[keep]
        # The cheapest merge not involving k: the cheapest pair, or for its
        # two topics the cheapest pair without them.
        cheapest = np.zeros(n_topics, dtype=np.int64)
        for topic in (first[0], second[0]):
            cheapest[topic] = np.argmax((first != topic) & (second != topic))
        candidates = np.flatnonzero(free)
        pair = cheapest[candidates]
        valid = (first[pair] != candidates) & (second[pair] != candidates)
        candidates, pair = candidates[valid], pair[valid]
        if candidates.size == 0:
            break
        delta = gains[candidates] - separations[first[pair], second[pair]]
        best = int(np.argmax(delta))
        if delta[best] <= 0.0:
            break
        k, p = candidates[best], pair[best]
        moves.append((int(k), int(first[p]), int(second[p]), float(delta[best])))
        free[[k, first[p], second[p]]] = False
    return moves
