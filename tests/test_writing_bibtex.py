"""Writing plain text as BibTeX, one rule each (issue 14): a person's name in
:func:`pubcli.schema.names.bibtex_name`, LaTeX's specials and case protection in
:mod:`pubcli.text.latex`; ``import`` (a pasted listing) and the online sources write the
same name and the same title the same way."""

from __future__ import annotations

import pytest

from pubcli.usecases import listing as listings
from pubcli.text import encode
from pubcli.schema import names
from pubcli.online import mapping


@pytest.mark.parametrize("display, expected", [
    # BibTeX's von: the first lower-case word after the first name starts the last name
    ("Charles Louis Xavier Joseph de la Vallée Poussin",
     "de la Vallée Poussin, Charles Louis Xavier Joseph"),
    # particles written capitalised belong to the last name too
    ("Maria Da Silva", "Da Silva, Maria"),
    ("Allie Del Giorno", "Del Giorno, Allie"),
    ("Jean de La Fontaine", "de La Fontaine, Jean"),
    # a suffix after a comma is BibTeX's Jr part, not a first name
    ("Martin Luther King, Jr.", "King, Jr., Martin Luther"),
    ("Brontë-Šimić, Zoë", "Brontë-Šimić, Zoë"),      # "Last, First" already
    ("Ada  Lovelace ", "Lovelace, Ada"),
    ("Q_bert Smith^2", r"Smith\textasciicircum{}2, Q\_bert"),
])
def test_bibtex_name(display, expected):
    assert names.bibtex_name(display) == expected


def test_bibtex_text_is_not_escaped_twice():
    assert names.bibtex_name(r"J{\"o}rg M{\"u}ller", latex=True) == r"M{\"u}ller, J{\"o}rg"
    assert names.bibtex_name(r"{Barnes and Noble}", latex=True) == "{Barnes and Noble}"
    assert mapping.person_from_full("Wei Wang 0001", latex=True) == "Wang, Wei"


def test_a_listing_and_a_web_service_write_a_name_the_same_way():
    for name in ("Ludwig van Beethoven", "Maria Da Silva", "Zoë Ødegård",
                 "Charles de la Vallée Poussin", "Martin Luther King Jr."):
        listing = listings.parse_listing(f"A Title\n{name}\nMay 2020\n")
        (item,) = listing.items
        assert item.record.fields["author"] == mapping.person_from_full(name), name


def test_a_listing_and_a_web_service_write_a_title_the_same_way():
    title = "ZeRO-Infinity: 50% of GPU Memory for O'Brien's CNNs & C#"
    listing = listings.parse_listing(f"{title}\nAna Costa\nMay 2020\n")
    written = listing.items[0].record.fields["title"]
    assert written == mapping.title(title)
    assert written == (r"{ZeRO-Infinity}: 50\% of {GPU} Memory for {O'Brien's} {CNNs} "
                       r"\& C\#")


def test_escape_covers_every_special():
    assert encode.escape(r"\ { } & % $ # _ ~ ^") == (
        r"\textbackslash{} \{ \} \& \% \$ \# \_ \textasciitilde{} \textasciicircum{}")


def test_protection_leaves_braced_groups_and_escaped_braces_alone():
    assert encode.protect_case("{DeepSpeed} and DeepSpeed") == "{DeepSpeed} and {DeepSpeed}"
    # an escaped brace opens no group: the word after it is still protected
    assert encode.protect_case(r"\{ RoBERTa") == r"\{ {RoBERTa}"
    assert encode.protect_case("Fine-Grained Phi-3 3D") == "Fine-Grained Phi-3 {3D}"
