/* test_exact_parts.c — exact on one pool in parts at time cuts: what the
 * parts claim holds against the whole search, and views beyond one search. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

static int plan_with(usmp_registry *r, usmp_problem *p, const char *knob,
                     usmp_plan **plan)
{
	const char *params[] = {knob};
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "exact",
	                       .params = knob ? params : NULL,
	                       .param_count = knob ? 1 : 0};
	*plan = NULL;
	int rc = usmp_plan_compute(r, p, &o, plan);
	cr_assert_not_null(*plan);
	return rc;
}

static usmp_part_info part0(const usmp_plan *plan)
{
	usmp_part_info pi = test_part(plan, 0);
	return pi;
}

/* 4-10 buffers on one unbounded pool, live ranges in clusters with gaps
 * (so time cuts exist), sizes in units of 4, sometimes an in-place rule
 * or a fixed buffer. */
static usmp_problem *random_problem(uint64_t *s)
{
	usmp_problem *p = usmp_problem_create();
	uint64_t palign = test_rand_range(s, 0, 1) ? 4 : 1;
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, palign, NULL),
	             USMP_OK);
	uint32_t n = (uint32_t)test_rand_range(s, 4, 10);
	char name[16];
	int64_t base = 0, end[10];
	for (uint32_t i = 0; i < n; i++) {
		if (test_rand_range(s, 0, 3) == 0)
			base += (int64_t)test_rand_range(s, 3, 6); /* a gap */
		int64_t b = base + (int64_t)test_rand_range(s, 0, 2);
		int64_t e = b + (int64_t)test_rand_range(s, 1, 3);
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name,
		             4 * test_rand_range(s, 1, 8),
		             test_rand_range(s, 0, 3) ? 1 : 8, NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, b, e), USMP_OK);
		end[i] = e;
	}
	if (test_rand_range(s, 0, 4) == 0)
		cr_assert_eq(usmp_problem_set_fixed(p, 0, 0,
		             8 * test_rand_range(s, 0, 4)), USMP_OK);
	if (test_rand_range(s, 0, 3) == 0) {
		/* in place: a + 1 is produced by a's last reader */
		uint32_t a = (uint32_t)test_rand_range(s, 1, n - 2);
		int64_t len = (int64_t)test_rand_range(s, 1, 3);
		cr_assert_eq(usmp_problem_set_live(p, a + 1, end[a] - 1,
		                                   end[a] - 1 + len), USMP_OK);
		cr_assert_eq(usmp_problem_add_overlap(p, a, a + 1, 0), USMP_OK);
	}
	return p;
}

Test(exact_parts, parts_claims_hold_against_the_whole_search, .timeout = 300)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t s = 20261203;
	unsigned compared = 0, claimed = 0, windowed_claims = 0;
	for (unsigned c = 0; c < 600; c++) {
		usmp_problem *p = random_problem(&s);
		usmp_plan *whole, *parts, *tiny;
		int rw = plan_with(r, p, NULL, &whole);
		/* split=2: parts of 1 or 2 buffers searched, larger ones go to
		 * exact_window; split=1: only single buffers searched. */
		int rp = plan_with(r, p, "split=2", &parts);
		int rt = plan_with(r, p, "split=1", &tiny);
		cr_assert_eq(rp, USMP_OK, "case %u: %s", c, usmp_plan_error(parts));
		cr_assert_eq(rt, USMP_OK, "case %u: %s", c, usmp_plan_error(tiny));
		cr_assert_eq(usmp_plan_verify(parts, p), USMP_OK, "case %u", c);
		cr_assert_eq(usmp_plan_verify(tiny, p), USMP_OK, "case %u", c);
		usmp_part_info pw = part0(whole), pp = part0(parts), pt = part0(tiny);
		cr_assert_eq(rw, USMP_OK, "case %u: %s", c, usmp_plan_error(whole));
		if (pw.optimal) {
			compared++;
			/* No plan beats the proven optimum; no bound passes it; a
			 * claim of optimality is the optimum. */
			cr_assert_geq(pp.size, pw.size, "case %u", c);
			cr_assert_geq(pt.size, pw.size, "case %u", c);
			cr_assert_leq(pp.proven_bound, pw.size, "case %u", c);
			cr_assert_leq(pt.proven_bound, pw.size, "case %u", c);
			if (pp.optimal)
				cr_assert_eq(pp.size, pw.size, "case %u", c);
			if (pt.optimal)
				cr_assert_eq(pt.size, pw.size, "case %u", c);
		}
		claimed += pp.optimal != 0;
		windowed_claims += pt.optimal != 0;
		usmp_plan_destroy(whole);
		usmp_plan_destroy(parts);
		usmp_plan_destroy(tiny);
		usmp_problem_destroy(p);
	}
	cr_log_info("%u compared with a proven whole search, %u parts plans "
	            "claimed optimal (split=2), %u (split=1)", compared, claimed,
	            windowed_claims);
	/* The sweep must reach the claims it checks. */
	cr_assert_gt(compared, 500);
	cr_assert_gt(claimed, 100);
	cr_assert_gt(windowed_claims, 50);
	usmp_registry_destroy(r);
}

/* 2010 clusters of five buffers alive together, one cluster larger: more
 * buffers than one search takes, every part searched and proven, so the
 * whole plan is proven at the largest cluster's total. */
Test(exact_parts, many_clusters_are_proven_part_by_part, .timeout = 120)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, 16, NULL),
	             USMP_OK);
	char name[24];
	uint32_t k = 0;
	for (uint32_t g = 0; g < 2010; g++)
		for (uint32_t j = 0; j < 5; j++, k++) {
			snprintf(name, sizeof name, "g%u.%u", g, j);
			uint64_t size = g == 777 && j == 2 ? 1024 : 16 * (j + 1);
			cr_assert_eq(usmp_problem_add_buffer(p, name, size, 16, NULL),
			             USMP_OK);
			cr_assert_eq(usmp_problem_set_live(p, k, 3 * g, 3 * g + 2),
			             USMP_OK);
		}
	usmp_plan *plan;
	cr_assert_eq(plan_with(r, p, NULL, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = part0(plan);
	cr_assert_eq(pi.buffer_count, 10050);
	cr_assert_eq(pi.size, 16 + 32 + 1024 + 64 + 80);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* One part of 10001 buffers with no time cut: beyond one search, so
 * exact_window plans it; claimed optimal only because the plan reaches
 * the host's lower bound (two 16-byte buffers alive at once). */
Test(exact_parts, one_part_beyond_the_search_goes_to_exact_window,
     .timeout = 120)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, 16, NULL),
	             USMP_OK);
	char name[24];
	for (uint32_t i = 0; i < 10001; i++) {
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 16, 16, NULL), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, i, i + 2), USMP_OK);
	}
	usmp_plan *plan;
	cr_assert_eq(plan_with(r, p, NULL, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	usmp_part_info pi = part0(plan);
	cr_assert_eq(pi.lower_bound, 32);
	cr_assert_eq(pi.size, 32);
	cr_assert(pi.optimal);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

Test(exact_parts, split_out_of_range_is_refused)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, 1, NULL),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, 0, 0, 1), USMP_OK);
	const char *bad[] = {"split=0", "split=10001"};
	for (int i = 0; i < 2; i++) {
		usmp_plan *plan;
		cr_assert_eq(plan_with(r, p, bad[i], &plan), USMP_ERR_INVALID);
		cr_assert(strstr(usmp_plan_error(plan), "split must be in 1..10000"),
		          "%s", usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
