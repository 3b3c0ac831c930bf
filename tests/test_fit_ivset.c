/* test_fit_ivset.c — the fit plugin's interval sets against a byte map:
 * after every insertion a set is the runs of the bytes covered, in order,
 * and every block it took from the host is given back. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/fit/fit_ivset.h"

#define SPACE 4096u /* offsets the tests use */

static long live_blocks;

static void *t_alloc(const usmp_host *h, size_t n)
{
	(void)h;
	live_blocks++;
	return malloc(n);
}

static void *t_realloc(const usmp_host *h, void *p, size_t n)
{
	(void)h;
	if (!p)
		live_blocks++;
	return realloc(p, n);
}

static void t_free(const usmp_host *h, void *p)
{
	(void)h;
	if (p)
		live_blocks--;
	free(p);
}

static usmp_host t_host(void)
{
	usmp_host h;
	memset(&h, 0, sizeof h);
	h.alloc = t_alloc;
	h.realloc = t_realloc;
	h.free = t_free;
	return h;
}

/* The first interval of s with .b >= a (as the gap index finds it). */
static uint32_t lower(const usmp__fit_set *s, uint64_t a)
{
	uint32_t lo = 0, hi = s->cnt;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (s->iv[m].b < a)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* s holds exactly the runs of map (in order, none touching), within its
 * room. */
static void check(const usmp__fit_set *s, const unsigned char *map,
                  const char *what, unsigned step)
{
	cr_assert(s->front + s->cnt <= s->cap, "%s step %u: %u + %u > cap %u",
	          what, step, s->front, s->cnt, s->cap);
	uint32_t k = 0;
	for (uint64_t x = 0; x < SPACE;) {
		if (!map[x]) {
			x++;
			continue;
		}
		uint64_t e = x;
		while (e < SPACE && map[e])
			e++;
		cr_assert(k < s->cnt, "%s step %u: run [%llu, %llu) missing",
		          what, step, (unsigned long long)x,
		          (unsigned long long)e);
		cr_assert(s->iv[k].a == x && s->iv[k].b == e,
		          "%s step %u: interval %u is [%llu, %llu), want "
		          "[%llu, %llu)", what, step, k,
		          (unsigned long long)s->iv[k].a,
		          (unsigned long long)s->iv[k].b,
		          (unsigned long long)x, (unsigned long long)e);
		k++;
		x = e;
	}
	cr_assert(k == s->cnt, "%s step %u: %u intervals, want %u", what, step,
	          s->cnt, k);
}

static void add(usmp__fit_pool *p, usmp__fit_set *s, unsigned char *map,
                uint64_t a, uint64_t b, const char *what, unsigned step)
{
	cr_assert(usmp__fit_set_add(p, s, a, b, lower(s, a)) == USMP_OK);
	memset(map + a, 1, (size_t)(b - a));
	check(s, map, what, step);
}

/* Pattern `pat` of n one-byte intervals two apart (so none merge), then
 * the bytes between them filled in the same order (so they all merge
 * into one). */
static void run_pattern(usmp__fit_pool *p, usmp__fit_set *s, int pat,
                        unsigned n, unsigned seed)
{
	static const char *const names[] = { "appends", "prepends",
		                             "random", "middle out" };
	unsigned char *map = calloc(SPACE, 1);
	unsigned *order = malloc(n * sizeof *order);
	cr_assert(map && order);
	for (unsigned i = 0; i < n; i++)
		order[i] = pat == 1 ? n - 1 - i : i;
	if (pat == 2) {
		srand(seed);
		for (unsigned i = n; i > 1; i--) {
			unsigned j = (unsigned)rand() % i, t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
	}
	if (pat == 3) { /* alternately left and right of the middle */
		int l = (int)n / 2 - 1, r = (int)n / 2;
		for (unsigned i = 0; i < n; i++)
			order[i] = (unsigned)((i % 2 == 0 && l >= 0) || r >= (int)n
			                              ? l--
			                              : r++);
	}
	for (unsigned i = 0; i < n; i++)
		add(p, s, map, 2ull * order[i], 2ull * order[i] + 1, names[pat],
		    i);
	cr_assert(s->cnt == n);
	for (unsigned i = 0; i < n; i++) /* the gap after each but the last */
		if (order[i] + 1 < n)
			add(p, s, map, 2ull * order[i] + 1, 2ull * order[i] + 2,
			    names[pat], n + i);
	free(map);
	free(order);
}

Test(fit_ivset, runs_of_every_insertion_pattern)
{
	usmp_host h = t_host();
	usmp__fit_pool pool;
	memset(&pool, 0, sizeof pool);
	pool.h = &h;
	usmp__fit_set sets[8];
	memset(sets, 0, sizeof sets);
	/* small sets (the pool) and large ones (host blocks), each pattern,
	 * then the same sets emptied and filled again */
	static const unsigned sizes[] = { 5, 60, 300, 1500 };
	for (int round = 0; round < 2; round++) {
		for (int pat = 0; pat < 4; pat++) {
			usmp__fit_set *s = &sets[pat * 2 + round % 2];
			for (unsigned z = 0; z < 4; z++) {
				usmp__fit_set_clear(s);
				run_pattern(&pool, s, pat, sizes[z],
				            (unsigned)(round * 16 + pat * 4 + z));
				cr_assert(s->cnt == 1 && s->iv[0].a == 0 &&
				          s->iv[0].b == 2ull * sizes[z] - 1);
			}
		}
	}
	for (int i = 0; i < 8; i++)
		usmp__fit_set_release(&pool, &sets[i]);
	usmp__fit_pool_free(&pool);
	cr_assert(live_blocks == 0, "%ld blocks not given back", live_blocks);
}

Test(fit_ivset, random_overlapping_intervals)
{
	usmp_host h = t_host();
	usmp__fit_pool pool;
	memset(&pool, 0, sizeof pool);
	pool.h = &h;
	srand(7);
	for (unsigned trial = 0; trial < 40; trial++) {
		usmp__fit_set s;
		memset(&s, 0, sizeof s);
		unsigned char *map = calloc(SPACE, 1);
		cr_assert(map);
		unsigned steps = 50 + (unsigned)rand() % 400;
		unsigned maxlen = 1 + (unsigned)rand() % 40;
		for (unsigned i = 0; i < steps; i++) {
			uint64_t len = 1 + (unsigned)rand() % maxlen;
			uint64_t a = (unsigned)rand() % (SPACE - len);
			add(&pool, &s, map, a, a + len, "random", i);
		}
		usmp__fit_set_release(&pool, &s);
		free(map);
	}
	usmp__fit_pool_free(&pool);
	cr_assert(live_blocks == 0, "%ld blocks not given back", live_blocks);
}
