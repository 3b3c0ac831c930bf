#!/usr/bin/env python3
# cli_man.py — render docs/cli.md (the one hand-written reference of the
# command) as the manual page usmp(1); the build runs it, see docs/cli.md.
"""Usage: cli_man.py [--version V] CLI.md OUT.1

Knows the Markdown docs/cli.md uses and refuses anything else, so a page
that would render wrong fails the build instead:

* `# usmp — summary` (NAME), then an indented code block (SYNOPSIS) and
  paragraphs (DESCRIPTION) before the first `##`;
* `## Heading` (.SH) and `### heading` (.SS);
* paragraphs, `* ` lists (continuation lines indented), an item that starts
  with code spans and " — " is an option (.TP with the spans as its tag);
* two-column tables (.TP per row), indented code blocks;
* inline `code` (bold), **bold**, *italic*, [text](link) (the text);
* HTML comments (dropped).
"""
import re
import sys

CHARS = {"—": r"\(em", "–": r"\(en", "×": r"\(mu", "≤": r"\(<=", "≥": r"\(>=",
         "’": r"\(cq", "‘": r"\(oq", "“": r"\(lq", "”": r"\(rq", "→": r"\(->",
         "…": r"\&...", "\u00a0": r"\~"}
OPTION_ITEM = re.compile(r"^((?:`[^`]+`(?:, )?)+) — (.*)$", re.S)


class MarkdownError(Exception):
    pass


def escape(text):
    """Plain text for troff: backslashes, non-ASCII characters."""
    out = []
    for ch in text.replace("\\", "\\e"):
        if ch in CHARS:
            out.append(CHARS[ch])
        elif ord(ch) > 126:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def code(text, arg_italic=False):
    """A code span: bold, hyphens as \\-; in a tag, the argument italic."""
    text = escape(text).replace("-", "\\-")
    if arg_italic and " " in text:
        opt, arg = text.split(" ", 1)
        return "\\fB%s\\fR \\fI%s\\fR" % (opt, arg)
    return "\\fB%s\\fR" % text


def inline(text):
    """Inline Markdown to troff; the text may span lines."""
    parts = re.split(r"`([^`]*)`", text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(code(part))
            continue
        if "`" in part:
            raise MarkdownError("unbalanced backquote in: %r" % text)
        part = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", part)
        part = escape(part)
        part = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", part)
        part = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\\fI\1\\fR",
                      part)
        if re.search(r"[*_]{2}|\]\(", part):
            raise MarkdownError("Markdown the renderer does not know: %r" % part)
        out.append(part)
    return "".join(out)


def lines_of(text):
    """troff source lines for filled text: no line may start with . or '."""
    result = []
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith((".", "'")):
            line = "\\&" + line
        if line.endswith(("e.g.", "i.e.")):
            line += "\\&"  # not the end of a sentence
        if line:
            result.append(line)
    return result


def verbatim(line):
    line = escape(line).replace("-", "\\-")
    return "\\&" + line if line.startswith((".", "'")) else line


def quoted(heading):
    return '"%s"' % heading if " " in heading else heading


def render(markdown, version):
    markdown = re.sub(r"<!--.*?-->\n?", "", markdown, flags=re.S)
    lines = markdown.split("\n")
    out = []
    i = 0
    title = lines[0]
    m = re.match(r"^# (\S+) — (.+)$", title)
    if not m:
        raise MarkdownError("line 1: expected '# NAME — summary', got %r" % title)
    name, summary = m.group(1), m.group(2)
    out += ['.\\" Generated from docs/cli.md by tools/cli_man.py: edit that file.',
            '.TH %s 1 "" "%s %s" "User Commands"' % (name.upper(), name, version),
            ".nh", ".ad l", ".SH NAME", "%s \\- %s" % (name, escape(summary))]
    i = 1
    seen_synopsis = False
    in_description = False
    while i < len(lines):
        line = lines[i]
        where = "line %d" % (i + 1)
        if not line.strip():
            i += 1
            continue
        if line.startswith("    "):  # indented code block
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or
                                      not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            if not seen_synopsis and not in_description:
                out += [".SH SYNOPSIS", ".nf"]
                out += [verbatim(b) for b in block]
                out += [".fi"]
                seen_synopsis = True
            else:
                out += [".PP", ".RS 4", ".nf"]
                out += [verbatim(b) for b in block]
                out += [".fi", ".RE"]
            continue
        if line.startswith("### "):
            out += [".SS %s" % quoted(inline(line[4:]).strip())]
            in_description = True
            i += 1
            continue
        if line.startswith("## "):
            out += [".SH %s" % quoted(inline(line[3:].upper()).strip())]
            in_description = True
            i += 1
            continue
        if not in_description:
            out += [".SH DESCRIPTION"]
            in_description = True
        if line.startswith("#"):
            raise MarkdownError("%s: heading level not supported: %r" % (where, line))
        if line.startswith("* "):
            while i < len(lines) and lines[i].startswith("* "):
                item = [lines[i][2:]]
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and \
                        not lines[i].startswith("    * "):
                    item.append(lines[i][2:])
                    i += 1
                text = "\n".join(item)
                m = OPTION_ITEM.match(text)
                if m:
                    spans = re.findall(r"`([^`]+)`", m.group(1))
                    out += [".TP", ", ".join(code(s, True) for s in spans)]
                    out += lines_of(inline(m.group(2)))
                else:
                    out += [".IP \\(bu 2"] + lines_of(inline(text))
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if len(cells) != 2:
                    raise MarkdownError("line %d: only two-column tables: %r"
                                        % (i + 1, lines[i]))
                rows.append(cells)
                i += 1
            if len(rows) < 2 or not re.match(r"^:?-+:?$", rows[1][0]):
                raise MarkdownError("%s: a table needs a header and a "
                                    "separator row" % where)
            for key, value in rows[2:]:
                out += [".TP", inline(key)] + lines_of(inline(value))
            continue
        if re.match(r"^(\d+\.|>|-{3,}|```|<)", line):
            raise MarkdownError("%s: Markdown not supported: %r" % (where, line))
        para = []
        while i < len(lines) and lines[i].strip() and \
                not re.match(r"^(#|\* |\||    )", lines[i]):
            para.append(lines[i])
            i += 1
        out += [".PP"] + lines_of(inline("\n".join(para)))
    # .PP straight after a heading is redundant; groff does not mind.
    return "\n".join(out) + "\n"


def main(argv):
    version = "unknown"
    if len(argv) > 2 and argv[1] == "--version":
        version = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        markdown = f.read()
    try:
        page = render(markdown, version)
    except MarkdownError as e:
        sys.stderr.write("cli_man.py: %s: %s\n" % (argv[1], e))
        return 1
    with open(argv[2], "w", encoding="ascii") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
