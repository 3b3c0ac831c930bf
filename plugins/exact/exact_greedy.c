/* exact_greedy.c — the quick upper bound the exact search starts from:
 * first-fit and best-fit placement over a few buffer orders, best kept. */
#include "exact_internal.h"

#include <string.h>

enum { ORDERS = 4 };

typedef struct greedy_ctx {
	const xact_model *m;
	const uint64_t *off; /* [n] free offsets, then fixed ones */
	int order;
} greedy_ctx;

static int desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }

static int cmp_order(const void *ctx, uint32_t a, uint32_t b)
{
	const greedy_ctx *g = ctx;
	const xact_model *m = g->m;
	int r = 0;
	switch (g->order) {
	case 0:
		r = desc(m->size[a], m->size[b]);
		break;
	case 1:
		r = m->area[a] > m->area[b] ? -1 : m->area[a] < m->area[b];
		break;
	case 2:
		r = desc(m->width[a], m->width[b]);
		break;
	default:
		r = desc(m->total[a], m->total[b]);
		break;
	}
	if (!r)
		r = desc(m->size[a], m->size[b]);
	return r ? r : (a < b ? -1 : a > b);
}

/* Occupied intervals are numbered: < n free buffers, >= n fixed ones. */
static uint64_t iv_off(const greedy_ctx *g, uint32_t i)
{
	return i < g->m->n ? g->off[i] : g->m->fix_off[i - g->m->n];
}

static uint64_t iv_end(const greedy_ctx *g, uint32_t i)
{
	return i < g->m->n ? g->off[i] + g->m->size[i]
	                   : g->m->fix_end[i - g->m->n];
}

static int cmp_iv(const void *ctx, uint32_t a, uint32_t b)
{
	const greedy_ctx *g = ctx;
	uint64_t x = iv_off(g, a), y = iv_off(g, b);
	return x < y ? -1 : x > y;
}

/* Place b among the occupied intervals iv[cnt] (sorted by offset): the
 * lowest fitting offset (first fit) or the one in the smallest gap that
 * fits (best fit). Gaps are checked against fixed obstacles by fit(). */
static uint64_t choose(const greedy_ctx *g, uint32_t b, const uint32_t *iv,
                       uint32_t cnt, bool best)
{
	const xact_model *m = g->m;
	uint64_t a = m->align[b], sz = m->size[b];
	uint64_t cursor = 0, pick = UINT64_MAX, pick_gap = UINT64_MAX;
	for (uint32_t i = 0; i <= cnt; i++) {
		uint64_t gap_end = i < cnt ? iv_off(g, iv[i]) : UINT64_MAX;
		uint64_t o = (cursor + a - 1) & ~(a - 1);
		if (gap_end > o && gap_end - o >= sz) {
			uint64_t gap = gap_end - cursor;
			if (!best)
				return o;
			if (pick == UINT64_MAX || gap < pick_gap) {
				pick_gap = gap;
				pick = o;
			}
		}
		if (i < cnt && iv_end(g, iv[i]) > cursor)
			cursor = iv_end(g, iv[i]);
	}
	return pick;
}

uint64_t xact_greedy(const xact_model *m, uint64_t *best_off,
                     xact_clock *clk)
{
	const usmp_host *h = m->host;
	uint32_t n = m->n;
	uint64_t best = UINT64_MAX;
	uint32_t *order = h->alloc(h, ((size_t)n + 1) * sizeof *order);
	uint32_t *tmp = h->alloc(h, ((size_t)n + m->nfix + 1) * sizeof *tmp);
	uint32_t *iv = h->alloc(h, ((size_t)n + m->nfix + 1) * sizeof *iv);
	uint64_t *off = h->alloc(h, ((size_t)n + 1) * sizeof *off);
	uint8_t *done = h->alloc(h, (size_t)n + 1);
	if (!order || !tmp || !iv || !off || !done)
		goto out;
	for (int k = 0; k < 2 * ORDERS; k++) {
		greedy_ctx g = {m, off, k / 2};
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
		xact_sort(order, tmp, n, cmp_order, &g);
		memset(done, 0, n);
		uint64_t peak = m->fixed_peak;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t b = order[i], cnt = 0;
			for (uint64_t e = m->nb_start[b]; e < m->nb_start[b + 1]; e++)
				if (done[m->nb[e]])
					iv[cnt++] = m->nb[e];
			for (uint64_t e = m->fx_start[b]; e < m->fx_start[b + 1]; e++)
				iv[cnt++] = n + m->fx[e];
			xact_sort(iv, tmp, cnt, cmp_iv, &g);
			off[b] = choose(&g, b, iv, cnt, k & 1);
			done[b] = 1;
			if (off[b] + m->size[b] > peak)
				peak = off[b] + m->size[b];
		}
		if (peak < best) {
			best = peak;
			memcpy(best_off, off, (size_t)n * sizeof *off);
		}
		if (xact_should_stop(clk))
			break;
	}
out:
	if (order)
		h->free(h, order);
	if (tmp)
		h->free(h, tmp);
	if (iv)
		h->free(h, iv);
	if (off)
		h->free(h, off);
	if (done)
		h->free(h, done);
	return best;
}
