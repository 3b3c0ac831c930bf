/* test_fit_sweep.c — the "sweep" plugin's first_fit_sweep: valid plans,
 * the same offsets as a brute-force reference, its refusals and failures. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "plugin_harness.h"
#include "support.h"

static th_fn0 sweep_fn(void)
{
	const usmp_algorithm *a = th_algorithm("sweep", "first_fit_sweep");
	cr_assert_not_null(a, "first_fit_sweep not found in sweep.so");
	cr_assert_eq(a->caps & (USMP_CAP_MULTI_POOL | USMP_CAP_OVERLAP_RULES |
	                        USMP_CAP_EXPLICIT_CONFLICTS), 0u);
	cr_assert_neq(a->caps & USMP_CAP_FIXED_OFFSETS, 0u);
	return (th_fn0)a->fn;
}

/* Runs the sweep on v; returns its status, the plan in *out (caller frees). */
static int run_sweep(const usmp_view *v, th_host *h, usmp_placement **out)
{
	th_host_init(h, v);
	*out = th_out(v);
	int rc = sweep_fn()(v, &h->host, *out);
	cr_assert_eq(h->live_allocs, 0, "leaked %ld blocks", h->live_allocs);
	return rc;
}

static bool live(const usmp_view *v, uint32_t b)
{
	return v->buffers[b].flags & USMP_BUFFER_LIVE;
}

/* The reference: buffers in order of (begin, larger size, index), each at
 * the lowest aligned offset x such that [x, x + size) meets no placed
 * buffer and no fixed buffer whose live range meets its own, found by
 * trying 0 and the aligned end of each of them. */
static void reference(const usmp_view *v, usmp_placement *pl)
{
	uint32_t n = v->buffer_count, *ord = malloc((n + 1) * sizeof *ord), m = 0;
	bool *placed = calloc(n + 1, sizeof *placed);
	cr_assert(ord && placed);
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		if (r->flags & USMP_BUFFER_FIXED) {
			pl[i] = (usmp_placement){r->fixed_pool, 0, r->fixed_offset};
			placed[i] = true;
		} else if (!live(v, i)) {
			pl[i] = (usmp_placement){0, 0, 0};
		} else {
			uint32_t j = m++;
			while (j > 0) {
				const usmp_buffer_rec *q = &v->buffers[ord[j - 1]];
				if (q->begin < r->begin ||
				    (q->begin == r->begin && q->size >= r->size))
					break; /* ties by index: i is the larger */
				ord[j] = ord[j - 1];
				j--;
			}
			ord[j] = i;
		}
	}
	for (uint32_t k = 0; k < m; k++) {
		uint32_t b = ord[k];
		uint64_t s = v->buffers[b].size, al = usmp_buffer_alignment(v, b, 0);
		uint64_t best = UINT64_MAX;
		for (uint32_t c = 0; c <= n; c++) {
			bool ok = true;
			uint64_t x = 0;
			if (c < n) {
				if (!placed[c] || !live(v, c) || !usmp_live_overlap(v, b, c))
					continue;
				x = usmp_align_up(pl[c].offset + v->buffers[c].size, al, &ok);
			}
			for (uint32_t d = 0; d < n && ok; d++)
				if (placed[d] && live(v, d) && usmp_live_overlap(v, b, d) &&
				    pl[d].offset < x + s &&
				    x < pl[d].offset + v->buffers[d].size)
					ok = false;
			if (ok && x < best)
				best = x;
		}
		pl[b] = (usmp_placement){0, 0, best};
		placed[b] = true;
	}
	free(ord);
	free(placed);
}

/* A random one-pool problem: up to 40 buffers over 30 steps, sizes 1-100,
 * alignments 1-16, a few without live ranges, a few fixed, each above the
 * fixed ones before it (so no two clash), some of them in the way. */
static th_problem *small_random(uint64_t *rng, uint64_t pool_align)
{
	th_problem *p = th_new();
	th_pool(p, "p", USMP_UNBOUNDED, pool_align);
	uint32_t n = (uint32_t)test_rand_range(rng, 1, 40);
	uint64_t fixed_top = test_rand_range(rng, 0, 1000);
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		uint64_t size = test_rand_range(rng, 1, 100);
		uint64_t al = UINT64_C(1) << test_rand_range(rng, 0, 4);
		uint32_t b;
		if (test_chance(rng, 5)) {
			b = th_buffer_nolive(p, name, size, al);
		} else {
			int64_t t = (int64_t)test_rand_range(rng, 0, 30);
			b = th_buffer(p, name, size, al, t,
			              t + (int64_t)test_rand_range(rng, 1, 10));
			if (test_chance(rng, 10)) {
				uint64_t at = fixed_top + test_rand_range(rng, 0, 300);
				at = (at + 255) & ~UINT64_C(255);
				th_fixed(p, b, 0, at);
				fixed_top = at + size;
			}
		}
		(void)b;
	}
	return p;
}

/* On random small problems the sweep's offsets are the reference's, and
 * its plan passes the brute-force check. */
Test(fit_sweep, equals_brute_force_reference)
{
	uint64_t rng = 0x5eed5eedull;
	for (int round = 0; round < 400; round++) {
		th_problem *p = small_random(&rng, round % 3 ? 1 : 8);
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *got;
		cr_assert_eq(run_sweep(v, &h, &got), USMP_OK, "round %d: %s", round,
		             h.last_log);
		char why[256];
		cr_assert(th_check(v, got, 0, why, sizeof why), "round %d: %s",
		          round, why);
		usmp_placement *want = th_out(v);
		reference(v, want);
		for (uint32_t i = 0; i < v->buffer_count; i++) {
			cr_assert_eq(got[i].pool, 0u);
			cr_assert_eq(got[i].offset, want[i].offset,
			             "round %d buffer %u: offset %llu, reference %llu",
			             round, i, (unsigned long long)got[i].offset,
			             (unsigned long long)want[i].offset);
		}
		free(got);
		free(want);
		th_free(p);
	}
}

/* Random problems with alignments, fixed buffers and pool limits (one
 * candidate pool each): every OK plan is valid; every failure is
 * infeasible and names a buffer. */
Test(fit_sweep, random_plans_valid_or_named_infeasible)
{
	uint64_t rng = 42;
	int ok = 0, infeasible = 0;
	for (int round = 0; round < 300; round++) {
		th_random_opts o = {.buffers = (uint32_t)test_rand_range(&rng, 1, 200),
		                    .pools = 1, .bounded = round % 2,
		                    .fixed = round % 3 == 0, .alignments = 1};
		th_problem *p = th_random(&rng, &o);
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *pl;
		int rc = run_sweep(v, &h, &pl);
		if (rc == USMP_OK) {
			char why[256];
			cr_assert(th_check(v, pl, 0, why, sizeof why), "round %d: %s",
			          round, why);
			ok++;
		} else {
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "round %d: %s", round,
			             usmp_status_name(rc));
			cr_assert(strstr(h.last_log, "first_fit_sweep: buffer \"") &&
			                  strstr(h.last_log, "does not fit in pool"),
			          "round %d: %s", round, h.last_log);
			infeasible++;
		}
		free(pl);
		th_free(p);
	}
	cr_assert_gt(ok, 100);
}

/* Several pools, each buffer with one candidate: each pool planned apart,
 * the plan valid and every buffer in its own candidate. */
Test(fit_sweep, one_candidate_per_pool)
{
	uint64_t rng = 9;
	th_problem *p = th_new();
	uint32_t pools[3];
	for (uint32_t k = 0; k < 3; k++) {
		char name[8];
		snprintf(name, sizeof name, "p%u", k);
		pools[k] = th_pool(p, name, USMP_UNBOUNDED, k + 1 == 3 ? 64 : 1);
	}
	for (uint32_t i = 0; i < 300; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		int64_t t = (int64_t)test_rand_range(&rng, 0, 100);
		uint32_t b = th_buffer(p, name, test_rand_range(&rng, 1, 1000), 1,
		                       t, t + (int64_t)test_rand_range(&rng, 1, 20));
		th_candidates(p, b, 1, &pools[i % 3]);
	}
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *pl;
	cr_assert_eq(run_sweep(v, &h, &pl), USMP_OK, "%s", h.last_log);
	char why[256];
	cr_assert(th_check(v, pl, 0, why, sizeof why), "%s", why);
	for (uint32_t i = 0; i < 300; i++) {
		cr_assert_eq(pl[i].pool, pools[i % 3]);
		if (i % 3 == 2)
			cr_assert_eq(pl[i].offset % 64, 0u);
	}
	free(pl);
	th_free(p);
}

/* A pool limit the lowest offset overruns: infeasible, naming the buffer,
 * the pool and the offset. */
Test(fit_sweep, limit_names_the_buffer)
{
	th_problem *p = th_new();
	th_pool(p, "sram", 100, 1);
	th_buffer(p, "first", 60, 1, 0, 10);
	th_buffer(p, "second", 50, 1, 5, 15);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *pl;
	cr_assert_eq(run_sweep(v, &h, &pl), USMP_ERR_INFEASIBLE);
	cr_assert_str_eq(h.last_log, "first_fit_sweep: buffer \"second\" (50 "
	                 "bytes) does not fit in pool \"sram\" (limit 100 bytes): "
	                 "its lowest free offset is 60");
	free(pl);
	th_free(p);
}

/* A fixed buffer that begins after the one placed still keeps it out. */
Test(fit_sweep, later_fixed_buffer_is_an_obstacle)
{
	th_problem *p = th_new();
	uint32_t a = th_buffer(p, "a", 100, 1, 0, 10);
	uint32_t f = th_buffer(p, "f", 50, 1, 5, 8);
	th_fixed(p, f, 0, 20);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *pl;
	cr_assert_eq(run_sweep(v, &h, &pl), USMP_OK);
	cr_assert_eq(pl[f].offset, 20u);
	cr_assert_eq(pl[a].offset, 70u);
	free(pl);
	th_free(p);
}

/* Several candidate pools and explicit edges are refused, each said. */
Test(fit_sweep, refuses_what_it_cannot_plan)
{
	static const char *const says[] = {"has 2 candidate pools",
	                                   "explicit conflict edges"};
	for (int k = 0; k < 2; k++) {
		th_problem *p = th_new();
		th_pool(p, "a", USMP_UNBOUNDED, 1);
		th_pool(p, "b", USMP_UNBOUNDED, 1);
		uint32_t x = th_buffer(p, "x", 10, 1, 0, 5);
		uint32_t y = th_buffer(p, "y", 10, 1, 2, 6);
		uint32_t one = 0;
		th_candidates(p, y, 1, &one);
		if (k == 1) {
			th_candidates(p, x, 1, &one);
			th_edge(p, x, y);
		}
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *pl;
		cr_assert_eq(run_sweep(v, &h, &pl), USMP_ERR_UNSUPPORTED, "case %d", k);
		cr_assert(strstr(h.last_log, says[k]), "case %d: %s", k, h.last_log);
		free(pl);
		th_free(p);
	}
}

/* Overlap rules are planned as plain conflicts (a rule only allows bytes
 * to be shared): a star of rules from one buffer, all alive at one step,
 * is stacked, valid, where the sweep refused it and auto's first plan on
 * such a part was first_fit's scan of every placed buffer. */
Test(fit_sweep, plans_overlap_rules_as_plain_conflicts)
{
	th_problem *p = th_new();
	uint32_t s = th_buffer(p, "s", 64, 1, 0, 2);
	for (uint32_t i = 0; i < 5; i++) {
		char name[8];
		snprintf(name, sizeof name, "d%u", i);
		th_rule(p, s, th_buffer(p, name, 64, 1, 1, 3), 0);
	}
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *pl;
	cr_assert_eq(run_sweep(v, &h, &pl), USMP_OK, "%s", h.last_log);
	char why[256];
	cr_assert(th_check(v, pl, 0, why, sizeof why), "%s", why);
	/* no two share a byte: six buffers of 64 bytes stacked */
	cr_assert_eq(th_total(v, pl), 6 * 64);
	free(pl);
	th_free(p);
}

/* should_stop is read while sweeping: a host that says stop gets STOPPED. */
Test(fit_sweep, stops_when_asked)
{
	th_problem *p = th_new();
	for (uint32_t i = 0; i < 10000; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		th_buffer(p, name, 1 + i % 7, 1, i, i + 5);
	}
	const usmp_view *v = th_view(p);
	th_host h;
	th_host_init(&h, v);
	h.stop_after = 1;
	usmp_placement *pl = th_out(v);
	cr_assert_eq(sweep_fn()(v, &h.host, pl), USMP_ERR_STOPPED);
	cr_assert_eq(h.live_allocs, 0);
	free(pl);
	th_free(p);
}

/* Under a tiny budget, on a part where first_fit's estimate is far over it
 * (10,000 buffers, about 6,000 alive, sizes over six decades), auto's
 * first plan comes from first_fit_sweep, and it is valid. */
Test(fit_sweep, auto_first_plan_on_wide_parts)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	uint64_t seed = 3;
	char name[32];
	for (uint32_t i = 0; i < 10000; i++) {
		uint32_t id;
		double e = (double)test_rand_range(&seed, 0, 6000) / 1000.0;
		uint64_t size = (uint64_t)pow(10.0, e);
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, size ? size : 1, 1,
		                                     &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + (int64_t)
		             test_rand_range(&seed, 1, 12000)), USMP_OK);
	}
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 1e-4};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_str_eq(pi.algorithm, "auto/first_fit_sweep");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
