/* bench_exact.c — benchmark driver for the exact plugin on MiniMalloc CSV
 * problems: dlopen()s exact.so, runs it, checks every plan by brute force.
 *
 * usage: bench_exact PLUGIN.so MODE CAPACITY TIME_LIMIT FILE.csv...
 *   MODE: feas (any plan within CAPACITY) or min (minimise the peak, with
 *   CAPACITY as the pool's size limit; 0 = unbounded).
 * One line per file: name, buffers, status, peak, proven bound, optimal,
 * seconds, and whether the brute-force checker accepted the plan. */
#include <usmp/plugin.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*exact_fn)(const usmp_view *, const usmp_host *, usmp_placement *,
                        uint64_t, double, bool, uint32_t); /* ..., split */

typedef struct bench_host {
	usmp_host h;
	uint64_t bound;
	bool optimal, reported;
	const usmp_view *v;
	int verbose;
} bench_host;

static void b_log(const usmp_host *h, int level, const char *msg)
{
	const bench_host *b = (const bench_host *)h;
	if (level <= USMP_LOG_WARN || b->verbose)
		fprintf(stderr, "  [%d] %s\n", level, msg);
}
static bool b_stop(const usmp_host *h) { (void)h; return false; }
static void b_progress(const usmp_host *h, uint64_t best)
{
	const bench_host *b = (const bench_host *)h;
	if (b->verbose)
		fprintf(stderr, "  progress %llu\n", (unsigned long long)best);
}
static void *b_alloc(const usmp_host *h, size_t n) { (void)h; return malloc(n); }
static void *b_realloc(const usmp_host *h, void *p, size_t n)
{
	(void)h;
	return realloc(p, n);
}
static void b_free(const usmp_host *h, void *p) { (void)h; free(p); }
static int b_neighbors(const usmp_host *h, uint32_t buf, usmp_neighbor_fn fn,
                       void *arg)
{
	const usmp_view *v = ((const bench_host *)h)->v;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (i != buf && usmp_live_overlap(v, i, buf)) {
			int r = fn(arg, i);
			if (r)
				return r;
		}
	return 0;
}
static void b_bound(const usmp_host *h, uint64_t bound, bool optimal)
{
	bench_host *b = (bench_host *)h;
	b->bound = bound;
	b->optimal = optimal;
	b->reported = true;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct problem {
	uint32_t n;
	usmp_buffer_rec *buf;
	char (*names)[24];
	uint64_t lb;
} problem;

static int read_csv(const char *path, problem *p)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	uint32_t cap = 0;
	memset(p, 0, sizeof *p);
	while (fgets(line, sizeof line, f)) {
		char id[24];
		long long lo, hi, size;
		if (sscanf(line, "%23[^,],%lld,%lld,%lld", id, &lo, &hi, &size) != 4)
			continue; /* header */
		if (p->n == cap) {
			cap = cap ? 2 * cap : 256;
			p->buf = realloc(p->buf, cap * sizeof *p->buf);
			p->names = realloc(p->names, cap * sizeof *p->names);
			if (!p->buf || !p->names) {
				fclose(f);
				return -1;
			}
		}
		usmp_buffer_rec *b = &p->buf[p->n];
		memset(b, 0, sizeof *b);
		snprintf(p->names[p->n], sizeof p->names[p->n], "%s", id);
		b->size = (uint64_t)size;
		b->alignment = 1;
		b->begin = lo;
		b->end = hi;
		b->flags = USMP_BUFFER_LIVE;
		b->candidate_count = 1;
		p->n++;
	}
	fclose(f);
	for (uint32_t i = 0; i < p->n; i++)
		p->buf[i].name = p->names[i];
	/* Lower bound: the largest total alive at one buffer's start. */
	for (uint32_t i = 0; i < p->n; i++) {
		uint64_t s = 0;
		for (uint32_t j = 0; j < p->n; j++)
			if (p->buf[j].begin <= p->buf[i].begin &&
			    p->buf[i].begin < p->buf[j].end)
				s += p->buf[j].size;
		if (s > p->lb)
			p->lb = s;
	}
	return 0;
}

/* Brute force: every pair alive together must be disjoint in memory. */
static bool check(const problem *p, const usmp_placement *out, uint64_t cap,
                  uint64_t *peak)
{
	*peak = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		if (out[i].pool != 0)
			return false;
		uint64_t e = out[i].offset + p->buf[i].size;
		if (e > *peak)
			*peak = e;
		for (uint32_t j = i + 1; j < p->n; j++) {
			const usmp_buffer_rec *a = &p->buf[i], *b = &p->buf[j];
			if (a->begin < b->end && b->begin < a->end &&
			    out[i].offset < out[j].offset + b->size &&
			    out[j].offset < out[i].offset + a->size)
				return false;
		}
	}
	return *peak <= cap;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: %s PLUGIN.so feas|min CAPACITY "
		        "TIME_LIMIT FILE.csv...\n", argv[0]);
		return 2;
	}
	void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	const usmp_plugin *pl = dlsym(dl, "usmp_plugin_v1");
	if (!pl || pl->algorithm_count < 1) {
		fprintf(stderr, "no usmp_plugin_v1\n");
		return 1;
	}
	exact_fn fn = NULL;
	for (uint32_t i = 0; i < pl->algorithm_count; i++)
		if (!strcmp(pl->algorithms[i]->name, "exact"))
			fn = (exact_fn)pl->algorithms[i]->fn;
	if (!fn) {
		fprintf(stderr, "no algorithm 'exact'\n");
		return 1;
	}
	bool minimize = !strcmp(argv[2], "min");
	uint64_t capacity = strtoull(argv[3], NULL, 10);
	double tl = atof(argv[4]);
	int verbose = getenv("BENCH_VERBOSE") ? atoi(getenv("BENCH_VERBOSE")) : 0;
	double total = 0, total_cpu = 0;
	int bad = 0;
	printf("%-8s %5s %-10s %9s %9s %7s %8s %8s %s\n", "problem", "n",
	       "status", "peak", "bound", "optimal", "wall_s", "cpu_s", "check");
	for (int a = 5; a < argc; a++) {
		problem p;
		if (read_csv(argv[a], &p)) {
			fprintf(stderr, "cannot read %s\n", argv[a]);
			return 1;
		}
		usmp_pool_rec pool = {"pool", capacity ? capacity : USMP_UNBOUNDED,
		                      1};
		uint32_t cand0 = 0;
		uint64_t *cs = calloc(p.n + 1, sizeof *cs);
		uint64_t *deg = calloc(p.n + 1, sizeof *deg);
		usmp_placement *out = calloc(p.n + 1, sizeof *out);
		for (uint32_t i = 0; i < p.n; i++) {
			out[i].pool = USMP_NO_POOL;
			for (uint32_t j = 0; j < p.n; j++)
				if (i != j && p.buf[i].begin < p.buf[j].end &&
				    p.buf[j].begin < p.buf[i].end)
					deg[i]++;
		}
		usmp_view v = {
			.struct_size = sizeof v, .pool_count = 1,
			.buffer_count = p.n, .pools = &pool, .buffers = p.buf,
			.candidates = &cand0, .conflict_start = cs,
			.conflict_adj = NULL, .degree = deg, .overlaps = NULL,
			.overlap_count = 0, .lower_bound = p.lb, .target = "",
			.time_limit = tl};
		bench_host bh = {
			.h = {.struct_size = sizeof(usmp_host), .log = b_log,
			      .should_stop = b_stop, .progress = b_progress,
			      .alloc = b_alloc, .realloc = b_realloc,
			      .free = b_free, .for_each_neighbor = b_neighbors,
			      .report_bound = b_bound},
			.v = &v, .verbose = verbose};
		double t0 = clock_s(CLOCK_MONOTONIC);
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		int rc = fn(&v, &bh.h, out, minimize ? 0 : capacity, tl,
		            minimize, 10000);
		double dt = clock_s(CLOCK_MONOTONIC) - t0;
		double dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (verbose > 1)
			for (uint32_t i = 0; i < p.n; i++)
				fprintf(stderr, "  %s @ %llu\n", p.buf[i].name,
				        (unsigned long long)out[i].offset);
		total += dt;
		total_cpu += dc;
		uint64_t peak = 0;
		bool ok = rc == 0 && check(&p, out, capacity ? capacity
		                                             : UINT64_MAX, &peak);
		if (rc == 0 && !ok)
			bad++;
		const char *name = strrchr(argv[a], '/');
		name = name ? name + 1 : argv[a];
		char shortname[16];
		snprintf(shortname, sizeof shortname, "%.*s",
		         (int)strcspn(name, "."), name);
		printf("%-8s %5u %-10s %9llu %9llu %7s %8.3f %8.3f %s\n", shortname, p.n,
		       rc == 0 ? "ok" : rc == 2 ? "infeasible" : rc == 7 ? "stopped"
		                                                          : "error",
		       (unsigned long long)peak,
		       (unsigned long long)(bh.reported ? bh.bound : 0),
		       bh.reported && bh.optimal ? "yes" : "no", dt, dc,
		       rc ? "-" : ok ? "valid" : "INVALID");
		fflush(stdout);
		free(cs);
		free(deg);
		free(out);
		free(p.buf);
		free(p.names);
	}
	printf("total %.3f s wall, %.3f s cpu\n", total, total_cpu);
	dlclose(dl);
	return bad ? 1 : 0;
}
