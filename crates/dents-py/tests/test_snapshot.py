"""dents.scan: the snapshot read by DuckDB and pyarrow against os.lstat,
path bytes exact; README's three SQL questions run on two real scans."""

import os
import re
import stat
import time

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dents
from conftest import make_tree

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")

TYPES = {stat.S_IFREG: "f", stat.S_IFDIR: "d", stat.S_IFLNK: "l", stat.S_IFIFO: "p"}


def all_entries(root):
    """Every path under root (root included), as bytes, by os.walk."""
    root = os.fsencode(root)
    out = [root]
    for d, dirs, files in os.walk(root):
        out += [os.path.join(d, n) for n in dirs + files]
    return out


@pytest.fixture
def tree(tmp_path):
    root = make_tree(tmp_path / "t", seed=7)
    for name in (b"new\nline", b"bad\xff\xfe", b"caf\xc3\xa9"):
        with open(os.path.join(os.fsencode(root), name), "wb") as f:
            f.write(name * 3)
    with open(os.path.join(root, "linked"), "wb") as f:
        f.write(b"x" * 10)
    os.link(os.path.join(root, "linked"), os.path.join(root, "hard-link"))
    return root


def test_pyarrow_rows_match_lstat(tree, tmp_path):
    out = tmp_path / "s.parquet"
    n = dents.scan(tree, out, threads=3)
    table = pq.read_table(out)
    assert table.num_rows == n
    # Nanoseconds as integers: Python's datetime stops at microseconds.
    mtimes = table.column("mtime").cast(pa.int64()).to_pylist()
    rows = table.drop_columns(["mtime", "ctime", "atime"]).to_pylist()
    want = all_entries(tree)
    assert sorted(r["path"] for r in rows) == sorted(want)
    for r, mtime in zip(rows, mtimes):
        st = os.lstat(r["path"])
        assert isinstance(r["path"], bytes)
        assert r["name"] == os.path.basename(r["path"]) or r["depth"] == 0
        assert r["type"] == TYPES[stat.S_IFMT(st.st_mode)], r["path"]
        assert (r["size"], r["blocks"], r["mode"], r["ino"], r["nlink"], r["uid"], r["gid"], r["dev"]) == (
            st.st_size, st.st_blocks, st.st_mode, st.st_ino, st.st_nlink, st.st_uid, st.st_gid, st.st_dev
        ), r["path"]
        assert mtime == st.st_mtime_ns, r["path"]
        if r["type"] == "l":
            assert r["target"] == os.readlink(r["path"])
    md = pq.read_metadata(out).metadata
    assert md[b"dents.snapshot.version"] == b"1"
    assert md[b"dents.scan.roots"] == os.fsencode(tree)
    assert md[b"dents.scan.options"] == b"-j 3"


def test_duckdb_reads_paths_as_exact_bytes(tree, tmp_path):
    out = str(tmp_path / "s.parquet")
    dents.scan(os.fsencode(tree), out)
    con = duckdb.connect()
    rows = con.execute("SELECT path, type, size FROM read_parquet(?)", [out]).fetchall()
    by_path = {bytes(p): (t, s) for p, t, s in rows}
    assert sorted(by_path) == sorted(all_entries(tree))
    for p, (t, s) in by_path.items():
        st = os.lstat(p)
        assert (t, s) == (TYPES[stat.S_IFMT(st.st_mode)], st.st_size)
    bad = os.path.join(os.fsencode(tree), b"bad\xff\xfe")
    assert by_path[bad][1] == len(b"bad\xff\xfe") * 3
    # Text where the bytes are UTF-8.
    (name,) = con.execute(
        "SELECT decode(name) FROM read_parquet(?) WHERE name = encode('caf\u00e9')", [out]
    ).fetchone()
    assert name == "caf\u00e9"


def test_errors_go_to_onerror_and_the_record(tmp_path):
    missing = tmp_path / "missing"
    seen = []
    out = tmp_path / "s.parquet"
    assert dents.scan([missing], out, onerror=seen.append) == 0
    assert len(seen) == 1 and seen[0].errno == 2 and seen[0].filename == str(missing)
    md = pq.read_metadata(out).metadata
    assert md[b"dents.scan.error_count"] == b"1"


def test_unwritable_output_raises_and_leaves_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        dents.scan(tmp_path, tmp_path / "no" / "such" / "s.parquet")
    assert not (tmp_path / "no").exists()


def readme_sql():
    text = open(README, encoding="utf-8").read()
    blocks = re.findall(r"```sql\n(.*?)```", text, re.S)
    assert len(blocks) == 3, "README shows the three questions"
    return blocks


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_readme_sql_answers_the_three_questions(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "kept").write_bytes(b"k" * 5000)
    (root / "gone").write_bytes(b"g")
    (root / "edited").write_bytes(b"e")
    big = root / "old-big"
    with open(big, "wb") as f:
        f.truncate(3_000_000_000)  # sparse: large, nothing on disk
    two_years_ago = time.time() - 2 * 365 * 86400
    os.utime(big, (two_years_ago, two_years_ago))
    with open(root / "recent-big", "wb") as f:
        f.truncate(3_000_000_000)
    monkeypatch.chdir(tmp_path)
    dents.scan("data", "old.parquet")
    os.remove(root / "gone")
    (root / "edited").write_bytes(b"edited")
    grown = root / "new\nfile"
    grown.write_bytes(b"n" * 200_000)
    os.chown(grown, 4321, 4321)
    dents.scan("data", "new.parquet")

    grew, changed, old_large = [duckdb.sql(q).fetchall() for q in readme_sql()]
    assert grew[0] == (4321, os.lstat(grown).st_blocks * 512)
    assert [(bytes(p), c) for p, c in changed] == [
        (b"data/edited", "modified"),
        (b"data/gone", "removed"),
        (b"data/new\nfile", "added"),
    ]
    assert [(bytes(p), s) for p, s, _ in old_large] == [(b"data/old-big", 3_000_000_000)]


def test_scan_since_refreshes_exactly_and_says_what_it_reused(tmp_path):
    root = tmp_path / "t"
    os.mkdir(root)
    make_tree(root, seed=3)
    # Older than the refresh's 2-second guard: reusable.
    time.sleep(2.2)
    old, new, full = (tmp_path / n for n in ("old.parquet", "new.parquet", "full.parquet"))
    dents.scan(root, old)
    victim = next(d for d, _, _ in os.walk(root) if d != str(root))
    with open(os.path.join(victim, "added"), "w") as f:
        f.write("new")
    n = dents.scan(root, new, since=old)
    assert dents.scan(root, full) == n
    a, b = pq.read_table(new), pq.read_table(full)
    # atime moves as directories are read: the rest must be equal.
    assert a.drop(["atime"]).equals(b.drop(["atime"]))
    md = pq.read_metadata(new).metadata
    assert md[b"dents.scan.since"] == os.fsencode(old)
    read, reused = int(md[b"dents.scan.dirs_read"]), int(md[b"dents.scan.dirs_reused"])
    assert reused > 0 and read >= 1  # the changed directory at least
    assert read + reused == int(pq.read_metadata(full).metadata[b"dents.scan.dirs_read"])


def test_scan_since_unusable_warns_and_reads_everything(tmp_path):
    root = tmp_path / "t"
    os.mkdir(root)
    with pytest.warns(RuntimeWarning, match="cannot reuse .*missing.*every directory read"):
        dents.scan(root, tmp_path / "n.parquet", since=tmp_path / "missing")
    md = pq.read_metadata(tmp_path / "n.parquet").metadata
    assert md[b"dents.scan.dirs_reused"] == b"0"


def test_scan_since_names_the_shard_that_cannot_be_read(tmp_path):
    # A sharded OLD (a directory of shards) whose shard is not a
    # snapshot: the warning names that shard, as `dents scan` does.
    root = tmp_path / "t"
    os.mkdir(root)
    olds = tmp_path / "olds"
    os.mkdir(olds)
    (olds / "part-0.parquet").write_bytes(b"not parquet at all")
    shard = os.fsdecode(olds / "part-0.parquet")
    with pytest.warns(RuntimeWarning) as said:
        dents.scan(root, tmp_path / "n.parquet", since=olds)
    (w,) = said
    assert str(w.message).startswith(f"cannot reuse {shard!r}: not a snapshot: "), str(w.message)
    assert str(w.message).endswith("; every directory read"), str(w.message)
