/* exact_edges.c — several pools with conflict edges: the plan of the same
 * view without its edges (a relaxation), kept or re-swept to obey them. */
#include "exact_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether plan obeys every explicit edge of v (no pair in one pool shares
 * a byte). Everything else in it is valid already. */
static bool obeys_edges(const usmp_view *v, const usmp_placement *plan)
{
	for (uint32_t a = 0; a < v->buffer_count; a++)
		for (uint64_t e = v->conflict_start[a];
		     e < v->conflict_start[a + 1]; e++) {
			uint32_t b = v->conflict_adj[e];
			if (b <= a || plan[a].pool != plan[b].pool)
				continue;
			uint64_t ea = plan[a].offset + v->buffers[a].size;
			uint64_t eb = plan[b].offset + v->buffers[b].size;
			if (plan[a].offset < eb && plan[b].offset < ea)
				return false;
		}
	return true;
}

static uint64_t tops(const usmp_view *v, const usmp_placement *plan,
                     uint64_t *top)
{
	uint64_t total = 0;
	memset(top, 0, (size_t)v->pool_count * sizeof *top);
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		uint64_t e = plan[b].offset + v->buffers[b].size;
		if (e > top[plan[b].pool])
			top[plan[b].pool] = e;
	}
	for (uint32_t p = 0; p < v->pool_count; p++)
		total += top[p];
	return total;
}

/* The relaxation's plan in rel with its pools kept, re-placed by the
 * time-order sweep (which obeys edges and rules): at each pool's top in
 * rel first, then at the pools' limits. True with the plan in rel. */
static bool resweep(const usmp_view *v, const usmp_host *h,
                    const xact_params *kp, xact_clock *clk,
                    usmp_placement *rel)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	uint32_t *pin = h->alloc(h, n * sizeof *pin);
	uint64_t *off = h->alloc(h, n * sizeof *off);
	uint64_t cap[64];
	bool found = false;
	if (!pin || !off)
		goto fail;
	for (uint32_t b = 0; b < v->buffer_count; b++)
		pin[b] = rel[b].pool;
	tops(v, rel, cap);
	for (int k = 0; k < 2 && !found; k++) {
		if (k == 1)
			for (uint32_t p = 0; p < v->pool_count; p++)
				cap[p] = xact_capped(kp, v->pools[p].size_limit);
		int r = xact_sweep(v, h, pin, cap,
		                   200000 + 4000 * (uint64_t)v->buffer_count,
		                   clk, off);
		if (r == XACT_FOUND) {
			for (uint32_t b = 0; b < v->buffer_count; b++)
				rel[b].offset = off[b];
			found = true;
		} else if (r == XACT_STOPPED || r == XACT_NOMEM) {
			break;
		}
	}
fail:
	if (pin)
		h->free(h, pin);
	if (off)
		h->free(h, off);
	return found;
}

static int by_start(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return (a[0] > b[0]) - (a[0] < b[0]);
}

uint64_t xact_lowest_free(const usmp_view *v, const xact_params *kp,
                          const usmp_placement *plan, const uint8_t *nb,
                          uint32_t b, uint32_t p, uint64_t *iv)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	uint64_t k = 0, a = r->alignment > v->pools[p].alignment
	                            ? r->alignment : v->pools[p].alignment;
	for (uint32_t x = 0; x < v->buffer_count; x++)
		if (x != b && plan[x].pool == p &&
		    (nb[x] || usmp_live_overlap(v, b, x))) {
			iv[2 * k] = plan[x].offset;
			iv[2 * k++ + 1] = plan[x].offset + v->buffers[x].size;
		}
	qsort(iv, k, 2 * sizeof *iv, by_start);
	uint64_t o = 0;
	for (uint64_t i = 0; i < k && iv[2 * i] < o + r->size; i++)
		if (iv[2 * i + 1] > o)
			o = (iv[2 * i + 1] + a - 1) / a * a;
	uint64_t lim = xact_capped(kp, v->pools[p].size_limit);
	return o + r->size <= lim && o + r->size > o ? o : UINT64_MAX;
}

bool xact_repair_edges(const usmp_view *v, const usmp_host *h,
                       const xact_params *kp, usmp_placement *rel)
{
	uint32_t n = v->buffer_count;
	uint32_t *out = h->alloc(h, (n ? n : 1) * sizeof *out);
	uint8_t *nb = h->alloc(h, n ? n : 1);
	uint64_t *iv = h->alloc(h, (n ? n : 1) * 2 * sizeof *iv);
	uint32_t k = 0;
	bool ok = false;
	if (!out || !nb || !iv)
		goto fail;
	memset(nb, 0, n);
	for (uint32_t a = 0; a < n; a++)
		for (uint64_t e = v->conflict_start[a];
		     e < v->conflict_start[a + 1]; e++) {
			uint32_t b = v->conflict_adj[e];
			if (b <= a || rel[a].pool != rel[b].pool ||
			    rel[a].pool == USMP_NO_POOL)
				continue;
			uint64_t ea = rel[a].offset + v->buffers[a].size;
			uint64_t eb = rel[b].offset + v->buffers[b].size;
			if (!(rel[a].offset < eb && rel[b].offset < ea))
				continue;
			bool fa = v->buffers[a].flags & USMP_BUFFER_FIXED;
			bool fb = v->buffers[b].flags & USMP_BUFFER_FIXED;
			if (fa && fb)
				goto fail;
			uint32_t x = fa ? b : fb ? a
			             : v->buffers[b].size <= v->buffers[a].size ? b
			                                                        : a;
			rel[x].pool = USMP_NO_POOL;
			out[k++] = x;
		}
	/* larger first (insertion sort: few) */
	for (uint32_t i = 1; i < k; i++)
		for (uint32_t j = i; j > 0 && v->buffers[out[j]].size >
		                                  v->buffers[out[j - 1]].size; j--) {
			uint32_t t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	for (uint32_t i = 0; i < k; i++) {
		uint32_t b = out[i];
		if (rel[b].pool != USMP_NO_POOL)
			continue; /* out twice */
		const usmp_buffer_rec *r = &v->buffers[b];
		for (uint64_t e = v->conflict_start[b];
		     e < v->conflict_start[b + 1]; e++)
			nb[v->conflict_adj[e]] = 1;
		for (uint32_t c = 0; c < r->candidate_count; c++) {
			uint32_t p = v->candidates[r->candidate_start + c];
			uint64_t o = xact_lowest_free(v, kp, rel, nb, b, p, iv);
			if (o != UINT64_MAX) {
				rel[b] = (usmp_placement){p, 0, o};
				break;
			}
		}
		for (uint64_t e = v->conflict_start[b];
		     e < v->conflict_start[b + 1]; e++)
			nb[v->conflict_adj[e]] = 0;
		if (rel[b].pool == USMP_NO_POOL)
			goto fail;
	}
	ok = true;
fail:
	if (out)
		h->free(h, out);
	if (nb)
		h->free(h, nb);
	if (iv)
		h->free(h, iv);
	return ok;
}

static uint64_t spill_of(const usmp_view *v, const usmp_placement *plan)
{
	uint64_t s = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (plan[b].pool != v->candidates[r->candidate_start])
			s += r->size;
	}
	return s;
}

/* The stages for several pools without edges (exact.c), on w, their
 * claims caught by sub: USMP_OK with a plan in rel. */
static int relaxed(const usmp_view *w, xact_sub_host *sub,
                   const xact_params *kp, xact_clock *clk,
                   usmp_placement *rel, uint64_t *spill_floor)
{
	xact_outcome res;
	int rc = xact_pools(w, &sub->h, rel, kp, NULL, &res);
	if (rc == USMP_OK) {
		xact_report(w, &sub->h, &res);
		return rc;
	}
	if (rc != USMP_ERR_UNSUPPORTED || xact_should_stop(clk))
		return rc;
	/* in the uint64 range of the least spill's sums, as in exact.c */
	if ((rc = xact_mp_check_range(w, &sub->h)) != USMP_OK)
		return rc;
	return xact_spill_joint(w, &sub->h, rel, kp, clk, false, spill_floor);
}

int xact_edges_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	usmp_placement *rel = h->alloc(h, n * sizeof *rel);
	usmp_placement *alt = h->alloc(h, n * sizeof *alt);
	xact_start st = {false, rel, 0, true, true};
	int rc = USMP_ERR_NOMEM;
	if (!rel || !alt)
		goto fail;
	/* Fewer conflicts, the caller's bound left out (it counts the
	 * edges): the relaxation's claims are about its own plans. */
	usmp_view w = *v;
	w.conflict_start = NULL;
	w.conflict_adj = NULL;
	w.degree = NULL;
	w.lower_bound = 0;
	xact_sub_host sub;
	xact_sub_init(&sub, h);
	xact_sub_reset(&sub, NULL, 0);
	/* a quarter of the time left, when there is a limit */
	xact_params q = *kp;
	xact_clock c2 = {.host = &sub.h};
	double end = clk->deadline > 0 ? clk->deadline : clk->budget_end;
	if (end > 0) {
		double rest = end - xact_now();
		if (rest <= 0)
			goto joint;
		q.time_limit = rest / 4;
		c2.deadline = xact_now() + rest / 4;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++)
		rel[b] = (usmp_placement){USMP_NO_POOL, 0, 0};
	rc = relaxed(&w, &sub, &q, &c2, rel, &st.spill_floor);
	clk->nodes += c2.nodes;
	if (rc == USMP_ERR_NOMEM)
		goto fail;
	if (rc != USMP_OK)
		goto joint;
	uint64_t top[64];
	uint64_t total = tops(v, rel, top);
	uint64_t spill0 = spill_of(v, rel);
	const char *how = "the same plan";
	if (!obeys_edges(v, rel)) {
		/* re-swept with its pools, or repaired: the better, spill
		 * first */
		memcpy(alt, rel, n * sizeof *alt);
		bool swept = resweep(v, h, kp, clk, rel);
		bool fixed = xact_repair_edges(v, h, kp, alt);
		if (fixed && (!swept || spill_of(v, alt) < spill_of(v, rel) ||
		              (spill_of(v, alt) == spill_of(v, rel) &&
		               tops(v, alt, top) < tops(v, rel, top)))) {
			memcpy(rel, alt, n * sizeof *alt);
			how = "repaired";
		} else if (swept) {
			how = "re-swept with the same pools";
		} else {
			goto joint;
		}
	}
	st.have = true;
	uint64_t now = tops(v, rel, top);
	char msg[200];
	snprintf(msg, sizeof msg, "exact: without the edges: size %llu%s, %s; "
	         "with them %s, size %llu", (unsigned long long)total,
	         sub.optimal ? " (proven optimal)" : "",
	         st.spill_floor ? "least spill by load known" : "no spill floor",
	         how, (unsigned long long)now);
	h->log(h, USMP_LOG_DEBUG, msg);
	/* Every plan with the edges is a plan without them, so the
	 * relaxation's optimum, met with the edges obeyed, is optimal. (A
	 * capacity below a limit proves nothing about the whole.) */
	if (sub.got && sub.optimal && now == total &&
	    spill_of(v, rel) == spill0 && kp->minimize &&
	    kp->capacity == 0) {
		memcpy(out, rel, (size_t)v->buffer_count * sizeof *out);
		snprintf(msg, sizeof msg, "exact: %u pools, size %llu: the "
		         "optimum without the edges obeys them, proven optimal",
		         v->pool_count, (unsigned long long)now);
		h->log(h, USMP_LOG_INFO, msg);
		if (USMP_HAS_FIELD(h, usmp_host, report_bound) &&
		    h->report_bound)
			h->report_bound(h, now, true);
		rc = USMP_OK;
		goto fail;
	}
joint:
	rc = xact_multi(v, h, out, kp->capacity, clk, kp->minimize, &st);
	if (rc == USMP_ERR_UNSUPPORTED && st.have) {
		/* beyond the joint search's memory: the start, claiming
		 * nothing (its spill need not be the least) */
		memcpy(out, rel, n * sizeof *out);
		rc = USMP_OK;
	}
fail:
	if (rel)
		h->free(h, rel);
	if (alt)
		h->free(h, alt);
	return rc;
}
