/* test_volunteer.c — plugins volunteering algorithms for auto (ABI 1.2,
 * USMP_CAP_PORTFOLIO): run by auto when they declare it, never otherwise,
 * ignored when they fail, listed by `usmp list -v`; older plugins load. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* "BUILD/plugins:FIXTURES/volunteer/NAME.so" (NULL: the shipped ones). */
static char *with_fixture(const char *name)
{
	char *p = malloc(8192);
	cr_assert_not_null(p);
	if (name)
		snprintf(p, 8192, "%s/plugins:%s/volunteer/%s.so", test_build_root(),
		         test_fixture_plugindir(), name);
	else
		snprintf(p, 8192, "%s/plugins", test_build_root());
	return p;
}

static usmp_problem *crafted_problem(void)
{
	char *path = test_write_tmp(".csv", test_crafted_csv);
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	remove(path);
	free(path);
	return p;
}

typedef struct outcome {
	uint64_t size, lower_bound;
	char algorithm[128];
} outcome;

/* auto (with improve=false when `heuristics_only`) on test_crafted_csv
 * with the plugins of `path`; asserts a verified plan. */
static outcome plan_crafted(const char *path, bool heuristics_only)
{
	usmp_registry *r = test_registry(path);
	usmp_problem *p = crafted_problem();
	const char *knobs[1] = {"improve=false"};
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "auto",
	                       .params = knobs,
	                       .param_count = heuristics_only ? 1 : 0};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_part_info part = test_part(plan, 0);
	outcome out = {.size = part.size, .lower_bound = part.lower_bound};
	snprintf(out.algorithm, sizeof out.algorithm, "%s", part.algorithm);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	return out;
}

Test(volunteer, the_crafted_problem_beats_the_shipped_heuristics)
{
	char *path = with_fixture(NULL);
	outcome o = plan_crafted(path, true);
	cr_assert_eq(o.lower_bound, 41);
	cr_assert_gt(o.size, o.lower_bound, "heuristics reached the bound (%s)",
	             o.algorithm);
	free(path);
}

Test(volunteer, auto_runs_a_volunteer_and_keeps_its_better_plan)
{
	char *path = with_fixture("volunteer");
	outcome o = plan_crafted(path, true);
	cr_assert_eq(o.size, 41);
	cr_assert_str_eq(o.algorithm, "auto/fx_oracle");
	/* With the search on too: the volunteer reaches the bound first. */
	o = plan_crafted(path, false);
	cr_assert_eq(o.size, 41);
	cr_assert_str_eq(o.algorithm, "auto/fx_oracle");
	free(path);
}

Test(volunteer, the_same_algorithm_without_the_bit_is_never_run)
{
	char *path = with_fixture("not_volunteer");
	outcome o = plan_crafted(path, true);
	cr_assert_gt(o.size, 41, "auto got the oracle's plan: %s", o.algorithm);
	cr_assert_null(strstr(o.algorithm, "fx_oracle"), "%s", o.algorithm);
	/* It is there, and finds the plan when asked by name. */
	usmp_registry *r = test_registry(path);
	usmp_problem *p = crafted_problem();
	usmp_plan_options named = {.struct_size = sizeof named,
	                           .algorithm = "fx_oracle_off"};
	usmp_plan *plan = test_plan_ok(r, p, &named);
	usmp_part_info part = test_part(plan, 0);
	cr_assert_eq(part.size, 41);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(path);
}

Test(volunteer, a_crashing_or_invalid_volunteer_does_not_fail_auto)
{
	char *path = with_fixture("volunteer_crash");
	for (int improve = 0; improve < 2; improve++) {
		outcome o = plan_crafted(path, !improve);
		cr_assert_null(strstr(o.algorithm, "fx_volunteer"), "%s", o.algorithm);
		cr_assert_geq(o.size, 41);
	}
	/* The notes say which volunteer was ignored and why. */
	char *csv = test_write_tmp(".csv", test_crafted_csv);
	char cmd[12000], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_LOG=warn USMP_PLUGIN_PATH='%s' '%s' plan "
	         "'%s' -o /dev/null", path, test_cli(), csv);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s", st, out);
	cr_assert(strstr(out, "volunteer fx_volunteer_crash failed (plugin "
	                      "failure: algorithm \"fx_volunteer_crash\""), "%s",
	          out);
	/* Signal 11; under UBSan the null load is reported and the child
	 * exits instead (a failure all the same). */
	cr_assert(strstr(out, "crashed with signal 11") ||
	          strstr(out, "volunteer_crash.so) exited (status 1) instead "
	                      "of returning"),
	          "%s", out);
	cr_assert(strstr(out, "volunteer fx_volunteer_invalid returned an invalid "
	                      "plan (dropped): buffers "), "%s", out);
	cr_assert(strstr(out, "ratio 1.0000"), "%s", out);
	free(out);
	remove(csv);
	free(csv);
	free(path);
}

Test(volunteer, members_list_the_table_then_volunteers_only)
{
	char *path = malloc(16384);
	cr_assert_not_null(path);
	snprintf(path, 16384, "%s/plugins:%s/volunteer/volunteer.so:"
	         "%s/volunteer/not_volunteer.so", test_build_root(),
	         test_fixture_plugindir(), test_fixture_plugindir());
	usmp_registry *r = test_registry(path);
	uint32_t n = usmp_registry_member_count(r), volunteers = 0;
	cr_assert_gt(n, 1);
	/* The table (whatever auto is tuned to): a first-plan row first, every
	 * row an installed algorithm of that name, a cost for every row but
	 * the search's, and the volunteers after the table. */
	usmp_member_info m = {.struct_size = sizeof m};
	cr_assert_eq(usmp_registry_member(r, 0, &m), USMP_OK);
	cr_assert_eq(m.role, USMP_MEMBER_FIRST);
	for (uint32_t i = 0; i < n; i++) {
		m = (usmp_member_info){.struct_size = sizeof m};
		cr_assert_eq(usmp_registry_member(r, i, &m), USMP_OK);
		cr_assert_str_neq(m.name, "fx_oracle_off");
		cr_assert(m.role >= USMP_MEMBER_FIRST &&
		          m.role <= USMP_MEMBER_VOLUNTEER, "row %u: role %u", i,
		          m.role);
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		cr_assert_neq(m.algorithm, UINT32_MAX, "%s", m.name);
		cr_assert_eq(usmp_registry_algorithm(r, m.algorithm, &ai), USMP_OK);
		cr_assert_str_eq(ai.name, m.name);
		if (m.role == USMP_MEMBER_SEARCH)
			cr_assert_eq(m.cost, 0, "%s", m.name);
		else
			cr_assert_gt(m.cost, 0, "%s", m.name);
		if (m.role != USMP_MEMBER_VOLUNTEER)
			continue;
		volunteers++;
		cr_assert_eq(i, n - 1, "volunteers come last");
		cr_assert_str_eq(m.name, "fx_oracle");
		cr_assert_eq(m.cost, 2.0);
		cr_assert(ai.caps & USMP_CAP_PORTFOLIO);
	}
	cr_assert_eq(volunteers, 1);
	cr_assert_eq(usmp_registry_member(r, n, &m), USMP_ERR_NOT_FOUND);

	/* usmp list -v: every row as the API gives it, and the volunteer
	 * with its file. */
	char cmd[20000], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH='%s' '%s' list -v", path,
	         test_cli());
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "auto's members"), "%s", out);
	static const char *roles[] = {"?", "first plan", "heuristic", "search",
	                              "volunteer"};
	for (uint32_t i = 0; i < n; i++) {
		char row[256], name[160];
		m = (usmp_member_info){.struct_size = sizeof m};
		cr_assert_eq(usmp_registry_member(r, i, &m), USMP_OK);
		snprintf(name, sizeof name, "%s%s%s", m.name, *m.knobs ? ":" : "",
		         m.knobs);
		snprintf(row, sizeof row, "\n  %-10s  %-28s  ", roles[m.role], name);
		cr_assert(strstr(out, row), "no row \"%s\" in:\n%s", row, out);
	}
	usmp_registry_destroy(r);
	const char *v = strstr(out, "  volunteer   fx_oracle ");
	cr_assert(v, "%s", out);
	cr_assert(strstr(v, "cost 2") && strstr(v, "volunteer/volunteer.so\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "volunteer   fx_oracle_off"), "%s", out);
	cr_assert(strstr(out, "capabilities: deterministic, volunteers for auto"),
	          "%s", out);
	free(out);
	free(path);
}

/* One plugin per ABI revision, loaded side by side (good_v1_2 and good_v1_3
 * name their algorithms as good_v1_1 does: each in a registry of its own). */
Test(volunteer, plugins_of_abi_1_0_to_1_3_load)
{
	static const struct {
		const char *file, *algo;
		uint32_t minor;
	} revs[] = {{"good_v1_0", "fx_old", 0},
	            {"good_v1_1", "fx_good", 1},
	            {"volunteer/good_v1_2", "fx_good", 2},
	            {"volunteer/good_v1_3", "fx_good", 3}};
	for (size_t i = 0; i < sizeof revs / sizeof *revs; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s.so", test_fixture_plugindir(),
		         revs[i].file);
		usmp_registry *r = test_registry(path);
		usmp_plugin_info pi = {.struct_size = sizeof pi};
		cr_assert_eq(usmp_registry_plugin(r, 0, &pi), USMP_OK);
		cr_assert_eq(pi.abi_minor, revs[i].minor, "%s", revs[i].file);
		uint32_t a;
		cr_assert_eq(usmp_registry_find_algorithm(r, revs[i].algo, &a),
		             USMP_OK, "%s", revs[i].file);
		/* None volunteers: auto's members are its table alone. */
		for (uint32_t k = 0; k < usmp_registry_member_count(r); k++) {
			usmp_member_info m = {.struct_size = sizeof m};
			cr_assert_eq(usmp_registry_member(r, k, &m), USMP_OK);
			cr_assert_neq(m.role, USMP_MEMBER_VOLUNTEER, "%s", revs[i].file);
		}
		usmp_registry_destroy(r);
	}
}

Test(volunteer, a_cost_auto_cannot_use_refuses_that_algorithm)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/volunteer/bad_cost.so",
	         test_fixture_plugindir());
	usmp_registry *r = test_registry_any(path);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 1);
	const char *d = usmp_registry_diagnostic(r, 0);
	cr_assert(strstr(d, "bad_cost.so: algorithm \"fx_bad_cost\": cost -1 is "
	                    "not a finite number from 0 to 1e9; skipped"), "%s", d);
	uint32_t a;
	cr_assert_eq(usmp_registry_find_algorithm(r, "fx_bad_cost", &a),
	             USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_registry_find_algorithm(r, "fx_cost_ok", &a), USMP_OK);
	usmp_registry_destroy(r);
}
