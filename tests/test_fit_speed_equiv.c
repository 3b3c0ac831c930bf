/* test_fit_speed_equiv.c — the fit plugin's gap index against its reference
 * build (the lists only): identical plans for first_fit and best_fit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

static const char *const orders[] = { "size", "lifetime", "area",
	                              "conflicts", "all" };
static const char *const algos[] = { "first_fit", "best_fit" };

/* The reference: the same sources built with -DUSMP_FIT_REFERENCE. */
#define REF_PLUGIN "../tests/plugins/fitref/fit"

typedef struct equiv_stats {
	unsigned runs, feasible;
} equiv_stats;

/* Run `algo` with every order from both builds; assert the same status
 * and, when planned, the same pool and offset for every buffer. */
static void compare_view(const usmp_view *v, const char *what,
                         equiv_stats *st)
{
	for (int a = 0; a < 2; a++) {
		const usmp_algorithm *fast = th_algorithm("fit", algos[a]);
		const usmp_algorithm *ref = th_algorithm(REF_PLUGIN, algos[a]);
		cr_assert_not_null(fast);
		cr_assert_not_null(ref);
		for (int o = 0; o < 5; o++) {
			th_host hf, hr;
			th_host_init(&hf, v);
			th_host_init(&hr, v);
			usmp_placement *pf = th_out(v), *pr = th_out(v);
			int rf = ((th_fn_str)fast->fn)(v, &hf.host, pf, orders[o]);
			int rr = ((th_fn_str)ref->fn)(v, &hr.host, pr, orders[o]);
			cr_assert_eq(hf.live_allocs, 0, "leaked %ld blocks",
			             hf.live_allocs);
			cr_assert_eq(rf, rr, "%s %s order=%s: status %d, "
			             "reference %d", what, algos[a], orders[o],
			             rf, rr);
			st->runs++;
			if (rf == USMP_OK) {
				st->feasible++;
				for (uint32_t b = 0; b < v->buffer_count; b++) {
					cr_assert_eq(pf[b].pool, pr[b].pool);
					cr_assert_eq(pf[b].offset, pr[b].offset,
					             "%s %s order=%s: buffer %u at "
					             "%llu, reference %llu",
					             what, algos[a], orders[o], b,
					             (unsigned long long)pf[b].offset,
					             (unsigned long long)pr[b].offset);
				}
				char why[256];
				cr_assert(th_check(v, pf, 0, why, sizeof why),
				          "%s: %s", what, why);
			}
			free(pf);
			free(pr);
		}
	}
}

/* log-uniform over `decades` decades, at least 1 */
static uint64_t log_size(uint64_t *rng, unsigned decades)
{
	uint64_t hi = 1;
	unsigned d = (unsigned)test_rand_range(rng, 0, decades - 1);
	for (unsigned i = 0; i < d; i++)
		hi *= 10;
	return test_rand_range(rng, hi, 10 * hi - 1);
}

/* XLA-shaped: n buffers over n steps, about k alive at a time, one in
 * fifty alive throughout, sizes over eight decades; sometimes aligned,
 * sometimes under a pool limit. */
static th_problem *xla_problem(uint64_t *rng, uint32_t n, uint32_t k)
{
	th_problem *p = th_new();
	int aligned = test_rand_range(rng, 0, 2) == 0;
	uint64_t limit = USMP_UNBOUNDED;
	if (test_rand_range(rng, 0, 3) == 0)
		limit = test_rand_range(rng, 1, 30) * 100000000ull;
	th_pool(p, "pool", limit, 1);
	for (uint32_t b = 0; b < n; b++) {
		char name[32];
		snprintf(name, sizeof name, "b%u", b);
		uint64_t al = aligned ? 1ull << test_rand_range(rng, 0, 8) : 1;
		int64_t lo, hi;
		if (test_rand_range(rng, 0, 49) == 0) {
			lo = 0;
			hi = n;
		} else {
			lo = (int64_t)test_rand_range(rng, 0, n - 1);
			hi = lo + 1 + (int64_t)test_rand_range(rng, 0, 2 * k);
			if (hi > (int64_t)n)
				hi = n;
		}
		th_buffer(p, name, log_size(rng, 8), al, lo, hi);
	}
	return p;
}

/* Small dense or sparse problems: few distinct times, many alive. */
static th_problem *small_problem(uint64_t *rng, uint32_t n)
{
	th_problem *p = th_new();
	uint64_t limit = USMP_UNBOUNDED;
	if (test_rand_range(rng, 0, 3) == 0)
		limit = test_rand_range(rng, 1000, 3000000);
	th_pool(p, "pool", limit, 1ull << test_rand_range(rng, 0, 2));
	uint64_t horizon = test_rand_range(rng, 1, n / 2 + 2);
	uint64_t maxlife = test_rand_range(rng, 1, 3 * horizon);
	int aligned = test_rand_range(rng, 0, 1) == 1;
	for (uint32_t b = 0; b < n; b++) {
		char name[32];
		snprintf(name, sizeof name, "b%u", b);
		uint64_t al = aligned ? 1ull << test_rand_range(rng, 0, 5) : 1;
		int64_t lo = (int64_t)test_rand_range(rng, 0, horizon);
		int64_t len = (int64_t)test_rand_range(rng, 1, maxlife);
		if (test_rand_range(rng, 0, 20) == 0)
			th_buffer_nolive(p, name, log_size(rng, 6), al);
		else
			th_buffer(p, name, log_size(rng, 6), al, lo, lo + len);
	}
	return p;
}

Test(fit_speed_equiv, same_plans_on_small_random_problems)
{
	uint64_t rng = 1412;
	equiv_stats st = { 0, 0 };
	for (int i = 0; i < 600; i++) {
		uint32_t n = (uint32_t)test_rand_range(&rng, 1, 120);
		th_problem *p = small_problem(&rng, n);
		char what[64];
		snprintf(what, sizeof what, "small #%d (n=%u)", i, n);
		compare_view(th_view(p), what, &st);
		th_free(p);
	}
	cr_assert_eq(st.runs, 600u * 10);
	/* both outcomes occur */
	cr_assert_gt(st.feasible, st.runs / 2);
	cr_assert_lt(st.feasible, st.runs);
}

Test(fit_speed_equiv, same_plans_on_xla_shaped_problems)
{
	uint64_t rng = 20261203;
	equiv_stats st = { 0, 0 };
	const int count = TEST_SWEEP(14); /* 3 under the sanitizers */
	for (int i = 0; i < count; i++) {
		uint32_t n = (uint32_t)test_rand_range(&rng, 1500, 4000);
		uint32_t k = (uint32_t)test_rand_range(&rng, 300, 1500);
		th_problem *p = xla_problem(&rng, n, k);
		char what[64];
		snprintf(what, sizeof what, "xla #%d (n=%u k=%u)", i, n, k);
		compare_view(th_view(p), what, &st);
		th_free(p);
	}
	cr_assert_eq(st.runs, (unsigned)count * 10);
	cr_assert_gt(st.feasible, st.runs / 2);
}

/* Many buffers alive up to the last begin time or throughout, with the
 * number of distinct begin times just below, at and above powers of two
 * (the time tree's unused last leaves), dense enough for the gap index. */
Test(fit_speed_equiv, same_plans_when_many_buffers_reach_the_last_time)
{
	static const uint32_t times[] = { 63, 64, 65, 255, 256, 257, 1023, 1025 };
	uint64_t rng = 3141;
	equiv_stats st = { 0, 0 };
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
		uint32_t t = times[i], n = 3 * t + 40;
		th_problem *p = th_new();
		th_pool(p, "pool", USMP_UNBOUNDED, 1);
		for (uint32_t b = 0; b < n; b++) {
			char name[32];
			snprintf(name, sizeof name, "b%u", b);
			/* every begin time 0..t-1 used once at least */
			int64_t lo = b < t ? (int64_t)b
			                   : (int64_t)test_rand_range(&rng, 0,
			                                              t - 1);
			int64_t hi;
			switch (test_rand_range(&rng, 0, 3)) {
			case 0: hi = t; break;                /* to the end */
			case 1: hi = t + 5; lo = 0; break;    /* throughout */
			default:
				hi = lo + 1 + (int64_t)test_rand_range(&rng, 0,
				                                       t / 2);
				break;
			}
			th_buffer(p, name, log_size(&rng, 6), 1, lo, hi);
		}
		char what[64];
		snprintf(what, sizeof what, "to the end, %u times", t);
		compare_view(th_view(p), what, &st);
		th_free(p);
	}
	cr_assert_eq(st.runs, 8u * 10);
	cr_assert_eq(st.feasible, st.runs); /* unbounded: every run plans */
}

/* A MiniMalloc CSV (id,lower,upper,size) as a one-pool problem. */
static th_problem *csv_problem(const char *rel, uint64_t limit)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_source_root(), rel);
	char *text = test_read_file(path);
	cr_assert_not_null(text, "cannot read %s", path);
	th_problem *p = th_new();
	th_pool(p, "pool", limit, 1);
	char *line = strchr(text, '\n'); /* past the header */
	unsigned rows = 0;
	while (line && *++line) {
		char name[64];
		long long lo, hi;
		unsigned long long size;
		cr_assert_eq(sscanf(line, "%63[^,],%lld,%lld,%llu", name, &lo,
		                    &hi, &size),
		             4, "%s: bad row %u", rel, rows + 1);
		th_buffer(p, name, size, 1, lo, hi);
		rows++;
		line = strchr(line, '\n');
	}
	cr_assert_gt(rows, 0);
	free(text);
	return p;
}

Test(fit_speed_equiv, same_plans_on_the_repository_traces)
{
	static const char *const files[] = {
		"tests/data/xla/B.csv",
		"tests/data/minimalloc/A.1048576.csv",
		"tests/data/minimalloc/B.1048576.csv",
		"tests/data/minimalloc/C.1048576.csv",
		"tests/data/minimalloc/D.1048576.csv",
		"tests/data/minimalloc/E.1048576.csv",
		"tests/data/minimalloc/F.1048576.csv",
		"tests/data/minimalloc/G.1048576.csv",
		"tests/data/minimalloc/H.1048576.csv",
		"tests/data/minimalloc/I.1048576.csv",
		"tests/data/minimalloc/J.1048576.csv",
		"tests/data/minimalloc/K.1048576.csv",
		"tests/data/minimalloc/input.12.csv",
	};
	equiv_stats st = { 0, 0 };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		/* unbounded, and under the MiniMalloc capacity */
		for (int lim = 0; lim < 2; lim++) {
			th_problem *p = csv_problem(files[i], lim ? 1048576
			                                          : USMP_UNBOUNDED);
			char what[128];
			snprintf(what, sizeof what, "%s%s", files[i],
			         lim ? " (limit 1 MiB)" : "");
			compare_view(th_view(p), what, &st);
			th_free(p);
		}
	}
	cr_assert_eq(st.runs, 13u * 2 * 10);
	/* unbounded, every run plans */
	cr_assert_geq(st.feasible, 13u * 10);
}
