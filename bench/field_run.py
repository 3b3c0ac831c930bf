#!/usr/bin/env python3
# Owns the field measurement: the speed targets on XLA-shaped problems, the
# time limit on the whole command, and every heuristic and auto on real traces.
"""Measure usmp in the field: speed targets, time limits, real traces.

    python3 bench/run.py field [--build DIR] [--out FILE] [--raw RAW.json]
                               [--skip-targets] [--skip-traces] [--timeout S]
    python3 bench/run.py field --report-only RAW.json [--out FILE]

(`python3 bench/field_run.py ...` is the same.)  Three parts, all whole
`usmp` processes under /usr/bin/time (wall, CPU = user + system, peak RSS):

targets   bench/workloads/field.py's xla_50k_10k, xla_500k_10k, xla_1m_10k
          (log-uniform sizes over eight decades, ~10,000 alive) and
          alive_100k (every buffer alive at once), generated into a
          temporary directory.  Each of first_fit, best_fit, first_fit_sweep,
          greedy_by_size and greedy_by_conflicts runs `usmp plan F -a ALGO --no-isolate
          --no-time-limit -q -o plan.json`, median of 3 (1 run when the
          first takes over 30 s; killed after --timeout, default 600 s);
          `usmp verify F plan.json` and `usmp bound F` are timed the same
          way.  Targets (issue "auto in the field"): first_fit and best_fit
          on 50k/10k <= 0.5 s, 500k/10k <= 5 s, 1M/10k <= 10 s and <= 1 GiB;
          every heuristic <= 20 x `usmp verify` of its plan, wall time.
limits    `usmp plan F --time-limit L` (auto, as the default runs it) for
          L = 1 and 3 on every XLA trace, alive_100k and xla_1m_10k: the whole
          command must end within 1.1 L + 0.2 s, unless auto's first plan
          ended past L, counted from the process start with the reading
          (always allowed to finish; both read from USMP_LOG=debug).
traces    every XLA trace in bench/data/xla (gunzipped to the temporary
          directory): first_fit and best_fit with each order and order=all,
          first_fit_sweep, greedy_by_size, greedy_by_conflicts, hill_climb (traces up to
          2,000 buffers), auto with its default budget (median of 3), and
          `usmp bound`: ratio to the lower bound, wall, CPU, peak memory.

The tables go into --out (default docs/performance.md) between the lines
`<!-- bench:field:begin -->` and `<!-- bench:field:end -->` (replaced on a
rerun; `bench/run.py` keeps them when it rewrites the rest), the raw numbers
to --raw (default bench/results/field.json).  Stdlib only.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "workloads"))

import field  # noqa: E402  (bench/workloads/field.py)

BEGIN = "<!-- bench:field:begin -->"
END = "<!-- bench:field:end -->"
ORDERS = ("size", "lifetime", "area", "conflicts", "all")
TARGET_SHAPES = ("xla_50k_10k", "xla_500k_10k", "xla_1m_10k", "alive_100k")
TARGET_ALGOS = ("first_fit", "best_fit", "first_fit_sweep", "greedy_by_size",
                "greedy_by_conflicts")
# wall-time targets of first_fit and best_fit (seconds), peak memory (MiB)
SPEED_TARGET = {"xla_50k_10k": 0.5, "xla_500k_10k": 5.0, "xla_1m_10k": 10.0}
RSS_TARGET_MIB = {"xla_1m_10k": 1024.0}
VERIFY_FACTOR = 20.0
LIMITS = (1, 3)
LIMIT_SHAPES = ("alive_100k", "xla_1m_10k")
REPEAT_BELOW_S = 30.0
HILL_CLIMB_MAX = 2000


def run(usmp, args, tmp, timeout, env=None):
    """One usmp process: exit, wall, CPU, peak MiB, stderr."""
    tfile = os.path.join(tmp, "time.txt")
    if os.path.exists(tfile):
        os.unlink(tfile)
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tfile, usmp] + args
    e = dict(os.environ, **(env or {}))
    # a session of its own: a timeout kills usmp too, not only /usr/bin/time
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, env=e, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        return {"exit": "timeout", "wall": float(timeout), "cpu": None,
                "rss_mib": None, "stderr": err or ""}
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    try:
        with open(tfile) as f:
            wall, u, s, rss = f.read().split()[-4:]
        out = {"wall": float(wall), "cpu": float(u) + float(s),
               "rss_mib": int(rss) / 1024.0}
    except (OSError, ValueError):
        out = {"wall": None, "cpu": None, "rss_mib": None}
    out.update(exit=rc, stderr=err)
    return out


def median_of(runs):
    out = dict(runs[0])
    for k in ("wall", "cpu", "rss_mib"):
        xs = sorted(r[k] for r in runs if r.get(k) is not None)
        out[k] = xs[len(xs) // 2] if xs else None
    out["walls"] = [r.get("wall") for r in runs]
    out["runs"] = len(runs)
    out.pop("stderr", None)
    return out


def repeated(usmp, args, tmp, timeout, repeat=3, env=None, keep_err=False):
    runs = [run(usmp, args, tmp, timeout, env)]
    err = runs[0]["stderr"]
    while (len(runs) < repeat and runs[0]["exit"] == 0 and
           runs[0]["wall"] is not None and runs[0]["wall"] < REPEAT_BELOW_S):
        runs.append(run(usmp, args, tmp, timeout, env))
    out = median_of(runs)
    if keep_err:
        out["stderr"] = err
    return out


def summary_size(err):
    total = bound = 0
    for m in re.finditer(r"total (\d+) bytes, lower bound (\d+)", err):
        total += int(m.group(1))
        bound += int(m.group(2))
    return total, bound


def shape_of(path):
    """Buffers and most alive at one time."""
    ev, n = [], 0
    with open(path) as fh:
        next(fh)
        for line in fh:
            _, b, e, _ = line.strip().split(",")
            ev.append((int(b), 1))
            ev.append((int(e), -1))
            n += 1
    ev.sort()
    cur = top = 0
    for _, d in ev:
        cur += d
        top = max(top, cur)
    return n, top


def first_plan_seconds(err):
    """auto's first plan, from its debug log: the first member that
    returned OK, in seconds (None when not logged)."""
    m = re.search(r"auto: (\S+) returned ok after ([0-9.]+) ms", err, re.I)
    return float(m.group(2)) / 1e3 if m else None


def read_seconds(err):
    """Seconds from the process start to the problem read, from the CLI's
    debug timing line (None when not logged)."""
    m = re.search(r"timing: read ([0-9.]+) s", err)
    return float(m.group(1)) if m else None


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def measure_targets(usmp, tmp, timeout, problems):
    out = {}
    for shape in TARGET_SHAPES:
        path = problems[shape]
        n, alive = shape_of(path)
        res = {"buffers": n, "alive": alive, "algos": {}}
        res["bound"] = repeated(usmp, ["bound", path], tmp, timeout)
        log(shape, "bound", res["bound"])
        for algo in TARGET_ALGOS:
            plan = os.path.join(tmp, "plan.json")
            if os.path.exists(plan):
                os.unlink(plan)
            r = repeated(usmp, ["plan", path, "-a", algo, "--no-isolate",
                                "--no-time-limit", "-q", "-o", plan], tmp, timeout)
            if r["exit"] == 0:
                r["verify"] = repeated(usmp, ["verify", path, plan], tmp, timeout)
            log(shape, algo, r)
            res["algos"][algo] = r
        out[shape] = res
    return out


def measure_limits(usmp, tmp, timeout, files):
    out = {}
    for name, path in files:
        rows = {}
        for L in LIMITS:
            r = run(usmp, ["plan", path, "--time-limit", str(L), "-o",
                           os.path.join(tmp, "plan.json")], tmp, timeout,
                    env={"USMP_LOG": "debug"})
            r["first_plan"] = first_plan_seconds(r["stderr"])
            r["read"] = read_seconds(r["stderr"])
            r["total"], r["bound"] = summary_size(r["stderr"])
            r.pop("stderr")
            rows[str(L)] = r
            log(name, "L=%d" % L, r)
        out[name] = rows
    return out


def measure_traces(usmp, tmp, timeout, traces):
    out = {}
    for name, path in traces:
        n, alive = shape_of(path)
        rows = {}
        cells = [("%s:%s" % (a, o), ["-a", a, "-p", "order=" + o])
                 for a in ("first_fit", "best_fit") for o in ORDERS]
        cells += [(a, ["-a", a]) for a in ("first_fit_sweep", "greedy_by_size",
                                           "greedy_by_conflicts")]
        if n <= HILL_CLIMB_MAX:
            cells.append(("hill_climb", ["-a", "hill_climb"]))
        for key, args in cells:
            r = run(usmp, ["plan", path] + args + ["--no-isolate", "--no-time-limit",
                                                    "-o", os.path.join(tmp, "plan.json")],
                    tmp, timeout)
            r["total"], r["bound"] = summary_size(r["stderr"])
            r.pop("stderr")
            rows[key] = r
            log(name, key, r)
        r = repeated(usmp, ["plan", path, "-o", os.path.join(tmp, "plan.json")],
                     tmp, timeout, keep_err=True)
        r["total"], r["bound"] = summary_size(r.pop("stderr"))
        rows["auto"] = r
        log(name, "auto", r)
        rows["bound"] = repeated(usmp, ["bound", path], tmp, timeout)
        out[name] = {"buffers": n, "alive": alive, "runs": rows}
    return out


# ---------------------------------------------------------------- report

def fsec(x):
    if x is None:
        return "—"
    return "%.2f s" % x if x >= 0.995 else "%.0f ms" % (x * 1e3)


def fmib(x):
    return "—" if x is None else "%.0f" % x


def ratio(r):
    if r.get("exit") == 0 and r.get("bound"):
        return r["total"] / r["bound"]
    return None


def fratio(r):
    q = ratio(r)
    if q is not None:
        return "%.4f" % q
    return "timeout" if r.get("exit") == "timeout" else "exit %s" % r.get("exit")


def met(ok):
    return "met" if ok else "**not met**"


def report_targets(t):
    L = ["Speed targets, whole `usmp plan -a ALGO --no-isolate --no-time-limit` process "
         "(median of 3 runs; 1 run past 30 s): wall and CPU seconds, peak memory, the same "
         "plan's `usmp verify` (wall and CPU; the targets' factor is on wall time), and "
         "`usmp bound` (reading and bounding alone).", "",
         "| problem | buffers | alive at once | heuristic | wall | CPU | peak MiB | bytes / buffer "
         "| verify wall / CPU | × verify: wall / CPU | targets |",
         "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    verdicts = []
    for shape in TARGET_SHAPES:
        if shape not in t:
            continue
        res = t[shape]
        n = res["buffers"]
        b = res["bound"]
        L.append("| %s | %d | %d | `usmp bound` | %s | %s | %s | %s | | | |" % (
            shape, n, res["alive"], fsec(b["wall"]), fsec(b["cpu"]), fmib(b["rss_mib"]),
            "%.0f" % (b["rss_mib"] * 1048576 / n) if b["rss_mib"] else "—"))
        for algo in TARGET_ALGOS:
            r = res["algos"][algo]
            v = r.get("verify") or {}
            notes = []
            ok = r["exit"] == 0
            if not ok:
                notes.append("no plan (%s): **not met**" % r["exit"])
                verdicts.append(("%s %s: a plan (%s)" % (algo, shape, r["exit"]), False))
            wall = r["wall"]
            x = wall / v["wall"] if ok and v.get("wall") else None
            xc = r["cpu"] / v["cpu"] if ok and v.get("cpu") else None
            if x is not None:
                good = x <= VERIFY_FACTOR
                notes.append("≤ %g × verify: %s" % (VERIFY_FACTOR, met(good)))
                verdicts.append(("%s %s ≤ %g × verify" % (algo, shape, VERIFY_FACTOR), good))
            if algo in ("first_fit", "best_fit") and shape in SPEED_TARGET:
                lim = SPEED_TARGET[shape]
                good = ok and wall is not None and wall <= lim
                cpu_ok = ok and r["cpu"] is not None and r["cpu"] <= lim
                notes.append("≤ %g s: %s%s" % (lim, met(good),
                                               " (CPU time within it)" if cpu_ok and not good else ""))
                verdicts.append(("%s %s ≤ %g s" % (algo, shape, lim), good))
                if shape in RSS_TARGET_MIB:
                    good = ok and r["rss_mib"] is not None and r["rss_mib"] <= RSS_TARGET_MIB[shape]
                    notes.append("≤ 1 GiB: %s" % met(good))
                    verdicts.append(("%s %s ≤ 1 GiB" % (algo, shape), good))
            L.append("| %s | | | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                shape, algo, fsec(wall) if r["exit"] != "timeout" else "> %s" % fsec(wall),
                fsec(r["cpu"]), fmib(r["rss_mib"]),
                "%.0f" % (r["rss_mib"] * 1048576 / n) if r["rss_mib"] else "—",
                "%s / %s" % (fsec(v.get("wall")), fsec(v.get("cpu"))) if v else "—",
                "%s / %s" % ("%.1f" % x if x is not None else "—",
                             "%.1f" % xc if xc is not None else "—"),
                "; ".join(notes)))
    return L, verdicts


def report_limits(lim):
    L = ["`--time-limit L`: the whole `usmp plan F --time-limit L` command (auto, default "
         "isolation), one run each. It must end within 1.1 L + 0.2 s, unless auto's first plan "
         "ended past L (counted from the process start, reading the problem included): that plan "
         "is always allowed to finish.", "",
         "| problem | L | wall | CPU | exit | auto's first plan | ratio | verdict |",
         "|---|---:|---:|---:|---|---:|---:|---|"]
    verdicts = []
    for name in sorted(lim):
        for Ls, r in sorted(lim[name].items(), key=lambda kv: float(kv[0])):
            Lf = float(Ls)
            fp = r.get("first_plan")
            if r["exit"] != 0:
                v, good = "**not met** (exit %s)" % r["exit"], False
            elif r["wall"] is not None and r["wall"] <= 1.1 * Lf + 0.2:
                v, good = "met", True
            elif fp is not None and fp + (r.get("read") or 0) > Lf:
                v, good = ("first plan alone over L (allowed)" if fp > Lf else
                           "first plan ended past L, reading included (allowed)"), True
            else:
                cpu = r.get("cpu")
                v, good = "**not met**%s" % (
                    " (CPU %.2f s: the machine's load)" % cpu
                    if cpu is not None and cpu <= 1.1 * Lf + 0.2 else ""), False
            verdicts.append(("%s --time-limit %s" % (name, Ls), good))
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, Ls, fsec(r["wall"]), fsec(r["cpu"]), r["exit"], fsec(fp),
                fratio(r), v))
    return L, verdicts


def report_traces(tr):
    hn = ["first_fit:" + o for o in ORDERS] + ["best_fit:" + o for o in ORDERS] + \
         ["first_fit_sweep", "greedy_by_size", "greedy_by_conflicts", "hill_climb"]
    L = ["Ratio to the lower bound (`usmp bound`), side by side: each heuristic with each order "
         "(`all`: the four orders one after another, the smallest plan kept), TVM's greedies, "
         "hill_climb (traces up to 2,000 buffers), and auto with its default budget; **bold**: "
         "auto. The last column is auto against the best of the heuristics.", "",
         "| trace | buffers | alive at once | first_fit size / lifetime / area / conflicts / all "
         "| best_fit size / lifetime / area / conflicts / all | first_fit_sweep | "
         "greedy_by_size | greedy_by_conflicts | hill_climb | auto | auto vs best heuristic |",
         "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|"]
    verdicts = []
    for name in sorted(tr):
        res = tr[name]
        rows = res["runs"]

        def f(k):
            return fratio(rows[k]) if k in rows else "—"
        qs = [ratio(rows[k]) for k in hn if k in rows and ratio(rows[k])]
        qa = ratio(rows["auto"])
        if qa is None or not qs:
            cmp_, good = "**no plan**" if qa is None else "—", qa is not None
        elif qa <= min(qs) * (1 + 1e-12):
            cmp_, good = "≤ best (%.4f)" % min(qs), True
        else:
            cmp_, good = "**behind** (best %.4f)" % min(qs), False
        verdicts.append(("auto ≤ every heuristic on %s" % name, good))
        L.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s | **%s** | %s |" % (
            name, res["buffers"], res["alive"],
            " / ".join(f("first_fit:" + o) for o in ORDERS),
            " / ".join(f("best_fit:" + o) for o in ORDERS),
            f("first_fit_sweep"), f("greedy_by_size"), f("greedy_by_conflicts"),
            f("hill_climb"), fratio(rows["auto"]), cmp_))
    L += ["", "Times and memory of the same runs: wall / CPU seconds of each whole process "
          "(heuristics once, auto the median of 3; `usmp bound` = reading and bounding alone), "
          "peak memory of first_fit and auto.", "",
          "| trace | `usmp bound` | first_fit size / all | best_fit size / all | first_fit_sweep "
          "| greedy_by_size | greedy_by_conflicts | auto (default) "
          "| peak MiB first_fit / best_fit / auto |",
          "|---|---|---|---|---|---|---|---|---|"]
    for name in sorted(tr):
        rows = tr[name]["runs"]

        def t(k):
            r = rows.get(k)
            if not r:
                return "—"
            return "%s / %s" % (fsec(r["wall"]), fsec(r["cpu"]))
        L.append("| %s | %s | %s; %s | %s; %s | %s | %s | %s | %s | %s / %s / %s |" % (
            name, t("bound"), t("first_fit:size"), t("first_fit:all"), t("best_fit:size"),
            t("best_fit:all"), t("first_fit_sweep"), t("greedy_by_size"), t("greedy_by_conflicts"), t("auto"),
            fmib(rows["first_fit:size"]["rss_mib"]), fmib(rows["best_fit:size"]["rss_mib"]),
            fmib(rows["auto"]["rss_mib"])))
    return L, verdicts


def report(raw):
    ctx = raw["context"]
    L = [BEGIN, "## The field: speed targets, time limits and real XLA traces", "",
         "Written by `%s` (do not edit by hand; rerun it): whole `usmp` processes under "
         "`/usr/bin/time` (wall, CPU = user + system, peak RSS). Machine: %s; load average "
         "%s at the start, %s at the end. The machine is shared (2 cores, several other jobs): "
         "wall times can be several times the CPU time, so **CPU time is the steadier figure**; "
         "the verdicts below are on wall time as the targets are stated. Build: %s. "
         "What runs and why: [bench/README.md](../bench/README.md); earlier measurements: "
         "[bench/results/RESULTS.md](../bench/results/RESULTS.md)."
         % (ctx["command"], ctx["machine"], ctx["load_start"], ctx["load_end"], ctx["build"]), ""]
    verdicts = []
    for key, heading, section in (
            ("targets", "Speed targets", report_targets),
            ("limits", "The time limit, whole command", report_limits),
            ("traces", "Real XLA traces: every heuristic and auto", report_traces)):
        if raw.get(key):
            x, v = section(raw[key])
            L += ["### " + heading, ""] + x + [""]
            verdicts += v
    bad = [k for k, ok in verdicts if not ok]
    L.append("### Verdict")
    L.append("")
    L.append("%d of %d checks met.%s" % (
        len(verdicts) - len(bad), len(verdicts),
        " Not met: " + "; ".join(bad) + "." if bad else ""))
    L += ["", END]
    return "\n".join(L) + "\n"


def write_section(path, text):
    """Replace the marked section of path (or the old hand-written
    '## Real XLA traces' section, or nothing: append)."""
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    i, j = old.find(BEGIN), old.find(END)
    if i >= 0 and j > i:
        new = old[:i] + text + old[j + len(END):].lstrip("\n")
    else:
        k = old.find("\n## Real XLA traces")
        base = old[:k + 1] if k >= 0 else old
        new = base.rstrip("\n") + "\n\n" + text
    with open(path, "w") as f:
        f.write(new)


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    except OSError:
        model = "?"
    return "%d × %s" % (os.cpu_count() or 0, model)


def main(argv=None, prog="bench/field_run.py"):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="meson build dir (default: build-bench, else build)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--raw", default=os.path.join(ROOT, "bench", "results", "field.json"))
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds before a run is killed (default 600)")
    ap.add_argument("--skip-targets", action="store_true")
    ap.add_argument("--skip-traces", action="store_true")
    ap.add_argument("--skip-limits", action="store_true")
    ap.add_argument("--traces", help="XLA trace names to run, e.g. A,B (default: all)")
    ap.add_argument("--limit-shapes", default=",".join(LIMIT_SHAPES),
                    help="generated problems the time-limit part runs besides the "
                         "XLA traces (default %(default)s)")
    ap.add_argument("--report-only", metavar="RAW")
    a = ap.parse_args(argv)
    if a.report_only:
        with open(a.report_only) as f:
            raw = json.load(f)
        write_section(a.out, report(raw))
        log("wrote %s from %s" % (a.out, a.report_only))
        return 0
    build = a.build or next((b for b in ("build-bench", "build")
                             if os.path.exists(os.path.join(ROOT, b, "src", "cli", "usmp"))), None)
    if not build:
        sys.exit("no build found: meson setup build-bench -Dbuildtype=release && ninja -C build-bench")
    usmp = os.path.abspath(os.path.join(ROOT, build, "src", "cli", "usmp")
                           if not os.path.isabs(build) else os.path.join(build, "src", "cli", "usmp"))
    raw = {"context": {
        "command": " ".join(["python3", "bench/run.py", "field"] + list(argv or sys.argv[1:])),
        "start": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(), "build": os.path.relpath(os.path.dirname(os.path.dirname(
            os.path.dirname(usmp))), ROOT),
        "load_start": " / ".join("%.1f" % x for x in os.getloadavg())}}
    tmp = tempfile.mkdtemp(prefix="usmp-field-")
    try:
        problems = {}
        need = set()
        if not a.skip_targets:
            need |= set(TARGET_SHAPES)
        limit_shapes = [x for x in a.limit_shapes.split(",") if x]
        if not a.skip_limits:
            need |= set(limit_shapes)
        for shape in sorted(need):
            path = os.path.join(tmp, shape + ".csv")
            field.write_csv(path, field.build(shape, 1))
            problems[shape] = path
        xla = os.path.join(ROOT, "bench", "data", "xla")
        names = sorted(f.split(".")[0] for f in os.listdir(xla) if f.endswith(".csv.gz"))
        if a.traces:
            names = [n for n in names if n in a.traces.split(",")]
        traces = []
        for name in names:
            path = os.path.join(tmp, name + ".csv")
            with gzip.open(os.path.join(xla, name + ".csv.gz"), "rb") as src, \
                    open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            traces.append((name, path))
        if not a.skip_targets:
            raw["targets"] = measure_targets(usmp, tmp, a.timeout, problems)
        if not a.skip_limits:
            raw["limits"] = measure_limits(usmp, tmp, a.timeout, traces +
                                           [(s, problems[s]) for s in limit_shapes])
        if not a.skip_traces:
            raw["traces"] = measure_traces(usmp, tmp, a.timeout, traces)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    raw["context"]["end"] = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M UTC")
    raw["context"]["load_end"] = " / ".join("%.1f" % x for x in os.getloadavg())
    if a.raw:
        os.makedirs(os.path.dirname(os.path.abspath(a.raw)), exist_ok=True)
        with open(a.raw, "w") as f:
            json.dump(raw, f, indent=1, sort_keys=True)
    write_section(a.out, report(raw))
    log("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
