/* exact_multi_bound.c — a node of the search of several pools: the lowest
 * offset of each unplaced buffer in each pool, the moves, lower bounds. */
#include "exact_multi.h"

#include <string.h>

/* The lowest offset >= from, aligned, where b meets no placed buffer of
 * pool p it conflicts with; plist[p] is sorted by offset. */
static uint64_t lowest_native(const xact_mp *s, uint32_t b, uint32_t p,
                              uint64_t from);

static inline uint64_t lowest(const xact_mp *s, uint32_t b, uint32_t p,
                              uint64_t from)
{
	if (s->native)
		return lowest_native(s, b, p, from);
	bool ok = true;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	uint64_t x = usmp_align_up(from, a, &ok), sz = s->v->buffers[b].size;
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint32_t c = l[i];
		if (!conflicts(s, b, c))
			continue;
		if (s->off[c] >= x + sz)
			break;
		uint64_t e = s->off[c] + s->v->buffers[c].size;
		if (e > x)
			x = usmp_align_up(e, a, &ok);
	}
	return x;
}

/* lowest() when rule pairs may share as their rules allow: a placed
 * partner forbids only the offsets where the pair overlaps and the rule
 * does not hold, so passes repeat until no placed buffer objects. */
static uint64_t lowest_native(const xact_mp *s, uint32_t b, uint32_t p,
                              uint64_t from)
{
	bool ok = true;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	uint64_t x = usmp_align_up(from, a, &ok), sz = s->v->buffers[b].size;
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (bool moved = true; moved;) {
		moved = false;
		for (uint32_t i = 0; i < s->pcount[p]; i++) {
			uint32_t c = l[i];
			if (!conflicts(s, b, c))
				continue;
			uint64_t oc = s->off[c], ec = oc + s->v->buffers[c].size;
			if (oc >= x + sz)
				break;
			if (ec <= x)
				continue;
			uint64_t to = ec;
			int64_t cb = s->leadm[(size_t)c * s->n + b];
			int64_t bc = s->leadm[(size_t)b * s->n + c];
			if (cb != INT64_MIN && (int64_t)x <= (int64_t)oc + cb)
				continue; /* b is dst, at or below oc + lead */
			if (bc != INT64_MIN) {
				/* b is src: fine from oc - lead on */
				if ((int64_t)x >= (int64_t)oc - bc)
					continue;
				if ((int64_t)oc - bc < (int64_t)ec)
					to = (uint64_t)((int64_t)oc - bc);
			}
			x = usmp_align_up(to, a, &ok);
			moved = true;
		}
	}
	return x;
}

/* Whole buffers spill: of the unplaced buffers alive in section t that
 * prefer pool p, the ones leaving must free ex bytes of their charges (a
 * charge is at most the size), so at least m leave (m: the fewest whose
 * largest charges reach ex), so at least the m smallest sizes spill. */
static uint64_t cover(xact_mp *s, uint32_t t, uint32_t p, uint64_t ex)
{
	uint64_t *z = s->zbuf, *c = s->zbuf + s->n;
	uint32_t k = 0;
	for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
		uint32_t b = s->sect_mem[i];
		if (s->pool[b] != USMP_NO_POOL || first_cand(s, b) != p ||
		    !(s->amask[b] >> p & 1))
			continue;
		uint64_t sz = s->v->buffers[b].size, ch = s->charge[i];
		uint32_t j = k, h = k++;
		while (j > 0 && z[j - 1] < sz) { /* sizes, descending */
			z[j] = z[j - 1];
			j--;
		}
		z[j] = sz;
		while (h > 0 && c[h - 1] < ch) { /* charges, descending */
			c[h] = c[h - 1];
			h--;
		}
		c[h] = ch;
	}
	uint64_t big = 0, small = 0;
	uint32_t m = 0;
	while (m < k && big < ex)
		big += c[m++];
	for (uint32_t i = 0; i < m; i++)
		small += z[k - 1 - i];
	return small > ex ? small : ex;
}

/* Where each unplaced buffer can still go (amask, with its lowest offsets
 * in ybuf); false when some buffer fits no pool any more. *hard: the spill
 * no completion avoids (buffers whose first pool is out of reach). */
static bool reachable_pools(xact_mp *s, uint64_t *hard_out)
{
	const usmp_view *v = s->v;
	uint64_t hard = s->spill;
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint32_t cc;
		const uint32_t *c = cands(s, b, &cc);
		uint64_t sz = v->buffers[b].size, m = 0;
		for (uint32_t j = 0; j < cc; j++) {
			uint32_t p = c[j];
			uint64_t y = lowest(s, b, p, s->last_o);
			s->ybuf[(size_t)b * s->P + p] = y;
			if (y + sz <= s->limit[p])
				m |= UINT64_C(1) << p;
		}
		if (!m)
			return false;
		uint32_t f = first_cand(s, b);
		if (!(m >> f & 1))
			hard += sz;
		s->amask[b] = m;
	}
	/* A buffer whose spill alone would exceed the best plan's stays in
	 * its first pool: nothing better spills it. */
	for (uint32_t b = 0; b < s->n && s->have; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint32_t f = first_cand(s, b);
		if ((s->amask[b] >> f & 1) &&
		    hard + v->buffers[b].size > s->best_spill)
			s->amask[b] = UINT64_C(1) << f;
	}
	*hard_out = hard;
	return true;
}

/* The node's moves into mv (returns their count), and in base[p] the top
 * every buffer bound to pool p alone reaches at least. */
static uint32_t node_moves(xact_mp *s, uint64_t *base, xact_move *mv)
{
	const usmp_view *v = s->v;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint64_t m = s->amask[b], sz = v->buffers[b].size;
		if (!(m & (m - 1))) {
			uint32_t only = (uint32_t)__builtin_ctzll(m);
			uint64_t e = s->ybuf[(size_t)b * s->P + only] + sz;
			if (e > base[only])
				base[only] = e;
		}
		if (s->twin[b] != UINT32_MAX &&
		    s->pool[s->twin[b]] == USMP_NO_POOL)
			continue;
		/* A move only where nothing lower fits (canonical plans: each
		 * buffer at the lowest offset the buffers before it leave,
		 * offsets in (offset, rank) order). */
		if (s->started && s->rank[b] < s->last_rank) {
			/* at last_o itself it would come out of rank order */
			for (uint32_t p = 0; p < s->P; p++)
				if ((m >> p & 1) &&
				    s->ybuf[(size_t)b * s->P + p] == s->last_o)
					m &= ~(UINT64_C(1) << p);
		}
		for (uint32_t p = 0; p < s->P; p++) {
			if (!(m >> p & 1))
				continue;
			uint64_t y = s->ybuf[(size_t)b * s->P + p];
			if (s->last_o > 0 && lowest(s, b, p, 0) != y)
				continue;
			mv[k++] = (xact_move){y, b, p, p == first_cand(s, b) ? 0 : 1};
		}
	}
	return k;
}

/* Per time section: buffers bound to one pool and alive together stack
 * above the current offset (they conflict pairwise), raising base[p];
 * those preferring a pool beyond its room above it must partly spill; all
 * of them stack somewhere (ssum, used by total_bound). Returns the spill
 * that forces. */
static uint64_t section_spill(xact_mp *s, uint64_t *base)
{
	if (s->nsect)
		memset(s->fsum, 0, (size_t)s->P * s->nsect * sizeof *s->fsum);
	for (uint32_t t = 0; t < s->nsect; t++) {
		uint64_t pref[64] = {0}, all = 0;
		for (uint32_t p = 0; p < s->P; p++)
			s->reach[(size_t)p * s->nsect + t] = t + 1;
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
			uint32_t b = s->sect_mem[i];
			if (s->pool[b] != USMP_NO_POOL)
				continue;
			uint64_t m = s->amask[b], sz = s->charge[i];
			uint32_t f = first_cand(s, b);
			if (m >> f & 1) {
				pref[f] += sz;
				uint32_t *rr = &s->reach[(size_t)f * s->nsect + t];
				if (s->send[b] > *rr)
					*rr = s->send[b];
			}
			all += sz;
			if (!(m & (m - 1)))
				s->fsum[(size_t)__builtin_ctzll(m) * s->nsect + t] += sz;
		}
		s->ssum[t] = all;
		for (uint32_t p = 0; p < s->P; p++) {
			uint64_t f = s->fsum[(size_t)p * s->nsect + t];
			if (f && s->last_o + f > base[p])
				base[p] = s->last_o + f;
			uint64_t room = s->limit[p] > s->last_o
			                        ? s->limit[p] - s->last_o : 0;
			uint64_t ex = pref[p] > room ? pref[p] - room : 0;
			if (ex)
				ex = cover(s, t, p, ex);
			s->exc[(size_t)p * s->nsect + t] = ex;
		}
	}
	/* Sections that share no such buffer spill apart: the best sum of
	 * excesses over sections no buffer joins (a walk in time). */
	uint64_t pref_spill = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		const uint64_t *ex = s->exc + (size_t)p * s->nsect;
		const uint32_t *rr = s->reach + (size_t)p * s->nsect;
		s->dp[s->nsect] = 0;
		for (uint32_t t = s->nsect; t-- > 0;) {
			uint64_t take = ex[t] ? ex[t] + s->dp[rr[t]] : 0;
			s->dp[t] = take > s->dp[t + 1] ? take : s->dp[t + 1];
		}
		pref_spill += s->dp[0];
	}
	return pref_spill;
}

/* A lower bound of the pools' total size from the bases; false when what
 * must go into some pool does not fit it. */
static bool total_bound(xact_mp *s, const uint64_t *base, uint64_t *total_out)
{
	const usmp_view *v = s->v;
	uint64_t total = 0, extra = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		if (base[p] > s->limit[p])
			return false;
		total += base[p];
	}
	/* One buffer with a choice of pools still raises one of them. */
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint64_t least = UINT64_MAX, sz = v->buffers[b].size;
		for (uint32_t p = 0; p < s->P; p++) {
			if (!(s->amask[b] >> p & 1))
				continue;
			uint64_t y = s->ybuf[(size_t)b * s->P + p];
			uint64_t e = y + sz > base[p] ? y + sz - base[p] : 0;
			if (e < least)
				least = e;
		}
		if (least != UINT64_MAX && least > extra)
			extra = least;
	}
	total += extra;
	/* Each section's unplaced buffers lie above the current offset, apart
	 * within each pool: what the pools' bases leave above it takes some,
	 * the rest raises the sum. */
	uint64_t slack = 0, sum = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		sum += base[p];
		slack += base[p] > s->last_o ? base[p] - s->last_o : 0;
	}
	for (uint32_t t = 0; t < s->nsect; t++)
		if (s->ssum[t] > slack && sum + s->ssum[t] - slack > total)
			total = sum + s->ssum[t] - slack;
	*total_out = total;
	return true;
}

/* Lower bounds of the node (spill, total) and its moves; false when some
 * unplaced buffer fits no pool any more. */
bool xact_mp_bound(xact_mp *s, uint64_t *spill_lb, uint64_t *total_lb,
                   xact_move *mv, uint32_t *nmv)
{
	uint64_t base[64], hard, total;
	for (uint32_t p = 0; p < s->P; p++)
		base[p] = s->hw[p];
	if (!reachable_pools(s, &hard))
		return false;
	*nmv = node_moves(s, base, mv);
	uint64_t pref_spill = section_spill(s, base);
	if (!total_bound(s, base, &total))
		return false;
	uint64_t spill = s->spill + pref_spill;
	if (hard > spill)
		spill = hard;
	*spill_lb = spill > s->spill_floor ? spill : s->spill_floor;
	*total_lb = total;
	return true;
}

/* lowest() for the first plans (exact_multi_incumbent.c); lowest() itself
 * stays static so that the bounds above get it inlined. */
uint64_t xact_mp_lowest(const xact_mp *s, uint32_t b, uint32_t p,
                        uint64_t from)
{
	return lowest(s, b, p, from);
}
