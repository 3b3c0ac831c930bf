/* sweep.c — the "sweep" plugin: first_fit_sweep, first fit in order of
 * begin time (a malloc simulation), O(log n) per buffer.
 *
 * Buffers go in order of live-range start (then larger size, then index);
 * each takes the lowest aligned offset free among the placed buffers still
 * alive at its start. Every placed buffer began no later, so those are
 * exactly its placed conflicts. The alive buffers of a pool are disjoint
 * address ranges kept in a treap keyed by offset, each node holding the gap
 * below it and its subtree the largest such gap, so "the lowest gap that
 * holds s bytes" is one descent. Fixed buffers are obstacles checked apart
 * (any of them may begin after the buffer placed); overlap rules are
 * planned as plain conflicts; explicit edges and several candidate pools
 * are refused.
 */
#include <usmp/plugin.h>

#include "../host_mem.h"
#include "../name_shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SW_NONE UINT32_MAX
/* Placements between two looks at the clock. */
#define SW_STOP_EVERY 4096u

/* One alive buffer in its pool's treap: [start, end) with the free gap
 * below it (start less the end of the range below, or less 0). */
typedef struct sw_node {
	uint64_t start, end, gap, mx; /* mx: the largest gap in the subtree */
	uint32_t l, r, pri;
} sw_node;

/* Sort key: begin asc, size desc, index asc. */
typedef struct sw_key {
	uint64_t t, size;
	uint32_t idx;
} sw_key;

typedef struct sw_ctx {
	const usmp_view *v;
	const usmp_host *h;
	uint32_t n;
	/* Treap nodes in slots reused as buffers end (a free list, last freed
	 * first), so the alive ones stay few and close in memory. */
	sw_node *nodes; /* [n] */
	uint32_t *slot; /* [n] the node of an alive buffer */
	uint32_t *free_slots;
	uint32_t nfree, used;
	uint32_t *root; /* [pool_count] */
	uint32_t *fixed; /* live fixed buffers */
	uint32_t nfixed;
	char msg[512];
} sw_ctx;

/* A time as an unsigned key with the same order. */
static uint64_t sw_time(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

static int sw_cmp(const void *pa, const void *pb)
{
	const sw_key *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int sw_cmp_end(const void *pa, const void *pb)
{
	const sw_key *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* ---- the treap of one pool's alive ranges -------------------------------- */

static void sw_pull(sw_node *nd, uint32_t t)
{
	uint64_t m = nd[t].gap;
	if (nd[t].l != SW_NONE && nd[nd[t].l].mx > m)
		m = nd[nd[t].l].mx;
	if (nd[t].r != SW_NONE && nd[nd[t].r].mx > m)
		m = nd[nd[t].r].mx;
	nd[t].mx = m;
}

/* Merge two treaps, every key of a below every key of b. */
static uint32_t sw_merge(sw_node *nd, uint32_t a, uint32_t b)
{
	if (a == SW_NONE)
		return b;
	if (b == SW_NONE)
		return a;
	if (nd[a].pri > nd[b].pri) {
		nd[a].r = sw_merge(nd, nd[a].r, b);
		sw_pull(nd, a);
		return a;
	}
	nd[b].l = sw_merge(nd, a, nd[b].l);
	sw_pull(nd, b);
	return b;
}

/* Insert node x under t by its start, rotating it up by priority. */
static uint32_t sw_ins(sw_node *nd, uint32_t t, uint32_t x)
{
	if (t == SW_NONE)
		return x;
	if (nd[x].start < nd[t].start) {
		uint32_t l = nd[t].l = sw_ins(nd, nd[t].l, x);
		if (nd[l].pri > nd[t].pri) {
			nd[t].l = nd[l].r;
			sw_pull(nd, t);
			nd[l].r = t;
			sw_pull(nd, l);
			return l;
		}
	} else {
		uint32_t r = nd[t].r = sw_ins(nd, nd[t].r, x);
		if (nd[r].pri > nd[t].pri) {
			nd[t].r = nd[r].l;
			sw_pull(nd, t);
			nd[r].l = t;
			sw_pull(nd, r);
			return r;
		}
	}
	sw_pull(nd, t);
	return t;
}

/* Remove the node starting at k from under t. */
static uint32_t sw_del(sw_node *nd, uint32_t t, uint64_t k)
{
	if (nd[t].start == k)
		return sw_merge(nd, nd[t].l, nd[t].r);
	if (k < nd[t].start)
		nd[t].l = sw_del(nd, nd[t].l, k);
	else
		nd[t].r = sw_del(nd, nd[t].r, k);
	sw_pull(nd, t);
	return t;
}

/* Set the gap of the node starting at k, and the maxima above it. */
static void sw_set_gap(sw_node *nd, uint32_t t, uint64_t k, uint64_t gap)
{
	if (k < nd[t].start)
		sw_set_gap(nd, nd[t].l, k, gap);
	else if (k > nd[t].start)
		sw_set_gap(nd, nd[t].r, k, gap);
	else
		nd[t].gap = gap;
	sw_pull(nd, t);
}

static uint32_t sw_first(const sw_node *nd, uint32_t t)
{
	while (t != SW_NONE && nd[t].l != SW_NONE)
		t = nd[t].l;
	return t;
}

static uint32_t sw_last(const sw_node *nd, uint32_t t)
{
	while (t != SW_NONE && nd[t].r != SW_NONE)
		t = nd[t].r;
	return t;
}

/* The nodes just below and just above start k (k itself skipped). */
static void sw_around(const sw_node *nd, uint32_t t, uint64_t k,
                      uint32_t *below, uint32_t *above)
{
	*below = *above = SW_NONE;
	while (t != SW_NONE) {
		if (nd[t].start < k) {
			*below = t;
			t = nd[t].r;
		} else if (nd[t].start > k) {
			*above = t;
			t = nd[t].l;
		} else {
			if (nd[t].l != SW_NONE)
				*below = sw_last(nd, nd[t].l);
			if (nd[t].r != SW_NONE)
				*above = sw_first(nd, nd[t].r);
			return;
		}
	}
}

/* Insert node x (its start, end, priority set): its gap from the range
 * below, the range above's gap from it. */
static void sw_insert(sw_node *nd, uint32_t *root, uint32_t x)
{
	uint32_t below, above;
	sw_around(nd, *root, nd[x].start, &below, &above);
	nd[x].gap = nd[x].start - (below == SW_NONE ? 0 : nd[below].end);
	nd[x].l = nd[x].r = SW_NONE;
	sw_pull(nd, x);
	*root = sw_ins(nd, *root, x);
	if (above != SW_NONE)
		sw_set_gap(nd, *root, nd[above].start, nd[above].start - nd[x].end);
}

/* Remove node x: the range above takes over its gap and x's. */
static void sw_erase(sw_node *nd, uint32_t *root, uint32_t x)
{
	uint32_t below, above;
	sw_around(nd, *root, nd[x].start, &below, &above);
	*root = sw_del(nd, *root, nd[x].start);
	if (above != SW_NONE)
		sw_set_gap(nd, *root, nd[above].start,
		           nd[above].start - (below == SW_NONE ? 0 : nd[below].end));
}

/* The leftmost node with start > k whose gap is at least s. */
static uint32_t sw_find(const sw_node *nd, uint32_t t, uint64_t k, uint64_t s)
{
	while (t != SW_NONE && nd[t].mx >= s) {
		if (nd[t].start <= k) {
			t = nd[t].r;
			continue;
		}
		uint32_t r = sw_find(nd, nd[t].l, k, s);
		if (r != SW_NONE)
			return r;
		if (nd[t].gap >= s)
			return t;
		t = nd[t].r;
	}
	return SW_NONE;
}

/* The smallest node with start > k. */
static uint32_t sw_after(const sw_node *nd, uint32_t t, uint64_t k)
{
	uint32_t best = SW_NONE;
	while (t != SW_NONE) {
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
static bool sw_lowest(const sw_node *nd, uint32_t root, uint64_t lo,
                      uint64_t s, uint64_t al, uint64_t *out)
{
	bool ok = true;
	uint32_t m = sw_after(nd, root, lo);
	if (m != SW_NONE) {
		uint64_t gs = nd[m].start - nd[m].gap;
		uint64_t x = usmp_align_up(gs > lo ? gs : lo, al, &ok);
		if (ok && x <= nd[m].start && s <= nd[m].start - x) {
			*out = x;
			return true;
		}
		ok = true;
		for (uint64_t k = nd[m].start;;) {
			uint32_t f = sw_find(nd, root, k, s);
			if (f == SW_NONE)
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
	uint32_t top = sw_last(nd, root);
	uint64_t base = top == SW_NONE ? 0 : nd[top].end;
	uint64_t x = usmp_align_up(base > lo ? base : lo, al, &ok);
	if (!ok || x + s < x)
		return false;
	*out = x;
	return true;
}

/* ---- the sweep ------------------------------------------------------------ */

static uint32_t sw_pool(const usmp_view *v, uint32_t b)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	return r->flags & USMP_BUFFER_FIXED ? r->fixed_pool
	                                    : v->candidates[r->candidate_start];
}

/* Raise *x past any live fixed buffer of pool p whose range meets b's and
 * whose bytes meet [*x, *x + s); true when one did. */
static bool sw_fixed_clash(const sw_ctx *c, uint32_t b, uint32_t p,
                           uint64_t s, uint64_t *x)
{
	const usmp_view *v = c->v;
	for (uint32_t i = 0; i < c->nfixed; i++) {
		uint32_t f = c->fixed[i];
		const usmp_buffer_rec *r = &v->buffers[f];
		if (r->fixed_pool != p || !usmp_live_overlap(v, b, f))
			continue;
		uint64_t fe = r->fixed_offset + r->size;
		if (r->fixed_offset < *x + s && *x < fe) {
			*x = fe;
			return true;
		}
	}
	return false;
}

static int sw_infeasible(sw_ctx *c, uint32_t b, uint32_t p, uint64_t x,
                         bool overflow)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	char nm[NAME_SHOWN_MAX], pn[NAME_SHOWN_MAX];
	if (overflow)
		snprintf(c->msg, sizeof c->msg, "first_fit_sweep: buffer \"%s\" "
		         "(%llu byte%s) has no offset below 2^64 in pool \"%s\"",
		         name_shown(r->name, nm), (unsigned long long)r->size,
		         r->size == 1 ? "" : "s", name_shown(v->pools[p].name, pn));
	else
		snprintf(c->msg, sizeof c->msg, "first_fit_sweep: buffer \"%s\" "
		         "(%llu byte%s) does not fit in pool \"%s\" (limit %llu "
		         "byte%s): its lowest free offset is %llu",
		         name_shown(r->name, nm), (unsigned long long)r->size,
		         r->size == 1 ? "" : "s", name_shown(v->pools[p].name, pn),
		         (unsigned long long)v->pools[p].size_limit,
		         v->pools[p].size_limit == 1 ? "" : "s",
		         (unsigned long long)x);
	return USMP_ERR_INFEASIBLE;
}

/* Place buffer b (not fixed) at the lowest offset free of the alive ranges
 * of its pool and of the fixed buffers it meets. */
static int sw_place(sw_ctx *c, uint32_t b, bool live, usmp_placement *out)
{
	const usmp_view *v = c->v;
	uint32_t p = sw_pool(v, b);
	uint64_t s = v->buffers[b].size, al = usmp_buffer_alignment(v, b, p);
	uint64_t x = 0, lo = 0;
	for (;;) {
		if (live) {
			if (!sw_lowest(c->nodes, c->root[p], lo, s, al, &x))
				return sw_infeasible(c, b, p, lo, true);
		} else {
			bool ok = true;
			x = usmp_align_up(lo, al, &ok);
			if (!ok || x + s < x)
				return sw_infeasible(c, b, p, lo, true);
		}
		if (!live || !sw_fixed_clash(c, b, p, s, &x))
			break;
		lo = x;
	}
	if (x + s > v->pools[p].size_limit)
		return sw_infeasible(c, b, p, x, false);
	out[b] = (usmp_placement){p, 0, x};
	if (live) {
		uint32_t k = c->nfree ? c->free_slots[--c->nfree] : c->used++;
		/* a fixed, well mixed priority per buffer: deterministic */
		uint64_t z = (uint64_t)b * 0x9e3779b97f4a7c15ull;
		z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
		c->slot[b] = k;
		c->nodes[k].start = x;
		c->nodes[k].end = x + s;
		c->nodes[k].pri = (uint32_t)(z >> 32);
		sw_insert(c->nodes, &c->root[p], k);
	}
	return USMP_OK;
}

static int sw_run(sw_ctx *c, usmp_placement *out)
{
	const usmp_view *v = c->v;
	sw_key *by_begin = host_array(c->h, c->n, sizeof *by_begin);
	sw_key *by_end = host_array(c->h, c->n, sizeof *by_end);
	int rc = USMP_ERR_NOMEM;
	if (!by_begin || !by_end)
		goto fail;
	uint32_t m = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		if (r->flags & USMP_BUFFER_FIXED) {
			if (r->flags & USMP_BUFFER_LIVE)
				c->fixed[c->nfixed++] = i;
			continue;
		}
		if (!(r->flags & USMP_BUFFER_LIVE)) {
			if ((rc = sw_place(c, i, false, out)))
				goto fail;
			continue;
		}
		by_begin[m] = (sw_key){sw_time(r->begin), r->size, i};
		by_end[m] = (sw_key){sw_time(r->end), r->size, i};
		m++;
	}
	qsort(by_begin, m, sizeof *by_begin, sw_cmp);
	qsort(by_end, m, sizeof *by_end, sw_cmp_end);
	uint32_t done = 0;
	for (uint32_t k = 0; k < m; k++) {
		if (k % SW_STOP_EVERY == SW_STOP_EVERY - 1 &&
		    c->h->should_stop(c->h)) {
			rc = USMP_ERR_STOPPED;
			goto fail;
		}
		/* half-open ranges: those ended at or before this begin go */
		while (done < k && by_end[done].t <= by_begin[k].t) {
			uint32_t e = by_end[done++].idx;
			sw_erase(c->nodes, &c->root[sw_pool(v, e)], c->slot[e]);
			c->free_slots[c->nfree++] = c->slot[e];
		}
		if ((rc = sw_place(c, by_begin[k].idx, true, out)))
			goto fail;
	}
	rc = USMP_OK;
fail:
	host_release(c->h, by_begin);
	host_release(c->h, by_end);
	return rc;
}

static int first_fit_sweep(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out)
{
	sw_ctx c;
	memset(&c, 0, sizeof c);
	c.v = v;
	c.h = h;
	if (!v || !h || !out || v->struct_size < sizeof(usmp_view) ||
	    !h->alloc || !h->free || !h->should_stop)
		return USMP_ERR_INVALID;
	int rc = USMP_ERR_UNSUPPORTED;
	/* Overlap rules are planned as plain conflicts: a rule only allows
	 * bytes to be shared, so a plan that shares none keeps them. */
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (!(v->buffers[i].flags & USMP_BUFFER_FIXED) &&
		    v->buffers[i].candidate_count != 1) {
			char nm[NAME_SHOWN_MAX];
			snprintf(c.msg, sizeof c.msg, "first_fit_sweep: buffer \"%s\" "
			         "has %u candidate pools; only one is supported",
			         name_shown(v->buffers[i].name, nm),
			         v->buffers[i].candidate_count);
			goto fail;
		}
	if (v->conflict_start && v->conflict_start[v->buffer_count]) {
		snprintf(c.msg, sizeof c.msg, "first_fit_sweep: explicit conflict "
		         "edges are not supported");
		goto fail;
	}
	c.n = v->buffer_count;
	c.nodes = host_array(c.h, c.n, sizeof *c.nodes);
	c.root = host_array(c.h, v->pool_count, sizeof *c.root);
	c.fixed = host_array(c.h, c.n, sizeof *c.fixed);
	c.slot = host_array(c.h, c.n, sizeof *c.slot);
	c.free_slots = host_array(c.h, c.n, sizeof *c.free_slots);
	rc = USMP_ERR_NOMEM;
	if (!c.nodes || !c.root || !c.fixed || !c.slot || !c.free_slots) {
		snprintf(c.msg, sizeof c.msg, "first_fit_sweep: out of memory "
		         "for %u buffers", c.n);
		goto fail;
	}
	for (uint32_t p = 0; p < v->pool_count; p++)
		c.root[p] = SW_NONE;
	if ((rc = sw_run(&c, out)))
		goto fail;
	if (h->progress) {
		uint64_t total = 0;
		uint64_t *hw = host_array(c.h, v->pool_count, sizeof *hw);
		if (hw) {
			memset(hw, 0, v->pool_count * sizeof *hw);
			for (uint32_t i = 0; i < c.n; i++) {
				uint64_t top = out[i].offset + v->buffers[i].size;
				if (top > hw[out[i].pool])
					hw[out[i].pool] = top;
			}
			for (uint32_t p = 0; p < v->pool_count; p++)
				total += hw[p];
			h->progress(h, total);
			host_release(c.h, hw);
		}
	}
	rc = USMP_OK;
fail:
	if (rc && c.msg[0] && h->log)
		h->log(h, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                    : USMP_LOG_WARN,
		       c.msg);
	host_release(c.h, c.nodes);
	host_release(c.h, c.root);
	host_release(c.h, c.fixed);
	host_release(c.h, c.slot);
	host_release(c.h, c.free_slots);
	return rc;
}

/* ---- descriptor ------------------------------------------------------------ */

static const usmp_algorithm sweep_first_fit = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = USMP_CAP_FIXED_OFFSETS | USMP_CAP_DETERMINISTIC,
	.name = "first_fit_sweep",
	.summary = "buffers in order of begin time, each at the lowest offset "
	           "free among the placed buffers alive at its begin (malloc "
	           "simulation, O(log n) a buffer)",
	.params = "",
	.fn = (usmp_algorithm_fn)first_fit_sweep,
	.param_help = NULL,
};

static const usmp_algorithm *const sweep_algorithms[] = { &sweep_first_fit };

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "sweep",
	.version = "1.0.0",
	.license = "Apache-2.0",
	.algorithm_count = 1,
	.reserved = 0,
	.algorithms = sweep_algorithms,
};
