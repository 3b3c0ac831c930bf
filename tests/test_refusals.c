/* test_refusals.c — refused plugins made visible (exit 4 with the reason,
 * unknown names explained, shadowing warned, skipped plugins counted) and
 * parts whose pools several targets share (pool rules, all-targets rules). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* SRAM for target npu; DRAM reached by npu and cpu, whose buffers are
 * linked by explicit conflict edges (which exact cannot plan). */
static const char board_json[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [\n"
	"  {\"name\": \"sram\", \"size_limit\": 4096, \"targets\": [\"npu\"]},\n"
	"  {\"name\": \"dram\", \"size_limit\": 65536, \"targets\": [\"npu\", \"cpu\"]}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"npu.in\", \"size\": 1024, \"live\": [0, 2], \"pools\": [\"sram\"]},\n"
	"  {\"name\": \"npu.mid\", \"size\": 2048, \"live\": [1, 3], \"pools\": [\"sram\"]},\n"
	"  {\"name\": \"npu.out\", \"size\": 1024, \"live\": [2, 4], \"pools\": [\"sram\"]},\n"
	"  {\"name\": \"weights\", \"size\": 8192, \"pools\": [\"dram\"]},\n"
	"  {\"name\": \"cpu.scratch\", \"size\": 4096, \"pools\": [\"dram\"]},\n"
	"  {\"name\": \"cpu.log\", \"size\": 512, \"pools\": [\"dram\"]}],\n"
	" \"conflicts\": [[\"weights\", \"cpu.scratch\"], [\"cpu.scratch\", \"cpu.log\"]]}\n";

/* A fixture plugin's path (caller frees): "name" in the fixture directory,
 * "refused/name" in its refused/ subdirectory. */
static char *fixture(const char *name)
{
	size_t n = strlen(test_fixture_plugindir()) + strlen(name) + 8;
	char *p = malloc(n);
	cr_assert_not_null(p);
	snprintf(p, n, "%s/%s.so", test_fixture_plugindir(), name);
	return p;
}

/* Run `usmp ARGS` with USMP_PLUGIN_PATH and USMP_ALGORITHM set; returns the
 * exit status, *out the combined output (caller frees). */
static int usmp_with(const char *plugin_path, const char *rules,
                     const char *args, char **out)
{
	size_t n = strlen(plugin_path) + strlen(rules) + strlen(args) +
	           strlen(test_cli()) + 64;
	char *cmd = malloc(n);
	cr_assert_not_null(cmd);
	snprintf(cmd, n, "USMP_PLUGIN_PATH='%s' USMP_ALGORITHM='%s' '%s' %s",
	         plugin_path, rules, test_cli(), args);
	int st = test_run(cmd, out);
	cr_assert_not_null(*out);
	free(cmd);
	return st;
}

/* "A:B:C" from fixture names. */
static char *fixture_path(const char *const *names, size_t n)
{
	size_t len = 1;
	char *files[8];
	cr_assert(n <= 8);
	for (size_t i = 0; i < n; i++) {
		files[i] = fixture(names[i]);
		len += strlen(files[i]) + 1;
	}
	char *s = calloc(1, len);
	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ":");
		strcat(s, files[i]);
		free(files[i]);
	}
	return s;
}

#define assert_has(text, want) \
	cr_assert(strstr((text), (want)), "no \"%s\" in:\n%s", (want), (text))

/* ---- refused plugins ------------------------------------------------------ */

Test(refusals, abi_refused_algorithm_exits_4_with_the_reason)
{
	static const struct {
		const char *file, *algo, *reason;
	} cases[] = {
		{"newer_minor", "fx_newer", "newer_minor.so: built against ABI 1.4, "
		                            "newer than this host's 1.3"},
		{"refused/wrong_major", "fx_major2", "wrong_major.so: descriptor says "
		                                     "ABI 2.0; this host implements 1.3"},
		{"bad_signature", "fx_bad_sig", "bad_signature.so: algorithm "
		                                "\"fx_bad_sig\": bad parameter "
		                                "signature \"seed:u65=0\""},
	};
	char *problem = test_write_tmp(".json", board_json);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *path = fixture(cases[i].file), *out = NULL, args[4200];
		snprintf(args, sizeof args, "plan '%s' -a %s -q -o /dev/null",
		         problem, cases[i].algo);
		/* Read in the scanner: the names come back through its pipe. */
		int st = usmp_with(path, "", args, &out);
		cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
		char want[256];
		snprintf(want, sizeof want, "algorithm \"%s\" was refused when its "
		         "plugin was loaded: ", cases[i].algo);
		assert_has(out, want);
		assert_has(out, cases[i].reason);
		free(out);
		/* In process (no scanner), through the API and a rule. */
		usmp_registry_options o = {.struct_size = sizeof o,
		                           .flags = USMP_REGISTRY_NO_ENV |
		                                    USMP_REGISTRY_NO_DEFAULT_DIRS |
		                                    USMP_REGISTRY_NO_SCAN,
		                           .plugin_path = path};
		usmp_registry *r = NULL;
		cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
		usmp_selection sel = {.struct_size = sizeof sel};
		cr_assert_eq(usmp_registry_select(r, "npu", cases[i].algo, &sel),
		             USMP_ERR_PLUGIN);
		assert_has(usmp_registry_error(r), cases[i].reason);
		cr_assert_eq(usmp_registry_bind(r, "*", cases[i].algo, NULL, 0),
		             USMP_ERR_PLUGIN);
		usmp_registry_destroy(r);
		free(path);
	}
	free(problem);
}

Test(refusals, unknown_algorithm_names_every_skipped_plugin_and_close_names)
{
	static const char *const names[] = {"newer_minor", "v2_only",
	                                    "bad_signature"};
	char *path = fixture_path(names, 3), *out = NULL, args[4200];
	char *problem = test_write_tmp(".json", board_json);
	snprintf(args, sizeof args, "plan '%s' -a fx_neewer -o /dev/null", problem);
	int st = usmp_with(path, "", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "no algorithm \"fx_neewer\" (algorithms: auto, fx_sig_ok,");
	assert_has(out, "did you mean \"fx_newer\"? Skipped while loading plugins: ");
	assert_has(out, "newer_minor.so: built against ABI 1.4, newer than this "
	                "host's 1.3: rebuild it against the headers of the usmp "
	                "that loads it (pkg-config --cflags usmp), or load it "
	                "with a usmp of ABI 1.4 or later; ");
	assert_has(out, "v2_only.so: built for plugin ABI major 2 (exports "
	                "usmp_plugin_v2); this host implements 1.3; ");
	assert_has(out, "bad_signature.so: algorithm \"fx_bad_sig\": bad parameter");
	free(out);
	/* A major-2 descriptor is never read, so its names are unknown: its
	 * algorithm is an unknown name (exit 2), and the refusal is named. */
	snprintf(args, sizeof args, "plan '%s' -a fx_v2 -o /dev/null", problem);
	st = usmp_with(path, "", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "no algorithm \"fx_v2\"");
	assert_has(out, "v2_only.so: built for plugin ABI major 2");
	free(out);
	/* Without skipped plugins the message has no such tail. */
	snprintf(args, sizeof args, "plan '%s' -a best_fitt -o /dev/null", problem);
	st = usmp_with("", "", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "did you mean \"best_fit\"?");
	cr_assert_null(strstr(out, "Skipped while loading"), "%s", out);
	free(out);
	free(problem);
	free(path);
}

Test(refusals, shadowing_algorithm_is_a_warning_naming_both_files)
{
	char *path = fixture("refused/shadow_first_fit"), *out = NULL, args[4200];
	char *problem = test_write_tmp(".json", board_json);
	snprintf(args, sizeof args, "plan '%s' -a first_fit -o /dev/null", problem);
	cr_assert_eq(usmp_with(path, "", args, &out), 0, "%s", out);
	/* The shipped fit.so is found after the path: its first_fit is the one
	 * skipped, and the warning names both files. */
	assert_has(out, "usmp: warning: ");
	assert_has(out, "fit.so: algorithm \"first_fit\" is already provided by ");
	assert_has(out, "shadow_first_fit.so, found first, which shadows this "
	                "one; this one is skipped");
	free(out);
	cr_assert_eq(usmp_with(path, "", "list", &out), 0, "%s", out);
	assert_has(out, "usmp: warning: ");
	assert_has(out, "shadow_first_fit.so, found first, which shadows this one");
	free(out);
	/* The API tells it apart from a refusal. */
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_ENV,
	                           .plugin_path = path};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	uint32_t shadowed = 0;
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		if (usmp_registry_diagnostic_kind(r, i) == USMP_DIAG_SHADOWED) {
			shadowed++;
			assert_has(usmp_registry_diagnostic(r, i), "shadow_first_fit.so");
		}
	cr_assert_eq(shadowed, 1);
	cr_assert_eq(usmp_registry_diagnostic_kind(r, 999), USMP_DIAG_OTHER);
	usmp_registry_destroy(r);
	free(problem);
	free(path);
}

Test(refusals, plain_list_counts_the_skipped_plugins)
{
	static const char *const names[] = {"newer_minor", "v2_only",
	                                    "bad_signature"};
	char *path = fixture_path(names, 3), *out = NULL;
	cr_assert_eq(usmp_with(path, "", "list", &out), 0, "%s", out);
	assert_has(out, "usmp: note: 2 plugins, 1 algorithm skipped: usmp list -v "
	                "says why");
	assert_has(out, "fx_sig_ok ");
	free(out);
	cr_assert_eq(usmp_with("", "", "list", &out), 0, "%s", out);
	cr_assert_null(strstr(out, "skipped"), "%s", out);
	free(out);
	/* The verbose list says why, as before. */
	cr_assert_eq(usmp_with(path, "", "list -v", &out), 0, "%s", out);
	assert_has(out, "skipped:\n");
	assert_has(out, "newer_minor.so: built against ABI 1.4");
	free(out);
	free(path);
}

/* ---- parts shared by targets ---------------------------------------------- */

Test(refusals, shared_pool_board_plans_with_npu_exact_and_wildcard)
{
	char *problem = test_write_tmp(".json", board_json);
	char *plan = test_tmpfile(".json"), *out = NULL, args[8400];
	snprintf(args, sizeof args, "plan '%s' -o '%s'", problem, plan);
	int st = usmp_with("", "npu=exact;*=best_fit", args, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	assert_has(out, "part 1: target npu, algorithm exact");
	assert_has(out, "chosen by USMP_ALGORITHM rule \"npu=exact\"");
	assert_has(out, "part 2: target npu,cpu, algorithm best_fit");
	assert_has(out, "chosen by USMP_ALGORITHM rule \"*=best_fit\"");
	free(out);
	snprintf(args, sizeof args, "verify '%s' '%s'", problem, plan);
	cr_assert_eq(usmp_with("", "", args, &out), 0, "%s", out);
	assert_has(out, "valid plan");
	free(out);

	/* The same through the API, with the rules bound. */
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "npu=exact;*=best_fit"), USMP_OK);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *pl = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &pl), USMP_OK,
	             "%s", usmp_plan_error(pl));
	cr_assert_eq(usmp_plan_part_count(pl), 2);
	usmp_part_info pi = test_part(pl, 1);
	cr_assert_str_eq(pi.target, "npu,cpu");
	cr_assert_str_eq(pi.algorithm, "best_fit");
	cr_assert_str_eq(pi.rule, "*=best_fit");
	cr_assert_eq(pi.source, USMP_SOURCE_API);
	cr_assert_eq(usmp_plan_verify(pl, p), USMP_OK);
	usmp_plan_destroy(pl);
	/* A pool rule comes before target rules, wherever it stands. */
	usmp_registry_clear_bindings(r);
	cr_assert_eq(usmp_registry_bind_rules(r, "*=exact;@dram=first_fit"),
	             USMP_OK);
	cr_assert_eq(usmp_plan_compute(r, p, &o, &pl), USMP_OK,
	             "%s", usmp_plan_error(pl));
	cr_assert_eq(usmp_plan_part(pl, 1, &pi), USMP_OK);
	cr_assert_str_eq(pi.algorithm, "first_fit");
	cr_assert_str_eq(pi.rule, "@dram=first_fit");
	cr_assert_eq(usmp_plan_part(pl, 0, &pi), USMP_OK);
	cr_assert_str_eq(pi.algorithm, "exact");
	usmp_plan_destroy(pl);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	free(plan);
	free(problem);
}

Test(refusals, select_shows_the_rule_of_a_shared_part)
{
	char *out = NULL;
	int st = usmp_with("", "npu=exact;*=best_fit", "select npu cpu --pool dram",
	                   &out);
	cr_assert_eq(st, 0, "%s", out);
	assert_has(out, "npu, cpu (pools dram): best_fit\n"
	                "  chosen by USMP_ALGORITHM rule \"*=best_fit\"");
	free(out);
	st = usmp_with("", "npu=exact;@dr*=first_fit;*=best_fit",
	               "select npu cpu --pool dram", &out);
	cr_assert_eq(st, 0, "%s", out);
	assert_has(out, "npu, cpu (pools dram): first_fit\n"
	                "  chosen by USMP_ALGORITHM rule \"@dr*=first_fit\"");
	free(out);
	st = usmp_with("", "npu=exact;*=best_fit", "select npu", &out);
	cr_assert_eq(st, 0, "%s", out);
	assert_has(out, "npu: exact\n  chosen by USMP_ALGORITHM rule \"npu=exact\"");
	free(out);

	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "npu=exact;*pu=best_fit;"
	                                         "*=first_fit"), USMP_OK);
	const char *both[] = {"npu", "cpu"}, *pools[] = {"dram"};
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select_part(r, both, 2, pools, 1, NULL, &sel),
	             USMP_OK);
	cr_assert_str_eq(sel.rule, "*pu=best_fit"); /* the first matching both */
	cr_assert_eq(usmp_registry_select_part(r, both, 1, pools, 1, NULL, &sel),
	             USMP_OK);
	cr_assert_str_eq(sel.rule, "npu=exact");
	/* An empty pool pattern is refused, naming it. */
	cr_assert_eq(usmp_registry_bind_rules(r, "@=best_fit"), USMP_ERR_INVALID);
	assert_has(usmp_registry_error(r), "empty pool pattern after '@'");
	cr_assert_eq(usmp_registry_bind(r, "@", "best_fit", NULL, 0),
	             USMP_ERR_INVALID);
	usmp_registry_destroy(r);
}

Test(refusals, part_error_names_part_target_pools_rule_and_capability)
{
	char *problem = test_write_tmp(".json", board_json), *out = NULL;
	char args[4200];
	snprintf(args, sizeof args, "plan '%s' -o /dev/null", problem);
	int st = usmp_with("", "*=exact_window", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "algorithm \"exact_window\" cannot plan explicit conflict "
	                "edges: it lacks the capability conflict-edges; installed "
	                "algorithms that have it: auto, exact, first_fit, best_fit, ");
	assert_has(out, "(part 2: target npu,cpu; pool dram; algorithm chosen by "
	                "rule \"*=exact_window\" of USMP_ALGORITHM)");
	free(out);
	/* Two capabilities missing, two pools, the rule of -a. */
	char *multi = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"a\", \"size_limit\": 4096, "
		"\"targets\": [\"npu\"]}, {\"name\": \"b\", \"size_limit\": 4096, "
		"\"targets\": [\"npu\"]}], \"buffers\": [{\"name\": \"x\", \"size\": "
		"64, \"pools\": [\"a\", \"b\"]}, {\"name\": \"y\", \"size\": 64, "
		"\"pools\": [\"a\"]}], \"conflicts\": [[\"x\", \"y\"]]}");
	snprintf(args, sizeof args, "plan '%s' -a exact_window -o /dev/null", multi);
	st = usmp_with("", "", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "algorithm \"exact_window\" cannot plan buffers with "
	                "several candidate pools and explicit conflict edges: it "
	                "lacks the capabilities multi-pool, conflict-edges; "
	                "installed algorithms that have them: auto, exact, "
	                "first_fit, best_fit, ");
	assert_has(out, "(part 1: target npu; pools a, b; algorithm chosen by rule "
	                "\"exact_window\" of the plan options (-a))");
	free(out);
	free(multi);
	/* An error before any rule chose: the part, its target and pools. */
	snprintf(args, sizeof args, "plan '%s' -a nosuch -o /dev/null", problem);
	st = usmp_with("", "", args, &out);
	cr_assert_eq(st, 2, "exit %d:\n%s", st, out);
	assert_has(out, "no algorithm \"nosuch\"");
	assert_has(out, "(part 1: target npu; pool sram)");
	free(out);
	free(problem);
}
