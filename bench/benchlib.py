"""What the Python scripts of bench/ share.

The corpus builders' command lines, read alike: a builder's docstring is
its usage; `parse_args` reads positional arguments and `--NAME` options
from anywhere on the command line and, on anything it does not expect,
exits with that usage rather than guessing.

The Python package's benches (python.py, pyfloor.py): the walks they time
(`count_walk`, `walk_lstat_os`, `walk_lstat_dents`) and their timing, runs
interleaved and medians taken (`interleaved`).  `dents` is imported only
by the walk that needs it, so that the builders run without the wheel.
"""
import os
import statistics
import sys
import time


def parse_args(usage, positional, flags=(), numbers=None, argv=None):
    """Reads `argv` (default `sys.argv[1:]`): exactly `positional` plain
    arguments, each flag of `flags` (`--links`: True when given) and each
    integer option of `numbers` (`{"--jobs": default}`, its value the next
    argument).  Returns the plain arguments (strings, in order) and a dict
    of the options by name.  Exits with `usage` on an unknown option, an
    option without its value, a value that is not an integer, or a wrong
    count of plain arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    options = {name: False for name in flags}
    options.update(numbers or {})
    plain = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in flags:
            options[arg] = True
        elif numbers and arg in numbers:
            if i + 1 == len(args):
                sys.exit(usage)
            try:
                options[arg] = int(args[i + 1])
            except ValueError:
                sys.exit(usage)
            i += 1
        elif arg.startswith("--"):
            sys.exit(usage)
        else:
            plain.append(arg)
        i += 1
    if len(plain) != positional:
        sys.exit(usage)
    return plain, options


def integers(usage, words):
    """`words` as integers, or an exit with `usage`."""
    try:
        return [int(w) for w in words]
    except ValueError:
        sys.exit(usage)


def count_walk(it):
    """The names (directories and files) an os.walk-shaped walk gives."""
    n = 0
    for _, dirs, files in it:
        n += len(dirs) + len(files)
    return n


def walk_lstat_os(top):
    """os.walk with an os.lstat of each file (its size read): the files."""
    n = 0
    for d, dirs, files in os.walk(top):
        for f in files:
            os.lstat(os.path.join(d, f)).st_size
            n += 1
    return n


def walk_lstat_dents(top):
    """dents.walk(stat=True), each file's size read from its stat: the files."""
    import dents

    n = 0
    for d, dirs, files, stats in dents.walk(top, stat=True):
        for f in files:
            stats[f].st_size
            n += 1
    return n


def interleaved(runs, cases, warm=True, before_each=None):
    """Times each function of `cases` `runs` times, the runs interleaved
    (one of each in turn) so that the machine's other load falls on all
    alike, each case first run once untimed if `warm` (the caches and the
    code), `before_each` (dropping the caches, say) called before every
    timed run.  Returns, for each case in order, the medians of its wall
    time, of the calling (Python) thread's CPU time and of the whole
    process's CPU time, in seconds."""
    if warm:
        for f in cases:
            f()
    times = [[] for _ in cases]
    for _ in range(runs):
        for i, f in enumerate(cases):
            if before_each:
                before_each()
            w, t, p = time.perf_counter(), time.thread_time(), time.process_time()
            f()
            times[i].append((time.perf_counter() - w, time.thread_time() - t, time.process_time() - p))
    return [tuple(statistics.median(x[k] for x in t) for k in range(3)) for t in times]
