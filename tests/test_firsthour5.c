/* test_firsthour5.c — a plugin author's first hour: an algorithm asked for
 * while the plugin path names nothing loadable, a dropped volunteer, limits. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

/* The hint and the entries that gave no plugin name the setting the
 * path came from: the command's USMP_PLUGIN_PATH, the option of
 * test_registry_any. */
#define PLUGIN_PATH_HINT_OF(setting)                                           \
	"an algorithm from a plugin of your own loads when its .so file, or its " \
	"directory, is on the plugin path (" setting ")"
#define PLUGIN_PATH_HINT PLUGIN_PATH_HINT_OF("USMP_PLUGIN_PATH")
#define OPTION "usmp_registry_options.plugin_path"
#define API_HINT PLUGIN_PATH_HINT_OF(OPTION)
#define MISSES "entries of USMP_PLUGIN_PATH that gave no plugin: "
#define API_MISSES "entries of " OPTION " that gave no plugin: "

static const char npu_json[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, \"targets\": [\"npu\"]},\n"
	"           {\"name\": \"dram\", \"targets\": [\"npu\"]}],\n"
	" \"buffers\": [{\"name\": \"a\", \"size\": 1024, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},\n"
	"             {\"name\": \"b\", \"size\": 1024, \"live\": [1, 3], \"pools\": [\"sram\", \"dram\"]}],\n"
	" \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\", \"max_lead\": 0}]}\n";

Test(firsthour5, bind_names_a_plugin_path_directory_that_does_not_exist)
{
	char *dir = test_fresh_dir("fh5-missing");
	char *gone = test_join(dir, "plugin"); /* "plugins" misspelt */
	usmp_registry *r = test_registry_any(gone);
	cr_assert_eq(usmp_registry_bind(r, "npu", "acme_spill", NULL, 0),
	             USMP_ERR_NOT_FOUND);
	const char *msg = usmp_registry_error(r);
	cr_assert(strstr(msg, "no algorithm \"acme_spill\""), "%s", msg);
	cr_assert(strstr(msg, API_HINT "; " API_MISSES), "%s", msg);
	char *want = test_fmt("%s: plugin directory not found", gone);
	cr_assert(strstr(msg, want), "%s", msg);
	free(want);
	usmp_registry_destroy(r);
	rmdir(dir);
	free(gone);
	free(dir);
}

Test(firsthour5, a_directory_without_so_files_is_named_beside_a_close_name)
{
	/* The plugin's source directory on the path instead of its build
	 * directory, and a misspelt shipped name: both said. */
	char *src = test_fresh_dir("fh5-src");
	test_write_in(src, "acme.c", "int x;\n", 7);
	char *path = test_fmt("%s/plugins:%s", test_build_root(), src);
	usmp_registry *r = test_registry_any(path);
	cr_assert_eq(usmp_registry_bind(r, "npu", "exect", NULL, 0),
	             USMP_ERR_NOT_FOUND);
	const char *msg = usmp_registry_error(r);
	char *want = test_fmt("did you mean \"exact\"? Entries of " OPTION " "
	                      "that gave no plugin: %s: no .so file in the "
	                      "directory", src);
	cr_assert(strstr(msg, want), "%s", msg);
	cr_assert_null(strstr(msg, API_HINT), "%s", msg);
	free(want);
	usmp_registry_destroy(r);
	char *c = test_join(src, "acme.c");
	remove(c);
	rmdir(src);
	free(c);
	free(path);
	free(src);
}

Test(firsthour5, a_plugin_path_that_loads_adds_no_note)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind(r, "npu", "acme_spill", NULL, 0),
	             USMP_ERR_NOT_FOUND);
	const char *msg = usmp_registry_error(r);
	cr_assert(strstr(msg, API_HINT), "%s", msg);
	cr_assert_null(strstr(msg, "entries of "), "%s", msg);
	usmp_registry_destroy(r);
}

Test(firsthour5, plan_error_of_a_host_names_the_missing_entry)
{
	/* What a host prints (usmp_plan_error) when the user's plugin
	 * directory is misspelt in its option: every entry is named. */
	char *dir = test_fresh_dir("fh5-host");
	char *a = test_join(dir, "nope1"), *b = test_join(dir, "nope2");
	char *path = test_fmt("%s:%s", a, b);
	usmp_registry *r = test_registry_any(path);
	usmp_problem *p = test_parse_json(npu_json, "npu.json");
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "acme_spill:gap=64"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_NOT_FOUND);
	const char *msg = usmp_plan_error(plan);
	char *want = test_fmt(API_MISSES "%s: plugin directory not found; %s: plugin "
	                      "directory not found (part 1: target npu; pools "
	                      "sram, dram)", a, b);
	cr_assert(strstr(msg, want), "%s", msg);
	free(want);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	rmdir(dir);
	free(path);
	free(a);
	free(b);
	free(dir);
}

Test(firsthour5, cli_plan_names_a_misspelt_plugin_path)
{
	char *problem = test_write_tmp(".json", npu_json);
	char *dir = test_fresh_dir("fh5-cli");
	char *gone = test_join(dir, "plugin");
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s' "
	                     "-a acme_spill -q -o /dev/null",
	                     gone, test_cli(), problem);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	char *want = test_fmt(MISSES "%s: plugin directory not found", gone);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert(strstr(out, "usmp: "), "%s", out);
	free(want);
	free(out);
	free(cmd);
	remove(problem);
	rmdir(dir);
	free(gone);
	free(dir);
	free(problem);
}

Test(firsthour5, env_rule_naming_a_plugin_of_a_misspelt_path_names_it)
{
	/* The rule is read when the registry is created: the entries are
	 * known by then. */
	char *problem = test_write_tmp(".json", npu_json);
	char *dir = test_fresh_dir("fh5-env");
	char *gone = test_join(dir, "plugin");
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM='npu=acme_spill' "
	                     "'%s' plan '%s' -q -o /dev/null",
	                     gone, test_cli(), problem);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	char *want = test_fmt("USMP_ALGORITHM rule \"npu=acme_spill\": no algorithm "
	                      "\"acme_spill\" (");
	cr_assert(strstr(out, want), "%s", out);
	free(want);
	want = test_fmt(PLUGIN_PATH_HINT "; " MISSES "%s: plugin directory not "
	                "found (part 1: target npu; pools sram, dram)", gone);
	cr_assert(strstr(out, want), "%s", out);
	free(want);
	free(out);
	free(cmd);
	remove(problem);
	rmdir(dir);
	free(gone);
	free(dir);
	free(problem);
}

Test(firsthour5, a_part_stopped_by_the_users_limit_names_that_limit)
{
	/* --time-limit 0.3 is the command's; the part worked to what reading
	 * left of it (0.269546 s, say): the summary names the user's 0.3. */
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s/tests/data/minimalloc/D.1048576.csv' "
	                   "-a exact --time-limit 0.3 -o /dev/null",
	                   test_source_root());
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, ", time limit 0.3 s\n"), "%s", out);
	cr_assert(strstr(out, "    stopped at the time limit of 0.3 s: best plan so "
	                      "far, proven bound "), "%s", out);
	free(out);
}

Test(firsthour5, cli_says_a_volunteer_was_dropped_without_usmp_log)
{
	/* FX/volunteer/volunteer_crash.so: fx_volunteer_crash (a SIGSEGV) and
	 * fx_volunteer_invalid (overlapping buffers), both volunteers. auto
	 * plans on without them; usmp plan says so unasked, -q does not. */
	char *csv = test_write_tmp(".csv", test_crafted_csv);
	char *so = test_fmt("%s/volunteer/volunteer_crash.so", test_fixture_plugindir());
	for (int quiet = 0; quiet < 2; quiet++) {
		char *cmd = test_fmt("USMP_LOG= USMP_ALGORITHM= USMP_PLUGIN_PATH='%s' "
		                     "'%s' plan '%s' -a auto:improve=false%s "
		                     "-o /dev/null", so, test_cli(), csv,
		                     quiet ? " -q" : "");
		char *out = NULL;
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
		const char *invalid = strstr(out, "usmp: auto: volunteer "
		                                  "fx_volunteer_invalid returned an "
		                                  "invalid plan (dropped): buffers ");
		const char *crash = strstr(out, "usmp: auto: volunteer "
		                                "fx_volunteer_crash failed (plugin "
		                                "failure: ");
		if (quiet) {
			cr_assert_null(invalid, "%s", out);
			cr_assert_null(crash, "%s", out);
		} else {
			cr_assert_not_null(invalid, "%s", out);
			cr_assert_not_null(crash, "%s", out);
			/* Only the warnings: auto's info lines stay unsaid. */
			cr_assert_null(strstr(out, " took "), "%s", out);
			cr_assert(strstr(out, "part 1: target none, algorithm auto/"),
			          "%s", out);
		}
		free(out);
		free(cmd);
	}
	remove(csv);
	free(csv);
	free(so);
}
