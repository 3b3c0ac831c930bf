/* exact.c — the exact planner plugin: descriptor, knobs, and the driver that
 * closes the gap between the lower bound and the best plan (anytime). */
#include "exact_internal.h"

#include <stdio.h>
#include <string.h>

/* First node budget of a capacity probe; multiplied by 4 each round. */
#define FIRST_BUDGET UINT64_C(20000)
/* Views at least this large start from exact_window's plan too. */
#define WINDOW_FROM 2000u
/* Largest budget of the lower bound's head start. */
#define HEAD_BUDGET (16 * FIRST_BUDGET)

typedef struct driver {
	const usmp_view *v;
	const usmp_host *h;
	xact_model m;
	xact_clock clk;
	uint64_t *best;  /* [n] offsets of the best plan */
	uint64_t *trial; /* [n] scratch plan */
	bool have;
	uint64_t best_peak;
	uint64_t enough; /* a peak at or below it ends the minimisation */
} driver;


static uint64_t plan_peak(const xact_model *m, const uint64_t *off)
{
	uint64_t peak = m->fixed_peak;
	for (uint32_t i = 0; i < m->n; i++)
		if (off[i] + m->size[i] > peak)
			peak = off[i] + m->size[i];
	return peak;
}

static void logmsg(const usmp_host *h, int level, const char *fmt,
                   unsigned long long a, unsigned long long b,
                   unsigned long long c)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, a, b, c);
	h->log(h, level, msg);
}

static void take(driver *d, const uint64_t *off, uint64_t peak)
{
	memcpy(d->best, off, (size_t)d->m.n * sizeof *off);
	d->best_peak = peak;
	d->have = true;
	if (d->h->progress)
		d->h->progress(d->h, peak);
}

static void write_plan(const driver *d, usmp_placement *out)
{
	const xact_model *m = &d->m;
	for (uint32_t i = 0; i < m->n; i++) {
		out[m->id[i]].pool = 0;
		out[m->id[i]].reserved = 0;
		out[m->id[i]].offset = d->best[i];
	}
	for (uint32_t f = 0; f < m->nfix; f++) {
		out[m->fix_id[f]].pool = 0;
		out[m->fix_id[f]].reserved = 0;
		out[m->fix_id[f]].offset = m->fix_off[f];
	}
}

/* Whether an overlap rule between fixed buffers a and b (model indices)
 * lets them share bytes where they are: offset(dst) <= offset(src) + lead. */
static bool fixed_rule_allows(const usmp_view *v, const xact_model *m,
                              uint32_t a, uint32_t b)
{
	for (int way = 0; way < 2; way++) {
		uint32_t s = way ? b : a, d = way ? a : b;
		int64_t lead = xact_rule_lead(v, m->fix_id[s], m->fix_id[d]);
		if (lead == INT64_MIN)
			continue;
		/* in 128 bits: offsets reach 2^64 - 1, leads are signed */
		__int128 reach = (__int128)m->fix_off[s] + lead;
		if ((__int128)m->fix_off[d] <= reach)
			return true;
	}
	return false;
}

/* Two fixed buffers that meet in time and memory, without an overlap rule
 * that lets them, make every plan invalid. */
static bool fixed_clash(const usmp_view *v, const xact_model *m)
{
	for (uint32_t a = 0; a < m->nfix; a++)
		for (uint32_t b = a + 1; b < m->nfix; b++) {
			const usmp_buffer_rec *x = &v->buffers[m->fix_id[a]];
			const usmp_buffer_rec *y = &v->buffers[m->fix_id[b]];
			bool both = x->flags & y->flags & USMP_BUFFER_LIVE;
			if (both && !usmp_live_overlap(v, m->fix_id[a], m->fix_id[b]))
				continue;
			if (m->fix_off[a] < m->fix_end[b] &&
			    m->fix_off[b] < m->fix_end[a] &&
			    !fixed_rule_allows(v, m, a, b))
				return true;
		}
	return false;
}

/* Minimise the peak within [lo, limit]: probe capacities (the lower bound
 * first, then bisection of the open gap) with node budgets growing 4x per
 * round, so every probe is bounded and the best plan is always at hand.
 * A probe that proves a capacity infeasible raises the proven bound.
 * Returns a xact_result for the whole run; *lo is the proven bound. */
/* One bounded probe: is there a plan of peak <= c? Updates the best plan,
 * the proven bound lo and the upper end hi; returns the probe's result. */
static int probe(driver *d, uint64_t c, uint64_t budget, uint64_t *lo,
                 uint64_t *hi)
{
	if (xact_should_stop(&d->clk))
		return XACT_STOPPED;
	uint64_t before = d->clk.nodes;
	int r = xact_solve(&d->m, c, budget, &d->clk, d->trial);
	logmsg(d->h, USMP_LOG_DEBUG, "exact: probe %llu budget %llu: %llu nodes",
	       (unsigned long long)c, (unsigned long long)budget,
	       (unsigned long long)(d->clk.nodes - before));
	if (r == XACT_FOUND) {
		uint64_t p = plan_peak(&d->m, d->trial);
		take(d, d->trial, p);
		*hi = p;
	} else if (r == XACT_INFEASIBLE) {
		*lo = xact_reach_up(&d->m, c + d->m.gran);
	}
	return r;
}

/* A capacity worth probing in [tlo, hi): a peak some plan could have (a
 * sum of sizes), near the middle; hi when there is none. */
static uint64_t middle(const driver *d, uint64_t tlo, uint64_t hi)
{
	uint64_t g = d->m.gran;
	uint64_t c = xact_reach_down(&d->m, tlo + (hi - tlo) / g / 2 * g);
	if (c < tlo)
		c = xact_reach_up(&d->m, tlo);
	return c < hi ? c : hi;
}

static int minimise(driver *d, uint64_t *lo, uint64_t limit)
{
	/* Only multiples of g can be optimal: keep lo, hi and probes on them. */
	uint64_t g = d->m.gran;
	*lo = xact_reach_up(&d->m, (*lo + g - 1) / g * g);
	limit = limit / g * g;
	if (*lo > limit)
		return d->have ? XACT_FOUND : XACT_INFEASIBLE;
	uint64_t hi = d->have ? d->best_peak : limit + g;
	uint64_t budget = FIRST_BUDGET;
	int r;
	/* A quick descent first, so that even a short call improves on the
	 * greedy plan: bisection with small budgets, until two probes are
	 * undecided. */
	uint64_t qlo = *lo; /* undecided below it in the quick descent */
	for (int limited = 0; limited < 2;) {
		uint64_t t = qlo > *lo ? qlo : *lo;
		if (t >= hi || hi <= d->enough)
			break;
		uint64_t c = middle(d, t, hi);
		if (c >= hi)
			break;
		r = probe(d, c, FIRST_BUDGET / 4, lo, &hi);
		if (r == XACT_LIMIT) {
			qlo = c + g;
			limited++;
		} else if (r != XACT_FOUND &&
		           r != XACT_INFEASIBLE) {
			return r;
		}
	}
	/* Head start: the lower bound alone, with growing budgets. It is
	 * often the optimum, and then the bisection below would be waste. */
	for (; budget <= HEAD_BUDGET && *lo < hi && hi > d->enough;
	     budget *= 4) {
		r = probe(d, *lo, budget, lo, &hi);
		if (r != XACT_FOUND && r != XACT_INFEASIBLE &&
		    r != XACT_LIMIT)
			return r;
	}
	/* Then rounds: the lower bound, and bisection of [lo, hi) up to hi,
	 * every probe with the round's budget; 4x the budget each round. */
	while (*lo < hi && hi > d->enough) {
		uint64_t tlo = *lo, c = *lo;
		for (;;) {
			r = probe(d, c, budget, lo, &hi);
			if (r == XACT_LIMIT)
				tlo = c + g;
			else if (r != XACT_FOUND &&
			         r != XACT_INFEASIBLE)
				return r;
			if (tlo < *lo)
				tlo = *lo;
			if (tlo >= hi || hi <= d->enough)
				break;
			/* Bisect the possible peaks in [tlo, hi). */
			c = middle(d, tlo, hi);
			if (c >= hi)
				break;
		}
		budget = budget > UINT64_MAX / 8 ? UINT64_MAX / 2 : budget * 4;
	}
	return d->have ? XACT_FOUND : XACT_INFEASIBLE;
}

/* Large views: exact_window's plan, when better, is the search's first (on
 * such views it often reaches the lower bound at once, where a descent
 * from the greedy plan does not), in at most a quarter of the time. */
static void window_start(driver *d, uint64_t limit, double time_limit)
{
	const usmp_view *v = d->v;
	const usmp_host *h = d->h;
	const xact_model *m = &d->m;
	usmp_placement *w = h->alloc(h, (size_t)v->buffer_count * sizeof *w);
	if (!w)
		return;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		w[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
	for (uint32_t f = 0; f < m->nfix; f++)
		w[m->fix_id[f]] = (usmp_placement){0, 0, m->fix_off[f]};
	if (xact_window_nested(v, h, w, 32, time_limit / 4, false) == USMP_OK) {
		for (uint32_t i = 0; i < m->n; i++)
			d->trial[i] = w[m->id[i]].offset;
		uint64_t p = plan_peak(m, d->trial);
		if (p <= limit && (!d->have || p < d->best_peak))
			take(d, d->trial, p);
	}
	h->free(h, w);
}

/* True when an overlap rule joins two buffers alive together and could let
 * them share a byte (max_lead > -size(dst)); other rules change nothing. */
static bool sharing_rules(const usmp_view *v)
{
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (usmp_live_overlap(v, o->src, o->dst) &&
		    o->max_lead > -(int64_t)v->buffers[o->dst].size)
			return true;
	}
	return false;
}

/* The bound the search starts from, true with the rules: the host's (which
 * knows them, maybe not alignment), the fixed buffers' and exact's own,
 * which knows alignment (xact_align_bound). */
static uint64_t first_bound(const usmp_view *v, const xact_model *m,
                            const usmp_host *h)
{
	uint64_t own = xact_align_bound(m, v), lo = v->lower_bound;
	logmsg(h, USMP_LOG_DEBUG, "exact: lower bounds: the host's %llu, the "
	       "fixed buffers' %llu, with alignment %llu",
	       (unsigned long long)lo, (unsigned long long)m->fixed_peak,
	       (unsigned long long)own);
	if (m->fixed_peak > lo)
		lo = m->fixed_peak;
	return own > lo ? own : lo;
}

int xact_one_search(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const xact_params *kp,
                    xact_outcome *res)
{
	uint64_t capacity = kp->capacity;
	double time_limit = kp->time_limit;
	bool minimize = kp->minimize;
	driver d;
	memset(&d, 0, sizeof d);
	d.enough = kp->enough;
	d.v = v;
	d.h = h;
	d.clk.host = h;
	if (time_limit < 0 || time_limit != time_limit) {
		h->log(h, USMP_LOG_ERROR, "exact: time_limit must be >= 0");
		return USMP_ERR_INVALID;
	}
	if (time_limit > 0)
		d.clk.deadline = xact_now() + time_limit;
	int rc = xact_model_build(&d.m, v, h);
	if (rc)
		return rc;
	xact_model *m = &d.m;
	rc = USMP_ERR_NOMEM;
	size_t n = m->n ? m->n : 1;
	if (!(d.best = h->alloc(h, n * sizeof *d.best)) ||
	    !(d.trial = h->alloc(h, n * sizeof *d.trial)))
		goto fail;
	if (fixed_clash(v, m)) {
		h->log(h, USMP_LOG_ERROR, "exact: two fixed buffers overlap");
		rc = USMP_ERR_INFEASIBLE;
		goto fail;
	}

	uint64_t limit = v->pools[0].size_limit;
	if (capacity > 0 && capacity < limit)
		limit = capacity;
	/* Bounds: those that hold with the rules (first_bound), and, when no
	 * rule lets buffers share, the fullest section. */
	bool rules = sharing_rules(v);
	uint64_t lo = first_bound(v, m, h);
	uint64_t reported_lo = lo;
	if (!rules && m->sect_max > lo)
		lo = m->sect_max;
	if (lo > limit) {
		logmsg(h, USMP_LOG_ERROR, "exact: lower bound %llu exceeds the "
		       "limit %llu", (unsigned long long)lo,
		       (unsigned long long)limit, 0ULL);
		rc = USMP_ERR_INFEASIBLE;
		goto fail;
	}
	uint64_t g = xact_greedy(m, d.trial, &d.clk);
	if (g == UINT64_MAX)
		goto fail;
	if (g <= limit)
		take(&d, d.trial, g);
	if (m->n >= WINDOW_FROM && (!d.have || d.best_peak > lo))
		window_start(&d, limit, time_limit);

	/* No greedy plan within the limit: first any plan that fits (the
	 * decision question, all minimize=false asks), so that a search
	 * stopped by its budget still has a plan; minimising starts from it. */
	int r = XACT_FOUND;
	if (!d.have) {
		r = xact_solve(m, limit, UINT64_MAX, &d.clk, d.trial);
		if (r == XACT_FOUND)
			take(&d, d.trial, plan_peak(m, d.trial));
	}
	if (minimize && r == XACT_FOUND)
		r = minimise(&d, &lo, limit);
	if (!rules)
		reported_lo = lo;
	logmsg(h, USMP_LOG_INFO, "exact: peak %llu, proven bound %llu, %llu "
	       "search nodes", (unsigned long long)(d.have ? d.best_peak : 0),
	       (unsigned long long)lo, (unsigned long long)d.clk.nodes);
	if (r == XACT_NOMEM && !d.have)
		goto fail;
	if (!d.have && r == XACT_INFEASIBLE && rules) {
		/* The search treated the rules as conflicts: no proof. */
		h->log(h, USMP_LOG_ERROR, "exact: no plan fits with the overlap "
		       "rules as plain conflicts, which proves nothing about the "
		       "rules (one pool with live ranges)");
		rc = USMP_ERR_UNSUPPORTED;
		goto fail;
	}
	if (!d.have) {
		if (r == XACT_INFEASIBLE) {
			logmsg(h, USMP_LOG_ERROR, "exact: no plan fits in %llu "
			       "bytes", (unsigned long long)limit,
			       0ULL, 0ULL);
			rc = USMP_ERR_INFEASIBLE;
		} else {
			h->log(h, USMP_LOG_WARN, "exact: stopped before any "
			       "plan was found");
			rc = USMP_ERR_STOPPED;
		}
		goto fail;
	}
	write_plan(&d, out);
	/* reported_lo knows the rules: a plan reaching it is optimal. */
	res->peak = d.best_peak;
	res->bound = reported_lo > d.best_peak ? d.best_peak : reported_lo;
	rc = USMP_OK;
fail:
	if (d.best)
		h->free(h, d.best);
	if (d.trial)
		h->free(h, d.trial);
	xact_model_free(m);
	return rc;
}

/* Search one pool whose buffers all have live ranges, whole or in parts at
 * time cuts when too large for one search. */
static int search_view(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out, const xact_params *kp,
                       xact_outcome *res)
{
	res->peak = 0;
	res->bound = 0;
	return v->buffer_count > kp->split ? xact_parts(v, h, out, kp, res)
	                                   : xact_one_search(v, h, out, kp, res);
}

/* Whether a rule lets its pair share a byte: both live ranges meet and
 * max_lead > -size(dst) (a buffer without a range meets nothing here). */
static bool shares(const usmp_view *v, const usmp_overlap_rec *o)
{
	bool ls = v->buffers[o->src].flags & USMP_BUFFER_LIVE;
	bool ld = v->buffers[o->dst].flags & USMP_BUFFER_LIVE;
	return ls && ld && usmp_live_overlap(v, o->src, o->dst) &&
	       o->max_lead > -(int64_t)v->buffers[o->dst].size;
}

/* A bound that holds with the rules: the pool where each sharing rule's
 * destination lives only outside its source's live range (or not at all
 * when inside it). That only removes conflicts, so every plan with the
 * rules is a plan of it, and it has no sharing rule left, so its search
 * proves its bound. Raises res->bound (never past the peak). */
static void rules_bound(const usmp_view *v, const usmp_host *h,
                        const xact_params *kp, double deadline,
                        xact_outcome *res)
{
	uint32_t n = v->buffer_count, k = 0;
	uint8_t *gone = h->alloc(h, n ? n : 1);
	uint32_t *sub = h->alloc(h, (n ? n : 1) * sizeof *sub);
	usmp_buffer_rec *rb = h->alloc(h, (n ? n : 1) * sizeof *rb);
	usmp_placement *out = h->alloc(h, (n ? n : 1) * sizeof *out);
	usmp_overlap_rec *ro = h->alloc(h, (v->overlap_count ? v->overlap_count
	                                                      : 1) * sizeof *ro);
	if (!gone || !sub || !rb || !out || !ro)
		goto fail;
	memset(gone, 0, n);
	for (uint32_t i = 0; i < n; i++)
		rb[i] = v->buffers[i];
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (!shares(v, o))
			continue;
		usmp_buffer_rec *d = &rb[o->dst];
		const usmp_buffer_rec *sr = &rb[o->src];
		if (gone[o->src] || gone[o->dst] || d->end <= sr->begin ||
		    sr->end <= d->begin)
			continue; /* apart already */
		if (sr->begin <= d->begin && sr->end < d->end)
			d->begin = sr->end;
		else if (d->begin < sr->begin && d->end <= sr->end)
			d->end = sr->begin;
		else
			gone[o->dst] = 1;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!gone[i]) {
			sub[i] = k;
			out[k] = (usmp_placement){USMP_NO_POOL, 0, 0};
			rb[k++] = rb[i];
		}
	uint64_t nr = 0;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		usmp_overlap_rec o = v->overlaps[r];
		if (gone[o.src] || gone[o.dst])
			continue;
		o.src = sub[o.src];
		o.dst = sub[o.dst];
		ro[nr++] = o;
	}
	usmp_view w = *v;
	w.buffers = rb;
	w.buffer_count = k;
	w.overlaps = nr ? ro : NULL;
	w.overlap_count = nr;
	w.conflict_start = NULL;
	w.conflict_adj = NULL;
	w.degree = NULL;
	w.lower_bound = 0;
	xact_params q = *kp;
	q.enough = 0;
	if (deadline > 0) {
		q.time_limit = deadline - xact_now();
		if (q.time_limit <= 0)
			goto fail;
	}
	xact_outcome o;
	if (xact_one_pool(&w, h, out, &q, &o) == USMP_OK && o.bound > res->bound)
		res->bound = o.bound < res->peak ? o.bound : res->peak;
fail:;
	void *ptrs[] = {gone, sub, rb, out, ro};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* A buffer without a live range conflicts with nothing but its explicit
 * edges (docs/design.md, "Conflicts"), and exact takes no edges: give
 * each one a private time step after every live range, so the search sees
 * exactly that, then run the search on the copy. */
static int one_pool(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const xact_params *kp,
                    xact_outcome *res)
{
	uint32_t rangeless = 0;
	int64_t tmax = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (!(b->flags & USMP_BUFFER_LIVE))
			rangeless++;
		else if (b->end > tmax)
			tmax = b->end;
	}
	if (!rangeless)
		return search_view(v, h, out, kp, res);
	if (tmax > INT64_MAX - (int64_t)rangeless - 1) {
		h->log(h, USMP_LOG_ERROR, "exact: live ranges end too close to "
		       "INT64_MAX to give buffers without a range their own step");
		return USMP_ERR_UNSUPPORTED;
	}
	usmp_buffer_rec *copy = h->alloc(h, (size_t)v->buffer_count * sizeof *copy);
	if (!copy)
		return USMP_ERR_NOMEM;
	int64_t slot = tmax;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		copy[i] = v->buffers[i];
		if (!(copy[i].flags & USMP_BUFFER_LIVE)) {
			copy[i].flags |= USMP_BUFFER_LIVE;
			copy[i].begin = slot;
			copy[i].end = ++slot;
		}
	}
	usmp_view w = *v;
	w.buffers = copy;
	int rc = search_view(&w, h, out, kp, res);
	h->free(h, copy);
	return rc;
}

/* The search of one pool, then, when sharing rules leave its plan
 * unproven, a bound that knows them (rules_bound). */
int xact_one_pool(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                  const xact_params *kp, xact_outcome *res)
{
	double deadline = kp->time_limit > 0 ? xact_now() + kp->time_limit : 0;
	int rc = one_pool(v, h, out, kp, res);
	if (rc || !kp->minimize || res->bound >= res->peak)
		return rc;
	bool rules = false;
	for (uint64_t r = 0; r < v->overlap_count && !rules; r++)
		rules = shares(v, &v->overlaps[r]);
	if (rules)
		rules_bound(v, h, kp, deadline, res);
	return USMP_OK;
}

void xact_report(const usmp_view *v, const usmp_host *h,
                 const xact_outcome *res)
{
	uint64_t b = res->bound > v->lower_bound ? res->bound : v->lower_bound;
	if (b > res->peak)
		b = res->peak;
	if (USMP_HAS_FIELD(h, usmp_host, report_bound) && h->report_bound)
		h->report_bound(h, b, b == res->peak);
}

/* Several pools without conflict edges first try every buffer in its first
 * pool (exact_pools.c); several pools or conflict edges then go to the
 * search of exact_multi.c; one pool with live ranges to the search above,
 * and when that one finds no plan because it took overlap rules as
 * conflicts, or its plan is unproven while rules let pairs share, a small
 * part goes to exact_multi.c too, which decides with the rules. */
static int exact_stages(const usmp_view *v, const usmp_host *h,
                        usmp_placement *out, uint64_t capacity,
                        double time_limit, bool minimize, uint32_t split,
                        uint32_t part)
{
	if (time_limit < 0 || time_limit != time_limit) {
		h->log(h, USMP_LOG_ERROR, "exact: time_limit must be >= 0");
		return USMP_ERR_INVALID;
	}
	if (split < 1 || split > XACT_SEARCH_MAX) {
		h->log(h, USMP_LOG_ERROR, "exact: split must be in 1..10000");
		return USMP_ERR_INVALID;
	}
	if (part < 1 || part > XACT_MULTI_MAX) {
		h->log(h, USMP_LOG_ERROR, "exact: part must be in 1..1000");
		return USMP_ERR_INVALID;
	}
	xact_clock clk = {.host = h};
	if (time_limit > 0)
		clk.deadline = xact_now() + time_limit;
	if (v->time_limit > 0) /* the host's budget for this call */
		clk.budget_end = xact_now() + v->time_limit;
	bool edges = v->buffer_count && v->conflict_start &&
	             v->conflict_start[v->buffer_count] > 0;
	xact_params kp = {capacity, time_limit, minimize, 0, split, part};
	xact_outcome res;
	if (v->pool_count > 1 && !edges) {
		int rc = xact_pools(v, h, out, &kp, NULL, &res);
		if (rc == USMP_OK) {
			xact_report(v, h, &res);
			if (res.bound < res.peak && sharing_rules(v))
				return xact_rules_joint(v, h, out, &kp, &clk);
			return rc;
		}
		if (rc != USMP_ERR_UNSUPPORTED || xact_should_stop(&clk))
			return rc;
		/* The least spill's choices are planned in uint64 sums of
		 * sizes and offsets, as the joint search is: in its range. */
		if ((rc = xact_mp_check_range(v, h)) != USMP_OK)
			return rc;
		rc = xact_spill_joint(v, h, out, &kp, &clk, true, NULL);
		if (rc == USMP_ERR_UNSUPPORTED && v->buffer_count > part)
			rc = xact_split(v, h, out, &kp, &clk);
		return rc;
	}
	if (v->pool_count > 1 || edges)
		return v->buffer_count > part ? xact_split(v, h, out, &kp, &clk)
		       : v->pool_count > 1 ? xact_edges_joint(v, h, out, &kp, &clk)
		       : xact_multi(v, h, out, capacity, &clk, minimize,
		                    &(xact_start){.evict = true,
		                                  .windows = true});
	int rc = xact_one_pool(v, h, out, &kp, &res);
	if (rc == USMP_OK) {
		xact_report(v, h, &res);
		/* Unproven with rules taken as conflicts: the search of
		 * exact_multi.c, up to its size, may share as they allow. */
		if (res.bound < res.peak && sharing_rules(v))
			return xact_rules_joint(v, h, out, &kp, &clk);
	}
	if (rc == USMP_ERR_UNSUPPORTED && v->overlap_count > 0 &&
	    v->buffer_count <= 1000 && !xact_should_stop(&clk))
		rc = xact_multi(v, h, out, capacity, &clk, minimize, NULL);
	return rc;
}

/* The algorithm: its stages, with their errors held until the outcome is
 * known (xact_defer_host), so a stage that fails before another plans
 * logs no error. */
static int exact(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                 uint64_t capacity, double time_limit, bool minimize,
                 uint32_t split, uint32_t part)
{
	xact_defer_host d;
	xact_defer_init(&d, h);
	int rc = exact_stages(v, &d.h, out, capacity, time_limit, minimize,
	                      split, part);
	return xact_defer_finish(&d, rc);
}

static const usmp_algorithm exact_algorithm = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = USMP_CAP_FIXED_OFFSETS | USMP_CAP_EXACT |
	        USMP_CAP_DETERMINISTIC | USMP_CAP_ANYTIME |
	        USMP_CAP_MULTI_POOL | USMP_CAP_EXPLICIT_CONFLICTS |
	        USMP_CAP_OVERLAP_RULES,
	.name = "exact",
	.summary = "complete search over canonical plans: one pool with live "
	           "ranges at any size (in parts at time cuts beyond 10000), "
	           "several pools or conflict edges at any size (searched "
	           "jointly up to 1000 buffers, beyond that per conflict "
	           "component, larger components greedily and by windows); "
	           "minimises spill, then size; anytime",
	.params = "capacity:u64=0 time_limit:f64=0 minimize:bool=true "
	          "split:u32=10000 part:u32=1000",
	.fn = (usmp_algorithm_fn)exact,
	.param_help =
		"capacity: bytes every pool must fit in; 0 = the pools' size limits\n"
		"time_limit: seconds before returning the best plan so far; 0 = no "
		"limit of its own (the call's budget still applies: 10 s by "
		"default, which a longer value here extends)\n"
		"minimize: true = minimise the peak, false = any plan within capacity\n"
		"split: one pool with more buffers is planned in parts at time "
		"cuts, each part of at most this many searched, larger ones "
		"re-planned by exact_window (1..10000)\n"
		"part: several pools, candidate lists or conflict edges with "
		"more buffers are planned per conflict component, each of at "
		"most this many searched jointly, larger ones planned greedily "
		"and improved by windows, which proves nothing (1..1000)",
};

static const usmp_algorithm exact_window_algorithm = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = USMP_CAP_FIXED_OFFSETS | USMP_CAP_DETERMINISTIC |
	        USMP_CAP_ANYTIME,
	.name = "exact_window",
	.summary = "improves a plan by re-placing time windows of it with the "
	           "exact search (single pool, live ranges, any size), anytime",
	.params = "window:u32=32 time_limit:f64=0 warm:bool=false",
	.fn = (usmp_algorithm_fn)xact_window,
	.param_help =
		"window: buffers re-placed together at first (2..4096); grows "
		"on failure\n"
		"time_limit: seconds before returning the best plan so far; 0 = no "
		"limit of its own (the call's budget still applies: 10 s by "
		"default, which a longer value here extends)\n"
		"warm: true = start from the plan the caller put in the output "
		"array (auto does), else from a first fit by size",
};

static const usmp_algorithm *const exact_algorithms[] = {
	&exact_algorithm, &exact_window_algorithm};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "exact",
	.version = "1.0",
	.license = "Apache-2.0",
	.algorithm_count = 2,
	.reserved = 0,
	.algorithms = exact_algorithms,
};
