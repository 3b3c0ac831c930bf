/* exact_window_start.c — the plan the large-neighbourhood search starts from
 * when the caller gave none: a first fit by decreasing size, or a quicker fit. */
#include "exact_window.h"

#include "../gap_treap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* first_fit's estimated compared pairs (about 5e8 a second) beyond which
 * quick_fit's plan comes first. */
#define QUICK_FROM 2.5e8

static int cmp_off(const void *ctx, uint32_t a, uint32_t b)
{
	const win *w = ctx;
	return w->off[a] < w->off[b] ? -1 : w->off[a] > w->off[b];
}

static int cmp_size_desc(const void *ctx, uint32_t a, uint32_t b)
{
	const win *w = ctx;
	const usmp_buffer_rec *x = &w->v->buffers[a], *y = &w->v->buffers[b];
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The start plan when the caller gave none: first fit by decreasing size
 * (ties by begin, then index) against the placed buffers met in time. A
 * buffer without a live range meets nothing and goes to offset 0. */
static int first_fit(win *w)
{
	const usmp_view *v = w->v;
	const usmp_host *h = w->h;
	uint32_t *order = h->alloc(h, ((size_t)w->n + 1) * sizeof *order);
	uint32_t *tmp = h->alloc(h, ((size_t)w->n + 1) * sizeof *tmp);
	uint8_t *done = h->alloc(h, (size_t)w->n + 1);
	int rc = USMP_ERR_NOMEM;
	if (!order || !tmp || !done)
		goto out;
	uint32_t k = 0;
	for (uint32_t i = 0; i < w->n; i++) {
		done[i] = is_fixed(v, i);
		if (is_fixed(v, i))
			w->off[i] = v->buffers[i].fixed_offset;
		else if (!has_range(v, i))
			w->off[i] = 0;
		else
			order[k++] = i;
	}
	xact_sort(order, tmp, k, cmp_size_desc, w);
	for (uint32_t j = 0; j < k; j++) {
		if ((j & 1023) == 1023 && xact_should_stop(&w->clk)) {
			rc = USMP_ERR_STOPPED;
			goto out;
		}
		uint32_t b = order[j];
		const usmp_buffer_rec *r = &v->buffers[b];
		w->tmp.n = 0;
		if (!xwin_collect(w, r->begin, r->end, &w->tmp, SIZE_MAX))
			goto out;
		uint32_t cnt = 0;
		for (size_t i = 0; i < w->tmp.n; i++)
			if (done[w->tmp.p[i]])
				w->tmp.p[cnt++] = w->tmp.p[i];
		xact_sort(w->tmp.p, tmp, cnt, cmp_off, w);
		uint64_t a = w->al[b], o = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t c = w->tmp.p[i];
			uint64_t oa = (o + a - 1) & ~(a - 1);
			if (w->off[c] >= oa + r->size)
				break;
			if (top_of(w, c) > o)
				o = top_of(w, c);
		}
		w->off[b] = (o + a - 1) & ~(a - 1);
		done[b] = 1;
	}
	rc = USMP_OK;
out:
	if (order)
		h->free(h, order);
	if (tmp)
		h->free(h, tmp);
	if (done)
		h->free(h, done);
	return rc;
}

/* Estimated work of first_fit in compared pairs: per buffer, the k
 * buffers meeting its live range, sorted (k log2 k). One sort of the ends
 * and two binary searches per buffer. Returns a negative value when out of
 * memory. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static double ff_cost(const win *w)
{
	const usmp_buffer_rec *bu = w->v->buffers;
	int64_t *ends = w->h->alloc(w->h, ((size_t)w->nr + 1) * sizeof *ends);
	if (!ends)
		return -1;
	for (uint32_t i = 0; i < w->nr; i++)
		ends[i] = bu[w->ord[i]].end;
	qsort(ends, w->nr, sizeof *ends, cmp_i64);
	double cost = 0;
	for (uint32_t i = 0; i < w->nr; i++) {
		const usmp_buffer_rec *r = &bu[w->ord[i]];
		size_t lo = 0, hi = w->nr; /* ends <= begin: met no more */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ends[mid] <= r->begin)
				lo = mid + 1;
			else
				hi = mid;
		}
		double k = (double)(xwin_first_pos(w, r->end) - lo);
		double lg = 1;
		for (double m = k; m > 2; m /= 2)
			lg++;
		cost += k * lg;
	}
	w->h->free(w->h, ends);
	return cost;
}

/* Ord positions by the end of their buffer. */
static int cmp_end_pos(const void *ctx, uint32_t a, uint32_t b)
{
	const win *w = ctx;
	int64_t x = w->v->buffers[w->ord[a]].end, y = w->v->buffers[w->ord[b]].end;
	return x < y ? -1 : x > y;
}

/* Raise *lo to the highest top among the fixed buffers fx[0..nf) whose
 * bytes meet [p, p + s); true when one did. */
static bool fixed_clash(const win *w, const uint32_t *fx, uint32_t nf,
                        uint64_t p, uint64_t s, uint64_t *lo)
{
	bool moved = false;
	for (uint32_t j = 0; j < nf; j++) {
		uint32_t c = fx[j];
		if (w->off[c] < p + s && top_of(w, c) > p && top_of(w, c) > *lo) {
			*lo = top_of(w, c);
			moved = true;
		}
	}
	return moved;
}

/* The quick start plan, for problems where first_fit would be slow: a first
 * fit in time order (w->ord). Each buffer takes the lowest aligned offset
 * free of the placed buffers still alive at its begin and of the fixed
 * buffers its live range meets (also those beginning later). The free ones
 * alive are disjoint ranges in a treap by offset (../gap_treap.h), so the
 * lowest gap that holds a buffer is one descent: O(log n) per buffer, plus
 * the fixed buffers met, checked apart. */
static int quick_fit(win *w)
{
	const usmp_view *v = w->v;
	const usmp_host *h = w->h;
	const usmp_buffer_rec *bu = v->buffers;
	size_t nn = (size_t)w->nr + 1;
	gt_node *nd = h->alloc(h, nn * sizeof *nd); /* [ord position] */
	uint32_t *ends = h->alloc(h, nn * sizeof *ends); /* free, by end */
	uint32_t *tmp = h->alloc(h, nn * sizeof *tmp);
	uint32_t *fal = h->alloc(h, nn * sizeof *fal); /* fixed begun, alive */
	uint32_t *fixp = h->alloc(h, nn * sizeof *fixp); /* fixed, ord pos */
	int rc = USMP_ERR_NOMEM;
	if (!nd || !ends || !tmp || !fal || !fixp)
		goto out;
	uint32_t root = GT_NONE, ne = 0, done = 0, nfal = 0, nfix = 0, fp = 0;
	for (uint32_t i = 0; i < w->n; i++)
		w->off[i] = is_fixed(v, i) ? bu[i].fixed_offset : 0;
	for (uint32_t i = 0; i < w->nr; i++) {
		if (is_fixed(v, w->ord[i]))
			fixp[nfix++] = i;
		else
			ends[ne++] = i;
	}
	xact_sort(ends, tmp, ne, cmp_end_pos, w);
	for (uint32_t i = 0; i < w->nr; i++) {
		/* a nested call (w->may_stop) reads the clock */
		if (w->may_stop && (i & 1023) == 1023 &&
		    xact_should_stop(&w->clk)) {
			rc = USMP_ERR_STOPPED;
			goto out;
		}
		uint32_t b = w->ord[i];
		const usmp_buffer_rec *r = &bu[b];
		/* half-open ranges: those ended at or before this begin go
		 * (each began before it, so is placed) */
		while (done < ne && bu[w->ord[ends[done]]].end <= r->begin) {
			uint32_t e = ends[done++];
			if (nd[e].start <= nd[e].end) /* else not in the treap */
				gt_erase(nd, &root, e);
		}
		uint32_t m = 0;
		for (uint32_t j = 0; j < nfal; j++)
			if (bu[fal[j]].end > r->begin)
				fal[m++] = fal[j];
		nfal = m;
		while (fp < nfix && fixp[fp] <= i)
			fp++;
		if (is_fixed(v, b)) {
			fal[nfal++] = b;
			continue;
		}
		uint64_t a = w->al[b], s = r->size, lo = 0, p;
		bool fits;
		for (;;) {
			if (!(fits = gt_lowest(nd, root, lo, s, a, &p))) {
				/* past 2^64: wrapped, as the scan did */
				uint32_t t = gt_last(nd, root);
				uint64_t o = t == GT_NONE || nd[t].end < lo ? lo
				                                            : nd[t].end;
				p = (o + a - 1) & ~(a - 1);
			}
			bool moved = fixed_clash(w, fal, nfal, p, s, &lo);
			uint32_t f = fp;
			while (f < nfix && bu[w->ord[fixp[f]]].begin < r->end)
				f++;
			/* the fixed beginning later within its live range */
			for (uint32_t j = fp; j < f; j++)
				if (fixed_clash(w, &w->ord[fixp[j]], 1, p, s, &lo))
					moved = true;
			if (!moved)
				break;
		}
		w->off[b] = p;
		nd[i].start = fits ? p : 1; /* a wrapped one stays out */
		nd[i].end = fits ? p + s : 0;
		nd[i].pri = gt_priority(b);
		if (fits)
			gt_insert(nd, &root, i);
	}
	rc = USMP_OK;
out:;
	void *ptrs[] = {nd, ends, tmp, fal, fixp};
	for (size_t k = 0; k < sizeof ptrs / sizeof *ptrs; k++)
		if (ptrs[k])
			h->free(h, ptrs[k]);
	return rc;
}

/* The start plan: first_fit. When its estimated work is beyond QUICK_FROM
 * pairs (about half a second), quick_fit's plan comes first, so that there
 * is one early; first_fit's replaces it unless the time limit or the host
 * stops first_fit first (then quick_fit's stays). A first_fit stopped
 * without that plan is followed by quick_fit: there is always a plan, but
 * in a nested call (w->may_stop: exact's), where quick_fit stops too. */
int xwin_start_plan(win *w)
{
	const usmp_host *h = w->h;
	double cost = ff_cost(w);
	if (cost < 0)
		return USMP_ERR_NOMEM;
	uint64_t *keep = NULL;
	int rc = USMP_OK;
	const char *how = "first fit by size";
	if (cost > QUICK_FROM) {
		if (!(keep = h->alloc(h, ((size_t)w->n + 1) * sizeof *keep)))
			return USMP_ERR_NOMEM;
		if ((rc = quick_fit(w)) != USMP_OK)
			goto out;
		memcpy(keep, w->off, (size_t)w->n * sizeof *keep);
		xwin_refresh_peak(w);
		if (h->progress)
			h->progress(h, w->peak);
		xwin_log(h, USMP_LOG_DEBUG, "exact_window: first fit in time "
		         "order: peak %llu after %llu ms", (unsigned long long)w->peak,
		         (unsigned long long)((xact_now() - w->t_start) * 1000), 0,
		         0);
	}
	rc = first_fit(w);
	if (rc == USMP_ERR_STOPPED) {
		how = "first fit in time order (the first fit by size was "
		      "stopped)";
		if (keep) {
			memcpy(w->off, keep, (size_t)w->n * sizeof *keep);
			rc = USMP_OK;
		} else {
			rc = quick_fit(w);
		}
	}
	if (rc == USMP_OK) {
		char msg[200];
		snprintf(msg, sizeof msg, "exact_window: start plan: %s "
		         "(%.3g pairs estimated), %.0f ms", how, cost,
		         (xact_now() - w->t_start) * 1000);
		h->log(h, USMP_LOG_DEBUG, msg);
	}
out:
	if (keep)
		h->free(h, keep);
	return rc;
}
