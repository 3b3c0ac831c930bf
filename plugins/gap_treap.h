/* gap_treap.h — a treap of disjoint address ranges keyed by offset, each node
 * with the free gap below it: the lowest aligned gap that holds s bytes. */
#ifndef USMP_PLUGINS_GAP_TREAP_H
#define USMP_PLUGINS_GAP_TREAP_H
#include <stdbool.h>
#include <stdint.h>

#include <usmp/plugin.h>

/* The alive buffers of a first fit in time order are disjoint ranges
 * [start, end) of positive length; nodes live in the caller's array and
 * link by index (GT_NONE: none). Each node holds the gap below it (start
 * less the end of the range below, or less 0) and its subtree's largest
 * gap, so "the lowest gap that holds s bytes" is one descent; a gap the
 * alignment cannot use is passed over. O(log n) expected per operation,
 * the priorities being well mixed (gt_priority). */

#define GT_NONE UINT32_MAX

typedef struct gt_node {
	uint64_t start, end, gap, mx; /* mx: the largest gap in the subtree */
	uint32_t l, r, pri;
} gt_node;

/* A fixed, well mixed priority for key k: deterministic. */
static inline uint32_t gt_priority(uint64_t k)
{
	uint64_t z = k * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(z >> 32);
}

static inline void gt_pull(gt_node *nd, uint32_t t)
{
	uint64_t m = nd[t].gap;
	if (nd[t].l != GT_NONE && nd[nd[t].l].mx > m)
		m = nd[nd[t].l].mx;
	if (nd[t].r != GT_NONE && nd[nd[t].r].mx > m)
		m = nd[nd[t].r].mx;
	nd[t].mx = m;
}

/* Merge two treaps, every key of a below every key of b. */
static inline uint32_t gt_merge(gt_node *nd, uint32_t a, uint32_t b)
{
	if (a == GT_NONE)
		return b;
	if (b == GT_NONE)
		return a;
	if (nd[a].pri > nd[b].pri) {
		nd[a].r = gt_merge(nd, nd[a].r, b);
		gt_pull(nd, a);
		return a;
	}
	nd[b].l = gt_merge(nd, a, nd[b].l);
	gt_pull(nd, b);
	return b;
}

/* Insert node x under t by its start, rotating it up by priority. */
static inline uint32_t gt_ins(gt_node *nd, uint32_t t, uint32_t x)
{
	if (t == GT_NONE)
		return x;
	if (nd[x].start < nd[t].start) {
		uint32_t l = nd[t].l = gt_ins(nd, nd[t].l, x);
		if (nd[l].pri > nd[t].pri) {
			nd[t].l = nd[l].r;
			gt_pull(nd, t);
			nd[l].r = t;
			gt_pull(nd, l);
			return l;
		}
	} else {
		uint32_t r = nd[t].r = gt_ins(nd, nd[t].r, x);
		if (nd[r].pri > nd[t].pri) {
			nd[t].r = nd[r].l;
			gt_pull(nd, t);
			nd[r].l = t;
			gt_pull(nd, r);
			return r;
		}
	}
	gt_pull(nd, t);
	return t;
}

/* Remove the node starting at k from under t. */
static inline uint32_t gt_del(gt_node *nd, uint32_t t, uint64_t k)
{
	if (nd[t].start == k)
		return gt_merge(nd, nd[t].l, nd[t].r);
	if (k < nd[t].start)
		nd[t].l = gt_del(nd, nd[t].l, k);
	else
		nd[t].r = gt_del(nd, nd[t].r, k);
	gt_pull(nd, t);
	return t;
}

/* Set the gap of the node starting at k, and the maxima above it. */
static inline void gt_set_gap(gt_node *nd, uint32_t t, uint64_t k, uint64_t gap)
{
	if (k < nd[t].start)
		gt_set_gap(nd, nd[t].l, k, gap);
	else if (k > nd[t].start)
		gt_set_gap(nd, nd[t].r, k, gap);
	else
		nd[t].gap = gap;
	gt_pull(nd, t);
}

static inline uint32_t gt_first(const gt_node *nd, uint32_t t)
{
	while (t != GT_NONE && nd[t].l != GT_NONE)
		t = nd[t].l;
	return t;
}

static inline uint32_t gt_last(const gt_node *nd, uint32_t t)
{
	while (t != GT_NONE && nd[t].r != GT_NONE)
		t = nd[t].r;
	return t;
}

/* The nodes just below and just above start k (k itself skipped). */
static inline void gt_around(const gt_node *nd, uint32_t t, uint64_t k,
                      uint32_t *below, uint32_t *above)
{
	*below = *above = GT_NONE;
	while (t != GT_NONE) {
		if (nd[t].start < k) {
			*below = t;
			t = nd[t].r;
		} else if (nd[t].start > k) {
			*above = t;
			t = nd[t].l;
		} else {
			if (nd[t].l != GT_NONE)
				*below = gt_last(nd, nd[t].l);
			if (nd[t].r != GT_NONE)
				*above = gt_first(nd, nd[t].r);
			return;
		}
	}
}

/* Insert node x (its start, end, priority set): its gap from the range
 * below, the range above's gap from it. */
static inline void gt_insert(gt_node *nd, uint32_t *root, uint32_t x)
{
	uint32_t below, above;
	gt_around(nd, *root, nd[x].start, &below, &above);
	nd[x].gap = nd[x].start - (below == GT_NONE ? 0 : nd[below].end);
	nd[x].l = nd[x].r = GT_NONE;
	gt_pull(nd, x);
	*root = gt_ins(nd, *root, x);
	if (above != GT_NONE)
		gt_set_gap(nd, *root, nd[above].start, nd[above].start - nd[x].end);
}

/* Remove node x: the range above takes over its gap and x's. */
static inline void gt_erase(gt_node *nd, uint32_t *root, uint32_t x)
{
	uint32_t below, above;
	gt_around(nd, *root, nd[x].start, &below, &above);
	*root = gt_del(nd, *root, nd[x].start);
	if (above != GT_NONE)
		gt_set_gap(nd, *root, nd[above].start,
		           nd[above].start - (below == GT_NONE ? 0 : nd[below].end));
}

/* The leftmost node with start > k whose gap is at least s. */
static inline uint32_t gt_find(const gt_node *nd, uint32_t t, uint64_t k, uint64_t s)
{
	while (t != GT_NONE && nd[t].mx >= s) {
		if (nd[t].start <= k) {
			t = nd[t].r;
			continue;
		}
		uint32_t r = gt_find(nd, nd[t].l, k, s);
		if (r != GT_NONE)
			return r;
		if (nd[t].gap >= s)
			return t;
		t = nd[t].r;
	}
	return GT_NONE;
}

/* The smallest node with start > k. */
static inline uint32_t gt_after(const gt_node *nd, uint32_t t, uint64_t k)
{
	uint32_t best = GT_NONE;
	while (t != GT_NONE) {
		if (nd[t].start > k) {
			best = t;
			t = nd[t].l;
		} else {
			t = nd[t].r;
		}
	}
	return best;
}

/* The lowest offset x >= lo, a multiple of al, with [x, x + s) free of
 * every range in the treap; false on overflow. */
static inline bool gt_lowest(const gt_node *nd, uint32_t root, uint64_t lo,
                      uint64_t s, uint64_t al, uint64_t *out)
{
	bool ok = true;
	uint32_t m = gt_after(nd, root, lo);
	if (m != GT_NONE) {
		uint64_t gs = nd[m].start - nd[m].gap;
		uint64_t x = usmp_align_up(gs > lo ? gs : lo, al, &ok);
		if (ok && x <= nd[m].start && s <= nd[m].start - x) {
			*out = x;
			return true;
		}
		ok = true;
		for (uint64_t k = nd[m].start;;) {
			uint32_t f = gt_find(nd, root, k, s);
			if (f == GT_NONE)
				break;
			x = usmp_align_up(nd[f].start - nd[f].gap, al, &ok);
			if (ok && x <= nd[f].start && s <= nd[f].start - x) {
				*out = x;
				return true;
			}
			ok = true;
			k = nd[f].start;
		}
	}
	uint32_t top = gt_last(nd, root);
	uint64_t base = top == GT_NONE ? 0 : nd[top].end;
	uint64_t x = usmp_align_up(base > lo ? base : lo, al, &ok);
	if (!ok || x + s < x)
		return false;
	*out = x;
	return true;
}

#endif
