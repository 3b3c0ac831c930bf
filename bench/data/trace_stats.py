#!/usr/bin/env python3
# bench/data/trace_stats.py — buffers, most buffers alive at once and the largest total size
# alive at once of MiniMalloc-format CSV files (plain or .gz); the counts in bench/data/xla/README.md.
"""Print buffers, most alive at once and the largest total size alive at once of CSV traces.

    python3 bench/data/trace_stats.py bench/data/xla/*.csv.gz

Input: MiniMalloc CSV (`id,lower,upper,size`, live range [lower, upper) half-open). Sweeps
the range ends: at one time step, the buffers that end there leave before the ones that begin
there arrive. The last column is the single-pool lower bound that `usmp bound` reports for the
same file (it is printed so the two can be compared). Python 3 standard library only.
"""
import csv
import gzip
import os
import sys


def die(msg):
	print("trace_stats.py: " + msg, file=sys.stderr)
	sys.exit(2)


def stats(path):
	opener = gzip.open if path.endswith(".gz") else open
	events = []
	n = 0
	with opener(path, "rt", newline="") as f:
		rows = csv.reader(f)
		head = next(rows, None)
		if head is None:
			die("%s: empty file" % path)
		col = {name: i for i, name in enumerate(head)}
		for need in ("lower", "upper", "size"):
			if need not in col:
				die("%s: no %r column in the header %s" % (path, need, head))
		for line, r in enumerate(rows, 2):
			try:
				lo, hi, size = (int(r[col[k]]) for k in ("lower", "upper", "size"))
			except (ValueError, IndexError):
				die("%s:%d: expected integers in lower, upper, size" % (path, line))
			if hi <= lo or size <= 0:
				die("%s:%d: empty range or size" % (path, line))
			events.append((lo, 1, size))
			events.append((hi, 0, size))   # 0 sorts first: ends leave before begins
			n += 1
	events.sort()
	alive = most = total = peak = 0
	for _, begin, size in events:
		if begin:
			alive += 1
			total += size
			most = max(most, alive)
			peak = max(peak, total)
		else:
			alive -= 1
			total -= size
	return n, most, peak


def main():
	if len(sys.argv) < 2:
		die("usage: trace_stats.py FILE.csv[.gz]...")
	print("| file | buffers | most alive at once | largest total alive (bytes) |")
	print("|---|---:|---:|---:|")
	for path in sys.argv[1:]:
		try:
			n, most, peak = stats(path)
		except (OSError, EOFError, UnicodeDecodeError) as e:
			die("%s: %s" % (path, e))
		print("| %s | %d | %d | %d |" % (os.path.basename(path), n, most, peak))


if __name__ == "__main__":
	main()
