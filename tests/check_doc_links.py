#!/usr/bin/env python3
# check_doc_links.py — every relative link in README.md and docs/*.md names a
# file that exists and, after '#', a heading of that Markdown file. TAP output.
"""Usage: check_doc_links.py SOURCE_ROOT [FILE.md ...]

Without files, checks README.md and docs/*.md under SOURCE_ROOT. Links are
Markdown inline links and images, [text](target), and reference definitions,
[label]: target, outside code blocks and code spans; absolute URLs (scheme:)
are not followed. Anchors are GitHub's heading slugs: the heading's text
without Markdown markup, lower-cased, punctuation other than '-' and '_'
dropped, spaces turned into '-', and '-1', '-2', ... on repeats.
"""

import glob
import os
import re
import sys

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?"
                    r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.M)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def blank(text):
    """The same text with every character but newlines turned into spaces
    (keeps offsets, hence line numbers)."""
    return re.sub(r"[^\n]", " ", text)


def blocks(text):
    """`text` with fenced code blocks, indented code blocks and HTML comments
    blanked out, offsets kept."""
    lines = text.split("\n")
    out = []
    fence = None
    prev_blank = True
    in_indented = False
    for line in lines:
        m = FENCE.match(line)
        if fence:
            out.append(blank(line))
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append(blank(line))
            continue
        is_blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        # An indented code block starts after a blank line (or another code
        # line) and is not a list item's continuation; list continuations in
        # these docs are indented by 2 or 3, code by 4 after a blank line.
        if indented and (prev_blank or in_indented) and not is_blank:
            in_indented = True
            out.append(blank(line))
        else:
            if not is_blank:
                in_indented = False
            out.append(line)
        prev_blank = is_blank
    text = "\n".join(out)
    return re.sub(r"<!--.*?-->", lambda m: blank(m.group(0)), text, flags=re.S)


def prose(text):
    """`text` without code blocks, comments and code spans, offsets kept."""
    text = blocks(text)
    # Code spans: a run of backticks up to the same run, not across a blank line.
    return re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)",
                  lambda m: blank(m.group(0)) if "\n\n" not in m.group(0)
                  else m.group(0), text, flags=re.S)


def slug(heading):
    """GitHub's anchor for a heading's source text."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    t = re.sub(r"<[^>]+>", "", t)                            # inline HTML
    t = t.replace("`", "").replace("*", "")
    t = t.strip().lower()
    t = "".join(c for c in t if c.isalnum() or c in " -_")
    return t.replace(" ", "-")


def anchors(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = blocks(f.read())
    seen = {}
    result = set()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        title = m.group(2) if m else None
        if not m and i + 1 < len(lines) and line.strip() \
                and SETEXT.match(lines[i + 1]) and not line.startswith("    "):
            # A setext heading: text underlined by === or --- (not a table rule).
            if "|" not in lines[i + 1]:
                title = line.strip()
        if title is None:
            continue
        s = slug(title)
        n = seen.get(s, 0)
        seen[s] = n + 1
        result.add(s if n == 0 else "%s-%d" % (s, n))
    cache[path] = result
    return result


def check(path, name):
    """The broken links of one Markdown file (`name` in messages), as
    messages, and the number of links."""
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    text = prose(raw)
    found = [(m.start(), m.group(1)) for m in INLINE.finditer(text)]
    found += [(m.start(), m.group(1)) for m in REFDEF.finditer(text)]
    problems = []
    for offset, target in sorted(found):
        line = text.count("\n", 0, offset) + 1
        where = "%s:%d: (%s)" % (name, line, target)
        if not target:
            problems.append(where + " empty link")
            continue
        if SCHEME.match(target) or target.startswith("//"):
            continue  # an absolute URL: not followed
        file_part, _, anchor = target.partition("#")
        if file_part:
            dest = os.path.normpath(os.path.join(os.path.dirname(path),
                                                 file_part))
        else:
            dest = path
        if not os.path.exists(dest):
            problems.append(where + " no such file")
            continue
        if anchor:
            if not dest.endswith(".md") or os.path.isdir(dest):
                problems.append(where + " an anchor into a file that is "
                                "not Markdown")
            elif anchor not in anchors(dest):
                problems.append(where + " no such heading")
    return problems, len(found)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    root = argv[1]
    files = argv[2:] or ([os.path.join(root, "README.md")] +
                         sorted(glob.glob(os.path.join(root, "docs", "*.md"))))
    print("1..%d" % len(files))
    failed = 0
    for n, path in enumerate(files, 1):
        name = os.path.relpath(path, root)
        try:
            problems, count = check(path, name)
        except OSError as e:
            problems, count = ["%s: %s" % (name, e)], 0
        if problems:
            failed += 1
            print("not ok %d - %s: every relative link resolves (%d links)"
                  % (n, name, count))
            for p in problems:
                print("# " + p)
        else:
            print("ok %d - %s: every relative link resolves (%d links)"
                  % (n, name, count))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
