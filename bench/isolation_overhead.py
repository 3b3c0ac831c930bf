#!/usr/bin/env python3
"""isolation_overhead.py BUILD [PROBLEM] — median wall time of `usmp plan -a
best_fit` with and without --isolate, runs interleaved so load affects both."""
import statistics
import subprocess
import sys
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
problem = sys.argv[2] if len(sys.argv) > 2 else "bench/workloads/out/cnn_10k.csv"
cli = f"{build}/src/cli/usmp"
runs = {"--isolate": [], "--no-isolate": []}
for _ in range(15):
    for mode, times in runs.items():
        t = time.perf_counter()
        subprocess.run([cli, "plan", problem, "-a", "best_fit", "-q",
                        "-o", "/dev/null", mode], check=True)
        times.append(time.perf_counter() - t)
iso = statistics.median(runs["--isolate"])
inproc = statistics.median(runs["--no-isolate"])
print(f"{problem}: isolated {iso * 1e3:.1f} ms, in process {inproc * 1e3:.1f} ms, "
      f"overhead {(iso - inproc) * 1e3:.1f} ms ({(iso / inproc - 1) * 100:.1f} %)")
