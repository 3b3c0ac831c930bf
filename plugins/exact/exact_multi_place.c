/* exact_multi_place.c — placements in the search of several pools: the lowest
 * offset a buffer may take in a pool, placing and unplacing, the best plan. */
#include "exact_multi.h"

#include <string.h>

/* The lowest offset >= from, aligned, where b meets no placed buffer of
 * pool p it conflicts with; plist[p] is sorted by offset. */
static uint64_t lowest_native(const xact_mp *s, uint32_t b, uint32_t p,
                              uint64_t from);

uint64_t xact_mp_lowest(const xact_mp *s, uint32_t b, uint32_t p, uint64_t from)
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

/* xact_mp_lowest() when rule pairs may share as their rules allow: a placed
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

/* Insert c into pool p's list, keeping it sorted by offset. */
static void list_insert(xact_mp *s, uint32_t c, uint32_t p)
{
	uint32_t *l = s->plist + (size_t)p * s->n;
	uint32_t i = s->pcount[p]++;
	while (i > 0 && s->off[l[i - 1]] > s->off[c]) {
		l[i] = l[i - 1];
		i--;
	}
	l[i] = c;
}

void xact_mp_place(xact_mp *s, uint32_t b, uint32_t p, uint64_t x)
{
	s->pool[b] = p;
	s->off[b] = x;
	list_insert(s, b, p);
	if (p != first_cand(s, b))
		s->spill += s->v->buffers[b].size;
}

void xact_mp_unplace(xact_mp *s, uint32_t b)
{
	uint32_t p = s->pool[b];
	uint32_t *l = s->plist + (size_t)p * s->n;
	uint32_t i = 0;
	while (l[i] != b)
		i++;
	memmove(l + i, l + i + 1, (size_t)(s->pcount[p] - i - 1) * sizeof *l);
	s->pcount[p]--;
	if (p != first_cand(s, b))
		s->spill -= s->v->buffers[b].size;
	s->pool[b] = USMP_NO_POOL;
}

bool xact_mp_better(const xact_mp *s, uint64_t spill, uint64_t total)
{
	return !s->have || spill < s->best_spill ||
	       (spill == s->best_spill && total < s->best_total);
}

void xact_mp_record(xact_mp *s)
{
	uint64_t total = 0;
	for (uint32_t p = 0; p < s->P; p++)
		total += s->hw[p];
	if (!xact_mp_better(s, s->spill, total))
		return;
	memcpy(s->bpool, s->pool, (size_t)s->n * sizeof *s->pool);
	memcpy(s->boff, s->off, (size_t)s->n * sizeof *s->off);
	s->have = true;
	s->best_spill = s->spill;
	s->best_total = total;
	if (s->h->progress)
		s->h->progress(s->h, total);
}

/* Place the fixed buffers; false when two of them clash. */
bool xact_mp_place_fixed(xact_mp *s)
{
	const usmp_view *v = s->v;
	for (uint32_t b = 0; b < s->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_FIXED))
			continue;
		uint32_t p = r->fixed_pool;
		const uint32_t *l = s->plist + (size_t)p * s->n;
		for (uint32_t i = 0; i < s->pcount[p]; i++) {
			uint32_t c = l[i];
			if (conflicts(s, b, c) && s->off[c] < r->fixed_offset + r->size &&
			    r->fixed_offset < s->off[c] + v->buffers[c].size &&
			    !(s->native && xact_mp_rule_holds(s, b, c, r->fixed_offset,
			                                      s->off[c])))
				return false;
		}
		xact_mp_place(s, b, p, r->fixed_offset);
		if (r->fixed_offset + r->size > s->hw[p])
			s->hw[p] = r->fixed_offset + r->size;
	}
	return true;
}
