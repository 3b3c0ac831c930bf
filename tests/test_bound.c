/* test_bound.c — lower bounds and groups: hand cases, the max-live-sum
 * brute force, and "never above a valid plan" with overlap rules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rule_schedule.h"
#include "support.h"

static void build_view(usmp_problem *p, const uint32_t *ids, uint32_t n,
                       usmp__view_store *s)
{
	char *msg = NULL;
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	int rc = usmp__view_build(p, ids, n, s, &msg);
	cr_assert_eq(rc, USMP_OK, "view: %s", msg ? msg : "?");
	usmp__free_msg(&msg);
}

static uint64_t bound_of(usmp_problem *p)
{
	usmp__view_store s;
	build_view(p, NULL, 0, &s);
	uint64_t b = s.view.lower_bound;
	cr_assert_eq(usmp__lower_bound(&s.view), b);
	usmp__view_finish(&s);
	return b;
}

static uint32_t buf(usmp_problem *p, uint64_t size, int live, int64_t begin,
                    int64_t end)
{
	char name[32];
	uint32_t id;
	snprintf(name, sizeof name, "b%u", usmp_problem_buffer_count(p));
	cr_assert_eq(usmp_problem_add_buffer(p, name, size, 1, &id), 0);
	if (live)
		cr_assert_eq(usmp_problem_set_live(p, id, begin, end), 0);
	return id;
}

Test(bound, empty_problem_is_zero)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(bound_of(p), 0);
	usmp_problem_destroy(p);
}

Test(bound, largest_total_alive_at_once)
{
	usmp_problem *p = usmp_problem_create();
	buf(p, 10, 1, 0, 2);
	buf(p, 20, 1, 1, 3);
	buf(p, 5, 1, 2, 4);
	cr_assert_eq(bound_of(p), 30);
	usmp_problem_destroy(p);
}

Test(bound, half_open_ranges_that_touch_do_not_add)
{
	usmp_problem *p = usmp_problem_create();
	buf(p, 10, 1, 0, 2);
	buf(p, 20, 1, 2, 4);
	buf(p, 7, 1, -5, 0);
	cr_assert_eq(bound_of(p), 20);
	usmp_problem_destroy(p);
}

Test(bound, buffer_without_live_range_counts_alone)
{
	usmp_problem *p = usmp_problem_create();
	buf(p, 10, 1, 0, 2);
	buf(p, 20, 1, 1, 3);
	buf(p, 100, 0, 0, 0);
	cr_assert_eq(bound_of(p), 100);
	usmp_problem_destroy(p);
}

Test(bound, explicit_edge_pair_counts_both)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t a = buf(p, 40, 0, 0, 0), b = buf(p, 70, 0, 0, 0);
	buf(p, 90, 1, 0, 1);
	cr_assert_eq(bound_of(p), 90);
	cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
	cr_assert_eq(bound_of(p), 110);
	/* With an in-place rule the pair may share all 40 bytes of a. */
	cr_assert_eq(usmp_problem_add_overlap(p, a, b, 0), 0);
	cr_assert_eq(bound_of(p), 90);
	usmp_problem_destroy(p);
}

Test(bound, clique_of_explicit_edges_counts_all_its_buffers)
{
	/* A conflict graph without live ranges (what TVM hands over): a, b, c,
	 * d conflict pairwise, e only with a. No valid plan is below 100. */
	usmp_problem *p = usmp_problem_create();
	uint32_t id[5];
	uint64_t size[5] = { 10, 20, 30, 40, 45 };
	for (int i = 0; i < 5; i++)
		id[i] = buf(p, size[i], 0, 0, 0);
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			cr_assert_eq(usmp_problem_add_conflict(p, id[i], id[j]), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, id[0], id[4]), 0);
	cr_assert_eq(bound_of(p), 100);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 100);
	/* a may sit inside b: 10 bytes less. */
	cr_assert_eq(usmp_problem_add_overlap(p, id[0], id[1], 0), 0);
	cr_assert_eq(bound_of(p), 90);
	/* Live ranges count inside a clique too: three buffers alive together,
	 * and a fourth without a range joined to each by an edge. */
	usmp_problem_destroy(p);
	p = usmp_problem_create();
	for (int i = 0; i < 3; i++)
		id[i] = buf(p, 10, 1, 0, 5);
	id[3] = buf(p, 50, 0, 0, 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(usmp_problem_add_conflict(p, id[3], id[i]), 0);
	cr_assert_eq(bound_of(p), 80);
	usmp_problem_destroy(p);
}

Test(bound, in_place_rule_subtracts_the_share)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t s = buf(p, 100, 1, 0, 2), d = buf(p, 100, 1, 1, 3);
	cr_assert_eq(bound_of(p), 200);
	cr_assert_eq(usmp_problem_add_overlap(p, s, d, 0), 0);
	cr_assert_eq(bound_of(p), 100);
	usmp_problem_destroy(p);
}

Test(bound, negative_lead_shares_less)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t s = buf(p, 100, 1, 0, 2), d = buf(p, 100, 1, 1, 3);
	cr_assert_eq(usmp_problem_add_overlap(p, s, d, -30), 0);
	cr_assert_eq(bound_of(p), 130); /* d at most 70 bytes into s */
	usmp_problem_destroy(p);

	/* A small src under a big dst: the lead only matters past the room. */
	p = usmp_problem_create();
	s = buf(p, 10, 1, 0, 2);
	d = buf(p, 100, 1, 1, 3);
	cr_assert_eq(usmp_problem_add_overlap(p, s, d, -30), 0);
	cr_assert_eq(bound_of(p), 100);
	usmp_problem_destroy(p);

	/* A lead beyond the dst's size shares nothing. */
	p = usmp_problem_create();
	s = buf(p, 100, 1, 0, 2);
	d = buf(p, 10, 1, 1, 3);
	cr_assert_eq(usmp_problem_add_overlap(p, s, d, -10), 0);
	cr_assert_eq(bound_of(p), 110);
	usmp_problem_destroy(p);
}

Test(bound, shared_source_is_charged_once_not_per_rule)
{
	/* X read in place by four outputs, all born at X's last read (step 9)
	 * and so conflicting with each other and with X: the outputs alone need
	 * 40 bytes, whatever X shares with each. */
	usmp_problem *p = usmp_problem_create();
	uint32_t x = buf(p, 10, 1, 0, 10);
	cr_assert_eq(bound_of(p), 10);
	for (int i = 0; i < 4; i++) {
		uint32_t d = buf(p, 10, 1, 9, 12 + i);
		cr_assert_eq(usmp_problem_add_overlap(p, x, d, 0), 0);
	}
	cr_assert_eq(bound_of(p), 40);
	/* Without the rules all five are alive at step 9. */
	usmp_problem_destroy(p);
	p = usmp_problem_create();
	buf(p, 10, 1, 0, 10);
	for (int i = 0; i < 4; i++)
		buf(p, 10, 1, 9, 12 + i);
	cr_assert_eq(bound_of(p), 50);
	usmp_problem_destroy(p);
}

Test(bound, sums_saturate_instead_of_wrapping)
{
	usmp_buffer_rec b[3];
	usmp_pool_rec pool = { "p", USMP_UNBOUNDED, 1 };
	uint32_t cand = 0;
	uint64_t start[4] = { 0, 0, 0, 0 };
	memset(b, 0, sizeof b);
	for (int i = 0; i < 3; i++) {
		b[i].name = "x";
		b[i].size = UINT64_C(1) << 63;
		b[i].alignment = 1;
		b[i].flags = USMP_BUFFER_LIVE;
		b[i].begin = 0;
		b[i].end = 1;
		b[i].candidate_count = 1;
	}
	usmp_view v = { .struct_size = sizeof v, .pool_count = 1, .buffer_count = 3,
	                .pools = &pool, .buffers = b, .candidates = &cand,
	                .conflict_start = start, .target = "" };
	cr_assert_eq(usmp__lower_bound(&v), UINT64_MAX);
	/* One rule sharing everything between two of them: 3 * 2^63 - 2^63,
	 * still past 2^64: saturated, and the exact arithmetic did not wrap. */
	usmp_overlap_rec r = { 0, 1, 0 };
	v.overlaps = &r;
	v.overlap_count = 1;
	cr_assert_eq(usmp__lower_bound(&v), UINT64_MAX);
	/* Two of them with the rule: exactly 2^63. */
	v.buffer_count = 2;
	cr_assert_eq(usmp__lower_bound(&v), UINT64_C(1) << 63);
}

/* ---- brute force ---------------------------------------------------------- */

typedef struct tiny {
	uint32_t n, pools;
	uint64_t size[8];
	int live[8];
	int64_t begin[8], end[8];
	int cand[8][2]; /* -1 = none; both -1 = every pool */
	int edge[8][8];
	int has_rule[8][8];
	int64_t lead[8][8]; /* rule src -> dst */
} tiny;

static bool tiny_conflict(const tiny *t, uint32_t a, uint32_t b)
{
	if (t->edge[a][b])
		return true;
	return t->live[a] && t->live[b] && t->begin[a] < t->end[b] &&
	       t->begin[b] < t->end[a];
}

static bool tiny_lead_ok(uint64_t os, uint64_t od, int64_t lead)
{
	return (int64_t)od <= (int64_t)os + lead; /* small numbers only */
}

static bool tiny_pair_ok(const tiny *t, uint32_t a, uint32_t b,
                         const uint32_t *pool, const uint64_t *off)
{
	if (pool[a] != pool[b] || !tiny_conflict(t, a, b))
		return true;
	if (off[a] >= off[b] + t->size[b] || off[b] >= off[a] + t->size[a])
		return true;
	if (t->has_rule[a][b] && tiny_lead_ok(off[a], off[b], t->lead[a][b]))
		return true;
	if (t->has_rule[b][a] && tiny_lead_ok(off[b], off[a], t->lead[b][a]))
		return true;
	return false;
}

static bool tiny_can_use(const tiny *t, uint32_t b, uint32_t q)
{
	if (t->cand[b][0] < 0 && t->cand[b][1] < 0)
		return true;
	return t->cand[b][0] == (int)q || t->cand[b][1] == (int)q;
}

typedef struct search {
	const tiny *t;
	uint32_t pool[8];
	uint64_t off[8];
	uint64_t best;
	uint32_t best_pool[8];
	uint64_t best_off[8];
	uint64_t span; /* offsets tried: 0 .. span */
} search;

static uint64_t plan_size(const tiny *t, const uint32_t *pool,
                          const uint64_t *off, uint32_t upto)
{
	uint64_t hw[2] = { 0, 0 };
	for (uint32_t i = 0; i < upto; i++)
		if (off[i] + t->size[i] > hw[pool[i]])
			hw[pool[i]] = off[i] + t->size[i];
	return hw[0] + hw[1];
}

static void dfs(search *s, uint32_t i)
{
	const tiny *t = s->t;
	if (plan_size(t, s->pool, s->off, i) >= s->best)
		return;
	if (i == t->n) {
		s->best = plan_size(t, s->pool, s->off, i);
		memcpy(s->best_pool, s->pool, sizeof s->pool);
		memcpy(s->best_off, s->off, sizeof s->off);
		return;
	}
	for (uint32_t q = 0; q < t->pools; q++) {
		if (!tiny_can_use(t, i, q))
			continue;
		for (uint64_t o = 0; o <= s->span; o++) {
			s->pool[i] = q;
			s->off[i] = o;
			bool ok = true;
			for (uint32_t j = 0; j < i && ok; j++)
				ok = tiny_pair_ok(t, i, j, s->pool, s->off);
			if (ok)
				dfs(s, i + 1);
		}
	}
}

static span tiny_span(const tiny *t, uint32_t b)
{
	span s = { t->begin[b], t->end[b], t->live[b] != 0, false, false };
	for (uint32_t j = 0; j < t->n; j++) {
		s.src |= t->has_rule[b][j] != 0;
		s.dst |= t->has_rule[j][b] != 0;
	}
	return s;
}

/* graph: no live ranges, dense explicit edges (a conflict graph). Rules
 * between live buffers come with a schedule that allows them (see
 * fit_rule), so each such pair is alive together at the src's last read. */
/* Whether the rules of t lead from a to b (a rule b -> a would close a
 * cycle). */
static int tiny_reaches(const tiny *t, uint32_t a, uint32_t b)
{
	int seen[8] = {0};
	uint32_t stack[64], top = 0;
	stack[top++] = a;
	seen[a] = 1;
	while (top) {
		uint32_t x = stack[--top];
		if (x == b)
			return 1;
		for (uint32_t y = 0; y < t->n; y++)
			if (t->has_rule[x][y] && !seen[y]) {
				seen[y] = 1;
				stack[top++] = y;
			}
	}
	return 0;
}

static void tiny_random(tiny *t, uint64_t *rs, uint32_t max_n, int graph)
{
	memset(t, 0, sizeof *t);
	t->n = (uint32_t)test_rand_range(rs, 1, max_n);
	t->pools = (uint32_t)test_rand_range(rs, 1, 2);
	for (uint32_t i = 0; i < t->n; i++) {
		t->size[i] = test_rand_range(rs, 1, 5);
		t->live[i] = !graph && test_rand(rs) % 6 != 0;
		t->begin[i] = (int64_t)test_rand_range(rs, 0, 4);
		t->end[i] = t->begin[i] + (int64_t)test_rand_range(rs, 1, 4);
		t->cand[i][0] = t->cand[i][1] = -1;
		if (t->pools == 2 && test_rand(rs) % 3 == 0)
			t->cand[i][0] = (int)test_rand_range(rs, 0, 1);
	}
	for (uint32_t a = 0; a < t->n; a++)
		for (uint32_t b = 0; b < t->n; b++) {
			if (a == b)
				continue;
			if (a < b && test_rand(rs) % (graph ? 2 : 8) == 0)
				t->edge[a][b] = t->edge[b][a] = 1;
			if (test_rand(rs) % 3 == 0) {
				span sa = tiny_span(t, a), sb = tiny_span(t, b);
				int64_t lead = (int64_t)test_rand_range(rs, 0, 8) - 5;
				if (tiny_reaches(t, b, a) || !fit_rule(&sa, &sb))
					continue; /* a cycle of rules is refused */
				t->begin[a] = sa.begin;
				t->end[a] = sa.end;
				t->begin[b] = sb.begin;
				t->end[b] = sb.end;
				t->has_rule[a][b] = 1;
				t->lead[a][b] = lead;
			}
		}
}

static usmp_problem *tiny_problem(const tiny *t)
{
	usmp_problem *p = usmp_problem_create();
	for (uint32_t q = 0; q < t->pools; q++)
		cr_assert_eq(usmp_problem_add_pool(p, q ? "q1" : "q0", USMP_UNBOUNDED,
		                                   1, NULL), 0);
	for (uint32_t i = 0; i < t->n; i++) {
		buf(p, t->size[i], t->live[i], t->begin[i], t->end[i]);
		if (t->cand[i][0] >= 0)
			cr_assert_eq(usmp_problem_add_candidate(p, i, (uint32_t)t->cand[i][0]), 0);
	}
	for (uint32_t a = 0; a < t->n; a++)
		for (uint32_t b = 0; b < t->n; b++) {
			if (a < b && t->edge[a][b])
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
			if (t->has_rule[a][b])
				cr_assert_eq(usmp_problem_add_overlap(p, a, b, t->lead[a][b]), 0);
		}
	return p;
}

Test(bound, never_above_the_optimum_of_tiny_problems_with_rules)
{
	uint64_t rs = 11;
	int tight = 0, shared = 0;
	for (int round = 0; round < 300; round++) {
		tiny t;
		tiny_random(&t, &rs, round % 3 ? 5 : 6, round % 3 == 0);
		usmp_problem *p = tiny_problem(&t);
		for (uint32_t a = 0; a < t.n; a++)
			for (uint32_t b = 0; b < t.n; b++)
				shared += t.has_rule[a][b] && tiny_conflict(&t, a, b);
		usmp__view_store s;
		build_view(p, NULL, 0, &s);
		search se = { .t = &t, .best = UINT64_MAX, .span = 0 };
		for (uint32_t i = 0; i < t.n; i++)
			se.span += t.size[i];
		dfs(&se, 0);
		cr_assert_neq(se.best, UINT64_MAX);
		cr_assert_leq(s.view.lower_bound, se.best,
		              "round %d: bound %lu above the optimum %lu", round,
		              (unsigned long)s.view.lower_bound, (unsigned long)se.best);
		tight += s.view.lower_bound == se.best;
		/* The verifier accepts the optimum the brute force found. */
		usmp_placement pl[8];
		for (uint32_t i = 0; i < t.n; i++) {
			pl[i].pool = se.best_pool[i];
			pl[i].reserved = 0;
			pl[i].offset = se.best_off[i];
		}
		char *msg = NULL;
		cr_assert_eq(usmp__verify(&s.view, pl, &msg), USMP_OK, "round %d: %s",
		             round, msg ? msg : "");
		usmp__free_msg(&msg);
		usmp__view_finish(&s);
		usmp_problem_destroy(p);
	}
	/* The bound is no token gesture: it is tight on most tiny problems. */
	cr_assert_geq(tight, 150, "tight on only %d of 300", tight);
	/* And the rules were put to work: many join conflicting buffers. */
	cr_assert_geq(shared, 450, "only %d rules join conflicting buffers", shared);
}

Test(bound, equals_max_live_sum_without_rules_or_edges)
{
	uint64_t rs = 12;
	for (int round = 0; round < 300; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t n = (uint32_t)test_rand_range(&rs, 0, 80);
		uint64_t size[80];
		int64_t be[80], en[80];
		int live[80];
		for (uint32_t i = 0; i < n; i++) {
			size[i] = test_rand_range(&rs, 1, 1000);
			live[i] = test_rand(&rs) % 5 != 0;
			be[i] = (int64_t)test_rand_range(&rs, 0, 30) - 10;
			en[i] = be[i] + (int64_t)test_rand_range(&rs, 1, 10);
			buf(p, size[i], live[i], be[i], en[i]);
		}
		uint64_t want = 0;
		for (uint32_t i = 0; i < n; i++)
			if (size[i] > want)
				want = size[i];
		for (int64_t t = -10; t < 40; t++) {
			uint64_t sum = 0;
			for (uint32_t i = 0; i < n; i++)
				if (live[i] && be[i] <= t && t < en[i])
					sum += size[i];
			if (sum > want)
				want = sum;
		}
		cr_assert_eq(bound_of(p), want, "round %d", round);
		usmp_problem_destroy(p);
	}
}

/* A valid plan by first fit with overlap rules: buffers in order, each at
 * the lowest candidate offset (0, the end of a placed buffer, or where a
 * rule partner allows sharing) that clashes with nothing placed. */
Test(bound, never_above_a_first_fit_plan_with_rules)
{
	uint64_t rs = 13;
	int shared = 0;
	for (int round = 0; round < 200; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t n = (uint32_t)test_rand_range(&rs, 1, 40);
		for (uint32_t i = 0; i < n; i++) {
			int64_t b = (int64_t)test_rand_range(&rs, 0, 20);
			buf(p, test_rand_range(&rs, 1, 64), test_rand(&rs) % 8 != 0, b,
			    b + (int64_t)test_rand_range(&rs, 1, 6));
		}
		/* A chain of streaming ops: i + 1 is born at i's last read. */
		for (uint32_t i = 0; i + 1 < n; i++)
			if (test_rand(&rs) % 2) {
				cr_assert(add_fitting_rule(
					p, i, i + 1, (int64_t)test_rand_range(&rs, 0, 40) - 20));
				shared += rule_pair_live_together(p, i, i + 1);
			}
		for (uint32_t e = 0; e < n / 4; e++) {
			uint32_t a = (uint32_t)test_rand_range(&rs, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(&rs, 0, n - 1);
			if (a != b)
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
		}
		usmp__view_store s;
		build_view(p, NULL, 0, &s);
		const usmp_view *v = &s.view;
		usmp_placement *pl = calloc(n, sizeof *pl);
		uint64_t *cands = malloc((3 * (size_t)n + 1) * sizeof *cands);
		uint64_t high = 0;
		for (uint32_t i = 0; i < n; i++) {
			size_t nc = 0;
			cands[nc++] = 0;
			for (uint32_t j = 0; j < i; j++) {
				cands[nc++] = pl[j].offset + v->buffers[j].size;
				for (uint64_t r = 0; r < v->overlap_count; r++) {
					const usmp_overlap_rec *o = &v->overlaps[r];
					int64_t at = -1;
					if (o->src == j && o->dst == i)
						at = (int64_t)pl[j].offset + o->max_lead;
					if (o->dst == j && o->src == i)
						at = (int64_t)pl[j].offset - o->max_lead;
					if (at >= 0)
						cands[nc++] = (uint64_t)at;
				}
			}
			uint64_t best = UINT64_MAX;
			for (size_t c = 0; c < nc; c++) {
				if (cands[c] >= best)
					continue;
				bool ok = true;
				for (uint32_t j = 0; j < i && ok; j++) {
					uint64_t oi = cands[c], oj = pl[j].offset;
					if (!usmp__conflict(v, i, j) ||
					    oi >= oj + v->buffers[j].size ||
					    oj >= oi + v->buffers[i].size)
						continue;
					ok = false;
					for (uint64_t r = 0; r < v->overlap_count; r++) {
						const usmp_overlap_rec *o = &v->overlaps[r];
						if (o->src == j && o->dst == i &&
						    (int64_t)oi <= (int64_t)oj + o->max_lead)
							ok = true;
						if (o->src == i && o->dst == j &&
						    (int64_t)oj <= (int64_t)oi + o->max_lead)
							ok = true;
					}
				}
				if (ok)
					best = cands[c];
			}
			cr_assert_neq(best, UINT64_MAX);
			pl[i].offset = best;
			if (best + v->buffers[i].size > high)
				high = best + v->buffers[i].size;
		}
		char *msg = NULL;
		cr_assert_eq(usmp__verify(v, pl, &msg), USMP_OK, "round %d: %s", round,
		             msg ? msg : "");
		cr_assert_leq(v->lower_bound, high, "round %d: bound %lu, plan %lu",
		              round, (unsigned long)v->lower_bound, (unsigned long)high);
		free(pl);
		free(cands);
		usmp__view_finish(&s);
		usmp_problem_destroy(p);
	}
	cr_assert_geq(shared, 1200, "only %d rules join buffers alive together",
	              shared);
}

/* ---- groups --------------------------------------------------------------- */

Test(groups, buffers_sharing_no_pool_form_separate_groups)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, unused, a, b, c;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1000, 1, &sram), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "unused", 1000, 1, &unused), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 1000, 1, &dram), 0);
	a = buf(p, 10, 1, 0, 2);
	b = buf(p, 20, 1, 1, 3);
	c = buf(p, 50, 1, 0, 3);
	cr_assert_eq(usmp_problem_add_candidate(p, a, sram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, b, sram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, c, dram), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	cr_assert_eq(p->group_count, 3);
	cr_assert_eq(p->pool_group[sram], 0);
	cr_assert_eq(p->pool_group[unused], 1);
	cr_assert_eq(p->pool_group[dram], 2);
	cr_assert_eq(p->buffer_group[a], 0);
	cr_assert_eq(p->buffer_group[b], 0);
	cr_assert_eq(p->buffer_group[c], 2);
	cr_assert_eq(p->group_bound[0], 30);
	cr_assert_eq(p->group_bound[1], 0);
	cr_assert_eq(p->group_bound[2], 50);
	/* A buffer bridging sram and dram joins the two groups. */
	uint32_t d = buf(p, 5, 1, 2, 3);
	cr_assert_eq(usmp_problem_add_candidate(p, d, dram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, d, sram), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0);
	cr_assert_eq(p->group_count, 2);
	cr_assert_eq(p->pool_group[sram], p->pool_group[dram]);
	cr_assert_neq(p->pool_group[unused], p->pool_group[sram]);
	cr_assert_eq(p->group_bound[p->pool_group[sram]], 80); /* t = 1: a, b, c */
	/* A buffer without candidates joins everything. */
	buf(p, 1, 0, 0, 0);
	cr_assert_eq(usmp__problem_prepare(p), 0);
	cr_assert_eq(p->group_count, 1);
	usmp_problem_destroy(p);
}

Test(groups, group_bound_equals_the_bound_of_the_group_view)
{
	uint64_t rs = 21;
	int shared = 0;
	for (int round = 0; round < 150; round++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t pools = (uint32_t)test_rand_range(&rs, 1, 5);
		for (uint32_t q = 0; q < pools; q++) {
			char name[16];
			snprintf(name, sizeof name, "q%u", q);
			cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED, 1, NULL), 0);
		}
		uint32_t n = (uint32_t)test_rand_range(&rs, 0, 50);
		for (uint32_t i = 0; i < n; i++) {
			int64_t b = (int64_t)test_rand_range(&rs, 0, 15);
			buf(p, test_rand_range(&rs, 1, 100), test_rand(&rs) % 6 != 0, b,
			    b + (int64_t)test_rand_range(&rs, 1, 5));
			if (test_rand(&rs) % 10)
				cr_assert_eq(usmp_problem_add_candidate(
					             p, i, (uint32_t)test_rand_range(&rs, 0, pools - 1)), 0);
		}
		for (uint32_t e = 0; n > 1 && e < n; e++) {
			uint32_t a = (uint32_t)test_rand_range(&rs, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(&rs, 0, n - 1);
			if (a == b)
				continue;
			if (e % 2)
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
			else if (add_fitting_rule(p, a, b,
			                          (int64_t)test_rand_range(&rs, 0, 100) - 50))
				shared += rule_pair_live_together(p, a, b);
		}
		cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
		uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
		for (uint32_t g = 0; g < p->group_count; g++) {
			uint32_t k = 0;
			for (uint32_t i = 0; i < n; i++)
				if (p->buffer_group[i] == g)
					ids[k++] = i;
			if (k == 0) {
				cr_assert_eq(p->group_bound[g], 0);
				continue;
			}
			usmp__view_store s;
			build_view(p, ids, k, &s);
			cr_assert_eq(s.view.lower_bound, p->group_bound[g],
			             "round %d group %u: view %lu, groups %lu", round, g,
			             (unsigned long)s.view.lower_bound,
			             (unsigned long)p->group_bound[g]);
			/* A group's view holds exactly the group's pools. */
			for (uint32_t q = 0; q < s.view.pool_count; q++)
				cr_assert_eq(p->pool_group[s.pool_map[q]], g);
			usmp__view_finish(&s);
		}
		free(ids);
		usmp_problem_destroy(p);
	}
	cr_assert_geq(shared, 800, "only %d rules join buffers alive together",
	              shared);
}

Test(bound, matches_the_published_minimalloc_lower_bounds)
{
	static const struct {
		const char *name;
		uint64_t bound;
	} cases[] = {
		{ "A", 1048576 }, { "B", 1048576 }, { "C", 1039360 }, { "D", 986112 },
		{ "E", 1048576 }, { "F", 1048576 }, { "G", 1048576 }, { "H", 1048576 },
		{ "I", 1048576 }, { "J", 989184 },  { "K", 1048576 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/tests/data/minimalloc/%s.1048576.csv",
		         test_source_root(), cases[i].name);
		usmp_problem *p = usmp_problem_create();
		cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_CSV, 1048576), 0,
		             "%s", usmp_problem_error(p));
		cr_assert_eq(usmp_problem_prepare_group_count(p), 1);
		uint64_t got = usmp_problem_prepare_group_bound(p, 0);
		cr_assert_eq(got, cases[i].bound, "%s: %lu", cases[i].name,
		             (unsigned long)got);
		cr_assert_eq(bound_of(p), cases[i].bound);
		usmp_problem_destroy(p);
	}
}
