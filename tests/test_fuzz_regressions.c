/* test_fuzz_regressions.c — what fuzzing and the hostile-input checks found
 * (docs/errors.md, "Fuzzing"): each case gives a clear error or a valid plan. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

static usmp_registry *registry(void)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_geq(usmp_registry_algorithm_count(r), 7,
	              "plugins missing from %s/plugins", test_build_root());
	return r;
}

/* Plan p with `algo` in process; it must succeed with a plan the verifier
 * accepts. The caller destroys the plan. */
static usmp_plan *plan_ok(usmp_registry *r, usmp_problem *p, const char *algo)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = algo,
	                       .time_limit = 5.0};
	usmp_plan *plan = NULL;
	int rc = usmp_plan_compute(r, p, &o, &plan);
	cr_assert_not_null(plan);
	cr_assert_eq(rc, USMP_OK, "%s: %s", algo, usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s: %s", algo,
	             usmp_plan_error(plan));
	return plan;
}

/* Parse `text` as `name`; it must fail with exactly `message`. */
static void expect_refused(const char *text, const char *name, int format,
                           const char *message)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int rc = usmp_problem_parse(p, text, strlen(text), name, format,
	                            USMP_UNBOUNDED);
	cr_assert_eq(rc, USMP_ERR_INVALID, "%s: status %d", text, rc);
	cr_assert_str_eq(usmp_problem_error(p), message);
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	usmp_problem_destroy(p);
}

/* fuzz_solve's first finding (corpus/solve/regress-fit-null-ranges.json): a
 * buffer without a live range beside one with a range made the fit plugin
 * do arithmetic on its still-NULL range array (UBSan: "applying zero offset
 * to null pointer"). Without a live range and an edge the two never
 * conflict: every algorithm plans them in 8 bytes; with an edge, apart. */
Test(fuzz_regressions, fit_places_an_always_live_buffer_beside_a_ranged_one)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}, "
		"{\"name\": \"b\", \"size\": 8, \"live\": [0, 1]}]}",
		"regress-fit-null-ranges.json");
	usmp_registry *r = registry();
	static const char *const algos[] = {"first_fit", "best_fit", "auto",
	                                    "greedy_by_size", "exact"};
	for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
		usmp_plan *plan = plan_ok(r, p, algos[i]);
		cr_assert_eq(usmp_plan_pool_size(plan, 0), 8, "%s", algos[i]);
		usmp_plan_destroy(plan);
	}
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), USMP_OK);
	for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
		usmp_plan *plan = plan_ok(r, p, algos[i]);
		uint32_t qa, qb;
		uint64_t oa, ob;
		cr_assert_eq(usmp_plan_placement(plan, 0, &qa, &oa), USMP_OK);
		cr_assert_eq(usmp_plan_placement(plan, 1, &qb, &ob), USMP_OK);
		cr_assert(oa >= ob + 8 || ob >= oa + 4,
		          "%s: a at %llu and b at %llu overlap", algos[i],
		          (unsigned long long)oa, (unsigned long long)ob);
		cr_assert_eq(usmp_plan_pool_size(plan, 0), 12, "%s", algos[i]);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A million pools: the part's pool list used to be joined with strcat from
 * its start (quadratic: minutes). The one buffer goes to the first pool. */
Test(fuzz_regressions, a_million_pools_plan_the_one_buffer, .timeout = 300)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	char name[32];
	for (uint32_t q = 0; q < 1000000; q++) {
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED, 1, NULL),
		             USMP_OK, "%s", usmp_problem_error(p));
	}
	uint32_t b;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 64, 16, &b), USMP_OK);
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "first_fit");
	uint32_t q;
	uint64_t off;
	cr_assert_eq(usmp_plan_placement(plan, b, &q, &off), USMP_OK);
	cr_assert_eq(q, 0);
	cr_assert_eq(off, 0);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 64);
	cr_assert_eq(usmp_plan_pool_size(plan, 999999), 0);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- hostile inputs checked by hand -------------------------------------- */

/* "1e3" as a size: a JSON real and a JSON string are refused by name, the
 * CSV text too; never read as 1000. */
Test(fuzz_regressions, exponent_sizes_are_refused_naming_the_field)
{
	expect_refused("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 1e3}]}",
	               "model.json", USMP_FORMAT_JSON,
	               "model.json: buffers[0].size: expected a positive integer, "
	               "got 1000.0");
	expect_refused("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": "
	               "\"1e3\"}]}",
	               "model.json", USMP_FORMAT_JSON,
	               "model.json: buffers[0].size: expected a positive integer, "
	               "got \"1e3\"");
	expect_refused("id,lower,upper,size\nx,0,3,1e3\n", "model.csv",
	               USMP_FORMAT_CSV,
	               "model.csv:2: size: expected a positive integer, got \"1e3\"");
	expect_refused("id,lower,upper,size\nx,0,3,-4\n", "model.csv",
	               USMP_FORMAT_CSV,
	               "model.csv:2: size: expected a positive integer, got \"-4\"");
	expect_refused("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": -4}]}",
	               "model.json", USMP_FORMAT_JSON,
	               "model.json: buffers[0].size: expected a positive integer, "
	               "got -4");
}

/* Sizes above 2^63 - 1 cannot be said in JSON (jansson's integers are
 * int64): refused with the place, not wrapped. */
Test(fuzz_regressions, json_sizes_past_int64_are_refused_with_the_place)
{
	expect_refused("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": "
	               "18446744073709551615, \"alignment\": 16}]}",
	               "model.json", USMP_FORMAT_JSON,
	               "model.json:1:66: too big integer near "
	               "'18446744073709551615'");
}

/* The largest size JSON can say, aligned to 2^62 beside a 1-byte buffer:
 * the aligned end (2^63) and the sum stay exact; every heuristic plans it in
 * 2^63 + 1 bytes or more without wrapping. */
Test(fuzz_regressions, int64_max_sizes_with_huge_alignment_never_wrap)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"alignment\": "
		"4611686018427387904}], \"buffers\": [{\"name\": \"a\", \"size\": "
		"9223372036854775807, \"live\": [0, 2]}, {\"name\": \"b\", "
		"\"size\": 1, \"live\": [1, 3]}]}",
		"huge.json");
	usmp_registry *r = registry();
	static const char *const algos[] = {"first_fit", "best_fit",
	                                    "greedy_by_size", "auto"};
	for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
		usmp_plan *plan = plan_ok(r, p, algos[i]);
		uint32_t q;
		uint64_t oa, ob;
		cr_assert_eq(usmp_plan_placement(plan, 0, &q, &oa), USMP_OK);
		cr_assert_eq(usmp_plan_placement(plan, 1, &q, &ob), USMP_OK);
		cr_assert_eq(oa % UINT64_C(4611686018427387904), 0);
		cr_assert_eq(ob % UINT64_C(4611686018427387904), 0);
		cr_assert_neq(oa, ob, "%s", algos[i]);
		cr_assert_geq(usmp_plan_pool_size(plan, 0),
		              UINT64_C(9223372036854775809), "%s", algos[i]);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* Live ranges at both ends of the time axis: [INT64_MIN, INT64_MAX) meets
 * [INT64_MAX - 1, INT64_MAX); [INT64_MAX, INT64_MAX) is empty and refused. */
Test(fuzz_regressions, live_ranges_at_the_ends_of_int64)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, \"live\": "
		"[-9223372036854775808, 9223372036854775807]}, {\"name\": \"b\", "
		"\"size\": 4, \"live\": [9223372036854775806, 9223372036854775807]}]}",
		"ends.json");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "first_fit");
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 8);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	expect_refused("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, "
	               "\"live\": [9223372036854775807, 9223372036854775807]}]}",
	               "model.json", USMP_FORMAT_JSON,
	               "model.json: buffers[0].live: end (9223372036854775807) is "
	               "not after begin (9223372036854775807)");
	expect_refused("id,lower,upper,size\nx,-9223372036854775809,0,4\n",
	               "model.csv", USMP_FORMAT_CSV,
	               "model.csv:2: lower: expected an integer from "
	               "-9223372036854775808 to 9223372036854775807, got "
	               "\"-9223372036854775809\"");
}

/* A CSV with a UTF-8 byte order mark and CRLF line ends reads like the plain
 * one; a duplicate id names both lines. */
Test(fuzz_regressions, csv_bom_and_crlf_read_as_plain_text)
{
	static const char text[] =
		"\xEF\xBB\xBFid,lower,upper,size\r\nx,0,3,4\r\ny,1,2,8\r\n";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, text, sizeof text - 1, "bom.csv",
	                                USMP_FORMAT_CSV, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_buffer_count(p), 2);
	cr_assert_str_eq(usmp_problem_buffer_name(p, 0), "x");
	cr_assert_str_eq(usmp_problem_buffer_name(p, 1), "y");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "best_fit");
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 12);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	expect_refused("\xEF\xBB\xBFid,lower,upper,size\r\nx,0,3,4\r\nx,1,2,8\r\n",
	               "dup.csv", USMP_FORMAT_CSV,
	               "dup.csv:3: duplicate id \"x\" (line 2 has it)");
}

/* A JSON problem behind a byte order mark is read like the plain one. */
Test(fuzz_regressions, json_bom_reads_as_plain_text)
{
	static const char text[] =
		"\xEF\xBB\xBF{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, text, sizeof text - 1, "bom.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_buffer_count(p), 1);
	cr_assert_str_eq(usmp_problem_buffer_name(p, 0), "a");
	usmp_problem_destroy(p);
}

/* Many parts: the CLI summary lists each part's pools from a table sorted
 * by group (it used to scan every pool for every part). Pools are declared
 * in reverse, so part k (buffer k) owns the pool declared last but k. */
Test(fuzz_regressions, cli_summary_of_many_parts_names_each_parts_pool)
{
	enum { N = 2000 };
	size_t cap = (size_t)N * 96 + 64, len = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	len += (size_t)snprintf(text + len, cap - len, "{\"usmp\": 1, \"pools\": [");
	for (int q = N - 1; q >= 0; q--)
		len += (size_t)snprintf(text + len, cap - len, "%s{\"name\": \"p%d\"}",
		                        q == N - 1 ? "" : ", ", q);
	len += (size_t)snprintf(text + len, cap - len, "], \"buffers\": [");
	for (int b = 0; b < N; b++)
		len += (size_t)snprintf(text + len, cap - len,
		                        "%s{\"name\": \"b%d\", \"size\": %d, "
		                        "\"pools\": [\"p%d\"]}",
		                        b ? ", " : "", b, 16 * (b + 1), b);
	len += (size_t)snprintf(text + len, cap - len, "]}\n");
	cr_assert_lt(len, cap);
	char *path = test_write_tmp(".json", text);
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -o /dev/null", test_cli(), path);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert_not_null(out);
	cr_assert(strstr(out, "2000 buffers, 2000 pools, 2000 parts"), "%.300s", out);
	/* Every part names exactly its own pool, with its buffer's size. */
	for (int b = 0; b < N; b += 333) {
		char name[16], want[96];
		snprintf(name, sizeof name, "p%d", b);
		snprintf(want, sizeof want, "    pool %-12s %12d bytes\n", name,
		         16 * (b + 1));
		cr_assert(strstr(out, want), "no line \"%s\"", want);
	}
	size_t lines = 0;
	for (const char *s = out; (s = strstr(s, "\n    pool ")); s++)
		lines++;
	cr_assert_eq(lines, N);
	free(out);
	free(path);
	free(text);
}

/* The structured generator's first finding
 * (corpus/solve/regress-exact-live-length-overflow.json): exact's greedy
 * start compared live-range lengths as end - begin in int64, which
 * overflows for [-(2^63 - 1), 2) (UBSan: signed integer overflow). Lengths
 * are now unsigned; exact plans the problem. */
Test(fuzz_regressions, exact_orders_live_ranges_wider_than_int64)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p0\", \"size_limit\": "
		"9223372036854775807, \"alignment\": 8}], \"buffers\": ["
		"{\"name\": \"b0\", \"size\": 38, \"live\": [9223372036854775806, "
		"9223372036854775807], \"fixed\": {\"pool\": \"p0\", \"offset\": 0}}, "
		"{\"name\": \"b1\", \"size\": 75, \"alignment\": 2}, "
		"{\"name\": \"b2\", \"size\": 19, \"live\": [-9223372036854775807, 2]}, "
		"{\"name\": \"b3\", \"size\": 72}, "
		"{\"name\": \"b4\", \"size\": 7, \"live\": [-1, 5]}], "
		"\"overlaps\": [{\"src\": \"b3\", \"dst\": \"b0\", \"max_lead\": "
		"-9223372036854775808}]}",
		"regress-exact-live-length-overflow.json");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "exact");
	/* b2 and b4 meet (19 + 7 bytes, 8-aligned: 31); b1 alone needs 75. */
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 75);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A valid plan whose group bound JSON cannot say
 * (corpus/solve/regress-json-bound-past-int64.json): the writer names the
 * field (pools[0].lower_bound) and the CLI the file; exit 2, nothing on
 * stdout. */
Test(fuzz_regressions, json_plan_names_a_bound_past_int64)
{
	static const char text[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p0\"}, {\"name\": \"p1\"}], "
		"\"buffers\": [{\"name\": \"big\", \"size\": 9223372036854775807, "
		"\"live\": [0, 9]}, {\"name\": \"small\", \"size\": 41, "
		"\"live\": [-3, 6], \"pools\": [\"p1\"]}]}\n";
	char *path = test_write_tmp(".json", text);
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -a first_fit 2>&1 >/dev/null", test_cli(), path);
	cr_assert_eq(test_run(cmd, &out), 2, "%s", out);
	char want[4200];
	snprintf(want, sizeof want, "usmp: %s: writing <stdout>: "
	         "pools[0].lower_bound: 9223372036854775848 is too large for the "
	         "JSON format\n", path);
	cr_assert(strstr(out, want), "%s\nlacks\n%s", out, want);
	free(out);
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -a first_fit 2>/dev/null | wc -c", test_cli(), path);
	cr_assert_eq(test_run(cmd, &out), 0);
	cr_assert_eq(atoi(out), 0, "stdout had %s bytes", out);
	free(out);
	free(path);
}

/* Two buffers of 2^63 - 1 bytes alive together: a valid plan of 2^64 - 2
 * bytes; the JSON writer names the pool it cannot size. */
Test(fuzz_regressions, json_plan_names_the_pool_past_int64)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}",
		"model.json");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "first_fit");
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	char want[4200];
	snprintf(want, sizeof want, "writing %s: pool size: "
	         "18446744073709551614 is too large for the JSON format "
	         "(pools[0] \"default\")", path);
	cr_assert_str_eq(usmp_plan_error(plan), want);
	free(path);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* fuzz_solve_csv's finding (corpus/solve_csv/regress-csv-offset-past-int64.csv):
 * the CSV plan writer wrote an offset of 2^63, which the CSV reader refused
 * ("expected a non-negative integer"), so `usmp verify` could not read the
 * plan `usmp plan --format csv` printed. CSV offsets are now any uint64. */
Test(fuzz_regressions, csv_plan_offsets_past_int64_read_back)
{
	static const char problem[] = "upper,lower,id,size,alignment\n"
	                              "-1,-3,b0,50,16\n"
	                              "-1,-3,b1,9223372036854775807,8\n";
	char *dir = test_write_tmp(".csv", problem);
	char *plan_path = test_tmpfile(".csv");
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -a first_fit --format csv -o '%s' 2>/dev/null && "
	         "cat '%s' && '%s' verify '%s' '%s'", test_cli(), dir, plan_path,
	         plan_path, test_cli(), dir, plan_path);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "b0,-3,-1,50,16,9223372036854775808\n"), "%s", out);
	cr_assert(strstr(out, "valid plan for"), "%s", out);
	free(out);
	free(plan_path);
	free(dir);
	/* A fixed offset near 2^64 reads; one past it is refused by line. */
	usmp_problem *p = usmp_problem_create();
	static const char fixed[] =
		"id,lower,upper,size,offset\nx,0,1,4,18446744073709551608\n";
	cr_assert_eq(usmp_problem_parse(p, fixed, sizeof fixed - 1, "f.csv",
	                                USMP_FORMAT_CSV, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_problem_destroy(p);
	expect_refused("id,lower,upper,size,offset\nx,0,1,4,18446744073709551616\n",
	               "f.csv", USMP_FORMAT_CSV,
	               "f.csv:2: offset: expected an integer from 0 to "
	               "18446744073709551615, got \"18446744073709551616\"");
}
