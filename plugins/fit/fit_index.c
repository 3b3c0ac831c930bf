/* fit_index.c — the fit plugin's gap index (see fit_index.h): merged
 * occupied intervals per time-tree node, and the first/best fit queries.
 *
 * A query gathers the sets of its range of leaves (its small sets merged
 * into one) and walks them together in offset order: each set keeps a
 * cursor that only moves up and, as its key, the start of the interval at
 * the cursor. The candidate offset x moves past whatever interval blocks
 * [x, x + size) in a set whose key is below x + size, until every key is
 * at or above x + size; a set whose next interval starts high enough is
 * never looked at, only its key. Because each set is the union over a
 * stretch of time, the walk passes about as many intervals as there are
 * free gaps below the answer, not one per buffer alive. best_fit walks on
 * to the top, through every gap that holds the buffer, and keeps the
 * smallest: the gap around a stop is the largest end the cursors passed
 * up to the least key. first_fit passes the sets that have moved x first
 * (fitg_first_walk). An insertion adds one interval to a few tens of
 * sorted arrays; it works on them in batches, searching them side by
 * side a level at a time with each next probe asked from memory ahead.
 */
#include "fit_index.h"

#include <string.h>

/* A buffer goes into touch[] of its canonical nodes and of their
 * descendants this many levels down: a node's touch[] then holds the
 * buffers that cover an ancestor at most this far up, and a query reads
 * cover[] of the root-path nodes farther up. */
#define FITG_DOWN 6u

/* A query merges its sets of at most FITG_SMALL intervals into one when
 * they hold at most FITG_SCRATCH intervals together. */
#define FITG_SMALL 16u
#define FITG_SCRATCH 256u

/* Sets an insertion works on together (see fitg_flush). */
#define FITG_BATCH 64u

/* sub[] of node v (v >= lowfirst: sub[] exists below h0 only); a leaf's
 * sub[] is its cover[] (what touches a leaf covers it). */
#define fitg_sub(g, v)                                                         \
	((v) >= (g)->tsize ? &(g)->cover[v] : &(g)->sub[(v) - (g)->lowfirst])

int usmp__fit_gidx_init(usmp__fit_gidx *g, const usmp_host *h, uint32_t tsize,
                        uint64_t span_sum, uint64_t live)
{
	memset(g, 0, sizeof *g);
	g->h = h;
	g->pool.h = h;
	g->tsize = tsize;
	while ((1ull << g->theight) < tsize)
		g->theight++;
	/* touch[] from the height of an eighth of the mean span up: about
	 * eight sets per buffer of the mean span on that level */
	uint64_t eighth = live ? span_sum / live / 8 : 0;
	g->h0 = 0;
	while (g->h0 < g->theight && (1ull << g->h0) < eighth)
		g->h0++;
	/* nodes at heights h0.. are those below lowfirst */
	g->lowfirst = g->h0 ? tsize >> (g->h0 - 1) : 2 * (uint64_t)tsize;
	size_t nodes = 2 * (size_t)tsize;
	g->nsub = g->lowfirst < tsize ? tsize - g->lowfirst : 0;
	g->cover = h->alloc(h, nodes * sizeof *g->cover);
	g->sub = h->alloc(h, (g->nsub ? g->nsub : 1) * sizeof *g->sub);
	g->touch = h->alloc(h, (size_t)g->lowfirst * sizeof *g->touch);
	g->scratch.iv = h->alloc(h, 2 * FITG_SCRATCH * sizeof *g->scratch.iv);
	g->scratch.cap = FITG_SCRATCH;
	if (g->cover)
		memset(g->cover, 0, nodes * sizeof *g->cover);
	if (g->sub)
		memset(g->sub, 0, g->nsub * sizeof *g->sub);
	if (g->touch)
		memset(g->touch, 0, (size_t)g->lowfirst * sizeof *g->touch);
	if (!g->cover || !g->sub || !g->touch || !g->scratch.iv) {
		usmp__fit_gidx_free(g);
		return USMP_ERR_NOMEM;
	}
	return USMP_OK;
}

void usmp__fit_gidx_reset(usmp__fit_gidx *g)
{
	for (size_t i = 0; g->cover && i < 2 * (size_t)g->tsize; i++)
		usmp__fit_set_clear(&g->cover[i]);
	for (size_t i = 0; g->sub && i < g->nsub; i++)
		usmp__fit_set_clear(&g->sub[i]);
	for (size_t i = 0; g->touch && i < g->lowfirst; i++)
		usmp__fit_set_clear(&g->touch[i]);
}

void usmp__fit_gidx_free(usmp__fit_gidx *g)
{
	const usmp_host *h = g->h;
	usmp__fit_set *arr[3] = { g->cover, g->sub, g->touch };
	size_t len[3] = { 2 * (size_t)g->tsize, g->nsub, g->lowfirst };
	for (int k = 0; k < 3; k++) {
		if (!arr[k])
			continue;
		for (size_t i = 0; i < len[k]; i++)
			usmp__fit_set_release(&g->pool, &arr[k][i]);
		h->free(h, arr[k]);
	}
	g->cover = g->sub = g->touch = NULL;
	usmp__fit_pool_free(&g->pool);
	if (g->scratch.iv)
		h->free(h, g->scratch.iv);
	g->scratch.iv = NULL;
}


/* ---- nodes of a range of leaves ------------------------------------------ */

/* The canonical nodes of leaves l..r (at most 2 * 32). */
static unsigned fitg_canonical(const usmp__fit_gidx *g, uint32_t l,
                               uint32_t r, uint32_t *out)
{
	uint64_t lo = (uint64_t)l + g->tsize, hi = (uint64_t)r + g->tsize + 1;
	unsigned k = 0;
	while (lo < hi) {
		if (lo & 1)
			out[k++] = (uint32_t)lo++;
		if (hi & 1)
			out[k++] = (uint32_t)--hi;
		lo >>= 1;
		hi >>= 1;
	}
	return k;
}

/* The nodes on the root paths of leaves l and r whose leaves l..r does not
 * contain, each once (at most 2 * 32). */
static unsigned fitg_partial(const usmp__fit_gidx *g, uint32_t l, uint32_t r,
                             uint32_t *out)
{
	uint64_t a = (uint64_t)l + g->tsize, b = (uint64_t)r + g->tsize;
	unsigned k = 0;
	for (unsigned h = 0; a; h++, a >>= 1, b >>= 1) {
		uint64_t f = (a << h) - g->tsize, t = ((a + 1) << h) - 1 - g->tsize;
		if (f < l || t > r)
			out[k++] = (uint32_t)a;
		if (b == a)
			continue;
		f = (b << h) - g->tsize;
		t = ((b + 1) << h) - 1 - g->tsize;
		if (f < l || t > r)
			out[k++] = (uint32_t)b;
	}
	return k;
}

/* Sets waiting for one interval: added in batches whose binary searches
 * run side by side (see fitg_flush), so their cache misses overlap. */
typedef struct fitg_batch {
	usmp__fit_pool *pool;
	uint64_t a, b;
	unsigned n;
	usmp__fit_set *s[FITG_BATCH];
} fitg_batch;

static int fitg_flush(fitg_batch *bt)
{
	uint32_t lo[FITG_BATCH], hi[FITG_BATCH];
	unsigned n = bt->n;
	int rc;
	for (unsigned i = 0; i < n; i++)
		__builtin_prefetch(bt->s[i]);
	for (unsigned i = 0; i < n; i++) {
		const usmp__fit_set *s = bt->s[i];
		lo[i] = 0;
		hi[i] = s->cnt;
		if (s->cnt)
			__builtin_prefetch(&s->iv[s->cnt / 2]);
	}
	/* The first interval with .b >= a in every set, the searches a
	 * level at a time: each asks for its next probe before the others
	 * read theirs, so their cache misses overlap. */
	for (bool more = true; more;) {
		more = false;
		for (unsigned i = 0; i < n; i++) {
			if (lo[i] >= hi[i])
				continue;
			const usmp__fit_iv *iv = bt->s[i]->iv;
			uint32_t m = lo[i] + (hi[i] - lo[i]) / 2;
			if (iv[m].b < bt->a)
				lo[i] = m + 1;
			else
				hi[i] = m;
			if (lo[i] < hi[i]) {
				__builtin_prefetch(&iv[lo[i] + (hi[i] - lo[i]) / 2]);
				more = true;
			}
		}
	}
	/* (a set twice in a batch would still be right: the first
	 * insertion leaves the intervals below lo as they were) */
	for (unsigned i = 0; i < n; i++)
		if ((rc = usmp__fit_set_add(bt->pool, bt->s[i], bt->a, bt->b, lo[i])))
			return rc;
	bt->n = 0;
	return USMP_OK;
}

static int fitg_put(fitg_batch *bt, usmp__fit_set *s)
{
	bt->s[bt->n++] = s;
	return bt->n == FITG_BATCH ? fitg_flush(bt) : USMP_OK;
}

int usmp__fit_gidx_insert(usmp__fit_gidx *g, uint32_t lo, uint32_t hi,
                          uint64_t a, uint64_t b)
{
	uint32_t nd[70];
	int rc;
	fitg_batch bt = { .pool = &g->pool, .a = a, .b = b, .n = 0 };
	/* sub[] is read on nodes below h0 only */
	uint64_t low = g->lowfirst;
	unsigned k = fitg_canonical(g, lo, hi, nd);
	for (unsigned j = 0; j < k; j++)
		if ((rc = fitg_put(&bt, &g->cover[nd[j]])) ||
		    (nd[j] >= low && nd[j] < g->tsize &&
		     (rc = fitg_put(&bt, fitg_sub(g, nd[j])))))
			return rc;
	/* touch[] of the canonical nodes from h0 up and of their
	 * descendants down to FITG_DOWN levels (not below h0) */
	for (unsigned j = 0; j < k; j++) {
		for (unsigned d = 0; d <= FITG_DOWN; d++) {
			uint64_t first = (uint64_t)nd[j] << d;
			if (first >= low)
				break;
			for (uint64_t v = first; v < first + (1ull << d); v++)
				if ((rc = fitg_put(&bt, &g->touch[v])))
					return rc;
		}
	}
	k = fitg_partial(g, lo, hi, nd);
	for (unsigned j = 0; j < k; j++) {
		usmp__fit_set *s = nd[j] >= low ? fitg_sub(g, nd[j])
		                                : &g->touch[nd[j]];
		if ((rc = fitg_put(&bt, s)))
			return rc;
	}
	return fitg_flush(&bt);
}

/* ---- queries --------------------------------------------------------------- */

/* Merge the sorted runs of src (run r: src[rb[r]..rb[r + 1]), nr runs)
 * by start, two at a time through dst; returns the buffer that holds the
 * one run left. */
static usmp__fit_iv *fitg_merge_runs(usmp__fit_iv *src, usmp__fit_iv *dst,
                                     unsigned *rb, unsigned nr)
{
	unsigned n = rb[nr];
	while (nr > 1) {
		unsigned nw = 0;
		for (unsigned r = 0; r < nr; r += 2) {
			unsigned i = rb[r], e1 = rb[r + 1];
			unsigned j = e1, e2 = r + 2 <= nr ? rb[r + 2] : e1;
			unsigned o = i;
			rb[nw++] = i; /* nw <= r: read already */
			while (i < e1 && j < e2)
				dst[o++] = src[j].a < src[i].a ? src[j++] : src[i++];
			while (i < e1)
				dst[o++] = src[i++];
			while (j < e2)
				dst[o++] = src[j++];
		}
		rb[nw] = n;
		nr = nw;
		usmp__fit_iv *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Replace the query's sets of at most FITG_SMALL intervals, when there
 * are several, by their union in g->scratch: each set costs a look per
 * candidate offset, and the small ones (short stretches of time near the
 * ends of the range) are most of the sets. g->scratch has room for twice
 * FITG_SCRATCH intervals: the second half is for merging. */
static void fitg_pack_small(usmp__fit_gidx *g)
{
	unsigned m = g->qcount, small = 0, total = 0;
	for (unsigned i = 0; i < m; i++) {
		if (g->qset[i]->cnt <= FITG_SMALL) {
			small++;
			total += g->qset[i]->cnt;
		}
	}
	if (small < 2 || total > FITG_SCRATCH)
		return;
	usmp__fit_iv *iv = g->scratch.iv + FITG_SCRATCH;
	unsigned n = 0, k = 0, nr = 0, rb[USMP__FIT_QSETS + 1];
	for (unsigned i = 0; i < m; i++) {
		const usmp__fit_set *s = g->qset[i];
		if (s->cnt > FITG_SMALL) {
			g->qset[k++] = s;
			continue;
		}
		rb[nr++] = n;
		memcpy(iv + n, s->iv, (size_t)s->cnt * sizeof *iv);
		n += s->cnt;
	}
	rb[nr] = n;
	iv = fitg_merge_runs(iv, g->scratch.iv, rb, nr);
	usmp__fit_iv *out = g->scratch.iv;
	unsigned u = 0; /* union of what overlaps or touches */
	for (unsigned i = 0; i < n; i++) {
		if (u > 0 && iv[i].a <= out[u - 1].b) {
			if (iv[i].b > out[u - 1].b)
				out[u - 1].b = iv[i].b;
		} else {
			out[u++] = iv[i];
		}
	}
	g->scratch.cnt = u;
	g->qset[k++] = &g->scratch;
	g->qcount = k;
}

/* g->qset = the non-empty sets of the buffers alive somewhere in l..r,
 * cursors at their first intervals. */
static void fitg_collect(usmp__fit_gidx *g, bool live, uint32_t l, uint32_t r)
{
	uint32_t nd[70], pt[70], hc[70];
	unsigned m = 0, nh = 0;
	if (live) {
		/* ask for every header first: the loads overlap */
		unsigned k = fitg_canonical(g, l, r, nd);
		unsigned kp = fitg_partial(g, l, r, pt);
		for (unsigned j = 0; j < k; j++)
			__builtin_prefetch(nd[j] < g->lowfirst
			                           ? &g->touch[nd[j]]
			                           : fitg_sub(g, nd[j]));
		for (unsigned j = 0; j < kp; j++)
			__builtin_prefetch(&g->cover[pt[j]]);
		for (unsigned j = 0; j < k; j++) {
			/* a node h0 or more above the leaves: its touch[] */
			bool high = nd[j] < g->lowfirst;
			const usmp__fit_set *s = high ? &g->touch[nd[j]]
			                              : fitg_sub(g, nd[j]);
			if (high)
				hc[nh++] = nd[j];
			if (s->cnt)
				g->qset[m++] = s;
		}
		/* cover[] of the root-path nodes, but those above a node whose
		 * touch[] is read already: that holds them */
		for (unsigned j = 0; j < kp; j++) {
			if (!g->cover[pt[j]].cnt)
				continue;
			unsigned da = 31u - (unsigned)__builtin_clz(pt[j]);
			bool held = false;
			for (unsigned i = 0; i < nh && !held; i++) {
				unsigned dc = 31u - (unsigned)__builtin_clz(hc[i]);
				held = dc > da && dc - da <= FITG_DOWN &&
				       (hc[i] >> (dc - da)) == pt[j];
			}
			if (!held)
				g->qset[m++] = &g->cover[pt[j]];
		}
	}
	g->qcount = m;
	for (unsigned i = 0; i < m; i++)
		__builtin_prefetch(g->qset[i]->iv);
	fitg_pack_small(g);
	g->qlow = 0;
	for (unsigned i = 0; i < g->qcount; i++) {
		g->qpos[i] = 0;
		g->qkey[i] = g->qset[i]->cnt ? g->qset[i]->iv[0].a : UINT64_MAX;
	}
}

/* The walk's per-pass helpers stay inlined in both walks (a call per
 * pass costs more than the pass). */
#define FITG_INLINE static inline __attribute__((always_inline))

/* Move the cursor of set i to its first interval ending past x. */
FITG_INLINE uint32_t fitg_seek(usmp__fit_gidx *g, unsigned i, uint64_t x)
{
	const usmp__fit_set *s = g->qset[i];
	uint32_t p = g->qpos[i];
	if (p >= s->cnt || s->iv[p].b > x)
		return p;
	uint32_t step = 1, lo = p + 1, hi;
	for (;;) { /* gallop, then bisect */
		hi = p + step;
		if (hi >= s->cnt) {
			hi = s->cnt;
			break;
		}
		if (s->iv[hi].b > x)
			break;
		lo = hi + 1;
		step *= 2;
	}
	while (lo < hi) {
		uint32_t md = lo + (hi - lo) / 2;
		if (s->iv[md].b <= x)
			lo = md + 1;
		else
			hi = md;
	}
	return lo;
}

/* Set i's cursor to its first interval ending past x, then past every
 * interval that blocks [x, x + size), x moving above each; its key and
 * g->qlow follow. false when x passes limit - size. */
FITG_INLINE bool fitg_pass_set(usmp__fit_gidx *g, unsigned i, uint64_t *xp,
                               uint64_t size, uint64_t align, uint64_t limit)
{
	const usmp__fit_set *s = g->qset[i];
	uint64_t x = *xp;
	uint32_t p = fitg_seek(g, i, x);
	while (p < s->cnt && s->iv[p].a < x + size) {
		bool ok = true;
		x = usmp_align_up(s->iv[p].b, align, &ok);
		if (!ok || x > limit - size)
			return false;
		p++;
	}
	g->qpos[i] = p;
	g->qkey[i] = p < s->cnt ? s->iv[p].a : UINT64_MAX;
	if (p > 0 && s->iv[p - 1].b > g->qlow)
		g->qlow = s->iv[p - 1].b;
	*xp = x;
	return true;
}

/* The lowest y >= x, a multiple of align (x is one), with [y, y + size)
 * free in every query set and y + size <= limit; false when there is
 * none. Each set's key is the start of the interval at its cursor, so a
 * set whose key is at or above y + size holds [y, y + size) free without a
 * look at its intervals; only the others move their cursors (and perhaps
 * y), and the keys are read again until none is below y + size. *least
 * gets the least key then (the last round reads every key). */
static inline bool fitg_advance(usmp__fit_gidx *g, uint64_t x, uint64_t size,
                                uint64_t align, uint64_t limit,
                                uint64_t *out, uint64_t *least)
{
	unsigned m = g->qcount;
	if (size > limit || x > limit - size)
		return false;
	uint64_t mn = UINT64_MAX;
	for (bool moved = true; moved;) {
		moved = false;
		mn = UINT64_MAX;
		for (unsigned i = 0; i < m; i++) {
			if (g->qkey[i] >= x + size) {
				if (g->qkey[i] < mn)
					mn = g->qkey[i];
				continue;
			}
			uint64_t was = x;
			if (!fitg_pass_set(g, i, &x, size, align, limit))
				return false;
			moved |= x != was;
			if (g->qkey[i] < mn)
				mn = g->qkey[i];
		}
	}
	*out = x;
	*least = mn;
	return true;
}

/* fitg_advance from 0 for first_fit, the sets that have moved y first:
 * those are brought to each new y among themselves before the others
 * (which mostly only seek: y jumps past their intervals) are looked at
 * again, and a set that moves y joins them. Any order of the passes
 * gives the same y (a pass moves only past intervals that block), but
 * this one makes a third to a half fewer passes on the field traces.
 * Up to 64 sets (a bit each); more go through fitg_advance. */
static bool fitg_first_walk(usmp__fit_gidx *g, uint64_t size, uint64_t align,
                            uint64_t limit, uint64_t *out)
{
	unsigned m = g->qcount;
	uint64_t least, x = 0;
	if (m > 64)
		return fitg_advance(g, 0, size, align, limit, out, &least);
	if (size > limit)
		return false;
	uint64_t hot = 0, all = m == 64 ? ~0ull : (1ull << m) - 1;
	for (bool cold_moved = true; cold_moved;) {
		for (bool moved = hot != 0; moved;) {
			moved = false;
			for (uint64_t t = hot; t; t &= t - 1) {
				unsigned i = (unsigned)__builtin_ctzll(t);
				if (g->qkey[i] >= x + size)
					continue;
				uint64_t was = x;
				if (!fitg_pass_set(g, i, &x, size, align, limit))
					return false;
				moved |= x != was;
			}
		}
		cold_moved = false;
		for (uint64_t t = all & ~hot; t; t &= t - 1) {
			unsigned i = (unsigned)__builtin_ctzll(t);
			if (g->qkey[i] >= x + size)
				continue;
			uint64_t was = x;
			if (!fitg_pass_set(g, i, &x, size, align, limit))
				return false;
			if (x != was) {
				hot |= 1ull << i;
				cold_moved = true;
			}
		}
	}
	*out = x;
	return true;
}

bool usmp__fit_gidx_first(usmp__fit_gidx *g, bool live, uint32_t lo,
                          uint32_t hi, uint64_t size, uint64_t align,
                          uint64_t limit, uint64_t *x)
{
	fitg_collect(g, live, lo, hi);
	return fitg_first_walk(g, size, align, limit, x);
}

bool usmp__fit_gidx_best(usmp__fit_gidx *g, bool live, uint32_t lo,
                         uint32_t hi, uint64_t size, uint64_t align,
                         uint64_t limit, uint64_t *x)
{
	fitg_collect(g, live, lo, hi);
	bool found = false;
	uint64_t at = 0, best_len = UINT64_MAX, y, g1;
	while (fitg_advance(g, at, size, align, limit, &y, &g1)) {
		/* the free gap around y is [g0, g1): every interval below y
		 * ends at or below g->qlow (the largest end a cursor has
		 * passed) and every set's next interval starts at or above
		 * its key; no key: the open space above every set */
		uint64_t g0 = g->qlow;
		if (g1 == UINT64_MAX) { /* the space above all */
			if (!found)
				*x = y;
			return true;
		}
		if (g1 - g0 < best_len) {
			best_len = g1 - g0;
			*x = y;
			found = true;
			if (best_len == size) /* nothing can fit tighter */
				break;
		}
		bool ok = true;
		at = usmp_align_up(g1, align, &ok);
		if (!ok)
			break;
	}
	return found;
}
