/* test_firsthour9.c — a compiler engineer's first hour, round 9: plugin path,
 * ABI and rule slips, plugins that misbehave, hand-written JSON, clashes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* The registry's diagnostic that contains `what`, or NULL. */
static const char *diagnostic_with(const usmp_registry *r, const char *what)
{
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		if (strstr(usmp_registry_diagnostic(r, i), what))
			return usmp_registry_diagnostic(r, i);
	return NULL;
}

/* The message of reading `json` as a problem (it must be refused). */
static char *refusal(const char *json)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int rc = usmp_problem_parse(p, json, strlen(json), "model.json",
	                            USMP_FORMAT_JSON, USMP_UNBOUNDED);
	cr_assert_eq(rc, USMP_ERR_INVALID, "accepted: %s", json);
	char *msg = strdup(usmp_problem_error(p));
	usmp_problem_destroy(p);
	return msg;
}

static void assert_has(const char *text, const char *want)
{
	cr_assert(strstr(text, want), "no \"%s\" in:\n%s", want, text);
}

/* ---- the plugin path -------------------------------------------------------- */

/* `export USMP_PLUGIN_PATH="~/usmp-plugins"` (quoted), a ';' between two
 * entries as on Windows, '$HOME' in single quotes: each was "plugin
 * directory not found" alone, though the directory was there. */
Test(firsthour9, a_plugin_path_entry_the_shell_did_not_expand_says_so)
{
	static const struct {
		const char *entry, *hint;
	} cases[] = {
		{"~/usmp-fh9-plugins", "(\"~\" is not expanded here, only by a "
		                       "shell where it begins an unquoted word: "
		                       "write the full path"},
		{"/nonexistent-fh9/a;/nonexistent-fh9/b",
		 "(entries of a plugin path are separated by ':', not ';')"},
		{"$HOME/usmp-fh9-plugins", "(\"$\" is not expanded here: let the "
		                           "shell expand the variable"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		usmp_registry *r = test_registry_any(cases[i].entry);
		const char *d = diagnostic_with(r, "plugin directory not found");
		cr_assert_not_null(d, "%s: no diagnostic", cases[i].entry);
		/* the diagnostic says the setting, then the hint */
		char *said = test_fmt("plugin directory not found (an entry of "
		                      "usmp_registry_options.plugin_path; %s",
		                      cases[i].hint + 1);
		assert_has(d, said);
		free(said);
		/* Where the algorithm is not found, the entry and the hint. */
		usmp_selection sel = {.struct_size = sizeof sel};
		cr_assert_eq(usmp_registry_select(r, "npu", "acme_lf", &sel),
		             USMP_ERR_NOT_FOUND);
		assert_has(usmp_registry_error(r), cases[i].hint);
		usmp_registry_destroy(r);
	}
	/* A plain missing directory gets no guess. */
	usmp_registry *r = test_registry_any("/nonexistent-fh9/plugins");
	const char *d = diagnostic_with(r, "plugin directory not found");
	cr_assert_not_null(d);
	cr_assert_str_eq(d, "/nonexistent-fh9/plugins: plugin directory not found "
	                    "(an entry of usmp_registry_options.plugin_path)");
	usmp_registry_destroy(r);
	/* The command prints it as a note. */
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='~/usmp-fh9-plugins' '%s' list",
	                     test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	assert_has(out, "usmp: note: 1 other diagnostic");
	free(out);
	free(cmd);
	cmd = test_fmt("USMP_PLUGIN_PATH='~/usmp-fh9-plugins' '%s' list -v",
	               test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	assert_has(out, "~/usmp-fh9-plugins: plugin directory not found (an "
	                "entry of USMP_PLUGIN_PATH; \"~\" is not expanded here");
	free(out);
	free(cmd);
}

/* ---- a plugin built against the wrong headers ------------------------------ */

/* A plugin built against a newer usmp's headers (ABI 1.4), or a v1
 * descriptor saying 2.0: the refusal said what was wrong, not what to do. */
Test(firsthour9, a_plugin_of_another_abi_is_told_to_rebuild)
{
	char *newer = test_fmt("%s/newer_minor.so", test_fixture_plugindir());
	char *major = test_fmt("%s/refused/wrong_major.so",
	                       test_fixture_plugindir());
	usmp_registry *r = test_registry_any(newer);
	const char *d = diagnostic_with(r, "newer_minor.so");
	cr_assert_not_null(d);
	assert_has(d, "built against ABI 1.4, newer than this host's 1.3: "
	              "rebuild it against the headers of the usmp that loads it "
	              "(pkg-config --cflags usmp), or load it with a usmp of ABI "
	              "1.4 or later");
	usmp_registry_destroy(r);
	r = test_registry_any(major);
	d = diagnostic_with(r, "wrong_major.so");
	cr_assert_not_null(d);
	assert_has(d, "descriptor says ABI 2.0; this host implements 1.3: "
	              "rebuild it against the headers of the usmp that loads it "
	              "(pkg-config --cflags usmp)");
	usmp_registry_destroy(r);
	char *out = NULL;
	int st = test_usmp(&out, "check-plugin '%s'", newer);
	cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
	assert_has(out, "newer than this host's 1.3: rebuild it against the "
	                "headers");
	free(out);
	free(newer);
	free(major);
}

/* ---- a hand-written problem ------------------------------------------------ */

/* "live": [2, 2] for a buffer used at step 2 alone (an inclusive last
 * step): the CSV reader explained the half-open range, JSON and the
 * builder did not. */
Test(firsthour9, an_empty_live_range_explains_the_half_open_range)
{
	char *msg = refusal("{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	                    "\"live\": [2, 2]}]}");
	cr_assert_str_eq(msg, "model.json: buffers[0].live: end (2) is not after "
	                 "begin (2): [begin, end] is half-open, end excluded, so "
	                 "a buffer alive only at step t is [t, t + 1] (an "
	                 "inclusive last step + 1)");
	free(msg);
	/* Reversed: no such guess. */
	msg = refusal("{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	              "\"live\": [7, 3]}]}");
	cr_assert_str_eq(msg, "model.json: buffers[0].live: end (3) is not after "
	                 "begin (7)");
	free(msg);
	usmp_problem *p = usmp_problem_create();
	uint32_t b;
	cr_assert_eq(usmp_problem_add_buffer(p, "conv1.out", 64, 16, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 2, 2), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "buffer \"conv1.out\": live range "
	                 "[2, 2): end must be after begin: the range excludes its "
	                 "end, so a buffer alive only at step t is [t, t + 1) (an "
	                 "inclusive last step + 1)");
	cr_assert_eq(usmp_problem_set_live(p, b, 3, 1), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "buffer \"conv1.out\": live range "
	                 "[3, 1): end must be after begin");
	usmp_problem_destroy(p);
}

/* A pool's "size" (for "size_limit"), "align", "lifetime", a buffer's
 * "bytes", an overlap's "source": other tools' words, too far from the
 * key for the misspelling hint, got the list of known keys alone. */
Test(firsthour9, another_tools_json_key_names_the_key_meant)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{"{\"pools\": [{\"name\": \"sram\", \"size\": 262144}]}",
		 "model.json: pools[0]: unknown key \"size\" (known: name, "
		 "size_limit, alignment, targets): did you mean \"size_limit\"?"},
		{"{\"pools\": [{\"name\": \"sram\", \"capacity\": 262144}]}",
		 "did you mean \"size_limit\"?"},
		{"{\"pools\": [{\"name\": \"sram\", \"align\": 16}]}",
		 "pools[0]: unknown key \"align\" (known: name, size_limit, "
		 "alignment, targets): did you mean \"alignment\"?"},
		{"{\"buffers\": [{\"name\": \"a\", \"bytes\": 64}]}",
		 "buffers[0]: unknown key \"bytes\" (known: name, size, alignment, "
		 "live, pools, fixed): did you mean \"size\"?"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 64, \"align\": 16}]}",
		 "did you mean \"alignment\"?"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 64, \"lifetime\": "
		 "[0, 2]}]}",
		 "did you mean \"live\"?"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 64, \"candidates\": "
		 "[\"sram\"]}]}",
		 "did you mean \"pools\"?"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 64, \"live\": [0, 2]}, "
		 "{\"name\": \"b\", \"size\": 64, \"live\": [1, 3]}], \"overlaps\": "
		 "[{\"source\": \"a\", \"dst\": \"b\"}]}",
		 "overlaps[0]: unknown key \"source\" (known: src, dst, max_lead): "
		 "did you mean \"src\"?"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *msg = refusal(cases[i].json);
		assert_has(msg, cases[i].want);
		free(msg);
	}
	/* A word with no key meant gets the list alone. */
	char *msg = refusal("{\"buffers\": [{\"name\": \"a\", \"size\": 64, "
	                    "\"colour\": \"red\"}]}");
	cr_assert_str_eq(msg, "model.json: buffers[0]: unknown key \"colour\" "
	                 "(known: name, size, alignment, live, pools, fixed)");
	free(msg);
}

/* A comment, single quotes, a comma after the last item: jansson's words
 * ("invalid token near '/'") did not say what JSON refuses. */
Test(firsthour9, a_hand_written_json_syntax_slip_is_named)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{"{\"buffers\": [ // weights\n]}",
		 "model.json:1:15: invalid token near '/' (JSON has no comments: "
		 "remove them)"},
		{"{'buffers': []}",
		 "model.json:1:2: string or '}' expected near ''' (JSON strings and "
		 "keys take double quotes)"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 4,}]}",
		 "model.json:1:38: string or '}' expected near '}' (a comma before "
		 "'}'? JSON allows none after an object's last member)"},
		{"{\"buffers\": [{\"name\": \"a\", \"size\": 4},]}",
		 "model.json:1:39: unexpected token near ']' (a comma before ']'? "
		 "JSON allows none after an array's last element)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *msg = refusal(cases[i].json);
		cr_assert_str_eq(msg, cases[i].want);
		free(msg);
	}
	/* Other syntax errors are jansson's alone. */
	char *msg = refusal("{\"buffers\": [{\"name\": \"a\", \"size\": 4");
	cr_assert_str_eq(msg, "model.json:1:36: '}' expected near end of file");
	free(msg);
}

/* ---- fixed buffers that clash ---------------------------------------------- */

/* A CSV plan read back as a problem fixes every buffer; two fixed on the
 * same bytes in the unbounded pool said "limit no size limit:
 * 18446744073709551615 bytes of address space", a limit nothing exceeded,
 * and nothing about what to change. */
Test(firsthour9, clashing_fixed_buffers_say_what_to_change)
{
	char *path = test_write_tmp(".csv", "id,lower,upper,size,offset\n"
	                                    "0,0,1,64,8\n1,0,1,64,8\n");
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
	const char *e = usmp_plan_error(plan);
	assert_has(e, "the fixed placements clash: buffers \"0\" and \"1\" overlap "
	              "in pool \"default\" at bytes [8, 72) while both are live "
	              "(pool \"default\", no size limit; the lower bound of the "
	              "group is 128 bytes): fix one of them at other bytes or in "
	              "another pool (a file's \"fixed\", usmp_problem_set_fixed), "
	              "or make them live at different steps");
	cr_assert_null(strstr(e, "address space"), "%s", e);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* A pool with a limit still names it. */
	p = test_parse_json("{\"pools\": [{\"name\": \"sram\", \"size_limit\": 1024}],"
	                    " \"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\":"
	                    " [0, 2], \"fixed\": {\"offset\": 0}}, {\"name\": \"b\","
	                    " \"size\": 16, \"live\": [1, 3], \"fixed\": {\"offset\":"
	                    " 8}}]}", "clash.json");
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
	assert_has(usmp_plan_error(plan), "(pool \"sram\", limit 1024 bytes; the "
	           "lower bound of the group is 32 bytes): fix one of them");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(path);
}

/* ---- a plugin that returns a bad plan -------------------------------------- */

/* The verifier's refusal of a plugin's plan named the algorithm alone: a
 * compiler engineer handed the message by a user learnt neither which file
 * nor how to reproduce it. */
Test(firsthour9, an_invalid_plugin_plan_names_its_file_and_check_plugin)
{
	static const char json[] =
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": "
		"[0, 4]}, {\"name\": \"b\", \"size\": 8, \"live\": [0, 4]}, "
		"{\"name\": \"c\", \"size\": 8, \"live\": [0, 4]}]}";
	char *liars = test_fmt("%s/redteam4/liars.so", test_fixture_plugindir());
	usmp_registry *r = test_registry(liars);
	usmp_problem *p = test_parse_json(json, "x.json");
	static const uint32_t flags[] = {USMP_PLAN_NO_ISOLATE, USMP_PLAN_ISOLATE};
	for (int i = 0; i < 2; i++) {
		usmp_plan_options o = {.struct_size = sizeof o, .flags = flags[i],
		                       .algorithm = "rt_bad_plan:how=0"};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_PLUGIN);
		char *want = test_fmt("algorithm \"rt_bad_plan\" returned an invalid "
		                      "plan: buffer \"c\" has no pool; its plugin "
		                      "\"liars\" (%s) broke its contract: usmp "
		                      "check-plugin %s runs it on small problems and "
		                      "names each failure (part 1: ", liars, liars);
		assert_has(usmp_plan_error(plan), want);
		free(want);
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	/* check-plugin itself prints the violation, not the advice to run it. */
	char *out = NULL, *bugs = test_fmt("%s/check/bugs.so",
	                                   test_fixture_plugindir());
	int st = test_usmp(&out, "check-plugin '%s'", bugs);
	cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
	assert_has(out, "FAIL algorithm gap_stack with gap=18446744073709551615, "
	                "on problem \"live\" (one pool, six buffers with live "
	                "ranges): returned a plan the verifier rejects: buffers "
	                "\"a\" and \"b\" overlap in pool \"mem\" at bytes [63, 64) "
	                "while both are live (part 1: ");
	free(bugs);
	cr_assert_null(strstr(out, "broke its contract"), "%s", out);
	free(out);
	free(liars);
}

/* ---- the options ------------------------------------------------------------ */

/* time_limit = NAN (an uninitialised double, a division by zero) or -1:
 * "time limit must be >= 0 seconds" named neither the field nor the value
 * (NaN is not below 0). */
Test(firsthour9, a_bad_time_limit_names_the_field_and_value)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json("{\"buffers\": [{\"name\": \"a\", "
	                                  "\"size\": 4, \"live\": [0, 1]}]}",
	                                  "x.json");
	static const double limits[] = {-1.0, NAN};
	static const char *const shown[] = {"-1", "nan"};
	for (int i = 0; i < 2; i++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .time_limit = limits[i]};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INVALID);
		char *want = test_fmt("time limit %s s (usmp_plan_options.time_limit): "
		                      "give seconds (more than 0), 0 for the default "
		                      "budget or INFINITY for none", shown[i]);
		cr_assert_str_eq(usmp_plan_error(plan), want);
		free(want);
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- a plugin that calls into libusmp --------------------------------------- */

/* A plugin whose error path logs usmp_status_name(): the usmp command
 * links libusmp, so the call resolved there and `usmp check-plugin`
 * passed it, but a compiler that dlopen()s libusmp (RTLD_LOCAL, as
 * docs/hosts.md says) or Python could not load it ("undefined symbol"). */
static const char calls_libusmp_c[] =
	"#include <usmp/plugin.h>\n"
	"#include <usmp/usmp.h>\n"
	"%s\n"
	"USMP_ALGORITHM_DECLARE(acme_calls, USMP_NO_KNOBS);\n"
	"static int acme_calls(const usmp_view *v, const usmp_host *h,\n"
	"                      usmp_placement *out)\n"
	"{\n"
	"	uint64_t top = 0;\n"
	"	for (uint32_t b = 0; b < v->buffer_count; b++) {\n"
	"		uint64_t a = v->buffers[b].alignment > v->pools[0].alignment ?\n"
	"			v->buffers[b].alignment : v->pools[0].alignment;\n"
	"		top = (top + a - 1) / a * a;\n"
	"		if (top + v->buffers[b].size > v->pools[0].size_limit) {\n"
	"			h->log(h, USMP_LOG_ERROR, %s);\n"
	"			return USMP_ERR_INFEASIBLE;\n"
	"		}\n"
	"		out[b].pool = 0;\n"
	"		out[b].offset = top;\n"
	"		top += v->buffers[b].size;\n"
	"	}\n"
	"	return USMP_OK;\n"
	"}\n"
	"static const usmp_algorithm algo = USMP_ALGORITHM_INIT(acme_calls,\n"
	"	\"acme_calls\", USMP_CAP_DETERMINISTIC, \"stack\");\n"
	"static const usmp_algorithm *const algos[] = {&algo};\n"
	"USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =\n"
	"	USMP_PLUGIN_INIT(\"calls\", \"0\", \"MIT\", algos);\n";

/* Build `name`.so in `dir` from calls_libusmp_c with `decl` and `call`. */
static void build_calls(const char *dir, const char *name, const char *decl,
                        const char *call)
{
	char *code = test_fmt(calls_libusmp_c, decl, call);
	char *file = test_fmt("%s.c", name);
	test_write_in(dir, file, code, strlen(code));
	char *cmd = test_fmt(
		"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
		"cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared "
		"-fvisibility=hidden $(pkg-config --cflags usmp-uninstalled) "
		"-o %s.so %s.c", dir, test_build_root(), name, name);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s", st, cmd, out);
	free(out);
	free(cmd);
	free(file);
	free(code);
}

Test(firsthour9, check_plugin_fails_a_plugin_that_calls_libusmp)
{
	char *dir = test_fresh_dir("firsthour9-calls");
	build_calls(dir, "calls", "", "usmp_status_name(USMP_ERR_INFEASIBLE)");
	char *out = NULL;
	int st = test_usmp(&out, "check-plugin '%s/calls.so'", dir);
	cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
	assert_has(out, "FAIL imports usmp_status_name from libusmp: a plugin "
	                "calls only what its usmp_host table gives it and links "
	                "no libusmp; it loads here, where usmp has libusmp, but "
	                "not in a host that dlopen()s libusmp (RTLD_LOCAL) or in "
	                "Python (\"undefined symbol: usmp_status_name\")");
	/* Its algorithm still ran: the rest of the check is as before. */
	assert_has(out, "ok   algorithm acme_calls: ");
	free(out);
	/* The same plugin without the call passes. */
	build_calls(dir, "clean", "", "\"a buffer fits in none of its pools\"");
	st = test_usmp(&out, "check-plugin '%s/clean.so'", dir);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert_null(strstr(out, "FAIL"), "%s", out);
	free(out);
	/* Where the loader cannot resolve the call (here: a usmp_ name no
	 * library has, as libusmp's are missing in a RTLD_LOCAL host), the
	 * refusal says what a plugin may call. */
	build_calls(dir, "missing", "int usmp_fh9_nonexistent(void);",
	            "usmp_fh9_nonexistent() ? \"x\" : \"y\"");
	char *path = test_fmt("%s/missing.so", dir);
	usmp_registry *r = test_registry_any(path);
	const char *d = diagnostic_with(r, "cannot load");
	cr_assert_not_null(d);
	assert_has(d, "undefined symbol: usmp_fh9_nonexistent (a plugin calls "
	              "only what its usmp_host table gives it and links no "
	              "libusmp: the functions of usmp.h are the host's, not the "
	              "plugin's; docs/plugins.md, \"What you need\")");
	usmp_registry_destroy(r);
	free(path);
	/* A source file on the plugin path, named as one. */
	path = test_fmt("%s/calls.c", dir);
	r = test_registry_any(path);
	d = diagnostic_with(r, "cannot load");
	cr_assert_not_null(d);
	assert_has(d, "(not a shared object: build the plugin with cc -shared "
	              "-fPIC ...; docs/plugins.md, \"What you need\")");
	usmp_registry_destroy(r);
	free(path);
	free(dir);
}

/* ---- a plugin that fails without a word ------------------------------------ */

/* A plugin returning USMP_ERR_STOPPED at once was told "stopped at the
 * time limit (the default, 10 s) before finding a plan: give it a longer
 * time limit", which no time limit would change; one returning
 * USMP_ERR_INVALID without a log line gave "failed (invalid): invalid". */
static const char quits_c[] =
	"#include <usmp/plugin.h>\n"
	"#define K(X) X(u32, status, 0, \"the status returned\")\n"
	"USMP_ALGORITHM_DECLARE(acme_quits, K);\n"
	"static int acme_quits(const usmp_view *v, const usmp_host *h,\n"
	"                      usmp_placement *out, uint32_t status)\n"
	"{\n"
	"	(void)v; (void)h; (void)out;\n"
	"	return (int)status;\n"
	"}\n"
	"static const usmp_algorithm algo = USMP_ALGORITHM_INIT(acme_quits,\n"
	"	\"acme_quits\", 0, \"returns the status its knob names\");\n"
	"static const usmp_algorithm *const algos[] = {&algo};\n"
	"USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =\n"
	"	USMP_PLUGIN_INIT(\"quits\", \"0\", \"MIT\", algos);\n";

Test(firsthour9, a_plugin_failing_without_a_word_is_told_what_it_did)
{
	char *dir = test_fresh_dir("firsthour9-quits");
	test_write_in(dir, "quits.c", quits_c, strlen(quits_c));
	char *cmd = test_fmt(
		"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
		"cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared "
		"-fvisibility=hidden $(pkg-config --cflags usmp-uninstalled) "
		"-o quits.so quits.c", dir, test_build_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s", st, cmd, out);
	free(out);
	free(cmd);
	usmp_registry *r = test_registry(dir);
	usmp_problem *p = test_parse_json("{\"buffers\": [{\"name\": \"a\", "
	                                  "\"size\": 4, \"live\": [0, 1]}]}",
	                                  "x.json");
	static const struct {
		const char *spec;
		double limit;
		int status;
		const char *want;
	} cases[] = {
		{"acme_quits:status=7", 0, USMP_ERR_STOPPED,
		 "acme_quits returned USMP_ERR_STOPPED after "},
		{"acme_quits:status=7", 0, USMP_ERR_STOPPED,
		 " s without a plan, before its time limit (10 s, the default) "
		 "and without a cancel: nothing asked it to stop (an algorithm "
		 "returns it only once host->should_stop() is true) (part 1: "},
		{"acme_quits:status=7", INFINITY, USMP_ERR_STOPPED,
		 " s without a plan, with no time limit and no cancel: nothing "
		 "asked it to stop"},
		{"acme_quits:status=1", 0, USMP_ERR_INVALID,
		 "acme_quits failed (invalid): it logged no reason (an algorithm "
		 "logs why with host->log before it returns a failure) (part 1: "},
		{"acme_quits:status=8", 0, USMP_ERR_UNSUPPORTED,
		 "acme_quits failed (unsupported): it logged no reason"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = cases[i].spec,
		                       .time_limit = cases[i].limit};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), cases[i].status,
		             "%s: %s", cases[i].spec, usmp_plan_error(plan));
		assert_has(usmp_plan_error(plan), cases[i].want);
		cr_assert_null(strstr(usmp_plan_error(plan), "give it a longer"),
		               "%s", usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(dir);
}

/* ---- selection rules ------------------------------------------------------- */

/* The summary prints a part shared by targets as "target
 * ethos-u55,cortex-m55"; that text as a rule's pattern is one glob that
 * matches no target, and the rule was passed over without a word (a
 * glob-free name far from every target is said at info only). */
Test(firsthour9, a_rule_pattern_listing_names_is_said_to_be_one_glob)
{
	static const char board[] =
		"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 1024, "
		"\"targets\": [\"ethos-u55\", \"cortex-m55\"]}, {\"name\": \"dram\", "
		"\"targets\": [\"cortex-m55\"]}], \"buffers\": ["
		"{\"name\": \"a\", \"size\": 64, \"live\": [0, 2], \"pools\": "
		"[\"sram\"]}, {\"name\": \"b\", \"size\": 64, \"live\": [1, 3], "
		"\"pools\": [\"dram\"]}]}";
	usmp_registry *r = test_registry(NULL);
	char log[TEST_LOG_LINES] = "";
	cr_assert_eq(usmp_registry_set_log(r, test_keep_log_lines, log,
	                                   USMP_LOG_WARN), USMP_OK);
	cr_assert_eq(usmp_registry_bind_rules(r, "ethos-u55,cortex-m55=best_fit;"
	                                      "@sram,dram=first_fit"), USMP_OK);
	usmp_problem *p = test_parse_json(board, "board.json");
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	assert_has(log, "usmp_registry_bind: rule \"ethos-u55,cortex-m55="
	                "best_fit\" matches no target of the problem (targets: "
	                "\"ethos-u55\", \"cortex-m55\"): a pattern is one glob, "
	                "not a list of names joined by \",\": write a glob "
	                "matching each of them (\"*\" matches all), or a pool "
	                "rule (@POOL=...), which decides a part whatever its "
	                "targets");
	assert_has(log, "rule \"@sram,dram=first_fit\" matches no pool of the "
	                "problem (pools: \"sram\", \"dram\"): a pattern is one "
	                "glob, not a list of names joined by \",\": write a glob "
	                "matching each of them (\"*\" matches all)\n");
	cr_assert(strncmp(log, "1 ", 2) == 0, "at USMP_LOG_WARN: %s", log);
	usmp_plan_destroy(plan);
	/* A list with a name the problem lacks may be another problem's:
	 * not said at warn. */
	log[0] = '\0';
	usmp_registry_clear_bindings(r);
	cr_assert_eq(usmp_registry_bind_rules(r, "ethos-u55,hexagon=best_fit"),
	             USMP_OK);
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	cr_assert_null(strstr(log, "one glob"), "%s", log);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* "ethos-u55:exact" (':' for '='): without '=' before its first ':' a rule
 * is a spec for every target, so this asked for an algorithm "ethos-u55"
 * and got the list of algorithms and the plugin path. */
Test(firsthour9, a_rule_with_a_colon_for_the_equals_sign_names_the_rule_meant)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "ethos-u*:exact:time_limit=2"),
	             USMP_ERR_NOT_FOUND);
	cr_assert_str_eq(usmp_registry_error(r), "rule \"ethos-u*:exact:time_limit"
	                 "=2\": no algorithm \"ethos-u*\", but \"exact\" after the "
	                 "':' is one: a rule for the pattern \"ethos-u*\" is "
	                 "written \"ethos-u*=exact\" (PATTERN=ALGORITHM[:KNOB="
	                 "VALUE...]; without '=' before the first ':' a rule "
	                 "names an algorithm for every target)");
	/* A bare spec with knobs still binds; an unknown name without an
	 * algorithm after the colon gets the usual list. */
	cr_assert_eq(usmp_registry_bind_rules(r, "exact:time_limit=2"), USMP_OK);
	cr_assert_eq(usmp_registry_bind_rules(r, "exakt:time_limit=2"),
	             USMP_ERR_NOT_FOUND);
	assert_has(usmp_registry_error(r), "no algorithm \"exakt\" (algorithms: ");
	usmp_registry_destroy(r);
	char *out = NULL;
	char *cmd = test_fmt("USMP_ALGORITHM='npu:best_fit' '%s' select npu",
	                     test_cli());
	cr_assert_eq(test_run(cmd, &out), 2, "%s", out);
	assert_has(out, "\"npu=best_fit\"");
	free(out);
	free(cmd);
}

/* ---- a pool without a limit, TVM's way -------------------------------------- */

/* TVM's PoolInfo says "unbounded" with size_hint_bytes -1; a pool of
 * "size_limit": -1 (or 0, or usmp_problem_add_pool(p, "dram", 0, ...)) was
 * refused without saying how to write no limit. */
Test(firsthour9, a_pool_limit_of_minus_one_or_zero_says_how_to_write_none)
{
	static const char *const values[] = {"-1", "0"};
	for (int i = 0; i < 2; i++) {
		char *json = test_fmt("{\"pools\": [{\"name\": \"dram\", "
		                      "\"size_limit\": %s}]}", values[i]);
		char *msg = refusal(json);
		char *want = test_fmt("model.json: pools[0].size_limit: expected a "
		                      "positive integer, got %s: leave \"size_limit\" "
		                      "out for a pool without a limit", values[i]);
		cr_assert_str_eq(msg, want);
		free(want);
		free(msg);
		free(json);
	}
	/* A buffer's size gets no such advice. */
	char *msg = refusal("{\"buffers\": [{\"name\": \"a\", \"size\": 0}]}");
	cr_assert_str_eq(msg, "model.json: buffers[0].size: expected a positive "
	                 "integer, got 0");
	free(msg);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 0, 16, NULL),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "pool \"dram\": size_limit must be "
	                 "positive (USMP_UNBOUNDED for a pool without a limit)");
	usmp_problem_destroy(p);
}
