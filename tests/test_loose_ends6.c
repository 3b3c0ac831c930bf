/* test_loose_ends6.c — more loose ends: a failed plan write names its file,
 * a bad algorithm name gets a valid one, a missing directory its setting. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a plan write that fails names the output file ------------------------ */

/* `msg` begins with `want` and `file` was not written. */
static void refused_before_writing(const char *msg, const char *want,
                                   const char *file)
{
	cr_assert_eq(strncmp(msg, want, strlen(want)), 0, "%s", msg);
	cr_assert_null(test_read_file(file), "a file was written");
}

/* A buffer name in Latin-1, given through the API: the JSON writer refuses
 * it and says the file, then the record and field. */
Test(loose_ends6, a_failed_plan_write_names_its_file)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	uint32_t q, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64, 0, &q), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "caf\xe9", 8, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 0, 2), USMP_OK);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	char *dir = test_fresh_dir("le6-write");
	char *json = test_join(dir, "plan.json");
	cr_assert_eq(usmp_plan_write(plan, p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	char *want = test_fmt("writing %s: buffers[0].name is not valid UTF-8",
	                      json);
	cr_assert_str_eq(usmp_plan_error(plan), want);
	cr_assert_null(test_read_file(json), "a file was written");
	/* stdout is said as the I/O errors say it */
	cr_assert_eq(usmp_plan_write(plan, p, "-", USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_plan_error(plan),
	                 "writing <stdout>: buffers[0].name is not valid UTF-8");
	/* the CSV writer's refusal, before the file is opened, alike */
	char *csv = test_join(dir, "plan.csv");
	cr_assert_eq(usmp_plan_write(plan, p, csv, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	free(want);
	want = test_fmt("writing %s: cannot write the plan as CSV: ", csv);
	refused_before_writing(usmp_plan_error(plan), want, csv);
	free(csv);
	usmp_plan_destroy(plan);
	free(want);
	free(json);
	free(dir);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A problem's write refused alike: the JSON writer's refusal of a Latin-1
 * name and the CSV check of a pool limit CSV cannot hold both name the
 * file first, and leave none. */
Test(loose_ends6, a_failed_problem_write_names_its_file)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t q, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64, 0, &q), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "caf\xe9", 8, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 0, 2), USMP_OK);
	char *dir = test_fresh_dir("le6-pwrite");
	char *json = test_join(dir, "model.json");
	cr_assert_eq(usmp_problem_write(p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	char *want = test_fmt("writing %s: buffers[0].name is not valid UTF-8",
	                      json);
	cr_assert_str_eq(usmp_problem_error(p), want);
	cr_assert_null(test_read_file(json), "a file was written");
	char *csv = test_join(dir, "model.csv");
	cr_assert_neq(usmp_problem_write(p, csv, USMP_FORMAT_AUTO), USMP_OK);
	free(want);
	want = test_fmt("writing %s: ", csv);
	refused_before_writing(usmp_problem_error(p), want, csv);
	free(want);
	free(csv);
	free(json);
	free(dir);
	usmp_problem_destroy(p);
}

/* A figure JSON cannot hold: the library names the output file, the command
 * the problem's, each once. */
Test(loose_ends6, a_plan_too_large_for_json_names_both_files_once)
{
	static const char text[] =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}\n";
	char *path = test_write_tmp(".json", text);
	char *dir = test_fresh_dir("le6-big");
	char *out_json = test_join(dir, "plan.json");
	char *out = NULL;
	int st = test_run(test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	                           "'%s' -a first_fit -q -o '%s' 2>&1",
	                           test_cli(), path, out_json), &out);
	cr_assert_eq(st, 2, "%s", out);
	char *want = test_fmt("usmp: %s: writing %s: pool size: "
	                      "18446744073709551614 is too large for the JSON "
	                      "format (pools[0] \"default\")\n", path, out_json);
	cr_assert_str_eq(out, want);
	free(out);
	free(want);
	/* to stdout */
	st = test_run(test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	                       "'%s' -a first_fit -q 2>&1 >/dev/null",
	                       test_cli(), path), &out);
	cr_assert_eq(st, 2, "%s", out);
	want = test_fmt("usmp: %s: writing <stdout>: pool size: "
	                "18446744073709551614 is too large for the JSON format "
	                "(pools[0] \"default\")\n", path);
	cr_assert_str_eq(out, want);
	free(out);
	free(want);
	free(out_json);
	free(dir);
	remove(path);
	free(path);
}

/* ---- a bad algorithm name gets the nearest valid one ---------------------- */

/* bad_names.so (tests/plugins/loose_ends6/names.c): each name that breaks
 * [a-z][a-z0-9_]* is refused with the name to give it; the registry's
 * diagnostic and `usmp check-plugin` say the same. */
Test(loose_ends6, a_bad_algorithm_name_gets_the_nearest_valid_one)
{
	char *so = test_fmt("%s/loose_ends6/bad_names.so",
	                    test_fixture_plugindir());
	static const char *const want[] = {
		"algorithm 0: name \"Acme-LF\" is not [a-z][a-z0-9_]* (at most 128 "
		"bytes): name it \"acme_lf\"; skipped",
		"algorithm 1: name \"2opt.fast\" is not [a-z][a-z0-9_]* (at most 128 "
		"bytes): name it \"opt_fast\"; skipped",
		"algorithm 2: name \"caf\xc3\xa9-fit\" is not [a-z][a-z0-9_]* (at "
		"most 128 bytes): name it \"caf_fit\"; skipped",
		/* no letter: nothing to suggest */
		"algorithm 3: name \"__\" is not [a-z][a-z0-9_]* (at most 128 "
		"bytes); skipped",
	};
	usmp_registry *r = test_registry_any(so);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 4);
	for (int i = 0; i < 4; i++) {
		char *line = test_fmt("%s: %s", so, want[i]);
		cr_assert_str_eq(usmp_registry_diagnostic(r, i), line);
		free(line);
	}
	uint32_t a;
	cr_assert_eq(usmp_registry_find_algorithm(r, "le6_ok", &a), USMP_OK);
	cr_assert_neq(usmp_registry_find_algorithm(r, "acme_lf", &a), USMP_OK,
	              "a suggestion is not a registration");
	usmp_registry_destroy(r);

	char *out = NULL;
	int st = test_run(test_fmt("'%s' check-plugin '%s' 2>&1", test_cli(), so),
	                  &out);
	cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
	for (int i = 0; i < 4; i++) {
		char *line = test_fmt("FAIL not loaded: %s: %s\n", so, want[i]);
		cr_assert(strstr(out, line), "%s\nlacks\n%s", out, line);
		free(line);
	}
	free(out);
	free(so);
}

/* ---- a missing plugin directory names the setting it came from ------------ */

/* `DIR: plugin directory not found` said which directory, not where it was
 * set; the algorithm's not-found error already said (`entries of
 * usmp_registry_options.plugin_path ...`). The diagnostic says it too. */
Test(loose_ends6, a_missing_plugin_directory_names_its_setting)
{
	char *dir = test_fresh_dir("le6-miss");
	char *a = test_join(dir, "a"), *b = test_join(dir, "b");
	char *c = test_join(dir, "~c");
	char *opt = test_fmt("%s:%s", a, c);
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS,
	                           .plugin_path = opt};
	usmp_registry *r = NULL;
	cr_assert_eq(setenv("USMP_PLUGIN_PATH", b, 1), 0);
	int rc = usmp_registry_create(&o, &r);
	unsetenv("USMP_PLUGIN_PATH");
	cr_assert_eq(rc, USMP_OK);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 3);
	char *want = test_fmt("%s: plugin directory not found (an entry of "
	                      "usmp_registry_options.plugin_path)", a);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 0), want);
	free(want);
	/* "~" begins no entry here: a hint only for a leading "~" */
	want = test_fmt("%s: plugin directory not found (an entry of "
	                "usmp_registry_options.plugin_path)", c);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 1), want);
	free(want);
	want = test_fmt("%s: plugin directory not found (an entry of "
	                "USMP_PLUGIN_PATH)", b);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 2), want);
	free(want);
	usmp_registry_destroy(r);

	/* the command passes no option: USMP_PLUGIN_PATH, hint after it */
	char *out = NULL;
	int st = test_run(test_fmt("USMP_PLUGIN_PATH='%s:~/le6-none' '%s' list -v "
	                           "2>&1", a, test_cli()), &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	want = test_fmt("  %s: plugin directory not found (an entry of "
	                "USMP_PLUGIN_PATH)\n", a);
	cr_assert(strstr(out, want), "%s\nlacks\n%s", out, want);
	free(want);
	cr_assert(strstr(out, "  ~/le6-none: plugin directory not found (an "
	                      "entry of USMP_PLUGIN_PATH; \"~\" is not expanded "
	                      "here, only by a shell where it begins an unquoted "
	                      "word: write the full path, e.g. $HOME/... unquoted "
	                      "or in double quotes)\n"), "%s", out);
	free(out);
	free(opt);
	free(a);
	free(b);
	free(c);
	rmdir(dir);
	free(dir);
}
