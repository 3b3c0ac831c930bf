/* test_exact_peak_oracle.c — exact on small two-block NPU chains with rules
 * at the peak, spill and fixed buffers, against an exhaustive oracle. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

#define PN 9

/* Two blocks: x, E1, a scratch S1 (sram only), A1 (rule E1 -> A1, lead
 * 0), D1 (rule A1 -> D1, lead -h), P1 living into block two, E2, A2 (rule
 * E2 -> A2, lead 0), an add over P1 (rule P1 -> add, lead 0). x may be
 * fixed in the second pool. Each rule kept with probability 3/4. */
typedef struct pdesc {
	uint32_t n, P;
	uint64_t limit[2], align[2];
	uint64_t size[PN];
	int64_t begin[PN], end[PN];
	bool sram_only[PN];
	bool fixed;          /* x fixed in pool 1 at fixed_off */
	uint64_t fixed_off;
	int rule_count;
	uint32_t src[4], dst[4];
	int64_t lead[4];
} pdesc;

typedef struct poracle {
	const pdesc *d;
	uint32_t pool[PN];
	uint64_t off[PN];
	bool found;
	uint64_t best_spill, best_total;
} poracle;

static uint64_t rnd(uint64_t *s, uint64_t lo, uint64_t hi)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (*s >> 33) % (hi - lo + 1);
}

static void pgenerate(pdesc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	static const int64_t be[PN][2] = {{0, 2}, {1, 3}, {1, 2}, {2, 4},
	                                  {3, 5}, {4, 8}, {5, 7}, {6, 8},
	                                  {7, 9}};
	d->n = PN;
	d->P = rnd(s, 0, 3) ? 2 : 1;
	d->limit[0] = rnd(s, 7, 15);
	d->limit[1] = rnd(s, 8, 12);
	d->align[0] = 1;
	d->align[1] = rnd(s, 0, 1) ? 2 : 1;
	for (uint32_t i = 0; i < d->n; i++) {
		d->size[i] = rnd(s, 1, 5);
		d->begin[i] = be[i][0];
		d->end[i] = be[i][1];
	}
	d->size[2] = rnd(s, 1, 2);
	d->sram_only[2] = true;
	if (rnd(s, 0, 1))
		d->size[3] = d->size[1];
	if (rnd(s, 0, 1))
		d->size[7] = d->size[6];
	if (rnd(s, 0, 1))
		d->size[8] = d->size[5];
	if (d->P == 2 && rnd(s, 0, 1)) {
		d->fixed = true;
		d->fixed_off = d->align[1] * rnd(s, 0, 1);
	}
	static const uint32_t rs[4] = {1, 3, 6, 5}, rd[4] = {3, 4, 7, 8};
	for (int r = 0; r < 4; r++) {
		if (rnd(s, 0, 3) == 0)
			continue;
		d->src[d->rule_count] = rs[r];
		d->dst[d->rule_count] = rd[r];
		d->lead[d->rule_count] = r == 1 ? -(int64_t)rnd(s, 0, 2) : 0;
		d->rule_count++;
	}
}

static bool pair_ok(const poracle *o, uint32_t a, uint32_t b)
{
	const pdesc *d = o->d;
	if (o->pool[a] != o->pool[b] || d->begin[a] >= d->end[b] ||
	    d->begin[b] >= d->end[a])
		return true;
	uint64_t xa = o->off[a], xb = o->off[b];
	if (xa >= xb + d->size[b] || xb >= xa + d->size[a])
		return true;
	for (int r = 0; r < d->rule_count; r++) {
		if (d->src[r] == a && d->dst[r] == b &&
		    (int64_t)xb <= (int64_t)xa + d->lead[r])
			return true;
		if (d->src[r] == b && d->dst[r] == a &&
		    (int64_t)xa <= (int64_t)xb + d->lead[r])
			return true;
	}
	return false;
}

/* Every pool and aligned offset of each buffer in turn; spill is the bytes
 * outside pool 0 (every buffer but a fixed x lists pool 0 first). */
static void psearch(poracle *o, uint32_t i, uint64_t spill, uint64_t *hw)
{
	const pdesc *d = o->d;
	uint64_t total = 0;
	for (uint32_t q = 0; q < d->P; q++)
		total += hw[q];
	if (o->found && (spill > o->best_spill ||
	                 (spill == o->best_spill && total >= o->best_total)))
		return;
	if (i == d->n) {
		o->found = true;
		o->best_spill = spill;
		o->best_total = total;
		return;
	}
	bool fixed = i == 0 && d->fixed;
	for (uint32_t q = 0; q < d->P; q++) {
		if ((fixed && q != 1) || (d->sram_only[i] && q != 0))
			continue;
		for (uint64_t x = 0; x + d->size[i] <= d->limit[q];
		     x += d->align[q]) {
			if (fixed && x != d->fixed_off)
				continue;
			o->pool[i] = q;
			o->off[i] = x;
			bool ok = true;
			for (uint32_t c = 0; c < i && ok; c++)
				ok = pair_ok(o, c, i);
			if (!ok)
				continue;
			uint64_t save = hw[q];
			if (x + d->size[i] > hw[q])
				hw[q] = x + d->size[i];
			psearch(o, i + 1, spill + (q && !fixed ? d->size[i] : 0),
			        hw);
			hw[q] = save;
		}
	}
}

static usmp_problem *pbuild(const pdesc *d)
{
	usmp_problem *p = usmp_problem_create();
	char name[16];
	for (uint32_t q = 0; q < d->P; q++) {
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, d->limit[q],
		                                   d->align[q], NULL), USMP_OK);
	}
	for (uint32_t i = 0; i < d->n; i++) {
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, d->size[i], 1, NULL),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, d->begin[i], d->end[i]),
		             USMP_OK);
		if (i == 0 && d->fixed) {
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
			cr_assert_eq(usmp_problem_set_fixed(p, i, 1, d->fixed_off),
			             USMP_OK, "%s", usmp_problem_error(p));
			continue;
		}
		for (uint32_t q = 0; q < d->P; q++)
			if (q == 0 || !d->sram_only[i])
				cr_assert_eq(usmp_problem_add_candidate(p, i, q),
				             USMP_OK);
	}
	for (int r = 0; r < d->rule_count; r++)
		cr_assert_eq(usmp_problem_add_overlap(p, d->src[r], d->dst[r],
		                                      d->lead[r]), USMP_OK,
		             "%s", usmp_problem_error(p));
	return p;
}

/* Fixed seed: exact's plan has the oracle's (spill, size) and is proven
 * optimal, exact says infeasible exactly when the oracle finds no plan,
 * and every plan verifies and replays. Enough cases spill, fit without
 * spill and have a fixed buffer for each of exact's paths to run. */
Test(exact_peak_oracle, two_block_chains_with_spill_meet_the_oracle,
     .timeout = 900)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t s = 20261203163, cases = 400, planned = 0, spilled = 0;
	uint64_t none = 0, fixed = 0;
	for (uint64_t c = 0; c < cases; c++) {
		pdesc d;
		pgenerate(&d, &s);
		poracle o = {.d = &d};
		uint64_t hw[2] = {0, 0};
		psearch(&o, 0, 0, hw);
		usmp_problem *p = pbuild(&d);
		usmp_plan_options opt = {.struct_size = sizeof opt,
		                         .flags = USMP_PLAN_NO_ISOLATE,
		                         .algorithm = "exact"};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &opt, &plan);
		cr_assert(plan, "no plan object");
		if (!o.found) {
			none++;
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "case %" PRIu64
			             ": the oracle finds no plan, exact says %s",
			             c, usmp_status_name(rc));
		} else {
			cr_assert_eq(rc, USMP_OK, "case %" PRIu64 ": oracle (%" PRIu64
			             ", %" PRIu64 "), exact says %s: %s", c,
			             o.best_spill, o.best_total, usmp_status_name(rc),
			             usmp_plan_error(plan));
			planned++;
			spilled += o.best_spill > 0;
			fixed += d.fixed;
			cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
			cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
			uint64_t spill = 0, total = 0;
			for (uint32_t i = 0; i < d.n; i++) {
				uint32_t q;
				uint64_t x;
				cr_assert_eq(usmp_plan_placement(plan, i, &q, &x),
				             USMP_OK);
				spill += q != 0 && !(i == 0 && d.fixed) ? d.size[i] : 0;
			}
			for (uint32_t q = 0; q < d.P; q++)
				total += usmp_plan_pool_size(plan, q);
			cr_assert(spill == o.best_spill && total == o.best_total,
			          "case %" PRIu64 ": exact (%" PRIu64 ", %" PRIu64
			          "), the oracle (%" PRIu64 ", %" PRIu64 ")", c,
			          spill, total, o.best_spill, o.best_total);
			usmp_part_info pi = {.struct_size = sizeof pi};
			cr_assert_eq(usmp_plan_part(plan, 0, &pi), USMP_OK);
			cr_assert(pi.optimal, "case %" PRIu64 ": not proven", c);
		}
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	cr_log_info("%" PRIu64 " cases: %" PRIu64 " planned (%" PRIu64
	            " spill, %" PRIu64 " with a fixed buffer), %" PRIu64
	            " infeasible", cases, planned, spilled, fixed, none);
	cr_assert_gt(planned, cases / 2);
	cr_assert_gt(spilled, cases / 10);
	cr_assert_gt(planned - spilled, cases / 10);
	cr_assert_gt(fixed, cases / 10);
	usmp_registry_destroy(r);
}
