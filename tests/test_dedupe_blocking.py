"""Blocking: which pairs of a library are compared at all (the candidate pairs)."""

from __future__ import annotations

import random

from pubcli.dedupe.rare import rare_word_pairs

# a title, and titles around it: the same title with debris around it (a citation
# index's), with debris and two words swapped by a typist, and another paper made of
# the same words in another order
TITLE = "seasonal glacier melt on a new measuring rig"
DEBRIS = "seasonal glacier melt on a new measuring rig in the alps poster abstract"
SWAPPED = "proc 3rd seasonal melt glacier on a new measuring rig"
OTHER = "new measuring rig melt glacier seasonal"
# the debris is commoner than the title's words (a venue, "poster abstract")
AROUND = [f"proc 3rd poster abstract in the alps paper {w}"
          for w in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                    "ten", "eleven", "twelve")]


def _rare_pairs(titles: list[str]) -> set[tuple[int, int]]:
    pairs: set[tuple[int, int]] = set()
    rare_word_pairs({t: [i] for i, t in enumerate(titles)}, pairs, 60)
    return pairs


def test_a_title_with_debris_around_it_meets_it_by_its_rare_words():
    pairs = _rare_pairs([TITLE, DEBRIS, SWAPPED, *AROUND])
    assert {(0, 1), (0, 2), (1, 2)} <= pairs


def test_the_same_words_in_another_order_are_not_a_title_with_debris():
    # every word of OTHER is in TITLE (their word sets are alike), but not in its order:
    # another paper, not the title with debris around it
    pairs = _rare_pairs([TITLE, OTHER, DEBRIS, *AROUND])
    assert (0, 2) in pairs
    assert (0, 1) not in pairs and (1, 2) not in pairs


def test_common_words_meeting_by_chance_are_no_key():
    # a library of one field's vocabulary: every title's rarest words are common, and
    # the titles sharing two of them (in the same order) are there by chance
    rng = random.Random(7)
    words = [f"w{k:02d}" for k in range(60)]
    titles = sorted({" ".join(sorted(rng.sample(words, rng.randint(4, 10))))
                     for _ in range(3000)})
    assert _rare_pairs(titles) == set()
    # a rare word in a title with debris still meets it
    pairs = _rare_pairs([*titles, "w01 zircon quokka w07", "w03 w01 zircon quokka w07"])
    assert (len(titles), len(titles) + 1) in pairs
