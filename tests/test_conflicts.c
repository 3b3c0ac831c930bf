/* test_conflicts.c — the conflict relation: CSR building, degrees, neighbour
 * walks, the interval index and views, checked against brute force. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* A random prepared problem: n buffers over `pools` pools, live ranges in
 * [0, horizon) (some buffers without one), `edges` random explicit edges
 * (duplicates and time-overlapping pairs included), random candidates. */
static usmp_problem *random_problem(uint64_t *rs, uint32_t n, uint32_t pools,
                                    int64_t horizon, uint32_t edges)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	char name[32];
	for (uint32_t q = 0; q < pools; q++) {
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED, 1, NULL), 0);
	}
	for (uint32_t b = 0; b < n; b++) {
		snprintf(name, sizeof name, "b%u", b);
		cr_assert_eq(usmp_problem_add_buffer(p, name, test_rand_range(rs, 1, 64),
		                                     1, NULL), 0);
		if (test_rand(rs) % 8) {
			int64_t s = (int64_t)test_rand_range(rs, 0, (uint64_t)horizon - 1);
			int64_t len = (int64_t)test_rand_range(rs, 1, (uint64_t)horizon / 2 + 1);
			if (test_rand(rs) % 16 == 0)
				s = -s; /* negative times too */
			cr_assert_eq(usmp_problem_set_live(p, b, s, s + len), 0);
		}
		if (pools > 1 && test_rand(rs) % 2) {
			uint32_t first = (uint32_t)test_rand_range(rs, 0, pools - 1);
			cr_assert_eq(usmp_problem_add_candidate(p, b, first), 0);
			uint32_t second = (uint32_t)test_rand_range(rs, 0, pools - 1);
			if (second != first)
				cr_assert_eq(usmp_problem_add_candidate(p, b, second), 0);
		}
	}
	for (uint32_t e = 0; n > 1 && e < edges; e++) {
		uint32_t a = (uint32_t)test_rand_range(rs, 0, n - 1);
		uint32_t b = (uint32_t)test_rand_range(rs, 0, n - 1);
		if (a != b)
			cr_assert_eq(usmp_problem_add_conflict(p, a, b), 0);
	}
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	return p;
}

static void build_view(usmp_problem *p, const uint32_t *ids, uint32_t n,
                       usmp__view_store *s)
{
	char *msg = NULL;
	int rc = usmp__view_build(p, ids, n, s, &msg);
	cr_assert_eq(rc, USMP_OK, "view: %s", msg ? msg : "?");
	usmp__free_msg(&msg);
}

/* Brute force: does the view say a and b conflict? Edges straight from CSR
 * by linear scan, live ranges from the records. */
static bool brute_conflict(const usmp_view *v, uint32_t a, uint32_t b)
{
	if (a == b)
		return false;
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	if ((x->flags & y->flags & USMP_BUFFER_LIVE) && x->begin < y->end &&
	    y->begin < x->end)
		return true;
	for (uint64_t i = v->conflict_start[a]; i < v->conflict_start[a + 1]; i++)
		if (v->conflict_adj[i] == b)
			return true;
	return false;
}

typedef struct seen {
	uint32_t *count; /* visits per buffer */
	uint32_t total;
	uint32_t stop_after; /* 0 = never */
} seen;

static int record(void *arg, uint32_t other)
{
	seen *s = arg;
	s->count[other]++;
	s->total++;
	return s->stop_after && s->total == s->stop_after ? 42 : 0;
}

Test(csr, build_sorts_dedupes_and_mirrors)
{
	usmp__edge e[] = { { 1, 3 }, { 0, 3 }, { 1, 3 }, { 0, 1 }, { 2, 3 } };
	uint64_t start[5];
	uint32_t *adj = NULL;
	cr_assert_eq(usmp__csr_build(e, 5, 4, start, &adj), USMP_OK);
	uint64_t want_start[] = { 0, 2, 4, 5, 8 };
	uint32_t want_adj[] = { 1, 3, 0, 3, 3, 0, 1, 2 };
	for (int i = 0; i < 5; i++)
		cr_assert_eq(start[i], want_start[i], "start[%d] = %lu", i,
		             (unsigned long)start[i]);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(adj[i], want_adj[i], "adj[%d] = %u", i, adj[i]);
	free(adj);
}

Test(csr, build_rejects_self_loops_and_unknown_buffers)
{
	uint64_t start[4];
	uint32_t *adj = NULL;
	usmp__edge self[] = { { 1, 1 } };
	cr_assert_eq(usmp__csr_build(self, 1, 3, start, &adj), USMP_ERR_INVALID);
	cr_assert_null(adj);
	usmp__edge far[] = { { 0, 3 } };
	cr_assert_eq(usmp__csr_build(far, 1, 3, start, &adj), USMP_ERR_INVALID);
	cr_assert_null(adj);
	cr_assert_eq(usmp__csr_build(NULL, 0, 3, start, &adj), USMP_OK);
	cr_assert_eq(start[3], 0);
	free(adj);
}

Test(conflicts, degrees_match_brute_force_on_random_problems)
{
	uint64_t rs = 1;
	for (int round = 0; round < 400; round++) {
		uint32_t n = (uint32_t)test_rand_range(&rs, 0, 70);
		usmp_problem *p = random_problem(&rs, n, 1 + round % 3,
		                                 (int64_t)test_rand_range(&rs, 2, 40),
		                                 (uint32_t)test_rand_range(&rs, 0, 2 * n));
		usmp__view_store s;
		build_view(p, NULL, 0, &s);
		const usmp_view *v = &s.view;
		for (uint32_t a = 0; a < n; a++) {
			uint64_t want = 0;
			for (uint32_t b = 0; b < n; b++)
				want += brute_conflict(v, a, b);
			cr_assert_eq(v->degree[a], want,
			             "round %d buffer %u: degree %lu, brute force %lu",
			             round, a, (unsigned long)v->degree[a],
			             (unsigned long)want);
		}
		usmp__view_finish(&s);
		usmp_problem_destroy(p);
	}
}

Test(conflicts, neighbour_walk_visits_each_conflict_once)
{
	uint64_t rs = 2;
	for (int round = 0; round < 300; round++) {
		uint32_t n = (uint32_t)test_rand_range(&rs, 1, 60);
		usmp_problem *p = random_problem(&rs, n, 1,
		                                 (int64_t)test_rand_range(&rs, 2, 30),
		                                 (uint32_t)test_rand_range(&rs, 0, n));
		usmp__view_store s;
		build_view(p, NULL, 0, &s);
		const usmp_view *v = &s.view;
		usmp__interval_index ix;
		cr_assert_eq(usmp__interval_index_build(&ix, v), USMP_OK);
		uint32_t *count = calloc(n, sizeof *count);
		for (uint32_t a = 0; a < n; a++) {
			memset(count, 0, n * sizeof *count);
			seen sn = { count, 0, 0 };
			cr_assert_eq(usmp__for_each_neighbor(v, &ix, a, record, &sn), 0);
			for (uint32_t b = 0; b < n; b++) {
				uint32_t want = brute_conflict(v, a, b);
				cr_assert_eq(count[b], want,
				             "round %d: %u visited %u %u times, want %u",
				             round, a, b, count[b], want);
				cr_assert_eq(usmp__conflict(v, a, b), want);
			}
			cr_assert_eq(sn.total, v->degree[a]);
			/* The walk without an index agrees too. */
			memset(count, 0, n * sizeof *count);
			seen sn2 = { count, 0, 0 };
			cr_assert_eq(usmp__for_each_neighbor(v, NULL, a, record, &sn2), 0);
			cr_assert_eq(sn2.total, v->degree[a]);
		}
		free(count);
		usmp__interval_index_finish(&ix);
		usmp__view_finish(&s);
		usmp_problem_destroy(p);
	}
}

Test(conflicts, neighbour_walk_stops_at_the_first_nonzero_visit)
{
	usmp_problem *p = usmp_problem_create();
	for (uint32_t b = 0; b < 10; b++) {
		char name[8];
		snprintf(name, sizeof name, "b%u", b);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 4, 1, NULL), 0);
		cr_assert_eq(usmp_problem_set_live(p, b, 0, 5), 0);
	}
	cr_assert_eq(usmp__problem_prepare(p), 0);
	usmp__view_store s;
	build_view(p, NULL, 0, &s);
	usmp__interval_index ix;
	cr_assert_eq(usmp__interval_index_build(&ix, &s.view), USMP_OK);
	uint32_t count[10] = { 0 };
	seen sn = { count, 0, 3 };
	cr_assert_eq(usmp__for_each_neighbor(&s.view, &ix, 4, record, &sn), 42);
	cr_assert_eq(sn.total, 3);
	usmp__interval_index_finish(&ix);
	usmp__view_finish(&s);
	usmp_problem_destroy(p);
}

/* A view of bare live ranges (no edges, one pool), built by hand. */
static void hand_view(usmp_view *v, usmp_buffer_rec *buf, uint32_t n)
{
	static const usmp_pool_rec pool = { "p", USMP_UNBOUNDED, 1 };
	static const uint32_t cand = 0;
	memset(v, 0, sizeof *v);
	v->struct_size = sizeof *v;
	v->pool_count = 1;
	v->pools = &pool;
	v->buffer_count = n;
	v->buffers = buf;
	v->candidates = &cand;
	for (uint32_t i = 0; i < n; i++) {
		buf[i].size = 1;
		buf[i].alignment = 1;
		buf[i].candidate_count = 1;
	}
}

Test(interval_index, query_matches_brute_force_on_random_ranges)
{
	uint64_t rs = 4;
	for (int round = 0; round < 300; round++) {
		uint32_t n = (uint32_t)test_rand_range(&rs, 0, 200);
		usmp_buffer_rec *buf = calloc(n ? n : 1, sizeof *buf);
		usmp_view v;
		hand_view(&v, buf, n);
		int64_t horizon = (int64_t)test_rand_range(&rs, 1, 100);
		for (uint32_t i = 0; i < n; i++) {
			if (test_rand(&rs) % 10 == 0)
				continue; /* not live */
			buf[i].flags = USMP_BUFFER_LIVE;
			buf[i].begin = (int64_t)test_rand_range(&rs, 0, (uint64_t)horizon) - 10;
			/* A mix of very long and very short ranges. */
			uint64_t len = test_rand(&rs) % 4 == 0
			                       ? test_rand_range(&rs, 1, (uint64_t)horizon + 20)
			                       : test_rand_range(&rs, 1, 3);
			buf[i].end = buf[i].begin + (int64_t)len;
		}
		usmp__interval_index ix;
		cr_assert_eq(usmp__interval_index_build(&ix, &v), USMP_OK);
		uint32_t *count = calloc(n ? n : 1, sizeof *count);
		for (int q = 0; q < 30; q++) {
			int64_t qb = (int64_t)test_rand_range(&rs, 0, (uint64_t)horizon + 20) - 15;
			int64_t qe = qb + (int64_t)test_rand_range(&rs, 1, 8);
			memset(count, 0, (n ? n : 1) * sizeof *count);
			seen sn = { count, 0, 0 };
			cr_assert_eq(usmp__interval_index_query(&ix, qb, qe, record, &sn), 0);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t want = (buf[i].flags & USMP_BUFFER_LIVE) &&
				                buf[i].begin < qe && qb < buf[i].end;
				cr_assert_eq(count[i], want,
				             "round %d: [%ld,%ld) vs [%ld,%ld): %u visits",
				             round, (long)qb, (long)qe, (long)buf[i].begin,
				             (long)buf[i].end, count[i]);
			}
		}
		free(count);
		usmp__interval_index_finish(&ix);
		free(buf);
	}
}

Test(interval_index, one_long_range_before_many_short_ones_is_found_once)
{
	enum { N = 1000 };
	usmp_buffer_rec *buf = calloc(N, sizeof *buf);
	usmp_view v;
	hand_view(&v, buf, N);
	buf[0].flags = USMP_BUFFER_LIVE;
	buf[0].begin = 0;
	buf[0].end = 10 * N;
	for (uint32_t i = 1; i < N; i++) {
		buf[i].flags = USMP_BUFFER_LIVE;
		buf[i].begin = 10 * (int64_t)i;
		buf[i].end = 10 * (int64_t)i + 2;
	}
	usmp__interval_index ix;
	cr_assert_eq(usmp__interval_index_build(&ix, &v), USMP_OK);
	uint32_t count[N] = { 0 };
	seen sn = { count, 0, 0 };
	cr_assert_eq(usmp__interval_index_query(&ix, 5005, 5006, record, &sn), 0);
	cr_assert_eq(sn.total, 1, "got %u", sn.total);
	cr_assert_eq(count[0], 1);
	sn.total = 0;
	count[0] = 0;
	cr_assert_eq(usmp__interval_index_query(&ix, 5000, 5001, record, &sn), 0);
	cr_assert_eq(sn.total, 2);
	cr_assert_eq(count[0], 1);
	cr_assert_eq(count[500], 1);
	usmp__interval_index_finish(&ix);
	free(buf);
}

Test(sort, pairs_are_sorted_stably)
{
	uint64_t rs = 5;
	for (int round = 0; round < 50; round++) {
		size_t n = (size_t)test_rand_range(&rs, 0, 5000);
		uint64_t *k = malloc((n ? n : 1) * sizeof *k);
		uint32_t *v = malloc((n ? n : 1) * sizeof *v);
		for (size_t i = 0; i < n; i++) {
			k[i] = round % 2 ? test_rand(&rs) : test_rand(&rs) % 50;
			v[i] = (uint32_t)i;
		}
		uint64_t *orig = malloc((n ? n : 1) * sizeof *orig);
		memcpy(orig, k, n * sizeof *k);
		cr_assert_eq(usmp__sort_pairs(k, v, n), 0);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(k[i], orig[v[i]]);
			if (i)
				cr_assert(k[i - 1] < k[i] ||
				          (k[i - 1] == k[i] && v[i - 1] < v[i]));
		}
		free(k);
		free(v);
		free(orig);
	}
}

Test(view, subset_keeps_usable_pools_and_remaps_everything)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dtcm, dram, x, a, b, c;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 16, &sram), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dtcm", 512, 1, &dtcm), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 1, &dram), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "x", 8, 1, &x), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 16, 4, &a), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 32, 1, &b), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 48, 1, &c), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, x, dtcm), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, a, dram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, a, sram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, b, sram), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, c, sram), 0);
	cr_assert_eq(usmp_problem_set_fixed(p, c, sram, 64), 0);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 4), 0);
	cr_assert_eq(usmp_problem_set_live(p, b, 3, 6), 0); /* born at a's last read */
	cr_assert_eq(usmp_problem_add_conflict(p, a, c), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, c, a), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, x, a), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, c, b, 0), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, a, b, -4), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	uint32_t ids[] = { a, b, c };
	usmp__view_store s;
	build_view(p, ids, 3, &s);
	const usmp_view *v = &s.view;
	cr_assert_eq(v->pool_count, 2);
	cr_assert_str_eq(v->pools[0].name, "sram");
	cr_assert_str_eq(v->pools[1].name, "dram");
	cr_assert_eq(s.pool_map[0], sram);
	cr_assert_eq(s.pool_map[1], dram);
	cr_assert_eq(v->buffer_count, 3);
	cr_assert_eq(s.buffer_map[0], a);
	cr_assert_eq(s.buffer_map[2], c);
	/* a's candidates, priority order kept: dram, sram. */
	cr_assert_eq(v->buffers[0].candidate_count, 2);
	cr_assert_eq(v->candidates[v->buffers[0].candidate_start], 1);
	cr_assert_eq(v->candidates[v->buffers[0].candidate_start + 1], 0);
	cr_assert(v->buffers[2].flags & USMP_BUFFER_FIXED);
	cr_assert_eq(v->buffers[2].fixed_pool, 0);
	cr_assert_eq(v->buffers[2].fixed_offset, 64);
	/* Edge a-c once (duplicate merged), x-a dropped (x not in the view). */
	cr_assert_eq(v->conflict_start[3], 2);
	cr_assert_eq(v->conflict_adj[v->conflict_start[0]], 2);
	cr_assert_eq(v->conflict_adj[v->conflict_start[2]], 0);
	/* a: b by time, c by edge; b: a; c: a. */
	cr_assert_eq(v->degree[0], 2);
	cr_assert_eq(v->degree[1], 1);
	cr_assert_eq(v->degree[2], 1);
	/* Rules sorted by (src, dst) in view indices: (a, b) then (c, b). */
	cr_assert_eq(v->overlap_count, 2);
	cr_assert_eq(v->overlaps[0].src, 0);
	cr_assert_eq(v->overlaps[0].dst, 1);
	cr_assert_eq(v->overlaps[0].max_lead, -4);
	cr_assert_eq(v->overlaps[1].src, 2);
	cr_assert_eq(v->overlaps[1].dst, 1);
	cr_assert_str_eq(v->target, "");
	cr_assert_eq(v->struct_size, sizeof(usmp_view));
	/* Bound: a+b alive together (16+32) less their share (b starting 4
	 * below a covers all of a: 16) is 32; the edge pair a-c: 16+48 = 64. */
	cr_assert_eq(v->lower_bound, 64, "bound %lu", (unsigned long)v->lower_bound);
	usmp__view_finish(&s);

	/* A buffer with no candidate list brings every pool. */
	uint32_t ids2[] = { x, b };
	build_view(p, ids2, 2, &s);
	cr_assert_eq(s.view.pool_count, 2);
	cr_assert_str_eq(s.view.pools[0].name, "sram");
	cr_assert_str_eq(s.view.pools[1].name, "dtcm");
	usmp__view_finish(&s);
	cr_assert_eq(usmp_problem_add_buffer(p, "any", 4, 1, NULL), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0);
	uint32_t ids3[] = { 4 };
	build_view(p, ids3, 1, &s);
	cr_assert_eq(s.view.pool_count, 3);
	cr_assert_eq(s.view.buffers[0].candidate_count, 3);
	for (uint32_t i = 0; i < 3; i++)
		cr_assert_eq(s.view.candidates[s.view.buffers[0].candidate_start + i], i);
	usmp__view_finish(&s);
	usmp_problem_destroy(p);
}

Test(view, rejects_unsorted_ids)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 1, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 8, 1, NULL), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0);
	uint32_t ids[] = { 1, 0 };
	usmp__view_store s;
	char *msg = NULL;
	cr_assert_eq(usmp__view_build(p, ids, 2, &s, &msg), USMP_ERR_INVALID);
	cr_assert_not_null(msg);
	usmp__free_msg(&msg);
	usmp_problem_destroy(p);
}
