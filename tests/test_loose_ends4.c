/* test_loose_ends4.c — more loose ends: a plan file without parts, the
 * infeasibility message's cut, empty rules, sizes with units in Python. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a plan file with no parts --------------------------------------------- */

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
		usmp_problem *p = usmp_problem_create();
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO,
		                               USMP_UNBOUNDED), USMP_OK);
		cr_assert_eq(usmp_plan_read(p, planp, USMP_FORMAT_AUTO, &plan),
		             USMP_OK, "%s", usmp_plan_error(plan));
		cr_assert_eq(usmp_plan_part_count(plan), 1);
		usmp_part_info pi;
		memset(&pi, 0, sizeof pi);
		pi.struct_size = sizeof pi;
		cr_assert_eq(usmp_plan_part(plan, 0, &pi), USMP_OK);
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
