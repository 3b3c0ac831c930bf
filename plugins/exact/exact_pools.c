/* exact_pools.c — several pools without conflict edges: every buffer in its
 * first candidate pool spills least, and then each pool is planned alone. */
#include "exact_internal.h"

#include <stdio.h>
#include <string.h>

/* One pool's view: its buffers (those whose first candidate, or fixed
 * pool, it is) in index order, their rules, every candidate pool 0. */
typedef struct pools {
	const usmp_view *v;
	const usmp_host *h;
	uint32_t *home;      /* [n] the pool each buffer goes to */
	uint32_t *ids;       /* [n] one pool's buffers, view indices */
	uint32_t *sub;       /* [n] index of a buffer in its pool's view */
	usmp_buffer_rec *sb; /* [n] */
	usmp_overlap_rec *so;
	usmp_placement *sp;  /* [n] */
	usmp_pool_rec pool;
	uint32_t zero;       /* the candidate list of every buffer: pool 0 */
} pools;

static uint32_t home_pool(const usmp_view *v, uint32_t b)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	if (r->flags & USMP_BUFFER_FIXED)
		return r->fixed_pool;
	return v->candidates[r->candidate_start];
}

/* The view of pool p; *count: its buffers. */
static usmp_view pool_view(pools *ps, uint32_t p, uint32_t *count)
{
	const usmp_view *v = ps->v;
	uint32_t k = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		if (ps->home[i] != p)
			continue;
		ps->sub[i] = k;
		ps->ids[k] = i;
		usmp_buffer_rec r = v->buffers[i];
		r.candidate_count = 1;
		r.candidate_start = 0;
		r.fixed_pool = 0;
		ps->sb[k++] = r;
	}
	uint64_t nr = 0;
	for (uint64_t i = 0; i < v->overlap_count; i++) {
		usmp_overlap_rec o = v->overlaps[i];
		if (ps->home[o.src] != p || ps->home[o.dst] != p)
			continue;
		o.src = ps->sub[o.src];
		o.dst = ps->sub[o.dst];
		ps->so[nr++] = o;
	}
	usmp_view sv = *v;
	ps->pool = v->pools[p];
	sv.pool_count = 1;
	sv.pools = &ps->pool;
	sv.buffer_count = k;
	sv.buffers = ps->sb;
	sv.candidates = &ps->zero;
	sv.conflict_start = NULL;
	sv.conflict_adj = NULL;
	sv.degree = NULL;
	sv.overlaps = nr ? ps->so : NULL;
	sv.overlap_count = nr;
	sv.lower_bound = 0; /* the group's bound is not one pool's */
	*count = k;
	return sv;
}

/* Whether the pool's buffers alive at some time (or any one of them)
 * exceed its limit: then they cannot all stay, and the joint search must
 * choose what spills. Rules are ignored (they could only lower the sum, so
 * this may send a pool to the joint search that would have fitted). */
static bool overfull(const usmp_view *sv, uint64_t limit)
{
	for (uint32_t i = 0; i < sv->buffer_count; i++) {
		const usmp_buffer_rec *a = &sv->buffers[i];
		uint64_t sum = a->size;
		if (!(a->flags & USMP_BUFFER_LIVE)) {
			if (sum > limit)
				return true;
			continue;
		}
		/* the load at a's begin: every live range containing it */
		for (uint32_t j = 0; j < sv->buffer_count; j++) {
			const usmp_buffer_rec *b = &sv->buffers[j];
			if (j != i && (b->flags & USMP_BUFFER_LIVE) &&
			    b->begin <= a->begin && a->begin < b->end)
				sum += b->size;
		}
		if (sum > limit)
			return true;
	}
	return false;
}

static void pools_free(pools *ps)
{
	const usmp_host *h = ps->h;
	void *ptrs[] = {ps->home, ps->ids, ps->sub, ps->sb, ps->so, ps->sp};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

int xact_pools(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, const uint8_t *keep,
               xact_outcome *res)
{
	pools ps;
	memset(&ps, 0, sizeof ps);
	ps.v = v;
	ps.h = h;
	size_t n = v->buffer_count ? v->buffer_count : 1;
	int rc = USMP_ERR_NOMEM;
	if (!(ps.home = h->alloc(h, n * sizeof *ps.home)) ||
	    !(ps.ids = h->alloc(h, n * sizeof *ps.ids)) ||
	    !(ps.sub = h->alloc(h, n * sizeof *ps.sub)) ||
	    !(ps.sb = h->alloc(h, n * sizeof *ps.sb)) ||
	    !(ps.sp = h->alloc(h, n * sizeof *ps.sp)) ||
	    !(ps.so = h->alloc(h, (v->overlap_count ? v->overlap_count : 1) *
	                          sizeof *ps.so)))
		goto fail;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		ps.home[i] = home_pool(v, i);
		if (keep && !keep[i] && !(r->flags & USMP_BUFFER_FIXED) &&
		    r->candidate_count > 1)
			ps.home[i] = v->candidates[r->candidate_start + 1];
	}
	/* First a cheap look at every pool, so that a pool that must spill
	 * sends the problem to the joint search before any time is spent. */
	rc = USMP_ERR_UNSUPPORTED;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		uint32_t k;
		usmp_view sv = pool_view(&ps, p, &k);
		uint64_t limit = sv.pools[0].size_limit;
		if (kp->capacity > 0 && kp->capacity < limit)
			limit = kp->capacity;
		if (k && overfull(&sv, limit))
			goto fail;
	}
	double deadline = kp->time_limit > 0 ? xact_now() + kp->time_limit : 0;
	uint32_t left = v->buffer_count;
	res->peak = 0;
	res->bound = 0;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		uint32_t k;
		usmp_view sv = pool_view(&ps, p, &k);
		if (!k)
			continue;
		xact_params q = *kp;
		q.enough = 0;
		if (deadline > 0) {
			double rest = deadline - xact_now();
			q.time_limit = rest > 0 ? rest * k / left : 1e-6;
		}
		for (uint32_t i = 0; i < k; i++)
			ps.sp[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		xact_outcome o;
		int r = xact_one_pool(&sv, h, ps.sp, &q, &o);
		if (r == USMP_ERR_NOMEM || r == USMP_ERR_STOPPED) {
			rc = r;
			goto fail;
		}
		if (r != USMP_OK)
			goto fail; /* UNSUPPORTED: the joint search decides */
		for (uint32_t i = 0; i < k; i++)
			out[ps.ids[i]] = (usmp_placement){p, 0, ps.sp[i].offset};
		res->peak += o.peak;
		res->bound += o.bound;
		left -= k;
	}
	char msg[200];
	if (keep)
		snprintf(msg, sizeof msg, "exact: %u pools, the least spill by "
		         "load planned pool by pool: size %llu", v->pool_count,
		         (unsigned long long)res->peak);
	else
		snprintf(msg, sizeof msg, "exact: %u pools, every buffer in its "
		         "first pool (no spill), size %llu, proven bound %llu",
		         v->pool_count, (unsigned long long)res->peak,
		         (unsigned long long)res->bound);
	h->log(h, USMP_LOG_INFO, msg);
	rc = USMP_OK;
fail:
	pools_free(&ps);
	return rc;
}
