/* test_cli.c — the `usmp` command end to end, through the built binary:
 * exit codes, messages naming the place, formats, verify, list. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *shared_data(const char *name)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/tests/data/minimalloc/%s", test_source_root(),
	         name);
	return path;
}

Test(cli, plan_minimalloc_csv_writes_offset_column_and_verifies)
{
	char *problem = shared_data("A.1048576.csv");
	char *plan = test_tmpfile(".csv");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -a first_fit --format csv -o '%s'", problem,
	              plan);
	cr_assert_eq(st, 0, "plan failed: %s", out);
	cr_assert(strstr(out, "lower bound"), "summary lacks the bound: %s", out);
	free(out);
	char *text = test_read_file(plan);
	cr_assert_not_null(text);
	char *nl = strchr(text, '\n');
	cr_assert_not_null(nl);
	*nl = '\0';
	cr_assert(strstr(text, "id") && strstr(text, "lower") &&
	          strstr(text, "upper") && strstr(text, "size") &&
	          strstr(text, "offset"), "header: %s", text);
	free(text);
	st = test_usmp(&out, "verify '%s' '%s'", problem, plan);
	cr_assert_eq(st, 0, "verify failed: %s", out);
	free(out);
	free(plan);
	free(problem);
}

Test(cli, plan_json_prints_summary_with_ratio_and_writes_svg)
{
	char *problem = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}],"
		" \"buffers\": ["
		"  {\"name\": \"a\", \"size\": 100, \"live\": [0, 2]},"
		"  {\"name\": \"b\", \"size\": 50, \"live\": [1, 3]},"
		"  {\"name\": \"c\", \"size\": 100, \"live\": [2, 4]}]}");
	char *plan = test_tmpfile(".json"), *svg = test_tmpfile(".svg"), *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o '%s' --svg '%s'", problem, plan, svg);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "ratio 1.0000"), "%s", out);
	cr_assert(strstr(out, "lower bound 150"), "%s", out);
	free(out);
	char *text = test_read_file(svg);
	cr_assert(text && strstr(text, "<svg") && strstr(text, "</svg>"));
	free(text);
	text = test_read_file(plan);
	cr_assert(text && strstr(text, "\"offset\""), "%s", text);
	free(text);
	cr_assert_eq(test_usmp(NULL, "verify '%s' '%s'", problem, plan), 0);
	free(problem), free(plan), free(svg);
}

Test(cli, malformed_json_exits_2_naming_the_field)
{
	char *problem = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": \"12k\"}]}");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s'", problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "buffers[0].size"), "message: %s", out);
	cr_assert(strstr(out, problem), "message lacks the file: %s", out);
	free(out), free(problem);
}

Test(cli, malformed_csv_exits_2_naming_the_line)
{
	char *problem = test_write_tmp(".csv",
		"id,lower,upper,size\n0,0,5,10\n1,20,10,4\n");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s'", problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, ":3"), "no line number: %s", out);
	free(out), free(problem);
}

Test(cli, verify_rejects_overlapping_plan_naming_both_buffers)
{
	char *problem = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": ["
		" {\"name\": \"left\", \"size\": 16, \"live\": [0, 4]},"
		" {\"name\": \"right\", \"size\": 16, \"live\": [2, 6]}]}");
	char *plan = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"default\", \"size\": 24}],"
		" \"buffers\": [{\"name\": \"left\", \"pool\": \"default\", \"offset\": 0},"
		"  {\"name\": \"right\", \"pool\": \"default\", \"offset\": 8}]}");
	char *out = NULL;
	int st = test_usmp(&out, "verify '%s' '%s'", problem, plan);
	cr_assert_neq(st, 0, "%s", out);
	cr_assert(strstr(out, "left") && strstr(out, "right"), "%s", out);
	free(out), free(problem), free(plan);
}

Test(cli, plan_that_cannot_fit_exits_3)
{
	char *problem = shared_data("A.1048576.csv");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -a first_fit --capacity 1000 -o /dev/null",
	              problem);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	free(out), free(problem);
}

Test(cli, unknown_algorithm_and_bad_knobs_exit_2)
{
	char *problem = shared_data("input.12.csv");
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "plan '%s' -a no_such_algo", problem), 2, "%s", out);
	cr_assert(strstr(out, "no_such_algo"), "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "plan '%s' -a first_fit -p ordr=size", problem), 2,
	             "%s", out);
	cr_assert(strstr(out, "ordr"), "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "plan '%s' -a first_fit -p order", problem), 2);
	free(out);
	cr_assert_eq(test_usmp(&out, "frobnicate"), 2);
	free(out);
	cr_assert_eq(test_usmp(&out, "plan"), 2);
	free(out);
	cr_assert_eq(test_usmp(&out, "plan '%s' --time-limit -1", problem), 2);
	free(out);
	free(problem);
}

Test(cli, list_verbose_shows_fit_plugin_file_abi_and_knobs)
{
	char *out = NULL;
	int st = test_usmp(&out, "list -v");
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "first_fit"), "%s", out);
	cr_assert(strstr(out, "fit.so"), "no plugin file: %s", out);
	cr_assert(strstr(out, "ABI 1."), "no ABI version: %s", out);
	cr_assert(strstr(out, "order=size"), "no knob default: %s", out);
	cr_assert(strstr(out, "(str, default size)"), "no knob type: %s", out);
	free(out);
}

Test(cli, bound_prints_minimalloc_lower_bound)
{
	char *problem = shared_data("C.1048576.csv");
	char *out = NULL;
	int st = test_usmp(&out, "bound '%s'", problem);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "1039360"), "%s", out);
	free(out), free(problem);
}

Test(cli, missing_problem_file_exits_2)
{
	char *out = NULL;
	int st = test_usmp(&out, "plan /nonexistent/problem.json");
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "/nonexistent/problem.json"), "%s", out);
	free(out);
}

Test(cli, select_names_the_algorithm_and_rule_per_target)
{
	char cmd[8192], *out = NULL;
	const char *env = "USMP_PLUGIN_PATH= USMP_ALGORITHM='npu*=exact;*=first_fit'";
	snprintf(cmd, sizeof cmd, "%s '%s' select npu0", env, test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "npu0: exact"), "%s", out);
	cr_assert(strstr(out, "USMP_ALGORITHM rule \"npu*=exact\""), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s '%s' select cpu", env, test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "cpu: first_fit"), "%s", out);
	cr_assert(strstr(out, "rule \"*=first_fit\""), "%s", out);
	cr_assert(strstr(out, "order=size"), "knob values missing: %s", out);
	free(out);
	/* --algorithm overrides both rules. */
	snprintf(cmd, sizeof cmd, "%s '%s' select npu0 --algorithm best_fit:order=area",
	         env, test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "npu0: best_fit") && strstr(out, "--algorithm"), "%s",
	          out);
	cr_assert(strstr(out, "order=area"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' select cpu",
	         test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "cpu: auto") && strstr(out, "default"), "%s", out);
	free(out);
}

Test(cli, heterogeneous_board_plans_each_target_with_its_own_algorithm)
{
	char cmd[8192], *out = NULL;
	char *plan = test_tmpfile(".json");
	snprintf(cmd, sizeof cmd,
	         "USMP_PLUGIN_PATH= USMP_ALGORITHM='ethos-u*=best_fit;*=first_fit' "
	         "'%s' plan '%s/examples/board_m55_u55.json' -o '%s'",
	         test_cli(), test_source_root(), plan);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "2 parts"), "%s", out);
	/* sram_npu is reached by both targets: a rule for one of them does
	 * not decide it, the first rule matching both does. */
	cr_assert(strstr(out, "target ethos-u55,cortex-m55, algorithm first_fit"),
	          "%s", out);
	cr_assert(strstr(out, "target cortex-m55, algorithm first_fit"), "%s", out);
	free(out);
	/* A pool rule decides it. */
	snprintf(cmd, sizeof cmd,
	         "USMP_PLUGIN_PATH= USMP_ALGORITHM='ethos-u*=exact;@sram_npu=best_fit;"
	         "*=first_fit' '%s' plan '%s/examples/board_m55_u55.json' -o '%s'",
	         test_cli(), test_source_root(), plan);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "target ethos-u55,cortex-m55, algorithm best_fit"),
	          "%s", out);
	cr_assert(strstr(out, "chosen by USMP_ALGORITHM rule \"@sram_npu=best_fit\""),
	          "%s", out);
	cr_assert(strstr(out, "target cortex-m55, algorithm first_fit"), "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "verify '%s/examples/board_m55_u55.json' '%s'",
	                  test_source_root(), plan), 0, "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "simulate '%s/examples/board_m55_u55.json' '%s'",
	                  test_source_root(), plan), 0, "%s", out);
	free(out);
	free(plan);
}

Test(cli, simulate_replays_the_quick_start_plan)
{
	char *plan = test_tmpfile(".json"), *out = NULL;
	cr_assert_eq(test_usmp(&out, "plan '%s/examples/mobilenet_v2.json' -o '%s'",
	                  test_source_root(), plan), 0, "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "simulate '%s/examples/mobilenet_v2.json' '%s'",
	                  test_source_root(), plan), 0, "%s", out);
	cr_assert(strstr(out, "every byte intact"), "%s", out);
	free(out);
	free(plan);
}
