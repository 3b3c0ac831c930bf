#!/usr/bin/env python3
# Owns the deadline matrix: does `usmp plan F --time-limit L` (auto) return
# within L + 10 % + 0.2 s, whole command, on every XLA trace and field shape?
"""Measure the whole `usmp plan` command against its time limit.

    python3 bench/run.py deadline [--build DIR] [--limits 1,2,3,5,default]
                                  [--formats json,csv] [--only A,xla_1m_10k]
                                  [--repeat N] [--out FILE] [--raw FILE]
    python3 bench/run.py deadline --report-only RAW.json [--out FILE]

(`python3 bench/deadline/run.py ...` is the same.)  The matrix: every trace
of bench/data/xla (gunzipped into a temporary directory) and field.py's
alive_100k, xla_50k_10k, xla_500k_10k and xla_1m_10k (generated there, or
read from --field DIR when it holds them), times each limit L (`default`:
no --time-limit, auto's default budget of 1 s), times `-o plan.json` and
`-o plan.csv`.  Each cell is one `usmp plan F [--time-limit L] -o PLAN`
process (auto, default isolation) under /usr/bin/time with USMP_LOG=debug:
wall, CPU (user + system), peak RSS, exit status; every stderr line is
timestamped as it arrives, so the time auto's first plan came in is known
from the outside; the command's own timing line (read / planned / written,
since the process started) is kept.  The plan is then checked with
`usmp verify F PLAN` (not timed).

The rule (issue 14): wall <= 1.1 L + 0.2 s (`default`: plus the reading
time, since the library's default budget counts from the planning call).  The only allowed overrun is
auto's first plan: it always finishes, and auto logs how late it came in
("first plan ... past its deadline by X ms"); a cell over the limit is
"allowed" when wall <= 1.1 L + 0.2 + that lateness.  Over even that, it is
"load" when the rest (wall less the lateness) fits the limit at the speed
the process got the CPU (divided by wall / CPU seconds: the machine is
shared), else an overrun.
A cell over the limit or within 5 % of it is run again (--repeat, default
2 more times) to tell a loaded machine from a real overrun; every run is in
the raw file, the report gives the worst and the count over.  Results go to
--out (default bench/deadline/RESULTS.md) and --raw (default
bench/deadline/results.json).  Stdlib only.
"""

import argparse
import datetime
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "workloads"))

SHAPES = ("alive_100k", "xla_50k_10k", "xla_500k_10k", "xla_1m_10k")
LIMITS = ("1", "2", "3", "5", "default")
FORMATS = ("json", "csv")
DEFAULT_LIMIT = 1.0  # auto's default budget (USMP_DEFAULT_TIME_LIMIT_AUTO)
MARGINAL = 0.95      # a wall above this share of the allowed time is rerun


def allowed(L):
    return 1.1 * L + 0.2


def limit_seconds(Ls):
    return DEFAULT_LIMIT if Ls == "default" else float(Ls)


TIMING_RE = re.compile(r"timing: read ([0-9.]+) s, planned ([0-9.]+) s, written "
                       r"([0-9.]+) s, done ([0-9.]+) s .*CPU ([0-9.]+) s"
                       r"(?: \(read ([0-9.]+), planned ([0-9.]+), written ([0-9.]+)\))?")
FIRST_RE = re.compile(r"auto: first plan by (\S+) after ([0-9.]+) ms, "
                      r"(?:([0-9.]+) ms past its deadline|within its deadline)")
RETURNED_RE = re.compile(r"auto: (\S+) returned (\S+) after ([0-9.]+) ms")
SUMMARY_RE = re.compile(r"total (\d+) bytes, lower bound (\d+)")
# The summary's line for a part over its limit: its first plan, or a
# volunteer of auto that had to be stopped.
OVER_RE = re.compile(r"over the time limit of ([0-9.e+-]+) s: (?:volunteer (\S+) "
                     r"did not return by then and was stopped|(a first plan) is "
                     r"always finished)")


def run_cell(usmp, problem, Ls, fmt, tmp, timeout, isolate=False):
    """One `usmp plan` process, its stderr lines timestamped as they come."""
    plan = os.path.join(tmp, "plan." + fmt)
    if os.path.exists(plan):
        os.unlink(plan)
    tfile = os.path.join(tmp, "time.txt")
    if os.path.exists(tfile):
        os.unlink(tfile)
    args = ["plan", problem, "-o", plan] + (["--isolate"] if isolate else [])
    if Ls != "default":
        args += ["--time-limit", Ls]
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tfile, usmp] + args
    env = dict(os.environ, USMP_LOG="debug")
    lines = []
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)

    def reader():
        for raw in iter(p.stderr.readline, b""):
            lines.append((time.monotonic() - t0, raw.decode("utf-8", "replace").rstrip("\n")))
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        rc = "timeout"
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    th.join()
    outer = time.monotonic() - t0
    r = {"exit": rc, "outer_wall": outer}
    try:
        with open(tfile) as f:
            wall, u, s, rss = f.read().split()[-4:]
        r.update(wall=float(wall), cpu=float(u) + float(s), rss_mib=int(rss) / 1024.0)
    except (OSError, ValueError):
        r.update(wall=outer, cpu=None, rss_mib=None)
    # /usr/bin/time's %e has 10 ms steps; the outer clock includes its fork
    r["wall"] = max(r["wall"], 0.0)
    total = bound = 0
    for t, line in lines:
        m = TIMING_RE.search(line)
        if m:
            r["timing"] = {"read": float(m.group(1)), "planned": float(m.group(2)),
                           "written": float(m.group(3)), "done": float(m.group(4)),
                           "cpu": float(m.group(5))}
            if m.group(6):
                r["timing"]["cpu_at"] = {"read": float(m.group(6)),
                                         "planned": float(m.group(7)),
                                         "written": float(m.group(8))}
        m = FIRST_RE.search(line)
        if m and "first" not in r:
            r["first"] = {"member": m.group(1), "ms": float(m.group(2)),
                          "late_ms": float(m.group(3)) if m.group(3) else 0.0,
                          "at": t}
        m = RETURNED_RE.search(line)
        if m:
            r.setdefault("members", []).append(
                {"member": m.group(1), "status": m.group(2), "ms": float(m.group(3)),
                 "at": t})
        m = SUMMARY_RE.search(line)
        if m:
            total += int(m.group(1))
            bound += int(m.group(2))
        m = OVER_RE.search(line)
        if m:
            r.setdefault("summary_over", []).append(
                {"limit": float(m.group(1)),
                 "by": "volunteer " + m.group(2) if m.group(2) else "first plan"})
    if bound:
        r["ratio"] = total / bound
    r["stderr_tail"] = [l for _, l in lines if not l.startswith("    ")][-6:]
    if rc == 0:
        v = subprocess.run([usmp, "verify", problem, plan], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        r["verified"] = v.returncode == 0
        if v.returncode:
            r["verify_error"] = v.stderr.strip()[-300:]
    else:
        r["verified"] = False
    return r


def judge(r, Ls):
    """'met'; 'first plan' (over, but within the first plan's lateness);
    'load' (over, but what is left after the first plan's lateness fits
    the limit at the speed the process got CPU time: wall / CPU seconds);
    'OVER'; 'FAILED' (no plan, or one usmp verify refuses)."""
    L = limit_seconds(Ls)
    if r["exit"] != 0 or not r.get("verified"):
        return "FAILED"
    limit = allowed(L) + start_of_default(r, Ls)
    if r["wall"] <= limit:
        return "met"
    late = (r.get("first") or {}).get("late_ms", 0.0) / 1e3
    if late > 0 and r["wall"] <= limit + late:
        return "first plan"
    if r.get("cpu") and r["cpu"] > 0 and r["wall"] > r["cpu"]:
        slow = r["wall"] / r["cpu"]
        if (r["wall"] - late) / slow <= limit:
            return "load"
    return "OVER"


def write_phase(r):
    """Wall and CPU seconds of writing the plan (the command's timing
    line): a wall far above the CPU is waiting for the disk (fsync)."""
    t = r.get("timing") or {}
    c = t.get("cpu_at") or {}
    if "written" not in t or "planned" not in t:
        return None, None
    cpu = c["written"] - c["planned"] if "written" in c and "planned" in c else None
    return t["written"] - t["planned"], cpu


def start_of_default(r, Ls):
    """The default budget (no --time-limit) is the library's, counted from
    the planning call: reading the problem comes before it."""
    if Ls != "default":
        return 0.0
    return (r.get("timing") or {}).get("read", 0.0)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def problems(tmp, field_dir, only):
    out = []
    xla = os.path.join(ROOT, "bench", "data", "xla")
    for name in sorted(f.split(".")[0] for f in os.listdir(xla) if f.endswith(".csv.gz")):
        if only and name not in only:
            continue
        path = os.path.join(tmp, name + ".csv")
        with gzip.open(os.path.join(xla, name + ".csv.gz"), "rb") as src, \
                open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out.append((name, path))
    for shape in SHAPES:
        if only and shape not in only:
            continue
        path = os.path.join(field_dir, shape + ".csv") if field_dir else None
        if not path or not os.path.exists(path):
            import field  # bench/workloads/field.py
            path = os.path.join(tmp, shape + ".csv")
            field.write_csv(path, field.build(shape, 1))
        out.append((shape, path))
    return out


def measure(usmp, probs, limits, formats, tmp, timeout, repeat, progress=None,
            isolate=False):
    raw = {}
    for name, path in probs:
        for Ls in limits:
            for fmt in formats:
                runs = [run_cell(usmp, path, Ls, fmt, tmp, timeout, isolate)]
                L = limit_seconds(Ls)
                while (len(runs) <= repeat and runs[0]["exit"] == 0 and
                       any(x["wall"] > MARGINAL * allowed(L) for x in runs)):
                    runs.append(run_cell(usmp, path, Ls, fmt, tmp, timeout, isolate))
                for x in runs:
                    x["verdict"] = judge(x, Ls)
                key = "%s|%s|%s" % (name, Ls, fmt)
                raw[key] = runs
                log(key, [(x["verdict"], x["wall"], x["cpu"]) for x in runs])
                if progress:
                    with open(progress, "w") as f:
                        json.dump(raw, f, indent=1, sort_keys=True)
    return raw


# ---------------------------------------------------------------- report

def fs(x):
    return "—" if x is None else "%.2f" % x


def cell_verdict(runs):
    """The cell's verdict over its runs: a real overrun only when every run
    overran (a run within it shows the machine's load made the others)."""
    vs = [r["verdict"] for r in runs]
    if "FAILED" in vs:
        return "**FAILED**"
    if all(v == "OVER" for v in vs):
        return "**OVER**"
    if "OVER" in vs:
        return "noise (%d of %d runs over)" % (vs.count("OVER"), len(vs))
    if "load" in vs:
        return "load (%d of %d runs)" % (vs.count("load"), len(vs))
    if "first plan" in vs:
        return "first plan (allowed)"
    return "met"


def over_by(r):
    """What the summary blamed for a part over its limit ("; over: first
    plan", "; over: volunteer NAME"), or "" (also for raw files of an
    older run.py, which kept only True)."""
    ov = r.get("summary_over")
    if not isinstance(ov, list) or not ov:
        return ""
    return "; over: " + ", ".join(sorted(set(o["by"] for o in ov)))


def report(raw, ctx):
    L = ["# The whole `usmp plan` command against its time limit", "",
         "Written by `%s` (bench/deadline/run.py; do not edit by hand, rerun it). "
         "Started %s, machine: %s; load average %s at the start, %s at the end. "
         "Build: %s." % (ctx["command"], ctx["start"], ctx["machine"], ctx["load_start"],
                         ctx["load_end"], ctx["build"]), "",
         "Each cell: `usmp plan F [--time-limit L] -o plan.{json,csv}` (auto, %s, "
         "`USMP_LOG=debug`), one whole process under `/usr/bin/time`; the plan "
         "is checked afterwards by `usmp verify` (not timed). Rule: wall ≤ 1.1 L + 0.2 s "
         "(`default`: no `--time-limit`, auto's default 1 s, which the library counts from "
         "its planning call, so the reading time is added). The only allowed overrun is "
         "auto's first plan, which always finishes: a cell over the limit is *first plan "
         "(allowed)* when its wall is within the limit plus how late the first plan came "
         "in (auto's log: \"first plan by M after X ms, Y ms past its deadline\"). A cell "
         "over, or within 5 %% of, its limit is run again (up to %d runs). A run over even "
         "that is *load* when what is left after the first plan's lateness fits the limit at "
         "the speed the process got the CPU (scaled by CPU / wall seconds); *noise* = some "
         "runs over and some within, **OVER** = every run over. *write wall / CPU*: writing "
         "the plan, whose wall far above its CPU is the wait for the disk (the plan is "
         "fsync'ed before it replaces the file). The machine is shared "
         "(2 cores, several other jobs), so CPU time (user + system) is given beside wall "
         "time; *read*, *planned*, *written* are the command's own clock "
         "(`usmp: timing:` under `USMP_LOG=debug`, seconds since the process started) of "
         "the worst run; *over:* what the summary said a part ran over its limit for (the "
         "first plan, or a volunteer of auto that was stopped)." % ("`--isolate` (auto in a child process)" if ctx.get("isolate")
                             else "default isolation", ctx["repeat"] + 1), "",
         "| problem | L | out | allowed | wall (runs) | CPU | read / planned / written "
         "| write wall / CPU | first plan: member, ms, late ms | ratio | verified | verdict |",
         "|---|---:|---|---:|---|---:|---|---|---|---:|---|---|"]
    counts = {}
    for key, runs in raw.items():
        name, Ls, fmt = key.split("|")
        worst = max(runs, key=lambda x: x["wall"] or 0)
        t = worst.get("timing") or {}
        fp = worst.get("first") or {}
        v = cell_verdict(runs)
        k = v.split(" (")[0].strip("*")
        counts[k] = counts.get(k, 0) + 1
        ww, wc = write_phase(worst)
        L.append("| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, Ls, fmt, allowed(limit_seconds(Ls)) + start_of_default(worst, Ls),
            " / ".join(fs(x["wall"]) for x in runs),
            " / ".join(fs(x["cpu"]) for x in runs),
            "%s / %s / %s" % (fs(t.get("read")), fs(t.get("planned")), fs(t.get("written")))
            if t else "—",
            "%s / %s" % (fs(ww), fs(wc)),
            ("%s, %.0f, %.0f" % (fp["member"], fp["ms"], fp["late_ms"]) if fp else "—")
            + over_by(worst),
            "%.4f" % worst["ratio"] if worst.get("ratio") else "—",
            "yes" if all(x.get("verified") for x in runs) else "**no**", v))
    L += ["", "Cells: " + ", ".join("%s %d" % (k, n) for k, n in sorted(counts.items())) +
          " (of %d)." % len(raw), ""]
    return "\n".join(L)


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f
                          if l.startswith("model name")), "?")
    except OSError:
        model = "?"
    return "%d × %s" % (os.cpu_count() or 0, model)


def main(argv=None, prog="bench/deadline/run.py"):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="meson build dir (default: build-bench, else build)")
    ap.add_argument("--limits", default=",".join(LIMITS))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--only", help="problems to run, e.g. A,xla_1m_10k (default: all)")
    ap.add_argument("--field", help="a directory holding field.py's shapes already "
                                    "(else they are generated)")
    ap.add_argument("--repeat", type=int, default=2,
                    help="runs more for a cell over or near its limit (default 2)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--raw", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--isolate", action="store_true",
                    help="run every cell with --isolate (auto in a child process)")
    ap.add_argument("--report-only", metavar="RAW")
    a = ap.parse_args(argv)
    if a.report_only:
        with open(a.report_only) as f:
            data = json.load(f)
        for key, runs in data["cells"].items():  # judged again, by this rule
            for x in runs:
                x["verdict"] = judge(x, key.split("|")[1])
        with open(a.out, "w") as f:
            f.write(report(data["cells"], data["context"]))
        return 0
    build = a.build or next((b for b in ("build-bench", "build")
                             if os.path.exists(os.path.join(ROOT, b, "src", "cli", "usmp"))), None)
    if not build:
        sys.exit("no build found: meson setup build-bench -Dbuildtype=release && ninja -C build-bench")
    bdir = build if os.path.isabs(build) else os.path.join(ROOT, build)
    usmp = os.path.join(bdir, "src", "cli", "usmp")
    try:
        with open(os.path.join(bdir, "meson-info", "intro-buildoptions.json")) as f:
            bt = next(o["value"] for o in json.load(f) if o["name"] == "buildtype")
        build = "%s (%s)" % (build, bt)
    except (OSError, ValueError, StopIteration, KeyError):
        pass
    ctx = {"command": " ".join(["python3", "bench/run.py", "deadline"] +
                               list(argv if argv is not None else sys.argv[1:])),
           "start": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": machine(), "build": build, "repeat": a.repeat,
           "isolate": a.isolate,
           "load_start": " / ".join("%.1f" % x for x in os.getloadavg())}
    only = set(a.only.split(",")) if a.only else None
    tmp = tempfile.mkdtemp(prefix="usmp-deadline-")
    try:
        probs = problems(tmp, a.field, only)
        cells = measure(usmp, probs, [x for x in a.limits.split(",") if x],
                        [x for x in a.formats.split(",") if x], tmp, a.timeout, a.repeat,
                        progress=a.raw + ".part" if a.raw else None, isolate=a.isolate)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ctx["load_end"] = " / ".join("%.1f" % x for x in os.getloadavg())
    if a.raw:
        with open(a.raw, "w") as f:
            json.dump({"context": ctx, "cells": cells}, f, indent=1, sort_keys=True)
        if os.path.exists(a.raw + ".part"):
            os.unlink(a.raw + ".part")
    with open(a.out, "w") as f:
        f.write(report(cells, ctx))
    log("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
