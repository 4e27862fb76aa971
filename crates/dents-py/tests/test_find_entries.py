"""dents.find(..., entries=True): DirEntry objects for what the expression
printed, compared with os.lstat/os.stat of the same paths and with the
records of the same expression; what the expression stat'ed is not stat'ed
again (counted with strace).  Leaving the loop early and a slow consumer:
test_find.py, for records and entries alike."""

import os
import shutil
import subprocess
import sys

import pytest

import dents
from test_find import EXPRESSIONS, big_tree, gnu, make_odd_names

# Fields compared beyond os.stat_result's == (which compares the ten
# tuple fields, times in whole seconds).
EXTRA = ["st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_blksize", "st_blocks", "st_rdev", "st_atime", "st_mtime"]


def same_stat(got, want):
    assert type(got) is os.stat_result
    assert got == want
    for f in EXTRA:
        assert getattr(got, f) == getattr(want, f), f


def check_entry(e, as_bytes):
    """`e` against os's view of its path."""
    path = e.path
    assert isinstance(path, bytes if as_bytes else str)
    assert os.fspath(e) == path
    sep = b"/" if as_bytes else "/"
    assert e.name == path.rsplit(sep, 1)[-1] or e.name == path
    want_l = os.lstat(path)
    assert e.inode() == want_l.st_ino
    same_stat(e.stat(follow_symlinks=False), want_l)
    assert e.is_symlink() == os.path.islink(path)
    assert e.is_dir(follow_symlinks=False) == (os.path.isdir(path) and not os.path.islink(path))
    assert e.is_dir() == os.path.isdir(path)
    assert e.is_file() == os.path.isfile(path)
    try:
        want = os.stat(path)
    except FileNotFoundError:
        with pytest.raises(FileNotFoundError):
            e.stat()
    else:
        same_stat(e.stat(), want)


@pytest.mark.parametrize("expression", EXPRESSIONS, ids=lambda e: " ".join(e) or "(none)")
def test_entries_are_the_printed_paths_with_os_fields(tree, expression):
    make_odd_names(tree)
    os.chdir(tree)  # -newer plain
    want = gnu([tree], expression)
    got = list(dents.find(os.fsencode(tree), *expression, entries=True))
    assert all(isinstance(e, dents.DirEntry) for e in got)
    assert sorted(e.path for e in got) == want
    for e in got:
        check_entry(e, True)
    got = list(dents.find(tree, *expression, entries=True))
    assert sorted(os.fsencode(e.path) for e in got) == want
    for e in got:
        check_entry(e, False)


@pytest.mark.parametrize(
    "expression",
    [["-name", "*.txt*", "-printf", "%f\n"], ["-type", "d", "-ls"]],
    ids=["printf", "ls"],
)
def test_entries_of_printing_actions(tree, expression):
    # -printf and -ls: the entries they printed for, whatever the text.
    want = sorted(p for p in gnu([tree], [*expression[:2], "-print0"]))
    got = sorted(os.fsencode(e.path) for e in dents.find(tree, *expression, entries=True))
    assert got == want


def test_entries_of_printing_twice_and_pruning(tree):
    # Printed twice: one entry.
    got = [e.path for e in dents.find(tree, "-name", "plain", "-print", "-print", entries=True)]
    assert got == [os.path.join(tree, "plain")]
    # Pruning with -o -print: only what -print printed.
    expression = ["-name", "a*", "-prune", "-o", "-type", "f", "-print"]
    want = gnu([tree], expression, sep=b"\n")
    assert sorted(os.fsencode(e.path) for e in dents.find(tree, *expression, entries=True)) == want
    assert list(dents.find(tree, "-false", entries=True)) == []


def test_entries_following_links(tree):
    # -follow: -L's effect, written after the starting points.
    got = list(dents.find(tree, "-follow", "-size", "-1M", entries=True))
    want = gnu([tree], ["-follow", "-size", "-1M"])
    assert sorted(os.fsencode(e.path) for e in got) == want
    for e in got:
        check_entry(e, False)


STAT_COUNT = r"""
import sys, dents
tree, expression, call_stat = sys.argv[1], sys.argv[2].split(), sys.argv[3] == "1"
n = 0
for e in dents.find(tree, *expression, entries=True):
    n += 1
    if call_stat:
        e.stat(follow_symlinks=False).st_size
        e.stat().st_size
        e.is_file()
print(n)
"""


def stat_calls(tree, expression, call_stat):
    """The stat system calls of a process running `dents.find(tree,
    *expression, entries=True)`, with or without asking each entry for its
    stat, and the entries it counted."""
    out = os.path.join(os.path.dirname(tree), "strace.out")
    p = subprocess.run(
        ["strace", "-f", "-qq", "-o", out, "-e", "trace=statx,newfstatat,lstat,stat,fstat",
         sys.executable, "-c", STAT_COUNT, tree, " ".join(expression), "1" if call_stat else "0"],
        capture_output=True, check=True,
    )
    with open(out) as f:
        calls = sum(1 for line in f if "stat" in line and "resumed" not in line)
    return calls, int(p.stdout)


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_stat_of_what_the_expression_stated_makes_no_system_call(tmp_path):
    os.mkdir(tmp_path / "t")
    big_tree(tmp_path / "t", dirs=5, files=40)
    tree = os.fspath(tmp_path / "t")
    # -size stats every file (and the directories): stat() is free.
    base, n = stat_calls(tree, ["-type", "f", "-size", "-1k"], False)
    asked, n2 = stat_calls(tree, ["-type", "f", "-size", "-1k"], True)
    assert n == n2 == 200
    assert asked == base, (asked, base)
    # -name stats nothing: each stat() is a system call (the check can fail).
    base, n = stat_calls(tree, ["-type", "f", "-name", "*n"], False)
    asked, n2 = stat_calls(tree, ["-type", "f", "-name", "*n"], True)
    assert n == n2 == 200
    assert asked >= base + 200, (asked, base)
