/* view.c — the flat, read-only usmp_view of a prepared problem or of a subset
 * of its buffers, with the maps back to problem indices. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* View index of problem buffer b, NONE when not in the view. Subsets use a
 * binary search, so a view of a small part never costs O(problem). */
static uint32_t view_index(const uint32_t *ids, uint32_t n, size_t N,
                           uint32_t b)
{
	if (b >= N)
		return NONE;
	if (!ids)
		return b;
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == b ? lo : NONE;
}

void usmp__view_finish(usmp__view_store *s)
{
	if (!s)
		return;
	free(s->pools);
	free(s->buffers);
	free(s->candidates);
	free(s->conflict_start);
	free(s->conflict_adj);
	free(s->degree);
	free(s->overlaps);
	free(s->buffer_map);
	free(s->pool_map);
	memset(s, 0, sizeof *s);
}

static int view_build(usmp_problem *p, const uint32_t *ids, uint32_t n,
                      usmp__view_store *out, char **msg, int to_check)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t *pool_inv = NULL;
	usmp__edge *edges = NULL;
	uint64_t *keys = NULL;
	uint32_t *idx = NULL;
	size_t P = p->pool_count, N = p->buffer_count;
	memset(out, 0, sizeof *out);
	if (P == 0 || P > UINT32_MAX || N > UINT32_MAX) {
		usmp__set_msg(msg, "%s", P == 0 ? "view: the problem has no pool "
		                                  "(it was not prepared)"
		                                : "view: too many pools or buffers");
		return P == 0 ? USMP_ERR_INTERNAL : USMP_ERR_INVALID;
	}
	if (!ids)
		n = (uint32_t)N;
	for (uint32_t i = 0; ids && i < n; i++)
		if (ids[i] >= N || (i && ids[i] <= ids[i - 1])) {
			usmp__set_msg(msg, "view: buffer ids must be ascending and below "
			                   "%zu (ids[%u] = %u)", N, i, ids[i]);
			return USMP_ERR_INVALID;
		}
#define BUF(i) (&p->buffers[ids ? ids[i] : (i)])

	/* Pools: every pool for the whole problem, else those a buffer of the
	 * subset can use (all of them when a buffer has no candidate list). */
	pool_inv = malloc(P * sizeof *pool_inv);
	if (!pool_inv)
		goto nomem;
	int every = !ids;
	for (size_t q = 0; q < P; q++)
		pool_inv[q] = NONE;
	for (uint32_t i = 0; i < n && !every; i++) {
		const usmp__buffer *b = BUF(i);
		/* No list means every pool, except for a fixed buffer: its one
		 * possible pool is the fixed one. */
		if (b->candidate_count == 0 && !(b->flags & USMP_BUFFER_FIXED))
			every = 1;
		for (uint32_t c = 0; c < b->candidate_count; c++)
			if (b->candidates[c] < P)
				pool_inv[b->candidates[c]] = 0;
		if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P)
			pool_inv[b->fixed_pool] = 0;
	}
	uint32_t vp = 0;
	for (size_t q = 0; q < P; q++)
		if (every || pool_inv[q] == 0)
			pool_inv[q] = vp++;
		else
			pool_inv[q] = NONE;
	out->pools = malloc((vp ? vp : 1) * sizeof *out->pools);
	out->pool_map = malloc((vp ? vp : 1) * sizeof *out->pool_map);
	if (!out->pools || !out->pool_map)
		goto nomem;
	for (size_t q = 0; q < P; q++)
		if (pool_inv[q] != NONE) {
			usmp_pool_rec *r = &out->pools[pool_inv[q]];
			r->name = p->pools[q].name;
			r->size_limit = p->pools[q].size_limit;
			r->alignment = p->pools[q].alignment ? p->pools[q].alignment : 1;
			out->pool_map[pool_inv[q]] = (uint32_t)q;
		}

	/* Buffers, with candidate lists expanded. */
	size_t sz = n ? n : 1;
	out->buffers = calloc(sz, sizeof *out->buffers);
	out->buffer_map = malloc(sz * sizeof *out->buffer_map);
	out->degree = malloc(sz * sizeof *out->degree);
	out->conflict_start = malloc((sz + 1) * sizeof *out->conflict_start);
	if (!out->buffers || !out->buffer_map || !out->degree ||
	    !out->conflict_start)
		goto nomem;
	uint64_t cand_total = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = BUF(i);
		cand_total += b->candidate_count ? b->candidate_count : vp;
	}
	if (cand_total > SIZE_MAX / sizeof *out->candidates)
		goto nomem;
	out->candidates = malloc((cand_total ? (size_t)cand_total : 1) *
	                         sizeof *out->candidates);
	if (!out->candidates)
		goto nomem;
	uint64_t ci = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = BUF(i);
		usmp_buffer_rec *r = &out->buffers[i];
		uint32_t pi = ids ? ids[i] : i;
		out->buffer_map[i] = pi;
		r->name = b->name;
		r->size = b->size;
		r->alignment = b->alignment ? b->alignment : 1;
		r->flags = b->flags & (USMP_BUFFER_LIVE | USMP_BUFFER_FIXED);
		if (r->flags & USMP_BUFFER_LIVE) {
			r->begin = b->begin;
			r->end = b->end;
		}
		r->candidate_start = ci;
		if (b->candidate_count) {
			for (uint32_t c = 0; c < b->candidate_count; c++) {
				if (b->candidates[c] >= P) {
					usmp__set_msg(msg, "buffer \"%s\": candidate pool %u "
					                   "does not exist", b->name,
					              b->candidates[c]);
					rc = USMP_ERR_INVALID;
					goto fail;
				}
				out->candidates[ci++] = pool_inv[b->candidates[c]];
			}
			r->candidate_count = b->candidate_count;
		} else if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P &&
		           pool_inv[b->fixed_pool] != NONE) {
			out->candidates[ci++] = pool_inv[b->fixed_pool];
			r->candidate_count = 1;
		} else {
			for (uint32_t q = 0; q < vp; q++)
				out->candidates[ci++] = q;
			r->candidate_count = vp;
		}
		if (r->flags & USMP_BUFFER_FIXED) {
			if (b->fixed_pool >= P) {
				usmp__set_msg(msg, "buffer \"%s\": fixed pool %u does not "
				                   "exist", b->name, b->fixed_pool);
				rc = USMP_ERR_INVALID;
				goto fail;
			}
			r->fixed_pool = pool_inv[b->fixed_pool];
			r->fixed_offset = b->fixed_offset;
		}
	}

	/* Explicit edges between buffers of the subset. */
	size_t ne = 0;
	edges = malloc((p->edge_count ? p->edge_count : 1) * sizeof *edges);
	if (!edges)
		goto nomem;
	for (size_t e = 0; e < p->edge_count; e++) {
		uint32_t a = view_index(ids, n, N, p->edges[e].a);
		uint32_t b = view_index(ids, n, N, p->edges[e].b);
		if (a == NONE || b == NONE || a == b)
			continue;
		edges[ne].a = a < b ? a : b;
		edges[ne++].b = a < b ? b : a;
	}
	if ((rc = usmp__csr_build(edges, ne, n, out->conflict_start,
	                          &out->conflict_adj)) != USMP_OK) {
		usmp__set_msg(msg, "view: building the conflict graph failed: %s",
		              usmp_status_name(rc));
		goto fail;
	}
	free(edges);
	edges = NULL;

	/* Overlap rules of the subset, sorted by (src, dst); a duplicate pair
	 * keeps the largest max_lead (either rule would allow the placement). */
	size_t no = 0;
	if (p->overlap_count > UINT32_MAX)
		goto nomem;
	size_t osz = p->overlap_count ? p->overlap_count : 1;
	keys = malloc(osz * sizeof *keys);
	idx = malloc(osz * sizeof *idx);
	out->overlaps = malloc(osz * sizeof *out->overlaps);
	if (!keys || !idx || !out->overlaps)
		goto nomem;
	for (size_t r = 0; r < p->overlap_count; r++) {
		uint32_t s = view_index(ids, n, N, p->overlaps[r].src);
		uint32_t d = view_index(ids, n, N, p->overlaps[r].dst);
		if (s == NONE || d == NONE || s == d)
			continue;
		keys[no] = (uint64_t)s << 32 | d;
		idx[no++] = (uint32_t)r;
	}
	if ((rc = usmp__sort_pairs(keys, idx, no)) != USMP_OK)
		goto nomem;
	size_t w = 0;
	for (size_t i = 0; i < no; i++) {
		int64_t lead = p->overlaps[idx[i]].max_lead;
		uint32_t s = (uint32_t)(keys[i] >> 32), d = (uint32_t)keys[i];
		if (w && out->overlaps[w - 1].src == s && out->overlaps[w - 1].dst == d) {
			if (lead > out->overlaps[w - 1].max_lead)
				out->overlaps[w - 1].max_lead = lead;
			continue;
		}
		out->overlaps[w].src = s;
		out->overlaps[w].dst = d;
		out->overlaps[w++].max_lead = lead;
	}
	free(keys);
	free(idx);
	keys = NULL;
	idx = NULL;

	usmp_view *v = &out->view;
	v->struct_size = sizeof *v;
	v->flags = 0;
	v->pool_count = vp;
	v->buffer_count = n;
	v->pools = out->pools;
	v->buffers = out->buffers;
	v->candidates = out->candidates;
	v->conflict_start = out->conflict_start;
	v->conflict_adj = out->conflict_adj;
	v->degree = out->degree;
	v->overlaps = out->overlaps;
	v->overlap_count = w;
	v->target = "";
	v->time_limit = 0;
	if (to_check) {
		/* a verifier reads neither */
		memset(out->degree, 0, sz * sizeof *out->degree);
		v->lower_bound = 0;
		free(pool_inv);
		return USMP_OK;
	}
	if ((rc = usmp__degrees(v, out->degree)) != USMP_OK) {
		usmp__set_msg(msg, "view: computing conflict degrees failed: %s",
		              usmp_status_name(rc));
		goto fail;
	}
	/* A view of the whole problem when it is one group: the group's bound
	 * (bound.c: a group's bound is the bound of its view), not a second
	 * sweep over every buffer. */
	if (p->prepared && p->group_bound && p->group_count == 1 && n == N)
		v->lower_bound = p->group_bound[0];
	else
		v->lower_bound = usmp__lower_bound(v);
	free(pool_inv);
	return USMP_OK;
#undef BUF
nomem:
	rc = USMP_ERR_NOMEM;
	usmp__set_msg(msg, "view: out of memory");
fail:
	free(pool_inv);
	free(edges);
	free(keys);
	free(idx);
	usmp__view_finish(out);
	return rc;
}

int usmp__view_build(usmp_problem *p, const uint32_t *ids, uint32_t n,
                     usmp__view_store *out, char **msg)
{
	return view_build(p, ids, n, out, msg, 0);
}

int usmp__view_build_to_check(usmp_problem *p, usmp__view_store *out,
                              char **msg)
{
	return view_build(p, NULL, 0, out, msg, 1);
}
