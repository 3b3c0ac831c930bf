/* test_fit.c — the "fit" plugin (first_fit, best_fit): exact offsets on
 * hand-checked cases, gaps, pools, fixed buffers, overlap rules, and
 * validity of every plan on hundreds of random problems. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

static int run(const char *algo, const usmp_view *v, th_host *h,
               usmp_placement *out, const char *order)
{
	const usmp_algorithm *a = th_algorithm("fit", algo);
	cr_assert_not_null(a, "algorithm %s not found in fit.so", algo);
	th_host_init(h, v);
	int rc = ((th_fn_str)a->fn)(v, &h->host, out, order);
	cr_assert_eq(h->live_allocs, 0, "%s leaked %ld blocks", algo,
	             h->live_allocs);
	return rc;
}

/* Run and require a valid plan. */
static usmp_placement *plan_ok(const char *algo, const usmp_view *v,
                               const char *order)
{
	th_host h;
	usmp_placement *out = th_out(v);
	int rc = run(algo, v, &h, out, order);
	cr_assert_eq(rc, USMP_OK, "%s order=%s: status %d (%s)", algo, order,
	             rc, h.last_log);
	char why[512];
	cr_assert(th_check(v, out, 0, why, sizeof why), "%s: %s", algo, why);
	return out;
}

/* plan_ok of `algo` (order size) on p, which is then freed: every buffer i
 * of p at want[i]; and the plan's total `total` (0: not checked). */
static void fit_offsets(const char *algo, th_problem *p, const uint64_t *want,
                        uint64_t total)
{
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok(algo, v, "size");
	th_expect_offsets(v, o, algo, want);
	if (total)
		cr_assert_eq(th_total(v, o), total);
	free(o);
	th_free(p);
}

Test(fit, plugin_exports_both_algorithms_with_caps_and_help)
{
	const usmp_algorithm *ff = th_algorithm("fit", "first_fit");
	const usmp_algorithm *bf = th_algorithm("fit", "best_fit");
	cr_assert_not_null(ff);
	cr_assert_not_null(bf);
	uint32_t want = USMP_CAP_MULTI_POOL | USMP_CAP_OVERLAP_RULES |
	                USMP_CAP_FIXED_OFFSETS | USMP_CAP_DETERMINISTIC |
	                USMP_CAP_EXPLICIT_CONFLICTS;
	cr_assert_eq(ff->caps, want);
	cr_assert_eq(bf->caps, want);
	cr_assert_str_eq(ff->params, "order:str=size");
	cr_assert_str_eq(bf->params, "order:str=size");
	cr_assert(USMP_HAS_FIELD(ff, usmp_algorithm, param_help));
	cr_assert_not_null(ff->param_help);
	cr_assert(strstr(ff->param_help, "order:") == ff->param_help);
}

Test(fit, first_fit_places_size_desc_at_lowest_offsets)
{
	th_problem *p = th_new();
	th_buffer(p, "a", 32, 1, 0, 2);
	th_buffer(p, "b", 16, 1, 1, 3);
	th_buffer(p, "c", 8, 1, 2, 4);
	th_buffer(p, "d", 16, 1, 3, 5);
	/* a(32) at 0; b(16) above a at 32; d(16) conflicts nothing placed
	 * (a and b ended) at 0; c(8) between d [0,16) and b [32,48) at 16. */
	static const uint64_t want[] = { 0, 32, 16, 0 };
	fit_offsets("first_fit", p, want, 48);
}

Test(fit, first_fit_fills_gap_between_placed_buffers)
{
	th_problem *p = th_new();
	th_buffer(p, "P", 64, 1, 0, 10);
	th_buffer(p, "Q", 32, 1, 0, 3);
	th_buffer(p, "R", 31, 1, 0, 10);
	th_buffer(p, "S", 16, 1, 5, 8);
	/* P@0, Q@64, R@96; Q is dead by then: S goes into [64, 96) under R. */
	static const uint64_t want[] = { 0, 64, 96, 64 };
	fit_offsets("first_fit", p, want, 127);
}

/* Fixed buffers at [0,10), [50,60), [80,90): gaps of 40 and 20 bytes. */
static th_problem *two_gaps(uint64_t align)
{
	th_problem *p = th_new();
	th_pool(p, "sram", USMP_UNBOUNDED, 1);
	th_fixed(p, th_buffer(p, "f1", 10, 1, 0, 10), 0, 0);
	th_fixed(p, th_buffer(p, "f2", 10, 1, 0, 10), 0, 50);
	th_fixed(p, th_buffer(p, "f3", 10, 1, 0, 10), 0, 80);
	th_buffer(p, "t", 16, align, 2, 5);
	th_view(p);
	return p;
}

Test(fit, first_fit_takes_lowest_gap_and_best_fit_the_tightest)
{
	th_problem *p = two_gaps(1);
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[3].offset, 10);
	cr_assert_eq(o[0].offset, 0);
	cr_assert_eq(o[1].offset, 50);
	cr_assert_eq(o[2].offset, 80);
	free(o);
	o = plan_ok("best_fit", v, "size");
	cr_assert_eq(o[3].offset, 60);
	cr_assert_eq(th_total(v, o), 90);
	free(o);
	th_free(p);
}

Test(fit, gaps_respect_buffer_alignment)
{
	th_problem *p = two_gaps(8);
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[3].offset, 16);
	free(o);
	o = plan_ok("best_fit", v, "size");
	cr_assert_eq(o[3].offset, 64);
	free(o);
	th_free(p);
	/* 32-byte alignment: [32,48) still fits the first gap; nothing fits
	 * the second ([64,80) is the only aligned start, 64+16 <= 80 ok). */
	p = two_gaps(32);
	v = th_view(p);
	o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[3].offset, 32);
	free(o);
	o = plan_ok("best_fit", v, "size");
	cr_assert_eq(o[3].offset, 64);
	free(o);
	th_free(p);
}

Test(fit, best_fit_uses_open_space_when_no_gap_holds_buffer)
{
	th_problem *p = th_new();
	th_fixed(p, th_buffer(p, "f1", 10, 1, 0, 10), 0, 0);
	th_fixed(p, th_buffer(p, "f2", 10, 1, 0, 10), 0, 30);
	th_buffer(p, "t", 25, 1, 0, 10);
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok("best_fit", v, "size");
	cr_assert_eq(o[2].offset, 40);
	free(o);
	th_free(p);
}

Test(fit, pool_alignment_applies_on_top_of_buffer_alignment)
{
	th_problem *p = th_new();
	th_pool(p, "sram", USMP_UNBOUNDED, 64);
	th_buffer(p, "a", 10, 1, 0, 2);
	th_buffer(p, "b", 10, 4, 0, 2);
	static const uint64_t want[] = { 0, 64 };
	fit_offsets("first_fit", p, want, 0);
}

Test(fit, spills_to_next_candidate_pool_when_first_is_full)
{
	const char *algos[] = { "first_fit", "best_fit" };
	for (int i = 0; i < 2; i++) {
		th_problem *p = th_new();
		uint32_t small = th_pool(p, "small", 100, 1);
		uint32_t big = th_pool(p, "big", USMP_UNBOUNDED, 1);
		uint32_t a = th_buffer(p, "a", 80, 1, 0, 2);
		uint32_t b = th_buffer(p, "b", 40, 1, 0, 2);
		uint32_t c = th_buffer(p, "c", 20, 1, 0, 2);
		uint32_t cand[] = { small, big };
		th_candidates(p, a, 2, cand);
		th_candidates(p, b, 2, cand);
		th_candidates(p, c, 2, cand);
		const usmp_view *v = th_view(p);
		usmp_placement *o = plan_ok(algos[i], v, "size");
		cr_assert_eq(o[a].pool, small);
		cr_assert_eq(o[a].offset, 0);
		cr_assert_eq(o[b].pool, big, "%s", algos[i]);
		cr_assert_eq(o[b].offset, 0);
		/* c (20) still fits on top of a in the small pool */
		cr_assert_eq(o[c].pool, small);
		cr_assert_eq(o[c].offset, 80);
		free(o);
		th_free(p);
	}
}

Test(fit, candidate_order_is_priority_order)
{
	th_problem *p = th_new();
	uint32_t p0 = th_pool(p, "p0", USMP_UNBOUNDED, 1);
	uint32_t p1 = th_pool(p, "p1", USMP_UNBOUNDED, 1);
	uint32_t a = th_buffer(p, "a", 8, 1, 0, 2);
	uint32_t cand[] = { p1, p0 };
	th_candidates(p, a, 2, cand);
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[a].pool, p1);
	free(o);
	th_free(p);
}

Test(fit, fixed_offsets_are_honoured_and_avoided)
{
	th_problem *p = th_new();
	uint32_t f = th_buffer(p, "pinned", 16, 1, 0, 4);
	th_fixed(p, f, 0, 8);
	th_buffer(p, "a", 8, 1, 0, 4);
	th_buffer(p, "b", 100, 1, 0, 4);
	static const uint64_t want[] = { 8, 0, 24 }; /* pinned, a, b */
	fit_offsets("first_fit", p, want, 0);
}

Test(fit, infeasible_is_reported_naming_the_buffer)
{
	const char *algos[] = { "first_fit", "best_fit" };
	for (int i = 0; i < 2; i++) {
		th_problem *p = th_new();
		th_pool(p, "tiny", 100, 1);
		th_buffer(p, "first", 60, 1, 0, 2);
		th_buffer(p, "second", 60, 1, 1, 3);
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *o = th_out(v);
		int rc = run(algos[i], v, &h, o, "size");
		cr_assert_eq(rc, USMP_ERR_INFEASIBLE);
		cr_assert(strstr(h.last_log, "\"second\"") != NULL, "log: %s",
		          h.last_log);
		char why[256];
		cr_assert(th_check(v, o, 1, why, sizeof why), "%s", why);
		free(o);
		th_free(p);
	}
}

Test(fit, colliding_fixed_buffers_are_infeasible)
{
	th_problem *p = th_new();
	th_fixed(p, th_buffer(p, "x", 16, 1, 0, 4), 0, 0);
	th_fixed(p, th_buffer(p, "y", 16, 1, 2, 6), 0, 8);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("first_fit", v, &h, o, "size"), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(h.last_log, "\"x\"") && strstr(h.last_log, "\"y\""),
	          "log: %s", h.last_log);
	free(o);
	th_free(p);
}

Test(fit, unknown_order_is_invalid)
{
	th_problem *p = th_new();
	th_buffer(p, "a", 8, 1, 0, 2);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("first_fit", v, &h, o, "random"), USMP_ERR_INVALID);
	cr_assert(strstr(h.last_log, "random") != NULL, "log: %s", h.last_log);
	cr_assert_eq(run("best_fit", v, &h, o, ""), USMP_ERR_INVALID);
	free(o);
	th_free(p);
}

Test(fit, empty_problem_is_ok)
{
	th_problem *p = th_new();
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("first_fit", v, &h, o, "all"), USMP_OK);
	free(o);
	th_free(p);
}

Test(fit, explicit_edges_conflict_without_live_ranges)
{
	th_problem *p = th_new();
	uint32_t a = th_buffer_nolive(p, "a", 10, 1);
	uint32_t b = th_buffer_nolive(p, "b", 10, 1);
	th_buffer_nolive(p, "c", 10, 1);
	/* d and e overlap nothing in time but share an edge */
	uint32_t d = th_buffer(p, "d", 10, 1, 0, 1);
	uint32_t e = th_buffer(p, "e", 10, 1, 5, 6);
	th_edge(p, a, b);
	th_edge(p, d, e);
	static const uint64_t want[] = { 0, 10, 0, 0, 10 };
	fit_offsets("first_fit", p, want, 0);
}

Test(fit, orders_differ_and_all_keeps_the_best)
{
	uint64_t rng = 42;
	th_random_opts opt = { .buffers = 60, .pools = 1 };
	const char *orders[] = { "size", "lifetime", "area", "conflicts" };
	const char *algos[] = { "first_fit", "best_fit" };
	for (int round = 0; round < 30; round++) {
		th_problem *p = th_random(&rng, &opt);
		const usmp_view *v = th_view(p);
		for (int a = 0; a < 2; a++) {
			uint64_t best = UINT64_MAX;
			for (int i = 0; i < 4; i++) {
				usmp_placement *o = plan_ok(algos[a], v, orders[i]);
				uint64_t t = th_total(v, o);
				if (t < best)
					best = t;
				cr_assert_geq(t, v->lower_bound);
				free(o);
			}
			usmp_placement *o = plan_ok(algos[a], v, "all");
			cr_assert_eq(th_total(v, o), best, "%s all: %llu vs %llu",
			             algos[a], (unsigned long long)th_total(v, o),
			             (unsigned long long)best);
			free(o);
		}
		th_free(p);
	}
}

/* ---- overlap rules -------------------------------------------------------- */

/* A chain of n in-place element-wise ops: t[i] -> t[i+1], each 100 bytes,
 * t[i] live [i, i+2) so neighbours conflict. */
static th_problem *chain(int n, int with_rules)
{
	th_problem *p = th_new();
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "t%d", i);
		th_buffer(p, name, 100, 1, i, i + 2);
	}
	if (with_rules)
		for (int i = 0; i + 1 < n; i++)
			th_rule(p, (uint32_t)i, (uint32_t)i + 1, 0);
	th_view(p);
	return p;
}

Test(fit, in_place_chain_is_smaller_with_overlap_rules)
{
	const char *algos[] = { "first_fit", "best_fit" };
	for (int a = 0; a < 2; a++) {
		th_problem *plain = chain(6, 0), *ruled = chain(6, 1);
		usmp_placement *o1 = plan_ok(algos[a], th_view(plain), "size");
		usmp_placement *o2 = plan_ok(algos[a], th_view(ruled), "size");
		cr_assert_eq(th_total(th_view(plain), o1), 200);
		cr_assert_eq(th_total(th_view(ruled), o2), 100, "%s: %llu",
		             algos[a],
		             (unsigned long long)th_total(th_view(ruled), o2));
		for (int i = 0; i < 6; i++)
			cr_assert_eq(o2[i].offset, 0);
		free(o1);
		free(o2);
		th_free(plain);
		th_free(ruled);
	}
}

Test(fit, negative_lead_places_src_above_dst)
{
	/* dst D (120) is placed first; src S (100) may overlap it only with
	 * off(D) <= off(S) - 16, so S goes to 16 (not 120). */
	th_problem *p = th_new();
	uint32_t s = th_buffer(p, "S", 100, 1, 0, 2);
	uint32_t d = th_buffer(p, "D", 120, 1, 1, 3);
	th_rule(p, s, d, -16);
	const usmp_view *v = th_view(p);
	usmp_placement *o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[d].offset, 0);
	cr_assert_eq(o[s].offset, 16);
	cr_assert_eq(th_total(v, o), 120);
	free(o);
	/* with alignment 32 the first allowed start is 32 */
	th_free(p);
	p = th_new();
	s = th_buffer(p, "S", 100, 32, 0, 2);
	d = th_buffer(p, "D", 120, 1, 1, 3);
	th_rule(p, s, d, -16);
	v = th_view(p);
	o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[s].offset, 32);
	free(o);
	th_free(p);
}

Test(fit, positive_lead_lets_dst_start_above_src)
{
	/* src S (120) at 0; a blocker B [0,8) fixed is live with dst only...
	 * keep it simple: dst D (100) with lead 8 and alignment 8 may sit at
	 * 0 or 8; a fixed buffer in [0,8) that conflicts only with D pushes
	 * it to 8, which the rule allows (8 <= 0 + 8). */
	th_problem *p = th_new();
	uint32_t s = th_buffer(p, "S", 120, 1, 0, 2);
	uint32_t d = th_buffer(p, "D", 100, 8, 1, 3);
	uint32_t b = th_buffer(p, "B", 8, 1, 2, 3);
	th_fixed(p, b, 0, 0);
	th_rule(p, s, d, 8);
	const usmp_view *v = th_view(p);
	/* S conflicts B? S [0,2) vs B [2,3): no. */
	usmp_placement *o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[s].offset, 0);
	cr_assert_eq(o[d].offset, 8);
	free(o);
	/* lead 4: 8 is not allowed any more; D must clear S entirely */
	th_rule(p, s, d, 4);
	v = th_view(p);
	o = plan_ok("first_fit", v, "size");
	cr_assert_eq(o[d].offset, 120);
	free(o);
	th_free(p);
}

/* ---- properties on random problems -------------------------------------- */

static void random_validity(const char *algo, uint64_t seed, int rounds)
{
	uint64_t rng = seed;
	const char *orders[] = { "size", "lifetime", "area", "conflicts", "all" };
	int planned = 0, infeasible = 0;
	for (int r = 0; r < rounds; r++) {
		th_problem *p = th_random_any(&rng, 50);
		const usmp_view *v = th_view(p);
		const char *order = orders[r % 5];
		th_host h;
		usmp_placement *o = th_out(v);
		int rc = run(algo, v, &h, o, order);
		char why[512];
		if (rc == USMP_OK) {
			planned++;
			cr_assert(th_check(v, o, 0, why, sizeof why),
			          "%s order=%s round %d: %s", algo, order, r, why);
			/* deterministic */
			usmp_placement *o2 = th_out(v);
			cr_assert_eq(run(algo, v, &h, o2, order), USMP_OK);
			cr_assert(!memcmp(o, o2, v->buffer_count * sizeof *o));
			free(o2);
		} else {
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE,
			             "%s round %d: status %d", algo, r, rc);
			cr_assert(h.log_count > 0 && strstr(h.last_log, "\""));
			cr_assert(th_check(v, o, 1, why, sizeof why), "%s", why);
			infeasible++;
		}
		free(o);
		th_free(p);
	}
	cr_assert_gt(planned, rounds / 2);
	cr_log_info("%s: %d planned, %d infeasible", algo, planned, infeasible);
}

Test(fit, first_fit_plans_of_random_problems_are_valid)
{
	random_validity("first_fit", 1, 400);
}

Test(fit, best_fit_plans_of_random_problems_are_valid)
{
	random_validity("best_fit", 2, 400);
}

Test(fit, rule_heavy_random_problems_are_valid)
{
	uint64_t rng = 99;
	const char *algos[] = { "first_fit", "best_fit" };
	for (int r = 0; r < 300; r++) {
		th_random_opts opt = { .buffers = 30, .pools = 1, .rules = 1,
		                       .alignments = r & 1 };
		th_problem *p = th_random(&rng, &opt);
		const usmp_view *v = th_view(p);
		usmp_placement *o = plan_ok(algos[r & 1], v,
		                            r % 3 ? "size" : "all");
		free(o);
		th_free(p);
	}
}

/* A plain first/best fit in size order (all placed conflicting buffers,
 * qsort, scan), one pool, no limit: what the plugin's index and bucket
 * sort must reproduce offset for offset. */
typedef struct ref_range {
	uint64_t a, b;
} ref_range;

static int ref_cmp_range(const void *x, const void *y)
{
	const ref_range *p = x, *q = y;
	return (p->a > q->a) - (p->a < q->a);
}

static const usmp_view *ref_view;

static int ref_cmp_order(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	uint64_t si = ref_view->buffers[i].size, sj = ref_view->buffers[j].size;
	if (si != sj)
		return si > sj ? -1 : 1;
	return (i > j) - (i < j);
}

static void ref_fit(const usmp_view *v, int best, uint64_t *off)
{
	uint32_t n = v->buffer_count;
	uint32_t *ord = malloc(n * sizeof *ord), *placed = malloc(n * sizeof *placed);
	ref_range *r = malloc(n * sizeof *r);
	cr_assert(ord && placed && r);
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	ref_view = v;
	qsort(ord, n, sizeof *ord, ref_cmp_order);
	for (uint32_t t = 0; t < n; t++) {
		const usmp_buffer_rec *b = &v->buffers[ord[t]];
		size_t k = 0;
		for (uint32_t u = 0; u < t; u++) {
			const usmp_buffer_rec *o = &v->buffers[placed[u]];
			if (!(b->begin < o->end && o->begin < b->end))
				continue;
			uint64_t oo = off[placed[u]];
			r[k].a = oo + 1 > b->size ? oo + 1 - b->size : 0;
			r[k].b = oo + o->size;
			k++;
		}
		qsort(r, k, sizeof *r, ref_cmp_range);
		uint64_t al = b->alignment, s = 0, x = UINT64_MAX, len = UINT64_MAX;
		for (size_t i = 0; i < k; i++) {
			uint64_t cx = (s + al - 1) / al * al;
			if (r[i].a > s && cx < r[i].a) {
				if (!best) {
					x = cx;
					break;
				}
				if (r[i].a - s < len) {
					len = r[i].a - s;
					x = cx;
				}
			}
			if (r[i].b > s)
				s = r[i].b;
		}
		off[ord[t]] = x != UINT64_MAX ? x : (s + al - 1) / al * al;
		placed[t] = ord[t];
	}
	free(ord);
	free(placed);
	free(r);
}

Test(fit, dense_problems_get_the_offsets_of_a_plain_first_and_best_fit)
{
	/* hundreds alive at once, sizes from a few values (many equal starts)
	 * or spread, some aligned: the bucket sort's big and small buckets */
	uint64_t rng = 7;
	static const uint64_t sizes[] = { 16, 4096, 4096, 65536, 1572864 };
	for (int round = 0; round < 12; round++) {
		th_problem *p = th_new();
		uint32_t n = (uint32_t)test_rand_range(&rng, 200, 700);
		for (uint32_t i = 0; i < n; i++) {
			char name[16];
			snprintf(name, sizeof name, "b%u", i);
			uint64_t size = round % 3 == 0
				? test_rand_range(&rng, 1, 1u << 20)
				: sizes[test_rand_range(&rng, 0, 4)];
			uint64_t align = round % 2 ? 1u << test_rand_range(&rng, 0, 6) : 1;
			int64_t begin = (int64_t)test_rand_range(&rng, 0, 300);
			int64_t life = (int64_t)test_rand_range(&rng, 1, i % 5 ? 30 : 250);
			th_buffer(p, name, size, align, begin, begin + life);
		}
		const usmp_view *v = th_view(p);
		uint64_t *want = malloc(n * sizeof *want);
		cr_assert_not_null(want);
		for (int best = 0; best < 2; best++) {
			ref_fit(v, best, want);
			usmp_placement *o = plan_ok(best ? "best_fit" : "first_fit", v,
			                            "size");
			for (uint32_t i = 0; i < n; i++)
				cr_assert_eq(o[i].offset, want[i],
				             "round %d %s: buffer %u at %llu, plain %llu",
				             round, best ? "best_fit" : "first_fit", i,
				             (unsigned long long)o[i].offset,
				             (unsigned long long)want[i]);
			free(o);
		}
		free(want);
		th_free(p);
	}
}

Test(fit, stops_when_asked)
{
	th_problem *p = th_new();
	for (int i = 0; i < 9000; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", i);
		th_buffer(p, name, (uint64_t)(i % 97) + 1, 1, i, i + 3);
	}
	const usmp_view *v = th_view(p);
	const usmp_algorithm *a = th_algorithm("fit", "first_fit");
	cr_assert_not_null(a);
	th_host h;
	th_host_init(&h, v);
	h.stop_after = 1;
	usmp_placement *o = th_out(v);
	int rc = ((th_fn_str)a->fn)(v, &h.host, o, "size");
	cr_assert_eq(rc, USMP_ERR_STOPPED);
	cr_assert_eq(h.live_allocs, 0);
	free(o);
	th_free(p);
}

Test(fit, order_all_stops_once_the_lower_bound_is_reached)
{
	/* The plain chain reaches its bound (200) in the first order: no
	 * further order runs, so should_stop is never asked. */
	th_problem *p = chain(6, 0);
	const usmp_view *v = th_view(p);
	cr_assert_eq(v->lower_bound, 200);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("first_fit", v, &h, o, "all"), USMP_OK);
	cr_assert_eq(th_total(v, o), 200);
	cr_assert_eq(h.stop_calls, 0);
	cr_assert_eq(h.progress_best, 200);
	free(o);
	th_free(p);
	/* two_gaps cannot reach its bound (fixed buffers leave holes): all
	 * four orders run, asking should_stop before each of the last three */
	p = two_gaps(1);
	v = th_view(p);
	o = th_out(v);
	cr_assert_eq(run("best_fit", v, &h, o, "all"), USMP_OK);
	cr_assert_lt(v->lower_bound, th_total(v, o));
	cr_assert_eq(h.stop_calls, 3);
	free(o);
	th_free(p);
}

Test(fit, order_all_reports_infeasible_naming_the_buffer)
{
	th_problem *p = th_new();
	th_pool(p, "tiny", 100, 1);
	th_buffer(p, "first", 60, 1, 0, 2);
	th_buffer(p, "second", 60, 1, 1, 3);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("best_fit", v, &h, o, "all"), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(h.last_log, "fits in none") != NULL, "log: %s",
	          h.last_log);
	char why[256];
	cr_assert(th_check(v, o, 1, why, sizeof why), "%s", why);
	free(o);
	th_free(p);
}

/* ---- scale: plans of a 20,000-buffer problem (5,000 under the sanitizers)
 * pass the core verifier ---- */

#include "internal.h"

Test(fit, large_plans_pass_the_core_verifier, .timeout = 300)
{
	uint64_t rng = 2024;
	th_problem *p = th_scale(&rng, TEST_SWEEP(20000));
	const usmp_view *v = th_view(p);
	const char *algos[] = { "first_fit", "best_fit" };
	const char *orders[] = { "size", "lifetime", "area", "conflicts" };
	for (int a = 0; a < 2; a++) {
		for (int o = 0; o < 4; o++) {
			th_host h;
			usmp_placement *out = th_out(v);
			int rc = run(algos[a], v, &h, out, orders[o]);
			cr_assert_eq(rc, USMP_OK, "%s %s: %d (%s)", algos[a],
			             orders[o], rc, h.last_log);
			char *msg = NULL;
			int vr = usmp__verify(v, out, &msg);
			cr_assert_eq(vr, USMP_OK, "%s order=%s: %s", algos[a],
			             orders[o], msg ? msg : "");
			usmp__free_msg(&msg);
			free(out);
		}
	}
	th_free(p);
}

Test(fit, empty_live_range_is_invalid_not_a_crash)
{
	th_problem *p = th_new();
	th_buffer(p, "ok", 8, 1, 5, 9);
	th_buffer(p, "bad", 8, 1, 3, 3);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run("first_fit", v, &h, o, "size"), USMP_ERR_INVALID);
	cr_assert(strstr(h.last_log, "\"bad\"") != NULL, "log: %s", h.last_log);
	free(o);
	th_free(p);
}
