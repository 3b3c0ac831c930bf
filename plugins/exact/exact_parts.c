/* exact_parts.c — single-pool views too large for one search: split at time
 * cuts (points no live range crosses), each part searched or re-planned. */
#include "exact_internal.h"

#include <stdio.h>
#include <string.h>

/* The parts of one view: buffers grouped by part (ascending index within
 * each), and the overlap rules of each part. */
typedef struct parts {
	const usmp_view *v;
	const usmp_host *h;
	uint32_t count;      /* parts */
	uint32_t *part;      /* [n] part of each buffer */
	uint32_t *bstart;    /* [count + 1] CSR of buffers by part */
	uint32_t *bufs;
	uint64_t *rstart;    /* [count + 1] CSR of rules by part */
	uint32_t *rules;
	uint32_t *sub;       /* [n] index of a buffer within its part */
	usmp_buffer_rec *sb; /* scratch of one part's view */
	usmp_overlap_rec *so;
	usmp_placement *sp;
	usmp_pool_rec pool;  /* the pool, its limit lowered to the capacity */
} parts;

static int cmp_begin(const void *ctx, uint32_t a, uint32_t b)
{
	const usmp_view *v = ctx;
	int64_t x = v->buffers[a].begin, y = v->buffers[b].begin;
	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void parts_free(parts *ps)
{
	const usmp_host *h = ps->h;
	void *ptrs[] = {ps->part, ps->bstart, ps->bufs, ps->rstart, ps->rules,
	                ps->sub, ps->sb, ps->so, ps->sp};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* Parts by a sweep in order of begin: a new one starts where no earlier
 * live range reaches. Every buffer has a live range here. */
static int find_parts(parts *ps)
{
	const usmp_view *v = ps->v;
	const usmp_host *h = ps->h;
	uint32_t n = v->buffer_count;
	uint32_t *order = h->alloc(h, (size_t)n * sizeof *order);
	uint32_t *tmp = h->alloc(h, (size_t)n * sizeof *tmp);
	int rc = USMP_ERR_NOMEM;
	if (!order || !tmp)
		goto fail;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	xact_sort(order, tmp, n, cmp_begin, v);
	int64_t end = 0;
	ps->count = 0;
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *b = &v->buffers[order[i]];
		if (i == 0 || b->begin >= end)
			ps->count++;
		if (i == 0 || b->end > end)
			end = b->end;
		ps->part[order[i]] = ps->count - 1;
	}
	rc = USMP_OK;
fail:
	if (order)
		h->free(h, order);
	if (tmp)
		h->free(h, tmp);
	return rc;
}

/* The CSR lists of buffers and rules by part. Rules between parts join
 * buffers never alive together: they change nothing and are dropped. */
static int group(parts *ps)
{
	const usmp_view *v = ps->v;
	const usmp_host *h = ps->h;
	uint32_t n = v->buffer_count, c = ps->count;
	if (!(ps->bstart = h->alloc(h, ((size_t)c + 1) * sizeof *ps->bstart)) ||
	    !(ps->rstart = h->alloc(h, ((size_t)c + 1) * sizeof *ps->rstart)) ||
	    !(ps->bufs = h->alloc(h, (size_t)n * sizeof *ps->bufs)) ||
	    !(ps->rules = h->alloc(h, (v->overlap_count ? v->overlap_count : 1) *
	                              sizeof *ps->rules)))
		return USMP_ERR_NOMEM;
	memset(ps->bstart, 0, ((size_t)c + 1) * sizeof *ps->bstart);
	memset(ps->rstart, 0, ((size_t)c + 1) * sizeof *ps->rstart);
	for (uint32_t i = 0; i < n; i++)
		ps->bstart[ps->part[i] + 1]++;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (ps->part[o->src] == ps->part[o->dst])
			ps->rstart[ps->part[o->src] + 1]++;
	}
	for (uint32_t p = 0; p < c; p++) {
		ps->bstart[p + 1] += ps->bstart[p];
		ps->rstart[p + 1] += ps->rstart[p];
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = ps->part[i];
		ps->bufs[ps->bstart[p]++] = i;
	}
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		uint32_t p = ps->part[o->src];
		if (p == ps->part[o->dst])
			ps->rules[ps->rstart[p]++] = (uint32_t)r;
	}
	for (uint32_t p = c; p > 0; p--) {
		ps->bstart[p] = ps->bstart[p - 1];
		ps->rstart[p] = ps->rstart[p - 1];
	}
	ps->bstart[0] = 0;
	ps->rstart[0] = 0;
	for (uint32_t p = 0; p < c; p++)
		for (uint32_t k = ps->bstart[p]; k < ps->bstart[p + 1]; k++)
			ps->sub[ps->bufs[k]] = k - ps->bstart[p];
	return USMP_OK;
}

/* The view of part p (buffers in index order, so rules stay sorted). */
static usmp_view part_view(const parts *ps, uint32_t p)
{
	const usmp_view *v = ps->v;
	usmp_view sv = *v;
	uint32_t k = 0;
	for (uint32_t i = ps->bstart[p]; i < ps->bstart[p + 1]; i++)
		ps->sb[k++] = v->buffers[ps->bufs[i]];
	uint64_t nr = 0;
	for (uint64_t i = ps->rstart[p]; i < ps->rstart[p + 1]; i++) {
		usmp_overlap_rec o = v->overlaps[ps->rules[i]];
		o.src = ps->sub[o.src];
		o.dst = ps->sub[o.dst];
		ps->so[nr++] = o;
	}
	sv.pools = &ps->pool;
	sv.buffer_count = k;
	sv.buffers = ps->sb;
	sv.overlaps = nr ? ps->so : NULL;
	sv.overlap_count = nr;
	sv.conflict_start = NULL;
	sv.conflict_adj = NULL;
	sv.degree = NULL;
	sv.lower_bound = 0; /* the whole view's bound is not the part's */
	return sv;
}

static void logmsg(const usmp_host *h, const char *fmt, unsigned long long a,
                   unsigned long long b, unsigned long long c)
{
	char msg[200];
	snprintf(msg, sizeof msg, fmt, a, b, c);
	h->log(h, USMP_LOG_INFO, msg);
}

/* Plan part p into out: the exact search when small enough, else
 * exact_window (which proves nothing: its part's bound stays 0). */
static int plan_part(parts *ps, uint32_t p, usmp_placement *out,
                     const xact_params *kp, double share, xact_outcome *o)
{
	const usmp_host *h = ps->h;
	usmp_view sv = part_view(ps, p);
	int rc;
	for (uint32_t i = 0; i < sv.buffer_count; i++)
		ps->sp[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
	if (sv.buffer_count <= kp->split) {
		xact_params q = *kp;
		q.time_limit = share;
		rc = xact_one_search(&sv, h, ps->sp, &q, o);
	} else {
		rc = xact_window_nested(&sv, h, ps->sp, 32, share, false);
		if (rc == USMP_ERR_INFEASIBLE) {
			/* exact_window's "no plan found" proves nothing */
			char msg[200];
			snprintf(msg, sizeof msg, "exact: exact_window found no "
			         "plan within the limit for a part of %u buffers "
			         "(more than split=%u); that proves nothing",
			         sv.buffer_count, kp->split);
			h->log(h, USMP_LOG_ERROR, msg);
			rc = USMP_ERR_UNSUPPORTED;
		}
		o->peak = 0;
		o->bound = 0;
		for (uint32_t i = 0; i < sv.buffer_count && !rc; i++)
			if (ps->sp[i].offset + sv.buffers[i].size > o->peak)
				o->peak = ps->sp[i].offset + sv.buffers[i].size;
	}
	if (rc)
		return rc;
	for (uint32_t i = 0; i < sv.buffer_count; i++)
		out[ps->bufs[ps->bstart[p] + i]] = ps->sp[i];
	return USMP_OK;
}

int xact_parts(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, xact_outcome *res)
{
	parts ps;
	memset(&ps, 0, sizeof ps);
	ps.v = v;
	ps.h = h;
	uint32_t n = v->buffer_count;
	size_t nn = n ? n : 1;
	int rc = USMP_ERR_NOMEM;
	if (!(ps.part = h->alloc(h, nn * sizeof *ps.part)) ||
	    !(ps.sub = h->alloc(h, nn * sizeof *ps.sub)) ||
	    !(ps.sb = h->alloc(h, nn * sizeof *ps.sb)) ||
	    !(ps.sp = h->alloc(h, nn * sizeof *ps.sp)) ||
	    !(ps.so = h->alloc(h, (v->overlap_count ? v->overlap_count : 1) *
	                          sizeof *ps.so)))
		goto fail;
	if ((rc = find_parts(&ps)) || (rc = group(&ps)))
		goto fail;
	ps.pool = v->pools[0];
	ps.pool.size_limit = xact_capped(kp, ps.pool.size_limit);
	double deadline = kp->time_limit > 0 ? xact_now() + kp->time_limit : 0;
	uint32_t left = n, searched = 0;
	res->peak = 0;
	res->bound = 0;
	for (uint32_t p = 0; p < ps.count; p++) {
		uint32_t k = ps.bstart[p + 1] - ps.bstart[p];
		/* Each part's share of the time left, by its buffers. */
		double share = 0;
		if (deadline > 0) {
			double rest = deadline - xact_now();
			share = rest > 0 ? rest * k / left : 1e-6;
		}
		xact_params q = *kp;
		q.enough = res->peak; /* a part below the peak so far is enough */
		xact_outcome o;
		if ((rc = plan_part(&ps, p, out, &q, share, &o)))
			goto fail;
		searched += k <= kp->split;
		if (o.peak > res->peak)
			res->peak = o.peak;
		if (o.bound > res->bound)
			res->bound = o.bound;
		left -= k;
	}
	logmsg(h, "exact: %llu parts at time cuts (%llu searched, the rest "
	       "re-planned by exact_window), peak %llu",
	       (unsigned long long)ps.count, (unsigned long long)searched,
	       (unsigned long long)res->peak);
	rc = USMP_OK;
fail:
	parts_free(&ps);
	return rc;
}
