#!/usr/bin/env python3
# Owns the several-pool measurement of exact: which path it takes, what it
# proves, how far from the bounds, against auto, per problem and per family.
"""Plan several-pool problems with exact (at given time limits) and auto.

    python3 bench/exact/pools_run.py BUILD FILE.json... [--time-limits 1,10]
        [--runs 1] [--no-auto] [--base BUILD0]

For each problem and time limit T: `usmp plan P -a exact --time-limit T
--no-isolate` with USMP_LOG=debug (the path: "pools" = every buffer in its
first pool, "spill" = least spill by load planned pool by pool, "search" =
the several-pool joint search, "relaxed" = the plan without the edges as its
start or answer, "parts" = components / greedy and windows),
then auto at its default. One row per run: spill, the host's spill floor
("no valid plan spills less than"), whether the spill is proven least, size,
the host's lower bound, exact's proven bound (plans of its spill), optimal,
CPU seconds (user + sys). --base BUILD0 runs the same with a second build,
alternating, for before/after in one run. A last block per (build, T):
problems, claimed optimal (the least size for its spill; with the spill
proven least too), spill proven least, median and mean of
size / max(lower bound, proven bound), of spill / spill floor (floor > 0),
median CPU.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile


def run(usmp, prob, args, out, debug):
    env = dict(os.environ)
    if debug:
        env["USMP_LOG"] = "debug"
    cmd = ["/usr/bin/time", "-f", "%U %S", usmp, "plan", prob, "--no-isolate",
           "-o", out] + args
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = p.stderr.strip().splitlines()
    u, s = lines[-1].split()
    return p.returncode, float(u) + float(s), p.stderr


def path_of(err):
    paths = []
    if "parts (conflict components" in err:
        paths.append("parts")
    if "greedy plan of a part" in err:
        paths.append("windows")
    if "the least spill by load planned" in err:
        paths.append("spill")
    elif "spill by load alone" in err:
        paths.append("spill?")
    if "exact: without the edges" in err:
        paths.append("relaxed")
    if "every buffer in its first pool (no spill)" in err:
        paths.append("pools")
    if "exact: search (" in err:
        paths.append("search")
    return "+".join(paths) or "-"


def judge(prob, plan, err):
    pr = json.load(open(prob))
    pl = json.load(open(plan))
    names = [p["name"] for p in pr.get("pools", [])] or ["default"]
    first = {b["name"]: (b.get("pools") or
                         ([b["fixed"]["pool"]] if "fixed" in b else names))[0]
             for b in pr["buffers"]}
    size = {b["name"]: b["size"] for b in pr["buffers"]}
    spill = sum(size[b["name"]] for b in pl["buffers"]
                if b["pool"] != first[b["name"]])
    total = sum(p["size"] for p in pl["pools"])
    lb = sum(p.get("lower_bound", 0) for p in pl["parts"])
    pb = sum(p.get("proven_bound", 0) for p in pl["parts"])
    m = re.search(r"no valid plan spills less than (\d+)", err)
    floor = int(m.group(1)) if m else 0
    least = "the least possible: no valid plan spills less" in err or \
        spill == 0 or (floor and spill <= floor)
    return dict(spill=spill, floor=floor, least=bool(least), total=total,
                lb=lb, pb=pb, optimal=bool(pl.get("optimal")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--time-limits", default="10")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--no-auto", action="store_true")
    ap.add_argument("--base", help="a second build, run alternating")
    a = ap.parse_args()
    builds = [("new", a.build)] + ([("base", a.base)] if a.base else [])
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "plan.json")
    rows = {}
    print("build T   problem                      n path          spill"
          "      floor least      size        lb     proven opt  cpu_s"
          " | auto spill size cpu_s")
    for prob in a.files:
        for tl in a.time_limits.split(","):
            for tag, build in builds:
                usmp = os.path.join(build, "src", "cli", "usmp")
                cpus, acpus = [], []
                for _ in range(a.runs):
                    rc, cpu, err = run(usmp, prob, ["-a", "exact",
                                                    "--time-limit", tl],
                                       out, True)
                    if rc:
                        print(tag, tl, os.path.basename(prob), "failed", rc,
                              err.strip()[-200:], flush=True)
                        break
                    cpus.append(cpu)
                    j = judge(prob, out, err)
                    j["path"] = path_of(err)
                    if not a.no_auto:
                        rc2, acpu, aerr = run(usmp, prob, [], out, False)
                        acpus.append(acpu)
                        aj = judge(prob, out, aerr) if rc2 == 0 else None
                if not cpus:
                    continue
                j["cpu"] = statistics.median(cpus)
                n = len(json.load(open(prob))["buffers"])
                rows.setdefault((tag, tl), []).append(j)
                at = ""
                if not a.no_auto and aj:
                    at = f" | {aj['spill']:10} {aj['total']:9} " \
                         f"{statistics.median(acpus):5.2f}"
                    j["auto"] = aj
                print(f"{tag:5} {tl:3} {os.path.basename(prob)[:26]:26} "
                      f"{n:5} {j['path']:12} {j['spill']:10} {j['floor']:10} "
                      f"{'yes' if j['least'] else 'no':>5} {j['total']:9} "
                      f"{j['lb']:9} {j['pb']:10} "
                      f"{'yes' if j['optimal'] else 'no':>3} {j['cpu']:6.2f}"
                      f"{at}", flush=True)
    for (tag, tl), rs in rows.items():
        ratio = [r["total"] / max(r["lb"], r["pb"], 1) for r in rs]
        sr = [r["spill"] / r["floor"] for r in rs if r["floor"]]
        worse = sum(1 for r in rs if "auto" in r and
                    (r["spill"], r["total"]) > (r["auto"]["spill"],
                                                r["auto"]["total"]))
        better = sum(1 for r in rs if "auto" in r and
                     (r["spill"], r["total"]) < (r["auto"]["spill"],
                                                 r["auto"]["total"]))
        print(f"{tag} T={tl}: {len(rs)} problems, optimal "
              f"{sum(r['optimal'] for r in rs)} (with least spill "
              f"{sum(r['optimal'] and r['least'] for r in rs)}), spill least "
              f"{sum(r['least'] for r in rs)}, size/bound median "
              f"{statistics.median(ratio):.4f} mean "
              f"{statistics.mean(ratio):.4f}, spill/floor median "
              f"{statistics.median(sr) if sr else 0:.3f} mean "
              f"{statistics.mean(sr) if sr else 0:.3f}, CPU median "
              f"{statistics.median(r['cpu'] for r in rs):.2f} s, vs auto "
              f"better {better} worse {worse}")


if __name__ == "__main__":
    main()
