/* test_auto_deadline.c — a plan every time: auto's first plan is never
 * killed for time, even isolated and past the grace of a tiny limit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include <usmp/usmp.h>

#include "support.h"

/* 200 buffers in a chain, each alive with the next. */
static usmp_problem *chain(void)
{
	usmp_problem *p = usmp_problem_create();
	char name[32];
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t id;
		snprintf(name, sizeof name, "c%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 16 + i % 7, 1, &id),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + 2), USMP_OK);
	}
	return p;
}

/* The slow_first_fit fixture stands in for first_fit and takes 1.2 s: past
 * a 0.05 s limit plus the isolation grace (1 s + 10 % + 20 us a buffer).
 * The watcher waits for the first plan instead of killing the call. */
Test(auto_deadline, isolated_first_plan_is_never_killed_for_time)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/slow_first_fit.so",
	         test_fixture_plugindir());
	usmp_registry *r = test_registry(path);
	usmp_problem *p = chain();
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 0.05,
	                       .flags = USMP_PLAN_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.buffer_count, 200);
	cr_assert_geq(pi.size, pi.lower_bound);
	/* The budget it worked to was the caller's, long past by then. */
	double limit = 0;
	cr_assert_eq(usmp_plan_part_limit(plan, 0, &limit, NULL), USMP_OK);
	cr_assert(fabs(limit - 0.05) < 1e-9, "limit %g", limit);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
