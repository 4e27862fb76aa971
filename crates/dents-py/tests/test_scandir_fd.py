"""dents.scandir(None) and dents.scandir(fd) against os.scandir's."""

import errno
import gc
import os

import pytest

import dents
from test_scandir import entry_key


def test_none_is_the_working_directory(tree, monkeypatch):
    monkeypatch.chdir(tree)
    want = [entry_key(e) for e in os.scandir(None)]
    assert [entry_key(e) for e in dents.scandir(None)] == want
    assert [entry_key(e) for e in dents.scandir()] == want
    assert want[0][1].startswith("./")


def test_fd_same_as_os(tree, tmp_path, monkeypatch):
    # Elsewhere, so that a stat by the bare name would fail or be wrong.
    monkeypatch.chdir(tmp_path)
    fd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        want = [entry_key(e) for e in os.scandir(fd)]
        got = [entry_key(e) for e in dents.scandir(fd)]
        assert got == want
        assert all(k[0] == k[1] for k in got)  # path is the bare name
        assert any(isinstance(k[0], str) and "\udcff" in k[0] for k in got)
        # The descriptor is the caller's: still open, still listable.
        it = dents.scandir(fd)
        next(it)
        it.close()
        with dents.scandir(fd) as it:
            pass
        it = dents.scandir(fd)
        del it
        gc.collect()
        os.fstat(fd)
        assert [e.name for e in os.scandir(fd)] == [k[0] for k in want]
    finally:
        os.close(fd)


def test_fd_errors_as_os(tree):
    def err(f, arg):
        with pytest.raises(OSError) as e:
            list(f(arg))
        return type(e.value), e.value.errno, e.value.filename

    fd = os.open(os.path.join(tree, "plain"), os.O_RDONLY)
    try:
        assert err(dents.scandir, fd) == err(os.scandir, fd)
        assert err(dents.scandir, fd)[1] == errno.ENOTDIR
    finally:
        os.close(fd)
    os.close(fd_free := os.open(tree, os.O_RDONLY))
    assert err(dents.scandir, fd_free) == err(os.scandir, fd_free)
