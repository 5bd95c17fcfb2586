"""pubcli.text.encode: plain text written as LaTeX (what add, import and the online
commands write from a pasted listing or a service's answer, and fmt's encoding), and
LaTeX accents read back; what is written reads back as the same text."""

from __future__ import annotations

import pytest

from pubcli import bibtex
from pubcli.text.encode import (escape, needs_protection, protect_case, to_latex, to_unicode,
                                unprotected_words)
from pubcli.text.latex import to_text


@pytest.mark.parametrize("text, latex", [
    ("50% & more", "50\\% \\& more"),
    ("C# and $5 for a_b", "C\\# and \\$5 for a\\_b"),
    ("a~b^c", "a\\textasciitilde{}b\\textasciicircum{}c"),
    ("back\\slash", "back\\textbackslash{}slash"),
    ("Sets {x} and {y}", "Sets \\{x\\} and \\{y\\}"),
    ("a } alone", "a \\textbraceright{} alone"),
    ("{ open", "\\textbraceleft{} open"),
    ("Müller & Søn", "Müller \\& Søn"),                # Unicode stays Unicode
])
def test_latex_specials_are_escaped_and_braces_bibtex_counts_stay_balanced(text, latex):
    assert escape(text) == latex
    assert bibtex.braces_balanced(latex)


@pytest.mark.parametrize("text", ["50% & more", "C# and $5 for a_b", "Sets {x} and } y",
                                  "tilde~caret^", "back\\slash"])
def test_escaped_text_reads_back_as_the_text(text):
    assert to_text(escape(text)) == text


@pytest.mark.parametrize("word, protect", [
    ("GPU", True), ("CNNs", True), ("ZeRO-Infinity", True), ("O'Brien", True), ("3D", True),
    ("Fine-Grained", False), ("Phi-3", False), ("Training", False), ("a", False),
])
def test_capitals_after_the_first_letter_need_braces(word, protect):
    assert needs_protection(word) is protect


def test_protect_case_braces_only_the_words_a_style_would_lower_case():
    assert protect_case("ZeRO++: Optimizing CNNs on GPUs") == \
        "{ZeRO}++: Optimizing {CNNs} on {GPUs}"
    assert protect_case("Already {BERT} and {Fine {GPT} Tuning}") == \
        "Already {BERT} and {Fine {GPT} Tuning}"                    # braced: left alone
    assert protect_case("An \\emph{LLM} Study") == "An \\emph{LLM} Study"  # in a group: kept
    assert unprotected_words("Fine-tuning BERT for {NLP} and ZeRO") == ["BERT", "ZeRO"]
    assert protect_case("Plain Title Case") == "Plain Title Case"


@pytest.mark.parametrize("unicode, latex", [
    ("Müller", "M{\\\"u}ller"), ("Straße", "Stra{\\ss}e"), ("Søren", "S{\\o}ren"),
    ("Łódź", "{\\L}{\\'o}d{\\'z}"), ("Dvořák", "Dvo{\\v{r}}{\\'a}k"), ("Ærø", "{\\AE}r{\\o}"),
    ("Gödel $x^ä$", "G{\\\"o}del $x^ä$"),                         # math as written
])
def test_letters_go_to_latex_and_back(unicode, latex):
    assert to_latex(unicode) == latex
    assert to_unicode(latex) == unicode
    assert to_text(latex) == to_text(unicode)


def test_other_latex_is_left_as_it_is():
    assert to_unicode("\\emph{x} and \\\\\"u and $\\\"u$") == "\\emph{x} and \\\\\"u and $\\\"u$"
    assert to_unicode("M\\\"{u}ller and {\\v c}") == "Müller and č"
    assert to_latex("日本 and ★") == "日本 and ★"                 # no LaTeX letter: kept
