"""Shared fixtures: generated trees to compare dents with os on."""

import os
import random

import pytest


def make_tree(root, seed=1, width=4, depth=3):
    """A tree of directories, files, symlinks (to directories, to files,
    dangling, to a loop), a FIFO, Unicode and undecodable names.  Returns
    root as str."""
    rnd = random.Random(seed)
    root = os.fspath(root)
    names = ["a", "b.txt", "ñandú", "日本語", "dir.d", ".hidden", "x y", "Z"]

    def fill(d, level):
        for i in range(rnd.randint(1, width)):
            os.mkdir(os.path.join(d, f"{rnd.choice(names)}{level}{i}"))
        for i in range(rnd.randint(0, width * 2)):
            with open(os.path.join(d, f"f{i}{rnd.choice(names)}"), "w") as f:
                f.write("x" * i)
        if level < depth:
            for sub in os.listdir(d):
                p = os.path.join(d, sub)
                if os.path.isdir(p) and not os.path.islink(p):
                    fill(p, level + 1)

    os.makedirs(root, exist_ok=True)
    fill(root, 0)
    # Undecodable name (surrogateescape in str results).
    bad = os.path.join(os.fsencode(root), b"bad\xff\xfename")
    os.mkdir(bad)
    open(os.path.join(bad, b"inner\xe9"), "w").close()
    first_dir = sorted(e.name for e in os.scandir(root) if e.is_dir())[0]
    os.symlink(first_dir, os.path.join(root, "link_to_dir"))
    os.symlink("b.txt-missing", os.path.join(root, "dangling"))
    os.mkfifo(os.path.join(root, "fifo"))
    open(os.path.join(root, "plain"), "w").close()
    os.symlink("plain", os.path.join(root, "link_to_file"))
    os.mkdir(os.path.join(root, "empty"))
    return root


@pytest.fixture
def tree(tmp_path):
    return make_tree(tmp_path / "t")


def threads_now():
    """Threads of this process."""
    return len(os.listdir("/proc/self/task"))
