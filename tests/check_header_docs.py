#!/usr/bin/env python3
# check_header_docs.py — every public function of include/usmp/usmp.h states its
# thread-safety and what it returns, as the header's conventions say. TAP output.
"""Usage: check_header_docs.py USMP_H [COMMON_H]

For each USMP_API declaration in USMP_H, the comment right above it (one
comment may cover several declarations that follow it with no blank line
between them) must contain a line starting "Thread-safe:" and a line
starting "Returns:". For a declaration returning `int`, the text after
"Returns:" must name at least one status code (unless it says "(not a
status)"), and every name of the form
USMP_OK / USMP_ERR_* it uses must be a usmp_status of COMMON_H (by default
common.h next to USMP_H). One TAP test per function.
"""

import os
import re
import sys

DECL = re.compile(r"^USMP_API\s+(.*?)\b(usmp_\w+)\s*\(")
STATUS = re.compile(r"\bUSMP_(?:OK|ERR_[A-Z_]+)\b")


def statuses(common_h):
    """The usmp_status names declared in common.h."""
    text = open(common_h, encoding="utf-8").read()
    body = re.search(r"enum usmp_status \{(.*?)\};", text, re.S)
    if not body:
        sys.exit(f"Bail out! {common_h}: no enum usmp_status")
    return set(re.findall(r"\b(USMP_\w+)\s*=", body.group(1)))


def declarations(lines):
    """(line number, return type, name, comment text or None) per USMP_API
    declaration."""
    out = []
    for i, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        # Walk up over the declarations this one is grouped with.
        j = i - 1
        while j >= 0 and lines[j].strip() and not lines[j].rstrip().endswith("*/"):
            if not (lines[j].startswith("USMP_API") or lines[j].startswith(" ")
                    or lines[j].startswith("\t")):
                break
            j -= 1
        comment = None
        if j >= 0 and lines[j].rstrip().endswith("*/"):
            k = j
            while k >= 0 and "/*" not in lines[k]:
                k -= 1
            if k >= 0:
                comment = "\n".join(lines[k:j + 1])
        out.append((i + 1, m.group(1).strip(), m.group(2), comment))
    return out


def tagged(comment, tag):
    """The text from the line starting with `tag` to the end of the comment,
    or None."""
    for n, line in enumerate(comment.split("\n")):
        body = re.sub(r"^\s*(/\*+|\*)\s?", "", line)
        if body.startswith(tag):
            rest = [body[len(tag):]] + comment.split("\n")[n + 1:]
            return "\n".join(rest)
    return None


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    usmp_h = argv[1]
    common_h = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(usmp_h), "common.h")
    known = statuses(common_h)
    lines = open(usmp_h, encoding="utf-8").read().split("\n")
    decls = declarations(lines)
    if not decls:
        sys.exit(f"Bail out! {usmp_h}: no USMP_API declaration found")
    print(f"1..{len(decls)}")
    failed = 0
    for n, (lineno, rtype, name, comment) in enumerate(decls, 1):
        problems = []
        if comment is None:
            problems.append("no comment above it")
        else:
            if tagged(comment, "Thread-safe:") is None:
                problems.append('no "Thread-safe:" line')
            returns = tagged(comment, "Returns:")
            if returns is None:
                problems.append('no "Returns:" line')
            elif rtype == "int" and "(not a status)" not in returns:
                named = STATUS.findall(returns)
                if not named:
                    problems.append('"Returns:" names no status code')
                unknown = sorted(set(named) - known)
                if unknown:
                    problems.append("unknown status " + ", ".join(unknown))
        if problems:
            failed += 1
            print(f"not ok {n} - {name} ({usmp_h}:{lineno}): "
                  + "; ".join(problems))
        else:
            print(f"ok {n} - {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
