#!/usr/bin/env python3
"""Build a synthetic home directory of about 2.1M entries in DEST.

usage: mkhome.py DEST [SCALE]

The shape is what a developer's home looks like after a few years, with
the directory kinds that make walks slow: source projects with .git object
fan-outs, node_modules nests and Rust target/ directories; a photo library
by year and month; a maildir with big flat folders; an npm content cache
with a two-level hex fan-out; browser caches; a music library; documents;
and rsnapshot-style backups made of hard links (entries that cost no
inode).  Files are empty or sparse (sizes from a long-tailed distribution,
photos and videos over 1 MiB), with modification times spread over years.
Everything comes from a fixed seed: the same SCALE builds the same tree.

One name is unique and sits at depth 3, for early-quit benchmarks:
DEST/Documents/archive/dents-needle.txt.
SCALE (default 1.0) multiplies every count.
"""
import os
import random
import sys

WORDS = (
    "alpha beta gamma delta util core main test lib src index config data "
    "model view controller server client parse render build cache store "
    "event queue worker thread buffer stream reader writer format table "
    "image photo note report draft final old new backup archive misc tmp"
).split()
EXTS = ("c", "h", "rs", "py", "js", "ts", "json", "md", "txt", "toml", "html", "css")
T0 = 1_400_000_000  # 2014-05
T1 = 1_790_000_000  # 2026-09


class Home:
    def __init__(self, dest: str, scale: float):
        self.dest = dest
        self.scale = scale
        self.rng = random.Random(20261122)
        self.entries = 0

    def n(self, k: float) -> int:
        """A count scaled by SCALE, at least 1."""
        return max(1, int(k * self.scale))

    def mkdir(self, *parts: str) -> str:
        path = os.path.join(self.dest, *parts)
        os.makedirs(path, exist_ok=True)
        return path

    def size(self) -> int:
        """A file size: mostly small, a long tail."""
        return int(self.rng.lognormvariate(7.5, 2.2))

    def files(self, path: str, names, size=None) -> None:
        """Creates the files `names` in the directory `path` (made if
        needed), sparse, with spread-out modification times."""
        os.makedirs(path, exist_ok=True)
        dfd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        try:
            for name in names:
                fd = os.open(name, flags, 0o644, dir_fd=dfd)
                s = size() if size else self.size()
                if s:
                    os.ftruncate(fd, s)
                os.close(fd)
                t = self.rng.randrange(T0, T1)
                os.utime(name, (t, t), dir_fd=dfd)
                self.entries += 1
        finally:
            os.close(dfd)

    def word(self) -> str:
        return self.rng.choice(WORDS)

    def source_tree(self, path: str, files: int, depth: int) -> None:
        """A source tree: directories of a few to a few dozen files."""
        here = self.rng.randint(3, 30)
        here = min(here, files)
        self.files(path, {f"{self.word()}_{i}.{self.rng.choice(EXTS)}" for i in range(here)})
        files -= here
        if depth == 0 or files <= 0:
            return
        subs = self.rng.randint(1, 6)
        for s in range(subs):
            sub = os.path.join(path, f"{self.word()}{s}")
            os.mkdir(sub)
            self.entries += 1
            self.source_tree(sub, files // subs, depth - 1)

    def git(self, path: str, objects: int) -> None:
        """A .git directory: 256 object fan-out directories, refs, hooks."""
        g = os.path.join(path, ".git")
        self.files(g, ["HEAD", "config", "description", "index", "packed-refs"])
        self.files(os.path.join(g, "hooks"), [f"{h}.sample" for h in ("pre-commit", "pre-push", "commit-msg", "update")])
        self.files(os.path.join(g, "refs", "heads"), ["main", "dev"])
        self.entries += 4  # .git, hooks, refs, heads
        per = max(1, objects // 256)
        for b in range(256):
            names = {f"{self.rng.getrandbits(152):038x}" for _ in range(self.rng.randint(0, 2 * per))}
            self.files(os.path.join(g, "objects", f"{b:02x}"), names)
            self.entries += 1

    def node_modules(self, path: str, packages: int, nest: int) -> None:
        nm = os.path.join(path, "node_modules")
        os.makedirs(nm, exist_ok=True)
        self.entries += 1
        for p in range(packages):
            pkg = os.path.join(nm, f"{self.word()}-{self.word()}-{p}")
            self.files(pkg, ["package.json", "README.md", "LICENSE", "index.js"])
            self.files(os.path.join(pkg, "lib"), [f"{self.word()}{i}.js" for i in range(self.rng.randint(2, 25))])
            self.entries += 2
            if nest and self.rng.random() < 0.08:
                self.node_modules(pkg, self.rng.randint(2, 12), nest - 1)

    def rust_target(self, path: str, units: int) -> None:
        t = os.path.join(path, "target", "debug")
        self.entries += 2
        self.files(os.path.join(t, "deps"), [f"lib{self.word()}-{self.rng.getrandbits(64):016x}.{e}" for _ in range(units) for e in ("rlib", "rmeta", "d")])
        self.entries += 1
        for u in range(units // 4):
            self.files(os.path.join(t, "build", f"{self.word()}-{self.rng.getrandbits(64):016x}"), ["output", "root-output", "stderr", "invoked.timestamp"])
            self.entries += 1
        inc = os.path.join(t, "incremental", f"{self.word()}-{self.rng.getrandbits(40):010x}")
        for s in range(units // 10):
            self.files(os.path.join(inc, f"s-{self.rng.getrandbits(64):016x}"), [f"{self.rng.getrandbits(48):012x}.o" for _ in range(self.rng.randint(10, 60))])
            self.entries += 1

    def build(self) -> None:
        r = self.rng
        for p in range(self.n(60)):
            proj = self.mkdir("src", f"{self.word()}-{p}")
            self.entries += 1
            self.git(proj, r.randint(500, 6000))
            self.source_tree(os.path.join(proj, "src"), r.randint(200, 3000), 5)
            if p % 3 == 0:
                self.node_modules(proj, r.randint(300, 900), 3)
            elif p % 3 == 1:
                self.rust_target(proj, r.randint(100, 600))
        big = lambda: r.randint(1 << 21, 8 << 20)  # noqa: E731 photos: 2-8 MiB
        for y in range(2010, 2027):
            for m in range(1, 13):
                names = [f"IMG_{y}{m:02d}{d:02d}_{i:04d}.jpg" for d in range(1, 29) for i in range(r.randint(0, 20))]
                self.files(os.path.join(self.dest, "Photos", str(y), f"{m:02d}"), names, big)
                self.entries += 1
        for f in range(self.n(36)):
            for sub in ("cur", "new", "tmp"):
                k = r.randint(2000, 8000) if sub == "cur" else r.randint(0, 20)
                names = [f"{T0 + i * 97}.M{i}P{f}.host,S=4096:2,S" for i in range(k)]
                self.files(os.path.join(self.dest, "Mail", f"folder{f}", sub), names)
        for i in range(self.n(160_000)):
            h = f"{r.getrandbits(512):0128x}"
            self.files(os.path.join(self.dest, ".npm", "_cacache", "content-v2", "sha512", h[:2], h[2:4]), [h[4:]])
        self.files(os.path.join(self.dest, ".cache", "mozilla", "firefox", "x.default", "cache2", "entries"), [f"{r.getrandbits(160):040X}" for _ in range(self.n(40_000))])
        for a in range(self.n(800)):
            for al in range(r.randint(1, 6)):
                self.files(os.path.join(self.dest, "Music", f"Artist {a}", f"Album {al}"), [f"{t:02d} {self.word()}.flac" for t in range(1, r.randint(8, 16))], lambda: r.randint(10 << 20, 60 << 20))
        docs = os.path.join(self.dest, "Documents")
        for i in range(self.n(12)):
            d = os.path.join(docs, f"{self.word()}-{i}")
            os.makedirs(d)
            self.source_tree(d, r.randint(1000, 8000), 4)
        self.files(os.path.join(docs, "archive"), ["dents-needle.txt"])
        # rsnapshot-style backups: Documents and Photos again, as hard links.
        for s in range(self.n(8)):
            snap = os.path.join(self.dest, "backup", f"daily.{s}")
            for top in ("Documents", "Photos"):
                src = os.path.join(self.dest, top)
                for root, dirs, files in os.walk(src):
                    out = os.path.join(snap, os.path.relpath(root, self.dest))
                    os.makedirs(out, exist_ok=True)
                    self.entries += 1
                    for f in files:
                        if f != "dents-needle.txt":
                            os.link(os.path.join(root, f), os.path.join(out, f))
                            self.entries += 1


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    dest = sys.argv[1]
    scale = float(sys.argv[2]) if len(sys.argv) == 3 else 1.0
    if os.path.exists(dest):
        sys.exit(f"mkhome.py: {dest} exists")
    home = Home(dest, scale)
    os.makedirs(dest)
    home.build()
    print(f"mkhome.py: about {home.entries} entries in {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
