/* exact_multi_evict.c — a start for the joint search of several pools: pools
 * chosen by load in time order, evicting what lives longest, then first fit. */
#include "exact_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct ev {
	const usmp_view *v;
	const xact_params *kp;
	uint32_t *pin;   /* [n] pool, USMP_NO_POOL while undecided */
	uint32_t *alive; /* scratch [n] */
	uint64_t *iv;    /* scratch [2n] */
} ev;

static uint32_t cand(const usmp_view *v, uint32_t b, uint32_t i)
{
	return v->candidates[v->buffers[b].candidate_start + i];
}

/* The most bytes the buffers pinned to p (but skip) have alive at once in
 * [lo, hi): the sum at lo or at a begin inside, the buffers there having
 * intervals; *at (or NULL): a time it is reached. */
static uint64_t peak(ev *e, uint32_t p, int64_t lo, int64_t hi, uint32_t skip,
                     int64_t *at)
{
	const usmp_view *v = e->v;
	uint32_t k = 0;
	for (uint32_t x = 0; x < v->buffer_count; x++) {
		const usmp_buffer_rec *r = &v->buffers[x];
		if (x != skip && e->pin[x] == p && (r->flags & USMP_BUFFER_LIVE) &&
		    r->begin < hi && lo < r->end)
			e->alive[k++] = x;
	}
	uint64_t best = 0;
	for (uint32_t i = 0; i < k; i++) {
		int64_t t = v->buffers[e->alive[i]].begin;
		if (t < lo)
			t = lo;
		uint64_t sum = 0;
		for (uint32_t j = 0; j < k; j++) {
			const usmp_buffer_rec *r = &v->buffers[e->alive[j]];
			if (r->begin <= t && t < r->end)
				sum += r->size;
		}
		if (sum > best) {
			best = sum;
			if (at)
				*at = t;
		}
	}
	return best;
}

static uint64_t limit_of(const ev *e, uint32_t p)
{
	return xact_capped(e->kp, e->v->pools[p].size_limit);
}

/* Whether b fits pool p by load over its whole range. */
static bool fits(ev *e, uint32_t b, uint32_t p)
{
	const usmp_buffer_rec *r = &e->v->buffers[b];
	uint64_t lim = limit_of(e, p);
	if (r->size > lim)
		return false;
	if (!(r->flags & USMP_BUFFER_LIVE))
		return true;
	return peak(e, p, r->begin, r->end, b, NULL) <= lim - r->size;
}

/* b into the first of its candidates after index `from` it fits by load;
 * false when none. */
static bool pin_after(ev *e, uint32_t b, uint32_t from)
{
	const usmp_buffer_rec *r = &e->v->buffers[b];
	for (uint32_t i = from; i < r->candidate_count; i++)
		if (fits(e, b, cand(e->v, b, i))) {
			e->pin[b] = cand(e->v, b, i);
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
	e->pin[b] = p;
	int64_t t = r->begin;
	while (peak(e, p, r->begin, r->end, UINT32_MAX, &t) > limit_of(e, p)) {
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
		e->pin[w] = USMP_NO_POOL;
		if (!pin_after(e, w, index_in(v, w, p) + 1)) {
			e->pin[w] = p; /* nowhere to go: stays, b goes */
			break;
		}
	}
	if (peak(e, p, r->begin, r->end, UINT32_MAX, NULL) > limit_of(e, p)) {
		e->pin[b] = USMP_NO_POOL;
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
	uint64_t budget = 200000 + 4000 * (uint64_t)n;
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

bool xact_evict_start(const usmp_view *v, const usmp_host *h,
                      const xact_params *kp, xact_clock *clk,
                      usmp_placement *out)
{
	uint32_t n = v->buffer_count;
	size_t m = n ? n : 1;
	ev e = {v, kp, h->alloc(h, m * sizeof *e.pin),
	        h->alloc(h, m * sizeof *e.alive),
	        h->alloc(h, 2 * m * sizeof *e.iv)};
	uint32_t *order = h->alloc(h, m * sizeof *order);
	okey *key = h->alloc(h, m * sizeof *key);
	uint8_t *nb = h->alloc(h, m);
	bool ok = false;
	if (!e.pin || !e.alive || !e.iv || !order || !key || !nb)
		goto fail;
	memset(nb, 0, m);
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		e.pin[b] = r->flags & USMP_BUFFER_FIXED ? r->fixed_pool
		                                        : USMP_NO_POOL;
		out[b] = (usmp_placement){USMP_NO_POOL, 0, 0};
		bool live = r->flags & USMP_BUFFER_LIVE;
		key[b] = (okey){r->candidate_count > 1, !live,
		                live ? r->begin : 0, r->size, b};
	}
	qsort(key, n, sizeof *key, by_key);
	for (uint32_t i = 0; i < n; i++)
		order[i] = key[i].id;
	/* pools by load */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = order[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (e.pin[b] != USMP_NO_POOL)
			continue;
		if (!(r->flags & USMP_BUFFER_LIVE)) {
			e.pin[b] = cand(v, b, 0);
			continue;
		}
		if (fits(&e, b, cand(v, b, 0)))
			e.pin[b] = cand(v, b, 0);
		else
			pin_evicting(&e, b);
		if (e.pin[b] == USMP_NO_POOL)
			e.pin[b] = cand(v, b, r->candidate_count - 1);
	}
	if (sweep_pins(&e, h, clk, out)) {
		ok = true;
		goto fail;
	}
	/* else offsets: fixed as fixed, then first fit in time order in the
	 * pinned pool, else in the next candidate that has room */
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_FIXED)
			out[b] = (usmp_placement){v->buffers[b].fixed_pool, 0,
			                          v->buffers[b].fixed_offset};
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = order[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->flags & USMP_BUFFER_FIXED)
			continue;
		if (v->conflict_start)
			for (uint64_t k = v->conflict_start[b];
			     k < v->conflict_start[b + 1]; k++)
				nb[v->conflict_adj[k]] = 1;
		uint32_t from = index_in(v, b, e.pin[b]);
		for (uint32_t j = 0; j < r->candidate_count; j++) {
			uint32_t c = (from + j) % r->candidate_count;
			uint32_t p = cand(v, b, c);
			uint64_t o = xact_lowest_free(v, kp, out, nb, b, p, e.iv);
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
			goto fail;
	}
	ok = true;
fail:
	if (e.pin)
		h->free(h, e.pin);
	if (e.alive)
		h->free(h, e.alive);
	if (e.iv)
		h->free(h, e.iv);
	if (order)
		h->free(h, order);
	if (key)
		h->free(h, key);
	if (nb)
		h->free(h, nb);
	return ok;
}
