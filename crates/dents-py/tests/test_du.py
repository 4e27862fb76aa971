"""dents.du against GNU du -sb / du -s -B1 (-l, -x)."""

import os
import shutil
import subprocess

import pytest

import dents
from conftest import make_tree


def gnu_du(*args):
    out = subprocess.run(["du", *args], capture_output=True, check=True).stdout
    return int(out.split(b"\t")[0])


@pytest.fixture
def du_tree(tmp_path):
    root = make_tree(tmp_path / "d", seed=21)
    big = os.path.join(root, "big")
    with open(big, "wb") as f:
        f.write(b"x" * 300_000)
    # Hard links: counted once unless count_links.
    os.link(big, os.path.join(root, "big-link"))
    os.link(big, os.path.join(root, "empty", "big-link2"))
    with open(os.path.join(root, "sparse"), "wb") as f:
        f.truncate(10_000_000)
    return root


@pytest.mark.skipif(shutil.which("du") is None, reason="no GNU du")
@pytest.mark.parametrize("threads", [None, 1, 4])
def test_same_as_gnu_du(du_tree, threads):
    assert dents.du(du_tree, apparent=True, threads=threads) == gnu_du("-sb", du_tree)
    assert dents.du(du_tree, threads=threads) == gnu_du("-s", "-B1", du_tree)
    assert dents.du(du_tree, apparent=True, count_links=True, threads=threads) == gnu_du("-slb", du_tree)
    assert dents.du(du_tree, count_links=True, threads=threads) == gnu_du("-sl", "-B1", du_tree)
    assert dents.du(du_tree, one_file_system=True) == gnu_du("-sx", "-B1", du_tree)
    # The hard links make a difference, so the comparison means something.
    assert dents.du(du_tree, apparent=True, count_links=True) - dents.du(du_tree, apparent=True) == 600_000


def test_bytes_path_and_file(du_tree):
    assert dents.du(os.fsencode(du_tree), apparent=True) == dents.du(du_tree, apparent=True)
    assert dents.du(os.path.join(du_tree, "big"), apparent=True) == 300_000


def test_missing_path_raises(du_tree):
    path = os.path.join(du_tree, "nope")
    with pytest.raises(FileNotFoundError) as e:
        dents.du(path)
    assert e.value.filename == path and e.value.errno == 2
    with pytest.raises(FileNotFoundError) as e:
        dents.du(os.fsencode(path), onerror=lambda e: None)
    assert e.value.filename == os.fsencode(path)


DU_PERM_SCRIPT = r"""
import json, os, subprocess, sys
import dents
top = sys.argv[1]
out = {}
try:
    dents.du(top, apparent=True)
except OSError as e:
    out["raised"] = [type(e).__name__, e.errno, e.filename]
errs = []
out["total"] = dents.du(top, apparent=True, onerror=errs.append)
out["errors"] = [[type(e).__name__, e.errno, e.filename] for e in errs]
p = subprocess.run(["du", "-sb", top], capture_output=True)
out["gnu"] = [p.returncode, int(p.stdout.split(b"\t")[0])]
print(json.dumps(out))
"""


@pytest.mark.skipif(shutil.which("du") is None, reason="no GNU du")
def test_unreadable_directory(tmp_path):
    """As nobody (root reads everything): an unreadable directory raises
    PermissionError, or with onerror is reported and the rest counted,
    the total being GNU du's (which exits 1)."""
    import json
    import tempfile

    from test_walk import run_unprivileged

    base = tempfile.mkdtemp(prefix="dents-du-perm-", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        root = make_tree(os.path.join(base, "t"), seed=4)
        for dirpath, dirs, files in os.walk(root):
            os.chmod(dirpath, 0o755)
        locked = os.path.join(root, "empty")
        open(os.path.join(locked, "f"), "w").close()
        os.chmod(locked, 0o000)
        p = run_unprivileged(["-c", DU_PERM_SCRIPT, root])
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout)
        assert out["raised"] == ["PermissionError", 13, locked]
        assert out["errors"] == [["PermissionError", 13, locked]]
        assert out["gnu"] == [1, out["total"]]
    finally:
        os.chmod(os.path.join(base, "t", "empty"), 0o755)
        shutil.rmtree(base)


@pytest.mark.parametrize("path", ["a\0", b"a\0b"])
def test_embedded_null_byte_raises_as_os(path):
    # os says "embedded null byte" for str, "stat: embedded null
    # character in path" for bytes; dents the first for both.
    with pytest.raises(ValueError, match="embedded null"):
        os.stat(path)
    with pytest.raises(ValueError, match="embedded null byte"):
        dents.du(path)
