/* test_fit_index.c — first_fit's gap index against a naive O(n^2) first
 * fit written here: identical placements on thousands of random problems. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

static const char *const orders[] = { "size", "lifetime", "area",
	                              "conflicts" };

/* The plugin's order: key desc, then size desc, then index asc. */
typedef struct ref_key {
	uint64_t k1, size;
	uint32_t idx;
} ref_key;

static int ref_cmp(const void *pa, const void *pb)
{
	const ref_key *a = pa, *b = pb;
	if (a->k1 != b->k1)
		return a->k1 > b->k1 ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static uint64_t ref_key1(const usmp_view *v, uint32_t b, int order)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	uint64_t life = (r->flags & USMP_BUFFER_LIVE)
	                        ? (uint64_t)(r->end - r->begin)
	                        : 0;
	switch (order) {
	case 1: return life;
	case 2:
		if (life && r->size > UINT64_MAX / life)
			return UINT64_MAX;
		return r->size * life;
	case 3: return v->degree ? v->degree[b] : 0;
	default: return r->size;
	}
}

/* Does [x, x + s) collide with the placed [off, end)? As the plugin reads
 * it: x < end and x + s > off (so an empty buffer collides only strictly
 * inside another). */
static int ref_hits(uint64_t x, uint64_t s, uint64_t off, uint64_t end)
{
	return x < end && x + s > off;
}

/* Naive first fit of one pool: every buffer in order at the lowest aligned
 * x that no placed live-overlapping buffer collides with; that x is 0 or
 * an aligned end of one of them. Returns USMP_OK or USMP_ERR_INFEASIBLE. */
static int ref_first_fit(const usmp_view *v, int order, uint64_t *off)
{
	uint32_t n = v->buffer_count;
	ref_key *k = calloc(n ? n : 1, sizeof *k);
	char *placed = calloc(n ? n : 1, 1);
	cr_assert(k && placed);
	for (uint32_t b = 0; b < n; b++) {
		k[b].k1 = ref_key1(v, b, order);
		k[b].size = v->buffers[b].size;
		k[b].idx = b;
	}
	qsort(k, n, sizeof *k, ref_cmp);
	int rc = USMP_OK;
	uint64_t limit = v->pools[0].size_limit;
	for (uint32_t i = 0; i < n && rc == USMP_OK; i++) {
		uint32_t b = k[i].idx;
		uint64_t s = v->buffers[b].size;
		uint64_t al = usmp_buffer_alignment(v, b, 0);
		int have = 0;
		uint64_t best = 0;
		for (uint32_t j = 0; j <= n; j++) {
			uint64_t x = 0;
			if (j < n) {
				if (!placed[j] || !usmp_live_overlap(v, b, j))
					continue;
				x = (off[j] + v->buffers[j].size + al - 1) &
				    ~(al - 1);
			}
			if (have && x >= best)
				continue;
			int ok = 1;
			for (uint32_t o = 0; o < n && ok; o++)
				if (placed[o] && usmp_live_overlap(v, b, o) &&
				    ref_hits(x, s, off[o],
				             off[o] + v->buffers[o].size))
					ok = 0;
			if (ok) {
				have = 1;
				best = x;
			}
		}
		if (!have || s > limit || best > limit - s) {
			rc = USMP_ERR_INFEASIBLE;
			break;
		}
		off[b] = best;
		placed[b] = 1;
	}
	free(k);
	free(placed);
	return rc;
}

/* Sizes over several decades (log-uniform-ish), some equal. */
static uint64_t rand_size(uint64_t *rng, int zero)
{
	if (zero && test_rand_range(rng, 0, 15) == 0)
		return 0;
	unsigned dec = (unsigned)test_rand_range(rng, 0, 5);
	uint64_t hi = 1;
	for (unsigned d = 0; d < dec; d++)
		hi *= 10;
	return test_rand_range(rng, 1, hi * 9);
}

/* A random one-pool problem: n buffers, many alive at once or few, random
 * alignments, sometimes a pool limit, sometimes unlived or empty buffers. */
static th_problem *rand_problem(uint64_t *rng, uint32_t n, int dense,
                                int *zero)
{
	th_problem *p = th_new();
	uint64_t limit = USMP_UNBOUNDED;
	int aligned = test_rand_range(rng, 0, 1) == 1;
	*zero = test_rand_range(rng, 0, 7) == 0;
	int nolive = test_rand_range(rng, 0, 5) == 0;
	if (test_rand_range(rng, 0, 3) == 0)
		limit = test_rand_range(rng, 1000, 2000000);
	th_pool(p, "pool", limit,
	        aligned ? 1ull << test_rand_range(rng, 0, 3) : 1);
	int64_t horizon = (int64_t)test_rand_range(rng, 1, 2 * n + 2);
	uint64_t maxlife = test_rand_range(rng, 1, (uint64_t)horizon + 1);
	uint64_t minlife = 1;
	if (dense) { /* most buffers alive at once */
		horizon = (int64_t)test_rand_range(rng, 1, n / 4 + 1);
		minlife = (uint64_t)horizon / 2 + 1;
		maxlife = 4 * (uint64_t)horizon;
	}
	for (uint32_t b = 0; b < n; b++) {
		char name[32];
		snprintf(name, sizeof name, "b%u", b);
		uint64_t size = rand_size(rng, *zero);
		uint64_t al = aligned ? 1ull << test_rand_range(rng, 0, 6) : 1;
		if (nolive && test_rand_range(rng, 0, 9) == 0) {
			th_buffer_nolive(p, name, size, al);
			continue;
		}
		int64_t begin = (int64_t)test_rand_range(rng, 0,
		                                         (uint64_t)horizon) -
		                5;
		int64_t len = (int64_t)test_rand_range(rng, minlife, maxlife);
		th_buffer(p, name, size, al, begin, begin + len);
	}
	return p;
}

/* Whether the plugin takes its gap index for v: on average 32 or more
 * live buffers alive at each distinct begin time (these problems have
 * one pool; with an empty buffer, *zero, the buffers alive with it use
 * the lists). */
static int dense_enough(const usmp_view *v)
{
	uint64_t cover = 0, times = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_LIVE))
			continue;
		int first = 1;
		for (uint32_t o = 0; o < b; o++)
			if ((v->buffers[o].flags & USMP_BUFFER_LIVE) &&
			    v->buffers[o].begin == r->begin)
				first = 0;
		times += first;
		for (uint32_t o = 0; o < v->buffer_count; o++)
			if ((v->buffers[o].flags & USMP_BUFFER_LIVE) &&
			    v->buffers[o].begin <= r->begin &&
			    r->begin < v->buffers[o].end)
				cover += first;
	}
	return times && cover >= 32 * times;
}

static void compare_one(uint64_t *rng, uint32_t n, int dense,
                        unsigned *feasible, unsigned *indexed)
{
	const usmp_algorithm *a = th_algorithm("fit", "first_fit");
	cr_assert_not_null(a);
	int zero;
	th_problem *p = rand_problem(rng, n, dense, &zero);
	const usmp_view *v = th_view(p);
	if (!zero && dense_enough(v))
		(*indexed)++;
	uint64_t *want = calloc(n, sizeof *want);
	cr_assert_not_null(want);
	for (int o = 0; o < 4; o++) {
		int wrc = ref_first_fit(v, o, want);
		th_host h;
		th_host_init(&h, v);
		usmp_placement *out = th_out(v);
		int rc = ((th_fn_str)a->fn)(v, &h.host, out, orders[o]);
		cr_assert_eq(h.live_allocs, 0, "leaked %ld blocks",
		             h.live_allocs);
		cr_assert_eq(rc, wrc, "n=%u order=%s: status %d, reference %d",
		             n, orders[o], rc, wrc);
		if (rc == USMP_OK) {
			(*feasible)++;
			for (uint32_t b = 0; b < n; b++) {
				cr_assert_eq(out[b].pool, 0);
				cr_assert_eq(out[b].offset, want[b],
				             "n=%u order=%s zero=%d: buffer %u "
				             "at %llu, reference %llu",
				             n, orders[o], zero, b,
				             (unsigned long long)out[b].offset,
				             (unsigned long long)want[b]);
			}
		}
		free(out);
	}
	free(want);
	th_free(p);
}

Test(fit_index, first_fit_equals_naive_first_fit_on_small_problems)
{
	uint64_t rng = 20261203;
	unsigned feasible = 0, indexed = 0;
	/* a quarter under the sanitizers (TEST_SWEEP): the shares asserted
	 * below hold for both */
	const int count = TEST_SWEEP(3000);
	for (int i = 0; i < count; i++) {
		int dense = i % 2;
		uint32_t n = dense ? (uint32_t)test_rand_range(&rng, 40, 80)
		                   : (uint32_t)test_rand_range(&rng, 1, 40);
		compare_one(&rng, n, dense, &feasible, &indexed);
	}
	/* both outcomes, and both the gap index and the lists, are
	 * exercised */
	cr_assert_gt(feasible, (unsigned)count);
	cr_assert_lt(feasible, 4 * (unsigned)count);
	cr_assert_gt(indexed, (unsigned)count / 6, "%u problems dense enough",
	             indexed);
	cr_assert_lt(indexed, (unsigned)count * 5 / 6, "%u problems dense enough",
	             indexed);
}

Test(fit_index, first_fit_equals_naive_first_fit_with_hundreds_alive)
{
	uint64_t rng = 77;
	unsigned feasible = 0, indexed = 0;
	for (int i = 0; i < 40; i++)
		compare_one(&rng, (uint32_t)test_rand_range(&rng, 200, 400),
		            i % 2, &feasible, &indexed);
	cr_assert_gt(feasible, 0);
	cr_assert_gt(indexed, 10, "%u problems dense enough", indexed);
}
