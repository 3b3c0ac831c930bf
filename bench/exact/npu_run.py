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

    python3 bench/exact/npu_run.py BUILD DIR --rules-pairs [--time-limit 10]

With --rules-pairs, for each DIR/X_rules.json that has DIR/X.json (the same
buffers without rules): exact on both, auto on X_rules, and `usmp simulate`
of each plan against its own problem. One row per pair: (spill, size),
proven, CPU seconds (user + sys) of exact with the rules (and the size bound
it proves for plans of its spill: its size when proven, 0 when none), the same without
them, auto's with them; "smaller" when exact's plan with the rules is
strictly better (spill, then size) than its plan without them; and how
exact with the rules compares with auto. A last line counts them.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile


def run_plan(usmp, prob, out, args, fmt="%e %M"):
    cmd = ["/usr/bin/time", "-f", fmt, usmp, "plan", prob, "--no-isolate",
           "-o", out] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    last = p.stderr.strip().splitlines()[-1].split()
    if fmt == "%U %S %M":
        return (p.returncode, float(last[0]) + float(last[1]), int(last[2]),
                p.stderr)
    return p.returncode, float(last[0]), int(last[1]), p.stderr


def simulate(usmp, prob, plan):
    return subprocess.run([usmp, "simulate", prob, plan],
                          capture_output=True).returncode == 0


def rules_pairs(usmp, d, tl, tmp):
    """Exact with and without the rules, auto with them, per pair."""
    print("problem                  n rules | exact+rules spill size proven bound cpu_s"
          " | exact-rules spill size proven cpu_s | auto+rules spill size"
          " | rules | vs auto | simulate")
    key = lambda f: re.sub(r"\d+", lambda m: m.group(0).zfill(6), f)
    count = {"pairs": 0, "smaller": 0, "proven_rules": 0, "proven_plain": 0,
             "worse_than_auto": 0, "sim_fail": 0, "failed": 0}
    for prob in sorted(glob.glob(os.path.join(d, "*_rules.json")), key=key):
        plain = prob[:-len("_rules.json")] + ".json"
        if not os.path.exists(plain):
            continue
        pr = json.load(open(prob))
        n, nr = len(pr["buffers"]), len(pr.get("overlaps", []))
        er, ep, au = (os.path.join(tmp, x) for x in ("er.json", "ep.json",
                                                    "au.json"))
        ex = ["-a", "exact", "--time-limit", tl]
        rc1, c1, _, err = run_plan(usmp, prob, er, ex, "%U %S %M")
        rc2, c2, _, err2 = run_plan(usmp, plain, ep, ex, "%U %S %M")
        rc3, _, _, err3 = run_plan(usmp, prob, au, [], "%U %S %M")
        count["pairs"] += 1
        if rc1 or rc2 or rc3:
            count["failed"] += 1
            print(os.path.basename(prob), "failed", rc1, rc2, rc3,
                  (err + err2 + err3).strip()[-300:], flush=True)
            continue
        s1, t1, p1 = judge(prob, er)
        m = re.search(r"proven bound (\d+)", err)
        b1 = t1 if p1 else int(m.group(1)) if m else 0
        s2, t2, p2 = judge(plain, ep)
        s3, t3, _ = judge(prob, au)
        sim = (simulate(usmp, prob, er) and simulate(usmp, plain, ep) and
               simulate(usmp, prob, au))
        smaller = (s1, t1) < (s2, t2)
        vs = ("same" if (s1, t1) == (s3, t3) else
              "better" if (s1, t1) < (s3, t3) else "WORSE")
        count["smaller"] += smaller
        count["proven_rules"] += p1
        count["proven_plain"] += p2
        count["worse_than_auto"] += vs == "WORSE"
        count["sim_fail"] += not sim
        yn = lambda b: "yes" if b else "no"
        print(f"{os.path.basename(plain)[:-5]:24} {n:3} {nr:3} | "
              f"{s1:9} {t1:8} {yn(p1):>3} {b1:8} {c1:6.2f} | "
              f"{s2:9} {t2:8} {yn(p2):>3} {c2:6.2f} | {s3:9} {t3:8} | "
              f"{'smaller' if smaller else 'same' if (s1, t1) == (s2, t2) else 'LARGER':7} | "
              f"{vs:6} | {'ok' if sim else 'FAIL'}", flush=True)
    print(" ".join(f"{k}={v}" for k, v in count.items()))


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
    ap.add_argument("--rules-pairs", action="store_true")
    a = ap.parse_args()
    usmp = os.path.join(a.build, "src", "cli", "usmp")
    tmp = tempfile.mkdtemp()
    if a.rules_pairs:
        rules_pairs(usmp, a.dir, a.time_limit, tmp)
        return
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
