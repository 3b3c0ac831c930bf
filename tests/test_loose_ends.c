/* test_loose_ends.c — four ends an earlier pass left alone: a volunteer killed
 * for time, rules naming no pool, a foreign free's read, an exact plugin's lie. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fixture of tests/plugins/loose_ends/ (loose.c), by kind. */
static char *fixture(const char *kind)
{
	return test_fmt("%s/loose_ends/%s.so", test_fixture_plugindir(), kind);
}

/* The shipped plugins and a fixture: auto's members and a volunteer. */
static char *with_shipped(const char *kind)
{
	return test_fmt("%s/plugins:%s/loose_ends/%s.so", test_build_root(),
	                test_fixture_plugindir(), kind);
}

/* Two pools: an SRAM for the NPU, a DRAM both targets reach. */
static const char board_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, "
	"\"targets\": [\"npu\"]}, {\"name\": \"dram\", \"targets\": [\"npu\", "
	"\"cpu\"]}], \"buffers\": [{\"name\": \"a\", \"size\": 64, \"live\": [0, 3], "
	"\"pools\": [\"sram\", \"dram\"]}, {\"name\": \"b\", \"size\": 64, "
	"\"live\": [2, 5], \"pools\": [\"sram\"]}, {\"name\": \"c\", \"size\": 32, "
	"\"live\": [0, 5], \"pools\": [\"dram\"]}]}";

/* ---- a volunteer killed for time ------------------------------------------ */

/* A volunteer that never returned was killed the member grace past auto's
 * deadline, and the summary said "a first plan is always finished",
 * blaming auto's first plan (a fraction of a millisecond). */
Test(loose_ends, a_volunteer_killed_for_time_is_named_not_the_first_plan)
{
	char *pp = test_write_tmp(".csv", test_crafted_csv);
	char *path = fixture("hang_volunteer");
	char *out = NULL;
	/* 1 s, not less: the CLI gives the part what reading and loading the
	 * plugins (slow under the sanitizers on a busy machine) left of it,
	 * and the volunteer must still get a turn after the first plan. */
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s' "
	                     "--time-limit 1 -o /dev/null", path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	const char *over = strstr(out, "    over the time limit of ");
	cr_assert(over, "%s", out);
	cr_assert(strstr(over, ": volunteer le_hang did not return by then and "
	                       "was stopped\n"), "%s", out);
	cr_assert_null(strstr(out, "first plan is always finished"), "%s", out);
	free(out);
	free(cmd);
	/* Through the API: the part names it. */
	char *both = with_shipped("hang_volunteer");
	usmp_registry *r = test_registry(both);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 0.1};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_str_eq(info.overrun_by, "le_hang");
	cr_assert_gt(info.time_ms, 100.0);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(both);
	free(path);
	free(pp);
}

/* An algorithm whose one plan takes longer than the limit keeps the
 * first-plan wording, and no part names a volunteer. */
Test(loose_ends, a_first_plan_over_the_limit_keeps_its_wording)
{
	char *pp = test_write_tmp(".json", test_three_json);
	char *path = fixture("hang_volunteer");
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s' "
	                     "-a le_slow --time-limit 0.05 -o /dev/null", path,
	                     test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, ": a first plan is always finished, however long "
	                      "it takes\n"), "%s", out);
	cr_assert_null(strstr(out, "volunteer"), "%s", out);
	free(out);
	free(cmd);
	usmp_registry *r = test_registry(path);
	usmp_problem *p = test_parse_json(test_three_json, "x.json");
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 0.05,
	                       .algorithm = "le_slow"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_str_eq(info.overrun_by, "");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(path);
	free(pp);
}

/* ---- a rule that matches no pool or target ---------------------------------- */

/* USMP_ALGORITHM='@sramm=exact' matched no pool, and the part silently got
 * the default auto. */
Test(loose_ends, a_rule_naming_no_pool_or_target_is_warned_with_the_nearest)
{
	char *pp = test_write_tmp(".json", board_json), *out = NULL;
	static const char *const rules[] = {"@sramm=exact", "npuu=best_fit",
	                                    "@SRAM=exact"};
	static const char *const said[] = {
		"usmp: USMP_ALGORITHM: rule \"@sramm=exact\" matches no pool of the "
		"problem (pools: \"sram\", \"dram\"); did you mean \"@sram\"?\n",
		"usmp: USMP_ALGORITHM: rule \"npuu=best_fit\" matches no target of "
		"the problem (targets: \"npu\", \"cpu\"); did you mean \"npu\"?\n",
		"usmp: USMP_ALGORITHM: rule \"@SRAM=exact\" matches no pool of the "
		"problem (pools: \"sram\", \"dram\"); did you mean \"@sram\"?\n"};
	for (int i = 0; i < 3; i++) {
		char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM='%s' "
		                     "'%s' plan '%s' -o /dev/null", rules[i],
		                     test_cli(), pp);
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "exit %d: %s", st, out);
		cr_assert(strstr(out, said[i]), "%s", out);
		cr_assert(strstr(out, "chosen by default rule \"*=auto\""), "%s", out);
		free(out);
		free(cmd);
	}
	/* Rules that match (a target the part's pools share counts), and -q:
	 * no line. */
	char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM='@sram="
	                     "exact;cpu=best_fit;gpu*=exact' '%s' plan '%s' -o "
	                     "/dev/null", test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_null(strstr(out, "matches no"), "%s", out);
	cr_assert(strstr(out, "chosen by USMP_ALGORITHM rule \"@sram=exact\""),
	          "%s", out);
	free(out);
	free(cmd);
	cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM='@sramm=exact' "
	               "'%s' plan '%s' -q -o /dev/null", test_cli(), pp);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_eq(out[0], '\0', "%s", out);
	free(out);
	free(cmd);
	free(pp);
}

/* Rules bound through the API are checked the same way, said through the
 * host's log function: a close name at USMP_LOG_WARN, none at info. */
Test(loose_ends, api_rules_matching_nothing_reach_the_log_function)
{
	char lines[TEST_LOG_LINES] = "";
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "@dramm=best_fit;@l2=first_fit;"
	                                         "*=first_fit"), USMP_OK);
	usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_INFO);
	usmp_problem *p = test_parse_json(board_json, "board.json");
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	cr_assert(strstr(lines, "1 usmp_registry_bind: rule \"@dramm=best_fit\" "
	                        "matches no pool of the problem (pools: \"sram\", "
	                        "\"dram\"); did you mean \"@dram\"?\n"), "%s", lines);
	cr_assert(strstr(lines, "2 usmp_registry_bind: rule \"@l2=first_fit\" "
	                        "matches no pool of the problem (pools: \"sram\", "
	                        "\"dram\")\n"), "%s", lines);
	cr_assert_null(strstr(lines, "\"*=first_fit\""), "%s", lines);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_str_eq(info.rule, "*=first_fit");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- host->free() at the start of a mapping --------------------------------- */

/* The foreign-free check read 32 bytes before the pointer: at the start of
 * a mapping whose page before is unreadable, a SIGSEGV (in process, the
 * host's own). Now the pointer is looked up, never read around. */
Test(loose_ends, free_at_the_start_of_a_mapping_is_refused_without_reading)
{
	char *path = fixture("mapping_free");
	test_foreign_free_ignored(path, "le_free_mapping");
	free(path);
}

/* ---- an exact plugin's "infeasible" on unbounded pools ---------------------- */

/* An algorithm declaring USMP_CAP_EXACT that said USMP_ERR_INFEASIBLE on
 * a part whose every pool is unbounded was believed: "its search proved
 * that no placement fits", exit 3. A plan always exists there. */
Test(loose_ends, an_exact_infeasible_on_unbounded_pools_is_a_plugin_failure)
{
	char *path = fixture("exact_liar");
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (int m = 0; m < 2; m++) {
		usmp_registry *r = test_registry(path);
		usmp_problem *p = test_parse_json(test_three_json, "x.json");
		usmp_plan_options o = {.struct_size = sizeof o, .flags = modes[m],
		                       .algorithm = "le_infeasible"};
		usmp_plan *plan = NULL;
		int st = usmp_plan_compute(r, p, &o, &plan);
		cr_assert_eq(st, USMP_ERR_PLUGIN, "status %d: %s", st,
		             usmp_plan_error(plan));
		const char *e = usmp_plan_error(plan);
		cr_assert(strstr(e, "algorithm \"le_infeasible\" (plugin \"exact_liar\", "),
		          "%s", e);
		cr_assert(strstr(e, "loose_ends/exact_liar.so) declares the exact "
		                    "capability and returned USMP_ERR_INFEASIBLE, but "
		                    "every pool of the part is unbounded, so a plan "
		                    "exists; its verdict is not taken"), "%s", e);
		usmp_infeasibility why = {.struct_size = sizeof why};
		cr_assert_neq(usmp_plan_infeasibility(plan, &why), USMP_OK);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
		usmp_registry_destroy(r);
	}
	char *pp = test_write_tmp(".json", test_three_json), *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s' "
	                     "-a le_infeasible", path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "its verdict is not taken (part 1: "), "%s", out);
	free(out);
	free(cmd);
	/* A bounded pool: the claim may be true, and is believed. */
	char *bp = test_write_tmp(".json", board_json);
	cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s' "
	               "-a le_infeasible", path, test_cli(), bp);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	cr_assert(strstr(out, "le_infeasible's search proved that no placement"),
	          "%s", out);
	free(out);
	free(cmd);
	free(bp);
	free(pp);
	free(path);
}
