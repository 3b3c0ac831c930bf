/* spill_floor.c — a lower bound on the spill of every valid plan (the bytes
 * outside their buffers' first candidate pools), from each limited pool's load over time. */
#include "view.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Why the floor is true.
 *
 * Spill adds up over buffers, and every buffer has one first candidate
 * pool, so a plan's spill is the sum over pools P of spill(P): the bytes
 * of the buffers whose first pool is P placed elsewhere. A lower bound per
 * pool therefore adds up to one for the whole.
 *
 * Forced. A buffer larger than its first pool's limit, or fixed in
 * another pool, is outside it in every plan: its bytes count once, and it
 * takes no further part in its first pool's bound.
 *
 * Per pool P with a limit L, at a time t, let A be its *movers* alive at t
 * (first pool P, not fixed, another candidate, at most L bytes) and U its
 * *stayers* alive at t (fixed in P, or P their only candidate). Every plan
 * keeps some K of A in P, with all of U; all of them conflict (alive
 * together), so their bytes share no address unless an overlap rule joins
 * two of them, and together they fit below L. With rules, as in bound.c:
 * in index order, charge each buffer i of S = A u U at most
 * min(size(i), sum of share(i, j) over its rule partners j < i in S); then
 * the union of any subset of S covers at least the sum over it of
 * eff(i) = size(i) - charge(i) (a subset's own charges are no larger). So
 * sum over K u U of eff <= L, and the movers R = A \ K moved out have
 * sum over R of eff >= E = sum over S of eff - L. Their spill, the sum of
 * their sizes (each at least its eff), is at least need(t): with at most
 * EXACT_ITEMS movers, the least size of a subset reaching E, found by
 * enumeration; else, when no mover is charged (eff = size), the least
 * subset sum reaching E, by a bitset over sums in units of the sizes' gcd
 * (a least cover sums to less than E plus its largest item) while that
 * stays within DP_WORDS words; otherwise the larger of E and the sum of
 * the m smallest sizes, m being the fewest movers whose eff reaches E
 * (largest first).
 * Buffers of other first pools that a plan also puts in P only take room:
 * leaving them out keeps the bound true. Alignment is not counted.
 *
 * Over time. Take times t1 < t2 < ... < tk and A_i the movers alive at
 * t_i. Live ranges being intervals, the times at which one mover is alive
 * are consecutive, so counting its spill once per time and taking it back
 * once per consecutive pair of times that share it counts it once:
 * spill(P) >= sum of spill(A_i) - sum of spill(A_i n A_i+1)
 *          >= sum of need(t_i) - sum of size(A_i n A_i+1),
 * the movers alive at both t_i and t_i+1 (those alive at t_i that end after
 * t_i+1). Where no mover is shared the needs simply add. The best such sum
 * is a longest-path program over the sweep's times (chain below): from any
 * earlier time whose movers all end by t (a running maximum), or from one
 * of the WINDOW times before, less what they share (each time keeps its
 * movers' ends and sizes, up to STORE_CAP of them in all). One time alone
 * is the plain maximum.
 *
 * Limits. Each time costs a pass over the buffers alive then; the bitset
 * runs only within the first half of WORK_CAP steps, and past WORK_CAP
 * the remaining times are not evaluated (a floor over fewer
 * times is a weaker floor, never a wrong one). Sums are 128-bit or
 * saturate at UINT64_MAX, which only lowers a term. On out of memory the
 * floor is the forced spill.
 */

enum { ROLE_NONE, ROLE_MOVES, ROLE_STAYS };
enum { EXACT_ITEMS = 10, WINDOW = 64, DP_WORDS = 1 << 14 };
#define WORK_CAP ((uint64_t)1 << 26)
#define STORE_CAP ((size_t)1 << 22)
#define NOT_ALIVE UINT32_MAX

typedef struct sf_event {
	int64_t t;
	uint32_t pool, buf, begin; /* begin: 1 at the begin, 0 at the end */
} sf_event;

/* A time of the sweep with something to move: its movers' latest end, what
 * they must spill, and the best chain ending there. */
typedef struct sf_time {
	int64_t t, maxend;
	uint64_t need, best;
	size_t first;   /* its movers in ends/suffix[first..first + count) */
	uint32_t count; /* UINT32_MAX: not kept (past STORE_CAP) */
} sf_time;

/* A mover of a kept time: its end and size (sorted by end). */
typedef struct sf_mover {
	int64_t end;
	uint64_t size;
} sf_mover;

typedef struct sf_ctx {
	const usmp_view *v;
	unsigned char *role;
	uint32_t *pool;    /* the pool of a mover or stayer */
	uint32_t *pos;     /* index in `alive` when alive, else NOT_ALIVE */
	uint32_t *alive;   /* movers and stayers alive now, in any order */
	uint32_t nalive;
	usmp__wide load;   /* their sizes summed */
	uint64_t *rstart;  /* rule partners of i: rnb/rsh[rstart[i]..[i+1]) */
	uint32_t *rnb;
	uint64_t *rsh;
	uint64_t *eff, *cost; /* scratch: the movers of one time */
	uint64_t *dp;         /* scratch: DP_WORDS words of least_sum */
	sf_time *times;
	size_t ntimes;
	sf_mover *movers; /* the kept times' movers, then suffix sums of size */
	uint64_t *suffix;
	size_t nmovers, cap_movers;
	uint64_t work;
} sf_ctx;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static int event_cmp(const void *a, const void *b)
{
	const sf_event *x = a, *y = b;
	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1; /* ends first: half-open */
	return x->buf < y->buf ? -1 : x->buf > y->buf;
}

static int u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int u64_asc(const void *a, const void *b)
{
	return u64_desc(b, a);
}

static int mover_by_end(const void *a, const void *b)
{
	const sf_mover *x = a, *y = b;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int time_by_end(const void *a, const void *b)
{
	const sf_time *x = *(const sf_time *const *)a;
	const sf_time *y = *(const sf_time *const *)b;
	return x->maxend < y->maxend ? -1 : x->maxend > y->maxend;
}

/* Buffer i's size less its charge to rule partners j < i alive now. */
static uint64_t item_eff(sf_ctx *c, uint32_t i)
{
	uint64_t size = c->v->buffers[i].size, charge = 0;
	if (!c->rstart)
		return size;
	for (uint64_t k = c->rstart[i]; k < c->rstart[i + 1]; k++)
		if (c->rnb[k] < i && c->pos[c->rnb[k]] != NOT_ALIVE)
			charge = sat_add(charge, c->rsh[k]);
	c->work += c->rstart[i + 1] - c->rstart[i];
	return charge >= size ? 0 : size - charge;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The least sum of a subset of the na sizes cost[] reaching e (> 0, at
 * most their sum), or 0 when the bitset would pass DP_WORDS words. */
static uint64_t least_sum(sf_ctx *c, uint32_t na, uint64_t e)
{
	uint64_t g = 0, top = 0;
	for (uint32_t k = 0; k < na; k++) {
		g = gcd64(g, c->cost[k]);
		if (c->cost[k] > top)
			top = c->cost[k];
	}
	uint64_t units = e / g + (e % g != 0), bits = units + top / g;
	if (bits < units || bits / 64 + 1 > DP_WORDS)
		return 0;
	size_t words = (size_t)(bits / 64 + 1);
	uint64_t *bs = c->dp;
	memset(bs, 0, words * sizeof *bs);
	bs[0] = 1;
	for (uint32_t k = 0; k < na; k++) {
		uint64_t s = c->cost[k] / g;
		size_t sw = (size_t)(s / 64);
		unsigned sb = (unsigned)(s % 64);
		for (size_t w = words; w-- > sw;) {
			uint64_t x = bs[w - sw] << sb;
			if (sb && w > sw)
				x |= bs[w - sw - 1] >> (64 - sb);
			bs[w] |= x;
		}
	}
	c->work += (uint64_t)na * words;
	for (uint64_t u = units; u < (uint64_t)words * 64; u++)
		if (bs[u / 64] >> (u % 64) & 1)
			return u * g;
	return 0;
}

/* The least spill of the na movers (eff, cost) whose eff reaches e. */
static uint64_t least_cover(sf_ctx *c, uint32_t na, uint64_t e)
{
	uint64_t *eff = c->eff, *cost = c->cost;
	usmp__wide all = {0, 0};
	uint64_t all_cost = 0;
	for (uint32_t k = 0; k < na; k++) {
		usmp__wide_add(&all, eff[k]);
		all_cost = sat_add(all_cost, cost[k]);
	}
	if (usmp__wide_min(all, UINT64_MAX) < e)
		return all_cost; /* no plan fits: any floor is true */
	if (na <= EXACT_ITEMS) {
		uint64_t best = all_cost;
		for (uint32_t m = 1; m < (1u << na); m++) {
			uint64_t we = 0, wc = 0;
			for (uint32_t k = 0; k < na; k++)
				if (m >> k & 1) {
					we = sat_add(we, eff[k]);
					wc = sat_add(wc, cost[k]);
				}
			if (we >= e && wc < best)
				best = wc;
		}
		c->work += (uint64_t)na << na;
		return best;
	}
	bool plain = true;
	for (uint32_t k = 0; k < na && plain; k++)
		plain = eff[k] == cost[k];
	/* The bitset only in the first half of the work: the times after
	 * it are still evaluated, by the cheaper bound. */
	uint64_t exact = plain && (uint64_t)na * DP_WORDS <= WORK_CAP / 64 &&
	                         c->work < WORK_CAP / 2
	                         ? least_sum(c, na, e) : 0;
	if (exact)
		return exact;
	qsort(eff, na, sizeof *eff, u64_desc);
	qsort(cost, na, sizeof *cost, u64_asc);
	c->work += 8u * na;
	uint64_t got = 0, sum = 0;
	for (uint32_t k = 0; k < na && got < e; k++) {
		got = sat_add(got, eff[k]);
		sum = sat_add(sum, cost[k]);
	}
	return sum > e ? sum : e;
}

/* Record a time with its movers' ends and sizes (while room is left). */
static void keep_time(sf_ctx *c, int64_t t, int64_t maxend, uint64_t need)
{
	sf_time *tm = &c->times[c->ntimes++];
	*tm = (sf_time){.t = t, .maxend = maxend, .need = need,
	                .first = c->nmovers, .count = UINT32_MAX};
	size_t na = 0;
	for (uint32_t k = 0; k < c->nalive; k++)
		na += c->role[c->alive[k]] == ROLE_MOVES;
	if (na > STORE_CAP - c->nmovers)
		return;
	if (c->nmovers + na > c->cap_movers) {
		size_t cap = c->cap_movers ? c->cap_movers : 1024;
		while (cap < c->nmovers + na)
			cap *= 2;
		sf_mover *m = realloc(c->movers, cap * sizeof *m);
		if (!m)
			return;
		c->movers = m;
		uint64_t *s = realloc(c->suffix, cap * sizeof *s);
		if (!s)
			return;
		c->suffix = s;
		c->cap_movers = cap;
	}
	sf_mover *m = c->movers + c->nmovers;
	size_t w = 0;
	for (uint32_t k = 0; k < c->nalive; k++) {
		uint32_t i = c->alive[k];
		if (c->role[i] == ROLE_MOVES)
			m[w++] = (sf_mover){.end = c->v->buffers[i].end,
			                    .size = c->v->buffers[i].size};
	}
	qsort(m, na, sizeof *m, mover_by_end);
	uint64_t *s = c->suffix + c->nmovers, run = 0;
	for (size_t k = na; k-- > 0;)
		s[k] = run = sat_add(run, m[k].size);
	c->work += 8u * na;
	tm->count = (uint32_t)na;
	c->nmovers += na;
}

/* The bytes of time j's movers still alive at t (those ending after t). */
static uint64_t shared(const sf_ctx *c, const sf_time *j, int64_t t)
{
	const sf_mover *m = c->movers + j->first;
	size_t lo = 0, hi = j->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->count ? c->suffix[j->first + lo] : 0;
}

/* Evaluate the time t of pool q's sweep: record it when movers must go. */
static void eval_time(sf_ctx *c, uint32_t q, int64_t t)
{
	uint64_t limit = c->v->pools[q].size_limit;
	if (!c->load.hi && c->load.lo <= limit)
		return;
	if (c->work > WORK_CAP)
		return;
	usmp__wide tot = {0, 0};
	uint32_t na = 0;
	int64_t maxend = t;
	for (uint32_t k = 0; k < c->nalive; k++) {
		uint32_t i = c->alive[k];
		uint64_t e = item_eff(c, i);
		usmp__wide_add(&tot, e);
		if (c->role[i] == ROLE_MOVES) {
			c->eff[na] = e;
			c->cost[na++] = c->v->buffers[i].size;
			if (c->v->buffers[i].end > maxend)
				maxend = c->v->buffers[i].end;
		}
	}
	c->work += c->nalive;
	if (!na || (!tot.hi && tot.lo <= limit))
		return;
	usmp__wide_sub(&tot, limit);
	uint64_t need = least_cover(c, na, usmp__wide_min(tot, UINT64_MAX));
	if (need)
		keep_time(c, t, maxend, need);
}

/* The best chain of the pool's times (see top). */
static uint64_t chain(sf_ctx *c, sf_time **by_end)
{
	size_t n = c->ntimes, p = 0;
	uint64_t run = 0, top = 0;
	for (size_t k = 0; k < n; k++)
		by_end[k] = &c->times[k];
	qsort(by_end, n, sizeof *by_end, time_by_end);
	for (size_t k = 0; k < n; k++) {
		sf_time *tk = &c->times[k];
		/* maxend > t of its own time: each one taken is earlier. */
		while (p < n && by_end[p]->maxend <= tk->t) {
			if (by_end[p]->best > run)
				run = by_end[p]->best;
			p++;
		}
		uint64_t from = run;
		for (size_t j = k > WINDOW ? k - WINDOW : 0; j < k; j++) {
			const sf_time *tj = &c->times[j];
			if (tj->count == UINT32_MAX)
				continue;
			uint64_t sh = shared(c, tj, tk->t);
			if (tj->best > sh && tj->best - sh > from)
				from = tj->best - sh;
		}
		tk->best = sat_add(tk->need, from);
		if (tk->best > top)
			top = tk->best;
	}
	return top;
}

static void add_alive(sf_ctx *c, uint32_t i)
{
	c->pos[i] = c->nalive;
	c->alive[c->nalive++] = i;
	usmp__wide_add(&c->load, c->v->buffers[i].size);
}

static void drop_alive(sf_ctx *c, uint32_t i)
{
	uint32_t k = c->pos[i], last = c->alive[--c->nalive];
	c->alive[k] = last;
	c->pos[last] = k;
	c->pos[i] = NOT_ALIVE;
	usmp__wide_sub(&c->load, c->v->buffers[i].size);
}

/* Rule partners (both directions) with the bytes each rule may share. */
static int rules_build(sf_ctx *c)
{
	const usmp_view *v = c->v;
	uint32_t n = v->buffer_count;
	uint64_t m = 0;
	for (uint64_t r = 0; r < v->overlap_count; r++)
		if (v->overlaps[r].src < n && v->overlaps[r].dst < n &&
		    v->overlaps[r].src != v->overlaps[r].dst)
			m++;
	if (!m)
		return USMP_OK;
	if (m > SIZE_MAX / 2 / sizeof(uint64_t))
		return USMP_ERR_NOMEM;
	c->rstart = calloc((size_t)n + 1, sizeof *c->rstart);
	c->rnb = malloc((size_t)(2 * m) * sizeof *c->rnb);
	c->rsh = malloc((size_t)(2 * m) * sizeof *c->rsh);
	uint64_t *cur = malloc(((size_t)n + 1) * sizeof *cur);
	if (!c->rstart || !c->rnb || !c->rsh || !cur) {
		free(cur);
		return USMP_ERR_NOMEM;
	}
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (o->src < n && o->dst < n && o->src != o->dst) {
			c->rstart[o->src + 1]++;
			c->rstart[o->dst + 1]++;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		c->rstart[i + 1] += c->rstart[i];
	memcpy(cur, c->rstart, ((size_t)n + 1) * sizeof *cur);
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (o->src >= n || o->dst >= n || o->src == o->dst)
			continue;
		uint64_t sh = usmp__rule_share(v->buffers[o->src].size,
		                               v->buffers[o->dst].size, o->max_lead);
		c->rnb[cur[o->src]] = o->dst;
		c->rsh[cur[o->src]++] = sh;
		c->rnb[cur[o->dst]] = o->src;
		c->rsh[cur[o->dst]++] = sh;
	}
	free(cur);
	return USMP_OK;
}

bool usmp__spill_is_forced(uint64_t size, bool fixed, uint32_t fixed_pool,
                           uint32_t first, uint64_t first_limit)
{
	return (fixed && fixed_pool != first) || size > first_limit;
}

/* Whether buffer b of the view is outside its first pool in every plan. */
static bool is_forced(const usmp_view *v, const usmp_buffer_rec *b)
{
	uint32_t first = v->candidates[b->candidate_start];
	uint64_t limit = first < v->pool_count ? v->pools[first].size_limit
	                                       : USMP_UNBOUNDED;
	return usmp__spill_is_forced(b->size, b->flags & USMP_BUFFER_FIXED,
	                             b->fixed_pool, first, limit);
}

/* The forced spill: the bytes of the buffers is_forced names. */
static uint64_t forced_spill(const usmp_view *v)
{
	uint64_t forced = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (v->buffers[i].candidate_count &&
		    is_forced(v, &v->buffers[i]))
			forced = sat_add(forced, v->buffers[i].size);
	return forced;
}

/* Each buffer's role and pool; whether some pool with a limit has a live
 * mover (else the floor is the forced spill). */
static bool roles(sf_ctx *c)
{
	const usmp_view *v = c->v;
	bool any = false;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		c->role[i] = ROLE_NONE;
		c->pos[i] = NOT_ALIVE;
		if (!b->candidate_count)
			continue;
		uint32_t first = v->candidates[b->candidate_start];
		bool fixed = b->flags & USMP_BUFFER_FIXED;
		uint64_t limit = first < v->pool_count ? v->pools[first].size_limit
		                                       : USMP_UNBOUNDED;
		bool out = is_forced(v, b);
		if (fixed && b->fixed_pool < v->pool_count) {
			c->role[i] = ROLE_STAYS;
			c->pool[i] = b->fixed_pool;
		} else if (!fixed && !out && first < v->pool_count) {
			c->role[i] = b->candidate_count > 1 ? ROLE_MOVES : ROLE_STAYS;
			c->pool[i] = first;
			if (c->role[i] == ROLE_MOVES && limit != USMP_UNBOUNDED &&
			    (b->flags & USMP_BUFFER_LIVE))
				any = true;
		}
	}
	return any;
}

/* The floor: the forced spill plus, per pool, the best chain of its times. */
uint64_t usmp__spill_floor(const usmp_view *v)
{
	uint32_t n = v ? v->buffer_count : 0;
	sf_ctx c = {.v = v};
	sf_event *ev = NULL;
	sf_time **by_end = NULL;
	size_t sz = n ? n : 1;
	if (!v)
		return 0;
	uint64_t floor = forced_spill(v);
	c.role = malloc(sz);
	c.pool = malloc(sz * sizeof *c.pool);
	c.pos = malloc(sz * sizeof *c.pos);
	if (!c.role || !c.pool || !c.pos || !roles(&c))
		goto fail;
	c.alive = malloc(sz * sizeof *c.alive);
	c.eff = malloc(sz * sizeof *c.eff);
	c.cost = malloc(sz * sizeof *c.cost);
	c.dp = malloc(DP_WORDS * sizeof *c.dp);
	c.times = malloc(2 * sz * sizeof *c.times);
	by_end = malloc(2 * sz * sizeof *by_end);
	ev = malloc(2 * sz * sizeof *ev);
	if (!c.alive || !c.eff || !c.cost || !c.dp || !c.times || !by_end || !ev ||
	    rules_build(&c) != USMP_OK)
		goto fail;
	size_t ne = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (c.role[i] == ROLE_NONE || !(b->flags & USMP_BUFFER_LIVE) ||
		    v->pools[c.pool[i]].size_limit == USMP_UNBOUNDED)
			continue;
		ev[ne++] = (sf_event){.t = b->begin, .pool = c.pool[i], .buf = i,
		                      .begin = 1};
		ev[ne++] = (sf_event){.t = b->end, .pool = c.pool[i], .buf = i};
	}
	qsort(ev, ne, sizeof *ev, event_cmp);
	for (size_t k = 0; k < ne; k++) {
		const sf_event *e = &ev[k];
		if (e->begin)
			add_alive(&c, e->buf);
		else
			drop_alive(&c, e->buf);
		bool last_of_pool = k + 1 == ne || ev[k + 1].pool != e->pool;
		if (last_of_pool || ev[k + 1].t != e->t)
			eval_time(&c, e->pool, e->t);
		if (last_of_pool) {
			floor = sat_add(floor, chain(&c, by_end));
			c.ntimes = 0;
			c.nmovers = 0;
		}
	}
fail:
	free(ev);
	free(by_end);
	free(c.times);
	free(c.movers);
	free(c.suffix);
	free(c.cost);
	free(c.dp);
	free(c.eff);
	free(c.alive);
	free(c.rstart);
	free(c.rnb);
	free(c.rsh);
	free(c.role);
	free(c.pool);
	free(c.pos);
	return floor;
}
