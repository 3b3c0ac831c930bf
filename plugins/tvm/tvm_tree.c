/* tvm_tree.c — the tvm plugin's placed ends over time: per pool, a max segment
 * tree over the distinct times, for the highest placed end a range meets. */
#include "tvm_ctx.h"

#include "../host_mem.h"

#include <string.h>

static uint64_t tvm_time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* Number every live range's begin and end among the part's distinct times
 * (one sort of all begins and ends, ranks read off in order); leaves
 * use_tree false when there is no live range or no memory. */
void tvm_tree_init(tvm_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t *keys = NULL, *tk = NULL;
	uint32_t *vals = NULL, *tv = NULL;
	size_t *count = NULL;
	uint32_t live = 0;
	for (uint32_t b = 0; b < c->n; b++)
		live += (v->buffers[b].flags & USMP_BUFFER_LIVE) != 0;
	if (!live || live > UINT32_MAX / 4 || c->n > UINT32_MAX / 2)
		return;
	keys = host_array(c->h, (size_t)live * 2, sizeof *keys);
	tk = host_array(c->h, (size_t)live * 2, sizeof *tk);
	vals = host_array(c->h, (size_t)live * 2, sizeof *vals);
	tv = host_array(c->h, (size_t)live * 2, sizeof *tv);
	count = host_array(c->h, 65537, sizeof *count);
	c->seg_lo = host_array(c->h, c->n, sizeof *c->seg_lo);
	c->seg_hi = host_array(c->h, c->n, sizeof *c->seg_hi);
	c->tree = host_array(c->h, c->v->pool_count, sizeof *c->tree);
	if (!keys || !tk || !vals || !tv || !count || !c->seg_lo ||
	    !c->seg_hi || !c->tree)
		goto drop;
	memset(c->tree, 0, (size_t)c->v->pool_count * sizeof *c->tree);
	size_t k = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		c->seg_lo[b] = c->seg_hi[b] = 0;
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			keys[k] = tvm_time_key(v->buffers[b].begin);
			vals[k++] = b << 1;
			keys[k] = tvm_time_key(v->buffers[b].end);
			vals[k++] = b << 1 | 1;
		}
	}
	tvm_radix_sort(keys, vals, tk, tv, k, count);
	uint32_t u = 0; /* distinct times so far: the rank of keys[i] is u-1 */
	for (size_t i = 0; i < k; i++) {
		if (i == 0 || keys[i] != keys[i - 1])
			u++;
		if (vals[i] & 1)
			c->seg_hi[vals[i] >> 1] = u - 1;
		else
			c->seg_lo[vals[i] >> 1] = u - 1;
	}
	c->seg_n = 1;
	while (c->seg_n < u - 1)
		c->seg_n *= 2;
	c->use_tree = true;
	host_release(c->h, keys);
	host_release(c->h, tk);
	host_release(c->h, vals);
	host_release(c->h, tv);
	host_release(c->h, count);
	return;
drop:
	host_release(c->h, keys);
	host_release(c->h, tk);
	host_release(c->h, vals);
	host_release(c->h, tv);
	host_release(c->h, count);
	host_release(c->h, c->seg_lo);
	host_release(c->h, c->seg_hi);
	host_release(c->h, c->tree);
	c->seg_lo = c->seg_hi = NULL;
	c->tree = NULL;
}

void tvm_tree_drop(tvm_ctx *c)
{
	if (c->tree)
		for (uint32_t p = 0; p < c->v->pool_count; p++)
			host_release(c->h, c->tree[p]);
	host_release(c->h, c->tree);
	host_release(c->h, c->seg_lo);
	host_release(c->h, c->seg_hi);
	c->tree = NULL;
	c->seg_lo = c->seg_hi = NULL;
	c->use_tree = false;
}

/* Forget every placed end (trees allocated stay, emptied). */
void tvm_tree_clear(tvm_ctx *c)
{
	if (!c->use_tree)
		return;
	for (uint32_t p = 0; p < c->v->pool_count; p++)
		if (c->tree[p])
			memset(c->tree[p], 0, (size_t)c->seg_n * 4 * sizeof **c->tree);
}

/* The highest end placed in pool p over slots [lo, hi), 0 when none. */
uint64_t tvm_tree_query(const tvm_ctx *c, uint32_t p, uint32_t lo,
                        uint32_t hi)
{
	const uint64_t *t = c->tree[p]; /* node k: max t[2k], tag t[2k + 1] */
	if (!t || lo >= hi)
		return 0;
	size_t l = lo + (size_t)c->seg_n, r = hi + (size_t)c->seg_n;
	size_t a = l >> 1, z = (r - 1) >> 1;
	uint64_t best = 0;
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			best = tvm_max(best, t[2 * l]);
			l++;
		}
		if (r & 1) {
			--r;
			best = tvm_max(best, t[2 * r]);
		}
	}
	/* tags on the ancestors of the two ends hold for every slot below */
	for (; a; a >>= 1)
		best = tvm_max(best, t[2 * a + 1]);
	for (; z; z >>= 1)
		best = tvm_max(best, t[2 * z + 1]);
	return best;
}

/* Record buffer b's placement (live, in a valid pool) in its pool's tree. */
void tvm_tree_add(tvm_ctx *c, uint32_t b)
{
	const usmp_placement *pl = &c->work[b];
	if (!c->use_tree || pl->pool >= c->v->pool_count ||
	    !(c->v->buffers[b].flags & USMP_BUFFER_LIVE))
		return;
	uint64_t *mx = c->tree[pl->pool];
	if (!mx) {
		mx = host_array(c->h, (size_t)c->seg_n * 4, sizeof *mx);
		if (!mx) {
			tvm_tree_drop(c); /* the neighbour walk still works */
			return;
		}
		memset(mx, 0, (size_t)c->seg_n * 4 * sizeof *mx);
		c->tree[pl->pool] = mx;
	}
	/* node k: max mx[2k], tag mx[2k + 1] */
	uint64_t end = tvm_sat_add(pl->offset, c->v->buffers[b].size);
	size_t l = c->seg_lo[b] + (size_t)c->seg_n;
	size_t r = c->seg_hi[b] + (size_t)c->seg_n;
	size_t a = l, z = r - 1;
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			mx[2 * l] = tvm_max(mx[2 * l], end);
			mx[2 * l + 1] = tvm_max(mx[2 * l + 1], end);
			l++;
		}
		if (r & 1) {
			--r;
			mx[2 * r] = tvm_max(mx[2 * r], end);
			mx[2 * r + 1] = tvm_max(mx[2 * r + 1], end);
		}
	}
	for (a >>= 1; a; a >>= 1)
		mx[2 * a] = tvm_max(mx[2 * a], end);
	for (z >>= 1; z; z >>= 1)
		mx[2 * z] = tvm_max(mx[2 * z], end);
}
