/* test_loose_ends5.c — more loose ends: a dropped volunteer's file, the plugin
 * path's settings, --time-limit units, thin SVG buffers, spilling parts. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a volunteer's invalid plan names its file ----------------------------- */

/* auto drops fx_volunteer_invalid's overlapping plan and says which file
 * holds it and the command that tests it, as `-a fx_volunteer_invalid`
 * says in its error. */
Test(loose_ends5, a_dropped_volunteer_names_its_file_and_check_plugin)
{
	char *csv = test_write_tmp(".csv", test_crafted_csv);
	char *so = test_fmt("%s/volunteer/volunteer_crash.so",
	                    test_fixture_plugindir());
	char *tail = test_fmt(" broke its contract: usmp check-plugin %s runs it "
	                      "on small problems and names each failure", so);
	char *file = test_fmt(" (%s)", so);
	char *out = NULL;
	int st = test_run(test_fmt("USMP_LOG= USMP_ALGORITHM= "
	                           "USMP_PLUGIN_PATH='%s' '%s' plan '%s' "
	                           "-a auto:improve=false -o /dev/null",
	                           so, test_cli(), csv), &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	const char *line = strstr(out, "usmp: auto: volunteer fx_volunteer_invalid "
	                               "returned an invalid plan (dropped): "
	                               "buffers ");
	cr_assert_not_null(line, "%s", out);
	const char *eol = strchr(line, '\n');
	cr_assert_not_null(eol);
	char *one = test_fmt("%.*s", (int)(eol - line), line);
	cr_assert(strstr(one, "; its plugin \""), "%s", one);
	cr_assert(strstr(one, file), "%s", one);
	cr_assert(strstr(one, tail), "%s", one);
	free(out);
	/* The direct path says the same tail. */
	st = test_run(test_fmt("USMP_ALGORITHM= USMP_PLUGIN_PATH='%s' '%s' plan "
	                       "'%s' -a fx_volunteer_invalid -o /dev/null",
	                       so, test_cli(), csv), &out);
	cr_assert_eq(st, 4, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, tail), "%s", out);
	free(out);
	free(one);
	remove(csv);
	free(csv);
	free(file);
	free(tail);
	free(so);
}

/* ---- the plugin path's settings --------------------------------------------- */

/* An unknown algorithm of a host that named directories in
 * usmp_registry_options.plugin_path: the hint and each entry that gave no
 * plugin name the setting it came from, not USMP_PLUGIN_PATH alone. */
Test(loose_ends5, missing_entries_name_the_setting_they_came_from)
{
	char *dir = test_fresh_dir("le5-path");
	char *a = test_join(dir, "opt"), *b = test_join(dir, "env");
	cr_assert_eq(setenv("USMP_PLUGIN_PATH", b, 1), 0);
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS,
	                           .plugin_path = a};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", "acme_lf", &sel),
	             USMP_ERR_NOT_FOUND);
	char *want = test_fmt(
		"is on the plugin path (usmp_registry_options.plugin_path or "
		"USMP_PLUGIN_PATH); entries of usmp_registry_options.plugin_path "
		"that gave no plugin: %s: plugin directory not found; entries of "
		"USMP_PLUGIN_PATH that gave no plugin: %s: plugin directory not "
		"found", a, b);
	cr_assert(strstr(usmp_registry_error(r), want), "%s",
	          usmp_registry_error(r));
	usmp_registry_destroy(r);
	free(want);
	/* A host that reads no environment: its option alone. */
	o.flags |= USMP_REGISTRY_NO_ENV;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_eq(usmp_registry_select(r, "npu", "acme_lf", &sel),
	             USMP_ERR_NOT_FOUND);
	want = test_fmt("is on the plugin path (usmp_registry_options.plugin_path)"
	                "; entries of usmp_registry_options.plugin_path that gave "
	                "no plugin: %s: plugin directory not found", a);
	const char *e = usmp_registry_error(r);
	cr_assert(strstr(e, want), "%s", e);
	cr_assert_null(strstr(e, "USMP_PLUGIN_PATH"), "%s", e);
	usmp_registry_destroy(r);
	free(want);
	rmdir(dir);
	free(a);
	free(b);
	free(dir);
}

/* ---- --time-limit with a unit ----------------------------------------------- */

static const char small_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}],\n"
	" \"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\": [0, 2]},\n"
	"             {\"name\": \"b\", \"size\": 16, \"live\": [1, 3]}]}\n";

/* A number with a unit is refused as before, and told the seconds to write;
 * a number with no known unit gets the plain message. */
Test(loose_ends5, a_time_limit_with_a_unit_says_to_write_seconds)
{
	static const struct {
		const char *arg, *unit, *name, *secs;
	} cases[] = {{"2s", "s", "seconds", "2"},
	             {"1m", "m", "minutes", "60"},
	             {"500ms", "ms", "milliseconds", "0.5"},
	             {"1.5min", "min", "minutes", "90"},
	             {"1h", "h", "hours", "3600"}};
	char *pp = test_write_tmp(".json", small_json);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' --time-limit %s -o /dev/null",
		                   pp, cases[i].arg);
		cr_assert_eq(st, 2, "%s: exit %d\n%s", cases[i].arg, st, out);
		char *want = test_fmt(
			"usmp: --time-limit %s: expected seconds, more than 0 and at "
			"most 1e9 (--no-time-limit: none); the unit \"%s\" (%s) is not "
			"read: write seconds as a number, e.g. --time-limit %s\n",
			cases[i].arg, cases[i].unit, cases[i].name, cases[i].secs);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
		/* check-plugin's option alike, before any file is read. */
		st = test_usmp(&out, "check-plugin --time-limit %s nosuch.so",
		               cases[i].arg);
		cr_assert_eq(st, 2, "%s: exit %d\n%s", cases[i].arg, st, out);
		want = test_fmt("usmp: --time-limit %s: expected seconds, more than "
		                "0 and at most 86400; the unit \"%s\" (%s) is not "
		                "read: write seconds as a number, e.g. --time-limit "
		                "%s\n", cases[i].arg, cases[i].unit, cases[i].name,
		                cases[i].secs);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
	}
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "plan '%s' --time-limit 2x -o /dev/null",
	                       pp), 2);
	cr_assert(strstr(out, "usmp: --time-limit 2x: expected seconds, more than "
	                      "0 and at most 1e9 (--no-time-limit: none)\n"),
	          "%s", out);
	free(out);
	remove(pp);
	free(pp);
}

/* An option asking for log lines (-v, --verbose, --log-level, --debug) is
 * refused as before and told that USMP_LOG sets them; another unknown
 * option gets the plain message. */
Test(loose_ends5, a_verbose_option_is_told_of_usmp_log)
{
	static const char *const asks[] = {"-v", "--verbose", "--log-level=info",
	                                   "--debug"};
	char *pp = test_write_tmp(".json", small_json);
	for (size_t i = 0; i < sizeof asks / sizeof *asks; i++) {
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' %s -o /dev/null", pp, asks[i]);
		cr_assert_eq(st, 2, "%s: exit %d\n%s", asks[i], st, out);
		char *want = test_fmt("usmp: plan: unrecognized option '%s' (try "
		                      "`usmp plan --help`); log lines are asked for "
		                      "by the environment: USMP_LOG=info (or debug) "
		                      "usmp ...\n", asks[i]);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
	}
	char *out = NULL;
	cr_assert_eq(test_usmp(&out, "plan '%s' --frob -o /dev/null", pp), 2);
	cr_assert(strstr(out, "usmp: plan: unrecognized option '--frob' (try "
	                      "`usmp plan --help`)\n"), "%s", out);
	free(out);
	remove(pp);
	free(pp);
}

/* ---- thin buffers in the SVG ---------------------------------------------- */

/* The first <rect> attribute `key` ("y", "height") after `at`. */
static double rect_attr(const char *at, const char *key)
{
	char *pat = test_fmt(" %s=\"", key);
	const char *v = strstr(at, pat);
	cr_assert_not_null(v, "no %s in %.200s", key, at);
	double x = strtod(v + strlen(pat), NULL);
	free(pat);
	return x;
}

/* The start of the <rect whose <title> begins with `title`. */
static const char *rect_titled(const char *svg, const char *title)
{
	char *pat = test_fmt("><title>%s", title);
	const char *t = strstr(svg, pat);
	cr_assert_not_null(t, "no rect titled %s", title);
	free(pat);
	const char *r = t;
	while (r > svg && strncmp(r, "<rect ", 6))
		r--;
	cr_assert(!strncmp(r, "<rect ", 6));
	return r;
}

/* A 1-byte buffer alive for the last step of 2^40 beside one of 2^63 bytes
 * alive throughout: it is drawn MIN_BUFFER_HEIGHT (1 px) high and
 * MIN_BUFFER_WIDTH (1 px) wide, inside its panel's plot, where it was 0 px
 * by 0 px. */
Test(loose_ends5, a_one_byte_buffer_in_a_huge_pool_is_visible_in_the_svg)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t pool, huge, tiny;
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 1, &pool),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "huge", 1ull << 63, 1, &huge),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "tiny", 1, 1, &tiny), USMP_OK);
	const int64_t steps = INT64_C(1) << 40;
	cr_assert_eq(usmp_problem_set_live(p, huge, 0, steps), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, tiny, steps - 1, steps), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	char *path = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, path), USMP_OK);
	char *svg = test_read_file(path);
	const char *bg = strstr(svg, "<rect class=\"bg\"");
	cr_assert_not_null(bg);
	double top = rect_attr(bg, "y"), bottom = top + rect_attr(bg, "height");
	const char *t = rect_titled(svg, "tiny: 1 B");
	double y = rect_attr(t, "y"), h = rect_attr(t, "height");
	cr_assert_geq(h, 1.0, "%.300s", t);
	cr_assert_geq(y, top, "%.300s", t);
	cr_assert_leq(y + h, bottom, "%.300s", t);
	double left = rect_attr(bg, "x"), right = left + rect_attr(bg, "width");
	double x = rect_attr(t, "x"), w = rect_attr(t, "width");
	cr_assert_geq(w, 1.0, "%.300s", t);
	cr_assert_geq(x, left, "%.300s", t);
	cr_assert_leq(x + w, right + 0.01, "%.300s", t);
	cr_assert_gt(x, right - 2.0, "the last step is at the right: %.300s", t);
	/* The huge one keeps its true height. */
	const char *g = rect_titled(svg, "huge: ");
	cr_assert_gt(rect_attr(g, "height"), 100.0, "%.300s", g);
	remove(path);
	free(path);
	free(svg);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- a part too big for one of its pools ------------------------------------ */

/* Pools sram (limit s) and dram (limit d, USMP_UNBOUNDED for none); buffers
 * a and b (`size` bytes each, alive together, candidates sram then dram),
 * planned by auto: it must plan (USMP_OK) and the plan verify. */
static void spill_case(uint64_t s, uint64_t d, uint64_t size,
                       usmp_part_info *pi)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, a, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", s, 1, &sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", d, 1, &dram), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", size, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", size, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_eq(usmp_problem_add_candidate(p, i, sram), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, dram), USMP_OK);
	}
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "auto"};
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK,
	             "sram %llu, dram %llu: %s", (unsigned long long)s,
	             (unsigned long long)d, usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_part_count(plan), 1);
	memset(pi, 0, sizeof *pi);
	pi->struct_size = sizeof *pi;
	cr_assert_eq(usmp_plan_part(plan, 0, pi), USMP_OK);
	cr_assert(!strncmp(pi->algorithm, "auto/", 5), "%s", pi->algorithm);
	pi->algorithm = NULL; /* the plan's string: gone with it */
	pi->rule = NULL;
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* Too big for one of its pools is not infeasible: a buffer spills to the
 * other. sram (24, or 16) holds one of a and b, not both (lower bound 32);
 * dram unbounded, or 16 (also below the bound, but the two pools together
 * hold 32): auto plans, spilling b (16 bytes), not the infeasibility
 * certificate usmp__infeasible_plain gives a part too big for all its
 * pools together. */
Test(loose_ends5, a_part_too_big_for_one_of_its_pools_spills_to_another)
{
	static const uint64_t limits[][2] = {{24, USMP_UNBOUNDED}, {16, 16},
	                                     {24, 16}};
	for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
		usmp_part_info pi;
		spill_case(limits[k][0], limits[k][1], 16, &pi);
		cr_assert_eq(pi.lower_bound, 32, "case %zu", k);
		cr_assert_gt(pi.lower_bound, limits[k][0]);
		cr_assert_eq(pi.size, 32, "case %zu", k);
		cr_assert_eq(pi.spill, 16, "case %zu", k);
		cr_assert_eq(pi.spill_count, 1, "case %zu", k);
		cr_assert_eq(pi.spill_forced, 0, "case %zu", k);
	}
	/* One buffer larger than its first pool (sram 8): forced to dram,
	 * said as forced spill. */
	usmp_part_info pi;
	spill_case(8, USMP_UNBOUNDED, 16, &pi);
	cr_assert_eq(pi.spill, 32);
	cr_assert_eq(pi.spill_forced, 32);
}
