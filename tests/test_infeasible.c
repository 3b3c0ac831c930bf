/* test_infeasible.c — infeasible answers explained: the library's certificate
 * (step, buffer, fixed clash, bound), spill advice and the honest "a plan may
 * exist", the same through every algorithm, the API, the CLI and exact. */
#include "internal.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- problems -------------------------------------------------------------- */

/* SRAM of 1024 bytes; at step 3, w1 + act + w2 need 1216 of it, and only it.
 * DRAM (64 KiB, one 4 KiB buffer of its own) has room for any of them. */
static const char two_pools[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1024},"
	" {\"name\": \"dram\", \"size_limit\": 65536}], \"buffers\": ["
	"{\"name\": \"in\", \"size\": 256, \"live\": [0, 2], \"pools\": [\"sram\"]},"
	"{\"name\": \"w1\", \"size\": 512, \"live\": [1, 4], \"pools\": [\"sram\"]},"
	"{\"name\": \"act\", \"size\": 384, \"live\": [2, 5], \"pools\": [\"sram\"]},"
	"{\"name\": \"w2\", \"size\": 320, \"live\": [3, 6], \"pools\": [\"sram\"]},"
	"{\"name\": \"out\", \"size\": 128, \"live\": [5, 7], \"pools\": [\"sram\"]},"
	"{\"name\": \"big\", \"size\": 4096, \"live\": [0, 7], \"pools\": [\"dram\"]}]}";

/* One pool: at step 3 the same three buffers need 1216 bytes of 1024. */
static const char one_pool_step[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1024}],"
	" \"buffers\": ["
	"{\"name\": \"in\", \"size\": 256, \"live\": [0, 2]},"
	"{\"name\": \"w1\", \"size\": 512, \"live\": [1, 4]},"
	"{\"name\": \"act\", \"size\": 384, \"live\": [2, 5]},"
	"{\"name\": \"w2\", \"size\": 320, \"live\": [3, 6]},"
	"{\"name\": \"out\", \"size\": 128, \"live\": [5, 7]}]}";

/* "huge" is larger than the pool. */
static const char too_big[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1024}],"
	" \"buffers\": ["
	"{\"name\": \"small\", \"size\": 64, \"live\": [0, 2]},"
	"{\"name\": \"huge\", \"size\": 2000, \"live\": [1, 3]}]}";

/* Fixed a [0, 64) and b [32, 96) are live together at step 1. */
static const char fixed_clash[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1024}],"
	" \"buffers\": ["
	"{\"name\": \"a\", \"size\": 64, \"live\": [0, 2],"
	" \"fixed\": {\"pool\": \"sram\", \"offset\": 0}},"
	"{\"name\": \"b\", \"size\": 64, \"live\": [1, 3],"
	" \"fixed\": {\"pool\": \"sram\", \"offset\": 32}},"
	"{\"name\": \"c\", \"size\": 16, \"live\": [0, 3]}]}";

/* Fits in 8 bytes (exact finds a plan) but the fit heuristics fail. */
static const char heuristics_fail[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 8}],"
	" \"buffers\": ["
	"{\"name\": \"b0\", \"size\": 4, \"live\": [3, 5]},"
	"{\"name\": \"b1\", \"size\": 3, \"live\": [2, 3]},"
	"{\"name\": \"b2\", \"size\": 1, \"live\": [3, 6]},"
	"{\"name\": \"b3\", \"size\": 2, \"live\": [1, 4]},"
	"{\"name\": \"b4\", \"size\": 2, \"live\": [4, 7]},"
	"{\"name\": \"b5\", \"size\": 3, \"live\": [0, 3]}]}";

/* 10 bytes live at once (the bound fits 10) but the 4-aligned c must sit
 * at 0 and the 2-aligned b at 8, leaving bytes 7 and 9, apart, for the
 * 2-byte a: only a search can tell. */
static const char aligned[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 10}],"
	" \"buffers\": ["
	"{\"name\": \"a\", \"size\": 2, \"live\": [0, 2]},"
	"{\"name\": \"b\", \"size\": 1, \"alignment\": 2, \"live\": [1, 3]},"
	"{\"name\": \"c\", \"size\": 7, \"alignment\": 4, \"live\": [0, 2]}]}";

/* Three 100-byte buffers at step 1, s -> d an overlap rule: 200 bytes even
 * with the sharing. %u is the limit. */
static const char rules_fmt[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": %u}],"
	" \"buffers\": ["
	"{\"name\": \"s\", \"size\": 100, \"live\": [0, 2]},"
	"{\"name\": \"d\", \"size\": 100, \"live\": [1, 3]},"
	"{\"name\": \"x\", \"size\": 100, \"live\": [1, 3]}],"
	" \"overlaps\": [{\"src\": \"s\", \"dst\": \"d\", \"max_lead\": 0}]}";

/* Two pools, every buffer may use both: 3300 bytes at step 1, 3072 in all. */
static const char union_step[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1024},"
	" {\"name\": \"dram\", \"size_limit\": 2048}], \"buffers\": ["
	"{\"name\": \"a\", \"size\": 1100, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},"
	"{\"name\": \"b\", \"size\": 1200, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},"
	"{\"name\": \"c\", \"size\": 1000, \"live\": [1, 3], \"pools\": [\"dram\", \"sram\"]}]}";

/* Two buffers joined by a conflict edge need 120 bytes of 100. */
static const char edge_pair[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100}],"
	" \"buffers\": [{\"name\": \"a\", \"size\": 60}, {\"name\": \"b\", \"size\": 60}],"
	" \"conflicts\": [[\"a\", \"b\"]]}";

static const char *const heuristics[] = {"first_fit", "best_fit",
                                         "greedy_by_size"};
static const char *const all_algos[] = {"auto", "exact", "first_fit",
                                        "best_fit", "greedy_by_size"};
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- helpers ---------------------------------------------------------------- */

static int plan_with(usmp_registry *r, usmp_problem *p, const char *algo,
                     usmp_plan **plan)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = algo, .time_limit = 5};
	return usmp_plan_compute(r, p, &o, plan);
}

/* Plan `json` with `algo`; the plan must be infeasible; fills *why. */
static usmp_plan *infeasible(usmp_registry *r, usmp_problem *p,
                             const char *algo, usmp_infeasibility *why)
{
	usmp_plan *plan = NULL;
	int st = plan_with(r, p, algo, &plan);
	cr_assert_eq(st, USMP_ERR_INFEASIBLE, "%s: %d: %s", algo, st,
	             usmp_plan_error(plan));
	memset(why, 0, sizeof *why);
	why->struct_size = sizeof *why;
	cr_assert_eq(usmp_plan_infeasibility(plan, why), USMP_OK, "%s", algo);
	cr_assert_str_eq(why->algorithm, algo);
	return plan;
}

static uint32_t pool_id(usmp_problem *p, const char *name)
{
	uint32_t id = UINT32_MAX;
	cr_assert_eq(usmp_problem_find_pool(p, name, &id), USMP_OK, "%s", name);
	return id;
}

static const char *buf_name(usmp_problem *p, uint32_t b)
{
	return usmp_problem_buffer_name(p, b);
}

/* Run `usmp plan` on `json` written to a temporary file, with `-a algo`
 * (none when algo is NULL): it must exit 3, infeasible. Its output (caller
 * frees). */
static char *cli_infeasible(const char *json, const char *algo)
{
	char *path = test_write_tmp(".json", json), cmd[8192], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -o /dev/null%s%s 2>&1", test_cli(), path,
	         algo ? " -a " : "", algo ? algo : "");
	int st = test_run(cmd, &out);
	cr_assert_not_null(out);
	cr_assert_eq(st, 3, "-a %s: exit %d: %s", algo ? algo : "(none)", st, out);
	remove(path);
	free(path);
	return out;
}

/* The plan's error message holds `text`. */
static void plan_says(usmp_plan *plan, const char *text)
{
	cr_assert(strstr(usmp_plan_error(plan), text), "%s",
	          usmp_plan_error(plan));
}

/* `usmp plan` of `json` with `-a algo` (cli_infeasible) prints `text`. */
static void cli_says(const char *json, const char *algo, const char *text)
{
	char *out = cli_infeasible(json, algo);
	cr_assert(strstr(out, text), "%s", out);
	free(out);
}

/* ---- the structured form ------------------------------------------------------ */

Test(infeasible, struct_layout_is_pinned)
{
	cr_assert_eq(sizeof(usmp_infeasibility), 104);
	cr_assert_eq(offsetof(usmp_infeasibility, kind), 4);
	cr_assert_eq(offsetof(usmp_infeasibility, pool), 8);
	cr_assert_eq(offsetof(usmp_infeasibility, group), 12);
	cr_assert_eq(offsetof(usmp_infeasibility, limit), 16);
	cr_assert_eq(offsetof(usmp_infeasibility, bound), 24);
	cr_assert_eq(offsetof(usmp_infeasibility, step), 32);
	cr_assert_eq(offsetof(usmp_infeasibility, total), 40);
	cr_assert_eq(offsetof(usmp_infeasibility, buffer_count), 48);
	cr_assert_eq(offsetof(usmp_infeasibility, pool_count), 52);
	cr_assert_eq(offsetof(usmp_infeasibility, buffers), 56);
	cr_assert_eq(offsetof(usmp_infeasibility, pools), 64);
	cr_assert_eq(offsetof(usmp_infeasibility, move_count), 72);
	cr_assert_eq(offsetof(usmp_infeasibility, move_buffers), 80);
	cr_assert_eq(offsetof(usmp_infeasibility, move_pools), 88);
	cr_assert_eq(offsetof(usmp_infeasibility, algorithm), 96);
	cr_assert_eq(USMP_INFEASIBLE_UNPROVEN, 1);
	cr_assert_eq(USMP_INFEASIBLE_STEP, 2);
	cr_assert_eq(USMP_INFEASIBLE_BUFFER, 3);
	cr_assert_eq(USMP_INFEASIBLE_FIXED, 4);
	cr_assert_eq(USMP_INFEASIBLE_BOUND, 5);
	cr_assert_eq(USMP_INFEASIBLE_SEARCH, 6);
}

Test(infeasible, struct_size_limits_what_is_copied_and_other_plans_have_none)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(one_pool_step, "model.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, "first_fit", &plan), USMP_ERR_INFEASIBLE);
	/* A caller built when the struct ended before `step`. */
	usmp_infeasibility old;
	memset(&old, 0xAB, sizeof old);
	old.struct_size = offsetof(usmp_infeasibility, step);
	cr_assert_eq(usmp_plan_infeasibility(plan, &old), USMP_OK);
	cr_assert_eq(old.struct_size, offsetof(usmp_infeasibility, step));
	cr_assert_eq(old.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(old.limit, 1024);
	cr_assert_eq(old.bound, 1216);
	cr_assert_eq(old.step, (int64_t)0xABABABABABABABABull, "past struct_size");
	usmp_infeasibility small = {.struct_size = 4};
	cr_assert_eq(usmp_plan_infeasibility(plan, &small), USMP_ERR_INVALID);
	cr_assert_eq(usmp_plan_infeasibility(NULL, &old), USMP_ERR_INVALID);
	cr_assert_eq(usmp_plan_infeasibility(plan, NULL), USMP_ERR_INVALID);
	usmp_plan_destroy(plan);
	/* A plan that worked has no infeasibility. */
	usmp_problem *ok = test_parse_json(heuristics_fail, "model.json");
	cr_assert_eq(plan_with(r, ok, "exact", &plan), USMP_OK,
	             "%s", usmp_plan_error(plan));
	usmp_infeasibility why = {.struct_size = sizeof why};
	cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_ERR_NOT_FOUND);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(ok);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- (a) a step over the limit --------------------------------------------- */

Test(infeasible, step_certificate_is_the_same_for_every_algorithm)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(one_pool_step, "model.json");
	for (size_t k = 0; k < COUNT(all_algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, all_algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP, "%s", all_algos[k]);
		cr_assert_eq(why.pool, pool_id(p, "sram"));
		cr_assert_eq(why.limit, 1024);
		cr_assert_eq(why.bound, 1216);
		cr_assert_eq(why.bound, usmp_problem_prepare_group_bound(p, why.group));
		cr_assert_eq(why.step, 3);
		cr_assert_eq(why.total, 1216);
		cr_assert_eq(why.buffer_count, 3);
		cr_assert_str_eq(buf_name(p, why.buffers[0]), "w1", "largest first");
		cr_assert_str_eq(buf_name(p, why.buffers[1]), "act");
		cr_assert_str_eq(buf_name(p, why.buffers[2]), "w2");
		cr_assert_eq(why.move_count, 0, "one pool: nowhere to spill");
		const char *e = usmp_plan_error(plan);
		cr_assert(strstr(e, "no plan fits the pools: ") &&
		          strstr(e, "at step 3 the buffers live that may use only "
		                    "pool \"sram\" need 1216 bytes, more than its "
		                    "limit (1024 bytes) by 192 bytes; the largest of "
		                    "the 3 is \"w1\" (512 bytes), then \"act\" (384 "
		                    "bytes), \"w2\" (320 bytes); the lower bound of the "
		                    "group is 1216 bytes"), "%s: %s", all_algos[k], e);
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, step_certificate_through_the_cli_exits_3)
{
	for (size_t k = 0; k < COUNT(all_algos); k++) {
		char *out = cli_infeasible(one_pool_step, all_algos[k]);
		char head[128];
		snprintf(head, sizeof head, ".json: %s: no plan fits the pools: ",
		         all_algos[k]);
		cr_assert(strstr(out, head) &&
		          strstr(out, "at step 3 the buffers live that may use only "
		                      "pool \"sram\" need 1216 bytes"), "%s", out);
		free(out);
	}
}

Test(infeasible, step_certificate_counts_overlap_rule_sharing)
{
	usmp_registry *r = test_registry(NULL);
	char json[1024];
	snprintf(json, sizeof json, rules_fmt, 150u);
	usmp_problem *p = test_parse_json(json, "model.json");
	/* 300 bytes live at step 1, of which the rule lets 100 be shared. */
	const char *algos[] = {"auto", "exact", "first_fit", "best_fit"};
	for (size_t k = 0; k < COUNT(algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP, "%s", algos[k]);
		cr_assert_eq(why.total, 200);
		cr_assert_eq(why.bound, 200);
		plan_says(plan, "need 200 bytes even sharing "
		                "what overlap rules allow");
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, step_certificate_over_several_pools_names_them)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(union_step, "model.json");
	const char *algos[] = {"auto", "first_fit", "best_fit"};
	for (size_t k = 0; k < COUNT(algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
		cr_assert_eq(why.pool, USMP_NO_POOL);
		cr_assert_eq(why.limit, 3072);
		cr_assert_eq(why.total, 3300);
		cr_assert_eq(why.step, 1);
		cr_assert_eq(why.pool_count, 2);
		cr_assert_str_eq(buf_name(p, why.buffers[0]), "b");
		plan_says(plan, "at step 1 the buffers live "
		                "need 3300 bytes, more than the pools they may use "
		                "(\"sram\", \"dram\") hold together (3072 bytes)");
		usmp_plan_destroy(plan);
	}
	cli_says(union_step, NULL, "at step 1 the buffers live need 3300 bytes");
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- (b) a buffer larger than every pool ------------------------------------- */

Test(infeasible, buffer_certificate_is_the_same_for_every_algorithm)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(too_big, "model.json");
	for (size_t k = 0; k < COUNT(all_algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, all_algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_BUFFER, "%s", all_algos[k]);
		cr_assert_eq(why.buffer_count, 1);
		cr_assert_str_eq(buf_name(p, why.buffers[0]), "huge");
		cr_assert_eq(why.total, 2000);
		cr_assert_eq(why.limit, 1024);
		cr_assert_eq(why.pool, pool_id(p, "sram"));
		plan_says(plan, "buffer \"huge\" (2000 bytes) "
		                "is larger than every pool it may use (the largest, "
		                "\"sram\", holds 1024 bytes)");
		usmp_plan_destroy(plan);
		cli_says(too_big, all_algos[k], "buffer \"huge\" (2000 bytes) is "
		         "larger than every pool it may use");
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- (c) fixed offsets that clash --------------------------------------------- */

Test(infeasible, fixed_clash_certificate_names_both_buffers)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(fixed_clash, "model.json");
	for (size_t k = 0; k < COUNT(all_algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, all_algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_FIXED, "%s", all_algos[k]);
		cr_assert_eq(why.buffer_count, 2);
		cr_assert_str_eq(buf_name(p, why.buffers[0]), "a");
		cr_assert_str_eq(buf_name(p, why.buffers[1]), "b");
		cr_assert_eq(why.pool, pool_id(p, "sram"));
		cr_assert_eq(why.limit, 1024);
		plan_says(plan, "the fixed placements clash: "
		                "buffers \"a\" and \"b\" overlap in pool \"sram\" at "
		                "bytes [32, 64) while both are live (pool \"sram\", "
		                "limit 1024 bytes; the lower bound of the group is "
		                "144 bytes)");
		usmp_plan_destroy(plan);
		cli_says(fixed_clash, all_algos[k], "the fixed placements clash: "
		         "buffers \"a\" and \"b\"");
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- a conflict edge: the bound over the limit --------------------------------- */

Test(infeasible, bound_certificate_for_an_edge_pair)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(edge_pair, "model.json");
	const char *algos[] = {"auto", "first_fit", "best_fit", "greedy_by_size"};
	for (size_t k = 0; k < COUNT(algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_BOUND, "%s", algos[k]);
		cr_assert_eq(why.bound, 120);
		cr_assert_eq(why.limit, 100);
		plan_says(plan, "the lower bound of the group "
		                "(120 bytes) exceeds what its pools (\"sram\") hold "
		                "together (100 bytes)");
		usmp_plan_destroy(plan);
	}
	cli_says(edge_pair, NULL, ".json: auto: no plan fits the pools: the lower "
	                          "bound of the group (120 bytes) exceeds");
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- spill advice ---------------------------------------------------------------- */

/* Move each advised buffer to the pool advised (its "pools" list in the
 * JSON becomes that pool alone) and plan again: the advice must make the
 * problem fit. */
static void apply_and_plan(usmp_registry *r, usmp_problem *p, const char *json,
                           const usmp_infeasibility *why)
{
	char *text = strdup(json);
	cr_assert_not_null(text);
	for (uint32_t k = 0; k < why->move_count; k++) {
		char key[256];
		snprintf(key, sizeof key, "\"name\": \"%s\"",
		         buf_name(p, why->move_buffers[k]));
		char *at = strstr(text, key), *list = at ? strstr(at, "\"pools\": [") : NULL;
		char *end = list ? strchr(list, ']') : NULL;
		cr_assert(end, "%s", key);
		char *next = malloc(strlen(text) + 256);
		cr_assert_not_null(next);
		snprintf(next, strlen(text) + 256, "%.*s\"pools\": [\"%s\"%s",
		         (int)(list - text), text,
		         usmp_problem_pool_name(p, why->move_pools[k]), end);
		free(text);
		text = next;
	}
	usmp_problem *q = test_parse_json(text, "model.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, q, "auto", &plan), USMP_OK,
	             "the advice did not make it fit: %s\n%s",
	             usmp_plan_error(plan), text);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(q);
	free(text);
}

Test(infeasible, spill_advice_moves_a_buffer_to_dram_and_it_then_fits)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(two_pools, "model.json");
	for (size_t k = 0; k < COUNT(all_algos); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, all_algos[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
		cr_assert_eq(why.move_count, 1, "%s", all_algos[k]);
		/* w1, act and w2 each fix step 3 alone: the smallest goes. */
		cr_assert_str_eq(buf_name(p, why.move_buffers[0]), "w2");
		cr_assert_eq(why.move_pools[0], pool_id(p, "dram"));
		plan_says(plan, "Spill advice: let \"w2\" "
		                "(320 bytes) use pool \"dram\": then no step needs "
		                "more of pool \"sram\" than its limit");
		apply_and_plan(r, p, two_pools, &why); /* before: why is the plan's */
		usmp_plan_destroy(plan);
	}
	char *out = cli_infeasible(two_pools, NULL);
	cr_assert(strstr(out, "auto: no plan fits the pools: at step 3") &&
	          strstr(out, "Spill advice: let \"w2\" (320 bytes) use pool "
	                      "\"dram\""), "%s", out);
	free(out);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, spill_advice_covers_every_overflowing_step_and_room)
{
	/* SRAM 1000: steps 0-1 need 1200 (a, b, b2), steps 4-5 need 1300 (c,
	 * d). DRAM 1000 holds "e" (300) at steps 0-6 and "f" (600) at step 2.
	 * Each SRAM buffer alone fixes its step; the smallest goes first, but
	 * b2 (200, live to step 3) has no room in DRAM at step 2, so b goes;
	 * then d at steps 4-5. */
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1000},"
		" {\"name\": \"dram\", \"size_limit\": 1000}], \"buffers\": ["
		"{\"name\": \"a\", \"size\": 600, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"b\", \"size\": 400, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"b2\", \"size\": 200, \"live\": [0, 3], \"pools\": [\"sram\"]},"
		"{\"name\": \"c\", \"size\": 900, \"live\": [4, 6], \"pools\": [\"sram\"]},"
		"{\"name\": \"d\", \"size\": 400, \"live\": [4, 6], \"pools\": [\"sram\"]},"
		"{\"name\": \"e\", \"size\": 300, \"live\": [0, 7], \"pools\": [\"dram\"]},"
		"{\"name\": \"f\", \"size\": 600, \"live\": [2, 3], \"pools\": [\"dram\"]}]}";
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(json, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "first_fit", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(why.step, 4, "the step with the largest excess");
	cr_assert_eq(why.move_count, 2, "%s", usmp_plan_error(plan));
	cr_assert_str_eq(buf_name(p, why.move_buffers[0]), "b");
	cr_assert_str_eq(buf_name(p, why.move_buffers[1]), "d");
	plan_says(plan, "Spill advice: let \"b\" (400 "
	                "bytes) use pool \"dram\" and \"d\" (400 bytes) use pool "
	                "\"dram\"");
	apply_and_plan(r, p, json, &why);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, spill_advice_prefers_one_move_that_fixes_every_step)
{
	/* "big" alone fixes steps 1 and 2; "x" and "y" one each. */
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1000},"
		" {\"name\": \"dram\"}], \"buffers\": ["
		"{\"name\": \"x\", \"size\": 300, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"big\", \"size\": 800, \"live\": [1, 3], \"pools\": [\"sram\"]},"
		"{\"name\": \"y\", \"size\": 300, \"live\": [2, 4], \"pools\": [\"sram\"]}]}";
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(json, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "best_fit", &why);
	cr_assert_eq(why.move_count, 1, "%s", usmp_plan_error(plan));
	cr_assert_str_eq(buf_name(p, why.move_buffers[0]), "big");
	apply_and_plan(r, p, json, &why);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, no_spill_advice_when_no_pool_has_room)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},"
		" {\"name\": \"dram\", \"size_limit\": 100}], \"buffers\": ["
		"{\"name\": \"a\", \"size\": 80, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"b\", \"size\": 80, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"e\", \"size\": 90, \"live\": [0, 2], \"pools\": [\"dram\"]}]}";
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(json, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "best_fit", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(why.move_count, 0);
	cr_assert_null(strstr(usmp_plan_error(plan), "Spill advice"), "%s",
	               usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, spill_advice_keeps_to_pools_of_the_same_target)
{
	/* "cpu_ram" has room but is reached by another target only. */
	static const char json[] =
		"{\"usmp\": 1, \"pools\": ["
		"{\"name\": \"sram\", \"size_limit\": 100, \"targets\": [\"npu\"]},"
		"{\"name\": \"cpu_ram\", \"size_limit\": 1000, \"targets\": [\"cpu\"]},"
		"{\"name\": \"dram\", \"size_limit\": 1000, \"targets\": [\"npu\", \"cpu\"]}],"
		" \"buffers\": ["
		"{\"name\": \"a\", \"size\": 80, \"live\": [0, 2], \"pools\": [\"sram\"]},"
		"{\"name\": \"b\", \"size\": 60, \"live\": [0, 2], \"pools\": [\"sram\"]}]}";
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(json, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "first_fit", &why);
	cr_assert_eq(why.move_count, 1, "%s", usmp_plan_error(plan));
	cr_assert_str_eq(buf_name(p, why.move_buffers[0]), "b", "the smaller");
	cr_assert_eq(why.move_pools[0], pool_id(p, "dram"));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- no certificate: honest --------------------------------------------------- */

Test(infeasible, heuristic_failure_without_certificate_says_a_plan_may_exist)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(heuristics_fail, "model.json");
	for (size_t k = 0; k < COUNT(heuristics); k++) {
		usmp_infeasibility why;
		usmp_plan *plan = infeasible(r, p, heuristics[k], &why);
		cr_assert_eq(why.kind, USMP_INFEASIBLE_UNPROVEN, "%s", heuristics[k]);
		cr_assert_eq(why.bound, 8);
		cr_assert_eq(why.limit, 8);
		char want[256];
		snprintf(want, sizeof want, "no plan found by %s (", heuristics[k]);
		const char *e = usmp_plan_error(plan);
		cr_assert(strstr(e, want) &&
		          strstr(e, "; the lower bound (8) fits the limit (8 bytes) of "
		                    "pool \"sram\", so a plan may exist: try -a exact "
		                    "or a longer --time-limit"), "%s", e);
		cr_assert_null(strstr(e, "no plan fits the pools"), "%s", e);
		usmp_plan_destroy(plan);
		cli_says(heuristics_fail, heuristics[k],
		         "so a plan may exist: try -a exact");
	}
	/* And indeed one exists. */
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, "exact", &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_leq(usmp_plan_pool_size(plan, 0), 8);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, a_plugin_failure_gets_the_same_certificate)
{
	/* fx_plain (a fixture plugin) stacks buffers without reuse. */
	char path[8192];
	snprintf(path, sizeof path, "%s/plugins:%s/good_v1_1.so", test_build_root(),
	         test_fixture_plugindir());
	usmp_registry *r = test_registry(path);
	usmp_problem *p = test_parse_json(one_pool_step, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "fx_plain", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(why.step, 3);
	cr_assert_eq(why.total, 1216);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* Stacking 1 KiB of buffers fails in 800 bytes; reuse fits 768. */
	usmp_problem *q = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 800}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 512, \"live\": [0, 1]},"
		"{\"name\": \"b\", \"size\": 512, \"live\": [1, 2]}]}", "model.json");
	plan = infeasible(r, q, "fx_plain", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_UNPROVEN);
	plan_says(plan, "no plan found by fx_plain; the "
	                "lower bound (512) fits the limit (800 bytes)");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(q);
	usmp_registry_destroy(r);
}

/* ---- exact ---------------------------------------------------------------------- */

Test(infeasible, exact_proves_infeasible_without_rules)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(aligned, "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "exact", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_SEARCH);
	cr_assert_eq(why.bound, 10);
	cr_assert_eq(why.limit, 10);
	cr_assert(strstr(usmp_plan_error(plan), "exact: no plan fits the pools: ") &&
	          strstr(usmp_plan_error(plan), "exact's search proved that no "
	                 "placement of the buffers fits the pool, although the "
	                 "lower bound (10) does"), "%s", usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	/* A heuristic's failure on it proves nothing: said so. */
	plan = infeasible(r, p, "first_fit", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_UNPROVEN);
	usmp_plan_destroy(plan);
	/* auto's exact member proves it: auto's failure is that proof. */
	plan = infeasible(r, p, "auto", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_SEARCH);
	cr_assert(strstr(usmp_plan_error(plan), "auto: no plan fits the pools: ") &&
	          strstr(usmp_plan_error(plan), "auto's search proved that no "
	                 "placement of the buffers fits the pool"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	cli_says(aligned, "exact", "exact's search proved");
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, exact_with_rules_is_infeasible_only_with_a_certificate)
{
	usmp_registry *r = test_registry(NULL);
	char json[1024];
	/* 250 bytes: the rule lets the three fit in 200 (first_fit does);
	 * exact decides with the rule: a plan of 200, proven, not infeasible. */
	snprintf(json, sizeof json, rules_fmt, 250u);
	usmp_problem *p = test_parse_json(json, "model.json");
	usmp_plan *plan = NULL;
	int st = plan_with(r, p, "exact", &plan);
	cr_assert_eq(st, USMP_OK, "%d: %s", st, usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 200);
	usmp_infeasibility why = {.struct_size = sizeof why};
	cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_ERR_NOT_FOUND);
	usmp_plan_destroy(plan);
	cr_assert_eq(plan_with(r, p, "first_fit", &plan), USMP_OK);
	cr_assert_leq(usmp_plan_pool_size(plan, 0), 250);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* 150 bytes: the step certificate holds with the sharing: infeasible. */
	snprintf(json, sizeof json, rules_fmt, 150u);
	p = test_parse_json(json, "model.json");
	plan = infeasible(r, p, "exact", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	usmp_plan_destroy(plan);
	char *out = cli_infeasible(json, "exact");
	free(out);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(infeasible, a_total_past_64_bits_is_said_exactly)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]},"
		"{\"name\": \"c\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}", "model.json");
	usmp_infeasibility why;
	usmp_plan *plan = infeasible(r, p, "first_fit", &why);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(why.limit, USMP_UNBOUNDED);
	cr_assert_eq(why.total, UINT64_MAX);
	plan_says(plan, "need 27670116110564327421 bytes, more than its limit "
	                "(no size limit: 18446744073709551615 bytes of address "
	                "space)");
	plan_says(plan, "; the lower bound of the group is at least "
	                "18446744073709551615 bytes");
	cr_assert_null(strstr(usmp_plan_error(plan), "overlap rules"), "no rules");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- soundness on random problems ------------------------------------------- */

/* A certificate is a proof: when any algorithm plans a problem, no other
 * may answer with a certificate; and the certificate (its kind, step,
 * total, pool) is the same whichever algorithm failed. */
Test(infeasible, certificates_never_contradict_a_plan_and_agree, .timeout = 600)
{
	usmp_registry *r = test_registry(NULL);
	const char *algos[] = {"first_fit", "best_fit", "greedy_by_size", "exact",
	                       "auto"};
	uint64_t s = 20261203;
	uint32_t proofs = 0, plans = 0, unproven = 0;
	for (int round = 0; round < 250; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t np = (uint32_t)test_rand_range(&s, 1, 3);
		uint32_t nb = (uint32_t)test_rand_range(&s, 2, 8);
		for (uint32_t q = 0; q < np; q++) {
			char name[16];
			snprintf(name, sizeof name, "p%u", q);
			cr_assert_eq(usmp_problem_add_pool(p, name,
			             test_rand_range(&s, 4, 24),
			             test_rand_range(&s, 0, 3) ? 1 : 4, NULL), USMP_OK);
		}
		for (uint32_t b = 0; b < nb; b++) {
			char name[16];
			uint32_t id;
			snprintf(name, sizeof name, "b%u", b);
			cr_assert_eq(usmp_problem_add_buffer(p, name,
			             test_rand_range(&s, 1, 12), 1, &id), USMP_OK);
			int64_t t = (int64_t)test_rand_range(&s, 0, 6);
			cr_assert_eq(usmp_problem_set_live(p, id, t,
			             t + (int64_t)test_rand_range(&s, 1, 4)), USMP_OK);
			uint32_t first = (uint32_t)test_rand_range(&s, 0, np - 1);
			cr_assert_eq(usmp_problem_add_candidate(p, id, first), USMP_OK);
			if (np > 1 && test_rand_range(&s, 0, 2) == 0)
				cr_assert_eq(usmp_problem_add_candidate(p, id,
				             (first + 1) % np), USMP_OK);
		}
		if (nb > 2 && test_rand_range(&s, 0, 4) == 0)
			cr_assert_eq(usmp_problem_add_conflict(p, 0, nb - 1), USMP_OK);
		int planned = 0, kind = 0;
		int64_t step = 0;
		uint64_t total = 0;
		uint32_t pool = 0;
		const char *who = NULL;
		for (size_t k = 0; k < COUNT(algos); k++) {
			usmp_plan_options o = {.struct_size = sizeof o,
			                       .flags = USMP_PLAN_NO_ISOLATE,
			                       .algorithm = algos[k],
			                       .time_limit = 0.2};
			usmp_plan *plan = NULL;
			int st = usmp_plan_compute(r, p, &o, &plan);
			usmp_infeasibility why = {.struct_size = sizeof why};
			int got = usmp_plan_infeasibility(plan, &why);
			if (st == USMP_OK) {
				planned = 1;
				cr_assert_eq(got, USMP_ERR_NOT_FOUND);
			} else if (st == USMP_ERR_INFEASIBLE) {
				cr_assert_eq(got, USMP_OK, "%s", algos[k]);
				bool proof = why.kind >= USMP_INFEASIBLE_STEP &&
				             why.kind <= USMP_INFEASIBLE_BOUND;
				if (why.kind == USMP_INFEASIBLE_UNPROVEN)
					unproven++;
				if (proof && kind) {
					cr_assert_eq(why.kind, (uint32_t)kind, "round %d: %s "
					             "and %s disagree", round, who, algos[k]);
					cr_assert_eq(why.step, step);
					cr_assert_eq(why.total, total);
					cr_assert_eq(why.pool, pool);
				} else if (proof) {
					kind = (int)why.kind;
					step = why.step;
					total = why.total;
					pool = why.pool;
					who = algos[k];
				}
				if (why.kind == USMP_INFEASIBLE_SEARCH)
					kind = kind ? kind : -1;
			}
			usmp_plan_destroy(plan);
		}
		cr_assert(!(planned && kind), "round %d: planned, yet %s gave a "
		          "certificate of kind %d", round, who ? who : "exact", kind);
		proofs += kind != 0;
		plans += planned;
		usmp_problem_destroy(p);
	}
	cr_log_info("%u plans, %u proofs, %u unproven answers", plans, proofs,
	            unproven);
	/* The generator must exercise both sides. */
	cr_assert_gt(proofs, 20, "%u proofs", proofs);
	cr_assert_gt(plans, 20, "%u plans", plans);
	cr_assert_gt(unproven + proofs, 0);
	usmp_registry_destroy(r);
}

/* ---- a stop with a certificate (internal: no shipped algorithm stops on
 * an infeasible part before failing) ----------------------------------------- */

Test(infeasible, a_stop_with_a_certificate_is_infeasible_and_without_stays_stopped)
{
	const char *jsons[] = {one_pool_step, heuristics_fail};
	for (int k = 0; k < 2; k++) {
		usmp_problem *p = test_parse_json(jsons[k], "model.json");
		cr_assert_eq(usmp__problem_prepare(p), USMP_OK);
		usmp__view_store vs;
		char *msg = NULL;
		cr_assert_eq(usmp__view_build(p, NULL, 0, &vs, &msg), USMP_OK);
		usmp_plan *plan = usmp__plan_alloc(p);
		cr_assert_not_null(plan);
		int st = usmp__infeasible_explain(p, &vs, 0, "slowpoke",
		                                  USMP_ERR_STOPPED, 0, NULL, plan);
		usmp_infeasibility why = {.struct_size = sizeof why};
		if (k == 0) {
			cr_assert_eq(st, USMP_ERR_INFEASIBLE);
			cr_assert_eq(usmp_plan_status(plan), USMP_ERR_INFEASIBLE);
			cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_OK);
			cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
			plan_says(plan, "slowpoke: no plan fits "
			                "the pools: at step 3");
		} else {
			cr_assert_eq(st, USMP_OK, "nothing recorded: the caller says "
			             "stopped");
			cr_assert_eq(usmp_plan_infeasibility(plan, &why),
			             USMP_ERR_NOT_FOUND);
			cr_assert_str_eq(usmp_plan_error(plan), "");
		}
		usmp_plan_destroy(plan);
		usmp__view_finish(&vs);
		usmp__free_msg(&msg);
		usmp_problem_destroy(p);
	}
}

Test(infeasible, exact_below_its_capacity_knob_proves_nothing_about_the_pool)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(heuristics_fail, "model.json");
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact:capacity=7"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INFEASIBLE);
	usmp_infeasibility why = {.struct_size = sizeof why};
	cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_OK);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_UNPROVEN, "8 bytes fit the pool");
	plan_says(plan, "so a plan may exist: its "
	                "capacity knob asks for less");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
