/* test_firsthour.c — a fresh clone's first hour, checked: the README's host
 * program and plugin build and do what it says; messages name what they mean. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* README.md, "Using the library from a compiler": the program compiles as
 * written (warnings are errors) with the flags pkg-config gives, runs, and
 * prints the line the README's `./codegen    # ...` comment shows. */
Test(firsthour, readme_library_example_compiles_and_prints_its_comment)
{
	char *code = test_readme_block("/* codegen.c */");
	char *shown = test_readme_block("./codegen    # ");
	char *nl = strchr(shown, '\n');
	*nl = '\0';
	const char *expect = shown + strlen("./codegen    # ");
	char *dir = test_fresh_dir("firsthour-readme");
	test_write_in(dir, "codegen.c", code, strlen(code));
	/* A sanitized library needs its runtime in the program too. */
	char *sanflag = test_sanitize_flag();
	char *cmd = test_fmt(
		"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
		"cc -std=c11 -Wall -Wextra -Werror %s -o codegen codegen.c "
		"$(pkg-config --cflags --libs usmp-uninstalled) && "
		"USMP_PLUGIN_PATH= USMP_ALGORITHM= LD_LIBRARY_PATH='%s/src' ./codegen",
		dir, test_build_root(), sanflag, test_build_root());
	free(sanflag);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s", st, cmd, out);
	cr_assert(strstr(expect, "relu1.out: pool sram, offset 0;"),
	          "the README's comment: %s", expect);
	cr_assert(!strncmp(out, expect, strlen(expect)) && out[strlen(expect)] == '\n',
	          "printed:\n%s\nthe README says:\n%s", out, expect);
	free(out);
	free(cmd);
	free(dir);
	free(shown);
	free(code);
}

static const char off_schedule_json[] =
	"{\"usmp\": 1, \"buffers\": [\n"
	" {\"name\": \"a\", \"size\": 8, \"live\": [0, 2]},\n"
	" {\"name\": \"b\", \"size\": 8, \"live\": [1, 3]},\n"
	" {\"name\": \"c\", \"size\": 8, \"live\": [1, 4]}],\n"
	" \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\"},\n"
	"              {\"src\": \"b\", \"dst\": \"c\"}]}\n";

/* An overlap rule off its schedule names its record, as a cycle does: the
 * second rule here (b is last read at step 2, c begins at step 1). */
Test(firsthour, overlap_rule_off_schedule_names_its_record)
{
	static const char says[] =
		"overlaps[1]: rule \"b\" -> \"c\": \"c\" must be produced by the "
		"last reader of \"b\" (it begins at step 1; \"b\" is last read at "
		"step 2)";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, off_schedule_json,
	                                sizeof off_schedule_json - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), says), "%s", usmp_problem_error(p));
	cr_assert(!strncmp(usmp_problem_error(p), "model.json: ", 12), "%s",
	          usmp_problem_error(p));
	usmp_problem_destroy(p);

	char *path = test_write_tmp(".json", off_schedule_json);
	char *out = NULL;
	int st = test_usmp(&out, "bound '%s'", path);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, says), "%s", out);
	free(out);
	remove(path);
	free(path);

	/* Through the API the index counts usmp_problem_add_overlap calls. */
	p = usmp_problem_create();
	uint32_t a, b, c;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, &a), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 8, 1, &b), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 8, 1, &c), 0);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), 0);
	cr_assert_eq(usmp_problem_set_live(p, c, 1, 4), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, a, b, 0), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, b, c, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert_str_eq(usmp_problem_error(p), says);
	usmp_problem_destroy(p);
}

/* `usmp help WORD` names the word it does not know and lists the commands. */
Test(firsthour, help_of_an_unknown_command_names_it_and_lists_the_commands)
{
	char *out = NULL;
	int st = test_usmp(&out, "help nosuch");
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert_str_eq(out, "usmp: help: unknown command \"nosuch\" (commands: "
	                      "plan, verify, simulate, bound, list, select, "
	                      "check-plugin)\n");
	free(out);
	st = test_usmp(&out, "help plan verify");
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert_str_eq(out, "usmp: help: expected one command, got 2 (try "
	                      "`usmp --help`)\n");
	free(out);
	out = test_usmp_ok("help check-plugin");
	cr_assert(strstr(out, "usage: usmp check-plugin FILE.so"), "%s", out);
	free(out);
}

/* --capacity: K, M, G in either case, with B or iB, are powers of 1024 in
 * every command, and every command refuses a bad one alike. */
Test(firsthour, capacity_suffixes_are_powers_of_1024_in_every_command)
{
	char *path = test_write_tmp(".csv", "id,lower,upper,size\n"
	                                    "a,0,2,1024\nb,1,3,1048576\n");
	char *out = NULL;
	/* b alone is 1 MiB; a and b together at step 1 need 1 MiB + 1 KiB. */
	static const char *const fits[] = {"1025K", "1025k", "1025KB", "1025KiB",
	                                   "1049600"};
	for (size_t i = 0; i < sizeof fits / sizeof *fits; i++) {
		int st = test_usmp(&out, "plan '%s' --capacity %s -a first_fit -q "
		                   "-o /dev/null", path, fits[i]);
		cr_assert_eq(st, 0, "--capacity %s: exit %d: %s", fits[i], st, out);
		free(out);
	}
	static const char *const short_of[] = {"1M", "1m", "1MB", "1MiB", "1024K",
	                                       "1049599"};
	for (size_t i = 0; i < sizeof short_of / sizeof *short_of; i++) {
		int st = test_usmp(&out, "plan '%s' --capacity %s -a first_fit -q "
		                   "-o /dev/null", path, short_of[i]);
		cr_assert_eq(st, 3, "--capacity %s: exit %d: %s", short_of[i], st, out);
		cr_assert(strstr(out, "more than its limit (1048576 bytes)") ||
		                  strstr(out, "more than its limit (1049599 bytes)"),
		          "--capacity %s: %s", short_of[i], out);
		free(out);
	}
	static const char *const cmds[] = {"plan", "bound", "verify", "simulate"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		int two = !strcmp(cmds[i], "verify") || !strcmp(cmds[i], "simulate");
		int st = test_usmp(&out, "%s '%s'%s%s --capacity 1Mi", cmds[i], path,
		                   two ? " '" : "", two ? "plan.json'" : "");
		cr_assert_eq(st, 2, "%s: exit %d: %s", cmds[i], st, out);
		cr_assert_str_eq(out, "usmp: --capacity 1Mi: expected a positive byte "
		                      "count (e.g. 1048576 or 1M)\n",
		                 "%s", cmds[i]);
		free(out);
	}
	remove(path);
	free(path);
}

/* docs/hosts.md: knob names and typed values are checked when a rule is
 * bound; what a str knob may hold, when its algorithm runs. */
Test(firsthour, a_str_knob_value_is_checked_when_its_algorithm_runs)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "*=hill_climb:attempts=-3"),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_registry_error(r), "rule \"*=hill_climb:attempts=-3\""),
	          "%s", usmp_registry_error(r));
	cr_assert_eq(usmp_registry_bind_rules(r, "*=first_fit:order=sise"), USMP_OK);
	usmp_problem *p = test_parse_json(
		"{\"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": [0, 2]}]}",
		"m.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INVALID);
	const char *msg = usmp_plan_error(plan);
	cr_assert(strstr(msg, "first_fit failed (invalid): unknown order \"sise\""),
	          "%s", msg);
	cr_assert(strstr(msg, "algorithm chosen by rule \"*=first_fit:order=sise\" "
	                      "bound through the API"), "%s", msg);
	usmp_plan_destroy(plan);
	/* bool knobs take yes/no in any case, as docs/plugins.md's table says. */
	usmp_registry_clear_bindings(r);
	cr_assert_eq(usmp_registry_bind_rules(r, "*=auto:improve=No"), USMP_OK);
	plan = test_plan_ok(r, p, NULL);
	usmp_part_info info = test_part(plan, 0);
	cr_assert(strstr(info.params, "improve=false"), "%s", info.params);
	usmp_plan_destroy(plan);
	cr_assert_eq(usmp_registry_bind_rules(r, "*=auto:improve=on"),
	             USMP_ERR_INVALID);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* An array of the wrong length says how long it is. */
Test(firsthour, a_wrong_length_array_says_its_length)
{
	static const char input[] =
		"{\"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": [0, 2, 3]}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, input, sizeof input - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "model.json: buffers[0].live: "
	                                        "expected [begin, end], got an "
	                                        "array of 3 elements");
	usmp_problem_destroy(p);
}

/* README.md, "Writing a plugin": stack.c compiles as written (warnings are
 * errors) with the include flags alone, passes `usmp check-plugin`, and is
 * found on the plugin path by the command and by the library. */
Test(firsthour, readme_plugin_builds_passes_check_plugin_and_plans)
{
	char *code = test_readme_block("/* stack.c */");
	char *dir = test_fresh_dir("firsthour-plugin");
	test_write_in(dir, "stack.c", code, strlen(code));
	test_write_in(dir, "t.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\n", 36);
	char *cmd = test_fmt(
		"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
		"cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared "
		"-fvisibility=hidden $(pkg-config --cflags usmp-uninstalled) "
		"-o stack.so stack.c && nm -D --defined-only stack.so | grep -c ' usmp_'",
		dir, test_build_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s", st, cmd, out);
	cr_assert_str_eq(out, "1\n", "one export, the descriptor");
	free(out);
	free(cmd);

	/* The line the README's comment shows, up to its "; ...". */
	char *shown = test_readme_block("stack.so    # ");
	char *said = strstr(shown, "# ") + 2;
	char *cut = strstr(said, "; ...");
	cr_assert_not_null(cut, "%s", said);
	*cut = '\0';
	cr_assert(strstr(said, "ok   algorithm acme_stack:"), "%s", said);
	out = test_usmp_ok("check-plugin '%s/stack.so'", dir);
	cr_assert(strstr(out, said), "printed:\n%s\nthe README says:\n%s", out, said);
	free(out);
	free(shown);

	cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s/t.csv' "
	               "-a acme_stack -p gap=64", dir, test_cli(), dir);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "algorithm acme_stack (gap=64)"), "%s", out);
	cr_assert(strstr(out, "{\"name\": \"b\", \"pool\": \"default\", \"offset\": 72}"),
	          "%s", out);
	free(out);
	free(cmd);

	usmp_registry *r = test_registry(dir);
	usmp_problem *p = usmp_problem_create();
	char *csv = test_join(dir, "t.csv");
	cr_assert_eq(usmp_problem_read(p, csv, USMP_FORMAT_AUTO, 100), USMP_OK);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "acme_stack:gap=64"};
	usmp_plan *plan = NULL;
	/* 8 + 64 + 8 bytes fit a 100-byte pool; 8 + 96 + 8 do not. */
	plan = test_plan_ok(r, p, &o);
	uint64_t off = 0;
	cr_assert_eq(usmp_plan_placement(plan, 1, NULL, &off), USMP_OK);
	cr_assert_eq(off, 72);
	usmp_plan_destroy(plan);
	o.algorithm = "acme_stack:gap=96";
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(usmp_plan_error(plan), "the stack outgrows its pool"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(csv);
	free(dir);
	free(code);
}

/* An output in a directory that does not exist is refused before the
 * problem is read or planned: no summary, nothing written. */
Test(firsthour, an_output_in_a_missing_directory_is_refused_before_planning)
{
	char *dir = test_fresh_dir("firsthour-out");
	test_write_in(dir, "t.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\n", 36);
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s/t.csv' -o '%s/no/plan.json'", dir, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	char *want = test_fmt("usmp: %s/no/plan.json: cannot open for writing: No "
	                      "such file or directory\n", dir);
	cr_assert_str_eq(out, want, "no summary before the refusal");
	free(want);
	free(out);
	/* The picture's directory is checked as early: the plan is not written. */
	st = test_usmp(&out, "plan '%s/t.csv' -o '%s/plan.json' --svg '%s/t.csv/x.svg'",
	               dir, dir, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	want = test_fmt("usmp: %s/t.csv/x.svg: cannot open for writing: Not a "
	                "directory\n", dir);
	cr_assert_str_eq(out, want);
	free(want);
	free(out);
	char *plan = test_join(dir, "plan.json");
	char *text = test_read_file(plan);
	cr_assert_null(text, "plan.json was written: %s", text);
	free(plan);
	free(dir);
}

/* Options whose struct_size was forgotten are refused, not ignored: the
 * plugin path or algorithm they name would otherwise vanish silently. */
Test(firsthour, options_without_struct_size_are_refused)
{
	usmp_registry *r = (usmp_registry *)&r;
	usmp_registry_options ro = {.plugin_path = "/nonexistent"};
	cr_assert_eq(usmp_registry_create(&ro, &r), USMP_ERR_INVALID);
	cr_assert_null(r);
	r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": [0, 2]}]}",
		"m.json");
	usmp_plan_options o = {.algorithm = "exact"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_plan_error(plan),
	                 "usmp_plan_options.struct_size is 0: set it to "
	                 "sizeof(usmp_plan_options), or pass NULL for the defaults");
	usmp_plan_destroy(plan);
	/* Set, it is read up to its size: exact runs. */
	o.struct_size = sizeof o;
	plan = test_plan_ok(r, p, &o);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_str_eq(info.algorithm, "exact");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* exact's time_limit knob says that 0 leaves the call's default budget in
 * force (a plan without --time-limit stops after 10 s), not "no limit". */
Test(firsthour, exact_time_limit_help_names_the_default_budget)
{
	usmp_registry *r = test_registry(NULL);
	static const char *const algos[] = {"exact", "exact_window"};
	for (size_t a = 0; a < 2; a++) {
		uint32_t i, n;
		cr_assert_eq(usmp_registry_find_algorithm(r, algos[a], &i), USMP_OK);
		usmp_algorithm_info info = {.struct_size = sizeof info};
		cr_assert_eq(usmp_registry_algorithm(r, i, &info), USMP_OK);
		for (n = 0; n < info.param_count; n++) {
			usmp_param_info k = {.struct_size = sizeof k};
			cr_assert_eq(usmp_registry_param(r, i, n, &k), USMP_OK);
			if (strcmp(k.name, "time_limit"))
				continue;
			cr_assert_str_eq(k.default_value, "0");
			cr_assert(strstr(k.help, "0 = no limit of its own (the call's "
			                         "budget still applies: 10 s by default"),
			          "%s: %s", algos[a], k.help);
			break;
		}
		cr_assert_lt(n, info.param_count, "%s has no time_limit", algos[a]);
	}
	cr_assert_eq(USMP_DEFAULT_TIME_LIMIT, 10.0, "the help's 10 s");
	usmp_registry_destroy(r);
}

/* An empty JSON file says so, as an empty CSV file does, for a problem and
 * for a plan alike (not jansson's "'[' or '{' expected"). */
Test(firsthour, an_empty_json_file_says_it_is_empty)
{
	char *dir = test_fresh_dir("firsthour-empty");
	test_write_in(dir, "empty.json", "", 0);
	test_write_in(dir, "t.csv", "id,lower,upper,size\na,0,2,8\n", 28);
	char *out = NULL;
	int st = test_usmp(&out, "bound '%s/empty.json'", dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	char *want = test_fmt("usmp: %s/empty.json: empty file: expected a JSON "
	                      "object\n", dir);
	cr_assert_str_eq(out, want);
	free(want);
	free(out);
	st = test_usmp(&out, "verify '%s/t.csv' '%s/empty.json'", dir, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "empty.json: empty file: expected a JSON object"),
	          "%s", out);
	free(out);
	/* From memory, without a NUL after the text: only `len` bytes count. */
	static const char spaces[] = " \n {}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, spaces, 3, "m.json", USMP_FORMAT_JSON,
	                                USMP_UNBOUNDED), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "m.json: empty file (only white space): expected a JSON "
	                 "object");
	usmp_problem_destroy(p);
	free(dir);
}

/* A CSV problem behind a name without .csv (or on standard input, read as
 * JSON) gets jansson's message and the reason; JSON with a syntax error
 * does not. */
Test(firsthour, csv_read_as_json_says_how_csv_is_recognised)
{
	static const char hint[] = " (read as JSON; a MiniMalloc CSV problem is "
	                           "read from a file whose name ends in .csv)";
	static const char csv[] = "id,lower,upper,size\na,0,2,8\n";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, csv, sizeof csv - 1, "trace.txt",
	                                USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	char *want = test_fmt("trace.txt:1:2: '[' or '{' expected near 'id'%s", hint);
	cr_assert_str_eq(usmp_problem_error(p), want);
	free(want);
	usmp_problem_destroy(p);

	char *path = test_write_tmp(".csv", csv);
	char *out = NULL;
	int st = test_usmp(&out, "plan - -q < '%s'", path);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: <stdin>:1:2: '[' or '{' expected near 'id'"),
	          "%s", out);
	cr_assert(strstr(out, hint), "%s", out);
	free(out);
	remove(path);
	free(path);

	static const char json[] = "{\"usmp\": 1,}";
	p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, json, sizeof json - 1, "m.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_null(strstr(usmp_problem_error(p), "CSV"), "%s",
	               usmp_problem_error(p));
	usmp_problem_destroy(p);
}
