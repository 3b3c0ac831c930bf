#!/usr/bin/env python3
# Owns the exact-vs-auto run on the NPU-shaped problems: plans, spill,
# proofs, simulation, one table row per problem.
"""Plan every problem of a directory with exact and auto, side by side.

    python3 bench/exact/npu_run.py BUILD DIR [--time-limit 10]

For each DIR/*.json: `usmp plan -a exact --time-limit T` and `usmp plan`
(auto at its default), each then replayed by `usmp simulate`. Prints one
row per problem: spill and size of both plans (spill = bytes placed outside
their first candidate pool), whether exact proved its plan, exact's wall
time and peak RSS, and whether both plans pass simulate.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile


def run_plan(usmp, prob, out, args):
    cmd = ["/usr/bin/time", "-f", "%e %M", usmp, "plan", prob, "--no-isolate",
           "-o", out] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    last = p.stderr.strip().splitlines()[-1].split()
    return p.returncode, float(last[0]), int(last[1]), p.stderr


def judge(prob, plan):
    pr = json.load(open(prob))
    pl = json.load(open(plan))
    first = {b["name"]: (b.get("pools") or [pr["pools"][0]["name"]])[0]
             for b in pr["buffers"]}
    size = {b["name"]: b["size"] for b in pr["buffers"]}
    spill = sum(size[b["name"]] for b in pl["buffers"]
                if b["pool"] != first[b["name"]])
    total = sum(p["size"] for p in pl["pools"])
    return spill, total, bool(pl.get("optimal"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("dir")
    ap.add_argument("--time-limit", default="10")
    a = ap.parse_args()
    usmp = os.path.join(a.build, "src", "cli", "usmp")
    tmp = tempfile.mkdtemp()
    print("problem                    n | exact spill     size proven   wall_s  rss_MB"
          " | auto spill     size | exact vs auto | simulate")
    for prob in sorted(glob.glob(os.path.join(a.dir, "*.json")),
                       key=lambda f: (re.sub(r"\d+", lambda m: m.group(0).zfill(6), f))):
        n = len(json.load(open(prob))["buffers"])
        e, au = os.path.join(tmp, "e.json"), os.path.join(tmp, "a.json")
        rc, wall, rss, err = run_plan(usmp, prob, e,
                                      ["-a", "exact", "--time-limit", a.time_limit])
        rca, _, _, _ = run_plan(usmp, prob, au, [])
        if rc or rca:
            print(os.path.basename(prob), "failed", rc, rca, err.strip()[-200:])
            continue
        es, et, ep = judge(prob, e)
        as_, at, _ = judge(prob, au)
        sim = all(subprocess.run([usmp, "simulate", prob, f],
                                 capture_output=True).returncode == 0
                  for f in (e, au))
        cmp = ("same" if (es, et) == (as_, at) else
               "better" if (es, et) < (as_, at) else "WORSE")
        print(f"{os.path.basename(prob)[:-5]:24} {n:3} | {es:11} {et:8} "
              f"{'yes' if ep else 'no':>6} {wall:8.2f} {rss / 1024:7.1f} | "
              f"{as_:10} {at:8} | {cmp:13} | {'ok' if sim else 'FAIL'}",
              flush=True)


if __name__ == "__main__":
    main()
