/* test_loose_ends4.c — more loose ends: a plan file without parts, the
 * infeasibility message's cut, empty rules, sizes with units in Python. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a plan file with no parts --------------------------------------------- */

/* The problem file pp read, then the plan file planp for it: both must
 * read (the plan's note, if any, is in its error). */
static usmp_plan *read_back(const char *pp, const char *planp,
                            usmp_problem **p)
{
	usmp_plan *plan = NULL;
	*p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(*p, pp, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	cr_assert_eq(usmp_plan_read(*p, planp, USMP_FORMAT_AUTO, &plan),
	             USMP_OK, "%s", usmp_plan_error(plan));
	return plan;
}

/* Part i of a plan; it must exist. */
static usmp_part_info part_of(const usmp_plan *plan, uint32_t i)
{
	usmp_part_info pi;
	memset(&pi, 0, sizeof pi);
	pi.struct_size = sizeof pi;
	cr_assert_eq(usmp_plan_part(plan, i, &pi), USMP_OK);
	return pi;
}

/* sram holds 24 bytes; a and b (16 each) live together, so b goes to dram. */
static const char spill_problem[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 24}, "
	"{\"name\": \"dram\"}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"a\", \"size\": 16, \"live\": [0, 2], "
	"\"pools\": [\"sram\", \"dram\"]},\n"
	"  {\"name\": \"b\", \"size\": 16, \"live\": [1, 3], "
	"\"pools\": [\"sram\", \"dram\"]}]}\n";
static const char spill_plan_head[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"pool\": \"sram\", "
	"\"offset\": 0}, {\"name\": \"b\", \"pool\": \"dram\", \"offset\": 0}]";

/* With no "parts" (or "parts": []), the plan read back has the library's
 * part: its size, bound and spill from the placements, as for a file that
 * has parts; verify prints its spill line. */
Test(loose_ends4, a_plan_without_parts_gets_the_librarys_part)
{
	const char *tails[] = {"}\n", ", \"parts\": []}\n"};
	char *pp = test_write_tmp(".json", spill_problem);
	for (size_t k = 0; k < 2; k++) {
		char *text = test_fmt("%s%s", spill_plan_head, tails[k]);
		char *planp = test_write_tmp(".json", text);
		usmp_problem *p;
		usmp_plan *plan = read_back(pp, planp, &p);
		cr_assert_eq(usmp_plan_part_count(plan), 1);
		usmp_part_info pi = part_of(plan, 0);
		cr_assert_eq(pi.size, 32);
		cr_assert_eq(pi.buffer_count, 2);
		cr_assert_eq(pi.lower_bound, 32);
		cr_assert_eq(pi.spill, 16);
		cr_assert_eq(pi.spill_count, 1);
		cr_assert_eq(pi.spill_largest, 1);
		cr_assert_eq(pi.spill_floor, 16);
		cr_assert_eq(pi.optimal, 0);
		cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
		             usmp_plan_error(plan));
		char *out = NULL;
		int st = test_usmp(&out, "verify '%s' '%s'", pp, planp);
		cr_assert_eq(st, 0, "%s", out);
		cr_assert(strstr(out, "part 1: spill 16 bytes: 1 buffer outside "
		                      "its first candidate pool, the largest "
		                      "\"b\" in dram"), "%s", out);
		free(out);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
		remove(planp);
		free(planp);
		free(text);
	}
	remove(pp);
	free(pp);
}

/* ---- a rule matching no pool, with long names -------------------------------- */

/* The line of a rule matching nothing, kept whole (the last one said). */
static void keep_line(void *ctx, int level, const char *who, const char *msg)
{
	char **slot = ctx;
	(void)level;
	(void)who;
	if (strstr(msg, "matches no")) {
		free(*slot);
		*slot = strdup(msg);
	}
}

/* Whether s is well-formed UTF-8 (no sequence cut). */
static int utf8_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		int n = *u < 0x80 ? 0 : (*u & 0xe0) == 0xc0 ? 1
		        : (*u & 0xf0) == 0xe0 ? 2 : (*u & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0)
			return 0;
		u++;
		for (int k = 0; k < n; k++, u++)
			if ((*u & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* Ten pools named "pN" then 60 'é' (122 bytes), a rule naming one nearly:
 * the line was built in 512 and 1,024-byte buffers, so the pool list ended
 * mid-name (or mid-character) with no closing quote and no word of it. */
Test(loose_ends4, a_rule_line_with_long_names_is_never_cut)
{
	char e60[121] = "";
	for (int i = 0; i < 60; i++)
		strcat(e60, "\xc3\xa9");
	char *json = test_fmt("{\"usmp\": 1, \"pools\": [{\"name\": \"p0%s\"}",
	                      e60);
	for (int i = 1; i < 10; i++) {
		char *more = test_fmt("%s, {\"name\": \"p%d%s\"}", json, i, e60);
		free(json);
		json = more;
	}
	char *more = test_fmt("%s], \"buffers\": [{\"name\": \"b\", \"size\": 8, "
	                      "\"live\": [0, 1], \"pools\": [\"p0%s\"]}]}", json,
	                      e60);
	free(json);
	json = more;
	usmp_problem *p = test_parse_json(json, "long.json");
	usmp_registry *r = test_registry(NULL);
	char *rule = test_fmt("@p0%.118s=exact", e60); /* 59 'é' */
	cr_assert_eq(usmp_registry_bind_rules(r, rule), USMP_OK);
	char *line = NULL;
	usmp_registry_set_log(r, keep_line, &line, USMP_LOG_INFO);
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	cr_assert_not_null(line);
	cr_assert(utf8_ok(line), "%s", line);
	cr_assert(strstr(line, "rule \"@p0"), "%s", line);
	cr_assert(strstr(line, "…(127 bytes)\" matches no pool of the problem "
	                       "(pools: \"p0"), "%s", line);
	cr_assert(strstr(line, "\"p7"), "%s", line);
	cr_assert(strstr(line, "…(122 bytes)\" and 2 more); did you mean "
	                       "\"@p0"), "%s", line);
	size_t n = strlen(line);
	cr_assert(n > 13 && !strcmp(line + n - 13, "(122 bytes)\"?"), "%s",
	          line);
	free(line);
	free(rule);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	free(json);
}

/* ---- empty rules --------------------------------------------------------------- */

/* The documented grammar ignores empty rules (docs/registry.md, the
 * header): the API and USMP_ALGORITHM bind the same rules from a list
 * with leading, doubled and trailing ';'. */
Test(loose_ends4, empty_rules_are_ignored_by_the_api_and_the_environment)
{
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, ";npu=best_fit;; ;cpu=first_fit;"),
	             USMP_OK, "%s", usmp_registry_error(r));
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "best_fit");
	cr_assert_str_eq(sel.rule, "npu=best_fit");
	cr_assert_eq(usmp_registry_select(r, "cpu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "first_fit");
	cr_assert_str_eq(sel.rule, "cpu=first_fit");
	cr_assert_eq(usmp_registry_select(r, "gpu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "auto"); /* the default: no more rules */
	/* Nothing but empty rules: bound, nothing. */
	usmp_registry_clear_bindings(r);
	cr_assert_eq(usmp_registry_bind_rules(r, ""), USMP_OK);
	cr_assert_eq(usmp_registry_bind_rules(r, " ; ;"), USMP_OK);
	cr_assert_eq(usmp_registry_select(r, "npu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "auto");
	cr_assert_eq(sel.source, USMP_SOURCE_DEFAULT);
	/* A broken rule among empty ones is still refused, all or nothing. */
	cr_assert_eq(usmp_registry_bind_rules(r, ";npu=best_fit;;@=x;"),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_registry_select(r, "npu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "auto");
	usmp_registry_destroy(r);
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM="
	                     "';npu=best_fit;; ;' '%s' select npu", test_cli());
	int st = test_run(cmd, &out);
	free(cmd);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "npu: best_fit\n  chosen by USMP_ALGORITHM rule "
	                      "\"npu=best_fit\""), "%s", out);
	free(out);
}

/* ---- a plan file whose parts leave a group out ----------------------------- */

/* a only in sram, b only in dram: two bound groups (0: sram, 1: dram). */
static const char two_groups_problem[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 24}, "
	"{\"name\": \"dram\"}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"a\", \"size\": 16, \"live\": [0, 2], "
	"\"pools\": [\"sram\"]},\n"
	"  {\"name\": \"b\", \"size\": 8, \"live\": [1, 3], "
	"\"pools\": [\"dram\"]}]}\n";

/* A file whose parts name group 1 only: group 0 gets the library's part,
 * after the file's, with its size and bound from the placements. */
Test(loose_ends4, a_group_the_files_parts_leave_out_gets_the_librarys_part)
{
	char *pp = test_write_tmp(".json", two_groups_problem);
	char *planp = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"pool\": "
		"\"sram\", \"offset\": 0}, {\"name\": \"b\", \"pool\": \"dram\", "
		"\"offset\": 0}], \"parts\": [{\"group\": 1, \"algorithm\": "
		"\"best_fit\"}]}\n");
	usmp_problem *p;
	usmp_plan *plan = read_back(pp, planp, &p);
	cr_assert_eq(usmp_plan_part_count(plan), 2);
	usmp_part_info pi = part_of(plan, 0);
	cr_assert_eq(pi.group, 1);
	cr_assert_str_eq(pi.algorithm, "best_fit");
	cr_assert_eq(pi.size, 8);
	pi = part_of(plan, 1);
	cr_assert_eq(pi.group, 0);
	cr_assert_eq(pi.size, 16);
	cr_assert_eq(pi.buffer_count, 1);
	cr_assert_eq(pi.lower_bound, 16);
	cr_assert_eq(pi.proven_bound, 16);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	remove(planp);
	remove(pp);
	free(planp);
	free(pp);
}

/* ---- a CSV plan's part ------------------------------------------------------ */

/* A CSV plan (one pool) reads back with the library's part: size, buffers
 * and bound from the placements, no spill. */
Test(loose_ends4, a_csv_plan_gets_the_librarys_part)
{
	char *pp = test_write_tmp(".csv", "id,lower,upper,size\n"
	                                  "x,0,2,16\ny,1,3,8\n");
	char *planp = test_write_tmp(".csv", "id,lower,upper,size,offset\n"
	                                     "x,0,2,16,8\ny,1,3,8,0\n");
	usmp_problem *p;
	usmp_plan *plan = read_back(pp, planp, &p);
	cr_assert_eq(usmp_plan_part_count(plan), 1);
	usmp_part_info pi = part_of(plan, 0);
	cr_assert_eq(pi.group, 0);
	cr_assert_eq(pi.size, 24);
	cr_assert_eq(pi.buffer_count, 2);
	cr_assert_eq(pi.lower_bound, 24);
	cr_assert_eq(pi.proven_bound, 24);
	cr_assert_eq(pi.optimal, 0);
	cr_assert_eq(pi.spill, 0);
	cr_assert_eq(pi.spill_largest, UINT32_MAX);
	/* No rule chose it: source 0, rule "" (include/usmp/usmp.h). */
	cr_assert_eq(pi.source, 0);
	cr_assert_str_eq(pi.rule, "");
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	remove(planp);
	remove(pp);
	free(planp);
	free(pp);
}
