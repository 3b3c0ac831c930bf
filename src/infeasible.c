/* infeasible.c — why a part has no plan: a certificate computed from the
 * problem alone (step, buffer, fixed clash, bound), spill advice, messages. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

/*
 * The certificates, each a proof that no valid plan exists:
 *
 *  BUFFER  a buffer larger than the limit of every pool it may use.
 *  STEP    a set S of buffers alive together at one time t, with U the
 *          pools they may use: any two of them conflict, so they share no
 *          byte unless an overlap rule joins them, and their bytes in U's
 *          pools number at least sum(size) - sum(charge) (the argument of
 *          bound.c, charging each buffer for its rule partners of lower
 *          index). When that exceeds the sum of U's limits, no plan exists.
 *          Two sets are tried at every time: per pool P, the buffers that
 *          may use P alone; and every live buffer with the union of their
 *          pools. The sweep sees every subset of a time's live set that it
 *          passes through, each a true certificate.
 *  FIXED   two fixed buffers that conflict and overlap (no rule allows it).
 *  BOUND   the group's lower bound over the sum of its pools' limits.
 * An unbounded pool counts as 2^64 - 1 bytes, the address space.
 *
 * Spill advice (a STEP on one pool P, or a BUFFER whose largest pool is
 * P): every time step where the buffers that may use only P (and the
 * BUFFER's buffer) exceed P's limit, counting each whole, must come under
 * it. Greedily, at the first step still over, a movable buffer live there
 * goes to the first other pool (same target as P, not
 * yet in its list) whose load, counting every live buffer that may use it
 * and those already moved there, stays within its limit over the moved
 * buffer's whole live range. Buffers are tried by the number of overflowing
 * steps each alone brings under the limit, then the smallest (the largest
 * when none does alone). At most MAX_MOVES moves; no advice otherwise.
 */

#define NONE UINT32_MAX
enum { MAX_MOVES = 32, MAX_TRIES = 16, MAX_DEST = 16 };


static bool wide_gt(usmp__wide a, usmp__wide b)
{
	return a.hi > b.hi || (a.hi == b.hi && a.lo > b.lo);
}

/* a - b for a > b, saturated. */
static uint64_t wide_excess(usmp__wide a, usmp__wide b)
{
	usmp__wide d = a;
	usmp__wide_sub(&d, b.lo);
	d.hi -= b.hi;
	return usmp__wide_min(d, UINT64_MAX);
}

/* ---- messages ------------------------------------------------------------ */

typedef struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) USMP__PRINTF(2, 3);
static void sb_add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		if (usmp__grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1)) {
			b->oom = 1;
			return;
		}
	}
}

static void sb_limit(sbuf *b, uint64_t limit)
{
	if (limit == USMP_UNBOUNDED)
		sb_add(b, "no size limit: %llu bytes of address space",
		       (unsigned long long)limit);
	else
		sb_add(b, "%llu byte%s", (unsigned long long)limit, usmp__s(limit));
}

/* ---- the view's pools and rules ----------------------------------------- */

/* The pools buffer i may use: its fixed pool, or its candidates. */
static const uint32_t *pools_of(const usmp_view *v, uint32_t i, uint32_t *n)
{
	const usmp_buffer_rec *b = &v->buffers[i];
	if (b->flags & USMP_BUFFER_FIXED) {
		*n = 1;
		return &b->fixed_pool;
	}
	*n = b->candidate_count;
	return v->candidates + b->candidate_start;
}

static uint64_t limit_of(const usmp_view *v, uint32_t pool)
{
	return v->pools[pool].size_limit; /* USMP_UNBOUNDED is 2^64 - 1 */
}

static uint64_t rule_share(uint64_t s_src, uint64_t s_dst, int64_t lead)
{
	uint64_t m = s_src < s_dst ? s_src : s_dst;
	if (lead >= 0)
		return m;
	uint64_t back = (uint64_t)(-(lead + 1)) + 1;
	uint64_t room = s_dst > back ? s_dst - back : 0;
	return room < s_src ? room : s_src;
}

/* Rule partners as a symmetric CSR with the largest share of each pair. */
typedef struct partners {
	uint64_t *start; /* [n + 1] */
	uint32_t *nb;
	uint64_t *sh;
} partners;

static void partners_free(partners *r)
{
	free(r->start);
	free(r->nb);
	free(r->sh);
}

static int partners_build(partners *r, const usmp_view *v)
{
	uint32_t n = v->buffer_count;
	uint64_t m = v->overlap_count;
	memset(r, 0, sizeof *r);
	if (m > SIZE_MAX / 2 / sizeof *r->sh)
		return USMP_ERR_NOMEM;
	r->start = calloc((size_t)n + 1, sizeof *r->start);
	r->nb = malloc((m ? 2 * (size_t)m : 1) * sizeof *r->nb);
	r->sh = malloc((m ? 2 * (size_t)m : 1) * sizeof *r->sh);
	if (!r->start || !r->nb || !r->sh)
		goto fail;
	for (uint64_t k = 0; k < m; k++) {
		const usmp_overlap_rec *o = &v->overlaps[k];
		if (o->src >= n || o->dst >= n || o->src == o->dst)
			continue;
		r->start[o->src + 1]++;
		r->start[o->dst + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		r->start[i + 1] += r->start[i];
	uint64_t *cur = malloc(((size_t)n + 1) * sizeof *cur);
	if (!cur)
		goto fail;
	memcpy(cur, r->start, ((size_t)n + 1) * sizeof *cur);
	for (uint64_t k = 0; k < m; k++) {
		const usmp_overlap_rec *o = &v->overlaps[k];
		if (o->src >= n || o->dst >= n || o->src == o->dst)
			continue;
		uint64_t sh = rule_share(v->buffers[o->src].size,
		                         v->buffers[o->dst].size, o->max_lead);
		/* A pair with rules both ways keeps the larger share, once. */
		uint64_t e;
		for (e = r->start[o->src]; e < cur[o->src]; e++)
			if (r->nb[e] == o->dst)
				break;
		if (e < cur[o->src]) {
			if (sh > r->sh[e])
				r->sh[e] = sh;
			for (e = r->start[o->dst]; e < cur[o->dst]; e++)
				if (r->nb[e] == o->src && sh > r->sh[e])
					r->sh[e] = sh;
			continue;
		}
		r->nb[cur[o->src]] = o->dst;
		r->sh[cur[o->src]++] = sh;
		r->nb[cur[o->dst]] = o->src;
		r->sh[cur[o->dst]++] = sh;
	}
	/* Unused slots (duplicates) get share 0 and a self index, skipped. */
	for (uint32_t i = 0; i < n; i++)
		for (uint64_t e = cur[i]; e < r->start[i + 1]; e++) {
			r->nb[e] = i;
			r->sh[e] = 0;
		}
	free(cur);
	return USMP_OK;
fail:
	partners_free(r);
	memset(r, 0, sizeof *r);
	return USMP_ERR_NOMEM;
}

/* ---- the certificate ----------------------------------------------------- */

typedef struct cert {
	int kind; /* usmp_infeasibility_kind, 0 = none found */
	uint32_t pool; /* view pool, NONE for several */
	usmp__wide limit;
	int64_t step;
	uint64_t total;
	uint32_t last;  /* STEP: the buffer whose entry made the state */
	bool rules;     /* STEP: overlap rules shared bytes in the total */
	bool saturated; /* STEP: the total is above 2^64 - 1 */
	uint32_t *buffers, nbuf;
	uint32_t *pools, npool;
} cert;

typedef struct best_step {
	bool found;
	uint32_t pool; /* NONE: the union */
	uint64_t excess;
	int64_t step;
	uint64_t total;
	uint32_t last;
	usmp__wide limit, net;
} best_step;

typedef struct sweep {
	const usmp_view *v;
	const partners *r;
	const uint32_t *single; /* [n] the one pool a buffer may use, or NONE */
	unsigned char *alive;
	usmp__wide *acc1, *accA; /* charges: partners of lower index alive (same pool / any) */
	usmp__wide *net1;        /* [pools] */
	usmp__wide netA, limA;
	uint64_t *cnt;     /* [pools] live buffers that may use the pool */
	best_step b1, bA;
} sweep;

static void charge(usmp__wide *acc, uint64_t size, uint64_t sh, usmp__wide *net)
{
	uint64_t old = usmp__wide_min(*acc, size);
	usmp__wide_add(acc, sh);
	usmp__wide_sub(net, usmp__wide_min(*acc, size) - old);
}

static void uncharge(usmp__wide *acc, uint64_t size, uint64_t sh, usmp__wide *net)
{
	uint64_t old = usmp__wide_min(*acc, size);
	usmp__wide_sub(acc, sh);
	usmp__wide_add(net, old - usmp__wide_min(*acc, size));
}

static void consider(best_step *b, uint32_t pool, usmp__wide net, usmp__wide lim,
                     int64_t t, uint32_t j)
{
	if (!wide_gt(net, lim))
		return;
	uint64_t ex = wide_excess(net, lim);
	if (b->found && ex <= b->excess)
		return;
	*b = (best_step){true, pool, ex, t, usmp__wide_min(net, UINT64_MAX), j, lim,
	                 net};
}

static void sweep_enter(sweep *s, uint32_t j)
{
	const usmp_view *v = s->v;
	const partners *r = s->r;
	uint64_t size = v->buffers[j].size;
	uint32_t p = s->single[j];
	usmp__wide a = {0, 0}, a1 = {0, 0};
	for (uint64_t e = r->start[j]; e < r->start[j + 1]; e++) {
		uint32_t i = r->nb[e];
		if (i == j || !s->alive[i] || !r->sh[e])
			continue;
		bool same = p != NONE && s->single[i] == p;
		if (i < j) {
			usmp__wide_add(&a, r->sh[e]);
			if (same)
				usmp__wide_add(&a1, r->sh[e]);
		} else {
			uint64_t si = v->buffers[i].size;
			charge(&s->accA[i], si, r->sh[e], &s->netA);
			if (same)
				charge(&s->acc1[i], si, r->sh[e], &s->net1[p]);
		}
	}
	s->alive[j] = 1;
	s->accA[j] = a;
	usmp__wide_add(&s->netA, size - usmp__wide_min(a, size));
	if (p != NONE) {
		s->acc1[j] = a1;
		usmp__wide_add(&s->net1[p], size - usmp__wide_min(a1, size));
	}
	uint32_t np;
	const uint32_t *ps = pools_of(v, j, &np);
	for (uint32_t c = 0; c < np; c++)
		if (s->cnt[ps[c]]++ == 0)
			usmp__wide_add(&s->limA, limit_of(v, ps[c]));
	int64_t t = v->buffers[j].begin;
	if (p != NONE) {
		usmp__wide lim = {0, limit_of(v, p)};
		consider(&s->b1, p, s->net1[p], lim, t, j);
	}
	if (v->pool_count > 1)
		consider(&s->bA, NONE, s->netA, s->limA, t, j);
}

static void sweep_leave(sweep *s, uint32_t j)
{
	const usmp_view *v = s->v;
	const partners *r = s->r;
	uint64_t size = v->buffers[j].size;
	uint32_t p = s->single[j];
	s->alive[j] = 0;
	usmp__wide_sub(&s->netA, size - usmp__wide_min(s->accA[j], size));
	if (p != NONE)
		usmp__wide_sub(&s->net1[p], size - usmp__wide_min(s->acc1[j], size));
	for (uint64_t e = r->start[j]; e < r->start[j + 1]; e++) {
		uint32_t i = r->nb[e];
		if (i <= j || !s->alive[i] || !r->sh[e])
			continue;
		uint64_t si = v->buffers[i].size;
		uncharge(&s->accA[i], si, r->sh[e], &s->netA);
		if (p != NONE && s->single[i] == p)
			uncharge(&s->acc1[i], si, r->sh[e], &s->net1[p]);
	}
	uint32_t np;
	const uint32_t *ps = pools_of(v, j, &np);
	for (uint32_t c = 0; c < np; c++)
		if (--s->cnt[ps[c]] == 0)
			usmp__wide_sub(&s->limA, limit_of(v, ps[c]));
}

static bool is_live(const usmp_buffer_rec *b)
{
	return (b->flags & USMP_BUFFER_LIVE) && b->end > b->begin;
}

/* In the state the sweep recorded: alive at t, entered no later than j. */
static bool in_state(const usmp_view *v, uint32_t i, int64_t t, uint32_t j)
{
	const usmp_buffer_rec *b = &v->buffers[i];
	return is_live(b) && b->end > t &&
	       (b->begin < t || (b->begin == t && i <= j));
}

/* Buffers by size, largest first, ties by index (a bottom-up merge sort). */
static void sort_by_size(const usmp_view *v, uint32_t *ids, uint32_t n)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!tmp) { /* fall back to insertion sort: correct, slower */
		for (uint32_t i = 1; i < n; i++) {
			uint32_t x = ids[i], k = i;
			while (k > 0) {
				uint32_t y = ids[k - 1];
				uint64_t sx = v->buffers[x].size, sy = v->buffers[y].size;
				if (sy > sx || (sy == sx && y < x))
					break;
				ids[k] = y;
				k--;
			}
			ids[k] = x;
		}
		return;
	}
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi) {
				uint64_t sa = v->buffers[ids[a]].size;
				uint64_t sb = v->buffers[ids[b]].size;
				bool take_a = sa > sb || (sa == sb && ids[a] < ids[b]);
				tmp[k++] = take_a ? ids[a++] : ids[b++];
			}
			while (a < mid)
				tmp[k++] = ids[a++];
			while (b < hi)
				tmp[k++] = ids[b++];
		}
		memcpy(ids, tmp, (size_t)n * sizeof *ids);
		if (w > UINT32_MAX / 2)
			break;
	}
	free(tmp);
}

/* Run the sweep; fill c with a STEP certificate when one exists. */
static int find_step(const usmp_view *v, cert *c)
{
	uint32_t n = v->buffer_count, P = v->pool_count;
	int rc = USMP_ERR_NOMEM;
	partners r;
	sweep s;
	uint64_t *bk = NULL, *ek = NULL;
	uint32_t *bv = NULL, *ev = NULL, *single = NULL;
	memset(&s, 0, sizeof s);
	if (partners_build(&r, v))
		return USMP_ERR_NOMEM;
	size_t sz = n ? n : 1;
	single = malloc(sz * sizeof *single);
	s.alive = calloc(sz, 1);
	s.acc1 = calloc(sz, sizeof *s.acc1);
	s.accA = calloc(sz, sizeof *s.accA);
	s.net1 = calloc(P ? P : 1, sizeof *s.net1);
	s.cnt = calloc(P ? P : 1, sizeof *s.cnt);
	bk = malloc(sz * sizeof *bk);
	ek = malloc(sz * sizeof *ek);
	bv = malloc(sz * sizeof *bv);
	ev = malloc(sz * sizeof *ev);
	if (!single || !s.alive || !s.acc1 || !s.accA || !s.net1 || !s.cnt ||
	    !bk || !ek || !bv || !ev)
		goto fail;
	s.v = v;
	s.r = &r;
	s.single = single;
	uint32_t live = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t np;
		const uint32_t *ps = pools_of(v, i, &np);
		single[i] = np == 1 && ps[0] < P ? ps[0] : NONE;
		for (uint32_t k = 0; k < np; k++)
			if (ps[k] >= P) { /* never in a built view */
				rc = USMP_ERR_INTERNAL;
				goto fail;
			}
		if (!is_live(&v->buffers[i]))
			continue;
		bk[live] = usmp__time_key(v->buffers[i].begin);
		ek[live] = usmp__time_key(v->buffers[i].end);
		bv[live] = ev[live] = i;
		live++;
	}
	if ((rc = usmp__sort_pairs(bk, bv, live)) != USMP_OK ||
	    (rc = usmp__sort_pairs(ek, ev, live)) != USMP_OK)
		goto fail;
	for (uint32_t bi = 0, ei = 0; bi < live;) {
		if (ei < live && ek[ei] <= bk[bi])
			sweep_leave(&s, ev[ei++]);
		else
			sweep_enter(&s, bv[bi++]);
	}
	best_step *b = s.b1.found ? &s.b1 : s.bA.found ? &s.bA : NULL;
	rc = USMP_OK;
	if (!b)
		goto fail;
	/* The state recorded: its buffers (largest first) and their pools. */
	c->kind = USMP_INFEASIBLE_STEP;
	c->pool = b->pool;
	c->step = b->step;
	c->total = b->total;
	c->last = b->last;
	c->limit = b->limit;
	rc = USMP_ERR_NOMEM;
	c->buffers = malloc(sz * sizeof *c->buffers);
	c->pools = malloc((P ? P : 1) * sizeof *c->pools);
	if (!c->buffers || !c->pools)
		goto fail;
	memset(s.cnt, 0, (P ? P : 1) * sizeof *s.cnt);
	for (uint32_t i = 0; i < n; i++) {
		if (!in_state(v, i, b->step, b->last) ||
		    (b->pool != NONE && single[i] != b->pool))
			continue;
		c->buffers[c->nbuf++] = i;
		uint32_t np;
		const uint32_t *ps = pools_of(v, i, &np);
		for (uint32_t k = 0; k < np; k++)
			if (!s.cnt[ps[k]]++)
				c->pools[c->npool++] = ps[k];
	}
	/* Rules shared bytes when the plain sum differs from the total. */
	usmp__wide plain = {0, 0};
	for (uint32_t k = 0; k < c->nbuf; k++)
		usmp__wide_add(&plain, v->buffers[c->buffers[k]].size);
	c->rules = plain.hi != b->net.hi || plain.lo != b->net.lo;
	c->saturated = b->net.hi != 0;
	sort_by_size(v, c->buffers, c->nbuf);
	rc = USMP_OK;
fail:
	partners_free(&r);
	free(single);
	free(s.alive);
	free(s.acc1);
	free(s.accA);
	free(s.net1);
	free(s.cnt);
	free(bk);
	free(ek);
	free(bv);
	free(ev);
	return rc;
}

/* Every pool of the part as the certificate's pools; its pool the only
 * one, or NONE when there are several. */
static int all_pools(const usmp_view *v, cert *c)
{
	c->pool = v->pool_count == 1 ? 0 : NONE;
	c->pools = malloc(v->pool_count * sizeof *c->pools);
	if (!c->pools)
		return USMP_ERR_NOMEM;
	for (uint32_t j = 0; j < v->pool_count; j++)
		c->pools[c->npool++] = j;
	return USMP_OK;
}

/* BUFFER, STEP, BOUND, in that order of preference. */
static int certify(const usmp_view *v, cert *c)
{
	memset(c, 0, sizeof *c);
	c->pool = NONE;
	uint32_t worst = NONE, worst_pool = NONE;
	uint64_t worst_limit = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		uint32_t np, bestp = NONE;
		const uint32_t *ps = pools_of(v, i, &np);
		uint64_t most = 0;
		for (uint32_t k = 0; k < np; k++)
			if (ps[k] < v->pool_count &&
			    (bestp == NONE || limit_of(v, ps[k]) > most)) {
				most = limit_of(v, ps[k]);
				bestp = ps[k];
			}
		if (bestp != NONE && v->buffers[i].size > most &&
		    (worst == NONE || v->buffers[i].size > v->buffers[worst].size)) {
			worst = i;
			worst_pool = bestp;
			worst_limit = most;
		}
	}
	if (worst != NONE) {
		c->kind = USMP_INFEASIBLE_BUFFER;
		c->pool = worst_pool;
		c->limit = (usmp__wide){0, worst_limit};
		c->total = v->buffers[worst].size;
		c->buffers = malloc(sizeof *c->buffers);
		c->pools = malloc(sizeof *c->pools);
		if (!c->buffers || !c->pools)
			return USMP_ERR_NOMEM;
		c->buffers[c->nbuf++] = worst;
		c->pools[c->npool++] = worst_pool;
		return USMP_OK;
	}
	int rc = find_step(v, c);
	if (rc || c->kind)
		return rc;
	usmp__wide all = {0, 0};
	for (uint32_t j = 0; j < v->pool_count; j++)
		usmp__wide_add(&all, limit_of(v, j));
	usmp__wide lb = {0, v->lower_bound};
	if (wide_gt(lb, all)) {
		c->kind = USMP_INFEASIBLE_BOUND;
		c->limit = all;
		return all_pools(v, c);
	}
	return USMP_OK;
}

static void cert_free(cert *c)
{
	free(c->buffers);
	free(c->pools);
}

/* ---- spill advice -------------------------------------------------------- */

typedef struct advice {
	uint32_t *buf, *pool; /* problem indices */
	uint32_t count;
} advice;

/* Whether pools a and b serve a target in common (a pool naming none
 * serves every target). `a_set`, when not NULL, holds a's targets: a pool
 * naming many targets is compared with each other pool in the time of the
 * other's targets, not of the product. */
static bool share_target(const usmp__pool *a, const usmp__strmap *a_set,
                         const usmp__pool *b)
{
	uint32_t at;
	if (!a->target_count || !b->target_count)
		return true;
	if (a_set) {
		for (uint32_t i = 0; i < b->target_count; i++)
			if (usmp__strmap_get(a_set, b->targets[i], &at) == USMP_OK)
				return true;
		return false;
	}
	for (uint32_t i = 0; i < a->target_count; i++)
		for (uint32_t k = 0; k < b->target_count; k++)
			if (!strcmp(a->targets[i], b->targets[k]))
				return true;
	return false;
}

static bool may_use(const usmp__buffer *b, uint32_t pool)
{
	if (b->flags & USMP_BUFFER_FIXED)
		return b->fixed_pool == pool;
	if (!b->candidate_count)
		return true;
	for (uint32_t c = 0; c < b->candidate_count; c++)
		if (b->candidates[c] == pool)
			return true;
	return false;
}

static bool plive(const usmp__buffer *b)
{
	return (b->flags & USMP_BUFFER_LIVE) && b->end > b->begin;
}

static uint32_t time_index(const int64_t *T, uint32_t nt, int64_t t)
{
	uint32_t lo = 0, hi = nt;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (T[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Add `size` over [begin, end) to a profile over segments of T. */
static void range_add(uint64_t *L, const int64_t *T, uint32_t nt,
                      int64_t begin, int64_t end, uint64_t size, bool sub)
{
	for (uint32_t k = time_index(T, nt, begin); k < nt && T[k] < end; k++)
		L[k] = sub ? L[k] - size : L[k] + size;
}

static uint64_t range_max(const uint64_t *L, const int64_t *T, uint32_t nt,
                          int64_t begin, int64_t end)
{
	uint64_t m = 0;
	for (uint32_t k = time_index(T, nt, begin); k < nt && T[k] < end; k++)
		if (L[k] > m)
			m = L[k];
	return m;
}

/* Whether candidate a (score sa) goes before b (score sb). */
static bool better(const usmp_view *v, uint32_t a, uint32_t sa, uint32_t b,
                   uint32_t sb)
{
	uint64_t za = v->buffers[a].size, zb = v->buffers[b].size;
	if (sa != sb)
		return sa > sb;
	if (za != zb)
		return sa ? za < zb : za > zb;
	return a < b;
}

/* The working state of one spill search: the buffers of the full pool, the
 * pools they may move to, and the load of each over the segments T. */
typedef struct spill_ctx {
	const usmp_problem *p;
	const usmp__view_store *vs;
	uint64_t limit;                /* the full pool's size limit */
	uint32_t dest[MAX_DEST], nd;   /* pools to move to (problem indices) */
	uint32_t *set, ns;             /* view buffers of the full pool */
	uint32_t *cand, *score;        /* candidates at a step, their scores */
	uint32_t *moved_to;            /* per view buffer: its new pool or NONE */
	int64_t *T;                    /* segment starts, ascending */
	uint32_t nt;
	uint64_t *Lp, *Lq;             /* load of the full pool; of each dest */
} spill_ctx;

/* Segments: every begin and end of the live buffers of the full pool and
 * of those that may use a destination, into s->T. `times` bounds their
 * count. */
static int spill_segments(spill_ctx *s, size_t times)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	int rc = USMP_ERR_NOMEM;
	size_t nk = 0;
	uint64_t *keys = malloc((times ? times : 1) * sizeof *keys);
	if (!keys)
		goto fail;
	for (uint32_t k = 0; k < s->ns; k++) {
		keys[nk++] = usmp__time_key(v->buffers[s->set[k]].begin);
		keys[nk++] = usmp__time_key(v->buffers[s->set[k]].end);
	}
	for (size_t b = 0; b < p->buffer_count; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		bool any = false;
		for (uint32_t d = 0; d < s->nd && !any; d++)
			any = may_use(buf, s->dest[d]);
		if (!plive(buf) || !any)
			continue;
		keys[nk++] = usmp__time_key(buf->begin);
		keys[nk++] = usmp__time_key(buf->end);
	}
	if ((rc = usmp__sort_pairs(keys, NULL, nk)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	s->T = malloc((nk ? nk : 1) * sizeof *s->T);
	if (!s->T)
		goto fail;
	s->nt = 0;
	for (size_t k = 0; k < nk; k++) {
		int64_t t = (int64_t)(keys[k] ^ (UINT64_C(1) << 63));
		if (!s->nt || s->T[s->nt - 1] != t)
			s->T[s->nt++] = t;
	}
	rc = USMP_OK;
fail:
	free(keys);
	return rc;
}

/* The load profiles: s->Lp of the full pool's buffers, s->Lq (nd rows of
 * nt) of the buffers that may use each destination. */
static int spill_profiles(spill_ctx *s)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	uint32_t nt = s->nt;
	s->Lp = calloc(nt ? nt : 1, sizeof *s->Lp);
	s->Lq = calloc((size_t)(nt ? nt : 1) * s->nd, sizeof *s->Lq);
	if (!s->Lp || !s->Lq)
		return USMP_ERR_NOMEM;
	for (uint32_t k = 0; k < s->ns; k++) {
		const usmp_buffer_rec *b = &v->buffers[s->set[k]];
		range_add(s->Lp, s->T, nt, b->begin, b->end, b->size, false);
	}
	for (uint32_t d = 0; d < s->nd; d++)
		for (size_t b = 0; b < p->buffer_count; b++) {
			const usmp__buffer *buf = &p->buffers[b];
			if (plive(buf) && may_use(buf, s->dest[d]))
				range_add(s->Lq + (size_t)d * nt, s->T, nt, buf->begin,
				          buf->end, buf->size, false);
		}
	return USMP_OK;
}

/* The unmoved, unfixed buffers of the full pool alive at segment k, into
 * s->cand with their scores: the overflowing steps a buffer alone brings
 * under the limit. Returns their count. */
static uint32_t spill_candidates(spill_ctx *s, uint32_t k)
{
	const usmp_view *v = &s->vs->view;
	const int64_t *T = s->T;
	uint32_t nc = 0;
	for (uint32_t i = 0; i < s->ns; i++) {
		const usmp_buffer_rec *b = &v->buffers[s->set[i]];
		if (s->moved_to[s->set[i]] == NONE &&
		    !(b->flags & USMP_BUFFER_FIXED) && b->begin <= T[k] &&
		    b->end > T[k])
			s->cand[nc++] = s->set[i];
	}
	for (uint32_t ci = 0; ci < nc; ci++) {
		const usmp_buffer_rec *b = &v->buffers[s->cand[ci]];
		s->score[ci] = 0;
		for (uint32_t j = time_index(T, s->nt, b->begin);
		     j < s->nt && T[j] < b->end; j++)
			s->score[ci] += s->Lp[j] > s->limit &&
			                b->size >= s->Lp[j] - s->limit;
	}
	return nc;
}

/* Move one of the nc candidates to a destination it fits in all its life,
 * trying at most MAX_TRIES of them: highest score first, then the
 * smallest; with score 0, the largest (few moves, then few bytes moved).
 * Records the move in out; false when none fits. */
static bool spill_move(spill_ctx *s, uint32_t nc, advice *out)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	uint32_t nt = s->nt, *cand = s->cand, *score = s->score;
	for (uint32_t t = 0; t < nc && t < MAX_TRIES; t++) {
		uint32_t ci = NONE;
		for (uint32_t x = 0; x < nc; x++) {
			if (score[x] == UINT32_MAX)
				continue; /* tried */
			if (ci == NONE || better(v, cand[x], score[x], cand[ci],
			                         score[ci]))
				ci = x;
		}
		score[ci] = UINT32_MAX;
		const usmp_buffer_rec *b = &v->buffers[cand[ci]];
		uint32_t pb = s->vs->buffer_map[cand[ci]];
		for (uint32_t d = 0; d < s->nd; d++) {
			uint64_t lim = p->pools[s->dest[d]].size_limit;
			if (may_use(&p->buffers[pb], s->dest[d]))
				continue; /* already in its list */
			uint64_t *L = s->Lq + (size_t)d * nt;
			uint64_t load = range_max(L, s->T, nt, b->begin, b->end);
			if (lim != USMP_UNBOUNDED &&
			    (load > lim || b->size > lim - load))
				continue;
			range_add(L, s->T, nt, b->begin, b->end, b->size, false);
			range_add(s->Lp, s->T, nt, b->begin, b->end, b->size, true);
			s->moved_to[cand[ci]] = s->dest[d];
			out->buf[out->count] = pb;
			out->pool[out->count++] = s->dest[d];
			return true;
		}
	}
	return false;
}

/* Spill advice for a STEP or BUFFER certificate on view pool c->pool. */
static int spill(const usmp_problem *p, const usmp__view_store *vs,
                 const cert *c, advice *out)
{
	const usmp_view *v = &vs->view;
	uint32_t P = vs->pool_map[c->pool];
	spill_ctx s = { .p = p, .vs = vs, .limit = p->pools[P].size_limit };
	int rc = USMP_ERR_NOMEM;
	memset(out, 0, sizeof *out);
	/* P's targets as a set when it names many: out of memory, the pairs
	 * are compared one by one instead (slower, the same answer). */
	const usmp__pool *fullp = &p->pools[P];
	usmp__strmap targets;
	bool use_set = fullp->target_count >= 16;
	usmp__strmap_init(&targets);
	for (uint32_t i = 0; use_set && i < fullp->target_count; i++)
		if (usmp__strmap_put(&targets, fullp->targets[i], i) ==
		    USMP_ERR_NOMEM)
			use_set = false;
	for (uint32_t q = 0; q < p->pool_count && s.nd < MAX_DEST; q++)
		if (q != P && share_target(fullp, use_set ? &targets : NULL,
		                           &p->pools[q]))
			s.dest[s.nd++] = q;
	usmp__strmap_finish(&targets);
	if (!s.nd)
		return USMP_OK;
	/* Sums stay exact in 64 bits below 2^63 (profiles wrap harmlessly). */
	uint64_t sum = 0;
	size_t times = 0;
	for (size_t b = 0; b < p->buffer_count; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		if (!plive(buf))
			continue;
		if (buf->size > (UINT64_C(1) << 62) - sum)
			return USMP_OK;
		sum += buf->size;
		times += 4; /* its begin and end, as in the set and as a user */
	}
	uint32_t n = v->buffer_count;
	s.set = malloc((n ? n : 1) * sizeof *s.set);
	s.cand = malloc((n ? n : 1) * sizeof *s.cand);
	s.moved_to = malloc((n ? n : 1) * sizeof *s.moved_to);
	s.score = malloc((n ? n : 1) * sizeof *s.score);
	if (!s.set || !s.cand || !s.moved_to || !s.score)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t np;
		const uint32_t *ps = pools_of(v, i, &np);
		s.moved_to[i] = NONE;
		bool mine = (np == 1 && ps[0] == c->pool) ||
		            (c->kind == USMP_INFEASIBLE_BUFFER && i == c->buffers[0]);
		if (mine && is_live(&v->buffers[i]))
			s.set[s.ns++] = i;
	}
	if ((rc = spill_segments(&s, times)) != USMP_OK ||
	    (rc = spill_profiles(&s)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	out->buf = malloc(MAX_MOVES * sizeof *out->buf);
	out->pool = malloc(MAX_MOVES * sizeof *out->pool);
	if (!out->buf || !out->pool)
		goto fail;
	rc = USMP_OK;
	for (;;) {
		uint32_t k = 0;
		while (k < s.nt && s.Lp[k] <= s.limit)
			k++;
		if (k == s.nt)
			break; /* every step fits: the advice is complete */
		if (out->count == MAX_MOVES ||
		    !spill_move(&s, spill_candidates(&s, k), out))
			goto none;
	}
	goto fail; /* rc = USMP_OK: keep the advice */
none:
	free(out->buf);
	free(out->pool);
	memset(out, 0, sizeof *out);
fail:
	if (rc) {
		free(out->buf);
		free(out->pool);
		memset(out, 0, sizeof *out);
	}
	free(s.T);
	free(s.Lp);
	free(s.Lq);
	free(s.set);
	free(s.cand);
	free(s.moved_to);
	free(s.score);
	return rc;
}

/* ---- recording on the plan ------------------------------------------------ */

void usmp__infeasible_free(usmp__infeasible *w)
{
	if (!w)
		return;
	free(w->buffers);
	free(w->pools);
	free(w->move_buffers);
	free(w->move_pools);
	free(w->algorithm);
	free(w);
}

int usmp_plan_infeasibility(const usmp_plan *plan, usmp_infeasibility *out)
{
	if (!plan || !out || out->struct_size < 2 * sizeof(uint32_t))
		return USMP_ERR_INVALID;
	if (!plan->infeasible || plan->status != USMP_ERR_INFEASIBLE)
		return USMP_ERR_NOT_FOUND;
	usmp_infeasibility full = plan->infeasible->info;
	full.struct_size = out->struct_size;
	size_t n = out->struct_size < sizeof full ? out->struct_size : sizeof full;
	memcpy(out, &full, n);
	return USMP_OK;
}

static void sb_pools(sbuf *m, const usmp_problem *p, const usmp__view_store *vs,
                     const uint32_t *pools, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		sb_add(m, "%s\"%s\"", k ? ", " : "", p->pools[vs->pool_map[pools[k]]].name);
}

bool usmp__infeasible_never(const usmp_view *v)
{
	uint64_t top = 0, need = 0;
	for (uint32_t j = 0; j < v->pool_count; j++)
		if (v->pools[j].size_limit != USMP_UNBOUNDED)
			return false;
	/* Every movable buffer stacked above the highest fixed byte: its size
	 * and at most its alignment less one of padding each. */
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		uint64_t end;
		if (b->flags & USMP_BUFFER_FIXED) {
			if (__builtin_add_overflow(b->fixed_offset, b->size, &end))
				return false;
			top = end > top ? end : top;
			continue;
		}
		uint32_t pool = v->candidates[b->candidate_start];
		uint64_t pad = usmp_buffer_alignment(v, i, pool) - 1;
		if (__builtin_add_overflow(need, b->size, &need) ||
		    __builtin_add_overflow(need, pad, &need))
			return false;
	}
	uint64_t all;
	return !__builtin_add_overflow(top, need, &all);
}

/* The limit the honest message compares the bound with: the part's pools. */
static uint64_t part_limit(const usmp_view *v)
{
	usmp__wide all = {0, 0};
	for (uint32_t j = 0; j < v->pool_count; j++)
		usmp__wide_add(&all, limit_of(v, j));
	return usmp__wide_min(all, UINT64_MAX);
}

static void sb_part_pools(sbuf *m, const usmp_problem *p,
                          const usmp__view_store *vs)
{
	const usmp_view *v = &vs->view;
	sb_add(m, "the limit (");
	sb_limit(m, part_limit(v));
	sb_add(m, ") of pool%s ", v->pool_count > 1 ? "s" : "");
	for (uint32_t j = 0; j < v->pool_count; j++)
		sb_add(m, "%s\"%s\"", j ? ", " : "", p->pools[vs->pool_map[j]].name);
}

/* The certificate's sentence. */
static void sb_cert(sbuf *m, const usmp_problem *p, const usmp__view_store *vs,
                    const cert *c, uint64_t bound, const char *algo)
{
	const usmp_view *v = &vs->view;
	uint64_t limit = usmp__wide_min(c->limit, UINT64_MAX);
	const char *pool = c->pool != NONE ? p->pools[vs->pool_map[c->pool]].name : "";
	switch (c->kind) {
	case USMP_INFEASIBLE_STEP: {
		const usmp_buffer_rec *big = &v->buffers[c->buffers[0]];
		if (c->pool != NONE) {
			sb_add(m, "at step %lld the buffers live that may use only pool "
			       "\"%s\" need %s%llu byte%s%s, more than its limit (",
			       (long long)c->step, pool, c->saturated ? "more than " : "",
			       (unsigned long long)c->total,
			       usmp__s(c->saturated ? 2 : c->total),
			       c->rules ? " even sharing what overlap rules allow" : "");
		} else {
			sb_add(m, "at step %lld the buffers live need %s%llu byte%s%s, "
			       "more than the pools they may use (", (long long)c->step,
			       c->saturated ? "more than " : "", (unsigned long long)c->total,
			       usmp__s(c->saturated ? 2 : c->total),
			       c->rules ? " even sharing what overlap rules allow" : "");
			sb_pools(m, p, vs, c->pools, c->npool);
			sb_add(m, ") hold together (");
		}
		sb_limit(m, limit);
		sb_add(m, ")");
		if (!c->saturated && limit != USMP_UNBOUNDED && c->total > limit)
			sb_add(m, " by %llu byte%s",
			       (unsigned long long)(c->total - limit),
			       usmp__s(c->total - limit));
		sb_add(m, "; the largest of the %u is \"%s\" (%llu byte%s)", c->nbuf,
		       big->name, (unsigned long long)big->size,
		       usmp__s(big->size));
		/* The others live there, largest first, so that a model that
		 * misses can be cut where it peaks. */
		uint32_t shown = c->nbuf < 8 ? c->nbuf : 8;
		for (uint32_t k = 1; k < shown; k++)
			sb_add(m, "%s\"%s\" (%llu byte%s)", k == 1 ? ", then " : ", ",
			       v->buffers[c->buffers[k]].name,
			       (unsigned long long)v->buffers[c->buffers[k]].size,
			       usmp__s(v->buffers[c->buffers[k]].size));
		if (c->nbuf > shown)
			sb_add(m, " and %u more", c->nbuf - shown);
		break;
	}
	case USMP_INFEASIBLE_BUFFER: {
		const usmp_buffer_rec *b = &v->buffers[c->buffers[0]];
		sb_add(m, "buffer \"%s\" (%llu byte%s) is larger than every pool "
		       "it may use (the largest, \"%s\", holds ", b->name,
		       (unsigned long long)b->size, usmp__s(b->size), pool);
		sb_limit(m, limit);
		sb_add(m, ")");
		break;
	}
	case USMP_INFEASIBLE_BOUND:
		sb_add(m, "the lower bound of the group (%llu byte%s) exceeds what "
		       "its pools (", (unsigned long long)bound, usmp__s(bound));
		sb_pools(m, p, vs, c->pools, c->npool);
		sb_add(m, ") hold together (");
		sb_limit(m, limit);
		sb_add(m, ")");
		break;
	case USMP_INFEASIBLE_SEARCH:
		sb_add(m, "%s's search proved that no placement of the buffers fits "
		       "%s, although the lower bound (%llu) does", algo,
		       v->pool_count > 1 ? "the pools" : "the pool",
		       (unsigned long long)bound);
		break;
	default:
		break;
	}
	if (c->kind != USMP_INFEASIBLE_SEARCH && c->kind != USMP_INFEASIBLE_BOUND)
		sb_add(m, "; the lower bound of the group is %llu byte%s",
		       (unsigned long long)bound, usmp__s(bound));
}

static void sb_advice(sbuf *m, const usmp_problem *p, const advice *a,
                      const char *pool)
{
	if (!a->count)
		return;
	sb_add(m, ". Spill advice: let ");
	for (uint32_t k = 0; k < a->count; k++) {
		const usmp__buffer *b = &p->buffers[a->buf[k]];
		sb_add(m, "%s\"%s\" (%llu byte%s) use pool \"%s\"",
		       k == 0 ? "" : k + 1 == a->count ? " and " : ", ", b->name,
		       (unsigned long long)b->size, usmp__s(b->size),
		       p->pools[a->pool[k]].name);
	}
	sb_add(m, ": then no step needs more of pool \"%s\" than its limit "
	       "(each pool named has room for them)", pool);
}

/* Build the public record; takes the arrays of c (mapped to problem ids). */
static int record(usmp_plan *plan, const usmp__view_store *vs, cert *c,
                  advice *a, uint32_t group, uint64_t bound, const char *algo)
{
	usmp__infeasible *w = calloc(1, sizeof *w);
	if (!w)
		return USMP_ERR_NOMEM;
	for (uint32_t k = 0; k < c->nbuf; k++)
		c->buffers[k] = vs->buffer_map[c->buffers[k]];
	for (uint32_t k = 0; k < c->npool; k++)
		c->pools[k] = vs->pool_map[c->pools[k]];
	w->buffers = c->buffers;
	w->pools = c->pools;
	c->buffers = c->pools = NULL;
	w->move_buffers = a->buf;
	w->move_pools = a->pool;
	a->buf = a->pool = NULL;
	w->algorithm = usmp__strdup(algo);
	usmp_infeasibility *i = &w->info;
	i->struct_size = sizeof *i;
	i->kind = (uint32_t)c->kind;
	i->pool = c->pool != NONE ? vs->pool_map[c->pool] : USMP_NO_POOL;
	i->group = group;
	i->limit = usmp__wide_min(c->limit, UINT64_MAX);
	i->bound = bound;
	i->step = c->kind == USMP_INFEASIBLE_STEP ? c->step : 0;
	i->total = c->total;
	i->buffer_count = c->nbuf;
	i->pool_count = c->npool;
	i->buffers = w->buffers;
	i->pools = w->pools;
	i->move_count = a->count;
	i->move_buffers = w->move_buffers;
	i->move_pools = w->move_pools;
	i->algorithm = w->algorithm ? w->algorithm : "";
	usmp__infeasible_free(plan->infeasible);
	plan->infeasible = w;
	return USMP_OK;
}

/* The part's pools as the certificate's pools (UNPROVEN, SEARCH). */
static int whole_part(const usmp_view *v, cert *c)
{
	c->limit = (usmp__wide){0, part_limit(v)};
	return all_pools(v, c);
}

int usmp__infeasible_explain(usmp_problem *p, const usmp__view_store *vs,
                             uint32_t group, const char *algo, int st,
                             unsigned flags, const char *why, usmp_plan *plan)
{
	const usmp_view *v = &vs->view;
	uint64_t bound = v->lower_bound;
	cert c;
	advice a;
	sbuf m = {0};
	memset(&a, 0, sizeof a);
	int rc = certify(v, &c);
	if (rc)
		goto nomem;
	if (!c.kind && st != USMP_ERR_INFEASIBLE) {
		cert_free(&c);
		return USMP_OK; /* stopped, and no proof either way */
	}
	if (!c.kind && (flags & USMP__WHY_RULES_AS_CONFLICTS)) {
		/* exact planned the rules as conflicts: its proof is about
		 * another, stricter problem. Not infeasible: a capability gap. */
		sb_add(&m, "%s found no plan while treating the %llu overlap rule%s "
		       "as plain conflicts, which proves nothing about the rules; "
		       "the lower bound (%llu) fits ", algo,
		       (unsigned long long)v->overlap_count,
		       usmp__s(v->overlap_count), (unsigned long long)bound);
		sb_part_pools(&m, p, vs);
		sb_add(&m, ", so a plan that shares bytes as the rules allow may "
		       "exist: use an algorithm with the overlap-rules capability "
		       "(first_fit, best_fit, auto)");
		cert_free(&c);
		if (m.oom)
			goto nomem;
		usmp__plan_set_error(plan, USMP_ERR_UNSUPPORTED, m.s);
		free(m.s);
		return USMP_ERR_UNSUPPORTED;
	}
	if (!c.kind) {
		c.kind = (flags & USMP__WHY_PROVEN) ? USMP_INFEASIBLE_SEARCH
		                                    : USMP_INFEASIBLE_UNPROVEN;
		if (whole_part(v, &c))
			goto nomem;
	}
	if ((c.kind == USMP_INFEASIBLE_STEP || c.kind == USMP_INFEASIBLE_BUFFER) &&
	    c.pool != NONE && spill(p, vs, &c, &a))
		goto nomem;
	if (c.kind == USMP_INFEASIBLE_UNPROVEN) {
		sb_add(&m, "no plan found by %s", algo);
		if (why && *why)
			sb_add(&m, " (%s)", why);
		/* A pair it failed to fit may fit as its rule allows. */
		if (flags & USMP__WHY_RULES_PLAIN)
			sb_add(&m, "; it planned the %llu overlap rule%s as %s "
			       "(it lacks the overlap-rules capability; first_fit, "
			       "best_fit, exact and auto honour rules)",
			       (unsigned long long)v->overlap_count,
			       v->overlap_count == 1 ? "" : "s",
			       v->overlap_count == 1 ? "a plain conflict"
			                             : "plain conflicts");
		sb_add(&m, "; the lower bound (%llu) fits ", (unsigned long long)bound);
		sb_part_pools(&m, p, vs);
		if (flags & USMP__WHY_KNOB_LIMIT)
			sb_add(&m, ", so a plan may exist: its capacity knob asks for "
			       "less (raise it, or 0 for the pool's limit)");
		else if (v->pool_count == 1)
			sb_add(&m, ", so a plan may exist: try -a exact or a longer "
			       "--time-limit");
		else /* exact searches several pools too, and proves */
			sb_add(&m, ", so a plan may exist: try -a exact (it "
			       "searches every pool and proves when none fits) or "
			       "a longer --time-limit");
	} else {
		sb_add(&m, "%s: no plan fits the pools: ", algo);
		if (why && *why)
			sb_add(&m, "%s; ", why);
		sb_cert(&m, p, vs, &c, bound, algo);
		if (c.pool != NONE)
			sb_advice(&m, p, &a, p->pools[vs->pool_map[c.pool]].name);
	}
	if (m.oom)
		goto nomem;
	rc = record(plan, vs, &c, &a, group, bound, algo);
	if (rc)
		goto nomem;
	usmp__plan_set_error(plan, USMP_ERR_INFEASIBLE, m.s);
	free(m.s);
	cert_free(&c);
	return USMP_ERR_INFEASIBLE;
nomem:
	free(m.s);
	cert_free(&c);
	free(a.buf);
	free(a.pool);
	usmp__set_msg(&plan->error, "%s: no plan found (out of memory while "
	              "explaining why)", algo);
	plan->status = st;
	return st;
}

/* ---- fixed placements ----------------------------------------------------- */

int usmp__infeasible_fixed(usmp_problem *p, const usmp__view_store *vs,
                           uint32_t group, const char *algo, usmp_plan *plan)
{
	const usmp_view *v = &vs->view;
	uint32_t *ids = NULL, k = 0;
	usmp_placement *pl = NULL;
	usmp__view_store sub;
	char *msg = NULL;
	int st = USMP_OK;
	memset(&sub, 0, sizeof sub);
	for (uint32_t i = 0; i < v->buffer_count; i++)
		k += (v->buffers[i].flags & USMP_BUFFER_FIXED) != 0;
	if (k < 2)
		return USMP_OK;
	ids = malloc(k * sizeof *ids);
	if (!ids)
		goto nomem;
	k = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			ids[k++] = vs->buffer_map[i]; /* ascending, as the view's */
	st = usmp__view_build(p, ids, k, &sub, &msg);
	if (st) {
		usmp__plan_set_error(plan, st, msg ? msg : "cannot build view");
		goto out;
	}
	pl = malloc(k * sizeof *pl);
	if (!pl)
		goto nomem;
	for (uint32_t i = 0; i < k; i++)
		pl[i] = (usmp_placement){sub.view.buffers[i].fixed_pool, 0,
		                         sub.view.buffers[i].fixed_offset};
	/* The verifier's sweep finds the pair in O(k log k); a search of
	 * every two fixed buffers took hours at a million. */
	uint32_t pair[2] = {NONE, NONE};
	if (!usmp__verify_pair(&sub.view, pl, &msg, pair))
		goto out;
	/* The pair, in the part's view: the sub-view keeps the fixed
	 * buffers in the part view's order. */
	for (uint32_t i = 0, j = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			ids[j++] = i;
	uint32_t a = pair[0] < k ? ids[pair[0]] : NONE;
	uint32_t b = pair[1] < k ? ids[pair[1]] : NONE;
	cert c;
	advice none;
	memset(&c, 0, sizeof c);
	memset(&none, 0, sizeof none);
	c.kind = USMP_INFEASIBLE_FIXED;
	c.pool = NONE;
	if (a != NONE && b != NONE) {
		c.pool = v->buffers[a].fixed_pool;
		c.limit = (usmp__wide){0, limit_of(v, c.pool)};
		c.buffers = malloc(2 * sizeof *c.buffers);
		c.pools = malloc(sizeof *c.pools);
		if (!c.buffers || !c.pools) {
			cert_free(&c);
			goto nomem;
		}
		c.buffers[c.nbuf++] = a;
		c.buffers[c.nbuf++] = b;
		c.pools[c.npool++] = c.pool;
	}
	sbuf m = {0};
	sb_add(&m, "the fixed placements clash: %s", msg ? msg : "?");
	if (c.pool != NONE) {
		sb_add(&m, " (pool \"%s\", limit ", p->pools[vs->pool_map[c.pool]].name);
		sb_limit(&m, limit_of(v, c.pool));
		sb_add(&m, "; the lower bound of the group is %llu byte%s)",
		       (unsigned long long)v->lower_bound,
		       usmp__s(v->lower_bound));
	}
	if (m.oom || record(plan, vs, &c, &none, group, v->lower_bound, algo)) {
		free(m.s);
		cert_free(&c);
		goto nomem;
	}
	cert_free(&c);
	usmp__plan_set_error(plan, USMP_ERR_INFEASIBLE, m.s);
	free(m.s);
	st = USMP_ERR_INFEASIBLE;
	goto out;
nomem:
	st = usmp__plan_set_error(plan, USMP_ERR_NOMEM, "out of memory");
out:
	usmp__free_msg(&msg);
	free(pl);
	free(ids);
	usmp__view_finish(&sub);
	return st;
}
