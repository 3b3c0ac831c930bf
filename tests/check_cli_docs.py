#!/usr/bin/env python3
# check_cli_docs.py — docs/cli.md, the manual page rendered from it and the
# --help texts of the built `usmp` name the same commands, options, exit
# statuses and environment variables; groff formats the page cleanly. TAP.
"""Usage: check_cli_docs.py USMP CLI.md USMP.1"""
import os
import re
import shutil
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")
MAN_MACROS = {"TH", "SH", "SS", "PP", "TP", "IP", "RS", "RE", "nf", "fi",
              "nh", "ad", "br", "sp", "B", "I", "BR", "IR"}

results = []


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


def run(usmp, *args):
    env = dict(os.environ, USMP_PLUGIN_PATH="", USMP_ALGORITHM="")
    env.pop("USMP_LOG", None)
    p = subprocess.run([usmp] + list(args), capture_output=True, text=True,
                       env=env, timeout=60)
    return p.returncode, p.stdout, p.stderr


def block_after(text, header):
    """The lines after the line `header` up to the next blank line."""
    lines = text.split("\n")
    if header not in lines:
        return []
    out = []
    for line in lines[lines.index(header) + 1:]:
        if not line.strip():
            break
        out.append(line)
    return out


# ---- what the command prints ------------------------------------------------

def help_options(lines, takes_arg=None):
    """{primary: set of spellings} from "  -a, --algorithm ALGO  help" lines;
    adds the primary names of options with an argument to `takes_arg`."""
    found = {}
    for line in lines:
        m = re.match(r"^\s+(-\S.*?)(?:\s{2,}|$)", line)
        if not m:
            continue
        names = OPTION.findall(m.group(1))
        found[names[0]] = set(names)
        if takes_arg is not None and not m.group(1).split()[-1].startswith("-"):
            takes_arg.add(names[0])
    return found


def synopses(lines):
    """{command: token list} from synopsis lines ("usmp plan PROBLEM [-a..."
    and continuation lines starting with '[')."""
    out, current = {}, None
    for line in lines:
        s = line.strip()
        m = re.match(r"^usmp ([a-z][a-z-]*)\b(.*)$", s)
        if m:
            current = m.group(1)
            out[current] = m.group(2).split()
        elif current and s.startswith("["):
            out[current] += s.split()
        else:
            current = None
    return out


def synopsis_options(tokens):
    return {m.group(1) for t in tokens for m in [re.match(r"^\[(-[^\] ]+)", t)]
            if m}


def command_side(usmp):
    rc, top, err = run(usmp, "--help")
    check(rc == 0 and not err, "usmp --help exits 0 and writes only to stdout",
          "exit %d, stderr %r" % (rc, err))
    rc2, top2, _ = run(usmp, "-h")
    check(rc2 == 0 and top2 == top, "usmp -h is usmp --help")
    commands_block = block_after(top, "commands:")
    syn = synopses(commands_block)
    env = re.search(r"Environment:(.*)", top, re.S)
    exits = re.search(r"(Exit status:.*?)Environment:", top, re.S)
    side = {
        "commands": syn,
        "top": help_options(block_after(top, "options:")),
        "exits": set(re.findall(r"(?:^|[,:]\s)(\d+) ", exits.group(1))
                     if exits else []),
        "env": set(re.findall(r"\bUSMP_[A-Z_]+\b", env.group(1) if env else "")),
        "usage": [l.strip() for l in top.split("\n")[:2]],
        "options": {},
        "takes_arg": set(),
    }
    for cmd in syn:
        rc, text, err = run(usmp, cmd, "--help")
        check(rc == 0 and not err and text.startswith("usage: usmp %s" % cmd),
              "usmp %s --help exits 0 with its usage on stdout" % cmd,
              "exit %d, stdout %r, stderr %r" % (rc, text[:200], err))
        rc2, text2, _ = run(usmp, cmd, "-h")
        check(rc2 == 0 and text2 == text, "usmp %s -h is --help" % cmd)
        side["takes_arg"] = set()
        opts = help_options(block_after(text, "options:"), side["takes_arg"])
        side["options"][cmd] = opts
        check(opts and "-h" in opts, "usmp %s --help lists options, -h among them"
              % cmd, repr(opts))
        # The synopsis in `usmp --help` shows each option but -h once.
        want = set(opts) - {"-h"}
        got = synopsis_options(syn[cmd])
        check(got == want, "usmp --help's synopsis of %s shows the options "
              "`usmp %s --help` lists" % (cmd, cmd),
              "synopsis %s, help %s" % (sorted(got), sorted(want)))
        # Each option listed is accepted (no "unrecognized option") ...
        for primary, names in sorted(opts.items()):
            for name in sorted(names):
                args = [cmd, name] + (["1"] if primary in side["takes_arg"]
                                      else [])
                rc, out, err = run(usmp, *args)
                refused = re.search(r"unrecognized option|ambiguous|takes no "
                                    r"argument|needs an argument", out + err)
                check(not refused, "usmp %s accepts %s" % (" ".join(args), name),
                      (out + err)[:300])
        # ... and one it does not list is refused.
        rc, out, err = run(usmp, cmd, "--no-such-option")
        check(rc == 2 and "unrecognized option '--no-such-option'" in err,
              "usmp %s --no-such-option exits 2 naming it" % cmd, err)
    return side


# ---- what docs/cli.md says ---------------------------------------------------

def md_sections(text):
    """{heading: body} for ## and ### headings ("## Commands" / "### plan")."""
    out, name, body = {}, None, []
    for line in text.split("\n"):
        m = re.match(r"^(#{2,3}) (.*)$", line)
        if m:
            if name:
                out[name] = "\n".join(body)
            name, body = m.group(2).strip().strip("`"), []
        elif name:
            body.append(line)
    if name:
        out[name] = "\n".join(body)
    return out


def md_option_items(body):
    """{primary: spellings} of the "* `-a ALGO`, `--algorithm ALGO` — " items."""
    found = {}
    for m in re.finditer(r"^\* ((?:`[^`]+`(?:, )?)+) — ", body, re.M):
        names = [OPTION.match(s.split()[0]).group(1)
                 for s in re.findall(r"`([^`]+)`", m.group(1))
                 if OPTION.match(s.split()[0])]
        if names:
            found[names[0]] = set(names)
    return found


def md_side(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    lines = text.split("\n")
    code = []
    for line in lines[1:]:
        if line.startswith("    "):
            code.append(line[4:])
        elif code and line.strip():
            break
    sections = md_sections(text)
    body = text.split("\n## Commands\n", 1)[-1].split("\n## ", 1)[0]
    commands = re.findall(r"^### (\S+)$", body, re.M)
    return {
        "commands": synopses(code),
        "usage": [l.strip() for l in code if l.startswith("usmp --")],
        "top": md_option_items(sections.get("Options", "")),
        "options": {c: md_option_items(sections.get(c, "")) for c in commands},
        "exits": set(re.findall(r"^\| (\d+) \|", sections.get("Exit status", ""),
                                re.M)),
        "env": set(re.findall(r"^\* `(USMP_[A-Z_]+)`", sections.get("Environment", ""),
                              re.M)),
    }


# ---- what the manual page says ----------------------------------------------

def plain(troff):
    for a, b in (("\\-", "-"), ("\\&", ""), ("\\e", "\\"), ("\\(em", "--")):
        troff = troff.replace(a, b)
    return re.sub(r"\\f[BIRP]", "", troff)


def man_side(path):
    src = open(path, encoding="ascii").read().split("\n")
    sections, section, sub = {}, None, None
    tags = {}
    synopsis, in_nf = [], False
    for i, line in enumerate(src):
        if line.startswith(".SH"):
            section, sub = plain(line[4:]).strip('"'), None
        elif line.startswith(".SS"):
            sub = plain(line[4:]).strip('"')
        elif line == ".nf":
            in_nf = True
        elif line == ".fi":
            in_nf = False
        elif in_nf and section == "SYNOPSIS":
            synopsis.append(plain(line))
        elif line == ".TP" and i + 1 < len(src):
            tags.setdefault((section, sub), []).append(plain(src[i + 1]))
    def options(key):
        found = {}
        for tag in tags.get(key, []):
            names = OPTION.findall(tag)
            if names and tag.startswith("-"):
                found[names[0]] = set(names)
        return found
    commands = [sub for (sec, sub) in tags if sec == "COMMANDS" and sub]
    return {
        "commands": synopses(synopsis),
        "usage": [l.strip() for l in synopsis if l.startswith("usmp --")],
        "top": options(("OPTIONS", None)),
        "options": {c: options(("COMMANDS", c)) for c in commands},
        "exits": set(tags.get(("EXIT STATUS", None), [])),
        "env": set(tags.get(("ENVIRONMENT", None), [])),
    }


def man_structure(path):
    raw = open(path, "rb").read()
    check(all(b < 128 for b in raw), "usmp.1 is ASCII (troff escapes for the rest)")
    lines = raw.decode("ascii", "replace").split("\n")
    requests = [l for l in lines if l.startswith((".", "'")) and
                not l.startswith('.\\"')]
    check(requests and requests[0].startswith(".TH USMP 1 "),
          "usmp.1 starts with .TH USMP 1", requests[:1])
    unknown = sorted({r.split()[0][1:] for r in requests} - MAN_MACROS)
    check(not unknown, "usmp.1 uses only man(7) macros", unknown)
    heads = [plain(l[4:]).strip('"') for l in lines if l.startswith(".SH ")]
    check(heads[:3] == ["NAME", "SYNOPSIS", "DESCRIPTION"],
          "usmp.1 opens with NAME, SYNOPSIS, DESCRIPTION", heads)
    for need in ("OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT"):
        check(need in heads, "usmp.1 has a section %s" % need, heads)
    name = lines[lines.index(".SH NAME") + 1] if ".SH NAME" in lines else ""
    check(re.match(r"^usmp \\- \S", name), "usmp.1's NAME line is "
          "'usmp \\- summary' (whatis, apropos)", name)
    bad = [l for l in lines if "\\" in l and re.search(r"\\(?![-&efB(\[~\"])", l)]
    check(not bad, "usmp.1 has no stray backslash", bad[:3])
    groff = shutil.which("groff")
    if groff:
        p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", path],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and not p.stderr,
              "groff -man -ww formats usmp.1 without a warning", p.stderr)
        p = subprocess.run([groff, "-man", "-Tutf8", path], capture_output=True,
                           timeout=60)
        text = re.sub(r".\x08", "", p.stdout.decode("utf-8", "replace"))
        check("usmp plan PROBLEM" in text and "EXIT STATUS" in text,
              "the formatted page shows the synopsis and the exit statuses")
    else:
        results.append((True, "groff formats usmp.1 # SKIP groff not installed", ""))


def compare(name, a, b, what):
    check(a == b, "%s: %s" % (name, what), "\n".join(
        ["only in the first: %r" % sorted(set(a) - set(b)) if isinstance(a, (set, dict)) else repr(a),
         "only in the second: %r" % sorted(set(b) - set(a)) if isinstance(b, (set, dict)) else repr(b)]))


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__ + "\n")
        return 2
    usmp, md_path, man_path = argv[1:]
    cmd = command_side(usmp)
    sides = [("docs/cli.md", md_side(md_path)), ("usmp.1", man_side(man_path))]
    for name, doc in sides:
        compare(name, list(cmd["commands"]), list(doc["options"]),
                "a section per command of `usmp --help`, in its order")
        compare(name, list(cmd["commands"]), list(doc["commands"]),
                "a synopsis line per command of `usmp --help`, in its order")
        for c in cmd["commands"]:
            compare(name, cmd["commands"][c], doc["commands"].get(c),
                    "the synopsis of %s is `usmp --help`'s" % c)
            compare(name, cmd["options"][c], doc["options"].get(c, {}),
                    "the options of %s are those `usmp %s --help` lists, "
                    "with the same spellings" % (c, c))
        compare(name, cmd["usage"][1:], doc["usage"],
                "the synopsis line of the global options is `usmp --help`'s")
        compare(name, cmd["top"], doc["top"],
                "the global options are those `usmp --help` lists")
        compare(name, cmd["exits"], doc["exits"],
                "the exit statuses are those `usmp --help` lists")
        compare(name, cmd["env"], doc["env"],
                "the environment variables are those `usmp --help` names")
    check(cmd["exits"] == {"0", "1", "2", "3", "4", "5"},
          "usmp --help lists exit statuses 0 to 5", sorted(cmd["exits"]))
    man_structure(man_path)
    print("1..%d" % len(results))
    for n, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok and detail:
            for line in str(detail).split("\n"):
                print("# " + line)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
