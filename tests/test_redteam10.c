/* test_redteam10.c — the tenth adversarial pass (docs/errors.md, "Red team
 * 10"): each test fails before its fix. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* ---- rule names ------------------------------------------------------------ */

/* A problem whose pools name no target is matched as the empty target; a
 * one-letter target rule ("x=exact") is one edit from it, so it was warned
 * with `did you mean ""?`: a guess no rule can take ("=exact" is refused).
 * The empty target is never the guess: the rule is said at info, as any
 * rule for another problem's names. */
Test(redteam10, a_rule_is_never_told_to_name_the_empty_target)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": "
		"[{\"name\": \"a\", \"size\": 8, \"live\": [0, 1]}]}", "p.json");
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "x=exact"), USMP_OK);
	char log[TEST_LOG_LINES] = "";
	usmp_registry_set_log(r, test_keep_log_lines, log, USMP_LOG_INFO);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *want = test_fmt("%d usmp_registry_bind: rule \"x=exact\" matches "
	                      "no target of the problem (targets: \"\")\n",
	                      USMP_LOG_INFO);
	cr_assert(strstr(log, want), "%s", log);
	cr_assert_null(strstr(log, "did you mean"), "%s", log);
	free(want);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}
