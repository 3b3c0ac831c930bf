/* test_exact_peak_oracle.c — exact on small two-block NPU chains with rules
 * at the peak, spill and fixed buffers, against an exhaustive oracle. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "chain_oracle.h"
#include "support.h"

/* Two blocks: x, E1, a scratch S1 (sram only), A1 (rule E1 -> A1, lead
 * 0), D1 (rule A1 -> D1, lead -h), P1 living into block two, E2, A2 (rule
 * E2 -> A2, lead 0), an add over P1 (rule P1 -> add, lead 0). x may be
 * fixed in the second pool. Each rule kept with probability 3/4. */
static void pgenerate(chain_desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	static const int64_t be[CHAIN_N][2] = {{0, 2}, {1, 3}, {1, 2}, {2, 4},
	                                       {3, 5}, {4, 8}, {5, 7}, {6, 8},
	                                       {7, 9}};
	d->n = CHAIN_N;
	d->P = chain_rnd(s, 0, 3) ? 2 : 1;
	d->limit[0] = chain_rnd(s, 7, 15);
	d->limit[1] = chain_rnd(s, 8, 12);
	d->align[0] = 1;
	d->align[1] = chain_rnd(s, 0, 1) ? 2 : 1;
	for (uint32_t i = 0; i < d->n; i++) {
		d->size[i] = chain_rnd(s, 1, 5);
		d->begin[i] = be[i][0];
		d->end[i] = be[i][1];
	}
	d->size[2] = chain_rnd(s, 1, 2);
	d->sram_only[2] = true;
	if (chain_rnd(s, 0, 1))
		d->size[3] = d->size[1];
	if (chain_rnd(s, 0, 1))
		d->size[7] = d->size[6];
	if (chain_rnd(s, 0, 1))
		d->size[8] = d->size[5];
	if (d->P == 2 && chain_rnd(s, 0, 1)) {
		d->fixed = true;
		d->fixed_off = d->align[1] * chain_rnd(s, 0, 1);
	}
	static const uint32_t rs[4] = {1, 3, 6, 5}, rd[4] = {3, 4, 7, 8};
	for (int r = 0; r < 4; r++) {
		if (chain_rnd(s, 0, 3) == 0)
			continue;
		d->src[d->rule_count] = rs[r];
		d->dst[d->rule_count] = rd[r];
		d->lead[d->rule_count] = r == 1 ? -(int64_t)chain_rnd(s, 0, 2) : 0;
		d->rule_count++;
	}
}

/* Fixed seed (USMP_PEAK_ORACLE_SEED, a number or "random", and
 * USMP_PEAK_ORACLE_CASES run other or longer sweeps; a failure names the
 * seed and case): exact's plan has the oracle's (spill, size) and is proven
 * optimal, exact says infeasible exactly when the oracle finds no plan,
 * and every plan verifies and replays. Enough cases spill, fit without
 * spill and have a fixed buffer for each of exact's paths to run. */
Test(exact_peak_oracle, two_block_chains_with_spill_meet_the_oracle,
     .timeout = 900)
{
	usmp_registry *r = test_registry(NULL);
	int random_seed = 0;
	uint64_t seed = test_env_u64("USMP_PEAK_ORACLE_SEED", 20261203163,
	                             &random_seed);
	uint64_t s = seed, planned = 0, spilled = 0, none = 0, fixed = 0;
#if defined(__SANITIZE_ADDRESS__)
	uint64_t fallback = 160; /* the sanitizers make the oracle ~8x slower */
#else
	uint64_t fallback = 400;
#endif
	uint64_t cases = test_env_u64("USMP_PEAK_ORACLE_CASES", fallback, NULL);
	for (uint64_t c = 0; c < cases; c++) {
		chain_desc d;
		pgenerate(&d, &s);
		chain_best o = chain_search(&d, true);
		usmp_problem *p = chain_build(&d);
		usmp_plan_options opt = {.struct_size = sizeof opt,
		                         .flags = USMP_PLAN_NO_ISOLATE,
		                         .algorithm = "exact"};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &opt, &plan);
		cr_assert(plan, "no plan object");
		if (!o.found) {
			none++;
			cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "seed %" PRIu64 " case %"
			             PRIu64 ": the oracle finds no plan, exact says %s",
			             seed, c, usmp_status_name(rc));
		} else {
			cr_assert_eq(rc, USMP_OK, "seed %" PRIu64 " case %" PRIu64
			             ": oracle (%" PRIu64 ", %" PRIu64 "), exact says "
			             "%s: %s", seed, c, o.spill, o.total,
			             usmp_status_name(rc), usmp_plan_error(plan));
			planned++;
			spilled += o.spill > 0;
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
			cr_assert(spill == o.spill && total == o.total,
			          "seed %" PRIu64 " case %" PRIu64 ": exact (%" PRIu64
			          ", %" PRIu64 "), the oracle (%" PRIu64 ", %" PRIu64
			          ")", seed, c, spill, total, o.spill,
			          o.total);
			usmp_part_info pi = test_part(plan, 0);
			cr_assert(pi.optimal, "seed %" PRIu64 " case %" PRIu64
			          ": not proven", seed, c);
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

/* bench/workloads/npu_spill.py --shape peak --sram 1m --buffers 50
 * --seeds 1 --rules (npu_peak_1m_50_0_rules.json): nine NPU blocks
 * (expand, scratch in sram only, ReLU6 in place over the expand output,
 * depthwise below it by a halo, project, every second block an add in
 * place over the projection), the network input and output fixed in dram.
 * Too many canonical plans to enumerate (the search alone ends unproven
 * 976 bytes above the bound); exact plans it at the bound where the rules
 * share most (the largest sum, over the times, of the live sram buffers'
 * sizes less what rule partners among them may share), so proves it. */
Test(exact_peak_oracle, a_peak_chain_is_proven_at_its_sharing_bound)
{
	static const struct {
		uint64_t size;
		int64_t begin, end;
		int kind; /* 0 sram then dram, 1 sram only, 2 fixed in dram */
		uint64_t off;
	} b[] = {
		{150528, 0, 2, 2, 0}, {142336, 1, 3, 0, 0}, {27184, 1, 2, 1, 0},
		{142336, 2, 4, 0, 0}, {162112, 3, 5, 0, 0}, {52048, 4, 10, 0, 0},
		{125536, 5, 7, 0, 0}, {21792, 5, 6, 1, 0}, {125536, 6, 8, 0, 0},
		{161136, 7, 9, 0, 0}, {39232, 8, 10, 0, 0}, {39232, 9, 11, 0, 0},
		{141312, 10, 12, 0, 0}, {19728, 10, 11, 1, 0}, {141312, 11, 13, 0, 0},
		{141344, 12, 14, 0, 0}, {41808, 13, 19, 0, 0}, {134224, 14, 16, 0, 0},
		{17520, 14, 15, 1, 0}, {134224, 15, 17, 0, 0}, {117568, 16, 18, 0, 0},
		{39248, 17, 19, 0, 0}, {39248, 18, 20, 0, 0}, {87760, 19, 21, 0, 0},
		{14864, 19, 20, 1, 0}, {87760, 20, 22, 0, 0}, {81072, 21, 23, 0, 0},
		{28336, 22, 28, 0, 0}, {90560, 23, 25, 0, 0}, {17584, 23, 24, 1, 0},
		{90560, 24, 26, 0, 0}, {126384, 25, 27, 0, 0}, {36640, 26, 28, 0, 0},
		{36640, 27, 29, 0, 0}, {66256, 28, 30, 0, 0}, {12256, 28, 29, 1, 0},
		{66256, 29, 31, 0, 0}, {87488, 30, 32, 0, 0}, {25888, 31, 37, 0, 0},
		{68320, 32, 34, 0, 0}, {11072, 32, 33, 1, 0}, {68320, 33, 35, 0, 0},
		{77632, 34, 36, 0, 0}, {24192, 35, 37, 0, 0}, {24192, 36, 38, 0, 0},
		{53680, 37, 39, 0, 0}, {9872, 37, 38, 1, 0}, {53680, 38, 40, 0, 0},
		{55808, 39, 41, 0, 0}, {18784, 40, 42, 0, 0}, {4000, 41, 42, 2, 150528}};
	static const struct {
		uint32_t src, dst;
		int64_t lead;
	} rl[] = {
		{1, 3, 0}, {3, 4, -5264}, {6, 8, 0}, {8, 9, -4640}, {10, 11, 0},
		{12, 14, 0}, {14, 15, -5232}, {17, 19, 0}, {19, 20, -4960}, {21, 22, 0},
		{23, 25, 0}, {25, 26, -6720}, {28, 30, 0}, {30, 31, -6944}, {32, 33, 0},
		{34, 36, 0}, {36, 37, -5072}, {39, 41, 0}, {41, 42, -5232}, {43, 44, 0},
		{45, 47, 0}, {47, 48, -4096}};
	uint32_t n = sizeof b / sizeof b[0], nr = sizeof rl / sizeof rl[0];
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1 << 20, 16, NULL),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 16 << 20, 32, NULL),
	             USMP_OK);
	uint64_t dram = 0;
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, b[i].size, 16, NULL),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, b[i].begin, b[i].end),
		             USMP_OK);
		if (b[i].kind == 2) {
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
			cr_assert_eq(usmp_problem_set_fixed(p, i, 1, b[i].off),
			             USMP_OK);
			if (b[i].off + b[i].size > dram)
				dram = b[i].off + b[i].size;
			continue;
		}
		cr_assert_eq(usmp_problem_add_candidate(p, i, 0), USMP_OK);
		if (b[i].kind == 0)
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
	}
	for (uint32_t r = 0; r < nr; r++)
		cr_assert_eq(usmp_problem_add_overlap(p, rl[r].src, rl[r].dst,
		                                      rl[r].lead), USMP_OK,
		             "%s", usmp_problem_error(p));
	/* the bound, computed here on its own */
	uint64_t bound = 0;
	for (int64_t x = 0; x <= b[n - 1].end; x++) {
		uint64_t sum = 0;
		for (uint32_t i = 0; i < n; i++)
			if (b[i].kind != 2 && b[i].begin <= x && x < b[i].end)
				sum += b[i].size;
		for (uint32_t r = 0; r < nr; r++) {
			uint32_t s = rl[r].src, d = rl[r].dst;
			if (b[s].begin <= x && x < b[s].end && b[d].begin <= x &&
			    x < b[d].end) {
				int64_t sh = (int64_t)b[d].size +
				             (rl[r].lead < 0 ? rl[r].lead : 0);
				sum -= (uint64_t)sh < b[s].size ? (uint64_t)sh : b[s].size;
			}
		}
		bound = sum > bound ? sum : bound;
	}
	cr_assert_eq(bound, 252416);
	usmp_registry *reg = test_registry(NULL);
	usmp_plan_options opt = {.struct_size = sizeof opt,
	                         .flags = USMP_PLAN_NO_ISOLATE,
	                         .algorithm = "exact"};
	usmp_plan *plan = test_plan_ok(reg, p, &opt);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q;
		uint64_t x;
		cr_assert_eq(usmp_plan_placement(plan, i, &q, &x), USMP_OK);
		cr_assert_eq(q, b[i].kind == 2 ? 1u : 0u, "buffer %u spilled", i);
	}
	cr_assert_eq(usmp_plan_pool_size(plan, 0), bound);
	cr_assert_eq(usmp_plan_pool_size(plan, 1), dram);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert(pi.optimal, "sram at the bound %" PRIu64 ": not proven",
	          bound);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(reg);
}
