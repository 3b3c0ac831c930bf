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

/* ---- long names shortened in messages ------------------------------------- */

/* Whether `s` is valid UTF-8 (no sequence cut). */
static int valid_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		int n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2
		        : (*u & 0xf0) == 0xe0 ? 3 : (*u & 0xf8) == 0xf0 ? 4 : 0;
		if (!n)
			return 0;
		for (int i = 1; i < n; i++)
			if ((u[i] & 0xc0) != 0x80)
				return 0;
		u += n;
	}
	return 1;
}

/* A name of `len` bytes: `lead` then "é" (2 bytes) repeated. */
static char *long_name(const char *lead, size_t len)
{
	char *s = malloc(len + 1);
	cr_assert_not_null(s);
	size_t k = strlen(lead);
	memcpy(s, lead, k);
	while (k + 2 <= len) {
		s[k++] = (char)0xc3;
		s[k++] = (char)0xa9;
	}
	while (k < len)
		s[k++] = 'x';
	s[len] = '\0';
	return s;
}

/* A 1 MB name given twice: the message quoted it whole (2 MB); now its
 * first 59 bytes (60 would split an "é") and "…(1048576 bytes)". */
Test(loose_ends3, a_long_name_is_shortened_in_library_messages)
{
	char *name = long_name("a", 1u << 20);
	usmp_problem *p = usmp_problem_create();
	uint32_t pool = 0, b = 0;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1000, 1, &pool), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b), USMP_OK,
	             "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b),
	             USMP_ERR_INVALID);
	const char *msg = usmp_problem_error(p);
	cr_assert_lt(strlen(msg), 200, "%zu bytes", strlen(msg));
	char *want = test_fmt("buffer \"%.59s\xe2\x80\xa6(1048576 bytes)\": name "
	                      "already used by buffer 0", name);
	cr_assert_str_eq(msg, want);
	cr_assert(valid_utf8(msg));
	free(want);
	/* A name at the limit (120 bytes) is quoted whole. */
	name[120] = '\0';
	cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), name), "%s",
	          usmp_problem_error(p));
	usmp_problem_destroy(p);
	free(name);
}

/* `usmp plan` on a 1 MB pool name and a 1 MB buffer name (spilled out of
 * that pool): the summary quoted both whole, now shortened; the plan file
 * keeps them whole. */
Test(loose_ends3, the_summary_shortens_long_names_the_plan_file_keeps_them)
{
	char *pool = long_name("p", 1u << 20), *buf = long_name("bb", 1u << 20);
	char *json = test_fmt(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"%s\", \"size_limit\": 10},"
		" {\"name\": \"dram\", \"size_limit\": 1000}], \"buffers\": ["
		"{\"name\": \"%s\", \"size\": 20, \"live\": [0, 2], \"pools\": "
		"[\"%s\", \"dram\"]}]}", pool, buf, pool);
	char *pp = test_write_tmp(".json", json);
	char *plan = test_tmpfile(".json");
	char *out = NULL;
	int st = test_usmp(&out, "plan '%s' -o '%s'", pp, plan);
	cr_assert_eq(st, 0, "exit %d: %.2000s", st, out);
	cr_assert_lt(strlen(out), 4000, "%zu bytes", strlen(out));
	char *pool_shown = test_fmt("pool %.59s\xe2\x80\xa6(1048576 bytes)", pool);
	char *buf_shown = test_fmt("the largest \"%.60s\xe2\x80\xa6(1048576 bytes)\" "
	                           "in dram", buf);
	cr_assert(strstr(out, pool_shown), "%s", out);
	cr_assert(strstr(out, buf_shown), "%s", out);
	cr_assert(valid_utf8(out));
	char *written = test_read_file(plan);
	cr_assert(strstr(written, buf), "the plan file lost the name");
	free(written);
	free(buf_shown);
	free(pool_shown);
	free(out);
	free(plan);
	free(pp);
	free(json);
	free(buf);
	free(pool);
}

/* ---- auto: a volunteer's child process in its estimate -------------------- */

/* auto with improve=false on test_crafted_csv within `limit` seconds, `flags`;
 * its log lines at info into `log` (char[TEST_LOG_LINES]). */
static void auto_with_volunteer(double limit, uint32_t flags, char *log)
{
	char *path = test_fmt("%s/plugins:%s/volunteer/volunteer.so",
	                      test_build_root(), test_fixture_plugindir());
	usmp_registry *r = test_registry(path);
	log[0] = '\0';
	cr_assert_eq(usmp_registry_set_log(r, test_keep_log_lines, log,
	                                   USMP_LOG_INFO), USMP_OK);
	char *pp = test_write_tmp(".csv", test_crafted_csv);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	const char *knobs[1] = {"improve=false"};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "auto",
	                       .params = knobs, .param_count = 1,
	                       .time_limit = limit, .flags = flags};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	remove(pp);
	free(pp);
	free(path);
}

/* An isolated volunteer was budgeted as its declared cost x the first
 * plan's time (well under a millisecond here) and started in a child
 * process with 8 ms left; its estimate now counts the child process (10 ms
 * before one was measured), so it is not started (on a loaded machine the
 * limit may have passed before: not run either). */
Test(loose_ends3, an_isolated_volunteer_is_budgeted_with_its_child_process)
{
	char log[TEST_LOG_LINES];
	auto_with_volunteer(0.008, 0, log);
	cr_assert(strstr(log, "volunteer fx_oracle skipped: estimated ") ||
	          strstr(log, "volunteer fx_oracle not run: the time limit has "
	                      "passed"), "%s", log);
	cr_assert_null(strstr(log, "volunteer fx_oracle took"), "%s", log);
	if (strstr(log, "skipped: estimated"))
		cr_assert(strstr(log, " ms (10.0 ms of it for its child process), "),
		          "%s", log);
	/* With time to spare, it runs in its child process. */
	auto_with_volunteer(5.0, 0, log);
	cr_assert(strstr(log, "volunteer fx_oracle took"), "%s", log);
	cr_assert(strstr(log, "with its child process"), "%s", log);
}

/* ---- the spill line's wording for auto ------------------------------------ */

/* tests/test_auto_spill.c's `cycle`: sram 100 bytes before dram; x (70)
 * over [0, 4), y (50) and w (80, dram only) over [0, 2), z (60) over
 * [2, 4), five 45-byte dram-only buffers in a cycle of conflict edges. The
 * computed spill floor is 60; the least spill is 70 (x alone in dram),
 * which auto's exact member finds and proves; the heuristics spill 110. */
static const char cycle_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},"
	" {\"name\": \"dram\"}], \"buffers\": ["
	" {\"name\": \"x\", \"size\": 70, \"live\": [0, 4], \"pools\": [\"sram\", "
	"\"dram\"]},"
	" {\"name\": \"y\", \"size\": 50, \"live\": [0, 2], \"pools\": [\"sram\", "
	"\"dram\"]},"
	" {\"name\": \"z\", \"size\": 60, \"live\": [2, 4], \"pools\": [\"sram\", "
	"\"dram\"]},"
	" {\"name\": \"w\", \"size\": 80, \"live\": [0, 2], \"pools\": [\"dram\"]},"
	" {\"name\": \"c0\", \"size\": 45, \"pools\": [\"dram\"]},"
	" {\"name\": \"c1\", \"size\": 45, \"pools\": [\"dram\"]},"
	" {\"name\": \"c2\", \"size\": 45, \"pools\": [\"dram\"]},"
	" {\"name\": \"c3\", \"size\": 45, \"pools\": [\"dram\"]},"
	" {\"name\": \"c4\", \"size\": 45, \"pools\": [\"dram\"]}],"
	" \"conflicts\": [[\"c0\", \"c1\"], [\"c1\", \"c2\"], [\"c2\", \"c3\"],"
	" [\"c3\", \"c4\"], [\"c4\", \"c0\"]]}\n";

/* auto's exact member proved the least spill (70) and the summary said
 * "auto keeps the least spill it found, -a exact proves the least"; now
 * the proof raises the part's floor to 70 and the line says it is the
 * least possible. Without the search (improve=false) the heuristics' 110
 * is said to be unproven, never that -a exact proves it. */
Test(loose_ends3, the_spill_line_says_when_auto_proved_the_least_spill)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(cycle_json, "cycle.json");
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "auto",
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_str_eq(pi.algorithm, "auto/exact");
	cr_assert_eq(pi.spill, 70);
	cr_assert_eq(pi.spill_floor, 70, "floor %llu",
	             (unsigned long long)pi.spill_floor);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);

	char *path = test_write_tmp(".json", cycle_json);
	char *out = test_usmp_ok("plan '%s' -o /dev/null", path);
	cr_assert(strstr(out, "\n    spill 70 bytes: 1 buffer outside its first "
	                      "candidate pool, the largest \"x\" in dram; the "
	                      "least possible: no valid plan spills less\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "-a exact"), "%s", out);
	free(out);
	out = test_usmp_ok("plan '%s' -a auto -p improve=false -o /dev/null",
	                   path);
	cr_assert(strstr(out, "\n    spill 110 bytes: 2 buffers outside their "
	                      "first candidate pool, the largest \"z\" in dram; "
	                      "no valid plan spills less than 60 bytes; auto "
	                      "keeps the least spill it found, not proven the "
	                      "least (-a exact may prove it, given the time)\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "-a exact proves"), "%s", out);
	free(out);
	free(path);
}
