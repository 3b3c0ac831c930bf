/* test_exact_rules_peak.c — exact where in-place rules sit at the memory
 * peak: the rules lower the proven optimum, checked against an oracle. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "chain_oracle.h"
#include "support.h"

static usmp_plan *plan_exact(usmp_registry *r, usmp_problem *p, int *rc)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact"};
	usmp_plan *plan = NULL;
	*rc = usmp_plan_compute(r, p, &o, &plan);
	cr_assert(plan, "no plan object");
	return plan;
}

/* (spill, size) of a plan: bytes outside pool 0 (every buffer lists pool 0
 * first), the pools' sizes summed. */
static void measure(const usmp_plan *plan, const usmp_problem *p,
                    const uint64_t *size, uint32_t n, uint32_t pools,
                    uint64_t *spill, uint64_t *total)
{
	(void)p;
	*spill = 0;
	*total = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		*spill += q != 0 ? size[i] : 0;
	}
	for (uint32_t q = 0; q < pools; q++)
		*total += usmp_plan_pool_size(plan, q);
}

/* One block of an NPU graph: the block input x, expand E, a ReLU6 A over E
 * (in place: rule E -> A, max_lead 0), a depthwise D over A (rule A -> D,
 * max_lead -32: it still needs 32 bytes of A behind its write position),
 * project P. Pools: sram (the given limit, alignment 16), dram (unbounded,
 * alignment 32); every buffer lists ["sram", "dram"]. */
static usmp_problem *npu_block(uint64_t sram, bool rules)
{
	static const struct {
		const char *name;
		uint64_t size;
		int64_t begin, end;
	} b[] = {{"x", 64, 0, 4}, {"E", 256, 1, 3}, {"A", 256, 2, 4},
	         {"D", 256, 3, 5}, {"P", 32, 4, 6}};
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "sram", sram, 16, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 32, NULL),
	             USMP_OK);
	for (uint32_t i = 0; i < 5; i++) {
		cr_assert_eq(usmp_problem_add_buffer(p, b[i].name, b[i].size, 16,
		                                     NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, b[i].begin, b[i].end),
		             USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	if (rules) {
		cr_assert_eq(usmp_problem_add_overlap(p, 1, 2, 0), USMP_OK,
		             "%s", usmp_problem_error(p));
		cr_assert_eq(usmp_problem_add_overlap(p, 2, 3, -32), USMP_OK,
		             "%s", usmp_problem_error(p));
	}
	return p;
}

/* Without rules the peak is x + E + A = x + A + D = 576 bytes. With them:
 * at step 3, x, A and D are alive and A and D share at most 256 - 32
 * bytes, so 352 is a bound, and x [0, 64), D [64, 320), A = E [96, 352)
 * reaches it. sram 1024: both plans stay in sram, 352 < 576. sram 512:
 * without rules something spills, with them nothing does. Each plan is
 * proven optimal and replays in usmp_plan_simulate. */
Test(exact_rules_peak, in_place_at_the_peak_lowers_the_proven_optimum)
{
	static const uint64_t size[] = {64, 256, 256, 256, 32};
	static const uint64_t sram[] = {1024, 512};
	usmp_registry *r = test_registry(NULL);
	for (int k = 0; k < 2; k++) {
		uint64_t spill[2], total[2];
		for (int with = 0; with < 2; with++) {
			usmp_problem *p = npu_block(sram[k], with);
			int rc;
			usmp_plan *plan = plan_exact(r, p, &rc);
			cr_assert_eq(rc, USMP_OK, "%s", usmp_plan_error(plan));
			cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
			cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK,
			             "%s", usmp_plan_error(plan));
			usmp_part_info pi = test_part(plan, 0);
			cr_assert(pi.optimal, "sram %" PRIu64 ", rules %d: not proven",
			          sram[k], with);
			measure(plan, p, size, 5, 2, &spill[with], &total[with]);
			usmp_plan_destroy(plan);
			usmp_problem_destroy(p);
		}
		cr_assert_eq(spill[1], 0);
		cr_assert_eq(total[1], 352);
		if (k == 0) {
			cr_assert_eq(spill[0], 0);
			cr_assert_eq(total[0], 576);
		} else {
			cr_assert_gt(spill[0], 0);
		}
	}
	usmp_registry_destroy(r);
}

/* A chain for the oracle (chain_oracle.c), alignment 1, one or two pools,
 * every buffer listing both: x, E, A (rule E -> A, lead 0), D (rule A -> D, lead -h), P, and maybe
 * an add over P (rule P -> add, lead 0) or a long-lived extra buffer; each
 * rule kept with probability 3/4. */
static void rgenerate(chain_desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	d->P = chain_rnd(s, 0, 1) ? 2 : 1;
	d->limit[0] = chain_rnd(s, 8, 18);
	d->limit[1] = 20;
	d->align[0] = d->align[1] = 1;
	static const int64_t be[6][2] = {{0, 4}, {1, 3}, {2, 4}, {3, 5},
	                                 {4, 6}, {5, 7}};
	d->n = 5 + (uint32_t)chain_rnd(s, 0, 1);
	for (uint32_t i = 0; i < d->n; i++) {
		d->size[i] = chain_rnd(s, 1, 7);
		d->begin[i] = be[i][0];
		d->end[i] = be[i][1];
	}
	d->size[2] = chain_rnd(s, 0, 1) ? d->size[1] : chain_rnd(s, 1, 7);
	bool extra = d->n == 6 && chain_rnd(s, 0, 2) == 0;
	if (extra) { /* a buffer alive through the block */
		d->begin[5] = 0;
		d->end[5] = 6;
		d->size[5] = chain_rnd(s, 1, 3);
	}
	static const uint32_t rs[3] = {1, 2, 4}, rd[3] = {2, 3, 5};
	for (int r = 0; r < 3; r++) {
		if (rd[r] >= d->n || (r == 2 && extra) || chain_rnd(s, 0, 3) == 0)
			continue;
		d->src[d->rule_count] = rs[r];
		d->dst[d->rule_count] = rd[r];
		d->lead[d->rule_count] = r == 1 ? -(int64_t)chain_rnd(s, 0, 3) : 0;
		d->rule_count++;
	}
}

/* Rules with max_lead <= 0 at the peak: exact finds the oracle's optimum
 * and proves it, says infeasible exactly when the oracle finds nothing,
 * and every plan verifies and replays; the rules lower the optimum in
 * many of the cases (which the sweep must reach). */
Test(exact_rules_peak, exact_meets_an_oracle_with_rules_at_the_peak,
     .timeout = 600)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t s = 20261203, cases = 600, lowered = 0, planned = 0, none = 0;
	for (uint64_t c = 0; c < cases; c++) {
		chain_desc d;
		rgenerate(&d, &s);
		chain_best with = chain_search(&d, true);
		chain_best without = chain_search(&d, false);
		if (with.found && (!without.found ||
		                   with.spill < without.spill ||
		                   (with.spill == without.spill &&
		                    with.total < without.total)))
			lowered++;
		usmp_problem *p = chain_build(&d);
		int rc;
		usmp_plan *plan = plan_exact(r, p, &rc);
		if (!with.found) {
			none++;
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "case %" PRIu64
			             ": the oracle finds no plan, exact says %s",
			             c, usmp_status_name(rc));
		} else {
			cr_assert_eq(rc, USMP_OK, "case %" PRIu64 ": oracle (%" PRIu64
			             ", %" PRIu64 "), exact says %s: %s", c,
			             with.spill, with.total,
			             usmp_status_name(rc), usmp_plan_error(plan));
			planned++;
			cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
			cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
			uint64_t spill, total;
			measure(plan, p, d.size, d.n, d.P, &spill, &total);
			cr_assert(spill == with.spill && total == with.total,
			          "case %" PRIu64 ": exact (%" PRIu64 ", %" PRIu64
			          "), the oracle (%" PRIu64 ", %" PRIu64 ")", c, spill,
			          total, with.spill, with.total);
			usmp_part_info pi = test_part(plan, 0);
			cr_assert(pi.optimal, "case %" PRIu64 ": not proven", c);
		}
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	cr_log_info("%" PRIu64 " cases: %" PRIu64 " planned, %" PRIu64
	            " infeasible, %" PRIu64 " where the rules lower the optimum",
	            cases, planned, none, lowered);
	cr_assert_gt(lowered, cases / 5);
	cr_assert_gt(planned, cases / 2);
	usmp_registry_destroy(r);
}
