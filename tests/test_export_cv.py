"""`export latex` / `export docx`: a CV's publication section through pandoc, grouped by
type and year, in a citation style, the owner in bold. Golden file for LaTeX; the
LaTeX compiles where latexmk is installed."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zipfile

import pytest

from .conftest import golden, write


def test_latex_cv_section_matches_its_golden_file(cli, library):
    r = cli("export", "latex", "--style", "apa", "--owner", "Olatunji Ruwase", "-l", library)
    assert r.exit_code == 0, r.output
    golden("export_cv_apa.tex", r.stdout)
    tex = r.stdout
    # grouped by type, then year (newest first); the owner in bold
    heads = re.findall(r"\\(sub)?section\*\{([^}]*)\}", tex)
    assert heads[0] == ("", "Technical reports") and heads[1] == ("sub", "2024")
    # (20 entries; APA lists 19 authors then "…" and the last: Phi-3's 84 hide the owner)
    assert tex.count("\\textbf{Ruwase, O.}") == 19
    assert "\\begin{itemize}" in tex and "\\documentclass" not in tex  # a fragment to \input


def test_latex_escapes_what_latex_would_read(cli, tmp_path):
    lib = write(tmp_path / "l.bib", r"@article{a2020, author = {Doe, Jane}, title = {50\% of "
                                    r"\#hash \& \_under {Costs} \$5 in $O(n^2)$ time}, "
                                    r"journal = {J. {\&} Co}, year = 2020}" "\n")
    tex = cli("export", "latex", "-l", lib).stdout
    assert "50\\% of \\#hash \\& \\_under Costs \\$5 in \\(O(n^2)\\) time" in tex
    assert "J. \\& Co" in tex


@pytest.mark.skipif(shutil.which("latexmk") is None, reason="latexmk is not installed")
def test_latex_cv_section_compiles(cli, library, tmp_path):
    body = cli("export", "latex", "-l", library).stdout
    doc = tmp_path / "cv.tex"
    doc.write_text("\\documentclass{article}\\usepackage{fontspec}\\providecommand{\\tightlist}"
                   "{}\\usepackage{amsmath}\\begin{document}\n" + body + "\\end{document}\n",
                   encoding="utf-8")
    p = subprocess.run(["latexmk", "-lualatex", "-interaction=nonstopmode", doc.name],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:]


def test_docx_cv_is_deterministic_and_bolds_the_owner(cli, library, tmp_path):
    a, b = tmp_path / "a.docx", tmp_path / "b.docx"
    for out in (a, b):
        r = cli("export", "docx", "--style", "ieee", "--owner", "Olatunji Ruwase", "-o", out,
                "-l", library)
        assert r.exit_code == 0, r.output
    assert a.read_bytes() == b.read_bytes()
    xml = zipfile.ZipFile(io.BytesIO(a.read_bytes())).read("word/document.xml").decode()
    text = "".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", xml))
    assert "Technical reports" in text and "O. Ruwase" in text
    # the owner's name is a bold run
    assert re.search(r"<w:r><w:rPr>(?:<w:bCs ?/>)?<w:b ?/>(?:<w:bCs ?/>)?</w:rPr>"
                     r"<w:t[^>]*>O\. Ruwase</w:t>", xml)


def test_docx_to_a_terminal_is_refused(cli, library, monkeypatch):
    from pubcli.cli import common

    monkeypatch.setattr(common, "stdout_is_terminal", lambda: True)
    r = cli("export", "docx", "-l", library)
    assert r.exit_code == 2 and "-o FILE" in r.stderr
