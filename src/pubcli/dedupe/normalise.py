"""Normalising values for matching: titles, database notes, numbers in titles.

Nothing here is written back; these forms exist only to be compared.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from functools import lru_cache
from collections.abc import Sequence

from rapidfuzz import fuzz as _fuzz
from rapidfuzz.distance import OSA as _OSA

from pubcli.text.fold import fold
from pubcli.text.latex import to_text

# ---------------------------------------------------------------- normalising
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_NONWORD_RE = re.compile(r"[\W_]+")
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu",
    "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}
_GREEK_RE = re.compile("[" + "".join(_GREEK) + "]")
_LATEX_GREEK_RE = re.compile(r"\\(alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|"
                             r"iota|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|upsilon|phi|varphi|"
                             r"chi|psi|omega)(?![A-Za-z])")


# ASCII letters to lower case, braces deleted, everything else but digits to spaces
# (bytes.translate is the fastest way through millions of titles)
_ASCII_FOLD = bytes(c if chr(c).isdigit() and c < 128 else
                    (ord(chr(c).lower()) if chr(c).isalpha() and c < 128 else 32)
                    for c in range(256))
# letters NFKD does not take apart
# Cyrillic letters that look Latin, inside a word that mixes the scripts ("kіstler",
# "simщon": text that went through the wrong code page); all-Cyrillic words stay
_HOMOGLYPHS = str.maketrans("аеорсухкмтвнгіјѕԁѵ", "aeopcyxkmtbhrijsdv")
_CYRILLIC_RE = re.compile("[\u0400-\u04ff]")
_MIXED_WORD_RE = re.compile("[a-z\u0400-\u04ff]*(?:[a-z][\u0400-\u04ff]|[\u0400-\u04ff][a-z])"
                            "[a-z\u0400-\u04ff]*")
_ACCENT_SYM_RE = re.compile(r"\\[`'^\"~=.]\s*(?:\{\s*\\?([A-Za-z])\s*\}|\\?([A-Za-z]))")
_ACCENT_LET_RE = re.compile(r"\\[uvHckbdrt](?:\s*\{\s*\\?([A-Za-z])\s*\}|\s+\\?([A-Za-z]))")
_SPECIAL_RE = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])")
_SPECIAL = {"ss": "ss", "ae": "ae", "AE": "ae", "oe": "oe", "OE": "oe", "aa": "a", "AA": "a",
            "o": "o", "O": "o", "l": "l", "L": "l", "i": "i", "j": "j"}
_LOGO_RE = re.compile(r"\\(LaTeX|TeX|BibTeX|LaTeXe)(?![A-Za-z])")
_COMMAND_RE = re.compile(r"\\[A-Za-z]+\*?|\\\\|\\[^A-Za-z]")


def _latex_for_matching(text: str) -> str:
    """LaTeX to Unicode text, by the one rule display uses (:func:`pubcli.text.latex.to_text`):
    a macro it does not know keeps its argument or its name, so no word is lost."""
    return to_text(text)




def _ascii_words(text: str) -> str:
    return " ".join(text.encode("ascii").translate(_ASCII_FOLD, b"{}").decode("ascii").split())


def _normalise(text: str) -> str:
    if not text:
        return ""
    if text.isascii() and "\\" not in text and "&" not in text and "<" not in text:
        return _ascii_words(text)
    if "&" in text:
        text = html.unescape(html.unescape(text)).replace("&", " and ")
    if "<" in text:
        text = _TAG_RE.sub(" ", text)
    if "\\" in text:
        text = _latex_for_matching(text)
    if text.isascii():
        return _ascii_words(text)
    if "\u00e2" in text or "\u00e3" in text or "\u00c3" in text or "\u00e5" in text:
        text = repair_mojibake(text)
    text = fold(text)
    if text.isascii():
        return _ascii_words(text)
    if _CYRILLIC_RE.search(text):
        text = _MIXED_WORD_RE.sub(lambda m: m.group(0).translate(_HOMOGLYPHS), text)
    text = _GREEK_RE.sub(lambda m: " " + _GREEK[m.group(0)] + " ", text)
    return _NONWORD_RE.sub(" ", text.replace("{", "").replace("}", "")).strip()


_MOJIBAKE_LETTER_RE = re.compile(r"([\u00c3\u00e3]) ?([\u0080-\u00bf]) ?")
# what a UTF-8 quote, dash or ellipsis (E2 80 xx) leaves when read as Latin-1 / cp1252
# and re-tokenised: "â€œ", "â ??", "â ? ¬", "ã cents â ? ¬ å?", "â ? ¦"
_MOJIBAKE_DEBRIS_RE = re.compile(
    r"(?:[\u00e2\u00e3\u00e5](?:\s*(?:\?+|[\u00a2\u00a6\u00ac\u20ac\u2122\u0153\u009d\u201c"
    r"\u201d]|cents\b))+\s*)+")


def repair_mojibake(text: str) -> str:
    """Text as written before a UTF-8 -> Latin-1 mix-up: "kã ¶ stler" -> "köstler";
    the debris of mangled quotes, dashes and ellipses ("queriesâ ??") -> a space."""
    def letter(m: re.Match) -> str:
        try:
            ch = bytes([0xC3, ord(m.group(2))]).decode("utf-8")
        except UnicodeDecodeError:
            return m.group(0)
        return ch.lower() if m.group(1) == "\u00e3" else ch

    text = _MOJIBAKE_DEBRIS_RE.sub(" ", text)
    return _MOJIBAKE_LETTER_RE.sub(letter, text)


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The form values are compared in (never written back): LaTeX and HTML
    entities to plain letters, tags dropped, accents and case folded, Greek
    letters spelled out, braces removed, dashes and punctuation to spaces,
    spaces collapsed.

    >>> normalise("M{\\\"u}ller &amp; the {GPU}--Wall: <i>TNF-α</i>")
    'muller and the gpu wall tnf alpha'
    """
    return _normalise(text)


_STOP = frozenset("a an the of and or in on for to with by at from as is are be its into via "
                  "vs versus de la le el en und der die das".split())
# Titles that name a kind of item rather than a work: never enough on their own.
_GENERIC = frozenset(normalise(t) for t in (
    "editorial", "editorials", "guest editorial", "editorial comment", "editor's note",
    "editorial note", "introduction", "preface", "foreword", "prologue", "epilogue",
    "letter", "letters", "letter to the editor", "letters to the editor", "reply", "response",
    "author reply", "authors reply", "reply to the letter", "in reply", "comment", "comments",
    "commentary", "correspondence", "discussion", "erratum", "errata", "corrigendum",
    "correction", "corrections", "retraction", "retraction notice", "notice of retraction",
    "expression of concern", "abstracts", "abstract", "book review", "book reviews",
    "review", "reviews", "news", "in brief", "in this issue", "this issue", "highlights",
    "contents", "table of contents", "index", "author index", "subject index", "obituary",
    "in memoriam", "announcement", "announcements", "acknowledgements", "acknowledgments",
    "acknowledgement of reviewers", "reviewers", "conclusion", "conclusions", "summary",
    "overview", "keynote", "keynote address", "panel", "panel discussion", "poster",
    "posters", "proceedings", "front matter", "back matter", "masthead", "calendar",
    "case report", "case reports", "images in clinical medicine", "quiz", "untitled",
    "no title", "title", "call for papers", "meeting abstracts", "oral presentations",
    "poster presentations", "invited talk", "tutorial", "workshop", "session",
))
# Words that make an item a notice about another one (an erratum, a reply, a comment):
# in one title but not the other, they veto. Decisive by definition, so only these.
_MARKERS = frozenset(
    "erratum errata corrigendum corrigenda correction corrections retraction retracted "
    "retract withdrawn withdrawal concern comment comments commentary reply replies "
    "response responses rebuttal addendum".split())
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7",
          "viii": "8", "ix": "9", "x": "10", "xi": "11", "xii": "12"}
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "first": "1",
                 "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
                 "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10"}
_PART_WORDS = frozenset("part parts phase stage type volume vol chapter section book series "
                        "study trial grade class level teil band tome tomo partie".split())
_SEP_RE = re.compile(r":|\s[-\u2013\u2014]{1,3}\s|--|[.?!]\s|;")


_MAYBE_NUMBER_RE = re.compile(r"\d|\b(?:i{2,3}|iv|vi{0,3}|ix|xi{1,2}|one|two|three|four|five|six|"
                              r"seven|eight|nine|ten|first|second|third|fourth|fifth|sixth|"
                              r"seventh|eighth|ninth|tenth)\b")


def _marker_difference(a: Sequence[str], b: Sequence[str]) -> str:
    """A word like "erratum" or "reply" at the start or end of one title only
    (in the middle it is a topic: "machine translation models")."""
    for this, other in ((a, b), (b, a)):
        ends = set(this[:3]) | set(this[-3:])
        for word in sorted((ends & _MARKERS) - set(other)):
            if not any(len(o) > 3 and _close_spelling(word, o) for o in other):
                return word
    return ""


def part_letters(tokens: Sequence[str]) -> tuple[str, ...]:
    """The letters naming a part ("Part A", "Teil B", "Volume C"), sorted."""
    return tuple(sorted(tok for prev, tok in zip(tokens, tokens[1:], strict=False)
                        if len(tok) == 1 and tok.isalpha() and prev in _PART_WORDS))


def _title_numbers(tokens: Sequence[str]) -> tuple[str, ...]:
    out = []
    prev = ""
    for tok in tokens:
        if tok.isdigit():
            out.append(tok.lstrip("0") or "0")
        elif prev in _PART_WORDS and (tok in _ROMAN or tok in _NUMBER_WORDS):
            out.append(_ROMAN.get(tok) or _NUMBER_WORDS[tok])
        elif tok in _ROMAN and tok not in ("i", "v", "x"):
            out.append(_ROMAN[tok])
        prev = tok
    return tuple(sorted(out))


_WRAPPED_RE = re.compile(r"^\s*\[([^\[\]]+)\]\s*\.?\s*$")
_TRAILING_NOTE_RE = re.compile(r"\s*(?:\[[^\[\]]*\]|\[[^\[\]]*$|\((?:structured\s+)?abstracts?\)"
                               r"|\((?:author'?s?\s+)?transl[^()]*\))\s*\.*\s*$", re.I)
# notes a database adds that say nothing about what the item is
_DATABASE_NOTES = frozenset({"corrected", "abstract", "abstracts", "structured abstract",
                             "see comments", "comment", "japanese", "english abstract"})


#: A database's cross-reference in a title, anywhere in it: "[Erratum appears in J
#: Pediatr. 2003 Jun;142(6):616]", "[Comment in: Lancet. 2001;357:1]", "[Retraction in
#: ...]": it names another item (with a place and a number), it is not what this one is.
_XREF_NOTE_RE = re.compile(
    r"\s*\[\s*(?:erratum|errata|corrigendum|correction|comments?|commentary|retraction|"
    r"retracted|republished|reprinted|update[ds]?|expression\s+of\s+concern|summary\s+for"
    r"\s+patients)\b[^\[\]]*?\b(?:appears?\s+in|published\s+in|in|on|see)\b\s*:?"
    r"[^\[\]]*\d[^\[\]]*\]\s*\.?", re.I)


def strip_annotations(title: str) -> str:
    """A title without the notes databases add: "[Title]." (a translated title),
    "... [Japanese]", "... [corrected]", "... (Structured abstract)", "... [Abstract]",
    "[Erratum appears in J Pediatr. 2003 Jun;142(6):616] ..." (a cross-reference,
    anywhere); a bare "[Erratum]" is what the item is and stays."""
    if "[" not in title and "(" not in title:
        return title
    if "[" in title:
        bare = _XREF_NOTE_RE.sub(" ", title).strip()
        if len(bare.split()) >= 3:
            title = bare
    for _ in range(4):
        m = _TRAILING_NOTE_RE.search(title)
        if not m or m.start() == 0 or len(title[:m.start()].split()) < 3:
            break
        note = " ".join(_normalise(m.group(0)).split())
        words = note.split()
        if note not in _DATABASE_NOTES and len(words) <= 2 and set(words) & _MARKERS:
            break  # "[Erratum]", "[Retracted article]": what the item is, not a note
        title = title[:m.start()].rstrip()
    m = _WRAPPED_RE.match(title)
    return m.group(1) if m else title


def _has_separator(raw: str) -> bool:
    return (":" in raw or ". " in raw or " -" in raw or "--" in raw or "?" in raw
            or "!" in raw or ";" in raw or "\u2013" in raw or "\u2014" in raw)


def _main_title(title_raw: str) -> str:
    """The title before its first subtitle separator (":", " - ", ". "), normalised;
    "" when there is no separator."""
    text = title_raw
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _TAG_RE.sub(" ", text)
    if "\\" in text:
        text = _latex_for_matching(text)
    m = _SEP_RE.search(text)
    if not m or m.start() == 0:
        return ""
    return _normalise(text[:m.start()])

# ---------------------------------------------------------------- scoring
def title_score(a: str, b: str) -> float:
    """Similarity of two normalised titles, 0-100, word order ignored."""
    if not a or not b:
        return 0.0
    if a == b:
        return 100.0
    return max(_fuzz.ratio(a, b), _fuzz.token_sort_ratio(a, b))


def _close_spelling(a: str, b: str) -> bool:
    """A typo or a spelling variant: one edit (two for long words), transpositions
    counting as one ("tumour"/"tumor", "randomised"/"randomized"; not "men"/"women").
    In a word of under four letters one letter changed is another word ("hepatitis
    b"/"hepatitis c", "vitamin d"/"vitamin e", "m-tree"/"r-tree", "age"/"ago"): there
    only a letter dropped from a word of three or more is a typo ("fr"/"for")."""
    la, lb = len(a), len(b)
    if la < 4 or lb < 4:
        if abs(la - lb) != 1 or max(la, lb) < 3:
            return False
        limit = 1
    else:
        limit = 1 if la <= 7 and lb <= 7 else 2
    return -limit <= la - lb <= limit and _OSA.distance(a, b, score_cutoff=limit) <= limit


def _unmatched_words(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[str]]:
    """Content words of each title that the other title does not have, even spelled
    a little differently or written as a compound ("pre training"/"pretraining")."""
    only_a, only_b = _differences(a, b)
    if not only_a and not only_b:
        return [], []
    explained = _explained(a, b, only_a, only_b)
    ra = _unexplained(only_a, only_b, b, explained)
    rb = _unexplained(only_b, only_a, a, explained)
    ua = [t for t in ra if t not in _STOP]
    ub = [t for t in rb if t not in _STOP]
    if (ua or ub) and ra and rb:  # a word replaced, not just added: report both sides
        ua = ua or ra[:1]
        ub = ub or rb[:1]
    return ua, ub


def word_replaced(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    """A word of each title the other does not have (the first of each, as
    :func:`_unmatched_words` reports them), or None when no word was replaced (only
    added or dropped, or none): the same answer as ``ua and ub`` there, without
    working out what the answer does not need."""
    only_a, only_b = _differences(a, b)
    if not only_a or not only_b:
        return None  # words only added (or dropped): nothing replaced
    explained = _explained(a, b, only_a, only_b)
    ra = _unexplained(only_a, only_b, b, explained)
    if not ra:
        return None
    rb = _unexplained(only_b, only_a, a, explained)
    if not rb:
        return None
    ua = [t for t in ra if t not in _STOP]
    ub = [t for t in rb if t not in _STOP]
    if not ua and not ub:
        return None
    return (ua or ra)[0], (ub or rb)[0]


@lru_cache(maxsize=65536)
def title_word_replaced(a: str, b: str) -> tuple[str, str] | None:
    """:func:`word_replaced` of two normalised titles' words, kept per pair of titles
    (in a title-heavy library many pairs of records share their two titles)."""
    return word_replaced(a.split(), b.split())


def _differences(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[str]]:
    """The words of ``a`` that ``b`` lacks and of ``b`` that ``a`` lacks, counted (a
    word twice in one title and once in the other is once left over), in order."""
    sa, sb = set(a), set(b)
    if len(sa) == len(a) and len(sb) == len(b):  # (nearly every title: no word twice)
        return [t for t in a if t not in sb], [t for t in b if t not in sa]
    ca, cb = Counter(a), Counter(b)
    return list((ca - cb).elements()), list((cb - ca).elements())


def _explained(a: Sequence[str], b: Sequence[str], only_a: Sequence[str],
               only_b: Sequence[str]) -> set[str]:
    """Words of either side's difference explained as a compound or split word."""
    explained: set[str] = set()
    for toks, other_only in ((a, set(only_b)), (b, set(only_a))):
        n = len(toks)
        if not other_only or n < 2:
            continue
        long_others = [o for o in other_only if len(o) >= 8]
        if not long_others:
            whole = "".join(toks)
            if not any(o in whole for o in other_only):
                continue  # no word of the other is these words run together
        limit = max(len(t) for t in other_only) + 2  # (a longer run matches none)
        lens = [len(t) for t in toks]
        for i in range(n - 1):
            size = lens[i] + lens[i + 1]
            if size > limit:
                continue
            joined = toks[i] + toks[i + 1]
            k = 2
            while True:  # words run together, even many ("behaviorofspatial..."), <= 8
                if joined in other_only:
                    explained.add(joined)
                    explained.update(toks[i:i + k])
                elif long_others and size >= 8:  # split with debris: "fa undament al"
                    close = [o for o in long_others if _close_spelling(joined, o)]
                    if close:
                        explained.update(close)
                        explained.update(toks[i:i + k])
                if k == 8 or i + k >= n:
                    break
                size += lens[i + k]
                if size > limit:
                    break
                joined += toks[i + k]
                k += 1
    return explained


def _unexplained(only: Sequence[str], other_only: Sequence[str], other: Sequence[str],
                 explained: set[str]) -> list[str]:
    """The words of ``only`` that are not a typo, an inflection, a ligature lost, an
    acronym of the other title or part of a compound."""
    out = []
    initials: tuple[str, str] | None = None
    for t in only:
        if t in explained:
            continue
        lt, start = len(t), t[:2]
        alike = False
        for o in other_only:  # a typo, a ligature lost (a length apart), an inflection
            d = lt - len(o)
            if -2 <= d <= 2 and (_close_spelling(t, o)
                                 or ((d == 2 or d == -2) and _unligatured(t, o))):
                alike = True
                break
            if o[:2] == start and _same_stem(t, o):
                alike = True
                break
        if alike:
            continue
        if 2 <= len(t) <= 8 and t.isalpha() and t not in _STOP:
            if initials is None:
                initials = _initials(other)
            if t in initials[0] or t in initials[1]:
                continue  # the initials of consecutive words ("ahus": atypical hemolytic ...)
        out.append(t)
    return out


_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "er", "est", "s", "e",
             "y")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def _same_stem(a: str, b: str) -> bool:
    """One word inflected or derived ("query"/"queries"/"querying", "update"/"updating",
    "aggregate"/"aggregation", "neighbor"/"neighborhood"); not "with"/"without" or
    "men"/"women": the same stem, or all but the last three letters of the shorter
    word (and at least five) in common."""
    if a[:2] != b[:2]:
        return False
    if _stem(a) == _stem(b):
        return True
    shorter = min(len(a), len(b))
    need = max(5, shorter - 3)
    return shorter >= 5 and a[:need] == b[:need]


def _unligatured(a: str, b: str) -> bool:
    """"les"/"files", "rm"/"firm": text taken from a PDF loses its "fi", "fl", "ff"
    ligatures."""
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(long_) - len(short) == 2 and len(short) >= 2 and any(
        long_.replace(lig, "", 1) == short for lig in ("fi", "fl", "ff") if lig in long_)


def _initials(words: Sequence[str]) -> tuple[str, str]:
    """The first letters of ``words``, and of their content words, as strings: a word
    is an acronym of consecutive words ("ahus": atypical hemolytic uremic syndrome)
    when it is a substring of one (each word gives one letter)."""
    return ("".join(w[:1] or "\x00" for w in words),
            "".join(w[:1] or "\x00" for w in words if w not in _STOP))
