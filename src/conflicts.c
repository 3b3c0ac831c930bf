/* conflicts.c — the conflict relation of a view: explicit edges as a CSR,
 * conflict degrees, neighbour walks and the pairwise conflict test. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

int usmp__csr_build(const usmp__edge *edges, size_t edge_count, uint32_t n,
                    uint64_t *start, uint32_t **adj)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t *by_v = NULL, *out = NULL;
	uint64_t *cur = NULL;
	*adj = NULL;
	if (edge_count > SIZE_MAX / 2 / sizeof(uint32_t) - 1)
		goto fail;
	size_t total = 2 * edge_count;
	for (size_t e = 0; e < edge_count; e++)
		if (edges[e].a >= n || edges[e].b >= n || edges[e].a == edges[e].b) {
			rc = USMP_ERR_INVALID;
			goto fail;
		}
	by_v = malloc((total ? total : 1) * sizeof *by_v);
	out = malloc((total ? total : 1) * sizeof *out);
	cur = calloc((size_t)n + 1, sizeof *cur);
	if (!by_v || !out || !cur)
		goto fail;
	/* Every edge gives the directed pairs (a, b) and (b, a). A counting sort
	 * by target, then a stable one by source, leaves each row sorted. The
	 * degree of x counts both passes alike, so one count serves both. */
	memset(start, 0, ((size_t)n + 1) * sizeof *start);
	for (size_t e = 0; e < edge_count; e++) {
		start[edges[e].a + 1]++;
		start[edges[e].b + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	memcpy(cur, start, (size_t)n * sizeof *cur);
	for (size_t e = 0; e < edge_count; e++) {
		by_v[cur[edges[e].b]++] = edges[e].a; /* pair (a -> b), target b */
		by_v[cur[edges[e].a]++] = edges[e].b; /* pair (b -> a), target a */
	}
	memcpy(cur, start, (size_t)n * sizeof *cur);
	for (uint32_t t = 0; t < n; t++)
		for (uint64_t i = start[t]; i < start[t + 1]; i++)
			out[cur[by_v[i]]++] = t;
	/* Drop duplicates row by row, compacting in place. */
	uint64_t w = 0, row = 0;
	for (uint32_t u = 0; u < n; u++) {
		uint64_t s = row, e = start[u + 1];
		row = e;
		start[u] = w;
		for (uint64_t i = s; i < e; i++)
			if (i == s || out[i] != out[i - 1])
				out[w++] = out[i];
	}
	start[n] = w;
	if (w && w < total) {
		uint32_t *smaller = realloc(out, w * sizeof *out);
		if (smaller)
			out = smaller;
	}
	*adj = out;
	out = NULL;
	rc = USMP_OK;
fail:
	free(by_v);
	free(out);
	free(cur);
	return rc;
}

int usmp__degrees(const usmp_view *v, uint64_t *degree)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t n = v->buffer_count, live = 0;
	uint64_t *begins = NULL, *ends = NULL;
	uint32_t *by_begin = NULL, *by_end = NULL;
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE)
			live++;
	size_t sz = live ? live : 1;
	begins = malloc(sz * sizeof *begins);
	ends = malloc(sz * sizeof *ends);
	by_begin = malloc(sz * sizeof *by_begin);
	by_end = malloc(sz * sizeof *by_end);
	if (!begins || !ends || !by_begin || !by_end)
		goto fail;
	uint32_t k = 0;
	for (uint32_t b = 0; b < n; b++) {
		degree[b] = 0;
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			begins[k] = usmp__time_key(v->buffers[b].begin);
			ends[k] = usmp__time_key(v->buffers[b].end);
			by_begin[k] = by_end[k] = b;
			k++;
		}
	}
	if ((rc = usmp__sort_pairs(begins, by_begin, live)) != USMP_OK ||
	    (rc = usmp__sort_pairs(ends, by_end, live)) != USMP_OK)
		goto fail;
	/* Ranges meeting [begin, end) are all but those ending at or before
	 * begin and those starting at or after end (never both), less the
	 * buffer itself. Both counts come from merging the two sorted lists:
	 * walking buffers by begin, the ends <= begin only grow; walking them
	 * by end, the begins < end only grow. */
	uint32_t j = 0;
	for (uint32_t i = 0; i < live; i++) {
		while (j < live && ends[j] <= begins[i])
			j++;
		degree[by_begin[i]] = live - 1 - (uint64_t)j;
	}
	j = 0;
	for (uint32_t i = 0; i < live; i++) {
		while (j < live && begins[j] < ends[i])
			j++;
		degree[by_end[i]] -= live - (uint64_t)j;
	}
	if (v->conflict_start)
		for (uint32_t b = 0; b < n; b++)
			for (uint64_t i = v->conflict_start[b];
			     i < v->conflict_start[b + 1]; i++)
				if (!usmp_live_overlap(v, b, v->conflict_adj[i]))
					degree[b]++;
	rc = USMP_OK;
fail:
	free(begins);
	free(ends);
	free(by_begin);
	free(by_end);
	return rc;
}

typedef struct skip_self {
	uint32_t self;
	usmp_neighbor_fn visit;
	void *arg;
} skip_self;

static int visit_others(void *arg, uint32_t other)
{
	skip_self *s = arg;
	return other == s->self ? 0 : s->visit(s->arg, other);
}

int usmp__for_each_neighbor(const usmp_view *v, const usmp__interval_index *ix,
                            uint32_t b, usmp_neighbor_fn visit, void *arg)
{
	if (b >= v->buffer_count)
		return 0;
	const usmp_buffer_rec *r = &v->buffers[b];
	int rc;
	if (r->flags & USMP_BUFFER_LIVE) {
		if (ix) {
			skip_self s = { b, visit, arg };
			rc = usmp__interval_index_query(ix, r->begin, r->end,
			                                visit_others, &s);
			if (rc)
				return rc;
		} else {
			/* No index: correct, linear. */
			for (uint32_t o = 0; o < v->buffer_count; o++)
				if (o != b && usmp_live_overlap(v, b, o) &&
				    (rc = visit(arg, o)) != 0)
					return rc;
		}
	}
	if (v->conflict_start)
		for (uint64_t i = v->conflict_start[b]; i < v->conflict_start[b + 1];
		     i++) {
			uint32_t o = v->conflict_adj[i];
			if (!usmp_live_overlap(v, b, o) && (rc = visit(arg, o)) != 0)
				return rc;
		}
	return 0;
}

bool usmp__csr_has(const uint64_t *start, const uint32_t *adj, uint32_t a,
                   uint32_t b)
{
	const uint32_t *row = adj + start[a];
	size_t n = start[a + 1] - start[a];
	size_t i = usmp__first_ge_u32(row, n, b);
	return i < n && row[i] == b;
}

bool usmp__conflict(const usmp_view *v, uint32_t a, uint32_t b)
{
	if (a == b || a >= v->buffer_count || b >= v->buffer_count)
		return false;
	if (usmp_live_overlap(v, a, b))
		return true;
	return v->conflict_start &&
	       usmp__csr_has(v->conflict_start, v->conflict_adj, a, b);
}
