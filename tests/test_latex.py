"""LaTeX and web-export text shown as a reader expects it."""

import pytest

from pubcli.latex import fold, to_text


@pytest.mark.parametrize("raw, shown", [
    (r'M{\"u}ller', "Müller"),
    (r"{ZeRO}++: Extremely {GPU} Training", "ZeRO++: Extremely GPU Training"),
    (r"Pages 1--10 and a---dash", "Pages 1–10 and a—dash"),
    (r"The $O(n^2)$ bound for \emph{sorting}", "The $O(n^2)$ bound for sorting"),
    (r"Research & Development \_ {\o}", "Research & Development _ ø"),
    ("TNF-&alpha; and &lt;b&gt;", "TNF-α and <b>"),
    ("  spread\n  over   lines ", "spread over lines"),
])
def test_to_text(raw, shown):
    assert to_text(raw) == shown


def test_fold_is_accent_and_case_insensitive():
    assert fold("Sébastien BUBECK") == fold("sebastien bubeck") == "sebastien bubeck"
