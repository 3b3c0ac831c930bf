/* test_loose_ends2.c — three more loose ends: exact's own bound with
 * alignment, the verifier out of memory, and auto's overrun blame. */
#include "oracle.h"
#include "plugin_harness.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- exact's own bound: alignment ------------------------------------------ */

typedef int (*exact_fn)(const usmp_view *, const usmp_host *, usmp_placement *,
                        uint64_t, double, bool, uint32_t, uint32_t);

/* should_stop() says stop from its stop_after-th call on: exact asks once
 * per probe and every 1,024 search nodes, so this is a node budget. */
static void le2_host_init(th_host *x, const usmp_view *v, unsigned stop_after)
{
	th_host_init(x, v);
	x->stop_after = stop_after;
}

/* The 12 buffers of exact's "larger random problems" test (iteration 164):
 * a pool aligned to 2, eleven buffers alive in [1, 2) of 95 bytes in all,
 * 101 once each is rounded up to 2 (less the top one's rounding). */
static th_problem *aligned_twelve(uint64_t limit)
{
	static const int64_t rows[12][4] = {
		{1, 2, 1, 1}, {1, 2, 9, 2}, {0, 2, 3, 1}, {1, 2, 5, 2},
		{0, 2, 5, 1}, {0, 2, 1, 2}, {0, 2, 4, 4}, {1, 2, 20, 1},
		{0, 2, 32, 4}, {1, 2, 8, 2}, {0, 2, 7, 1}, {0, 1, 5, 1}};
	th_problem *p = th_new();
	th_pool(p, "p", limit, 2);
	for (int i = 0; i < 12; i++) {
		char name[8];
		snprintf(name, sizeof name, "b%d", i);
		th_buffer(p, name, (uint64_t)rows[i][2], (uint64_t)rows[i][3],
		          rows[i][0], rows[i][1]);
	}
	return p;
}

static int run_exact(const usmp_view *v, th_host *x, usmp_placement *out,
                     bool minimize)
{
	const usmp_algorithm *a = th_algorithm("exact", "exact");
	cr_assert_not_null(a);
	int rc = ((exact_fn)a->fn)(v, &x->host, out, 0, 0, minimize, 10000u,
	                           1000u);
	cr_assert_eq(x->live_allocs, 0, "exact leaked %ld blocks",
	             x->live_allocs);
	return rc;
}

/* The host's bound ignores alignment (95: the sizes alive at once); the
 * optimum is 101. Exact proved it only by search, tens of millions of
 * nodes (20 s); with its own bound it is proven within 20 should_stop
 * calls (under 20,000 nodes), where it used to stop unproven. */
Test(loose_ends2, exact_proves_a_weak_host_bound_problem_within_a_node_budget)
{
	th_problem *p = aligned_twelve(USMP_UNBOUNDED);
	usmp_view v = *th_view(p);
	v.lower_bound = 95;
	th_host x;
	le2_host_init(&x, &v, 20);
	usmp_placement *out = th_out(&v);
	cr_assert_eq(run_exact(&v, &x, out, true), USMP_OK, "%s", x.last_log);
	char why[256];
	cr_assert(th_check(&v, out, 0, why, sizeof why), "%s", why);
	cr_assert_eq(th_total(&v, out), 101);
	cr_assert(x.reported && x.optimal, "bound %llu, optimal %d after %u "
	          "should_stop calls", (unsigned long long)x.bound, x.optimal,
	          x.stop_calls);
	cr_assert_eq(x.bound, 101);
	cr_assert_lt(x.stop_calls, 20u);
	free(out);
	th_free(p);
}

/* One byte below the optimum: infeasible by the bound alone, no search
 * (it used to search 7 s, and stopped by the budget here). */
Test(loose_ends2, exact_says_infeasible_below_its_own_bound_without_search)
{
	th_problem *p = aligned_twelve(100);
	usmp_view v = *th_view(p);
	v.lower_bound = 95;
	th_host x;
	le2_host_init(&x, &v, 20);
	usmp_placement *out = th_out(&v);
	cr_assert_eq(run_exact(&v, &x, out, false), USMP_ERR_INFEASIBLE, "%s",
	             x.last_log);
	cr_assert(strstr(x.last_log, "exact: lower bound 101 exceeds the "
	                               "limit 100"), "%s", x.last_log);
	cr_assert_lt(x.stop_calls, 20u);
	free(out);
	th_free(p);
}

/* Two pools (each pool planned alone, its view's bound 0): the same
 * buffers in pool "a", one more in pool "b"; proven at 101 + 3. */
Test(loose_ends2, exact_bounds_each_pool_with_alignment)
{
	th_problem *p = aligned_twelve(USMP_UNBOUNDED);
	uint32_t b = th_pool(p, "b", USMP_UNBOUNDED, 1);
	uint32_t x3 = th_buffer(p, "x", 3, 1, 0, 2);
	th_candidates(p, x3, 1, &b);
	uint32_t a = 0;
	for (uint32_t i = 0; i < 12; i++)
		th_candidates(p, i, 1, &a);
	usmp_view v = *th_view(p);
	v.lower_bound = 98;
	th_host x;
	le2_host_init(&x, &v, 20);
	usmp_placement *out = th_out(&v);
	cr_assert_eq(run_exact(&v, &x, out, true), USMP_OK, "%s", x.last_log);
	char why[256];
	cr_assert(th_check(&v, out, 0, why, sizeof why), "%s", why);
	cr_assert_eq(th_total(&v, out), 104);
	cr_assert(x.reported && x.optimal && x.bound == 104, "bound %llu",
	          (unsigned long long)x.bound);
	free(out);
	th_free(p);
}

/* The joint search (several pools, candidate lists or conflict edges) used
 * the host's bound alone: the twelve buffers with a conflict edge (one
 * pool), or with a second pool every buffer may use (spill 0 is every
 * buffer in the first), searched 20 s unproven. With exact's own bounds
 * (every plan: 100 = 102 less one rounding per pool; plans without spill:
 * 101) both are proven within 20 should_stop calls. */
Test(loose_ends2, the_joint_search_proves_a_weak_host_bound_problem_too)
{
	for (int pools = 1; pools <= 2; pools++) {
		th_problem *p = aligned_twelve(USMP_UNBOUNDED);
		if (pools == 2)
			th_pool(p, "q", USMP_UNBOUNDED, 2);
		th_edge(p, 0, 1);
		usmp_view v = *th_view(p);
		v.lower_bound = 95;
		th_host x;
		le2_host_init(&x, &v, 20);
		usmp_placement *out = th_out(&v);
		cr_assert_eq(run_exact(&v, &x, out, true), USMP_OK, "%s",
		             x.last_log);
		char why[256];
		cr_assert(th_check(&v, out, 0, why, sizeof why), "%s", why);
		cr_assert_eq(th_total(&v, out), 101, "%d pools", pools);
		cr_assert(x.reported && x.optimal && x.bound == 101, "%d pools: "
		          "bound %llu, optimal %d (%s)", pools,
		          (unsigned long long)x.bound, x.optimal, x.last_log);
		cr_assert_lt(x.stop_calls, 20u);
		free(out);
		th_free(p);
	}
}

/* Buffers an overlap rule lets share stay out of the aligned sum: two
 * 5-byte buffers aligned to 4, the second written over the first in place,
 * fit in 5 bytes; counting both rounded up would claim 8 + 8 - 3 = 13. */
Test(loose_ends2, exact_own_bound_leaves_sharing_rule_partners_out)
{
	th_problem *p = th_new();
	th_pool(p, "p", USMP_UNBOUNDED, 1);
	th_buffer(p, "src", 5, 4, 0, 2);
	th_buffer(p, "dst", 5, 4, 1, 3);
	th_buffer(p, "c", 6, 2, 0, 3);
	th_rule(p, 0, 1, 0);
	usmp_view v = *th_view(p);
	v.lower_bound = 0;
	th_host x;
	le2_host_init(&x, &v, 0);
	usmp_placement *out = th_out(&v);
	cr_assert_eq(run_exact(&v, &x, out, true), USMP_OK, "%s", x.last_log);
	char why[256];
	cr_assert(th_check(&v, out, 0, why, sizeof why), "%s", why);
	/* The pair sharing [0, 5), c (6 bytes, aligned to 2) at 6: 12, the
	 * optimum (c below puts the pair at 8: 13). Counting the pair as two
	 * buffers rounded up to 2 would claim 6 + 6 + 6 - 1 = 17. */
	uint64_t peak = th_total(&v, out);
	cr_assert_eq(peak, 12);
	cr_assert(x.reported);
	cr_assert_leq(x.bound, peak);
	free(out);
	th_free(p);
}

/* Exact's bound against the exhaustive oracle (tests/oracle.c), with a
 * host bound of 0 so that only exact's own counts: random sizes,
 * alignments (the pools' too) and live ranges, sometimes overlap rules;
 * one pool, or two (candidate lists, sometimes a conflict edge: the joint
 * search). Its proven bound never exceeds the least size of the plans
 * spilling no more than its own, and "optimal" only at it. */
Test(loose_ends2, exact_own_bound_never_exceeds_the_oracle_optimum)
{
	uint64_t s = 20261204;
	int claimed = 0, raised = 0, two = 0;
	for (int c = 0; c < 400; c++) {
		desc d;
		memset(&d, 0, sizeof d);
		d.P = c % 2 ? 2 : 1;
		d.n = (uint32_t)test_rand_range(&s, 2, d.P == 1 ? 6 : 5);
		th_problem *p = th_new();
		for (uint32_t q = 0; q < d.P; q++) {
			d.limit[q] = UINT64_MAX;
			d.palign[q] = (uint64_t)1 << test_rand_range(&s, 0, 2);
			th_pool(p, q ? "p1" : "p0", USMP_UNBOUNDED, d.palign[q]);
		}
		two += d.P == 2;
		for (uint32_t i = 0; i < d.n; i++) {
			d.size[i] = test_rand_range(&s, 1, 12);
			d.align[i] = (uint64_t)1 << test_rand_range(&s, 0, 3);
			d.live[i] = 1;
			d.begin[i] = (int64_t)test_rand_range(&s, 0, 3);
			d.end[i] = d.begin[i] + (int64_t)test_rand_range(&s, 1, 3);
			char name[8];
			snprintf(name, sizeof name, "b%u", i);
			th_buffer(p, name, d.size[i], d.align[i], d.begin[i], d.end[i]);
			if (d.P == 2 && test_chance(&s, 50)) {
				/* one pool, or both the other way round */
				d.ncand[i] = (uint32_t)test_rand_range(&s, 1, 2);
				d.cand[i][0] = 1;
				d.cand[i][1] = 0;
				th_candidates(p, i, d.ncand[i], d.cand[i]);
			}
		}
		if (d.P == 2 && test_chance(&s, 30)) {
			d.edge[0][1] = d.edge[1][0] = 1;
			th_edge(p, 0, 1);
		}
		if (test_chance(&s, 40)) {
			uint32_t a = (uint32_t)test_rand_range(&s, 0, d.n - 1);
			uint32_t b = (a + 1) % d.n;
			int64_t lead = (int64_t)test_rand_range(&s, 0, 8) - 4;
			d.rules[d.rule_count++] = (orule){a, b, lead};
			th_rule(p, a, b, lead);
		}
		oracle_derive(&d);
		usmp_view v = *th_view(p);
		v.lower_bound = 0;
		th_host x;
		le2_host_init(&x, &v, 0);
		usmp_placement *out = th_out(&v);
		int rc = run_exact(&v, &x, out, true);
		cr_assert_eq(rc, USMP_OK, "case %d: %s", c, x.last_log);
		char why[256];
		cr_assert(th_check(&v, out, 0, why, sizeof why), "case %d: %s", c,
		          why);
		uint64_t spill = 0;
		for (uint32_t i = 0; i < d.n; i++)
			spill += out[i].pool != oracle_first_pool(&d, i) ? d.size[i] : 0;
		oracle o = oracle_run_all(&d, M_CAPPED, spill);
		cr_assert(o.found, "case %d: the oracle found no plan", c);
		cr_assert_leq(x.bound, o.best_total, "case %d: bound %llu above the "
		              "optimum %llu (spill at most %llu)", c,
		              (unsigned long long)x.bound,
		              (unsigned long long)o.best_total,
		              (unsigned long long)spill);
		if (x.optimal)
			cr_assert_eq(th_total(&v, out), o.best_total, "case %d", c);
		claimed += x.optimal;
		raised += x.reported && x.bound > 0;
		free(out);
		th_free(p);
	}
	cr_assert_gt(claimed, 250, "%d claims", claimed);
	cr_assert_gt(raised, 250, "%d bounds", raised);
	cr_assert_eq(two, 200);
}

/* ---- the verifier out of memory ---------------------------------------------- */

/* Pools, edges, a rule and live ranges: the verifier's every sweep. */
static const char verify_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, "
	"\"alignment\": 16}, {\"name\": \"dram\"}], \"buffers\": ["
	"{\"name\": \"a\", \"size\": 64, \"live\": [0, 3]},"
	"{\"name\": \"b\", \"size\": 48, \"live\": [2, 5]},"
	"{\"name\": \"c\", \"size\": 32, \"live\": [0, 5], \"pools\": [\"dram\"]},"
	"{\"name\": \"d\", \"size\": 16},"
	"{\"name\": \"e\", \"size\": 24, \"live\": [4, 6]}],"
	"\"conflicts\": [[\"d\", \"a\"]],"
	"\"overlaps\": [{\"src\": \"a\", \"dst\": \"b\", \"max_lead\": 0}]}";

/* tests/shim/fail_alloc.c, linked into this suite (not under the
 * sanitizers): the first n allocations from now on succeed, the later ones
 * fail; n < 0: all succeed again. */
void fail_alloc_arm(long n);

/* usmp_plan_verify out of memory said USMP_ERR_NOMEM, but a message it
 * could not allocate fell back to "invalid plan": every failing
 * allocation in turn gives USMP_ERR_NOMEM and "out of memory", never
 * USMP_ERR_INVALID_PLAN, until the verifier has all it needs. */
Test(loose_ends2, verify_out_of_memory_is_nomem_never_invalid_plan)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("the failing allocator replaces malloc: not under the sanitizers");
#else
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(verify_json, "v.json");
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	int nomem = 0, n;
	for (n = 0; n < 2000; n++) {
		fail_alloc_arm(n);
		int st = usmp_plan_verify(plan, p);
		fail_alloc_arm(-1);
		if (st == USMP_OK)
			break;
		cr_assert_eq(st, USMP_ERR_NOMEM, "after %d allocations: %s: %s", n,
		             usmp_status_name(st), usmp_plan_error(plan));
		cr_assert(strstr(usmp_plan_error(plan), "out of memory"),
		          "after %d allocations: %s", n, usmp_plan_error(plan));
		nomem++;
	}
	cr_assert_lt(n, 2000, "the verifier never had enough");
	cr_assert_gt(nomem, 0, "no allocation failed");
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
#endif
}

/* `usmp verify` printed "PLAN: invalid plan: verify: out of memory" and
 * exited 1, as for an invalid plan: it says it cannot verify and exits 5
 * (out of memory), for every failing allocation in turn; `simulate` too. */
Test(loose_ends2, cli_verify_out_of_memory_exits_5_not_invalid_plan)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("the failing allocator replaces malloc: not under the sanitizers");
#else
	char *pp = test_write_tmp(".json", verify_json);
	char *plan = test_tmpfile(".json"), *out = NULL;
	int st = test_usmp(&out, "plan '%s' -a first_fit -o '%s'", pp, plan);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	char *shim = test_fmt("%s/tests/shim/fail_alloc.so", test_build_root());
	int n, nomem = 0;
	for (n = 0; n < 400; n++) {
		char *cmd = test_fmt("LD_PRELOAD='%s' USMP_TEST_FAIL_ALLOC_AFTER=%d "
		                     "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' verify "
		                     "'%s' '%s'", shim, n, test_cli(), pp, plan);
		st = test_run(cmd, &out);
		free(cmd);
		if (st == 0) {
			cr_assert(strstr(out, "valid plan for"), "%s", out);
			free(out);
			break;
		}
		cr_assert_eq(st, 5, "after %d allocations: exit %d: %s", n, st, out);
		cr_assert(strstr(out, ": cannot verify: out of memory (the verifier "
		                      "could not finish; nothing is known about the "
		                      "plan)\n"), "%s", out);
		cr_assert_null(strstr(out, "invalid plan"), "%s", out);
		nomem++;
		free(out);
	}
	cr_assert_lt(n, 400);
	cr_assert_gt(nomem, 0);
	char *cmd = test_fmt("LD_PRELOAD='%s' USMP_TEST_FAIL_ALLOC_AFTER=0 "
	                     "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' simulate "
	                     "'%s' '%s'", shim, test_cli(), pp, plan);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 5, "exit %d: %s", st, out);
	cr_assert(strstr(out, "cannot replay"), "%s", out);
	free(out);
	free(cmd);
	free(shim);
	free(plan);
	free(pp);
#endif
}

/* ---- auto's overrun blame ------------------------------------------------------ */

/* The shipped plugins and the late volunteer. */
static char *with_late(void)
{
	return test_fmt("%s/plugins:%s/loose_ends2/late_volunteer.so",
	                test_build_root(), test_fixture_plugindir());
}

/* auto over its limit for a member that returned late (not killed: within
 * the member grace) blamed the first plan ("a first plan is always
 * finished"); the part names the member and the cause. The limit (1 s)
 * leaves auto's own members, microseconds on 19 buffers, time to finish
 * before it on a loaded machine, so le2_late alone returns past it. */
Test(loose_ends2, a_member_returning_late_is_named_not_the_first_plan)
{
	char *pp = test_write_tmp(".csv", test_crafted_csv);
	char *path = with_late();
	usmp_registry *r = test_registry(path);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 1.0,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_gt(info.time_ms, 1050.0);
	cr_assert_eq(info.overrun_cause, USMP_OVERRUN_LATE, "cause %u",
	             info.overrun_cause);
	cr_assert_str_eq(info.overrun_by, "le2_late");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	/* The command's summary says so. */
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s/loose_ends2/late_volunteer.so' "
	                     "USMP_ALGORITHM= '%s' plan '%s' --time-limit 1 "
	                     "--no-isolate -o /dev/null", test_fixture_plugindir(),
	                     test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, ": le2_late, a member of auto, returned after it "
	                      "(most of the time past it)\n"), "%s", out);
	cr_assert_null(strstr(out, "first plan is always finished"), "%s", out);
	free(out);
	free(cmd);
	free(path);
	free(pp);
}

/* A volunteer killed for time keeps its wording, now with its cause; a
 * plan on time has none. */
Test(loose_ends2, a_killed_volunteer_is_stopped_and_a_plan_on_time_has_no_cause)
{
	char *pp = test_write_tmp(".csv", test_crafted_csv);
	char *path = test_fmt("%s/plugins:%s/loose_ends/hang_volunteer.so",
	                      test_build_root(), test_fixture_plugindir());
	usmp_registry *r = test_registry(path);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, pp, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 0.1};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	usmp_part_info info = test_part(plan, 0);
	cr_assert_eq(info.overrun_cause, USMP_OVERRUN_STOPPED, "cause %u",
	             info.overrun_cause);
	cr_assert_str_eq(info.overrun_by, "le_hang");
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	/* Without volunteers, a generous limit: on time, no cause. */
	r = test_registry(NULL);
	o.time_limit = 30;
	plan = NULL;
	plan = test_plan_ok(r, p, &o);
	info = (usmp_part_info){.struct_size = sizeof info};
	cr_assert_eq(usmp_plan_part(plan, 0, &info), USMP_OK);
	cr_assert_eq(info.overrun_cause, USMP_OVERRUN_NONE);
	cr_assert_str_eq(info.overrun_by, "");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	free(path);
	free(pp);
}
