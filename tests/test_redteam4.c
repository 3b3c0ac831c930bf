/* test_redteam4.c — a fourth adversarial pass, from the plugin's side: a
 * plugin that lies to the host about statuses, bounds, its view and plans. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fixture: tests/plugins/redteam4/liars.c. */
static char *liars(void)
{
	return test_fmt("%s/redteam4/liars.so", test_fixture_plugindir());
}

/* Two 8-byte buffers one after the other: 8 bytes is the least. */
static const char two_json[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": [0, 2]}, "
	"{\"name\": \"b\", \"size\": 8, \"live\": [2, 4]}]}";

/* Plan `json` with `algorithm` through the API, isolated or in process. */
static int plan_with(const char *json, const char *algorithm, uint32_t flags,
                     usmp_plan **plan)
{
	char *path = liars();
	usmp_registry *r = test_registry(path);
	usmp_problem *p = test_parse_json(json, "x.json");
	usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
	                       .algorithm = algorithm};
	int st = usmp_plan_compute(r, p, &o, plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(path);
	return st;
}

/* ---- a status outside enum usmp_status ---------------------------------- */

/* A plugin returning 99 or -1 made usmp_plan_compute return that number
 * (no usmp_status_name knows it) and `usmp plan` exit 1 with "failed
 * (unknown status): unknown status", the plugin unnamed. */
Test(redteam4, a_status_outside_usmp_status_is_a_plugin_failure)
{
	static const char *const algos[] = {"rt_status_99", "rt_status_neg"};
	static const char *const said[] = {"returned 99, which is no "
	                                   "usmp_status (0 to 10)",
	                                   "returned -1, which is no "
	                                   "usmp_status (0 to 10)"};
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (int i = 0; i < 2; i++)
		for (int m = 0; m < 2; m++) {
			usmp_plan *plan = NULL;
			int st = plan_with(two_json, algos[i], modes[m], &plan);
			cr_assert_eq(st, USMP_ERR_PLUGIN, "%s: status %d", algos[i], st);
			cr_assert_eq(usmp_plan_status(plan), USMP_ERR_PLUGIN);
			const char *e = usmp_plan_error(plan);
			char *want = test_fmt("algorithm \"%s\" (plugin \"liars\", ",
			                      algos[i]);
			cr_assert(strstr(e, want), "%s", e);
			cr_assert(strstr(e, "redteam4/liars.so) "), "%s", e);
			cr_assert(strstr(e, said[i]), "%s", e);
			free(want);
			usmp_plan_destroy(plan);
		}
	char *pp = test_write_tmp(".json", two_json), *path = liars(), *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s' -a rt_status_99 "
	                     "-o /dev/null", path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "returned 99, which is no usmp_status"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* ---- report_bound from an algorithm that is not exact --------------------- */

/* An algorithm without USMP_CAP_EXACT reporting its 16-byte plan optimal
 * made the part "(optimal)" with proven bound 16, where 8 bytes fit. */
Test(redteam4, report_bound_is_taken_only_from_an_exact_algorithm)
{
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (int m = 0; m < 2; m++) {
		usmp_plan *plan = NULL;
		int st = plan_with(two_json, "rt_self_optimal", modes[m], &plan);
		cr_assert_eq(st, USMP_OK, "%s", usmp_plan_error(plan));
		usmp_part_info info = test_part(plan, 0);
		cr_assert_eq(info.size, 16);
		cr_assert_eq(info.lower_bound, 8);
		cr_assert_eq(info.proven_bound, 8, "proven %llu",
		             (unsigned long long)info.proven_bound);
		cr_assert_eq(info.optimal, 0);
		usmp_plan_destroy(plan);
	}
	char *pp = test_write_tmp(".json", two_json), *path = liars(), *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s' "
	                     "-a rt_self_optimal", path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "total 16 bytes, lower bound 8, ratio 2.0000\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "optimal: no valid plan"), "%s", out);
	cr_assert(strstr(out, "\"optimal\": false"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* ---- a plugin writing into its read-only view ------------------------------ */

/* Called in process (--no-isolate), an algorithm that shrank every buffer
 * of its view to one byte got its plan of overlapping buffers verified
 * against the changed view and printed as "(optimal)", total 3 bytes; one
 * that set the view's buffer count to 0 crashed usmp (SIGSEGV). */
Test(redteam4, a_plugin_writing_into_its_view_in_process_is_refused)
{
	static const char *const algos[] = {"rt_view_sizes", "rt_view_count"};
	for (int i = 0; i < 2; i++) {
		usmp_plan *plan = NULL;
		int st = plan_with(test_three_json, algos[i], USMP_PLAN_NO_ISOLATE,
		                   &plan);
		cr_assert_eq(st, USMP_ERR_PLUGIN, "%s: %d", algos[i], st);
		const char *e = usmp_plan_error(plan);
		char *want = test_fmt("algorithm \"%s\" (plugin \"liars\", ", algos[i]);
		cr_assert(strstr(e, want), "%s", e);
		cr_assert(strstr(e, "liars.so) wrote into the read-only problem "
		                    "view; its plan is not taken"), "%s", e);
		free(want);
		usmp_plan_destroy(plan);
		/* Isolated, it writes into a copy: the verifier refuses the plan. */
		st = plan_with(test_three_json, algos[i], USMP_PLAN_ISOLATE, &plan);
		cr_assert_eq(st, USMP_ERR_PLUGIN, "%s: %d", algos[i], st);
		want = test_fmt("algorithm \"%s\" returned an invalid plan: ", algos[i]);
		cr_assert(strstr(usmp_plan_error(plan), want), "%s",
		          usmp_plan_error(plan));
		free(want);
		usmp_plan_destroy(plan);
	}
	char *pp = test_write_tmp(".json", test_three_json), *path = liars();
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s' "
	                     "-a rt_view_count --no-isolate", path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "wrote into the read-only problem view"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* A volunteer for auto doing the same, called in process: auto's plan was
 * verified against the changed view and printed; now the part fails naming
 * the volunteer. */
Test(redteam4, a_volunteer_writing_into_its_view_is_named)
{
	char *pp = test_write_tmp(".csv", test_crafted_csv), *path = liars();
	char *out = NULL;
	char *cmd = test_fmt("USMP_LOG=warn USMP_PLUGIN_PATH='%s' '%s' plan '%s' "
	                     "-a auto:improve=false --no-isolate -o /dev/null",
	                     path, test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: auto: volunteer rt_volunteer_view failed "
	                      "(plugin failure: wrote into the read-only problem "
	                      "view); ignored"), "%s", out);
	cr_assert(strstr(out, "algorithm \"rt_volunteer_view\" (plugin \"liars\", "),
	          "%s", out);
	cr_assert(strstr(out, "liars.so), run by auto wrote into the read-only "
	                      "problem view; the plan is not taken"), "%s", out);
	free(out);
	free(cmd);
	/* Isolated (the default for a plugin outside the shipped directory):
	 * its plan is dropped and auto plans. */
	cmd = test_fmt("USMP_LOG=warn USMP_PLUGIN_PATH='%s' '%s' plan '%s' "
	               "-a auto:improve=false -o /dev/null", path, test_cli(), pp);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "volunteer rt_volunteer_view returned an invalid "
	                      "plan (dropped)"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* ---- invalid placements (held) ---------------------------------------------- */

/* Every kind of invalid placement an algorithm claiming the capabilities
 * may return is refused by the verifier, naming the buffer, in process and
 * isolated. */
Test(redteam4, invalid_placements_are_refused_whatever_the_caps_claim)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p0\"}, {\"name\": \"p1\"}], "
		"\"buffers\": [{\"name\": \"f\", \"size\": 8, \"alignment\": 8, "
		"\"live\": [0, 4], \"pools\": [\"p0\"], \"fixed\": {\"pool\": \"p0\", "
		"\"offset\": 0}}, "
		"{\"name\": \"a\", \"size\": 8, \"live\": [0, 3], \"pools\": [\"p0\", \"p1\"]}, "
		"{\"name\": \"b\", \"size\": 8, \"live\": [2, 5], \"pools\": [\"p0\", \"p1\"]}, "
		"{\"name\": \"c\", \"size\": 8, \"live\": [2, 4], \"pools\": [\"p0\"]}], "
		"\"overlaps\": [{\"src\": \"a\", \"dst\": \"b\", \"max_lead\": 2}]}";
	static const char *const said[] = {
		"buffer \"c\" has no pool",
		"buffer \"c\": pool index 2 does not exist (2 pools)",
		"buffer \"c\": offset 18446744073709551609 + size 8 overflows",
		"buffer \"c\": pool \"p1\" is not among its candidate pools",
		"buffer \"f\" is fixed at offset 0 in pool \"p0\" but placed at "
		"offset 8 in pool \"p0\"",
		"buffers \"a\" and \"b\" overlap in pool \"p0\" at bytes [11, 16) "
		"while both are live, and their overlap rule needs offset(\"b\") 11 "
		"<= offset(\"a\") 8 + max_lead 2",
	};
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (int how = 0; how < 6; how++)
		for (int m = 0; m < 2; m++) {
			char *spec = test_fmt("rt_bad_plan:how=%d", how);
			usmp_plan *plan = NULL;
			int st = plan_with(json, spec, modes[m], &plan);
			cr_assert_eq(st, USMP_ERR_PLUGIN, "how=%d: %d", how, st);
			const char *e = usmp_plan_error(plan);
			cr_assert(strstr(e, "algorithm \"rt_bad_plan\" returned an "
			                    "invalid plan: "), "%s", e);
			cr_assert(strstr(e, said[how]), "how=%d: %s", how, e);
			usmp_plan_destroy(plan);
			free(spec);
		}
}

/* ---- host services misused ------------------------------------------------- */

/* host->free() and host->realloc() of pointers host->alloc() did not
 * return (inside a block, a static array) unlinked a header that was none:
 * SIGSEGV, in process the host's own crash. Now each is logged and
 * ignored, and the valid plan is taken. */
Test(redteam4, free_of_a_pointer_the_host_did_not_allocate_is_ignored)
{
	char *path = liars();
	test_foreign_free_ignored(path, "rt_foreign_free");
	free(path);
}

/* ---- exit() in process ------------------------------------------------------- */

/* With --no-isolate, a plugin calling exit(0) ended `usmp plan` with exit
 * 0, no plan file and no message. */
Test(redteam4, a_plugin_exiting_in_process_is_exit_4_with_a_message)
{
	char *pp = test_write_tmp(".json", test_three_json), *path = liars();
	char *plan = test_tmpfile(".json");
	remove(plan);
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s' -a rt_exit "
	                     "--no-isolate -o '%s'", path, test_cli(), pp, plan);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	char *want = test_fmt("usmp: %s: a plugin algorithm called in this "
	                      "process ended it (exit) instead of returning; no "
	                      "plan (plan with --isolate to have it named)\n", pp);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert_neq(access(plan, F_OK), 0, "a plan file was written");
	free(want);
	free(out);
	free(cmd);
	/* Isolated, the child's exit is named (and the guard stays silent in
	 * the child). */
	cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s' -a rt_exit -o '%s'",
	               path, test_cli(), pp, plan);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "algorithm \"rt_exit\" (plugin \"liars\", "), "%s",
	          out);
	cr_assert(strstr(out, "exited (status 0) instead of returning"), "%s", out);
	cr_assert_null(strstr(out, "ended it (exit)"), "%s", out);
	free(out);
	free(cmd);
	free(plan);
	free(path);
	free(pp);
}

/* ---- log levels outside the enum ------------------------------------------- */

/* A plugin logging at level -7 reached a host's log function as -7 in
 * process, and was dropped when isolated; level 1000 reached it as 1000.
 * Now each is the nearest level (error, debug), the same either way. */
Test(redteam4, log_levels_outside_the_enum_are_the_nearest_level)
{
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	char *path = liars();
	for (int m = 0; m < 2; m++) {
		char lines[TEST_LOG_LINES] = "";
		usmp_registry *r = test_registry(path);
		usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_DEBUG);
		usmp_problem *p = test_parse_json(two_json, "x.json");
		usmp_plan_options o = {.struct_size = sizeof o, .flags = modes[m],
		                       .algorithm = "rt_odd_levels"};
		usmp_plan *plan = test_plan_ok(r, p, &o);
		cr_assert(strstr(lines, "0 rt_odd_levels: level minus seven\n"),
		          "mode %d: %s", m, lines);
		cr_assert(strstr(lines, "3 rt_odd_levels: level one thousand\n"),
		          "mode %d: %s", m, lines);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
		usmp_registry_destroy(r);
	}
	free(path);
}
