/* bound.c — lower bounds on the memory any valid plan needs (a sweep over
 * time, less what overlap rules could share), and the pool groups they hold for. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

/*
 * Why the bound is true.
 *
 * Let S be a set of buffers all alive at one time t. Any two of them
 * conflict, so in a valid plan they share no byte unless an overlap rule
 * joins them (and then both sit in the same pool). The sum of the pools'
 * high-water marks is at least the size of the union U of their byte ranges
 * (bytes being (pool, address) pairs). For a byte covered c >= 1 times,
 * sum(size) - |U| counts it c - 1 times. Fix any order of the buffers and
 * charge each covered byte to every buffer covering it except the first in
 * that order: a buffer i is charged only for bytes that an earlier rule
 * partner j also covers, so at most
 *
 *     charge(i) = min(size(i), sum over earlier rule partners j in S of share(i, j))
 *
 * where share(i, j) is the largest overlap any placement allowed by their
 * rules can give (below). Hence |U| >= sum(size) - sum(charge). This is
 * never weaker than subtracting every pair's share (Bonferroni), and a
 * buffer in many rules is charged at most its own size: a source read in
 * place by k outputs that conflict with each other costs k outputs, not one.
 * The order used is (number of rule partners, index): hubs come last.
 *
 * The sweep adds buffers at their begin and removes them at their end (ends
 * first at equal times: ranges are half-open). Every state it passes through
 * is a set of buffers alive together, so every value seen is a true bound;
 * the bound is the largest. Two more true bounds join by max: the largest
 * buffer, and for an explicit conflict edge the sum of its two sizes less
 * their share. Buffers without a live range count only through these.
 *
 * share for a rule (src, dst, L): with d = offset(dst) - offset(src) <= L,
 * the overlap of [d, d + s_dst) with [0, s_src) peaks at min(s_src, s_dst)
 * for d in [min(0, s_src - s_dst), max(0, s_src - s_dst)]; it rises with d
 * below that range. So for L >= 0 the share is min(s_src, s_dst), and for
 * L < 0 it is min(s_src, max(0, s_dst + L)). A pair with rules both ways
 * shares the larger of the two.
 *
 * Sums are kept exactly in 128 bits (two words) and saturate to UINT64_MAX
 * when read.
 */


typedef struct bitem {
	uint64_t size;
	int64_t begin, end;
	uint32_t live, group;
	unsigned char lev; /* log2 of a_i (the aligned sweep) */
} bitem;

typedef struct bpair {
	uint32_t a, b; /* a < b */
	uint64_t share;
} bpair;

uint64_t usmp__rule_share(uint64_t s_src, uint64_t s_dst, int64_t lead)
{
	uint64_t m = s_src < s_dst ? s_src : s_dst;
	if (lead >= 0)
		return m;
	uint64_t back = (uint64_t)(-(lead + 1)) + 1; /* |lead|, INT64_MIN safe */
	uint64_t room = s_dst > back ? s_dst - back : 0;
	return room < s_src ? room : s_src;
}

/* Unordered rule pairs between buffers of the same group, sorted by (a, b),
 * one per pair with the larger share; pairs that can share nothing dropped. */
static int make_pairs(const bitem *it, uint32_t n, const usmp_overlap_rec *ov,
                      uint64_t m, bpair **out, size_t *count)
{
	int rc = USMP_ERR_NOMEM;
	uint64_t *keys = NULL;
	uint32_t *idx = NULL;
	bpair *pr = NULL;
	*out = NULL;
	*count = 0;
	if (m > UINT32_MAX)
		return USMP_ERR_INVALID;
	size_t sz = m ? (size_t)m : 1;
	keys = malloc(sz * sizeof *keys);
	idx = malloc(sz * sizeof *idx);
	pr = malloc(sz * sizeof *pr);
	if (!keys || !idx || !pr)
		goto fail;
	size_t k = 0;
	for (uint64_t r = 0; r < m; r++) {
		uint32_t s = ov[r].src, d = ov[r].dst;
		if (s >= n || d >= n || s == d || it[s].group != it[d].group)
			continue;
		uint32_t a = s < d ? s : d, b = s < d ? d : s;
		keys[k] = (uint64_t)a << 32 | b;
		idx[k++] = (uint32_t)r;
	}
	if ((rc = usmp__sort_pairs(keys, idx, k)) != USMP_OK)
		goto fail;
	size_t w = 0;
	for (size_t i = 0; i < k; i++) {
		const usmp_overlap_rec *o = &ov[idx[i]];
		uint64_t sh = usmp__rule_share(it[o->src].size, it[o->dst].size,
		                         o->max_lead);
		uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
		if (w && pr[w - 1].a == a && pr[w - 1].b == b) {
			if (sh > pr[w - 1].share)
				pr[w - 1].share = sh;
		} else {
			pr[w].a = a;
			pr[w].b = b;
			pr[w++].share = sh;
		}
	}
	size_t w2 = 0;
	for (size_t i = 0; i < w; i++)
		if (pr[i].share)
			pr[w2++] = pr[i];
	*out = pr;
	*count = w2;
	pr = NULL;
	rc = USMP_OK;
fail:
	free(keys);
	free(idx);
	free(pr);
	return rc;
}

static uint64_t pair_share(const bpair *pr, size_t np, uint32_t x, uint32_t y)
{
	uint32_t a = x < y ? x : y, b = x < y ? y : x;
	size_t lo = 0, hi = np;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pr[mid].a < a || (pr[mid].a == a && pr[mid].b < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < np && pr[lo].a == a && pr[lo].b == b ? pr[lo].share : 0;
}

/* best[g] = max(best[g], the edge pair term of edge (a, b)). */
static void edge_term(const bitem *it, const bpair *pr, size_t np, uint32_t a,
                      uint32_t b, uint64_t *best)
{
	if (it[a].group != it[b].group)
		return;
	usmp__wide w = { 0, it[a].size };
	usmp__wide_add(&w, it[b].size);
	usmp__wide_sub(&w, pair_share(pr, np, a, b));
	uint64_t v = usmp__wide_min(w, UINT64_MAX);
	if (v > best[it[a].group])
		best[it[a].group] = v;
}

/* Rule partners as a CSR with shares, and the charging order. */
typedef struct rules {
	uint64_t *start; /* partners of i: nb/sh[start[i]..start[i+1]) */
	uint32_t *nb;
	uint64_t *sh;
	uint32_t *rank; /* position of i in (rule partners, index) order */
} rules;

static void rules_free(rules *r)
{
	free(r->start);
	free(r->nb);
	free(r->sh);
	free(r->rank);
}

static int rules_build(rules *r, uint32_t n, const bpair *pr, size_t np)
{
	int rc = USMP_ERR_NOMEM;
	size_t sz = n ? n : 1;
	uint64_t *keys = NULL;
	uint32_t *ids = NULL;
	memset(r, 0, sizeof *r);
	r->start = calloc(sz + 1, sizeof *r->start);
	r->nb = malloc((np ? 2 * np : 1) * sizeof *r->nb);
	r->sh = malloc((np ? 2 * np : 1) * sizeof *r->sh);
	r->rank = malloc(sz * sizeof *r->rank);
	keys = malloc(sz * sizeof *keys);
	ids = malloc(sz * sizeof *ids);
	if (!r->start || !r->nb || !r->sh || !r->rank || !keys || !ids)
		goto fail;
	for (size_t e = 0; e < np; e++) {
		r->start[pr[e].a + 1]++;
		r->start[pr[e].b + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		r->start[i + 1] += r->start[i];
	uint64_t *cur = keys; /* borrowed as cursors */
	memcpy(cur, r->start, (size_t)n * sizeof *cur);
	for (size_t e = 0; e < np; e++) {
		r->nb[cur[pr[e].a]] = pr[e].b;
		r->sh[cur[pr[e].a]++] = pr[e].share;
		r->nb[cur[pr[e].b]] = pr[e].a;
		r->sh[cur[pr[e].b]++] = pr[e].share;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t deg = r->start[i + 1] - r->start[i];
		keys[i] = (deg > UINT32_MAX ? UINT32_MAX : deg) << 32 | i;
		ids[i] = i;
	}
	/* Without rules every degree is 0: the order is the index order. */
	if (np && (rc = usmp__sort_pairs(keys, ids, n)) != USMP_OK)
		goto fail;
	for (uint32_t k = 0; k < n; k++)
		r->rank[ids[k]] = k;
	free(keys);
	free(ids);
	return USMP_OK;
fail:
	free(keys);
	free(ids);
	rules_free(r);
	memset(r, 0, sizeof *r);
	return rc;
}

/*
 * Alignment. A buffer i of group g sits, in whichever pool q, at a multiple
 * of max(its alignment, q's) (the verifier's rule), hence at a multiple of
 * a_i = max(its alignment, the group's smallest pool alignment): powers of
 * two. Take any level M = 2^k and the buffers alive together with a_i >= M.
 * In one pool, with no rule to share bytes, they sit one above the other:
 * sorted by offset, o' >= o + s with o and o' multiples of M, so o' >= o +
 * roundup(s, M). The pool's high-water mark is therefore at least the sum
 * of roundup(s, M) of those in it less the top one's slack roundup(s, M) -
 * s; over the group's P pools the sum of high-water marks is at least
 * sum(roundup(s, M)) - P * sigma(M), sigma(M) the largest slack at M of the
 * group's live buffers with a_i >= M. The sweep keeps, per group and per
 * level k some live buffer of the group has (at most 64), that sum over the
 * buffers alive with a_i >= 2^k, and takes the largest value. Only groups
 * with a buffer with a_i > 1 and no rule pair are swept, and only when
 * there are at most ALIGN_GROUPS groups and ALIGN_BUFFERS buffers (a weaker
 * bound otherwise, never a wrong one: on a million aligned buffers the
 * steps would add ~25 % to the bound's time). MiniMalloc's and XLA's CSVs
 * have alignment 1: one pass over the buffers there. It rides on the
 * sweep's sorted events (sweep_run).
 */
enum { ALIGN_GROUPS = 4096, ALIGN_LEVELS = 64, ALIGN_BUFFERS = 1u << 18 };

typedef struct alevels {
	unsigned char *ok;  /* [g]: g is swept */
	uint64_t *mask;     /* [g]: levels present among g's live buffers */
	usmp__wide *acc;    /* [g * 64 + k]: sum of roundup(s, 2^k), live, a_i >= 2^k */
	uint64_t *sub;      /* [g * 64 + k]: P * sigma(2^k), UINT64_MAX: unusable */
} alevels;

/* The index of the lowest set bit of x != 0 (portable C11). */
static unsigned low_bit(uint64_t x)
{
	unsigned k = 0;
	while (!(x & 1)) {
		x >>= 1;
		k++;
	}
	return k;
}

static uint64_t round_slack(uint64_t size, unsigned k)
{
	uint64_t a = (uint64_t)1 << k;
	return (a - (size & (a - 1))) & (a - 1);
}

/* Add (dir > 0) or remove buffer j; on add, raise best[g]. */
static void aligned_step(const bitem *it, alevels *L, uint32_t j, int dir,
                         uint64_t *best)
{
	uint32_t g = it[j].group;
	size_t base = (size_t)g * ALIGN_LEVELS;
	for (uint64_t m = L->mask[g]; m; m &= m - 1) {
		unsigned k = low_bit(m);
		if (k > it[j].lev)
			break;
		usmp__wide *acc = &L->acc[base + k];
		uint64_t sl = round_slack(it[j].size, k);
		if (dir < 0) {
			usmp__wide_sub(acc, it[j].size);
			usmp__wide_sub(acc, sl);
			continue;
		}
		usmp__wide_add(acc, it[j].size);
		usmp__wide_add(acc, sl);
		uint64_t sub = L->sub[base + k];
		if (sub != UINT64_MAX && (acc->hi || acc->lo >= sub)) {
			usmp__wide w = *acc;
			usmp__wide_sub(&w, sub);
			uint64_t v = usmp__wide_min(w, UINT64_MAX);
			if (v > best[g])
				best[g] = v;
		}
	}
}

/* Per group: whether it is swept (ok), its levels (mask) and P * sigma. */
static bool aligned_setup(const bitem *it, uint32_t n, const bpair *pr,
                          size_t np, uint32_t groups, const uint32_t *gpools,
                          unsigned char *ok, alevels *L)
{
	bool any = false;
	for (uint32_t g = 0; g < groups; g++)
		ok[g] = 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned k = it[i].lev;
		if (it[i].live)
			L->mask[it[i].group] |= (uint64_t)1 << k;
		if (k > 0 && gpools[it[i].group])
			ok[it[i].group] = 1;
	}
	for (size_t e = 0; e < np; e++)
		ok[it[pr[e].a].group] = 0;
	uint64_t *sigma = L->sub; /* sigma first, then P * sigma in place */
	memset(sigma, 0, (size_t)groups * ALIGN_LEVELS * sizeof *sigma);
	for (uint32_t i = 0; i < n; i++) {
		size_t base = (size_t)it[i].group * ALIGN_LEVELS;
		if (!it[i].live || !ok[it[i].group])
			continue;
		for (uint64_t m = L->mask[it[i].group]; m; m &= m - 1) {
			unsigned k = low_bit(m);
			if (k > it[i].lev)
				break; /* never live when M = 2^k: above its a_i */
			uint64_t sl = round_slack(it[i].size, k);
			if (sl > sigma[base + k])
				sigma[base + k] = sl;
		}
	}
	for (uint32_t g = 0; g < groups; g++) {
		size_t base = (size_t)g * ALIGN_LEVELS;
		for (unsigned k = 0; k < ALIGN_LEVELS; k++) {
			uint64_t sg = sigma[base + k];
			L->sub[base + k] = sg && gpools[g] > UINT64_MAX / sg
			                   ? UINT64_MAX : gpools[g] * sg;
		}
		any = any || ok[g];
	}
	return any;
}

/* Set up L for the groups to sweep; false when none is (or out of memory:
 * a weaker bound, still true). aligned_end frees L either way. */
static bool aligned_begin(const bitem *it, uint32_t n, const bpair *pr,
                          size_t np, uint32_t groups, const uint32_t *gpools,
                          alevels *L)
{
	size_t gs = groups ? groups : 1, gl = gs * ALIGN_LEVELS;
	memset(L, 0, sizeof *L);
	if (groups > ALIGN_GROUPS || n > ALIGN_BUFFERS)
		return false;
	L->ok = malloc(gs);
	L->mask = calloc(gs, sizeof *L->mask);
	L->acc = calloc(gl, sizeof *L->acc);
	L->sub = malloc(gl * sizeof *L->sub);
	if (!L->ok || !L->mask || !L->acc || !L->sub)
		return false;
	return aligned_setup(it, n, pr, np, groups, gpools, L->ok, L);
}

static void aligned_end(alevels *L)
{
	free(L->ok);
	free(L->mask);
	free(L->acc);
	free(L->sub);
}

typedef struct sweep {
	const bitem *it;
	const rules *r;
	usmp__wide *acc; /* sum of shares with alive earlier partners */
	unsigned char *alive;
	usmp__wide *net; /* per group: sum(size) - sum(charge) of alive buffers */
	uint64_t *best;
} sweep;

static void sweep_enter(sweep *s, uint32_t j)
{
	const bitem *it = s->it;
	const rules *r = s->r;
	usmp__wide *net = &s->net[it[j].group];
	usmp__wide acc = { 0, 0 };
	for (uint64_t e = r->start[j]; e < r->start[j + 1]; e++) {
		uint32_t i = r->nb[e];
		if (!s->alive[i])
			continue;
		if (r->rank[i] < r->rank[j]) {
			usmp__wide_add(&acc, r->sh[e]);
		} else {
			uint64_t old = usmp__wide_min(s->acc[i], it[i].size);
			usmp__wide_add(&s->acc[i], r->sh[e]);
			usmp__wide_sub(net, usmp__wide_min(s->acc[i], it[i].size) - old);
		}
	}
	s->acc[j] = acc;
	s->alive[j] = 1;
	usmp__wide_add(net, it[j].size - usmp__wide_min(acc, it[j].size));
	uint64_t v = usmp__wide_min(*net, UINT64_MAX);
	if (v > s->best[it[j].group])
		s->best[it[j].group] = v;
}

static void sweep_leave(sweep *s, uint32_t j)
{
	const bitem *it = s->it;
	const rules *r = s->r;
	usmp__wide *net = &s->net[it[j].group];
	s->alive[j] = 0;
	usmp__wide_sub(net, it[j].size - usmp__wide_min(s->acc[j], it[j].size));
	for (uint64_t e = r->start[j]; e < r->start[j + 1]; e++) {
		uint32_t i = r->nb[e];
		if (!s->alive[i] || r->rank[i] < r->rank[j])
			continue;
		uint64_t old = usmp__wide_min(s->acc[i], it[i].size);
		usmp__wide_sub(&s->acc[i], r->sh[e]);
		usmp__wide_add(net, old - usmp__wide_min(s->acc[i], it[i].size));
	}
}

/* Raise best[g] to the sweep bound of each group g. */
static int sweep_run(const bitem *it, uint32_t n, const rules *r,
                     uint32_t groups, alevels *L, uint64_t *best)
{
	int rc = USMP_ERR_NOMEM;
	sweep s = { .it = it, .r = r, .best = best };
	uint64_t *bk = NULL, *ek = NULL;
	uint32_t *bv = NULL, *ev = NULL;
	size_t sz = n ? n : 1;
	s.acc = calloc(sz, sizeof *s.acc);
	s.alive = calloc(sz, 1);
	s.net = calloc(groups ? groups : 1, sizeof *s.net);
	bk = malloc(sz * sizeof *bk);
	ek = malloc(sz * sizeof *ek);
	bv = malloc(sz * sizeof *bv);
	ev = malloc(sz * sizeof *ev);
	if (!s.acc || !s.alive || !s.net || !bk || !ek || !bv || !ev)
		goto fail;
	uint32_t live = 0;
	for (uint32_t i = 0; i < n; i++)
		if (it[i].live) {
			bk[live] = usmp__time_key(it[i].begin);
			ek[live] = usmp__time_key(it[i].end);
			bv[live] = ev[live] = i;
			live++;
		}
	if ((rc = usmp__sort_pairs(bk, bv, live)) != USMP_OK ||
	    (rc = usmp__sort_pairs(ek, ev, live)) != USMP_OK)
		goto fail;
	/* Without rule pairs a buffer's charge is 0: entering adds its size,
	 * leaving takes it away, and nothing else is read (one record a step
	 * instead of three; the same sums). */
	bool plain = !r->start[n];
	uint32_t bi = 0, ei = 0;
	while (bi < live) {
		bool leave = ei < live && ek[ei] <= bk[bi];
		uint32_t j = leave ? ev[ei++] : bv[bi++];
		if (plain) {
			usmp__wide *net = &s.net[it[j].group];
			if (leave) {
				usmp__wide_sub(net, it[j].size);
			} else {
				usmp__wide_add(net, it[j].size);
				uint64_t v = usmp__wide_min(*net, UINT64_MAX);
				if (v > best[it[j].group])
					best[it[j].group] = v;
			}
		} else if (leave) {
			sweep_leave(&s, j);
		} else {
			sweep_enter(&s, j);
		}
		if (L && L->ok[it[j].group])
			aligned_step(it, L, j, leave ? -1 : 1, best);
	}
	rc = USMP_OK;
fail:
	free(s.acc);
	free(s.alive);
	free(s.net);
	free(bk);
	free(ek);
	free(bv);
	free(ev);
	return rc;
}

/*
 * Cliques of explicit edges. A problem given as a conflict graph (TVM hands
 * over one) has no live ranges to sweep; any set of pairwise conflicting
 * buffers is bounded like the buffers alive at one time (same argument).
 * From each of the CLIQUE_STARTS largest buffers of a group with at least
 * two edges, a greedy clique takes its neighbours largest first, keeping
 * each that conflicts (edge or live range) with all taken so far; it scans
 * at most CLIQUE_SCAN neighbours and takes at most CLIQUE_MAX buffers, so
 * the pass costs O(n log n + edges log n) whatever the graph. Everything
 * depends only on the group's own buffers, edges and rules, so a group's
 * bound equals the bound of its view.
 */
enum { CLIQUE_STARTS = 16, CLIQUE_SCAN = 1024, CLIQUE_MAX = 64 };

/* The greedy clique from start v in group g, into taken[0..*c): v, then
 * its group neighbours largest first that conflict with all taken so far.
 * ck/cv: scratch of the largest degree. */
static int clique_grow(const bitem *it, const uint64_t *cs, const uint32_t *ca,
                       uint32_t v, uint32_t g, uint64_t *ck, uint32_t *cv,
                       uint32_t *taken, uint32_t *c)
{
	uint32_t d = 0;
	for (uint64_t e = cs[v]; e < cs[v + 1]; e++)
		if (it[ca[e]].group == g) {
			ck[d] = ~it[ca[e]].size;
			cv[d++] = ca[e];
		}
	int rc = usmp__sort_pairs(ck, cv, d);
	if (rc != USMP_OK)
		return rc;
	uint32_t k = 0;
	taken[k++] = v;
	for (uint32_t i = 0; i < d && i < CLIQUE_SCAN && k < CLIQUE_MAX; i++) {
		uint32_t u = cv[i];
		bool all = true;
		for (uint32_t t = 1; t < k && all; t++) {
			uint32_t w = taken[t];
			all = (it[u].live && it[w].live && it[u].begin < it[w].end &&
			       it[w].begin < it[u].end) ||
			      usmp__csr_has(cs, ca, u, w);
		}
		if (all)
			taken[k++] = u;
	}
	*c = k;
	return USMP_OK;
}

/* The bound of clique taken[0..c): sizes less charges, in the charging
 * order. Marks the clique in stamp with `mark` (fresh for this clique). */
static uint64_t clique_net(const bitem *it, const rules *r,
                           const uint32_t *taken, uint32_t c, uint32_t *stamp,
                           uint32_t mark)
{
	for (uint32_t t = 0; t < c; t++)
		stamp[taken[t]] = mark;
	usmp__wide net = { 0, 0 };
	for (uint32_t t = 0; t < c; t++) {
		uint32_t i = taken[t];
		usmp__wide acc = { 0, 0 };
		for (uint64_t e = r->start[i]; e < r->start[i + 1]; e++)
			if (stamp[r->nb[e]] == mark && r->rank[r->nb[e]] < r->rank[i])
				usmp__wide_add(&acc, r->sh[e]);
		usmp__wide_add(&net, it[i].size - usmp__wide_min(acc, it[i].size));
	}
	return usmp__wide_min(net, UINT64_MAX);
}

static int clique_run(const bitem *it, uint32_t n, const uint64_t *cs,
                      const uint32_t *ca, const rules *r, uint32_t groups,
                      uint64_t *best)
{
	int rc = USMP_ERR_NOMEM;
	uint64_t *keys = NULL, *ck = NULL;
	uint32_t *ids = NULL, *cv = NULL, *stamp = NULL, *taken = NULL;
	size_t *gfirst = NULL, *cur = NULL;
	uint64_t maxdeg = 0;
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = cs[i + 1] - cs[i];
		if (d > maxdeg)
			maxdeg = d;
	}
	if (maxdeg < 2)
		return USMP_OK;
	stamp = calloc(n, sizeof *stamp); /* first: eligible starts, by 1 */
	if (!stamp)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t same = 0; /* edges within the group: a view sees no others */
		for (uint64_t e = cs[i]; e < cs[i + 1] && same < 2; e++)
			same += it[ca[e]].group == it[i].group;
		if (same >= 2) {
			stamp[i] = 1;
			m++;
		}
	}
	if (m == 0) {
		rc = USMP_OK;
		goto fail;
	}
	keys = malloc((size_t)m * sizeof *keys);
	ids = malloc((size_t)m * sizeof *ids);
	ck = malloc((size_t)maxdeg * sizeof *ck);
	cv = malloc((size_t)maxdeg * sizeof *cv);
	taken = malloc(CLIQUE_MAX * sizeof *taken);
	gfirst = calloc((size_t)groups + 1, sizeof *gfirst);
	cur = malloc(((size_t)groups + 1) * sizeof *cur);
	if (!keys || !ids || !ck || !cv || !stamp || !taken || !gfirst || !cur)
		goto fail;
	/* Starts: per group, the largest buffers with two edges or more, ties
	 * by index (a stable sort by size, then a stable bucket pass by group). */
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (stamp[i]) {
			keys[k] = ~it[i].size;
			ids[k++] = i;
		}
	memset(stamp, 0, (size_t)n * sizeof *stamp);
	if ((rc = usmp__sort_pairs(keys, ids, m)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < m; i++)
		gfirst[it[ids[i]].group + 1]++;
	for (uint32_t g = 0; g < groups; g++)
		gfirst[g + 1] += gfirst[g];
	memcpy(cur, gfirst, ((size_t)groups + 1) * sizeof *cur);
	uint32_t *starts = (uint32_t *)keys; /* keys are no longer needed */
	for (uint32_t i = 0; i < m; i++)
		starts[cur[it[ids[i]].group]++] = ids[i];
	uint32_t mark = 0;
	for (uint32_t g = 0; g < groups; g++) {
		for (size_t si = gfirst[g];
		     si < gfirst[g + 1] && si < gfirst[g] + CLIQUE_STARTS; si++) {
			uint32_t c = 0;
			if ((rc = clique_grow(it, cs, ca, starts[si], g, ck, cv, taken,
			                      &c)) != USMP_OK)
				goto fail;
			if (c < 3)
				continue; /* pairs are counted edge by edge */
			if (++mark == 0) {
				memset(stamp, 0, (size_t)n * sizeof *stamp);
				mark = 1;
			}
			uint64_t val = clique_net(it, r, taken, c, stamp, mark);
			if (val > best[g])
				best[g] = val;
		}
	}
	rc = USMP_OK;
fail:
	free(keys);
	free(ids);
	free(ck);
	free(cv);
	free(stamp);
	free(taken);
	free(gfirst);
	free(cur);
	return rc;
}

/* Raise best[g] to every bound of group g but the largest buffer: edge
 * pairs, cliques of edges, the sweep, the aligned sweep. cs/ca: the edges
 * as a CSR, or NULL; gpools: each group's pool count. */
static int bound_all(const bitem *it, uint32_t n, const bpair *pr, size_t np,
                     const uint64_t *cs, const uint32_t *ca, uint32_t groups,
                     const uint32_t *gpools, uint64_t *best)
{
	rules r;
	int rc = rules_build(&r, n, pr, np);
	if (rc != USMP_OK)
		return rc;
	if (cs) {
		for (uint32_t a = 0; a < n; a++)
			for (uint64_t e = cs[a]; e < cs[a + 1]; e++)
				if (ca[e] > a && ca[e] < n)
					edge_term(it, pr, np, a, ca[e], best);
		rc = clique_run(it, n, cs, ca, &r, groups, best);
	}
	alevels L;
	bool al = aligned_begin(it, n, pr, np, groups, gpools, &L);
	if (rc == USMP_OK)
		rc = sweep_run(it, n, &r, groups, al ? &L : NULL, best);
	aligned_end(&L);
	rules_free(&r);
	return rc;
}

uint64_t usmp__lower_bound(const usmp_view *v)
{
	uint32_t n = v->buffer_count;
	uint64_t best = 0;
	bitem *it = malloc((n ? n : 1) * sizeof *it);
	bpair *pr = NULL;
	size_t np = 0;
	for (uint32_t i = 0; i < n; i++)
		if (v->buffers[i].size > best)
			best = v->buffers[i].size;
	if (!it)
		goto fail; /* out of memory: the largest buffer is still true */
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *r = &v->buffers[i];
		it[i].size = r->size;
		it[i].begin = r->begin;
		it[i].end = r->end;
		it[i].live = (r->flags & USMP_BUFFER_LIVE) && r->end > r->begin;
		it[i].group = 0;
	}
	if (make_pairs(it, n, v->overlaps, v->overlaps ? v->overlap_count : 0,
	               &pr, &np) != USMP_OK)
		goto fail;
	/* Alignment: a_i of the aligned sweep, with the view's pools. */
	uint64_t palign = UINT64_MAX;
	for (uint32_t q = 0; q < v->pool_count; q++) {
		uint64_t a = v->pools[q].alignment ? v->pools[q].alignment : 1;
		palign = a < palign ? a : palign;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = v->buffers[i].alignment ? v->buffers[i].alignment : 1;
		it[i].lev = (unsigned char)low_bit(v->pool_count && palign > a ? palign
		                                                          : a);
	}
	uint32_t pools = v->pool_count;
	/* Every value bound_all raises best to is a true bound, so even when
	 * it runs out of memory half way the result stands. */
	(void)bound_all(it, n, pr, np, v->conflict_start, v->conflict_adj, 1,
	                &pools, &best);
fail:
	free(it);
	free(pr);
	return best;
}

/* ---- groups ------------------------------------------------------------- */

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	uint32_t r = x;
	while (parent[r] != r)
		r = parent[r];
	while (parent[x] != r) {
		uint32_t next = parent[x];
		parent[x] = r;
		x = next;
	}
	return r;
}

static void uf_union(uint32_t *parent, uint32_t x, uint32_t y)
{
	x = uf_find(parent, x);
	y = uf_find(parent, y);
	if (x != y) /* smaller root wins: pools (low ids) end up as roots */
		parent[x > y ? x : y] = x > y ? y : x;
}

/* Join each buffer node (P + b) of parent with the pools it may use:
 * its candidates, its fixed pool, or every pool when it has no list. */
static int groups_join(usmp_problem *p, uint32_t *parent)
{
	size_t P = p->pool_count, n = p->buffer_count;
	for (size_t i = 0; i < P + n; i++)
		parent[i] = (uint32_t)i;
	int all_joined = 0;
	for (size_t b = 0; b < n; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		uint32_t node = (uint32_t)(P + b);
		if (buf->candidate_count == 0 && !(buf->flags & USMP_BUFFER_FIXED)) {
			/* Every pool: join them all once, then pool 0 suffices. A
			 * fixed buffer without a list can only be in its fixed pool. */
			if (!all_joined)
				for (uint32_t q = 1; q < P; q++)
					uf_union(parent, 0, q);
			all_joined = 1;
			uf_union(parent, node, 0);
		}
		for (uint32_t c = 0; c < buf->candidate_count; c++) {
			if (buf->candidates[c] >= P)
				return usmp__problem_fail(p, USMP_ERR_INVALID,
				                          "buffer \"%s\": candidate pool %u does not exist",
				                          buf->name, buf->candidates[c]);
			uf_union(parent, node, buf->candidates[c]);
		}
		if ((buf->flags & USMP_BUFFER_FIXED) && buf->fixed_pool < P)
			uf_union(parent, node, buf->fixed_pool);
	}
	return USMP_OK;
}

/* Each group's pool count, and each buffer's a_i (see the aligned sweep). */
static int groups_align(const usmp_problem *p, const uint32_t *bgroup,
                        const uint32_t *pgroup, uint32_t groups, bitem *it,
                        uint32_t *gpools)
{
	uint64_t *pmin = malloc(groups * sizeof *pmin);
	if (!pmin)
		return USMP_ERR_NOMEM;
	for (uint32_t g = 0; g < groups; g++)
		pmin[g] = UINT64_MAX;
	for (size_t q = 0; q < p->pool_count; q++) {
		uint64_t a = p->pools[q].alignment ? p->pools[q].alignment : 1;
		uint32_t g = pgroup[q];
		pmin[g] = a < pmin[g] ? a : pmin[g];
		gpools[g]++;
	}
	for (size_t b = 0; b < p->buffer_count; b++) {
		uint64_t a = p->buffers[b].alignment ? p->buffers[b].alignment : 1;
		uint64_t pm = pmin[bgroup[b]]; /* the buffer's group has a pool */
		it[b].lev = (unsigned char)low_bit(pm > a ? pm : a);
	}
	free(pmin);
	return USMP_OK;
}

int usmp__groups(usmp_problem *p)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t *parent = NULL, *gid = NULL;
	bitem *it = NULL;
	bpair *pr = NULL;
	size_t np = 0;
	uint32_t *bgroup = NULL, *pgroup = NULL;
	uint64_t *gbound = NULL, *cs = NULL;
	uint32_t *ca = NULL, *gpools = NULL;
	size_t P = p->pool_count, n = p->buffer_count;
	if (P == 0 || P > UINT32_MAX || n > UINT32_MAX || P + n > UINT32_MAX)
		return usmp__problem_fail(p, P == 0 ? USMP_ERR_INTERNAL
		                                    : USMP_ERR_INVALID,
		                          "%s", P == 0 ? "groups: the problem has no pool"
		                                       : "groups: too many pools and buffers");
	/* Nodes: pools 0..P-1, then buffers P..P+n-1. */
	parent = malloc((P + n) * sizeof *parent);
	gid = malloc(P * sizeof *gid);
	bgroup = malloc((n ? n : 1) * sizeof *bgroup);
	pgroup = malloc(P * sizeof *pgroup);
	it = malloc((n ? n : 1) * sizeof *it);
	if (!parent || !gid || !bgroup || !pgroup || !it)
		goto fail;
	if ((rc = groups_join(p, parent)) != USMP_OK)
		goto fail;
	/* Number groups in the order of their first pool. Every buffer is
	 * joined to at least one pool, and pools have the smallest ids, so
	 * every root is a pool. */
	uint32_t groups = 0;
	for (uint32_t q = 0; q < P; q++) {
		uint32_t r = uf_find(parent, q);
		if (r == q)
			gid[q] = groups++;
		pgroup[q] = gid[r];
	}
	for (size_t b = 0; b < n; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		uint32_t r = uf_find(parent, (uint32_t)(P + b));
		if (r >= P) {
			rc = usmp__problem_fail(p, USMP_ERR_INVALID,
			                        "buffer \"%s\" can use no pool", buf->name);
			goto fail;
		}
		bgroup[b] = gid[r];
		it[b].size = buf->size;
		it[b].begin = buf->begin;
		it[b].end = buf->end;
		it[b].live = (buf->flags & USMP_BUFFER_LIVE) && buf->end > buf->begin;
		it[b].group = bgroup[b];
	}
	gbound = calloc(groups, sizeof *gbound);
	if (!gbound)
		goto fail;
	for (size_t b = 0; b < n; b++)
		if (it[b].size > gbound[it[b].group])
			gbound[it[b].group] = it[b].size;
	if ((rc = make_pairs(it, (uint32_t)n, p->overlaps, p->overlap_count, &pr,
	                     &np)) != USMP_OK) {
		if (rc != USMP_ERR_NOMEM)
			rc = usmp__problem_fail(p, rc, "groups: too many overlap rules");
		goto fail;
	}
	if (p->edge_count) {
		cs = malloc((n + 1) * sizeof *cs);
		if (!cs)
			goto fail;
		if ((rc = usmp__csr_build(p->edges, p->edge_count, (uint32_t)n, cs,
		                          &ca)) != USMP_OK) {
			if (rc != USMP_ERR_NOMEM)
				rc = usmp__problem_fail(p, rc, "groups: bad conflict edge");
			goto fail;
		}
	}
	gpools = calloc(groups, sizeof *gpools);
	if (!gpools ||
	    groups_align(p, bgroup, pgroup, groups, it, gpools) != USMP_OK) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	rc = bound_all(it, (uint32_t)n, pr, np, cs, ca, groups, gpools, gbound);
	if (rc != USMP_OK)
		goto fail;
	free(p->buffer_group);
	free(p->pool_group);
	free(p->group_bound);
	p->buffer_group = bgroup;
	p->pool_group = pgroup;
	p->group_bound = gbound;
	p->group_count = groups;
	bgroup = pgroup = NULL;
	gbound = NULL;
	rc = USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		usmp__problem_fail(p, rc, "groups: out of memory");
	free(parent);
	free(gid);
	free(it);
	free(pr);
	free(bgroup);
	free(pgroup);
	free(gbound);
	free(cs);
	free(ca);
	free(gpools);
	return rc;
}
