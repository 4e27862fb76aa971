"""One dents.scandir, dents.walk or dents.find iterator shared by several threads:
between them they get every item once, and no error."""

import os
import threading

import pytest

import dents

THREADS = 4


def drain_shared(it):
    """Items of `it` taken by THREADS threads calling next() at once."""
    got = [[] for _ in range(THREADS)]
    errors = []
    start = threading.Barrier(THREADS)

    def run(mine):
        try:
            start.wait()
            while True:
                try:
                    mine.append(next(it))
                except StopIteration:
                    return
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=run, args=(got[i],)) for i in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    return [x for mine in got for x in mine]


@pytest.fixture
def big(tmp_path):
    d = tmp_path / "big"
    d.mkdir()
    for i in range(20000):
        open(d / f"f{i}", "w").close()
    return str(d)


@pytest.mark.parametrize("threads", [1, 4])
def test_scandir_shared(big, threads):
    want = sorted((e.name, e.inode()) for e in dents.scandir(big, threads=threads))
    assert len(want) == 20000
    got = drain_shared(dents.scandir(big, threads=threads))
    assert sorted((e.name, e.inode()) for e in got) == want


@pytest.fixture
def wide(tmp_path):
    top = tmp_path / "wide"
    for i in range(60):
        for j in range(20):
            d = top / f"d{i}" / f"e{j}"
            d.mkdir(parents=True)
            (d / "f").write_text("x")
    return str(top)


def walk_key(t):
    return (t[0], sorted(t[1]), sorted(t[2]))


@pytest.mark.parametrize("topdown", [True, False])
@pytest.mark.parametrize("threads", [0, 4])
def test_walk_shared(wide, topdown, threads):
    want = sorted(walk_key(t) for t in os.walk(wide, topdown))
    assert sorted(walk_key(t) for t in dents.walk(wide, topdown, threads=threads)) == want
    got = drain_shared(dents.walk(wide, topdown, threads=threads))
    assert sorted(walk_key(t) for t in got) == want


def test_walk_reentered_from_onerror_raises(tmp_path):
    # next() from inside the iterator's own onerror: as a generator would,
    # ValueError (not a deadlock, not RuntimeError).
    (tmp_path / "d").mkdir()
    seen = []

    def onerror(e):
        try:
            next(it)
        except ValueError as v:
            seen.append(str(v))

    it = dents.walk(str(tmp_path / "missing"), onerror=onerror)
    assert list(it) == []
    assert seen == ["iterator already executing"]


@pytest.mark.parametrize("entries", [False, True])
def test_find_shared(wide, entries):
    def key(x):
        return os.fspath(x)

    want = sorted(key(p) for p in dents.find(wide, "-type", "f", entries=entries))
    assert len(want) == 1200
    it = dents.find(wide, "-type", "f", entries=entries)
    got = drain_shared(it)
    assert sorted(key(p) for p in got) == want
    assert it.status == 0


def test_find_reentered_from_onerror_raises(tmp_path):
    seen = []

    def onerror(e):
        try:
            next(it)
        except ValueError as v:
            seen.append(str(v))
        seen.append(it.status)

    it = dents.find([tmp_path / "missing", tmp_path], onerror=onerror)
    assert list(it) == [os.fspath(tmp_path)]
    assert seen == ["iterator already executing", None]
    assert it.status == 1
