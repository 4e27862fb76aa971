#!/usr/bin/env python3
"""Fill DIR with a regular grid of empty files: TOP directories d0..,
each holding MID directories m000.., each holding LEAF empty files
f0000.. (issue 29's 10 x 1,000 x 1,000 tree, scaled by TOP).

usage: mkgrid.py DIR TOP MID LEAF [--links] [--jobs N]

--links   each file gets a second name in the same directory (l0000..), so
          every file has st_nlink 2: the tree for du's hard-link set.
--jobs N  N processes, each filling whole top directories (default: the
          number of CPUs).  Files are made with mknod (one system call
          each), so the kernel's cost dominates, not Python's.

A top directory is built under a temporary name and renamed when complete,
so an interrupted run leaves no half-built directory under its final name
(a rerun removes the temporary ones and builds what is missing).
"""
import multiprocessing
import os
import shutil
import stat
import sys

from benchlib import integers, parse_args


def fill_top(job):
    """Builds DIR/d<t> (under a temporary name first)."""
    root, t, mid, leaf, links = job
    final = os.path.join(root, f"d{t}")
    if os.path.isdir(final):
        return 0
    tmp = os.path.join(root, f".tmp-d{t}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.mkdir(tmp)
    top_fd = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY)
    mode = stat.S_IFREG | 0o644
    made = 0
    for m in range(mid):
        name = f"m{m:03d}"
        os.mkdir(name, dir_fd=top_fd)
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=top_fd)
        for f in range(leaf):
            os.mknod(f"f{f:04d}", mode, dir_fd=fd)
            if links:
                os.link(f"f{f:04d}", f"l{f:04d}", src_dir_fd=fd, dst_dir_fd=fd)
        os.close(fd)
        made += leaf
    os.close(top_fd)
    os.rename(tmp, final)
    return made


def main() -> None:
    args, options = parse_args(
        __doc__, 4, flags=("--links",), numbers={"--jobs": os.cpu_count() or 1}
    )
    root = args[0]
    top, mid, leaf = integers(__doc__, args[1:])
    links, jobs = options["--links"], options["--jobs"]
    os.makedirs(root, exist_ok=True)
    work = [(root, t, mid, leaf, links) for t in range(top)]
    with multiprocessing.Pool(jobs) as pool:
        made = sum(pool.imap_unordered(fill_top, work))
    print(f"mkgrid: {root}: {made} files made", file=sys.stderr)


if __name__ == "__main__":
    main()
