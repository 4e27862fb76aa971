#!/usr/bin/env python3
"""Fill DIR with N empty files named like a camera's (IMG_0000123.JPG ...).

usage: mkflat.py DIR N [--subdirs K]

The names are what a phone or camera dump looks like; with --subdirs K,
K subdirectories (named like `.thumbnails`, `raw`, ...) are added among them.
"""
import os
import sys


def main() -> None:
    args = sys.argv[1:]
    subdirs = 0
    if "--subdirs" in args:
        i = args.index("--subdirs")
        subdirs = int(args[i + 1])
        del args[i : i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    root, n = args[0], int(args[1])
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
