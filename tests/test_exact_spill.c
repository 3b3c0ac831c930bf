/* test_exact_spill.c — exact where some buffers must leave their first pool:
 * the least spill by load, what is claimed from it, the joint search's limits. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

typedef struct tbuf {
	const char *name;
	uint64_t size;
	int64_t begin, end;
} tbuf;

/* sram (limit given, alignment 16) then dram; every buffer ["sram",
 * "dram"]. */
static usmp_problem *two_pools(uint64_t sram, const tbuf *b, uint32_t n)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "sram", sram, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32, NULL),
	             USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(usmp_problem_add_buffer(p, b[i].name, b[i].size, 16,
		                                     NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, b[i].begin, b[i].end),
		             USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	return p;
}

static usmp_plan *plan_exact(usmp_registry *r, usmp_problem *p)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
	return plan;
}

static uint64_t spill_of(const usmp_plan *plan, const tbuf *b, uint32_t n)
{
	uint64_t spill = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		spill += q != 0 ? b[i].size : 0;
	}
	return spill;
}

/* a+b and b+c each exceed 128 bytes: spilling b (96) beats spilling a and
 * c (128), and no other choice spills 96. The plan: a and c share sram
 * offset 0 (64), b in dram (96): size 160, proven. */
Test(exact_spill, one_least_spill_choice_is_proven)
{
	static const tbuf b[] = {{"a", 64, 0, 2}, {"b", 96, 1, 3},
	                         {"c", 64, 2, 4}};
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = two_pools(128, b, 3);
	usmp_plan *plan = plan_exact(r, p);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(spill_of(plan, b, 3), 96);
	cr_assert_eq(pi.size, 160);
	cr_assert(pi.optimal);
	cr_assert_eq(pi.proven_bound, 160);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Two choices spill 64 (a or b), both planned: the spilled one alone in
 * dram (64) plus the other alone in sram (64). */
Test(exact_spill, two_least_spill_choices_are_both_planned)
{
	static const tbuf b[] = {{"a", 64, 0, 2}, {"b", 64, 1, 3}};
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = two_pools(100, b, 2);
	usmp_plan *plan = plan_exact(r, p);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(spill_of(plan, b, 2), 64);
	cr_assert_eq(pi.size, 128);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* 1001 buffers, three alive at a time, 64 bytes each, sram 128: the load
 * choice spills every third buffer (many choices do), too many buffers for
 * the joint search, so the plan of that choice is the answer and its
 * claim rests on the host's bound only. */
Test(exact_spill, least_spill_beyond_the_joint_search_is_planned)
{
	tbuf b[1001];
	char names[1001][8];
	for (uint32_t i = 0; i < 1001; i++) {
		snprintf(names[i], sizeof names[i], "t%u", i);
		b[i] = (tbuf){names[i], 64, i, i + 3};
	}
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = two_pools(128, b, 1001);
	usmp_plan *plan = plan_exact(r, p);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(spill_of(plan, b, 1001), 333 * 64);
	/* sram holds two at a time (128), dram at least one (64). */
	cr_assert_leq(pi.proven_bound, pi.size);
	if (pi.optimal)
		cr_assert_eq(pi.proven_bound, pi.size);
	cr_assert_geq(pi.size, 128 + 64);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Two choices spill 64 (a or b) but differ in size: a fixed 32-byte dram
 * buffer meets b, so spilling b costs dram 96, spilling a only 64. The
 * least of the choices' sizes (128) is proven. */
Test(exact_spill, the_smaller_of_the_least_spill_choices_is_proven)
{
	static const tbuf b[] = {{"a", 64, 0, 2}, {"b", 64, 1, 3}};
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = two_pools(100, b, 2);
	uint32_t f;
	cr_assert_eq(usmp_problem_add_buffer(p, "f", 32, 16, &f), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, f, 2, 3), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, f, 1), USMP_OK);
	cr_assert_eq(usmp_problem_set_fixed(p, f, 1, 0), USMP_OK);
	usmp_plan *plan = plan_exact(r, p);
	usmp_part_info pi = test_part(plan, 0);
	uint32_t q;
	uint64_t x;
	cr_assert_eq(usmp_plan_placement(plan, 0, &q, &x), USMP_OK);
	cr_assert_eq(q, 1, "a is the one to spill");
	cr_assert_eq(spill_of(plan, b, 2), 64);
	cr_assert_eq(pi.size, 128);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* 600 buffers alive together, 64 pools of four each, one conflict edge
 * (so the joint search is the only way: without the edge no pool holds
 * the buffers preferring it, and the least spill by load cannot take 600
 * buffers in one time): its moves alone would need about 530 MiB, so it
 * refuses. */
Test(exact_spill, joint_search_beyond_its_memory_is_refused)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	char name[16];
	for (uint32_t q = 0; q < 64; q++) {
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, 256, 16, NULL),
		             USMP_OK);
	}
	for (uint32_t i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, 0, 2), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, i % 64), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, (i + 1) % 64), USMP_OK);
	}
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), USMP_OK);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan), "exact failed (unsupported): 600 "
	                 "buffers with 64 pools "
	                 "would need 530 MiB for the search of several pools "
	                 "(at most 128)"), "%s", usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Several pools, 120 to 250 buffers with candidate lists (a tiny first
 * pool for some), explicit edges and must spill: the joint search runs
 * with its starts (the plan without edges, by load, parts with windows)
 * within a 0.3 s budget. Every plan verifies, spills at least the host's
 * floor and is at least the lower bound. */
Test(exact_spill, hundreds_of_buffers_with_edges_give_valid_plans)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t rng = 20261205;
	for (int k = 0; k < TEST_SWEEP(8); k++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t P = (uint32_t)test_rand_range(&rng, 2, 3);
		cr_assert_eq(usmp_problem_add_pool(p, "sram", 256 * 1024, 16, NULL),
		             USMP_OK);
		if (P == 3)
			cr_assert_eq(usmp_problem_add_pool(p, "tcm", 32 * 1024, 8,
			                                   NULL), USMP_OK);
		cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32,
		                                   NULL), USMP_OK);
		uint32_t n = (uint32_t)test_rand_range(&rng, 120, 250);
		int64_t t = 0;
		char name[16];
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof name, "t%u", i);
			uint64_t size = 1024 * test_rand_range(&rng, 1, 64);
			cr_assert_eq(usmp_problem_add_buffer(p, name, size, 16, NULL),
			             USMP_OK);
			int64_t life = test_rand_range(&rng, 0, 19) ?
			               (int64_t)test_rand_range(&rng, 1, 4)
			               : (int64_t)test_rand_range(&rng, 20, 80);
			cr_assert_eq(usmp_problem_set_live(p, i, t, t + life), USMP_OK);
			if (P == 3 && test_rand_range(&rng, 0, 5) == 0)
				cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
			cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
			if (test_rand_range(&rng, 0, 7))
				cr_assert_eq(usmp_problem_add_candidate(p, i, P - 1),
				             USMP_OK);
			if (i > 0 && test_rand_range(&rng, 0, 9) == 0)
				cr_assert_eq(usmp_problem_add_conflict(
				                     p, i, (uint32_t)test_rand_range(
				                                &rng, i > 12 ? i - 12 : 0,
				                                i - 1)),
				             USMP_OK);
			t += (int64_t)test_rand_range(&rng, 0, 1);
		}
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = USMP_PLAN_NO_ISOLATE,
		                       .algorithm = "exact",
		                       .time_limit = 0.3};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &o, &plan);
		cr_assert_eq(rc, USMP_OK, "problem %d: %s", k, usmp_plan_error(plan));
		cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "problem %d: %s",
		             k, usmp_plan_error(plan));
		usmp_part_info pi = {.struct_size = sizeof pi};
		cr_assert_eq(usmp_plan_part(plan, 0, &pi), USMP_OK);
		cr_assert_geq(pi.spill, pi.spill_floor, "problem %d", k);
		cr_assert_geq(pi.size, pi.lower_bound, "problem %d", k);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	usmp_registry_destroy(r);
}
