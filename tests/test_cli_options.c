/* test_cli_options.c — the `usmp` command's option parsing, --help texts,
 * checks of odd arguments and environment, and escaping of shown names. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static const char ok_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": ["
	" {\"name\": \"a\", \"size\": 8, \"live\": [0, 2]},"
	" {\"name\": \"b\", \"size\": 8, \"live\": [1, 3]}]}";
static const char ok_csv[] = "id,lower,upper,size\na,0,2,8\nb,1,3,8\n";

/* A fresh directory holding ok.json, ok.csv and, when `name` is not NULL,
 * `name` with `text`. Caller frees; remove_dir removes it. */
static char *fresh_dir(const char *name, const char *text)
{
	char *dir = strdup("/tmp/usmp-cli-options-XXXXXX");
	cr_assert_not_null(dir);
	cr_assert_not_null(mkdtemp(dir));
	const char *names[] = {"ok.json", "ok.csv", name};
	const char *texts[] = {ok_json, ok_csv, text};
	for (int i = 0; i < 3 && names[i]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "wb");
		cr_assert_not_null(f, "cannot write %s", path);
		fputs(texts[i], f);
		fclose(f);
	}
	return dir;
}

static void remove_dir(char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	test_run(cmd, NULL);
	free(dir);
}

/* Run `ENV usmp ARGS` in `dir`; exit status, combined output in *out. */
static int usmp_in(const char *dir, const char *env, char **out,
                   const char *fmt, ...)
{
	char args[4096], cmd[9000];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "cd '%s' && USMP_PLUGIN_PATH= USMP_ALGORITHM= "
	         "USMP_LOG= %s '%s' %s </dev/null", dir, env ? env : "",
	         test_cli(), args);
	int st = test_run(cmd, out);
	cr_assert(!out || *out, "no output captured for `usmp %s`", args);
	return st;
}

/* `usmp ARGS` (in a fresh directory) exits 2 printing exactly `line`. */
static void expect_refused(const char *env, const char *args, const char *line)
{
	char *dir = fresh_dir(NULL, NULL), *out = NULL;
	int st = usmp_in(dir, env, &out, "%s", args);
	cr_expect_eq(st, 2, "`usmp %s` exited %d, not 2:\n%s", args, st, out);
	cr_expect(strstr(out, line), "`usmp %s` printed:\n%s\nwithout:\n%s", args,
	          out, line);
	cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1,
	             "`usmp %s`: more than one line:\n%s", args, out);
	free(out);
	remove_dir(dir);
}

/* ---- help ------------------------------------------------------------- */

Test(cli_options, every_command_help_exits_0_and_lists_all_its_options)
{
	static const struct {
		const char *command;
		const char *options[16];
	} cases[] = {
		{"plan", {"-a, --algorithm ALGO", "-p, --param KEY=VALUE",
		          "-t, --target TARGET", "--time-limit SECONDS",
		          "--no-time-limit ", "--capacity BYTES", "-o, --output PLAN",
		          "--format json|csv", "--svg FILE", "--isolate ",
		          "--no-isolate ", "-q, --quiet", "-h, --help"}},
		{"verify", {"--capacity BYTES", "-h, --help"}},
		{"simulate", {"--capacity BYTES", "-h, --help"}},
		{"bound", {"--capacity BYTES", "-h, --help"}},
		{"list", {"-v, --verbose", "-h, --help"}},
		{"select", {"-a, --algorithm ALGO", "-h, --help"}},
	};
	char *dir = fresh_dir(NULL, NULL);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		for (int form = 0; form < 3; form++) {
			char *out = NULL;
			int st = form == 0 ? usmp_in(dir, NULL, &out, "%s --help",
			                             cases[i].command)
			       : form == 1 ? usmp_in(dir, NULL, &out, "%s -h",
			                             cases[i].command)
			                   : usmp_in(dir, NULL, &out, "help %s",
			                             cases[i].command);
			cr_expect_eq(st, 0, "usmp %s --help (form %d) exited %d:\n%s",
			             cases[i].command, form, st, out);
			char usage[64];
			snprintf(usage, sizeof usage, "usage: usmp %s", cases[i].command);
			cr_expect(!strncmp(out, usage, strlen(usage)), "%s", out);
			for (int k = 0; cases[i].options[k]; k++)
				cr_expect(strstr(out, cases[i].options[k]),
				          "usmp %s --help lacks \"%s\":\n%s", cases[i].command,
				          cases[i].options[k], out);
			free(out);
		}
	}
	char *out = NULL;
	cr_expect_eq(usmp_in(dir, NULL, &out, "--help"), 0);
	static const char *top[] = {"usmp simulate PROBLEM PLAN [--capacity BYTES]",
	                            "[--no-isolate] [-q]", "[--no-time-limit]",
	                            "usmp list [-v]", "--version", "USMP_LOG"};
	for (size_t k = 0; k < sizeof top / sizeof *top; k++)
		cr_expect(strstr(out, top[k]), "usmp --help lacks \"%s\":\n%s", top[k],
		          out);
	free(out);
	remove_dir(dir);
}

Test(cli_options, unknown_ambiguous_and_misused_options_are_named)
{
	expect_refused(NULL, "plan ok.json --bogus",
	               "usmp: plan: unrecognized option '--bogus' (try `usmp plan --help`)");
	expect_refused(NULL, "verify ok.json ok.json -x",
	               "usmp: verify: unrecognized option '-x' (try `usmp verify --help`)");
	expect_refused(NULL, "plan ok.json --t 1",
	               "usmp: plan: option '--t' is ambiguous (--target, --time-limit)");
	expect_refused(NULL, "plan ok.json --isolate=yes",
	               "usmp: plan: option '--isolate' takes no argument");
	expect_refused(NULL, "bound ok.csv --capacity",
	               "usmp: bound: option --capacity needs an argument (BYTES)");
	expect_refused(NULL, "--bogus",
	               "usmp: unrecognized option '--bogus' (try `usmp --help`)");
	expect_refused(NULL, "help nosuch",
	               "usmp: help: unknown command \"nosuch\" (commands: plan, verify, "
	               "simulate, bound, list, select, check-plugin)");
}

/* ---- the same knob twice, empty arguments ------------------------------ */

Test(cli_options, the_same_knob_twice_is_refused_naming_it)
{
	expect_refused(NULL, "plan ok.json -a first_fit -p order=size -p order=area",
	               "usmp: -p order=area: knob \"order\" given twice (also -p order=size)");
	expect_refused(NULL, "plan ok.json -a first_fit --param order=size -p order=size",
	               "usmp: -p order=size: knob \"order\" given twice (also -p order=size)");
	/* Two different knobs, and a knob over the -a spec's, are fine. */
	char *dir = fresh_dir(NULL, NULL), *out = NULL;
	cr_expect_eq(usmp_in(dir, NULL, &out, "plan ok.json -q -a hill_climb "
	                     "-p seed=1 -p attempts=5 -o plan.json"), 0, "%s", out);
	free(out);
	cr_expect_eq(usmp_in(dir, NULL, &out, "plan ok.json -q -a first_fit:order=area "
	                     "-p order=size"), 0, "%s", out);
	cr_expect(strstr(out, "\"order\": \"size\""), "-p does not win: %s", out);
	free(out);
	remove_dir(dir);
}

Test(cli_options, empty_arguments_are_refused)
{
	expect_refused(NULL, "plan ok.json -a ''",
	               "usmp: -a/--algorithm \"\": expected ALGO, not an empty string "
	               "(see `usmp plan --help`)");
	expect_refused(NULL, "plan ok.json --algorithm=",
	               "usmp: -a/--algorithm \"\": expected ALGO, not an empty string");
	expect_refused(NULL, "plan ok.json -t ''",
	               "usmp: -t/--target \"\": expected TARGET, not an empty string");
	expect_refused(NULL, "plan ok.json --svg ''",
	               "usmp: --svg \"\": expected FILE, not an empty string");
	expect_refused(NULL, "select npu -a ''",
	               "usmp: -a/--algorithm \"\": expected ALGO, not an empty string "
	               "(see `usmp select --help`)");
}

/* ---- --capacity only for CSV ------------------------------------------- */

Test(cli_options, capacity_on_a_json_problem_is_refused_by_every_command)
{
	static const char *cmds[] = {"plan ok.json --capacity 1M",
	                             "verify ok.json plan.json --capacity 1M",
	                             "simulate ok.json plan.json --capacity 1M",
	                             "bound ok.json --capacity 1M",
	                             "bound - --capacity 1M"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		const char *name = strstr(cmds[i], "bound -") ? "-" : "ok.json";
		char line[256];
		snprintf(line, sizeof line, "usmp: %s: --capacity applies to CSV "
		         "problems only (a JSON problem gives each pool its "
		         "\"size_limit\")", name);
		expect_refused(NULL, cmds[i], line);
	}
	/* On a CSV problem it limits the pool: 16 bytes fit, 15 do not. */
	char *dir = fresh_dir(NULL, NULL), *out = NULL;
	cr_expect_eq(usmp_in(dir, NULL, &out, "plan ok.csv -q -a first_fit "
	                     "--capacity 16 -o plan.csv"), 0, "%s", out);
	free(out);
	cr_expect_eq(usmp_in(dir, NULL, &out, "verify ok.csv plan.csv --capacity 16"),
	             0, "%s", out);
	free(out);
	cr_expect_eq(usmp_in(dir, NULL, &out, "plan ok.csv -q -a first_fit "
	                     "--capacity 15"), 3, "%s", out);
	free(out);
	remove_dir(dir);
}

/* ---- USMP_LOG ---------------------------------------------------------- */

Test(cli_options, an_unknown_usmp_log_level_is_refused_by_plan)
{
	const char *line = "usmp: USMP_LOG=bogus: expected error, warn, info or "
	                   "debug (unset or empty: no log messages)";
	expect_refused("USMP_LOG=bogus", "plan ok.json -q", line);
	expect_refused("USMP_LOG=DEBUG", "plan ok.json -q",
	               "usmp: USMP_LOG=DEBUG: expected error, warn, info or debug");
	char *dir = fresh_dir(NULL, NULL), *out = NULL;
	static const char *good[] = {"USMP_LOG=", "USMP_LOG=error", "USMP_LOG=warn",
	                             "USMP_LOG=info", "USMP_LOG=debug"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		cr_expect_eq(usmp_in(dir, good[i], &out, "plan ok.json -q -o p.json"),
		             0, "%s: %s", good[i], out);
		free(out);
	}
	remove_dir(dir);
}

/* ---- --time-limit -------------------------------------------------------- */

Test(cli_options, time_limits_outside_0_to_1e9_are_refused_naming_the_range)
{
	static const char *bad[] = {"1e10", "inf", "-inf", "nan", "-1", "0", "-0",
	                            "1e-400", "abc", "5s", "1e400", "1000000001"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char args[128], line[160];
		snprintf(args, sizeof args, "plan ok.json --time-limit %s", bad[i]);
		snprintf(line, sizeof line, "usmp: --time-limit %s: expected seconds, "
		         "more than 0 and at most 1e9", bad[i]);
		expect_refused(NULL, args, line);
	}
}

Test(cli_options, time_limits_in_range_are_stated_in_the_summary)
{
	static const struct {
		const char *arg, *stated;
	} good[] = {{"1e-300", "time limit 1e-300 s"}, {"0.25", "time limit 0.25 s"},
	            {"1e9", "time limit 1e+09 s"}, {"1000000000", "time limit 1e+09 s"},
	            {"3", "time limit 3 s"}};
	char *dir = fresh_dir(NULL, NULL);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char *out = NULL;
		int st = usmp_in(dir, NULL, &out, "plan ok.json -a first_fit "
		                 "--time-limit %s -o plan.json", good[i].arg);
		cr_expect_eq(st, 0, "--time-limit %s: exit %d\n%s", good[i].arg, st, out);
		cr_expect(strstr(out, "usmp: ok.json: 2 buffers, 1 pool, 1 part, ") &&
		          strstr(out, good[i].stated), "--time-limit %s does not state "
		          "\"%s\":\n%s", good[i].arg, good[i].stated, out);
		free(out);
	}
	char *out = NULL;
	cr_expect_eq(usmp_in(dir, NULL, &out, "plan ok.json -a first_fit -o p.json"), 0);
	cr_expect(!strstr(out, "time limit"), "no limit set, one stated:\n%s", out);
	free(out);
	remove_dir(dir);
}

/* ---- names shown escaped ----------------------------------------------- */

/* Pool "sr<ESC>[31mam", buffers "a<LF>b", "c\d" (a backslash), "<RLO>evil"
 * (U+202E) and "x<CSI>2J" (U+009B, a C1 control), and target "t<CR>". */
static const char odd_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sr\\u001b[31mam\", \"targets\": [\"t\\r\"]}],"
	" \"buffers\": ["
	" {\"name\": \"a\\nb\", \"size\": 8, \"live\": [0, 2]},"
	" {\"name\": \"c\\\\d\", \"size\": 8, \"live\": [1, 3]},"
	" {\"name\": \"\\u202eevil\", \"size\": 8, \"live\": [0, 3]},"
	" {\"name\": \"x\\u009b2J\", \"size\": 8, \"live\": [2, 3]}]}";

/* No byte of `out` is a control character but '\n', and no UTF-8 sequence
 * is U+202E or U+009B. */
static void expect_no_raw_controls(const char *out)
{
	for (const unsigned char *s = (const unsigned char *)out; *s; s++)
		cr_expect(*s == '\n' || (*s >= 0x20 && *s != 0x7f),
		          "raw byte 0x%02x at %zu in:\n%s", *s,
		          (size_t)((const char *)s - out), out);
	cr_expect(!strstr(out, "\xe2\x80\xae") && !strstr(out, "\xc2\x9b"),
	          "raw U+202E or U+009B in:\n%s", out);
}

Test(cli_options, names_from_the_problem_are_shown_escaped_and_kept_in_plans)
{
	char *dir = fresh_dir("odd.json", odd_json), *out = NULL;
	int st = usmp_in(dir, NULL, &out, "plan odd.json -a first_fit -o plan.json");
	cr_assert_eq(st, 0, "%s", out);
	expect_no_raw_controls(out);
	cr_expect(strstr(out, "    pool sr\\x1b[31mam "), "%s", out);
	cr_expect(strstr(out, "target t\\r,"), "%s", out);
	free(out);
	/* The plan file keeps the real names (JSON escapes them its way). */
	char path[4200];
	snprintf(path, sizeof path, "%s/plan.json", dir);
	char *text = test_read_file(path);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\"a\\nb\"") && strstr(text, "\"c\\\\d\""), "%s", text);
	cr_expect(strstr(text, "\"sr\\u001B[31mam\"") ||
	          strstr(text, "\"sr\\u001b[31mam\""), "%s", text);
	cr_expect(strstr(text, "\xe2\x80\xae" "evil") || strstr(text, "\\u202E"),
	          "%s", text);
	free(text);
	cr_expect_eq(usmp_in(dir, NULL, &out, "verify odd.json plan.json"), 0, "%s", out);
	free(out);
	/* bound lists pool names. */
	cr_expect_eq(usmp_in(dir, NULL, &out, "bound odd.json"), 0);
	expect_no_raw_controls(out);
	cr_expect(strstr(out, "pools: sr\\x1b[31mam\n"), "%s", out);
	free(out);
	remove_dir(dir);
}

Test(cli_options, names_in_messages_are_shown_escaped)
{
	/* An invalid plan: every buffer at offset 0. verify names two of them. */
	static const char bad_plan[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sr\\u001b[31mam\", \"size\": 8}],"
		" \"buffers\": ["
		" {\"name\": \"a\\nb\", \"pool\": \"sr\\u001b[31mam\", \"offset\": 0},"
		" {\"name\": \"c\\\\d\", \"pool\": \"sr\\u001b[31mam\", \"offset\": 0},"
		" {\"name\": \"\\u202eevil\", \"pool\": \"sr\\u001b[31mam\", \"offset\": 0},"
		" {\"name\": \"x\\u009b2J\", \"pool\": \"sr\\u001b[31mam\", \"offset\": 0}]}";
	char *dir = fresh_dir("odd.json", odd_json), *out = NULL;
	char path[4200];
	snprintf(path, sizeof path, "%s/bad.json", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(bad_plan, f);
	fclose(f);
	int st = usmp_in(dir, NULL, &out, "verify odd.json bad.json");
	cr_expect_eq(st, 1, "%s", out);
	expect_no_raw_controls(out);
	cr_expect(strstr(out, "usmp: bad.json: invalid plan: buffers \"a\\nb\" "
	                      "and \"\\u202eevil\" overlap in pool "
	                      "\"sr\\x1b[31mam\" at bytes [0, 8) while both are "
	                      "live\n"), "%s", out);
	free(out);
	/* A target given on the command line, and a path with a bad byte. */
	st = usmp_in(dir, NULL, &out, "select \"$(printf 'npu\\033]0;x\\007')\"");
	cr_expect_eq(st, 0, "%s", out);
	expect_no_raw_controls(out);
	cr_expect(!strncmp(out, "npu\\x1b]0;x\\x07: auto\n", 20), "%s", out);
	free(out);
	st = usmp_in(dir, NULL, &out, "bound \"$(printf 'no\\377\\033.json')\"");
	cr_expect_eq(st, 2, "%s", out);
	expect_no_raw_controls(out);
	cr_expect(strstr(out, "usmp: no\\xff\\x1b.json: cannot open: "), "%s", out);
	free(out);
	remove_dir(dir);
}
