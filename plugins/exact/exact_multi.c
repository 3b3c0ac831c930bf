/* exact_multi.c — the exact search for several pools, candidate lists and
 * explicit conflict edges: which searches run and what they prove. */
#include "exact_multi.h"

#include <stdio.h>
#include <string.h>

static void write_plan(const xact_mp *s, usmp_placement *out)
{
	for (uint32_t b = 0; b < s->n; b++) {
		out[b].pool = s->bpool[b];
		out[b].reserved = 0;
		out[b].offset = s->boff[b];
	}
}

/* What the searches proved about the best plan. */
typedef struct outcome {
	bool complete;    /* the searches ran to their end */
	bool proven;      /* the best plan is optimal */
	bool have_bound;  /* bound_total bounds every plan as good in spill */
	uint64_t bound_total;
} outcome;

/* Searches 2 and 3, when rules let pairs share: a relaxation (such pairs
 * may overlap freely) that looks only for something better than search 1
 * found. Nothing better: search 1's plan is optimal with the rules too.
 * Something better that obeys the rules: it is. Returns a usmp_status. */
static int search_rules(xact_mp *s, bool minimize, outcome *oc)
{
	const usmp_host *h = s->h;
	size_t n = s->n ? s->n : 1;
	bool had = s->have;
	uint64_t spill1 = s->best_spill, total1 = s->best_total;
	uint32_t *keep_pool = h->alloc(h, n * sizeof *keep_pool);
	uint64_t *keep_off = h->alloc(h, n * sizeof *keep_off);
	int rc = USMP_ERR_NOMEM;
	if (!keep_pool || !keep_off)
		goto fail;
	memcpy(keep_pool, s->bpool, n * sizeof *keep_pool);
	memcpy(keep_off, s->boff, n * sizeof *keep_off);
	s->root_check = true; /* a relaxation: its bounds hold for all */
	int r2 = xact_mp_run(s, XACT_MODE_RELAXED);
	s->root_check = false;
	bool improved = s->have && (!had || s->best_spill < spill1 ||
	                            (s->best_spill == spill1 &&
	                             s->best_total < total1));
	bool holds = improved && xact_mp_rules_hold(s);
	bool b_done = r2 != XACT_STOPPED;
	oc->proven = minimize && b_done && (!improved || holds);
	oc->have_bound = oc->proven;
	if (improved && !holds) {
		/* The relaxed optimum breaks a rule. Search 3: pairs share as
		 * their rules allow (valid plans; not complete alone), from
		 * search 1's plan, until it reaches the relaxed optimum (then
		 * optimal) or ends. */
		uint64_t spill2 = s->best_spill, total2 = s->best_total;
		memcpy(s->bpool, keep_pool, n * sizeof *keep_pool);
		memcpy(s->boff, keep_off, n * sizeof *keep_off);
		s->best_spill = spill1;
		s->best_total = total1;
		s->have = had;
		s->has_target = true;
		s->tspill = spill2;
		s->ttotal = total2;
		int r3 = xact_mp_run(s, XACT_MODE_NATIVE);
		s->has_target = false;
		s->native = false;
		if (r3 == XACT_STOPPED)
			b_done = false;
		bool reached = s->have && s->best_spill == spill2 &&
		               s->best_total == total2;
		oc->proven = minimize && b_done && reached;
		oc->have_bound = oc->proven;
		if (minimize && r2 != XACT_STOPPED && s->have &&
		    s->best_spill == spill2) {
			/* The relaxed optimum bounds plans that spill as much. */
			oc->have_bound = true;
			oc->bound_total = total2;
		}
		improved = !s->have;
	} else {
		improved = false;
	}
	rc = USMP_OK;
	if (!s->have && improved) {
		h->log(h, USMP_LOG_ERROR, !b_done ?
		       "exact: stopped before any plan was found" :
		       "exact: no plan found that obeys the overlap rules, "
		       "but a plan sharing more freely fits; the search "
		       "cannot decide whether one obeying them does");
		rc = !b_done ? USMP_ERR_STOPPED : USMP_ERR_UNSUPPORTED;
	}
	if (!s->have && r2 == XACT_STOPPED)
		oc->complete = false;
fail:
	if (keep_pool)
		h->free(h, keep_pool);
	if (keep_off)
		h->free(h, keep_off);
	return rc;
}

/* Logs the outcome, writes the best plan and reports the bound. */
static void finish(const xact_mp *s, const outcome *oc, usmp_placement *out)
{
	const usmp_host *h = s->h;
	char msg[200];
	snprintf(msg, sizeof msg, "exact: %u pools, spill %llu, size %llu, "
	         "%s, %llu search nodes", s->P,
	         (unsigned long long)s->best_spill,
	         (unsigned long long)s->best_total,
	         oc->proven ? "proven optimal" : "not proven",
	         (unsigned long long)s->clk->nodes);
	h->log(h, USMP_LOG_INFO, msg);
	write_plan(s, out);
	if (oc->have_bound && USMP_HAS_FIELD(h, usmp_host, report_bound) &&
	    h->report_bound) {
		uint64_t b = oc->proven ? s->best_total : oc->bound_total;
		if (b > s->best_total)
			b = s->best_total;
		h->report_bound(h, b, oc->proven);
	}
}

/* Start from the caller's plan: it becomes the best so far. */
static void take_start(xact_mp *s, const xact_start *st)
{
	const usmp_view *v = s->v;
	uint64_t hw[64] = {0}, spill = 0, total = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t p = st->plan[b].pool;
		uint64_t e = st->plan[b].offset + v->buffers[b].size;
		s->bpool[b] = p;
		s->boff[b] = st->plan[b].offset;
		if (e > hw[p])
			hw[p] = e;
		if (p != first_cand(s, b))
			spill += v->buffers[b].size;
	}
	for (uint32_t p = 0; p < s->P; p++)
		total += hw[p];
	s->have = true;
	s->best_spill = spill;
	s->best_total = total;
}

/* plan as the best so far when it beats it (spill, then size). */
static void consider(xact_mp *s, const usmp_placement *plan, const char *what)
{
	uint64_t hw[64] = {0}, spill = 0, total = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		uint64_t e = plan[b].offset + s->v->buffers[b].size;
		if (e > hw[plan[b].pool])
			hw[plan[b].pool] = e;
		if (plan[b].pool != first_cand(s, b))
			spill += s->v->buffers[b].size;
	}
	for (uint32_t p = 0; p < s->P; p++)
		total += hw[p];
	if (s->have && (spill > s->best_spill ||
	                (spill == s->best_spill && total >= s->best_total)))
		return;
	char msg[120];
	snprintf(msg, sizeof msg, "exact: start by %s: spill %llu, size %llu",
	         what, (unsigned long long)spill, (unsigned long long)total);
	s->h->log(s->h, USMP_LOG_DEBUG, msg);
	take_start(s, &(xact_start){true, plan, 0, false, false});
}

/* The start chosen by load (exact_multi_evict.c), when better. */
static void evict_start(xact_mp *s, uint64_t capacity, bool minimize)
{
	const usmp_host *h = s->h;
	size_t n = s->n ? s->n : 1;
	usmp_placement *plan = h->alloc(h, n * sizeof *plan);
	xact_params kp = {capacity, 0, minimize, 0, 0, 0};
	if (!plan)
		return;
	if (xact_evict_start(s->v, h, &kp, s->clk, plan))
		consider(s, plan, "load");
	h->free(h, plan);
}

/* Parts of at most WIN_PART buffers */
#define WIN_PART 100

/* The plan of the view in parts of at most WIN_PART buffers, larger
 * components by their greedy plans and windows (exact_split.c), as the
 * start when it beats the best so far: on hundreds of buffers its windows
 * lower the spill more than the joint search does in the same time. Only
 * with a deadline (its parts would search without one), in a quarter of
 * the time left; its claims are dropped. */
static void windows_start(xact_mp *s, uint64_t capacity)
{
	const usmp_host *h = s->h;
	double end = s->clk->deadline > 0 ? s->clk->deadline
	                                  : s->clk->budget_end;
	double rest = end - xact_now();
	if (s->n <= WIN_PART || end <= 0 || rest <= 0)
		return;
	usmp_placement *plan = h->alloc(h, (size_t)s->n * sizeof *plan);
	if (!plan)
		return;
	xact_sub_host sub;
	xact_sub_init(&sub, h);
	xact_sub_reset(&sub, NULL, 0);
	xact_params kp = {capacity, 0, true, 0, XACT_SEARCH_MAX, WIN_PART};
	xact_clock c2 = {.host = &sub.h, .deadline = xact_now() + rest / 4};
	if (xact_split(s->v, &sub.h, plan, &kp, &c2) == USMP_OK)
		consider(s, plan, "parts and windows");
	s->clk->nodes += c2.nodes;
	h->free(h, plan);
}

int xact_multi(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               uint64_t capacity, xact_clock *clk, bool minimize,
               const xact_start *st)
{
	int rc = xact_mp_check(v, h);
	if (rc)
		return rc;
	xact_mp s;
	memset(&s, 0, sizeof s);
	s.clk = clk;
	s.first_only = !minimize;
	if ((rc = xact_mp_init(&s, v, h, capacity)))
		goto fail;
	s.lb = xact_align_bound_view(v, h, false);
	s.lb0 = xact_align_bound_view(v, h, true);
	if (v->lower_bound > s.lb)
		s.lb = v->lower_bound;
	if (s.lb > s.lb0)
		s.lb0 = s.lb;
	if (st && st->have)
		take_start(&s, st);
	if (st && st->evict)
		evict_start(&s, capacity, minimize);
	if (st && st->windows && minimize)
		windows_start(&s, capacity);
	if (st)
		s.spill_floor = st->spill_floor;

	/* Search 1: rules as plain conflicts (every plan it finds is valid). */
	xact_mp_build_conflicts(&s, false);
	bool rules = xact_mp_sharing_rules(&s);
	if (rules && (rc = xact_mp_native_order(&s)))
		goto fail;
	/* With the native order one search where pairs share decides; else
	 * search 1, then searches 2 and 3 when rules let pairs share. */
	bool one = rules && s.nrank;
	s.root_check = !rules || one;
	int r = xact_mp_run(&s, one ? XACT_MODE_NATIVE : XACT_MODE_CONFLICTS);
	outcome oc = {.complete = r != XACT_STOPPED};
	oc.proven = oc.complete && minimize;
	oc.have_bound = oc.proven;
	oc.bound_total = s.best_total;
	if (rules && !one && oc.complete && !s.done &&
	    (minimize || !s.have) &&
	    (rc = search_rules(&s, minimize, &oc)))
		goto fail;
	if (!s.have) {
		if (!oc.complete) {
			h->log(h, USMP_LOG_WARN, "exact: stopped before any plan "
			       "was found");
			rc = USMP_ERR_STOPPED;
		} else {
			h->log(h, USMP_LOG_ERROR, "exact: no plan fits the pools' "
			       "limits");
			rc = USMP_ERR_INFEASIBLE;
		}
		goto fail;
	}
	finish(&s, &oc, out);
	rc = USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		h->log(h, USMP_LOG_ERROR, "exact: out of memory");
	xact_mp_free(&s);
	return rc;
}
