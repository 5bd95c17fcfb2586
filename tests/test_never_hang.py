"""No command waits on a terminal that is not there: every prompt path with stdin
closed (``<&-``) and with stdin at end of input, as whole processes with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import write

PAIR = """@inproceedings{fischer2021contrastive,
  author = {Fischer, Lena and Novak, Tomas},
  title = {Contrastive Pre-training of Code Embeddings},
  booktitle = {ICLR}, year = {2021},
}

@misc{fischer2020arxiv,
  author = {Lena Fischer and Tomas Novak},
  title = {Contrastive Pretraining of Code Embeddings},
  year = {2020}, eprint = {2011.01234}, archiveprefix = {arXiv},
}
"""


def run(args, stdin: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VISUAL", "EDITOR")}
    kw: dict = {"stdin": subprocess.DEVNULL} if stdin == "eof" else \
        {"preexec_fn": lambda: os.close(0)}
    return subprocess.run([sys.executable, "-m", "pubcli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=60, check=False, **kw)


PROMPTS = [
    (["remove", "wang2024zero"], "pass --yes"),
    (["edit", "wang2024zero"], "no editor: $VISUAL and $EDITOR are unset and stdin is not a "
                               "terminal; set EDITOR, or change fields with --set/--unset"),
    (["add", "--interactive", "--type", "article"], "nothing was written"),
    (["add", "--from", "-"], "no BibTeX entries found; nothing was written"),
    (["import", "-"], "found no publications to import"),
]


@pytest.mark.parametrize("stdin", ["closed", "eof"])
@pytest.mark.parametrize("args,says", PROMPTS)
def test_a_prompt_without_a_terminal_refuses_in_one_line(library, args, says, stdin):
    before = library.read_bytes()
    p = run([*args, "-l", library], stdin)
    assert p.returncode == 2, p.stderr
    assert says in p.stderr and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert library.read_bytes() == before


@pytest.mark.parametrize("stdin", ["closed", "eof"])
def test_dedupe_merge_without_a_terminal_says_use_yes(tmp_path, stdin):
    lib = write(tmp_path / "lib.bib", PAIR)
    p = run(["dedupe", "--merge", "-l", lib], stdin)
    assert p.returncode == 2, p.stderr
    assert p.stderr.rstrip().endswith(
        "error: aborted: the input ended before an answer (stdin is not a terminal: pass "
        "--yes to go without questions); nothing was written")
    assert lib.read_bytes() == PAIR.encode()


def _with_stdin_on_a_terminal(args, typed: bytes) -> subprocess.CompletedProcess:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "pubcli", *map(str, args)], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    os.write(master, typed)
    out, err = proc.communicate(timeout=60)
    os.close(master)
    return subprocess.CompletedProcess(args, proc.returncode, out.decode(), err.decode())


def test_add_from_stdin_on_a_terminal_says_what_it_waits_for(library):
    bib = b"@misc{pasted2020, title = {Pasted}, author = {Kim, A.}, year = {2020}}\n\x04"
    p = _with_stdin_on_a_terminal(["add", "--from", "-", "-l", library], bib)
    assert p.stderr.startswith("paste BibTeX, end with Ctrl-D\n"), p.stderr
    assert p.returncode == 0 and b"@misc{pasted2020" in library.read_bytes()
