/* sweep.c — the "sweep" plugin: first_fit_sweep, first fit in order of
 * begin time (a malloc simulation), O(log n) per buffer.
 *
 * Buffers go in order of live-range start (then larger size, then index);
 * each takes the lowest aligned offset free among the placed buffers still
 * alive at its start. Every placed buffer began no later, so those are
 * exactly its placed conflicts. The alive buffers of a pool are disjoint
 * address ranges kept in a treap keyed by offset (../gap_treap.h), each
 * node holding the gap below it and its subtree the largest such gap, so
 * "the lowest gap that holds s bytes" is one descent. Fixed buffers are
 * obstacles checked apart (any of them may begin after the buffer placed);
 * overlap rules are planned as plain conflicts; explicit edges and several
 * candidate pools are refused.
 */
#include <usmp/plugin.h>

#include "../gap_treap.h"
#include "../host_mem.h"
#include "../name_shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Placements between two looks at the clock. */
#define SW_STOP_EVERY 4096u

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
	gt_node *nodes; /* [n] */
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
			if (!gt_lowest(c->nodes, c->root[p], lo, s, al, &x))
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
		c->slot[b] = k;
		c->nodes[k].start = x;
		c->nodes[k].end = x + s;
		c->nodes[k].pri = gt_priority(b);
		gt_insert(c->nodes, &c->root[p], k);
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
			gt_erase(c->nodes, &c->root[sw_pool(v, e)], c->slot[e]);
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
		c.root[p] = GT_NONE;
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
