/* test_exact_split.c — exact beyond one joint search (exact_split.c): several
 * pools, candidates and edges planned per conflict component at any size.
 *
 * The claims on small problems are checked against an exhaustive search in
 * test_exact_oracle.c (split_claims_agree_with_an_exhaustive_search); here:
 * large generated problems get valid plans, the same plan every time, what
 * parts prove combines as documented, and the knob is checked. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* sram (512 KiB), tcm (64 KiB) and dram (unbounded); n buffers of a
 * schedule (1-3 per step, most alive 1-4 steps, 5 % up to 200), candidate
 * lists (sram only for short scratches, dram only, tcm-sram-dram,
 * sram-dram), and an edge from a tenth of them to a buffer up to 12
 * later. Like bench/exact/multi_gen.py; one conflict component. */
static usmp_problem *schedule(uint32_t n, uint64_t seed)
{
	usmp_problem *p = usmp_problem_create();
	uint64_t s = seed;
	char name[24];
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 512 * 1024, 16, NULL),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "tcm", 64 * 1024, 8, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32, NULL),
	             USMP_OK);
	int64_t step = 0;
	for (uint32_t i = 0; i < n; step++) {
		uint64_t k = test_rand_range(&s, 1, 3);
		for (uint64_t j = 0; j < k && i < n; j++, i++) {
			int64_t life = test_rand_range(&s, 0, 99) < 5
			                       ? (int64_t)test_rand_range(&s, 20, 200)
			                       : (int64_t)test_rand_range(&s, 1, 4);
			uint64_t size = (UINT64_C(1) << test_rand_range(&s, 0, 6)) *
			                1024 * test_rand_range(&s, 1, 4);
			uint64_t kind = test_rand_range(&s, 0, 99);
			static const uint32_t lists[4][3] = {
				{0}, {2}, {1, 0, 2}, {0, 2}};
			static const uint32_t counts[4] = {1, 1, 3, 2};
			uint32_t l = kind < 15 && life <= 4 ? 0 : kind < 25 ? 1
			             : kind < 40 ? 2 : 3;
			if (l == 0 && size > 64 * 1024)
				size = 64 * 1024;
			snprintf(name, sizeof name, "t%u", i);
			cr_assert_eq(usmp_problem_add_buffer(p, name, size,
			             UINT64_C(8) << test_rand_range(&s, 0, 2), NULL),
			             USMP_OK);
			cr_assert_eq(usmp_problem_set_live(p, i, step, step + life),
			             USMP_OK);
			for (uint32_t c = 0; c < counts[l]; c++)
				cr_assert_eq(usmp_problem_add_candidate(p, i,
				                                        lists[l][c]),
				             USMP_OK);
		}
	}
	for (uint32_t i = 0; i + 1 < n; i++)
		if (test_rand_range(&s, 0, 9) == 0) {
			uint64_t j = i + test_rand_range(&s, 1, 12);
			cr_assert_eq(usmp_problem_add_conflict(p, i, (uint32_t)(j < n ?
			             j : n - 1)), USMP_OK);
		}
	return p;
}

static int plan_with(usmp_registry *r, usmp_problem *p, const char *knob,
                     double time_limit, usmp_plan **plan)
{
	const char *knobs[] = {knob};
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact",
	                       .params = knob ? knobs : NULL,
	                       .param_count = knob ? 1 : 0,
	                       .time_limit = time_limit};
	int rc = usmp_plan_compute(r, p, &o, plan);
	cr_assert_not_null(*plan);
	return rc;
}

static usmp_part_info part0(const usmp_plan *plan)
{
	usmp_part_info pi = {.struct_size = sizeof pi};
	cr_assert_eq(usmp_plan_part_count(plan), 1);
	cr_assert_eq(usmp_plan_part(plan, 0, &pi), USMP_OK);
	return pi;
}

/* 5,000 buffers, three pools, candidate lists and conflict edges: far
 * beyond the joint search's 1,000, planned (valid, every buffer in one of
 * its candidate pools), with an honest bound. */
Test(exact_split, five_thousand_buffers_with_edges_are_planned, .timeout = 600)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = schedule(5000, 42);
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, NULL, INFINITY, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_part_info pi = part0(plan);
	cr_assert_eq(pi.buffer_count, 5000);
	cr_assert_leq(pi.lower_bound, pi.proven_bound);
	cr_assert_leq(pi.proven_bound, pi.size);
	/* The sram limit holds and the tcm one too. */
	cr_assert_leq(usmp_plan_pool_size(plan, 0), 512 * 1024);
	cr_assert_leq(usmp_plan_pool_size(plan, 1), 64 * 1024);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Without a time limit the windows spend node budgets, not seconds: the
 * same problem gives the same plan. */
Test(exact_split, same_problem_gives_the_same_plan, .timeout = 600)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = schedule(1500, 7);
	usmp_plan *a = NULL, *b = NULL;
	cr_assert_eq(plan_with(r, p, NULL, INFINITY, &a), USMP_OK, "%s",
	             usmp_plan_error(a));
	cr_assert_eq(plan_with(r, p, NULL, INFINITY, &b), USMP_OK, "%s",
	             usmp_plan_error(b));
	cr_assert_eq(usmp_plan_verify(a, p), USMP_OK);
	for (uint32_t i = 0; i < 1500; i++) {
		uint32_t qa, qb;
		uint64_t xa, xb;
		cr_assert_eq(usmp_plan_placement(a, i, &qa, &xa), USMP_OK);
		cr_assert_eq(usmp_plan_placement(b, i, &qb, &xb), USMP_OK);
		cr_assert(qa == qb && xa == xb, "buffer %u: pool %u at %llu, then "
		          "pool %u at %llu", i, qa, (unsigned long long)xa, qb,
		          (unsigned long long)xb);
	}
	usmp_plan_destroy(a);
	usmp_plan_destroy(b);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* copies of one component: five 16-byte buffers without live ranges in
 * ["sram", "dram"], joined by edges in a cycle, sram 32: an odd cycle
 * needs three colours, so one buffer spills (the least spill) and the
 * optimum, 32 + 16, lies above the host's bound (32, an edge). */
static usmp_problem *copies(uint32_t count)
{
	usmp_problem *p = usmp_problem_create();
	char name[24];
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 32, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 16, NULL),
	             USMP_OK);
	for (uint32_t c = 0; c < count; c++) {
		for (uint32_t j = 0; j < 5; j++) {
			uint32_t i = 5 * c + j;
			snprintf(name, sizeof name, "c%u.%u", c, j);
			cr_assert_eq(usmp_problem_add_buffer(p, name, 16, 16, NULL),
			             USMP_OK);
			cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
		}
		for (uint32_t j = 0; j < 5; j++)
			cr_assert_eq(usmp_problem_add_conflict(p, 5 * c + j,
			                                       5 * c + (j + 1) % 5),
			             USMP_OK);
	}
	return p;
}

/* 300 copies (1,500 buffers, beyond the joint search whole): each
 * component is searched and proven alone, and the copies' pool sizes
 * combine as maxima without loss: the whole is proven at one copy's
 * optimum (which the joint search proves for a single copy), above the
 * host's bound, with the least spill, one buffer per copy. */
Test(exact_split, proven_components_combine_into_a_proven_plan)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *one = copies(1);
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, one, NULL, 0, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_part_info single = part0(plan);
	cr_assert(single.optimal);
	cr_assert_eq(single.size, 48);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(one);
	usmp_problem *p = copies(300);
	cr_assert_eq(plan_with(r, p, NULL, 0, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = part0(plan);
	cr_assert(pi.optimal);
	cr_assert_eq(pi.size, 48);
	cr_assert_eq(pi.proven_bound, 48);
	/* The proof is the parts', not the host's bound. */
	cr_assert_eq(pi.lower_bound, 32);
	uint64_t spill = 0;
	for (uint32_t i = 0; i < 1500; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		spill += q == 1 ? 16 : 0;
	}
	cr_assert_eq(spill, 300 * 16);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Two components whose best plans use the pools differently: A needs 8
 * bytes of sram (a1, sram only) and 1 of dram (a2, edge to a1); B two
 * 6-byte buffers alive together in ["sram", "dram"] with sram 10, so one
 * spills: 6 + 6. The whole needs 8 + 6 = 14, more than either part's
 * optimum: only the larger part bound (12) is proven, and the plan is not
 * claimed optimal at it. */
Test(exact_split, part_bounds_combine_as_the_largest)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 10},"
		" {\"name\": \"dram\"}], \"buffers\": ["
		" {\"name\": \"a1\", \"size\": 8, \"live\": [0, 1], \"pools\": [\"sram\"]},"
		" {\"name\": \"a2\", \"size\": 1, \"live\": [5, 6], \"pools\": [\"dram\"]},"
		" {\"name\": \"b1\", \"size\": 6, \"live\": [2, 3], \"pools\": [\"sram\", \"dram\"]},"
		" {\"name\": \"b2\", \"size\": 6, \"live\": [2, 3], \"pools\": [\"sram\", \"dram\"]}],"
		" \"conflicts\": [[\"a1\", \"a2\"]]}", "two.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, "part=2", 0, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = part0(plan);
	cr_assert_eq(pi.size, 14);
	cr_assert_eq(pi.proven_bound, 12);
	cr_assert(!pi.optimal);
	usmp_plan_destroy(plan);
	/* Searched whole (the default part), the same plan is proven. */
	cr_assert_eq(plan_with(r, p, NULL, 0, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	pi = part0(plan);
	cr_assert_eq(pi.size, 14);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A component no plan fits (three sram-only buffers of 64 bytes alive
 * together, sram 128, edges between them) makes the whole infeasible when
 * its search proves it, whatever the other parts. */
Test(exact_split, an_infeasible_component_is_proven_infeasible)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 128},"
		" {\"name\": \"dram\"}], \"buffers\": ["
		" {\"name\": \"x\", \"size\": 64, \"live\": [0, 4], \"pools\": [\"sram\", \"dram\"]},"
		" {\"name\": \"y\", \"size\": 8, \"live\": [5, 6], \"pools\": [\"sram\", \"dram\"]},"
		" {\"name\": \"a\", \"size\": 64, \"pools\": [\"sram\"]},"
		" {\"name\": \"b\", \"size\": 64, \"pools\": [\"sram\"]},"
		" {\"name\": \"c\", \"size\": 64, \"pools\": [\"sram\"]}],"
		" \"conflicts\": [[\"a\", \"b\"], [\"b\", \"c\"], [\"a\", \"c\"],"
		" [\"x\", \"y\"]]}", "tri.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, "part=3", 0, &plan), USMP_ERR_INFEASIBLE,
	             "%s", usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(exact_split, part_knob_out_of_range_is_refused)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = copies(1);
	const char *bad[] = {"part=0", "part=1001"};
	for (int i = 0; i < 2; i++) {
		usmp_plan *plan = NULL;
		cr_assert_eq(plan_with(r, p, bad[i], 0, &plan), USMP_ERR_INVALID);
		cr_assert(strstr(usmp_plan_error(plan), "exact failed (invalid): "
		                 "part must be in 1..1000"),
		          "%s", usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A random problem of n buffers in a few clusters of time (so some
 * components), two pools (sram tight, dram unbounded), candidates
 * ["sram", "dram"], ["sram"] or ["dram"], edges within a cluster and now
 * and then across. */
static usmp_problem *clusters(uint64_t *s, uint32_t n, uint32_t *first,
                              uint64_t *size)
{
	usmp_problem *p = usmp_problem_create();
	char name[16];
	uint64_t sram = 16 * test_rand_range(s, 4, 12);
	cr_assert_eq(usmp_problem_add_pool(p, "sram", sram, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 16, NULL),
	             USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		int64_t c = (int64_t)test_rand_range(s, 0, 3) * 20;
		int64_t b = c + (int64_t)test_rand_range(s, 0, 8);
		snprintf(name, sizeof name, "b%u", i);
		size[i] = 16 * test_rand_range(s, 1, 4);
		cr_assert_eq(usmp_problem_add_buffer(p, name, size[i], 16, NULL),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, b,
		             b + (int64_t)test_rand_range(s, 1, 4)), USMP_OK);
		uint64_t k = test_rand_range(s, 0, 9);
		first[i] = k < 7 ? 0 : 1;
		if (k < 7)
			cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		if (k != 6)
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	for (uint32_t e = 0; e < n / 3; e++) {
		uint32_t a = (uint32_t)test_rand_range(s, 0, n - 1);
		uint32_t b = (uint32_t)test_rand_range(s, 0, n - 1);
		if (a != b)
			cr_assert_eq(usmp_problem_add_conflict(p, a, b), USMP_OK);
	}
	return p;
}

static void spill_size(const usmp_plan *plan, const uint32_t *first,
                       const uint64_t *sizes, uint32_t n, uint64_t *spill,
                       uint64_t *size)
{
	*spill = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		*spill += q != first[i] ? sizes[i] : 0;
	}
	*size = usmp_plan_pool_size(plan, 0) + usmp_plan_pool_size(plan, 1);
}

/* 2000 random problems (500 under the sanitizers, ~3x slower) of 6-16
 * buffers planned in parts (part=4) and by one joint search (where it
 * proves its plan within 2 s): the parts' plan never beats the proven optimum,
 * and what it claims holds against it: at the same spill its bound is at
 * most the optimum, and a claim of optimality means the optimum. */
Test(exact_split, parts_agree_with_the_joint_search, .timeout = 600)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t s = 20261206;
	uint32_t compared = 0, claimed = 0, same = 0;
#if defined(__SANITIZE_ADDRESS__)
	const int cases = 500;
#else
	const int cases = 2000;
#endif
	for (int c = 0; c < cases; c++) {
		uint32_t n = (uint32_t)test_rand_range(&s, 6, 16);
		uint32_t first[16];
		uint64_t sizes[16];
		usmp_problem *p = clusters(&s, n, first, sizes);
		usmp_plan *whole = NULL, *parts = NULL;
		int rw = plan_with(r, p, NULL, 2, &whole);
		int rp = plan_with(r, p, "part=4", 2, &parts);
		if (rw == USMP_ERR_INFEASIBLE)
			cr_assert(rp == USMP_ERR_INFEASIBLE ||
			          rp == USMP_ERR_UNSUPPORTED, "case %d: %s", c,
			          usmp_plan_error(parts));
		if (rp == USMP_ERR_INFEASIBLE)
			cr_assert_eq(rw, USMP_ERR_INFEASIBLE, "case %d", c);
		if (rp == USMP_OK)
			cr_assert_eq(usmp_plan_verify(parts, p), USMP_OK, "case %d",
			             c);
		/* (one plan part: the host splits pools no buffer shares) */
		if (rw == USMP_OK && rp == USMP_OK &&
		    usmp_plan_part_count(whole) == 1 && part0(whole).optimal) {
			uint64_t ws, wt, ps, pt;
			spill_size(whole, first, sizes, n, &ws, &wt);
			spill_size(parts, first, sizes, n, &ps, &pt);
			usmp_part_info pi = part0(parts);
			compared++;
			cr_assert(ps > ws || (ps == ws && pt >= wt), "case %d: parts "
			          "(%llu, %llu) beat the proven (%llu, %llu)", c,
			          (unsigned long long)ps, (unsigned long long)pt,
			          (unsigned long long)ws, (unsigned long long)wt);
			if (ps == ws) {
				cr_assert_leq(pi.proven_bound, wt, "case %d", c);
				if (pi.optimal)
					cr_assert_eq(pt, wt, "case %d", c);
				same += pt == wt;
			}
			claimed += pi.optimal;
		}
		usmp_plan_destroy(whole);
		usmp_plan_destroy(parts);
		usmp_problem_destroy(p);
	}
	cr_log_info("part=4 against the joint search: %u compared, %u at its "
	            "optimum, %u claimed", compared, same, claimed);
	cr_assert_gt(compared, (uint32_t)cases / 2);
	cr_assert_gt(claimed, (uint32_t)cases / 8);
	usmp_registry_destroy(r);
}
