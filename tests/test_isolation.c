/* test_isolation.c — faulting plugins cannot take the host down: crashes,
 * hangs and scribbles become errors naming the plugin; leaks are reclaimed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

static char path[4096];

/* Under AddressSanitizer a SIGSEGV is caught by ASan's handler, which reports
 * and ends the child itself: the host then sees an exit, not the signal. */
#if defined(__SANITIZE_ADDRESS__)
#define CRASH_WORDS(err) (strstr(err, "signal") || strstr(err, "exited"))
#define SEGV_WORDS(err) (strstr(err, "signal") || strstr(err, "exited"))
#else
#define CRASH_WORDS(err) strstr(err, "signal")
#define SEGV_WORDS(err) strstr(err, "signal 11")
#endif

static usmp_registry *fixture(const char *name)
{
	snprintf(path, sizeof path, "%s/%s.so", test_fixture_plugindir(), name);
	return test_registry(path);
}

static int plan_with(const char *fixture_name, const char *algo, uint32_t flags,
                     double limit, char **error)
{
	usmp_registry *r = fixture(fixture_name);
	usmp_problem *p = test_small_problem();
	usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
	                       .algorithm = algo, .time_limit = limit};
	usmp_plan *plan = NULL;
	int st = usmp_plan_compute(r, p, &o, &plan);
	*error = strdup(usmp_plan_error(plan));
	if (st == USMP_OK)
		cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	return st;
}

Test(isolation, crash_becomes_a_plugin_error_naming_plugin_and_signal)
{
	char *err;
	int st = plan_with("crash", "fx_crash", USMP_PLAN_ISOLATE, 0, &err);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", err);
	cr_assert(strstr(err, "fx_crash") && strstr(err, "crash.so"), "%s", err);
	cr_assert(SEGV_WORDS(err), "%s", err);
	free(err);
}

Test(isolation, is_the_default_for_plugins_outside_the_installed_directory)
{
	char *err;
	int st = plan_with("crash", "fx_crash", 0, 0, &err);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", err);
	cr_assert(CRASH_WORDS(err), "%s", err);
	free(err);
}

Test(isolation, hang_is_killed_after_the_time_limit_and_grace)
{
	char *err;
	int st = plan_with("hang", "fx_hang", USMP_PLAN_ISOLATE, 0.2, &err);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", err);
	cr_assert(strstr(err, "fx_hang") && strstr(err, "killed"), "%s", err);
	free(err);
}

Test(isolation, scribble_past_the_output_array_hits_the_guard_page)
{
	char *err;
	int st = plan_with("scribble", "fx_scribble", USMP_PLAN_ISOLATE, 0, &err);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", err);
	cr_assert(strstr(err, "fx_scribble") && CRASH_WORDS(err), "%s", err);
	free(err);
}

/* Keeps the warnings a call logs (usmp_registry_set_log). */
static void keep_warning(void *ctx, int level, const char *algorithm,
                         const char *message)
{
	char *kept = ctx;
	if (level == USMP_LOG_WARN)
		snprintf(kept, 256, "%s: %s", algorithm, message);
}

Test(isolation, leaked_host_allocations_are_reclaimed_in_process)
{
	/* In process, the host frees the ten blocks fx_leak forgot, counting
	 * them as it goes (and under ASan/LSan a leak would fail the suite). */
	usmp_registry *r = fixture("leak");
	usmp_problem *p = test_small_problem();
	char warning[256] = "";
	cr_assert_eq(usmp_registry_set_log(r, keep_warning, warning,
	                                   USMP_LOG_WARN), USMP_OK);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "fx_leak"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_str_eq(warning,
	                 "fx_leak: leaked 10000 bytes in 10 blocks (freed)");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(isolation, invalid_plan_is_refused_naming_the_violation)
{
	char *err;
	int st = plan_with("invalid_plan", "fx_invalid_plan", USMP_PLAN_ISOLATE, 0,
	                   &err);
	cr_assert_eq(st, USMP_ERR_PLUGIN, "%s", err);
	cr_assert(strstr(err, "invalid plan") && strstr(err, "overlap"), "%s", err);
	free(err);
}

Test(isolation, isolated_and_in_process_plans_are_identical)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_small_problem();
	usmp_plan *a = NULL, *b = NULL;
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "best_fit",
	                       .flags = USMP_PLAN_ISOLATE};
	a = test_plan_ok(r, p, &o);
	o.flags = USMP_PLAN_NO_ISOLATE;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &b), USMP_OK);
	for (uint32_t i = 0; i < usmp_problem_buffer_count(p); i++) {
		uint64_t x, y;
		usmp_plan_placement(a, i, NULL, &x);
		usmp_plan_placement(b, i, NULL, &y);
		cr_assert_eq(x, y, "buffer %u", i);
	}
	usmp_plan_destroy(a), usmp_plan_destroy(b);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(isolation, cli_survives_a_crashing_plugin_with_exit_4)
{
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof cmd,
	         "USMP_PLUGIN_PATH='%s/crash.so' '%s' plan '%s/examples/mobilenet_v2.json'"
	         " -a fx_crash --isolate -o /dev/null", test_fixture_plugindir(),
	         test_cli(), test_source_root());
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	cr_assert(strstr(out, "crash.so") && SEGV_WORDS(out), "%s", out);
	free(out);
}
