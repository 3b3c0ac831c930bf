/* test_redteam11.c — the eleventh adversarial pass (docs/errors.md, "Red team
 * 11"): each test fails before its fix. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

static void put(const char *dir, const char *name, const char *text)
{
	test_write_in(dir, name, text, strlen(text));
}

/* ---- a plugin writing to the standard output ------------------------------- */

/* The fixture: tests/plugins/redteam11/noisy.c. */
static char *noisy(void)
{
	return test_fmt("%s/redteam11/noisy.so", test_fixture_plugindir());
}

static const char two_buffers[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\": "
	"[0, 2]}, {\"name\": \"b\", \"size\": 16, \"live\": [1, 3]}]}\n";

/* `usmp plan` with the plan on stdout (a pipe read to its end: a process
 * the plugin forked that still holds it is waited for), then the plan
 * verified: exit status of plan, the verdict in *verdict. */
static int plan_to_stdout(const char *dir, const char *algorithm,
                          const char *isolation, char **plan_text,
                          char **verdict)
{
	char *so = noisy(), *out = NULL;
	char *cmd = test_fmt("(USMP_PLUGIN_PATH=%s USMP_ALGORITHM= '%s' plan "
	                     "%s/t.json -q -a %s %s 2>%s/err.txt; echo $? > "
	                     "%s/status) | cat > %s/plan.json", so, test_cli(),
	                     dir, algorithm, isolation, dir, dir, dir);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	free(out);
	free(cmd);
	char *path = test_join(dir, "status");
	char *status = test_read_file(path);
	cr_assert_not_null(status);
	int st = atoi(status);
	free(status);
	free(path);
	path = test_join(dir, "plan.json");
	*plan_text = test_read_file(path);
	free(path);
	cr_assert_not_null(*plan_text);
	test_usmp(verdict, "verify %s/t.json %s/plan.json", dir, dir);
	free(so);
	return st;
}

/* An algorithm that prints to stdout (with stdio, left in the buffer, and
 * straight to the descriptor), in process or isolated, put its text in
 * front of the plan `usmp plan` wrote to stdout: exit 0 and a plan file
 * that no reader takes. Its writes now go to stderr while plugin code
 * runs; stdout holds the plan alone. */
Test(redteam11, a_plugin_printing_to_stdout_stays_out_of_the_plan)
{
	const char *isolation[] = {"--isolate", "--no-isolate"};
	char *dir = test_fresh_dir("rt11-stdout");
	put(dir, "t.json", two_buffers);
	for (int i = 0; i < 2; i++) {
		char *plan = NULL, *verdict = NULL;
		cr_assert_eq(plan_to_stdout(dir, "rt11_stdout", isolation[i],
		                            &plan, &verdict), 0, "%s", plan);
		cr_assert_null(strstr(plan, "forged"), "%s: %s", isolation[i], plan);
		cr_assert_null(strstr(plan, "junk"), "%s: %s", isolation[i], plan);
		cr_assert(!strncmp(plan, "{\"usmp\": 1, \"algorithm\": \"rt11_stdout\"",
		                   37), "%s: %s", isolation[i], plan);
		cr_assert(strstr(verdict, "valid plan"), "%s: %s", isolation[i],
		          verdict);
		char *path = test_join(dir, "err.txt"), *err = test_read_file(path);
		cr_assert(strstr(err, "forged"), "%s: %s", isolation[i], err);
		free(err);
		free(path);
		free(plan);
		free(verdict);
	}
	free(dir);
}

/* A plugin that forks a process leaving the call's process group, which
 * writes to the stdout it inherited once the call is over: its text
 * joined the plan on stdout. */
Test(redteam11, a_process_a_plugin_forks_stays_out_of_the_plan)
{
	const char *isolation[] = {"--isolate", "--no-isolate"};
	char *dir = test_fresh_dir("rt11-fork");
	put(dir, "t.json", two_buffers);
	for (int i = 0; i < 2; i++) {
		char *plan = NULL, *verdict = NULL;
		cr_assert_eq(plan_to_stdout(dir, "rt11_fork", isolation[i], &plan,
		                            &verdict), 0, "%s", plan);
		cr_assert_null(strstr(plan, "forged"), "%s: %s", isolation[i], plan);
		cr_assert(strstr(verdict, "valid plan"), "%s: %s", isolation[i],
		          verdict);
		free(plan);
		free(verdict);
	}
	free(dir);
}

/* An algorithm that prints a plan of its own, then returns placements the
 * verifier refuses: exit 4, and stdout held the forged plan. Now stdout is
 * empty. */
Test(redteam11, a_refused_plugin_plan_leaves_stdout_empty)
{
	char *dir = test_fresh_dir("rt11-forge");
	put(dir, "t.json", two_buffers);
	char *plan = NULL, *verdict = NULL;
	cr_assert_eq(plan_to_stdout(dir, "rt11_forge_invalid", "--isolate",
	                            &plan, &verdict), 4, "%s", plan);
	cr_assert_str_eq(plan, "");
	char *path = test_join(dir, "err.txt"), *err = test_read_file(path);
	cr_assert(strstr(err, "returned an invalid plan: buffer \"a\": offset "
	                      "18446744073709551608 + size 16 overflows"), "%s",
	          err);
	free(err);
	free(path);
	free(plan);
	free(verdict);
	free(dir);
}

/* ---- plan files' claims ------------------------------------------------------ */

/* buffers a (16 bytes, [0, 1)), b (16, [1, 2)), c (8, [2, 3)) in pool sram;
 * the plan places them side by side: 40 bytes. */
static const char three_buffers[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": ["
	"{\"name\": \"a\", \"size\": 16, \"live\": [0, 1]}, "
	"{\"name\": \"b\", \"size\": 16, \"live\": [1, 2]}, "
	"{\"name\": \"c\", \"size\": 8, \"live\": [2, 3]}]}\n";
static const char side_by_side[] =
	"\"buffers\": [{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0}, "
	"{\"name\": \"b\", \"pool\": \"sram\", \"offset\": 16}, "
	"{\"name\": \"c\", \"pool\": \"sram\", \"offset\": 32}]}\n";

/* A plan file naming pool "sram" twice in "pools", the first record with
 * a false size, the second with the true one: the second replaced the
 * first's claims unchecked, and `usmp verify` said "valid plan"; a false
 * lower_bound of the first was named as the second's. A pool named twice
 * is refused, as a buffer placed twice is. */
Test(redteam11, a_pool_listed_twice_in_a_plan_file_is_refused)
{
	char *dir = test_fresh_dir("rt11-pool2");
	put(dir, "p.json", three_buffers);
	char *plan = test_fmt("{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", "
	                      "\"size\": 1000}, {\"name\": \"sram\", \"size\": "
	                      "40}],\n %s", side_by_side);
	put(dir, "plan.json", plan);
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "verify %s/p.json %s/plan.json", dir, dir),
	             2, "%s", out);
	cr_assert(strstr(out, "plan.json: pools[1].name: pool \"sram\" is listed "
	                      "twice (also pools[0])\n"), "%s", out);
	cr_assert_null(strstr(out, "valid plan"), "%s", out);
	free(out);
	/* through the API: no placements, the status and the message */
	usmp_problem *p = usmp_problem_create();
	char *pp = test_join(dir, "p.json"), *planp = test_join(dir, "plan.json");
	cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK);
	usmp_plan *pl = NULL;
	cr_assert_eq(usmp_plan_read(p, planp, USMP_FORMAT_AUTO, &pl),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(pl), "pools[1].name: pool \"sram\" is "
	                 "listed twice (also pools[0])"), "%s",
	          usmp_plan_error(pl));
	usmp_plan_destroy(pl);
	usmp_problem_destroy(p);
	free(pp);
	free(planp);
	free(plan);
	free(dir);
}

/* ---- Python: names that are not UTF-8 ------------------------------------------ */

/* Two buffers named by bytes that are not UTF-8 (b"x\xff", b"x\xfe"):
 * the binding passed them on, and read them back with errors="replace",
 * so both became "x\ufffd": Plan.placements held one buffer of the two,
 * and find_buffer could not find either by the name Problem.buffers
 * gave. Such a name (a pool's, a buffer's, a target's; a str with a lone
 * surrogate) is now refused before anything is added. */
Test(redteam11, python_names_that_are_not_utf8_are_refused)
{
	const char *script =
		"import usmp\n"
		"p = usmp.Problem()\n"
		"p.add_pool('sram')\n"
		"for call in (lambda: p.add_buffer(b'x\\xff', 8, live=(0, 2)),\n"
		"             lambda: p.add_pool(b'caf\\xe9'),\n"
		"             lambda: p.add_pool('d', targets=[b'npu\\xff']),\n"
		"             lambda: p.add_pool_target('sram', b'\\xc3'),\n"
		"             lambda: p.add_buffer('s\\ud800', 8)):\n"
		"    try:\n"
		"        call()\n"
		"        print('TAKEN')\n"
		"    except usmp.InvalidError as e:\n"
		"        print('REFUSED', e)\n"
		"print('LEFT', p.pool_count, p.buffer_count, p.pools, p.buffers)\n"
		"p.add_buffer(b'y\\xc3\\xa9', 8, live=(0, 2))\n"
		"p.add_buffer('z', 8, live=(0, 2))\n"
		"plan = usmp.plan(p, algorithm='best_fit')\n"
		"print('PLACED', sorted(plan.placements), p.find_buffer('y\\xe9'))\n";
	char *out = NULL;
	cr_assert_eq(test_python(script, 1, &out), 0, "%s", out);
	cr_assert_null(strstr(out, "TAKEN"), "%s", out);
	cr_assert(strstr(out, "REFUSED name: b'x\\xff': not valid UTF-8 (byte "
	                      "0xff at index 1): names are text, read back as "
	                      "str and written to UTF-8 files\n"), "%s", out);
	cr_assert(strstr(out, "REFUSED name: b'caf\\xe9': not valid UTF-8 (byte "
	                      "0xe9 at index 3)"), "%s", out);
	cr_assert(strstr(out, "REFUSED target: b'npu\\xff': not valid UTF-8"),
	          "%s", out);
	cr_assert(strstr(out, "REFUSED target: b'\\xc3': not valid UTF-8"), "%s",
	          out);
	cr_assert(strstr(out, "REFUSED name: 's\\ud800': not valid UTF-8 (a "
	                      "lone surrogate at index 1)\n"), "%s", out);
	cr_assert(strstr(out, "LEFT 1 0 ['sram'] []\n"), "%s", out);
	cr_assert(strstr(out, "PLACED ['yé', 'z'] 0\n"), "%s", out);
	free(out);
}

/* ---- exact: sizes past its arithmetic over several pools ------------------------ */

/* Two unbounded pools and two buffers of 2^63 bytes alive together (each
 * preferring pool p0): exact's least-spill stage planned both in p0, at 0
 * and 2^63, summing sizes and offsets in uint64 past its range, and
 * returned a plan ending at 2^64: `algorithm "exact" returned an invalid
 * plan: ... overflows; its plugin "exact" ... broke its contract`
 * (USMP_ERR_PLUGIN). Now that stage checks the range as exact's other
 * searches do, and exact declines the part (USMP_ERR_UNSUPPORTED), also
 * with a conflict edge between them (its plan without the edge goes the
 * same way); other algorithms plan it (one buffer in each pool). */
Test(redteam11, exact_declines_sizes_past_its_range_over_several_pools)
{
	const uint64_t half = UINT64_C(1) << 63;
	usmp_problem *p = usmp_problem_create();
	uint32_t q, b;
	cr_assert_eq(usmp_problem_add_pool(p, "p0", USMP_UNBOUNDED, 1, &q),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "p1", USMP_UNBOUNDED, 1, &q),
	             USMP_OK);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(usmp_problem_add_buffer(p, i ? "b1" : "b0", half, 1,
		                                     &b), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, b, 2, 4), USMP_OK);
	}
	usmp_registry *r = test_registry(NULL);
	const char *const algos[] = {"exact", "exact:part=1", "exact:split=1"};
	for (size_t k = 0; k < 3; k++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = algos[k], .time_limit = 5};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan),
		             USMP_ERR_UNSUPPORTED, "%s: %s", algos[k],
		             usmp_plan_error(plan));
		cr_assert(strstr(usmp_plan_error(plan), "exact failed "
		                 "(unsupported): buffer 'b0' has a size, "
		                 "alignment, candidate list or fixed placement out "
		                 "of the exact search's range"), "%s",
		          usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	/* With a conflict edge between them exact first plans without the
	 * edge, by the same least-spill stage: it declines the same way, and
	 * in parts of one buffer it plans them apart; never a plan past 2^64
	 * (USMP_ERR_PLUGIN). */
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), USMP_OK);
	for (size_t k = 0; k < 3; k++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = algos[k], .time_limit = 5};
		usmp_plan *plan = NULL;
		int st = usmp_plan_compute(r, p, &o, &plan);
		cr_assert(st == USMP_OK || st == USMP_ERR_UNSUPPORTED,
		          "%s with an edge: status %d: %s", algos[k], st,
		          usmp_plan_error(plan));
		if (st == USMP_OK) {
			cr_assert_eq(usmp_plan_pool_size(plan, 0), half);
			cr_assert_eq(usmp_plan_pool_size(plan, 1), half);
		} else {
			cr_assert(strstr(usmp_plan_error(plan), "out of the exact "
			                 "search's range"), "%s",
			          usmp_plan_error(plan));
		}
		usmp_plan_destroy(plan);
	}
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "auto"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_pool_size(plan, 0), half);
	cr_assert_eq(usmp_plan_pool_size(plan, 1), half);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- an escaped NUL in a JSON string ---------------------------------------------- */

/* "a\u0000b" as a buffer's name (or any string of a problem or plan)
 * said `\u0000 is not allowed without JSON_ALLOW_NUL`: jansson's flag,
 * which a file's author cannot set. The message now says what the file
 * holds and why it is refused. */
Test(redteam11, an_escaped_nul_in_a_json_string_is_named_without_jansson_flags)
{
	char *dir = test_fresh_dir("rt11-nul");
	put(dir, "model.json", "{\"usmp\": 1, \"buffers\": [{\"name\": "
	                       "\"a\\u0000b\", \"size\": 4}]}");
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "bound %s/model.json", dir), 2, "%s", out);
	cr_assert(strstr(out, "model.json:1:43: \\u0000 (a NUL character) in a "
	                      "string near '\"a\\u0000b\"': a name ends at its "
	                      "first NUL, so no string may hold one\n"), "%s", out);
	cr_assert_null(strstr(out, "JSON_ALLOW_NUL"), "%s", out);
	free(out);
	put(dir, "p.json", "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                   "\"size\": 4}]}");
	put(dir, "plan.json", "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                      "\"pool\": \"default\\u0000x\", \"offset\": 0}]}");
	cr_assert_eq(test_usmp(&out, "verify %s/p.json %s/plan.json", dir, dir),
	             2, "%s", out);
	cr_assert(strstr(out, "plan.json:1:62: \\u0000 (a NUL character) in a "
	                      "string near '\"default\\u0000x\"'"), "%s", out);
	free(out);
	usmp_problem *p = usmp_problem_create();
	const char *text = "{\"usmp\": 1, \"pools\": [{\"name\": \"s\\u0000\"}]}";
	cr_assert_eq(usmp_problem_parse(p, text, strlen(text), "m.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "m.json:1:40: \\u0000 (a NUL "
	                 "character) in a string near"), "%s",
	          usmp_problem_error(p));
	usmp_problem_destroy(p);
	free(dir);
}

/* ---- CSV integers past 64 bits ------------------------------------------------------ */

/* A CSV offset of 2^64 (in a plan or a problem) was refused as `expected
 * a non-negative integer`, which it is; a size of 2^63 as `expected a
 * positive integer`. An integer of digits past the column's range now
 * gets the range; other text keeps its message. */
Test(redteam11, a_csv_integer_past_its_range_names_the_range)
{
	char *dir = test_fresh_dir("rt11-csvint");
	put(dir, "c.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\n");
	put(dir, "plan.csv", "id,offset\na,0\nb,18446744073709551616\n");
	put(dir, "big.csv", "id,lower,upper,size\na,0,2,9223372036854775808\n");
	put(dir, "low.csv", "id,lower,upper,size\na,-9223372036854775809,2,8\n");
	put(dir, "x.csv", "id,offset\na,0\nb,1844674407370955161x\n");
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "verify %s/c.csv %s/plan.csv", dir, dir), 2,
	             "%s", out);
	cr_assert(strstr(out, "plan.csv:3: offset: expected an integer from 0 "
	                      "to 18446744073709551615, got "
	                      "\"18446744073709551616\"\n"), "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "bound %s/big.csv", dir), 2, "%s", out);
	cr_assert(strstr(out, "big.csv:2: size: expected an integer from 1 to "
	                      "9223372036854775807, got \"9223372036854775808\"\n"),
	          "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "bound %s/low.csv", dir), 2, "%s", out);
	cr_assert(strstr(out, "low.csv:2: lower: expected an integer from "
	                      "-9223372036854775808 to 9223372036854775807, got "
	                      "\"-9223372036854775809\"\n"), "%s", out);
	free(out);
	cr_assert_eq(test_usmp(&out, "verify %s/c.csv %s/x.csv", dir, dir), 2,
	             "%s", out);
	cr_assert(strstr(out, "x.csv:3: offset: expected a non-negative integer, "
	                      "got \"1844674407370955161x\"\n"), "%s", out);
	free(out);
	free(dir);
}

/* ---- many pools, buffers without candidate lists --------------------------------- */

/* 20,000 pools and 20,000 buffers without a "pools" list (a 1.4 MB file):
 * every view listed every pool for every buffer, 4e8 entries, 1.6 GB, so
 * `usmp plan` and `usmp verify` needed 1.6 GB (40,000 of each: 6.4 GB, out
 * of memory where the machine has less). Buffers without a list now share
 * one run of every pool: 30 MB. Checked under a 400 MB address-space
 * limit. */
Test(redteam11, buffers_without_candidate_lists_share_one_run_of_pools)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("a limit on address space: not under the sanitizers");
#else
	enum { N = 20000 };
	char *dir = test_fresh_dir("rt11-pools");
	char *path = test_join(dir, "many.json");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"usmp\": 1, \"pools\": [", f);
	for (int i = 0; i < N; i++)
		fprintf(f, "%s{\"name\": \"p%d\"}", i ? ", " : "", i);
	fputs("],\n \"buffers\": [", f);
	for (int i = 0; i < N; i++)
		fprintf(f, "%s{\"name\": \"b%d\", \"size\": 16, \"live\": [%d, %d]}",
		        i ? ",\n  " : "", i, i, i + 2);
	fputs("]}\n", f);
	cr_assert_eq(fclose(f), 0);
	char *out = NULL;
	char *cmd = test_fmt("ulimit -v 400000; USMP_PLUGIN_PATH= "
	                     "USMP_ALGORITHM= '%s' plan %s -q -a best_fit -o "
	                     "%s/plan.json && USMP_PLUGIN_PATH= '%s' verify %s "
	                     "%s/plan.json", test_cli(), path, dir, test_cli(),
	                     path, dir);
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "plan.json: valid plan for "), "%s", out);
	cr_assert(strstr(out, "(20000 buffers, 32 bytes in all pools)\n"), "%s",
	          out);
	free(out);
	free(cmd);
	free(path);
	free(dir);
#endif
}

/* ---- many pools, each full when a buffer comes ---------------------------------- */

/* 10,000 pools of 16 bytes and 10,000 buffers of 16 bytes alive together,
 * each free to use every pool: the buffer i goes to pool i after pools 0
 * to i - 1 are found full. first_fit and best_fit (and auto's first plan)
 * walked every conflicting placed buffer of every pool once per pool
 * tried: cubic, about 2 minutes here (20,000: 15 minutes of `usmp plan`
 * with its 1 s default budget). The conflicting buffers are now gathered
 * once per placement and grouped by pool: 2 s, the same plans. */
Test(redteam11, a_buffer_tried_in_many_full_pools_is_placed_in_one_walk,
     .timeout = 60)
{
	enum { N = 10000 };
	usmp_problem *p = usmp_problem_create();
	char name[32];
	for (uint32_t i = 0; i < N; i++) {
		uint32_t id;
		snprintf(name, sizeof name, "p%u", i);
		cr_assert_eq(usmp_problem_add_pool(p, name, 16, 1, &id), USMP_OK);
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t id;
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 16, 1, &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, 0, 2), USMP_OK);
	}
	usmp_registry *r = test_registry(NULL);
	const char *const algos[] = {"first_fit", "best_fit"};
	for (size_t k = 0; k < 2; k++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = algos[k],
		                       .time_limit = INFINITY};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s: %s",
		             algos[k], usmp_plan_error(plan));
		for (uint32_t q = 0; q < N; q += 997)
			cr_assert_eq(usmp_plan_pool_size(plan, q), 16, "%s: pool %u",
			             algos[k], q);
		uint32_t pool = 0;
		uint64_t off = 1;
		cr_assert_eq(usmp_plan_placement(plan, N - 1, &pool, &off), USMP_OK);
		cr_assert_eq(off, 0);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}
