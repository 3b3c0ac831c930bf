/* test_loose_ends3.c — more loose ends: registry notes collapsed, USMP_LOG
 * checked by every command, long names shortened in messages, auto's
 * volunteer estimate, and the spill line's wording. */
#include "plugin_harness.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char two_csv[] = "id,lower,upper,size\na,0,2,10\nb,1,3,10\n";

/* How many times `needle` occurs in `hay`. */
static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/* ---- registry diagnostics collapsed --------------------------------------- */

/* 2,000 missing USMP_PLUGIN_PATH entries: 8 notes, then how many more,
 * where each had a line of its own. */
Test(loose_ends3, plan_collapses_thousands_of_registry_notes)
{
	char *pp = test_write_tmp(".csv", two_csv);
	size_t cap = 2000 * 24, len = 0;
	char *path = malloc(cap);
	cr_assert_not_null(path);
	for (int i = 0; i < 2000; i++)
		len += (size_t)snprintf(path + len, cap - len, "%s/nope%d",
		                        i ? ":" : "", i);
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan "
	                     "'%s' -o /dev/null", path, test_cli(), pp);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_eq(count(out, "plugin directory not found"), 8, "%s", out);
	cr_assert(strstr(out, "usmp: note: ... and 1992 more: `usmp list -v` "
	                      "shows them all\n"), "%s", out);
	cr_assert(strstr(out, "/nope7: plugin directory not found"), "%s", out);
	cr_assert_null(strstr(out, "/nope8: plugin"), "%s", out);
	free(out);
	/* Eight or fewer: each on its line, no count. */
	free(cmd);
	cmd = test_fmt("USMP_PLUGIN_PATH=/nope0:/nope1 USMP_ALGORITHM= '%s' plan "
	               "'%s' -o /dev/null", test_cli(), pp);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_eq(count(out, "plugin directory not found"), 2, "%s", out);
	cr_assert_null(strstr(out, "more: `usmp list -v`"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* ---- USMP_LOG checked by every command that honours it -------------------- */

/* list, select and check-plugin warned about nothing (the library took
 * the unknown level for silence); now each warns once, naming the levels;
 * plan still refuses it. */
Test(loose_ends3, every_command_warns_once_about_an_unknown_log_level)
{
	static const char warning[] = "usmp: warning: USMP_LOG=bogus: expected "
	                              "error, warn, info or debug";
	const char *args[] = {"list", "list -v", "select npu",
	                      "check-plugin '%s/plugins/fit.so'"};
	for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
		char *a = test_fmt(args[i], test_build_root());
		char *cmd = test_fmt("USMP_LOG=bogus USMP_PLUGIN_PATH= "
		                     "USMP_ALGORITHM= '%s' %s", test_cli(), a);
		char *out = NULL;
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "%s: exit %d: %s", a, st, out);
		cr_assert_eq(count(out, warning), 1, "%s: %s", a, out);
		free(out);
		/* A known level: no warning. */
		free(cmd);
		cmd = test_fmt("USMP_LOG=warn USMP_PLUGIN_PATH= USMP_ALGORITHM= "
		               "'%s' %s", test_cli(), a);
		st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "%s: exit %d: %s", a, st, out);
		cr_assert_null(strstr(out, "USMP_LOG"), "%s: %s", a, out);
		free(out);
		free(cmd);
		free(a);
	}
	char *pp = test_write_tmp(".csv", two_csv);
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o /dev/null", pp);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	char *cmd = test_fmt("USMP_LOG=bogus '%s' plan '%s' -o /dev/null",
	                     test_cli(), pp);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "usmp: USMP_LOG=bogus: expected error, warn, info "
	                      "or debug (unset or empty: no log messages)\n"),
	          "%s", out);
	free(out);
	free(cmd);
	free(pp);
}
