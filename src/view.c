/* view.c — the flat, read-only usmp_view of a prepared problem or of a subset
 * of its buffers, with the maps back to problem indices. */
#include "view.h"

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

/* Problem buffer of view index i: ids[i], or i for the whole problem. */
static const usmp__buffer *view_buffer(const usmp_problem *p,
                                       const uint32_t *ids, uint32_t i)
{
	return &p->buffers[ids ? ids[i] : i];
}

/* Check the problem has pools and ids are ascending problem indices. */
static int view_check_ids(const usmp_problem *p, const uint32_t *ids,
                          uint32_t n, char **msg)
{
	size_t P = p->pool_count, N = p->buffer_count;
	if (P == 0 || P > UINT32_MAX || N > UINT32_MAX) {
		usmp__set_msg(msg, "%s", P == 0 ? "view: the problem has no pool "
		                                  "(it was not prepared)"
		                                : "view: too many pools or buffers");
		return P == 0 ? USMP_ERR_INTERNAL : USMP_ERR_INVALID;
	}
	for (uint32_t i = 0; ids && i < n; i++)
		if (ids[i] >= N || (i && ids[i] <= ids[i - 1])) {
			usmp__set_msg(msg, "view: buffer ids must be ascending and below "
			                   "%zu (ids[%u] = %u)", N, i, ids[i]);
			return USMP_ERR_INVALID;
		}
	return USMP_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Pools: every pool for the whole problem, else those a buffer of the
 * subset can use (all of them when a buffer has no candidate list). Fills
 * out->pools and out->pool_map (ascending problem pool numbers); *vp gets
 * the view's pool count. Every pool in the view: *pool_inv gets the map
 * problem pool -> view pool (O(pools)); otherwise NULL, and view_pool
 * searches pool_map, so a small part of a problem with a million pools
 * costs O(its candidates), not O(pools). */
static int view_pools(const usmp_problem *p, const uint32_t *ids, uint32_t n,
                      uint32_t **pool_inv, usmp__view_store *out, uint32_t *vp)
{
	size_t P = p->pool_count;
	int every = !ids;
	uint64_t total = 0;
	uint32_t k = 0;
	*pool_inv = NULL;
	for (uint32_t i = 0; i < n && !every; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		/* No list means every pool, except for a fixed buffer: its one
		 * possible pool is the fixed one. */
		if (b->candidate_count == 0 && !(b->flags & USMP_BUFFER_FIXED))
			every = 1;
		total += b->candidate_count + 1u;
	}
	if (every) {
		*pool_inv = malloc((P ? P : 1) * sizeof **pool_inv);
		out->pools = malloc((P ? P : 1) * sizeof *out->pools);
		out->pool_map = malloc((P ? P : 1) * sizeof *out->pool_map);
		if (!*pool_inv || !out->pools || !out->pool_map)
			return USMP_ERR_NOMEM;
		for (size_t q = 0; q < P; q++)
			(*pool_inv)[q] = out->pool_map[q] = (uint32_t)q;
		k = (uint32_t)P;
	} else {
		if (total > SIZE_MAX / sizeof *out->pool_map)
			return USMP_ERR_NOMEM;
		out->pool_map = malloc((total ? (size_t)total : 1) *
		                       sizeof *out->pool_map);
		if (!out->pool_map)
			return USMP_ERR_NOMEM;
		for (uint32_t i = 0; i < n; i++) {
			const usmp__buffer *b = view_buffer(p, ids, i);
			for (uint32_t c = 0; c < b->candidate_count; c++)
				if (b->candidates[c] < P)
					out->pool_map[k++] = b->candidates[c];
			if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P)
				out->pool_map[k++] = b->fixed_pool;
		}
		qsort(out->pool_map, k, sizeof *out->pool_map, cmp_u32);
		uint32_t u = 0;
		for (uint32_t j = 0; j < k; j++)
			if (u == 0 || out->pool_map[u - 1] != out->pool_map[j])
				out->pool_map[u++] = out->pool_map[j];
		k = u;
		out->pools = malloc((k ? k : 1) * sizeof *out->pools);
		if (!out->pools)
			return USMP_ERR_NOMEM;
	}
	for (uint32_t j = 0; j < k; j++) {
		const usmp__pool *q = &p->pools[out->pool_map[j]];
		usmp_pool_rec *r = &out->pools[j];
		r->name = q->name;
		r->size_limit = q->size_limit;
		r->alignment = q->alignment ? q->alignment : 1;
	}
	*vp = k;
	return USMP_OK;
}

/* The view pool of problem pool q (q < pool count), NONE when the view
 * lacks it: pool_inv when view_pools made one, else a binary search in the
 * ascending pool_map. */
static uint32_t view_pool(const uint32_t *pool_inv, const uint32_t *pool_map,
                          uint32_t vp, uint32_t q)
{
	if (pool_inv)
		return pool_inv[q];
	uint32_t lo = 0, hi = vp;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pool_map[mid] < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < vp && pool_map[lo] == q ? lo : NONE;
}

/* Allocate the per-buffer arrays of out for n buffers and the candidate
 * array for the lists buffer_candidates will write. */
static int view_alloc_buffers(const usmp_problem *p, const uint32_t *ids,
                              uint32_t n, uint32_t vp, usmp__view_store *out)
{
	size_t sz = n ? n : 1;
	out->buffers = calloc(sz, sizeof *out->buffers);
	out->buffer_map = malloc(sz * sizeof *out->buffer_map);
	out->degree = malloc(sz * sizeof *out->degree);
	out->conflict_start = malloc((sz + 1) * sizeof *out->conflict_start);
	if (!out->buffers || !out->buffer_map || !out->degree ||
	    !out->conflict_start)
		return USMP_ERR_NOMEM;
	uint64_t cand_total = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		cand_total += b->candidate_count ? b->candidate_count : vp;
	}
	if (cand_total > SIZE_MAX / sizeof *out->candidates)
		return USMP_ERR_NOMEM;
	out->candidates = malloc((cand_total ? (size_t)cand_total : 1) *
	                         sizeof *out->candidates);
	return out->candidates ? USMP_OK : USMP_ERR_NOMEM;
}

/* Buffers, with candidate lists expanded (into the arrays
 * view_alloc_buffers made) and pools renumbered by pool_inv. */
static int view_buffers(const usmp_problem *p, const uint32_t *ids,
                        uint32_t n, const uint32_t *pool_inv, uint32_t vp,
                        usmp__view_store *out, char **msg)
{
	size_t P = p->pool_count;
	uint64_t ci = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		usmp_buffer_rec *r = &out->buffers[i];
		out->buffer_map[i] = ids ? ids[i] : i;
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
					return USMP_ERR_INVALID;
				}
				out->candidates[ci++] = view_pool(
					pool_inv, out->pool_map, vp, b->candidates[c]);
			}
			r->candidate_count = b->candidate_count;
		} else if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P &&
		           view_pool(pool_inv, out->pool_map, vp,
		                     b->fixed_pool) != NONE) {
			out->candidates[ci++] = view_pool(pool_inv, out->pool_map,
			                                  vp, b->fixed_pool);
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
				return USMP_ERR_INVALID;
			}
			r->fixed_pool = view_pool(pool_inv, out->pool_map, vp,
			                          b->fixed_pool);
			r->fixed_offset = b->fixed_offset;
		}
	}
	return USMP_OK;
}

/* The group all buffers of the subset are in, NONE when there is none (the
 * whole problem, an unprepared one, or buffers of several groups). */
static uint32_t subset_group(const usmp_problem *p, const uint32_t *ids,
                             uint32_t n)
{
	if (!ids || !n || !p->prepared || !p->buffer_group)
		return NONE;
	uint32_t g = p->buffer_group[ids[0]];
	for (uint32_t i = 1; i < n; i++)
		if (p->buffer_group[ids[i]] != g)
			return NONE;
	return g;
}

/* Items 0..count-1 listed by group (of buffer buf[k] for item k, read at
 * stride `stride` bytes from `base`), as CSR: ascending within each group.
 * Returns USMP_OK or USMP_ERR_NOMEM. */
static int group_lists(const usmp_problem *p, const void *base,
                       size_t stride, size_t count, uint32_t **start,
                       uint32_t **items)
{
	uint32_t G = p->group_count;
	*start = calloc((size_t)G + 1, sizeof **start);
	*items = malloc((count ? count : 1) * sizeof **items);
	if (!*start || !*items) {
		free(*start);
		free(*items);
		*start = *items = NULL;
		return USMP_ERR_NOMEM;
	}
	const char *at = base;
	for (size_t k = 0; k < count; k++) {
		uint32_t b = *(const uint32_t *)(const void *)(at + k * stride);
		(*start)[p->buffer_group[b] + 1]++;
	}
	for (uint32_t g = 0; g < G; g++)
		(*start)[g + 1] += (*start)[g];
	for (size_t k = 0; k < count; k++) {
		uint32_t b = *(const uint32_t *)(const void *)(at + k * stride);
		(*items)[(*start)[p->buffer_group[b]]++] = (uint32_t)k;
	}
	for (uint32_t g = G; g > 0; g--)
		(*start)[g] = (*start)[g - 1];
	(*start)[0] = 0;
	return USMP_OK;
}

/* The range [*lo, *hi) of what a view of the subset scans: every edge
 * (rules: `rules`) of the problem, or, for a subset inside one group, the
 * positions of that group's list in *list (built once per prepared
 * problem), so a view of one of many parts costs O(its own edges). */
static void scan_range(usmp_problem *p, const uint32_t *ids, uint32_t n,
                       int rules, const uint32_t **list, size_t *lo,
                       size_t *hi)
{
	size_t count = rules ? p->overlap_count : p->edge_count;
	uint32_t **start = rules ? &p->group_rule_start : &p->group_edge_start;
	uint32_t **items = rules ? &p->group_rules : &p->group_edges;
	uint32_t g = subset_group(p, ids, n);
	*list = NULL;
	*lo = 0;
	*hi = count;
	if (g == NONE || count == 0 || count > UINT32_MAX)
		return;
	if (!*start &&
	    (rules ? group_lists(p, &p->overlaps[0].src, sizeof *p->overlaps,
	                         count, start, items)
	           : group_lists(p, &p->edges[0].a, sizeof *p->edges, count,
	                         start, items)) != USMP_OK)
		return; /* out of memory: scan everything, as before */
	*list = *items;
	*lo = (*start)[g];
	*hi = (*start)[g + 1];
}

/* Explicit edges between buffers of the subset, as CSR in out. */
static int view_edges(usmp_problem *p, const uint32_t *ids, uint32_t n,
                      usmp__view_store *out, char **msg)
{
	size_t N = p->buffer_count, ne = 0;
	usmp__edge *edges = malloc((p->edge_count ? p->edge_count : 1) *
	                           sizeof *edges);
	if (!edges) {
		usmp__set_msg(msg, "view: out of memory");
		return USMP_ERR_NOMEM;
	}
	const uint32_t *list;
	size_t lo, hi;
	scan_range(p, ids, n, 0, &list, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		size_t e = list ? list[k] : k;
		uint32_t a = view_index(ids, n, N, p->edges[e].a);
		uint32_t b = view_index(ids, n, N, p->edges[e].b);
		if (a == NONE || b == NONE || a == b)
			continue;
		edges[ne].a = a < b ? a : b;
		edges[ne++].b = a < b ? b : a;
	}
	int rc = usmp__csr_build(edges, ne, n, out->conflict_start,
	                         &out->conflict_adj);
	if (rc != USMP_OK)
		usmp__set_msg(msg, "view: building the conflict graph failed: %s",
		              usmp_status_name(rc));
	free(edges);
	return rc;
}

/* Overlap rules of the subset, sorted by (src, dst); a duplicate pair
 * keeps the largest max_lead (either rule would allow the placement).
 * *count gets the number of rules in out->overlaps. */
static int view_overlaps(usmp_problem *p, const uint32_t *ids,
                         uint32_t n, usmp__view_store *out, size_t *count)
{
	int rc = USMP_ERR_NOMEM;
	size_t N = p->buffer_count, no = 0;
	if (p->overlap_count > UINT32_MAX)
		return USMP_ERR_NOMEM;
	size_t osz = p->overlap_count ? p->overlap_count : 1;
	uint64_t *keys = malloc(osz * sizeof *keys);
	uint32_t *idx = malloc(osz * sizeof *idx);
	out->overlaps = malloc(osz * sizeof *out->overlaps);
	if (!keys || !idx || !out->overlaps)
		goto fail;
	const uint32_t *list;
	size_t lo, hi;
	scan_range(p, ids, n, 1, &list, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		size_t r = list ? list[k] : k;
		uint32_t s = view_index(ids, n, N, p->overlaps[r].src);
		uint32_t d = view_index(ids, n, N, p->overlaps[r].dst);
		if (s == NONE || d == NONE || s == d)
			continue;
		keys[no] = (uint64_t)s << 32 | d;
		idx[no++] = (uint32_t)r;
	}
	if (usmp__sort_pairs(keys, idx, no) != USMP_OK)
		goto fail;
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
	*count = w;
	rc = USMP_OK;
fail:
	free(keys);
	free(idx);
	return rc;
}

/* Everything of the view but degrees and lower bound, which are left
 * unset: pools, buffers, conflict CSR, overlap rules and the usmp_view
 * pointing at them. On failure out is finished and *msg set. */
static int view_common(usmp_problem *p, const uint32_t *ids, uint32_t n,
                       usmp__view_store *out, char **msg)
{
	uint32_t *pool_inv = NULL, vp = 0;
	size_t no = 0;
	memset(out, 0, sizeof *out);
	int rc = view_check_ids(p, ids, n, msg);
	if (rc != USMP_OK)
		return rc;
	if (!ids)
		n = (uint32_t)p->buffer_count;
	if (view_pools(p, ids, n, &pool_inv, out, &vp) != USMP_OK ||
	    view_alloc_buffers(p, ids, n, vp, out) != USMP_OK)
		goto nomem;
	if ((rc = view_buffers(p, ids, n, pool_inv, vp, out, msg)) != USMP_OK)
		goto fail;
	if ((rc = view_edges(p, ids, n, out, msg)) != USMP_OK)
		goto fail;
	if (view_overlaps(p, ids, n, out, &no) != USMP_OK)
		goto nomem;
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
	v->overlap_count = no;
	v->target = "";
	v->time_limit = 0;
	free(pool_inv);
	return USMP_OK;
nomem:
	rc = USMP_ERR_NOMEM;
	usmp__set_msg(msg, "view: out of memory");
fail:
	free(pool_inv);
	usmp__view_finish(out);
	return rc;
}

int usmp__view_build(usmp_problem *p, const uint32_t *ids, uint32_t n,
                     usmp__view_store *out, char **msg)
{
	int rc = view_common(p, ids, n, out, msg);
	if (rc != USMP_OK)
		return rc;
	usmp_view *v = &out->view;
	if ((rc = usmp__degrees(v, out->degree)) != USMP_OK) {
		usmp__set_msg(msg, "view: computing conflict degrees failed: %s",
		              usmp_status_name(rc));
		usmp__view_finish(out);
		return rc;
	}
	/* A view of the whole problem when it is one group: the group's bound
	 * (bound.c: a group's bound is the bound of its view), not a second
	 * sweep over every buffer. */
	if (p->prepared && p->group_bound && p->group_count == 1 &&
	    v->buffer_count == p->buffer_count)
		v->lower_bound = p->group_bound[0];
	else
		v->lower_bound = usmp__lower_bound(v);
	return USMP_OK;
}

int usmp__view_build_to_check(usmp_problem *p, usmp__view_store *out,
                              char **msg)
{
	int rc = view_common(p, NULL, 0, out, msg);
	if (rc != USMP_OK)
		return rc;
	/* a verifier reads neither */
	size_t n = out->view.buffer_count;
	memset(out->degree, 0, (n ? n : 1) * sizeof *out->degree);
	out->view.lower_bound = 0;
	return USMP_OK;
}
