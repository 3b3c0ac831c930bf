/* test_certify.c — a plan file's claims (sizes, bounds, "optimal"): read back
 * only as far as the library establishes them, false ones flagged by verify. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "usmp/usmp.h"

/* Group 0: sram (24 bytes) and dram; a and b live together (32 bytes, so
 * 16 must leave sram), c later. Group 1: aux, d and e together. */
static const char *problem_json =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 24},\n"
	"            {\"name\": \"dram\"}, {\"name\": \"aux\"}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"a\", \"size\": 16, \"live\": [0, 2], "
	"\"pools\": [\"sram\", \"dram\"]},\n"
	"  {\"name\": \"b\", \"size\": 16, \"live\": [1, 3], "
	"\"pools\": [\"sram\", \"dram\"]},\n"
	"  {\"name\": \"c\", \"size\": 8, \"live\": [5, 7], "
	"\"pools\": [\"sram\", \"dram\"]},\n"
	"  {\"name\": \"d\", \"size\": 8, \"live\": [0, 1], "
	"\"pools\": [\"aux\"]},\n"
	"  {\"name\": \"e\", \"size\": 8, \"live\": [0, 1], "
	"\"pools\": [\"aux\"]}]}\n";

/* At the lower bound (32 + 16): b spills 16 bytes, the least possible. */
static const char *at_bound =
	"{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0},\n"
	" {\"name\": \"b\", \"pool\": \"dram\", \"offset\": 0},\n"
	" {\"name\": \"c\", \"pool\": \"sram\", \"offset\": 0},\n"
	" {\"name\": \"d\", \"pool\": \"aux\", \"offset\": 0},\n"
	" {\"name\": \"e\", \"pool\": \"aux\", \"offset\": 8}";
/* Group 0 at 40 bytes (sram 16, dram 24), 8 above its bound; spill 24. */
static const char *above_bound =
	"{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0},\n"
	" {\"name\": \"b\", \"pool\": \"dram\", \"offset\": 0},\n"
	" {\"name\": \"c\", \"pool\": \"dram\", \"offset\": 16},\n"
	" {\"name\": \"d\", \"pool\": \"aux\", \"offset\": 0},\n"
	" {\"name\": \"e\", \"pool\": \"aux\", \"offset\": 8}";

typedef struct fx {
	char *problem_path, *plan_path;
	usmp_problem *p;
	usmp_plan *plan;
	uint32_t g0, g1; /* the bound groups of sram and aux */
} fx;

/* Write the problem and a plan of `buffers` with `parts` (JSON array text,
 * may be NULL) and `head` (more top-level keys, e.g. "\"optimal\": true,"),
 * then read the plan: its status is returned, the plan kept in f. */
static int fx_read(fx *f, const char *head, const char *buffers,
                   const char *parts)
{
	f->problem_path = test_write_tmp(".json", problem_json);
	f->p = usmp_problem_create();
	cr_assert_not_null(f->p);
	cr_assert_eq(usmp_problem_read(f->p, f->problem_path, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK, "%s",
	             usmp_problem_error(f->p));
	f->g0 = usmp_problem_prepare_pool_group(f->p, 0);
	f->g1 = usmp_problem_prepare_pool_group(f->p, 2);
	cr_assert_neq(f->g0, f->g1);
	cr_assert_eq(usmp_problem_prepare_pool_group(f->p, 1), f->g0);
	char *parts_text = parts ? test_fmt(parts, f->g0, f->g1) : NULL;
	char *text = test_fmt("{\"usmp\": 1, %s\n \"buffers\": [%s]%s%s}\n",
	                      head ? head : "", buffers,
	                      parts_text ? ",\n \"parts\": " : "",
	                      parts_text ? parts_text : "");
	f->plan_path = test_write_tmp(".json", text);
	free(text);
	free(parts_text);
	return usmp_plan_read(f->p, f->plan_path, USMP_FORMAT_AUTO, &f->plan);
}

static void fx_part(fx *f, uint32_t i, usmp_part_info *pi)
{
	memset(pi, 0, sizeof *pi);
	pi->struct_size = sizeof *pi;
	cr_assert_eq(usmp_plan_part(f->plan, i, pi), USMP_OK);
}

static void fx_done(fx *f)
{
	usmp_plan_destroy(f->plan);
	usmp_problem_destroy(f->p);
	remove(f->problem_path);
	remove(f->plan_path);
	free(f->problem_path);
	free(f->plan_path);
}

/* `usmp verify` of f's files: its exit status, its output in *out. */
static int fx_cli_verify(fx *f, char **out)
{
	return test_usmp(out, "verify '%s' '%s'", f->problem_path, f->plan_path);
}

Test(certify, the_fixture_has_the_bounds_the_tests_assume)
{
	fx f = {0};
	cr_assert_eq(fx_read(&f, NULL, at_bound, NULL), USMP_OK, "%s",
	             usmp_plan_error(f.plan));
	cr_assert_eq(usmp_problem_prepare_group_bound(f.p, f.g0), 32);
	cr_assert_eq(usmp_problem_prepare_group_bound(f.p, f.g1), 16);
	cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_OK, "%s",
	             usmp_plan_error(f.plan));
	fx_done(&f);
}

/* "optimal": true with a proven_bound at the size: a claim the library
 * cannot check (above its lower bound), so dropped, not reported. */
Test(certify, hand_edited_optimal_above_the_bound_is_not_reported_optimal)
{
	fx f = {0};
	cr_assert_eq(fx_read(&f, "\"optimal\": true,", above_bound,
	                     "[{\"algorithm\": \"exact\", \"size\": 40, "
	                     "\"lower_bound\": 32, \"proven_bound\": 40, "
	                     "\"optimal\": true, \"buffers\": 3, \"group\": %u},"
	                     " {\"algorithm\": \"exact\", \"size\": 16, "
	                     "\"lower_bound\": 16, \"proven_bound\": 16, "
	                     "\"optimal\": true, \"buffers\": 2, \"group\": %u}]"),
	             USMP_OK, "%s", usmp_plan_error(f.plan));
	usmp_part_info pi;
	fx_part(&f, 0, &pi);
	cr_assert_eq(pi.optimal, 0, "a claim above the lower bound was kept");
	cr_assert_eq(pi.size, 40);
	cr_assert_eq(pi.lower_bound, 32);
	cr_assert_eq(pi.proven_bound, 32, "the file's proof was kept");
	fx_part(&f, 1, &pi);
	cr_assert_eq(pi.optimal, 1, "at its lower bound the claim holds");
	/* Not demonstrably false: the plan verifies. */
	cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_OK, "%s",
	             usmp_plan_error(f.plan));
	/* Written again, the file says only what the library established. */
	char *again = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(f.plan, f.p, again, USMP_FORMAT_JSON),
	             USMP_OK, "%s", usmp_plan_error(f.plan));
	char *text = test_read_file(again);
	cr_assert(strstr(text, "\"optimal\": false"), "%s", text);
	cr_assert_null(strstr(text, "\"proven_bound\": 40"), "%s", text);
	free(text);
	remove(again);
	free(again);
	fx_done(&f);
}

/* "optimal": true above the lower bound with no proof in the file. */
Test(certify, optimal_without_a_proof_is_flagged_false)
{
	fx f = {0};
	cr_assert_eq(fx_read(&f, NULL, above_bound,
	                     "[{\"size\": 40, \"optimal\": true, "
	                     "\"proven_bound\": 32, \"group\": %u}]"),
	             USMP_OK, "%s", usmp_plan_error(f.plan));
	usmp_part_info pi;
	fx_part(&f, 0, &pi);
	cr_assert_eq(pi.optimal, 0);
	cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_ERR_INVALID_PLAN);
	const char *msg = usmp_plan_error(f.plan);
	cr_assert(strstr(msg, f.plan_path) && strstr(msg, "parts[0].optimal"),
	          "%s", msg);
	char *out = NULL;
	cr_assert_neq(fx_cli_verify(&f, &out), 0, "%s", out);
	cr_assert(strstr(out, "false claim") && strstr(out, "parts[0].optimal"),
	          "%s", out);
	cr_assert_null(strstr(out, "valid plan for"), "%s", out);
	free(out);
	fx_done(&f);
}

Test(certify, a_proven_bound_above_the_size_is_flagged_false)
{
	fx f = {0};
	cr_assert_eq(fx_read(&f, NULL, at_bound,
	                     "[{\"size\": 32, \"proven_bound\": 1000, "
	                     "\"optimal\": true, \"group\": %u}]"),
	             USMP_OK, "%s", usmp_plan_error(f.plan));
	usmp_part_info pi;
	fx_part(&f, 0, &pi);
	cr_assert_eq(pi.proven_bound, 32, "the false bound was passed on");
	cr_assert_eq(pi.optimal, 1, "at the lower bound: the library's own");
	cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(f.plan), "parts[0].proven_bound: 1000"),
	          "%s", usmp_plan_error(f.plan));
	char *out = NULL;
	cr_assert_eq(fx_cli_verify(&f, &out), 1, "%s", out);
	cr_assert(strstr(out, f.plan_path) &&
	          strstr(out, "parts[0].proven_bound"), "%s", out);
	free(out);
	fx_done(&f);
}

Test(certify, a_lower_bound_or_size_the_placements_disprove_is_flagged)
{
	static const char *const parts[] = {
		"[{\"lower_bound\": 33, \"group\": %u}]",
		"[{\"size\": 31, \"group\": %u}]",
		"[{\"buffers\": 7, \"group\": %u}]",
	};
	static const char *const field[] = {"parts[0].lower_bound",
	                                    "parts[0].size",
	                                    "parts[0].buffers"};
	for (int k = 0; k < 3; k++) {
		fx f = {0};
		cr_assert_eq(fx_read(&f, NULL, at_bound, parts[k]), USMP_OK);
		usmp_part_info pi;
		fx_part(&f, 0, &pi);
		cr_assert_eq(pi.lower_bound, 32);
		cr_assert_eq(pi.size, 32);
		cr_assert_eq(pi.buffer_count, 3);
		cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_ERR_INVALID_PLAN,
		             "%s", field[k]);
		cr_assert(strstr(usmp_plan_error(f.plan), field[k]), "%s",
		          usmp_plan_error(f.plan));
		fx_done(&f);
	}
	/* A pool's figures too, and a top-level "optimal" no part backs. */
	fx f = {0};
	cr_assert_eq(fx_read(&f, "\"pools\": [{\"name\": \"dram\", \"size\": 8}],",
	                     at_bound, NULL), USMP_OK);
	cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(f.plan), "pools[0].size"), "%s",
	          usmp_plan_error(f.plan));
	fx_done(&f);
	fx h = {0};
	cr_assert_eq(fx_read(&h, "\"optimal\": true,", above_bound, NULL),
	             USMP_OK);
	cr_assert_eq(usmp_plan_verify(h.plan, h.p), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(h.plan), "optimal: true"), "%s",
	          usmp_plan_error(h.plan));
	fx_done(&h);
}

/* The file has no spill fields: spill, its buffers and the floor come from
 * the placements, each on the part of its own group. */
Test(certify, spill_figures_are_recomputed_per_group)
{
	fx f = {0};
	cr_assert_eq(fx_read(&f, NULL, above_bound,
	                     "[{\"group\": %u}, {\"group\": %u}]"),
	             USMP_OK, "%s", usmp_plan_error(f.plan));
	usmp_part_info pi;
	fx_part(&f, 0, &pi);
	cr_assert_eq(pi.spill, 24);
	cr_assert_eq(pi.spill_count, 2);
	cr_assert_eq(pi.spill_largest, 1); /* b */
	cr_assert_eq(pi.spill_floor, 16);
	fx_part(&f, 1, &pi);
	cr_assert_eq(pi.spill, 0);
	cr_assert_eq(pi.size, 16);
	fx_done(&f);
	/* Two parts naming one group (old code gave the spill to the first
	 * and a made-up rest to the second) or a group the problem lacks. */
	fx g = {0};
	cr_assert_eq(fx_read(&g, NULL, above_bound, NULL), USMP_OK);
	usmp_plan_destroy(g.plan);
	g.plan = NULL;
	char *dup = test_fmt("{\"usmp\": 1, \"buffers\": [%s], \"parts\": "
	                     "[{\"group\": %u}, {\"group\": %u}]}",
	                     above_bound, g.g0, g.g0);
	char *path = test_write_tmp(".json", dup);
	cr_assert_eq(usmp_plan_read(g.p, path, USMP_FORMAT_AUTO, &g.plan),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(g.plan), "parts[1].group"), "%s",
	          usmp_plan_error(g.plan));
	usmp_plan_destroy(g.plan);
	g.plan = NULL;
	remove(path);
	free(path);
	free(dup);
	dup = test_fmt("{\"usmp\": 1, \"buffers\": [%s], \"parts\": "
	               "[{\"group\": 9}]}", above_bound);
	path = test_write_tmp(".json", dup);
	cr_assert_eq(usmp_plan_read(g.p, path, USMP_FORMAT_AUTO, &g.plan),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(g.plan), "parts[0].group: 9"), "%s",
	          usmp_plan_error(g.plan));
	remove(path);
	free(path);
	free(dup);
	fx_done(&g);
}

/* A genuine plan from `usmp plan` reads back with its claims, true ones. */
Test(certify, a_plan_from_usmp_plan_reads_back_with_the_same_claims)
{
	static const char *const algos[] = {"first_fit", "exact", "auto"};
	for (int k = 0; k < 3; k++) {
		fx f = {0};
		cr_assert_eq(fx_read(&f, NULL, at_bound, NULL), USMP_OK);
		usmp_plan_destroy(f.plan);
		f.plan = NULL;
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s' -a %s -o '%s'", f.problem_path,
		                   algos[k], f.plan_path);
		cr_assert_eq(st, 0, "%s: %s", algos[k], out);
		free(out);
		usmp_registry *r = test_registry(NULL);
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = algos[k]};
		usmp_plan *made = NULL;
		cr_assert_eq(usmp_plan_compute(r, f.p, &o, &made), USMP_OK);
		cr_assert_eq(usmp_plan_read(f.p, f.plan_path, USMP_FORMAT_AUTO,
		                            &f.plan), USMP_OK, "%s",
		             usmp_plan_error(f.plan));
		cr_assert_eq(usmp_plan_part_count(f.plan),
		             usmp_plan_part_count(made));
		for (uint32_t i = 0; i < usmp_plan_part_count(made); i++) {
			usmp_part_info a = {.struct_size = sizeof a};
			usmp_part_info b;
			cr_assert_eq(usmp_plan_part(made, i, &a), USMP_OK);
			fx_part(&f, i, &b);
			cr_assert_eq(b.group, a.group);
			cr_assert_eq(b.size, a.size, "%s part %u", algos[k], i);
			cr_assert_eq(b.lower_bound, a.lower_bound);
			cr_assert_eq(b.proven_bound, a.proven_bound);
			cr_assert_eq(b.optimal, a.optimal, "%s part %u", algos[k], i);
			cr_assert_eq(b.spill, a.spill);
			cr_assert_eq(b.spill_floor, a.spill_floor);
			cr_assert_eq(b.buffer_count, a.buffer_count);
			cr_assert(b.optimal, "%s part %u: these parts reach their "
			          "bounds", algos[k], i);
		}
		cr_assert_eq(usmp_plan_verify(f.plan, f.p), USMP_OK, "%s",
		             usmp_plan_error(f.plan));
		cr_assert_eq(fx_cli_verify(&f, &out), 0, "%s", out);
		free(out);
		usmp_plan_destroy(made);
		usmp_registry_destroy(r);
		fx_done(&f);
	}
}
