"""dents: os.walk and os.scandir, parallel and exact (Linux).

    import dents
    for dirpath, dirnames, filenames in dents.walk("/data"):   # os.walk's tuples, same order
        ...
    with dents.scandir("/data/huge") as it:                    # os.scandir's entries
        names = [e.name for e in it if e.is_file()]
    dirs, nondirs = dents.scandir_split("/data/huge")           # aio_scandir's split
    total = dents.du("/data")                                   # du -s -B1, in bytes
    dents.scan("/data", "data.parquet")                          # a snapshot (DuckDB, pyarrow)
    for path in dents.find("/data", "-name", "*.h5", "-size", "+1G"):  # find's language
        ...
    for e in dents.find("/data", "-size", "+1G", entries=True):  # DirEntry objects
        print(e.path, e.stat().st_size)                          # no second stat

Directories are read with getdents64 into large buffers, on worker threads
with the GIL released; a huge ext4 or XFS directory is read on several threads
at once.  Errors are the OSError subclasses os raises, with errno, strerror
and filename set.
"""

import os as _os
import sys as _sys

from . import _native
from ._native import DirEntry, FindIterator, ScandirIterator, Stat, WalkIterator, __version__

__all__ = ["du", "find", "scan", "scandir", "scandir_split", "walk", "DirEntry", "FindIterator", "ScandirIterator", "Stat", "WalkIterator"]


def scandir(path=None, *, threads=None):
    """Return an iterator of DirEntry objects for the entries of ``path``.

    As ``os.scandir``: the entries are os.DirEntry-like (``name``, ``path``,
    ``inode()``, ``is_dir()``, ``is_file()``, ``is_symlink()``, ``stat()``,
    ``__fspath__``), ``.`` and ``..`` left out, names ``str`` (decoded with
    surrogateescape, as ``os.fsdecode``) or ``bytes`` if ``path`` is
    ``bytes``; the iterator is a context manager with ``close()``.  An error
    opening ``path`` raises at once; an error while reading raises from
    ``next()``.  ``path`` ``None`` is ``"."`` (the entries' paths
    ``./NAME``); an ``int`` is a descriptor open on a directory, as
    ``os.scandir(fd)``: the entries' paths are their names (``str``), their
    ``stat()`` is made at the descriptor, which stays open (it is read
    through a descriptor of the iterator's own, so its offset is neither
    used nor moved).  Several threads may share the iterator: each entry
    goes to one of them.

    The directory is read on a background thread and handed over through a
    bounded queue.  A large ext4 or XFS directory is read on up to
    ``threads`` threads at once (default: the cores, at least 4): then the
    entries do not come in ``os.scandir``'s order (each one still comes
    exactly once); smaller directories come in the kernel's order, as
    ``os.scandir``'s.
    """
    return _native.scandir("." if path is None else path, threads)


def scandir_split(path, *, threads=None):
    """Return ``(dirs, nondirs)``: the names of the subdirectories of ``path``
    and of its other entries, as IO::AIO's ``aio_scandir`` returns them.

    A symlink to a directory is a non-directory (``lstat``'s view).  Where the
    filesystem gives no type in its entries, as few entries as possible are
    stat'ed: the directory's link count says how many subdirectories to look
    for, likely directories (names without a dot, shorter first) are stat'ed
    first, and the directory is stat'ed before and after so a change while it
    was read falls back to stat'ing everything.  Entries that vanish before
    they could be stat'ed are left out.  Names are ``str`` or ``bytes`` as
    ``path`` is.
    """
    dirs, nondirs, _counters = _native.scandir_split(path, threads)
    return dirs, nondirs


def walk(top, topdown=True, onerror=None, followlinks=False, *, threads=None, stat=False):
    """Directory tree generator: ``os.walk``'s tuples in ``os.walk``'s order.

    Yields ``(dirpath, dirnames, filenames)`` for ``top`` and each directory
    under it, exactly as ``os.walk(top, topdown, onerror, followlinks)``: the
    same tuples in the same order (each directory's names in the order the
    kernel lists them, which is ``os.scandir``'s), pruning by editing
    ``dirnames`` in place when ``topdown``, ``onerror`` called with the
    ``OSError`` of a directory that cannot be listed, symlinks to directories
    listed in ``dirnames`` and descended only with ``followlinks`` (no loop
    detection, as in ``os.walk``), ``bytes`` in, ``bytes`` out.

    Underneath, the directories the walk will ask for next are read ahead on
    ``threads`` worker threads (default: the cores, at least 4; 0 reads
    everything on the calling thread), with the GIL released and a bounded
    buffer of finished listings.  A pruned directory is never read.

    With ``stat=True`` each tuple has a fourth member, a dict mapping each
    name of ``dirnames`` and ``filenames`` to its ``lstat`` (made on the
    worker threads, as ``os.lstat(os.path.join(dirpath, name))`` would give
    it; a name that vanished before it was stat'ed is missing).  The values
    are ``dents.Stat`` objects: ``os.stat_result``'s attributes (``st_mode``,
    ``st_size``, ``st_mtime``, ``st_mtime_ns``...), turned into Python
    objects only when read; ``.to_stat_result()`` gives the
    ``os.stat_result``.

    Several threads may share the iterator: each tuple goes to one of them
    (pruning by editing ``dirnames`` then races with the other threads'
    ``next()``).
    """
    _sys.audit("os.walk", top, topdown, onerror, followlinks)
    return _native.walk(top, topdown, onerror, followlinks, threads, stat)


def du(path, *, apparent=False, count_links=False, one_file_system=False, threads=None, onerror=None):
    """Return the disk usage of ``path`` in bytes, as ``du -s -B1 path``
    (``apparent=True``: ``du -sb``, the sizes of the files rather than the
    blocks they take) counts it: hard links once (``count_links=True``:
    each time, as ``du -l``), symlinks not followed, other filesystems
    skipped with ``one_file_system=True`` (``du -x``).  The tree is walked
    on ``threads`` worker threads (default: du's, 8 per core) with the GIL
    released: the engine of ``dents du``.

    A ``path`` that cannot be accessed raises its ``OSError``.  An entry or
    directory below it that cannot be stat'ed or read raises its
    ``OSError`` too, unless ``onerror`` is given: then ``onerror`` is called
    with each such error (``filename`` set), and the total counts what could
    be counted, as ``du`` prints it.
    """
    return _native.du(path, apparent, count_links, one_file_system, threads, onerror)


def scan(paths, output, *, threads=None, one_file_system=False, follow=None, names_only=False, onerror=None, since=None):
    """Write a snapshot of the trees under ``paths`` (one path or a list)
    to the Parquet file ``output``, as ``dents scan -o OUTPUT PATHS`` does,
    and return the number of entries (rows) written.

    One row per entry: ``path`` and ``name`` (exact bytes), ``depth``,
    ``type`` (find's ``%y`` letter), ``size``, ``blocks``, ``mode``,
    ``uid``, ``gid``, ``nlink``, ``ino``, ``dev``, ``mtime``/``ctime``/
    ``atime`` (nanoseconds, UTC) and a symlink's ``target``; the scan's
    record (roots, times, options, errors) in the file's key-value
    metadata.  DuckDB (``read_parquet``), pyarrow and polars read it as it
    is; docs/snapshot.md has the schema.  ``threads`` worker threads,
    ``one_file_system`` (``-x``), ``follow`` ``None``, ``"roots"`` (``-H``)
    or ``"all"`` (``-L``), ``names_only`` (names, types, inodes and
    directories' times only).

    ``since`` (a snapshot written before, as ``dents scan --since``):
    refresh, taking from it the entries of each directory unchanged since
    (same device, inode and times, older than its start by a 2-second
    guard) instead of reading it; the snapshot written is the one a full
    scan writes, and its record counts the directories read and reused
    (``dents.scan.dirs_read``, ``dents.scan.dirs_reused``).  A ``since``
    that cannot be used at all (missing, another dents version, ``follow
    = "all"``) gives a ``RuntimeWarning`` saying why, and every directory
    is read.

    What cannot be read is recorded in the snapshot and, if ``onerror`` is
    given, handed to it as an ``OSError`` (``filename`` set).  A snapshot
    that cannot be written raises ``OSError`` and leaves no file: it is
    written under a temporary name and renamed when complete.
    """
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    roots = [_os.fsencode(p) for p in paths]
    old = None if since is None else _os.fsencode(since)
    rows, why = _native.scan(roots, _os.fsencode(output), threads, one_file_system, follow, names_only, onerror, old)
    if why is not None:
        import warnings

        # The file named: OLD, or its shard that could not be read.
        named, text = why
        warnings.warn(f"cannot reuse {_os.fsdecode(named)!r}: {text}", RuntimeWarning, stacklevel=2)
    return rows


def find(paths, *expression, entries=False, onerror=None, follow="P"):
    """Run a find expression, as ``dents find PATHS EXPRESSION`` runs it,
    and iterate over what it prints (or, with ``entries=True``, over the
    entries for which it printed).

    ``paths`` is one starting point or a list of them (``str``, ``bytes``
    or path-like); ``expression`` is the words of find's language, one
    argument each::

        for path in dents.find("/data", "-name", "*.h5", "-size", "+1G"):
            ...

    With no printing action in the expression (or with ``-print0``), each
    item is the path of a matching entry, whole even if it holds a newline;
    with ``-print``, ``-printf`` or ``-ls`` the items are the lines they
    print (without the newline).  Items are ``bytes`` if the first path is
    ``bytes``, else ``str`` decoded as ``os.fsdecode`` does.  The order is
    the parallel walk's, not GNU find's.

    With ``entries=True`` the items are ``DirEntry`` objects (as
    ``scandir``'s: ``name``, ``path``, ``inode()``, ``is_dir()``,
    ``is_file()``, ``is_symlink()``, ``stat()``, ``__fspath__``), one for
    each entry the expression printed (with no printing action: each entry
    it matched), whatever it printed.  What the expression's tests stat'ed
    (``-size``, ``-mtime``, ``-user``...) comes with the entry: ``stat()``
    returns it with no further system call (``stat(follow_symlinks=False)``
    too, unless the walk follows symlinks); otherwise ``stat()`` stats the
    path when first called, as ``os.DirEntry.stat`` does.

    A bad expression raises ``ValueError`` with GNU find's message.  A file
    or directory that cannot be read is reported on standard error in GNU
    find's words and the walk goes on, as find does; once the iteration is
    over, the iterator's ``status`` is find's exit status (0, or 1 after
    such a problem).  The walk runs on worker threads with the GIL
    released and waits while the consumer is slow (a bounded queue);
    leaving the loop (``break``, ``close()``, the iterator's ``with``
    block) stops it.  Each run has its own exit status: several may be
    under way at once, on one thread or several.

    ``onerror``, as ``os.walk``'s: a callable given an ``OSError`` (with
    ``errno``, ``strerror`` and ``filename``) for each error that names a
    path (a directory that cannot be read, a starting point that does not
    exist), on the iterating thread, instead of the message on standard
    error; the status is 1 all the same, and what it raises ends the
    iteration.  ``follow`` is find's ``-P`` (the default: no symlink
    followed), ``-H`` (those named as ``paths``) or ``-L`` (all), as
    ``"P"``, ``"H"`` or ``"L"``.
    """
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    paths = [_os.fspath(p) for p in paths]
    as_bytes = bool(paths) and isinstance(paths[0], bytes)
    return _native.find(
        [_os.fsencode(p) for p in paths],
        [_os.fsencode(w) for w in expression],
        as_bytes,
        entries,
        onerror,
        follow,
    )
