/* test_exact_start.c — the start plan of exact_window (and of exact on views
 * beyond one search): always there, even when stopped, and first fit by size. */
#include <criterion/criterion.h>
#include <usmp/plugin.h>
#include <usmp/usmp.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

typedef int (*window_fn)(const usmp_view *, const usmp_host *,
                         usmp_placement *, uint32_t, double, bool);

/* ---- a host that may say stop at once, and keeps the first progress ---- */

typedef struct thost {
	th_host th; /* first: the harness's counting allocator and log */
	bool stop_now, stop_after_start;
	uint64_t first_progress;
	unsigned progress_calls;
} thost;

/* Stop at once, or (stop_after_start) once the start plan is reported. */
static bool t_stop(const usmp_host *h)
{
	const thost *t = (const thost *)h;
	return t->stop_now || (t->stop_after_start && t->progress_calls);
}
static void t_progress(const usmp_host *h, uint64_t best)
{
	thost *t = (thost *)h;
	if (!t->progress_calls++)
		t->first_progress = best;
}

static void host_init(thost *t, bool stop_now)
{
	memset(t, 0, sizeof *t);
	th_host_init(&t->th, NULL);
	t->th.host.should_stop = t_stop;
	t->th.host.progress = t_progress;
	t->th.host.for_each_neighbor = NULL; /* views without edges */
	t->th.host.report_bound = NULL;
	t->stop_now = stop_now;
}

static window_fn window(void)
{
	const usmp_algorithm *a = th_algorithm("exact", "exact_window");
	cr_assert_not_null(a, "no algorithm 'exact_window' in the exact plugin");
	return (window_fn)a->fn;
}

/* ---- problems as views ---------------------------------------------------- */

typedef struct prob {
	usmp_pool_rec pool;
	usmp_buffer_rec *buf;
	uint32_t cand;
	usmp_view v;
	uint32_t n;
} prob;

/* n buffers beginning in time order, lengths 1..2 * alive / (n / span),
 * sizes 8..8 << 12 log-uniform, alignments 1, 8 or 64; every fixed_every-th
 * buffer (0: none) fixed at a distinct high offset. */
static void prob_make(prob *p, uint32_t n, uint32_t alive, uint64_t seed,
                      uint32_t fixed_every)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->buf = calloc(n, sizeof *p->buf);
	cr_assert_not_null(p->buf);
	p->pool = (usmp_pool_rec){"p0", USMP_UNBOUNDED, 1};
	for (uint32_t i = 0; i < n; i++) {
		usmp_buffer_rec *b = &p->buf[i];
		static const uint64_t al[3] = {1, 8, 64};
		b->name = "b";
		b->alignment = al[test_rand_range(&seed, 0, 2)];
		b->candidate_count = 1;
		b->flags = USMP_BUFFER_LIVE;
		b->size = (uint64_t)(8 * exp2((double)test_rand_range(&seed, 0,
		                                                      1200) / 100));
		b->begin = (int64_t)i;
		b->end = b->begin + 1 +
		         (int64_t)test_rand_range(&seed, 0, 2 * (uint64_t)alive);
		if (fixed_every && i % fixed_every == fixed_every - 1) {
			b->flags |= USMP_BUFFER_FIXED;
			b->fixed_pool = 0;
			b->fixed_offset = ((uint64_t)1 << 24) * (i / fixed_every % 100);
		}
	}
	p->v.struct_size = sizeof p->v;
	p->v.pool_count = 1;
	p->v.buffer_count = n;
	p->v.pools = &p->pool;
	p->v.buffers = p->buf;
	p->v.candidates = &p->cand;
}

static void assert_valid(const prob *p, const usmp_placement *out)
{
	/* Buffers begin in index order: stop at the first that begins after
	 * a's end. */
	for (uint32_t i = 0; i < p->n; i++) {
		const usmp_buffer_rec *a = &p->buf[i];
		cr_assert_eq(out[i].pool, 0, "buffer %u in pool %u", i, out[i].pool);
		cr_assert_eq(out[i].offset % a->alignment, 0, "buffer %u", i);
		if (a->flags & USMP_BUFFER_FIXED)
			cr_assert_eq(out[i].offset, a->fixed_offset,
			             "fixed buffer %u moved", i);
		if (!(a->flags & USMP_BUFFER_LIVE))
			continue; /* meets nothing */
		for (uint32_t j = i + 1; j < p->n && p->buf[j].begin < a->end;
		     j++) {
			const usmp_buffer_rec *b = &p->buf[j];
			if (!(b->flags & USMP_BUFFER_LIVE))
				continue;
			cr_assert(out[i].offset + a->size <= out[j].offset ||
			          out[j].offset + b->size <= out[i].offset,
			          "buffers %u and %u overlap", i, j);
		}
	}
}

static usmp_placement *fresh(const prob *p)
{
	usmp_placement *out = calloc(p->n, sizeof *out);
	cr_assert_not_null(out);
	for (uint32_t i = 0; i < p->n; i++)
		out[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
	return out;
}

/* First fit by decreasing size (ties: earlier begin, then lower index),
 * each buffer at the lowest aligned offset free of the placed buffers it
 * meets in time: exact_window's start plan, written plainly. Its peak. */
static uint64_t first_fit_peak(const prob *p)
{
	uint32_t n = p->n, *ord = malloc(n * sizeof *ord);
	uint64_t *off = malloc(n * sizeof *off);
	char *done = calloc(n, 1);
	cr_assert(ord && off && done);
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	for (uint32_t i = 1; i < n; i++) /* insertion sort: n is small */
		for (uint32_t j = i; j > 0; j--) {
			const usmp_buffer_rec *x = &p->buf[ord[j]],
			                      *y = &p->buf[ord[j - 1]];
			bool before = x->size != y->size ? x->size > y->size
			              : x->begin != y->begin ? x->begin < y->begin
			                                     : ord[j] < ord[j - 1];
			if (!before)
				break;
			uint32_t t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	uint64_t peak = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = ord[k];
		const usmp_buffer_rec *r = &p->buf[b];
		uint64_t a = r->alignment, x = 0;
		for (bool moved = true; moved;) {
			moved = false;
			for (uint32_t c = 0; c < n; c++) {
				const usmp_buffer_rec *q = &p->buf[c];
				if (!done[c] || q->begin >= r->end ||
				    r->begin >= q->end)
					continue;
				if (off[c] < x + r->size && x < off[c] + q->size) {
					x = (off[c] + q->size + a - 1) / a * a;
					moved = true;
				}
			}
		}
		off[b] = x;
		done[b] = 1;
		if (x + r->size > peak)
			peak = x + r->size;
	}
	free(ord);
	free(off);
	free(done);
	return peak;
}

/* ---- tests ---------------------------------------------------------------- */

Test(exact_start, a_stop_before_the_start_plan_still_gives_a_valid_plan,
     .timeout = 120)
{
	/* The host says stop from the first question: the first fit by size
	 * is cut short, and the plan in time order takes its place. With
	 * fixed buffers beginning later, which it must avoid too. */
	for (uint32_t every = 0; every <= 7; every += 7) {
		prob p;
		prob_make(&p, 3000, 300, 20261203 + every, every);
		thost t;
		host_init(&t, true);
		usmp_placement *out = fresh(&p);
		int rc = window()(&p.v, &t.th.host, out, 32, 0, false);
		cr_assert_eq(rc, USMP_OK, "rc %d (fixed every %u)", rc, every);
		cr_assert_eq(t.th.live_allocs, 0, "leaked %ld blocks",
		             t.th.live_allocs);
		assert_valid(&p, out);
		cr_assert_gt(t.progress_calls, 0);
		free(out);
		free(p.buf);
	}
}

Test(exact_start, on_small_problems_the_start_plan_is_first_fit_by_size)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		prob p;
		prob_make(&p, 150 + 10 * (uint32_t)seed, 20, seed, 0);
		thost t;
		host_init(&t, false);
		t.stop_after_start = true; /* the start plan is what is tested */
		usmp_placement *out = fresh(&p);
		int rc = window()(&p.v, &t.th.host, out, 32, 0, false);
		cr_assert_eq(rc, USMP_OK);
		cr_assert_eq(t.th.live_allocs, 0);
		assert_valid(&p, out);
		/* The first progress report is the start plan's peak. */
		cr_assert_gt(t.progress_calls, 0);
		cr_assert_eq(t.first_progress, first_fit_peak(&p),
		             "seed %llu: start peak %llu", (unsigned long long)seed,
		             (unsigned long long)t.first_progress);
		free(out);
		free(p.buf);
	}
}

/* 20,000 buffers, about 3,000 alive at once, one part (buffer 0 spans
 * everything), as a CSV-like problem through the public API. */
static usmp_problem *big_problem(void)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, 1, NULL),
	             USMP_OK);
	uint64_t s = 42;
	uint32_t n = 20000;
	char name[24];
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "b%u", i);
		uint64_t size = (uint64_t)(8 * exp2((double)test_rand_range(&s, 0,
		                                                           1600) / 100));
		cr_assert_eq(usmp_problem_add_buffer(p, name, size, 8, NULL),
		             USMP_OK);
		int64_t b = i ? (int64_t)i : 0;
		int64_t e = i ? b + 1 + (int64_t)test_rand_range(&s, 0, 6000)
		              : (int64_t)n + 6001;
		cr_assert_eq(usmp_problem_set_live(p, i, b, e), USMP_OK);
	}
	return p;
}

static void plan_big(usmp_registry *r, usmp_problem *p, const char *algo)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = algo,
	                       .time_limit = 2};
	usmp_plan *plan = NULL;
	int rc = usmp_plan_compute(r, p, &o, &plan);
	cr_assert_not_null(plan);
	cr_assert_eq(rc, USMP_OK, "%s: %s", algo, usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_status(plan), USMP_OK);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s", algo);
	usmp_plan_destroy(plan);
}

Test(exact_start, thousands_alive_get_a_plan_within_a_short_limit,
     .timeout = 300)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = big_problem();
	plan_big(r, p, "exact_window");
	plan_big(r, p, "exact");
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* exact's own use of exact_window (a view beyond one search, planned in
 * parts) owes no plan: its start plan in time order stops at the host's
 * word too, with USMP_ERR_STOPPED and no plan reported, where it ran to
 * the end (3.5 s past auto's deadline on 50,000 buffers alive at once,
 * when it was linear in the buffers alive per buffer). exact_window
 * called as an algorithm still always returns a plan (the first test). */
Test(exact_start, exact_stops_the_start_plan_of_its_windows_when_told)
{
	typedef int (*exact_fn)(const usmp_view *, const usmp_host *,
	                        usmp_placement *, uint64_t, double, bool,
	                        uint32_t, uint32_t);
	const usmp_algorithm *a = th_algorithm("exact", "exact");
	cr_assert_not_null(a);
	prob p;
	prob_make(&p, 12000, 3000, 20261205, 0);
	thost t;
	host_init(&t, true);
	usmp_placement *out = fresh(&p);
	int rc = ((exact_fn)a->fn)(&p.v, &t.th.host, out, 0, 0, true, 10000,
	                           1000);
	cr_assert_eq(rc, USMP_ERR_STOPPED, "rc %d", rc);
	cr_assert_eq(t.progress_calls, 0, "a plan was reported after the stop "
	             "(first %llu)", (unsigned long long)t.first_progress);
	cr_assert_eq(t.th.live_allocs, 0, "leaked %ld blocks", t.th.live_allocs);
	free(out);
	free(p.buf);
}

/* ---- the first fit in time order, against a plain one ------------------ */

typedef struct tf_ctx {
	const prob *p;
	const uint64_t *off;
} tf_ctx;
static tf_ctx tf; /* qsort's context */

static int tf_cmp_off(const void *a, const void *b)
{
	uint64_t x = tf.off[*(const uint32_t *)a], y = tf.off[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

/* First fit in time order (begin, then index), written plainly: each free
 * buffer with a live range at the lowest offset, a multiple of its
 * alignment and the pool's, free of the placed buffers its live range
 * meets and of every fixed buffer it meets (also those beginning later);
 * a buffer without a live range at 0. Conflicts are taken by offset only
 * so that the loop to a fixpoint ends in a pass or two. */
static void time_fit(const prob *p, uint64_t *off)
{
	uint32_t n = p->n, *ord = malloc(n * sizeof *ord);
	uint32_t *met = malloc(n * sizeof *met);
	char *done = calloc(n, 1);
	cr_assert(ord && met && done);
	uint32_t nr = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *r = &p->buf[i];
		off[i] = r->flags & USMP_BUFFER_FIXED ? r->fixed_offset : 0;
		done[i] = (r->flags & USMP_BUFFER_FIXED) != 0;
		if ((r->flags & USMP_BUFFER_LIVE) && !done[i])
			ord[nr++] = i; /* index order is (begin, index) order here */
	}
	tf.p = p;
	tf.off = off;
	for (uint32_t k = 0; k < nr; k++) {
		uint32_t b = ord[k], cnt = 0;
		const usmp_buffer_rec *r = &p->buf[b];
		for (uint32_t c = 0; c < n; c++) {
			const usmp_buffer_rec *q = &p->buf[c];
			if (done[c] && (q->flags & USMP_BUFFER_LIVE) &&
			    q->begin < r->end && r->begin < q->end)
				met[cnt++] = c;
		}
		qsort(met, cnt, sizeof *met, tf_cmp_off);
		uint64_t a = r->alignment > p->pool.alignment ? r->alignment
		                                              : p->pool.alignment;
		uint64_t x = 0;
		for (bool moved = true; moved;) {
			moved = false;
			for (uint32_t j = 0; j < cnt; j++) {
				uint32_t c = met[j];
				if (off[c] < x + r->size && x < off[c] + p->buf[c].size) {
					x = (off[c] + p->buf[c].size + a - 1) / a * a;
					moved = true;
				}
			}
		}
		off[b] = x;
		done[b] = 1;
	}
	free(ord);
	free(met);
	free(done);
}

/* n buffers, begin i / 3 (ties broken by index), lengths 1..4000, sizes
 * 8..32 KiB, alignments 1, 8 or 64 in a pool aligned to pool_al; every
 * 11th fixed (a short range, at one of 64 slots 64 KiB apart, low enough
 * to stand in the free buffers' way), every 97th without a live range. */
static void prob_make_mixed(prob *p, uint32_t n, uint64_t seed,
                            uint64_t pool_al)
{
	prob_make(p, n, 2000, seed, 0);
	p->pool.alignment = pool_al;
	uint32_t nf = 0;
	for (uint32_t i = 0; i < n; i++) {
		usmp_buffer_rec *b = &p->buf[i];
		b->begin = (int64_t)(i / 3);
		b->end = b->begin + 1 + (int64_t)test_rand_range(&seed, 0, 3999);
		if (i % 11 == 10) {
			b->flags |= USMP_BUFFER_FIXED;
			b->fixed_pool = 0;
			b->fixed_offset = (uint64_t)65536 * (nf++ % 64);
			b->end = b->begin + 1 + (int64_t)test_rand_range(&seed, 0, 150);
			if (b->size > 65536)
				b->size = 65536;
		} else if (i % 97 == 96) {
			b->flags &= ~(uint32_t)USMP_BUFFER_LIVE;
		}
	}
}

/* On problems whose estimate for the first fit by size is beyond
 * QUICK_FROM, the first plan reported is the first fit in time order
 * (the host then stops the first fit by size, so it stays): its offsets
 * are the plain one's, buffer by buffer. */
Test(exact_start, the_quick_start_plan_is_first_fit_in_time_order,
     .timeout = 300)
{
	static const uint64_t pool_al[3] = {1, 16, 128};
	for (uint64_t seed = 1; seed <= 3; seed++) {
		prob p;
		prob_make_mixed(&p, 8000, 20261205 + seed, pool_al[seed - 1]);
		uint64_t *want = malloc(p.n * sizeof *want);
		cr_assert_not_null(want);
		time_fit(&p, want);
		thost t;
		host_init(&t, false);
		t.stop_after_start = true;
		usmp_placement *out = fresh(&p);
		int rc = window()(&p.v, &t.th.host, out, 32, 0, false);
		cr_assert_eq(rc, USMP_OK, "seed %llu: rc %d",
		             (unsigned long long)seed, rc);
		cr_assert_eq(t.th.live_allocs, 0);
		assert_valid(&p, out);
		uint64_t peak = 0;
		uint32_t at_fixed_top = 0; /* free buffers a fixed one pushed */
		for (uint32_t i = 0; i < p.n; i++) {
			cr_assert_eq(out[i].offset, want[i], "seed %llu: buffer %u at "
			             "%llu, first fit in time order puts it at %llu",
			             (unsigned long long)seed, i,
			             (unsigned long long)out[i].offset,
			             (unsigned long long)want[i]);
			if (want[i] + p.buf[i].size > peak)
				peak = want[i] + p.buf[i].size;
			for (uint32_t f = 10; f < p.n && i % 11 != 10; f += 11)
				if (p.buf[f].fixed_offset + p.buf[f].size == want[i] &&
				    p.buf[f].begin < p.buf[i].end &&
				    p.buf[i].begin < p.buf[f].end &&
				    p.buf[f].begin > p.buf[i].begin) {
					at_fixed_top++;
					break;
				}
		}
		/* the fixed buffers beginning later are in the way */
		cr_assert_gt(at_fixed_top, 0, "seed %llu: %u",
		             (unsigned long long)seed, at_fixed_top);
		cr_assert_eq(t.first_progress, peak, "seed %llu",
		             (unsigned long long)seed);
		free(want);
		free(out);
		free(p.buf);
	}
}
