"""dents.walk against os.walk: the same tuples in the same order."""

import gc
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

import dents
from conftest import make_tree, threads_now


def snapshot(it, action=None):
    """The tuples a walk yields (lists copied as yielded; `action` may edit
    dirnames or the tree, as a caller of os.walk would)."""
    out = []
    for top, dirs, files in it:
        out.append((top, list(dirs), list(files)))
        if action:
            action(top, dirs, files)
    return out


def error_key(e):
    return (type(e), e.errno, e.strerror, e.filename, e.filename2)


def both(top, action=None, threads=None, **kw):
    """os.walk's and dents.walk's tuples and errors for the same call."""
    res = []
    for walk in (os.walk, dents.walk):
        errors = []
        more = {} if walk is os.walk else {"threads": threads}
        tuples = snapshot(walk(top, onerror=errors.append, **kw, **more), action)
        res.append((tuples, [error_key(e) for e in errors]))
    return res


@pytest.mark.parametrize("topdown", [True, False])
@pytest.mark.parametrize("followlinks", [False, True])
@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("threads", [None, 0, 1, 3])
def test_same_as_os_walk(tree, topdown, followlinks, as_bytes, threads):
    top = os.fsencode(tree) if as_bytes else tree
    want = list(os.walk(top, topdown, None, followlinks))
    got = list(dents.walk(top, topdown, None, followlinks, threads=threads))
    assert got == want
    assert len(want) > 20
    # Types follow the argument's: bytes in, bytes out.
    t = bytes if as_bytes else str
    assert all(isinstance(x, t) for d, ds, fs in got for x in [d, *ds, *fs])


def test_undecodable_and_unicode_names(tree):
    got = list(dents.walk(tree))
    names = {n for _, ds, fs in got for n in ds + fs}
    assert "bad\udcff\udcfename" in names  # surrogateescape, as os.fsdecode
    assert any("ñandú" in n for n in names)
    assert got == list(os.walk(tree))


def test_trailing_slash_and_relative_top(tree, monkeypatch):
    assert list(dents.walk(tree + "/")) == list(os.walk(tree + "/"))
    monkeypatch.chdir(tree)
    assert list(dents.walk(".")) == list(os.walk("."))
    assert list(dents.walk(b".")) == list(os.walk(b"."))


def test_pathlike_top(tree):
    import pathlib

    assert list(dents.walk(pathlib.Path(tree))) == list(os.walk(pathlib.Path(tree)))


@pytest.mark.parametrize("threads", [None, 0])
def test_pruning(tree, threads):
    def prune(top, dirs, files):
        dirs[:] = [d for d in dirs if not d.startswith(("a", "Z"))]

    want, got = both(tree, prune, threads=threads)
    assert got == want
    assert not any(os.path.basename(t).startswith("a") for t, _, _ in got[0][1:])


def test_pruning_reorder_and_add(tree):
    """dirnames sorted, reversed, and given names os.walk would list or
    not: a name that is a symlink to a directory (islink: not descended),
    a name that does not exist (onerror)."""

    def edit(top, dirs, files):
        dirs.sort(reverse=True)
        if top == tree:
            dirs.append("link_to_dir")
            dirs.append("no-such-dir")
            dirs.insert(0, dirs.pop())

    want, got = both(tree, edit)
    assert got == want
    assert any(e[0] is FileNotFoundError for e in want[1])


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_pruning_repeats_and_copies_names(tree, threads):
    """dirnames with a name twice (os.walk walks it twice) and names
    replaced by equal copies: the workers have queued the listing's
    subdirectories already, each job is taken once, the rest dropped."""

    def edit(top, dirs, files):
        if dirs:
            dirs.append(dirs[0])
            dirs[-1:] = ["".join(list(dirs[-1]))]  # an equal, new object
        if top == tree:
            dirs.insert(0, dirs[-1])

    want, got = both(tree, edit, threads=threads)
    assert got == want
    assert len({t for t, _, _ in got[0]}) < len(got[0])


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_pruned_subtree_removed_while_read_ahead(tmp_path, threads):
    """A subtree pruned from dirnames and removed at once: the workers may
    have read into it already; the walk neither yields nor reports any of
    it."""
    for copy in ("os", "dents"):
        for d in ("keep", "prune"):
            for i in range(30):
                os.makedirs(tmp_path / copy / d / f"{i}" / "x" / "y")
    res = []
    for walk in (os.walk, dents.walk):
        root = str(tmp_path / ("os" if walk is os.walk else "dents"))
        errors = []
        more = {} if walk is os.walk else {"threads": threads}
        out = []
        for top, dirs, files in walk(root, onerror=errors.append, **more):
            out.append((os.path.relpath(top, root), list(dirs), list(files)))
            if "prune" in dirs:
                dirs.remove("prune")
                shutil.rmtree(os.path.join(top, "prune"))
        res.append((out, [error_key(e)[:3] for e in errors]))
    assert res[1] == res[0]
    assert not any(t.startswith("prune") for t, _, _ in res[1][0])


def test_pruning_clears_everything(tree):
    want, got = both(tree, lambda t, d, f: d.clear())
    assert got == want and len(got[0]) == 1


@pytest.mark.parametrize(
    "top", ["nope", "plain", b"/nonexistent/x"], ids=["missing", "not_a_directory", "missing_bytes"]
)
def test_onerror_missing_and_not_a_directory(tree, top):
    if isinstance(top, str):
        top = os.path.join(tree, top)
    want, got = both(top)
    assert got == want
    assert len(want[1]) == 1


def test_onerror_not_a_directory_error_and_none_without_onerror(tree):
    assert both(os.path.join(tree, "plain"))[1][1][0][0] is NotADirectoryError
    # Without onerror errors are ignored, as os.walk ignores them.
    assert list(dents.walk(os.path.join(tree, "nope"))) == []


def test_onerror_exception_propagates(tree):
    def boom(e):
        raise RuntimeError(e.filename)

    with pytest.raises(RuntimeError):
        list(dents.walk(os.path.join(tree, "nope"), onerror=boom))


def test_symlink_loop_followlinks(tmp_path):
    """os.walk with followlinks=True does not detect loops: it goes round
    until the symlink can no longer be resolved (ELOOP: too many symlinks
    in the path); there is_dir() fails, so the symlink is listed among the
    non-directories and the walk ends, with no error.  dents.walk does the
    same."""
    d = tmp_path / "loop"
    (d / "sub").mkdir(parents=True)
    os.symlink("..", d / "sub" / "up")
    want, got = both(os.fspath(d), followlinks=True)
    assert got == want
    assert len(want[0]) > 10
    assert want[0][-1][1:] == ([], ["up"]) and want[1] == []
    want, got = both(os.fspath(d), followlinks=True, topdown=False)
    assert got == want


def test_directory_removed_during_walk(tree):
    """A directory removed after the walk has read ahead, before it reaches
    it: os.walk, listing it only then, reports FileNotFoundError; so does
    dents.walk (the read-ahead listing is checked when taken)."""
    victims = []

    def make_action(copy_root):
        def remove_later_sibling(top, dirs, files):
            # From the second directory on, remove the root's last
            # subdirectory (queued since the root was yielded).
            if top != copy_root and not victims_for[copy_root]:
                last = sorted(os.listdir(copy_root))
                cand = [n for n in last if os.path.isdir(os.path.join(copy_root, n))
                        and not os.path.islink(os.path.join(copy_root, n))]
                victim = os.path.join(copy_root, cand[-1])
                time.sleep(0.3)  # dents's workers have read the victim by now
                shutil.rmtree(victim)
                victims_for[copy_root].append(victim)
        return remove_later_sibling

    victims_for = {}
    results = []
    for walk in (os.walk, dents.walk):
        root = make_tree(tree + "-" + walk.__module__)  # same seed: same tree
        victims_for[root] = []
        errors = []
        tuples = snapshot(walk(root, onerror=errors.append), make_action(root))
        # Compare relative to each copy's root.
        rel = lambda p: os.path.relpath(p, root)
        results.append(([(rel(t), d, f) for t, d, f in tuples],
                        [(type(e), e.errno, rel(e.filename)) for e in errors]))
        victims.append(victims_for[root])
    assert results[0] == results[1]
    # The victim was walked to only if os.walk visits it after the removal.
    assert victims[0] and victims[1]


def test_directory_replaced_during_walk(tmp_path):
    """A directory the workers have read, renamed away and replaced by
    another of the same name before the walk gets there: os.walk, listing
    the path only then, lists the new one; so does dents.walk (a listing
    read ahead is used only if the path still names the directory read)."""
    results = []
    for walk in (os.walk, dents.walk):
        root = tmp_path / walk.__module__
        for d in ("a", "b", "z"):
            (root / d / "sub").mkdir(parents=True)
            (root / d / "old-file").touch()
        order = []

        def replace_last(top, dirs, files):
            # At the root's first subdirectory, replace its last (queued
            # for the workers since the root was yielded).
            if not order:
                order.extend(dirs)
            elif len(order) == 3:
                time.sleep(0.3)  # dents's workers have read it by now
                last = root / order[-1]
                os.rename(last, root / "moved")
                (last / "new-sub").mkdir(parents=True)
                (last / "new-file").touch()
                order.append(last)

        walked = snapshot(walk(str(root)), replace_last)
        results.append([(os.path.relpath(t, root), sorted(d), sorted(f)) for t, d, f in walked])
        results[-1].append(os.path.basename(order[-1]))
    assert results[1] == results[0]
    assert (results[1][-1], ["new-sub"], ["new-file"]) in results[1]


def test_walk_with_few_descriptors(tmp_path):
    """A process allowed only a few more descriptors than it has open: os.walk
    needs one at a time, and so must dents.walk, its read-ahead included
    (listings waiting for the walk hold none; a worker that finds none free
    leaves its directory to the walk): the same tuples, no error."""
    for i in range(400):
        (tmp_path / f"d{i:03}" / "x").mkdir(parents=True)
    script = """
import os, resource, sys, dents
top = sys.argv[1]
want = list(os.walk(top))
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 2, hard))
errors = []
got = list(dents.walk(top, onerror=errors.append, threads=4))
print(len(want), got == want, errors[:3])
"""
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout.split(None, 2)
    assert out == ["801", "True", "[]\n"]


def test_early_break_stops_threads(tree):
    gc.collect()
    before = threads_now()
    for _ in range(3):
        it = dents.walk(tree, threads=4)
        next(it)
        next(it)
        assert threads_now() > before  # the workers run
        del it
        gc.collect()
    assert threads_now() == before
    # A finished walk has stopped its threads too.
    it = dents.walk(tree, threads=4)
    list(it)
    assert threads_now() == before


def test_close_ends_the_walk(tree):
    it = dents.walk(tree)
    next(it)
    it.close()
    assert list(it) == []


def test_big_tree_threads_agree(tmp_path):
    root = make_tree(tmp_path / "big", seed=7, width=6, depth=4)
    want = list(os.walk(root))
    assert len(want) > 500
    for threads in (0, 1, 2, 8):
        assert list(dents.walk(root, threads=threads)) == want
    assert list(dents.walk(root, topdown=False)) == list(os.walk(root, topdown=False))


PERMISSION_SCRIPT = r"""
import os, sys, json
import dents
top = sys.argv[1]
res = []
for walk in (os.walk, dents.walk):
    errs = []
    tuples = [(t, d, f) for t, d, f in walk(top, onerror=errs.append)]
    res.append([tuples, [(type(e).__name__, e.errno, e.strerror, e.filename) for e in errs]])
print(json.dumps(res))
"""


def run_unprivileged(args):
    """Runs python with args as nobody when root (setpriv), else as is."""
    cmd = [sys.executable, *args]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/")


def test_permission_errors(tmp_path_factory):
    """An unreadable directory: onerror gets the same PermissionError from
    both, and the rest of the tree is walked (as nobody when run as root,
    since root reads everything)."""
    import json
    import tempfile

    base = tempfile.mkdtemp(prefix="dents-perm-", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        root = make_tree(os.path.join(base, "t"), seed=3)
        for dirpath, dirs, files in os.walk(root):
            os.chmod(dirpath, 0o755)
        locked = [d for d in next(os.walk(root))[1] if not os.path.islink(os.path.join(root, d))]
        os.chmod(os.path.join(root, locked[0]), 0o000)
        os.chmod(os.path.join(root, locked[-1]), 0o311)  # searchable, not readable
        p = run_unprivileged(["-c", PERMISSION_SCRIPT, root])
        assert p.returncode == 0, p.stderr
        want, got = json.loads(p.stdout)
        assert got == want
        assert [e[0] for e in want[1]] == ["PermissionError", "PermissionError"]
    finally:
        for dirpath, dirs, files in os.walk(base):
            for d in dirs:
                os.chmod(os.path.join(dirpath, d), 0o755)
        shutil.rmtree(base)


CTRL_C_SCRIPT = r"""
import faulthandler, os, signal, sys, threading, time
# Ctrl-C as a terminal gives it: Python installs this handler at start-up
# only if SIGINT is at its default, and a job started with `&` by a
# non-interactive shell (a CI run in the background) inherits it ignored:
# the SIGINT below would then be lost and the loop would never end.
signal.signal(signal.SIGINT, signal.default_int_handler)
# Should it hang all the same: every Python thread's stack on stderr.
faulthandler.dump_traceback_later(30)
import dents
top = sys.argv[1]
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    while True:
        for _ in dents.walk(top):
            time.sleep(0.001)
except KeyboardInterrupt:
    print("interrupted")
"""


def hung_child_report(pid):
    """What a hung child is doing, for the failure message: its signal
    masks, each thread's kernel wait, and (with gdb) each thread's stack."""
    out = []
    try:
        with open(f"/proc/{pid}/status") as f:
            masks = {k: int(v, 16) for k, v in (l.split(":") for l in f
                     if l.startswith(("SigBlk", "SigIgn", "SigCgt")))}
        bit = 1 << (signal.SIGINT - 1)
        out.append(f"SIGINT: ignored {bool(masks['SigIgn'] & bit)}, blocked {bool(masks['SigBlk'] & bit)}"
                   f", caught {bool(masks['SigCgt'] & bit)}")
        for t in sorted(os.listdir(f"/proc/{pid}/task")):
            with open(f"/proc/{pid}/task/{t}/comm") as c, open(f"/proc/{pid}/task/{t}/wchan") as w:
                out.append(f"thread {t} {c.read().strip()}: waits in {w.read().strip() or '-'}")
    except OSError as e:
        out.append(f"/proc: {e}")
    if shutil.which("gdb"):
        try:
            g = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                               capture_output=True, text=True, timeout=60)
            out.append(g.stdout)
        except subprocess.TimeoutExpired:
            out.append("gdb: no answer in 60 s")
    return "\n".join(out)


@pytest.mark.parametrize("sigint", ["inherited", "ignored"])
def test_ctrl_c_interrupts(tmp_path, sigint):
    """SIGINT while the walk waits on its workers raises KeyboardInterrupt,
    whether the test runner leaves SIGINT at its default or ignored (a job
    started with `&` by a non-interactive shell ignores it: CI's hang)."""
    root = make_tree(tmp_path / "c", seed=5)
    cmd = [sys.executable, "-c", CTRL_C_SCRIPT, root]
    if sigint == "ignored":
        cmd = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *cmd]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        report = hung_child_report(child.pid)
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"no exit 60 s after SIGINT\n{report}\nstdout: {out}\nstderr: {err}")
    assert (child.returncode, out.strip()) == (0, "interrupted"), err


@pytest.mark.parametrize("threads", [None, 0])
@pytest.mark.parametrize("followlinks", [False, True])
def test_walk_stat(tree, threads, followlinks):
    """stat=True: the same walk, and for every name its lstat, field for
    field as os.lstat gives it."""
    fields = ["st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size",
              "st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns",
              "st_blksize", "st_blocks", "st_rdev"]
    got = list(dents.walk(tree, followlinks=followlinks, threads=threads, stat=True))
    assert [t[:3] for t in got] == list(os.walk(tree, followlinks=followlinks))
    n = 0
    for top, dirs, files, stats in got:
        assert sorted(stats) == sorted(dirs + files)
        for name, st in stats.items():
            o = os.lstat(os.path.join(top, name))
            # The access time of a directory or symlink moves when the walk
            # reads it (after its stat): compare it for the others only.
            moves = stat.S_ISDIR(o.st_mode) or stat.S_ISLNK(o.st_mode)
            fs = [f for f in fields if not (moves and "atime" in f)]
            assert [getattr(st, f) for f in fs] == [getattr(o, f) for f in fs], name
            r = st.to_stat_result()
            assert type(r) is os.stat_result
            assert [getattr(r, f) for f in fs] == [getattr(o, f) for f in fs], name
            n += 1
    assert n > 50
    b = next(dents.walk(os.fsencode(tree), stat=True))
    assert set(b[3]) == set(b[1] + b[2]) and all(isinstance(k, bytes) for k in b[3])


def deep_chain(top, levels, name):
    """`levels` nested directories `name` under `top`, each holding a
    one-byte file `f` and a symlink `l` to its own directory `name`, made
    relative to open descriptors (the paths grow past PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            f = os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=fd)
            os.write(f, b"x")
            os.close(f)
            os.symlink(name, "l", dir_fd=fd)
            nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nfd
    finally:
        os.close(fd)


@pytest.mark.parametrize("threads", [None, 0])
def test_walk_stat_deeper_than_path_max(tmp_path, threads):
    """dents.walk reads directories whose paths are longer than PATH_MAX
    (os.lstat of those paths fails): their entries are stat'ed relative to
    the open directory, none left out of the dict, and a symlink to a
    directory is still listed in dirnames."""
    name = "d" * 250
    deep_chain(str(tmp_path), 40, name)  # paths reach 10,000 bytes
    seen = 0
    for top, dirs, files, stats in dents.walk(str(tmp_path), threads=threads, stat=True):
        if len(top) > 4200:
            seen += 1
        assert sorted(stats) == sorted(dirs + files), (len(top), stats)
        if "f" in files:
            assert sorted(dirs) == sorted([name, "l"]), len(top)
            assert stats["f"].st_size == 1 and stat.S_ISREG(stats["f"].st_mode)
            assert stat.S_ISDIR(stats[name].st_mode) and stat.S_ISLNK(stats["l"].st_mode)
    assert seen > 15


@pytest.mark.parametrize("top", ["a\0", b"a\0b"])
def test_embedded_null_byte_raises_as_os(top):
    with pytest.raises(ValueError):
        list(os.walk(top))
    with pytest.raises(ValueError):
        list(dents.walk(top))


def awkward_tree(root):
    """One directory whose names, read into one buffer end to end, must
    come apart exactly: newlines, undecodable bytes (alone, at either end,
    an encoded surrogate), one byte, 255 bytes, directories and files
    interleaved, a symlink to a directory with an undecodable name; each
    directory holding a file with an awkward name too."""
    root = os.fsencode(root)
    os.mkdir(root)
    names = [b"\n", b"a\nb", b"\xff", b"x\xff", b"\xffx", b"\xed\xa0\x80", b"\xc3",
             b"\xc3\xb1and\xc3\xba", b"q", b"L" * 255, b"\xe6\x97\xa5\n\xfe", b" "]
    for i, n in enumerate(names):
        p = os.path.join(root, n)
        if i % 2:
            os.mkdir(p)
            open(os.path.join(p, b"in\n\xff" + n[:200]), "w").close()
        else:
            open(p, "w").close()
    os.symlink(b"a\nb", os.path.join(root, b"link\xfe"))
    return os.fsdecode(root)


@pytest.mark.parametrize("topdown", [True, False])
@pytest.mark.parametrize("followlinks", [False, True])
@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("threads", [None, 0])
def test_awkward_names_as_os_walk(tmp_path, topdown, followlinks, as_bytes, threads):
    top = awkward_tree(tmp_path / "w")
    top = os.fsencode(top) if as_bytes else top
    want = list(os.walk(top, topdown, None, followlinks))
    assert len(want) >= 7
    assert list(dents.walk(top, topdown, None, followlinks, threads=threads)) == want
    got = list(dents.walk(top, topdown, None, followlinks, threads=threads, stat=True))
    assert [t[:3] for t in got] == want
    for top_, dirs, files, stats in got:
        assert sorted(stats) == sorted(dirs + files)
        for name, st in stats.items():
            assert st.st_ino == os.lstat(os.path.join(top_, name)).st_ino


def test_awkward_names_pruned_and_reordered(tmp_path):
    """dirnames edited in place (reversed, some removed, one added): the
    walk descends as os.walk does, whatever names the directories have."""
    top = awkward_tree(tmp_path / "w")
    os.mkdir(os.path.join(top, "extra\n"))

    def edit(t, dirs, files):
        if t == top:
            dirs.reverse()
            del dirs[1::3]
            if "extra\n" in dirs:
                dirs.remove("extra\n")
                dirs.insert(0, "extra\n")

    assert both(top, edit) == both(top, edit, threads=0)
    want, got = both(top, edit)
    assert want == got


@pytest.mark.parametrize("threads", [None, 0])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_name_with_nul_added_to_dirnames(tree, threads, as_bytes):
    """A name with a NUL added to dirnames (it cannot come from a listing,
    so the walk gives it no read-ahead job): the directories before it are
    walked as os.walk walks them, then ValueError, as os.walk raises."""
    top = os.fsencode(tree) if as_bytes else tree
    bad = b"x\0y" if as_bytes else "x\0y"

    def run(walk, **kw):
        seen = []
        with pytest.raises(ValueError):
            for t, dirs, files in walk(top, **kw):
                seen.append((t, list(dirs), list(files)))
                if t == top:
                    dirs.append(bad)
        return seen

    want = run(os.walk)
    assert len(want) > 2
    assert run(dents.walk, threads=threads) == want
