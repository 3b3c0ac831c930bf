/* test_exact_window.c — the exact plugin's exact_window algorithm, called
 * through its descriptor: valid, never worse than its start, deterministic. */
#include <criterion/criterion.h>
#include <usmp/plugin.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

typedef int (*window_fn)(const usmp_view *, const usmp_host *,
                         usmp_placement *, uint32_t, double, bool);

/* ---- a small host table ------------------------------------------------ */

/* The harness's counting host (th_host), without neighbours or bound
 * reports. */
static void host_init(th_host *t)
{
	th_host_init(t, NULL);
	t->host.for_each_neighbor = NULL;
	t->host.report_bound = NULL;
}

static const usmp_plugin *plugin(void)
{
	static void *dl;
	char path[4096];
	snprintf(path, sizeof path, "%s/plugins/exact.so", test_build_root());
	if (!dl)
		dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(dl, "dlopen %s: %s", path, dlerror());
	const usmp_plugin *p = dlsym(dl, "usmp_plugin_v1");
	cr_assert_not_null(p);
	return p;
}

static const usmp_algorithm *descriptor(void)
{
	const usmp_plugin *p = plugin();
	for (uint32_t i = 0; i < p->algorithm_count; i++)
		if (!strcmp(p->algorithms[i]->name, "exact_window"))
			return p->algorithms[i];
	cr_assert_fail("no algorithm 'exact_window' in the exact plugin");
	return NULL;
}

/* ---- problems ------------------------------------------------------------ */

typedef struct prob {
	usmp_pool_rec pool[2];
	usmp_buffer_rec *buf;
	uint32_t cand[2];
	uint64_t *cstart;
	uint32_t adj[2];
	usmp_view v;
	uint32_t n;
} prob;

static void prob_init(prob *p, uint32_t n, uint64_t size_limit)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->buf = calloc(n ? n : 1, sizeof *p->buf);
	p->cstart = calloc((size_t)n + 1, sizeof *p->cstart);
	cr_assert(p->buf && p->cstart);
	p->pool[0] = (usmp_pool_rec){"p0", size_limit, 1};
	p->pool[1] = (usmp_pool_rec){"p1", USMP_UNBOUNDED, 1};
	for (uint32_t i = 0; i < n; i++) {
		p->buf[i].name = "b";
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
}

static void prob_free(prob *p)
{
	free(p->buf);
	free(p->cstart);
}

static void set(prob *p, uint32_t i, uint64_t size, int64_t b, int64_t e)
{
	p->buf[i].size = size;
	p->buf[i].begin = b;
	p->buf[i].end = e;
}

/* The largest total size alive at one time (no fixed buffers, no rules). */
static uint64_t bound(const prob *p)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		if (!(p->buf[i].flags & USMP_BUFFER_LIVE))
			continue;
		uint64_t t = 0;
		for (uint32_t j = 0; j < p->n; j++)
			if ((p->buf[j].flags & USMP_BUFFER_LIVE) &&
			    p->buf[j].begin <= p->buf[i].begin &&
			    p->buf[i].begin < p->buf[j].end)
				t += p->buf[j].size;
		best = t > best ? t : best;
	}
	return best;
}

/* Five buffers where first fit by size needs 10 bytes and 8 suffice,
 * copied `copies` times, each copy 8 steps after the previous. */
static void five(prob *p, uint32_t copies, uint64_t size_limit)
{
	static const int64_t t[5][3] = {
		{3, 4, 7}, {4, 0, 2}, {4, 2, 3}, {2, 3, 6}, {4, 1, 4}};
	prob_init(p, 5 * copies, size_limit);
	for (uint32_t c = 0; c < copies; c++)
		for (uint32_t k = 0; k < 5; k++)
			set(p, 5 * c + k, (uint64_t)t[k][0], t[k][1] + 8 * c,
			    t[k][2] + 8 * c);
	p->v.lower_bound = 8;
}

/* n random buffers over `span` steps, sizes 1..64 times 8. */
static void random_prob(prob *p, uint32_t n, uint64_t seed, int64_t span)
{
	prob_init(p, n, USMP_UNBOUNDED);
	for (uint32_t i = 0; i < n; i++) {
		int64_t b = (int64_t)test_rand_range(&seed, 0, (uint64_t)span);
		set(p, i, 8 * test_rand_range(&seed, 1, 64), b,
		    b + (int64_t)test_rand_range(&seed, 1, 12));
	}
	p->v.lower_bound = bound(p);
}

/* ---- checks -------------------------------------------------------------- */

static uint64_t peak(const prob *p, const usmp_placement *out)
{
	uint64_t top = 0;
	for (uint32_t i = 0; i < p->n; i++)
		if (out[i].offset + p->buf[i].size > top)
			top = out[i].offset + p->buf[i].size;
	return top;
}

static void assert_valid(const prob *p, const usmp_placement *out)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const usmp_buffer_rec *a = &p->buf[i];
		cr_assert_eq(out[i].pool, 0, "buffer %u in pool %u", i, out[i].pool);
		cr_assert_eq(out[i].offset % a->alignment, 0);
		cr_assert_leq(out[i].offset + a->size, p->pool[0].size_limit);
		if (a->flags & USMP_BUFFER_FIXED)
			cr_assert_eq(out[i].offset, a->fixed_offset,
			             "fixed buffer %u moved", i);
		for (uint32_t j = i + 1; j < p->n; j++) {
			const usmp_buffer_rec *b = &p->buf[j];
			if (!(a->flags & b->flags & USMP_BUFFER_LIVE) ||
			    a->begin >= b->end || b->begin >= a->end)
				continue;
			cr_assert(out[i].offset + a->size <= out[j].offset ||
			          out[j].offset + b->size <= out[i].offset,
			          "buffers %u and %u overlap", i, j);
		}
	}
}

static int run(prob *p, th_host *t, usmp_placement *out, uint32_t window,
               bool warm)
{
	window_fn fn = (window_fn)descriptor()->fn;
	int rc = fn(&p->v, &t->host, out, window, 0, warm);
	cr_assert_eq(t->live_allocs, 0, "leaked %ld blocks", t->live_allocs);
	return rc;
}

static usmp_placement *fresh(const prob *p)
{
	usmp_placement *out = calloc(p->n ? p->n : 1, sizeof *out);
	cr_assert_not_null(out);
	for (uint32_t i = 0; i < p->n; i++) {
		out[i].pool = USMP_NO_POOL;
		if (p->buf[i].flags & USMP_BUFFER_FIXED)
			out[i] = (usmp_placement){0, 0, p->buf[i].fixed_offset};
	}
	return out;
}

/* ---- tests ---------------------------------------------------------------- */

Test(exact_window, descriptor_names_it_with_its_knobs)
{
	const usmp_plugin *p = plugin();
	cr_assert_eq(p->algorithm_count, 2);
	const usmp_algorithm *a = descriptor();
	cr_assert_str_eq(a->params,
	                 "window:u32=32 time_limit:f64=0 warm:bool=false");
	cr_assert(a->caps & USMP_CAP_ANYTIME);
	cr_assert(a->caps & USMP_CAP_DETERMINISTIC);
	cr_assert(a->caps & USMP_CAP_FIXED_OFFSETS);
	/* Not exact: a failure to improve proves nothing. */
	cr_assert_not(a->caps & USMP_CAP_EXACT);
	cr_assert_not(a->caps & USMP_CAP_MULTI_POOL);
}

Test(exact_window, reaches_the_bound_where_first_fit_by_size_does_not)
{
	prob p;
	five(&p, 50, USMP_UNBOUNDED);
	th_host t;
	host_init(&t);
	usmp_placement *out = fresh(&p);
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_OK);
	assert_valid(&p, out);
	cr_assert_eq(peak(&p, out), 8);
	cr_assert_eq(t.progress_best, 8);
	free(out);
	prob_free(&p);
}

Test(exact_window, a_warm_start_only_gets_smaller_and_stays_valid)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		prob p;
		random_prob(&p, 150, seed, 100);
		/* The start: every buffer stacked on the previous ones. */
		usmp_placement *out = fresh(&p);
		uint64_t top = 0;
		for (uint32_t i = 0; i < p.n; i++) {
			out[i] = (usmp_placement){0, 0, top};
			top += p.buf[i].size;
		}
		th_host t;
		host_init(&t);
		cr_assert_eq(run(&p, &t, out, 16, true), USMP_OK);
		assert_valid(&p, out);
		cr_assert_lt(peak(&p, out), top, "seed %llu: no better than "
		             "the stack", (unsigned long long)seed);
		cr_assert_geq(peak(&p, out), p.v.lower_bound);
		free(out);
		prob_free(&p);
	}
}

Test(exact_window, the_same_problem_gives_the_same_plan)
{
	prob p;
	random_prob(&p, 600, 99, 300);
	th_host t;
	host_init(&t);
	usmp_placement *a = fresh(&p), *b = fresh(&p);
	cr_assert_eq(run(&p, &t, a, 24, false), USMP_OK);
	cr_assert_eq(run(&p, &t, b, 24, false), USMP_OK);
	assert_valid(&p, a);
	cr_assert_eq(memcmp(a, b, p.n * sizeof *a), 0);
	free(a);
	free(b);
	prob_free(&p);
}

Test(exact_window, fixed_buffers_stay_and_the_others_avoid_them)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		prob p;
		random_prob(&p, 200, seed, 120);
		/* Every tenth buffer is fixed, each high up in a lane of its
		 * own, so the fixed ones never meet. */
		for (uint32_t i = 0; i < p.n; i += 10) {
			p.buf[i].flags |= USMP_BUFFER_FIXED;
			p.buf[i].fixed_pool = 0;
			p.buf[i].fixed_offset = 4096 + 1024 * (uint64_t)i;
		}
		p.v.lower_bound = bound(&p);
		th_host t;
		host_init(&t);
		usmp_placement *out = fresh(&p);
		cr_assert_eq(run(&p, &t, out, 16, false), USMP_OK);
		assert_valid(&p, out);
		free(out);
		prob_free(&p);
	}
}

Test(exact_window, stopped_at_once_it_returns_the_warm_plan_unchanged)
{
	prob p;
	five(&p, 20, USMP_UNBOUNDED);
	usmp_placement *out = fresh(&p), *start = fresh(&p);
	uint64_t top = 0;
	for (uint32_t i = 0; i < p.n; i++) {
		out[i] = (usmp_placement){0, 0, top};
		top += p.buf[i].size;
	}
	memcpy(start, out, p.n * sizeof *out);
	th_host t;
	host_init(&t);
	t.stop_after = 1;
	cr_assert_eq(run(&p, &t, out, 32, true), USMP_OK);
	cr_assert_eq(memcmp(out, start, p.n * sizeof *out), 0);
	free(out);
	free(start);
	prob_free(&p);
}

Test(exact_window, a_plan_over_the_pool_limit_is_brought_within_it)
{
	prob p;
	five(&p, 10, 8); /* first fit alone needs 10 */
	th_host t;
	host_init(&t);
	usmp_placement *out = fresh(&p);
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_OK);
	assert_valid(&p, out);
	free(out);
	prob_free(&p);
}

Test(exact_window, below_the_bound_it_says_infeasible)
{
	prob p;
	five(&p, 4, 7);
	th_host t;
	host_init(&t);
	usmp_placement *out = fresh(&p);
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_ERR_INFEASIBLE);
	free(out);
	prob_free(&p);
}

Test(exact_window, buffers_without_a_live_range_meet_nothing)
{
	prob p;
	five(&p, 4, USMP_UNBOUNDED);
	p.buf[3].flags = 0; /* alive "never": conflicts with nothing */
	p.buf[7].flags = 0;
	th_host t;
	host_init(&t);
	usmp_placement *out = fresh(&p);
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_OK);
	assert_valid(&p, out);
	cr_assert_eq(out[3].offset, 0);
	cr_assert_eq(out[7].offset, 0);
	free(out);
	prob_free(&p);
}

Test(exact_window, refuses_what_it_cannot_plan)
{
	prob p;
	five(&p, 2, USMP_UNBOUNDED);
	th_host t;
	host_init(&t);
	usmp_placement *out = fresh(&p);
	cr_assert_eq(run(&p, &t, out, 1, false), USMP_ERR_INVALID);
	p.v.pool_count = 2;
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_ERR_UNSUPPORTED);
	p.v.pool_count = 1;
	/* One explicit conflict edge between buffers 0 and 1. */
	p.adj[0] = 1;
	p.adj[1] = 0;
	p.cstart[1] = 1;
	for (uint32_t i = 2; i <= p.n; i++)
		p.cstart[i] = 2;
	cr_assert_eq(run(&p, &t, out, 32, false), USMP_ERR_UNSUPPORTED);
	free(out);
	prob_free(&p);
}
