/* test_check_plugin.c — `usmp check-plugin`: shipped plugins pass, each broken
 * fixture fails with the reason its author needs, non-plugins exit 2. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* Under AddressSanitizer a SIGSEGV in the isolated child is caught by
 * ASan's handler, which ends the child with an exit status instead. */
#if defined(__SANITIZE_ADDRESS__)
#define SEGV_WORDS "instead of returning"
#else
#define SEGV_WORDS "crashed with SIGSEGV"
#endif

/* Run `usmp check-plugin ARGS`; returns the exit status, output in *out. */
static int check(char **out, const char *args)
{
	char *cmd = test_fmt("'%s' check-plugin %s", test_cli(), args);
	int rc = test_run(cmd, out);
	free(cmd);
	cr_assert_not_null(*out);
	return rc;
}

/* check-plugin on fixture `name` (a path under the fixture directory). */
static int check_fixture(char **out, const char *opts, const char *name)
{
	char *args = test_fmt("%s '%s/%s.so'", opts, test_fixture_plugindir(), name);
	int rc = check(out, args);
	free(args);
	return rc;
}

/* check-plugin on fixture `name` with `opts`: it must exit `status`. Its
 * output (caller frees). */
static char *fixture_exits(int status, const char *opts, const char *name)
{
	char *out = NULL;
	int rc = check_fixture(&out, opts, name);
	cr_assert_eq(rc, status, "%s: exit %d, not %d:\n%s", name, rc, status,
	             out);
	return out;
}

static void assert_has(const char *out, const char *words)
{
	cr_assert_not_null(strstr(out, words), "missing \"%s\" in:\n%s", words,
	                   out);
}

/* Count lines starting with `prefix`. */
static int lines_starting(const char *out, const char *prefix)
{
	int n = 0;
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, prefix, strlen(prefix));
	return n;
}

/* ---- the shipped plugins pass ------------------------------------------- */

static void shipped_passes(const char *plugin, const char *const *algos)
{
	char *out = NULL;
	char *args = test_fmt("--time-limit 2 '%s/plugins/%s.so'", test_build_root(),
	                 plugin);
	int rc = check(&out, args);
	cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
	for (const char *const *a = algos; *a; a++) {
		char *line = test_fmt("ok   algorithm %s: ", *a);
		assert_has(out, line);
		free(line);
	}
	cr_assert_eq(lines_starting(out, "FAIL"), 0, "%s", out);
	assert_has(out, "calls passed");
	free(args);
	free(out);
}

Test(check_plugin, shipped_fit_passes)
{
	const char *algos[] = {"first_fit", "best_fit", NULL};
	shipped_passes("fit", algos);
}

Test(check_plugin, shipped_tvm_passes)
{
	const char *algos[] = {"greedy_by_size", "greedy_by_conflicts",
	                       "hill_climb", NULL};
	shipped_passes("tvm", algos);
}

Test(check_plugin, shipped_exact_passes_and_names_what_it_skips)
{
	const char *algos[] = {"exact", "exact_window", NULL};
	shipped_passes("exact", algos);
	char *out = NULL;
	char *args = test_fmt("'%s/plugins/exact.so'", test_build_root());
	cr_assert_eq(check(&out, args), 0, "%s", out);
	/* exact does not declare conflict edges or several pools. */
	assert_has(out, "not run on \"conflicts\" (needs "
	                "USMP_CAP_EXPLICIT_CONFLICTS), \"two_pools\" (needs "
	                "USMP_CAP_MULTI_POOL)");
	free(args);
	free(out);
}

Test(check_plugin, good_fixture_passes_and_verbose_lists_every_call)
{
	char *out = NULL;
	int rc = check_fixture(&out, "-v", "good_v1_1");
	cr_assert_eq(rc, 0, "%s", out);
	/* fx_good: seed:u64=0 order:str=size -> defaults, seed max, order ""
	 * and a long order: 4 settings on 7 problems, and the 6 feasible ones
	 * again with the defaults (it declares USMP_CAP_DETERMINISTIC). */
	assert_has(out, "ok   algorithm fx_good: 34 calls (4 knob settings)");
	assert_has(out, "  ok   fx_good with its default knobs, problem \"live\": "
	                "the same plan again (deterministic)");
	assert_has(out, "  ok   fx_good with seed=18446744073709551615, problem "
	                "\"aligned\": valid plan");
	/* fx_good refuses an unknown order: allowed for an edge value. */
	assert_has(out, "  note fx_good with order=\"\" (empty), problem "
	                "\"live\": refused (invalid)");
	assert_has(out, "fx_good with order=\"xxxxxxxx...\" (4096 bytes)");
	assert_has(out, "problem \"infeasible\": infeasible, as expected");
	free(out);
}

/* ---- broken fixtures fail with their reason ----------------------------- */

Test(check_plugin, invalid_plan_names_the_overlapping_buffers)
{
	char *out = fixture_exits(4, "", "invalid_plan");
	assert_has(out, "FAIL algorithm fx_invalid_plan with its default knobs, "
	                "on problem \"live\"");
	assert_has(out, "returned a plan the verifier rejects: buffers \"");
	assert_has(out, "\" overlap in pool \"mem\"");
	/* The fixed buffer it moved is named too. */
	assert_has(out, "buffer \"pinned\" is fixed at offset 64");
	free(out);
}

Test(check_plugin, crash_names_the_signal_and_problem)
{
	char *out = fixture_exits(4, "", "crash");
	assert_has(out, "FAIL algorithm fx_crash with its default knobs, on "
	                "problem \"aligned\"");
	assert_has(out, SEGV_WORDS);
	assert_has(out, "FAIL algorithm fx_crash: 7 calls (1 knob setting), "
	                "7 failed");
	free(out);
}

Test(check_plugin, write_past_out_is_a_crash_with_a_hint)
{
	char *out = fixture_exits(4, "", "scribble");
	assert_has(out, "FAIL algorithm fx_scribble");
#if !defined(__SANITIZE_ADDRESS__)
	assert_has(out, "a write past the end of `out`");
#endif
	free(out);
}

Test(check_plugin, hang_is_killed_once_and_the_rest_skipped)
{
	char *out = fixture_exits(4, "--time-limit 0.3", "hang");
	assert_has(out, "FAIL algorithm fx_hang with its default knobs, on "
	                "problem \"live\"");
	assert_has(out, "took longer than 0.3 s (the time limit) and was killed");
	assert_has(out, "host->should_stop()");
	assert_has(out, "(further checks of this algorithm skipped)");
	assert_has(out, "FAIL algorithm fx_hang: 1 call (1 knob setting), 1 failed");
	free(out);
}

Test(check_plugin, edge_knob_value_that_breaks_the_plan_is_named)
{
	char *out = fixture_exits(4, "", "check/bugs");
	assert_has(out, "FAIL algorithm gap_stack with gap=18446744073709551615, "
	                "on problem \"live\" (one pool, six buffers with live "
	                "ranges): returned a plan the verifier rejects: buffers "
	                "\"a\" and \"b\" overlap");
	/* The default gap passes everywhere: only the edge value fails. */
	cr_assert_null(strstr(out, "gap_stack with its default knobs"), "%s", out);
	assert_has(out, "FAIL algorithm gap_stack: 20 calls (2 knob settings), "
	                "5 failed");
	free(out);
}

Test(check_plugin, capability_claimed_but_refused)
{
	char *out = fixture_exits(4, "", "check/bugs");
	assert_has(out, "FAIL algorithm no_fixed with its default knobs, on "
	                "problem \"fixed\" (a buffer with a fixed offset): "
	                "declares USMP_CAP_FIXED_OFFSETS but refused a problem "
	                "that needs it: ");
	assert_has(out, "fixed buffers are not supported yet");
	/* 7 problems, the 5 it plans twice (deterministic). */
	assert_has(out, "FAIL algorithm no_fixed: 12 calls (1 knob setting), "
	                "1 failed");
	free(out);
}

Test(check_plugin, feasible_problem_said_infeasible)
{
	char *out = fixture_exits(4, "", "check/bugs");
	assert_has(out, "FAIL algorithm no_spill with its default knobs, on "
	                "problem \"two_pools\"");
	assert_has(out, "said infeasible, but a valid plan exists: ");
	free(out);
}

Test(check_plugin, nondeterminism_is_named_by_buffer_and_offsets)
{
	char *dir = test_tmpfile("");
	cr_assert_eq(mkdir(dir, 0700), 0);
	char *out = NULL;
	char *args = test_fmt("'%s/check/bugs.so'", test_fixture_plugindir());
	char *cmd = test_fmt("USMP_TEST_WOBBLY_DIR='%s' '%s' check-plugin %s", dir,
	                test_cli(), args);
	int rc = test_run(cmd, &out);
	cr_assert_eq(rc, 4, "exit %d:\n%s", rc, out);
	assert_has(out, "FAIL algorithm wobbly with its default knobs, on problem "
	                "\"live\" (one pool, six buffers with live ranges): "
	                "declares USMP_CAP_DETERMINISTIC but a second run gave "
	                "another plan: buffer \"a\" at offset 0 in pool \"mem\", "
	                "then at offset 64 in pool \"mem\"");
	free(out);
	free(cmd);
	char *toggle = test_fmt("%s/toggle", dir);
	unlink(toggle);
	free(toggle);
	cr_assert_eq(rmdir(dir), 0);
	free(dir);

	/* Without the toggle directory it is deterministic and passes. */
	rc = check(&out, args);
	cr_assert_eq(rc, 4, "%s", out);
	assert_has(out, "ok   algorithm wobbly: 13 calls (1 knob setting), "
	                "all passed");
	free(out);
	free(args);
}

Test(check_plugin, algorithms_skipped_at_load_fail_the_check)
{
	char *out = fixture_exits(4, "", "bad_signature");
	assert_has(out, "FAIL not loaded: ");
	assert_has(out, "algorithm \"fx_bad_sig\": bad parameter signature "
	                "\"seed:u65=0\"");
	/* Its good neighbour is still checked, and passes. */
	assert_has(out, "ok   algorithm fx_sig_ok: ");
	free(out);
	out = fixture_exits(4, "", "duplicate");
	assert_has(out, "algorithm \"auto\" is already provided by libusmp");
	free(out);
}

Test(check_plugin, refused_plugin_is_exit_4_with_the_reason)
{
	char *out = fixture_exits(4, "", "newer_minor");
	assert_has(out, "usmp does not load this plugin:");
	assert_has(out, "newer than this host's");
	free(out);
	out = fixture_exits(4, "", "load/ctor_crash");
	assert_has(out, "while loading");
	free(out);
}

/* ---- not plugins: exit 2 ------------------------------------------------ */

Test(check_plugin, not_a_plugin_is_exit_2)
{
	char *out = fixture_exits(2, "", "not_a_plugin");
	assert_has(out, "is not a usmp plugin:");
	assert_has(out, "no usmp_plugin_v1 symbol");
	free(out);

	char *text = test_write_tmp(".so", "not an ELF file\n");
	char *args = test_fmt("'%s'", text);
	int rc = check(&out, args);
	cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
	assert_has(out, "is not a usmp plugin:");
	assert_has(out, "cannot load");
	unlink(text);
	free(text);
	free(args);
	free(out);
}

Test(check_plugin, missing_file_directory_and_bad_usage_are_exit_2)
{
	char *out = NULL;
	cr_assert_eq(check(&out, "/nonexistent/x.so"), 2, "%s", out);
	assert_has(out, "/nonexistent/x.so: No such file or directory");
	free(out);
	char *args = test_fmt("'%s'", test_fixture_plugindir());
	cr_assert_eq(check(&out, args), 2, "%s", out);
	assert_has(out, "not a regular file");
	free(args);
	free(out);
	cr_assert_eq(check(&out, "a:b.so"), 2, "%s", out);
	assert_has(out, "a path containing ':'");
	free(out);
	cr_assert_eq(check(&out, ""), 2, "%s", out);
	assert_has(out, "usage: usmp check-plugin FILE.so");
	free(out);
	cr_assert_eq(check(&out, "--time-limit 0 x.so"), 2, "%s", out);
	assert_has(out, "--time-limit 0: expected seconds");
	free(out);
}

/* ---- --save: the problems, to reproduce a failure ----------------------- */

Test(check_plugin, save_writes_the_problems_and_a_reproducing_command)
{
	char *dir = test_tmpfile("");
	cr_assert_eq(mkdir(dir, 0700), 0);
	char *out = NULL;
	char *args = test_fmt("--save '%s' '%s/check/bugs.so'", dir,
	                 test_fixture_plugindir());
	cr_assert_eq(check(&out, args), 4, "%s", out);
	char *line = test_fmt("     reproduce: USMP_PLUGIN_PATH='%s/check/bugs.so' "
	                 "usmp plan '%s/live.json' -a gap_stack -p "
	                 "gap=18446744073709551615 --isolate",
	                 test_fixture_plugindir(), dir);
	assert_has(out, line);
	free(line);
	free(out);

	/* The command it prints shows the same failure. */
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s/check/bugs.so' '%s' plan "
	                "'%s/live.json' -a gap_stack -p gap=18446744073709551615 "
	                "--isolate -o /dev/null", test_fixture_plugindir(),
	                test_cli(), dir);
	int rc = test_run(cmd, &out);
	cr_assert_eq(rc, 4, "exit %d:\n%s", rc, out);
	assert_has(out, "returned an invalid plan: buffers \"a\" and \"b\" overlap");
	free(out);
	free(cmd);

	const char *names[] = {"live", "aligned", "conflicts", "overlap",
	                       "two_pools", "fixed", "infeasible"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *path = test_fmt("%s/%s.json", dir, names[i]);
		char *cmd2 = test_fmt("'%s' bound '%s'", test_cli(), path);
		cr_assert_eq(test_run(cmd2, &out), 0, "%s: %s", path, out);
		free(out);
		unlink(path);
		free(path);
		free(cmd2);
	}
	rmdir(dir);
	free(dir);
	free(args);
}
