#!/usr/bin/env python3
"""Fill DIR with N empty files named like a camera's (IMG_0000123.JPG ...).

usage: mkflat.py DIR N [--subdirs K]

The names are what a phone or camera dump looks like; with --subdirs K,
K subdirectories (named like `.thumbnails`, `raw`, ...) are added among them.
"""
import os

from benchlib import integers, parse_args


def main() -> None:
    (root, count), options = parse_args(__doc__, 2, numbers={"--subdirs": 0})
    (n,) = integers(__doc__, [count])
    subdirs = options["--subdirs"]
    os.makedirs(root, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    prefixes = ("IMG_", "DSC_", "PXL_2026", "VID_")
    for i in range(n):
        name = f"{prefixes[i % 4]}{i:07d}.{'JPG' if i % 4 != 3 else 'mp4'}"
        os.close(os.open(name, flags, 0o644, dir_fd=fd))
    for k in range(subdirs):
        os.mkdir(f".thumbnails{k}" if k % 2 == 0 else f"raw{k}", dir_fd=fd)
    os.close(fd)


if __name__ == "__main__":
    main()
