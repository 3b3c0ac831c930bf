/* fit_place.c — placing one buffer: its forbidden ranges scanned (or
 * its pool's gap index asked) pool by pool, and the chosen offset recorded
 * in the structures the problem keeps. */
#include "fit_ctx.h"
#include "../no_fit_msg.h"

#include <stdio.h>

/* Find an offset for b in pool p given the start offsets it may not take
 * there, ranges[0..k) (c->amin, c->amax: their lowest and highest start).
 * USMP_OK with *found and *x set, or an error (out of memory). */
static int fit_scan_pool(fit_ctx *c, uint32_t b, uint32_t p,
                         fit_range *ranges, size_t k, bool *found_out,
                         uint64_t *x)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, p);
	uint64_t limit = v->pools[p].size_limit;
	int rc;
	*found_out = false;
	fit_scan st = { .size = size, .align = align, .limit = limit,
	                .best_fit = c->best_fit, .best_len = UINT64_MAX };
	if ((rc = usmp__fit_scan_sorted(c, &st, ranges, k)))
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

/* Find an offset for b in pool p from the lists. */
static int fit_in_pool(fit_ctx *c, uint32_t b, uint32_t p, bool *found_out,
                       uint64_t *x)
{
	int rc = usmp__fit_ranges(c, b, p);
	if (rc)
		return rc;
	return fit_scan_pool(c, b, p, c->ranges, c->range_count, found_out, x);
}

/* Room for b's m candidates in the grouping of fit_gather, and the pool
 * slots (once). */
static int fit_gather_room(fit_ctx *c, uint32_t m)
{
	const usmp_view *v = c->v;
	if (!c->pslot) {
		c->pslot = host_array(c->h, v->pool_count, sizeof *c->pslot);
		c->pstamp = host_array(c->h, v->pool_count, sizeof *c->pstamp);
		if (!c->pslot || !c->pstamp)
			return USMP_ERR_NOMEM;
		memset(c->pstamp, 0, (size_t)v->pool_count * sizeof *c->pstamp);
		c->pqid = 0;
	}
	if (m > c->pcand_cap) {
		size_t cap = 0, capm = 0, capx = 0;
		int rc;
		if ((rc = fit_grow(c, (void **)&c->pbeg, &cap, m,
		                   sizeof *c->pbeg)) ||
		    (rc = fit_grow(c, (void **)&c->pmin, &capm, cap,
		                   sizeof *c->pmin)) ||
		    (rc = fit_grow(c, (void **)&c->pmax, &capx, cap,
		                   sizeof *c->pmax)))
			return rc;
		c->pcand_cap = cap;
	}
	return USMP_OK;
}

/* The forbidden ranges of b in each of its candidate pools, from one walk
 * of the lists (a walk per pool tried reads every conflicting placed
 * buffer of every pool each time: with thousands of pools, each full when
 * a buffer comes, cubic in the buffers). Candidate i's are
 * c->pranges[start, c->pbeg[i]), start being c->pbeg[i - 1] or 0. */
static int fit_gather(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	uint32_t m = r->candidate_count;
	int rc;
	if ((rc = fit_gather_room(c, m)))
		return rc;
	if (++c->pqid == 0) {
		memset(c->pstamp, 0, (size_t)v->pool_count * sizeof *c->pstamp);
		c->pqid = 1;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		if (p < v->pool_count && c->pstamp[p] != c->pqid) {
			c->pstamp[p] = c->pqid;
			c->pslot[p] = i;
		}
		c->pbeg[i] = 0;
		c->pmin[i] = UINT64_MAX;
		c->pmax[i] = 0;
	}
	c->gather = true;
	rc = usmp__fit_ranges(c, b, USMP_NO_POOL);
	c->gather = false;
	if (rc)
		return rc;
	size_t k = c->range_count;
	if ((rc = fit_grow(c, (void **)&c->pranges, &c->pranges_cap,
	                   k ? k : 1, sizeof *c->pranges)))
		return rc;
	/* counts, then starts, then each range at its candidate's cursor:
	 * pbeg[i] ends as the end of candidate i's ranges */
	for (size_t j = 0; j < k; j++) {
		uint32_t p = c->rpool[j];
		if (p >= v->pool_count || c->pstamp[p] != c->pqid)
			continue;
		uint32_t i = c->pslot[p];
		uint64_t a = c->ranges[j].a;
		c->pbeg[i]++;
		c->pmin[i] = a < c->pmin[i] ? a : c->pmin[i];
		c->pmax[i] = a > c->pmax[i] ? a : c->pmax[i];
	}
	size_t at = 0;
	for (uint32_t i = 0; i < m; i++) {
		size_t cnt = c->pbeg[i];
		c->pbeg[i] = at;
		at += cnt;
	}
	for (size_t j = 0; j < k; j++) {
		uint32_t p = c->rpool[j];
		if (p >= v->pool_count || c->pstamp[p] != c->pqid)
			continue;
		c->pranges[c->pbeg[c->pslot[p]]++] = c->ranges[j];
	}
	return USMP_OK;
}

/* b (not served by the gap index) in its first candidate pool where it
 * fits, its ranges gathered once for all its candidates. */
static int fit_place_gathered(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	int rc = fit_gather(c, b);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < r->candidate_count; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		uint64_t x;
		bool found;
		/* a pool listed twice was tried at its first place */
		if (p >= v->pool_count || c->pslot[p] != i)
			continue;
		size_t from = i ? c->pbeg[i - 1] : 0;
		c->amin = c->pmin[i];
		c->amax = c->pmax[i];
		if ((rc = fit_scan_pool(c, b, p, c->pranges + from,
		                        c->pbeg[i] - from, &found, &x)))
			return rc;
		if (found)
			return usmp__fit_put(c, b, p, x);
	}
	return USMP_ERR_INFEASIBLE;
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
	if (r->candidate_count > 1 && !usmp__fit_gap_serves(c, b)) {
		int rc = fit_place_gathered(c, b);
		if (rc != USMP_ERR_INFEASIBLE)
			return rc;
	} else {
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
	}
	no_fit_msg(c->msg, sizeof c->msg, c->algo, r);
	return USMP_ERR_INFEASIBLE;
}

