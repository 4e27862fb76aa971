#!/usr/bin/env python3
"""Copy the shape of real trees into DEST: the same names, directories,
symlinks, hard links, sparse sizes, modes and modification times, and no
data.  The copy walks like the original (same fan-out, depths and name
lengths) and costs next to nothing on disk.

usage: shape.py DEST SRC...

Each SRC becomes DEST/<SRC with '/' replaced by '_'>, e.g. /usr -> DEST/usr,
/root/.rustup -> DEST/root_.rustup.  Names are handled as bytes, so names
that are not UTF-8 are copied as they are.  Entries that vanish or cannot be
read while copying are skipped (counted on stderr); other file types
(fifos, sockets, devices) become empty regular files.  Other filesystems
under SRC are not entered.
"""
import os
import stat
import sys


def copy_tree(src: bytes, dest: bytes, counts: dict) -> None:
    """Copies the shape of directory src into the existing directory dest."""
    root_dev = os.lstat(src).st_dev
    links = {}  # (dev, ino) of a multiply-linked file -> its first copy
    stack = [(src, dest)]
    while stack:
        s, d = stack.pop()
        try:
            entries = list(os.scandir(s))
        except OSError:
            counts["skipped"] += 1
            continue
        for e in entries:
            sp, dp = e.path, os.path.join(d, e.name)
            try:
                st = e.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    os.mkdir(dp, 0o755)
                    counts["dirs"] += 1
                    if st.st_dev == root_dev:
                        stack.append((sp, dp))
                    continue
                if stat.S_ISLNK(st.st_mode):
                    os.symlink(os.readlink(sp), dp)
                    counts["symlinks"] += 1
                    continue
                key = (st.st_dev, st.st_ino)
                if st.st_nlink > 1 and key in links:
                    os.link(links[key], dp)
                    counts["hardlinks"] += 1
                    continue
                fd = os.open(dp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    if stat.S_ISREG(st.st_mode) and st.st_size:
                        os.ftruncate(fd, st.st_size)
                    os.fchmod(fd, stat.S_IMODE(st.st_mode))
                finally:
                    os.close(fd)
                os.utime(dp, ns=(st.st_atime_ns, st.st_mtime_ns))
                if st.st_nlink > 1:
                    links[key] = dp
                counts["files"] += 1
            except OSError:
                counts["skipped"] += 1
    # Directory modes and times last: a read-only directory must be filled
    # before its mode is set, and filling it changes its mtime.
    for s_root, dirs, _ in os.walk(src):
        for name in dirs:
            sp = os.path.join(s_root, name)
            dp = os.path.join(dest, os.path.relpath(sp, src))
            try:
                st = os.lstat(sp)
                os.chmod(dp, stat.S_IMODE(st.st_mode) | 0o700)
                os.utime(dp, ns=(st.st_atime_ns, st.st_mtime_ns))
            except OSError:
                pass


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dest = os.fsencode(sys.argv[1])
    os.makedirs(dest, exist_ok=True)
    counts = {"dirs": 0, "files": 0, "symlinks": 0, "hardlinks": 0, "skipped": 0}
    for src in sys.argv[2:]:
        name = src.strip("/").replace("/", "_") or "root"
        top = os.path.join(dest, os.fsencode(name))
        os.mkdir(top)
        copy_tree(os.fsencode(src), top, counts)
    print(
        "shape.py: {dirs} directories, {files} files, {symlinks} symlinks, "
        "{hardlinks} hard links; {skipped} skipped".format(**counts),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
