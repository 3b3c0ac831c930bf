/* test_first_hour.c — what a compiler engineer meets in the first hour:
 * unknown algorithms and missing descriptors say what to do; summary words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* The hint names the setting the path came from: the command's
 * USMP_PLUGIN_PATH, test_registry's option. */
#define PLUGIN_PATH_HINT_OF(setting)                                           \
	"an algorithm from a plugin of your own loads when its .so file, or its " \
	"directory, is on the plugin path (" setting ")"
#define PLUGIN_PATH_HINT PLUGIN_PATH_HINT_OF("USMP_PLUGIN_PATH")

static const char npu_json[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, \"targets\": [\"npu\"]}],\n"
	" \"buffers\": [{\"name\": \"a\", \"size\": 1024, \"live\": [0, 2]},\n"
	"             {\"name\": \"b\", \"size\": 1024, \"live\": [1, 3]}]}\n";

static char *run_plan(const char *problem, const char *algo, int *status)
{
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd,
	         "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan '%s' -a %s -o /dev/null",
	         test_cli(), problem, algo);
	*status = test_run(cmd, &out);
	cr_assert_not_null(out);
	return out;
}

Test(first_hour, cli_unknown_plugin_algorithm_names_the_plugin_path)
{
	char *problem = test_write_tmp(".json", npu_json);
	int st;
	char *out = run_plan(problem, "acme_lowest", &st);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "no algorithm \"acme_lowest\" (algorithms: auto,"), "%s", out);
	cr_assert(strstr(out, PLUGIN_PATH_HINT), "%s", out);
	cr_assert(strstr(out, "(part 1: target npu; pool sram)"), "%s", out);
	free(out);
	/* A typo of a loaded algorithm gets the close name, not the hint. */
	out = run_plan(problem, "exect", &st);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "did you mean \"exact\"?"), "%s", out);
	cr_assert_null(strstr(out, "USMP_PLUGIN_PATH"), "%s", out);
	free(out);
	remove(problem);
	free(problem);
}

Test(first_hour, api_bind_of_an_unknown_algorithm_names_the_plugin_path)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind(r, "npu", "acme_lowest", NULL, 0),
	             USMP_ERR_NOT_FOUND);
	const char *msg = usmp_registry_error(r);
	cr_assert(strstr(msg, "no algorithm \"acme_lowest\""), "%s", msg);
	cr_assert(strstr(msg, PLUGIN_PATH_HINT_OF(
	                          "usmp_registry_options.plugin_path")),
	          "%s", msg);
	usmp_registry_destroy(r);
}

/* The summary and the error messages name a part without a target alike. */
Test(first_hour, summary_says_target_none_like_the_messages)
{
	char *problem = test_write_tmp(".csv", "id,lower,upper,size\na,0,2,100\n"
	                                       "b,1,3,100\n");
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_ALGORITHM= '%s' plan '%s' -o /dev/null",
	         test_cli(), problem);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "  part 1: target none, algorithm auto/"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd,
	         "USMP_ALGORITHM= '%s' plan '%s' --capacity 150 -a first_fit -o /dev/null",
	         test_cli(), problem);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 3, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "(part 1: target none; pool default;"), "%s", out);
	free(out);
	remove(problem);
	free(problem);
}

/* A shared object without the descriptor (built with -fvisibility=hidden
 * but without USMP_PLUGIN_EXPORT, say) is told how to export it. */
Test(first_hour, a_missing_descriptor_says_how_to_export_it)
{
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "'%s' check-plugin '%s/not_a_plugin.so'",
	         test_cli(), test_fixture_plugindir());
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "not_a_plugin.so: not a usmp plugin (no usmp_plugin_v1 "
	                      "symbol); a plugin exports its descriptor as "
	                      "USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1"),
	          "%s", out);
	free(out);
}

/* The picture's header counts an empty pool in the singular. */
Test(first_hour, svg_header_counts_one_empty_pool_in_the_singular)
{
	char *problem = test_write_tmp(".json",
		"{\"pools\": [{\"name\": \"sram\"}, {\"name\": \"dram\"}],\n"
		" \"buffers\": [{\"name\": \"a\", \"size\": 64, \"live\": [0, 1],"
		" \"pools\": [\"sram\", \"dram\"]}]}\n");
	char *svg = test_tmpfile(".svg");
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_ALGORITHM= '%s' plan '%s' -q -o /dev/null --svg '%s'",
	         test_cli(), problem, svg);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	free(out);
	char *text = test_read_file(svg);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "; 1 empty pool not drawn<"), "%s", text);
	free(text);
	remove(svg);
	remove(problem);
	free(svg);
	free(problem);
}
