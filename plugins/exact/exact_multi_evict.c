/* exact_multi_evict.c — a start for the joint search of several pools: pools
 * chosen by load in time order, evicting what lives longest, then first fit. */
#include "exact_internal.h"

#include <stdlib.h>
#include <string.h>

/* Loads per pool over time: a segment tree per pool with a limit below
 * the sum of all sizes (the others never overflow), over the elementary
 * segments between the view's distinct range ends, adding a buffer's
 * size over its segments, max with its place. */
/* Views of more buffers skip the sweep for first fit. */
#define SWEEP_MAX 5000

typedef struct ev {
	const usmp_view *v;
	const xact_params *kp;
	const usmp_host *h;
	uint32_t *pin;   /* [n] pool, USMP_NO_POOL while undecided */
	uint64_t *iv;    /* scratch [2n] */
	int64_t *tm;     /* distinct begins and ends, sorted */
	uint32_t T;      /* their count */
	uint64_t *mx[64], *lz[64]; /* per pool: max and pending add, [4T] */
	uint64_t sum;    /* all sizes (saturating) */
	bool oom;        /* a tree could not be made */
} ev;

static uint32_t cand(const usmp_view *v, uint32_t b, uint32_t i)
{
	return v->candidates[v->buffers[b].candidate_start + i];
}

static uint64_t limit_of(const ev *e, uint32_t p)
{
	return xact_capped(e->kp, e->v->pools[p].size_limit);
}

/* The first segment at or after time t. */
static uint32_t seg_of(const ev *e, int64_t t)
{
	uint32_t lo = 0, hi = e->T;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (e->tm[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tree_add(uint64_t *mx, uint64_t *lz, uint32_t node, uint32_t l,
                     uint32_t r, uint32_t a, uint32_t b, int64_t d)
{
	if (b <= l || r <= a)
		return;
	if (a <= l && r <= b) {
		mx[node] += (uint64_t)d;
		lz[node] += (uint64_t)d;
		return;
	}
	uint32_t m = l + (r - l) / 2;
	tree_add(mx, lz, 2 * node, l, m, a, b, d);
	tree_add(mx, lz, 2 * node + 1, m, r, a, b, d);
	uint64_t x = mx[2 * node], y = mx[2 * node + 1];
	mx[node] = (x > y ? x : y) + lz[node];
}

/* The max over segments [a, b) and (in *at) a segment reaching it. */
static uint64_t tree_max(const uint64_t *mx, const uint64_t *lz,
                         uint32_t node, uint32_t l, uint32_t r, uint32_t a,
                         uint32_t b, uint32_t *at)
{
	if (b <= l || r <= a) {
		*at = UINT32_MAX; /* no segment here */
		return 0;
	}
	if (a <= l && r <= b) {
		/* descend to a segment at the max: the child holding it has
		 * the node's max less the node's pending add */
		uint64_t top = mx[node];
		while (r - l > 1) {
			uint32_t m = l + (r - l) / 2;
			if (mx[2 * node] == mx[node] - lz[node]) {
				node = 2 * node;
				r = m;
			} else {
				node = 2 * node + 1;
				l = m;
			}
		}
		*at = l;
		return top;
	}
	uint32_t m = l + (r - l) / 2, p, q;
	uint64_t x = tree_max(mx, lz, 2 * node, l, m, a, b, &p);
	uint64_t y = tree_max(mx, lz, 2 * node + 1, m, r, a, b, &q);
	bool left = q == UINT32_MAX || (p != UINT32_MAX && x >= y);
	*at = left ? p : q;
	return (left ? x : y) + lz[node];
}

/* Whether pool p's load is kept (a tree exists or can be made). */
static bool tracked(ev *e, uint32_t p)
{
	if (limit_of(e, p) >= e->sum)
		return false;
	if (!e->mx[p]) {
		size_t k = 4 * (size_t)(e->T ? e->T : 1);
		e->mx[p] = e->h->alloc(e->h, k * sizeof **e->mx);
		e->lz[p] = e->h->alloc(e->h, k * sizeof **e->lz);
		if (!e->mx[p] || !e->lz[p])
			return false; /* the caller checks e->mx[p] */
		memset(e->mx[p], 0, k * sizeof **e->mx);
		memset(e->lz[p], 0, k * sizeof **e->lz);
	}
	return true;
}

/* Pin b to p (USMP_NO_POOL: unpin), keeping the loads (e->oom when a
 * tree could not be made). */
static void set_pin(ev *e, uint32_t b, uint32_t p)
{
	const usmp_buffer_rec *r = &e->v->buffers[b];
	uint32_t old = e->pin[b];
	e->pin[b] = p;
	if (!(r->flags & USMP_BUFFER_LIVE))
		return;
	uint32_t a = seg_of(e, r->begin), z = seg_of(e, r->end);
	if (old != USMP_NO_POOL && e->mx[old])
		tree_add(e->mx[old], e->lz[old], 1, 0, e->T, a, z,
		         -(int64_t)r->size);
	if (p != USMP_NO_POOL && tracked(e, p))
		tree_add(e->mx[p], e->lz[p], 1, 0, e->T, a, z, (int64_t)r->size);
	else if (p != USMP_NO_POOL && limit_of(e, p) < e->sum)
		e->oom = true;
}

/* The most bytes pinned to p alive at once in [lo, hi), and (*at, or
 * NULL) a time it is reached. */
static uint64_t peak(ev *e, uint32_t p, int64_t lo, int64_t hi, int64_t *at)
{
	if (!e->mx[p])
		return 0;
	uint32_t a = seg_of(e, lo), z = seg_of(e, hi), w = a;
	if (a >= z)
		return 0;
	uint64_t m = tree_max(e->mx[p], e->lz[p], 1, 0, e->T, a, z, &w);
	if (at)
		*at = e->tm[w];
	return m;
}

/* Whether b fits pool p by load over its whole range (b not pinned). */
static bool fits(ev *e, uint32_t b, uint32_t p)
{
	const usmp_buffer_rec *r = &e->v->buffers[b];
	uint64_t lim = limit_of(e, p);
	if (r->size > lim)
		return false;
	if (!(r->flags & USMP_BUFFER_LIVE))
		return true;
	return peak(e, p, r->begin, r->end, NULL) <= lim - r->size;
}

/* b into the first of its candidates after index `from` it fits by load;
 * false when none. */
static bool pin_after(ev *e, uint32_t b, uint32_t from)
{
	const usmp_buffer_rec *r = &e->v->buffers[b];
	for (uint32_t i = from; i < r->candidate_count; i++)
		if (fits(e, b, cand(e->v, b, i))) {
			set_pin(e, b, cand(e->v, b, i));
			return true;
		}
	return false;
}

static uint32_t index_in(const usmp_view *v, uint32_t b, uint32_t p)
{
	for (uint32_t i = 0; i < v->buffers[b].candidate_count; i++)
		if (cand(v, b, i) == p)
			return i;
	return v->buffers[b].candidate_count;
}

/* b (live) into its first candidate p, evicting from p, latest end first,
 * the buffers alive where the load over b's range peaks that can go on
 * to a later candidate, b itself among them, until the load fits. */
static void pin_evicting(ev *e, uint32_t b)
{
	const usmp_view *v = e->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	uint32_t p = cand(v, b, 0);
	set_pin(e, b, p);
	int64_t t = r->begin;
	while (!e->oom && peak(e, p, r->begin, r->end, &t) > limit_of(e, p)) {
		/* the movable buffer in p alive at the peak ending last */
		uint32_t w = UINT32_MAX;
		for (uint32_t x = 0; x < v->buffer_count; x++) {
			const usmp_buffer_rec *q = &v->buffers[x];
			if (e->pin[x] != p || (q->flags & USMP_BUFFER_FIXED) ||
			    !(q->flags & USMP_BUFFER_LIVE) || q->begin > t ||
			    q->end <= t ||
			    index_in(v, x, p) + 1 >= q->candidate_count)
				continue;
			if (w == UINT32_MAX || q->end > v->buffers[w].end ||
			    (q->end == v->buffers[w].end &&
			     q->size < v->buffers[w].size))
				w = x;
		}
		if (w == UINT32_MAX)
			break;
		set_pin(e, w, USMP_NO_POOL);
		if (!pin_after(e, w, index_in(v, w, p) + 1)) {
			set_pin(e, w, p); /* nowhere to go: stays, b goes */
			break;
		}
	}
	if (peak(e, p, r->begin, r->end, NULL) > limit_of(e, p)) {
		set_pin(e, b, USMP_NO_POOL);
		pin_after(e, b, 1);
	}
}

/* The order of the pools' choice and of first fit: buffers with one
 * candidate first; those with a range by begin, then those without;
 * larger first; then by index. */
typedef struct okey {
	uint32_t choice;    /* 0 with one candidate, 1 with more */
	uint64_t live_last; /* 0 with a range, 1 without */
	int64_t begin;
	uint64_t size;
	uint32_t id;
} okey;

static int by_key(const void *x, const void *y)
{
	const okey *a = x, *b = y;
	if (a->choice != b->choice)
		return a->choice < b->choice ? -1 : 1;
	if (a->live_last != b->live_last)
		return a->live_last < b->live_last ? -1 : 1;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* Offsets for the pools in e->pin by the time-order sweep (exact_sweep.c):
 * pools with a limit capped there, the others at their buffers' sum;
 * where it finds nothing with the edges, the sweep without them and the
 * edges repaired (xact_repair_edges). True with a valid plan in out. */
static bool sweep_pins(ev *e, const usmp_host *h, xact_clock *clk,
                       usmp_placement *out)
{
	const usmp_view *v = e->v;
	uint32_t n = v->buffer_count;
	uint64_t cap[64] = {0};
	uint64_t *off = h->alloc(h, (n ? n : 1) * sizeof *off);
	bool ok = false;
	if (!off)
		return false;
	for (uint32_t b = 0; b < n; b++) {
		uint64_t top = v->buffers[b].flags & USMP_BUFFER_FIXED
		                       ? v->buffers[b].fixed_offset : 0;
		top += v->buffers[b].size;
		cap[e->pin[b]] += top; /* saturates nowhere near: sizes sum */
	}
	for (uint32_t p = 0; p < v->pool_count; p++)
		if (limit_of(e, p) < cap[p])
			cap[p] = limit_of(e, p);
	uint64_t budget = 200000 + 400 * (uint64_t)n;
	if (xact_sweep(v, h, e->pin, cap, budget, clk, off) == XACT_FOUND) {
		ok = true;
	} else if (v->conflict_start && v->conflict_start[n] > 0) {
		/* without the edges, then the edges repaired */
		usmp_view w = *v;
		w.conflict_start = NULL;
		w.conflict_adj = NULL;
		w.degree = NULL;
		if (xact_sweep(&w, h, e->pin, cap, budget, clk, off) ==
		    XACT_FOUND) {
			for (uint32_t b = 0; b < n; b++)
				out[b] = (usmp_placement){e->pin[b], 0, off[b]};
			ok = xact_repair_edges(v, h, e->kp, out);
		}
		h->free(h, off);
		return ok;
	}
	if (ok)
		for (uint32_t b = 0; b < n; b++)
			out[b] = (usmp_placement){e->pin[b], 0, off[b]};
	h->free(h, off);
	return ok;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The distinct range ends (e->tm, e->T) and the sizes' sum. */
static bool times(ev *e)
{
	const usmp_view *v = e->v;
	uint32_t k = 0;
	e->tm = e->h->alloc(e->h, 2 * (size_t)(v->buffer_count ? v->buffer_count
	                                                       : 1) *
	                                  sizeof *e->tm);
	if (!e->tm)
		return false;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		e->sum = e->sum + r->size < e->sum ? UINT64_MAX : e->sum + r->size;
		if (r->flags & USMP_BUFFER_LIVE) {
			e->tm[k++] = r->begin;
			e->tm[k++] = r->end;
		}
	}
	qsort(e->tm, k, sizeof *e->tm, cmp_i64);
	e->T = 0;
	for (uint32_t i = 0; i < k; i++)
		if (e->T == 0 || e->tm[e->T - 1] != e->tm[i])
			e->tm[e->T++] = e->tm[i];
	return true;
}

/* Pools by load, buffers in `order`: fixed ones pinned first. False when
 * the clock stops it. */
static bool choose_pools(ev *e, const uint32_t *order, xact_clock *clk)
{
	const usmp_view *v = e->v;
	uint32_t n = v->buffer_count;
	for (uint32_t b = 0; b < n; b++) {
		e->pin[b] = USMP_NO_POOL;
		if (v->buffers[b].flags & USMP_BUFFER_FIXED)
			set_pin(e, b, v->buffers[b].fixed_pool);
	}
	for (uint32_t i = 0; i < n && !e->oom; i++) {
		uint32_t b = order[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (e->pin[b] != USMP_NO_POOL)
			continue;
		if (i % 256 == 0 && xact_should_stop(clk))
			return false;
		if (!(r->flags & USMP_BUFFER_LIVE) || fits(e, b, cand(v, b, 0)))
			set_pin(e, b, cand(v, b, 0));
		else
			pin_evicting(e, b);
		if (e->pin[b] == USMP_NO_POOL)
			set_pin(e, b, cand(v, b, r->candidate_count - 1));
	}
	return true;
}

/* Offsets: fixed as fixed, then in `order` the lowest free offset of the
 * pinned pool, else of another candidate. False when one fits nowhere or
 * the clock stops it. */
static bool first_fit(ev *e, const uint32_t *order, uint8_t *nb,
                      xact_clock *clk, usmp_placement *out)
{
	const usmp_view *v = e->v;
	uint32_t n = v->buffer_count;
	for (uint32_t b = 0; b < n; b++)
		out[b] = v->buffers[b].flags & USMP_BUFFER_FIXED
		                 ? (usmp_placement){v->buffers[b].fixed_pool, 0,
		                                    v->buffers[b].fixed_offset}
		                 : (usmp_placement){USMP_NO_POOL, 0, 0};
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = order[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->flags & USMP_BUFFER_FIXED)
			continue;
		if (i % 256 == 0 && xact_should_stop(clk))
			return false;
		if (v->conflict_start)
			for (uint64_t k = v->conflict_start[b];
			     k < v->conflict_start[b + 1]; k++)
				nb[v->conflict_adj[k]] = 1;
		uint32_t from = index_in(v, b, e->pin[b]);
		for (uint32_t j = 0; j < r->candidate_count; j++) {
			uint32_t p = cand(v, b, (from + j) % r->candidate_count);
			uint64_t o = xact_lowest_free(v, e->kp, out, nb, b, p, e->iv);
			if (o != UINT64_MAX) {
				out[b] = (usmp_placement){p, 0, o};
				break;
			}
		}
		if (v->conflict_start)
			for (uint64_t k = v->conflict_start[b];
			     k < v->conflict_start[b + 1]; k++)
				nb[v->conflict_adj[k]] = 0;
		if (out[b].pool == USMP_NO_POOL)
			return false;
	}
	return true;
}

bool xact_evict_start(const usmp_view *v, const usmp_host *h,
                      const xact_params *kp, xact_clock *clk,
                      usmp_placement *out)
{
	uint32_t n = v->buffer_count;
	size_t m = n ? n : 1;
	ev e;
	memset(&e, 0, sizeof e);
	e.v = v;
	e.kp = kp;
	e.h = h;
	e.pin = h->alloc(h, m * sizeof *e.pin);
	e.iv = h->alloc(h, 2 * m * sizeof *e.iv);
	uint32_t *order = h->alloc(h, m * sizeof *order);
	okey *key = h->alloc(h, m * sizeof *key);
	uint8_t *nb = h->alloc(h, m);
	bool ok = false;
	if (!e.pin || !e.iv || !order || !key || !nb || !times(&e))
		goto fail;
	memset(nb, 0, m);
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		bool live = r->flags & USMP_BUFFER_LIVE;
		key[b] = (okey){r->candidate_count > 1, !live,
		                live ? r->begin : 0, r->size, b};
	}
	qsort(key, n, sizeof *key, by_key);
	for (uint32_t i = 0; i < n; i++)
		order[i] = key[i].id;
	if (!choose_pools(&e, order, clk) || e.oom || xact_should_stop(clk))
		goto fail;
	/* the sweep checks the clock only every 1024 of its steps, which on
	 * many buffers alive at once can take seconds */
	ok = (n <= SWEEP_MAX && sweep_pins(&e, h, clk, out)) ||
	     first_fit(&e, order, nb, clk, out);
fail:
	for (uint32_t p = 0; p < 64; p++) {
		if (e.mx[p])
			h->free(h, e.mx[p]);
		if (e.lz[p])
			h->free(h, e.lz[p]);
	}
	void *ptrs[] = {e.pin, e.iv, e.tm, order, key, nb};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
	return ok;
}
