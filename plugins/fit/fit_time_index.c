/* fit_time_index.c — the time index over placed buffers (a segment tree over
 * begin times plus lists of beginners) and its query for one placement.
 *
 * Placed buffers with live ranges sit in a segment tree over the distinct
 * begin times for "alive at my begin" plus per-time lists of "begins
 * inside my range", laid end to end so a range of times is one stretch of
 * memory, so a placement reads only the k placed buffers it conflicts
 * with, never a scan of every placed buffer. */
#include "fit_ctx.h"

#define FIT_NONE UINT32_MAX

/* First index in times[0..count) whose value is >= t. */
static uint32_t fit_lower(const int64_t *times, uint32_t count, int64_t t)
{
	uint32_t l = 0, r = count;
	while (l < r) {
		uint32_t m = l + (r - l) / 2;
		if (times[m] < t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* The canonical segment tree nodes of b's leaves; returns their count
 * (at most 2 * 32). */
static unsigned fit_nodes(const fit_ctx *c, uint32_t b, uint32_t *nodes)
{
	uint64_t lo = (uint64_t)c->lo[b] + c->tsize;
	uint64_t hi = (uint64_t)c->hi[b] + c->tsize + 1;
	unsigned k = 0;
	while (lo < hi) {
		if (lo & 1)
			nodes[k++] = (uint32_t)lo++;
		if (hi & 1)
			nodes[k++] = (uint32_t)--hi;
		lo >>= 1;
		hi >>= 1;
	}
	return k;
}

int usmp__fit_index_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint32_t live = 0;
	for (uint32_t b = 0; b < c->n; b++)
		if (fit_live(v, b))
			c->times[live++] = v->buffers[b].begin;
	if (live) {
		int64_t *tmp = host_array(c->h, live, sizeof *tmp);
		if (!tmp)
			return USMP_ERR_NOMEM;
		FIT_RADIX_SORT(int64_t, c->times, tmp, (size_t)live,
		               FIT_TIME_KEY);
		host_release(c->h, tmp);
	}
	uint32_t u = 0;
	for (uint32_t i = 0; i < live; i++)
		if (u == 0 || c->times[u - 1] != c->times[i])
			c->times[u++] = c->times[i];
	c->tcount = u;
	if (u == 0) { /* edges only: the lists' spans */
		c->gap = false;
		c->lists = true;
		return USMP_OK;
	}
	c->tsize = 1;
	while (c->tsize < u) {
		if (c->tsize > UINT32_MAX / 4)
			return USMP_ERR_NOMEM;
		c->tsize *= 2;
	}
	size_t nodes = 2 * (size_t)c->tsize;
	uint64_t cover = 0; /* sum over leaves of the buffers alive there */
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b))
			continue;
		c->lo[b] = fit_lower(c->times, u, v->buffers[b].begin);
		c->hi[b] = fit_lower(c->times, u, v->buffers[b].end) - 1;
		cover += (uint64_t)c->hi[b] - c->lo[b] + 1;
	}
	/* With few buffers alive at a time the lists are cheaper (a
	 * placement reads a handful of spans) and smaller. */
	if (cover < FIT_GAP_MIN_ALIVE * (uint64_t)u)
		c->gap = false;
	c->lists = true;
	int rc;
	if (c->gap && (rc = usmp__fit_gap_setup(c, cover, live)))
		return rc;
	if (!c->lists) /* the gap index serves every buffer */
		return USMP_OK;
	c->nlist = host_array(c->h, nodes, sizeof *c->nlist);
	c->slist = host_array(c->h, u, sizeof *c->slist);
	c->sarr = host_array(c->h, live, sizeof *c->sarr);
	c->swho = host_array(c->h, live, sizeof *c->swho);
	c->words0 = (size_t)(u + 63) / 64;
	c->words1 = (c->words0 + 63) / 64;
	c->bits0 = host_array(c->h, c->words0, sizeof *c->bits0);
	c->bits1 = host_array(c->h, c->words1, sizeof *c->bits1);
	c->fen = host_array(c->h, (size_t)u + 1, sizeof *c->fen);
	c->slive = live;
	if (!c->nlist || !c->slist || !c->sarr || !c->swho ||
	    !c->bits0 || !c->bits1 || !c->fen)
		return USMP_ERR_NOMEM;
	memset(c->nlist, 0, nodes * sizeof *c->nlist);
	memset(c->slist, 0, (size_t)u * sizeof *c->slist);
	uint32_t nd[70];
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b))
			continue;
		unsigned k = fit_nodes(c, b, nd);
		for (unsigned i = 0; i < k; i++)
			c->nlist[nd[i]].start++; /* counts, for now */
		c->slist[c->lo[b]].start++;
	}
	/* Lay the node lists out in in-order (node between its subtrees), so
	 * the low nodes on a leaf's root path sit near each other in memory.
	 * In-order rank r: depth H - ctz(r + 1), index (r + 1) >> (ctz + 1). */
	unsigned H = (unsigned)__builtin_ctzll(c->tsize);
	uint64_t at = 0;
	for (uint64_t r = 0; r + 1 < nodes; r++) {
		unsigned t = (unsigned)__builtin_ctzll(r + 1);
		uint64_t node = (1ull << (H - t)) + ((r + 1) >> (t + 1));
		uint64_t cnt = c->nlist[node].start;
		c->nlist[node].start = at;
		at += cnt;
	}
	uint64_t sat = 0;
	for (uint32_t i = 0; i < u; i++) {
		uint64_t cnt = c->slist[i].start;
		c->slist[i].start = sat;
		sat += cnt;
	}
	c->narr = host_array(c->h, (size_t)at, sizeof *c->narr);
	c->nwho = host_array(c->h, (size_t)at, sizeof *c->nwho);
	if (!c->narr || !c->nwho)
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

/* Mark nothing placed. */
void usmp__fit_index_reset(fit_ctx *c)
{
	if (!c->tcount)
		return;
	for (uint32_t p = 0; c->gap && p < c->v->pool_count; p++)
		if (c->gpool[p])
			usmp__fit_gidx_reset(&c->gidx[p]);
	if (!c->lists)
		return;
	for (size_t i = 0; i < 2 * (size_t)c->tsize; i++)
		c->nlist[i].cnt = 0;
	for (uint32_t i = 0; i < c->tcount; i++)
		c->slist[i].cnt = 0;
	memset(c->bits0, 0, c->words0 * sizeof *c->bits0);
	memset(c->bits1, 0, c->words1 * sizeof *c->bits1);
	memset(c->fen, 0, ((size_t)c->tcount + 1) * sizeof *c->fen);
	/* every slot of sarr empty: a span no placement collides with, in
	 * no pool */
	for (uint64_t i = 0; i < c->slive; i++) {
		c->sarr[i].off = 0;
		c->sarr[i].end = 0;
		c->swho[i].pool = USMP_NO_POOL;
		c->swho[i].buf = 0;
	}
}

/* Number of placed live buffers that begin at leaves [0, j). */
static uint64_t fit_placed_before(const fit_ctx *c, uint32_t j)
{
	uint64_t t = 0;
	for (; j > 0; j &= j - 1)
		t += c->fen[j];
	return t;
}

/* Record placed live buffer b (its span is c->place[b]) in its lists. */
void usmp__fit_index_insert(fit_ctx *c, uint32_t b)
{
	uint32_t nd[70];
	unsigned k = fit_nodes(c, b, nd);
	for (unsigned j = 0; j < k; j++) {
		uint64_t at = c->nlist[nd[j]].start + c->nlist[nd[j]].cnt++;
		c->narr[at] = c->place[b];
		c->nwho[at] = c->owner[b];
	}
	uint32_t l = c->lo[b];
	uint64_t sat = c->slist[l].start + c->slist[l].cnt++;
	c->sarr[sat] = c->place[b];
	c->swho[sat] = c->owner[b];
	c->bits0[l >> 6] |= 1ull << (l & 63);
	c->bits1[l >> 12] |= 1ull << ((l >> 6) & 63);
	for (uint32_t j = l + 1; j <= c->tcount; j += j & (0u - j))
		c->fen[j]++;
}

/* Smallest leaf in [j, r] where a placed buffer begins, or FIT_NONE. */
static uint32_t fit_next_start(const fit_ctx *c, uint32_t j, uint32_t r)
{
	if (j > r || j >= c->tcount)
		return FIT_NONE;
	size_t w = j >> 6;
	uint64_t m = c->bits0[w] & (~0ull << (j & 63));
	if (m) {
		uint32_t k = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
		return k <= r ? k : FIT_NONE;
	}
	w++;
	while (w < c->words0 && w * 64 <= r) {
		size_t W = w >> 6;
		uint64_t m1 = c->bits1[W] & (~0ull << (w & 63));
		if (m1) {
			w = W * 64 + (size_t)__builtin_ctzll(m1);
			uint32_t k = (uint32_t)(w * 64 +
			                        (size_t)__builtin_ctzll(c->bits0[w]));
			return k <= r ? k : FIT_NONE;
		}
		w = (W + 1) * 64;
	}
	return FIT_NONE;
}

/* Fill c->ranges with the start offsets that buffer b may not take in pool
 * p (in every pool, each range's pool in c->rpool, when c->gather), one
 * range per placed conflicting buffer there, each buffer once: live
 * ones alive at b's begin (the leaf's root path: a buffer sits in at most
 * one node on it), live ones beginning inside b's range (never in the first
 * set), then edge neighbours not already met. */
int usmp__fit_ranges(fit_ctx *c, uint32_t b, uint32_t p)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	int rc;
	c->range_count = 0;
	c->amin = UINT64_MAX;
	c->amax = 0;
	if (fit_live(v, b) && c->tcount) {
		uint32_t l = c->lo[b], r = c->hi[b];
		for (uint64_t node = (uint64_t)l + c->tsize; node; node >>= 1)
			if ((rc = usmp__fit_add_spans(c, size, p,
			                              c->narr + c->nlist[node].start,
			                              c->nwho + c->nlist[node].start,
			                              (uint32_t)c->nlist[node].cnt)))
				return rc;
		/* The beginners of leaves l+1..r fill one stretch of sarr,
		 * with empty slots for those not placed yet: read it in one
		 * go unless it is mostly empty, else visit the leaves that
		 * have a placed beginner. */
		if (l < r) {
			uint64_t from = c->slist[l + 1].start;
			uint64_t to = r + 1 < c->tcount ? c->slist[r + 1].start
			                                : c->slive;
			uint64_t placed = fit_placed_before(c, r + 1) -
			                  fit_placed_before(c, l + 1);
			if (placed * 8 >= to - from) {
				if ((rc = usmp__fit_add_spans(c, size, p, c->sarr + from,
				                              c->swho + from,
				                              (uint32_t)(to - from))))
					return rc;
			} else {
				for (uint32_t j = fit_next_start(c, l + 1, r);
				     j != FIT_NONE; j = fit_next_start(c, j + 1, r))
					if ((rc = usmp__fit_add_spans(
						           c, size, p,
						           c->sarr + c->slist[j].start,
						           c->swho + c->slist[j].start,
						           (uint32_t)c->slist[j].cnt)))
						return rc;
			}
		}
	}
	if (!v->conflict_start || !v->conflict_adj)
		return USMP_OK;
	for (uint64_t k = v->conflict_start[b]; k < v->conflict_start[b + 1];
	     k++) {
		uint32_t o = v->conflict_adj[k];
		if (o == b || o >= c->n ||
		    (c->gather ? c->owner[o].pool == USMP_NO_POOL
		               : c->owner[o].pool != p) ||
		    usmp_live_overlap(v, b, o))
			continue;
		if ((rc = usmp__fit_add_spans(c, size, p, &c->place[o], &c->owner[o],
		                              1)))
			return rc;
	}
	return USMP_OK;
}

