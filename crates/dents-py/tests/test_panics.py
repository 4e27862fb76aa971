"""A panic on one of the extension's threads, or an exception in the
caller's callback, surfaces as a Python exception at any number of threads,
never as a hang nor a silently short result.

Each case runs in a child interpreter with a time limit: a deadlocked
iterator cannot be interrupted from within.  The panics come from the
library's ``test-knobs`` feature (reading an entry named
``dents-test-panic`` panics), which only the wheel scripts/test-python
builds for this file has; with another wheel those cases skip loudly
(under CI they fail)."""

import os
import subprocess
import sys
import textwrap

import pytest

import dents

# Seconds a case may take before it is taken for deadlocked.
LIMIT = 60

KNOBS = hasattr(dents._native, "_TEST_KNOBS")


def needs_knobs():
    if KNOBS:
        return
    why = ("dents was built without the test-knobs feature "
           "(scripts/test-python builds a wheel with it for this file)")
    if os.environ.get("CI"):
        pytest.fail(why)
    sys.stderr.write(f"SKIPPED test_panics: {why}\n")
    pytest.skip(why)


def tree(root, panic):
    """24 directories of 4 subdirectories of 2 files; with ``panic``, the
    directory listed last in ``root`` (the first job a read-ahead worker
    takes: the walk itself works at the other end) holds the entry whose
    read panics.  Returns ``root`` and that directory."""
    root = str(root)
    for d in range(24):
        for e in range(4):
            sub = os.path.join(root, f"d{d:02}", f"e{e}")
            os.makedirs(sub)
            for f in range(2):
                open(os.path.join(sub, f"f{f}"), "w").close()
    last = os.path.join(root, [e.name for e in os.scandir(root)][-1])
    if panic:
        open(os.path.join(last, "dents-test-panic"), "w").close()
    return root, last


def run(code, root, last):
    """Runs ``code`` (which sets ``raised`` to what the iteration raised)
    in a child interpreter; returns ``raised``'s type name and text."""
    script = textwrap.dedent("""
        import sys, dents
        root, last = sys.argv[1], sys.argv[2]
        raised = None
        try:
        {body}
        except BaseException as e:
            raised = e
        print(type(raised).__name__ if raised is not None else "nothing")
        print(raised)
    """).format(body=textwrap.indent(textwrap.dedent(code), "    "))
    try:
        out = subprocess.run([sys.executable, "-c", script, root, last], capture_output=True,
                             text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no end within {LIMIT} s (deadlock):\n{code}")
    assert out.returncode == 0, out.stderr
    kind, text = out.stdout.split("\n", 1)
    return kind, text


PANICS = {
    "walk": "for _ in dents.walk(root, threads={t}): pass",
    "walk_bottom_up": "for _ in dents.walk(root, topdown=False, threads={t}): pass",
    "walk_stat": "for _ in dents.walk(root, stat=True, threads={t}): pass",
    "scandir": "for _ in dents.scandir(last, threads={t}): pass",
    # find has no threads argument: its engine's own count.
    "find": "for _ in dents.find(root): pass",
    "find_entries": "for _ in dents.find(root, entries=True): pass",
    "du": "dents.du(root, threads={t})",
}


@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("form", sorted(PANICS))
def test_a_panic_on_a_worker_raises(tmp_path, form, threads):
    needs_knobs()
    root, last = tree(tmp_path / "t", panic=True)
    kind, text = run(PANICS[form].format(t=threads), root, last)
    assert kind == "PanicException", (kind, text)
    assert "dents-test-panic" in text


# The callbacks run on the Python thread; what matters is that the
# workers, still reading ahead, are not left waiting for it (du's
# onerror is called once the walk is over).
CALLBACKS = {
    "walk": "for _ in dents.walk(root + '/gone', onerror=boom, threads={t}): pass",
    "find": "for _ in dents.find([root, root + '/gone', root], onerror=boom): pass",
}


@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("form", sorted(CALLBACKS))
def test_an_exception_in_onerror_raises(tmp_path, form, threads):
    root, last = tree(tmp_path / "t", panic=False)
    code = ("def boom(e):\n    raise ValueError('boom: ' + str(e.filename))\n"
            + CALLBACKS[form].format(t=threads))
    kind, text = run(code, root, last)
    assert kind == "ValueError", (kind, text)
    assert text.startswith("boom: ")
