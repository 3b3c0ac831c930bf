/* test_verify_sweep.c — the verifier's sweep by neighbours (plans without
 * overlap rules) on thousands of buffers: its verdict against all pairs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* A problem of n buffers over `pools` pools (no rules, no edges), every
 * eighth buffer without a live range; live ranges short against the
 * horizon, so that a few dozen are alive at once. */
static usmp_problem *random_problem(uint64_t *rs, uint32_t n, uint32_t pools)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	for (uint32_t q = 0; q < pools; q++) {
		char name[16];
		snprintf(name, sizeof name, "q%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, UINT64_C(1) << 40, 1,
		                                   NULL), 0);
	}
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name,
		                                     test_rand_range(rs, 1, 64), 1,
		                                     NULL), 0);
		if (i % 8) {
			int64_t b = (int64_t)test_rand_range(rs, 0, 20000);
			cr_assert_eq(usmp_problem_set_live(
				             p, i, b, b + (int64_t)test_rand_range(rs, 1, 200)),
			             0);
		}
		if (pools > 1)
			cr_assert_eq(usmp_problem_add_candidate(
				             p, i, (uint32_t)test_rand_range(rs, 0, pools - 1)),
			             0);
	}
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	return p;
}

/* Two buffers alive at once whose bytes meet in one pool. */
static bool clash(const usmp_view *v, const usmp_placement *pl, uint32_t a,
                  uint32_t b)
{
	return a != b && pl[a].pool == pl[b].pool && usmp_live_overlap(v, a, b) &&
	       pl[a].offset < pl[b].offset + v->buffers[b].size &&
	       pl[b].offset < pl[a].offset + v->buffers[a].size;
}

static bool all_pairs_valid(const usmp_view *v, const usmp_placement *pl)
{
	for (uint32_t a = 0; a < v->buffer_count; a++)
		for (uint32_t b = a + 1; b < v->buffer_count; b++)
			if (clash(v, pl, a, b))
				return false;
	return true;
}

/* Each buffer in turn at the lowest offset, a multiple of 16, above every
 * placed buffer it meets in its pool: a valid, dense plan. */
static void greedy_plan(const usmp_view *v, usmp_placement *pl)
{
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		pl[i] = (usmp_placement){v->candidates[r->candidate_start], 0, 0};
		uint64_t top = 0;
		for (uint32_t j = 0; j < i; j++)
			if (pl[j].pool == pl[i].pool && usmp_live_overlap(v, i, j) &&
			    pl[j].offset + v->buffers[j].size > top)
				top = pl[j].offset + v->buffers[j].size;
		pl[i].offset = (top + 15) / 16 * 16;
	}
}

/* The pair an invalid plan's message names ("buffers \"bA\" and \"bB\""). */
static void named_pair(const char *msg, uint32_t *a, uint32_t *b)
{
	const char *at = msg ? strstr(msg, "buffers \"b") : NULL;
	cr_assert_not_null(at, "message \"%s\" names no pair", msg ? msg : "");
	cr_assert_eq(sscanf(at, "buffers \"b%u\" and \"b%u\"", a, b), 2,
	             "message \"%s\"", msg);
}

/* 4,000-6,000 buffers (three levels of the neighbour sweep's bit set):
 * greedy plans are valid; moving one buffer onto another alive with it in
 * its pool makes them invalid, and the message names a pair that truly
 * clashes; random plans agree with all pairs either way. */
Test(verify_sweep, agrees_with_all_pairs_on_thousands_of_buffers)
{
	uint64_t rs = 77;
	int valid = 0, invalid = 0;
	for (int round = 0; round < 6; round++) {
		uint32_t n = (uint32_t)test_rand_range(&rs, 4000, 6000);
		usmp_problem *p = random_problem(&rs, n, 1 + round % 3);
		usmp__view_store s;
		char *msg = NULL;
		cr_assert_eq(usmp__view_build(p, NULL, 0, &s, &msg), USMP_OK);
		const usmp_view *v = &s.view;
		usmp_placement *pl = calloc(n, sizeof *pl);
		cr_assert_not_null(pl);
		greedy_plan(v, pl);
		cr_assert_eq(usmp__verify(v, pl, &msg), USMP_OK, "round %d: %s",
		             round, msg ? msg : "");
		valid++;
		for (int trial = 0; trial < 4; trial++) {
			/* a live buffer onto a partner alive with it in its pool */
			uint32_t a, b = UINT32_MAX;
			do
				a = (uint32_t)test_rand_range(&rs, 0, n - 1);
			while (!(v->buffers[a].flags & USMP_BUFFER_LIVE));
			for (uint32_t j = 0; j < n && b == UINT32_MAX; j++)
				if (j != a && pl[j].pool == pl[a].pool &&
				    usmp_live_overlap(v, a, j))
					b = j;
			if (b == UINT32_MAX)
				continue;
			uint64_t keep = pl[a].offset;
			pl[a].offset = pl[b].offset;
			cr_assert(!all_pairs_valid(v, pl));
			cr_assert_eq(usmp__verify(v, pl, &msg), USMP_ERR_INVALID_PLAN,
			             "round %d trial %d: a clash accepted", round, trial);
			uint32_t x, y;
			named_pair(msg, &x, &y);
			cr_assert(x < n && y < n && clash(v, pl, x, y),
			          "round %d: \"%s\" names no clash", round, msg);
			invalid++;
			pl[a].offset = keep;
		}
		/* sparse random offsets: both verdicts occur */
		for (int trial = 0; trial < 4; trial++) {
			for (uint32_t i = 0; i < n; i++)
				pl[i].offset = test_rand_range(&rs, 0, 40000) * 16;
			bool want = all_pairs_valid(v, pl);
			int rc = usmp__verify(v, pl, &msg);
			cr_assert_eq(rc == USMP_OK, want, "round %d: verifier %s, all "
			             "pairs %s", round, rc ? "rejects" : "accepts",
			             want ? "accept" : "reject");
			valid += want;
			invalid += !want;
		}
		usmp__free_msg(&msg);
		free(pl);
		usmp__view_finish(&s);
		usmp_problem_destroy(p);
	}
	cr_assert(valid >= 6 && invalid >= 6, "valid %d, invalid %d", valid,
	          invalid);
}

/* The sweeps' radix sort sorts only the bits below the highest one in which
 * keys differ: keys sharing a high part (time keys carry bit 63) and keys
 * differing in the top bit, with and without values, come out in order and
 * stable. */
Test(verify_sweep, radix_sort_keeps_order_with_a_common_high_part)
{
	uint64_t rs = 9;
	for (int round = 0; round < 24; round++) {
		size_t n = (size_t)test_rand_range(&rs, 48, 20000);
		uint64_t *k = malloc(n * sizeof *k), *orig = malloc(n * sizeof *orig);
		uint32_t *v = malloc(n * sizeof *v);
		cr_assert(k && orig && v);
		unsigned low = (unsigned)test_rand_range(&rs, 1, 63);
		uint64_t high = round % 3 ? UINT64_C(1) << 63 : 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = test_rand(&rs) & ((UINT64_C(1) << low) - 1);
			k[i] = round % 4 == 3 ? test_rand(&rs) : (high | r);
			v[i] = (uint32_t)i;
		}
		memcpy(orig, k, n * sizeof *k);
		cr_assert_eq(usmp__sort_pairs(k, round % 5 ? v : NULL, n), USMP_OK);
		for (size_t i = 1; i < n; i++) {
			cr_assert(k[i - 1] <= k[i], "round %d: unsorted at %zu", round, i);
			if (round % 5)
				cr_assert(k[i - 1] < k[i] || v[i - 1] < v[i],
				          "round %d: unstable at %zu", round, i);
		}
		if (round % 5)
			for (size_t i = 0; i < n; i++)
				cr_assert_eq(k[i], orig[v[i]]);
		free(k);
		free(orig);
		free(v);
	}
}
