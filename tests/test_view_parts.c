/* test_view_parts.c — the view of each part of a many-part problem: the same
 * pools, candidates, edges and rules as a scan of the whole problem gives. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "internal.h"
#include "rule_schedule.h"
#include "support.h"

#define MAX_PART_POOLS 3
#define MAX_PART_BUFFERS 6

/* A problem of `parts` parts, each with its own 1-3 pools and 1-6 buffers
 * (candidates among its pools, some fixed apart from each other), conflict edges and overlap rules
 * within parts and across them, and repeated edges. */
static usmp_problem *many_parts(uint64_t *s, uint32_t parts)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t n = 0, pools = 0;
	for (uint32_t k = 0; k < parts; k++) {
		uint32_t np = (uint32_t)test_rand_range(s, 1, MAX_PART_POOLS);
		uint32_t nb = (uint32_t)test_rand_range(s, 1, MAX_PART_BUFFERS);
		uint64_t limit[MAX_PART_POOLS], align[MAX_PART_POOLS];
		char prefix[32];
		for (uint32_t q = 0; q < np; q++) {
			limit[q] = test_chance(s, 70) ? USMP_UNBOUNDED
			                              : test_rand_range(s, 1024, 4096);
			align[q] = test_chance(s, 80) ? 1 : 8;
		}
		snprintf(prefix, sizeof prefix, "k%u_", k);
		test_add_pools(p, prefix, np, limit, align);
		for (uint32_t i = 0; i < nb; i++, n++) {
			uint32_t cand[MAX_PART_POOLS], nc = 0;
			for (uint32_t q = 0; q < np; q++)
				if (!nc || test_chance(s, 40))
					cand[nc++] = pools + q;
			int64_t begin = (int64_t)test_rand_range(s, 0, 20);
			test_buffer b = {
				.size = test_rand_range(s, 1, 64),
				.align = test_chance(s, 80) ? 1 : 4,
				.live = test_chance(s, 90), .begin = begin,
				.end = begin + (int64_t)test_rand_range(s, 1, 6),
				.ncand = nc, .cand = cand,
				.fixed = test_chance(s, 5), .fixed_pool = cand[0],
				.fixed_offset = 128 * i};
			test_add_buffer(p, n, &b);
		}
		pools += np;
	}
	for (uint32_t e = 0; e < 2 * parts; e++) {
		uint32_t a = (uint32_t)test_rand_range(s, 0, n - 1);
		uint32_t b = test_chance(s, 50) && a + 3 < n
		                     ? a + (uint32_t)test_rand_range(s, 1, 3)
		                     : (uint32_t)test_rand_range(s, 0, n - 1);
		if (a == b)
			continue;
		cr_assert_eq(usmp_problem_add_conflict(p, a, b), USMP_OK);
		if (test_chance(s, 10)) /* the same edge again, either way round */
			cr_assert_eq(usmp_problem_add_conflict(p, b, a), USMP_OK);
	}
	for (uint32_t r = 0; r < parts; r++) {
		uint32_t a = (uint32_t)test_rand_range(s, 0, n - 1);
		uint32_t b = test_chance(s, 60) && a + 1 < n
		                     ? a + 1
		                     : (uint32_t)test_rand_range(s, 0, n - 1);
		if (a == b || p->buffers[a].flags & USMP_BUFFER_FIXED ||
		    p->buffers[b].flags & USMP_BUFFER_FIXED)
			continue;
		add_fitting_rule(p, a, b, (int64_t)test_rand_range(s, 0, 16) - 8);
	}
	return p;
}

/* The problem's groups as ascending buffer lists: ids[start[g]..start[g+1]). */
static void groups_of(usmp_problem *p, uint32_t **ids, uint32_t **start)
{
	cr_assert_eq(usmp__problem_prepare(p), USMP_OK, "%s",
	             usmp_problem_error(p));
	uint32_t G = p->group_count;
	*start = calloc(G + 1, sizeof **start);
	*ids = malloc((p->buffer_count + 1) * sizeof **ids);
	uint32_t *fill = calloc(G + 1, sizeof *fill);
	for (size_t b = 0; b < p->buffer_count; b++)
		(*start)[p->buffer_group[b] + 1]++;
	for (uint32_t g = 0; g < G; g++)
		(*start)[g + 1] += (*start)[g];
	for (size_t b = 0; b < p->buffer_count; b++) {
		uint32_t g = p->buffer_group[b];
		(*ids)[(*start)[g] + fill[g]++] = (uint32_t)b;
	}
	free(fill);
}

/* Position of x in the ascending list a[0..n), or UINT32_MAX. */
static uint32_t find(const uint32_t *a, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] == x)
			return i;
	return UINT32_MAX;
}

/* Whether problem buffers x and y are both in the part ids[0..n): then
 * *a and *b are their positions in it. */
static bool both_inside(const uint32_t *ids, uint32_t n, uint32_t x,
                        uint32_t y, uint32_t *a, uint32_t *b)
{
	*a = find(ids, n, x);
	*b = find(ids, n, y);
	return *a != UINT32_MAX && *b != UINT32_MAX;
}

/* Whether view buffer i has view buffer j among its neighbours. */
static bool adjacent(const usmp_view *v, uint32_t i, uint32_t j)
{
	for (uint64_t k = v->conflict_start[i]; k < v->conflict_start[i + 1]; k++)
		if (v->conflict_adj[k] == j)
			return true;
	return false;
}

/* The pools of the part from a scan of every pool of the problem. */
static uint32_t scan_pools(const usmp_problem *p, const uint32_t *ids,
                           uint32_t n, uint32_t *out)
{
	uint32_t k = 0;
	for (uint32_t q = 0; q < p->pool_count; q++) {
		bool used = false;
		for (uint32_t i = 0; i < n && !used; i++) {
			const usmp__buffer *b = &p->buffers[ids[i]];
			used = find(b->candidates, b->candidate_count, q) != UINT32_MAX ||
			       ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool == q);
		}
		if (used)
			out[k++] = q;
	}
	return k;
}

/* Check the view of part ids[0..n) against a scan of the whole problem. */
static void check_part(usmp_problem *p, const uint32_t *ids, uint32_t n)
{
	usmp__view_store vs;
	char *msg = NULL;
	cr_assert_eq(usmp__view_build(p, ids, n, &vs, &msg), USMP_OK, "%s", msg);
	const usmp_view *v = &vs.view;
	uint32_t *pools = malloc(p->pool_count * sizeof *pools);
	uint32_t np = scan_pools(p, ids, n, pools);
	cr_assert_eq(v->pool_count, np);
	for (uint32_t j = 0; j < np; j++)
		cr_assert_eq(vs.pool_map[j], pools[j]);
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = &p->buffers[ids[i]];
		const usmp_buffer_rec *r = &v->buffers[i];
		cr_assert_eq(vs.buffer_map[i], ids[i]);
		cr_assert_eq(r->candidate_count, b->candidate_count);
		for (uint32_t c = 0; c < b->candidate_count; c++)
			cr_assert_eq(pools[v->candidates[r->candidate_start + c]],
			             b->candidates[c]);
		if (b->flags & USMP_BUFFER_FIXED)
			cr_assert_eq(pools[r->fixed_pool], b->fixed_pool);
	}
	/* Edges: every problem edge inside the part, and nothing else. */
	uint64_t inside = 0;
	for (size_t e = 0; e < p->edge_count; e++) {
		uint32_t a, b;
		if (!both_inside(ids, n, p->edges[e].a, p->edges[e].b, &a, &b))
			continue;
		cr_assert(adjacent(v, a, b) && adjacent(v, b, a));
		inside++;
	}
	uint64_t listed = v->conflict_start[n];
	cr_assert_leq(listed, 2 * inside, "%llu neighbours from %llu edges",
	              (unsigned long long)listed, (unsigned long long)inside);
	for (uint32_t i = 0; i < n; i++)
		for (uint64_t k = v->conflict_start[i]; k < v->conflict_start[i + 1];
		     k++) {
			uint32_t j = v->conflict_adj[k];
			cr_assert(k == v->conflict_start[i] || j > v->conflict_adj[k - 1]);
			bool found = false;
			for (size_t e = 0; e < p->edge_count && !found; e++)
				found = (p->edges[e].a == ids[i] && p->edges[e].b == ids[j]) ||
				        (p->edges[e].b == ids[i] && p->edges[e].a == ids[j]);
			cr_assert(found, "edge %u-%u is no problem edge", i, j);
		}
	/* Rules: those inside the part, ascending by (src, dst). */
	size_t want = 0;
	for (size_t r = 0; r < p->overlap_count; r++) {
		uint32_t a, b;
		if (!both_inside(ids, n, p->overlaps[r].src, p->overlaps[r].dst, &a,
		                 &b))
			continue;
		want++;
		bool found = false;
		for (size_t k = 0; k < v->overlap_count && !found; k++)
			found = v->overlaps[k].src == a && v->overlaps[k].dst == b &&
			        v->overlaps[k].max_lead == p->overlaps[r].max_lead;
		cr_assert(found, "rule %zu missing from the part's view", r);
	}
	cr_assert_eq(v->overlap_count, want);
	for (size_t k = 1; k < v->overlap_count; k++) {
		const usmp_overlap_rec *a = &v->overlaps[k - 1], *b = &v->overlaps[k];
		cr_assert(a->src < b->src || (a->src == b->src && a->dst < b->dst));
	}
	free(pools);
	usmp__view_finish(&vs);
}

Test(view_parts, each_parts_view_holds_what_a_scan_of_the_problem_finds)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		uint64_t s = seed;
		usmp_problem *p = many_parts(&s, 300);
		uint32_t *ids, *start;
		groups_of(p, &ids, &start);
		cr_assert_gt(p->group_count, 100, "the parts merged: %u groups",
		             p->group_count);
		for (uint32_t g = 0; g < p->group_count; g++)
			check_part(p, ids + start[g], start[g + 1] - start[g]);
		free(ids);
		free(start);
		usmp_problem_destroy(p);
	}
}

/* Part ids[0..n) of p as a problem of its own: its pools, its buffers,
 * the edges and rules inside it. */
static usmp_problem *part_alone(const usmp_problem *p, const uint32_t *ids,
                                uint32_t n, uint32_t *pools, uint32_t *np)
{
	usmp_problem *q = usmp_problem_create();
	*np = scan_pools(p, ids, n, pools);
	for (uint32_t j = 0; j < *np; j++) {
		const usmp__pool *pool = &p->pools[pools[j]];
		test_add_pools(q, pool->name, 1, &pool->size_limit, &pool->alignment);
	}
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = &p->buffers[ids[i]];
		uint32_t cand[MAX_PART_POOLS];
		for (uint32_t c = 0; c < b->candidate_count; c++)
			cand[c] = find(pools, *np, b->candidates[c]);
		test_add_buffer(q, i, &(test_buffer){
			.size = b->size, .align = b->alignment,
			.live = (b->flags & USMP_BUFFER_LIVE) != 0, .begin = b->begin,
			.end = b->end, .ncand = b->candidate_count, .cand = cand,
			.fixed = (b->flags & USMP_BUFFER_FIXED) != 0,
			.fixed_pool = find(pools, *np, b->fixed_pool),
			.fixed_offset = b->fixed_offset});
	}
	uint32_t a, b;
	for (size_t e = 0; e < p->edge_count; e++)
		if (both_inside(ids, n, p->edges[e].a, p->edges[e].b, &a, &b))
			cr_assert_eq(usmp_problem_add_conflict(q, a, b), USMP_OK);
	for (size_t r = 0; r < p->overlap_count; r++) {
		if (both_inside(ids, n, p->overlaps[r].src, p->overlaps[r].dst, &a,
		                &b))
			cr_assert_eq(usmp_problem_add_overlap(q, a, b,
			                                      p->overlaps[r].max_lead),
			             USMP_OK, "%s", usmp_problem_error(q));
	}
	return q;
}

static usmp_plan *plan_with(usmp_registry *r, usmp_problem *p,
                            const char *algo)
{
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = algo,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	return plan;
}

/* Planned together or each part alone, first_fit places every buffer at
 * the same pool and offset: what the other parts hold never reaches a
 * part's view. */
Test(view_parts, many_parts_plan_as_each_part_alone)
{
	usmp_registry *r = test_registry(NULL);
	uint64_t s = 7;
	usmp_problem *p = many_parts(&s, 200);
	usmp_plan *all = plan_with(r, p, "first_fit");
	cr_assert_eq(usmp_plan_verify(all, p), USMP_OK, "%s",
	             usmp_plan_error(all));
	uint32_t *ids, *start, *pools = malloc(p->pool_count * sizeof *pools);
	groups_of(p, &ids, &start);
	cr_assert_gt(p->group_count, 60);
	for (uint32_t g = 0; g < p->group_count; g++) {
		uint32_t n = start[g + 1] - start[g], np;
		usmp_problem *q = part_alone(p, ids + start[g], n, pools, &np);
		usmp_plan *one = plan_with(r, q, "first_fit");
		for (uint32_t i = 0; i < n; i++) {
			uint32_t pa, pb;
			uint64_t oa, ob;
			cr_assert_eq(usmp_plan_placement(all, ids[start[g] + i], &pa,
			                                 &oa), USMP_OK);
			cr_assert_eq(usmp_plan_placement(one, i, &pb, &ob), USMP_OK);
			cr_assert_eq(pa, pools[pb], "part %u buffer %u", g, i);
			cr_assert_eq(oa, ob, "part %u buffer %u", g, i);
		}
		usmp_plan_destroy(one);
		usmp_problem_destroy(q);
	}
	free(pools);
	free(ids);
	free(start);
	usmp_plan_destroy(all);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
