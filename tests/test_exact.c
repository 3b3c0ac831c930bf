/* test_exact.c — the exact plugin, called directly through its descriptor:
 * optimality and feasibility against a brute force, scope refusals, anytime. */
#include <criterion/criterion.h>
#include <usmp/plugin.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

typedef int (*exact_fn)(const usmp_view *, const usmp_host *, usmp_placement *,
                        uint64_t, double, bool, uint32_t, uint32_t);
/* exact's default split and part knobs (parts beyond them). */
#define SPLIT 10000u, 1000u

/* ---- a small host table ------------------------------------------------ */

/* The harness's counting host (th_host), its neighbours the live overlaps
 * alone. */
static int t_neighbors(const usmp_host *h, uint32_t b, usmp_neighbor_fn fn,
                       void *arg)
{
	const usmp_view *v = ((const th_host *)h)->view;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (i != b && usmp_live_overlap(v, i, b)) {
			int r = fn(arg, i);
			if (r)
				return r;
		}
	return 0;
}

static void host_init(th_host *t, const usmp_view *v)
{
	th_host_init(t, v);
	t->host.for_each_neighbor = t_neighbors;
}

static exact_fn load_exact(void)
{
	const usmp_algorithm *a = th_algorithm("exact", "exact");
	cr_assert_not_null(a, "no algorithm 'exact' in the exact plugin");
	return (exact_fn)a->fn;
}

/* ---- problems ------------------------------------------------------------ */

#define MAXB 16

typedef struct prob {
	usmp_pool_rec pool[2];
	usmp_buffer_rec buf[MAXB];
	char names[MAXB][16];
	uint32_t cand[2];
	uint64_t cstart[MAXB + 1];
	uint32_t adj[2];
	uint64_t degree[MAXB];
	usmp_overlap_rec rule;
	usmp_view v;
} prob;

static void prob_init(prob *p, uint32_t n, uint64_t size_limit,
                      uint64_t pool_align)
{
	memset(p, 0, sizeof *p);
	p->pool[0] = (usmp_pool_rec){"p0", size_limit, pool_align};
	p->pool[1] = (usmp_pool_rec){"p1", USMP_UNBOUNDED, 1};
	for (uint32_t i = 0; i < n; i++) {
		snprintf(p->names[i], sizeof p->names[i], "b%u", i);
		p->buf[i].name = p->names[i];
		p->buf[i].alignment = 1;
		p->buf[i].candidate_count = 1;
		p->buf[i].flags = USMP_BUFFER_LIVE;
	}
	p->v.struct_size = sizeof p->v;
	p->v.pool_count = 1;
	p->v.buffer_count = n;
	p->v.pools = p->pool;
	p->v.buffers = p->buf;
	p->v.candidates = p->cand;
	p->v.conflict_start = p->cstart;
	p->v.conflict_adj = p->adj;
	p->v.degree = p->degree;
	p->v.target = "";
}

/* Largest total size alive at once (the host's bound without rules):
 * a buffer without a live range conflicts with nothing, so it counts only
 * on its own. */
static uint64_t live_bound(const prob *p)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i <= p->v.buffer_count; i++) {
		bool at_begin = i < p->v.buffer_count &&
		                (p->buf[i].flags & USMP_BUFFER_LIVE);
		uint64_t s = 0;
		for (uint32_t j = 0; j < p->v.buffer_count; j++) {
			const usmp_buffer_rec *b = &p->buf[j];
			if (at_begin && (b->flags & USMP_BUFFER_LIVE) &&
			    b->begin <= p->buf[i].begin && p->buf[i].begin < b->end)
				s += b->size;
		}
		if (s > best)
			best = s;
		if (i < p->v.buffer_count && p->buf[i].size > best)
			best = p->buf[i].size;
	}
	return best;
}

static void prob_finish(prob *p)
{
	for (uint32_t i = 0; i < p->v.buffer_count; i++) {
		p->degree[i] = 0;
		for (uint32_t j = 0; j < p->v.buffer_count; j++)
			if (i != j && usmp_live_overlap(&p->v, i, j))
				p->degree[i]++;
	}
	p->v.lower_bound = live_bound(p);
}

static bool conflict(const prob *p, uint32_t a, uint32_t b)
{
	const usmp_buffer_rec *x = &p->buf[a], *y = &p->buf[b];
	if (!(x->flags & USMP_BUFFER_LIVE) || !(y->flags & USMP_BUFFER_LIVE))
		return false; /* no live range: conflicts with nothing */
	return x->begin < y->end && y->begin < x->end;
}

static uint64_t align_of(const prob *p, uint32_t b)
{
	return usmp_buffer_alignment(&p->v, b, 0);
}

/* Checks a plan pairwise; returns its peak, or UINT64_MAX when invalid. */
static uint64_t check_plan(const prob *p, const usmp_placement *out)
{
	uint64_t peak = 0;
	uint32_t n = p->v.buffer_count;
	for (uint32_t i = 0; i < n; i++) {
		if (out[i].pool != 0 || out[i].offset % align_of(p, i))
			return UINT64_MAX;
		if ((p->buf[i].flags & USMP_BUFFER_FIXED) &&
		    out[i].offset != p->buf[i].fixed_offset)
			return UINT64_MAX;
		if (out[i].offset + p->buf[i].size > peak)
			peak = out[i].offset + p->buf[i].size;
		for (uint32_t j = i + 1; j < n; j++)
			if (conflict(p, i, j) &&
			    out[i].offset < out[j].offset + p->buf[j].size &&
			    out[j].offset < out[i].offset + p->buf[i].size)
				return UINT64_MAX;
	}
	return peak;
}

/* ---- brute force ----------------------------------------------------------
 * Every optimal plan can be pushed down until each free buffer sits at the
 * lowest aligned offset, at or above the ends of the conflicting free buffers
 * below it, that misses the fixed ones; so trying every order of the free
 * buffers with that rule finds the optimum. The search here shares no code
 * and none of the pruning with the plugin. */

typedef struct brute {
	const prob *p;
	uint32_t freeb[MAXB], nfree;
	uint64_t off[MAXB];
	bool used[MAXB];
	uint64_t best;
} brute;

static uint64_t lowest_fit(const brute *b, uint32_t x, uint64_t o)
{
	const prob *p = b->p;
	uint64_t a = align_of(p, x);
	o = (o + a - 1) / a * a;
	for (bool moved = true; moved;) {
		moved = false;
		for (uint32_t f = 0; f < p->v.buffer_count; f++) {
			if (!(p->buf[f].flags & USMP_BUFFER_FIXED) || !conflict(p, f, x))
				continue;
			uint64_t fo = p->buf[f].fixed_offset, fe = fo + p->buf[f].size;
			if (o < fe && fo < o + p->buf[x].size) {
				o = (fe + a - 1) / a * a;
				moved = true;
			}
		}
	}
	return o;
}

static void brute_rec(brute *b, uint32_t depth, uint64_t peak)
{
	if (peak >= b->best)
		return;
	if (depth == b->nfree) {
		b->best = peak;
		return;
	}
	const prob *p = b->p;
	for (uint32_t k = 0; k < b->nfree; k++) {
		uint32_t x = b->freeb[k];
		if (b->used[x])
			continue;
		uint64_t o = 0;
		for (uint32_t y = 0; y < p->v.buffer_count; y++)
			if (b->used[y] && y != x && conflict(p, x, y) &&
			    b->off[y] + p->buf[y].size > o)
				o = b->off[y] + p->buf[y].size;
		o = lowest_fit(b, x, o);
		b->off[x] = o;
		b->used[x] = true;
		uint64_t e = o + p->buf[x].size;
		brute_rec(b, depth + 1, e > peak ? e : peak);
		b->used[x] = false;
	}
}

/* The optimal peak, or UINT64_MAX when fixed buffers clash. */
static uint64_t brute_optimum(const prob *p)
{
	brute b;
	memset(&b, 0, sizeof b);
	b.p = p;
	b.best = UINT64_MAX;
	uint64_t fixed_peak = 0;
	for (uint32_t i = 0; i < p->v.buffer_count; i++) {
		if (p->buf[i].flags & USMP_BUFFER_FIXED) {
			uint64_t e = p->buf[i].fixed_offset + p->buf[i].size;
			fixed_peak = e > fixed_peak ? e : fixed_peak;
			for (uint32_t j = 0; j < i; j++)
				if ((p->buf[j].flags & USMP_BUFFER_FIXED) &&
				    conflict(p, i, j) &&
				    p->buf[i].fixed_offset < p->buf[j].fixed_offset + p->buf[j].size &&
				    p->buf[j].fixed_offset < e)
					return UINT64_MAX;
		} else {
			b.freeb[b.nfree++] = i;
		}
	}
	brute_rec(&b, 0, fixed_peak);
	return b.best;
}

/* A random problem: n buffers over a short horizon, random sizes and
 * alignments, and now and then fixed buffers or buffers without ranges. */
static void random_prob(prob *p, uint64_t *rng, uint32_t n, bool fixed,
                        bool unlive)
{
	uint64_t palign = test_rand_range(rng, 0, 3) == 0 ? 2 : 1;
	prob_init(p, n, USMP_UNBOUNDED, palign);
	uint64_t horizon = test_rand_range(rng, 2, 12);
	for (uint32_t i = 0; i < n; i++) {
		usmp_buffer_rec *b = &p->buf[i];
		b->begin = (int64_t)test_rand_range(rng, 0, horizon - 1);
		b->end = b->begin + (int64_t)test_rand_range(rng, 1, horizon - (uint64_t)b->begin);
		b->size = test_rand_range(rng, 1, test_rand_range(rng, 0, 1) ? 8 : 40);
		b->alignment = (uint64_t)1 << test_rand_range(rng, 0, 3);
		if (unlive && test_rand_range(rng, 0, 9) == 0)
			b->flags = 0;
		if (fixed && test_rand_range(rng, 0, 5) == 0) {
			uint64_t a = align_of(p, i);
			b->flags |= USMP_BUFFER_FIXED;
			b->fixed_pool = 0;
			b->fixed_offset = test_rand_range(rng, 0, 30) / a * a;
		}
	}
	prob_finish(p);
}

static int run_exact(const prob *p, th_host *t, usmp_placement *out,
                     uint64_t capacity, double tl, bool minimize)
{
	exact_fn fn = load_exact();
	host_init(t, &p->v);
	for (uint32_t i = 0; i < p->v.buffer_count; i++) {
		out[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		if (p->buf[i].flags & USMP_BUFFER_FIXED)
			out[i] = (usmp_placement){0, 0, p->buf[i].fixed_offset};
	}
	int rc = fn(&p->v, &t->host, out, capacity, tl, minimize, SPLIT);
	cr_assert_eq(t->live_allocs, 0, "plugin leaked %ld blocks", t->live_allocs);
	return rc;
}

/* ---- tests ---------------------------------------------------------------- */

Test(exact, descriptor_names_one_exact_algorithm)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/plugins/exact.so", test_build_root());
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(dl);
	const usmp_plugin *p = dlsym(dl, "usmp_plugin_v1");
	cr_assert_not_null(p);
	cr_assert_str_eq(p->name, "exact");
	cr_assert_eq(p->abi_major, USMP_ABI_MAJOR);
	cr_assert_eq(p->algorithm_count, 2); /* exact, exact_window */
	const usmp_algorithm *a = p->algorithms[0];
	cr_assert_str_eq(a->name, "exact");
	cr_assert_str_eq(a->params,
	                 "capacity:u64=0 time_limit:f64=0 minimize:bool=true "
	                 "split:u32=10000 part:u32=1000");
	cr_assert(a->caps & USMP_CAP_EXACT);
	cr_assert(a->caps & USMP_CAP_ANYTIME);
	cr_assert(a->caps & USMP_CAP_FIXED_OFFSETS);
	cr_assert(a->caps & USMP_CAP_DETERMINISTIC);
	cr_assert(a->caps & USMP_CAP_OVERLAP_RULES);
	cr_assert(a->caps & USMP_CAP_MULTI_POOL);
	cr_assert(a->caps & USMP_CAP_EXPLICIT_CONFLICTS);
	dlclose(dl);
}

Test(exact, minimise_equals_brute_force_on_random_problems)
{
	uint64_t rng = 12345;
	for (int iter = 0; iter < 3000; iter++) {
		prob p;
		uint32_t n = (uint32_t)test_rand_range(&rng, 1, iter % 4 ? 6 : 8);
		random_prob(&p, &rng, n, false, false);
		uint64_t opt = brute_optimum(&p);
		usmp_placement out[MAXB];
		th_host t;
		int rc = run_exact(&p, &t, out, 0, 0, true);
		cr_assert_eq(rc, USMP_OK, "iter %d: rc %d", iter, rc);
		uint64_t peak = check_plan(&p, out);
		cr_assert_neq(peak, UINT64_MAX, "iter %d: invalid plan", iter);
		cr_assert_eq(peak, opt, "iter %d: peak %llu, optimum %llu", iter,
		             (unsigned long long)peak, (unsigned long long)opt);
		cr_assert_geq(peak, p.v.lower_bound, "iter %d", iter);
		cr_assert(t.reported && t.optimal && t.bound == peak, "iter %d", iter);
	}
}

Test(exact, minimise_with_fixed_and_rangeless_buffers_equals_brute_force)
{
	uint64_t rng = 777;
	int infeasible = 0;
	for (int iter = 0; iter < 2000; iter++) {
		prob p;
		uint32_t n = (uint32_t)test_rand_range(&rng, 1, 7);
		random_prob(&p, &rng, n, true, true);
		uint64_t opt = brute_optimum(&p);
		usmp_placement out[MAXB];
		th_host t;
		int rc = run_exact(&p, &t, out, 0, 0, true);
		if (opt == UINT64_MAX) {
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "iter %d: rc %d", iter, rc);
			infeasible++;
			continue;
		}
		cr_assert_eq(rc, USMP_OK, "iter %d: rc %d", iter, rc);
		uint64_t peak = check_plan(&p, out);
		cr_assert_neq(peak, UINT64_MAX, "iter %d: invalid plan", iter);
		cr_assert_eq(peak, opt, "iter %d: peak %llu, optimum %llu", iter,
		             (unsigned long long)peak, (unsigned long long)opt);
		cr_assert(t.reported && t.optimal && t.bound == peak, "iter %d", iter);
	}
	cr_assert_gt(infeasible, 0, "the generator made no clashing fixed buffers");
}

Test(exact, feasibility_agrees_with_brute_force)
{
	uint64_t rng = 99;
	for (int iter = 0; iter < 1500; iter++) {
		prob p;
		uint32_t n = (uint32_t)test_rand_range(&rng, 1, 7);
		random_prob(&p, &rng, n, iter % 3 == 0, false);
		uint64_t opt = brute_optimum(&p);
		if (opt == UINT64_MAX)
			continue;
		usmp_placement out[MAXB];
		th_host t;
		/* At the optimum: feasible, through the capacity knob. */
		int rc = run_exact(&p, &t, out, opt, 0, false);
		cr_assert_eq(rc, USMP_OK, "iter %d: rc %d", iter, rc);
		uint64_t peak = check_plan(&p, out);
		cr_assert_leq(peak, opt, "iter %d", iter);
		/* One byte below: infeasible, through the pool's size limit. */
		if (opt > 0) {
			p.pool[0].size_limit = opt - 1;
			rc = run_exact(&p, &t, out, 0, 0, false);
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "iter %d: rc %d", iter, rc);
			rc = run_exact(&p, &t, out, 0, 0, true);
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "iter %d: rc %d", iter, rc);
		}
	}
}

Test(exact, larger_random_problems_give_valid_plans_within_bounds)
{
	uint64_t rng = 4242;
	/* Under the sanitizers each search is ~5x slower: fewer problems keep
	 * the suite within its time budget (the normal build runs all 300). */
#if defined(__SANITIZE_ADDRESS__)
	const int iters = 60;
#else
	const int iters = 300;
#endif
	for (int iter = 0; iter < iters; iter++) {
		prob p;
		uint32_t n = (uint32_t)test_rand_range(&rng, 9, 12);
		random_prob(&p, &rng, n, false, false);
		usmp_placement out[MAXB];
		th_host t;
		int rc = run_exact(&p, &t, out, 0, 0, true);
		cr_assert_eq(rc, USMP_OK);
		uint64_t peak = check_plan(&p, out);
		cr_assert_neq(peak, UINT64_MAX, "iter %d: invalid plan", iter);
		cr_assert_geq(peak, p.v.lower_bound);
		cr_assert(t.reported && t.optimal && t.bound == peak);
		/* Optimal means nothing fits one byte lower. */
		p.pool[0].size_limit = peak - 1;
		rc = run_exact(&p, &t, out, 0, 0, false);
		cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "iter %d", iter);
	}
}

Test(exact, fixed_offsets_are_honoured)
{
	prob p;
	prob_init(&p, 3, USMP_UNBOUNDED, 1);
	p.buf[0] = (usmp_buffer_rec){.name = "f", .size = 4, .alignment = 1,
	                             .begin = 0, .end = 10,
	                             .flags = USMP_BUFFER_LIVE | USMP_BUFFER_FIXED,
	                             .candidate_count = 1, .fixed_offset = 2};
	p.buf[1].size = 2;
	p.buf[1].begin = 0;
	p.buf[1].end = 5;
	p.buf[2].size = 3;
	p.buf[2].begin = 3;
	p.buf[2].end = 8;
	prob_finish(&p);
	usmp_placement out[MAXB];
	th_host t;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert_eq(out[0].offset, 2);
	/* b1 (2 bytes) fits under the fixed buffer; b2 must go above it. */
	cr_assert_eq(out[1].offset, 0);
	cr_assert_eq(check_plan(&p, out), 9);
}

Test(exact, minimalloc_readme_example_fits_in_12)
{
	/* The 5-buffer example from MiniMalloc's README (Apache-2.0). */
	static const int64_t rows[5][3] = {
		{0, 3, 4}, {3, 9, 4}, {0, 9, 4}, {9, 21, 4}, {0, 21, 4}};
	prob p;
	prob_init(&p, 5, 12, 1);
	for (int i = 0; i < 5; i++) {
		p.buf[i].begin = rows[i][0];
		p.buf[i].end = rows[i][1];
		p.buf[i].size = (uint64_t)rows[i][2];
	}
	prob_finish(&p);
	usmp_placement out[MAXB];
	th_host t;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, false), USMP_OK);
	cr_assert_eq(check_plan(&p, out), 12);
	cr_assert_eq(run_exact(&p, &t, out, 11, 0, false), USMP_ERR_INFEASIBLE);
}

Test(exact, several_pools_candidates_and_edges_are_planned)
{
	prob p;
	usmp_placement out[MAXB];
	th_host t;
	prob_init(&p, 2, 6, 1);
	p.buf[0].size = p.buf[1].size = 4;
	p.buf[0].end = p.buf[1].end = 2;
	prob_finish(&p);
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_ERR_INFEASIBLE);
	/* Two pools: b1 may spill to the unbounded p1 (cand = {0, 1}). */
	p.v.pool_count = 2;
	p.cand[1] = 1;
	p.buf[1].candidate_count = 2;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert_eq(out[0].pool, 0);
	cr_assert_eq(out[1].pool, 1);
	cr_assert(t.reported && t.optimal);
	cr_assert_eq(t.bound, 8);
	/* An explicit edge, no live ranges: the same answer. */
	p.buf[0].flags = p.buf[1].flags = 0;
	p.cstart[1] = 1;
	p.cstart[2] = 2;
	p.adj[0] = 1;
	p.adj[1] = 0;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert_eq(out[1].pool, 1);
	/* Without the edge they share pool 0 (no spill). */
	p.cstart[1] = p.cstart[2] = 0;
	p.v.lower_bound = 4;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert_eq(out[0].pool, 0);
	cr_assert_eq(out[1].pool, 0);
	cr_assert(t.reported && t.optimal);
	cr_assert_eq(t.bound, 4);
}

/* One pool, two buffers alive together, an in-place rule: the one-pool
 * search takes the rule as a conflict (8, unproven), then the several-pool
 * search shares as the rule allows: both at offset 0, proven at 4. */
Test(exact, one_pool_in_place_rule_shares_and_is_proven_at_the_bound)
{
	prob p;
	usmp_placement out[MAXB];
	th_host t;
	prob_init(&p, 2, USMP_UNBOUNDED, 1);
	p.buf[0].size = p.buf[1].size = 4;
	p.buf[0].end = p.buf[1].end = 2;
	prob_finish(&p);
	p.rule = (usmp_overlap_rec){0, 1, 0};
	p.v.overlaps = &p.rule;
	p.v.overlap_count = 1;
	p.v.lower_bound = 4;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert_eq(out[0].pool, 0);
	cr_assert_eq(out[1].pool, 0);
	cr_assert_eq(out[0].offset, 0);
	cr_assert_eq(out[1].offset, 0); /* dst <= src + 0 holds */
	cr_assert(t.reported && t.optimal);
	cr_assert_eq(t.bound, 4);
}

Test(exact, stop_at_once_returns_a_valid_plan_or_stopped)
{
	uint64_t rng = 5;
	exact_fn fn = load_exact();
	for (int iter = 0; iter < 200; iter++) {
		prob p;
		random_prob(&p, &rng, (uint32_t)test_rand_range(&rng, 1, 12),
		            iter % 2, false);
		usmp_placement out[MAXB];
		th_host t;
		host_init(&t, &p.v);
		t.stop_after = 1;
		for (uint32_t i = 0; i < p.v.buffer_count; i++)
			out[i] = (p.buf[i].flags & USMP_BUFFER_FIXED)
			                 ? (usmp_placement){0, 0, p.buf[i].fixed_offset}
			                 : (usmp_placement){USMP_NO_POOL, 0, 0};
		int rc = fn(&p.v, &t.host, out, 0, 0, true, SPLIT);
		cr_assert(rc == USMP_OK || rc == USMP_ERR_STOPPED ||
		          rc == USMP_ERR_INFEASIBLE, "iter %d: rc %d", iter, rc);
		if (rc == USMP_OK) {
			uint64_t peak = check_plan(&p, out);
			cr_assert_neq(peak, UINT64_MAX, "iter %d", iter);
			cr_assert(t.reported && t.bound <= peak);
		}
		cr_assert_eq(t.live_allocs, 0);
	}
}

Test(exact, bad_time_limit_is_invalid)
{
	prob p;
	prob_init(&p, 1, USMP_UNBOUNDED, 1);
	p.buf[0].size = 1;
	p.buf[0].end = 1;
	prob_finish(&p);
	usmp_placement out[MAXB];
	th_host t;
	cr_assert_eq(run_exact(&p, &t, out, 0, -1.0, true), USMP_ERR_INVALID);
}

Test(exact, empty_problem_is_optimal_at_zero)
{
	prob p;
	prob_init(&p, 0, USMP_UNBOUNDED, 1);
	prob_finish(&p);
	usmp_placement out[1];
	th_host t;
	cr_assert_eq(run_exact(&p, &t, out, 0, 0, true), USMP_OK);
	cr_assert(t.reported && t.optimal && t.bound == 0);
}

/* ---- MiniMalloc benchmark files (Apache-2.0, tests/data/minimalloc) -- */

typedef struct csv_prob {
	usmp_pool_rec pool;
	usmp_buffer_rec *buf;
	uint64_t *cstart, *degree;
	uint32_t cand;
	usmp_view v;
} csv_prob;

/* The one-pool view of p's n buffers (in p->buf; p->cstart and p->degree
 * allocated): degrees by live overlap, the lower bound the largest load at a
 * begin. */
static void csv_view(csv_prob *p, uint32_t n, uint64_t size_limit)
{
	p->pool = (usmp_pool_rec){"pool", size_limit, 1};
	p->v = (usmp_view){.struct_size = sizeof p->v, .pool_count = 1,
	                   .buffer_count = n, .pools = &p->pool,
	                   .buffers = p->buf, .candidates = &p->cand,
	                   .conflict_start = p->cstart, .degree = p->degree,
	                   .target = ""};
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = 0;
		for (uint32_t j = 0; j < n; j++) {
			if (i != j && usmp_live_overlap(&p->v, i, j))
				p->degree[i]++;
			if (p->buf[j].begin <= p->buf[i].begin &&
			    p->buf[i].begin < p->buf[j].end)
				s += p->buf[j].size;
		}
		if (s > p->v.lower_bound)
			p->v.lower_bound = s;
	}
}

static bool load_csv(csv_prob *p, const char *name, uint64_t size_limit)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/minimalloc/%s",
	         test_source_root(), name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	memset(p, 0, sizeof *p);
	uint32_t n = 0, cap = 1024;
	p->buf = calloc(cap, sizeof *p->buf);
	char line[256];
	while (p->buf && n < cap && fgets(line, sizeof line, f)) {
		long long lo, hi, size;
		if (sscanf(line, "%*[^,],%lld,%lld,%lld", &lo, &hi, &size) != 3)
			continue;
		p->buf[n] = (usmp_buffer_rec){.name = "b", .size = (uint64_t)size,
		                              .alignment = 1, .begin = lo,
		                              .end = hi, .flags = USMP_BUFFER_LIVE,
		                              .candidate_count = 1};
		n++;
	}
	fclose(f);
	p->cstart = calloc(n + 1, sizeof *p->cstart);
	p->degree = calloc(n + 1, sizeof *p->degree);
	csv_view(p, n, size_limit);
	return p->buf && p->cstart && p->degree && n > 0;
}

static uint64_t csv_check(const csv_prob *p, const usmp_placement *out)
{
	uint64_t peak = 0;
	for (uint32_t i = 0; i < p->v.buffer_count; i++) {
		if (out[i].pool != 0)
			return UINT64_MAX;
		uint64_t e = out[i].offset + p->buf[i].size;
		peak = e > peak ? e : peak;
		for (uint32_t j = i + 1; j < p->v.buffer_count; j++)
			if (usmp_live_overlap(&p->v, i, j) &&
			    out[i].offset < out[j].offset + p->buf[j].size &&
			    out[j].offset < e)
				return UINT64_MAX;
	}
	return peak;
}

static void csv_free(csv_prob *p)
{
	free(p->buf);
	free(p->cstart);
	free(p->degree);
}

Test(exact, minimalloc_K_fits_in_1048576)
{
	csv_prob p;
	cr_assert(load_csv(&p, "K.1048576.csv", 1048576));
	usmp_placement *out = calloc(p.v.buffer_count, sizeof *out);
	th_host t;
	host_init(&t, &p.v);
	int rc = load_exact()(&p.v, &t.host, out, 0, 60, false, SPLIT);
	cr_assert_eq(rc, USMP_OK);
	uint64_t peak = csv_check(&p, out);
	cr_assert_leq(peak, 1048576);
	cr_assert_eq(t.live_allocs, 0);
	free(out);
	csv_free(&p);
}

Test(exact, minimalloc_C_is_optimal_at_its_lower_bound)
{
	csv_prob p;
	cr_assert(load_csv(&p, "C.1048576.csv", USMP_UNBOUNDED));
	cr_assert_eq(p.v.lower_bound, 1039360);
	usmp_placement *out = calloc(p.v.buffer_count, sizeof *out);
	th_host t;
	host_init(&t, &p.v);
	int rc = load_exact()(&p.v, &t.host, out, 0, 60, true, SPLIT);
	cr_assert_eq(rc, USMP_OK);
	cr_assert_eq(csv_check(&p, out), 1039360);
	cr_assert(t.reported && t.optimal && t.bound == 1039360);
	free(out);
	csv_free(&p);
}

/* ---- structured problems ----------------------------------------------- */

/* A problem from rows {begin, end, size in units}, sizes times unit. */
static void rows_prob(csv_prob *p, const int64_t (*rows)[3], uint32_t n,
                      uint64_t unit)
{
	memset(p, 0, sizeof *p);
	p->buf = calloc(n, sizeof *p->buf);
	p->cstart = calloc(n + 1, sizeof *p->cstart);
	p->degree = calloc(n + 1, sizeof *p->degree);
	cr_assert(p->buf && p->cstart && p->degree);
	for (uint32_t i = 0; i < n; i++)
		p->buf[i] = (usmp_buffer_rec){.name = "b",
		                              .size = (uint64_t)rows[i][2] * unit,
		                              .alignment = 1, .begin = rows[i][0],
		                              .end = rows[i][1],
		                              .flags = USMP_BUFFER_LIVE,
		                              .candidate_count = 1};
	csv_view(p, n, USMP_UNBOUNDED);
}

/* Nine buffers whose fullest step holds 7 units but that need 8: every
 * step is packed tight, and the one-step buffers cannot all find their
 * room (found by a random search over tight problems, checked by brute
 * force). The plugin must prove 8, above the max-load bound. */
static const int64_t gap_rows[][3] = {
	{2, 5, 1}, {0, 1, 2}, {1, 4, 1}, {1, 2, 3}, {0, 3, 3},
	{0, 1, 2}, {2, 3, 2}, {3, 4, 5}, {4, 5, 6},
};

Test(exact, optimum_above_the_max_load_bound_is_proven)
{
	csv_prob p;
	uint32_t n = sizeof gap_rows / sizeof gap_rows[0];
	rows_prob(&p, gap_rows, n, 1);
	cr_assert_eq(p.v.lower_bound, 7);
	usmp_placement out[sizeof gap_rows / sizeof gap_rows[0]];
	th_host t;
	host_init(&t, &p.v);
	cr_assert_eq(load_exact()(&p.v, &t.host, out, 0, 0, true, SPLIT), USMP_OK);
	cr_assert_eq(csv_check(&p, out), 8);
	cr_assert(t.reported && t.optimal && t.bound == 8,
	          "bound %llu optimal %d", (unsigned long long)t.bound, t.optimal);
	/* And nothing fits in the bound itself. */
	host_init(&t, &p.v);
	cr_assert_eq(load_exact()(&p.v, &t.host, out, 7, 0, false, SPLIT),
	             USMP_ERR_INFEASIBLE);
	cr_assert_eq(t.live_allocs, 0);
	csv_free(&p);
}

/* Steps [100, 170) of the generated CNN workload (bench/workloads/gen.py
 * --sizes 1k --families cnn), live ranges clipped to the window and moved
 * to start at 0, sizes in units of 256 bytes: 96 buffers, at most 10 alive
 * at once, bound 3763200. The plain canonical search stalled on it above
 * 4014080 (its first choice at offset 0 led into a huge failing subtree);
 * restarts with shuffled preorders and the memo of failed parts reach the
 * bound. */
static const int64_t cnn_rows[][3] = {
	{0, 12, 784}, {2, 6, 196}, {5, 9, 196}, {5, 6, 1764}, {8, 12, 784},
	{11, 27, 784}, {14, 19, 392}, {18, 23, 98}, {18, 19, 882}, {22, 31, 392},
	{26, 31, 392}, {26, 27, 196}, {30, 47, 392}, {34, 39, 98}, {38, 43, 98},
	{38, 39, 882}, {42, 47, 392}, {46, 63, 392}, {50, 55, 98}, {54, 59, 98},
	{54, 55, 882}, {58, 63, 392}, {62, 67, 392}, {66, 70, 8}, {0, 7, 1568},
	{0, 1, 784}, {0, 4, 196}, {0, 1, 1764}, {3, 10, 784}, {6, 10, 784},
	{6, 7, 392}, {9, 24, 784}, {12, 16, 196}, {15, 20, 196}, {15, 16, 1764},
	{19, 24, 784}, {23, 40, 784}, {27, 32, 196}, {31, 36, 196}, {31, 32, 1764},
	{35, 40, 784}, {39, 56, 784}, {43, 48, 196}, {47, 52, 196}, {47, 48, 1764},
	{51, 56, 784}, {55, 70, 784}, {59, 64, 196}, {63, 68, 196}, {63, 64, 1764},
	{67, 70, 784}, {0, 2, 3136}, {0, 2, 3136}, {1, 14, 3136}, {4, 8, 1568},
	{7, 11, 392}, {7, 8, 3528}, {10, 17, 1568}, {13, 17, 1568}, {13, 14, 784},
	{16, 33, 1568}, {20, 25, 392}, {24, 29, 392}, {24, 25, 3528},
	{28, 33, 1568}, {32, 49, 1568}, {36, 41, 392}, {40, 45, 392},
	{40, 41, 3528}, {44, 49, 1568}, {48, 65, 1568}, {52, 57, 392},
	{56, 61, 392}, {56, 57, 3528}, {60, 65, 1568}, {64, 70, 1568},
	{68, 70, 784}, {17, 18, 588}, {17, 22, 3136}, {17, 18, 7203}, {21, 38, 784},
	{25, 30, 784}, {29, 34, 784}, {29, 30, 7056}, {33, 42, 3136},
	{37, 42, 3136}, {41, 58, 3136}, {45, 50, 784}, {49, 54, 784},
	{49, 50, 7056}, {53, 58, 3136}, {57, 70, 3136}, {61, 66, 784},
	{65, 70, 784}, {65, 66, 7056}, {69, 70, 3136}
};

static void cnn_window_plan(usmp_placement *out, uint64_t capacity,
                            bool minimize, uint64_t *peak, bool *optimal)
{
	csv_prob p;
	rows_prob(&p, cnn_rows, sizeof cnn_rows / sizeof cnn_rows[0], 256);
	cr_assert_eq(p.v.lower_bound, 3763200);
	th_host t;
	host_init(&t, &p.v);
	/* The limit only turns a stall into a failure; it takes well under a
	 * second. */
	cr_assert_eq(load_exact()(&p.v, &t.host, out, capacity, 120, minimize, SPLIT),
	             USMP_OK);
	*peak = csv_check(&p, out);
	*optimal = t.reported && t.optimal && t.bound == *peak;
	cr_assert_eq(t.live_allocs, 0);
	csv_free(&p);
}

Test(exact, cnn_window_reaches_its_max_load_bound)
{
	enum { N = sizeof cnn_rows / sizeof cnn_rows[0] };
	usmp_placement out[N];
	uint64_t peak;
	bool optimal;
	cnn_window_plan(out, 0, true, &peak, &optimal);
	cr_assert_eq(peak, 3763200, "peak %llu", (unsigned long long)peak);
	cr_assert(optimal);
	/* Feasibility mode at the bound finds a valid plan too. */
	cnn_window_plan(out, 3763200, false, &peak, &optimal);
	cr_assert_leq(peak, 3763200);
}

Test(exact, same_problem_gives_the_same_plan)
{
	enum { N = sizeof cnn_rows / sizeof cnn_rows[0] };
	usmp_placement a[N], b[N];
	uint64_t pa, pb;
	bool oa, ob;
	for (int mode = 0; mode < 2; mode++) {
		uint64_t cap = mode ? 3763200 : 0;
		cnn_window_plan(a, cap, !mode, &pa, &oa);
		cnn_window_plan(b, cap, !mode, &pb, &ob);
		cr_assert_neq(pa, UINT64_MAX);
		cr_assert_eq(pa, pb);
		for (uint32_t i = 0; i < N; i++)
			cr_assert_eq(a[i].offset, b[i].offset, "mode %d buffer %u",
			             mode, i);
	}
	/* Random problems with restarts and memo hits: same plan twice. Under
	 * the sanitizers a quarter are planned, two of every eight (0, 1, 8,
	 * 9, ...: with and without fixed buffers), not the hardest: 11 needs
	 * about 20 times the rest together, and is the only one whose probe
	 * stops at its round's budget (exact.c's rounds); the others run every
	 * other line of the plugin that all 200 run (gcov). All are made, the
	 * same problems in both builds. */
	uint64_t rng = 31337;
	for (int iter = 0; iter < 200; iter++) {
		prob p;
		random_prob(&p, &rng, (uint32_t)test_rand_range(&rng, 8, 14),
		            iter % 2 == 0, false);
		if (iter / 2 % TEST_SANITIZED_DIVISOR != 0)
			continue;
		usmp_placement x[MAXB], y[MAXB];
		th_host t;
		int r1 = run_exact(&p, &t, x, 0, 0, true);
		int r2 = run_exact(&p, &t, y, 0, 0, true);
		cr_assert_eq(r1, r2);
		if (r1 != USMP_OK)
			continue;
		cr_assert_neq(check_plan(&p, x), UINT64_MAX, "iter %d", iter);
		for (uint32_t i = 0; i < p.v.buffer_count; i++)
			cr_assert_eq(x[i].offset, y[i].offset, "iter %d", iter);
	}
}
