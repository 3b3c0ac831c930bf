#!/usr/bin/env python3
# Owns the spill-floor measurement: how often auto's plan is certified least
# spill by the host's floor, and auto's CPU time before and after.
"""Run auto of two builds on every problem of some directories.

    python3 bench/exact/spill_floor_run.py BASE NEW DIR... [--runs 3]
        [--time-limit 10]

For each DIR/*.json: `usmp plan P --no-isolate -q` with BASE's and NEW's
usmp, alternating, --runs times each, CPU time (user + sys) kept as the
median; once more each with USMP_LOG=debug to count the members auto ran
(" returned " lines) and read the summary: spill, whether NEW says "the
least possible" (the spill at the floor), the floor it prints otherwise.
Then NEW's `-a exact --time-limit T`: its spill, and whether it proved its
plan. One row per problem and a last line of counts.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import tempfile


def cpu(usmp, prob, out):
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S", usmp, "plan", prob,
                        "--no-isolate", "-q", "-o", out],
                       capture_output=True, text=True)
    u, s = p.stderr.strip().splitlines()[-1].split()
    return float(u) + float(s)


def summary(usmp, prob, out, args=(), debug=True):
    env = dict(os.environ)
    if debug:
        env["USMP_LOG"] = "debug"
    p = subprocess.run([usmp, "plan", prob, "--no-isolate", "-o", out]
                       + list(args), capture_output=True, text=True, env=env)
    err = p.stderr
    spill = sum(int(m) for m in re.findall(r"\n    spill (\d+) bytes", err))
    least = err.count("the least possible") + err.count("; forced: ")
    parts = len(re.findall(r"\n  part \d+:", err))
    spilled = len(re.findall(r"\n    spill \d+ bytes", err))
    floor = re.findall(r"no valid plan spills less than (\d+) bytes", err)
    members = len(re.findall(r"auto: \S+ returned ", err))
    return {"rc": p.returncode, "spill": spill, "certified":
            least == spilled, "floor": [int(f) for f in floor],
            "members": members, "parts": parts,
            "optimal": err.count("(optimal)") == parts, "err": err}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--time-limit", default="10")
    a = ap.parse_args()
    ub = os.path.join(a.base, "src", "cli", "usmp")
    un = os.path.join(a.new, "src", "cli", "usmp")
    key = lambda f: re.sub(r"\d+", lambda m: m.group(0).zfill(6), f)
    probs = sorted((f for d in a.dirs for f in glob.glob(os.path.join(d, "*.json"))),
                   key=key)
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "plan.json")
    c = {"problems": 0, "spill": 0, "certified": 0, "stopped_first": 0,
         "stopped_first_base": 0, "exact_proven": 0, "floor_tight": 0,
         "same_plan_objective": 0, "cpu_base": 0.0, "cpu_new": 0.0}
    print("problem                      | base: spill members cpu_s | new: spill"
          " certified members cpu_s | exact: spill proven | floor = exact's")
    for prob in probs:
        tb, tn = [], []
        for _ in range(a.runs):
            tb.append(cpu(ub, prob, out))
            tn.append(cpu(un, prob, out))
        b = summary(ub, prob, out)
        n = summary(un, prob, out)
        e = summary(un, prob, out, ["-a", "exact", "--time-limit",
                                    a.time_limit], debug=False)
        mb, mn = statistics.median(tb), statistics.median(tn)
        c["problems"] += 1
        c["cpu_base"] += mb
        c["cpu_new"] += mn
        c["spill"] += n["spill"] > 0
        c["certified"] += n["spill"] > 0 and n["certified"]
        c["stopped_first"] += n["members"] == 1
        c["stopped_first_base"] += b["members"] == 1
        c["exact_proven"] += e["optimal"]
        tight = e["optimal"] and (n["spill"] == e["spill"] and n["certified"]
                                  or e["spill"] == 0)
        c["floor_tight"] += bool(tight)
        c["same_plan_objective"] += b["spill"] == n["spill"]
        print("%-28s | %9d %3d %6.3f | %9d %-5s %3d %6.3f | %9d %-5s | %s%s" % (
            os.path.basename(prob), b["spill"], b["members"], mb, n["spill"],
            "yes" if n["certified"] and n["spill"] else "-" if not n["spill"]
            else "no", n["members"], mn, e["spill"],
            "yes" if e["optimal"] else "no", "yes" if tight else "no",
            "" if not n["floor"] else " (floor %s)" % ",".join(map(str, n["floor"]))),
            flush=True)
    print(" ".join("%s=%s" % (k, round(v, 3) if isinstance(v, float) else v)
                   for k, v in c.items()))


if __name__ == "__main__":
    main()
