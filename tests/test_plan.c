/* test_plan.c — usmp_plan_compute through the public API: parts, selection
 * of algorithms, capability checks, the auto portfolio, option versioning. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* A registry that sees only the build tree's real plugins. */
static usmp_registry *registry(void)
{
	return test_registry(NULL);
}

static uint32_t add(usmp_problem *p, const char *name, uint64_t size,
                    int64_t begin, int64_t end)
{
	uint32_t id;
	cr_assert_eq(usmp_problem_add_buffer(p, name, size, 1, &id), USMP_OK,
	             "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_set_live(p, id, begin, end), USMP_OK);
	return id;
}

Test(plan, first_fit_plan_is_verified_and_fills_the_gap)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 100, 0, 2);
	add(p, "b", 50, 1, 3);
	add(p, "c", 100, 2, 4);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	/* a and c are never alive together: c reuses a's bytes, b sits above. */
	uint32_t pool;
	uint64_t off_a, off_b, off_c;
	usmp_plan_placement(plan, 0, &pool, &off_a);
	usmp_plan_placement(plan, 1, &pool, &off_b);
	usmp_plan_placement(plan, 2, &pool, &off_c);
	cr_assert_eq(off_a, 0);
	cr_assert_eq(off_c, 0);
	cr_assert_eq(off_b, 100);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 150);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.lower_bound, 150);
	cr_assert_eq(pi.optimal, 1);
	cr_assert_str_eq(pi.algorithm, "first_fit");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, buffers_that_share_no_pool_are_planned_as_separate_parts)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	uint32_t npu, cpu;
	cr_assert_eq(usmp_problem_add_pool(p, "npu_sram", 1000, 16, &npu), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dtcm", 1000, 4, &cpu), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, npu, "ethos-u55"), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, cpu, "cortex-m55"), 0);
	uint32_t a = add(p, "npu.a", 64, 0, 4), b = add(p, "npu.b", 64, 2, 6);
	uint32_t c = add(p, "cpu.c", 32, 0, 6);
	usmp_problem_add_candidate(p, a, npu);
	usmp_problem_add_candidate(p, b, npu);
	usmp_problem_add_candidate(p, c, cpu);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "best_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_part_count(plan), 2);
	int seen_npu = 0, seen_cpu = 0;
	for (uint32_t i = 0; i < 2; i++) {
		usmp_part_info pi = test_part(plan, i);
		seen_npu += !strcmp(pi.target, "ethos-u55") && pi.buffer_count == 2 &&
		            pi.size == 128;
		seen_cpu += !strcmp(pi.target, "cortex-m55") && pi.buffer_count == 1 &&
		            pi.size == 32;
	}
	cr_assert(seen_npu == 1 && seen_cpu == 1);
	uint32_t pool;
	usmp_plan_placement(plan, c, &pool, NULL);
	cr_assert_eq(pool, cpu);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, unknown_algorithm_fails_with_its_name)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 8, 0, 1);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "nope_fit"};
	usmp_plan *plan = NULL;
	int st = usmp_plan_compute(r, p, &o, &plan);
	cr_assert_eq(st, USMP_ERR_NOT_FOUND);
	cr_assert_not_null(plan);
	cr_assert_eq(usmp_plan_status(plan), st);
	cr_assert(strstr(usmp_plan_error(plan), "nope_fit"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, knob_values_reach_the_algorithm_and_are_reported)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 8, 0, 1);
	const char *params[] = {"order=area"};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit",
	                       .params = params, .param_count = 1};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert(strstr(pi.params, "order=area"), "%s", pi.params);
	usmp_plan_destroy(plan);
	params[0] = "order=sideways";
	cr_assert_neq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, infeasible_pool_reports_no_fit)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	uint32_t pool;
	usmp_problem_add_pool(p, "tiny", 100, 1, &pool);
	add(p, "a", 80, 0, 2);
	add(p, "b", 80, 1, 3);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INFEASIBLE);
	cr_assert(strlen(usmp_plan_error(plan)) > 0);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, auto_reaches_the_bound_and_names_its_winner)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	uint64_t seed = 7;
	char name[32];
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof name, "t%d", i);
		int64_t b = (int64_t)test_rand_range(&seed, 0, 40);
		add(p, name, test_rand_range(&seed, 1, 64) * 16, b,
		    b + (int64_t)test_rand_range(&seed, 1, 10));
	}
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert(!strncmp(pi.algorithm, "auto/", 5), "%s", pi.algorithm);
	cr_assert_geq(pi.size, pi.lower_bound);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	/* auto is never worse than the members it runs. */
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *ff = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &ff), USMP_OK);
	cr_assert_leq(pi.size, usmp_plan_pool_size(ff, 0));
	usmp_plan_destroy(ff);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* 300 copies of `kinds` buffers {size, begin, end} (times within 0..7),
 * each copy linked to the next by a 1-byte buffer: one piece, no time that
 * no buffer crosses. */
static usmp_problem *linked_copies(const int64_t (*t)[3], int kinds)
{
	usmp_problem *p = usmp_problem_create();
	char name[32];
	for (int c = 0; c < 300; c++)
		for (int k = 0; k < kinds; k++) {
			snprintf(name, sizeof name, "c%dk%d", c, k);
			add(p, name, (uint64_t)t[k][0], t[k][1] + 8 * c,
			    t[k][2] + 8 * c);
		}
	for (int c = 0; c + 1 < 300; c++) {
		snprintf(name, sizeof name, "link%d", c);
		add(p, name, 1, 8 * c + 6, 8 * c + 9);
	}
	return p;
}

/* 2099 buffers whose lower bound, 11, fits; no fast member (first_fit or
 * best_fit in any order, TVM's greedies) gets below 12. */
#define LINKED_BOUND 11
static usmp_problem *no_order_solves(void)
{
	static const int64_t t[6][3] = {{1, 2, 7}, {1, 0, 4}, {1, 5, 7},
	                                {4, 0, 5}, {5, 0, 4}, {5, 4, 6}};
	return linked_copies(t, 6);
}

/* The total size of p planned by `algorithm` alone with `param` (NULL:
 * its defaults), asserting a verified plan. */
static uint64_t planned_alone(usmp_registry *r, usmp_problem *p,
                              const char *algorithm, const char *param)
{
	const char *params[1] = {param};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = algorithm,
	                       .params = params, .param_count = param ? 1 : 0};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s: %s",
	             algorithm, usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	uint64_t size = usmp_plan_pool_size(plan, 0);
	usmp_plan_destroy(plan);
	return size;
}

/* A large part no fast heuristic solves: auto's search reaches the bound
 * from its best fast plan, whichever member does it. */
Test(plan, auto_reaches_the_bound_on_a_large_part_no_heuristic_solves)
{
	usmp_registry *r = registry();
	usmp_problem *p = no_order_solves();
	cr_assert_gt(planned_alone(r, p, "best_fit", "order=all"), LINKED_BOUND);
	cr_assert_gt(planned_alone(r, p, "first_fit", "order=all"), LINKED_BOUND);
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 30};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.lower_bound, LINKED_BOUND);
	cr_assert_eq(pi.size, LINKED_BOUND, "%s", pi.algorithm);
	cr_assert(pi.optimal);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* 1799 buffers: 300 linked copies of five where first fit by size needs 10
 * bytes and best fit by lifetime finds 8, the bound: auto does not stop at
 * its first plan, and reaches the bound. */
Test(plan, auto_reaches_the_bound_its_first_plan_misses)
{
	usmp_registry *r = registry();
	static const int64_t t[5][3] = {
		{3, 4, 7}, {4, 0, 2}, {4, 2, 3}, {2, 3, 6}, {4, 1, 4}};
	usmp_problem *p = linked_copies(t, 5);
	cr_assert_eq(planned_alone(r, p, "first_fit", "order=size"), 10);
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 30};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.lower_bound, 8);
	cr_assert_eq(pi.size, 8, "%s", pi.algorithm);
	cr_assert(pi.optimal);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A registry whose first_fit (the slow_first_fit fixture) takes 1.2 s, past
 * auto's default limit of 1 s, and whose exact_window is the real one. */
static usmp_registry *slow_first_registry(void)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/slow_first_fit.so:%s/plugins/exact.so",
	         test_fixture_plugindir(), test_build_root());
	return test_registry(path);
}

/* Under the default limit, a first plan that arrives late still gets a
 * window pass (as long again as it took, at most 1 s + 8 us per buffer);
 * a limit the caller set is not stretched: the late first plan stands. */
Test(plan, auto_stretches_only_its_default_limit_after_a_late_first_plan)
{
	usmp_registry *r = slow_first_registry();
	usmp_problem *p = no_order_solves();
	usmp_plan *plan = NULL;
	usmp_part_info pi = {.struct_size = sizeof pi};

	plan = test_plan_ok(r, p, NULL);
	usmp_plan_part(plan, 0, &pi);
	cr_assert_eq(pi.size, LINKED_BOUND, "%s", pi.algorithm); /* searched */
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);

	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 1.0};
	plan = test_plan_ok(r, p, &o);
	usmp_plan_part(plan, 0, &pi);
	cr_assert_gt(pi.size, LINKED_BOUND, "%s", pi.algorithm); /* no search */
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* 600 separate copies of three buffers: 2 bytes (any offset), 1 byte
 * aligned to 2, 7 bytes aligned to 4, alive together: every plan needs 11
 * bytes (the 7 at 0, the 1 at 8, no two free bytes side by side below 10),
 * the bound says 10. Many small pieces, which an exact search solves apart:
 * auto proves 11 optimal. */
Test(plan, auto_proves_a_part_of_small_pieces_optimal)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	static const uint64_t size[3] = { 2, 1, 7 }, align[3] = { 1, 2, 4 };
	static const int64_t from[3] = { 0, 1, 0 }, to[3] = { 2, 3, 2 };
	char name[32];
	for (int c = 0; c < 600; c++)
		for (int k = 0; k < 3; k++) {
			uint32_t id;
			snprintf(name, sizeof name, "c%dk%d", c, k);
			cr_assert_eq(usmp_problem_add_buffer(p, name, size[k],
			                                     align[k], &id), USMP_OK);
			cr_assert_eq(usmp_problem_set_live(p, id, 3 * c + from[k],
			                                   3 * c + to[k]), USMP_OK);
		}
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 30};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.lower_bound, 10);
	cr_assert_eq(pi.size, 11);
	cr_assert(pi.optimal, "%s did not prove 11 optimal", pi.algorithm);
	cr_assert_eq(pi.proven_bound, 11);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, options_from_an_older_smaller_struct_are_accepted)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 8, 0, 1);
	/* A caller built when the options ended before `target`: the fields it
	 * does not know must read as zero, whatever lies beyond its struct. */
	usmp_plan_options o;
	memset(&o, 0xff, sizeof o);
	o.struct_size = offsetof(usmp_plan_options, target);
	o.flags = 0;
	o.algorithm = "first_fit";
	o.params = NULL;
	o.param_count = 0;
	o.reserved = 0;
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, negative_time_limit_is_refused)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 8, 0, 1);
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = -1};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INVALID);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(plan, empty_problem_plans_to_nothing)
{
	usmp_registry *r = registry();
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	cr_assert_eq(usmp_plan_part_count(plan), 0);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Three element-wise ops in a chain, each allowed in place by a rule. */
static usmp_problem *inplace_chain(int64_t lead)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t x = add(p, "x", 64, 0, 2), y = add(p, "y", 64, 1, 3);
	uint32_t z = add(p, "z", 64, 2, 4);
	cr_assert_eq(usmp_problem_add_overlap(p, x, y, lead), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, y, z, lead), USMP_OK);
	return p;
}

Test(plan, overlap_rules_plan_an_inplace_chain_smaller_and_it_replays)
{
	usmp_registry *r = registry();
	usmp_problem *with = inplace_chain(0);
	usmp_problem *without = usmp_problem_create();
	add(without, "x", 64, 0, 2), add(without, "y", 64, 1, 3);
	add(without, "z", 64, 2, 4);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *a = NULL, *b = NULL;
	a = test_plan_ok(r, with, &o);
	cr_assert_eq(usmp_plan_compute(r, without, &o, &b), USMP_OK);
	cr_assert_eq(usmp_plan_pool_size(a, 0), 64, "in place: one buffer's bytes");
	cr_assert_eq(usmp_plan_pool_size(b, 0), 128);
	cr_assert_eq(usmp_plan_simulate(a, with), USMP_OK, "%s", usmp_plan_error(a));
	cr_assert_eq(usmp_plan_simulate(b, without), USMP_OK);
	usmp_plan_destroy(a), usmp_plan_destroy(b);
	usmp_problem_destroy(with), usmp_problem_destroy(without);
	usmp_registry_destroy(r);
}

Test(plan, replay_catches_an_overlap_that_breaks_max_lead)
{
	/* Rule lead -16: y must start 16 bytes below x. Put y 8 bytes ABOVE
	 * x instead: writing y byte 0 lands on x byte 8, still unread. */
	usmp_problem *p = inplace_chain(-16);
	char *problem = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, problem, USMP_FORMAT_JSON), USMP_OK);
	char *plan_text = NULL;
	char *plan_path = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": ["
		" {\"name\": \"x\", \"pool\": \"default\", \"offset\": 16},"
		" {\"name\": \"y\", \"pool\": \"default\", \"offset\": 24},"
		" {\"name\": \"z\", \"pool\": \"default\", \"offset\": 200}]}");
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, plan_path, USMP_FORMAT_JSON, &plan), USMP_OK,
	             "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_ERR_INVALID_PLAN);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(plan), "\"x\""), "%s",
	          usmp_plan_error(plan));
	/* The same plan with y 16 below x keeps the rule, verifies, replays. */
	usmp_plan_destroy(plan);
	free(plan_path);
	plan_path = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": ["
		" {\"name\": \"x\", \"pool\": \"default\", \"offset\": 16},"
		" {\"name\": \"y\", \"pool\": \"default\", \"offset\": 0},"
		" {\"name\": \"z\", \"pool\": \"default\", \"offset\": 200}]}");
	cr_assert_eq(usmp_plan_read(p, plan_path, USMP_FORMAT_JSON, &plan), USMP_OK);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	free(plan_path), free(problem), free(plan_text);
	usmp_problem_destroy(p);
}

Test(plan, replay_catches_two_live_buffers_sharing_bytes)
{
	usmp_problem *p = usmp_problem_create();
	add(p, "a", 32, 0, 4);
	add(p, "b", 32, 1, 3);
	char *plan_path = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": ["
		" {\"name\": \"a\", \"pool\": \"default\", \"offset\": 0},"
		" {\"name\": \"b\", \"pool\": \"default\", \"offset\": 31}]}");
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, plan_path, USMP_FORMAT_JSON, &plan), USMP_OK,
	             "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(plan), "byte 31"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	free(plan_path);
	usmp_problem_destroy(p);
}

Test(plan, fixed_buffer_without_pool_list_does_not_merge_groups)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b, x, y, f;
	usmp_problem_add_pool(p, "a", USMP_UNBOUNDED, 1, &a);
	usmp_problem_add_pool(p, "b", USMP_UNBOUNDED, 1, &b);
	x = add(p, "x", 8, 0, 2);
	y = add(p, "y", 8, 0, 2);
	f = add(p, "f", 8, 0, 2);
	usmp_problem_add_candidate(p, x, a);
	usmp_problem_add_candidate(p, y, b);
	cr_assert_eq(usmp_problem_set_fixed(p, f, b, 8), USMP_OK);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 2);
	cr_assert_neq(usmp_problem_prepare_pool_group(p, a),
	              usmp_problem_prepare_pool_group(p, b));
	cr_assert_eq(usmp_problem_prepare_group_bound(
	                     p, usmp_problem_prepare_pool_group(p, b)), 16);
	usmp_problem_destroy(p);
}
