#!/usr/bin/env python3
# bench/run.py — the benchmark: every usmp algorithm on the MiniMalloc suite, the generated
# workloads, the XLA traces and examples/*.json, through the `usmp` command; writes docs/performance.md.
"""Run every usmp algorithm on every benchmark problem and write docs/performance.md.

    python3 bench/run.py                    # full run (~20 min on 2 cores, plus the XLA traces)
    python3 bench/run.py --quick            # MiniMalloc + 1k/10k workloads + XLA B, no exact on D/J
    python3 bench/run.py --build build-bench --sizes 1k,10k,100k
    python3 bench/run.py field              # field targets, time limits, real XLA traces
    python3 bench/run.py deadline           # the whole command against --time-limit

Each run is one `usmp plan` process: wall time measured around it, peak memory as the
maximum resident set of the usmp process (`/usr/bin/time -f %M`, else getrusage in a
wrapper process), the plan's parts read back for size / lower bound / optimality, and the
first plan of every cell checked again with `usmp verify`. See bench/README.md.
"""
import argparse
import datetime
import gzip
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MINIMALLOC = os.path.join(ROOT, "tests", "data", "minimalloc")
XLA = os.path.join(ROOT, "bench", "data", "xla")
WORKLOADS = os.path.join(ROOT, "bench", "workloads")
MIB = 1048576

# Lower bounds published with the MiniMalloc suite (tests/data/minimalloc/README.md).
MINIMALLOC_LB = {c: 1048576 for c in "ABEFGHIK"}
MINIMALLOC_LB.update({"C": 1039360, "D": 986112, "J": 989184})
# Lower bounds of the XLA traces as `usmp bound` measured them (bench/data/xla/README.md).
XLA_LB = {"A": 3420932592, "B": 170672020, "C": 155119143720, "D": 206658604596,
	  "L": 1826499476, "P": 760875497822, "Q": 261151341664, "R": 438396888492}
XLA_QUICK = "B"           # the XLA traces --quick runs
XLA_HILL_CLIMB_MAX = 10000  # hill_climb is skipped on XLA traces with more buffers
# Lower bounds stated in examples/README.md (sum over the problem's parts).
EXAMPLE_LB = {"mobilenet_v2": 1509744, "board_m55_u55": 1505280 + 1383080}

SIZE_TAGS = {"1k": 1000, "10k": 10000, "100k": 100000, "1m": 1000000}
FAMILIES = ["cnn", "transformer", "training"]
ORDERS = ["size", "lifetime", "area", "conflicts", "all"]

# Markers of the section `bench/run.py field` writes (bench/field_run.py)
FIELD_BEGIN = "<!-- bench:field:begin -->"
FIELD_END = "<!-- bench:field:end -->"

REPEAT_BELOW_S = 5.0      # median of 3 runs below this wall time, else 1 run
BIG = 100000              # hill_climb and exact are skipped from here on
HUGE = 1000000            # only the order=size heuristics, TVM greedies and auto here


class Algo:
	def __init__(self, name, args, group, order=None):
		self.name = name          # column name in the report
		self.args = args          # usmp plan arguments selecting it
		self.group = group        # fit, tvm, exact, auto
		self.order = order


def algorithms():
	out = []
	for fam in ("first_fit", "best_fit"):
		for o in ORDERS:
			out.append(Algo(fam if o == "size" else "%s:%s" % (fam, o),
					["-a", fam, "-p", "order=" + o], "fit", o))
	out.append(Algo("greedy_by_size", ["-a", "greedy_by_size"], "tvm"))
	out.append(Algo("greedy_by_conflicts", ["-a", "greedy_by_conflicts"], "tvm"))
	out.append(Algo("hill_climb", ["-a", "hill_climb"], "tvm"))
	out.append(Algo("exact", ["-a", "exact"], "exact"))
	out.append(Algo("auto", ["-a", "auto"], "auto"))
	return out


class Problem:
	def __init__(self, name, family, path, buffers, lb_expected, capacity=None,
		     exact_limit=10.0, auto_retry=10.0, tier=None, source=None):
		self.name = name
		self.tier = tier or buffers    # nominal size (the workload's 1k..1m tag)
		self.family = family
		self.path = path               # the file usmp reads
		self.source = source or path   # the file in the repository it comes from
		self.buffers = buffers
		self.lb_expected = lb_expected
		self.capacity = capacity
		self.exact_limit = exact_limit
		self.auto_retry = auto_retry


# ---------------------------------------------------------------- measuring

RSS_WRAPPER = r"""
import resource, subprocess, sys
p = subprocess.run(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
	f.write("%d %.2f %.2f\n" % (u.ru_maxrss, u.ru_utime, u.ru_stime))
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
"""


class Runner:
	def __init__(self, usmp, tmp, time_bin):
		self.usmp = usmp
		self.tmp = tmp
		self.time_bin = time_bin
		self.count = 0

	def invoke(self, argv, timeout):
		"""Run argv; return (rc, wall seconds, max RSS KiB or None, stderr text);
		self.cpu holds the run's user+system CPU seconds (None if unknown)."""
		rssf = os.path.join(self.tmp, "rss.txt")
		if os.path.exists(rssf):
			os.unlink(rssf)
		if self.time_bin:
			full = [self.time_bin, "-f", "%M %U %S", "-o", rssf] + argv
		else:
			full = [sys.executable, "-c", RSS_WRAPPER, rssf] + argv
		self.count += 1
		t0 = time.perf_counter()
		p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
				     text=True, start_new_session=True)
		try:
			_, err = p.communicate(timeout=timeout)
			rc = p.returncode
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			_, err = p.communicate()
			rc = "timeout"
		except BaseException:
			# interrupted (Ctrl-C, SIGTERM): take the usmp process down with us
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			raise
		wall = time.perf_counter() - t0
		rss = None
		self.cpu = None
		try:
			with open(rssf) as f:
				rows = [l.split() for l in f]
			rows = [r for r in rows if len(r) == 3 and r[0].isdigit()]
			if rows:
				rss = int(rows[-1][0])
				self.cpu = float(rows[-1][1]) + float(rows[-1][2])
		except (OSError, ValueError):
			pass
		# /usr/bin/time reports a non-zero exit and signals on stderr
		if self.time_bin and rc != "timeout":
			m = re.search(r"Command terminated by signal (\d+)", err)
			if m:
				rc = "signal %s" % m.group(1)
		err = "\n".join(l for l in err.splitlines()
				if not l.startswith("Command exited with non-zero status"))
		return rc, wall, rss, err


def read_plan(path):
	"""The plan's header and parts without parsing the (possibly huge) buffers array."""
	size = os.path.getsize(path)
	with open(path, "rb") as f:
		if size < (8 << 20):
			return json.loads(f.read())
		head = f.read(1 << 16).decode("utf-8", "replace")
		f.seek(max(0, size - (4 << 20)))
		tail = f.read().decode("utf-8", "replace")
	i = head.find('"buffers"')
	j = tail.rfind('"parts"')
	try:
		d = json.loads(head[:i].rstrip().rstrip(",") + "}")
		d.update(json.loads("{" + tail[j:]))
		return d
	except (ValueError, IndexError):
		with open(path) as f:
			return json.load(f)


def plan_args(runner, prob, algo, capacity, time_limit, isolate, plan_path):
	a = [runner.usmp, "plan", prob.path] + algo.args + ["-o", plan_path, "-q",
		"--isolate" if isolate else "--no-isolate"]
	if capacity:
		a += ["--capacity", str(capacity)]
	if time_limit:
		a += ["--time-limit", "%g" % time_limit]
	return a


def measure(runner, prob, algo, capacity, time_limit, verify, isolate=False, repeat=True):
	"""Plan prob with algo (median of 3 when quick); returns a result dict."""
	plan_path = os.path.join(runner.tmp, "plan.json")
	timeout = (time_limit or 0) + 900
	argv = plan_args(runner, prob, algo, capacity, time_limit, isolate, plan_path)
	runs = []
	res = {"capacity": capacity, "time_limit": time_limit}
	while True:
		if os.path.exists(plan_path):
			os.unlink(plan_path)
		rc, wall, rss, err = runner.invoke(argv, timeout)
		run = {"rc": rc, "wall_s": wall, "rss_kb": rss, "cpu_s": runner.cpu}
		if rc == 0:
			try:
				d = read_plan(plan_path)
				parts = d["parts"]
				run.update(size=sum(p["size"] for p in parts),
					   lb=sum(p["lower_bound"] for p in parts),
					   proven=sum(p.get("proven_bound", p["lower_bound"]) for p in parts),
					   optimal=all(p.get("optimal") for p in parts),
					   algo_ms=sum(p.get("time_ms", 0) for p in parts),
					   chosen=",".join(sorted(set(p.get("algorithm", d.get("algorithm", "?")) for p in parts))))
			except (OSError, ValueError, KeyError) as e:
				run["rc"] = "bad plan output"
				err = "cannot read the plan: %s" % e
		else:
			msg = (err.strip().splitlines() or ["(no message)"])[-1]
			pre = "usmp: %s: " % prob.path
			run["error"] = msg[len(pre):] if msg.startswith(pre) else msg
		if not runs and run["rc"] == 0 and verify:
			vargv = [runner.usmp, "verify", prob.path, plan_path]
			if capacity:
				vargv += ["--capacity", str(capacity)]
			vrc, _, _, verr = runner.invoke(vargv, 1800)
			res["verified"] = (vrc == 0)
			if vrc != 0:
				res["verify_error"] = (verr.strip().splitlines() or [str(vrc)])[-1]
		runs.append(run)
		if not repeat or run["rc"] != 0 or len(runs) >= 3 or runs[0]["wall_s"] >= REPEAT_BELOW_S:
			break
	ok = [r for r in runs if r["rc"] == 0]
	res["runs"] = len(runs)
	res["walls"] = [round(r["wall_s"], 4) for r in runs]
	res["rc"] = runs[0]["rc"] if not ok else 0
	res["wall_s"] = statistics.median(r["wall_s"] for r in runs)
	cpus = [r["cpu_s"] for r in runs if r["cpu_s"] is not None]
	res["cpu_s"] = statistics.median(cpus) if cpus else None
	rs = [r["rss_kb"] for r in runs if r["rss_kb"] is not None]
	res["rss_kb"] = max(rs) if rs else None
	if ok:
		f = ok[0]
		for k in ("size", "lb", "proven", "optimal", "chosen"):
			res[k] = f[k]
		res["algo_ms"] = statistics.median(r["algo_ms"] for r in ok)
		sizes = sorted(set(r["size"] for r in ok))
		if len(sizes) > 1:
			res["size_varies"] = sizes
	else:
		res["error"] = runs[0].get("error", str(runs[0]["rc"]))
	return res


# ---------------------------------------------------------------- the plan of the run

def skip_reason(prob, algo, quick):
	n = prob.tier
	if algo.name in ("hill_climb", "exact") and n >= BIG:
		return "skipped at >= 100k buffers"
	if algo.name == "hill_climb" and prob.family == "xla" and prob.buffers > XLA_HILL_CLIMB_MAX:
		return "skipped on XLA traces over 10k buffers"
	if n >= HUGE and algo.group == "fit" and algo.order != "size":
		return "skipped at 1M buffers (time budget)"
	if algo.name == "exact" and quick and prob.exact_limit >= 60:
		return "skipped in --quick"
	return None


def run_cell(runner, prob, algo, verify):
	"""One problem x algorithm, with the fallbacks the report explains."""
	tl = prob.exact_limit if algo.name == "exact" else None
	res = measure(runner, prob, algo, prob.capacity, tl, verify)
	res["notes"] = []
	if algo.name == "auto" and res["rc"] not in (0, 2):
		first = res
		res = measure(runner, prob, algo, prob.capacity, prob.auto_retry, verify)
		res["notes"] = ["default 1 s limit: %s; this is with --time-limit %g"
				% (first.get("error", first["rc"]), prob.auto_retry)]
		res["default_failed"] = {"rc": first["rc"], "error": first.get("error"),
					 "wall_s": first["wall_s"], "retry_limit": prob.auto_retry}
	if prob.capacity and algo.name != "exact" and (res["rc"] == 3 or (algo.name == "auto" and res["rc"] == 1)):
		capped = res
		# auto gets its default limit here: without a capacity its heuristics always fit
		res = measure(runner, prob, algo, None, None if algo.name == "auto" else capped["time_limit"], verify)
		res["notes"] = capped["notes"] + ["no plan within %d bytes (exit %s); ratio of the plan without capacity"
						  % (prob.capacity, capped["rc"])]
		res["no_fit"] = True
		if algo.name == "auto":
			res["capped_failed"] = {"rc": capped["rc"], "error": capped.get("error"),
						"time_limit": capped["time_limit"]}
			if "default_failed" in capped:
				res["default_failed"] = capped["default_failed"]
	return res


def minimalloc_problems(quick):
	out = []
	for c in "ABCDEFGHIJK":
		path = os.path.join(MINIMALLOC, "%s.1048576.csv" % c)
		if not os.path.isfile(path):
			sys.exit("%s: missing (the MiniMalloc suite is part of the repository)" % path)
		with open(path) as f:
			n = sum(1 for _ in f) - 1
		lim = 60.0 if c in "DJ" else 10.0
		if quick:
			lim = 3.0 if c not in "DJ" else lim
		out.append(Problem(c, "minimalloc", path, n, MINIMALLOC_LB[c], capacity=MIB,
				   exact_limit=lim, auto_retry=3.0 if quick else lim))
	return out


def xla_problems(tmp, quick):
	"""The XLA traces, unpacked from bench/data/xla/*.csv.gz into tmp (never the source tree)."""
	out = []
	os.makedirs(os.path.join(tmp, "xla"), exist_ok=True)
	for c in sorted(XLA_LB):
		if quick and c not in XLA_QUICK:
			continue
		src = os.path.join(XLA, "%s.csv.gz" % c)
		if not os.path.isfile(src):
			sys.exit("%s: missing (the XLA traces are part of the repository)" % src)
		path = os.path.join(tmp, "xla", "%s.csv" % c)
		n = -1
		with gzip.open(src, "rb") as f, open(path, "wb") as g:
			for line in f:
				g.write(line)
				n += 1
		out.append(Problem("xla_" + c, "xla", path, n, XLA_LB[c], auto_retry=10.0, source=src,
				   exact_limit=3.0 if quick else 10.0))
	return out


def raw_problem(p):
	"""A problem as the raw results record it: its file named relative to the repository
	(an XLA trace by its .csv.gz, not the temporary file the run read)."""
	d = dict(vars(p))
	src = d.pop("source")
	rel = os.path.relpath(src, ROOT)
	d["path"] = src if rel.startswith("..") else rel
	return d


def workload_problems(sizes, families, gen_log, quick, rules):
	out_dir = os.path.join(WORKLOADS, "out")
	missing_sizes = sorted({s for s in sizes for f in families
				if not os.path.exists(os.path.join(out_dir, "%s_%s.csv" % (f, s)))},
			       key=lambda s: SIZE_TAGS[s])
	if missing_sizes:
		cmd = [sys.executable, os.path.join(WORKLOADS, "gen.py"), "--sizes",
		       ",".join(missing_sizes), "--families", ",".join(families)]
		print("generating: " + " ".join(cmd), file=sys.stderr)
		t0 = time.perf_counter()
		subprocess.run(cmd, check=True, cwd=ROOT)
		gen_log.append("%s (%.0f s)" % (" ".join(["python3", "bench/workloads/gen.py"] + cmd[2:]),
					       time.perf_counter() - t0))
	with open(os.path.join(out_dir, "manifest.json")) as f:
		man = json.load(f)
	out = []
	for s in sizes:
		for fam in families:
			name = "%s_%s" % (fam, s)
			m = man[name]
			n = m["buffers"]
			t = SIZE_TAGS[s]
			retry = 10.0 if t < BIG else (30.0 if t < HUGE else 120.0)
			out.append(Problem(name, fam, os.path.join(out_dir, m["files"]["csv"]), n,
					   m["lower_bound"], exact_limit=3.0 if quick else 10.0, auto_retry=retry,
					   tier=t))
	if rules:
		# the same workloads as usmp JSON with their overlap rules (written up to 150k buffers)
		for s in sizes:
			for fam in families:
				name = "%s_%s" % (fam, s)
				m = man[name]
				t = SIZE_TAGS[s]
				if t > BIG or "json" not in m["files"]:
					continue
				out.append(Problem(name + "+rules", fam + "+rules",
						   os.path.join(out_dir, m["files"]["json"]), m["buffers"],
						   m["lower_bound_overlap"], exact_limit=3.0 if quick else 10.0,
						   auto_retry=10.0 if t < BIG else 30.0, tier=t))
	return out


def example_problems():
	out = []
	d = os.path.join(ROOT, "examples")
	for fn in sorted(os.listdir(d)):
		if not fn.endswith(".json"):
			continue
		path = os.path.join(d, fn)
		with open(path) as f:
			n = len(json.load(f).get("buffers", []))
		name = fn[:-5]
		out.append(Problem(name, "examples", path, n, EXAMPLE_LB.get(name)))
	return out


def isolation_probe(runner, probs, quick):
	"""Wall time and RSS of the same call in process and in a forked child."""
	by = {a.name: a for a in algorithms()}
	want = [("A", "first_fit", False), ("A", "exact", True), ("cnn_10k", "first_fit", False)]
	if not quick:
		want.append(("cnn_100k", "first_fit", False))
	byname = {p.name: p for p in probs}
	rows = []
	for pn, an, cap in want:
		p = byname.get(pn)
		if not p:
			continue
		tl = p.exact_limit if an == "exact" else None
		for iso in (False, True):
			walls, algo, rss = [], [], []
			for _ in range(5):
				r = measure(runner, p, by[an], p.capacity if cap else None, tl, False,
					    isolate=iso, repeat=False)
				walls.append(r["wall_s"])
				algo.append(r.get("algo_ms") or 0)
				rss.append(r["rss_kb"] or 0)
				if r["wall_s"] > 2 and len(walls) >= 3:
					break
			rows.append({"problem": pn, "algorithm": an, "isolate": iso,
				     "capacity": p.capacity if cap else None,
				     "wall_s": statistics.median(walls), "algo_ms": statistics.median(algo),
				     "rss_kb": max(rss), "runs": len(walls), "rc": r["rc"]})
	return rows


def overhead_probe(runner, probs):
	"""`usmp bound` (read + lower bound, no planning) on the large workloads: the part of a
	plan's wall time that is not the algorithm's."""
	rows = []
	for p in probs:
		if p.family not in FAMILIES or p.tier < BIG:
			continue
		walls, rss = [], []
		for _ in range(3 if p.tier < HUGE else 1):
			rc, wall, kb, _ = runner.invoke([runner.usmp, "bound", p.path], 900)
			walls.append(wall)
			rss.append(kb or 0)
		rows.append({"problem": p.name, "rc": rc, "wall_s": statistics.median(walls), "rss_kb": max(rss)})
	return rows


# ---------------------------------------------------------------- the report

def ratio(r):
	if r.get("rc") != 0 or not r.get("lb"):
		return None
	return r["size"] / r["lb"]


def geomean(xs):
	xs = [x for x in xs if x]
	if not xs:
		return None
	return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt_ratio(r, short=False):
	if "skip" in r:
		return "–"
	q = ratio(r)
	if q is None:
		rc = r.get("rc")
		if rc == 2 and "beyond" in (r.get("error") or ""):
			return "n/a (>10k)" if "10000" in r["error"] else "n/a (>200)"
		if rc == 2:
			return "n/a"
		if rc == 3:
			return "no fit"
		if rc == 1 and "time limit" in (r.get("error") or ""):
			return "no plan in %gs" % (r.get("time_limit") or 1)
		return "FAIL(%s)" % rc
	s = "%.4f" % q
	if r.get("optimal"):
		s += " ✓"
	if r.get("no_fit"):
		s += " †"
	if r.get("default_failed"):
		s += " ‡"
	if r.get("verified") is False:
		s += " INVALID"
	return s


def fmt_time(s):
	if s is None:
		return ""
	if s < 1:
		return "%.1f ms" % (s * 1000)
	return "%.2f s" % s


def fmt_mib(kb):
	return "" if kb is None else "%.1f" % (kb / 1024)


def machine():
	cpu = "?"
	try:
		with open("/proc/cpuinfo") as f:
			for l in f:
				if l.startswith("model name"):
					cpu = l.split(":", 1)[1].strip()
					break
	except OSError:
		pass
	mem = "?"
	try:
		with open("/proc/meminfo") as f:
			for l in f:
				if l.startswith("MemTotal"):
					mem = "%.1f GiB" % (int(l.split()[1]) / 1048576)
	except OSError:
		pass
	return {"nproc": os.cpu_count(), "cpu": cpu, "mem": mem,
		"kernel": platform.release(), "python": platform.python_version()}


def git(*args, strip=True):
	try:
		out = subprocess.run(["git"] + list(args), cwd=ROOT, capture_output=True,
				     text=True).stdout
		return out.strip() if strip else out
	except OSError:
		return "?"


def build_info(build):
	try:
		with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
			opts = {o["name"]: o["value"] for o in json.load(f)}
		return "buildtype=%s, optimization=%s, b_ndebug=%s" % (
			opts.get("buildtype"), opts.get("optimization"), opts.get("b_ndebug"))
	except (OSError, ValueError):
		return "?"


def headlines(probs, algos, results):
	"""A few sentences computed from the results (the report's first lines)."""
	out = []
	R = lambda p, a: results.get((p.name, a), {})
	heur = [a for a in algos if a.group in ("fit", "tvm")]
	ran = [r for r in results.values() if "skip" not in r and r.get("rc") == 0]
	ver = [r for r in ran if "verified" in r]
	bad = [r for r in ver if not r["verified"]]
	out.append("%d plans produced, %d checked again by `usmp verify`: %s." % (
		len(ran), len(ver), "all valid" if not bad else "**%d invalid**" % len(bad)))
	mm = [p for p in probs if p.family == "minimalloc"]
	if mm:
		fit = sum(1 for p in mm for a in heur if ratio(R(p, a.name)) and not R(p, a.name).get("no_fit"))
		tried = sum(1 for p in mm for a in heur if ratio(R(p, a.name)))
		for an in ("exact", "auto"):
			opt = [p for p in mm if R(p, an).get("optimal")]
			inc = [p for p in mm if ratio(R(p, an)) and not R(p, an).get("no_fit")]
			if not any(R(p, an) for p in mm):
				continue
			out.append("MiniMalloc suite at 1 MiB: **%s** fits %d of %d problems and proves %d optimal (%s); total wall %s." % (
				an, len(inc), len(mm), len(opt),
				", ".join("%s %s" % (p.name, fmt_time(R(p, an)["wall_s"])) for p in opt) or "none",
				fmt_time(sum(R(p, an).get("wall_s", 0) for p in mm))))
			rest = [p for p in inc if p not in opt]
			slow = [p.name for p in mm if R(p, an).get("default_failed")]
			if slow:
				out[-1] += " ‡ no plan with the default 1 s on %s (retried with `--time-limit` %s)." % (", ".join(slow), "/".join(
					"%g" % R(p, an)["default_failed"].get("retry_limit", 0) for p in mm if R(p, an).get("default_failed")))
			if rest:
				out[-1] += " Not proven: %s." % ", ".join("%s %.4f" % (p.name, ratio(R(p, an))) for p in rest)
			out[-1] += " (MiniMalloc itself: all 11 in 0.8–6.9 s each, ~37 s in all.)"
		gm = sorted((geomean([ratio(R(p, a.name)) for p in mm]) or 9, a.name) for a in heur)
		out.append("Heuristics fit 1 MiB in %d of %d runs on the MiniMalloc suite; without the capacity the best"
			   " is %s at a geometric-mean %.4f × the lower bound (MiniMalloc's README: greedy orders 1.29–1.41)."
			   % (fit, tried, gm[0][1], gm[0][0]))
	big = [p for p in probs if p.family in FAMILIES and p.tier >= BIG]
	for an in ("first_fit", "best_fit"):
		rows = [(p, R(p, an)) for p in big if ratio(R(p, an))]
		if rows:
			out.append("**%s** at scale (wall / CPU / algorithm / RSS): %s." % (an, "; ".join(
				"%s %s / %s / %s / %s MiB%s" % (p.name, fmt_time(r["wall_s"]),
					fmt_time(r["cpu_s"]) if r.get("cpu_s") is not None else "?",
					fmt_time(r["algo_ms"] / 1000),
					fmt_mib(r["rss_kb"]),
					"" if r["wall_s"] < (1.0 if p.tier < HUGE else 10.0) else " (**over target**)")
				for p, r in rows)))
	fails = [p.name for p in probs if R(p, "auto").get("default_failed")]
	worse = [p.name for p in probs if ratio(R(p, "auto")) and any(
		ratio(R(p, a.name)) and R(p, a.name)["size"] < R(p, "auto")["size"]
		and bool(R(p, a.name).get("no_fit")) == bool(R(p, "auto").get("no_fit")) for a in heur)]
	if any(R(p, "auto") for p in probs):
		out.append("`auto` is never larger than the best single heuristic%s; it returned **no plan with its default 1 s"
			   " limit on %d problems** (%s)." % (
			   "" if not worse else " **except on %s**" % ", ".join(worse), len(fails), ", ".join(fails) or "none"))
	rl = []
	for f in FAMILIES:
		pairs = [(p, next((q for q in probs if q.name == p.name + "+rules"), None))
			 for p in probs if p.family == f]
		pairs = [(p, q) for p, q in pairs if q and ratio(R(p, "first_fit")) and ratio(R(q, "first_fit"))]
		if pairs:
			rl.append("%s %.4f → %.4f" % (f, geomean([ratio(R(p, "first_fit")) for p, _ in pairs]),
						     geomean([ratio(R(q, "first_fit")) for _, q in pairs])))
	if rl:
		out.append("Overlap rules (the JSON workloads) change first_fit's geometric-mean ratio: %s (same sizes, 1k–100k)."
			   % "; ".join(rl))
	tv = {}
	for an in ("greedy_by_size", "greedy_by_conflicts", "hill_climb"):
		qs = [ratio(R(p, an)) / ratio(R(p, "first_fit")) for p in probs
		      if ratio(R(p, an)) and ratio(R(p, "first_fit"))]
		if qs:
			tv[an] = (geomean(qs), len(qs))
	if tv:
		out.append("TVM's algorithms against first_fit (geometric mean of size ratios over the same problems): %s."
			   % ", ".join("%s %.2f× (%d)" % (k, v[0], v[1]) for k, v in tv.items()))
	return out


def write_report(path, ctx, probs, algos, results, iso_rows):
	L = []
	w = L.append
	fams = []
	for p in probs:
		if p.family not in fams:
			fams.append(p.family)
	w("# Performance")
	w("")
	w("Written by `bench/run.py` (do not edit by hand; rerun it). Every number below was measured in")
	w("the run described here. How to read and reproduce it: [bench/README.md](../bench/README.md).")
	w("Comparisons between versions of the code, dated and with their commands, are in")
	w("[bench/fit/RESULTS.md](../bench/fit/RESULTS.md), [bench/exact/RESULTS.md](../bench/exact/RESULTS.md)")
	w("and [bench/auto/RESULTS.md](../bench/auto/RESULTS.md).")
	w("")
	w("## The run")
	w("")
	m = ctx["machine"]
	w("| | |")
	w("|---|---|")
	w("| command | `%s` |" % ctx["command"])
	w("| date | %s → %s (%.1f min, %d usmp processes) |" % (ctx["start"], ctx["end"],
		ctx["elapsed_s"] / 60, ctx["processes"]))
	w("| code | the commit recorded as `commit` in `%s`%s |" % (ctx.get("raw", "the raw results"), ctx["dirty"]))
	w("| build | `%s` (%s) |" % (ctx["build"], ctx["buildinfo"]))
	w("| machine | %s × %s, %s RAM, Linux %s, Python %s |" % (m["nproc"], m["cpu"], m["mem"],
		m["kernel"], m["python"]))
	w("| load average | %s at the start, %s at the end (1/5/15 min; the machine was shared with other work, so wall times are pessimistic) |"
	  % (ctx["load_start"], ctx["load_end"]))
	w("| memory measured by | %s |" % ctx["rss_tool"])
	if ctx["gen"]:
		w("| workloads generated | %s |" % "; ".join("`%s`" % g for g in ctx["gen"]))
	w("")
	w("Method: each cell is one `usmp plan PROBLEM -a ALGO [-p order=…] -q --no-isolate -o plan.json`")
	w("process (MiniMalloc problems with `--capacity 1048576`). **ratio** = plan size / lower bound (sum")
	w("over the problem's parts), ✓ = the plan is proven optimal. **wall** = elapsed time of the whole")
	w("process (parse, bound, plan, verify, write JSON): median of 3 runs when the first takes under 5 s,")
	w("else 1 run. **CPU** = user + system CPU seconds of that process (10 ms resolution; steadier than wall")
	w("on a loaded machine). **algo** = the algorithm's own time as the plan reports it (`time_ms`). **RSS** = peak")
	w("resident memory of the usmp process. Every first plan was checked again with `usmp verify`.")
	w("")
	w("* † — the heuristic found no plan within 1 MiB (exit 3); the ratio is that of its plan without")
	w("  `--capacity` (its peak against the lower bound), and its time is of that run.")
	w("* ‡ — `auto` failed with its default 1 s time limit; the ratio is from a rerun with the longer")
	w("  limit named in the notes (the default's failure is listed under *Problems found*). ‡ with †:")
	w("  no plan within 1 MiB with the longer limit either; the ratio is auto's plan without `--capacity`.")
	w("* exact runs with `--time-limit 60` on D and J, `10` elsewhere (`--quick`: 3, none on D/J); beyond 10,000 buffers")
	w("  (one pool) or 1,000 (several pools, candidates or conflict edges) it plans in parts (time cuts, conflict components)")
	w("  and proves only the parts it can. hill_climb and exact are skipped at ≥ 100k buffers;")
	w("  at 1M buffers only the default (order=size) orders of first_fit/best_fit, the TVM greedies and")
	w("  auto run (time budget). `first_fit:area` = `-a first_fit -p order=area`; plain `first_fit` is")
	w("  order=size; `:all` tries the four orders and keeps the smallest plan.")
	w("* Plugins are run in process (`--no-isolate`, as for a shipped plugin); the cost of isolation,")
	w("  the default for plugins from outside the shipped plugin directory, is measured separately below.")
	if "xla" in fams:
		w("* XLA traces (`bench/data/xla/*.csv.gz`, unpacked into a temporary directory; lower bounds as")
		w("  recorded in its README): no capacity; hill_climb is skipped on those over 10,000 buffers.")
	w("")

	# ---- summary
	w("## Summary")
	w("")
	for line in headlines(probs, algos, results):
		w("* " + line)
	w("")
	w("### Geometric-mean ratio to the lower bound, per family")
	w("")
	w("(n) = number of problems the algorithm produced a plan for; † plans included. Lower is better, 1 is optimal.")
	w("")
	w("| algorithm | " + " | ".join(fams) + " |")
	w("|---|" + "---|" * len(fams))
	for a in algos:
		cells = []
		for f in fams:
			qs = [ratio(results[(p.name, a.name)]) for p in probs
			      if p.family == f and (p.name, a.name) in results]
			qs = [q for q in qs if q]
			g = geomean(qs)
			cells.append("%.4f (%d)" % (g, len(qs)) if g else "–")
		w("| %s | %s |" % (a.name, " | ".join(cells)))
	w("")

	# ---- fastest good heuristic at scale
	big = [p for p in probs if p.family in FAMILIES and p.tier >= BIG]
	w("### The fastest good heuristic at 100k and 1M buffers")
	w("")
	if big:
		cand = [a for a in algos if a.group in ("fit", "tvm")
			and all((p.name, a.name) in results and ratio(results[(p.name, a.name)]) for p in big)]
		best_g = min((geomean([ratio(results[(p.name, a.name)]) for p in big]) for a in cand), default=None)
		good = [a for a in cand if best_g and geomean([ratio(results[(p.name, a.name)]) for p in big]) <= best_g * 1.01]
		good.sort(key=lambda a: sum(results[(p.name, a.name)]["wall_s"] for p in big))
		if good:
			g = good[0]
			w("\"Good\" = geometric-mean ratio on the %d large workloads within 1%% of the best heuristic that ran on all"
			  " of them (%s: %.4f); the fastest of those by total wall time is **%s**. Targets: 100k < 1 s,"
			  " 1M < 10 s, peak memory < 1 GiB (wall = the whole usmp process; algo = the algorithm alone)."
			  % (len(big), ", ".join(a.name for a in good), best_g, g.name))
			w("")
			w("| workload | buffers | ratio | wall | CPU | algo | RSS MiB | target met (wall / RSS) |")
			w("|---|---:|---:|---:|---:|---:|---:|---|")
			for p in big:
				r = results[(p.name, g.name)]
				tgt = 1.0 if p.tier < HUGE else 10.0
				w("| %s | %d | %s | %s | %s | %s | %s | %s / %s |" % (p.name, p.buffers, fmt_ratio(r),
					fmt_time(r["wall_s"]), "%.2f s" % r["cpu_s"] if r.get("cpu_s") is not None else "",
					fmt_time(r["algo_ms"] / 1000), fmt_mib(r["rss_kb"]),
					"yes" if r["wall_s"] < tgt else "**no** (algo %s)" % ("yes" if r["algo_ms"] / 1000 < tgt else "no"),
					"yes" if (r["rss_kb"] or 0) < MIB else "**no**"))
			w("")
			bp = {r["problem"]: r for r in ctx.get("bound_probe", [])}
			if bp:
				w("Where the wall time goes: `usmp bound` alone (read the CSV, compute the bound; no plan) takes")
				w("the time below; the rest of a plan's wall time beyond *algo* is the CLI's verification of the")
				w("plan and writing the JSON.")
				w("")
				w("| workload | `usmp bound` wall | RSS MiB | %s wall | %s algo | rest (verify + write) |" % (g.name, g.name))
				w("|---|---:|---:|---:|---:|---:|")
				for p in big:
					b = bp.get(p.name)
					r = results[(p.name, g.name)]
					if not b:
						continue
					w("| %s | %s | %s | %s | %s | %s |" % (p.name, fmt_time(b["wall_s"]), fmt_mib(b["rss_kb"]),
						fmt_time(r["wall_s"]), fmt_time(r["algo_ms"] / 1000),
						fmt_time(max(0.0, r["wall_s"] - b["wall_s"] - r["algo_ms"] / 1000))))
				w("")
			w("All heuristics at these sizes (wall / RSS MiB):")
			w("")
			w("| workload | " + " | ".join(a.name for a in cand) + " |")
			w("|---|" + "---|" * len(cand))
			for p in big:
				w("| %s | %s |" % (p.name, " | ".join("%s / %s" % (fmt_time(results[(p.name, a.name)]["wall_s"]),
					fmt_mib(results[(p.name, a.name)]["rss_kb"])) for a in cand)))
			w("")
	else:
		w("(no workload of 100k buffers or more in this run)")
		w("")

	# ---- auto vs members
	w("### `auto` against the best single heuristic")
	w("")
	w("Best single heuristic = the smallest plan of first_fit/best_fit (every order) and the TVM algorithms")
	w("on the same problem (with the same capacity; † plans count at their size without it). exact is")
	w("shown apart. **WORSE** marks a problem where auto's plan is larger than that heuristic's.")
	w("")
	w("| problem | auto | auto's member | auto wall | best heuristic | its ratio | exact | verdict |")
	w("|---|---:|---|---:|---|---:|---:|---|")
	worse = []
	for p in probs:
		ra = results.get((p.name, "auto"))
		if not ra:
			continue
		hs = [(results[(p.name, a.name)]["size"], a.name) for a in algos
		      if a.group in ("fit", "tvm") and (p.name, a.name) in results
		      and ratio(results[(p.name, a.name)])]
		best = min(hs) if hs else None
		re_ = results.get((p.name, "exact"), {})
		if ratio(ra) is None:
			verdict = "**auto failed**"
			worse.append((p.name, "auto produced no plan: %s" % ra.get("error")))
		elif best and ra.get("no_fit"):
			verdict = "no plan in capacity (heuristics neither); uncapped: %s" % (
				"**WORSE**" if ra["size"] > best[0] else "equal" if ra["size"] == best[0] else "better")
			if ra["size"] > best[0]:
				worse.append((p.name, "without capacity auto %d B > %s %d B" % (ra["size"], best[1], best[0])))
		elif best and ra["size"] > best[0]:
			verdict = "**WORSE** (+%d B)" % (ra["size"] - best[0])
			worse.append((p.name, "auto %d B > %s %d B" % (ra["size"], best[1], best[0])))
		elif best and ra["size"] < best[0]:
			verdict = "better"
		else:
			verdict = "equal"
		if ra.get("default_failed"):
			verdict += " ‡"
		w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (p.name, fmt_ratio(ra), ra.get("chosen", ""),
			fmt_time(ra["wall_s"]), best[1] if best else "–",
			"%.4f" % (best[0] / ra["lb"]) if best and ra.get("lb") else
			("%.4f" % ratio(results[(p.name, best[1])]) if best else "–"),
			fmt_ratio(re_) if re_ else "–", verdict))
	w("")

	# ---- TVM
	w("### TVM USMP's algorithms against the others")
	w("")
	tv = ["greedy_by_size", "greedy_by_conflicts", "hill_climb", "first_fit", "best_fit", "best_fit:all"]
	tv = [a for a in algos if a.name in tv]
	w("Geometric-mean ratio and total wall time per family, over the problems where all of these produced a")
	w("plan (hill_climb excluded from the count where it was skipped).")
	w("")
	w("| family | " + " | ".join(a.name for a in tv) + " |")
	w("|---|" + "---|" * len(tv))
	for f in fams:
		fp = [p for p in probs if p.family == f]
		common = [p for p in fp if all(ratio(results.get((p.name, a.name), {})) for a in tv if a.name != "hill_climb")]
		if not common:
			continue
		cells = []
		for a in tv:
			qs = [ratio(results.get((p.name, a.name), {})) for p in common]
			qs = [q for q in qs if q]
			t = sum(results[(p.name, a.name)]["wall_s"] for p in common if (p.name, a.name) in results
				and ratio(results[(p.name, a.name)]))
			cells.append("%.4f, %s (%d)" % (geomean(qs), fmt_time(t), len(qs)) if qs else "–")
		w("| %s | %s |" % (f, " | ".join(cells)))
	w("")

	# ---- isolation
	if iso_rows:
		w("### Cost of running a plugin in a forked child (isolation)")
		w("")
		w("Plugins from outside the shipped plugin directory run in a child process by default, shipped")
		w("ones in process. Same call both ways (`--no-isolate`, `--isolate`; MiniMalloc A without")
		w("`--capacity` for first_fit), median of 3–5 runs; under the machine's load the differences are")
		w("within the noise unless they exceed ~10 ms:")
		w("")
		w("| problem | algorithm | in process: wall / algo / RSS MiB | isolated: wall / algo / RSS MiB | wall difference |")
		w("|---|---|---|---|---:|")
		for i in range(0, len(iso_rows), 2):
			a, b = iso_rows[i], iso_rows[i + 1]
			w("| %s | %s | %s / %s / %s | %s / %s / %s | %+.1f ms |" % (a["problem"], a["algorithm"],
				fmt_time(a["wall_s"]), fmt_time((a["algo_ms"] or 0) / 1000), fmt_mib(a["rss_kb"]),
				fmt_time(b["wall_s"]), fmt_time((b["algo_ms"] or 0) / 1000), fmt_mib(b["rss_kb"]),
				(b["wall_s"] - a["wall_s"]) * 1000))
		w("")

	# ---- problems found
	w("### Problems found")
	w("")
	issues = []
	for p in probs:
		for a in algos:
			r = results.get((p.name, a.name))
			if not r or "skip" in r:
				continue
			q = ratio(r)
			if r.get("verified") is False:
				issues.append("%s × %s: **invalid plan**: %s" % (p.name, a.name, r.get("verify_error")))
			if q is not None and q < 1 - 1e-12:
				issues.append("%s × %s: **ratio below 1** (%.6f): the lower bound is wrong" % (p.name, a.name, q))
			if r.get("lb") and p.lb_expected and r["lb"] != p.lb_expected:
				issues.append("%s × %s: lower bound %d differs from the published %d" % (p.name, a.name, r["lb"], p.lb_expected))
			rc = r.get("rc")
			if isinstance(rc, str) or (isinstance(rc, int) and rc not in (0, 1, 2, 3)):
				issues.append("%s × %s: **crash or timeout** (%s): %s" % (p.name, a.name, rc, r.get("error")))
			if rc == 1 and a.name != "exact" and not r.get("default_failed"):
				issues.append("%s × %s: failed: %s" % (p.name, a.name, r.get("error")))
			if r.get("default_failed"):
				df = r["default_failed"]
				issues.append("%s × auto: **no plan with the default 1 s limit** (exit %s after %s: %s); with `--time-limit %g`: %s"
					      % (p.name, df["rc"], fmt_time(df["wall_s"]), df["error"], df.get("retry_limit") or 0,
						 fmt_ratio(r) if not r.get("capped_failed") else "none within the capacity either"))
			if (r.get("rss_kb") or 0) > 256 * 1024 and p.tier < BIG:
				issues.append("%s × %s: high memory for %d buffers: %s MiB" % (p.name, a.name, p.buffers, fmt_mib(r["rss_kb"])))
			if r.get("capped_failed"):
				cf = r["capped_failed"]
				issues.append("%s × auto: **no plan within the capacity** even with `--time-limit %s` (%s); without capacity: %s"
					      % (p.name, cf["time_limit"], cf["error"], fmt_ratio(r)))
			if r.get("size_varies"):
				issues.append("%s × %s: plan size differs between runs: %s" % (p.name, a.name, r["size_varies"]))
	for pn, why in worse:
		issues.append("%s: **auto worse than a member**: %s" % (pn, why))
	for p in probs:
		ra, re_ = results.get((p.name, "auto"), {}), results.get((p.name, "exact"), {})
		if (ratio(ra) and ratio(re_) and not ra.get("no_fit") and ra["size"] > re_["size"]
		    and (ra.get("time_limit") or 1) >= (re_.get("time_limit") or 0)):
			issues.append("%s: auto (%d B) larger than exact alone (%d B) with the same or a shorter time limit"
				      " (%g s vs %g s)"
				      % (p.name, ra["size"], re_["size"], ra.get("time_limit") or 1, re_.get("time_limit") or 0))
	if issues:
		for s in issues:
			w("* " + s)
	else:
		w("None: no crash, no invalid plan, no ratio below 1, auto never worse than a single heuristic.")
	w("")

	# ---- full tables
	w("## Ratio to the lower bound, every problem × algorithm")
	w("")
	for f in fams:
		fp = [p for p in probs if p.family == f]
		w("### %s" % f)
		w("")
		w("| problem | buffers | lower bound | " + " | ".join(a.name for a in algos) + " |")
		w("|---|---:|---:|" + "---|" * len(algos))
		for p in fp:
			lb = next((results[(p.name, a.name)].get("lb") for a in algos
				   if results.get((p.name, a.name), {}).get("lb")), p.lb_expected)
			w("| %s | %d | %s | %s |" % (p.name, p.buffers, lb if lb else "?",
				" | ".join(fmt_ratio(results.get((p.name, a.name), {"skip": 1})) for a in algos)))
		w("")
	w("## Every run: ratio, wall time, algorithm time, peak memory")
	w("")
	w("| problem | algorithm | ratio | size (B) | wall | CPU | algo | RSS MiB | runs | notes |")
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for p in probs:
		for a in algos:
			r = results.get((p.name, a.name))
			if not r:
				continue
			if "skip" in r:
				w("| %s | %s | – | | | | | | | %s |" % (p.name, a.name, r["skip"]))
				continue
			notes = [re.sub(r"no plan within (\d+) bytes \((?!exit).*?\); ratio",
					r"no plan within \1 bytes (exit 3); ratio", n) for n in r.get("notes", [])]
			if ratio(r) is None:
				notes.append(r.get("error") or "")
			if a.name == "auto" and r.get("chosen"):
				notes.append("won: " + r["chosen"])
			if r.get("size_varies"):
				notes.append("sizes over the runs: %s" % ", ".join(map(str, r["size_varies"])))
			if r.get("proven") and r.get("lb") and r["proven"] > r["lb"]:
				notes.append("proven bound %d" % r["proven"])
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s |" % (p.name, a.name, fmt_ratio(r),
				r.get("size", ""), fmt_time(r["wall_s"]),
				"%.2f s" % r["cpu_s"] if r.get("cpu_s") is not None else "",
				fmt_time(r["algo_ms"] / 1000) if r.get("algo_ms") is not None else "",
				fmt_mib(r["rss_kb"]), r["runs"], "; ".join(n.replace("|", "/") for n in notes if n)))
	w("")
	# The real-trace section and the ones after it (exact on NPU-shaped
	# problems, bench/exact/npu_run.py) are measured by other commands: keep them.
	keep = ""
	if os.path.exists(path):
		with open(path) as f:
			old = f.read()
		i = old.find(FIELD_BEGIN)
		if i >= 0:
			keep = "\n" + old[i:].rstrip("\n") + "\n"
	with open(path, "w") as f:
		f.write("\n".join(L) + keep)


# ---------------------------------------------------------------- main

def main():
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	if len(sys.argv) > 1 and sys.argv[1] == "field":
		# `bench/run.py field`: the field targets and real traces (bench/field_run.py)
		sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
		import field_run
		sys.exit(field_run.main(sys.argv[2:], prog="bench/run.py field"))
	if len(sys.argv) > 1 and sys.argv[1] == "deadline":
		# `bench/run.py deadline`: the whole command against --time-limit (bench/deadline/run.py)
		sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "deadline"))
		import run as deadline_run
		sys.exit(deadline_run.main(sys.argv[2:], prog="bench/run.py deadline"))
	ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	ap.add_argument("--build", help="meson build dir (default: build-bench, else build)")
	ap.add_argument("--quick", action="store_true",
			help="MiniMalloc suite + 1k/10k workloads + XLA trace B, no exact on D/J (~2 min)")
	ap.add_argument("--sizes", help="workload sizes, e.g. 1k,10k (default 1k,10k,100k,1m)")
	ap.add_argument("--families", default=",".join(FAMILIES))
	ap.add_argument("--only", help="comma-separated problem names to run (e.g. A,D,cnn_1k,xla_B)")
	ap.add_argument("--out", help="the report (default docs/performance.md; with --quick "
			"bench/results/quick.md, so a quick check never replaces the recorded run)")
	ap.add_argument("--raw", help="raw results as JSON (default bench/results/latest.json, "
			"with --quick bench/results/quick.json)")
	ap.add_argument("--no-verify", action="store_true", help="skip the usmp verify pass")
	ap.add_argument("--no-rules", action="store_true",
			help="skip the JSON workloads with overlap rules (skipped in --quick anyway)")
	ap.add_argument("--no-isolation-probe", action="store_true")
	ap.add_argument("--report-only", metavar="RAW",
			help="rewrite --out from a raw results file of an earlier run, running nothing")
	a = ap.parse_args()

	res_dir = os.path.join(ROOT, "bench", "results")
	if not a.out:
		a.out = os.path.join(res_dir, "quick.md") if a.quick else os.path.join(ROOT, "docs", "performance.md")
	if not a.raw:
		a.raw = os.path.join(res_dir, "quick.json" if a.quick else "latest.json")
	if a.report_only:
		with open(a.report_only) as f:
			raw = json.load(f)
		probs = [Problem(**d) for d in raw["problems"]]
		results = {(r.pop("problem"), r.pop("algorithm")): r for r in raw["results"]}
		raw["context"].setdefault("raw", os.path.relpath(a.report_only, ROOT))
		write_report(a.out, raw["context"], probs, algorithms(), results, raw["isolation"])
		print("wrote %s from %s" % (a.out, a.report_only), file=sys.stderr)
		return
	build = a.build
	if not build:
		build = next((os.path.join(ROOT, b) for b in ("build-bench", "build")
			      if os.path.exists(os.path.join(ROOT, b, "src", "cli", "usmp"))), None)
		if not build:
			sys.exit("no build found: meson setup build-bench -Dbuildtype=release && ninja -C build-bench")
	build = os.path.abspath(build)
	usmp = os.path.join(build, "src", "cli", "usmp")
	if not os.access(usmp, os.X_OK):
		sys.exit("%s: not built" % usmp)
	sizes = (a.sizes or ("1k,10k" if a.quick else "1k,10k,100k,1m")).lower().split(",")
	for s in sizes:
		if s not in SIZE_TAGS:
			sys.exit("--sizes: unknown size %r (use %s)" % (s, ",".join(SIZE_TAGS)))
	families = a.families.split(",")

	time_bin = shutil.which("time", path="/usr/bin")
	if time_bin and subprocess.run([time_bin, "-f", "%M", "true"], capture_output=True).returncode != 0:
		time_bin = None
	gen = []
	keep = set(a.only.split(",")) if a.only else None
	# unpacked XLA traces and the plans go to a temporary directory, never the source tree
	tmpdir = tempfile.TemporaryDirectory(prefix="usmp-bench-")
	tmp = tmpdir.name
	probs = minimalloc_problems(a.quick)
	wl_names = {"%s_%s%s" % (f, s, r) for f in families for s in sizes for r in ("", "+rules")}
	if keep is None or keep & wl_names:
		# (--only without any workload name does not generate the workloads)
		probs += workload_problems(sizes, families, gen, a.quick, not a.quick and not a.no_rules)
	probs += xla_problems(tmp, a.quick) + example_problems()
	if keep is not None:
		unknown = keep - {p.name for p in probs}
		if unknown:
			sys.exit("--only: no problem named %s" % ", ".join(sorted(unknown)))
		probs = [p for p in probs if p.name in keep]
	algos = algorithms()

	ctx = {"command": " ".join(["python3", "bench/run.py"] + sys.argv[1:]),
	       "start": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
	       "commit": git("rev-parse", "--short=12", "HEAD"),
	       "dirty": "",
	       "build": os.path.relpath(build, ROOT), "buildinfo": build_info(build),
	       "machine": machine(), "load_start": " / ".join("%.2f" % x for x in os.getloadavg()),
	       "rss_tool": "`/usr/bin/time -f '%M %U %S'` (max RSS of the usmp process, CPU time)" if time_bin else
			   "getrusage(RUSAGE_CHILDREN).ru_maxrss in a wrapper process per run",
	       "gen": gen}
	st = git("status", "--porcelain", "--", "src", "plugins", "include", strip=False).strip("\n")
	if st:
		ctx["dirty"] = " + uncommitted changes in %s" % ", ".join(sorted({l[3:] for l in st.splitlines()}))
	t0 = time.perf_counter()
	results = {}
	with tmpdir:
		runner = Runner(usmp, tmp, time_bin)
		for p in probs:
			for al in algos:
				why = skip_reason(p, al, a.quick)
				if why:
					results[(p.name, al.name)] = {"skip": why}
					continue
				r = run_cell(runner, p, al, not a.no_verify)
				results[(p.name, al.name)] = r
				print("[%6.0fs] %-16s %-20s %-18s wall %-9s rss %6s MiB %s" % (
					time.perf_counter() - t0, p.name, al.name, fmt_ratio(r), fmt_time(r["wall_s"]),
					fmt_mib(r["rss_kb"]), "; ".join(r.get("notes", []))), file=sys.stderr)
		iso = [] if a.no_isolation_probe else isolation_probe(runner, probs, a.quick)
		ctx["bound_probe"] = overhead_probe(runner, probs)
		ctx["processes"] = runner.count
	ctx["elapsed_s"] = time.perf_counter() - t0
	ctx["end"] = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M UTC")
	ctx["load_end"] = " / ".join("%.2f" % x for x in os.getloadavg())
	if a.raw:
		ctx["raw"] = os.path.relpath(a.raw, ROOT)
	write_report(a.out, ctx, probs, algos, results, iso)
	if a.raw:
		os.makedirs(os.path.dirname(a.raw), exist_ok=True)
		with open(a.raw, "w") as f:
			json.dump({"context": ctx, "isolation": iso,
				   "problems": [raw_problem(p) for p in probs],
				   "results": [dict(problem=k[0], algorithm=k[1], **v) for k, v in results.items()]},
				  f, indent=1, default=str)
	print("wrote %s (%.1f min)" % (a.out, ctx["elapsed_s"] / 60), file=sys.stderr)


if __name__ == "__main__":
	main()
