/* fit_speed.c — speed of a plugin algorithm on large random interval
 * problems (one unbounded pool), called directly with a minimal host.
 *
 * Build by hand and run (not part of the meson build):
 *   cc -O2 -Iinclude bench/fit_speed.c -o /tmp/fit_speed -ldl
 *   /tmp/fit_speed build/plugins/fit.so first_fit size 1000000 100
 * Arguments: PLUGIN.so ALGORITHM ORDER N MAXLIFE [SEED]. Buffers begin
 * uniformly in [0, N) and live 1..MAXLIFE steps (about MAXLIFE/2 alive at
 * once); sizes 16..~1 MiB, log-uniform-ish, half of them 16-byte aligned.
 * Prints the wall and CPU time of the call, peak RSS, the plan size against the live-sum
 * lower bound, and checks the plan with an O(n * alive) sweep.
 */
#include <usmp/plugin.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef int (*fn_str)(const usmp_view *, const usmp_host *, usmp_placement *,
                      const char *);

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void h_log(const usmp_host *h, int l, const char *m)
{
	(void)h;
	fprintf(stderr, "log[%d]: %s\n", l, m);
}
static bool h_stop(const usmp_host *h) { (void)h; return false; }
static void h_progress(const usmp_host *h, uint64_t b) { (void)h; (void)b; }
static void *h_alloc(const usmp_host *h, size_t n) { (void)h; return malloc(n); }
static void *h_realloc(const usmp_host *h, void *p, size_t n)
{
	(void)h;
	return realloc(p, n);
}
static void h_free(const usmp_host *h, void *p) { (void)h; free(p); }
static int h_neigh(const usmp_host *h, uint32_t b, usmp_neighbor_fn f, void *a)
{
	(void)h; (void)b; (void)f; (void)a;
	fprintf(stderr, "for_each_neighbor is not provided by this bench\n");
	abort();
}
static void h_bound(const usmp_host *h, uint64_t b, bool o)
{
	(void)h; (void)b; (void)o;
}

static double now(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct by_begin_key {
	int64_t begin;
	uint32_t idx;
} by_begin_key;

static int by_begin(const void *a, const void *b)
{
	const by_begin_key *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: %s PLUGIN.so ALGORITHM ORDER N MAXLIFE "
		                "[SEED]\n", argv[0]);
		return 2;
	}
	void *dl = dlopen(argv[1], RTLD_NOW);
	if (!dl) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	const usmp_plugin *pl = dlsym(dl, "usmp_plugin_v1");
	const usmp_algorithm *alg = NULL;
	for (uint32_t i = 0; pl && i < pl->algorithm_count; i++)
		if (!strcmp(pl->algorithms[i]->name, argv[2]))
			alg = pl->algorithms[i];
	if (!alg) {
		fprintf(stderr, "no algorithm %s\n", argv[2]);
		return 1;
	}
	uint32_t n = (uint32_t)strtoul(argv[4], NULL, 10);
	uint64_t maxlife = strtoull(argv[5], NULL, 10);
	uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;

	usmp_pool_rec pool = { "default", USMP_UNBOUNDED, 1 };
	usmp_buffer_rec *b = calloc(n ? n : 1, sizeof *b);
	uint32_t cand0 = 0;
	uint64_t *cstart = calloc((size_t)n + 1, sizeof *cstart);
	uint64_t *degree = calloc(n ? n : 1, sizeof *degree);
	usmp_placement *out = malloc((n ? n : 1) * sizeof *out);
	uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
	if (!b || !cstart || !degree || !out || !ord)
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		b[i].name = "b";
		b[i].size = (1 + rnd(&seed) % 16) << (4 + rnd(&seed) % 13);
		b[i].alignment = rnd(&seed) & 1 ? 16 : 1;
		b[i].begin = (int64_t)(rnd(&seed) % n);
		b[i].end = b[i].begin + 1 + (int64_t)(rnd(&seed) % maxlife);
		b[i].flags = USMP_BUFFER_LIVE;
		b[i].candidate_count = 1;
		b[i].candidate_start = 0;
		out[i].pool = USMP_NO_POOL;
		out[i].reserved = 0;
		out[i].offset = 0;
		ord[i] = i;
	}
	/* lower bound: largest live sum, by a sweep over begins */
	by_begin_key *keys = malloc((n ? n : 1) * sizeof *keys);
	if (!keys)
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		keys[i].begin = b[i].begin;
		keys[i].idx = i;
	}
	qsort(keys, n, sizeof *keys, by_begin);
	for (uint32_t i = 0; i < n; i++)
		ord[i] = keys[i].idx;
	free(keys);
	uint32_t *act = malloc((n ? n : 1) * sizeof *act);
	size_t na = 0;
	uint64_t live = 0, lb = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		for (size_t j = 0; j < na;) {
			if (b[act[j]].end <= b[i].begin) {
				live -= b[act[j]].size;
				act[j] = act[--na];
			} else {
				j++;
			}
		}
		act[na++] = i;
		live += b[i].size;
		if (live > lb)
			lb = live;
	}

	usmp_view v;
	memset(&v, 0, sizeof v);
	v.struct_size = sizeof v;
	v.pool_count = 1;
	v.buffer_count = n;
	v.pools = &pool;
	v.buffers = b;
	v.candidates = &cand0;
	v.conflict_start = cstart;
	v.conflict_adj = &cand0;
	v.degree = degree; /* zeros: order=conflicts is not meaningful here */
	v.lower_bound = lb;
	v.target = "";
	usmp_host h = { .struct_size = sizeof h, .log = h_log,
		        .should_stop = h_stop, .progress = h_progress,
		        .alloc = h_alloc, .realloc = h_realloc,
		        .free = h_free, .for_each_neighbor = h_neigh,
		        .report_bound = h_bound };

	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	int rc = ((fn_str)alg->fn)(&v, &h, out, argv[3]);
	double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (rc) {
		fprintf(stderr, "status %d\n", rc);
		return 1;
	}
	uint64_t size = 0;
	for (uint32_t i = 0; i < n; i++)
		if (out[i].offset + b[i].size > size)
			size = out[i].offset + b[i].size;
	/* validity: each buffer against those alive at its begin */
	na = 0;
	int bad = 0;
	for (uint32_t k = 0; k < n && !bad; k++) {
		uint32_t i = ord[k];
		if (out[i].pool != 0 || out[i].offset % b[i].alignment)
			bad = 1;
		for (size_t j = 0; j < na;) {
			uint32_t o = act[j];
			if (b[o].end <= b[i].begin) {
				act[j] = act[--na];
				continue;
			}
			if (out[o].offset < out[i].offset + b[i].size &&
			    out[i].offset < out[o].offset + b[o].size)
				bad = 1;
			j++;
		}
		act[na++] = i;
	}
	printf("%s order=%s n=%u maxlife=%llu: %.3f s wall, %.3f s CPU, "
	       "peak RSS %.0f MiB, "
	       "size %llu, lower bound %llu (x%.4f), %s\n",
	       argv[2], argv[3], n, (unsigned long long)maxlife, t1 - t0,
	       c1 - c0,
	       (double)ru.ru_maxrss / 1024.0, (unsigned long long)size,
	       (unsigned long long)lb, lb ? (double)size / (double)lb : 0.0,
	       bad ? "INVALID" : "valid");
	free(b);
	free(cstart);
	free(degree);
	free(out);
	free(ord);
	free(act);
	return bad;
}
