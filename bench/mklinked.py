#!/usr/bin/env python3
"""Build a two-level tree of empty files for du's memory at scale (issue 29).

usage: mklinked.py DIR DIRS FILES [--links]

DIR/tree/dNNNN/fNNNNNNN: DIRS directories of FILES empty files each
(DIRS * FILES + DIRS + 1 entries under DIR/tree).  With --links, every
file gets a second link in DIR/shadow/dNNNN (outside DIR/tree): scanning
DIR/tree meets DIRS * FILES inodes with two links each, which du's
hard-link set must all remember, against the same tree without --links
(one link each), which it need not.  Idempotent per directory: a
directory already complete is skipped.
"""
import os
import sys


def main() -> None:
    args = sys.argv[1:]
    links = "--links" in args
    args = [a for a in args if a != "--links"]
    if len(args) != 3:
        sys.exit(__doc__)
    root, dirs, files = args[0], int(args[1]), int(args[2])
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for d in range(dirs):
        sub = os.path.join(root, "tree", f"d{d:04d}")
        shadow = os.path.join(root, "shadow", f"d{d:04d}")
        # Outside the tree: not counted.
        done = os.path.join(root, "done", f"d{d:04d}")
        if os.path.exists(done):
            continue
        os.makedirs(sub, exist_ok=True)
        if links:
            os.makedirs(shadow, exist_ok=True)
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


if __name__ == "__main__":
    main()
