"""On ext4 made without `filetype` (no d_type: every entry DT_UNKNOWN),
where os.walk stats every entry and scandir_split's tricks matter.  Needs
root (mkfs.ext4, mount -o loop): skipped loudly without it, failed under
CI=true."""

import os
import shutil
import stat
import subprocess

import pytest

import dents
from dents import _native
from conftest import make_tree


@pytest.fixture(scope="module")
def noft(tmp_path_factory):
    why = None
    if os.geteuid() != 0:
        why = "not root"
    elif not shutil.which("mkfs.ext4"):
        why = "no mkfs.ext4"
    if why:
        msg = f"SKIPPED: the no-filetype ext4 tests need root and mkfs.ext4 ({why})"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        print(msg)
        pytest.skip(msg)
    d = tmp_path_factory.mktemp("noft")
    img, mnt = d / "img", d / "mnt"
    mnt.mkdir()
    subprocess.run(["truncate", "-s", "64M", img], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "^filetype", img], check=True)
    subprocess.run(["mount", "-o", "loop", img, mnt], check=True)
    try:
        yield os.fspath(mnt)
    finally:
        subprocess.run(["umount", mnt], check=True)


def test_no_dtype_there(noft):
    d = os.path.join(noft, "probe")
    os.mkdir(d)
    open(os.path.join(d, "f"), "w").close()
    # The raw d_type is unknown: os.DirEntry must stat to answer.
    [e] = list(os.scandir(d))
    assert e.is_file()
    assert repr(e) == "<DirEntry 'f'>"


@pytest.mark.parametrize(
    "kw", [{}, {"topdown": False}, {"followlinks": True}], ids=["default", "bottom_up", "followlinks"]
)
def test_walk_same_as_os(noft, kw):
    # One tree (the same seed) per case: the filesystem is the module's.
    name = "tree-" + "-".join(kw) if kw else "tree"
    root = make_tree(os.path.join(noft, name), seed=11)
    assert list(dents.walk(root, **kw)) == list(os.walk(root, **kw))


def test_walk_of_bytes_same_as_os(noft):
    root = make_tree(os.path.join(noft, "tree-bytes"), seed=11)
    assert list(dents.walk(os.fsencode(root))) == list(os.walk(os.fsencode(root)))


def test_scandir_same_as_os(noft):
    root = make_tree(os.path.join(noft, "tree2"), seed=12)
    for d, _, _ in os.walk(root):
        want = [(e.name, e.is_dir(), e.is_file(), e.is_symlink(), e.is_dir(follow_symlinks=False))
                for e in os.scandir(d)]
        got = [(e.name, e.is_dir(), e.is_file(), e.is_symlink(), e.is_dir(follow_symlinks=False))
               for e in dents.scandir(d)]
        assert got == want


def test_split_spares_stats(noft):
    """3000 files and 3 subdirectories (and a symlink to one): the link
    count says 3, the likely names (no dot) are stat'ed first, and the
    3000 files are never stat'ed."""
    d = os.path.join(noft, "flat")
    os.mkdir(d)
    for i in range(3000):
        open(os.path.join(d, f"IMG_{i:05d}.JPG"), "w").close()
    for n in ("thumbs", ".cache", "raw"):
        os.mkdir(os.path.join(d, n))
    os.symlink("thumbs", os.path.join(d, "thumbs-link"))
    # The before/after check distrusts a directory changed within the last
    # second: let it settle, as a real scan's directory has.
    import time

    time.sleep(2.1)
    dirs, nondirs, (stats, by_dtype, by_nlink, fallbacks) = _native.scandir_split(d)
    assert sorted(dirs) == [".cache", "raw", "thumbs"]
    assert len(nondirs) == 3001 and "thumbs-link" in nondirs
    assert by_dtype == 0  # no d_type at all on this filesystem
    assert fallbacks == 0
    assert stats <= 10, stats  # the likely directories only
    assert by_nlink >= 2990
    # And the public call agrees with lstat.
    dirs, nondirs = dents.scandir_split(d)
    want = [n for n in os.listdir(d) if stat.S_ISDIR(os.lstat(os.path.join(d, n)).st_mode)]
    assert sorted(dirs) == sorted(want)


def test_split_recent_change_falls_back(noft):
    """A directory changed within the last second: its link count is not
    trusted, every entry is stat'ed, and the answer is still right."""
    d = os.path.join(noft, "fresh")
    os.mkdir(d)
    for i in range(50):
        open(os.path.join(d, f"f{i}.txt"), "w").close()
    os.mkdir(os.path.join(d, "sub"))
    dirs, nondirs, (stats, _, _, fallbacks) = _native.scandir_split(d)
    assert dirs == ["sub"] and len(nondirs) == 50
    assert fallbacks == 1 and stats == 51
