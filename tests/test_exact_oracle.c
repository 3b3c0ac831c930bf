/* test_exact_oracle.c — a second opinion on exact: on thousands of small random
 * problems, exact's proven optimum equals an exhaustive search (oracle.c).
 *
 * Each problem has 1-6 buffers, one or two pools with small limits, candidate
 * lists in priority order, explicit conflict edges, live ranges (or none),
 * fixed placements, buffer and pool alignment and overlap rules. The oracle
 * tries every pool and every aligned offset in [0, limit - size] of every
 * buffer, judging pairs by the definitions of docs/design.md ("Plans",
 * "Overlap rules"), and shares no code with the plugin (only with
 * redteam2). The objective is the one of docs/design.md ("Several pools"):
 * least spill (bytes outside each buffer's first candidate pool), then
 * least total size. It checks:
 *
 *   - exact says infeasible exactly when the oracle finds no plan (with
 *     rules that let buffers share, exact may also say "cannot decide");
 *   - every exact plan passes usmp_plan_verify;
 *   - without such rules, exact's plan has the oracle's (spill, size);
 *   - every part claimed optimal is: no plan spilling no more is smaller,
 *     and the proven bounds never exceed what the oracle reaches.
 *
 * Fixed seed by default. USMP_ORACLE_SEED (a number, or "random") and
 * USMP_ORACLE_CASES (default 20000) run other or longer sweeps, e.g.
 * USMP_ORACLE_SEED=random USMP_ORACLE_CASES=100000. A failure prints the
 * seed and case and writes the problem to /tmp as JSON.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "internal.h"
#include "oracle.h"
#include "rule_schedule.h"
#include "support.h"

/* Buffers and pools a generated problem has at most. */
#define GEN_N 6
#define GEN_P 2

/* ---- random problems ------------------------------------------------------ */

/* Buffer i fixed in pool q at a random offset, a multiple of its alignment
 * there, when it fits under the pool's limit (one draw; none when not). */
static void fix_at_random(desc *d, uint32_t i, uint32_t q, uint64_t *s)
{
	uint64_t a = oracle_eff_align(d, i, q);
	if (d->size[i] > d->limit[q])
		return;
	d->fixed[i] = 1;
	d->fixed_pool[i] = q;
	d->fixed_offset[i] =
		test_rand_range(s, 0, (d->limit[q] - d->size[i]) / a) * a;
}

static void generate(desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	/* Mostly small; one case in four has larger sizes, fewer buffers. */
	int wide = test_rand_range(s, 0, 3) == 0;
	d->P = (uint32_t)test_rand_range(s, 1, GEN_P);
	d->n = (uint32_t)test_rand_range(s, 1, wide ? GEN_N - 1 : GEN_N);
	for (uint32_t q = 0; q < d->P; q++) {
		d->limit[q] = wide ? test_rand_range(s, 10, 24) : test_rand_range(s, 4, 14);
		d->palign[q] = test_rand_range(s, 0, 3) ? 1 : 2;
	}
	int any_live = test_rand_range(s, 0, 4) != 0;
	for (uint32_t i = 0; i < d->n; i++) {
		static const uint64_t al[] = {1, 1, 1, 2, 4};
		d->size[i] = test_rand_range(s, 1, wide ? 9 : 5);
		d->align[i] = al[test_rand_range(s, 0, 4)];
		d->live[i] = any_live && test_rand_range(s, 0, 9) != 0;
		d->begin[i] = (int64_t)test_rand_range(s, 0, 4);
		d->end[i] = d->begin[i] + (int64_t)test_rand_range(s, 1, 3);
		if (d->P > 1 && test_rand_range(s, 0, 4)) {
			/* a candidate list: one pool, or both in either order */
			uint32_t first = (uint32_t)test_rand_range(s, 0, 1);
			d->cand[i][d->ncand[i]++] = first;
			if (test_rand_range(s, 0, 1))
				d->cand[i][d->ncand[i]++] = 1 - first;
		}
	}
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (test_rand_range(s, 0, 99) < (any_live ? 15 : 45))
				d->edge[a][b] = d->edge[b][a] = 1;
	for (uint32_t i = 0; i < d->n; i++) {
		if (test_rand_range(s, 0, 9))
			continue;
		uint32_t q;
		do
			q = (uint32_t)test_rand_range(s, 0, d->P - 1);
		while (!oracle_may_use(d, i, q));
		fix_at_random(d, i, q, s);
	}
}

/* Build the problem; rules go through add_fitting_rule, which retimes live
 * ranges to the rule schedule, so the oracle reads the ranges back. */
static usmp_problem *build(desc *d, uint64_t *s)
{
	usmp_problem *p = oracle_problem(d);
	uint64_t want = d->n > 1 && test_rand_range(s, 0, 2) == 0
	                        ? test_rand_range(s, 1, 3)
	                        : 0;
	oracle_add_rules(p, d, s, want, -3, 5, 0, 1);
	oracle_read_spans(p, d);
	oracle_derive(d);
	return p;
}

/* Rules that could let a conflicting pair share a byte. */
static int sharing_rules(const desc *d)
{
	for (int r = 0; r < d->rule_count; r++) {
		const orule *ru = &d->rules[r];
		if (oracle_conflict(d, ru->src, ru->dst) &&
		    ru->lead > -(int64_t)d->size[ru->dst])
			return 1;
	}
	return 0;
}

typedef struct stats {
	uint64_t cases, infeasible, planned, lex_proven, claimed, undecided,
	    with_rules, spill_cases, multi_pool;
} stats;

/* A knob for exact ("split=1": one pool in parts at time cuts, parts of two
 * or more buffers re-planned by exact_window, which is not exact: then
 * only validity and claims are checked, not reaching the optimum). */
static const char *oracle_knob;

static void check_case(usmp_registry *r, desc *d, usmp_problem *p,
                       uint64_t seed, uint64_t c, stats *st)
{
	oracle o = oracle_run_all(d, M_LEX, 0);
	int rules = sharing_rules(d);
	const char *knobs[] = {oracle_knob};
	usmp_plan_options opt = {.struct_size = sizeof opt,
	                         .flags = USMP_PLAN_NO_ISOLATE,
	                         .algorithm = "exact",
	                         .params = oracle_knob ? knobs : NULL,
	                         .param_count = oracle_knob ? 1 : 0};
	usmp_plan *plan = NULL;
	int rc = usmp_plan_compute(r, p, &opt, &plan);
	cr_assert(plan, "no plan object");
#define FAIL_IF(cond, ...)                                                    \
	do {                                                                      \
		if (cond) {                                                           \
			cr_log_error("USMP_ORACLE_SEED=%" PRIu64 " case %" PRIu64        \
			             ": problem in %s", seed, c,                          \
			             test_save_case(p, "exact-oracle", seed, c));         \
			cr_assert_fail(__VA_ARGS__);                                      \
		}                                                                     \
	} while (0)
	st->with_rules += rules;
	st->multi_pool += d->P > 1;
	if (!o.found) {
		st->infeasible++;
		if (rc == USMP_ERR_UNSUPPORTED && (rules || oracle_knob)) {
			st->undecided++;
			usmp_plan_destroy(plan);
			return;
		}
		FAIL_IF(rc != USMP_ERR_INFEASIBLE, "the oracle finds no plan; exact "
		        "says %s: %s", usmp_status_name(rc), usmp_plan_error(plan));
		usmp_plan_destroy(plan);
		return;
	}
	if (rc == USMP_ERR_UNSUPPORTED && (rules || oracle_knob)) {
		st->undecided++;
		usmp_plan_destroy(plan);
		return;
	}
	FAIL_IF(rc != USMP_OK, "the oracle finds (spill %" PRIu64 ", size %"
	        PRIu64 "); exact says %s: %s", o.best_spill, o.best_total,
	        usmp_status_name(rc), usmp_plan_error(plan));
	st->planned++;
	FAIL_IF(usmp_plan_verify(plan, p) != USMP_OK, "invalid plan: %s",
	        usmp_plan_error(plan));
	uint64_t spill = 0, size = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		spill += q != oracle_first_pool(d, i) ? d->size[i] : 0;
	}
	for (uint32_t q = 0; q < d->P; q++)
		size += usmp_plan_pool_size(plan, q);
	st->spill_cases += o.best_spill > 0;
	FAIL_IF(spill < o.best_spill ||
	        (spill == o.best_spill && size < o.best_total),
	        "exact (spill %" PRIu64 ", size %" PRIu64 ") beats the oracle's "
	        "optimum (%" PRIu64 ", %" PRIu64 ")", spill, size, o.best_spill,
	        o.best_total);
	int lex = spill == o.best_spill && size == o.best_total;
	st->lex_proven += lex;
	FAIL_IF(!rules && !lex && !oracle_knob, "exact (spill %" PRIu64 ", size %" PRIu64 ") "
	        "misses the optimum (%" PRIu64 ", %" PRIu64 ")", spill, size,
	        o.best_spill, o.best_total);
	/* Claims: the least size among plans spilling no more than exact's. */
	oracle capped = oracle_run_all(d, M_CAPPED, spill);
	cr_assert(capped.found);
	uint32_t parts = usmp_plan_part_count(plan);
	int all_optimal = 1;
	uint64_t proven = 0;
	for (uint32_t i = 0; i < parts; i++) {
		usmp_part_info pi = test_part(plan, i);
		all_optimal &= pi.optimal != 0;
		proven += pi.proven_bound;
	}
	FAIL_IF(proven > capped.best_total, "proven bounds sum to %" PRIu64
	        ", but a plan spilling at most %" PRIu64 " has size %" PRIu64,
	        proven, spill, capped.best_total);
	FAIL_IF(all_optimal && size != capped.best_total, "claimed optimal at "
	        "size %" PRIu64 ", but a plan spilling at most %" PRIu64
	        " has size %" PRIu64, size, spill, capped.best_total);
	st->claimed += all_optimal;
	usmp_plan_destroy(plan);
#undef FAIL_IF
}

/* Two or three pools, every buffer alive, short first pools and a roomy
 * last one that every candidate list ends in, and edges: most of these
 * go through the plan of the view without its edges (exact_edges.c),
 * kept, repaired or re-swept, proven when that plan is the relaxation's
 * optimum and obeys the edges. */
static void generate_edges(desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	d->P = (uint32_t)test_rand_range(s, 2, 3);
	d->n = (uint32_t)test_rand_range(s, 2, d->P == 3 ? 5 : 6);
	for (uint32_t q = 0; q < d->P; q++) {
		d->limit[q] = q + 1 == d->P ? test_rand_range(s, 12, 20)
		                            : test_rand_range(s, 3, 9);
		d->palign[q] = test_rand_range(s, 0, 3) ? 1 : 2;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		static const uint64_t al[] = {1, 1, 1, 2};
		d->size[i] = test_rand_range(s, 1, 5);
		d->align[i] = al[test_rand_range(s, 0, 3)];
		d->live[i] = 1;
		d->begin[i] = (int64_t)test_rand_range(s, 0, 4);
		d->end[i] = d->begin[i] + (int64_t)test_rand_range(s, 1, 3);
		/* from a random first pool on to the last, or one pool */
		uint32_t first = (uint32_t)test_rand_range(s, 0, d->P - 1);
		uint32_t last = test_rand_range(s, 0, 5) ? d->P - 1 : first;
		for (uint32_t q = first; q <= last; q++)
			d->cand[i][d->ncand[i]++] = q;
	}
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (test_rand_range(s, 0, 99) < 30)
				d->edge[a][b] = d->edge[b][a] = 1;
	for (uint32_t i = 0; i < d->n; i++) {
		if (test_rand_range(s, 0, 11))
			continue;
		fix_at_random(d, i, d->cand[i][0], s);
	}
}

static void (*gen_fn)(desc *d, uint64_t *s) = generate;

/* `cases` random problems from `seed`, each checked with exact under the
 * knob knobs[case % nknobs] (none when nknobs is 0), tallied in st. */
static void sweep(usmp_registry *r, uint64_t seed, uint64_t cases,
                  const char *const *knobs, uint64_t nknobs, stats *st)
{
	uint64_t s = seed;
	for (uint64_t c = 0; c < cases; c++) {
		desc d;
		gen_fn(&d, &s);
		usmp_problem *p = build(&d, &s);
		oracle_knob = nknobs ? knobs[c % nknobs] : NULL;
		check_case(r, &d, p, seed, c, st);
		st->cases++;
		usmp_problem_destroy(p);
	}
	oracle_knob = NULL;
}

Test(exact_oracle, exact_agrees_with_an_exhaustive_search, .timeout = 600)
{
	int random_seed;
	uint64_t seed = test_env_u64("USMP_ORACLE_SEED", 20261203, &random_seed);
	uint64_t cases = test_env_u64("USMP_ORACLE_CASES", 20000, &(int){0});
	usmp_registry *r = test_registry(NULL);
	stats st = {0};
	if (random_seed)
		cr_log_info("USMP_ORACLE_SEED=%" PRIu64, seed);
	sweep(r, seed, cases, NULL, 0, &st);
	cr_log_info("seed %" PRIu64 ": %" PRIu64 " cases (%" PRIu64 " with two "
	            "pools, %" PRIu64 " with sharing rules), %" PRIu64
	            " infeasible, %" PRIu64 " planned, %" PRIu64 " at the oracle's "
	            "optimum, %" PRIu64 " claimed optimal, %" PRIu64 " with "
	            "spill, %" PRIu64 " undecided", seed, st.cases, st.multi_pool,
	            st.with_rules, st.infeasible, st.planned, st.lex_proven,
	            st.claimed, st.spill_cases, st.undecided);
	/* The generator must reach every kind of case. */
	cr_assert_gt(st.infeasible, cases / 50);
	cr_assert_gt(st.spill_cases, cases / 50);
	cr_assert_gt(st.with_rules, cases / 50);
	cr_assert_gt(st.multi_pool, cases / 4);
	cr_assert_gt(st.planned, cases / 2);
	usmp_registry_destroy(r);
}

/* The same sweep with one pool planned in parts at time cuts (split=1:
 * every part of two or more buffers re-planned by exact_window): plans
 * valid, "infeasible" only when the oracle finds nothing, and every claim
 * of optimality and every bound true against the oracle. */
Test(exact_oracle, parts_claims_agree_with_an_exhaustive_search, .timeout = 600)
{
	static const char *const knob[] = {"split=1"};
	uint64_t seed = 20261204, cases = 5000;
	usmp_registry *r = test_registry(NULL);
	stats st = {0};
	sweep(r, seed, cases, knob, 1, &st);
	cr_log_info("split=1: %" PRIu64 " cases, %" PRIu64 " planned, %" PRIu64
	            " at the oracle's optimum, %" PRIu64 " claimed optimal, %"
	            PRIu64 " undecided", st.cases, st.planned, st.lex_proven,
	            st.claimed, st.undecided);
	cr_assert_gt(st.planned, cases / 2);
	cr_assert_gt(st.claimed, cases / 4);
	usmp_registry_destroy(r);
}

/* The same sweep with several pools, candidates and edges planned in parts
 * (part=1..3: conflict components of at most that many buffers searched
 * alone, larger ones planned greedily and by windows of that many):
 * plans valid, "infeasible" only when the oracle finds nothing, every
 * claim and bound true against the oracle, and a claimed plan at the
 * oracle's (spill, size). USMP_ORACLE_SEED and USMP_ORACLE_CASES as above. */
Test(exact_oracle, split_claims_agree_with_an_exhaustive_search,
     .timeout = 600)
{
	static const char *const knobs[] = {"part=1", "part=2", "part=3"};
	int random_seed;
	uint64_t seed = test_env_u64("USMP_ORACLE_SEED", 20261205, &random_seed);
	uint64_t cases = test_env_u64("USMP_ORACLE_CASES", 6000, &(int){0});
	usmp_registry *r = test_registry(NULL);
	stats st = {0};
	if (random_seed)
		cr_log_info("USMP_ORACLE_SEED=%" PRIu64, seed);
	sweep(r, seed, cases, knobs, 3, &st);
	cr_log_info("part=1..3: %" PRIu64 " cases, %" PRIu64 " planned, %"
	            PRIu64 " at the oracle's optimum, %" PRIu64 " claimed "
	            "optimal, %" PRIu64 " undecided", st.cases, st.planned,
	            st.lex_proven, st.claimed, st.undecided);
	cr_assert_gt(st.planned, cases / 2);
	cr_assert_gt(st.claimed, cases / 4);
	cr_assert_gt(st.lex_proven, st.planned * 3 / 4);
	usmp_registry_destroy(r);
}

/* Several pools with edges (generate_edges): exact's plan at the oracle's
 * (spill, size) wherever no rule lets buffers share, every claim and
 * bound true, and most cases claimed optimal (through the relaxation
 * without edges or the joint search). USMP_ORACLE_SEED and
 * USMP_ORACLE_CASES as above. */
Test(exact_oracle, several_pools_with_edges_agree_with_an_exhaustive_search,
     .timeout = 600)
{
	int random_seed;
	uint64_t seed = test_env_u64("USMP_ORACLE_SEED", 20261205, &random_seed);
	uint64_t cases = test_env_u64("USMP_ORACLE_CASES", 4000, &(int){0});
	usmp_registry *r = test_registry(NULL);
	stats st = {0};
	if (random_seed)
		cr_log_info("USMP_ORACLE_SEED=%" PRIu64, seed);
	gen_fn = generate_edges;
	sweep(r, seed, cases, NULL, 0, &st);
	gen_fn = generate;
	cr_log_info("edges: %" PRIu64 " cases, %" PRIu64 " infeasible, %" PRIu64
	            " planned, %" PRIu64 " at the oracle's optimum, %" PRIu64
	            " claimed optimal, %" PRIu64 " with spill, %" PRIu64
	            " undecided", st.cases, st.infeasible, st.planned,
	            st.lex_proven, st.claimed, st.spill_cases, st.undecided);
	cr_assert_gt(st.spill_cases, cases / 10);
	cr_assert_gt(st.planned, cases / 2);
	cr_assert_gt(st.claimed, st.planned * 3 / 4);
	usmp_registry_destroy(r);
}

/* ---- the scope and the done-when problems ---------------------------------- */

static int plan_exact(usmp_registry *r, usmp_problem *p, usmp_plan **plan)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact"};
	int rc = usmp_plan_compute(r, p, &o, plan);
	cr_assert_not_null(*plan);
	return rc;
}

/* Three 64-byte buffers alive at once do not fit a 128-byte sram: some must
 * spill. With a conflict edge that needs the joint search of pools and
 * offsets, which takes at most 1000 buffers (more go in parts,
 * exact_split.c); without edges the least spill by load (every third
 * buffer) is planned pool by pool. */
static usmp_problem *must_spill(uint32_t n, bool edge)
{
	usmp_problem *p = usmp_problem_create();
	char name[16];
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 128, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32, NULL),
	             USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, i, i + 3), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	if (edge)
		cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), USMP_OK);
	return p;
}

/* Spill of must_spill's plan: the 64-byte buffers in dram. */
static uint64_t dram_bytes(usmp_plan *plan, uint32_t n)
{
	uint64_t spill = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		spill += q == 1 ? 64 : 0;
	}
	return spill;
}

Test(exact_oracle, more_than_1000_buffers_that_must_spill_are_planned)
{
	/* With the edge: beyond the joint search, one conflict component,
	 * planned greedily and by windows: the least spill, every third
	 * buffer (333 of 1001: no three consecutive ones may stay in sram),
	 * at 128 + 64 bytes: the host's lower bound, so optimal in size among
	 * plans spilling no more. */
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = must_spill(1001, true);
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(dram_bytes(plan, 1001), 333 * 64);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_eq(info.size, 192);
	cr_assert(info.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* Without the edge: planned, the same spill. */
	p = must_spill(1001, false);
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(dram_bytes(plan, 1001), 333 * 64);
	usmp_plan_destroy(plan);
	/* 200 are planned, and proven: every buffer fits in sram. */
	usmp_problem_destroy(p);
	char name[16];
	p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 4096, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32, NULL),
	             USMP_OK);
	for (uint32_t i = 0; i < 200; i++) {
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, i, i + 3), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.size, 192);
	cr_assert(pi.optimal);
	cr_assert_eq(usmp_plan_pool_size(plan, 1), 0);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* TVM's fan-out conflict graph (tests/test_tvm.c): greedy_by_size gives 250,
 * greedy_by_conflicts 320; 210 is the optimum (a-b-c-e is a clique of 180,
 * and the oracle above agrees on such graphs). */
Test(exact_oracle, tvm_fan_out_is_planned_at_210_proven)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"size_limit\": 1000}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 10},"
		" {\"name\": \"b\", \"size\": 20}, {\"name\": \"c\", \"size\": 100},"
		" {\"name\": \"d\", \"size\": 40}, {\"name\": \"e\", \"size\": 50},"
		" {\"name\": \"f\", \"size\": 60}, {\"name\": \"g\", \"size\": 70}],"
		" \"conflicts\": [[\"a\", \"b\"], [\"a\", \"c\"], [\"b\", \"c\"],"
		" [\"b\", \"e\"], [\"c\", \"e\"], [\"c\", \"d\"], [\"b\", \"d\"],"
		" [\"d\", \"f\"], [\"d\", \"e\"], [\"e\", \"f\"], [\"f\", \"g\"]]}", "case.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.size, 210);
	cr_assert_eq(pi.proven_bound, 210);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	/* With a limit of 209 no plan exists, and exact says so. */
	usmp_problem_destroy(p);
	p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"size_limit\": 209}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 10},"
		" {\"name\": \"b\", \"size\": 20}, {\"name\": \"c\", \"size\": 100},"
		" {\"name\": \"d\", \"size\": 40}, {\"name\": \"e\", \"size\": 50},"
		" {\"name\": \"f\", \"size\": 60}, {\"name\": \"g\", \"size\": 70}],"
		" \"conflicts\": [[\"a\", \"b\"], [\"a\", \"c\"], [\"b\", \"c\"],"
		" [\"b\", \"e\"], [\"c\", \"e\"], [\"c\", \"d\"], [\"b\", \"d\"],"
		" [\"d\", \"f\"], [\"d\", \"e\"], [\"e\", \"f\"], [\"f\", \"g\"]]}", "case.json");
	cr_assert_eq(plan_exact(r, p, &plan), USMP_ERR_INFEASIBLE, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* The example board: an NPU part (one pool, in-place rules) and a Cortex-M
 * part (DTCM first, DRAM to spill to, fixed camera frames). Both proven;
 * the M55 part spills exactly pre.rgb, the one buffer DTCM cannot hold. */
Test(exact_oracle, board_example_is_proven_optimal)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	char path[4096];
	snprintf(path, sizeof path, "%s/examples/board_m55_u55.json",
	         test_source_root());
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	uint32_t parts = usmp_plan_part_count(plan);
	cr_assert_eq(parts, 2);
	for (uint32_t i = 0; i < parts; i++) {
		usmp_part_info pi = test_part(plan, i);
		cr_assert(pi.optimal, "part %u: size %" PRIu64 ", bound %" PRIu64, i,
		          pi.size, pi.proven_bound);
		cr_assert_eq(pi.size, i == 0 ? 1505280 : 1394440);
	}
	uint64_t spill = 0;
	for (uint32_t b = 0; b < usmp_problem_buffer_count(p); b++) {
		uint32_t q;
		uint64_t off;
		cr_assert_eq(usmp_plan_placement(plan, b, &q, &off), USMP_OK);
		const char *n = usmp_problem_buffer_name(p, b);
		if (!strncmp(n, "pre.", 4) || !strncmp(n, "post.", 5))
			spill += strcmp(usmp_problem_pool_name(p, q), "dtcm") ? 1 : 0;
		if (!strcmp(n, "pre.rgb"))
			cr_assert_str_eq(usmp_problem_pool_name(p, q), "dram");
	}
	cr_assert_eq(spill, 1, "only pre.rgb leaves dtcm");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A rule that lets two buffers fit where conflicts cannot: exact finds the
 * shared plan (dst one byte below src), never one breaking the rule. */
Test(exact_oracle, a_rule_lets_two_buffers_fit_where_conflicts_cannot)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"size_limit\": 6}],"
		" \"buffers\": [{\"name\": \"src\", \"size\": 4, \"live\": [0, 2]},"
		" {\"name\": \"dst\", \"size\": 4, \"live\": [1, 3]}],"
		" \"conflicts\": [[\"src\", \"dst\"]],"
		" \"overlaps\": [{\"src\": \"src\", \"dst\": \"dst\","
		" \"max_lead\": -1}]}", "case.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
	uint32_t q;
	uint64_t os, od;
	cr_assert_eq(usmp_plan_placement(plan, 0, &q, &os), USMP_OK);
	cr_assert_eq(usmp_plan_placement(plan, 1, &q, &od), USMP_OK);
	cr_assert_eq(od + 1, os);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.size, 5);
	cr_assert_leq(pi.proven_bound, 5);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* One pool with live ranges: that search treats rules as conflicts, so when
 * it finds nothing it cannot say infeasible (src at 1, dst at 0 fits in 6).
 * Up to 1000 buffers the several-pool search then decides with the rules;
 * above, the answer is "cannot decide". */
static char *one_pool_rule_problem(uint32_t fillers)
{
	size_t cap = 512 + 64 * (size_t)fillers, at = 0;
	char *j = malloc(cap);
	cr_assert_not_null(j);
	at += (size_t)snprintf(j + at, cap - at,
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\", \"size_limit\": 6}],"
		" \"buffers\": [{\"name\": \"src\", \"size\": 4, \"live\": [0, 2]},"
		" {\"name\": \"dst\", \"size\": 4, \"live\": [1, 3]}");
	for (uint32_t i = 0; i < fillers; i++)
		at += (size_t)snprintf(j + at, cap - at, ", {\"name\": \"f%u\", "
		                       "\"size\": 1, \"live\": [%u, %u]}", i,
		                       10 + i, 11 + i);
	snprintf(j + at, cap - at, "], \"overlaps\": [{\"src\": \"src\", "
	         "\"dst\": \"dst\", \"max_lead\": -1}]}");
	return j;
}

Test(exact_oracle, one_pool_rules_as_conflicts_never_claim_infeasible)
{
	usmp_registry *r = test_registry(NULL);
	char *json = one_pool_rule_problem(0);
	usmp_problem *p = test_parse_json(json, "case.json");
	free(json);
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_exact(r, p, &plan), USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
	uint32_t q;
	uint64_t os, od;
	cr_assert_eq(usmp_plan_placement(plan, 0, &q, &os), USMP_OK);
	cr_assert_eq(usmp_plan_placement(plan, 1, &q, &od), USMP_OK);
	cr_assert_eq(od + 1, os);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 5);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	/* 1001 buffers: beyond the several-pool search. */
	json = one_pool_rule_problem(999);
	p = test_parse_json(json, "case.json");
	free(json);
	cr_assert_eq(plan_exact(r, p, &plan), USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan), "exact failed (unsupported): no plan "
	                 "fits with the overlap rules as plain conflicts, which proves nothing "
	                 "about the rules (one pool with live ranges)"), "%s",
	          usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
