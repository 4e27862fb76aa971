"""What the corpus builders of bench/ share: their command lines, read alike.

A builder's docstring is its usage; `parse_args` reads positional
arguments and `--NAME` options from anywhere on the command line and, on
anything it does not expect, exits with that usage rather than guessing.
"""
import sys


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
