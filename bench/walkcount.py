#!/usr/bin/env python3
"""Walk DIR with dents.walk or os.walk and print the number of entries
below it (directories and files), so that both walks are checked to see
the same tree while they are timed (bench/run.sh scale).

usage: walkcount.py dents|os DIR
"""
import os
import sys


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("dents", "os"):
        sys.exit(__doc__)
    if sys.argv[1] == "dents":
        import dents

        walk = dents.walk
    else:
        walk = os.walk
    n = 0
    for _dirpath, dirnames, filenames in walk(sys.argv[2]):
        n += len(dirnames) + len(filenames)
    print(n)


if __name__ == "__main__":
    main()
