/* interval_index.c — live-range queries without all pairs: every buffer whose
 * range meets [b, e) in O(log n + k), and the radix sort the sweeps share. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- sorting ------------------------------------------------------------ */

static void insertion_sort(uint64_t *keys, uint32_t *vals, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t k = keys[i];
		uint32_t v = vals ? vals[i] : 0;
		size_t j = i;
		while (j > 0 && keys[j - 1] > k) {
			keys[j] = keys[j - 1];
			if (vals)
				vals[j] = vals[j - 1];
			j--;
		}
		keys[j] = k;
		if (vals)
			vals[j] = v;
	}
}

/* LSD radix sort, stable. Only the bits below the highest one in which
 * two keys differ are sorted (the bits above are the same in every key),
 * in as few passes of at most RADIX_BITS as they need: times and offsets
 * of a million-buffer problem take two to four passes. */
#define RADIX_BITS 11u

int usmp__sort_pairs(uint64_t *keys, uint32_t *vals, size_t n)
{
	if (n < 48) {
		insertion_sort(keys, vals, n);
		return USMP_OK;
	}
	uint64_t diff = 0;
	for (size_t i = 1; i < n; i++)
		diff |= keys[i] ^ keys[0];
	if (!diff)
		return USMP_OK; /* all keys equal: already in order */
	unsigned bits = 64u - (unsigned)__builtin_clzll(diff);
	unsigned passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
	unsigned width = (bits + passes - 1) / passes;
	size_t buckets = (size_t)1 << width, mask = buckets - 1;
	int rc = USMP_ERR_NOMEM;
	uint64_t *k2 = NULL;
	uint32_t *v2 = NULL;
	size_t *cnt = NULL;
	if (n > SIZE_MAX / sizeof *k2)
		goto fail;
	k2 = malloc(n * sizeof *k2);
	cnt = calloc(passes * buckets, sizeof *cnt);
	if (!k2 || !cnt)
		goto fail;
	if (vals && !(v2 = malloc(n * sizeof *v2)))
		goto fail;
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < passes; d++)
			cnt[d * buckets + ((keys[i] >> (width * d)) & mask)]++;
	uint64_t *sk = keys, *dk = k2;
	uint32_t *sv = vals, *dv = v2;
	for (unsigned d = 0; d < passes; d++) {
		size_t *c = cnt + d * buckets;
		unsigned shift = width * d;
		if (c[(keys[0] >> shift) & mask] == n)
			continue; /* every key has the same digit here */
		size_t sum = 0;
		for (size_t b = 0; b < buckets; b++) {
			size_t t = c[b];
			c[b] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = c[(sk[i] >> shift) & mask]++;
			dk[at] = sk[i];
			if (vals)
				dv[at] = sv[i];
		}
		uint64_t *tk = sk;
		sk = dk;
		dk = tk;
		uint32_t *tv = sv;
		sv = dv;
		dv = tv;
	}
	if (sk != keys) {
		memcpy(keys, sk, n * sizeof *keys);
		if (vals)
			memcpy(vals, sv, n * sizeof *vals);
	}
	rc = USMP_OK;
fail:
	free(k2);
	free(v2);
	free(cnt);
	return rc;
}

/* ---- the index ---------------------------------------------------------- */

/* Assign positions list[0..m) (ascending, so ascending begin) to a centered
 * subtree: the center is the median begin, the node keeps the ranges with
 * begin <= center < end, the left subtree those ending at or before it, the
 * right those beginning after it. Each side holds at most half of the
 * ranges (the median's own range stays), so the depth is at most log2(n)+1. */
static uint32_t tree_build(usmp__interval_index *ix, uint32_t *list,
                           uint32_t *scratch, uint32_t m, uint32_t *node_of)
{
	if (m == 0)
		return NONE;
	uint32_t id = ix->node_count++;
	int64_t c = ix->begin[list[m / 2]];
	uint32_t nl = 0, nr = 0, here = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t pos = list[i];
		if (ix->end[pos] <= c)
			list[nl++] = pos;
		else if (ix->begin[pos] > c)
			scratch[nr++] = pos;
		else {
			node_of[pos] = id;
			here++;
		}
	}
	memcpy(list + nl, scratch, (size_t)nr * sizeof *list);
	ix->nodes[id].center = c;
	ix->nodes[id].count = here;
	uint32_t l = tree_build(ix, list, scratch, nl, node_of);
	uint32_t r = tree_build(ix, list + nl, scratch, nr, node_of);
	ix->nodes[id].left = l;
	ix->nodes[id].right = r;
	return id;
}

int usmp__interval_index_build(usmp__interval_index *ix, const usmp_view *v)
{
	memset(ix, 0, sizeof *ix);
	ix->root = NONE;
	int rc = USMP_ERR_NOMEM;
	uint64_t *keys = NULL;
	uint32_t *list = NULL, *scratch = NULL, *node_of = NULL, *fill = NULL;
	uint32_t n = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE)
			n++;
	size_t sz = n ? n : 1;
	ix->order = malloc(sz * sizeof *ix->order);
	ix->begin = malloc(sz * sizeof *ix->begin);
	ix->end = malloc(sz * sizeof *ix->end);
	ix->max_end = malloc(sz * sizeof *ix->max_end);
	ix->nodes = malloc(sz * sizeof *ix->nodes);
	ix->by_begin = malloc(sz * sizeof *ix->by_begin);
	ix->by_end = malloc(sz * sizeof *ix->by_end);
	ix->bb_begin = malloc(sz * sizeof *ix->bb_begin);
	ix->be_end = malloc(sz * sizeof *ix->be_end);
	keys = malloc(sz * sizeof *keys);
	list = malloc(sz * sizeof *list);
	scratch = malloc(sz * sizeof *scratch);
	node_of = malloc(sz * sizeof *node_of);
	if (!ix->order || !ix->begin || !ix->end || !ix->max_end || !ix->nodes ||
	    !ix->by_begin || !ix->by_end || !ix->bb_begin || !ix->be_end || !keys || !list || !scratch ||
	    !node_of)
		goto fail;
	uint32_t k = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_LIVE))
			continue;
		if (r->end <= r->begin) {
			rc = USMP_ERR_INVALID;
			goto fail;
		}
		keys[k] = usmp__time_key(r->begin);
		ix->order[k++] = b; /* ascending ids: the stable sort keeps (begin, id) */
	}
	if ((rc = usmp__sort_pairs(keys, ix->order, n)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *r = &v->buffers[ix->order[i]];
		ix->begin[i] = r->begin;
		ix->end[i] = r->end;
		ix->max_end[i] = i && ix->max_end[i - 1] > r->end ? ix->max_end[i - 1]
		                                                   : r->end;
		list[i] = i;
	}
	ix->count = n;
	ix->root = tree_build(ix, list, scratch, n, node_of);
	/* Lay out each node's ranges: a stable bucket pass over positions in
	 * ascending begin gives by_begin, one over descending end gives by_end. */
	fill = calloc((size_t)ix->node_count + 1, sizeof *fill);
	if (!fill)
		goto fail;
	uint32_t first = 0;
	for (uint32_t id = 0; id < ix->node_count; id++) {
		ix->nodes[id].first = first;
		first += ix->nodes[id].count;
	}
	for (uint32_t pos = 0; pos < n; pos++) {
		usmp__itree_node *nd = &ix->nodes[node_of[pos]];
		uint32_t at = nd->first + fill[node_of[pos]]++;
		ix->by_begin[at] = ix->order[pos];
		ix->bb_begin[at] = ix->begin[pos];
	}
	for (uint32_t pos = 0; pos < n; pos++) {
		keys[pos] = ~usmp__time_key(ix->end[pos]); /* descending end */
		list[pos] = pos;
	}
	if ((rc = usmp__sort_pairs(keys, list, n)) != USMP_OK)
		goto fail;
	memset(fill, 0, ((size_t)ix->node_count + 1) * sizeof *fill);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = list[i];
		usmp__itree_node *nd = &ix->nodes[node_of[pos]];
		uint32_t at = nd->first + fill[node_of[pos]]++;
		ix->by_end[at] = ix->order[pos];
		ix->be_end[at] = ix->end[pos];
	}
	rc = USMP_OK;
fail:
	free(keys);
	free(list);
	free(scratch);
	free(node_of);
	free(fill);
	if (rc != USMP_OK)
		usmp__interval_index_finish(ix);
	return rc;
}

void usmp__interval_index_finish(usmp__interval_index *ix)
{
	if (!ix)
		return;
	free(ix->order);
	free(ix->begin);
	free(ix->end);
	free(ix->max_end);
	free(ix->nodes);
	free(ix->by_begin);
	free(ix->by_end);
	free(ix->bb_begin);
	free(ix->be_end);
	memset(ix, 0, sizeof *ix);
	ix->root = NONE;
}

int usmp__interval_index_query(const usmp__interval_index *ix, int64_t begin,
                               int64_t end, usmp_neighbor_fn visit, void *arg)
{
	if (!ix || ix->count == 0 || begin >= end)
		return 0;
	int r;
	/* Ranges starting inside [begin, end): a run of the sorted array. */
	uint32_t first = (uint32_t)usmp__first_ge_i64(ix->begin, ix->count, begin);
	for (uint32_t i = first; i < ix->count && ix->begin[i] < end; i++)
		if ((r = visit(arg, ix->order[i])) != 0)
			return r;
	/* Ranges starting before `begin` and ending after it: a stabbing query
	 * at x = begin for begin < x < end, one root-to-leaf path. */
	int64_t x = begin;
	uint32_t id = ix->root;
	while (id != NONE) {
		const usmp__itree_node *nd = &ix->nodes[id];
		uint32_t f = nd->first, c = nd->count;
		if (x <= nd->center) {
			/* All end after the center >= x; keep those beginning before x.
			 * At x == center nothing below can qualify. */
			for (uint32_t i = f; i < f + c && ix->bb_begin[i] < x; i++)
				if ((r = visit(arg, ix->by_begin[i])) != 0)
					return r;
			id = x < nd->center ? nd->left : NONE;
		} else {
			/* All begin at or before the center < x; keep those ending after x. */
			for (uint32_t i = f; i < f + c && ix->be_end[i] > x; i++)
				if ((r = visit(arg, ix->by_end[i])) != 0)
					return r;
			id = nd->right;
		}
	}
	return 0;
}
