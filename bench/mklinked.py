#!/usr/bin/env python3
"""Build a two-level tree of empty files for du's memory at scale (issue 29).

usage: mklinked.py DIR DIRS FILES [--links] [--jobs N]

DIR/tree/dNNNN/fNNNNNNN: DIRS directories of FILES empty files each
(DIRS * FILES + DIRS + 1 entries under DIR/tree).  With --links, every
file gets a second link in DIR/shadow/dNNNN (outside DIR/tree): scanning
DIR/tree meets DIRS * FILES inodes with two links each, which du's
hard-link set must all remember, against the same tree without --links
(one link each), which it need not.  Idempotent per directory: a
directory already complete is skipped.  The directories are filled by N
processes at once (default: one a core), as mkgrid.py fills its.
"""
import multiprocessing
import os
import sys

from benchlib import integers, parse_args


def fill_dir(work) -> int:
    """Fills directory number `d`; returns the files it made."""
    root, d, files, links = work
    sub = os.path.join(root, "tree", f"d{d:04d}")
    shadow = os.path.join(root, "shadow", f"d{d:04d}")
    # Outside the tree: not counted.
    done = os.path.join(root, "done", f"d{d:04d}")
    if os.path.exists(done):
        return 0
    os.makedirs(sub, exist_ok=True)
    if links:
        os.makedirs(shadow, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY)
    sfd = os.open(shadow, os.O_RDONLY | os.O_DIRECTORY) if links else None
    for i in range(files):
        name = f"f{d:04d}{i:07d}"
        try:
            os.close(os.open(name, flags, 0o644, dir_fd=fd))
        except FileExistsError:
            pass
        if links:
            try:
                os.link(name, name, src_dir_fd=fd, dst_dir_fd=sfd)
            except FileExistsError:
                pass
    os.close(fd)
    if sfd is not None:
        os.close(sfd)
    os.makedirs(os.path.dirname(done), exist_ok=True)
    open(done, "w").close()
    return files


def main() -> None:
    args, options = parse_args(
        __doc__, 3, flags=("--links",), numbers={"--jobs": os.cpu_count() or 1}
    )
    root = args[0]
    dirs, files = integers(__doc__, args[1:])
    links, jobs = options["--links"], options["--jobs"]
    work = [(root, d, files, links) for d in range(dirs)]
    with multiprocessing.Pool(jobs) as pool:
        made = sum(pool.imap_unordered(fill_dir, work))
    print(f"mklinked: {root}: {made} files made", file=sys.stderr)


if __name__ == "__main__":
    main()
