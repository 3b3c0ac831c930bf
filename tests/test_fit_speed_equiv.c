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

/* ---- plain buffers beside rule, edge, fixed and empty ones ---------------- */

/* What a mixed problem holds, to show the sweep covers every kind. */
typedef struct mix_stats {
	unsigned problems, dense;    /* dense: the gap index is on */
	unsigned rules, edges, fixed, empty, nolive, limited;
} mix_stats;

/* Whether the plugin's gap index is on for v: on average at least 32 live
 * buffers alive at each distinct begin time (fit_time_index.c). */
static int gap_dense(const usmp_view *v)
{
	uint32_t n = v->buffer_count, u = 0;
	int64_t *t = malloc((n ? n : 1) * sizeof *t);
	cr_assert_not_null(t);
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE)
			t[u++] = v->buffers[b].begin;
	/* sort and unique, insertion into place (n is a few thousand) */
	uint32_t m = 0;
	for (uint32_t i = 0; i < u; i++) {
		int64_t x = t[i];
		uint32_t j = m;
		while (j > 0 && t[j - 1] > x)
			j--;
		if (j > 0 && t[j - 1] == x)
			continue;
		memmove(t + j + 1, t + j, (m - j) * sizeof *t);
		t[j] = x;
		m++;
	}
	uint64_t cover = 0;
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_LIVE))
			continue;
		for (uint32_t i = 0; i < m; i++)
			cover += t[i] >= r->begin && t[i] < r->end;
	}
	free(t);
	return m > 0 && cover >= 32ull * m;
}

/* n buffers, about k alive at a time over `steps` begin times, in `pools`
 * pools (candidate lists in varied orders, sometimes under a limit), one
 * in a hundred without a live range; about pct percent of them each get
 * an overlap rule with a buffer alive with them and a conflict edge
 * (mostly to one not alive with them), and a few are fixed (stacked in
 * pool 0) or empty. pct 0: a plain problem. */
static th_problem *mixed_problem(uint64_t *rng, uint32_t n, uint32_t k,
                                 uint32_t steps, uint32_t pools,
                                 unsigned pct, mix_stats *ms)
{
	th_problem *p = th_new();
	for (uint32_t q = 0; q < pools; q++) {
		char name[32];
		snprintf(name, sizeof name, "pool%u", q);
		uint64_t limit = USMP_UNBOUNDED;
		if (q > 0 || pools == 1 ? test_rand_range(rng, 0, 2) == 0 : 0) {
			limit = test_rand_range(rng, 1, 40) * 1000000ull;
			ms->limited++;
		}
		th_pool(p, name, limit, 1ull << test_rand_range(rng, 0, 3));
	}
	int aligned = test_rand_range(rng, 0, 1) == 0;
	for (uint32_t b = 0; b < n; b++) {
		char name[32];
		snprintf(name, sizeof name, "b%u", b);
		uint64_t al = aligned ? 1ull << test_rand_range(rng, 0, 6) : 1;
		uint64_t size = log_size(rng, 6);
		if (pct && test_rand_range(rng, 0, 199) == 0) {
			size = 0;
			ms->empty++;
		}
		if (test_rand_range(rng, 0, 99) == 0) {
			th_buffer_nolive(p, name, size, al);
			ms->nolive++;
		} else {
			int64_t lo, hi;
			if (test_rand_range(rng, 0, 49) == 0) {
				lo = 0;
				hi = steps;
			} else {
				lo = (int64_t)test_rand_range(rng, 0, steps - 1);
				hi = lo + 1 +
				     (int64_t)test_rand_range(rng, 0,
				                              2ull * k * steps / n);
			}
			th_buffer(p, name, size, al, lo, hi);
		}
		if (pools > 1 && test_rand_range(rng, 0, 2) != 0) {
			uint32_t c[4], m = (uint32_t)test_rand_range(rng, 1, pools);
			uint32_t first = (uint32_t)test_rand_range(rng, 0, pools - 1);
			for (uint32_t i = 0; i < m; i++)
				c[i] = (first + i) % pools;
			th_candidates(p, b, m, c);
		}
	}
	const usmp_view *v = th_view(p);
	uint32_t extra = pct ? (uint32_t)((uint64_t)n * pct / 100) + 1 : 0;
	for (uint32_t i = 0; i < extra; i++) {
		/* a rule between two buffers alive together, src the lower */
		uint32_t a = (uint32_t)test_rand_range(rng, 0, n - 2);
		for (uint32_t b = a + 1; b < n && b < a + 64; b++) {
			if (!usmp_live_overlap(v, a, b))
				continue;
			int64_t s = (int64_t)v->buffers[a].size;
			th_rule(p, a, b,
			        (int64_t)test_rand_range(rng, 0, 2 * (uint64_t)s) - s);
			ms->rules++;
			break;
		}
		/* an edge, mostly between buffers not alive together */
		uint32_t x = (uint32_t)test_rand_range(rng, 0, n - 1);
		uint32_t y = (uint32_t)test_rand_range(rng, 0, n - 1);
		if (x != y) {
			th_edge(p, x, y);
			ms->edges++;
		}
	}
	/* a few fixed buffers stacked in pool 0 (never colliding) */
	v = th_view(p);
	uint64_t at = 0, pal = v->pools[0].alignment;
	uint64_t plim = v->pools[0].size_limit;
	uint32_t nfix = pct ? (uint32_t)test_rand_range(rng, 0, n / 200 + 1)
	                    : 0;
	uint32_t fix[32], fcount = 0;
	uint64_t foff[32];
	for (uint32_t i = 0; i < nfix && fcount < 32; i++) {
		uint32_t b = (uint32_t)test_rand_range(rng, 0, n - 1);
		const usmp_buffer_rec *r = &v->buffers[b];
		int again = 0;
		for (uint32_t j = 0; j < fcount; j++)
			again |= fix[j] == b;
		if (again)
			continue;
		uint64_t al = r->alignment > pal ? r->alignment : pal;
		uint64_t x = (at + al - 1) / al * al;
		if (x + r->size > plim)
			break;
		fix[fcount] = b;
		foff[fcount++] = x;
		at = x + r->size;
	}
	for (uint32_t j = 0; j < fcount; j++) {
		uint32_t zero = 0;
		th_fixed(p, fix[j], 0, foff[j]);
		th_candidates(p, fix[j], 1, &zero);
		ms->fixed++;
	}
	ms->problems++;
	ms->dense += gap_dense(th_view(p));
	return p;
}

static void assert_mix_covered(const mix_stats *ms, const equiv_stats *st)
{
	/* every kind occurs, and the gap index is on for most problems */
	cr_assert_gt(ms->rules, 0);
	cr_assert_gt(ms->edges, 0);
	cr_assert_gt(ms->fixed, 0);
	cr_assert_gt(ms->empty, 0);
	cr_assert_gt(ms->nolive, 0);
	cr_assert_gt(ms->limited, 0);
	cr_assert_geq(ms->dense * 4, ms->problems * 3, "%u of %u dense",
	              ms->dense, ms->problems);
	cr_assert_gt(st->feasible, st->runs / 2);
}

/* One pool: small dense problems (few begin times) and XLA-shaped ones
 * where 1 % to 5 % of the buffers have rules, edges or fixed offsets. */
Test(fit_speed_equiv, same_plans_when_plain_buffers_mix_with_other_kinds)
{
	uint64_t rng = 20261204;
	equiv_stats st = { 0, 0 };
	mix_stats ms;
	memset(&ms, 0, sizeof ms);
	/* 80 and 3 (20 and 1 under the sanitizers) */
	const int small = TEST_SWEEP(80), large = 1 + TEST_SWEEP(2);
	for (int i = 0; i < small + large; i++) {
		uint32_t n, k, steps;
		if (i < small) {
			n = (uint32_t)test_rand_range(&rng, 60, 300);
			steps = (uint32_t)test_rand_range(&rng, 2, 8);
			k = n / 2;
		} else {
			n = (uint32_t)test_rand_range(&rng, 800, 1600);
			k = (uint32_t)test_rand_range(&rng, 100, 400);
			steps = n;
		}
		unsigned pct = (unsigned)test_rand_range(&rng, 1, 5);
		th_problem *p = mixed_problem(&rng, n, k, steps, 1, pct, &ms);
		char what[80];
		snprintf(what, sizeof what, "mixed #%d (n=%u k=%u, %u %%)", i, n,
		         k, pct);
		compare_view(th_view(p), what, &st);
		th_free(p);
	}
	cr_assert_eq(st.runs, (unsigned)(small + large) * 10);
	assert_mix_covered(&ms, &st);
}

/* Two to four pools, each with its own gap index: plain problems and
 * mixed ones, candidate lists in varied orders, some pools limited so
 * that buffers move on to their next candidate. */
Test(fit_speed_equiv, same_plans_with_several_pools)
{
	uint64_t rng = 4242;
	equiv_stats st = { 0, 0 };
	mix_stats ms;
	memset(&ms, 0, sizeof ms);
	/* 80 and 3 (20 and 1 under the sanitizers) */
	const int small = TEST_SWEEP(80), large = 1 + TEST_SWEEP(2);
	for (int i = 0; i < small + large; i++) {
		uint32_t n, k, steps;
		uint32_t pools = (uint32_t)test_rand_range(&rng, 2, 4);
		if (i < small) {
			n = (uint32_t)test_rand_range(&rng, 60, 300);
			steps = (uint32_t)test_rand_range(&rng, 2, 8);
			k = n / 2;
		} else {
			n = (uint32_t)test_rand_range(&rng, 800, 1600);
			k = (uint32_t)test_rand_range(&rng, 100, 400);
			steps = n;
		}
		/* every third problem plain: only the pools differ */
		unsigned pct = i % 3 ? (unsigned)test_rand_range(&rng, 1, 5) : 0;
		th_problem *p = mixed_problem(&rng, n, k, steps, pools, pct, &ms);
		char what[80];
		snprintf(what, sizeof what, "pools #%d (n=%u k=%u, %u pools)", i,
		         n, k, pools);
		compare_view(th_view(p), what, &st);
		th_free(p);
	}
	cr_assert_eq(st.runs, (unsigned)(small + large) * 10);
	assert_mix_covered(&ms, &st);
}
