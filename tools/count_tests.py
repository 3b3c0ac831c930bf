#!/usr/bin/env python3
"""count_tests.py — count individual test cases across all test logs.

Meson's own summary counts test programs; CI wants test cases. Inputs:
* meson's testlog.json: for TAP tests every `ok`/`not ok` line is one case,
  other tests count once by result;
* NAME.tap.log: a script's TAP output, ending with a `# exit N` line;
* NAME.unittest.log: Python unittest output (`Ran N tests`, `FAILED (...)`).
A program that failed without reporting a failed case counts as one failure.
Prints `N passed, N failed` as the last line; exits 1 when any failed.
"""
import json
import os
import re
import sys

OK = re.compile(r"^ok\b")
NOT_OK = re.compile(r"^not ok\b")
EXIT = re.compile(r"^# exit (\d+)$", re.M)


def tap(text):
    lines = text.splitlines()
    return (sum(1 for l in lines if OK.match(l)),
            sum(1 for l in lines if NOT_OK.match(l)))


def meson_log(path):
    passed = failed = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip().strip("\0")
            if not line:
                continue
            try:
                t = json.loads(line)
            except ValueError:
                print(f"{path}: unreadable record counted as a failure",
                      file=sys.stderr)
                failed += 1
                continue
            good = t.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
            a, b = tap(t.get("stdout") or "")
            if a or b:
                passed += a
                failed += b + (0 if good or b else 1)
            elif good:
                passed += 1
            else:
                failed += 1
    return passed, failed


def script_log(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = EXIT.findall(text)
    rc = int(m[-1]) if m else 1
    if path.endswith(".unittest.log"):
        ran = re.findall(r"^Ran (\d+) tests?", text, re.M)
        n = int(ran[-1]) if ran else 0
        bad = sum(int(x) for x in re.findall(r"(?:failures|errors)=(\d+)", text))
        passed, failed = n - bad, bad
    else:
        passed, failed = tap(text)
    if rc != 0 and failed == 0:
        failed = 1  # crashed, or failed outside any case
    return passed, failed


def main(paths):
    passed = failed = 0
    for p in paths:
        if not os.path.exists(p):
            continue
        a, b = meson_log(p) if p.endswith(".json") else script_log(p)
        print(f"{p}: {a} passed, {b} failed")
        passed += a
        failed += b
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
