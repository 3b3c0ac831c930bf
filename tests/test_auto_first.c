/* test_auto_first.c — auto's first plan chosen by estimated cost: a budget
 * too small for first_fit still gets a verified plan, a large one no worse. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include <usmp/usmp.h>

#include "support.h"

/* n buffers over n steps, each alive for 1..2*alive steps (up to about
 * `alive` at once), sizes log-uniform over six decades: the XLA traces'
 * shape. At 4,000 buffers with about 2,700 alive first_fit's estimate
 * (1.5 ns x buffers x alive, budget.h) is 16 ms, a time-index greedy's
 * (3 us x buffers) 12 ms: the greedy makes the first plan there. */
static usmp_problem *wide(uint32_t n, uint32_t alive, uint64_t seed)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	char name[32];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		double e = (double)test_rand_range(&seed, 0, 6000) / 1000.0;
		uint64_t size = (uint64_t)pow(10.0, e);
		int64_t len = (int64_t)test_rand_range(&seed, 1, 2 * alive);
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, size ? size : 1, 1,
		                                     &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + len), USMP_OK);
	}
	return p;
}

/* Plans p with `algorithm` (NULL: the default, auto) under `limit`; asserts
 * the plan is OK and verified, and returns its total size. */
static uint64_t planned(usmp_registry *r, usmp_problem *p,
                        const char *algorithm, double limit)
{
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = algorithm,
	                       .time_limit = limit};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s: %s",
	             algorithm ? algorithm : "auto", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	uint32_t parts = usmp_plan_part_count(plan);
	cr_assert_gt(parts, 0);
	uint64_t total = 0;
	for (uint32_t i = 0; i < parts; i++) {
		usmp_part_info pi = test_part(plan, i);
		cr_assert_geq(pi.size, pi.lower_bound);
		total += pi.size;
	}
	usmp_plan_destroy(plan);
	return total;
}

/* A budget of 0.1 ms, far below first_fit's estimate: auto still returns
 * an OK, verified plan of every buffer, at or above the lower bound, and
 * never larger than the time-index greedies' plans alone. */
Test(auto_first, tiny_budget_still_plans)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = wide(4000, 3000, 7);
	uint64_t a = planned(r, p, NULL, 1e-4);
	cr_assert_gt(a, 0);
	uint64_t g = planned(r, p, "greedy_by_size", 0);
	cr_assert_leq(a, g, "auto %llu > greedy_by_size %llu",
	              (unsigned long long)a, (unsigned long long)g);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Under a large budget first_fit's estimate fits: auto's plan is never
 * larger than first_fit's (by size, its default) or best_fit's alone. */
Test(auto_first, large_budget_never_behind_first_fit)
{
	usmp_registry *r = test_registry(NULL);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		usmp_problem *p = wide(3000, 300, seed);
		uint64_t a = planned(r, p, NULL, 60);
		uint64_t f = planned(r, p, "first_fit", 0);
		uint64_t b = planned(r, p, "best_fit", 0);
		cr_assert_leq(a, f, "seed %llu: auto %llu > first_fit %llu",
		              (unsigned long long)seed, (unsigned long long)a,
		              (unsigned long long)f);
		cr_assert_leq(a, b, "seed %llu: auto %llu > best_fit %llu",
		              (unsigned long long)seed, (unsigned long long)a,
		              (unsigned long long)b);
		usmp_problem_destroy(p);
	}
	usmp_registry_destroy(r);
}

/* Three pieces apart in time (each 3,000 buffers, about 2,600 alive: the
 * estimate, 35 ms, picks the greedy, 27 ms) under a tiny budget: the first plan covers
 * every piece and verifies. */
Test(auto_first, tiny_budget_many_parts)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	uint64_t seed = 11;
	char name[32];
	for (uint32_t part = 0; part < 3; part++)
		for (uint32_t i = 0; i < 3000; i++) {
			uint32_t id;
			uint64_t size = test_rand_range(&seed, 1, 1u << 20);
			int64_t len = (int64_t)test_rand_range(&seed, 1, 12000);
			/* pieces 16,000 steps apart: no range crosses a gap */
			int64_t t = (int64_t)part * 16000 + i;
			snprintf(name, sizeof name, "p%u_%u", part, i);
			cr_assert_eq(usmp_problem_add_buffer(p, name, size, 1, &id),
			             USMP_OK);
			cr_assert_eq(usmp_problem_set_live(p, id, t, t + len),
			             USMP_OK);
		}
	uint64_t a = planned(r, p, NULL, 1e-4);
	cr_assert_gt(a, 0);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
