/* fit.c — the "fit" plugin's entry points, first_fit and best_fit: the call
 * checked, the context set up and released, the algorithm table.
 *
 * Each buffer, in the chosen order (fit_order.c), goes to the lowest
 * (first_fit) or the tightest (best_fit) aligned offset that is valid
 * against every placed buffer it conflicts with, in the first candidate
 * pool where it fits (fit_place.c; fixed buffers first, fit_fixed.c).
 * Placed buffers with live ranges sit in a time index (fit_time_index.c),
 * so a placement reads only the k placed buffers it conflicts with, never
 * a scan of every placed buffer. Their forbidden ranges are put in order
 * of start by a bucket sort (O(k) for the usual spread of offsets) before
 * the gap scan (fit_scan.c); a buffer with several candidate pools gets
 * the ranges of all of them from one walk, grouped by pool (fit_place.c).
 * Overlap rules turn into a smaller forbidden
 * range of start offsets (fit_rules.c). When many buffers are alive at
 * once, in up to four pools, the gap index of fit_index.c (one per pool)
 * answers instead for every buffer without rules, edges, a fixed offset
 * or an empty buffer alive with it (fit_gap_choice.c); the lists are kept
 * beside it for the others. Built with -DUSMP_FIT_REFERENCE (tests only)
 * both algorithms use the lists for every problem.
 * fit_ctx.h holds the context the files share. */
#include "fit_ctx.h"
#include "../name_shown.h"

#include <stdio.h>

static void fit_log(const fit_ctx *c, int level, const char *msg)
{
	if (c->h->log)
		c->h->log(c->h, level, msg);
}

static void fit_release(fit_ctx *c)
{
	void *ptrs[] = {
		c->work, c->place, c->owner, c->times, c->lo, c->hi, c->nlist,
		c->narr, c->nwho, c->slist, c->sarr, c->swho, c->bits0, c->bits1,
		c->fen,
		c->seq, c->rule_stamp, c->rule_flags, c->fwd_lead, c->rev_lead,
		c->rstart, c->radj, c->ranges, c->keys, c->ktmp, c->bucket,
		c->sorted, c->hw, c->rpool, c->pranges, c->pbeg, c->pmin,
		c->pmax, c->pslot, c->pstamp
	};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		host_release(c->h, ptrs[i]);
	usmp__fit_gap_release(c);
}

/* Whether the gap index may serve some placements: at most FIT_GAP_POOLS
 * pools (one index each); which buffers it serves, fit_gap_choice.c. */
static bool fit_gap_usable(const usmp_view *v)
{
#ifdef USMP_FIT_REFERENCE
	/* the test-only reference build: the lists for every problem */
	(void)v;
	return false;
#endif
	return v->pool_count >= 1 && v->pool_count <= FIT_GAP_POOLS;
}

/* Check the call: host table, order and live ranges. USMP_OK with *order
 * set, else the status to return (the reason logged). */
static int fit_check_call(const fit_ctx *c, const char *order_s, int *order)
{
	const usmp_view *v = c->v;
	const usmp_host *h = c->h;
	char m[256];
	if (!v || !h || !c->out || v->struct_size < sizeof(usmp_view) ||
	    !USMP_HAS_FIELD(h, usmp_host, for_each_neighbor) || !h->alloc ||
	    !h->realloc || !h->free || !h->should_stop)
		return USMP_ERR_INVALID;
	*order = usmp__fit_parse_order(order_s);
	if (*order < 0) {
		snprintf(m, sizeof m,
		         "%s: unknown order \"%.64s\" (expected size, lifetime, "
		         "area, conflicts or all)",
		         c->algo, order_s ? order_s : "(null)");
		fit_log(c, USMP_LOG_ERROR, m);
		return USMP_ERR_INVALID;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (fit_live(v, b) && r->end <= r->begin) {
			char nm[NAME_SHOWN_MAX];
			snprintf(m, sizeof m,
			         "%s: buffer \"%s\" has an empty live range",
			         c->algo, name_shown(r->name, nm));
			fit_log(c, USMP_LOG_ERROR, m);
			return USMP_ERR_INVALID;
		}
	}
	return USMP_OK;
}

/* Allocate the per-buffer arrays, the overlap rules and the index. */
static int fit_setup(fit_ctx *c)
{
	size_t n = c->n;
	int rc;
	c->gap = fit_gap_usable(c->v);
	c->work = host_array(c->h, n, sizeof *c->work);
	c->times = host_array(c->h, n, sizeof *c->times);
	c->lo = host_array(c->h, n, sizeof *c->lo);
	c->hi = host_array(c->h, n, sizeof *c->hi);
	c->seq = host_array(c->h, n, sizeof *c->seq);
	c->hw = host_array(c->h, c->v->pool_count, sizeof *c->hw);
	if (!c->work || !c->times || !c->lo || !c->hi || !c->seq || !c->hw)
		return USMP_ERR_NOMEM;
	if (c->v->overlap_count) {
		c->rule_stamp = host_array(c->h, n, sizeof *c->rule_stamp);
		c->rule_flags = host_array(c->h, n, sizeof *c->rule_flags);
		c->fwd_lead = host_array(c->h, n, sizeof *c->fwd_lead);
		c->rev_lead = host_array(c->h, n, sizeof *c->rev_lead);
		if (!c->rule_stamp || !c->rule_flags || !c->fwd_lead ||
		    !c->rev_lead)
			return USMP_ERR_NOMEM;
		if ((rc = usmp__fit_rules_build(c)))
			return rc;
	}
	if ((rc = usmp__fit_index_build(c)))
		return rc;
	if (c->lists) { /* the lists' spans and owners */
		c->place = host_array(c->h, n, sizeof *c->place);
		c->owner = host_array(c->h, n, sizeof *c->owner);
		if (!c->place || !c->owner)
			return USMP_ERR_NOMEM;
	}
	/* the begin times only laid out the index */
	host_release(c->h, c->times);
	c->times = NULL;
	return USMP_OK;
}

static int fit_main(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const char *order_s, int best_fit,
                    const char *algo)
{
	fit_ctx c;
	memset(&c, 0, sizeof c);
	c.v = v;
	c.h = h;
	c.out = out;
	c.algo = algo;
	c.best_fit = best_fit;
	int order;
	int rc = fit_check_call(&c, order_s, &order);
	if (rc || v->buffer_count == 0)
		return rc;
	c.n = v->buffer_count;
	rc = fit_setup(&c);
	if (rc == USMP_ERR_NOMEM && !c.msg[0])
		snprintf(c.msg, sizeof c.msg,
		         "%s: out of memory for %u buffers", algo, c.n);
	if (rc)
		goto fail;
	if (order == FIT_ORDER_COUNT) {
		rc = usmp__fit_run_all(&c);
	} else if ((rc = usmp__fit_run(&c, order)) == USMP_OK) {
		memcpy(out, c.work, (size_t)c.n * sizeof *out);
		if (h->progress)
			h->progress(h, usmp__fit_total(&c, c.hw));
	}
	if (rc)
		goto fail;
	fit_release(&c);
	return USMP_OK;
fail:
	if (c.msg[0])
		fit_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	fit_release(&c);
	return rc;
}

static int first_fit(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const char *order)
{
	return fit_main(v, h, out, order, 0, "first_fit");
}

static int best_fit(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const char *order)
{
	return fit_main(v, h, out, order, 1, "best_fit");
}

#define FIT_CAPS                                                               \
	(USMP_CAP_MULTI_POOL | USMP_CAP_OVERLAP_RULES | USMP_CAP_FIXED_OFFSETS | \
	 USMP_CAP_DETERMINISTIC | USMP_CAP_EXPLICIT_CONFLICTS)

#define FIT_ORDER_HELP                                                         \
	"order: buffer order: size, lifetime, area (size*lifetime), conflicts "  \
	"(degree), all (each of them, keep the smallest plan)"

static const usmp_algorithm fit_first = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = FIT_CAPS,
	.name = "first_fit",
	.summary = "each buffer at the lowest offset that fits between placed "
	           "conflicting buffers (TFLite Micro greedy)",
	.params = "order:str=size",
	.fn = (usmp_algorithm_fn)first_fit,
	.param_help = FIT_ORDER_HELP,
};

static const usmp_algorithm fit_best = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = FIT_CAPS,
	.name = "best_fit",
	.summary = "each buffer in the smallest gap between placed conflicting "
	           "buffers that holds it (XLA heap simulator)",
	.params = "order:str=size",
	.fn = (usmp_algorithm_fn)best_fit,
	.param_help = FIT_ORDER_HELP,
};

static const usmp_algorithm *const fit_algorithms[] = { &fit_first,
	                                                &fit_best };

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "fit",
	.version = "1.0.0",
	.license = "Apache-2.0",
	.algorithm_count = 2,
	.reserved = 0,
	.algorithms = fit_algorithms,
};

