"""LaTeX and web-export text shown as a reader expects it: nothing lost, nothing
run together, and the common cases never wait for pylatexenc."""

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubcli.text.latex import search_fold, to_text
from pubcli.text.fold import fold

from .conftest import write


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


@pytest.mark.parametrize("raw, shown", [  # issue 9, item 3
    (r"The {\TeX}book", "The TeXbook"),
    (r"Publishing \& \TeX", "Publishing & TeX"),
    (r"\mbox{G-Animal's} Journal", "G-Animal's Journal"),
    (r"methodology\hyphen independent", "methodology-independent"),
])
def test_text_that_used_to_vanish(raw, shown):
    assert to_text(raw) == shown


@pytest.mark.parametrize("macro, name", [
    ("TeX", "TeX"), ("LaTeX", "LaTeX"), ("LaTeXe", "LaTeX2e"), ("BibTeX", "BibTeX"),
    ("AmSTeX", "AMS-TeX"), ("AMSLaTeX", "AMS-LaTeX"), ("METAFONT", "METAFONT"),
    ("MF", "METAFONT"), ("MetaPost", "MetaPost"), ("ConTeXt", "ConTeXt"),
    ("XeTeX", "XeTeX"), ("XeLaTeX", "XeLaTeX"), ("LuaTeX", "LuaTeX"),
    ("LuaLaTeX", "LuaLaTeX"), ("pdfTeX", "pdfTeX"), ("pdfLaTeX", "pdfLaTeX"),
    ("eTeX", "e-TeX"), ("SliTeX", "SliTeX"), ("PiCTeX", "PiCTeX"),
])
def test_logos_show_as_their_names(macro, name):
    assert to_text(f"Using \\{macro}\\ today") == f"Using {name} today"
    assert to_text(f"Using \\{macro} Today") == f"Using {name} Today"
    assert to_text(f"{{\\{macro}}}: a report") == f"{name}: a report"
    assert to_text(f"\\{macro}{{}} users") == f"{name} users"


def test_a_space_after_a_logo_follows_tex_before_lowercase_and_stays_before_a_capital():
    """TeX drops the space after a command word: real files mean it (\\TeX nische,
    \\TeX book, \\BibTeX ing); before a capital they mean a word break (\\TeX Users)."""
    assert to_text(r"Die \TeX nische Kom{\"o}die") == "Die TeXnische Komödie"
    assert to_text(r"{\TeX} Users Group and \TeX\ users") == "TeX Users Group and TeX users"


@pytest.mark.parametrize("wrapper", [
    "mbox", "hbox", "text", "textrm", "textit", "textbf", "textsl", "textsf", "texttt",
    "textsc", "textup", "textnormal", "emph", "underline", "textsuperscript"])
def test_formatting_shows_its_argument(wrapper):
    assert to_text(f"A \\{wrapper}{{Fine}} day") == "A Fine day"


@pytest.mark.parametrize("raw, shown", [
    (r"{\em Emphasis} and {\bf bold} {\sc Caps}", "Emphasis and bold Caps"),
    (r"{\slnine GUT\kern-.03em}enberg", "GUTenberg"),  # TUGboat font switch, a kern
    (r"DVIto\kern-.15em VDU", "DVItoVDU"),
    (r"a\relax\ b \protect\TeX", "a b TeX"),
])
def test_font_switches_and_spacing_print_nothing(raw, shown):
    assert to_text(raw) == shown


@pytest.mark.parametrize("raw, shown", [
    (r"Running on \VAX", "Running on VAX"),  # no argument: its name
    (r"\foo{Kept} text", "Kept text"),  # an argument: the argument
    (r"\textlatin{Non tibi}. La versione", "Non tibi. La versione"),
    (r"The \VAX{} way", "The VAX way"),
])
def test_a_macro_pubcli_does_not_know_stays_visible(raw, shown):
    assert to_text(raw) == shown


@pytest.mark.parametrize("raw, shown", [
    # biblatex's punctuation commands print their mark, not their name
    (r"Rahden/Westf\adddot", "Rahden/Westf."),
    (r"pp. 98\psq\ Nr. 2176", "pp. 98 sq. Nr. 2176"),
    (r"12\psqq", "12 sqq."),
    (r"Leipzig \addcomma\ Berlin", "Leipzig, Berlin"),  # \unspace: the space before goes
    (r"A\addcolon\ B\addsemicolon\ C\addspace D\addslash E", "A: B; C D/E"),
    (r"\pno~3, \ppno~4--5\nopp", "p. 3, pp. 4\u20135"),
    (r"Foo\isdot\ bar\nopunct", "Foo bar"),
    # the punctuation tracker: no mark after one it may not follow
    (r"Mass.\adddot", "Mass."),
    (r"Mass.\addcomma\ USA", "Mass., USA"),
    (r"Where?\addperiod", "Where?"),
    (r"one,\addcomma\ two", "one, two"),
])
def test_biblatex_punctuation_commands_print_their_marks(raw, shown):
    assert to_text(raw) == shown


@pytest.mark.parametrize("raw, shown", [
    (r"\enquote{Non tibi}. La versione", "\u201cNon tibi\u201d. La versione"),
    (r"\mkbibquote{Intention} und \mkbibquote {Sinn}", "\u201cIntention\u201d und \u201cSinn\u201d"),
    (r"\enquote{a \enquote*{b}}", "\u201ca \u2018b\u2019\u201d"),
    (r"\mkbibparens{x} \mkbibbrackets{\'e}", "(x) [\u00e9]"),
    (r"\mkbibemph{Helbig} \mkbibbold{B}", "Helbig B"),
])
def test_quotes_and_brackets_of_biblatex_and_csquotes_print(raw, shown):
    assert to_text(raw) == shown


def test_an_accent_over_nothing_prints_alone_as_tex_sets_it():
    assert to_text(r"Marek Ry{\'{}cko}, Gda{\'{}nsk}") == "Marek Ry\u00b4cko, Gda\u00b4nsk"
    assert to_text(r"\^{} and \~{}") == "^ and \u02dc"


@pytest.mark.parametrize("raw, shown", [
    (r'\"u {\"u} \"{u} \'{e} \`a \^o \~n \=a \.z', "ü ü ü é à ô ñ ā ż"),
    (r"\c{c} \c c \v{s} \H{o} \k{a} \u{g} \r{a} \d{s} \'{\i} \"\i", "ç ç š ő ą ğ å ṣ í ï"),
    (r"{\o} {\O} \ss{} \aa{} {\AA} \ae{} \oe{} \l{} \L{}", "ø Ø ß å Å æ œ ł Ł"),
    (r"Stra\ss e, {\O}ystein, Ha\ss ler", "Straße, Øystein, Haßler"),
    (r"\& \% \_ \$ \# \{x\}", "& % _ $ # {x}"),
    (r"``quoted'' words~here", "“quoted” words here"),
    ("``quoted'' without a macro", "“quoted” without a macro"),
    (r"A\ldots B and \S 3", "A…B and §3"),
    (r"input\slash output, {\TeX}{\Dash}what", "input/output, TeX—what"),
    (r"{\noopsort{1973a}}Title", "Title"),  # BibTeX's sort-key convention
    (r"see \url{https://x.org/a_b}", "see <https://x.org/a_b>"),  # pylatexenc, as before
    (r"See \cite{knuth84} and \citep[see][ch.~2]{a,b}", "See [knuth84] and [see a,b, ch. 2]"),
    (r"hy\-phen\-ation", "hyphenation"),
    (r"Using \verb|\relax| here", r"Using \relax here"),
    (r"{\tt\char`\\parskip}", r"\parskip"),
    (r"\'{\it x} \'{\i}", "x\u0301 í"),  # \it is a font switch, not a dotless i
    ("a \\'\\", "a"),
])
def test_the_common_cases(raw, shown):
    assert to_text(raw) == shown


def test_math_stays_verbatim_for_katex():
    assert to_text(r"On $\mathcal{O}(n \log n)$ \emph{sorting} of $$x$$") == \
        r"On $\mathcal{O}(n \log n)$ sorting of $$x$$"


def test_the_common_cases_never_import_pylatexenc():
    """The table and the scanner handle them; pylatexenc is for macros they don't know."""
    code = ("import sys\nfrom pubcli.text.latex import to_text, search_fold\n"
            r"""to_text(r'M{\"u}ller, {\o}ystein, \c{c}a, Stra\ss e, \TeX, \mbox{x} 1--2~3')"""
            "\n"
            r"""search_fold(r'\emph{A} {\LaTeX} \& \textbf{B} \S 2 \ldots')"""
            "\nprint('pylatexenc' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_fold_is_accent_and_case_insensitive():
    assert fold("Sébastien BUBECK") == fold("sebastien bubeck") == "sebastien bubeck"


def test_search_fold_is_the_folded_display():
    assert search_fold(r"The {\TeX}book by M{\"u}ller") == "the texbook by muller"
    assert search_fold("") == ""


def test_list_search_finds_a_logo_in_a_title(cli, tmp_path):
    lib = write(tmp_path / "library.bib",
                "@book{knuth1984,\n  author = {Donald E. Knuth},\n  title = {The {\\TeX}book},\n"
                "  publisher = {Addison-Wesley},\n  year = {1984},\n}\n\n"
                "@misc{other,\n  author = {A. M{\\\"u}ller},\n  title = {Other},\n  year = {2000},\n}\n")
    r = cli("list", "--library", lib, "--format", "keys", "--search", "texbook")
    assert r.exit_code == 0 and r.stdout.split() == ["knuth1984"]
    r = cli("list", "--library", lib, "--format", "keys", "--search", "muller")
    assert r.exit_code == 0 and r.stdout.split() == ["other"]
    r = cli("list", "--library", lib)
    assert "The TeXbook" in r.stdout


def test_a_macro_missing_its_argument_shows_and_logs_nothing():
    code = "from pubcli.text.latex import to_text\nprint(to_text(r'see \\url and \\cite'))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr == ""
    assert out.stdout == "see url and cite\n"  # each macro shows its name


@given(st.lists(st.sampled_from(
    list("\\{}$~-`'\"^=.&%_ #\n") + ["a", "B", "é", "\\i", "\\TeX", "\\emph", "\\url",
                                    "\\c", "\\v", "\\kern", "\\verb", "\\noopsort",
                                    "\\foo", "\\'", "\\\\"]), max_size=30).map("".join))
@settings(max_examples=400, deadline=None)
def test_any_text_converts_without_an_error(raw):
    out = to_text(raw)
    assert isinstance(out, str) and out == out.strip()
    assert search_fold(raw) == fold(out)
