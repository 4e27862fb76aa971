"""dents.scandir and dents.scandir_split against os.scandir and lstat."""

import gc
import os
import stat

import pytest

import dents
from conftest import threads_now

STAT_FIELDS = [
    "st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size",
    "st_mtime", "st_ctime", "st_mtime_ns", "st_ctime_ns",
    "st_blksize", "st_blocks", "st_rdev",
]


def stat_key(st):
    """Every field but the access time (which reading a symlink, as the
    comparison itself does, may change)."""
    seq = tuple(st)
    return tuple(getattr(st, f) for f in STAT_FIELDS) + seq[:7] + seq[8:]


def outcome(f):
    try:
        return ("ok", f())
    except OSError as e:
        return ("err", type(e), e.errno, e.filename)


def entry_key(e):
    return (
        e.name, e.path, e.inode(), os.fspath(e), repr(e),
        outcome(e.is_dir), outcome(lambda: e.is_dir(follow_symlinks=False)),
        outcome(e.is_file), outcome(lambda: e.is_file(follow_symlinks=False)),
        outcome(e.is_symlink),
        outcome(lambda: stat_key(e.stat())),
        outcome(lambda: stat_key(e.stat(follow_symlinks=False))),
    )


@pytest.mark.parametrize("as_bytes", [False, True])
def test_entries_same_as_os(tree, as_bytes):
    top = os.fsencode(tree) if as_bytes else tree
    for d, _, _ in os.walk(top):
        want = [entry_key(e) for e in os.scandir(d)]
        got = [entry_key(e) for e in dents.scandir(d)]
        assert got == want  # small directories: the kernel's order, as os.scandir's


def test_repr_and_types(tree):
    e = next(e for e in dents.scandir(tree) if e.name == "plain")
    assert repr(e) == "<DirEntry 'plain'>"
    assert type(e.stat()) is os.stat_result
    assert e.stat() is e.stat()  # cached, as os.DirEntry caches
    assert isinstance(e.stat().st_mtime_ns, int) and isinstance(e.stat().st_mtime, float)
    o = os.stat(e.path)
    assert (e.stat().st_atime, e.stat().st_atime_ns, e.stat()[7]) == (o.st_atime, o.st_atime_ns, o[7])
    assert os.path.join(e) == os.path.join(tree, "plain")
    b = next(e for e in dents.scandir(os.fsencode(tree)) if e.name == b"plain")
    assert repr(b) == "<DirEntry b'plain'>" and b.path == os.fsencode(tree) + b"/plain"


def test_default_path_is_cwd(tree, monkeypatch):
    monkeypatch.chdir(tree)
    assert sorted(e.path for e in dents.scandir()) == sorted(e.path for e in os.scandir())


def test_stat_of_vanished_entry(tree):
    path = os.path.join(tree, "gone")
    open(path, "w").close()
    [e] = [e for e in dents.scandir(tree) if e.name == "gone"]
    [o] = [o for o in os.scandir(tree) if o.name == "gone"]
    os.unlink(path)
    for x in (e, o):
        with pytest.raises(FileNotFoundError) as exc:
            x.stat()
        assert exc.value.filename == path
    assert e.is_file() == o.is_file()  # d_type still says a regular file


@pytest.mark.parametrize("name", ["nope", "plain"])
def test_errors_same_as_os(tree, name):
    path = os.path.join(tree, name)
    with pytest.raises(OSError) as want:
        os.scandir(path)
    with pytest.raises(OSError) as got:
        dents.scandir(path)
    w, g = want.value, got.value
    assert (type(g), g.errno, g.strerror, g.filename) == (type(w), w.errno, w.strerror, w.filename)
    with pytest.raises(ValueError):
        dents.scandir("a\0b")


def test_context_manager_and_close(tree):
    with dents.scandir(tree) as it:
        first = next(it)
        assert first.name
    assert list(it) == []
    it = dents.scandir(tree)
    it.close()
    assert list(it) == []


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """A directory of 60,000 entries (on /tmp's filesystem: sliced on ext4
    and XFS)."""
    d = tmp_path_factory.mktemp("huge")
    for i in range(60_000):
        open(d / f"file-{i:06d}.dat", "w").close()
    for i in range(20):
        (d / f"sub{i}").mkdir()
    return os.fspath(d)


def test_huge_directory_multithreaded(huge):
    want = [e.name for e in os.scandir(huge)]
    got = [e.name for e in dents.scandir(huge)]
    assert len(got) == len(set(got)) == len(want) == 60_020
    assert sorted(got) == sorted(want)
    for threads in (1, 2, 7):
        names = [e.name for e in dents.scandir(os.fsencode(huge), threads=threads)]
        assert sorted(names) == sorted(os.fsencode(n) for n in want)
    # threads=1: one reader, the kernel's order.
    assert [e.name for e in dents.scandir(huge, threads=1)] == want
    # The walk lists it in the kernel's order however many threads.
    assert list(dents.walk(huge)) == list(os.walk(huge))


def test_huge_directory_split(huge):
    dirs, nondirs = dents.scandir_split(huge)
    assert sorted(dirs) == sorted(f"sub{i}" for i in range(20))
    assert len(nondirs) == len(set(nondirs)) == 60_000


def test_early_break_stops_threads(huge):
    gc.collect()
    before = threads_now()
    for _ in range(3):
        it = dents.scandir(huge)
        next(it)
        del it
        gc.collect()
        assert threads_now() == before
    for e in dents.scandir(huge):
        break
    del e
    gc.collect()
    assert threads_now() == before


@pytest.mark.parametrize("as_bytes", [False, True])
def test_split_same_as_lstat(tree, as_bytes):
    top = os.fsencode(tree) if as_bytes else tree
    for d, _, _ in os.walk(top):
        dirs, nondirs = dents.scandir_split(d)
        want_dirs = [n for n in os.listdir(d) if stat.S_ISDIR(os.lstat(os.path.join(d, n)).st_mode)]
        assert sorted(dirs) == sorted(want_dirs)
        assert sorted(dirs + nondirs) == sorted(os.listdir(d))


def test_split_errors(tree):
    with pytest.raises(FileNotFoundError) as e:
        dents.scandir_split(os.path.join(tree, "nope"))
    assert e.value.filename == os.path.join(tree, "nope")
    with pytest.raises(NotADirectoryError):
        dents.scandir_split(os.fsencode(os.path.join(tree, "plain")))
