#!/usr/bin/env python3
"""count_tests.py — count individual test cases across meson test logs.

Meson's own summary counts test programs; CI wants test cases. For TAP tests
every `ok`/`not ok` line is one case; other tests count once by result.
Prints `N passed, N failed` as the last line; exits 1 when any failed.
"""
import json
import os
import re
import sys

OK = re.compile(r"^ok\b")
NOT_OK = re.compile(r"^not ok\b")


def count(path):
    passed = failed = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            out = t.get("stdout") or ""
            tap_ok = sum(1 for l in out.splitlines() if OK.match(l))
            tap_bad = sum(1 for l in out.splitlines() if NOT_OK.match(l))
            good = t.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
            if tap_ok or tap_bad:
                passed += tap_ok
                failed += tap_bad
                if not good and not tap_bad:
                    failed += 1  # crashed or timed out after its cases
            elif good:
                passed += 1
            else:
                failed += 1
    return passed, failed


def main(paths):
    passed = failed = 0
    for p in paths:
        if os.path.exists(p):
            a, b = count(p)
            print(f"{p}: {a} passed, {b} failed")
            passed += a
            failed += b
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
