"""Every ```python block of the README runs, against a small real tree.

The examples name /data (a tree), /data/huge (a big directory) and
data.parquet (a snapshot to write): each block runs with those replaced by
a temporary tree and file, in a temporary working directory.  No block is
left out: one that cannot run here fails this test."""

import os
import pathlib
import re

import pytest

import dents
from conftest import make_tree

ROOT = pathlib.Path(__file__).resolve().parents[3]
READMES = [p for p in (ROOT / "README.md", ROOT / "crates/dents-py/README.md") if p.exists()]


def blocks():
    """(README name, index, code) of every ```python block."""
    found = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for i, m in enumerate(re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S)):
            found.append((readme.relative_to(ROOT).as_posix(), i, m.group(1)))
    return found


BLOCKS = blocks()


def test_the_readme_has_python_examples():
    assert BLOCKS, f"no ```python block in {READMES}"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """/data: a generated tree with a big sparse .h5 file (for the
    examples' -size +1G) and /data/huge, a directory of 5000 files."""
    d = make_tree(tmp_path / "data")
    with open(os.path.join(d, "big.h5"), "wb") as f:
        f.truncate(3 << 30)
    huge = os.path.join(d, "huge")
    os.mkdir(huge)
    for i in range(5000):
        open(os.path.join(huge, f"f{i}"), "w").close()
    os.mkdir(os.path.join(huge, "sub"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return d


def runnable(code, data):
    """The block with its paths replaced: /data/huge before /data."""
    code = code.replace('"/data/huge"', repr(os.path.join(data, "huge")))
    code = code.replace('"/data"', repr(data))
    assert '"/data' not in code, "a path of the example is not replaced"
    return code


@pytest.mark.parametrize("readme,index,code", BLOCKS, ids=[f"{r}#{i}" for r, i, _ in BLOCKS])
def test_example_runs(readme, index, code, data, capsys):
    ns = {}
    exec(compile(runnable(code, data), f"{readme} python block {index}", "exec"), ns)
    # What the main README's example computes is what os computes.
    if "sizes" in ns:
        want = {}
        for top, _, files in os.walk(data):
            for f in files:
                want[f] = os.lstat(os.path.join(top, f)).st_size
        assert set(ns["sizes"]) == set(want)
        assert ns["sizes"]["big.h5"] == 3 << 30
    if "files" in ns:
        huge = os.path.join(data, "huge")
        assert sorted(ns["files"]) == sorted(e.name for e in os.scandir(huge) if e.is_file())
    if "dirs" in ns:
        assert ns["dirs"] == ["sub"]
    if "lines" in ns:
        assert f"{3 << 30} {os.path.join(data, 'big.h5')}" in ns["lines"]
    if "data.parquet" in code:
        assert os.path.getsize("data.parquet") > 0
