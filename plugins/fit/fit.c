/* fit.c — the "fit" plugin: first-fit and best-fit placement of buffers into
 * the gaps between already placed conflicting buffers, in one or all orders.
 *
 * Each buffer, in the chosen order, goes to the lowest (first_fit) or the
 * tightest (best_fit) aligned offset that is valid against every placed
 * buffer it conflicts with, in the first candidate pool where it fits.
 * Placed buffers with live ranges sit in an index over time (a segment tree
 * over the distinct begin times for "alive at my begin" plus per-time lists
 * of "begins inside my range"), so a placement costs O(log n + k log k) for
 * k placed conflicting buffers, never a scan of every placed buffer.
 * Overlap rules turn into a smaller forbidden range of start offsets.
 */
#include <usmp/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIT_NONE UINT32_MAX
#define FIT_STOP_EVERY 4096u

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

/* One cell of a segment tree node's list of placed buffers. */
typedef struct fit_entry {
	uint32_t buf, next;
} fit_entry;

typedef struct fit_ctx {
	const usmp_view *v;
	const usmp_host *h;
	const char *algo;
	int best_fit;
	uint32_t n;
	usmp_placement *work;

	/* Time index over distinct begin values of live buffers. */
	int64_t *times;
	uint32_t tcount, tsize; /* tsize: power of two >= tcount */
	uint32_t *lo, *hi;      /* [n] leaf range of each live buffer */
	uint32_t *head;         /* [2 * tsize] segment tree node lists */
	fit_entry *ent;         /* list cells of the node lists */
	size_t ent_count, ent_cap;
	uint32_t *start_head; /* [tcount] placed buffers beginning at a leaf */
	uint32_t *start_next; /* [n] */
	uint64_t *bits0, *bits1;
	size_t words0, words1;

	/* Per-buffer scratch for one placement. */
	uint32_t *stamp, *rule_stamp;
	uint32_t qid;
	uint8_t *rule_flags;
	int64_t *fwd_lead, *rev_lead;

	/* Overlap rules by endpoint: rule ids of buffer b in
	 * radj[rstart[b] .. rstart[b+1]). */
	uint64_t *rstart;
	uint32_t *radj;

	/* Placed conflicting buffers of the current placement. */
	uint32_t *coll;
	size_t coll_count, coll_cap;
	fit_range *ranges;
	size_t range_cap;

	fit_key *keys;
	char msg[512];
} fit_ctx;

/* ---- small helpers ------------------------------------------------------ */

static void *fit_alloc(fit_ctx *c, size_t count, size_t elem)
{
	if (count == 0)
		count = 1;
	if (count > SIZE_MAX / elem)
		return NULL;
	return c->h->alloc(c->h, count * elem);
}

static void fit_free(fit_ctx *c, void *p)
{
	if (p)
		c->h->free(c->h, p);
}

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

static int fit_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int fit_cmp_key(const void *a, const void *b)
{
	const fit_key *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 > y->k2 ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int fit_cmp_range(const void *a, const void *b)
{
	const fit_range *x = a, *y = b;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return (x->b > y->b) - (x->b < y->b);
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

static int fit_index_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint32_t live = 0;
	for (uint32_t b = 0; b < c->n; b++)
		if (fit_live(v, b))
			c->times[live++] = v->buffers[b].begin;
	qsort(c->times, live, sizeof *c->times, fit_cmp_i64);
	uint32_t u = 0;
	for (uint32_t i = 0; i < live; i++)
		if (u == 0 || c->times[u - 1] != c->times[i])
			c->times[u++] = c->times[i];
	c->tcount = u;
	c->tsize = 1;
	while (c->tsize < u) {
		if (c->tsize > UINT32_MAX / 4)
			return USMP_ERR_NOMEM;
		c->tsize *= 2;
	}
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b))
			continue;
		c->lo[b] = fit_lower(c->times, u, v->buffers[b].begin);
		c->hi[b] = fit_lower(c->times, u, v->buffers[b].end) - 1;
	}
	c->words0 = (size_t)(u + 63) / 64;
	c->words1 = (c->words0 + 63) / 64;
	c->head = fit_alloc(c, 2 * (size_t)c->tsize, sizeof *c->head);
	c->start_head = fit_alloc(c, u, sizeof *c->start_head);
	c->bits0 = fit_alloc(c, c->words0, sizeof *c->bits0);
	c->bits1 = fit_alloc(c, c->words1, sizeof *c->bits1);
	if (!c->head || !c->start_head || !c->bits0 || !c->bits1)
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

static void fit_index_reset(fit_ctx *c)
{
	memset(c->head, 0xff, 2 * (size_t)c->tsize * sizeof *c->head);
	if (c->tcount)
		memset(c->start_head, 0xff,
		       (size_t)c->tcount * sizeof *c->start_head);
	memset(c->bits0, 0, (c->words0 ? c->words0 : 1) * sizeof *c->bits0);
	memset(c->bits1, 0, (c->words1 ? c->words1 : 1) * sizeof *c->bits1);
	c->ent_count = 0;
}

static int fit_index_add_node(fit_ctx *c, uint32_t node, uint32_t b)
{
	if (c->ent_count >= UINT32_MAX)
		return USMP_ERR_NOMEM;
	if (c->ent_count == c->ent_cap) {
		int rc = fit_grow(c, (void **)&c->ent, &c->ent_cap,
		                  c->ent_count + 1, sizeof *c->ent);
		if (rc)
			return rc;
	}
	uint32_t e = (uint32_t)c->ent_count++;
	c->ent[e].buf = b;
	c->ent[e].next = c->head[node];
	c->head[node] = e;
	return USMP_OK;
}

/* Record a placed live buffer in the index. */
static int fit_index_insert(fit_ctx *c, uint32_t b)
{
	uint32_t l = c->lo[b], r = c->hi[b];
	c->start_next[b] = c->start_head[l];
	c->start_head[l] = b;
	c->bits0[l >> 6] |= 1ull << (l & 63);
	c->bits1[l >> 12] |= 1ull << ((l >> 6) & 63);
	/* Canonical segment tree nodes of leaves [l, r]. */
	uint64_t lo = (uint64_t)l + c->tsize, hi = (uint64_t)r + c->tsize + 1;
	while (lo < hi) {
		int rc;
		if (lo & 1) {
			rc = fit_index_add_node(c, (uint32_t)lo++, b);
			if (rc)
				return rc;
		}
		if (hi & 1) {
			rc = fit_index_add_node(c, (uint32_t)--hi, b);
			if (rc)
				return rc;
		}
		lo >>= 1;
		hi >>= 1;
	}
	return USMP_OK;
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

static int fit_collect_one(fit_ctx *c, uint32_t other)
{
	if (c->stamp[other] == c->qid)
		return USMP_OK;
	c->stamp[other] = c->qid;
	if (c->coll_count == c->coll_cap) {
		int rc = fit_grow(c, (void **)&c->coll, &c->coll_cap,
		                  c->coll_count + 1, sizeof *c->coll);
		if (rc)
			return rc;
	}
	c->coll[c->coll_count++] = other;
	return USMP_OK;
}

/* Gather the placed buffers that conflict with b into c->coll. */
static int fit_collect(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	int rc;
	c->coll_count = 0;
	if (fit_live(v, b) && c->tcount) {
		uint32_t l = c->lo[b], r = c->hi[b];
		/* Placed buffers alive at my begin. */
		for (uint64_t node = (uint64_t)l + c->tsize; node; node >>= 1)
			for (uint32_t e = c->head[node]; e != FIT_NONE;
			     e = c->ent[e].next)
				if ((rc = fit_collect_one(c, c->ent[e].buf)))
					return rc;
		/* Placed buffers beginning inside my range. */
		for (uint32_t j = fit_next_start(c, l + 1, r); j != FIT_NONE;
		     j = fit_next_start(c, j + 1, r))
			for (uint32_t o = c->start_head[j]; o != FIT_NONE;
			     o = c->start_next[o])
				if ((rc = fit_collect_one(c, o)))
					return rc;
	}
	if (!v->conflict_start || !v->conflict_adj)
		return USMP_OK;
	for (uint64_t k = v->conflict_start[b]; k < v->conflict_start[b + 1];
	     k++) {
		uint32_t o = v->conflict_adj[k];
		if (o != b && c->work[o].pool != USMP_NO_POOL &&
		    (rc = fit_collect_one(c, o)))
			return rc;
	}
	return USMP_OK;
}

/* ---- overlap rules ------------------------------------------------------ */

static int fit_rules_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t m = v->overlap_count;
	c->rstart = fit_alloc(c, (size_t)c->n + 1, sizeof *c->rstart);
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
	c->radj = fit_alloc(c, (size_t)total, sizeof *c->radj);
	uint64_t *fill = fit_alloc(c, c->n, sizeof *fill);
	if (!c->radj || !fill) {
		fit_free(c, fill);
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
	fit_free(c, fill);
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

/* The start offsets x at which buffer b (size s) would collide with placed
 * buffer o: [*a, *b). Without rules that is (off(o) - s, off(o) + size(o)).
 * With a rule (src o, dst b, L): x <= off(o) + L is allowed too; with a
 * rule (src b, dst o, L): off(o) <= x + L, i.e. x >= off(o) - L, is allowed.
 * Returns false when nothing is forbidden. */
static bool fit_forbidden(const fit_ctx *c, uint32_t b, uint32_t o,
                          uint64_t *pa, uint64_t *pb)
{
	uint64_t s = c->v->buffers[b].size;
	uint64_t oo = c->work[o].offset, os = c->v->buffers[o].size;
	uint64_t a = oo + 1 > s ? oo + 1 - s : 0;
	uint64_t e = fit_sat_add(oo, os);
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

/* ---- placing one buffer -------------------------------------------------- */

/* Find an offset for b in pool p against the collected buffers. Returns
 * true and *x when one exists within the pool's limit. */
static bool fit_in_pool(fit_ctx *c, uint32_t b, uint32_t p, uint64_t *x)
{
	const usmp_view *v = c->v;
	uint64_t size = v->buffers[b].size;
	uint64_t align = usmp_buffer_alignment(v, b, p);
	uint64_t limit = v->pools[p].size_limit;
	size_t k = 0;
	for (size_t i = 0; i < c->coll_count; i++) {
		uint32_t o = c->coll[i];
		uint64_t a, e;
		if (c->work[o].pool == p && fit_forbidden(c, b, o, &a, &e)) {
			c->ranges[k].a = a;
			c->ranges[k].b = e;
			k++;
		}
	}
	if (k > 1)
		qsort(c->ranges, k, sizeof *c->ranges, fit_cmp_range);

	bool found = false;
	uint64_t best_x = 0, best_len = UINT64_MAX;
	uint64_t s = 0; /* every start below s is forbidden (or scanned) */
	for (size_t i = 0; i < k; i++) {
		const fit_range *r = &c->ranges[i];
		if (r->a > s) {
			bool ok = true;
			uint64_t cx = usmp_align_up(s, align, &ok);
			if (!ok)
				break;
			if (cx < r->a) {
				uint64_t endx = cx + size;
				if (endx < cx || endx > limit)
					break; /* higher gaps fit no better */
				uint64_t len = r->a - s;
				if (!c->best_fit) {
					*x = cx;
					return true;
				}
				if (len < best_len) {
					best_len = len;
					best_x = cx;
					found = true;
				}
			}
		}
		if (r->b > s)
			s = r->b;
	}
	if (found) {
		*x = best_x;
		return true;
	}
	/* The open space above everything (when the loop broke early, s is
	 * below the gap that already exceeded the limit, so this fails too). */
	bool ok = true;
	uint64_t cx = usmp_align_up(s, align, &ok);
	uint64_t endx = cx + size;
	if (!ok || endx < cx || endx > limit)
		return false;
	*x = cx;
	return true;
}

static int fit_place(fit_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	int rc;
	if (c->qid == UINT32_MAX) {
		memset(c->stamp, 0, (size_t)c->n * sizeof *c->stamp);
		memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
		c->qid = 0;
	}
	c->qid++;
	if ((rc = fit_collect(c, b)))
		return rc;
	fit_rules_mark(c, b);
	if (c->coll_count > c->range_cap) {
		rc = fit_grow(c, (void **)&c->ranges, &c->range_cap,
		              c->coll_count, sizeof *c->ranges);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < r->candidate_count; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		uint64_t x;
		if (p >= v->pool_count)
			continue;
		if (fit_in_pool(c, b, p, &x)) {
			c->work[b].pool = p;
			c->work[b].reserved = 0;
			c->work[b].offset = x;
			if (fit_live(v, b) && c->tcount)
				return fit_index_insert(c, b);
			return USMP_OK;
		}
	}
	snprintf(c->msg, sizeof c->msg,
	         "%s: buffer \"%s\" (%llu bytes) fits in none of its %u "
	         "candidate pool(s)",
	         c->algo, r->name ? r->name : "?", (unsigned long long)r->size,
	         r->candidate_count);
	return USMP_ERR_INFEASIBLE;
}

/* Put the fixed buffers in place and into the index, checking they do not
 * collide with each other. */
static int fit_place_fixed(fit_ctx *c)
{
	const usmp_view *v = c->v;
	int rc;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!fit_fixed(v, b))
			continue;
		if (r->fixed_pool >= v->pool_count) {
			snprintf(c->msg, sizeof c->msg,
			         "%s: fixed buffer \"%s\" names pool %u of %u",
			         c->algo, r->name ? r->name : "?", r->fixed_pool,
			         v->pool_count);
			return USMP_ERR_INVALID;
		}
		c->qid++;
		if ((rc = fit_collect(c, b)))
			return rc;
		fit_rules_mark(c, b);
		for (size_t i = 0; i < c->coll_count; i++) {
			uint32_t o = c->coll[i];
			uint64_t a, e;
			if (c->work[o].pool == r->fixed_pool &&
			    fit_forbidden(c, b, o, &a, &e) &&
			    r->fixed_offset >= a && r->fixed_offset < e) {
				snprintf(c->msg, sizeof c->msg,
				         "%s: fixed buffers \"%s\" and \"%s\" "
				         "overlap in pool \"%s\"",
				         c->algo, v->buffers[o].name,
				         r->name ? r->name : "?",
				         v->pools[r->fixed_pool].name);
				return USMP_ERR_INFEASIBLE;
			}
		}
		c->work[b].pool = r->fixed_pool;
		c->work[b].reserved = 0;
		c->work[b].offset = r->fixed_offset;
		if (fit_live(v, b) && c->tcount &&
		    (rc = fit_index_insert(c, b)))
			return rc;
	}
	return USMP_OK;
}

/* ---- one order, all orders ---------------------------------------------- */

static void fit_make_keys(fit_ctx *c, int order, uint32_t *count)
{
	const usmp_view *v = c->v;
	uint32_t k = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (fit_fixed(v, b))
			continue;
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
	qsort(c->keys, k, sizeof *c->keys, fit_cmp_key);
	*count = k;
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
	}
	if (c->tcount)
		fit_index_reset(c);
	memset(c->stamp, 0, (size_t)c->n * sizeof *c->stamp);
	memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
	c->qid = 0;
	if ((rc = fit_place_fixed(c)))
		return rc;
	uint32_t count;
	fit_make_keys(c, order, &count);
	for (uint32_t i = 0; i < count; i++) {
		if (i % FIT_STOP_EVERY == FIT_STOP_EVERY - 1 &&
		    c->h->should_stop(c->h))
			return USMP_ERR_STOPPED;
		if ((rc = fit_place(c, c->keys[i].idx)))
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
		c->work, c->times, c->lo, c->hi, c->head, c->ent, c->start_head, c->start_next, c->bits0, c->bits1,
		c->stamp, c->rule_stamp, c->rule_flags, c->fwd_lead,
		c->rev_lead, c->rstart, c->radj, c->coll, c->ranges, c->keys
	};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		fit_free(c, ptrs[i]);
}

static int fit_main(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const char *order_s, int best_fit,
                    const char *algo)
{
	fit_ctx c;
	memset(&c, 0, sizeof c);
	c.v = v;
	c.h = h;
	c.algo = algo;
	c.best_fit = best_fit;
	int rc = USMP_OK;
	uint64_t *hw = NULL;

	if (!v || !h || !out || v->struct_size < sizeof(usmp_view) ||
	    !h->alloc || !h->realloc || !h->free || !h->should_stop)
		return USMP_ERR_INVALID;
	int order = fit_parse_order(order_s);
	if (order < 0) {
		char m[256];
		snprintf(m, sizeof m,
		         "%s: unknown order \"%.64s\" (expected size, lifetime, "
		         "area, conflicts or all)",
		         algo, order_s ? order_s : "(null)");
		fit_log(&c, USMP_LOG_ERROR, m);
		return USMP_ERR_INVALID;
	}
	c.n = v->buffer_count;
	if (c.n == 0)
		return USMP_OK;
	size_t n = c.n;
	c.work = fit_alloc(&c, n, sizeof *c.work);
	c.times = fit_alloc(&c, n, sizeof *c.times);
	c.lo = fit_alloc(&c, n, sizeof *c.lo);
	c.hi = fit_alloc(&c, n, sizeof *c.hi);
	c.start_next = fit_alloc(&c, n, sizeof *c.start_next);
	c.stamp = fit_alloc(&c, n, sizeof *c.stamp);
	c.rule_stamp = fit_alloc(&c, n, sizeof *c.rule_stamp);
	c.keys = fit_alloc(&c, n, sizeof *c.keys);
	hw = fit_alloc(&c, v->pool_count, sizeof *hw);
	if (!c.work || !c.times || !c.lo || !c.hi || !c.start_next ||
	    !c.stamp || !c.rule_stamp || !c.keys || !hw)
		goto nomem;
	if (v->overlap_count) {
		c.rule_flags = fit_alloc(&c, n, sizeof *c.rule_flags);
		c.fwd_lead = fit_alloc(&c, n, sizeof *c.fwd_lead);
		c.rev_lead = fit_alloc(&c, n, sizeof *c.rev_lead);
		if (!c.rule_flags || !c.fwd_lead || !c.rev_lead)
			goto nomem;
		if ((rc = fit_rules_build(&c)))
			goto fail;
	}
	if ((rc = fit_index_build(&c)))
		goto fail;

	if (order < FIT_ORDER_COUNT) {
		rc = fit_run(&c, order);
		if (rc)
			goto fail;
		memcpy(out, c.work, n * sizeof *out);
		if (h->progress)
			h->progress(h, fit_total(&c, hw));
		goto done;
	}

	/* order=all: keep the smallest plan over every order. */
	bool have = false;
	uint64_t best = UINT64_MAX;
	int last = USMP_ERR_INFEASIBLE;
	for (int o = 0; o < FIT_ORDER_COUNT; o++) {
		if (have && (best <= v->lower_bound || h->should_stop(h)))
			break;
		rc = fit_run(&c, o);
		if (rc == USMP_ERR_STOPPED && have)
			break;
		if (rc == USMP_ERR_INFEASIBLE) {
			last = rc;
			continue;
		}
		if (rc)
			goto fail;
		uint64_t t = fit_total(&c, hw);
		if (!have || t < best) {
			have = true;
			best = t;
			memcpy(out, c.work, n * sizeof *out);
			if (h->progress)
				h->progress(h, best);
		}
	}
	rc = have ? USMP_OK : last;
	if (rc)
		goto fail;
done:
	fit_free(&c, hw);
	fit_release(&c);
	return USMP_OK;
nomem:
	rc = USMP_ERR_NOMEM;
	snprintf(c.msg, sizeof c.msg, "%s: out of memory for %u buffers", algo,
	         c.n);
fail:
	if (c.msg[0])
		fit_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	fit_free(&c, hw);
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
