/* view_sum.c — a seal over everything a usmp_view shows an algorithm, so
 * that the host sees when a plugin called in process wrote into its view. */
#include "view.h"

#include <string.h>

/* Mix n bytes at p into h, eight at a time. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t w;
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	return ((h ^ w ^ n) * 0x100000001b3ull) ^ (h >> 31);
}

/* The checksum of the arrays of s->view, as long as the seal recorded. */
static uint64_t sum(const usmp__view_seal *s)
{
	const usmp_view *v = &s->view;
	size_t n = v->buffer_count;
	uint64_t h = 0xcbf29ce484222325ull;
	h = mix(h, v->pools, v->pool_count * sizeof *v->pools);
	h = mix(h, v->buffers, n * sizeof *v->buffers);
	h = mix(h, v->candidates, s->candidates * sizeof *v->candidates);
	h = mix(h, v->conflict_start, (n + 1) * sizeof *v->conflict_start);
	h = mix(h, v->conflict_adj, s->adjacent * sizeof *v->conflict_adj);
	h = mix(h, v->degree, n * sizeof *v->degree);
	return mix(h, v->overlaps, v->overlap_count * sizeof *v->overlaps);
}

void usmp__view_seal_make(usmp__view_seal *s, const usmp_view *v)
{
	s->view = *v;
	s->candidates = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->candidate_start + r->candidate_count > s->candidates)
			s->candidates = r->candidate_start + r->candidate_count;
	}
	s->adjacent = v->conflict_start[v->buffer_count];
	s->sum = sum(s);
}

bool usmp__view_seal_broken(const usmp__view_seal *s, usmp_view *v)
{
	if (memcmp(&s->view, v, sizeof *v)) {
		*v = s->view;
		return true;
	}
	return sum(s) != s->sum;
}
