/* test_budget.c — every algorithm call is bounded unless the caller asks for
 * no limit: the default budget stops anytime searches with their best plan,
 * kills a hung isolated call, and --capacity with exact asks "does it fit?". */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* MiniMalloc's benchmark D: 213 buffers, its capacity 1048576. */
static char *minimalloc_d(void)
{
	return test_fmt("%s/tests/data/minimalloc/D.1048576.csv", test_source_root());
}

/* `usmp ARGS` with USMP_PLUGIN_PATH=plugins ("" = none); the exit status,
 * *out the combined output (caller frees). */
static int usmp(const char *plugins, const char *args, char **out)
{
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' %s", plugins, test_cli(), args);
	int st = test_run(cmd, out);
	cr_assert_not_null(*out);
	free(cmd);
	return st;
}

/* Plan the small problem with fixture `so` (a path under the fixture
 * directory) and algorithm `algo`; the plan (caller destroys) and status. */
static int plan_fixture(const char *so, const char *algo, uint32_t flags,
                        double limit, usmp_problem **pp, usmp_plan **plan)
{
	char *path = test_fmt("%s/%s", test_fixture_plugindir(), so);
	usmp_registry *r = test_registry(path);
	*pp = test_small_problem();
	usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
	                       .algorithm = algo, .time_limit = limit};
	int st = usmp_plan_compute(r, *pp, &o, plan);
	cr_assert_not_null(*plan);
	usmp_registry_destroy(r);
	free(path);
	return st;
}

Test(budget, exact_at_minimalloc_capacity_says_it_fits_with_a_verified_plan)
{
	char *d = minimalloc_d(), *plan = test_tmpfile(".json"), *out;
	char *args = test_fmt("plan '%s' -a exact --capacity 1048576 -o '%s'", d, plan);
	int st = usmp("", args, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "minimize=false") &&
	          strstr(out, "fits in the capacity of 1048576 bytes"), "%s", out);
	free(args);
	free(out);
	args = test_fmt("verify '%s' '%s' --capacity 1048576", d, plan);
	st = usmp("", args, &out);
	cr_assert_eq(st, 0, "%s", out);
	remove(plan);
	free(args);
	free(out);
	free(plan);
	free(d);
}

Test(budget, exact_minimising_at_capacity_returns_its_best_plan_by_the_default)
{
	char *d = minimalloc_d(), *plan = test_tmpfile(".json"), *out;
	char *args = test_fmt("plan '%s' -a exact -p minimize=true --capacity 1048576 "
	                 "-o '%s'", d, plan);
	int st = usmp("", args, &out);
	cr_assert_eq(st, 0, "%s", out);
	/* Either the search proved its plan optimal in time, or the default
	 * budget stopped it with the best plan so far and its bound. */
	cr_assert(strstr(out, "stopped at the time limit of 10 s (the default): "
	                      "best plan so far, proven bound ") ||
	          strstr(out, "(optimal)"), "%s", out);
	cr_assert_null(strstr(out, "fits in the capacity"), "%s", out);
	free(args);
	free(out);
	args = test_fmt("verify '%s' '%s' --capacity 1048576", d, plan);
	st = usmp("", args, &out);
	cr_assert_eq(st, 0, "%s", out);
	remove(plan);
	free(args);
	free(out);
	free(plan);
	free(d);
}

Test(budget, a_search_polling_should_stop_is_stopped_by_the_default_budget)
{
	usmp_problem *p;
	usmp_plan *plan;
	int st = plan_fixture("budget/poll.so", "fx_poll", 0, 0, &p, &plan);
	cr_assert_eq(st, USMP_OK, "%s", usmp_plan_error(plan));
	double limit = -1;
	int stopped = 0;
	cr_assert_eq(usmp_plan_part_limit(plan, 0, &limit, &stopped), USMP_OK);
	cr_assert_eq(limit, USMP_DEFAULT_TIME_LIMIT);
	cr_assert_eq(stopped, 1);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

/* An algorithm stopped before it has a plan: exit 1, and the message says
 * the ways out (a default budget would also say how long it was). */
Test(budget, a_stop_before_any_plan_says_the_ways_out)
{
	char *d = minimalloc_d(), *out;
	char *dir = test_fmt("%s/budget/poll.so", test_fixture_plugindir());
	char *args = test_fmt("plan '%s' -a fx_poll_noplan --time-limit 0.2 "
	                      "-o /dev/null", d);
	int st = usmp(dir, args, &out);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert(strstr(out, ": fx_poll_noplan: stopped at the time limit "
	                      "before finding a plan: give it a longer time "
	                      "limit or none, or plan with auto (it always "
	                      "finishes a first plan) (part 1:"), "%s", out);
	free(args);
	free(out);
	free(dir);
	free(d);
}

Test(budget, infinity_asks_for_no_limit_and_negative_is_refused)
{
	usmp_problem *p;
	usmp_plan *plan;
	/* fx_poll returns at once when it is given no limit (poll.c). */
	int st = plan_fixture("budget/poll.so", "fx_poll", 0, INFINITY, &p, &plan);
	cr_assert_eq(st, USMP_OK, "%s", usmp_plan_error(plan));
	double limit = -1;
	int stopped = -1;
	cr_assert_eq(usmp_plan_part_limit(plan, 0, &limit, &stopped), USMP_OK);
	cr_assert_eq(limit, 0);
	cr_assert_eq(stopped, 0);
	cr_assert_eq(usmp_plan_part_limit(plan, 1, &limit, NULL), USMP_ERR_INVALID);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);

	st = plan_fixture("budget/poll.so", "fx_poll", 0, -1, &p, &plan);
	cr_assert_eq(st, USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(plan), "INFINITY"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(budget, cli_no_time_limit_is_accepted_and_exclusive_with_time_limit)
{
	char *d = minimalloc_d(), *out;
	char *dir = test_fmt("%s/budget/poll.so", test_fixture_plugindir());
	char *args = test_fmt("plan '%s' -a fx_poll --no-time-limit -o /dev/null", d);
	int st = usmp(dir, args, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "no time limit"), "%s", out);
	cr_assert_null(strstr(out, "stopped at the time limit"), "%s", out);
	free(args);
	free(out);

	args = test_fmt("plan '%s' --time-limit 2 --no-time-limit", d);
	st = usmp("", args, &out);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "--time-limit and --no-time-limit: give one"), "%s",
	          out);
	free(args);
	free(out);

	st = usmp("", "plan --help", &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "--no-time-limit") && strstr(out, "others 10 s"),
	          "%s", out);
	free(out);
	free(dir);
	free(d);
}

Test(budget, an_isolated_hang_is_killed_after_the_default_budget)
{
	usmp_problem *p;
	usmp_plan *plan;
	int st = plan_fixture("hang.so", "fx_hang", USMP_PLAN_ISOLATE, 0, &p,
	                      &plan);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", usmp_plan_error(plan));
	/* The default budget is a deadline: the rule with one applies, not
	 * the 600 s cap of a call without a deadline. */
	cr_assert(strstr(usmp_plan_error(plan), "fx_hang") &&
	          strstr(usmp_plan_error(plan), "time limit plus grace"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

/* Budget part 0 of the small problem got from exact with `knob` and no
 * time limit from the caller. */
static double exact_budget(const char *knob)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_small_problem();
	const char *params[] = {knob};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "exact",
	                       .params = params, .param_count = 1};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	double limit = -1;
	int stopped = -1;
	cr_assert_eq(usmp_plan_part_limit(plan, 0, &limit, &stopped), USMP_OK);
	cr_assert_eq(stopped, 0); /* exact proves 8 buffers optimal at once */
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	return limit;
}

Test(budget, an_algorithms_longer_time_limit_knob_replaces_the_default)
{
	double limit = exact_budget("time_limit=30");
	/* From the knob's start, a little after the call's. */
	cr_assert(limit >= 30.0 && limit < 60.0, "budget %g s", limit);
	cr_assert_eq(exact_budget("time_limit=2"), USMP_DEFAULT_TIME_LIMIT);
	cr_assert_eq(exact_budget("time_limit=0"), USMP_DEFAULT_TIME_LIMIT);
}
