/* test_tvm.c — the "tvm" plugin (greedy_by_size, greedy_by_conflicts,
 * hill_climb): TVM's orders and no-gap placement on hand-checked cases, the
 * fan-out numbers, staying valid where TVM's code would not, and hill_climb
 * determinism and monotonicity on random problems. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"
#include "support.h"

static int run_greedy(const char *algo, const usmp_view *v, th_host *h,
                      usmp_placement *out)
{
	const usmp_algorithm *a = th_algorithm("tvm", algo);
	cr_assert_not_null(a, "algorithm %s not found in tvm.so", algo);
	th_host_init(h, v);
	int rc = ((th_fn0)a->fn)(v, &h->host, out);
	cr_assert_eq(h->live_allocs, 0, "%s leaked %ld blocks", algo,
	             h->live_allocs);
	return rc;
}

static int run_hill(const usmp_view *v, th_host *h, usmp_placement *out,
                    uint64_t seed, uint32_t attempts)
{
	const usmp_algorithm *a = th_algorithm("tvm", "hill_climb");
	cr_assert_not_null(a);
	th_host_init(h, v);
	int rc = ((th_fn_u64_u32)a->fn)(v, &h->host, out, seed, attempts);
	cr_assert_eq(h->live_allocs, 0, "hill_climb leaked %ld blocks",
	             h->live_allocs);
	return rc;
}

static usmp_placement *greedy_ok(const char *algo, const usmp_view *v)
{
	th_host h;
	usmp_placement *o = th_out(v);
	int rc = run_greedy(algo, v, &h, o);
	cr_assert_eq(rc, USMP_OK, "%s: status %d (%s)", algo, rc, h.last_log);
	char why[512];
	cr_assert(th_check(v, o, 0, why, sizeof why), "%s: %s", algo, why);
	return o;
}

/* greedy_ok of `algo` on p, which is then freed: every buffer i of p at
 * want[i]; and the plan's total `total` (0: not checked). */
static void greedy_offsets(const char *algo, th_problem *p,
                           const uint64_t *want, uint64_t total)
{
	const usmp_view *v = th_view(p);
	usmp_placement *o = greedy_ok(algo, v);
	th_expect_offsets(v, o, algo, want);
	if (total)
		cr_assert_eq(th_total(v, o), total);
	free(o);
	th_free(p);
}

Test(tvm, plugin_exports_three_algorithms)
{
	const char *names[] = { "greedy_by_size", "greedy_by_conflicts",
		                "hill_climb" };
	for (int i = 0; i < 3; i++) {
		const usmp_algorithm *a = th_algorithm("tvm", names[i]);
		cr_assert_not_null(a, "%s", names[i]);
		cr_assert(a->caps & USMP_CAP_DETERMINISTIC);
		cr_assert(a->caps & USMP_CAP_MULTI_POOL);
		cr_assert_eq(a->caps & USMP_CAP_OVERLAP_RULES, 0);
	}
	cr_assert_str_eq(th_algorithm("tvm", "hill_climb")->params,
	                 "seed:u64=0 attempts:u32=500");
}

/* The fan-out graph: a=10 b=20 c=100 d=40 e=50 f=60 g=70 with conflicts
 * a-b a-c b-c b-e c-e c-d b-d d-f d-e e-f f-g, one unbounded pool. */
static th_problem *fanout(void)
{
	th_problem *p = th_new();
	const char *names[] = { "a", "b", "c", "d", "e", "f", "g" };
	const uint64_t sizes[] = { 10, 20, 100, 40, 50, 60, 70 };
	for (int i = 0; i < 7; i++)
		th_buffer_nolive(p, names[i], sizes[i], 1);
	const char *edges[] = { "ab", "ac", "bc", "be", "ce", "cd",
		                "bd", "df", "de", "ef", "fg" };
	for (int i = 0; i < 11; i++)
		th_edge(p, (uint32_t)(edges[i][0] - 'a'),
		        (uint32_t)(edges[i][1] - 'a'));
	th_view(p);
	return p;
}

Test(tvm, fanout_greedy_by_size_is_250)
{
	/* c g f e d b a: c@0 g@0 f@70 e@130 d@180 b@220 a@240 */
	static const uint64_t want[] = { 240, 220, 0, 180, 130, 70, 0 };
	greedy_offsets("greedy_by_size", fanout(), want, 250);
}

Test(tvm, fanout_greedy_by_conflicts_is_320)
{
	th_problem *p = fanout();
	const usmp_view *v = th_view(p);
	/* degrees: a2 b4 c4 d4 e4 f3 g1 */
	cr_assert_eq(v->degree[1], 4);
	cr_assert_eq(v->degree[5], 3);
	/* c e d b f a g: c@0 e@100 d@150 b@190 f@190 a@210 g@250 */
	static const uint64_t want[] = { 210, 190, 0, 150, 100, 190, 250 };
	greedy_offsets("greedy_by_conflicts", p, want, 320);
}

Test(tvm, fanout_hill_climb_is_no_worse_than_greedy)
{
	th_problem *p = fanout();
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run_hill(v, &h, o, 0, 500), USMP_OK);
	char why[256];
	cr_assert(th_check(v, o, 0, why, sizeof why), "%s", why);
	cr_assert_leq(th_total(v, o), 250);
	cr_assert_geq(th_total(v, o), v->lower_bound);
	free(o);
	th_free(p);
}

Test(tvm, greedy_does_not_fill_gaps)
{
	th_problem *p = th_new();
	th_buffer(p, "A", 100, 1, 0, 2);
	th_buffer(p, "B", 50, 1, 1, 4);
	th_buffer(p, "C", 50, 1, 3, 5);
	/* A@0, B@100; first fit would put C in [0, 100): TVM stacks it above B */
	static const uint64_t want[] = { 0, 100, 150 };
	greedy_offsets("greedy_by_size", p, want, 0);
}

Test(tvm, size_ties_break_by_conflicts_then_name_descending)
{
	/* all 10 bytes, so the order is by conflicts, then name desc */
	th_problem *p = th_new();
	uint32_t x = th_buffer_nolive(p, "x", 10, 1);
	uint32_t y = th_buffer_nolive(p, "y", 10, 1);
	uint32_t z = th_buffer_nolive(p, "z", 10, 1);
	uint32_t w = th_buffer_nolive(p, "w", 10, 1);
	th_edge(p, x, z);
	th_edge(p, y, z);
	th_edge(p, x, w);
	th_edge(p, y, w);
	th_edge(p, x, y);
	/* degrees: x3 y3 z2 w2; order: y, x (name desc), then z, w:
	 * y@0 x@10 z@20 w@20 (x, y, z, w in the order added) */
	static const uint64_t want[] = { 10, 0, 20, 20 };
	greedy_offsets("greedy_by_size", p, want, 0);
}

Test(tvm, end_is_rounded_up_to_alignment)
{
	th_problem *p = th_new();
	th_pool(p, "sram", USMP_UNBOUNDED, 4);
	th_buffer(p, "a", 10, 1, 0, 2);
	th_buffer(p, "b", 8, 16, 0, 2);
	th_buffer(p, "c", 6, 1, 0, 2);
	static const uint64_t want[] = { 0, 16, 24 };
	greedy_offsets("greedy_by_size", p, want, 0);
}

Test(tvm, spills_to_next_pool_and_reports_infeasible)
{
	th_problem *p = th_new();
	uint32_t small = th_pool(p, "small", 100, 1);
	uint32_t big = th_pool(p, "big", 150, 1);
	uint32_t a = th_buffer(p, "a", 80, 1, 0, 2);
	uint32_t b = th_buffer(p, "b", 70, 1, 0, 2);
	uint32_t c = th_buffer(p, "c", 90, 1, 0, 2);
	uint32_t cand[] = { small, big };
	th_candidates(p, a, 2, cand);
	th_candidates(p, b, 2, cand);
	th_candidates(p, c, 2, cand);
	const usmp_view *v = th_view(p);
	/* c@small 0; a: small 90+80 > 100 -> big 0; b: small no, big 80+70=150 */
	usmp_placement *o = greedy_ok("greedy_by_size", v);
	cr_assert_eq(o[c].pool, small);
	cr_assert_eq(o[a].pool, big);
	cr_assert_eq(o[a].offset, 0);
	cr_assert_eq(o[b].pool, big);
	cr_assert_eq(o[b].offset, 80);
	free(o);
	uint32_t d = th_buffer(p, "d", 15, 1, 0, 2);
	th_candidates(p, d, 2, cand);
	v = th_view(p);
	const char *algos[] = { "greedy_by_size", "greedy_by_conflicts" };
	for (int i = 0; i < 2; i++) {
		th_host h;
		o = th_out(v);
		cr_assert_eq(run_greedy(algos[i], v, &h, o), USMP_ERR_INFEASIBLE);
		cr_assert(strstr(h.last_log, "\"") != NULL, "log: %s", h.last_log);
		char why[256];
		cr_assert(th_check(v, o, 1, why, sizeof why), "%s", why);
		free(o);
	}
	th_host h;
	o = th_out(v);
	cr_assert_eq(run_hill(v, &h, o, 3, 50), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(h.last_log, "\"d\"") != NULL, "log: %s", h.last_log);
	free(o);
	th_free(p);
}

Test(tvm, pool_dropped_for_one_conflict_is_not_readmitted)
{
	/* TVM's loop drops p0 for C1 (ends at 90, X would end at 110 > 100),
	 * then re-admits it for C2 (ends at 30) and places X on top of C1.
	 * We judge the pool on all conflicts: X goes to p1. */
	th_problem *p = th_new();
	uint32_t p0 = th_pool(p, "p0", 100, 1);
	uint32_t p1 = th_pool(p, "p1", USMP_UNBOUNDED, 1);
	uint32_t c1 = th_buffer(p, "C1", 60, 1, 0, 2);
	uint32_t c2 = th_buffer(p, "C2", 30, 1, 0, 2);
	th_fixed(p, c1, p0, 30);
	th_fixed(p, c2, p0, 0);
	uint32_t x = th_buffer(p, "X", 20, 1, 0, 2);
	uint32_t cand[] = { p0, p1 };
	th_candidates(p, x, 2, cand);
	const usmp_view *v = th_view(p);
	usmp_placement *o = greedy_ok("greedy_by_size", v);
	cr_assert_eq(o[x].pool, p1);
	cr_assert_eq(o[x].offset, 0);
	cr_assert_eq(o[c1].offset, 30);
	free(o);
	th_free(p);
}

Test(tvm, fixed_buffers_are_honoured)
{
	th_problem *p = th_new();
	uint32_t f = th_buffer(p, "pinned", 16, 1, 0, 4);
	th_fixed(p, f, 0, 100);
	th_buffer(p, "a", 8, 1, 0, 4);
	static const uint64_t want[] = { 100, 116 };
	greedy_offsets("greedy_by_conflicts", p, want, 0);
}

/* ---- random problems ------------------------------------------------------ */

Test(tvm, greedy_plans_of_random_problems_are_valid)
{
	uint64_t rng = 7;
	const char *algos[] = { "greedy_by_size", "greedy_by_conflicts" };
	int planned = 0;
	for (int r = 0; r < 600; r++) {
		th_problem *p = th_random_any(&rng, 40);
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *o = th_out(v);
		int rc = run_greedy(algos[r & 1], v, &h, o);
		char why[512];
		if (rc == USMP_OK) {
			planned++;
			cr_assert(th_check(v, o, 0, why, sizeof why),
			          "%s round %d: %s", algos[r & 1], r, why);
		} else {
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "status %d", rc);
			cr_assert(strstr(h.last_log, "\"") != NULL);
			cr_assert(th_check(v, o, 1, why, sizeof why), "%s", why);
		}
		free(o);
		th_free(p);
	}
	cr_assert_gt(planned, 300);
}

Test(tvm, hill_climb_is_deterministic_valid_and_never_worse)
{
	uint64_t rng = 11;
	int improved = 0;
	for (int r = 0; r < 200; r++) {
		th_problem *p = th_random_any(&rng, 40);
		const usmp_view *v = th_view(p);
		th_host h;
		usmp_placement *g = th_out(v);
		int grc = run_greedy("greedy_by_size", v, &h, g);
		usmp_placement *o1 = th_out(v), *o2 = th_out(v);
		uint64_t seed = (uint64_t)r * 7919;
		int rc1 = run_hill(v, &h, o1, seed, 60);
		int rc2 = run_hill(v, &h, o2, seed, 60);
		cr_assert_eq(rc1, rc2);
		char why[512];
		if (grc == USMP_OK)
			cr_assert_eq(rc1, USMP_OK, "round %d: %d", r, rc1);
		if (rc1 == USMP_OK) {
			cr_assert(th_check(v, o1, 0, why, sizeof why),
			          "round %d: %s", r, why);
			cr_assert(!memcmp(o1, o2, v->buffer_count * sizeof *o1),
			          "round %d: same seed, different plans", r);
			if (grc == USMP_OK) {
				cr_assert_leq(th_total(v, o1), th_total(v, g));
				improved += th_total(v, o1) < th_total(v, g);
			}
		} else {
			cr_assert_eq(rc1, USMP_ERR_INFEASIBLE);
		}
		free(g);
		free(o1);
		free(o2);
		th_free(p);
	}
	cr_assert_gt(improved, 0, "hill_climb never improved on greedy");
	cr_log_info("hill_climb improved %d of 200", improved);
}

Test(tvm, hill_climb_stopped_at_once_returns_greedy_by_size_plan)
{
	uint64_t rng = 5;
	th_random_opts opt = { .buffers = 40, .pools = 1 };
	th_problem *p = th_random(&rng, &opt);
	const usmp_view *v = th_view(p);
	usmp_placement *g = greedy_ok("greedy_by_size", v);
	const usmp_algorithm *a = th_algorithm("tvm", "hill_climb");
	cr_assert_not_null(a);
	th_host h;
	th_host_init(&h, v);
	h.stop_after = 1;
	usmp_placement *o = th_out(v);
	cr_assert_eq(((th_fn_u64_u32)a->fn)(v, &h.host, o, 1, 500), USMP_OK);
	cr_assert(!memcmp(o, g, v->buffer_count * sizeof *o));
	cr_assert_eq(h.live_allocs, 0);
	free(o);
	free(g);
	th_free(p);
}

Test(tvm, hill_climb_finds_a_plan_where_greedy_by_size_does_not_fit)
{
	/* A [0,2) 60, B [1,3) 50, C [2,4) 40 in a 110-byte pool: by size,
	 * C lands above B at 110 and does not fit; the order A, C, B puts C
	 * and A at 0 and B at 60. */
	th_problem *p = th_new();
	th_pool(p, "sram", 110, 1);
	th_buffer(p, "A", 60, 1, 0, 2);
	th_buffer(p, "B", 50, 1, 1, 3);
	th_buffer(p, "C", 40, 1, 2, 4);
	const usmp_view *v = th_view(p);
	th_host h;
	usmp_placement *o = th_out(v);
	cr_assert_eq(run_greedy("greedy_by_size", v, &h, o), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(h.last_log, "\"C\"") != NULL, "log: %s", h.last_log);
	free(o);
	o = th_out(v);
	cr_assert_eq(run_hill(v, &h, o, 1, 100), USMP_OK, "log: %s", h.last_log);
	char why[256];
	cr_assert(th_check(v, o, 0, why, sizeof why), "%s", why);
	cr_assert_eq(th_total(v, o), 110);
	free(o);
	th_free(p);
}

Test(tvm, harness_degrees_match_brute_force)
{
	/* the TVM orders use view->degree: make sure the harness's counting
	 * agrees with the definition (live overlap or an edge, once) */
	uint64_t rng = 3;
	for (int r = 0; r < 50; r++) {
		th_random_opts opt = { .buffers = 40, .pools = 1, .edges = 1 };
		th_problem *p = th_random(&rng, &opt);
		const usmp_view *v = th_view(p);
		for (uint32_t a = 0; a < v->buffer_count; a++) {
			uint64_t d = 0;
			for (uint32_t b = 0; b < v->buffer_count; b++) {
				if (a == b)
					continue;
				int edge = 0;
				for (uint64_t k = v->conflict_start[a];
				     k < v->conflict_start[a + 1]; k++)
					edge |= v->conflict_adj[k] == b;
				d += usmp_live_overlap(v, a, b) || edge;
			}
			cr_assert_eq(v->degree[a], d, "buffer %u: %llu vs %llu", a,
			             (unsigned long long)v->degree[a],
			             (unsigned long long)d);
		}
		th_free(p);
	}
}

#include "internal.h"

Test(tvm, large_plans_pass_the_core_verifier, .timeout = 300)
{
	uint64_t rng = 77;
	th_problem *p = th_scale(&rng, 4000);
	const usmp_view *v = th_view(p);
	const char *algos[] = { "greedy_by_size", "greedy_by_conflicts",
		                "hill_climb" };
	uint64_t greedy_total = 0;
	for (int a = 0; a < 3; a++) {
		th_host h;
		usmp_placement *out = th_out(v);
		int rc = a < 2 ? run_greedy(algos[a], v, &h, out)
		               : run_hill(v, &h, out, 9, 40);
		cr_assert_eq(rc, USMP_OK, "%s: %d (%s)", algos[a], rc, h.last_log);
		char *msg = NULL;
		cr_assert_eq(usmp__verify(v, out, &msg), USMP_OK, "%s: %s",
		             algos[a], msg ? msg : "");
		usmp__free_msg(&msg);
		if (a == 0)
			greedy_total = th_total(v, out);
		else if (a == 2)
			cr_assert_leq(th_total(v, out), greedy_total);
		free(out);
	}
	th_free(p);
}
