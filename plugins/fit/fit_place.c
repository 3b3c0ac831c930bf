/* fit_place.c — placing one buffer: its forbidden ranges scanned (or
 * its pool's gap index asked) pool by pool, and the chosen offset recorded
 * in the structures the problem keeps. */
#include "fit_ctx.h"
#include "../no_fit_msg.h"

#include <stdio.h>

/* Find an offset for b in pool p. USMP_OK with *found and *x set, or an
 * error (out of memory). */
static int fit_in_pool(fit_ctx *c, uint32_t b, uint32_t p, bool *found_out,
                       uint64_t *x)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, p);
	uint64_t limit = v->pools[p].size_limit;
	*found_out = false;
	int rc = usmp__fit_ranges(c, b, p);
	if (rc)
		return rc;
	size_t k = c->range_count;

	fit_scan st = { .size = size, .align = align, .limit = limit,
	                .best_fit = c->best_fit, .best_len = UINT64_MAX };
	if ((rc = usmp__fit_scan_sorted(c, &st, c->ranges, k)))
		return rc;
	if (st.found) {
		*x = st.best_x;
		*found_out = true;
		return USMP_OK;
	}
	/* The open space above everything (when the scan stopped early, s is
	 * below the gap that already exceeded the limit, so this fails too). */
	bool ok = true;
	uint64_t cx = usmp_align_up(st.s, align, &ok);
	uint64_t endx = cx + size;
	if (ok && endx >= cx && endx <= limit) {
		*x = cx;
		*found_out = true;
	}
	return USMP_OK;
}

/* b's offset in pool p through p's gap index. */
static bool fit_gap_place(fit_ctx *c, uint32_t b, uint32_t p, uint64_t *x)
{
	const usmp_view *v = c->v;
	bool live = fit_live(v, b) && c->tcount;
	uint32_t lo = live ? c->lo[b] : 0, hi = live ? c->hi[b] : 0;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, p);
	uint64_t limit = v->pools[p].size_limit;
	if (c->best_fit)
		return usmp__fit_gidx_best(&c->gidx[p], live, lo, hi, size, align,
		                           limit, x);
	return usmp__fit_gidx_first(&c->gidx[p], live, lo, hi, size, align,
	                            limit, x);
}

int usmp__fit_put(fit_ctx *c, uint32_t b, uint32_t p, uint64_t x)
{
	c->work[b].pool = p;
	c->work[b].reserved = 0;
	c->work[b].offset = x;
	uint64_t end = fit_sat_add(x, c->v->buffers[b].size);
	bool live = c->tcount && fit_live(c->v, b);
	int rc;
	/* empty buffers stay out of the index (fit_gap_choice.c) */
	if (c->gap && live && c->gpool[p] && c->v->buffers[b].size &&
	    (rc = usmp__fit_gidx_insert(&c->gidx[p], c->lo[b], c->hi[b], x,
	                                end)))
		return rc;
	if (!c->lists)
		return USMP_OK;
	c->owner[b].pool = p;
	c->owner[b].buf = b;
	c->place[b].off = x;
	c->place[b].end = end;
	if (live)
		usmp__fit_index_insert(c, b);
	return USMP_OK;
}

/* Prepare placing b: a fresh query id and b's rule partners. */
void usmp__fit_begin(fit_ctx *c, uint32_t b)
{
	if (!c->radj)
		return;
	if (c->qid == UINT32_MAX) {
		memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
		c->qid = 0;
	}
	c->qid++;
	usmp__fit_rules_mark(c, b);
}

int usmp__fit_place(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	usmp__fit_begin(c, b);
	for (uint32_t i = 0; i < r->candidate_count; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		uint64_t x;
		bool found;
		if (p >= v->pool_count)
			continue;
		if (usmp__fit_gap_serves(c, b)) {
			found = fit_gap_place(c, b, p, &x);
		} else {
			int rc = fit_in_pool(c, b, p, &found, &x);
			if (rc)
				return rc;
		}
		if (found)
			return usmp__fit_put(c, b, p, x);
	}
	no_fit_msg(c->msg, sizeof c->msg, c->algo, r);
	return USMP_ERR_INFEASIBLE;
}

