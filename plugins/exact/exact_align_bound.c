/* exact_align_bound.c — exact's own lower bound of one pool's peak: at each
 * time section, the buffers alive rounded up to a common alignment level. */
#include "exact_internal.h"

#include <string.h>

/*
 * Why it holds. Take a time section s, a level M = 2^k, and the free
 * buffers alive in s whose alignment in the pool (max of theirs and the
 * pool's) is at least M: every offset they can get is a multiple of M.
 * They are alive together, so no two share a byte unless an overlap rule
 * lets them; keep only buffers that are in no rule able to share (a rule
 * whose pair's live ranges meet and whose max_lead > -size(dst)). Sorted
 * by offset, each next one starts at or above the previous offset plus its
 * size, and both are multiples of M, so at or above the previous offset
 * plus its size rounded up to M. The top one ends at or above the sum of
 * their rounded sizes less its own rounding slack, hence at or above
 *
 *     sum(roundup(size, M)) - max(roundup(size, M) - size)
 *
 * over those buffers. Every plan's peak is at least that, for every s and
 * M; the bound is the largest value. Level 0 (M = 1) is the plain sum of
 * the sizes. Buffers without a live range (they meet nothing but their
 * edges) and fixed buffers (fixed_peak bounds them) are left out: that
 * only weakens the bound. The host's bound (usmp_view.lower_bound) may be
 * weaker (a host or caller that ignores alignment); the search takes the
 * larger of the two.
 */

/* Marks in skip[] (view indices) the buffers in a rule that could let
 * them share a byte with a partner alive with them. */
static void mark_sharing(const usmp_view *v, uint8_t *skip)
{
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (o->src >= v->buffer_count || o->dst >= v->buffer_count)
			continue;
		if (!usmp_live_overlap(v, o->src, o->dst) ||
		    o->max_lead <= -(int64_t)v->buffers[o->dst].size)
			continue;
		skip[o->src] = 1;
		skip[o->dst] = 1;
	}
}

static unsigned level_of(uint64_t a)
{
	unsigned k = 0;
	while (k < 63 && ((uint64_t)1 << k) < a)
		k++;
	return k;
}

uint64_t xact_align_bound(const xact_model *m, const usmp_view *v)
{
	const usmp_host *h = m->host;
	uint32_t nv = v->buffer_count;
	uint64_t best = 0, levels = 0;
	uint8_t *skip = h->alloc(h, nv ? nv : 1);
	if (!skip)
		return 0; /* out of memory: no bound of its own, still true */
	memset(skip, 0, nv ? nv : 1);
	for (uint32_t i = 0; i < nv; i++)
		if (!(v->buffers[i].flags & USMP_BUFFER_LIVE))
			skip[i] = 1;
	mark_sharing(v, skip);
	for (uint32_t i = 0; i < m->n; i++)
		if (!skip[m->id[i]])
			levels |= (uint64_t)1 << level_of(m->align[i]);
	levels |= 1; /* the plain sum */
	for (uint64_t lm = levels; lm; lm &= lm - 1) {
		unsigned k = (unsigned)__builtin_ctzll(lm);
		uint64_t M = (uint64_t)1 << k;
		for (uint32_t s = 0; s < m->nsect; s++) {
			/* check_scope keeps sum(size + alignment) < XACT_MAXVAL / 4:
			 * the rounded sum cannot overflow. */
			uint64_t sum = 0, slack = 0;
			for (uint64_t e = m->mem_start[s]; e < m->mem_start[s + 1];
			     e++) {
				uint32_t i = m->mem[e];
				if (skip[m->id[i]] || m->align[i] < M)
					continue;
				uint64_t r = (m->size[i] + M - 1) & ~(M - 1);
				sum += r;
				if (r - m->size[i] > slack)
					slack = r - m->size[i];
			}
			if (sum - slack > best)
				best = sum - slack;
		}
	}
	h->free(h, skip);
	return best;
}

/* The alignment a buffer gets in whichever candidate pool it goes to: its
 * own or the smallest of its candidates' (fixed: its pool's), the larger. */
static uint64_t least_align(const usmp_view *v, uint32_t b)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	uint64_t p = UINT64_MAX;
	for (uint32_t k = 0; k < r->candidate_count; k++) {
		uint32_t q = v->candidates[r->candidate_start + k];
		if (q < v->pool_count && v->pools[q].alignment < p)
			p = v->pools[q].alignment;
	}
	if (p == UINT64_MAX)
		p = 1;
	return r->alignment > p ? r->alignment : p;
}

/*
 * Several pools. The same argument in each pool: the free buffers alive at
 * one time (at the begin of one of them) whose alignment there is at least
 * M, none in a sharing rule, sit one above the other at multiples of M.
 * Over every plan (any pool each, any spill): the sum of the pools'
 * high-water marks is at least the sum of their sizes rounded up to M (M
 * at most their least alignment over their candidate pools) less one
 * rounding per pool holding some, at most min(pools, buffers) times the
 * largest. Over the plans without spill (every buffer in its first
 * candidate pool) each pool is bounded alone, at its own time and level,
 * and the bounds add up. O(n^2) per level: for the joint search's views
 * (at most XACT_MULTI_MAX buffers).
 */

/* The bound of pool q (UINT32_MAX: every pool together) at the begin of
 * buffer t and level M; pools: the most pools the set may spread over. */
static uint64_t alive_at(const usmp_view *v, const uint8_t *skip, uint32_t t,
                         uint64_t M, uint32_t q)
{
	unsigned __int128 sum = 0; /* sizes reach 2^64 - 1 in a view */
	uint64_t slack = 0, count = 0;
	int64_t at = v->buffers[t].begin;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		if (skip[i] || r->begin > at || at >= r->end)
			continue;
		uint32_t first = v->candidates[r->candidate_start];
		if (q != UINT32_MAX ? first != q || usmp_buffer_alignment(v, i, q) < M
		                    : least_align(v, i) < M)
			continue;
		uint64_t rem = r->size & (M - 1), sl = rem ? M - rem : 0;
		sum += (unsigned __int128)r->size + sl;
		slack = sl > slack ? sl : slack;
		count++;
	}
	uint64_t pools = q != UINT32_MAX ? 1
	                 : count < v->pool_count ? count : v->pool_count;
	unsigned __int128 sub = (unsigned __int128)pools * slack;
	if (sum <= sub)
		return 0;
	return sum - sub > UINT64_MAX ? UINT64_MAX : (uint64_t)(sum - sub);
}

uint64_t xact_align_bound_view(const usmp_view *v, const usmp_host *h,
                               bool first_pools)
{
	uint32_t n = v->buffer_count;
	uint64_t best = 0, levels = 1;
	uint8_t *skip = h->alloc(h, n ? n : 1);
	if (!skip)
		return 0;
	memset(skip, 0, n ? n : 1);
	for (uint32_t i = 0; i < n; i++)
		if (!(v->buffers[i].flags & USMP_BUFFER_LIVE) ||
		    (v->buffers[i].flags & USMP_BUFFER_FIXED) ||
		    !v->buffers[i].candidate_count)
			skip[i] = 1;
	mark_sharing(v, skip);
	for (uint32_t i = 0; i < n; i++)
		if (!skip[i])
			levels |= (uint64_t)1 << level_of(first_pools
			        ? usmp_buffer_alignment(v, i,
			                v->candidates[v->buffers[i].candidate_start])
			        : least_align(v, i));
	uint32_t qn = first_pools ? v->pool_count : 1;
	for (uint32_t q = 0; q < qn; q++) {
		uint64_t top = 0; /* pool q's bound, or every pool's */
		for (uint64_t lm = levels; lm; lm &= lm - 1) {
			uint64_t M = (uint64_t)1 << __builtin_ctzll(lm);
			for (uint32_t t = 0; t < n; t++) {
				if (skip[t])
					continue;
				uint64_t b = alive_at(v, skip, t, M,
				                      first_pools ? q : UINT32_MAX);
				top = b > top ? b : top;
			}
		}
		best = top > UINT64_MAX - best ? UINT64_MAX : best + top;
	}
	h->free(h, skip);
	return best;
}
