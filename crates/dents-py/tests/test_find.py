"""dents.find against GNU find's output on the same trees: sorted records,
str and bytes, names with newlines and undecodable bytes, parse errors,
unreadable directories, leaving the loop early, -quit."""

import os
import shutil
import subprocess
import tempfile
import time

import pytest

import dents
from conftest import threads_now

EXPRESSIONS = [
    [],
    ["-name", "*.txt*"],
    ["-type", "d"],
    ["-type", "l"],
    ["-type", "f", "-size", "-3c"],
    ["-maxdepth", "1"],
    ["-mindepth", "2", "-type", "f"],
    ["-name", "a*", "-prune", "-o", "-type", "f", "-print0"],
    ["-empty"],
    ["-path", "*dir.d*", "-newer", "plain"],
    ["-perm", "-u=r", "-type", "f"],
    ["-links", "+1", "!", "-type", "d"],
]


def gnu(paths, expression, sep=b"\0"):
    """GNU find's records for `paths` and `expression`, sorted, as bytes."""
    words = [os.fsencode(w) for w in expression]
    if sep == b"\0" and not any(w in (b"-print", b"-printf", b"-ls", b"-print0") for w in words):
        words.append(b"-print0")
    out = subprocess.run(["find", *map(os.fsencode, paths), *words], capture_output=True, check=True).stdout
    records = out.split(sep)
    assert records[-1] == b""
    return sorted(records[:-1])


def make_odd_names(root):
    """Names GNU's lines cannot hold and str cannot decode."""
    d = os.path.join(os.fsencode(root), b"odd\nnames")
    os.mkdir(d)
    for n in [b"new\nline", b"\xff\xfe", b"tab\there", b"trailing\n"]:
        open(os.path.join(d, n), "w").close()


@pytest.mark.parametrize("expression", EXPRESSIONS, ids=lambda e: " ".join(e) or "(none)")
def test_same_records_as_gnu_find(tree, expression):
    make_odd_names(tree)
    os.chdir(tree)  # -newer plain
    want = gnu([tree], expression)
    assert sorted(dents.find(os.fsencode(tree), *expression)) == want
    got = list(dents.find(tree, *expression))
    assert all(isinstance(p, str) for p in got)
    assert sorted(os.fsencode(p) for p in got) == want


def test_several_starting_points_and_pathlike(tree, tmp_path):
    other = tmp_path / "other"
    os.mkdir(other)
    (other / "x.txt").write_text("x")
    want = gnu([tree, os.fspath(other)], ["-name", "*.txt"])
    assert sorted(os.fsencode(p) for p in dents.find([tree, other], "-name", "*.txt")) == want
    assert sorted(os.fsencode(p) for p in dents.find(other)) == gnu([os.fspath(other)], [])


@pytest.mark.parametrize(
    "expression",
    [["-printf", "%s %p\n"], ["-type", "d", "-print"], ["-name", "*.txt*", "-printf", "%f\n"]],
    ids=["printf_size_path", "type_d_print", "name_printf_basename"],
)
def test_lines_of_printf_and_print(tree, expression):
    want = gnu([tree], expression, sep=b"\n")
    assert sorted(dents.find(os.fsencode(tree), *expression)) == want


def test_printf_without_newline_is_one_record(tree):
    # A -printf without a newline: the whole output as one record.
    assert list(dents.find(tree, "-maxdepth", "0", "-printf", "%p|")) == [tree + "|"]


def test_parse_errors_raise_value_error_with_gnus_text(tree):
    with pytest.raises(ValueError, match="unknown predicate `-nmae'"):
        dents.find(tree, "-nmae", "x")
    with pytest.raises(ValueError, match="missing argument to `-name'"):
        dents.find(tree, "-name")
    with pytest.raises(ValueError, match="invalid expression"):
        dents.find(tree, "(", "-name", "x")


def test_unreadable_directory_reported_and_walk_goes_on():
    if os.geteuid() == 0:
        # Root reads everything: drop to nobody in a child for the check.
        code = (
            "import os, sys, dents\n"
            "os.setgid(65534); os.setuid(65534)\n"
            "it = dents.find(sys.argv[1])\n"
            "got = sorted(os.fsencode(p) for p in it)\n"
            "sys.stdout.buffer.write(b'\\0'.join(got) + b'\\0')\n"
            "sys.exit(10 + it.status)\n"
        )
        # Out of pytest's private directories, where nobody may go.
        root = tempfile.mkdtemp()
        os.chmod(root, 0o755)
        for sub in ["ok", "locked"]:
            os.mkdir(os.path.join(root, sub))
            open(os.path.join(root, sub, "f"), "w").close()
        os.chmod(os.path.join(root, "locked"), 0o000)
        p = subprocess.run([os.sys.executable, "-c", code, root], capture_output=True)
        assert p.returncode == 11, p.stderr
        want = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "find", root, "-print0"],
            capture_output=True,
        )
        assert sorted(want.stdout.split(b"\0")[:-1]) == p.stdout.split(b"\0")[:-1]
        assert b"locked': Permission denied" in p.stderr.replace(b"\xe2\x80\x99", b"'")
        assert len(p.stdout.split(b"\0")[:-1]) == 4  # root, ok, ok/f, locked
        shutil.rmtree(root)
    else:
        pytest.skip("needs root to build the tree for another user")


def test_missing_starting_point_status_1(tmp_path, capfd):
    it = dents.find(tmp_path / "nope")
    assert it.status is None
    assert list(it) == []
    assert it.status == 1
    assert "No such file or directory" in capfd.readouterr().err
    it = dents.find(tmp_path)
    assert list(it) == [os.fspath(tmp_path)]
    assert it.status == 0


def test_two_iterators_interleaved_each_with_its_own_status(tmp_path, capfd):
    """Two commands under way at once in one process: each has its own
    exit status (and its own output), whatever the other met."""
    for d in range(20):
        sub = tmp_path / f"d{d:02}"
        sub.mkdir()
        for f in range(50):
            (sub / f"f{f:02}").write_bytes(b"")
    missing = tmp_path / "nope"
    bad = dents.find(missing, tmp_path, "-name", "f1*")
    good = dents.find(tmp_path, "-name", "f0*")
    got = {"bad": [], "good": []}
    its = {"bad": iter(bad), "good": iter(good)}
    while its:
        for name in list(its):
            try:
                got[name].append(next(its[name]))
            except StopIteration:
                del its[name]
    assert sorted(got["bad"]) == sorted(x.decode() for x in gnu([tmp_path], ["-name", "f1*"]))
    assert sorted(got["good"]) == sorted(x.decode() for x in gnu([tmp_path], ["-name", "f0*"]))
    assert bad.status == 1
    assert good.status == 0
    assert "No such file or directory" in capfd.readouterr().err


def big_tree(root, dirs=60, files=200):
    for d in range(dirs):
        sub = os.path.join(root, f"d{d:03}")
        os.mkdir(sub)
        for f in range(files):
            # Long names: few paths fill the bounded queue's buffers.
            open(os.path.join(sub, f"{f:04}" + "n" * 200), "w").close()


def threads_gone(before):
    """Whether the process is back to `before` threads within 10 s (a
    joined thread leaves /proc a moment after its join returns)."""
    deadline = time.monotonic() + 10
    while threads_now() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    return threads_now() == before


# Each for records and for entries (dents.find(..., entries=True)).
BOTH = pytest.mark.parametrize("entries", [False, True], ids=["records", "entries"])


@BOTH
def test_break_stops_the_walk_and_its_threads(tmp_path, entries):
    big_tree(tmp_path)
    before = threads_now()
    seen = tmp_path.parent / (tmp_path.name + ".seen")
    it = dents.find(tmp_path, "-fprint", seen, "-print", entries=entries)
    for i, _ in enumerate(it):
        if i == 10:
            break
    it.close()
    assert it.status == 0
    assert threads_gone(before)
    # The walk stopped: far fewer entries visited than the tree holds
    # (at most what fills the queue and the walker threads' buffers).
    visited = seen.read_bytes().count(b"\n")
    assert visited < 60 * 201 // 2, visited


@BOTH
def test_dropping_the_iterator_stops_the_walk(tmp_path, entries):
    big_tree(tmp_path)
    before = threads_now()
    it = dents.find(tmp_path, entries=entries)
    next(it)
    del it
    assert threads_gone(before)


def visited(seen):
    """Entries the walk visited: the lines its `-fprint` wrote to `seen`."""
    return seen.read_bytes().count(b"\n")


@BOTH
def test_close_stops_a_walk_that_prints_nothing(tmp_path, entries):
    """No match: no write whose failure would tell the walk that its
    reader left.  close() stops it all the same, at once."""
    big_tree(tmp_path)
    before = threads_now()
    seen = tmp_path.parent / (tmp_path.name + ".seen")
    it = dents.find(tmp_path, "-fprint", seen, "-false", entries=entries)
    it.close()
    assert it.status == 0
    assert threads_gone(before)
    assert visited(seen) < 60 * 201 // 2, visited(seen)
    assert list(it) == []


@BOTH
def test_dropping_stops_a_walk_that_prints_nothing(tmp_path, entries):
    """The same when the iterator is dropped: the walk stops rather than
    going on through the whole tree on a thread nobody waits for."""
    big_tree(tmp_path)
    before = threads_now()
    seen = tmp_path.parent / (tmp_path.name + ".seen")
    it = dents.find(tmp_path, "-fprint", seen, "-false", entries=entries)
    del it
    assert threads_gone(before)
    assert visited(seen) < 60 * 201 // 2, visited(seen)


@BOTH
def test_slow_consumer_gets_everything(tmp_path, entries):
    big_tree(tmp_path, dirs=30)
    it = dents.find(tmp_path, entries=entries)
    first = next(it)
    # The walk fills the bounded queue and waits for the consumer.
    time.sleep(0.3)
    rest = list(it)
    if entries:
        first, rest = first.path, [e.path for e in rest]
    assert sorted([first, *rest]) == sorted(os.fsdecode(p) for p in gnu([os.fspath(tmp_path)], []))


def test_quit(tree):
    got = list(dents.find(tree, "-name", "plain", "-print", "-quit"))
    assert got == [os.path.join(tree, "plain")]
    assert list(dents.find([tree, tree], "-quit")) == []


@pytest.mark.parametrize(
    "paths, expression",
    [
        (".", ["-name", "a\0"]),
        (b".", [b"-name", b"a\0"]),
        ("a\0", []),
        ([".", b"a\0b"], ["-print"]),
        (".", ["-path", "x", "-o", "-name", "\0"]),
    ],
)
def test_embedded_null_byte_raises_as_os(paths, expression):
    # What Python's os functions do with a NUL in a path.
    with pytest.raises(ValueError, match="embedded null byte"):
        os.stat("a\0")
    with pytest.raises(ValueError, match="embedded null byte"):
        dents.find(paths, *expression)


def test_onerror_gets_each_missing_start_as_os_error(tmp_path, capfd):
    """onerror, as os.walk's: an OSError per error naming a path, nothing
    on standard error, the status 1 all the same."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "f").write_bytes(b"x")
    errors = []
    it = dents.find([tmp_path / "gone1", tmp_path / "here", tmp_path / "gone2"], "-name", "f",
                    onerror=errors.append)
    assert list(it) == [os.fspath(tmp_path / "here" / "f")]
    assert it.status == 1
    assert sorted(e.filename for e in errors) == [os.fspath(tmp_path / "gone1"), os.fspath(tmp_path / "gone2")]
    assert all(isinstance(e, FileNotFoundError) and e.errno == 2 for e in errors)
    assert all(e.strerror == os.strerror(2) for e in errors)
    assert capfd.readouterr().err == ""


def test_onerror_gets_errors_of_the_walk_in_bytes_for_bytes(tmp_path):
    """Errors met on the walker threads (links that loop, under -L) come
    to onerror on the iterating thread; bytes paths give bytes names."""
    d = tmp_path / "d"
    for i in range(6):
        sub = d / f"s{i}"
        sub.mkdir(parents=True)
        os.symlink("b", sub / "a")
        os.symlink("a", sub / "b")
    errors = []
    it = dents.find(os.fsencode(d), follow="L", onerror=errors.append)
    found = list(it)
    assert it.status == 1
    gnu_err = subprocess.run(["find", "-L", d], capture_output=True).stderr
    assert len(errors) == len(gnu_err.splitlines()) == 12
    assert all(e.errno == 40 and isinstance(e.filename, bytes) for e in errors)
    assert sorted(found) == gnu_with_option("-L", d)


def test_an_exception_in_onerror_ends_the_iteration(tmp_path):
    class Stop(Exception):
        pass

    def onerror(e):
        raise Stop(e.filename)

    it = dents.find([tmp_path / "gone", tmp_path], onerror=onerror)
    with pytest.raises(Stop):
        list(it)
    it.close()


@BOTH
def test_an_exception_in_onerror_ends_the_walk(tmp_path, entries):
    """As a generator is over once it raised: the walk stopped (its
    threads gone, its status set) without close(), no item after."""

    class Stop(Exception):
        pass

    def onerror(e):
        raise Stop(e.filename)

    (tmp_path / "t").mkdir()
    big_tree(tmp_path / "t")
    before = threads_now()
    it = dents.find([tmp_path / "gone", tmp_path / "t"], onerror=onerror, entries=entries)
    with pytest.raises(Stop):
        for _ in it:
            pass
    assert it.status == 1
    assert threads_gone(before)
    assert list(it) == []


@pytest.mark.parametrize("start", ["t", "top"])
@pytest.mark.parametrize("follow, gnu_option", [("P", "-P"), ("H", "-H"), ("L", "-L")])
def test_follow_is_finds_option(tmp_path, follow, gnu_option, start):
    """follow='P'/'H'/'L' walks as find -P/-H/-L (today's ValueError:
    unknown predicate '-L' gone)."""
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "sub" / "f").write_bytes(b"x")
    (tmp_path / "t").mkdir()
    os.symlink(real, tmp_path / "t" / "link")
    os.symlink(real, tmp_path / "top")
    # t holds a link to real; top is itself a link to real.
    start = tmp_path / start
    got = sorted(os.fsencode(p) for p in dents.find(start, follow=follow))
    assert got == gnu_with_option(gnu_option, start)


def gnu_with_option(option, start):
    out = subprocess.run(["find", option, start, "-print0"], capture_output=True).stdout
    return sorted(out.split(b"\0")[:-1])


def test_follow_refuses_other_words(tmp_path):
    with pytest.raises(ValueError, match="follow"):
        dents.find(tmp_path, follow="-L")
