/* test_spill_floor.c — the host's spill floor (src/spill_floor.c): never above
 * an exhaustive search's least spill, stronger than the forced spill, auto stops at it. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "internal.h"
#include "oracle.h"
#include "support.h"

/* ---- the floor against an exhaustive search ------------------------------ */

#define GEN_N 8
#define GEN_P 3

/* A small problem that often spills: two or three pools with small limits,
 * candidate lists of one to three pools,
 * live ranges, some conflict edges, fixed buffers and alignment. */
static void generate(desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	d->P = (uint32_t)test_rand_range(s, 2, GEN_P);
	d->n = (uint32_t)test_rand_range(s, 2, GEN_N);
	for (uint32_t q = 0; q < d->P; q++) {
		d->limit[q] = test_rand_range(s, 3, 12);
		d->palign[q] = test_rand_range(s, 0, 4) ? 1 : 2;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		static const uint64_t al[] = {1, 1, 1, 2, 4};
		d->size[i] = test_rand_range(s, 1, 6);
		d->align[i] = al[test_rand_range(s, 0, 4)];
		d->live[i] = test_rand_range(s, 0, 7) != 0;
		d->begin[i] = (int64_t)test_rand_range(s, 0, 4);
		d->end[i] = d->begin[i] + (int64_t)test_rand_range(s, 1, 4);
		if (test_rand_range(s, 0, 5)) {
			/* a list of distinct pools in a random order */
			uint32_t k = (uint32_t)test_rand_range(s, 1, d->P);
			uint32_t order[GEN_P] = {0, 1, 2};
			for (uint32_t j = d->P; j > 1; j--) {
				uint32_t x = (uint32_t)test_rand_range(s, 0, j - 1);
				uint32_t t = order[j - 1];
				order[j - 1] = order[x];
				order[x] = t;
			}
			for (uint32_t j = 0; j < k; j++)
				d->cand[i][d->ncand[i]++] = order[j];
		}
	}
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (test_chance(s, 8))
				d->edge[a][b] = d->edge[b][a] = 1;
	for (uint32_t i = 0; i < d->n; i++) {
		if (!test_chance(s, 12))
			continue;
		uint32_t q = (uint32_t)test_rand_range(s, 0, d->P - 1);
		if (!oracle_may_use(d, i, q))
			continue;
		uint64_t a = oracle_eff_align(d, i, q);
		uint64_t lim = d->limit[q];
		if (d->size[i] > lim)
			continue;
		d->fixed[i] = 1;
		d->fixed_pool[i] = q;
		d->fixed_offset[i] = test_rand_range(s, 0, (lim - d->size[i]) / a) * a;
	}
}

/* The floor of p: the sum over its groups of the floor of the group's
 * view (as plans have it: a part per group). */
static uint64_t floor_of(usmp_problem *p)
{
	cr_assert_eq(usmp__problem_prepare(p), USMP_OK, "%s",
	             usmp_problem_error(p));
	uint32_t n = usmp_problem_buffer_count(p), ids[16];
	cr_assert_leq(n, 16);
	uint64_t sum = 0;
	for (uint32_t g = 0; g < p->group_count; g++) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			if (p->buffer_group[i] == g)
				ids[k++] = i;
		if (!k)
			continue;
		usmp__view_store vs;
		char *msg = NULL;
		cr_assert_eq(usmp__view_build(p, ids, k, &vs, &msg), USMP_OK, "%s",
		             msg ? msg : "?");
		sum += usmp__spill_floor(&vs.view);
		usmp__view_finish(&vs);
	}
	return sum;
}

/* On random problems of up to 8 buffers and 3 pools, with and without
 * overlap rules (which let buffers share bytes), the floor is never above
 * the least spill of any valid plan (the oracle tries every pool and
 * offset of every buffer). */
Test(spill_floor, never_above_the_least_spill_of_an_exhaustive_search,
     .timeout = 600)
{
	uint64_t seed = 20261204, s = seed;
	/* a quarter under the sanitizers (TEST_SWEEP), where the oracle is
	 * about 6x slower; the shares asserted below hold for both */
	uint64_t cases = TEST_SWEEP(4000), feasible = 0, spilled = 0, tight = 0, rules = 0;
	for (uint64_t c = 0; c < cases; c++) {
		desc d;
		generate(&d, &s);
		usmp_problem *p = oracle_problem(&d);
		uint64_t want = test_chance(&s, 40) ? test_rand_range(&s, 1, 3) : 0;
		oracle_add_rules(p, &d, &s, want, -3, 6, 0, 1);
		oracle_read_spans(p, &d);
		oracle_derive(&d);
		rules += d.rule_count > 0;
		uint64_t f = floor_of(p);
		oracle o = oracle_run_all(&d, M_LEX, 0);
		if (o.found) {
			feasible++;
			spilled += o.best_spill > 0;
			tight += o.best_spill > 0 && f == o.best_spill;
			if (f > o.best_spill) {
				const char *file = test_save_case(p, "spill_floor", seed, c);
				cr_assert_leq(f, o.best_spill,
				              "seed %" PRIu64 " case %" PRIu64 ": floor %"
				              PRIu64 " above the least spill %" PRIu64
				              " (%s)", seed, c, f, o.best_spill, file);
			}
		}
		usmp_problem_destroy(p);
	}
	cr_log_info("%" PRIu64 " cases, %" PRIu64 " feasible, %" PRIu64
	            " spill, %" PRIu64 " at the floor, %" PRIu64 " with rules",
	            cases, feasible, spilled, tight, rules);
	/* The generator reaches the cases that matter, and the floor is not
	 * trivially 0: it meets the least spill on a good share of them. */
	cr_assert_gt(feasible, cases / 3);
	cr_assert_gt(spilled, cases / 10);
	cr_assert_gt(rules, cases / 5);
	cr_assert_gt(tight, spilled / 4);
}

/* 11 to 14 buffers alive together, all preferring sram (no rules, sizes
 * multiples of a random unit), dram unbounded: a plan keeps any subset that
 * fits, so the least spill is the least subset sum reaching the excess,
 * which the floor finds exactly (by its bitset over sums beyond 10 movers). */
Test(spill_floor, many_alive_together_the_floor_is_the_least_subset_sum)
{
	uint64_t s = 20261205;
	for (int c = 0; c < 200; c++) {
		uint32_t n = (uint32_t)test_rand_range(&s, 11, 14);
		uint64_t unit = test_rand_range(&s, 1, 48), size[14], total = 0;
		for (uint32_t i = 0; i < n; i++)
			total += size[i] = unit * test_rand_range(&s, 1, 40);
		uint64_t limit = test_rand_range(&s, 1, total - 1);
		uint64_t excess = total - limit, best = UINT64_MAX;
		for (uint32_t m = 1; m < (1u << n); m++) {
			uint64_t sum = 0;
			for (uint32_t i = 0; i < n; i++)
				sum += m >> i & 1 ? size[i] : 0;
			if (sum >= excess && sum < best)
				best = sum;
		}
		usmp_problem *p = usmp_problem_create();
		uint64_t lim[2] = {limit, USMP_UNBOUNDED}, al[2] = {1, 1};
		test_add_pools(p, "p", 2, lim, al);
		static const uint32_t cand[] = {0, 1};
		for (uint32_t i = 0; i < n; i++)
			test_add_buffer(p, i, &(test_buffer){.size = size[i], .align = 1,
			                .live = 1, .begin = 0, .end = 1, .ncand = 2,
			                .cand = cand});
		uint64_t f = floor_of(p);
		cr_assert_eq(f, best, "case %d: floor %" PRIu64 ", least subset "
		             "sum %" PRIu64, c, f, best);
		usmp_problem_destroy(p);
	}
}

/* ---- hand cases ------------------------------------------------------------ */

/* sram (100 bytes) before dram. "x" (70) and "y" (50) prefer sram and are
 * alive together: one of them leaves it, at least 50 bytes, though no
 * buffer is larger than sram nor fixed (forced spill 0). */
#define XY                                                                    \
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},\n"  \
	" {\"name\": \"dram\"}], \"buffers\": [\n"                                \
	" {\"name\": \"x\", \"size\": 70, \"live\": [0, 2], \"pools\": [\"sram\", " \
	"\"dram\"]},\n"                                                           \
	" {\"name\": \"y\", \"size\": 50, \"live\": [0, 2], \"pools\": [\"sram\", " \
	"\"dram\"]}"

static const char xy_json[] = XY "]}\n";

/* The same twice over, at times [2, 4) (x2 and y2): the two times share
 * no buffer, so the floor adds up to 100. */
static const char twice_json[] =
	XY ",\n"
	" {\"name\": \"x2\", \"size\": 70, \"live\": [2, 4], \"pools\": "
	"[\"sram\", \"dram\"]},\n"
	" {\"name\": \"y2\", \"size\": 50, \"live\": [2, 4], \"pools\": "
	"[\"sram\", \"dram\"]}]}\n";

/* y written in place over x (x last read at step 1, where y begins): with
 * the rule both fit sram, no floor. */
static const char in_place_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 100},\n"
	" {\"name\": \"dram\"}], \"buffers\": [\n"
	" {\"name\": \"x\", \"size\": 70, \"live\": [0, 2], \"pools\": [\"sram\", "
	"\"dram\"]},\n"
	" {\"name\": \"y\", \"size\": 50, \"live\": [1, 3], \"pools\": [\"sram\", "
	"\"dram\"]}],\n \"overlaps\": [{\"src\": \"x\", \"dst\": \"y\", "
	"\"max_lead\": 0}]}\n";

static uint64_t floor_of_json(const char *json, uint64_t *forced)
{
	usmp_problem *p = test_parse_json(json, "floor.json");
	usmp__view_store vs;
	char *msg = NULL;
	cr_assert_eq(usmp__problem_prepare(p), USMP_OK);
	cr_assert_eq(usmp__view_build(p, NULL, 0, &vs, &msg), USMP_OK, "%s",
	             msg ? msg : "?");
	uint64_t f = usmp__spill_floor(&vs.view);
	*forced = 0;
	for (uint32_t i = 0; i < vs.view.buffer_count; i++) {
		const usmp_buffer_rec *b = &vs.view.buffers[i];
		uint32_t first = vs.view.candidates[b->candidate_start];
		if (b->size > vs.view.pools[first].size_limit ||
		    ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool != first))
			*forced += b->size;
	}
	usmp__view_finish(&vs);
	usmp_problem_destroy(p);
	return f;
}

/* The old measure (forced spill) says 0; the floor says 50 (and 100 when
 * the overload comes twice with different buffers). */
Test(spill_floor, stronger_than_the_forced_spill)
{
	uint64_t forced;
	cr_assert_eq(floor_of_json(xy_json, &forced), 50);
	cr_assert_eq(forced, 0);
	cr_assert_eq(floor_of_json(twice_json, &forced), 100);
	cr_assert_eq(forced, 0);
	cr_assert_eq(floor_of_json(in_place_json, &forced), 0);
	/* Without the rule, the same buffers: one of them leaves sram. */
	char *plain = test_fmt("%.*s]}\n", (int)(strstr(in_place_json, "],\n \"overlaps") -
	                                        in_place_json), in_place_json);
	cr_assert_eq(floor_of_json(plain, &forced), 50);
	free(plain);
}

/* A buffer larger than sram and a buffer fixed in dram that prefers sram
 * are forced; the floor counts them once, and the 70 + 50 overload of the
 * others on top. */
Test(spill_floor, counts_the_forced_spill_once)
{
	static const char json[] =
		XY ",\n"
		" {\"name\": \"big\", \"size\": 200, \"live\": [0, 2], \"pools\": "
		"[\"sram\", \"dram\"]},\n"
		" {\"name\": \"f\", \"size\": 8, \"live\": [0, 2], \"pools\": "
		"[\"sram\", \"dram\"], \"fixed\": {\"pool\": \"dram\", \"offset\": "
		"4096}}]}\n";
	uint64_t forced;
	cr_assert_eq(floor_of_json(json, &forced), 208 + 50);
	cr_assert_eq(forced, 208);
}

/* Plan p with auto in this process, the log kept in `lines`. */
static usmp_part_info plan_auto(usmp_registry *r, usmp_problem *p)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(usmp_plan_part_count(plan), 1);
	usmp_part_info pi = test_part(plan, 0);
	pi.algorithm = pi.target = pi.params = pi.rule = pi.overrun_by = NULL;
	usmp_plan_destroy(plan);
	return pi;
}

/* auto's first plan keeps x in sram and spills y: 50 bytes, the floor, at
 * the lower bound (120). Nothing beats it, so no other member runs; the
 * part says the spill is at the floor. */
Test(spill_floor, auto_stops_at_the_floor)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(xy_json, "xy.json");
	char lines[TEST_LOG_LINES] = "";
	usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_DEBUG);
	usmp_part_info pi = plan_auto(r, p);
	cr_assert_eq(pi.spill, 50);
	cr_assert_eq(pi.spill_forced, 0);
	cr_assert_eq(pi.spill_floor, 50);
	cr_assert_eq(pi.size, pi.lower_bound);
	cr_assert(pi.optimal);
	const char *first = strstr(lines, " returned ok");
	cr_assert(first, "%s", lines);
	cr_assert_null(strstr(first + 1, " returned "),
	               "a second member ran:\n%s", lines);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* The summary says a spill at the floor is the least possible, and names
 * the floor of a plan above it; a plan read back from its file carries
 * the same floor. */
Test(spill_floor, summary_and_file_plans_report_the_floor)
{
	char *path = test_write_tmp(".json", xy_json);
	char *out = test_usmp_ok("plan '%s' -o /dev/null", path);
	cr_assert(strstr(out, "\n    spill 50 bytes: 1 buffer outside its first "
	                      "candidate pool, the largest \"y\" in dram; the "
	                      "least possible: no valid plan spills less\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "auto keeps"), "%s", out);
	free(out);
	free(path);

	/* x alive longer than y: first_fit by size keeps x (70) and spills
	 * both y and z (110); the floor is 60 (z or x must go at [2, 4)). */
	static const char above[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": "
		"100},\n {\"name\": \"dram\"}], \"buffers\": [\n"
		" {\"name\": \"x\", \"size\": 70, \"live\": [0, 4], \"pools\": "
		"[\"sram\", \"dram\"]},\n"
		" {\"name\": \"y\", \"size\": 50, \"live\": [0, 2], \"pools\": "
		"[\"sram\", \"dram\"]},\n"
		" {\"name\": \"z\", \"size\": 60, \"live\": [2, 4], \"pools\": "
		"[\"sram\", \"dram\"]}]}\n";
	path = test_write_tmp(".json", above);
	char *file = test_tmpfile(".json");
	out = test_usmp_ok("plan '%s' -a first_fit -o '%s'", path, file);
	cr_assert(strstr(out, "\n    spill 110 bytes: 2 buffers outside their "
	                      "first candidate pool, the largest \"z\" in dram; "
	                      "no valid plan spills less than 60 bytes\n"),
	          "%s", out);
	free(out);

	usmp_problem *p = test_parse_json(above, "above.json");
	usmp_plan *back = NULL;
	cr_assert_eq(usmp_plan_read(p, file, USMP_FORMAT_AUTO, &back), USMP_OK,
	             "%s", usmp_plan_error(back));
	usmp_part_info bi = test_part(back, 0);
	cr_assert_eq(bi.spill, 110);
	cr_assert_eq(bi.spill_floor, 60);
	usmp_plan_destroy(back);
	usmp_problem_destroy(p);
	free(file);
	free(path);
}

/* A caller built before spill_floor was appended gets nothing past its
 * struct_size. */
Test(spill_floor, older_callers_do_not_see_it)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(xy_json, "xy.json");
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
	usmp_part_info old;
	memset(&old, 0x5a, sizeof old);
	old.struct_size = (uint32_t)offsetof(usmp_part_info, spill_floor);
	cr_assert_eq(usmp_plan_part(plan, 0, &old), USMP_OK);
	cr_assert_eq(old.spill, 50);
	cr_assert_eq(old.spill_floor, 0x5a5a5a5a5a5a5a5aull);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
