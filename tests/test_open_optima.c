/* test_open_optima.c — the best plans known for MiniMalloc's open problems
 * (D, J): stored plan files, checked by the verifier and the replay. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "support.h"
#include "usmp/usmp.h"

/* Read problem NAME.1048576.csv and its stored plan plans/PLAN; the plan
 * must verify, replay, and have exactly `total` bytes in its pool. */
static void check_stored(const char *name, const char *plan_file,
                         uint64_t total, uint64_t bound)
{
	char path[4096], plan_path[4096];
	snprintf(path, sizeof path, "%s/tests/data/minimalloc/%s.1048576.csv",
	         test_source_root(), name);
	snprintf(plan_path, sizeof plan_path, "%s/tests/data/minimalloc/plans/%s",
	         test_source_root(), plan_file);
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_CSV, 1048576),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), bound);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, plan_path, USMP_FORMAT_JSON, &plan),
	             USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_pool_size(plan, 0), total);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(open_optima, minimalloc_D_fits_in_1017856)
{
	/* Below the 1018880 of a minute of `exact`; the bound is 986112. */
	check_stored("D", "D.1017856.json", 1017856, 986112);
}
