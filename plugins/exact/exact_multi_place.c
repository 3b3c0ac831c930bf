/* exact_multi_place.c — placements in the search of several pools: placing
 * and unplacing a buffer, the fixed buffers, keeping the best plan. */
#include "exact_multi.h"

#include <string.h>

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
