/* test_firsthour6.c — a TinyML flow author's first hour with an NPU model:
 * pools with limits, fixed buffers, an in-place rule, written by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* Weights fixed at offset 0, written without a live range as "alive
 * throughout": they conflict with nothing, so act0 may go over them. */
static const char weights_json[] =
	"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 262144}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"weights\", \"size\": 65536, \"fixed\": {\"pool\": \"sram\", \"offset\": 0}},\n"
	"  {\"name\": \"act0\", \"size\": 65536, \"live\": [0, 2]},\n"
	"  {\"name\": \"act1\", \"size\": 65536, \"live\": [1, 3]}]}\n";

#define UNLIVED                                                                \
	"buffer \"weights\" has no live range and no conflict edge, so it "      \
	"conflicts with no other buffer: buffers alive at any step may be "      \
	"placed over its bytes. To keep its bytes for the whole run (weights, " \
	"state), give it the live range of the whole schedule (\"live\": [0, " \
	"3]; usmp_problem_set_live) or conflict edges"

Test(firsthour6, cli_says_a_buffer_without_live_range_conflicts_with_nothing)
{
	char *problem = test_write_tmp(".json", weights_json);
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o /dev/null", problem);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "usmp: problem: " UNLIVED "\n"), "%s", out);
	free(out);
	/* -q: no summary, no warning. */
	st = test_usmp(&out, "plan '%s' -q -o /dev/null", problem);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert_str_eq(out, "");
	free(out);
	remove(problem);
	free(problem);
}

/* The warnings that problem gives a log function at USMP_LOG_WARN. */
static char *warnings_of(const char *json)
{
	usmp_problem *p = test_parse_json(json, "m.json");
	usmp_registry *r = test_registry(NULL);
	static char lines[TEST_LOG_LINES];
	lines[0] = '\0';
	usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_WARN);
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	return lines;
}

Test(firsthour6, api_log_says_a_buffer_without_live_range_conflicts_with_nothing)
{
	char *lines = warnings_of(weights_json);
	char *want = test_fmt("%d problem: " UNLIVED "\n", USMP_LOG_WARN);
	cr_assert_str_eq(lines, want);
	free(want);
	/* Two such buffers: the first named, the rest counted. */
	lines = warnings_of(
		"{\"buffers\": [{\"name\": \"w0\", \"size\": 8},"
		" {\"name\": \"w1\", \"size\": 8},"
		" {\"name\": \"a\", \"size\": 8, \"live\": [-2, 5]}]}");
	cr_assert(strstr(lines, "problem: buffer \"w0\" and 1 more have no live "
	                        "range and no conflict edge, so each conflicts "
	                        "with no other buffer"), "%s", lines);
	cr_assert(strstr(lines, "(\"live\": [-2, 5]; "), "%s", lines);
}

Test(firsthour6, no_warning_when_every_buffer_is_placed_in_time_or_by_edges)
{
	/* Weights alive throughout. */
	cr_assert_str_eq(warnings_of(
		"{\"buffers\": [{\"name\": \"w\", \"size\": 8, \"live\": [0, 3]},"
		" {\"name\": \"a\", \"size\": 8, \"live\": [0, 2]}]}"), "");
	/* A buffer without a live range held apart by a conflict edge. */
	cr_assert_str_eq(warnings_of(
		"{\"buffers\": [{\"name\": \"w\", \"size\": 8},"
		" {\"name\": \"a\", \"size\": 8, \"live\": [0, 2]}],"
		" \"conflicts\": [[\"w\", \"a\"]]}"), "");
	/* A conflict graph: no buffer has a live range (TVM's way). */
	cr_assert_str_eq(warnings_of(
		"{\"buffers\": [{\"name\": \"w\", \"size\": 8},"
		" {\"name\": \"a\", \"size\": 8}, {\"name\": \"b\", \"size\": 8}],"
		" \"conflicts\": [[\"w\", \"a\"]]}"), "");
}

Test(firsthour6, a_misaligned_fixed_offset_says_whose_alignment_and_the_fix)
{
	/* The pool's 16 rules over the buffer's 1: "its alignment 16" blamed
	 * the buffer, which asked for none. */
	char *problem = test_write_tmp(".json",
		"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 1024, \"alignment\": 16}],\n"
		" \"buffers\": [{\"name\": \"a\", \"size\": 512, \"live\": [0, 2],"
		" \"fixed\": {\"pool\": \"sram\", \"offset\": 40}}]}\n");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o /dev/null", problem);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	char *want = test_fmt("usmp: %s: buffers[0].fixed: buffer \"a\": fixed "
	                      "offset 40 in pool \"sram\" is not a multiple of "
	                      "the pool's alignment 16: fix it at 32 or 48\n",
	                      problem);
	cr_assert_str_eq(out, want);
	free(want);
	free(out);
	remove(problem);
	free(problem);
	/* The buffer's own alignment; no multiple above 2^64 - 1. */
	usmp_problem *p = usmp_problem_create();
	uint32_t pool, b;
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 1, &pool), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "t", 1, 8, &b), 0);
	cr_assert_eq(usmp_problem_set_fixed(p, b, pool, 12), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "buffer \"t\": fixed offset 12 in pool \"dram\" is not "
	                 "a multiple of its alignment 8: fix it at 8 or 16");
	cr_assert_eq(usmp_problem_set_fixed(p, b, pool, UINT64_MAX), USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "its alignment 8: fix it at "
	                 "18446744073709551608"), "%s", usmp_problem_error(p));
	cr_assert_null(strstr(usmp_problem_error(p), " or "), "%s",
	               usmp_problem_error(p));
	usmp_problem_destroy(p);
}

/* SRAM for the NPU, DRAM shared with the CPU: one part of two targets. */
static const char shared_json[] =
	"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, \"targets\": [\"ethos-u55\"]},\n"
	"           {\"name\": \"dram\", \"targets\": [\"ethos-u55\", \"cortex-m55\"]}],\n"
	" \"buffers\": [{\"name\": \"a\", \"size\": 1024, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},\n"
	"             {\"name\": \"b\", \"size\": 1024, \"live\": [1, 3], \"pools\": [\"sram\", \"dram\"]}]}\n";

Test(firsthour6, a_target_rule_matching_part_of_a_shared_part_is_said)
{
	char *problem = test_write_tmp(".json", shared_json);
	char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM='ethos-u55=best_fit' "
	                     "'%s' plan '%s' -o /dev/null", test_cli(), problem);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out,
		"    chosen by default rule \"*=auto\"\n"
		"    USMP_ALGORITHM rule \"ethos-u55=best_fit\" matches target "
		"ethos-u55 of this part but not cortex-m55: a target rule decides a "
		"part only when it matches all its targets; a pool rule (@POOL=...) "
		"decides every part with that pool\n"), "%s", out);
	free(out);
	free(cmd);
	/* A rule matching both targets decides the part: nothing to say. */
	cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM='*-m55=first_fit;"
	               "ethos-u55=best_fit;*=best_fit' '%s' plan '%s' -o /dev/null",
	               test_cli(), problem);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "chosen by USMP_ALGORITHM rule \"*=best_fit\"\n"),
	          "%s", out);
	cr_assert(strstr(out, "rule \"*-m55=first_fit\" matches target "
	                      "cortex-m55 of this part but not ethos-u55"), "%s", out);
	cr_assert_null(strstr(out, "rule \"*=best_fit\" matches"), "%s", out);
	free(out);
	free(cmd);
	/* -a decides every part: the rules are not asked. */
	cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM='ethos-u55=best_fit' "
	               "'%s' plan '%s' -a first_fit -o /dev/null", test_cli(), problem);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert_null(strstr(out, "matches target"), "%s", out);
	free(out);
	free(cmd);
	remove(problem);
	free(problem);
}

Test(firsthour6, auto_without_a_plan_on_several_pools_says_its_proof)
{
	/* "a" fits only the DRAM; "b" and "c" do not fit the DTCM, the SRAM
	 * holds one: the other and "a" overflow the DRAM. auto's exact member
	 * proves it: the part says so, not "a plan may exist" (the advice
	 * for a failure no member proved). */
	char *problem = test_write_tmp(".json",
		"{\"pools\": [{\"name\": \"dtcm\", \"size_limit\": 65536},"
		" {\"name\": \"sram\", \"size_limit\": 131072},"
		" {\"name\": \"dram\", \"size_limit\": 262144}],\n"
		" \"buffers\": [\n"
		"  {\"name\": \"a\", \"size\": 200000, \"live\": [0, 2], \"pools\": [\"dtcm\", \"sram\", \"dram\"]},\n"
		"  {\"name\": \"b\", \"size\": 100000, \"live\": [1, 3], \"pools\": [\"dtcm\", \"sram\", \"dram\"]},\n"
		"  {\"name\": \"c\", \"size\": 100000, \"live\": [1, 3], \"pools\": [\"dtcm\", \"sram\", \"dram\"]}]}\n");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -a auto -o /dev/null", problem);
	cr_assert_eq(st, 3, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "auto: no plan fits the pools: auto's search "
	                      "proved that no placement of the buffers fits the "
	                      "pools, although the lower bound (400000) does"),
	          "%s", out);
	cr_assert_null(strstr(out, "a plan may exist"), "%s", out);
	free(out);
	st = test_usmp(&out, "plan '%s' -a exact -o /dev/null", problem);
	cr_assert_eq(st, 3, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "exact's search proved that no placement of the "
	                      "buffers fits the pools"), "%s", out);
	free(out);
	remove(problem);
	free(problem);
}
