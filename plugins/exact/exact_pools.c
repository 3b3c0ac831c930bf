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

/* The scratch of v's buffers and rules: false when the host has no room
 * (then pools_free frees what was had). */
static bool pools_alloc(pools *ps, const usmp_view *v, const usmp_host *h)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	memset(ps, 0, sizeof *ps);
	ps->v = v;
	ps->h = h;
	return (ps->home = h->alloc(h, n * sizeof *ps->home)) &&
	       (ps->ids = h->alloc(h, n * sizeof *ps->ids)) &&
	       (ps->sub = h->alloc(h, n * sizeof *ps->sub)) &&
	       (ps->sb = h->alloc(h, n * sizeof *ps->sb)) &&
	       (ps->sp = h->alloc(h, n * sizeof *ps->sp)) &&
	       (ps->so = h->alloc(h, (v->overlap_count ? v->overlap_count : 1) *
	                              sizeof *ps->so));
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
	int rc = USMP_ERR_NOMEM;
	if (!pools_alloc(&ps, v, h))
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
		if (k && overfull(&sv, xact_capped(kp, sv.pools[0].size_limit)))
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

/* Least-spill choices enumerated and planned at most this many. */
#define CHOICES 64u

/* Whether the choices were all enumerated and each says every buffer's
 * pool (a buffer leaving its first pool has only a second one). */
static bool choices_say_pools(const usmp_view *v, const uint8_t *keeps,
                              uint32_t count)
{
	if (count > CHOICES)
		return false;
	for (uint32_t c = 0; c < count; c++)
		for (uint32_t b = 0; b < v->buffer_count; b++)
			if (!keeps[(size_t)c * v->buffer_count + b] &&
			    v->buffers[b].candidate_count != 2 &&
			    !(v->buffers[b].flags & USMP_BUFFER_FIXED))
				return false;
	return true;
}

/* Plan the least-spill choices pool by pool (all of them when enumerated,
 * sharing the time; else one, in a quarter of it): the best plan goes to
 * st (and res), the least of their proven bounds to *bound; *decided stays
 * true only if every choice got a plan. When none fits because it counted
 * on rule partners sharing, a choice with them apart is planned instead
 * (a start for the joint search, proving nothing). Returns a usmp_status
 * (only NOMEM is an error). */
static int try_choices(const usmp_view *v, const usmp_host *h,
                       const xact_params *kp, xact_clock *clk, uint8_t *keeps,
                       uint32_t count, xact_start *st, xact_outcome *res,
                       uint64_t *bound, bool *decided)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	uint32_t tries = count <= CHOICES ? count : 1;
	usmp_placement *first = (usmp_placement *)st->plan;
	usmp_placement *trial = h->alloc(h, n * sizeof *trial);
	if (!trial)
		return USMP_ERR_NOMEM;
	char msg[120];
	snprintf(msg, sizeof msg, "exact: spill by load alone >= %llu, %u%s "
	         "choices reach it", (unsigned long long)st->spill_floor,
	         count, count >= 255 ? "+" : "");
	h->log(h, USMP_LOG_INFO, msg);
	for (uint32_t c = 0; c <= tries; c++) {
		bool apart = c == tries; /* the fallback */
		uint32_t one;
		uint64_t lb2;
		if (apart && (st->have || !v->overlap_count ||
		              xact_should_stop(clk) ||
		              xact_spill_dp(v, h, kp->capacity, false, &lb2, keeps,
		                            1, &one) != USMP_OK))
			break;
		xact_params q = *kp;
		if (clk->deadline > 0) {
			double rest = clk->deadline - xact_now();
			q.time_limit = *decided ? rest / (tries - c) : rest / 4;
			if (apart)
				q.time_limit = rest / 4;
			if (q.time_limit <= 0)
				q.time_limit = 1e-6;
		}
		for (size_t i = 0; i < n; i++)
			trial[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		xact_outcome o;
		int r = xact_pools(v, h, trial, &q,
		                   keeps + (apart ? 0 : (size_t)c * n), &o);
		if (r == USMP_ERR_NOMEM) {
			h->free(h, trial);
			return r;
		}
		if (r != USMP_OK || apart) {
			*decided = false;
			if (r != USMP_OK)
				continue;
		}
		if (o.bound < *bound)
			*bound = o.bound;
		if (!st->have || o.peak < res->peak) {
			*res = o;
			memcpy(first, trial, (size_t)v->buffer_count * sizeof *first);
			st->have = true;
		}
		if (xact_should_stop(clk)) {
			*decided = false;
			break;
		}
	}
	h->free(h, trial);
	return USMP_OK;
}

/* Pool p alone with the buffers pinned to it (home): the joint search of
 * exact_multi.c, which shares as the rules allow, within time_limit
 * seconds. Its plan goes to out (pool p's buffers), *top its top, *bound
 * what it proves (at least floor_p). Returns a usmp_status. */
static int search_pool(pools *ps, uint32_t p, const xact_params *kp,
                       double time_limit, usmp_placement *out,
                       uint64_t floor_p, uint64_t *top, uint64_t *bound)
{
	uint32_t k;
	usmp_view sv = pool_view(ps, p, &k);
	xact_sub_host ch; /* its messages dropped: the caller reports */
	xact_sub_init(&ch, ps->h);
	xact_clock clk = {.host = &ch.h};
	if (time_limit > 0)
		clk.deadline = xact_now() + time_limit;
	for (uint32_t i = 0; i < k; i++)
		ps->sp[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
	int rc = xact_multi(&sv, &ch.h, ps->sp, kp->capacity, &clk, true, NULL);
	if (rc)
		return rc;
	*top = 0;
	for (uint32_t i = 0; i < k; i++) {
		out[ps->ids[i]] = (usmp_placement){p, 0, ps->sp[i].offset};
		if (ps->sp[i].offset + sv.buffers[i].size > *top)
			*top = ps->sp[i].offset + sv.buffers[i].size;
	}
	*bound = ch.optimal ? *top : ch.got ? ch.bound : 0;
	if (*bound < floor_p)
		*bound = floor_p;
	return USMP_OK;
}

/* One least-spill choice (pin) planned: given the pools, the pools are
 * independent, so one sweep each at its floor (bc), and where that finds
 * nothing, the joint search of that pool alone (in a quarter of the time
 * left). The plan goes to plan, the sum of the pools' tops to *tops and of
 * their proven bounds to *bounds. Returns a xact_result. */
static int plan_pools(pools *ps, const xact_params *kp, xact_clock *clk,
                      const uint32_t *pin, const uint64_t *bc, uint32_t *one,
                      uint64_t *off, usmp_placement *plan, uint64_t *tops,
                      uint64_t *bounds)
{
	const usmp_view *v = ps->v;
	uint32_t n = v->buffer_count;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		for (uint32_t b = 0; b < n; b++)
			one[b] = pin[b] == p ? p : USMP_NO_POOL;
		int r = xact_sweep(v, ps->h, one, bc, 200000 + 4000 * (uint64_t)n,
		                   clk, off);
		if (r == XACT_NOMEM || r == XACT_STOPPED)
			return r;
		uint64_t top = 0, bound = bc[p];
		for (uint32_t b = 0; b < n && r == XACT_FOUND; b++) {
			if (pin[b] != p)
				continue;
			plan[b] = (usmp_placement){p, 0, off[b]};
			if (off[b] + v->buffers[b].size > top)
				top = off[b] + v->buffers[b].size;
		}
		if (r != XACT_FOUND) {
			double rest = clk->deadline > 0
			                      ? (clk->deadline - xact_now()) / 4 : 0;
			if (clk->deadline > 0 && rest <= 0)
				return XACT_STOPPED;
			memcpy(ps->home, pin, (n ? n : 1) * sizeof *pin);
			int rc = search_pool(ps, p, kp, rest, plan, bc[p], &top,
			                     &bound);
			if (rc)
				return rc == USMP_ERR_NOMEM ? XACT_NOMEM
				                            : XACT_INFEASIBLE;
		}
		*tops += top;
		*bounds += bound;
	}
	return XACT_FOUND;
}

/* Bytes a plan places outside their buffers' first pools. */
static uint64_t spill_of(const usmp_view *v, const usmp_placement *plan)
{
	uint64_t spill = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (plan[b].pool != home_pool(v, b))
			spill += v->buffers[b].size;
	return spill;
}

/* The choices enumerated and saying every buffer's pool: every plan of
 * least spill puts each buffer where one of them does, so the least of
 * their floors (xact_pin_floor; a choice whose floor breaks a limit has no
 * plan) bounds its size, and a plan there, found by the time-order sweep,
 * is optimal. Where the sweep finds nothing at a pool's floor, that pool
 * alone gets the joint search (pools apart are independent), whose proven
 * bound counts then. The best complete plan goes to out (*have_alt);
 * returns true when it meets its bound (*proved). *floor: the least floor,
 * UINT64_MAX when no choice fits. */
static bool sweep_choices(const usmp_view *v, const usmp_host *h,
                          const xact_params *kp, xact_clock *clk,
                          const uint8_t *keeps, uint32_t count, uint64_t lb,
                          usmp_placement *out, uint64_t *floor,
                          uint64_t *proved, bool *have_alt)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	uint32_t P = v->pool_count;
	uint32_t *pin = h->alloc(h, n * sizeof *pin);
	uint64_t *off2 = h->alloc(h, n * sizeof *off2);
	usmp_placement *plan = h->alloc(h, n * sizeof *plan);
	uint32_t *one = h->alloc(h, n * sizeof *one);
	uint64_t *base = h->alloc(h, (size_t)P * CHOICES * sizeof *base);
	uint64_t *tot = h->alloc(h, CHOICES * sizeof *tot);
	bool found = false;
	uint64_t alt_top = 0;
	pools ps;
	*floor = UINT64_MAX;
	if (!pools_alloc(&ps, v, h) || !pin || !off2 || !plan || !one ||
	    !base || !tot || P > 64)
		goto fail;
	for (uint32_t pass = 0; pass < 2 && !found; pass++)
		for (uint32_t c = 0; c < count && !found; c++) {
			const uint8_t *keep = keeps + (size_t)c * n;
			for (uint32_t b = 0; b < v->buffer_count; b++) {
				const usmp_buffer_rec *r = &v->buffers[b];
				pin[b] = home_pool(v, b);
				if (!keep[b] && !(r->flags & USMP_BUFFER_FIXED) &&
				    r->candidate_count > 1)
					pin[b] = v->candidates[r->candidate_start + 1];
			}
			uint64_t *bc = base + (size_t)c * P;
			if (pass == 0) {
				tot[c] = xact_pin_floor(v, pin, bc);
				for (uint32_t p = 0; p < P; p++) {
					uint64_t lim = v->pools[p].size_limit;
					if (bc[p] > xact_capped(kp, lim))
						tot[c] = UINT64_MAX;
				}
				if (tot[c] < *floor)
					*floor = tot[c];
				continue;
			}
			if (tot[c] != *floor || *floor == UINT64_MAX ||
			    xact_should_stop(clk))
				continue;
			uint64_t tops = 0, bounds = 0;
			int r = plan_pools(&ps, kp, clk, pin, bc, one, off2, plan,
			                   &tops, &bounds);
			char msg[160];
			snprintf(msg, sizeof msg, "exact: least-spill choice %u, floor "
			         "%llu: plan %llu, pool by pool bound %llu", c,
			         (unsigned long long)tot[c],
			         (unsigned long long)(r == XACT_FOUND ? tops : 0),
			         (unsigned long long)bounds);
			h->log(h, USMP_LOG_DEBUG, msg);
			if (r != XACT_FOUND)
				continue;
			uint64_t spill = 0;
			for (uint32_t b = 0; b < v->buffer_count; b++)
				if (pin[b] != home_pool(v, b))
					spill += v->buffers[b].size;
			if (spill != lb)
				continue;
			/* the best complete plan of least spill so far */
			if (!*have_alt || tops < alt_top) {
				memcpy(out, plan, v->buffer_count * sizeof *out);
				*have_alt = true;
				alt_top = tops;
			}
			/* optimal when no other choice's floor is below it */
			bool least = tops == bounds;
			for (uint32_t d = 0; d < count && least; d++)
				least = d == c || tot[d] >= bounds;
			if (least) {
				*proved = bounds;
				found = true;
			}
		}
fail:
	if (pin)
		h->free(h, pin);
	pools_free(&ps);
	if (plan)
		h->free(h, plan);
	if (off2)
		h->free(h, off2);
	if (one)
		h->free(h, one);
	if (base)
		h->free(h, base);
	if (tot)
		h->free(h, tot);
	return found;
}

/* Several pools without edges where some must spill: the least spill by
 * load (exact_spill.c) bounds every plan's spill; its choices, planned pool
 * by pool, give the joint search its first plan. When there are few
 * choices, all enumerated and each fits, every plan of least spill is a
 * plan of one of them, so the least of their pools' proven bounds bounds
 * them all: proven when the best plan meets it. Beyond the joint search's
 * size the best of those plans is the answer, claimed only at the host's
 * bound. */
int xact_spill_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk, bool joint, uint64_t *spill_floor)
{
	size_t n = v->buffer_count ? v->buffer_count : 1;
	uint8_t *keeps = h->alloc(h, CHOICES * n);
	usmp_placement *first = h->alloc(h, n * sizeof *first);
	usmp_placement *alt = NULL;
	xact_start st = {false, first, 0, true, true};
	xact_outcome res = {0, 0};
	int rc = USMP_ERR_NOMEM;
	if (!keeps || !first)
		goto fail;
	uint64_t lb;
	uint32_t count = 0;
	rc = xact_spill_dp(v, h, kp->capacity, true, &lb, keeps, CHOICES, &count);
	if (rc == USMP_ERR_NOMEM)
		goto fail;
	if (rc == USMP_OK) {
		st.spill_floor = lb;
		if (spill_floor)
			*spill_floor = lb;
		uint64_t bound = UINT64_MAX;
		bool decided = choices_say_pools(v, keeps, count);
		uint64_t floor = 0, proved = 0;
		/* (quadratic in the buffers: up to the joint search's size) */
		bool all = count <= CHOICES && choices_say_pools(v, keeps, count) &&
		           v->buffer_count <= XACT_MULTI_MAX;
		bool have_alt = false;
		if (!(alt = h->alloc(h, n * sizeof *alt))) {
			rc = USMP_ERR_NOMEM;
			goto fail;
		}
		bool won = all && sweep_choices(v, h, kp, clk, keeps, count, lb,
		                                alt, &floor, &proved, &have_alt);
		uint64_t alt_total = 0;
		if (have_alt) {
			uint64_t top[64] = {0};
			for (uint32_t b = 0; b < v->buffer_count; b++) {
				uint64_t e = alt[b].offset + v->buffers[b].size;
				if (e > top[alt[b].pool])
					top[alt[b].pool] = e;
			}
			for (uint32_t p = 0; p < v->pool_count; p++)
				alt_total += top[p];
		}
		if (won) {
			memcpy(out, alt, (size_t)v->buffer_count * sizeof *out);
			char msg[160];
			snprintf(msg, sizeof msg, "exact: %u pools, spill %llu (the "
			         "least by load), size %llu at the bound of the "
			         "least-spill choices, proven optimal",
			         v->pool_count, (unsigned long long)lb,
			         (unsigned long long)alt_total);
			h->log(h, USMP_LOG_INFO, msg);
			xact_outcome rep = {alt_total, proved};
			xact_report(v, h, &rep);
			goto fail;
		}
		rc = try_choices(v, h, kp, clk, keeps, count, &st, &res, &bound,
		                 &decided);
		if (rc)
			goto fail;
		if (!all)
			floor = 0;
		if (floor != UINT64_MAX && floor > bound)
			bound = floor;
		/* The sweep's plan spills the least there is: a better start
		 * than a choice planned with rules as conflicts, or none. */
		if (have_alt && (!st.have || res.peak > alt_total ||
		                 spill_of(v, first) > lb)) {
			memcpy(first, alt, (size_t)v->buffer_count * sizeof *first);
			st.have = true;
			res.peak = alt_total;
			if (res.bound > res.peak)
				res.bound = res.peak;
		}
		if (st.have && decided) {
			/* Every plan of least spill is a plan of one of the
			 * choices, each planned: the least of their bounds holds
			 * for them all. */
			memcpy(out, first, (size_t)v->buffer_count * sizeof *out);
			xact_outcome rep = {res.peak, bound < res.peak ? bound : res.peak};
			xact_report(v, h, &rep);
			if (rep.bound >= rep.peak || xact_should_stop(clk))
				goto fail;
		}
	}
	if (!joint) {
		/* the start alone: the caller searches on */
		if (st.have)
			memcpy(out, first, (size_t)v->buffer_count * sizeof *out);
		rc = st.have ? USMP_OK : USMP_ERR_UNSUPPORTED;
		goto fail;
	}
	rc = xact_multi(v, h, out, kp->capacity, clk, kp->minimize, &st);
	if (rc == USMP_ERR_UNSUPPORTED && st.have) {
		memcpy(out, first, (size_t)v->buffer_count * sizeof *out);
		res.bound = 0; /* only the host's bound is known */
		xact_report(v, h, &res);
		rc = USMP_OK;
	}
fail:
	if (keeps)
		h->free(h, keeps);
	if (first)
		h->free(h, first);
	if (alt)
		h->free(h, alt);
	return rc;
}

/* A plan of every buffer in its first pool, unproven because the pools'
 * search takes sharing rules as conflicts: the joint search (up to its
 * size) starts from it and may share as the rules allow. out holds the
 * plan and stays valid whatever happens. */
int xact_rules_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk)
{
	if (v->buffer_count > 1000 || xact_should_stop(clk))
		return USMP_OK;
	size_t n = v->buffer_count ? v->buffer_count : 1;
	usmp_placement *keep = h->alloc(h, n * sizeof *keep);
	if (!keep)
		return USMP_OK;
	memcpy(keep, out, (size_t)v->buffer_count * sizeof *keep);
	xact_start st = {true, keep, 0, false, false};
	if (xact_multi(v, h, out, kp->capacity, clk, kp->minimize, &st))
		memcpy(out, keep, (size_t)v->buffer_count * sizeof *out);
	h->free(h, keep);
	return USMP_OK;
}
