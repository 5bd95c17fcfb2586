"""pubcli.text.fold: the one accent- and case-insensitive form that search, keys, area
names and the matcher compare."""

from __future__ import annotations

import pytest

from pubcli.text.fold import fold


@pytest.mark.parametrize("text, folded", [
    ("Müller", "muller"), ("MÜLLER", "muller"), ("Réseaux", "reseaux"), ("Straße", "strasse"),
    ("Sørensen", "sorensen"), ("Łódź", "lodz"), ("Ærø", "aero"), ("Þór", "thor"),
    ("Đorđević", "dordevic"), ("İstanbul", "istanbul"), ("ﬁne", "fine"),
    ("Plain ASCII", "plain ascii"), ("", ""),
])
def test_accents_case_and_special_letters_fold_to_plain_latin(text, folded):
    assert fold(text) == folded


def test_the_same_word_however_written_folds_to_one_form():
    forms = ["Gödel", "GÖDEL", "Go\u0308del", "godel"]   # a precomposed and a combining ö
    assert {fold(f) for f in forms} == {"godel"}


def test_an_accent_printed_alone_folds_away_and_splits_no_word():
    # TeX prints {\'{}ees} as ´ees and {\~{}} as ˜: the word stays one word
    assert fold("Journ\u00b4ees") == fold("Journées") == "journees"
    assert fold("Gda\u00b4nsk") == "gdansk"
    assert fold("Mar\u0101\u1e6dh\u00af\u0131") == "marathi"
    assert fold("caf\u00e9 x^2 `q'") == "cafe x^2 `q'"  # ASCII symbols stay what they are


def test_other_scripts_are_kept_and_only_case_folded():
    assert fold("Анализ") == "анализ"
    assert fold("日本語") == "日本語"
