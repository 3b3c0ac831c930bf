/* view.c — the flat, read-only usmp_view of a prepared problem or of a subset
 * of its buffers, with the maps back to problem indices. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* The position of x in the ascending a[0..n), NONE when absent. */
static uint32_t sorted_find(const uint32_t *a, uint32_t n, uint32_t x)
{
	size_t i = usmp__first_ge_u32(a, n, x);
	return i < n && a[i] == x ? (uint32_t)i : NONE;
}

/* View index of problem buffer b, NONE when not in the view. Subsets use a
 * binary search, so a view of a small part never costs O(problem). */
static uint32_t view_index(const uint32_t *ids, uint32_t n, size_t N,
                           uint32_t b)
{
	if (b >= N)
		return NONE;
	return ids ? sorted_find(ids, n, b) : b;
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

/* View index of problem pool q: its position in the ascending pool_map
 * (a binary search), NONE when the view lacks it. */
static uint32_t pool_index(const usmp__view_store *out, uint32_t vp,
                           uint32_t q)
{
	return sorted_find(out->pool_map, vp, q);
}

/* The problem pools the subset's buffers name (candidates, fixed pools), in
 * keys[0..*k); *every set when one buffer may use every pool. */
static void subset_pools(const usmp_problem *p, const uint32_t *ids,
                         uint32_t n, uint64_t *keys, size_t *k, int *every)
{
	size_t P = p->pool_count;
	for (uint32_t i = 0; i < n && !*every; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		/* No list means every pool, except for a fixed buffer: its one
		 * possible pool is the fixed one. */
		if (b->candidate_count == 0 && !(b->flags & USMP_BUFFER_FIXED))
			*every = 1;
		for (uint32_t c = 0; c < b->candidate_count; c++)
			if (b->candidates[c] < P)
				keys[(*k)++] = b->candidates[c];
		if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P)
			keys[(*k)++] = b->fixed_pool;
	}
}

/* Pools: every pool for the whole problem, else those a buffer of the
 * subset can use (all of them when a buffer has no candidate list), in
 * problem order, in time of the subset's candidate lists. Fills out->pools
 * and out->pool_map (ascending: pool_index reads it); *vp gets the view's
 * pool count. */
static int view_pools(const usmp_problem *p, const uint32_t *ids, uint32_t n,
                      usmp__view_store *out, uint32_t *vp)
{
	size_t P = p->pool_count, k = 0, named = 0;
	int every = !ids, rc = USMP_ERR_NOMEM;
	uint64_t *keys = NULL;
	for (uint32_t i = 0; i < n && !every; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		named += b->candidate_count + 1;
	}
	if (!every && !(keys = malloc((named ? named : 1) * sizeof *keys)))
		return USMP_ERR_NOMEM;
	if (!every)
		subset_pools(p, ids, n, keys, &k, &every);
	if (!every && usmp__sort_pairs(keys, NULL, k) != USMP_OK)
		goto fail;
	size_t count = every ? P : 0;
	for (size_t i = 0; !every && i < k; i++)
		if (!i || keys[i] != keys[i - 1])
			keys[count++] = keys[i];
	out->pools = malloc((count ? count : 1) * sizeof *out->pools);
	out->pool_map = malloc((count ? count : 1) * sizeof *out->pool_map);
	if (!out->pools || !out->pool_map)
		goto fail;
	for (size_t j = 0; j < count; j++) {
		size_t q = every ? j : (size_t)keys[j];
		usmp_pool_rec *r = &out->pools[j];
		r->name = p->pools[q].name;
		r->size_limit = p->pools[q].size_limit;
		r->alignment = p->pools[q].alignment ? p->pools[q].alignment : 1;
		out->pool_map[j] = (uint32_t)q;
	}
	*vp = (uint32_t)count;
	rc = USMP_OK;
fail:
	free(keys);
	return rc;
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
	/* Buffers without a list of their own share one run of every pool
	 * (view_buffers): n buffers and P pools take n + P entries, not n P
	 * (20,000 of each: 80 KB where it was 1.6 GB). */
	uint64_t cand_total = vp;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__buffer *b = view_buffer(p, ids, i);
		cand_total += b->candidate_count ? b->candidate_count : 1;
	}
	if (cand_total > SIZE_MAX / sizeof *out->candidates)
		return USMP_ERR_NOMEM;
	out->candidates = malloc((cand_total ? (size_t)cand_total : 1) *
	                         sizeof *out->candidates);
	return out->candidates ? USMP_OK : USMP_ERR_NOMEM;
}

/* Buffers, with candidate lists expanded (into the arrays
 * view_alloc_buffers made; a buffer without a list gets the shared run of
 * every pool at the array's start) and pools renumbered by pool_index. */
static int view_buffers(const usmp_problem *p, const uint32_t *ids,
                        uint32_t n, uint32_t vp, usmp__view_store *out,
                        char **msg)
{
	size_t P = p->pool_count;
	uint64_t ci = vp; /* [0, vp): every pool, the run lists share */
	for (uint32_t q = 0; q < vp; q++)
		out->candidates[q] = q;
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
				out->candidates[ci++] =
					pool_index(out, vp, b->candidates[c]);
			}
			r->candidate_count = b->candidate_count;
		} else if ((b->flags & USMP_BUFFER_FIXED) && b->fixed_pool < P &&
		           pool_index(out, vp, b->fixed_pool) != NONE) {
			out->candidates[ci++] = pool_index(out, vp, b->fixed_pool);
			r->candidate_count = 1;
		} else {
			r->candidate_start = 0;
			r->candidate_count = vp;
		}
		if (r->flags & USMP_BUFFER_FIXED) {
			if (b->fixed_pool >= P) {
				usmp__set_msg(msg, "buffer \"%s\": fixed pool %u does not "
				                   "exist", b->name, b->fixed_pool);
				return USMP_ERR_INVALID;
			}
			r->fixed_pool = pool_index(out, vp, b->fixed_pool);
			r->fixed_offset = b->fixed_offset;
		}
	}
	return USMP_OK;
}

/* Whether the view of ids[0..n) finds its edges and rules through the rows
 * of the part index (part_index.c): a subset smaller than the problem (a view of every buffer
 * scans them, with no index to build). */
static bool by_rows(const usmp_problem *p, const uint32_t *ids, uint32_t n)
{
	return ids && n < p->buffer_count;
}

/* How many items the rows (start) of the subset's buffers hold. */
static size_t rows_total(const uint64_t *start, const uint32_t *ids,
                         uint32_t n)
{
	size_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += start[ids[i] + 1] - start[ids[i]];
	return total;
}

/* Add problem edge e to edges[*ne] in view indices when both its buffers
 * are in the view and, for `from` other than NONE, the lower is view
 * buffer `from` (a part meets each edge from both of its ends). */
static void keep_edge(const usmp__edge *e, const uint32_t *ids, uint32_t n,
                      size_t N, uint32_t from, usmp__edge *edges, size_t *ne)
{
	uint32_t a = view_index(ids, n, N, e->a);
	uint32_t b = view_index(ids, n, N, e->b);
	if (a == NONE || b == NONE || a == b)
		return;
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	if (from != NONE && lo != from)
		return;
	edges[*ne].a = lo;
	edges[(*ne)++].b = hi;
}

/* Explicit edges between buffers of the subset, as CSR in out: those of
 * its buffers' rows (the part index) when by_rows, else a scan of them all. */
static int view_edges(const usmp_problem *p, const uint32_t *ids, uint32_t n,
                      usmp__view_store *out, char **msg)
{
	size_t N = p->buffer_count, ne = 0;
	bool rows = by_rows(p, ids, n);
	size_t cap = rows ? rows_total(p->edge_start, ids, n) : p->edge_count;
	usmp__edge *edges = malloc((cap ? cap : 1) * sizeof *edges);
	if (!edges) {
		usmp__set_msg(msg, "view: out of memory");
		return USMP_ERR_NOMEM;
	}
	for (size_t e = 0; !rows && e < p->edge_count; e++)
		keep_edge(&p->edges[e], ids, n, N, NONE, edges, &ne);
	for (uint32_t i = 0; rows && i < n; i++)
		for (uint64_t k = p->edge_start[ids[i]];
		     k < p->edge_start[ids[i] + 1]; k++)
			keep_edge(&p->edges[p->edge_of[k]], ids, n, N, i, edges, &ne);
	int rc = usmp__csr_build(edges, ne, n, out->conflict_start,
	                         &out->conflict_adj);
	if (rc != USMP_OK)
		usmp__set_msg(msg, "view: building the conflict graph failed: %s",
		              usmp_status_name(rc));
	free(edges);
	return rc;
}

/* Add rule r as a key (view src << 32 | view dst) when both its buffers
 * are in the view. */
static void keep_rule(const usmp_problem *p, const uint32_t *ids, uint32_t n,
                      uint32_t r, uint64_t *keys, uint32_t *idx, size_t *no)
{
	size_t N = p->buffer_count;
	uint32_t s = view_index(ids, n, N, p->overlaps[r].src);
	uint32_t d = view_index(ids, n, N, p->overlaps[r].dst);
	if (s == NONE || d == NONE || s == d)
		return;
	keys[*no] = (uint64_t)s << 32 | d;
	idx[(*no)++] = r;
}

/* Overlap rules of the subset (those of its buffers' rows when by_rows,
 * else a scan of them all), sorted by (src, dst); a duplicate pair keeps the largest
 * max_lead (either rule would allow the placement). *count gets the number
 * of rules in out->overlaps. */
static int view_overlaps(const usmp_problem *p, const uint32_t *ids,
                         uint32_t n, usmp__view_store *out, size_t *count)
{
	int rc = USMP_ERR_NOMEM;
	size_t no = 0;
	if (p->overlap_count > UINT32_MAX)
		return USMP_ERR_NOMEM;
	bool rows = by_rows(p, ids, n);
	size_t cap = rows ? rows_total(p->rule_start, ids, n) : p->overlap_count;
	size_t osz = cap ? cap : 1;
	uint64_t *keys = malloc(osz * sizeof *keys);
	uint32_t *idx = malloc(osz * sizeof *idx);
	out->overlaps = malloc(osz * sizeof *out->overlaps);
	if (!keys || !idx || !out->overlaps)
		goto fail;
	for (size_t r = 0; !rows && r < p->overlap_count; r++)
		keep_rule(p, ids, n, (uint32_t)r, keys, idx, &no);
	for (uint32_t i = 0; rows && i < n; i++)
		for (uint64_t k = p->rule_start[ids[i]];
		     k < p->rule_start[ids[i] + 1]; k++)
			keep_rule(p, ids, n, p->rule_of[k], keys, idx, &no);
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
	uint32_t vp = 0;
	size_t no = 0;
	memset(out, 0, sizeof *out);
	int rc = view_check_ids(p, ids, n, msg);
	if (rc != USMP_OK)
		return rc;
	if (!ids)
		n = (uint32_t)p->buffer_count;
	if (by_rows(p, ids, n) && usmp__problem_part_index(p) != USMP_OK)
		goto nomem;
	if (view_pools(p, ids, n, out, &vp) != USMP_OK ||
	    view_alloc_buffers(p, ids, n, vp, out) != USMP_OK)
		goto nomem;
	if ((rc = view_buffers(p, ids, n, vp, out, msg)) != USMP_OK)
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
	return USMP_OK;
nomem:
	rc = USMP_ERR_NOMEM;
	usmp__set_msg(msg, "view: out of memory");
fail:
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
