/* test_bound_strength.c — the aligned sweep of the lower bound: never above
 * the optimum (a tiny exhaustive search), never below the unaligned bound. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

enum { MAXN = 6, MAXP = 2 };

typedef struct tiny {
	uint32_t n, pools;
	uint64_t size[MAXN], balign[MAXN], palign[MAXP];
	int64_t begin[MAXN], end[MAXN];
} tiny;

static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static uint64_t pow2(uint64_t *s, unsigned max_log)
{
	return (uint64_t)1 << (rng_next(s) % (max_log + 1));
}

static void tiny_random(tiny *t, uint64_t *s, uint32_t pools)
{
	t->pools = pools;
	t->n = 1 + (uint32_t)(rng_next(s) % (pools > 1 ? MAXN - 1 : MAXN));
	for (uint32_t q = 0; q < pools; q++)
		t->palign[q] = pow2(s, 3);
	for (uint32_t i = 0; i < t->n; i++) {
		t->size[i] = 1 + rng_next(s) % 12;
		t->balign[i] = pow2(s, 3);
		t->begin[i] = (int64_t)(rng_next(s) % 4);
		t->end[i] = t->begin[i] + 1 + (int64_t)(rng_next(s) % 3);
	}
}

static bool tiny_conflict(const tiny *t, uint32_t i, uint32_t j)
{
	return t->begin[i] < t->end[j] && t->begin[j] < t->end[i];
}

/* Optimum by search: every valid plan can be pushed down, in offset order
 * per pool, to each buffer at the lowest aligned offset above all earlier
 * conflicting buffers of its pool, never growing a pool. So trying every
 * order and every pool per buffer finds the least sum of high-water marks. */
typedef struct search {
	const tiny *t;
	uint32_t pool[MAXN];
	uint64_t off[MAXN], top[MAXP], best;
	bool used[MAXN];
	uint32_t placed[MAXN];
} search;

static void search_run(search *s, uint32_t k)
{
	const tiny *t = s->t;
	uint64_t sum = 0;
	for (uint32_t q = 0; q < t->pools; q++)
		sum += s->top[q];
	if (sum >= s->best)
		return;
	if (k == t->n) {
		s->best = sum;
		return;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		if (s->used[i])
			continue;
		for (uint32_t q = 0; q < t->pools; q++) {
			uint64_t a = t->balign[i] > t->palign[q] ? t->balign[i]
			                                         : t->palign[q];
			uint64_t o = 0;
			for (uint32_t m = 0; m < k; m++) {
				uint32_t j = s->placed[m];
				if (s->pool[j] == q && tiny_conflict(t, i, j) &&
				    s->off[j] + t->size[j] > o)
					o = s->off[j] + t->size[j];
			}
			o = (o + a - 1) / a * a;
			uint64_t old = s->top[q];
			s->used[i] = true;
			s->pool[i] = q;
			s->off[i] = o;
			s->placed[k] = i;
			if (o + t->size[i] > s->top[q])
				s->top[q] = o + t->size[i];
			search_run(s, k + 1);
			s->top[q] = old;
			s->used[i] = false;
		}
	}
}

static uint64_t tiny_optimum(const tiny *t)
{
	search s;
	memset(&s, 0, sizeof s);
	s.t = t;
	s.best = UINT64_MAX;
	search_run(&s, 0);
	return s.best;
}

/* The bound without alignment: the largest buffer, the most bytes alive. */
static uint64_t tiny_unaligned(const tiny *t)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		uint64_t live = 0;
		for (uint32_t j = 0; j < t->n; j++)
			if (t->begin[j] <= t->begin[i] && t->begin[i] < t->end[j])
				live += t->size[j];
		if (live > best)
			best = live;
	}
	return best;
}

static usmp_problem *tiny_problem(const tiny *t)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	for (uint32_t q = 0; q < t->pools; q++) {
		char name[16];
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, USMP_UNBOUNDED,
		                                   t->palign[q], NULL), USMP_OK);
	}
	for (uint32_t i = 0; i < t->n; i++) {
		char name[16];
		uint32_t id;
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, t->size[i],
		                                     t->balign[i], &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, t->begin[i], t->end[i]),
		             USMP_OK);
	}
	return p;
}

/* The group's bound and the bound of the whole problem's view. */
static void tiny_bounds(const tiny *t, uint64_t *group, uint64_t *view)
{
	usmp_problem *p = tiny_problem(t);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1, "%s",
	             usmp_problem_error(p));
	*group = usmp_problem_prepare_group_bound(p, 0);
	usmp__view_store vs;
	char *msg = NULL;
	cr_assert_eq(usmp__view_build(p, NULL, 0, &vs, &msg), USMP_OK, "%s",
	             msg ? msg : "?");
	usmp__free_msg(&msg);
	*view = vs.view.lower_bound;
	usmp__view_finish(&vs);
	usmp_problem_destroy(p);
}

static void check_many(uint32_t pools, uint32_t count, uint64_t seed)
{
	uint64_t s = seed;
	uint32_t stronger = 0;
	for (uint32_t k = 0; k < count; k++) {
		tiny t;
		tiny_random(&t, &s, pools);
		uint64_t opt = tiny_optimum(&t), old = tiny_unaligned(&t), g, v;
		tiny_bounds(&t, &g, &v);
		cr_assert_leq(g, opt, "problem %u: group bound %llu above the "
		              "optimum %llu", k, (unsigned long long)g,
		              (unsigned long long)opt);
		cr_assert_leq(v, opt, "problem %u: view bound %llu above the "
		              "optimum %llu", k, (unsigned long long)v,
		              (unsigned long long)opt);
		cr_assert_geq(g, old, "problem %u: group bound below the old one", k);
		cr_assert_geq(v, old, "problem %u: view bound below the old one", k);
		stronger += g > old;
	}
	/* The aligned sweep must actually raise some of them. */
	cr_assert_gt(stronger, count / 20, "only %u of %u bounds rose", stronger,
	             count);
}

Test(bound_strength, aligned_bound_never_above_the_optimum_one_pool)
{
	check_many(1, 3000, 1);
}

Test(bound_strength, aligned_bound_never_above_the_optimum_two_pools)
{
	check_many(2, 1500, 2);
}

Test(bound_strength, aligned_pair_rounds_the_lower_buffer)
{
	/* Two 10-byte buffers aligned to 16 alive with a 3-byte one: any plan
	 * has them at multiples of 16, so the top is at least 16 + 16 + 3. */
	tiny t = { .n = 3, .pools = 1, .palign = { 1 },
	           .size = { 10, 10, 3 }, .balign = { 16, 16, 16 },
	           .begin = { 0, 0, 1 }, .end = { 2, 2, 3 } };
	uint64_t g, v;
	tiny_bounds(&t, &g, &v);
	cr_assert_eq(g, 35);
	cr_assert_eq(v, 35);
	cr_assert_eq(tiny_optimum(&t), 35);
}

Test(bound_strength, an_unaligned_buffer_rounds_only_while_alive)
{
	/* While buffer 2 (any byte) is alive the sweep rounds to 1: 23. Before
	 * it, the 16-aligned pair rounds to 16: 32 less one slack of 6 = 26,
	 * which is also the optimum (buffer 2 fits above the pair's 26). */
	tiny t = { .n = 3, .pools = 1, .palign = { 1 },
	           .size = { 10, 10, 3 }, .balign = { 16, 16, 1 },
	           .begin = { 0, 0, 1 }, .end = { 2, 2, 3 } };
	uint64_t g, v;
	tiny_bounds(&t, &g, &v);
	cr_assert_eq(g, 26);
	cr_assert_eq(v, 26);
	cr_assert_eq(tiny_optimum(&t), 26);
}

Test(bound_strength, pool_alignment_counts_for_every_buffer)
{
	/* Byte-aligned buffers in a 16-aligned pool sit at multiples of 16. */
	tiny t = { .n = 2, .pools = 1, .palign = { 16 },
	           .size = { 5, 5 }, .balign = { 1, 1 },
	           .begin = { 0, 0 }, .end = { 1, 1 } };
	uint64_t g, v;
	tiny_bounds(&t, &g, &v);
	cr_assert_eq(g, 21);
	cr_assert_eq(v, 21);
	cr_assert_eq(tiny_optimum(&t), 21);
}

Test(bound_strength, overlap_rules_skip_the_aligned_sweep)
{
	/* With a rule in the group the aligned sweep does not run: a may be
	 * read in place by b, so the bound is 26 less their share of 13 (the
	 * rounded 16 + 13 would not be true: b may sit on a's bytes). */
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_pool(p, "m", USMP_UNBOUNDED, 16, NULL),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 13, 16, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 13, 16, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, a, b, 0), USMP_OK);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 13, "%s",
	             usmp_problem_error(p));
	usmp_problem_destroy(p);
}
