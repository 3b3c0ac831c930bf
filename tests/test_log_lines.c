/* test_log_lines.c — the lines a host's log function receives: one prefix
 * naming the algorithm (auto's members as "auto/MEMBER"), and one error. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

#define MAX_LINES 512

/* What the log function received. */
typedef struct lines {
	int count;
	int level[MAX_LINES];
	char algorithm[MAX_LINES][96];
	char message[MAX_LINES][320];
} lines;

static void record(void *ctx, int level, const char *algorithm,
                   const char *message)
{
	lines *l = ctx;
	if (l->count >= MAX_LINES)
		return;
	l->level[l->count] = level;
	snprintf(l->algorithm[l->count], sizeof l->algorithm[0], "%s", algorithm);
	snprintf(l->message[l->count], sizeof l->message[0], "%s", message);
	l->count++;
}

/* Three buffers of 64 bytes in a chain, two alive at once; the pool holds
 * `limit` bytes (100: infeasible, 128: feasible, but not by stacking them). */
static usmp_problem *pair_problem(uint64_t limit)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t pool, dram, id;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", limit, 16, &pool), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 4096, 16, &dram), USMP_OK);
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "t%d", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + 2), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, id, pool), USMP_OK);
	}
	/* u joins the pools into one group, so no glance at the group's
	 * bound or sizes shows the sram too small: auto runs its members
	 * (firsthour8 has the part it need not run them on). */
	cr_assert_eq(usmp_problem_add_buffer(p, "u", 16, 16, &id), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, id, 0, 4), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, id, dram), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, id, pool), USMP_OK);
	return p;
}

/* Plan the pair with `algo` under the pool `limit`, logging at `level`
 * into l; returns the status. */
static int plan_logged(usmp_registry *r, const char *algo, uint64_t limit,
                       uint32_t flags, int level, lines *l)
{
	memset(l, 0, sizeof *l);
	cr_assert_eq(usmp_registry_set_log(r, record, l, level), USMP_OK);
	usmp_problem *p = pair_problem(limit);
	/* A long limit: a loaded machine never turns "infeasible" into
	 * "stopped" (the members take milliseconds). */
	usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
	                       .algorithm = algo, .time_limit = 60};
	usmp_plan *out = NULL;
	int st = usmp_plan_compute(r, p, &o, &out);
	usmp_plan_destroy(out);
	usmp_problem_destroy(p);
	cr_assert_lt(l->count, MAX_LINES, "more lines than the test keeps");
	return st;
}

/* True when `message` begins with "NAME: " for NAME an algorithm of r. */
static bool starts_with_an_algorithm(usmp_registry *r, const char *message)
{
	for (uint32_t i = 0; i < usmp_registry_algorithm_count(r); i++) {
		usmp_algorithm_info info = {.struct_size = sizeof info};
		cr_assert_eq(usmp_registry_algorithm(r, i, &info), USMP_OK);
		size_t n = strlen(info.name);
		if (!strncmp(message, info.name, n) && message[n] == ':' &&
		    message[n + 1] == ' ')
			return true;
	}
	return false;
}

/* Every line names `algo` (or "algo/MEMBER", MEMBER an algorithm of r) and
 * no message repeats a name as its own prefix. Returns the member lines. */
static int assert_one_prefix(usmp_registry *r, const lines *l,
                             const char *algo)
{
	size_t n = strlen(algo);
	int members = 0;
	for (int i = 0; i < l->count; i++) {
		const char *who = l->algorithm[i], *m = l->message[i];
		cr_assert(!strncmp(who, algo, n) && (!who[n] || who[n] == '/'),
		          "line %d names \"%s\": %s", i, who, m);
		if (who[n] == '/') {
			uint32_t k;
			cr_assert_eq(usmp_registry_find_algorithm(r, who + n + 1, &k),
			             USMP_OK, "\"%s\" names no member", who);
			members++;
		}
		cr_assert(!starts_with_an_algorithm(r, m),
		          "doubled prefix: \"%s: %s\"", who, m);
	}
	return members;
}

/* The index of the first line from `who` containing `text`, or -1. */
static int find(const lines *l, const char *who, const char *text)
{
	for (int i = 0; i < l->count; i++)
		if (!strcmp(l->algorithm[i], who) && strstr(l->message[i], text))
			return i;
	return -1;
}

static void auto_lines_have_one_prefix(uint32_t flags)
{
	usmp_registry *r = test_registry(NULL);
	lines *l = calloc(1, sizeof *l);
	cr_assert_eq(plan_logged(r, "auto", 100, flags, USMP_LOG_DEBUG, l),
	             USMP_ERR_INFEASIBLE);
	cr_assert_gt(assert_one_prefix(r, l, "auto"), 0, "no member line");
	int i = find(l, "auto/first_fit", "fits in none of its 1 candidate");
	cr_assert_geq(i, 0, "first_fit's failure is not among %d lines",
	              l->count);
	cr_assert_str_eq(l->message[i], "buffer \"t1\" (64 bytes) fits in none "
	                 "of its 1 candidate pool(s)");
	/* auto's own lines name auto alone, without "auto: " again. */
	i = find(l, "auto", "returned infeasible after");
	cr_assert_geq(i, 0);
	cr_assert(!strncmp(l->message[i], "first_fit:order=size returned", 29),
	          "%s", l->message[i]);
	cr_assert_eq(plan_logged(r, "auto", 128, flags, USMP_LOG_DEBUG, l),
	             USMP_OK);
	assert_one_prefix(r, l, "auto");
	cr_assert_geq(find(l, "auto", "returned ok after"), 0);
	free(l);
	usmp_registry_destroy(r);
}

Test(log_lines, auto_and_its_members_lines_carry_one_prefix)
{
	auto_lines_have_one_prefix(USMP_PLAN_NO_ISOLATE);
}

Test(log_lines, an_isolated_autos_member_lines_keep_their_names)
{
	auto_lines_have_one_prefix(USMP_PLAN_ISOLATE);
}

Test(log_lines, a_plain_algorithms_lines_carry_one_prefix)
{
	static const char *const algos[] = {"first_fit", "best_fit", "exact",
	                                    "greedy_by_size", "hill_climb"};
	usmp_registry *r = test_registry(NULL);
	lines *l = calloc(1, sizeof *l);
	for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
		cr_assert_eq(plan_logged(r, algos[k], 100, USMP_PLAN_NO_ISOLATE,
		                         USMP_LOG_DEBUG, l),
		             USMP_ERR_INFEASIBLE, "%s", algos[k]);
		cr_assert_gt(l->count, 0, "%s logged nothing", algos[k]);
		cr_assert_eq(assert_one_prefix(r, l, algos[k]), 0);
		int e = -1;
		for (int i = 0; i < l->count; i++)
			if (l->level[i] == USMP_LOG_ERROR)
				e = i;
		cr_assert_geq(e, 0, "%s logged no error", algos[k]);
	}
	free(l);
	usmp_registry_destroy(r);
}

/* The failure message names the algorithm once too. */
Test(log_lines, a_plain_algorithms_failure_message_names_it_once)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = pair_problem(100);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit"};
	usmp_plan *out = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &out), USMP_ERR_INFEASIBLE);
	const char *e = usmp_plan_error(out);
	cr_assert(strstr(e, "first_fit: no plan fits the pools: buffer \"t1\" "),
	          "%s", e);
	cr_assert_null(strstr(e, "first_fit: first_fit"), "%s", e);
	cr_assert_null(strstr(e, ": first_fit: buffer"), "%s", e);
	usmp_plan_destroy(out);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

static void one_error_for_an_infeasible_auto(uint32_t flags)
{
	usmp_registry *r = test_registry(NULL);
	lines *l = calloc(1, sizeof *l);
	cr_assert_eq(plan_logged(r, "auto", 100, flags, USMP_LOG_DEBUG, l),
	             USMP_ERR_INFEASIBLE);
	int errors = 0, member_notes = 0;
	for (int i = 0; i < l->count; i++) {
		if (l->level[i] <= USMP_LOG_WARN) {
			errors++;
			cr_assert_eq(l->level[i], USMP_LOG_ERROR, "a warning: %s",
			             l->message[i]);
			cr_assert_str_eq(l->algorithm[i], "auto");
			cr_assert_str_eq(l->message[i], "no member found a plan; "
			                 "the first to fail: first_fit (infeasible)");
		}
		/* A member's failures are notes (info); its own debug lines
		 * stay debug. */
		if (strchr(l->algorithm[i], '/')) {
			cr_assert_geq(l->level[i], USMP_LOG_INFO, "%s: %s",
			              l->algorithm[i], l->message[i]);
			if (l->level[i] == USMP_LOG_INFO)
				member_notes++;
		}
	}
	cr_assert_eq(errors, 1, "%d error or warning lines", errors);
	cr_assert_geq(member_notes, 5, "%d member lines", member_notes);
	/* A host that asks for errors only gets that one line. */
	cr_assert_eq(plan_logged(r, "auto", 100, flags, USMP_LOG_ERROR, l),
	             USMP_ERR_INFEASIBLE);
	cr_assert_eq(l->count, 1, "%d lines; the second: %s", l->count,
	             l->message[1]);
	cr_assert_eq(plan_logged(r, "auto", 100, flags, USMP_LOG_WARN, l),
	             USMP_ERR_INFEASIBLE);
	cr_assert_eq(l->count, 1, "%d lines; the second: %s", l->count,
	             l->message[1]);
	free(l);
	usmp_registry_destroy(r);
}

Test(log_lines, an_infeasible_auto_logs_one_error_and_members_at_info)
{
	one_error_for_an_infeasible_auto(USMP_PLAN_NO_ISOLATE);
}

Test(log_lines, an_isolated_infeasible_auto_logs_one_error)
{
	one_error_for_an_infeasible_auto(USMP_PLAN_ISOLATE);
}

/* The member failing alone (first_fit chosen) is the call's error. */
Test(log_lines, a_chosen_algorithms_failure_stays_an_error)
{
	usmp_registry *r = test_registry(NULL);
	lines *l = calloc(1, sizeof *l);
	cr_assert_eq(plan_logged(r, "first_fit", 100, USMP_PLAN_NO_ISOLATE,
	                         USMP_LOG_ERROR, l),
	             USMP_ERR_INFEASIBLE);
	cr_assert_eq(l->count, 1);
	cr_assert_str_eq(l->algorithm[0], "first_fit");
	cr_assert(strstr(l->message[0], "fits in none"), "%s", l->message[0]);
	free(l);
	usmp_registry_destroy(r);
}
