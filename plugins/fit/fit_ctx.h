/* fit_ctx.h — what the files of the fit plugin share: the context of one
 * call (spans, time index, rule partners, forbidden ranges) and small helpers.
 *
 * fit.c holds the entry points, fit_order.c the buffer orders and runs,
 * fit_place.c one buffer's placement, fit_fixed.c the fixed buffers,
 * fit_time_index.c the time index and its query, fit_rules.c the overlap
 * rules and what a placed span forbids, fit_scan.c the gap scan over the
 * forbidden ranges, fit_index.c the gap index, fit_gap_choice.c which
 * placements the gap index answers. Internal names across files start with
 * usmp__fit_. */
#ifndef USMP_FIT_CTX_H
#define USMP_FIT_CTX_H

#include <usmp/plugin.h>

#include "../host_mem.h"
#include "fit_index.h"

#include <string.h>

enum fit_order {
	FIT_ORDER_SIZE,
	FIT_ORDER_LIFETIME,
	FIT_ORDER_AREA,
	FIT_ORDER_CONFLICTS,
	FIT_ORDER_COUNT
};

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

/* The gap index serves problems of at most this many pools (one index
 * each). */
#define FIT_GAP_POOLS 4

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

	/* The gap index (fit_index.h), one per pool, when c->gap: it answers
	 * the placements of the buffers with serve[b] (fit_gap_choice.c) and
	 * holds every placed buffer of positive size with a live range, in
	 * pool p when gpool[p] (some served buffer may go there). The lists
	 * above (and place, owner) are kept when c->lists: without the gap
	 * index, or when some buffer is not served; they then hold every
	 * placed buffer too. */
	bool gap, lists;
	bool gpool[FIT_GAP_POOLS];
	usmp__fit_gidx *gidx; /* [pool_count] */
	uint8_t *serve;       /* [n] */

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

	/* A placement over several candidate pools from the lists
	 * (fit_place.c): the forbidden ranges of every pool gathered in one
	 * walk (gather; rpool: each range's pool), then grouped by candidate:
	 * candidate i's in pranges[pbeg[i - 1] .. pbeg[i]) (pbeg[-1]: 0),
	 * their lowest and highest start in pmin[i], pmax[i]. A pool's
	 * candidate index is pslot[p] while pstamp[p] == pqid. */
	bool gather;
	uint32_t *rpool;
	size_t rpool_cap;
	fit_range *pranges;
	size_t pranges_cap;
	size_t *pbeg;
	uint64_t *pmin, *pmax;
	size_t pcand_cap;
	uint32_t *pslot, *pstamp; /* [pool_count] */
	uint32_t pqid;

	fit_key *keys, *ktmp;
	usmp_placement *out; /* the caller's plan */
	uint64_t *hw;        /* [pools] high-water marks */
	char msg[512];
} fit_ctx;

/* ---- small helpers ------------------------------------------------------ */

static inline int fit_grow(fit_ctx *c, void **arr, size_t *cap, size_t need,
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

static inline uint64_t fit_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r < a ? UINT64_MAX : r;
}

static inline uint64_t fit_sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

/* |s| as unsigned, correct for INT64_MIN. */
static inline uint64_t fit_mag(int64_t s)
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

static inline bool fit_live(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_LIVE) != 0;
}

static inline bool fit_fixed(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_FIXED) != 0;
}

/* The gap scan of one placement over forbidden ranges in order of start:
 * every start offset below s is forbidden or already scanned. */
typedef struct fit_scan {
	uint64_t size, align, limit;
	int best_fit;
	bool found, stop;
	uint64_t s, best_x, best_len;
} fit_scan;

/* ---- across files ------------------------------------------------------- */

/* fit_scan.c: scan r[0..n) (c->amin, c->amax: its lowest and highest
 * start) in order of start, without a comparison sort of all of it. */
int usmp__fit_scan_sorted(fit_ctx *c, fit_scan *st, fit_range *r, size_t n);

/* fit_time_index.c: lay out the time index (and the gap index when c->gap);
 * mark nothing placed; record placed live buffer b; fill c->ranges with
 * the start offsets b may not take in pool p. */
int usmp__fit_index_build(fit_ctx *c);
void usmp__fit_index_reset(fit_ctx *c);
void usmp__fit_index_insert(fit_ctx *c, uint32_t b);
int usmp__fit_ranges(fit_ctx *c, uint32_t b, uint32_t p);

/* fit_gap_choice.c: with the tree's leaves laid out (cover: the sum of
 * the live buffers' leaf counts, live: their number), choose the buffers
 * the gap index serves, set c->lists, make the pools' indexes; release
 * them. */
int usmp__fit_gap_setup(fit_ctx *c, uint64_t cover, uint32_t live);
void usmp__fit_gap_release(fit_ctx *c);

/* Whether b's placement asks the gap index (else the lists). */
static inline bool usmp__fit_gap_serves(const fit_ctx *c, uint32_t b)
{
	return c->gap && c->serve[b];
}

/* fit_rules.c: the overlap rules by endpoint; b's rule partners; the
 * start offsets a placed span forbids; the ranges of count spans. */
int usmp__fit_rules_build(fit_ctx *c);
void usmp__fit_rules_mark(fit_ctx *c, uint32_t b);
bool usmp__fit_forbidden(const fit_ctx *c, uint64_t s, const fit_span *sp,
                         uint32_t o, uint64_t *pa, uint64_t *pb);
int usmp__fit_add_spans(fit_ctx *c, uint64_t size, uint32_t pool,
                        const fit_span *sp, const fit_who *who, uint32_t count);

/* fit_place.c: place b in its first candidate pool where it fits (an
 * error names it when none); record b at x in pool p; prepare placing b. */
int usmp__fit_place(fit_ctx *c, uint32_t b);
int usmp__fit_put(fit_ctx *c, uint32_t b, uint32_t p, uint64_t x);
void usmp__fit_begin(fit_ctx *c, uint32_t b);

/* fit_fixed.c: put the fixed buffers c->seq[0..count) in place. */
int usmp__fit_place_fixed(fit_ctx *c, uint32_t count);

/* fit_order.c: an order's name (FIT_ORDER_COUNT for "all", -1 unknown);
 * the pools' high-water marks of c->work and their sum; plan in one
 * order into c->work; plan in every order, keep the smallest in c->out. */
int usmp__fit_parse_order(const char *s);
uint64_t usmp__fit_total(const fit_ctx *c, uint64_t *hw);
int usmp__fit_run(fit_ctx *c, int order);
int usmp__fit_run_all(fit_ctx *c);

#endif
