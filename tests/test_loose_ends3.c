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
