/* test_firsthour2.c — an NPU toolchain's first hour, checked: a C++ plugin
 * from the README, the spill of a plan, why a volunteer did not run. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* README.md, "Writing a plugin": the same stack.c, saved as stack.cpp,
 * compiles as C++11 and C++20 (and with clang++ as C++17) with -pedantic,
 * -Wold-style-cast and -Wzero-as-null-pointer-constant as errors (the
 * descriptor was designated initializers, which neither accepts), exports
 * only the descriptor and passes `usmp check-plugin`. */
Test(firsthour2, readme_plugin_compiles_as_cxx_and_passes_check_plugin)
{
	char *out = NULL;
	if (test_run("command -v c++", &out) != 0) {
		free(out);
		cr_skip_test("no C++ compiler (c++) on PATH");
	}
	free(out);
	char *code = test_readme_block("/* stack.c */");
	cr_assert_null(strstr(code, ".name ="), "README's descriptor is designated "
	               "again: not C++:\n%s", code);
	char *dir = test_fresh_dir("firsthour2-cxx");
	test_write_in(dir, "stack.cpp", code, strlen(code));
	/* clang++ too when it is there (no C++ compiler is the suite's). */
	int clang = test_run("command -v clang++", &out) == 0;
	free(out);
	static const char *const stds[] = {"c++11", "c++20", "c++17"};
	static const char *const cxx[] = {"c++", "c++", "clang++"};
	for (size_t i = 0; i < 2u + (size_t)clang; i++) {
		char *cmd = test_fmt(
			"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
			"%s -std=%s -Wall -Wextra -pedantic -Werror -Wold-style-cast "
			"-Wzero-as-null-pointer-constant -O1 -fPIC -shared "
			"-fvisibility=hidden $(pkg-config --cflags usmp-uninstalled) "
			"-o stack_%zu.so stack.cpp && "
			"nm -D --defined-only stack_%zu.so | grep ' usmp_'",
			dir, test_build_root(), cxx[i], stds[i], i, i);
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "%s: exit %d:\n%s\n%s", stds[i], st, cmd, out);
		const char *nl = strchr(out, '\n');
		cr_assert(nl && !nl[1] && strstr(out, " usmp_plugin_v1\n"),
		          "%s: the one export is the descriptor, unmangled:\n%s",
		          stds[i], out);
		free(out);
		free(cmd);
	}
	out = test_usmp_ok("check-plugin '%s/stack_1.so'", dir);
	cr_assert(strstr(out, "plugin \"stack\" 1.0 (MIT), ABI 1.3, 1 algorithm"),
	          "%s", out);
	cr_assert(strstr(out, "ok   algorithm acme_stack:"), "%s", out);
	free(out);
	free(dir);
	free(code);
}

/* sram (100 bytes) before dram: "a" and "b" (64 bytes, alive together)
 * cannot both stay in sram, "c" (200 bytes) is larger than sram. */
static const char spill_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},\n"
	" {\"name\": \"dram\"}], \"buffers\": [\n"
	" {\"name\": \"a\", \"size\": 64, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},\n"
	" {\"name\": \"b\", \"size\": 64, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},\n"
	" {\"name\": \"c\", \"size\": 200, \"live\": [1, 3], \"pools\": [\"sram\", \"dram\"]},\n"
	" {\"name\": \"d\", \"size\": 32, \"live\": [2, 4], \"pools\": [\"sram\", \"dram\"]}]}\n";

/* The summary says what went outside its first pool, how much of it no
 * plan avoids and whether it is the least possible. */
Test(firsthour2, summary_names_the_spill_and_how_much_is_forced)
{
	char *path = test_write_tmp(".json", spill_json);
	char *out = test_usmp_ok("plan '%s' -a first_fit -o /dev/null", path);
	cr_assert(strstr(out, "\n    spill 264 bytes: 2 buffers outside their first "
	                      "candidate pool, the largest \"c\" in dram; 200 bytes "
	                      "of it forced; the least possible: no valid plan "
	                      "spills less\n"), "%s", out);
	free(out);
	/* exact keeps the least spill: the same 264 bytes, no advice. */
	out = test_usmp_ok("plan '%s' -a exact -o /dev/null", path);
	cr_assert(strstr(out, "\n    spill 264 bytes: 2 buffers"), "%s", out);
	cr_assert_null(strstr(out, "-a exact proves the least"), "%s", out);
	free(out);
	/* auto's spill is at the floor (200 forced, 64 of "a" or "b"): the
	 * least possible, nothing left for -a exact to prove. */
	out = test_usmp_ok("plan '%s' -o /dev/null", path);
	cr_assert(strstr(out, "\n    spill 264 bytes: 2 buffers"), "%s", out);
	cr_assert(strstr(out, "; 200 bytes of it forced; the least possible: no "
	                      "valid plan spills less\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "auto keeps"), "%s", out);
	free(out);
	/* Only the forced part: "c" alone, said so. */
	char *forced = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},"
		" {\"name\": \"dram\"}], \"buffers\": [{\"name\": \"c\", \"size\": 200,"
		" \"pools\": [\"sram\", \"dram\"]}]}");
	out = test_usmp_ok("plan '%s' -o /dev/null", forced);
	cr_assert(strstr(out, "\n    spill 200 bytes: 1 buffer outside its first "
	                      "candidate pool, the largest \"c\" in dram; forced: "
	                      "it is larger than its first candidate pool or fixed "
	                      "in another\n"), "%s", out);
	free(out);
	/* Read back, `usmp verify` says the same of each part. */
	char *plan = test_tmpfile(".json");
	out = test_usmp_ok("plan '%s' -a first_fit -q -o '%s'", path, plan);
	free(out);
	out = test_usmp_ok("verify '%s' '%s'", path, plan);
	cr_assert(strstr(out, "(4 buffers, 328 bytes in all pools)\n  part 1: "
	                      "spill 264 bytes: 2 buffers outside their first "
	                      "candidate pool, the largest \"c\" in dram; 200 "
	                      "bytes of it forced; the least possible: no valid "
	                      "plan spills less\n"), "%s", out);
	free(out);
	free(plan);
	/* No spill, no line. */
	out = test_usmp_ok("plan '%s/examples/mobilenet_v2.json' -o /dev/null",
	                   test_source_root());
	/* (the summary's line, not a path that holds the word) */
	cr_assert_null(strstr(out, "\n    spill "), "%s", out);
	free(out);
	free(forced);
	free(path);
}

/* usmp_part_info's appended spill fields, and a caller built against the
 * shorter struct, which must not see them. */
Test(firsthour2, part_info_carries_the_spill_for_callers_that_ask)
{
	usmp_problem *p = test_parse_json(spill_json, "spill.json");
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_part_count(plan), 1);
	usmp_part_info pi = test_part(plan, 0);
	uint32_t c = 0;
	cr_assert_eq(usmp_problem_find_buffer(p, "c", &c), USMP_OK);
	cr_assert_eq(pi.spill, 264);
	cr_assert_eq(pi.spill_count, 2);
	cr_assert_eq(pi.spill_largest, c);
	cr_assert_eq(pi.spill_forced, 200);
	cr_assert_eq(pi.spill_floor, 264);
	/* The spill agrees with the placements and the candidate order. */
	uint64_t in_dram = 0;
	uint32_t dram = 0, pool = 0;
	cr_assert_eq(usmp_problem_find_pool(p, "dram", &dram), USMP_OK);
	static const uint64_t sizes[] = {64, 64, 200, 32};
	for (uint32_t b = 0; b < 4; b++) {
		cr_assert_eq(usmp_plan_placement(plan, b, &pool, NULL), USMP_OK);
		in_dram += pool == dram ? sizes[b] : 0;
	}
	cr_assert_eq(in_dram, pi.spill);

	usmp_part_info old;
	memset(&old, 0x5a, sizeof old);
	old.struct_size = (uint32_t)offsetof(usmp_part_info, spill);
	cr_assert_eq(usmp_plan_part(plan, 0, &old), USMP_OK);
	cr_assert_eq(old.size, pi.size);
	cr_assert_eq(old.spill, 0x5a5a5a5a5a5a5a5aull, "written past struct_size");
	cr_assert_eq(old.spill_forced, 0x5a5a5a5a5a5a5a5aull);

	/* Read back from its file, the plan says the same. */
	char *file = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, file, USMP_FORMAT_JSON), USMP_OK);
	usmp_plan *back = NULL;
	cr_assert_eq(usmp_plan_read(p, file, USMP_FORMAT_AUTO, &back), USMP_OK,
	             "%s", usmp_plan_error(back));
	usmp_part_info bi = test_part(back, 0);
	cr_assert_eq(bi.spill, 264);
	cr_assert_eq(bi.spill_count, 2);
	cr_assert_eq(bi.spill_largest, c);
	cr_assert_eq(bi.spill_forced, 200);
	cr_assert_eq(bi.spill_floor, 264);
	usmp_plan_destroy(back);
	free(file);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A volunteer that auto does not run says why at info: the part needs a
 * capability it lacks, or a plan is already at the lower bound. */
Test(firsthour2, a_volunteer_says_why_it_did_not_run)
{
	char *so = test_fmt("%s/volunteer/volunteer.so", test_fixture_plugindir());
	char *fixed = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"pinned\", \"size\": 16,"
		" \"live\": [0, 2], \"fixed\": {\"pool\": \"default\", \"offset\": 0}},"
		" {\"name\": \"x\", \"size\": 16, \"live\": [1, 3]}]}");
	char *one = test_write_tmp(".csv", "id,lower,upper,size\na,0,2,8\nb,2,4,8\n");
	char *cmd = test_fmt("USMP_LOG=info USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= "
	                     "'%s' plan '%s' -o /dev/null", so, test_cli(), fixed);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: auto: volunteer fx_oracle not run: algorithm "
	                      "\"fx_oracle\" cannot plan buffers with fixed offsets: "
	                      "it lacks the capability fixed-offsets\n"), "%s", out);
	free(out);
	free(cmd);
	cmd = test_fmt("USMP_LOG=info USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= "
	               "'%s' plan '%s' -o /dev/null", so, test_cli(), one);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: auto: volunteer fx_oracle not run: the plan "
	                      "of "), "%s", out);
	cr_assert(strstr(out, " is at the lower bound (8 bytes)\n"), "%s", out);
	cr_assert_null(strstr(out, "volunteer fx_oracle took"), "%s", out);
	free(out);
	free(cmd);
	free(one);
	free(fixed);
	free(so);
}

/* A buffer fixed in a pool its candidate list leaves out: the record, the
 * list and the two ways out, from the file and through the API. */
Test(firsthour2, fixed_pool_outside_the_candidates_names_record_and_fix)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}, {\"name\": \"dtcm\"},"
		" {\"name\": \"dram\"}], \"buffers\": [{\"name\": \"w\", \"size\": 8},"
		" {\"name\": \"in\", \"size\": 16, \"pools\": [\"sram\", \"dtcm\"],"
		" \"fixed\": {\"pool\": \"dram\", \"offset\": 0}}]}";
	char *path = test_write_tmp(".json", json);
	char *out = NULL;
	int st = test_usmp(&out, "bound '%s'", path);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, ": buffers[1].fixed: buffer \"in\": fixed pool "
	                      "\"dram\" is not among its candidate pools (\"sram\", "
	                      "\"dtcm\"): add \"dram\" to them, or give the buffer "
	                      "none (a fixed buffer without candidates stays in its "
	                      "fixed pool)\n"), "%s", out);
	free(out);

	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 16, &sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "in", 64, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, b, sram), USMP_OK);
	cr_assert_eq(usmp_problem_set_fixed(p, b, dram, 0), USMP_OK);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "buffers[0].fixed: buffer \"in\": fixed pool \"dram\" is "
	                 "not among its candidate pools (\"sram\"): add \"dram\" to "
	                 "them, or give the buffer none (a fixed buffer without "
	                 "candidates stays in its fixed pool)");
	/* The refused problem is saved as it is, and replays from the file
	 * (the checklist's bug report). */
	char *bug = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, bug, USMP_FORMAT_JSON), USMP_OK, "%s",
	             usmp_problem_error(p));
	st = test_usmp(&out, "plan '%s'", bug);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, ": buffers[0].fixed: buffer \"in\": fixed pool "
	                      "\"dram\" is not among its candidate pools "
	                      "(\"sram\"): add \"dram\" to them"), "%s", out);
	free(out);
	free(bug);
	/* Following the message plans it. */
	cr_assert_eq(usmp_problem_add_candidate(p, b, dram), USMP_OK);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1, "%s",
	             usmp_problem_error(p));
	usmp_problem_destroy(p);
	free(path);
}

/* "pools": [] reads like "nowhere" but meant every pool: refused, naming
 * the record and both ways out. */
Test(firsthour2, an_empty_candidate_list_is_refused)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}, {\"name\": \"dram\"}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 8, \"pools\": [\"sram\"]},"
		" {\"name\": \"b\", \"size\": 8, \"pools\": []}]}";
	usmp_problem *p = usmp_problem_create();
	int rc = usmp_problem_parse(p, json, sizeof json - 1, "model.json",
	                            USMP_FORMAT_JSON, USMP_UNBOUNDED);
	cr_assert_eq(rc, USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "model.json: buffers[1].pools: an empty list: name at "
	                 "least one pool, or leave \"pools\" out for every pool");
	usmp_problem_destroy(p);
	/* Without the key, b may use either pool. */
	static const char fixed_json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}, {\"name\": \"dram\"}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 8, \"pools\": [\"sram\"]},"
		" {\"name\": \"b\", \"size\": 8}]}";
	p = test_parse_json(fixed_json, "model.json");
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1, "%s",
	             usmp_problem_error(p));
	usmp_problem_destroy(p);
}


/* An algorithm without the overlap-rules capability plans the rules as
 * plain conflicts: valid, larger, and said, naming who uses them. */
Test(firsthour2, rules_planned_as_conflicts_are_said)
{
	static const char json[] =
		"{\"usmp\": 1, \"buffers\": [\n"
		" {\"name\": \"in\", \"size\": 64, \"live\": [0, 2]},\n"
		" {\"name\": \"out\", \"size\": 64, \"live\": [1, 3]}],\n"
		" \"overlaps\": [{\"src\": \"in\", \"dst\": \"out\", \"max_lead\": 0}]}\n";
	char *path = test_write_tmp(".json", json);
	char *out = test_usmp_ok("plan '%s' -a greedy_by_size -o /dev/null", path);
	cr_assert(strstr(out, "    total 128 bytes, lower bound 64, ratio 2.0000\n"
	                      "    overlap rules: 1 planned as plain conflicts "
	                      "(greedy_by_size lacks the overlap-rules capability; "
	                      "algorithms that have it: auto, exact, first_fit, "
	                      "best_fit)\n"), "%s", out);
	free(out);
	out = test_usmp_ok("plan '%s' -a first_fit -o /dev/null", path);
	cr_assert(strstr(out, "total 64 bytes"), "%s", out);
	cr_assert_null(strstr(out, "overlap rules:"), "%s", out);
	free(out);

	usmp_problem *p = test_parse_json(json, "rules.json");
	usmp_registry *r = test_registry(NULL);
	static const char *const algos[] = {"greedy_by_conflicts", "best_fit", "auto"};
	static const uint64_t expect[] = {1, 0, 0};
	for (int i = 0; i < 3; i++) {
		usmp_plan_options o = {.struct_size = sizeof o, .algorithm = algos[i]};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s: %s",
		             algos[i], usmp_plan_error(plan));
		usmp_part_info pi = test_part(plan, 0);
		cr_assert_eq(pi.rules_as_conflicts, expect[i], "%s: %llu", algos[i],
		             (unsigned long long)pi.rules_as_conflicts);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	free(path);
}

/* "ratio 2.0000 (optimal)": y could sit in dram beside the pinned x (64
 * bytes in all) but stays in sram, its first pool, for 128; the summary
 * says what "optimal" is about. */
Test(firsthour2, optimal_above_the_lower_bound_says_what_it_proves)
{
	char *path = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},"
		" {\"name\": \"dram\"}], \"buffers\": ["
		"{\"name\": \"x\", \"size\": 64, \"live\": [0, 1],"
		" \"fixed\": {\"pool\": \"dram\", \"offset\": 0}},"
		"{\"name\": \"y\", \"size\": 64, \"live\": [1, 2],"
		" \"pools\": [\"sram\", \"dram\"]}]}");
	char *out = test_usmp_ok("plan '%s' -a exact -o /dev/null", path);
	cr_assert(strstr(out, "    total 128 bytes, lower bound 64, ratio 2.0000 "
	                      "(optimal)\n    optimal: no valid plan that spills "
	                      "no more is smaller than 128; the lower bound holds "
	                      "for any spill\n"), "%s", out);
	cr_assert_null(strstr(out, "spill 64"), "%s", out);
	free(out);
	/* At the lower bound there is nothing to explain. */
	char *at = test_write_tmp(".json", spill_json);
	out = test_usmp_ok("plan '%s' -a first_fit -o /dev/null", at);
	cr_assert(strstr(out, "ratio 1.0000 (optimal)\n"), "%s", out);
	cr_assert_null(strstr(out, "optimal: "), "%s", out);
	free(out);
	free(at);
	free(path);
}
