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
	usmp_plan *plan = test_plan_ok(r, p, NULL);
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

/* ---- many parts, each its own algorithm ------------------------------------- */

/* Text of n pools p<i>, each holding one buffer b<i> (so n bound groups),
 * and of a plan whose part of group i names the algorithm "algo<i>". */
static void many_parts(uint32_t n, char **problem, char **plan)
{
	size_t cap = 64 + (size_t)n * 96;
	char *pr = malloc(cap), *pl = malloc(cap);
	cr_assert(pr && pl);
	size_t a = (size_t)sprintf(pr, "{\"usmp\": 1, \"pools\": [");
	size_t b = (size_t)sprintf(pl, "{\"usmp\": 1, \"buffers\": [");
	for (uint32_t i = 0; i < n; i++)
		a += (size_t)sprintf(pr + a, "%s{\"name\": \"p%u\"}", i ? "," : "",
		                     i);
	a += (size_t)sprintf(pr + a, "], \"buffers\": [");
	for (uint32_t i = 0; i < n; i++) {
		a += (size_t)sprintf(pr + a, "%s{\"name\": \"b%u\", \"size\": 8, "
		                     "\"live\": [0, 1], \"pools\": [\"p%u\"]}",
		                     i ? "," : "", i, i);
		b += (size_t)sprintf(pl + b, "%s{\"name\": \"b%u\", \"pool\": "
		                     "\"p%u\", \"offset\": 0}", i ? "," : "", i, i);
	}
	sprintf(pr + a, "]}");
	b += (size_t)sprintf(pl + b, "], \"parts\": [");
	for (uint32_t i = 0; i < n; i++)
		b += (size_t)sprintf(pl + b, "%s{\"group\": %u, \"algorithm\": "
		                     "\"algo%u\"}", i ? "," : "", i, i);
	sprintf(pl + b, "]}");
	*problem = pr;
	*plan = pl;
}

/* A plan file of 100,000 parts, each naming an algorithm of its own (one
 * per bound group), written again as JSON and drawn as SVG: the writers
 * joined the distinct names by comparing each part with every earlier one
 * and appending with strcat (quadratic: 4.4 s for JSON and 4.6 s for SVG
 * at 40,000 parts, minutes at 100,000). Now linear; the same text. */
Test(redteam10, a_plan_of_many_algorithm_names_is_written_in_linear_time,
     .timeout = 60)
{
	const uint32_t n = 100000;
	char *pr, *pl;
	many_parts(n, &pr, &pl);
	usmp_problem *p = test_parse_json(pr, "many.json");
	char *in = test_write_tmp(".json", pl);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, in, USMP_FORMAT_JSON, &plan), USMP_OK,
	             "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_part_count(plan), n);
	char *out = test_tmpfile(".json"), *svg = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write(plan, p, out, USMP_FORMAT_JSON), USMP_OK,
	             "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_write_svg(plan, p, svg), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *json = test_read_file(out), *pic = test_read_file(svg);
	cr_assert(json && pic);
	cr_assert(!strncmp(json, "{\"usmp\": 1, \"algorithm\": \"algo0+algo1+"
	                         "algo2+", 42), "%.80s", json);
	char *last = test_fmt("+algo%u\", \"params\"", n - 1);
	cr_assert(strstr(json, last));
	cr_assert(strstr(pic, ">usmp plan: algo0 + algo1 + algo2 + "));
	char *tail = test_fmt(" + algo%u</text>", n - 1);
	cr_assert(strstr(pic, tail));
	remove(in);
	remove(out);
	remove(svg);
	free(tail);
	free(last);
	free(json);
	free(pic);
	free(in);
	free(out);
	free(svg);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(pr);
	free(pl);
}

/* ---- a part's counts past 32 bits --------------------------------------------- */

/* A part's "buffers" or "group" past 2^32 - 1 was refused as "expected a
 * non-negative integer, got 4294967296": a non-negative integer. The
 * message says the range it takes. */
Test(redteam10, a_parts_count_past_32_bits_names_the_range)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, "
		"\"live\": [0, 1]}]}", "p.json");
	static const char *const keys[] = {"buffers", "group"};
	for (int k = 0; k < 2; k++) {
		char *text = test_fmt("{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
		                      "\"pool\": \"default\", \"offset\": 0}], "
		                      "\"parts\": [{\"%s\": 4294967296}]}", keys[k]);
		char *path = test_write_tmp(".json", text);
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_read(p, path, USMP_FORMAT_JSON, &plan),
		             USMP_ERR_INVALID);
		char *want = test_fmt("parts[0].%s: expected an integer from 0 to "
		                      "4294967295, got 4294967296", keys[k]);
		cr_assert(strstr(usmp_plan_error(plan), want), "%s",
		          usmp_plan_error(plan));
		usmp_plan_destroy(plan);
		remove(path);
		free(want);
		free(path);
		free(text);
	}
	usmp_problem_destroy(p);
}

/* ---- sums past 2^64 - 1 ----------------------------------------------------- */

/* Pools p0..p{np-1} of 2^63 - 1 bytes each and nb buffers of 2^63 - 1
 * bytes, all alive together and free to use any pool. */
static char *huge(int np, int nb)
{
	char *s = test_fmt("{\"usmp\": 1, \"pools\": [");
	for (int i = 0; i < np; i++) {
		char *t = test_fmt("%s%s{\"name\": \"p%d\", \"size_limit\": "
		                   "9223372036854775807}", s, i ? ", " : "", i);
		free(s);
		s = t;
	}
	char *t = test_fmt("%s], \"buffers\": [", s);
	free(s);
	s = t;
	for (int i = 0; i < nb; i++) {
		t = test_fmt("%s%s{\"name\": \"b%d\", \"size\": 9223372036854775807, "
		             "\"live\": [0, 2]}", s, i ? ", " : "", i);
		free(s);
		s = t;
	}
	t = test_fmt("%s]}", s);
	free(s);
	return t;
}

/* Three pools of 2^63 - 1 bytes, four such buffers alive together: the
 * certificate said the pools had "no size limit" (their sum, past 64 bits,
 * read as USMP_UNBOUNDED) and that the buffers "need more than
 * 18446744073709551615 bytes", which proved nothing. Now both sums are
 * exact and the excess is said. */
Test(redteam10, limits_added_past_64_bits_are_no_unbounded_pool)
{
	char *json = huge(3, 4);
	usmp_problem *p = test_parse_json(json, "b4.json");
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
	const char *msg = usmp_plan_error(plan);
	cr_assert(strstr(msg, "auto: no plan fits the pools: at step 0 the "
	                      "buffers live need 36893488147419103228 bytes, more "
	                      "than the pools they may use (\"p0\", \"p1\", "
	                      "\"p2\") hold together (27670116110564327421 bytes) "
	                      "by 9223372036854775807 bytes; "), "%s", msg);
	cr_assert(strstr(msg, "; the lower bound of the group is at least "
	                      "18446744073709551615 bytes"), "%s", msg);
	cr_assert_null(strstr(msg, "no size limit"), "%s", msg);
	usmp_infeasibility why = {.struct_size = sizeof why};
	cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_OK);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	free(json);
}

/* usmp bound added the limits in 64 bits, saturating, and printed the
 * saturated bound as a figure: three such pools and buffers read "lower
 * bound 18446744073709551615 bytes; ... within the pools' size limits
 * together (18446744073709551615 bytes), 0 bytes to spare", four buffers
 * the same (no plan fits them). Now the limits are added exactly, a
 * bound of 2^64 - 1 is "at least", and past it usmp plan decides. */
Test(redteam10, bound_adds_limits_past_64_bits_exactly)
{
	static const struct {
		int np, nb;
		const char *line;
	} cases[] = {
		{3, 4, "group 0: lower bound at least 18446744073709551615 bytes; "
		       "pools: p0 p1 p2; the pools' size limits together: "
		       "27670116110564327421 bytes, and the lower bound is 2^64 - 1 "
		       "bytes or more: usmp plan says whether a plan fits\n"},
		{2, 3, "group 0: lower bound at least 18446744073709551615 bytes; "
		       "pools: p0 p1; over the pools' size limits together "
		       "(18446744073709551614 bytes) by at least 1 byte: no plan "
		       "fits\n"},
		{4, 2, "group 0: lower bound 18446744073709551614 bytes; pools: p0 "
		       "p1 p2 p3; within the pools' size limits together "
		       "(36893488147419103228 bytes), 18446744073709551614 bytes to "
		       "spare: a plan may fit (usmp plan says)\n"},
	};
	char *dir = test_fresh_dir("rt10-bound");
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *json = huge(cases[k].np, cases[k].nb), *out = NULL;
		put(dir, "b.json", json);
		cr_assert_eq(test_usmp(&out, "bound %s/b.json", dir), 0, "%s", out);
		cr_assert_str_eq(out, cases[k].line);
		free(out);
		free(json);
	}
	free(dir);
}

/* ---- plugin messages naming a long name ---------------------------------------- */

/* The plugins format their messages into fixed buffers (256 or 512
 * bytes): a buffer named with 300 (or 1,000) bytes filled it, so the
 * message ended inside the name, without its closing quote or the reason
 * (exact: buffer 'xxx...x). A long name is now shortened as the library
 * shortens names, and the reason follows. */
Test(redteam10, a_plugin_message_keeps_its_reason_after_a_long_name)
{
	char x300[301], x1000[1001];
	memset(x300, 'x', 300);
	x300[300] = '\0';
	memset(x1000, 'x', 1000);
	x1000[1000] = '\0';
	char *big = test_fmt("{\"usmp\": 1, \"buffers\": [{\"name\": \"%s\", "
	                     "\"size\": 9223372036854775807, \"live\": [0, 2]}, "
	                     "{\"name\": \"y\", \"size\": 8, \"live\": [0, 2]}]}",
	                     x300);
	char *tight = test_fmt("{\"usmp\": 1, \"pools\": [{\"name\": \"s\", "
	                       "\"size_limit\": 100}], \"buffers\": [{\"name\": "
	                       "\"%s\", \"size\": 60, \"live\": [0, 2]}, "
	                       "{\"name\": \"y\", \"size\": 60, \"live\": [0, 2]}]}",
	                       x1000);
	static const struct {
		int tight;
		const char *algo, *want;
	} cases[] = {
		{0, "exact", "…(300 bytes)' size 9223372036854775807 is out of "
		             "range (part 1: "},
		{0, "exact_window", "…(300 bytes)' is beyond its scope (several "
		                    "candidate pools, alignment, size or fixed "
		                    "offset) (part 1: "},
		{1, "greedy_by_size", "greedy_by_size: no plan fits the pools: "
		                      "buffer \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		                      "xxxxxxxxxxxxxxxxxxxxxxxx…(1000 bytes)\" (60 "
		                      "bytes) fits in none of its 1 candidate "
		                      "pool(s); "},
	};
	usmp_registry *r = test_registry(NULL);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		usmp_problem *p = test_parse_json(cases[k].tight ? tight : big,
		                                  "long.json");
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = USMP_PLAN_NO_ISOLATE,
		                       .algorithm = cases[k].algo};
		usmp_plan *plan = NULL;
		cr_assert_neq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
		cr_assert(strstr(usmp_plan_error(plan), cases[k].want), "%s: %s",
		          cases[k].algo, usmp_plan_error(plan));
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	usmp_registry_destroy(r);
	free(big);
	free(tight);
}
