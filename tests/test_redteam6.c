/* test_redteam6.c — a sixth adversarial pass: name lists that grew in square
 * time, errors that listed every pool, the plugin path and the Python binding. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The timeouts below only stop a regression from hanging the suite (each
 * case takes well under a second); what is checked is the output. */

/* A problem of `np` pools "p<i>" (pool i naming target "t<i>" when
 * `targets`), without buffers. */
static usmp_problem *many_pools(uint32_t np, bool targets)
{
	usmp_problem *p = usmp_problem_create();
	char name[32];
	cr_assert_not_null(p);
	for (uint32_t i = 0; i < np; i++) {
		snprintf(name, sizeof name, "p%u", i);
		cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED, 1, NULL),
		             USMP_OK, "%s", usmp_problem_error(p));
		if (targets) {
			snprintf(name, sizeof name, "t%u", i);
			cr_assert_eq(usmp_problem_add_pool_target(p, i, name), USMP_OK);
		}
	}
	return p;
}

/* ---- a pool naming many targets ----------------------------------------- */

/* usmp_problem_add_pool_target looked for the target among the pool's
 * earlier ones one by one: a pool naming 80,000 targets (a 1 MB JSON file)
 * took 9 s of CPU to read, 300,000 about two minutes. The targets of a
 * pool with many are now a hash set; naming one twice still changes
 * nothing. */
Test(redteam6, a_pool_naming_many_targets_is_read_in_linear_time,
     .timeout = 30)
{
	const uint32_t n = 300000;
	usmp_problem *p = usmp_problem_create();
	char name[32];
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 4096, 1, NULL), USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "npu%u", i);
		cr_assert_eq(usmp_problem_add_pool_target(p, 0, name), USMP_OK);
	}
	/* again, scanned (the first few) and from the set (the rest) */
	static const char *const again[] = {"npu0", "npu7", "npu15", "npu16",
	                                    "npu299999"};
	for (size_t k = 0; k < sizeof again / sizeof *again; k++)
		cr_assert_eq(usmp_problem_add_pool_target(p, 0, again[k]), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 64, 1, NULL), USMP_OK);
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_JSON), USMP_OK, "%s",
	             usmp_problem_error(p));
	char *text = test_read_file(path);
	cr_assert_not_null(text);
	/* each once, in the order first named */
	size_t count = 0; /* by hand: strstr in a loop is square under ASan */
	for (const char *s = text; *s; s++)
		count += !strncmp(s, "\"npu", 4);
	cr_assert_eq(count, n, "%zu targets written", count);
	cr_assert(strstr(text, "\"targets\": [\"npu0\", \"npu1\", \"npu2\""),
	          "%.200s", text);
	cr_assert(strstr(text, "\"npu299998\", \"npu299999\"]"));
	free(text);
	remove(path);
	free(path);
	usmp_problem_destroy(p);
}

/* ---- a buffer naming many candidate pools -------------------------------- */

/* usmp_problem_add_candidate scanned the buffer's list for the pool: one
 * buffer that may use any of 300,000 pools named in its "pools" list took
 * 35 s to read, 600,000 about two minutes. The pairs of a buffer with many
 * candidates are now a hash set; a pool named twice is still refused,
 * early or late in the list, for each buffer on its own. */
Test(redteam6, a_buffer_naming_many_candidate_pools_is_read_in_linear_time,
     .timeout = 30)
{
	const uint32_t n = 600000;
	usmp_problem *p = many_pools(n, false);
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 16, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 16, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	/* interleaved: b takes every third pool, from the last one down */
	for (uint32_t j = 0; j < n; j++) {
		cr_assert_eq(usmp_problem_add_candidate(p, a, j), USMP_OK, "%s",
		             usmp_problem_error(p));
		if (j % 3 == 0)
			cr_assert_eq(usmp_problem_add_candidate(p, b, n - 1 - j),
			             USMP_OK, "%s", usmp_problem_error(p));
	}
	static const uint32_t twice[] = {0, 7, 15, 16, 300000, 599999};
	for (size_t k = 0; k < sizeof twice / sizeof *twice; k++) {
		cr_assert_eq(usmp_problem_add_candidate(p, a, twice[k]),
		             USMP_ERR_INVALID, "pool %u", twice[k]);
		char *want = test_fmt("buffer \"a\": pool \"p%u\" is already a "
		                      "candidate", twice[k]);
		cr_assert_str_eq(usmp_problem_error(p), want);
		free(want);
	}
	/* b named p599999 (j = 0) and p599996, not p599998 */
	cr_assert_eq(usmp_problem_add_candidate(p, b, n - 1), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_add_candidate(p, b, n - 4), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_add_candidate(p, b, n - 2), USMP_OK, "%s",
	             usmp_problem_error(p));
	/* the lists as named: a plan puts each buffer in its first pool */
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	uint32_t pool = 0;
	cr_assert_eq(usmp_plan_placement(plan, a, &pool, NULL), USMP_OK);
	cr_assert_eq(pool, 0);
	cr_assert_eq(usmp_plan_placement(plan, b, &pool, NULL), USMP_OK);
	cr_assert_eq(pool, n - 1);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- a rule matching none of many targets -------------------------------- */

/* A selection rule that matches no pool or target of the problem is said
 * (loose_ends); the targets it is matched against were gathered by a scan
 * of those gathered so far: 50,000 pools each naming its own target took 4
 * s of CPU more with a rule set than without, 200,000 about a minute. */
Test(redteam6, a_rule_matching_none_of_many_targets_is_checked_in_linear_time,
     .timeout = 30)
{
	const uint32_t n = 200000;
	char lines[TEST_LOG_LINES] = "";
	usmp_problem *p = many_pools(n, true);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, NULL), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "nosuch=first_fit"), USMP_OK);
	usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_INFO);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert(strstr(lines, "2 usmp_registry_bind: rule \"nosuch=first_fit\" "
	                        "matches no target of the problem (targets: "
	                        "\"t0\", \"t1\", \"t2\", \"t3\", \"t4\", \"t5\", "
	                        "\"t6\", \"t7\" and 199992 more)\n"), "%s", lines);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- spill advice beside a pool of many targets -------------------------- */

/* When a pool is over its limit, the message suggests pools the buffers
 * could spill to: pools serving a target of the full pool, found by
 * comparing every target of the full pool with every target of each other
 * pool. A full pool naming 40,000 targets beside 40,000 pools of other
 * targets took 5.7 s of CPU before `first_fit` said it did not fit;
 * 100,000 of each about 35 s. */
Test(redteam6, spill_advice_beside_a_pool_of_many_targets_is_linear,
     .timeout = 30)
{
	const uint32_t n = 100000;
	usmp_problem *p = usmp_problem_create();
	char name[32];
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 4, 1, NULL), USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "npu%u", i);
		cr_assert_eq(usmp_problem_add_pool_target(p, 0, name), USMP_OK);
	}
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "q%u", i);
		cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED, 1, NULL),
		             USMP_OK);
		snprintf(name, sizeof name, "cpu%u", i);
		cr_assert_eq(usmp_problem_add_pool_target(p, i + 1, name), USMP_OK);
	}
	/* the last pool serves npu5 too: the one place to spill to */
	cr_assert_eq(usmp_problem_add_pool_target(p, n, "npu5"), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 4, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 4, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, a, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, b, 0), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INFEASIBLE,
	             "%s", usmp_plan_error(plan));
	const char *msg = usmp_plan_error(plan);
	cr_assert(strstr(msg, "at step 1 the buffers live that may use only pool "
	                      "\"sram\" need 8 bytes, more than its limit (4 "
	                      "bytes) by 4 bytes"), "%s", msg);
	char *spill = test_fmt("\"q%u\"", n - 1);
	cr_assert(strstr(msg, spill), "no spill advice naming %s: %s", spill, msg);
	free(spill);
	cr_assert_null(strstr(msg, "\"q0\""), "%s", msg);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- a failed part of many pools ------------------------------------------ */

/* An error planning a part ends with the part's targets and pools: all of
 * them, so a part of 400,000 pools that an algorithm refuses printed a
 * line of 3.4 MB. It now names eight of each and counts the rest. */
Test(redteam6, a_failed_parts_error_names_eight_pools_and_counts_the_rest)
{
	usmp_problem *p = many_pools(30, true);
	uint32_t a;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 1), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "exact_window"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan),
	                 " (part 1: target t0,t1,t2,t3,t4,t5,t6,t7 and 22 more; "
	                 "pools p0, p1, p2, p3, p4, p5, p6, p7 and 22 more; "
	                 "algorithm chosen by rule \"exact_window\" of the plan "
	                 "options (-a))"), "%s", usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* eight, and two: all named */
	for (uint32_t np = 2; np <= 8; np += 6) {
		p = many_pools(np, false);
		cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, &a), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, a, 0, 1), USMP_OK);
		plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan),
		             USMP_ERR_UNSUPPORTED);
		const char *want = np == 2 ? "(part 1: target none; pools p0, p1; "
		                           : "(part 1: target none; pools p0, p1, p2, "
		                             "p3, p4, p5, p6, p7; ";
		cr_assert(strstr(usmp_plan_error(plan), want), "%s",
		          usmp_plan_error(plan));
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	usmp_registry_destroy(r);
}

/* ---- plugin path entries that cannot be read ------------------------------ */

/* A plugin path entry that stat() fails on for another reason than its
 * absence (a loop of symbolic links) was said to be "plugin directory not
 * found", though `ls` shows it. */
Test(redteam6, a_plugin_path_entry_in_a_symlink_loop_says_why)
{
	char *dir = test_fresh_dir("rt6-loop");
	char *a = test_join(dir, "a.so"), *b = test_join(dir, "b.so");
	char *none = test_join(dir, "none.so");
	cr_assert_eq(symlink(b, a), 0);
	cr_assert_eq(symlink(a, b), 0);
	char *path = test_fmt("%s:%s", a, none);
	usmp_registry *r = test_registry_any(path);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 2);
	char *want = test_fmt("%s: cannot read plugin path entry: Too many levels "
	                      "of symbolic links (an entry of "
	                      "usmp_registry_options.plugin_path)", a);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 0), want);
	free(want);
	want = test_fmt("%s: plugin directory not found (an entry of "
	                "usmp_registry_options.plugin_path)", none);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 1), want);
	free(want);
	usmp_registry_destroy(r);
	remove(a);
	remove(b);
	rmdir(dir);
	free(path);
	free(none);
	free(a);
	free(b);
	free(dir);
}

/* ---- a CSV plan giving a live range the problem lacks --------------------- */

/* A CSV plan's lower and upper, when given, must equal the problem's
 * (docs/formats.md); for a buffer without a live range they were not
 * looked at, so a plan of another problem (one where the buffer lives over
 * [0, 1)) was taken. An empty cell is still the absence of a range. */
Test(redteam6, a_csv_plan_giving_a_live_range_the_problem_lacks_is_refused)
{
	static const char problem[] =
		"{\"buffers\": [{\"name\": \"a\", \"size\": 4}, "
		"{\"name\": \"b\", \"size\": 4, \"live\": [0, 2]}]}";
	char *dir = test_fresh_dir("rt6-csvplan");
	test_write_in(dir, "m.json", problem, strlen(problem));
	static const char given[] = "id,lower,upper,offset\nb,0,2,4\na,0,1,0\n";
	static const char upper[] = "id,lower,upper,offset\nb,0,2,4\na,,1,0\n";
	static const char empty[] = "id,lower,upper,offset\nb,0,2,4\na,,,0\n";
	test_write_in(dir, "given.csv", given, strlen(given));
	test_write_in(dir, "upper.csv", upper, strlen(upper));
	test_write_in(dir, "empty.csv", empty, strlen(empty));
	char *out = NULL;
	int st = test_usmp(&out, "verify '%s/m.json' '%s/given.csv'", dir, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	char *want = test_fmt("usmp: %s/given.csv:3: lower \"0\" given for buffer "
	                      "\"a\", which has no live range in the problem "
	                      "(leave the cell empty)\n", dir);
	cr_assert_str_eq(out, want);
	free(want);
	free(out);
	st = test_usmp(&out, "verify '%s/m.json' '%s/upper.csv'", dir, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "upper.csv:3: upper \"1\" given for buffer \"a\""),
	          "%s", out);
	free(out);
	out = test_usmp_ok("verify '%s/m.json' '%s/empty.csv'", dir, dir);
	cr_assert(strstr(out, "empty.csv: valid plan for "), "%s", out);
	free(out);
	free(dir);
}

/* ---- the Python binding --------------------------------------------------- */

/* Problem.add_buffer added the buffer, then its live range, candidates and
 * fixed placement one call each: a mistake in any of them (a pool name
 * misspelt, a pool listed twice, a range reversed, a live tuple of three)
 * raised with the buffer already in the problem, without its candidate
 * list (so free to use every pool) or its range, and adding it again as
 * meant was refused as a duplicate name. Everything the binding can check
 * is now checked first.
 *
 * A string where the binding takes a list was iterated letter by letter:
 * add_pool("q", targets="npu") made a pool of the targets "n", "p" and "u"
 * (no error); pools="sram" said `no pool named "s"`, params="order=area"
 * `knob setting "o" ... is not key=value`. A closed Registry planned into
 * NoMemoryError("out of memory"), listed no algorithms and bound rules
 * into a bare "invalid"; a plan of None was an AttributeError, an unknown
 * format a KeyError; isolate="no" planned with the default (in process
 * for shipped plugins), time_limit="1" was taken as 1 s, cancel=True
 * failed with an AttributeError; Registry(plugin_path=pathlib.Path(d))
 * failed with "'PosixPath' object is not iterable". */
Test(redteam6, python_checks_arguments_before_changing_anything)
{
	static const char script[] =
		"import usmp\n"
		"p = usmp.Problem()\n"
		"p.add_pool('sram')\n"
		"r = usmp.Registry()\n"
		"def run(what, f):\n"
		"    try:\n"
		"        print(what, 'ACCEPTED', f())\n"
		"    except (TypeError, usmp.UsmpError) as e:\n"
		"        print(what, type(e).__name__ + ':', e)\n"
		"run('targets', lambda: p.add_pool('q', targets='npu'))\n"
		"run('pools', lambda: p.add_buffer('a', 4, pools='sram'))\n"
		"run('params', lambda: r.plan(p, algorithm='first_fit', "
		"params='order=area'))\n"
		"run('bind', lambda: r.bind('npu', 'first_fit', params='order=area'))\n"
		"run('problem', lambda: r.plan(None))\n"
		"run('format', lambda: usmp.Problem.read('x.json', format='xml'))\n"
		"run('isolate', lambda: r.plan(p, isolate='no'))\n"
		"run('time', lambda: r.plan(p, time_limit='1'))\n"
		"run('cancel', lambda: r.plan(p, cancel=True))\n"
		"import os, pathlib\n"
		"d = pathlib.Path(os.environ['USMP_PLUGIN_PATH'])\n"
		"run('path', lambda: [a.name for a in usmp.Registry(plugin_path=d, "
		"use_env=False, default_dirs=False).algorithms][:3])\n"
		"print('pools', p.pools, 'buffers', p.buffers)\n"
		"p.add_pool('q', targets=['npu'])\n"
		"p.add_buffer('a', 4, live=(0, 1), pools=['q', 'sram'])\n"
		"pl = r.plan(p, algorithm='first_fit', params=['order=area'])\n"
		"print('planned', pl.placements['a'], pl.parts[0].params)\n"
		"pl.close()\n"
		"run('closed plan', lambda: pl.verify())\n"
		"r.close()\n"
		"run('closed plan()', lambda: r.plan(p))\n"
		"run('closed algorithms', lambda: r.algorithms)\n"
		"run('closed bind', lambda: r.bind('npu', 'first_fit'))\n"
		"q = usmp.Problem()\n"
		"q.add_pool('sram', size_limit=64)\n"
		"run('unknown pool', lambda: q.add_buffer('b', 8, pools=['sram', "
		"'dram']))\n"
		"run('pool twice', lambda: q.add_buffer('b', 8, pools=['sram', 0]))\n"
		"run('reversed', lambda: q.add_buffer('b', 8, live=(5, 1)))\n"
		"run('triple', lambda: q.add_buffer('b', 8, live=(0, 1, 2)))\n"
		"run('fixed pool', lambda: q.add_buffer('b', 8, fixed=(3, 0)))\n"
		"print('after', q.buffers, q.add_buffer('b', 8, pools=['sram']))\n";
	char *out = NULL;
	int st = test_python(script, 1, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	/* a pathlib.Path is one directory: its plugins load */
	const char *ok = strstr(out, "path ACCEPTED ['auto', 'exact', "
	                             "'exact_window']\n");
	cr_assert(ok, "%s", out);
	/* and nothing else was accepted */
	cr_assert_eq(strstr(out, "ACCEPTED"), strstr(ok, "ACCEPTED"), "%s", out);
	cr_assert_null(strstr(ok + 14, "ACCEPTED"), "%s", out);
	static const char *const want[] = {
		"targets TypeError: targets: expected a list of names, got the "
		"string 'npu' (write ['npu'] for one)\n",
		"pools TypeError: pools: expected a list of names, got the string "
		"'sram' (write ['sram'] for one)\n",
		"params TypeError: params: expected a list of knob settings "
		"(\"k=v\") or a dict, got the string 'order=area' (write "
		"['order=area'] for one)\n",
		"bind TypeError: params: expected a list of knob settings",
		"problem TypeError: plan: expected a usmp.Problem, got None\n",
		"format InvalidError: format: expected \"auto\", \"json\" or "
		"\"csv\", got 'xml'\n",
		"isolate TypeError: isolate must be True, False or None, got 'no'\n",
		"time TypeError: time_limit must be a number of seconds, got '1'\n",
		"cancel TypeError: cancel must be a usmp.Cancel, got True\n",
		"pools ['sram'] buffers []\n",
		"planned Placement(pool='q', offset=0) order=area\n",
		"closed plan InvalidError: plan is closed\n",
		"closed plan() InvalidError: registry is closed\n",
		"closed algorithms InvalidError: registry is closed\n",
		"closed bind InvalidError: registry is closed\n",
		"unknown pool NotFoundError: no pool named \"dram\"\n",
		"pool twice InvalidError: buffer \"b\": pool \"sram\" is already "
		"a candidate\n",
		"reversed InvalidError: buffer \"b\": live range [5, 1): end must "
		"be after begin\n",
		"triple InvalidError: live: expected 2 values (begin, end), got 3: "
		"(0, 1, 2)\n", /* a ValueError (test_python_values.py) */
		"fixed pool InvalidError: buffer \"b\": fixed pool 3 does not "
		"exist (1 pool)\n",
		"after [] 0\n",
	};
	for (size_t k = 0; k < sizeof want / sizeof *want; k++)
		cr_assert(strstr(out, want[k]), "missing %s in:\n%s", want[k], out);
	free(out);
}
