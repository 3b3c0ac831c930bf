/* verify.c — the independent plan verifier: candidacy, alignment, limits,
 * fixed placements, conflicts and overlap rules, checked without all pairs. */
#include "view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * The verifier shares no code with any algorithm. Per-buffer facts are
 * checked one buffer at a time. Explicit edges are checked pair by pair
 * from the CSR. Live-range conflicts are checked by a sweep over time: every
 * live buffer gets a rank by (pool, offset, index); a segment tree over the
 * ranks holds, for each buffer alive now, its end address (0 when not
 * alive). When a buffer starts, the buffers alive now in its pool that start
 * below its end are a rank interval, and those among them ending above its
 * offset (the tree's max lets us find them leftmost first, O(log n) each)
 * overlap it. Without overlap rules the first one found is a violation, so
 * the sweep is O(n log n). With rules, every overlapping one must be a rule
 * partner whose rule holds, so the walk per buffer is bounded by its rules.
 * Ends are processed before begins at equal times (ranges are half-open).
 *
 * Without overlap rules the buffers alive in a pool never overlap until the
 * first violation, so a buffer that starts overlaps one of them exactly when
 * it overlaps its neighbours by rank (sizes are positive: the alive ones
 * are disjoint and ordered by offset). That sweep (sweep_neighbours) keeps
 * the alive ranks in a bit set with a summary bit per word, level over
 * level, and asks for the two neighbours only; it needs no end ranks. When
 * it finds a violation, the segment-tree sweep runs to report it, so the
 * message names the same pair whichever sweep found it.
 */

#define NONE SIZE_MAX

typedef struct rule_ix {
	uint64_t *keys;  /* (src << 32 | dst), sorted, unique */
	int64_t *leads;  /* the largest max_lead of that pair */
	size_t count;
} rule_ix;

static void rule_ix_finish(rule_ix *r)
{
	free(r->keys);
	free(r->leads);
}

static int rule_ix_build(rule_ix *r, const usmp_view *v)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t *idx = NULL;
	uint64_t m = v->overlaps ? v->overlap_count : 0;
	memset(r, 0, sizeof *r);
	if (m > UINT32_MAX)
		return USMP_ERR_INVALID;
	size_t sz = m ? (size_t)m : 1;
	r->keys = malloc(sz * sizeof *r->keys);
	r->leads = malloc(sz * sizeof *r->leads);
	idx = malloc(sz * sizeof *idx);
	if (!r->keys || !r->leads || !idx)
		goto fail;
	size_t k = 0;
	for (uint64_t i = 0; i < m; i++) {
		const usmp_overlap_rec *o = &v->overlaps[i];
		if (o->src >= v->buffer_count || o->dst >= v->buffer_count)
			continue;
		r->keys[k] = (uint64_t)o->src << 32 | o->dst;
		idx[k++] = (uint32_t)i;
	}
	if ((rc = usmp__sort_pairs(r->keys, idx, k)) != USMP_OK)
		goto fail;
	size_t w = 0;
	for (size_t i = 0; i < k; i++) {
		int64_t lead = v->overlaps[idx[i]].max_lead;
		if (w && r->keys[w - 1] == r->keys[i]) {
			if (lead > r->leads[w - 1])
				r->leads[w - 1] = lead;
			continue;
		}
		r->keys[w] = r->keys[i];
		r->leads[w++] = lead;
	}
	r->count = w;
	free(idx);
	return USMP_OK;
fail:
	free(idx);
	rule_ix_finish(r);
	memset(r, 0, sizeof *r);
	return rc;
}

/* The rule (src, dst), or NULL. */
static const int64_t *rule_find(const rule_ix *r, uint32_t src, uint32_t dst)
{
	uint64_t key = (uint64_t)src << 32 | dst;
	size_t i = usmp__first_ge_u64(r->keys, r->count, key);
	return i < r->count && r->keys[i] == key ? &r->leads[i] : NULL;
}

/* offset(dst) <= offset(src) + lead, without overflow. */
static bool lead_holds(uint64_t os, uint64_t od, int64_t lead)
{
	if (lead >= 0)
		return od <= os || od - os <= (uint64_t)lead;
	uint64_t back = (uint64_t)(-(lead + 1)) + 1;
	return od < os && os - od >= back;
}

/* Two conflicting buffers a < b in one pool whose bytes intersect at
 * [lo, hi): USMP_OK when a rule allows it, else the message. */
static int check_pair(const usmp_view *v, const usmp_placement *pl,
                      const rule_ix *rules, uint32_t a, uint32_t b,
                      const char *why, char **msg, uint32_t *pair)
{
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	uint64_t oa = pl[a].offset, ob = pl[b].offset;
	const int64_t *ab = rule_find(rules, a, b), *ba = rule_find(rules, b, a);
	if ((ab && lead_holds(oa, ob, *ab)) || (ba && lead_holds(ob, oa, *ba)))
		return USMP_OK;
	if (pair) {
		pair[0] = a;
		pair[1] = b;
	}
	uint64_t lo = oa > ob ? oa : ob;
	uint64_t ea = oa + v->buffers[a].size, eb = ob + v->buffers[b].size;
	uint64_t hi = ea < eb ? ea : eb;
	const char *na = v->buffers[a].name, *nb = v->buffers[b].name;
	const char *pn = v->pools[pl[a].pool].name;
	if (ab || ba) {
		uint32_t s = ab ? a : b, d = ab ? b : a;
		int64_t lead = ab ? *ab : *ba;
		usmp__set_msg(msg,
		              "buffers \"%s\" and \"%s\" overlap in pool \"%s\" at "
		              "bytes [%" PRIu64 ", %" PRIu64 ") %s, and their overlap "
		              "rule needs offset(\"%s\") %" PRIu64 " <= offset(\"%s\") "
		              "%" PRIu64 " + max_lead %" PRId64,
		              na, nb, pn, lo, hi, why, v->buffers[d].name,
		              pl[d].offset, v->buffers[s].name, pl[s].offset, lead);
	} else {
		usmp__set_msg(msg,
		              "buffers \"%s\" and \"%s\" overlap in pool \"%s\" at "
		              "bytes [%" PRIu64 ", %" PRIu64 ") %s",
		              na, nb, pn, lo, hi, why);
	}
	return USMP_ERR_INVALID_PLAN;
}

static int check_buffer(const usmp_view *v, const usmp_placement *pl,
                        uint32_t b, char **msg)
{
	const usmp_buffer_rec *r = &v->buffers[b];
	uint32_t q = pl[b].pool;
	uint64_t off = pl[b].offset;
	if (q == USMP_NO_POOL) {
		usmp__set_msg(msg, "buffer \"%s\" has no pool", r->name);
		return USMP_ERR_INVALID_PLAN;
	}
	if (q >= v->pool_count) {
		usmp__set_msg(msg, "buffer \"%s\": pool index %" PRIu32
		                   " does not exist (%" PRIu32 " pool%s)",
		              r->name, q, v->pool_count, usmp__s(v->pool_count));
		return USMP_ERR_INVALID_PLAN;
	}
	const usmp_pool_rec *pool = &v->pools[q];
	if ((r->flags & USMP_BUFFER_FIXED) &&
	    (q != r->fixed_pool || off != r->fixed_offset)) {
		const char *fp = r->fixed_pool < v->pool_count
		                         ? v->pools[r->fixed_pool].name
		                         : "?";
		usmp__set_msg(msg, "buffer \"%s\" is fixed at offset %" PRIu64
		                   " in pool \"%s\" but placed at offset %" PRIu64
		                   " in pool \"%s\"",
		              r->name, r->fixed_offset, fp, off, pool->name);
		return USMP_ERR_INVALID_PLAN;
	}
	bool cand = false;
	for (uint32_t c = 0; c < r->candidate_count && !cand; c++)
		cand = v->candidates[r->candidate_start + c] == q;
	if (!cand) {
		usmp__set_msg(msg, "buffer \"%s\": pool \"%s\" is not among its "
		                   "candidate pools", r->name, pool->name);
		return USMP_ERR_INVALID_PLAN;
	}
	uint64_t ab = r->alignment ? r->alignment : 1;
	uint64_t ap = pool->alignment ? pool->alignment : 1;
	uint64_t a = ab > ap ? ab : ap;
	if (off % a != 0) {
		if (ab >= ap)
			usmp__set_msg(msg, "buffer \"%s\": offset %" PRIu64 " is not a "
			                   "multiple of its alignment %" PRIu64,
			              r->name, off, a);
		else
			usmp__set_msg(msg, "buffer \"%s\": offset %" PRIu64 " is not a "
			                   "multiple of its alignment %" PRIu64
			                   " in pool \"%s\"",
			              r->name, off, a, pool->name);
		return USMP_ERR_INVALID_PLAN;
	}
	if (off > UINT64_MAX - r->size) {
		usmp__set_msg(msg, "buffer \"%s\": offset %" PRIu64 " + size %" PRIu64
		                   " overflows", r->name, off, r->size);
		return USMP_ERR_INVALID_PLAN;
	}
	if (off + r->size > pool->size_limit) {
		usmp__set_msg(msg, "buffer \"%s\" at bytes [%" PRIu64 ", %" PRIu64
		                   ") exceeds the size limit %" PRIu64 " of pool \"%s\"",
		              r->name, off, off + r->size, pool->size_limit,
		              pool->name);
		return USMP_ERR_INVALID_PLAN;
	}
	return USMP_OK;
}

/* Leftmost leaf in [lo, hi) of the max tree t (node covers [nl, nr)) whose
 * value exceeds x, or NONE. O(log n). */
static size_t seg_first(const uint64_t *t, size_t node, size_t nl, size_t nr,
                        size_t lo, size_t hi, uint64_t x)
{
	if (nr <= lo || hi <= nl || t[node] <= x)
		return NONE;
	if (nr - nl == 1)
		return nl;
	size_t mid = nl + (nr - nl) / 2;
	size_t r = seg_first(t, 2 * node, nl, mid, lo, hi, x);
	return r != NONE ? r : seg_first(t, 2 * node + 1, mid, nr, lo, hi, x);
}

static void seg_set(uint64_t *t, size_t width, size_t i, uint64_t val)
{
	size_t k = width + i;
	t[k] = val;
	for (k /= 2; k >= 1; k /= 2) {
		uint64_t m = t[2 * k] > t[2 * k + 1] ? t[2 * k] : t[2 * k + 1];
		if (t[k] == m)
			break; /* unchanged here, so unchanged above */
		t[k] = m;
	}
}

/* What the sweep reads of a rank, together (one cache line, not four). */
typedef struct ranked_rec {
	uint64_t off, end; /* bytes [off, end) */
	uint32_t lo, hi;   /* ranks of its pool starting below end: [lo, hi) */
} ranked_rec;

/* The live buffers of a plan ranked by (pool, offset, index), with what the
 * sweep reads per rank, and scratch for the sorts. */
typedef struct live_ranks {
	uint32_t m, P;          /* live buffers; pools */
	uint32_t *ranked;       /* rank -> buffer */
	ranked_rec *rr;         /* per rank: what the sweep reads */
	size_t *pstart, *cur;   /* per pool: first rank (P + 1); a cursor */
	uint64_t *keys;         /* scratch of m */
	uint32_t *ids;          /* scratch of m */
	uint64_t *ek;           /* scratch of m: the ends' times */
	uint32_t *ev;           /* scratch of m: the ends' ranks */
} live_ranks;

/* Room for m live buffers in P pools: USMP_OK or USMP_ERR_NOMEM (then
 * live_ranks_finish frees what was had). */
static int live_ranks_alloc(live_ranks *lr, uint32_t m, uint32_t P)
{
	lr->m = m;
	lr->P = P;
	lr->keys = malloc((size_t)m * sizeof *lr->keys);
	lr->ek = malloc((size_t)m * sizeof *lr->ek);
	lr->rr = malloc((size_t)m * sizeof *lr->rr);
	lr->ids = malloc((size_t)m * sizeof *lr->ids);
	lr->ranked = malloc((size_t)m * sizeof *lr->ranked);
	lr->ev = malloc((size_t)m * sizeof *lr->ev);
	lr->pstart = calloc((size_t)P + 1, sizeof *lr->pstart);
	lr->cur = malloc((P ? P : 1) * sizeof *lr->cur);
	if (!lr->keys || !lr->ek || !lr->rr || !lr->ids || !lr->ranked ||
	    !lr->ev || !lr->pstart || !lr->cur)
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

static void live_ranks_finish(live_ranks *lr)
{
	free(lr->keys);
	free(lr->ek);
	free(lr->rr);
	free(lr->ids);
	free(lr->ranked);
	free(lr->ev);
	free(lr->pstart);
	free(lr->cur);
}

/* Ranks by (pool, offset, index): a stable radix sort by offset over
 * ascending indices, then a stable bucket pass by pool. Fills ranked,
 * rr (but rr[].hi) and pstart. */
static int rank_live(const usmp_view *v, const usmp_placement *pl,
                     live_ranks *lr)
{
	uint32_t n = v->buffer_count, m = lr->m, k = 0;
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			lr->keys[k] = pl[b].offset;
			lr->ids[k++] = b;
		}
	int rc = usmp__sort_pairs(lr->keys, lr->ids, m);
	if (rc != USMP_OK)
		return rc;
	for (uint32_t i = 0; i < m; i++)
		lr->pstart[pl[lr->ids[i]].pool + 1]++;
	for (uint32_t q = 0; q < lr->P; q++)
		lr->pstart[q + 1] += lr->pstart[q];
	memcpy(lr->cur, lr->pstart, (size_t)lr->P * sizeof *lr->cur);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t b = lr->ids[i];
		size_t at = lr->cur[pl[b].pool]++;
		lr->ranked[at] = b;
		lr->rr[at].off = pl[b].offset;
		lr->rr[at].end = pl[b].offset + v->buffers[b].size; /* checked before */
		lr->rr[at].lo = (uint32_t)lr->pstart[pl[b].pool];
	}
	return USMP_OK;
}

/* rr[r].hi: the first rank of r's pool at or past r's end address, by a
 * merge of the ranks in order of end address against the offsets. */
static int rank_ends(const usmp_placement *pl, live_ranks *lr)
{
	uint32_t m = lr->m;
	for (uint32_t r = 0; r < m; r++) {
		lr->keys[r] = lr->rr[r].end;
		lr->ids[r] = r;
	}
	int rc = usmp__sort_pairs(lr->keys, lr->ids, m);
	if (rc != USMP_OK)
		return rc;
	memcpy(lr->cur, lr->pstart, (size_t)lr->P * sizeof *lr->cur);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t r = lr->ids[i];
		uint32_t q = pl[lr->ranked[r]].pool;
		size_t c = lr->cur[q];
		while (c < lr->pstart[q + 1] && lr->rr[c].off < lr->rr[r].end)
			c++;
		lr->cur[q] = c;
		lr->rr[r].hi = (uint32_t)c;
	}
	return USMP_OK;
}

/* The sweep's events by rank: lr->keys/lr->ids the begins, lr->ek/lr->ev
 * the ends, each sorted by time (m of each). */
static int rank_events(const usmp_view *v, live_ranks *lr)
{
	uint32_t m = lr->m;
	for (uint32_t r = 0; r < m; r++) {
		const usmp_buffer_rec *br = &v->buffers[lr->ranked[r]];
		lr->keys[r] = usmp__time_key(br->begin);
		lr->ek[r] = usmp__time_key(br->end);
		lr->ids[r] = lr->ev[r] = r;
	}
	int rc = usmp__sort_pairs(lr->keys, lr->ids, m);
	return rc != USMP_OK ? rc : usmp__sort_pairs(lr->ek, lr->ev, m);
}

static int sweep_live(const usmp_view *v, const usmp_placement *pl,
                      const rule_ix *rules, char **msg, uint32_t *pair)
{
	int rc = USMP_ERR_NOMEM;
	uint32_t n = v->buffer_count, m = 0;
	uint64_t *tree = NULL;
	live_ranks lr = {.keys = NULL};
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE)
			m++;
	if (m < 2)
		return USMP_OK;
	size_t width = 1;
	while (width < m)
		width *= 2;
	tree = calloc(2 * width, sizeof *tree);
	if (live_ranks_alloc(&lr, m, v->pool_count) != USMP_OK || !tree)
		goto fail;
	/* Everything the sweep reads is indexed by rank. */
	if ((rc = rank_live(v, pl, &lr)) != USMP_OK ||
	    (rc = rank_ends(pl, &lr)) != USMP_OK)
		goto fail;
	/* Events by rank: begins and ends sorted apart, merged ends first. */
	uint64_t *keys = lr.keys, *ek = lr.ek;
	uint32_t *ids = lr.ids, *ev = lr.ev;
	if ((rc = rank_events(v, &lr)) != USMP_OK)
		goto fail;
	uint32_t bi = 0, ei = 0;
	while (bi < m) {
		if (ei < m && ek[ei] <= keys[bi]) {
			seg_set(tree, width, ev[ei++], 0);
			continue;
		}
		uint32_t r = ids[bi++];
		const ranked_rec *x = &lr.rr[r];
		/* Alive in the pool, starting below r's end, ending above its
		 * offset: they overlap r. */
		for (size_t at = seg_first(tree, 1, 0, width, x->lo, x->hi, x->off);
		     at != NONE;
		     at = seg_first(tree, 1, 0, width, at + 1, x->hi, x->off)) {
			rc = check_pair(v, pl, rules, lr.ranked[at], lr.ranked[r],
			                "while both are live", msg, pair);
			if (rc != USMP_OK)
				goto fail;
		}
		seg_set(tree, width, r, x->end);
	}
	rc = USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		usmp__set_msg(msg, "verify: out of memory");
	live_ranks_finish(&lr);
	free(tree);
	return rc;
}

/* ---- the sweep without overlap rules ------------------------------------- */

/* A set of ranks in [0, m): bit r of level 0 is rank r; bit w of level l + 1
 * says word w of level l is not 0; the top level is one word. Neighbours in
 * O(log64 m). */
#define SET_LEVELS 6 /* 64^6 > 2^32 ranks */

typedef struct rank_set {
	uint64_t *bits[SET_LEVELS];
	unsigned levels;
	uint64_t *block; /* every level, one allocation */
} rank_set;

static int rank_set_init(rank_set *s, size_t m)
{
	size_t words[SET_LEVELS], total = 0, n = m ? m : 1;
	s->levels = 0;
	do {
		n = (n + 63) / 64;
		words[s->levels++] = n;
		total += n;
	} while (n > 1 && s->levels < SET_LEVELS);
	s->block = calloc(total, sizeof *s->block);
	if (!s->block)
		return USMP_ERR_NOMEM;
	size_t at = 0;
	for (unsigned l = 0; l < s->levels; l++) {
		s->bits[l] = s->block + at;
		at += words[l];
	}
	return USMP_OK;
}

static void rank_set_add(rank_set *s, size_t r)
{
	for (unsigned l = 0; l < s->levels; l++, r >>= 6) {
		uint64_t *w = &s->bits[l][r >> 6], was = *w;
		*w = was | UINT64_C(1) << (r & 63);
		if (was)
			return; /* the levels above knew the word */
	}
}

static void rank_set_remove(rank_set *s, size_t r)
{
	for (unsigned l = 0; l < s->levels; l++, r >>= 6) {
		uint64_t *w = &s->bits[l][r >> 6];
		*w &= ~(UINT64_C(1) << (r & 63));
		if (*w)
			return; /* the word still has members */
	}
}

/* The largest member below r, or NONE. */
static size_t rank_set_below(const rank_set *s, size_t r)
{
	unsigned l = 0;
	for (;; l++, r >>= 6) {
		if (l == s->levels)
			return NONE;
		uint64_t x = s->bits[l][r >> 6] & ((UINT64_C(1) << (r & 63)) - 1);
		if (x) {
			r = (r >> 6) << 6 | (size_t)(63 - __builtin_clzll(x));
			break;
		}
	}
	while (l-- > 0)
		r = r << 6 | (size_t)(63 - __builtin_clzll(s->bits[l][r]));
	return r;
}

/* The smallest member above r, or NONE. */
static size_t rank_set_above(const rank_set *s, size_t r)
{
	unsigned l = 0;
	for (;; l++, r >>= 6) {
		if (l == s->levels)
			return NONE;
		uint64_t x = s->bits[l][r >> 6] & ~((UINT64_C(2) << (r & 63)) - 1);
		if (x) {
			r = (r >> 6) << 6 | (size_t)__builtin_ctzll(x);
			break;
		}
	}
	while (l-- > 0)
		r = r << 6 | (size_t)__builtin_ctzll(s->bits[l][r]);
	return r;
}

/* The live-range sweep without overlap rules: USMP_OK when no two buffers
 * alive at once overlap, USMP_ERR_INVALID_PLAN when some do (no message:
 * the caller asks sweep_live for it), USMP_ERR_NOMEM. Every live buffer's
 * size is positive (the caller checks). */
static int sweep_neighbours(const usmp_view *v, const usmp_placement *pl,
                            uint32_t m)
{
	int rc = USMP_ERR_NOMEM;
	live_ranks lr = {.keys = NULL};
	rank_set set = {.block = NULL};
	if (live_ranks_alloc(&lr, m, v->pool_count) != USMP_OK ||
	    rank_set_init(&set, m) != USMP_OK)
		goto fail;
	if ((rc = rank_live(v, pl, &lr)) != USMP_OK)
		goto fail;
	/* Events by rank: begins and ends sorted apart, merged ends first. */
	uint64_t *keys = lr.keys, *ek = lr.ek;
	uint32_t *ids = lr.ids, *ev = lr.ev;
	if ((rc = rank_events(v, &lr)) != USMP_OK)
		goto fail;
	rc = USMP_OK;
	for (uint32_t bi = 0, ei = 0; bi < m && rc == USMP_OK;) {
		if (ei < m && ek[ei] <= keys[bi]) {
			rank_set_remove(&set, ev[ei++]);
			continue;
		}
		uint32_t r = ids[bi++];
		const ranked_rec *x = &lr.rr[r];
		/* rr[].lo is the first rank of the pool: a neighbour at or past
		 * it is in the same pool. */
		size_t below = rank_set_below(&set, r), above = rank_set_above(&set, r);
		if ((below != NONE && below >= x->lo && lr.rr[below].end > x->off) ||
		    (above != NONE && lr.rr[above].lo == x->lo &&
		     lr.rr[above].off < x->end))
			rc = USMP_ERR_INVALID_PLAN;
		rank_set_add(&set, r);
	}
fail:
	live_ranks_finish(&lr);
	free(set.block);
	return rc;
}

/* The live-range sweep of a plan without overlap rules: by neighbours
 * (sweep_neighbours) when every live size is positive, the segment tree
 * (sweep_live) for the message of a violation and otherwise. */
static int sweep_plain(const usmp_view *v, const usmp_placement *pl,
                       const rule_ix *rules, char **msg, uint32_t *pair)
{
	uint32_t m = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_LIVE))
			continue;
		if (!r->size)
			return sweep_live(v, pl, rules, msg, pair);
		m++;
	}
	if (m < 2)
		return USMP_OK;
	int rc = sweep_neighbours(v, pl, m);
	if (rc == USMP_ERR_NOMEM)
		usmp__set_msg(msg, "verify: out of memory");
	else if (rc != USMP_OK)
		rc = sweep_live(v, pl, rules, msg, pair);
	return rc;
}

int usmp__verify(const usmp_view *v, const usmp_placement *pl, char **msg)
{
	return usmp__verify_pair(v, pl, msg, NULL);
}

int usmp__verify_pair(const usmp_view *v, const usmp_placement *pl,
                      char **msg, uint32_t pair[2])
{
	int rc;
	rule_ix rules;
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if ((rc = check_buffer(v, pl, b, msg)) != USMP_OK)
			return rc;
	if ((rc = rule_ix_build(&rules, v)) != USMP_OK) {
		usmp__set_msg(msg, "verify: %s", rc == USMP_ERR_NOMEM
		                                         ? "out of memory"
		                                         : "too many overlap rules");
		return rc;
	}
	/* Explicit edges, each pair once (a < b). */
	if (v->conflict_start)
		for (uint32_t a = 0; a < v->buffer_count; a++)
			for (uint64_t i = v->conflict_start[a];
			     i < v->conflict_start[a + 1]; i++) {
				uint32_t b = v->conflict_adj[i];
				if (b <= a || b >= v->buffer_count || pl[a].pool != pl[b].pool)
					continue;
				uint64_t oa = pl[a].offset, ob = pl[b].offset;
				if (oa >= ob + v->buffers[b].size ||
				    ob >= oa + v->buffers[a].size)
					continue;
				rc = check_pair(v, pl, &rules, a, b,
				                "and are declared conflicting", msg, pair);
				if (rc != USMP_OK)
					goto out;
			}
	rc = rules.count ? sweep_live(v, pl, &rules, msg, pair)
	                 : sweep_plain(v, pl, &rules, msg, pair);
out:
	rule_ix_finish(&rules);
	return rc;
}
