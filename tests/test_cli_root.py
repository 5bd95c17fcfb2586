"""The root command: --version, bare pubcli, -l anywhere, completion, exit codes,
Ctrl-C, crashes, one meaning per short flag."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from pubcli import __version__, store
from pubcli.errors import ExitCode

from .conftest import write


def test_version(cli):
    r = cli("--version")
    assert r.exit_code == 0 and r.stdout == f"pubcli {__version__}\n"


def test_bare_pubcli_prints_the_normal_help(cli):
    r = cli()
    assert r.exit_code == 0
    assert r.stdout.startswith("Usage: pubcli [OPTIONS] COMMAND [ARGS]...\n")
    assert "\nCommands:\n" in r.stdout and "  show " in r.stdout
    assert r.stderr == ""


def test_the_root_help_lists_every_command_with_its_one_line_help(cli):
    from pubcli.cli import COMMANDS

    page = cli("--help").stdout
    listed = page[page.index("\nCommands:\n"):].splitlines()[1:]
    names = [ln.split()[0] for ln in listed if ln.startswith("  ") and ln.split()]
    assert names == list(COMMANDS)
    for ln in listed:
        if ln.startswith("  ") and ln.split():
            assert len(ln.split()) > 1, f"no help for {ln.strip()}"
    assert "Rewrite the entries that are not in the canonical form" in page  # fmt's line


def test_a_mistyped_command_is_a_usage_error_with_a_suggestion(cli):
    r = cli("fmtt")
    assert r.exit_code == 2
    assert r.stderr == ("error: No such command 'fmtt'. Did you mean 'fmt'? "
                        "(see 'pubcli --help')\n")


def _command_modules_after(*args: str, tmp_path) -> list[str]:
    """The command modules a fresh ``pubcli ARGS`` process imported."""
    code = ("import sys\n"
            f"sys.argv = ['pubcli', *{list(args)!r}]\n"
            "from pubcli.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(sorted(m for m in sys.modules if m.endswith('_cmd')"
            " or m.startswith('pubcli.exporters'))), file=sys.stderr)\n")
    import os
    from pathlib import Path

    import pubcli

    env = dict(os.environ, PYTHONPATH=str(Path(pubcli.__file__).resolve().parents[1]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=env)
    return r.stderr.strip().splitlines()[-1].split() if r.stderr.strip() else []


def test_a_command_loads_only_its_own_module(tmp_path):
    """Start-up: ``pubcli --version`` reads no command's module, ``pubcli fmt`` only
    fmt's (the others, the exporters among them, are not imported)."""
    lib = write(tmp_path / "l.bib", "@misc{a,\n  title = {T},\n}\n")
    assert _command_modules_after("--version", tmp_path=tmp_path) == []
    assert _command_modules_after("-l", str(lib), "fmt", "--check",
                                  tmp_path=tmp_path) == ["pubcli.cli.fmt_cmd"]
    assert _command_modules_after("-l", str(lib), "show", "a",
                                  tmp_path=tmp_path) == ["pubcli.cli.show_cmd"]


@pytest.mark.parametrize("before", [True, False])
def test_library_option_before_or_after_the_command(cli, library, tmp_path, chdir, before):
    chdir(tmp_path)  # no data/library.bib found from here... except the fixture's
    other = write(tmp_path / "other.bib", "@misc{only1, title = {Only one}}\n")
    args = ["-l", other, "list", "-f", "keys"] if before else ["list", "-f", "keys", "-l", other]
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert r.stdout == "only1\n"


def test_the_commands_library_option_wins_over_the_roots(cli, library, tmp_path):
    other = write(tmp_path / "other.bib", "@misc{only1, title = {Only one}}\n")
    r = cli("-l", library, "list", "-f", "keys", "-l", other)
    assert r.stdout == "only1\n"


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o"), ("zsh", "compdef"),
                                          ("fish", "complete --command pubcli")])
def test_completion_scripts(cli, shell, marker):
    r = cli("completion", shell)
    assert r.exit_code == 0 and marker in r.stdout and "_PUBCLI_COMPLETE" in r.stdout


def test_completion_answers_the_shell(tmp_path):
    env = {"_PUBCLI_COMPLETE": "complete_bash", "COMP_WORDS": "pubcli sh", "COMP_CWORD": "1",
           "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "pubcli"], env=env, capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["show"]


def test_unknown_shell_is_a_usage_error(cli):
    r = cli("completion", "tcsh")
    assert r.exit_code == 2 and "tcsh" in r.stderr


def _short_flags(command) -> dict[str, str]:
    out = {}
    for p in command.params:
        longs = [o for o in p.opts if o.startswith("--")]
        for o in p.opts + p.secondary_opts:
            if re.fullmatch(r"-[a-zA-Z]", o):
                out[o] = longs[0] if longs else o
    return out


SHORT_FLAGS = {"-a": "--area", "-b": "--by", "-f": "--format", "-l": "--library",
               "-n": "--dry-run", "-o": "--output", "-s": "--search", "-t": "--type",
               "-y": "--year", "-h": "--help"}


def test_a_short_flag_means_one_thing_in_every_command():
    from typer.main import get_command

    from pubcli.cli import app

    group = get_command(app)
    for name, command in group.commands.items():
        for short, long in _short_flags(command).items():
            assert SHORT_FLAGS.get(short) == long, f"{name}: {short} is {long}"


@pytest.mark.parametrize("name", ["init", "add", "import", "tag", "edit", "remove", "rename"])
def test_every_command_that_writes_has_dry_run(name):
    from typer.main import get_command

    from pubcli.cli import app

    opts = {o for p in get_command(app).commands[name].params for o in p.opts}
    assert {"--dry-run", "-n"} <= opts


def test_every_command_has_help_with_an_example(cli):
    from typer.main import get_command

    from pubcli.cli import app

    for name in get_command(app).commands:
        r = cli(name, "--help")
        assert r.exit_code == 0 and "Example" in r.stdout, name


def test_ctrl_c_prints_one_line_and_writes_nothing(cli, library, monkeypatch):
    from pubcli.usecases import areas

    before = library.read_bytes()

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(areas, "plan_tag", interrupted)
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", library)
    assert r.exit_code == ExitCode.INTERRUPTED == 130
    assert r.stderr == "error: interrupted; nothing was written\n"
    assert library.read_bytes() == before


@pytest.mark.parametrize("late", [False, True], ids=["before-the-rename", "after-it"])
def test_ctrl_c_during_the_write_says_what_is_true(cli, library, monkeypatch, late):
    """An interrupt before the rename leaves the old file: nothing was written. After
    it, the file holds the change, whole: the message says so (issue 18)."""
    import os

    from pubcli.store import files

    before = library.read_bytes()
    real_replace = os.replace

    def interrupt(*a, **k):
        raise KeyboardInterrupt

    if late:  # the rename is done; the folder's fsync is next
        monkeypatch.setattr(files, "_fsync_dir", interrupt)
    else:
        monkeypatch.setattr(files.os, "replace", interrupt)
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", library)
    monkeypatch.setattr(files.os, "replace", real_replace)
    assert r.exit_code == ExitCode.INTERRUPTED
    if late:
        assert r.stderr == (f"error: interrupted after the write: {library} was replaced, "
                            "with the change complete\n")
        assert library.read_bytes() != before
        assert "Systems and networking" in store.load(library).find("wang2024zero")[0].areas
    else:
        assert r.stderr == "error: interrupted; nothing was written\n"
        assert library.read_bytes() == before
    # the next command starts afresh: its own interrupt wrote nothing
    monkeypatch.setattr("pubcli.usecases.areas.plan_tag", interrupt)
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", library)
    assert r.stderr == "error: interrupted; nothing was written\n"


def test_a_crash_keeps_its_traceback_and_never_exits_0_or_1(library, monkeypatch, capsys):
    """A bug inside `check` must not read as "found something" (1) in CI."""
    from pubcli.usecases import checks
    from pubcli.cli import main

    def boom(*a, **k):
        raise RuntimeError("a bug")

    monkeypatch.setattr(checks, "check", boom)
    monkeypatch.setattr(sys, "argv", ["pubcli", "check", "-l", str(library)])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == ExitCode.BUG not in (0, 1)
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: a bug" in err


def test_a_crash_in_a_real_process_exits_70(tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a, title = {T}}\n")
    code = ("import sys, pubcli.usecases.checks as c\n"
            "def boom(*a, **k): raise RuntimeError('a bug')\n"
            "c.check = boom\n"
            f"sys.argv = ['pubcli', 'check', '-l', {str(lib)!r}]\n"
            "from pubcli.cli import main\nmain()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 70 and "RuntimeError: a bug" in r.stderr


def test_errors_are_one_line_with_file_and_line(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{dup, title = {A}}\n\n@misc{dup, title = {B}}\n")
    r = cli("remove", "dup", "--yes", "-l", lib)
    assert r.exit_code == 2
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {lib}:1: the key 'dup' is used by 2 entries (lines 1 and 3); "
                      "name one as dup@1 or dup@3; nothing was changed"]


def test_broken_pipe_is_quiet(tmp_path):
    lib = write(tmp_path / "l.bib", "".join(f"@misc{{k{i}, title = {{Title {i}}}}}\n\n"
                                            for i in range(3000)))
    p = subprocess.Popen(f"{sys.executable} -m pubcli list -l {lib} | head -1", shell=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert out.strip() and "Traceback" not in err and "BrokenPipe" not in err


def test_init_dry_run_writes_nothing(cli, tmp_path):
    target = tmp_path / "data" / "library.bib"
    r = cli("init", target, "--dry-run", "--owner", "Ada")
    assert r.exit_code == 0 and "dry run: would create" in r.stderr
    assert str(target) in r.stderr and not (tmp_path / "data").exists()


def test_ctrl_c_in_a_real_process_while_the_editor_is_open(tmp_path):
    import os
    import signal
    import time

    lib = write(tmp_path / "l.bib", "@misc{a,\n  title = {T},\n}\n")
    before = lib.read_bytes()
    started = tmp_path / "editor.pid"
    editor = tmp_path / "editor"
    # the pid file appears whole (written aside, then renamed), never half-written
    editor.write_text(f"#!{sys.executable}\nimport os, time\n"
                      f"open({str(started) + '.tmp'!r}, 'w').write(str(os.getpid()))\n"
                      f"os.rename({str(started) + '.tmp'!r}, {str(started)!r})\n"
                      "time.sleep(120)\n")
    editor.chmod(0o755)
    env = {**os.environ, "VISUAL": str(editor)}
    p = subprocess.Popen([sys.executable, "-m", "pubcli", "edit", "a", "-l", str(lib)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # wait (up to a minute) until the editor runs
            if started.exists() and started.read_text():
                break
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if started.exists() and started.read_text():
            try:  # the editor may be gone already (the terminal's Ctrl-C reaches it too)
                os.kill(int(started.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.kill()
    assert p.returncode == 130
    assert err == "error: interrupted; nothing was written\n"
    assert lib.read_bytes() == before
