#!/usr/bin/env python3
# check_code_shape.py — no C function in src/ or plugins/ is longer than 120 lines,
# and the reference docs in docs/ carry no commit hashes or change notes. TAP output.
"""Usage: check_code_shape.py SOURCE_ROOT

Two TAP tests:

1. Every function defined in a .c or .h file under SOURCE_ROOT/src and
   SOURCE_ROOT/plugins is at most MAX_LINES lines long, counted from the line
   with the function's name to its closing brace (the project's style puts a
   function's opening and closing braces alone at column 0). A failure names
   file:line:function and the length.
2. No docs/*.md file holds a word that looks like a commit hash (7 to 40 hex
   digits with at least one letter a-f and one digit, outside fenced code
   blocks) or a change note ("was X, now Y", "previously", "fixed in
   commit/version ..."): history belongs in git and in bench/*/RESULTS.md,
   which are not under docs/.

ALLOWED_FUNCTIONS and ALLOWED_DOC_WORDS are empty and stay so.
"""

import os
import re
import sys

MAX_LINES = 120

# Long functions let through, (path from the source root, function name):
# none. Split the function instead of adding one.
ALLOWED_FUNCTIONS = set()

# Hash-like words let through in docs/, (path from the source root, word):
# none. Measurement history goes to bench/*/RESULTS.md.
ALLOWED_DOC_WORDS = set()

HASH = re.compile(r"(?<![\w.-])[0-9a-f]{7,40}(?![\w-])")
CHANGE_NOTES = [
    re.compile(r"\bwas\b[^.;:\n]{0,80}?,\s*now\b", re.I),
    re.compile(r"\bpreviously\b", re.I),
    re.compile(r"\bfixed in (?:commit|version|release|v?\d)", re.I),
    re.compile(r"\*Fixed\.\*"),
]
NAME_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*$")


def functions(lines):
    """(line number of the name, name, length in lines) for each function
    whose body opens with "{" alone at column 0 and closes with "}" at
    column 0."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != "{":
            i += 1
            continue
        # Walk back from the ")" that ends the declarator to its "(".
        depth = 0
        name = None
        j = i - 1
        while j >= 0 and name is None:
            text = lines[j]
            for k in range(len(text) - 1, -1, -1):
                ch = text[k]
                if ch == ")":
                    depth += 1
                elif ch == "(":
                    depth -= 1
                    if depth == 0:
                        m = NAME_BEFORE_PAREN.search(text[:k])
                        name = m.group(1) if m else "?"
                        break
            if name is None:
                j -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        if name is not None:
            out.append((j + 1, name, end - j + 1))
        i = end + 1
    return out


def sources(root):
    """Paths (relative to root) of the .c and .h files under src/ and plugins/."""
    out = []
    for top in ("src", "plugins"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def long_functions(root):
    """Messages for the functions over MAX_LINES that are not allowed, and
    the allowed entries that no longer match a long function."""
    bad, seen = [], set()
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for line, name, length in functions(lines):
            if length <= MAX_LINES:
                continue
            if (rel, name) in ALLOWED_FUNCTIONS:
                seen.add((rel, name))
                continue
            bad.append(f"{rel}:{line}:{name}: {length} lines (at most {MAX_LINES})")
    stale = [f"{p}:{n}: allowed as long but is not (remove it from ALLOWED_FUNCTIONS)"
             for p, n in sorted(ALLOWED_FUNCTIONS - seen)]
    return bad, stale


def hex_word(word):
    """Whether a run of hex digits looks like a commit hash, not a number."""
    return re.search(r"[a-f]", word) is not None and re.search(r"\d", word) is not None


def doc_history(root):
    """Messages for the hash-like words and change notes in docs/*.md."""
    bad, seen = [], set()
    docs = os.path.join(root, "docs")
    for f in sorted(os.listdir(docs)):
        if not f.endswith(".md"):
            continue
        rel = os.path.join("docs", f)
        fenced = False
        with open(os.path.join(docs, f), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.lstrip().startswith(("```", "~~~")):
                    fenced = not fenced
                    continue
                if fenced:
                    continue
                for m in HASH.finditer(line):
                    word = m.group(0)
                    if not hex_word(word):
                        continue
                    if (rel, word) in ALLOWED_DOC_WORDS:
                        seen.add((rel, word))
                        continue
                    bad.append(f"{rel}:{n}: commit hash {word!r} (history belongs in git)")
                for rx in CHANGE_NOTES:
                    m = rx.search(line)
                    if m:
                        bad.append(f"{rel}:{n}: change note {m.group(0)!r} "
                                   "(docs say what is true now)")
    stale = [f"{p}: {w!r} allowed but not found (remove it from ALLOWED_DOC_WORDS)"
             for p, w in sorted(ALLOWED_DOC_WORDS - seen)]
    return bad, stale


def report(n, what, bad, stale):
    """One TAP result; stale allowlist entries are diagnostics, not failures,
    so that another change may empty the allowlist in its own time."""
    print(("ok" if not bad else "not ok") + f" {n} - {what}")
    for msg in bad:
        print(f"# {msg}")
        print(msg, file=sys.stderr)
    for msg in stale:
        print(f"# note: {msg}")
    return not bad


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    print("1..2")
    ok = report(1, f"no function in src/ or plugins/ over {MAX_LINES} lines",
                *long_functions(root))
    ok = report(2, "no commit hashes or change notes in docs/*.md",
                *doc_history(root)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
