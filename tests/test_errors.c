/* test_errors.c — the bad-input catalogue (docs/errors.md): every class of
 * bad input gets exit status 2 and a message naming file, record and field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

/* A valid problem for the plan cases (and for CLI misuse): JSON and CSV. */
static const char problem_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 262144, "
	"\"alignment\": 16}, {\"name\": \"dram\"}], \"buffers\": [{\"name\": "
	"\"conv1.out\", \"size\": 200704, \"alignment\": 16, \"live\": [0, 3], "
	"\"pools\": [\"sram\", \"dram\"]}, {\"name\": \"relu1.out\", \"size\": "
	"200704, \"live\": [2, 5]}, {\"name\": \"weights.scratch\", \"size\": "
	"4096, \"fixed\": {\"pool\": \"dram\", \"offset\": 0}}], \"conflicts\": "
	"[[\"conv1.out\", \"weights.scratch\"]], \"overlaps\": [{\"src\": "
	"\"conv1.out\", \"dst\": \"relu1.out\", \"max_lead\": -64}]}\n";
static const char problem_csv[] =
	"id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

/* Parse `data` through the public API as "model.json"/"model.csv"; it must
 * fail (at parse time, or when first prepared) with `message` in the text. */
static void expect_problem_error(const char *data, size_t len, int format,
                                 uint64_t capacity, const char *message)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	const char *name = format == USMP_FORMAT_CSV ? "model.csv" : "model.json";
	int rc = usmp_problem_parse(p, data, len, name, format, capacity);
	if (rc == USMP_OK) /* cross-record checks run when first prepared */
		rc = usmp_problem_write(p, "/dev/null", USMP_FORMAT_JSON);
	else
		cr_assert_eq(usmp_problem_buffer_count(p), 0,
		             "a failed read must leave the problem empty");
	cr_assert_neq(rc, USMP_OK, "accepted bad input; expected: %s", message);
	cr_assert_neq(rc, USMP_ERR_INTERNAL);
	cr_assert(strstr(usmp_problem_error(p), message),
	          "message \"%s\" lacks \"%s\"", usmp_problem_error(p), message);
	usmp_problem_destroy(p);
}

/* Read plan `data` (as file `name`) for the catalogue's problem through
 * usmp_plan_read; it must fail with `message` in the plan's error. */
static void expect_plan_error(int format, const char *data, size_t len,
                              const char *name, uint64_t capacity,
                              const char *message)
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL;
	cr_assert_not_null(p);
	if (format == USMP_FORMAT_CSV)
		cr_assert_eq(usmp_problem_parse(p, problem_csv, sizeof problem_csv - 1,
		                                "problem.csv", format, capacity),
		             USMP_OK);
	else
		cr_assert_eq(usmp_problem_parse(p, problem_json,
		                                sizeof problem_json - 1,
		                                "problem.json", format, capacity),
		             USMP_OK);
	char *dir = test_fresh_dir("errors");
	test_write_in(dir, name, data, len);
	char *path = test_join(dir, name);
	int rc = usmp_plan_read(p, path, format, &plan);
	cr_assert_not_null(plan);
	cr_assert_neq(rc, USMP_OK, "accepted a bad plan; expected: %s", message);
	cr_assert_eq(usmp_plan_status(plan), rc);
	cr_assert(strstr(usmp_plan_error(plan), message),
	          "message \"%s\" lacks \"%s\"", usmp_plan_error(plan), message);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/* Run `usmp ARGS` in a fresh directory holding ok.json and problem.json (a
 * valid JSON problem), problem.csv (a valid CSV problem) and, when `name` is
 * not NULL, file `name` with `data`. It must exit 2 with `line` in its output. */
static void expect_cli_error(const char *name, const void *data, size_t len,
                             const char *args, const char *line)
{
	char *dir = test_fresh_dir("errors"), *out = NULL;
	test_write_in(dir, "ok.json", problem_json, sizeof problem_json - 1);
	test_write_in(dir, "problem.json", problem_json, sizeof problem_json - 1);
	test_write_in(dir, "problem.csv", problem_csv, sizeof problem_csv - 1);
	if (name)
		test_write_in(dir, name, data, len);
	size_t n = strlen(dir) + strlen(test_cli()) + strlen(args) + 128;
	char *cmd = malloc(n);
	cr_assert_not_null(cmd);
	snprintf(cmd, n, "cd '%s' && USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' %s "
	         "</dev/null", dir, test_cli(), args);
	int st = test_run(cmd, &out);
	cr_assert_not_null(out);
	cr_assert_eq(st, 2, "`usmp %s` exited %d, not 2:\n%s", args, st, out);
	cr_assert(strstr(out, line), "`usmp %s` printed:\n%s\nwithout \"%s\"",
	          args, out, line);
	free(out);
	free(cmd);
	char *rm = malloc(strlen(dir) + 16);
	sprintf(rm, "rm -rf '%s'", dir);
	test_run(rm, NULL);
	free(rm);
	free(dir);
}

/* An input error the library and the command report alike: `data` parsed
 * as "model.json" or "model.csv" (by format, no capacity) fails with
 * `message` (expect_problem_error), and `usmp bound` on that file exits 2
 * printing "usmp: " and the same message (expect_cli_error). */
static void expect_input_error(const char *data, size_t len, int format,
                               const char *message)
{
	const char *name = format == USMP_FORMAT_CSV ? "model.csv" : "model.json";
	expect_problem_error(data, len, format, USMP_UNBOUNDED, message);
	char *args = test_fmt("bound %s", name);
	char *line = test_fmt("usmp: %s", message);
	expect_cli_error(name, data, len, args, line);
	free(args);
	free(line);
}

/* expect_input_error on a string literal: its bytes without the closing
 * NUL (a NUL inside it stays part of the input). */
#define EXPECT_INPUT_ERROR(format, literal, message) \
	expect_input_error(literal, sizeof literal - 1, format, message)

/* A plan error the library and the command report alike: `data` read as
 * "plan.json" or "plan.csv" (by format; the CSV problem with capacity 12)
 * fails with `message` (expect_plan_error), and `usmp verify` of the
 * catalogue's problem and that plan exits 2 printing "usmp: " and the same
 * message (expect_cli_error). */
static void expect_bad_plan(int format, const char *data, size_t len,
                            const char *message)
{
	int csv = format == USMP_FORMAT_CSV;
	const char *name = csv ? "plan.csv" : "plan.json";
	expect_plan_error(format, data, len, name,
	                  csv ? UINT64_C(12) : USMP_UNBOUNDED, message);
	char *line = test_fmt("usmp: %s", message);
	expect_cli_error(name, data, len,
	                 csv ? "verify problem.csv plan.csv --capacity 12"
	                     : "verify problem.json plan.json",
	                 line);
	free(line);
}

/* expect_bad_plan on a string literal, as EXPECT_INPUT_ERROR. */
#define EXPECT_BAD_PLAN(format, literal, message) \
	expect_bad_plan(format, literal, sizeof literal - 1, message)

/* ---- inputs too big or too deep to write out ----------------------------- */

/* Huge files and deep nesting */
Test(errors, json_nested_a_million_levels_is_refused_at_depth_32)
{
	size_t depth = 1000000;
	char *text = malloc(2 * depth);
	cr_assert_not_null(text);
	memset(text, '[', depth);
	memset(text + depth, ']', depth);
	expect_input_error(text, 2 * depth, USMP_FORMAT_JSON,
	                   "model.json:1:33: nested deeper than 32 levels");
	free(text);
}

/* A JSON problem of `n` buffers whose last one has size 0 (heap text). */
static char *huge_json(size_t n, size_t *len)
{
	size_t cap = 64 + n * 80;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	size_t at = (size_t)snprintf(text, cap, "{\"usmp\": 1, \"buffers\": [\n");
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(text + at, cap - at,
		                      "%s{\"name\": \"t%zu\", \"size\": %zu, "
		                      "\"live\": [%zu, %zu]}\n",
		                      i ? "," : "", i, i + 1 == n ? (size_t)0 : 64 + i % 7,
		                      i, i + 3);
	at += (size_t)snprintf(text + at, cap - at, "]}\n");
	*len = at;
	return text;
}

/* Huge files and deep nesting */
Test(errors, json_huge_file_names_the_bad_record_at_its_end)
{
	size_t len, n = 300000; /* about 18 MB */
	char *text = huge_json(n, &len);
	cr_assert_gt(len, 16u << 20);
	expect_input_error(text, len, USMP_FORMAT_JSON,
	                   "model.json: buffers[299999].size: expected a "
	                   "positive integer, got 0");
	free(text);
}

/* Huge files and deep nesting */
Test(errors, csv_huge_file_names_the_bad_line_at_its_end)
{
	size_t n = 1000000, cap = 32 + n * 40, at;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	at = (size_t)sprintf(text, "id,lower,upper,size\n");
	for (size_t i = 0; i + 1 < n; i++)
		at += (size_t)sprintf(text + at, "b%zu,%zu,%zu,%zu\n", i, i, i + 5,
		                      1 + i % 100);
	at += (size_t)sprintf(text + at, "last,9,3,4\n");
	expect_input_error(text, at, USMP_FORMAT_CSV,
	                   "model.csv:1000001: upper (3) is not after lower (9)");
	free(text);
}

/* ---- sums beyond 64 bits: the bound and the plans must not wrap ---------- */

static usmp_registry *registry(void)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_geq(usmp_registry_algorithm_count(r), 7,
	              "plugins missing from %s/plugins", test_build_root());
	return r;
}

/* Sizes whose sum overflows 64 bits */
Test(errors, two_buffers_of_2_63_bytes_alive_together_never_wrap)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", UINT64_C(1) << 63, 1, &a), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", UINT64_C(1) << 63, 1, &b), 0);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1);
	/* 2^64 does not fit: the bound saturates, it must not wrap to 0. */
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), UINT64_MAX);
	usmp_registry *r = registry();
	for (uint32_t i = 0; i < usmp_registry_algorithm_count(r); i++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		cr_assert_eq(usmp_registry_algorithm(r, i, &ai), USMP_OK);
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = USMP_PLAN_NO_ISOLATE,
		                       .algorithm = ai.name, .time_limit = 5};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &o, &plan);
		cr_assert_not_null(plan);
		cr_assert(rc == USMP_ERR_INFEASIBLE || rc == USMP_ERR_UNSUPPORTED,
		          "%s: status %d (%s) for buffers that cannot both fit in "
		          "2^64 bytes", ai.name, rc, usmp_plan_error(plan));
		cr_assert(*usmp_plan_error(plan), "%s: no message", ai.name);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* Sizes whose sum overflows 64 bits */
Test(errors, three_buffers_near_2_63_bytes_saturate_the_bound)
{
	static const char input[] =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]},"
		"{\"name\": \"c\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, input, sizeof input - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), UINT64_MAX);
	usmp_problem_destroy(p);
	/* No plan fits in 64 bits: exit 3, never a wrapped plan. */
	char *dir = test_fresh_dir("errors"), *out = NULL, cmd[8192];
	test_write_in(dir, "model.json", input, sizeof input - 1);
	snprintf(cmd, sizeof cmd, "cd '%s' && USMP_PLUGIN_PATH= USMP_ALGORITHM= "
	         "'%s' plan model.json -a first_fit -o plan.json", dir, test_cli());
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: model.json: first_fit: no plan fits the pools: "
	                      "buffer \"c\" (9223372036854775807 bytes) "
	                      "fits in none of its 1 candidate pool(s)"), "%s", out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	test_run(cmd, NULL);
	free(out);
	free(dir);
}

/* Sizes whose sum overflows 64 bits */
Test(errors, plan_beyond_int64_is_refused_by_the_json_writer)
{
	static const char input[] =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, input, sizeof input - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), UINT64_C(18446744073709551614));
	usmp_registry *r = registry();
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), UINT64_C(18446744073709551614));
	char *path = test_tmpfile(".json");
	int rc = usmp_plan_write(plan, p, path, USMP_FORMAT_JSON);
	cr_assert_eq(rc, USMP_ERR_INVALID, "%d: %s", rc, usmp_plan_error(plan));
	cr_assert(strstr(usmp_plan_error(plan), "pool size: 18446744073709551614 "
	                                        "is too large for the JSON format"),
	          "%s", usmp_plan_error(plan));
	cr_assert_neq(access(path, F_OK), 0, "a half-written plan was left behind");
	free(path);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- the builder API refuses what the readers refuse --------------------- */

/* Negative or zero sizes */
Test(errors, api_refuses_zero_size_bad_alignment_and_empty_range)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t b;
	cr_assert_eq(usmp_problem_add_buffer(p, "z", 0, 1, &b), USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "\"z\""), "%s",
	          usmp_problem_error(p));
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 4, 3, &b), USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "\"a\""), "%s",
	          usmp_problem_error(p));
	cr_assert_eq(usmp_problem_add_buffer(p, "", 4, 1, &b), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_add_buffer(p, NULL, 4, 1, &b), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_add_buffer(p, "ok", 4, 1, &b), USMP_OK);
	cr_assert_neq(usmp_problem_add_buffer(p, "ok", 4, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 5, 5), USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "\"ok\""), "%s",
	          usmp_problem_error(p));
	cr_assert_neq(usmp_problem_set_live(p, 99, 0, 1), USMP_OK);
	cr_assert_neq(usmp_problem_add_conflict(p, b, b), USMP_OK);
	cr_assert_neq(usmp_problem_add_overlap(p, b, 7, 0), USMP_OK);
	cr_assert_neq(usmp_problem_add_pool(p, "p", 0, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_buffer_count(p), 1);
	usmp_problem_destroy(p);
}

/* Empty files */
Test(errors, csv_header_only_is_an_empty_problem)
{
	static const char input[] = "id,lower,upper,size\n";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, input, sizeof input - 1, "model.csv",
	                                USMP_FORMAT_CSV, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 0);
	usmp_problem_destroy(p);
}

/* ---- the catalogue: one test per entry of docs/errors.md ----------------- */

/* JSON syntax errors */
Test(errors, json_trailing_comma_names_line_and_column)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4,}]}",
	                   "model.json:1:49: string or '}' expected near '}'");
}

/* JSON syntax errors */
Test(errors, json_truncated_file_names_end_of_file)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4",
	                   "model.json:1:47: '}' expected near end of file");
}

/* JSON syntax errors */
Test(errors, json_top_level_array_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "[1, 2, 3]",
	                   "model.json: expected a JSON object at the top level, got an array of 3 elements");
}

/* JSON syntax errors */
Test(errors, json_unsupported_version_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 2, \"buffers\": []}",
	                   "model.json: usmp: unsupported format version 2 (this reader knows 1)");
}

/* JSON syntax errors */
Test(errors, json_unknown_top_level_key_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"bufers\": []}",
	                   "model.json: unknown key \"bufers\" (known: usmp, pools, buffers,"
	                   " conflicts, overlaps): did you mean \"buffers\"?");
}

/* JSON syntax errors */
Test(errors, json_unknown_buffer_key_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"colour\": \"red\"}]}",
	                   "model.json: buffers[0]: unknown key \"colour\" (known: name, size,"
	                   " alignment, live, pools, fixed)");
}

/* Wrong types */
Test(errors, json_size_as_string_names_field)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": \"12k\"}]}",
	                   "model.json: buffers[0].size: expected a positive integer, got \"12k\": "
	                   "write the bytes as a number (12288): files take no units");
}

/* Wrong types */
Test(errors, json_buffers_as_object_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": {\"name\": \"a\"}}",
	                   "model.json: buffers: expected an array, got an object");
}

/* Wrong types */
Test(errors, json_name_as_number_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": 5, \"size\": 4}]}",
	                   "model.json: buffers[0].name: expected a non-empty string, got 5");
}

/* Wrong types */
Test(errors, json_fractional_size_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4.5}]}",
	                   "model.json: buffers[0].size: expected a positive integer, got 4.5");
}

/* Wrong types */
Test(errors, json_live_with_one_element_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": [1]}]}",
	                   "model.json: buffers[0].live: expected [begin, end], got an array of 1 element");
}

/* Wrong types */
Test(errors, json_conflict_triple_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\","
	                   " \"size\": 4}], \"conflicts\": [[\"a\", \"b\", \"a\"]]}",
	                   "model.json: conflicts[0]: expected a pair of buffer names, got an array of 3 elements");
}

/* Wrong types */
Test(errors, json_missing_name_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"size\": 4}]}",
	                   "model.json: buffers[0].name: missing (every buffer needs a name)");
}

/* Wrong types */
Test(errors, json_empty_name_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"\", \"size\": 4}]}",
	                   "model.json: buffers[0].name: expected a non-empty string, got \"\"");
}

/* Negative or zero sizes */
Test(errors, json_negative_size_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": -4}]}",
	                   "model.json: buffers[0].size: expected a positive integer, got -4");
}

/* Negative or zero sizes */
Test(errors, json_zero_size_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 0}]}",
	                   "model.json: buffers[0].size: expected a positive integer, got 0");
}

/* Negative or zero sizes */
Test(errors, csv_zero_size_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,0\n",
	                   "model.csv:2: size: expected a positive integer, got \"0\"");
}

/* Negative or zero sizes */
Test(errors, csv_negative_size_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,-4\n",
	                   "model.csv:2: size: expected a positive integer, got \"-4\"");
}

/* Negative or zero sizes */
Test(errors, csv_size_with_suffix_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,12k\n",
	                   "model.csv:2: size: expected a positive integer, got \"12k\": "
	                   "write the bytes as a number (12288): files take no units");
}

/* Alignments that are not powers of two */
Test(errors, json_buffer_alignment_not_power_of_two)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"alignment\": 3}]}",
	                   "model.json: buffers[0].alignment: expected a power of two, got 3");
}

/* Alignments that are not powers of two */
Test(errors, json_pool_alignment_not_power_of_two)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"alignment\": 12}],"
	                   " \"buffers\": [{\"name\": \"a\", \"size\": 4}]}",
	                   "model.json: pools[0].alignment: expected a power of two, got 12");
}

/* Alignments that are not powers of two */
Test(errors, csv_alignment_not_power_of_two)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size,alignment\nb1,0,3,4,3\n",
	                   "model.csv:2: alignment: expected a power of two, got \"3\"");
}

/* upper <= lower */
Test(errors, json_empty_live_range_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": [5,"
	                   " 5]}]}",
	                   "model.json: buffers[0].live: end (5) is not after begin (5)");
}

/* upper <= lower */
Test(errors, json_reversed_live_range_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": [7,"
	                   " 3]}]}",
	                   "model.json: buffers[0].live: end (3) is not after begin (7)");
}

/* upper <= lower */
Test(errors, csv_upper_before_lower_names_line)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,20,10,4\n",
	                   "model.csv:2: upper (10) is not after lower (20)");
}

/* Unknown pools */
Test(errors, json_unknown_candidate_pool_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": [{\"name\": \"a\","
	                   " \"size\": 4, \"pools\": [\"dram\"]}]}",
	                   "model.json: buffers[0].pools[0]: unknown pool \"dram\"");
}

/* Unknown pools */
Test(errors, json_unknown_fixed_pool_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": [{\"name\": \"a\","
	                   " \"size\": 4, \"fixed\": {\"pool\": \"dram\", \"offset\": 0}}]}",
	                   "model.json: buffers[0].fixed.pool: unknown pool \"dram\"");
}

/* Unknown pools */
Test(errors, json_fixed_pool_not_a_candidate_is_refused)
{
	static const char input[] = "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}, {\"name\": \"dram\"}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 16, \"pools\": [\"sram\"],"
		" \"fixed\": {\"pool\": \"dram\", \"offset\": 0}}]}";
	expect_problem_error(input, sizeof input - 1, USMP_FORMAT_JSON, USMP_UNBOUNDED,
	                     "buffer \"a\": fixed pool \"dram\" is not among its candidate pools");
	expect_cli_error("model.json", input, sizeof input - 1, "bound model.json",
	                 "usmp: model.json: buffers[0].fixed: buffer \"a\": fixed pool \"dram\" is not among its candidate pools");
}

/* Fixed offsets out of range or misaligned */
Test(errors, json_fixed_offset_beyond_limit_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 64}],"
	                   " \"buffers\": [{\"name\": \"a\", \"size\": 16, \"fixed\": {\"pool\": \"sram\","
	                   " \"offset\": 56}}]}",
	                   "model.json: buffers[0].fixed: buffer \"a\": fixed placement [56,"
	                   " 72) exceeds the size limit 64 of pool \"sram\"");
}

/* Fixed offsets out of range or misaligned */
Test(errors, json_fixed_offset_misaligned_for_buffer)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": [{\"name\": \"a\","
	                   " \"size\": 16, \"alignment\": 8, \"fixed\": {\"pool\": \"sram\","
	                   " \"offset\": 4}}]}",
	                   "model.json: buffers[0].fixed: buffer \"a\": fixed offset 4 in pool \"sram\" is not a multiple of its alignment 8: fix it at 0 or 8");
}

/* Fixed offsets out of range or misaligned */
Test(errors, json_fixed_offset_misaligned_for_pool)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"alignment\": 16}],"
	                   " \"buffers\": [{\"name\": \"a\", \"size\": 16, \"fixed\": {\"pool\": \"sram\","
	                   " \"offset\": 8}}]}",
	                   "model.json: buffers[0].fixed: buffer \"a\": fixed offset 8 in pool \"sram\" is not a multiple of the pool's alignment 16: fix it at 0 or 16");
}

/* Fixed offsets out of range or misaligned */
Test(errors, csv_fixed_offset_beyond_capacity_is_refused)
{
	static const char input[] = "id,lower,upper,size,offset\nb1,0,3,16,60\n";
	expect_problem_error(input, sizeof input - 1, USMP_FORMAT_CSV, UINT64_C(64),
	                     "model.csv:2: offset: buffer \"b1\": fixed placement [60, 76) exceeds the size limit 64 of pool \"default\"");
	expect_cli_error("model.csv", input, sizeof input - 1, "bound model.csv --capacity 64",
	                 "usmp: model.csv:2: offset: buffer \"b1\": fixed placement [60,"
		" 76) exceeds the size limit 64 of pool \"default\"");
}

/* Fixed offsets out of range or misaligned */
Test(errors, csv_fixed_offset_misaligned_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size,alignment,offset\nb1,0,3,16,8,4\n",
	                   "model.csv:2: offset: buffer \"b1\": fixed offset 4 in pool \"default\" is not a multiple of its alignment 8: fix it at 0 or 8");
}

/* Duplicate names */
Test(errors, json_duplicate_buffer_name_names_both)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"a\","
	                   " \"size\": 8}]}",
	                   "model.json: buffers[1].name: duplicate buffer name \"a\" (buffers[0] has it)");
}

/* Duplicate names */
Test(errors, json_duplicate_pool_name_names_both)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"p\"}, {\"name\": \"p\"}],"
	                   " \"buffers\": [{\"name\": \"a\", \"size\": 4}]}",
	                   "model.json: pools[1].name: duplicate pool name \"p\" (pools[0] has it)");
}

/* Duplicate names */
Test(errors, csv_duplicate_id_names_both_lines)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,4\nb1,1,2,4\n",
	                   "model.csv:3: duplicate id \"b1\" (line 2 has it)");
}

/* Duplicate names */
Test(errors, csv_duplicate_column_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,id,lower,upper,size\nb1,b1,0,3,4\n",
	                   "model.csv:1: column \"id\" appears twice");
}

/* Duplicate names */
Test(errors, json_duplicate_overlap_rule_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\","
	                   " \"size\": 4}], \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\","
	                   " \"max_lead\": 0}, {\"src\": \"a\", \"dst\": \"b\", \"max_lead\": 4}]}",
	                   "model.json: overlaps[1]: overlap rule from buffer \"a\" to buffer \"b\" given twice");
}

/* Conflict or overlap rules naming unknown buffers */
Test(errors, json_conflict_with_unknown_buffer_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}], \"conflicts\": [[\"a\","
	                   " \"zz\"]]}",
	                   "model.json: conflicts[0][1]: unknown buffer \"zz\"");
}

/* Conflict or overlap rules naming unknown buffers */
Test(errors, json_conflict_with_itself_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}], \"conflicts\": [[\"a\","
	                   " \"a\"]]}",
	                   "model.json: conflicts[0]: buffer \"a\" cannot conflict with itself");
}

/* Conflict or overlap rules naming unknown buffers */
Test(errors, json_overlap_with_unknown_buffer_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}], \"overlaps\": [{\"src\": \"a\","
	                   " \"dst\": \"zz\", \"max_lead\": 0}]}",
	                   "model.json: overlaps[0].dst: unknown buffer \"zz\"");
}

/* Numbers beyond 64 bits */
Test(errors, json_size_above_uint64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 18446744073709551616}]}",
	                   "model.json:1:66: too big integer near '18446744073709551616'");
}

/* Numbers beyond 64 bits */
Test(errors, json_size_above_int64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 9223372036854775808}]}",
	                   "model.json:1:65: too big integer near '9223372036854775808'");
}

/* Numbers beyond 64 bits */
Test(errors, json_size_in_exponent_form_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 1e30}]}",
	                   "model.json: buffers[0].size: expected a positive integer, got 1e30");
}

/* Numbers beyond 64 bits */
Test(errors, json_live_end_above_int64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": [0,"
	                   " 9223372036854775808]}]}",
	                   "model.json:1:80: too big integer near '9223372036854775808'");
}

/* Numbers beyond 64 bits */
Test(errors, json_max_lead_below_int64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\","
	                   " \"size\": 4}], \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\","
	                   " \"max_lead\": -9223372036854775809}]}",
	                   "model.json:1:147: too big negative integer near '-9223372036854775809'");
}

/* Numbers beyond 64 bits */
Test(errors, csv_size_above_uint64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,18446744073709551616\n",
	                   "model.csv:2: size: expected an integer from 1 to 9223372036854775807, got \"18446744073709551616\"");
}

/* Numbers beyond 64 bits */
Test(errors, csv_size_above_int64_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,9223372036854775808\n",
	                   "model.csv:2: size: expected an integer from 1 to 9223372036854775807, got \"9223372036854775808\"");
}

/* NUL bytes */
Test(errors, json_nul_byte_after_document_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}]}\000garbage",
	                   "model.json:1:51: end of file expected near end of file");
}

/* NUL bytes */
Test(errors, json_nul_byte_inside_string_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\000b\", \"size\": 4}]}",
	                   "model.json:1:35: control character 0x0 near '\"a'");
}

/* NUL bytes */
Test(errors, json_escaped_nul_in_name_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\\u0000b\", \"size\": 4}]}",
	                   "model.json:1:43: \\u0000 (a NUL character) in a string near '\"a\\u0000b\"': a name ends at its first NUL, so no string may hold one");
}

/* NUL bytes */
Test(errors, csv_nul_byte_names_line)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,4\000\n",
	                   "model.csv:2: NUL byte in the file (is it binary?)");
}

/* Empty files */
Test(errors, json_empty_file_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "",
	                   "model.json: empty file: expected a JSON object");
}

/* Empty files */
Test(errors, json_whitespace_only_file_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "   \n  ",
	                   "model.json: empty file (only white space): expected a JSON object");
}

/* Empty files */
Test(errors, csv_empty_file_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "",
	                   "model.csv: empty file: expected a header row with id,lower,upper,"
	                   "size");
}

/* Unknown CSV columns */
Test(errors, csv_unknown_column_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size,color\nb1,0,3,4,red\n",
	                   "model.csv:1: unknown column \"color\" (known: id, lower, upper,"
	                   " size, alignment, offset)");
}

/* Missing CSV columns */
Test(errors, csv_missing_column_is_named)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,size\nb1,0,4\n",
	                   "model.csv:1: missing column \"upper\"");
}

/* Missing CSV columns */
Test(errors, csv_short_row_names_line)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3\n",
	                   "model.csv:2: expected 4 fields (id,lower,upper,size), got 3");
}

/* Missing CSV columns */
Test(errors, csv_long_row_names_line)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0,3,4,5\n",
	                   "model.csv:2: expected 4 fields (id,lower,upper,size), got more than 4");
}

/* JSON syntax errors */
Test(errors, json_duplicate_key_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"name\": \"b\","
	                   " \"size\": 4}]}",
	                   "model.json:1:44: duplicate object key near '\"name\"'");
}

/* JSON syntax errors */
Test(errors, json_invalid_utf8_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\377\376\", \"size\": 4}]}",
	                   "model.json:1:35: unable to decode byte 0xff near '\"a'");
}

/* Alignments that are not powers of two */
Test(errors, json_zero_alignment_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"alignment\": 0}]}",
	                   "model.json: buffers[0].alignment: expected a power of two, got 0");
}

/* Negative or zero sizes */
Test(errors, json_zero_pool_limit_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"size_limit\": 0}],"
	                   " \"buffers\": [{\"name\": \"a\", \"size\": 4}]}",
	                   "model.json: pools[0].size_limit: expected a positive integer,"
	                   " got 0");
}

/* Duplicate names */
Test(errors, json_candidate_pool_twice_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_JSON,
	                   "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"pools\": [\"default\","
	                   " \"default\"]}]}",
	                   "model.json: buffers[0].pools[1]: buffer \"a\": pool \"default\" is already a candidate");
}

/* Wrong types */
Test(errors, csv_quoted_field_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\n\"b,1\",0,3,4\n",
	                   "model.csv:2: quoted fields are not supported (MiniMalloc's CSV has none)");
}

/* Wrong types */
Test(errors, csv_hex_number_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\nb1,0x10,3,4\n",
	                   "model.csv:2: lower: expected an integer, got \"0x10\"");
}

/* Wrong types */
Test(errors, csv_empty_id_is_refused)
{
	EXPECT_INPUT_ERROR(USMP_FORMAT_CSV,
	                   "id,lower,upper,size\n,0,3,4\n",
	                   "model.csv:2: id: empty");
}

/* Bad plan files */
Test(errors, plan_json_unknown_buffer_is_named)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_JSON,
	                "{\"usmp\": 1, \"buffers\": [{\"name\": \"in\", \"pool\": \"sram\","
	                " \"offset\": 0}]}",
	                "plan.json: buffers[0].name: unknown buffer \"in\"");
}

/* Bad plan files */
Test(errors, plan_json_unknown_pool_is_named)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_JSON,
	                "{\"usmp\": 1, \"buffers\": [{\"name\": \"conv1.out\", \"pool\": \"nopool\","
	                " \"offset\": 0}]}",
	                "plan.json: buffers[0].pool: unknown pool \"nopool\"");
}

/* Bad plan files */
Test(errors, plan_json_negative_offset_is_refused)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_JSON,
	                "{\"usmp\": 1, \"buffers\": [{\"name\": \"conv1.out\", \"pool\": \"sram\","
	                " \"offset\": -1}]}",
	                "plan.json: buffers[0].offset: expected a non-negative integer,"
	                " got -1");
}

/* Bad plan files */
Test(errors, plan_json_buffer_placed_twice_is_refused)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_JSON,
	                "{\"usmp\": 1, \"buffers\": [{\"name\": \"conv1.out\", \"pool\": \"sram\","
	                " \"offset\": 0}, {\"name\": \"conv1.out\", \"pool\": \"sram\","
	                " \"offset\": 0}]}",
	                "plan.json: buffers[1].name: buffer \"conv1.out\" is placed twice (also buffers[0])");
}

/* Bad plan files */
Test(errors, plan_json_missing_buffer_is_named)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_JSON,
	                "{\"usmp\": 1, \"buffers\": [{\"name\": \"conv1.out\", \"pool\": \"sram\","
	                " \"offset\": 64}, {\"name\": \"relu1.out\", \"pool\": \"sram\","
	                " \"offset\": 0}]}",
	                "plan.json: buffers: buffer \"weights.scratch\" has no placement (every buffer of the problem must appear once)");
}

/* Bad plan files */
Test(errors, plan_csv_unknown_id_names_line)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_CSV,
	                "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,"
	                "4\nb4,9,21,4,4\nb5,0,21,4,8\nb6,0,21,4,8\n",
	                "plan.csv:7: unknown buffer id \"b6\"");
}

/* Bad plan files */
Test(errors, plan_csv_size_differs_names_line)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_CSV,
	                "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,"
	                "4\nb4,9,21,4,4\nb5,0,21,5,8\n",
	                "plan.csv:6: size (5) differs from the problem's (4) for buffer \"b5\"");
}

/* Bad plan files */
Test(errors, plan_csv_missing_row_is_named)
{
	EXPECT_BAD_PLAN(USMP_FORMAT_CSV,
	                "id,offset\nb1,0\n",
	                "plan.csv: buffer \"b2\" has no row (every buffer of the problem must appear once)");
}

/* CLI misuse */
Test(errors, cli_without_command_prints_usage)
{
	expect_cli_error(NULL, NULL, 0, "", "usage: usmp COMMAND [ARGS]");
}

/* CLI misuse */
Test(errors, cli_unknown_command_is_named)
{
	expect_cli_error(NULL, NULL, 0, "frobnicate", "usmp: unknown command \"frobnicate\" (try `usmp --help`)");
}

/* CLI misuse */
Test(errors, cli_plan_without_problem_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan", "usmp: plan: expected one PROBLEM file (try `usmp plan --help`)");
}

/* CLI misuse */
Test(errors, cli_plan_with_two_problems_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json extra.json", "usmp: plan: expected one PROBLEM file (try `usmp plan --help`)");
}

/* CLI misuse */
Test(errors, cli_missing_problem_file_is_named)
{
	expect_cli_error(NULL, NULL, 0, "plan nonexist.json", "usmp: nonexist.json: cannot open: No such file or directory");
}

/* CLI misuse */
Test(errors, cli_directory_as_problem_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan '.'", "usmp: .: cannot read: Is a directory");
}

/* CLI misuse */
Test(errors, cli_unknown_algorithm_lists_known_ones)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -a nosuch", "usmp: ok.json: algorithm spec \"nosuch\": no algorithm \"nosuch\" (algorithms: auto,"
		" exact, exact_window, first_fit, best_fit, first_fit_sweep, greedy_by_size,"
		" greedy_by_conflicts, hill_climb)");
}

/* CLI misuse */
Test(errors, cli_unknown_knob_lists_knobs)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -a first_fit -p nokey=1", "usmp: ok.json: option \"nokey=1\" (algorithm chosen by rule \"first_fit\"): algorithm \"first_fit\" has no knob \"nokey\" (knobs: order)");
}

/* CLI misuse */
Test(errors, cli_knob_without_value_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -a first_fit -p order", "usmp: -p order: expected KEY=VALUE");
}

/* CLI misuse */
Test(errors, cli_knob_out_of_range_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -a hill_climb -p attempts=-1", "usmp: ok.json: option \"attempts=-1\" (algorithm chosen by rule \"hill_climb\"): knob \"attempts\" of \"hill_climb\" expects u32,"
		" got \"-1\" (out of range (0 to 4294967295))");
}

/* CLI misuse */
Test(errors, cli_knob_of_wrong_type_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -a hill_climb -p seed=1.5", "usmp: ok.json: option \"seed=1.5\" (algorithm chosen by rule \"hill_climb\"): knob \"seed\" of \"hill_climb\" expects u64,"
		" got \"1.5\" (not an integer (junk after the digits))");
}

/* CLI misuse */
Test(errors, cli_bad_time_limit_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json --time-limit abc", "usmp: --time-limit abc: expected seconds, more than 0 and at most 1e9");
}

/* CLI misuse */
Test(errors, cli_infinite_time_limit_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json --time-limit 1e400", "usmp: --time-limit 1e400: expected seconds, more than 0 and at most 1e9");
}

/* CLI misuse */
Test(errors, cli_bad_capacity_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json --capacity 12x", "usmp: --capacity 12x: expected a positive byte count (e.g. 1048576 or 1M)");
}

/* CLI misuse */
Test(errors, cli_bad_format_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json --format xml", "usmp: --format xml: expected json or csv");
}

/* CLI misuse */
Test(errors, cli_unknown_option_is_refused)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json --bogus", "usmp: plan: unrecognized option '--bogus' (try `usmp plan --help`)");
}

/* CLI misuse */
Test(errors, cli_unwritable_output_is_named)
{
	expect_cli_error(NULL, NULL, 0, "plan ok.json -o /nonexistent/dir/x.json", "usmp: /nonexistent/dir/x.json: cannot open for writing: No such file or directory");
}

/* CLI misuse */
Test(errors, cli_verify_without_plan_prints_usage)
{
	expect_cli_error(NULL, NULL, 0, "verify ok.json", "usmp: usage: usmp verify PROBLEM PLAN [--capacity BYTES]");
}

/* CLI misuse */
Test(errors, cli_verify_missing_plan_is_named)
{
	expect_cli_error(NULL, NULL, 0, "verify ok.json nonexist.json", "usmp: nonexist.json: cannot open: No such file or directory");
}

/* CLI misuse */
Test(errors, cli_bound_without_problem_prints_usage)
{
	expect_cli_error(NULL, NULL, 0, "bound", "usmp: usage: usmp bound PROBLEM [--capacity BYTES]");
}

/* CLI misuse */
Test(errors, cli_select_without_target_prints_usage)
{
	expect_cli_error(NULL, NULL, 0, "select", "usmp: usage: usmp select TARGET [-a ALGO]");
}

/* Conflict or overlap rules naming unknown buffers */
Test(errors, json_overlap_rule_off_schedule_is_refused)
{
	static const char input[] = "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": [4,"
		" 6]}, {\"name\": \"b\", \"size\": 4, \"live\": [2, 5]}], \"overlaps\": [{\"src\": \"a\","
		" \"dst\": \"b\", \"max_lead\": 0}]}";
	expect_problem_error(input, sizeof input - 1, USMP_FORMAT_JSON, USMP_UNBOUNDED,
	                     "overlaps[0]: rule \"a\" -> \"b\": \"b\" must be produced by the last reader of \"a\" (it begins at step 2; \"a\" is last read at step 5)");
	expect_cli_error("model.json", input, sizeof input - 1, "bound model.json",
	                 "usmp: model.json: overlaps[0]: rule \"a\" -> \"b\": \"b\" must be produced by the last reader of \"a\" (it begins at step 2; \"a\" is last read at step 5)");
}
