/* test_firsthour3.c — a TinyML deployment's first hour, checked: a CSV of
 * tensor lifetimes against a 256 KiB arena, the miss, header typos, reruns. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* Twelve tensors, alignment 16; at step 2 "t2", "t1" and "skip" are live:
 * 274432 bytes, 12288 more than 256 KiB. */
static const char model[] =
	"id,lower,upper,size,alignment\n"
	"t0,0,2,49152,16\nt1,1,3,98304,16\nt2,2,4,110592,16\n"
	"t3,3,5,49152,16\nt4,4,6,49152,16\nt5,5,7,24576,16\n"
	"t6,6,8,24576,16\nt7,7,9,12288,16\nt8,8,10,12288,16\n"
	"t9,9,11,4096,16\nt10,10,12,1000,16\nskip,1,6,65536,16\n";

/* Every algorithm that refuses the model says by how many bytes it misses
 * and which buffers are live at that step, largest first. */
Test(firsthour3, a_model_over_the_arena_says_the_miss_and_the_live_buffers)
{
	char *path = test_write_tmp(".csv", model);
	static const char *const algos[] = {"auto", "exact", "best_fit",
	                                    "first_fit", "greedy_by_size"};
	for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' --capacity 256K -a %s -o /dev/null",
		                   path, algos[i]);
		cr_assert_eq(st, 3, "%s: exit %d: %s", algos[i], st, out);
		cr_assert(strstr(out, "at step 2 the buffers live that may use only "
		                 "pool \"default\" need 274432 bytes, more than its "
		                 "limit (262144 bytes) by 12288 bytes; the largest of "
		                 "the 3 is \"t2\" (110592 bytes), then \"t1\" (98304 "
		                 "bytes), \"skip\" (65536 bytes); the lower bound of "
		                 "the group is 274432 bytes"), "%s: %s", algos[i], out);
		free(out);
	}
	/* 268 KiB holds it: the miss was exact. */
	char *out = test_usmp_ok("plan '%s' --capacity 268K -a exact -q -o /dev/null",
	                         path);
	free(out);
	free(path);
}

/* More than eight buffers live at the step: eight named, the rest counted. */
Test(firsthour3, a_crowded_step_names_eight_and_counts_the_rest)
{
	char *csv = test_fmt("%s", "id,lower,upper,size\n");
	for (int k = 0; k < 11; k++) {
		char *next = test_fmt("%sb%d,0,2,%d\n", csv, k, 100 + k);
		free(csv);
		csv = next;
	}
	char *path = test_write_tmp(".csv", csv);
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' --capacity 1K -a first_fit -o /dev/null",
	                   path);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	cr_assert(strstr(out, "need 1155 bytes, more than its limit (1024 bytes) "
	                 "by 131 bytes; the largest of the 11 is \"b10\" (110 "
	                 "bytes), then \"b9\" (109 bytes), \"b8\" (108 bytes), "
	                 "\"b7\" (107 bytes), \"b6\" (106 bytes), \"b5\" (105 "
	                 "bytes), \"b4\" (104 bytes), \"b3\" (103 bytes) and 3 "
	                 "more;"), "%s", out);
	free(out);
	free(path);
	free(csv);
}

/* A misspelt header column is named with the column it misspells (case
 * ignored); a name near none gets the list alone. */
Test(firsthour3, a_header_typo_names_the_column_meant)
{
	static const char *const header[] = {
		"id,lower,uper,size", "id,lower,upper,sise",
		"id,lower,upper,SIZ", "id,lowr,upper,size",
		"id,lower,upper,size,alignmnt", "id,lower,upper,size,ofset",
		"name,lower,upper,size"};
	static const char *const meant[] = {
		"\"uper\": did you mean \"upper\"?", "\"sise\": did you mean \"size\"?",
		"\"SIZ\": did you mean \"size\"?", "\"lowr\": did you mean \"lower\"?",
		"\"alignmnt\": did you mean \"alignment\"?",
		"\"ofset\": did you mean \"offset\"?",
		"\"name\": did you mean \"id\"? (known: id, lower, upper, size, "
		"alignment, offset)"}; /* another tool's word: firsthour8 */
	for (size_t i = 0; i < sizeof header / sizeof *header; i++) {
		char *text = test_fmt("%s\na,0,1,16%s\n", header[i],
		                      strstr(header[i], "alignmnt") ||
		                      strstr(header[i], "ofset") ? ",16" : "");
		char *path = test_write_tmp(".csv", text);
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' --capacity 256K -o /dev/null", path);
		cr_assert_eq(st, 2, "%s: exit %d: %s", header[i], st, out);
		char *want = test_fmt(":1: unknown column %s", meant[i]);
		cr_assert(strstr(out, want), "%s: want %s in: %s", header[i], want, out);
		free(want);
		free(out);
		free(path);
		free(text);
	}
}

/* Two runs of a deterministic algorithm give the same plan: a CSV plan
 * byte for byte; a JSON plan differs at most in time_ms. */
Test(firsthour3, reruns_give_the_same_plan)
{
	char *path = test_write_tmp(".csv", model);
	char *dir = test_fresh_dir("firsthour3-rerun");
	char *out = NULL;
	for (int k = 0; k < 2; k++) {
		out = test_usmp_ok("plan '%s' --capacity 300K -a best_fit -q "
		                   "-o '%s/p%d.csv'", path, dir, k);
		free(out);
		out = test_usmp_ok("plan '%s' --capacity 300K -a best_fit -q "
		                   "-o '%s/p%d.json'", path, dir, k);
		free(out);
	}
	char *cmd = test_fmt("cd '%s' && cmp p0.csv p1.csv && "
	                     "grep -q time_ms p0.json && "
	                     "sed 's/\"time_ms\": [0-9.e+-]*//g' p0.json > a && "
	                     "sed 's/\"time_ms\": [0-9.e+-]*//g' p1.json > b && "
	                     "cmp a b", dir);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "plans differ: %s", out);
	free(out);
	free(cmd);
	free(dir);
	free(path);
}

/* A plan that fits the --capacity says how much of it is left. */
Test(firsthour3, the_summary_says_what_the_capacity_leaves)
{
	char *path = test_write_tmp(".csv", model);
	char *out = test_usmp_ok("plan '%s' --capacity 300K -a best_fit -o /dev/null",
	                         path);
	cr_assert(strstr(out, "    pool default            274432 bytes of the "
	                 "capacity 307200 (32768 free)\n"), "%s", out);
	free(out);
	out = test_usmp_ok("plan '%s' -a best_fit -o /dev/null", path);
	cr_assert(strstr(out, "    pool default            274432 bytes\n"),
	          "no capacity, no free bytes: %s", out);
	free(out);
	free(path);
}

/* A range written inclusive (first step = last step) is refused saying
 * that upper is exclusive and what to write; upper < lower stays short. */
Test(firsthour3, an_inclusive_range_says_upper_is_exclusive)
{
	char *path = test_write_tmp(".csv", "id,lower,upper,size\n"
	                                    "a,0,1,16\nb,3,3,16\n");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o /dev/null", path);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, ":3: upper (3) is not after lower (3): the live "
	                 "range [lower, upper) excludes upper, so a buffer alive "
	                 "only at step lower has upper = lower + 1 (an inclusive "
	                 "last step + 1)\n"), "%s", out);
	free(out);
	free(path);
	path = test_write_tmp(".csv", "id,lower,upper,size\nb,5,3,16\n");
	st = test_usmp(&out, "plan '%s' -o /dev/null", path);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, ":2: upper (3) is not after lower (5)\n"), "%s", out);
	free(out);
	free(path);
}

/* `usmp bound --capacity` answers "does it fit at all?" before planning. */
Test(firsthour3, bound_compares_the_bound_with_the_capacity)
{
	char *path = test_write_tmp(".csv", model);
	char *out = test_usmp_ok("bound '%s' --capacity 256K", path);
	cr_assert_str_eq(out, "group 0: lower bound 274432 bytes; pools: default; "
	                 "over the capacity (262144 bytes) by 12288 bytes: no "
	                 "plan fits\n");
	free(out);
	out = test_usmp_ok("bound '%s' --capacity 300K", path);
	cr_assert_str_eq(out, "group 0: lower bound 274432 bytes; pools: default; "
	                 "within the capacity (307200 bytes), 32768 bytes to "
	                 "spare: a plan may fit (usmp plan says)\n");
	free(out);
	out = test_usmp_ok("bound '%s' --capacity 268K", path);
	cr_assert(strstr(out, "within the capacity (274432 bytes), 0 bytes to "
	                 "spare"), "%s", out);
	free(out);
	out = test_usmp_ok("bound '%s'", path);
	cr_assert_str_eq(out, "group 0: lower bound 274432 bytes; pools: default\n");
	free(out);
	free(path);
}

/* A model that stops fitting leaves the last plan and picture as they were
 * (docs/cli.md): the exit status, 3, is what says so. */
Test(firsthour3, a_failed_plan_leaves_the_earlier_files_and_exits_3)
{
	char *path = test_write_tmp(".csv", model);
	char *dir = test_fresh_dir("firsthour3-stale");
	char *out = test_usmp_ok("plan '%s' --capacity 300K -a best_fit -q "
	                         "-o '%s/p.json' --svg '%s/p.svg'", path, dir, dir);
	free(out);
	char *json = test_join(dir, "p.json"), *svg = test_join(dir, "p.svg");
	char *before = test_read_file(json), *pic = test_read_file(svg);
	cr_assert(before && pic);
	int st = test_usmp(&out, "plan '%s' --capacity 256K -a best_fit -q "
	                   "-o '%s/p.json' --svg '%s/p.svg'", path, dir, dir);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	free(out);
	char *after = test_read_file(json), *pic2 = test_read_file(svg);
	cr_assert_str_eq(after, before);
	cr_assert_str_eq(pic2, pic);
	free(after);
	free(pic2);
	free(before);
	free(pic);
	free(json);
	free(svg);
	free(dir);
	free(path);
}

/* Sizes in files are plain byte counts; one written with a unit (as
 * --capacity takes) is refused with the number to write. */
Test(firsthour3, a_size_with_a_unit_in_a_file_says_the_bytes)
{
	static const char *const files[][2] = {
		{".csv", "id,lower,upper,size\na,0,2,64K\n"},
		{".csv", "id,lower,upper,size\na,0,2,64KiB\n"},
		{".json", "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", "
		          "\"size_limit\": \"256k\"}], \"buffers\": []}"},
		{".csv", "id,lower,upper,size\na,0,2,99999999999999G\n"},
		{".csv", "id,lower,upper,size\na,0,2,64X\n"}};
	static const char *const want[] = {
		":2: size: expected a positive integer, got \"64K\": write the "
		"bytes as a number (65536): files take no units\n",
		"got \"64KiB\": write the bytes as a number (65536): files take no "
		"units\n",
		": pools[0].size_limit: expected a positive integer, got \"256k\": "
		"write the bytes as a number (262144): files take no units\n",
		"got \"99999999999999G\": write the bytes as a number: files take "
		"no units\n",
		":2: size: expected a positive integer, got \"64X\"\n"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		char *path = test_write_tmp(files[i][0], files[i][1]);
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' -o /dev/null", path);
		cr_assert_eq(st, 2, "%zu: exit %d: %s", i, st, out);
		cr_assert(strstr(out, want[i]), "%zu: want %s in: %s", i, want[i], out);
		free(out);
		free(path);
	}
}
