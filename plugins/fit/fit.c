/* fit.c — the "fit" plugin: first-fit and best-fit placement of buffers into
 * the gaps between already placed conflicting buffers, in one or all orders.
 *
 * Each buffer, in the chosen order, goes to the lowest (first_fit) or the
 * tightest (best_fit) aligned offset that is valid against every placed
 * buffer it conflicts with, in the first candidate pool where it fits.
 * Placed buffers with live ranges sit in an index over time (a segment tree
 * over the distinct begin times for "alive at my begin" plus per-time lists
 * of "begins inside my range", laid end to end so a range of times is one
 * stretch of memory), so a placement reads only the k placed buffers it
 * conflicts with, never a scan of every placed buffer. Their forbidden
 * ranges are put in order of start by a bucket sort (O(k) for the usual
 * spread of offsets) before the gap scan. Overlap rules turn into a smaller
 * forbidden range of start offsets. Both algorithms in one pool without
 * rules, edges, fixed or empty buffers use the gap index of fit_index.c
 * instead when many buffers are alive at once; built with
 * -DUSMP_FIT_REFERENCE (tests only) they use the lists for every problem.
 */
#include <usmp/plugin.h>

#include "../host_mem.h"
#include "fit_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIT_NONE UINT32_MAX
/* Placements between two looks at the clock: with thousands of buffers
 * alive a placement costs ~10-50 us (XLA traces), so a stopped run ends
 * within a few ms of its deadline; a look costs ~20 ns. */
#define FIT_STOP_EVERY 256u

enum fit_order {
	FIT_ORDER_SIZE,
	FIT_ORDER_LIFETIME,
	FIT_ORDER_AREA,
	FIT_ORDER_CONFLICTS,
	FIT_ORDER_COUNT
};

static const char *const fit_order_names[FIT_ORDER_COUNT] = {
	"size", "lifetime", "area", "conflicts"
};

/* Rule flags per partner buffer during one placement. */
enum { FIT_RULE_FWD = 1, FIT_RULE_REV = 2 };

/* A forbidden range [a, b) of start offsets for the buffer being placed. */
typedef struct fit_range {
	uint64_t a, b;
} fit_range;

/* Sort key of one buffer: k1 desc, k2 (size) desc, index asc. */
typedef struct fit_key {
	uint64_t k1, k2;
	uint32_t idx;
} fit_key;

/* Where a placed buffer sits: the hot data of conflict checks, copied
 * into every index list that holds the buffer so a query reads memory in
 * sequence instead of chasing buffer ids. */
typedef struct fit_span {
	uint64_t off, end;
} fit_span;

/* Whose span it is, in a parallel array: read only when there are several
 * pools or overlap rules, so the one-pool case reads 16 bytes a span. */
typedef struct fit_who {
	uint32_t pool, buf;
} fit_who;

/* Where one index list lives in its array, and how much of it is used;
 * one struct so a query touches one cache line per list header. */
typedef struct fit_list {
	uint64_t start, cnt;
} fit_list;

/* The gap index serves the common case when on average at least this many
 * buffers are alive at a begin time (fewer: the lists). */
#define FIT_GAP_MIN_ALIVE 32

typedef struct fit_ctx {
	const usmp_view *v;
	const usmp_host *h;
	const char *algo;
	int best_fit;
	uint32_t n;
	usmp_placement *work;
	fit_span *place; /* [n] valid for placed buffers */
	fit_who *owner;  /* [n] pool (USMP_NO_POOL until placed) and index */

	/* Time index over the distinct begin values of live buffers (leaves).
	 * A live buffer covers leaves lo..hi: the begins inside its range.
	 * Two live buffers conflict iff they share a leaf. Each node (leaf)
	 * has room for every live buffer that will ever be stored there;
	 * the .cnt placed so far fill it from .start on. */
	int64_t *times;
	uint32_t tcount, tsize; /* tsize: power of two >= tcount */
	uint32_t *lo, *hi;      /* [n] */
	fit_list *nlist;        /* [2 * tsize] node lists in narr */
	fit_span *narr;
	fit_who *nwho;          /* beside narr */
	fit_list *slist;        /* [tcount] buffers beginning at a leaf */
	fit_span *sarr;         /* [live buffers] */
	fit_who *swho;          /* beside sarr */
	uint64_t *bits0, *bits1; /* leaves with a placed beginner, 2 levels */
	size_t words0, words1;
	uint32_t *fen;           /* [tcount + 1] Fenwick tree: placed per leaf */
	uint64_t slive;          /* slots in sarr (live buffers) */
	uint32_t *seq; /* placement order of one run: fixed ones first */

	/* The gap index (fit_index.h), used instead of the lists above when
	 * c->gap. */
	bool gap;
	usmp__fit_gidx gidx;

	/* Rule partners of the buffer being placed. */
	uint32_t *rule_stamp;
	uint32_t qid;
	uint8_t *rule_flags;
	int64_t *fwd_lead, *rev_lead;

	/* Overlap rules by endpoint: rule ids of buffer b in
	 * radj[rstart[b] .. rstart[b+1]). */
	uint64_t *rstart;
	uint32_t *radj;

	/* Forbidden start ranges of the current placement. */
	fit_range *ranges;
	size_t range_count;
	uint64_t amin, amax; /* lowest and highest start among the ranges */
	size_t range_cap;

	/* Bucket sort of the ranges: counts per bucket, the sorted copy. */
	uint32_t *bucket;
	size_t bucket_cap;
	fit_range *sorted;
	size_t sorted_cap;

	fit_key *keys, *ktmp;
	usmp_placement *out; /* the caller's plan */
	uint64_t *hw;        /* [pools] high-water marks */
	char msg[512];
} fit_ctx;

/* ---- small helpers ------------------------------------------------------ */

static int fit_grow(fit_ctx *c, void **arr, size_t *cap, size_t need,
                    size_t elem)
{
	if (need <= *cap)
		return USMP_OK;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return USMP_ERR_NOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return USMP_ERR_NOMEM;
	void *p = c->h->realloc(c->h, *arr, ncap * elem);
	if (!p)
		return USMP_ERR_NOMEM;
	*arr = p;
	*cap = ncap;
	return USMP_OK;
}

static uint64_t fit_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r < a ? UINT64_MAX : r;
}

static uint64_t fit_sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

/* |s| as unsigned, correct for INT64_MIN. */
static uint64_t fit_mag(int64_t s)
{
	return s >= 0 ? (uint64_t)s : (uint64_t)(-(s + 1)) + 1;
}

/* LSD radix sorts with 11-bit digits (a digit equal for every key is
 * skipped): stable, O(n) for the million-buffer problems. */
#define FIT_RADIX_BITS 11
#define FIT_RADIX_SIZE (1u << FIT_RADIX_BITS)

/* Stable sort of key[0..n) by the 64-bit value get(key[i]), ascending,
 * through tmp[0..n); the result ends in key. */
#define FIT_RADIX_SORT(type, key, tmp, n, get)                                 \
	do {                                                                   \
		uint32_t cnt_[FIT_RADIX_SIZE];                                 \
		type *src_ = (key), *dst_ = (tmp);                             \
		for (unsigned sh_ = 0; sh_ < 64; sh_ += FIT_RADIX_BITS) {      \
			memset(cnt_, 0, sizeof cnt_);                          \
			for (size_t i_ = 0; i_ < (n); i_++)                    \
				cnt_[(get(src_[i_]) >> sh_) &                  \
				     (FIT_RADIX_SIZE - 1)]++;                  \
			if (cnt_[(get(src_[0]) >> sh_) &                       \
			         (FIT_RADIX_SIZE - 1)] == (n))                 \
				continue;                                      \
			uint32_t sum_ = 0;                                     \
			for (unsigned d_ = 0; d_ < FIT_RADIX_SIZE; d_++) {     \
				uint32_t t_ = cnt_[d_];                        \
				cnt_[d_] = sum_;                               \
				sum_ += t_;                                    \
			}                                                      \
			for (size_t i_ = 0; i_ < (n); i_++)                    \
				dst_[cnt_[(get(src_[i_]) >> sh_) &             \
				          (FIT_RADIX_SIZE - 1)]++] = src_[i_];  \
			type *sw_ = src_;                                      \
			src_ = dst_;                                           \
			dst_ = sw_;                                            \
		}                                                              \
		if (src_ != (key))                                             \
			memcpy((key), src_, (n) * sizeof *(key));              \
	} while (0)

#define FIT_TIME_KEY(t) ((uint64_t)(t) ^ (1ull << 63))
#define FIT_KEY_K1(k) (~(k).k1)
#define FIT_KEY_K2(k) (~(k).k2)

/* Sort ranges by start (the scan needs only that): insertion sort for
 * short runs, quicksort above, heapsort when quicksort degenerates. */
static void fit_sift(fit_range *r, size_t i, size_t n)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1;
		if (l < n && r[l].a > r[m].a)
			m = l;
		if (l + 1 < n && r[l + 1].a > r[m].a)
			m = l + 1;
		if (m == i)
			return;
		fit_range t = r[i];
		r[i] = r[m];
		r[m] = t;
		i = m;
	}
}

static void fit_sort_ranges(fit_range *r, size_t n, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;)
				fit_sift(r, i, n);
			for (size_t i = n; i-- > 1;) {
				fit_range t = r[0];
				r[0] = r[i];
				r[i] = t;
				fit_sift(r, 0, i);
			}
			return;
		}
		uint64_t x = r[0].a, y = r[n / 2].a, z = r[n - 1].a;
		uint64_t piv = x < y ? (y < z ? y : (x < z ? z : x))
		                     : (x < z ? x : (y < z ? z : y));
		size_t i = 0, j = n - 1;
		for (;;) {
			while (r[i].a < piv)
				i++;
			while (r[j].a > piv)
				j--;
			if (i >= j)
				break;
			fit_range t = r[i];
			r[i] = r[j];
			r[j] = t;
			i++;
			j--;
		}
		/* [0, j] <= piv <= [j+1, n) */
		size_t left = j + 1;
		if (left < n - left) {
			fit_sort_ranges(r, left, depth);
			r += left;
			n -= left;
		} else {
			fit_sort_ranges(r + left, n - left, depth);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++) {
		fit_range t = r[i];
		size_t j = i;
		while (j > 0 && r[j - 1].a > t.a) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = t;
	}
}

/* The gap scan of one placement over forbidden ranges in order of start:
 * every start offset below s is forbidden or already scanned. */
typedef struct fit_scan {
	uint64_t size, align, limit;
	int best_fit;
	bool found, stop;
	uint64_t s, best_x, best_len;
} fit_scan;

/* Scan the next ranges r[0..n) (sorted, none starting before earlier
 * ones); sets st->stop when the answer is known (first fit found, or the
 * gaps left are past the limit). */
static void fit_scan_run(fit_scan *st, const fit_range *r, size_t n)
{
	uint64_t s = st->s;
	for (size_t i = 0; i < n; i++) {
		if (r[i].a > s) {
			bool ok = true;
			uint64_t cx = usmp_align_up(s, st->align, &ok);
			if (!ok) {
				st->stop = true;
				break;
			}
			if (cx < r[i].a) {
				uint64_t endx = cx + st->size;
				if (endx < cx || endx > st->limit) {
					st->stop = true; /* higher gaps fit no better */
					break;
				}
				uint64_t len = r[i].a - s;
				if (!st->best_fit) {
					st->best_x = cx;
					st->found = true;
					st->stop = true;
					break;
				}
				if (len < st->best_len) {
					st->best_len = len;
					st->best_x = cx;
					st->found = true;
				}
			}
		}
		if (r[i].b > s)
			s = r[i].b;
	}
	st->s = s;
}

/* Sort a large bucket: they are large mostly because many ranges share
 * the lowest start (0, or one offset reused over time), so those go to
 * the front in one pass and only the rest is sorted. */
static void fit_sort_skewed(fit_range *r, size_t n)
{
	if (n < 2)
		return;
	uint64_t lo = r[0].a;
	for (size_t i = 1; i < n; i++)
		if (r[i].a < lo)
			lo = r[i].a;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].a == lo) {
			fit_range t = r[i];
			r[i] = r[k];
			r[k++] = t;
		}
	}
	if (n - k > 1)
		fit_sort_ranges(r + k, n - k, 64);
}

/* Scan r[0..n) in order of start without a comparison sort of all of
 * it: one counting pass puts the ranges into about n buckets by the high
 * bits of (start - lowest start), then each bucket is sorted (they are
 * small) and scanned in turn, and first fit stops at its gap. */
static int fit_scan_sorted(fit_ctx *c, fit_scan *st, fit_range *r, size_t n)
{
	if (n <= 32) {
		fit_sort_ranges(r, n, 64);
		fit_scan_run(st, r, n);
		return USMP_OK;
	}
	uint64_t lo = c->amin, hi = c->amax;
	unsigned shift = 0;
	while (((hi - lo) >> shift) >= n)
		shift++;
	size_t nb = (size_t)((hi - lo) >> shift) + 1;
	int rc;
	if ((rc = fit_grow(c, (void **)&c->bucket, &c->bucket_cap, nb + 1,
	                   sizeof *c->bucket)) ||
	    (rc = fit_grow(c, (void **)&c->sorted, &c->sorted_cap, n,
	                   sizeof *c->sorted)))
		return rc;
	uint32_t *cnt = c->bucket;
	memset(cnt, 0, (nb + 1) * sizeof *cnt);
	for (size_t i = 0; i < n; i++)
		cnt[((r[i].a - lo) >> shift) + 1]++;
	for (size_t i = 1; i <= nb; i++)
		cnt[i] += cnt[i - 1];
	fit_range *out = c->sorted;
	for (size_t i = 0; i < n; i++)
		out[cnt[(r[i].a - lo) >> shift]++] = r[i];
	/* now cnt[i] is the end of bucket i; sort the buckets and scan them
	 * in batches */
	size_t from = 0, scanned = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t to = cnt[i];
		if (to - from > 16) {
			fit_sort_skewed(out + from, to - from);
		} else {
			for (size_t j = from + 1; j < to; j++) {
				fit_range t = out[j];
				size_t q = j;
				while (q > from && out[q - 1].a > t.a) {
					out[q] = out[q - 1];
					q--;
				}
				out[q] = t;
			}
		}
		from = to;
		if (to - scanned >= 256 || i + 1 == nb) {
			fit_scan_run(st, out + scanned, to - scanned);
			scanned = to;
			if (st->stop)
				break;
		}
	}
	return USMP_OK;
}

static bool fit_live(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_LIVE) != 0;
}

static bool fit_fixed(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_FIXED) != 0;
}

/* ---- the time index ----------------------------------------------------- */

/* First index in times[0..count) whose value is >= t. */
static uint32_t fit_lower(const int64_t *times, uint32_t count, int64_t t)
{
	uint32_t l = 0, r = count;
	while (l < r) {
		uint32_t m = l + (r - l) / 2;
		if (times[m] < t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* The canonical segment tree nodes of b's leaves; returns their count
 * (at most 2 * 32). */
static unsigned fit_nodes(const fit_ctx *c, uint32_t b, uint32_t *nodes)
{
	uint64_t lo = (uint64_t)c->lo[b] + c->tsize;
	uint64_t hi = (uint64_t)c->hi[b] + c->tsize + 1;
	unsigned k = 0;
	while (lo < hi) {
		if (lo & 1)
			nodes[k++] = (uint32_t)lo++;
		if (hi & 1)
			nodes[k++] = (uint32_t)--hi;
		lo >>= 1;
		hi >>= 1;
	}
	return k;
}

static int fit_index_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint32_t live = 0;
	for (uint32_t b = 0; b < c->n; b++)
		if (fit_live(v, b))
			c->times[live++] = v->buffers[b].begin;
	if (live) {
		int64_t *tmp = host_array(c->h, live, sizeof *tmp);
		if (!tmp)
			return USMP_ERR_NOMEM;
		FIT_RADIX_SORT(int64_t, c->times, tmp, (size_t)live,
		               FIT_TIME_KEY);
		host_release(c->h, tmp);
	}
	uint32_t u = 0;
	for (uint32_t i = 0; i < live; i++)
		if (u == 0 || c->times[u - 1] != c->times[i])
			c->times[u++] = c->times[i];
	c->tcount = u;
	if (u == 0)
		return USMP_OK;
	c->tsize = 1;
	while (c->tsize < u) {
		if (c->tsize > UINT32_MAX / 4)
			return USMP_ERR_NOMEM;
		c->tsize *= 2;
	}
	size_t nodes = 2 * (size_t)c->tsize;
	uint64_t cover = 0; /* sum over leaves of the buffers alive there */
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b))
			continue;
		c->lo[b] = fit_lower(c->times, u, v->buffers[b].begin);
		c->hi[b] = fit_lower(c->times, u, v->buffers[b].end) - 1;
		cover += (uint64_t)c->hi[b] - c->lo[b] + 1;
	}
	/* With few buffers alive at a time the lists are cheaper (a
	 * placement reads a handful of spans) and smaller. */
	if (cover < FIT_GAP_MIN_ALIVE * (uint64_t)u)
		c->gap = false;
	if (c->gap) {
		return usmp__fit_gidx_init(&c->gidx, c->h, c->tsize, cover, live);
	}
	c->nlist = host_array(c->h, nodes, sizeof *c->nlist);
	c->slist = host_array(c->h, u, sizeof *c->slist);
	c->sarr = host_array(c->h, live, sizeof *c->sarr);
	c->swho = host_array(c->h, live, sizeof *c->swho);
	c->words0 = (size_t)(u + 63) / 64;
	c->words1 = (c->words0 + 63) / 64;
	c->bits0 = host_array(c->h, c->words0, sizeof *c->bits0);
	c->bits1 = host_array(c->h, c->words1, sizeof *c->bits1);
	c->fen = host_array(c->h, (size_t)u + 1, sizeof *c->fen);
	c->slive = live;
	if (!c->nlist || !c->slist || !c->sarr || !c->swho ||
	    !c->bits0 || !c->bits1 || !c->fen)
		return USMP_ERR_NOMEM;
	memset(c->nlist, 0, nodes * sizeof *c->nlist);
	memset(c->slist, 0, (size_t)u * sizeof *c->slist);
	uint32_t nd[70];
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b))
			continue;
		unsigned k = fit_nodes(c, b, nd);
		for (unsigned i = 0; i < k; i++)
			c->nlist[nd[i]].start++; /* counts, for now */
		c->slist[c->lo[b]].start++;
	}
	/* Lay the node lists out in in-order (node between its subtrees), so
	 * the low nodes on a leaf's root path sit near each other in memory.
	 * In-order rank r: depth H - ctz(r + 1), index (r + 1) >> (ctz + 1). */
	unsigned H = (unsigned)__builtin_ctzll(c->tsize);
	uint64_t at = 0;
	for (uint64_t r = 0; r + 1 < nodes; r++) {
		unsigned t = (unsigned)__builtin_ctzll(r + 1);
		uint64_t node = (1ull << (H - t)) + ((r + 1) >> (t + 1));
		uint64_t cnt = c->nlist[node].start;
		c->nlist[node].start = at;
		at += cnt;
	}
	uint64_t sat = 0;
	for (uint32_t i = 0; i < u; i++) {
		uint64_t cnt = c->slist[i].start;
		c->slist[i].start = sat;
		sat += cnt;
	}
	c->narr = host_array(c->h, (size_t)at, sizeof *c->narr);
	c->nwho = host_array(c->h, (size_t)at, sizeof *c->nwho);
	if (!c->narr || !c->nwho)
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

/* Mark nothing placed. */
static void fit_index_reset(fit_ctx *c)
{
	if (!c->tcount)
		return;
	if (c->gap) {
		usmp__fit_gidx_reset(&c->gidx);
		return;
	}
	for (size_t i = 0; i < 2 * (size_t)c->tsize; i++)
		c->nlist[i].cnt = 0;
	for (uint32_t i = 0; i < c->tcount; i++)
		c->slist[i].cnt = 0;
	memset(c->bits0, 0, c->words0 * sizeof *c->bits0);
	memset(c->bits1, 0, c->words1 * sizeof *c->bits1);
	memset(c->fen, 0, ((size_t)c->tcount + 1) * sizeof *c->fen);
	/* every slot of sarr empty: a span no placement collides with, in
	 * no pool */
	for (uint64_t i = 0; i < c->slive; i++) {
		c->sarr[i].off = 0;
		c->sarr[i].end = 0;
		c->swho[i].pool = USMP_NO_POOL;
		c->swho[i].buf = 0;
	}
}

/* Number of placed live buffers that begin at leaves [0, j). */
static uint64_t fit_placed_before(const fit_ctx *c, uint32_t j)
{
	uint64_t t = 0;
	for (; j > 0; j &= j - 1)
		t += c->fen[j];
	return t;
}

/* Record placed live buffer b (its span is c->place[b]) in its lists. */
static void fit_index_insert(fit_ctx *c, uint32_t b)
{
	uint32_t nd[70];
	unsigned k = fit_nodes(c, b, nd);
	for (unsigned j = 0; j < k; j++) {
		uint64_t at = c->nlist[nd[j]].start + c->nlist[nd[j]].cnt++;
		c->narr[at] = c->place[b];
		c->nwho[at] = c->owner[b];
	}
	uint32_t l = c->lo[b];
	uint64_t sat = c->slist[l].start + c->slist[l].cnt++;
	c->sarr[sat] = c->place[b];
	c->swho[sat] = c->owner[b];
	c->bits0[l >> 6] |= 1ull << (l & 63);
	c->bits1[l >> 12] |= 1ull << ((l >> 6) & 63);
	for (uint32_t j = l + 1; j <= c->tcount; j += j & (0u - j))
		c->fen[j]++;
}

/* Smallest leaf in [j, r] where a placed buffer begins, or FIT_NONE. */
static uint32_t fit_next_start(const fit_ctx *c, uint32_t j, uint32_t r)
{
	if (j > r || j >= c->tcount)
		return FIT_NONE;
	size_t w = j >> 6;
	uint64_t m = c->bits0[w] & (~0ull << (j & 63));
	if (m) {
		uint32_t k = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
		return k <= r ? k : FIT_NONE;
	}
	w++;
	while (w < c->words0 && w * 64 <= r) {
		size_t W = w >> 6;
		uint64_t m1 = c->bits1[W] & (~0ull << (w & 63));
		if (m1) {
			w = W * 64 + (size_t)__builtin_ctzll(m1);
			uint32_t k = (uint32_t)(w * 64 +
			                        (size_t)__builtin_ctzll(c->bits0[w]));
			return k <= r ? k : FIT_NONE;
		}
		w = (W + 1) * 64;
	}
	return FIT_NONE;
}

/* ---- overlap rules ------------------------------------------------------ */

static int fit_rules_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t m = v->overlap_count;
	c->rstart = host_array(c->h, (size_t)c->n + 1, sizeof *c->rstart);
	if (!c->rstart)
		return USMP_ERR_NOMEM;
	memset(c->rstart, 0, ((size_t)c->n + 1) * sizeof *c->rstart);
	for (uint64_t i = 0; i < m; i++) {
		const usmp_overlap_rec *r = &v->overlaps[i];
		if (r->src >= c->n || r->dst >= c->n || r->src == r->dst)
			continue;
		c->rstart[r->src + 1]++;
		c->rstart[r->dst + 1]++;
	}
	for (uint32_t b = 0; b < c->n; b++)
		c->rstart[b + 1] += c->rstart[b];
	uint64_t total = c->rstart[c->n];
	if (total > UINT32_MAX || (total && m > UINT32_MAX))
		return USMP_ERR_NOMEM;
	c->radj = host_array(c->h, (size_t)total, sizeof *c->radj);
	uint64_t *fill = host_array(c->h, c->n, sizeof *fill);
	if (!c->radj || !fill) {
		host_release(c->h, fill);
		return USMP_ERR_NOMEM;
	}
	memcpy(fill, c->rstart, (size_t)c->n * sizeof *fill);
	for (uint64_t i = 0; i < m; i++) {
		const usmp_overlap_rec *r = &v->overlaps[i];
		if (r->src >= c->n || r->dst >= c->n || r->src == r->dst)
			continue;
		c->radj[fill[r->src]++] = (uint32_t)i;
		c->radj[fill[r->dst]++] = (uint32_t)i;
	}
	host_release(c->h, fill);
	return USMP_OK;
}

/* Note, for the buffer b about to be placed, which partners have rules. */
static void fit_rules_mark(fit_ctx *c, uint32_t b)
{
	if (!c->radj)
		return;
	for (uint64_t k = c->rstart[b]; k < c->rstart[b + 1]; k++) {
		const usmp_overlap_rec *r = &c->v->overlaps[c->radj[k]];
		uint32_t o = r->src == b ? r->dst : r->src;
		if (c->rule_stamp[o] != c->qid) {
			c->rule_stamp[o] = c->qid;
			c->rule_flags[o] = 0;
		}
		if (r->src == o) { /* o is src, b is dst */
			c->rule_flags[o] |= FIT_RULE_FWD;
			c->fwd_lead[o] = r->max_lead;
		} else {
			c->rule_flags[o] |= FIT_RULE_REV;
			c->rev_lead[o] = r->max_lead;
		}
	}
}

/* The start offsets x at which a buffer of size s would collide with the
 * placed buffer sp: [*pa, *pb). Without rules that is (off - s, end). With
 * a rule (src sp, dst new, L): x <= off + L is allowed too; with a rule
 * (src new, dst sp, L): off <= x + L, i.e. x >= off - L, is allowed.
 * Returns false when nothing is forbidden. */
static bool fit_forbidden(const fit_ctx *c, uint64_t s, const fit_span *sp,
                          uint32_t o, uint64_t *pa, uint64_t *pb)
{
	uint64_t oo = sp->off;
	uint64_t a = oo + 1 > s ? oo + 1 - s : 0;
	uint64_t e = sp->end;
	if (c->radj && c->rule_stamp[o] == c->qid) {
		uint8_t f = c->rule_flags[o];
		if (f & FIT_RULE_FWD) {
			int64_t lead = c->fwd_lead[o];
			if (lead >= 0) {
				uint64_t t = fit_sat_add(oo, (uint64_t)lead);
				if (t == UINT64_MAX)
					return false;
				if (t + 1 > a)
					a = t + 1;
			} else if (fit_mag(lead) <= oo) {
				uint64_t t = oo - fit_mag(lead);
				if (t + 1 > a)
					a = t + 1;
			}
		}
		if (f & FIT_RULE_REV) {
			int64_t lead = c->rev_lead[o];
			if (lead >= 0) {
				if ((uint64_t)lead >= oo)
					return false;
				if (oo - (uint64_t)lead < e)
					e = oo - (uint64_t)lead;
			} else {
				uint64_t t = fit_sat_add(oo, fit_mag(lead));
				if (t < e)
					e = t;
			}
		}
	}
	*pa = a;
	*pb = e;
	return a < e;
}

static int fit_add_spans(fit_ctx *c, uint64_t size, uint32_t pool,
                         const fit_span *sp, const fit_who *who,
                         uint32_t count)
{
	if (!count) /* c->ranges may still be NULL: no arithmetic on it */
		return USMP_OK;
	if (c->range_count + count > c->range_cap) {
		int rc = fit_grow(c, (void **)&c->ranges, &c->range_cap,
		                  c->range_count + count, sizeof *c->ranges);
		if (rc)
			return rc;
	}
	fit_range *r = c->ranges + c->range_count;
	uint64_t lo = c->amin, hi = c->amax;
	if (!c->radj && c->v->pool_count == 1) {
		/* the common case, kept tight: one pool, no rules */
		for (uint32_t i = 0; i < count; i++) {
			uint64_t a = sp[i].off + 1 > size ? sp[i].off + 1 - size
			                                  : 0;
			r->a = a;
			r->b = sp[i].end;
			if (a < sp[i].end) {
				lo = a < lo ? a : lo;
				hi = a > hi ? a : hi;
				r++;
			}
		}
	} else {
		for (uint32_t i = 0; i < count; i++) {
			if (who[i].pool != pool)
				continue;
			if (fit_forbidden(c, size, &sp[i], who[i].buf, &r->a,
			                  &r->b)) {
				lo = r->a < lo ? r->a : lo;
				hi = r->a > hi ? r->a : hi;
				r++;
			}
		}
	}
	c->amin = lo;
	c->amax = hi;
	c->range_count = (size_t)(r - c->ranges);
	return USMP_OK;
}

/* Fill c->ranges with the start offsets that buffer b may not take in pool
 * p, one range per placed conflicting buffer there, each buffer once: live
 * ones alive at b's begin (the leaf's root path: a buffer sits in at most
 * one node on it), live ones beginning inside b's range (never in the first
 * set), then edge neighbours not already met. */
static int fit_ranges(fit_ctx *c, uint32_t b, uint32_t p)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	int rc;
	c->range_count = 0;
	c->amin = UINT64_MAX;
	c->amax = 0;
	if (fit_live(v, b) && c->tcount) {
		uint32_t l = c->lo[b], r = c->hi[b];
		for (uint64_t node = (uint64_t)l + c->tsize; node; node >>= 1)
			if ((rc = fit_add_spans(c, size, p,
			                        c->narr + c->nlist[node].start,
			                        c->nwho + c->nlist[node].start,
			                        (uint32_t)c->nlist[node].cnt)))
				return rc;
		/* The beginners of leaves l+1..r fill one stretch of sarr,
		 * with empty slots for those not placed yet: read it in one
		 * go unless it is mostly empty, else visit the leaves that
		 * have a placed beginner. */
		if (l < r) {
			uint64_t from = c->slist[l + 1].start;
			uint64_t to = r + 1 < c->tcount ? c->slist[r + 1].start
			                                : c->slive;
			uint64_t placed = fit_placed_before(c, r + 1) -
			                  fit_placed_before(c, l + 1);
			if (placed * 8 >= to - from) {
				if ((rc = fit_add_spans(c, size, p, c->sarr + from,
				                        c->swho + from,
				                        (uint32_t)(to - from))))
					return rc;
			} else {
				for (uint32_t j = fit_next_start(c, l + 1, r);
				     j != FIT_NONE; j = fit_next_start(c, j + 1, r))
					if ((rc = fit_add_spans(
						     c, size, p,
						     c->sarr + c->slist[j].start,
						     c->swho + c->slist[j].start,
						     (uint32_t)c->slist[j].cnt)))
						return rc;
			}
		}
	}
	if (!v->conflict_start || !v->conflict_adj)
		return USMP_OK;
	for (uint64_t k = v->conflict_start[b]; k < v->conflict_start[b + 1];
	     k++) {
		uint32_t o = v->conflict_adj[k];
		if (o == b || o >= c->n || c->owner[o].pool != p ||
		    usmp_live_overlap(v, b, o))
			continue;
		if ((rc = fit_add_spans(c, size, p, &c->place[o], &c->owner[o],
		                        1)))
			return rc;
	}
	return USMP_OK;
}

/* ---- placing one buffer -------------------------------------------------- */

/* Find an offset for b in pool p. USMP_OK with *found and *x set, or an
 * error (out of memory). */
static int fit_in_pool(fit_ctx *c, uint32_t b, uint32_t p, bool *found_out,
                       uint64_t *x)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, p);
	uint64_t limit = v->pools[p].size_limit;
	*found_out = false;
	int rc = fit_ranges(c, b, p);
	if (rc)
		return rc;
	size_t k = c->range_count;

	fit_scan st = { .size = size, .align = align, .limit = limit,
	                .best_fit = c->best_fit, .best_len = UINT64_MAX };
	if ((rc = fit_scan_sorted(c, &st, c->ranges, k)))
		return rc;
	if (st.found) {
		*x = st.best_x;
		*found_out = true;
		return USMP_OK;
	}
	/* The open space above everything (when the scan stopped early, s is
	 * below the gap that already exceeded the limit, so this fails too). */
	bool ok = true;
	uint64_t cx = usmp_align_up(st.s, align, &ok);
	uint64_t endx = cx + size;
	if (ok && endx >= cx && endx <= limit) {
		*x = cx;
		*found_out = true;
	}
	return USMP_OK;
}

/* b's offset in pool 0 through the gap index. */
static bool fit_gap_place(fit_ctx *c, uint32_t b, uint64_t *x)
{
	const usmp_view *v = c->v;
	bool live = fit_live(v, b) && c->tcount;
	uint32_t lo = live ? c->lo[b] : 0, hi = live ? c->hi[b] : 0;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, 0);
	uint64_t limit = v->pools[0].size_limit;
	if (c->best_fit)
		return usmp__fit_gidx_best(&c->gidx, live, lo, hi, size, align,
		                           limit, x);
	return usmp__fit_gidx_first(&c->gidx, live, lo, hi, size, align, limit,
	                            x);
}

static int fit_put(fit_ctx *c, uint32_t b, uint32_t p, uint64_t x)
{
	c->work[b].pool = p;
	c->work[b].reserved = 0;
	c->work[b].offset = x;
	uint64_t end = fit_sat_add(x, c->v->buffers[b].size);
	if (c->gap) /* no spans or owners: the index holds the offsets */
		return c->tcount && fit_live(c->v, b)
		               ? usmp__fit_gidx_insert(&c->gidx, c->lo[b],
		                                       c->hi[b], x, end)
		               : USMP_OK;
	c->owner[b].pool = p;
	c->owner[b].buf = b;
	c->place[b].off = x;
	c->place[b].end = end;
	if (c->tcount && fit_live(c->v, b))
		fit_index_insert(c, b);
	return USMP_OK;
}

/* Prepare placing b: a fresh query id and b's rule partners. */
static void fit_begin(fit_ctx *c, uint32_t b)
{
	if (!c->radj)
		return;
	if (c->qid == UINT32_MAX) {
		memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
		c->qid = 0;
	}
	c->qid++;
	fit_rules_mark(c, b);
}

static int fit_place(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	fit_begin(c, b);
	for (uint32_t i = 0; i < r->candidate_count; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		uint64_t x;
		bool found;
		if (p >= v->pool_count)
			continue;
		if (c->gap) {
			found = fit_gap_place(c, b, &x);
		} else {
			int rc = fit_in_pool(c, b, p, &found, &x);
			if (rc)
				return rc;
		}
		if (found)
			return fit_put(c, b, p, x);
	}
	snprintf(c->msg, sizeof c->msg,
	         "%s: buffer \"%s\" (%llu bytes) fits in none of its %u "
	         "candidate pool(s)",
	         c->algo, r->name ? r->name : "?", (unsigned long long)r->size,
	         r->candidate_count);
	return USMP_ERR_INFEASIBLE;
}

static bool fit_edge(const usmp_view *v, uint32_t a, uint32_t b)
{
	if (!v->conflict_start || !v->conflict_adj)
		return false;
	uint64_t l = v->conflict_start[a], r = v->conflict_start[a + 1];
	while (l < r) {
		uint64_t m = l + (r - l) / 2;
		if (v->conflict_adj[m] < b)
			l = m + 1;
		else
			r = m;
	}
	return l < v->conflict_start[a + 1] && v->conflict_adj[l] == b;
}

/* Fixed buffer c->seq[i] collides with an earlier fixed one: name both. */
static void fit_fixed_clash(fit_ctx *c, uint32_t i)
{
	const usmp_view *v = c->v;
	uint32_t b = c->seq[i];
	const usmp_buffer_rec *r = &v->buffers[b];
	const char *other = "?";
	for (uint32_t j = 0; j < i; j++) {
		uint32_t o = c->seq[j];
		uint64_t a, e;
		if (c->owner[o].pool != r->fixed_pool ||
		    !(usmp_live_overlap(v, b, o) || fit_edge(v, b, o)) ||
		    !fit_forbidden(c, r->size, &c->place[o], o, &a, &e) ||
		    r->fixed_offset < a || r->fixed_offset >= e)
			continue;
		other = v->buffers[o].name ? v->buffers[o].name : "?";
		break;
	}
	snprintf(c->msg, sizeof c->msg,
	         "%s: fixed buffers \"%s\" and \"%s\" overlap in pool \"%s\"",
	         c->algo, other, r->name ? r->name : "?",
	         v->pools[r->fixed_pool].name);
}

/* Put the fixed buffers (c->seq[0..count)) in place, checking they do not
 * collide with each other. */
static int fit_place_fixed(fit_ctx *c, uint32_t count)
{
	const usmp_view *v = c->v;
	int rc;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t b = c->seq[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->fixed_pool >= v->pool_count) {
			snprintf(c->msg, sizeof c->msg,
			         "%s: fixed buffer \"%s\" names pool %u of %u",
			         c->algo, r->name ? r->name : "?", r->fixed_pool,
			         v->pool_count);
			return USMP_ERR_INVALID;
		}
		fit_begin(c, b);
		if ((rc = fit_ranges(c, b, r->fixed_pool)))
			return rc;
		for (size_t j = 0; j < c->range_count; j++) {
			const fit_range *fr = &c->ranges[j];
			if (r->fixed_offset < fr->a || r->fixed_offset >= fr->b)
				continue;
			fit_fixed_clash(c, i);
			return USMP_ERR_INFEASIBLE;
		}
		if ((rc = fit_put(c, b, r->fixed_pool, r->fixed_offset)))
			return rc;
	}
	return USMP_OK;
}

/* ---- one order, all orders ---------------------------------------------- */

/* c->seq = fixed buffers (index order), then the others in `order`;
 * *nfixed gets the number of fixed ones. */
static int fit_make_seq(fit_ctx *c, int order, uint32_t *nfixed)
{
	const usmp_view *v = c->v;
	uint32_t k = 0, f = 0;
	/* the keys live only here: the index needs the room while placing */
	c->keys = host_array(c->h, c->n, sizeof *c->keys);
	c->ktmp = host_array(c->h, c->n, sizeof *c->ktmp);
	if (!c->keys || !c->ktmp)
		return USMP_ERR_NOMEM;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (fit_fixed(v, b)) {
			c->seq[f++] = b;
			continue;
		}
		uint64_t life = fit_live(v, b) ? (uint64_t)r->end -
		                                     (uint64_t)r->begin
		                               : 0;
		uint64_t k1;
		switch (order) {
		case FIT_ORDER_LIFETIME: k1 = life; break;
		case FIT_ORDER_AREA: k1 = fit_sat_mul(r->size, life); break;
		case FIT_ORDER_CONFLICTS: k1 = v->degree ? v->degree[b] : 0; break;
		default: k1 = r->size; break;
		}
		c->keys[k].k1 = k1;
		c->keys[k].k2 = r->size;
		c->keys[k].idx = b;
		k++;
	}
	/* k1 desc, then size desc, then index (the keys are in index order,
	 * and each pass is stable) */
	if (k) {
		if (order != FIT_ORDER_SIZE)
			FIT_RADIX_SORT(fit_key, c->keys, c->ktmp, (size_t)k,
			               FIT_KEY_K2);
		FIT_RADIX_SORT(fit_key, c->keys, c->ktmp, (size_t)k, FIT_KEY_K1);
	}
	for (uint32_t i = 0; i < k; i++)
		c->seq[f + i] = c->keys[i].idx;
	*nfixed = f;
	host_release(c->h, c->keys);
	host_release(c->h, c->ktmp);
	c->keys = c->ktmp = NULL;
	return USMP_OK;
}

static uint64_t fit_total(const fit_ctx *c, uint64_t *hw)
{
	const usmp_view *v = c->v;
	memset(hw, 0, (size_t)v->pool_count * sizeof *hw);
	for (uint32_t b = 0; b < c->n; b++) {
		uint32_t p = c->work[b].pool;
		if (p >= v->pool_count)
			continue;
		uint64_t e = fit_sat_add(c->work[b].offset, v->buffers[b].size);
		if (e > hw[p])
			hw[p] = e;
	}
	uint64_t t = 0;
	for (uint32_t p = 0; p < v->pool_count; p++)
		t = fit_sat_add(t, hw[p]);
	return t;
}

/* Plan the whole view in one order into c->work. */
static int fit_run(fit_ctx *c, int order)
{
	int rc;
	for (uint32_t b = 0; b < c->n; b++) {
		c->work[b].pool = USMP_NO_POOL;
		c->work[b].reserved = 0;
		c->work[b].offset = 0;
		if (c->owner)
			c->owner[b].pool = USMP_NO_POOL;
	}
	uint32_t nfixed;
	if ((rc = fit_make_seq(c, order, &nfixed)))
		return rc;
	fit_index_reset(c);
	if (c->radj)
		memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
	c->qid = 0;
	if ((rc = fit_place_fixed(c, nfixed)))
		return rc;
	for (uint32_t i = nfixed; i < c->n; i++) {
		if ((i - nfixed) % FIT_STOP_EVERY == FIT_STOP_EVERY - 1 &&
		    c->h->should_stop(c->h))
			return USMP_ERR_STOPPED;
		if ((rc = fit_place(c, c->seq[i])))
			return rc;
	}
	return USMP_OK;
}

static int fit_parse_order(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "all"))
		return FIT_ORDER_COUNT;
	for (int i = 0; i < FIT_ORDER_COUNT; i++)
		if (!strcmp(s, fit_order_names[i]))
			return i;
	return -1;
}

static void fit_log(const fit_ctx *c, int level, const char *msg)
{
	if (c->h->log)
		c->h->log(c->h, level, msg);
}

static void fit_release(fit_ctx *c)
{
	void *ptrs[] = {
		c->work, c->place, c->owner, c->times, c->lo, c->hi, c->nlist,
		c->narr, c->nwho, c->slist, c->sarr, c->swho, c->bits0, c->bits1,
		c->fen,
		c->seq, c->rule_stamp, c->rule_flags, c->fwd_lead, c->rev_lead,
		c->rstart, c->radj, c->ranges, c->keys, c->ktmp, c->bucket,
		c->sorted, c->hw
	};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		host_release(c->h, ptrs[i]);
	usmp__fit_gidx_free(&c->gidx);
}

/* Whether first_fit may use the gap index: one pool, no overlap rules, no
 * conflict edges, no fixed buffers, no empty buffers (an empty buffer
 * collides only strictly inside another, which merged intervals lose). */
static bool fit_gap_usable(const usmp_view *v)
{
#ifdef USMP_FIT_REFERENCE
	/* the test-only reference build: the lists for every problem */
	(void)v;
	return false;
#endif
	if (v->pool_count != 1 || v->overlap_count ||
	    (v->conflict_start && v->conflict_adj &&
	     v->conflict_start[v->buffer_count]))
		return false;
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (fit_fixed(v, b) || v->buffers[b].size == 0)
			return false;
	return true;
}

/* Check the call: host table, order and live ranges. USMP_OK with *order
 * set, else the status to return (the reason logged). */
static int fit_check_call(const fit_ctx *c, const char *order_s, int *order)
{
	const usmp_view *v = c->v;
	const usmp_host *h = c->h;
	char m[256];
	if (!v || !h || !c->out || v->struct_size < sizeof(usmp_view) ||
	    !USMP_HAS_FIELD(h, usmp_host, for_each_neighbor) || !h->alloc ||
	    !h->realloc || !h->free || !h->should_stop)
		return USMP_ERR_INVALID;
	*order = fit_parse_order(order_s);
	if (*order < 0) {
		snprintf(m, sizeof m,
		         "%s: unknown order \"%.64s\" (expected size, lifetime, "
		         "area, conflicts or all)",
		         c->algo, order_s ? order_s : "(null)");
		fit_log(c, USMP_LOG_ERROR, m);
		return USMP_ERR_INVALID;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (fit_live(v, b) && r->end <= r->begin) {
			snprintf(m, sizeof m,
			         "%s: buffer \"%.64s\" has an empty live range",
			         c->algo, r->name ? r->name : "?");
			fit_log(c, USMP_LOG_ERROR, m);
			return USMP_ERR_INVALID;
		}
	}
	return USMP_OK;
}

/* Allocate the per-buffer arrays, the overlap rules and the index. */
static int fit_setup(fit_ctx *c)
{
	size_t n = c->n;
	int rc;
	c->gap = fit_gap_usable(c->v);
	c->work = host_array(c->h, n, sizeof *c->work);
	c->times = host_array(c->h, n, sizeof *c->times);
	c->lo = host_array(c->h, n, sizeof *c->lo);
	c->hi = host_array(c->h, n, sizeof *c->hi);
	c->seq = host_array(c->h, n, sizeof *c->seq);
	c->hw = host_array(c->h, c->v->pool_count, sizeof *c->hw);
	if (!c->work || !c->times || !c->lo || !c->hi || !c->seq || !c->hw)
		return USMP_ERR_NOMEM;
	if (c->v->overlap_count) {
		c->rule_stamp = host_array(c->h, n, sizeof *c->rule_stamp);
		c->rule_flags = host_array(c->h, n, sizeof *c->rule_flags);
		c->fwd_lead = host_array(c->h, n, sizeof *c->fwd_lead);
		c->rev_lead = host_array(c->h, n, sizeof *c->rev_lead);
		if (!c->rule_stamp || !c->rule_flags || !c->fwd_lead ||
		    !c->rev_lead)
			return USMP_ERR_NOMEM;
		if ((rc = fit_rules_build(c)))
			return rc;
	}
	if ((rc = fit_index_build(c)))
		return rc;
	if (!c->gap) { /* the lists' spans and owners */
		c->place = host_array(c->h, n, sizeof *c->place);
		c->owner = host_array(c->h, n, sizeof *c->owner);
		if (!c->place || !c->owner)
			return USMP_ERR_NOMEM;
	}
	/* the begin times only laid out the index */
	host_release(c->h, c->times);
	c->times = NULL;
	return USMP_OK;
}

/* order=all: plan in every order, keep the smallest plan in c->out. */
static int fit_run_all(fit_ctx *c)
{
	const usmp_view *v = c->v;
	const usmp_host *h = c->h;
	bool have = false;
	uint64_t best = UINT64_MAX;
	int last = USMP_ERR_INFEASIBLE;
	for (int o = 0; o < FIT_ORDER_COUNT; o++) {
		if (have && (best <= v->lower_bound || h->should_stop(h)))
			break;
		c->msg[0] = '\0';
		int rc = fit_run(c, o);
		if (rc == USMP_ERR_STOPPED && have)
			break;
		if (rc == USMP_ERR_INFEASIBLE) {
			last = rc;
			continue;
		}
		if (rc)
			return rc;
		uint64_t t = fit_total(c, c->hw);
		if (!have || t < best) {
			have = true;
			best = t;
			memcpy(c->out, c->work, (size_t)c->n * sizeof *c->out);
			if (h->progress)
				h->progress(h, best);
		}
	}
	return have ? USMP_OK : last;
}

static int fit_main(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const char *order_s, int best_fit,
                    const char *algo)
{
	fit_ctx c;
	memset(&c, 0, sizeof c);
	c.v = v;
	c.h = h;
	c.out = out;
	c.algo = algo;
	c.best_fit = best_fit;
	int order;
	int rc = fit_check_call(&c, order_s, &order);
	if (rc || v->buffer_count == 0)
		return rc;
	c.n = v->buffer_count;
	rc = fit_setup(&c);
	if (rc == USMP_ERR_NOMEM && !c.msg[0])
		snprintf(c.msg, sizeof c.msg,
		         "%s: out of memory for %u buffers", algo, c.n);
	if (rc)
		goto fail;
	if (order == FIT_ORDER_COUNT) {
		rc = fit_run_all(&c);
	} else if ((rc = fit_run(&c, order)) == USMP_OK) {
		memcpy(out, c.work, (size_t)c.n * sizeof *out);
		if (h->progress)
			h->progress(h, fit_total(&c, c.hw));
	}
	if (rc)
		goto fail;
	fit_release(&c);
	return USMP_OK;
fail:
	if (c.msg[0])
		fit_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	fit_release(&c);
	return rc;
}

static int first_fit(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const char *order)
{
	return fit_main(v, h, out, order, 0, "first_fit");
}

static int best_fit(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const char *order)
{
	return fit_main(v, h, out, order, 1, "best_fit");
}

#define FIT_CAPS                                                               \
	(USMP_CAP_MULTI_POOL | USMP_CAP_OVERLAP_RULES | USMP_CAP_FIXED_OFFSETS | \
	 USMP_CAP_DETERMINISTIC | USMP_CAP_EXPLICIT_CONFLICTS)

#define FIT_ORDER_HELP                                                         \
	"order: buffer order: size, lifetime, area (size*lifetime), conflicts "  \
	"(degree), all (each of them, keep the smallest plan)"

static const usmp_algorithm fit_first = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = FIT_CAPS,
	.name = "first_fit",
	.summary = "each buffer at the lowest offset that fits between placed "
	           "conflicting buffers (TFLite Micro greedy)",
	.params = "order:str=size",
	.fn = (usmp_algorithm_fn)first_fit,
	.param_help = FIT_ORDER_HELP,
};

static const usmp_algorithm fit_best = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = FIT_CAPS,
	.name = "best_fit",
	.summary = "each buffer in the smallest gap between placed conflicting "
	           "buffers that holds it (XLA heap simulator)",
	.params = "order:str=size",
	.fn = (usmp_algorithm_fn)best_fit,
	.param_help = FIT_ORDER_HELP,
};

static const usmp_algorithm *const fit_algorithms[] = { &fit_first,
	                                                &fit_best };

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "fit",
	.version = "1.0.0",
	.license = "Apache-2.0",
	.algorithm_count = 2,
	.reserved = 0,
	.algorithms = fit_algorithms,
};
