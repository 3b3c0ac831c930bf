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

/* ---- CSV plan headers -------------------------------------------------------- */

static void put(const char *dir, const char *name, const char *text)
{
	test_write_in(dir, name, text, strlen(text));
}

/* A plan exported with ';' (or tabs) between its columns was told the
 * problem's columns, "(id,lower,upper,size)": a plan's are id,...,offset,
 * as the other header messages of a plan say. */
Test(redteam10, a_csv_plan_header_of_semicolons_names_the_plan_columns)
{
	char *dir = test_fresh_dir("rt10-semi");
	put(dir, "p.csv", "id,lower,upper,size\n0,0,2,8\n1,1,3,8\n");
	put(dir, "plan.csv", "id;offset\n0;0\n1;8\n");
	put(dir, "tab.csv", "id\toffset\n0\t0\n1\t8\n");
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "verify %s/p.csv %s/plan.csv", dir, dir),
	             2, "%s", out);
	cr_assert(strstr(out, "plan.csv:1: the header has no comma: its "
	                      "columns are separated by semicolons (;); this "
	                      "CSV separates them by commas (id,...,offset)\n"),
	          "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "verify %s/p.csv %s/tab.csv", dir, dir),
	             2, "%s", out);
	cr_assert(strstr(out, "separated by tabs; this CSV separates them by "
	                      "commas (id,...,offset)\n"), "%s", out);
	free(out);
	/* a problem's header keeps the problem's columns */
	put(dir, "q.csv", "id;lower;upper;size\n0;0;1;8\n");
	cr_assert_eq(test_usmp(&out, "bound %s/q.csv", dir), 2, "%s", out);
	cr_assert(strstr(out, "commas (id,lower,upper,size)\n"), "%s", out);
	free(out);
	free(dir);
}

/* ---- a pool's group in a plan file ------------------------------------------- */

/* A plan file's pool record says which bound group the pool is in; a
 * wrong number was read without a word (the pool's size and lower bound,
 * beside it, are checked). Now it is a false claim, as a wrong size is. */
Test(redteam10, a_pools_wrong_group_in_a_plan_file_is_a_false_claim)
{
	char *dir = test_fresh_dir("rt10-group");
	put(dir, "p.json",
	    "{\"usmp\": 1, \"pools\": [{\"name\": \"x\"}, {\"name\": \"sram\"}], "
	    "\"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\": [0, 2], "
	    "\"pools\": [\"sram\"]}]}");
	put(dir, "good.json",
	    "{\"usmp\": 1, \"pools\": [{\"name\": \"x\", \"size\": 0, \"group\": 0}, "
	    "{\"name\": \"sram\", \"size\": 16, \"group\": 1}], \"buffers\": "
	    "[{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0}]}");
	put(dir, "bad.json",
	    "{\"usmp\": 1, \"pools\": [{\"name\": \"x\", \"size\": 0, \"group\": 0}, "
	    "{\"name\": \"sram\", \"size\": 16, \"group\": 0}], \"buffers\": "
	    "[{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0}]}");
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "verify %s/p.json %s/good.json", dir, dir),
	             0, "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "verify %s/p.json %s/bad.json", dir, dir),
	             1, "%s", out);
	cr_assert(strstr(out, "bad.json: invalid plan: false claim in "), "%s",
	          out);
	cr_assert(strstr(out, "bad.json: pools[1].group: 0, but pool \"sram\" "
	                      "is in bound group 1 of the problem\n"), "%s", out);
	free(out);
	/* through the API: read, then verify */
	usmp_problem *p = usmp_problem_create();
	char *pj = test_join(dir, "p.json"), *bj = test_join(dir, "bad.json");
	cr_assert_eq(usmp_problem_read(p, pj, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, bj, USMP_FORMAT_AUTO, &plan), USMP_OK,
	             "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(plan), "pools[1].group: 0"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(pj);
	free(bj);
	free(dir);
}
