/* infeasible_cert.c — the certificate that a part has no plan, computed from its
 * view alone: a buffer too large, a step too full, the bound too high. */
#include "infeasible.h"

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
 */

#define NONE UINT32_MAX

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

/* ---- rule partners -------------------------------------------------------- */

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
		uint64_t sh = usmp__rule_share(v->buffers[o->src].size,
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
static int find_step(const usmp_view *v, usmp__cert *c)
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
	c->need = b->net;
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
int usmp__infeasible_all_pools(const usmp_view *v, usmp__cert *c)
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
int usmp__infeasible_certify(const usmp_view *v, usmp__cert *c)
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
		return usmp__infeasible_all_pools(v, c);
	}
	return USMP_OK;
}

bool usmp__infeasible_plain(const usmp_view *v)
{
	usmp__wide all = {0, 0};
	for (uint32_t j = 0; j < v->pool_count; j++)
		usmp__wide_add(&all, limit_of(v, j));
	if (wide_gt((usmp__wide){0, v->lower_bound}, all))
		return true;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		uint32_t np;
		const uint32_t *ps = pools_of(v, i, &np);
		bool fits = false;
		for (uint32_t k = 0; k < np && !fits; k++)
			fits = ps[k] < v->pool_count &&
			       v->buffers[i].size <= limit_of(v, ps[k]);
		if (!fits && np)
			return true;
	}
	return false;
}

void usmp__cert_free(usmp__cert *c)
{
	free(c->buffers);
	free(c->pools);
}
