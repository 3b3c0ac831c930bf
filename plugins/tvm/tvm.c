/* tvm.c — the "tvm" plugin: TVM USMP's greedy_by_size, greedy_by_conflicts
 * and hill_climb, re-implemented on the usmp view (no gap filling).
 *
 * Every buffer goes above the highest already placed buffer it conflicts
 * with in the chosen pool (end rounded up to the alignment); candidate pools
 * are tried in priority order against their size limits. Unlike TVM's code,
 * a pool is judged on all placed conflicts at once, so a pool dropped for
 * one conflict can never be re-admitted by a later one: plans stay valid.
 * hill_climb perturbs the greedy_by_size order by swapping a buffer that
 * sets a pool's high-water mark with an earlier conflicting one, re-places
 * greedily, and keeps the best plan seen.
 * "The highest placed buffer a live range meets" is a range-max query over
 * time: one max segment tree per pool over the part's distinct times makes
 * a placement O(log n) whatever the number of buffers alive (explicit edges
 * are still walked one by one); the plans are those of the neighbour walk.
 */
#include <usmp/plugin.h>

#include "../host_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TVM_NONE UINT32_MAX
/* hill_climb caches every buffer's neighbours when they fit in this many
 * entries (4 bytes each); above it, it asks the host on every placement. */
#define TVM_ADJ_MAX (UINT64_C(1) << 26)

typedef struct tvm_key {
	uint64_t size, degree;
	const char *name;
	uint32_t idx;
} tvm_key;

typedef struct tvm_ctx {
	const usmp_view *v;
	const usmp_host *h;
	const char *algo;
	uint32_t n;
	uint32_t *order; /* non-fixed buffers in placement order */
	uint32_t *pos;   /* [n] position in order, TVM_NONE for fixed */
	uint32_t count;  /* entries in order */
	uint64_t *top;   /* [pool_count] highest conflicting end per pool */
	uint8_t *seen;   /* [pool_count] top[] is set */
	uint32_t *touched;
	uint32_t touched_count;
	uint32_t fail; /* buffer that fit nowhere in the last greedy run */
	usmp_placement *work;
	/* Cached neighbour lists (hill_climb), NULL when not built. */
	uint64_t *adj_start; /* [n + 1] */
	uint32_t *adj;
	uint64_t adj_fill, adj_cap;
	/* Placed ends over time, per pool (NULL: none placed there yet): a max
	 * segment tree of 2 * seg_n nodes, each two entries side by side (one
	 * cache line for both): the max below the node, then its tag (a value
	 * every time under the node has). Live buffer
	 * b covers the elementary time slots [seg_lo[b], seg_hi[b]). With
	 * use_tree false (no live ranges, or out of memory) placements walk
	 * the host's neighbours instead. */
	bool use_tree;
	uint32_t seg_n;
	uint32_t *seg_lo, *seg_hi;
	uint64_t **tree; /* [pool_count] */
	/* Neighbour lists gathered for hill_climb perturbations. */
	uint32_t *list;
	size_t list_count, list_cap;
	uint32_t list_before; /* keep neighbours with pos below this */
	int list_rc;
	char msg[512];
} tvm_ctx;

/* ---- helpers ------------------------------------------------------------ */

static uint64_t tvm_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r < a ? UINT64_MAX : r;
}

static bool tvm_fixed(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_FIXED) != 0;
}

static void tvm_log(const tvm_ctx *c, int level, const char *msg)
{
	if (c->h->log)
		c->h->log(c->h, level, msg);
}

/* splitmix64: small, deterministic, good enough for choosing swaps. */
static uint64_t tvm_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t tvm_rand_below(uint64_t *s, uint64_t n)
{
	return n ? tvm_rand(s) % n : 0;
}

/* size desc, conflicts desc, name desc (strcmp), index asc */
static int tvm_cmp_size(const void *a, const void *b)
{
	const tvm_key *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->degree != y->degree)
		return x->degree > y->degree ? -1 : 1;
	int s = strcmp(y->name, x->name);
	if (s)
		return s;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* conflicts desc, size desc, name desc (strcmp), index asc */
static int tvm_cmp_conflicts(const void *a, const void *b)
{
	const tvm_key *x = a, *y = b;
	if (x->degree != y->degree)
		return x->degree > y->degree ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	int s = strcmp(y->name, x->name);
	if (s)
		return s;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* ---- placed ends over time ------------------------------------------------ */

/* Sort (key, val) pairs by key: LSD radix sort (16 or 8 bits a pass), passes
 * where every key has the same digit skipped. tk/tv hold n each. */
static void tvm_radix_sort(uint64_t *k, uint32_t *v, uint64_t *tk,
                           uint32_t *tv, size_t n, size_t *count)
{
	/* 16-bit digits for large n, 8-bit ones for small n, where clearing
	 * 65,536 counters per pass would cost more than the sort (hill_climb
	 * sorts small problems many times). count has room for 65,537. */
	unsigned bits = n >= 65536 ? 16 : 8;
	size_t radix = (size_t)1 << bits, mask = radix - 1;
	for (unsigned shift = 0; shift < 64; shift += bits) {
		memset(count, 0, (radix + 1) * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[((k[i] >> shift) & mask) + 1]++;
		bool one = false;
		for (size_t d = 1; d <= radix; d++)
			if (count[d] == n)
				one = true;
		if (one)
			continue;
		for (size_t d = 0; d < radix; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++) {
			size_t at = count[(k[i] >> shift) & mask]++;
			tk[at] = k[i];
			tv[at] = v[i];
		}
		memcpy(k, tk, n * sizeof *k);
		memcpy(v, tv, n * sizeof *v);
	}
}

/* The key of buffer b the order sorts by first (primary) or second. */
static uint64_t tvm_sort_key(const usmp_view *v, uint32_t b, int by_conflicts,
                             int primary)
{
	uint64_t size = v->buffers[b].size, degree = v->degree ? v->degree[b] : 0;
	return (primary == !by_conflicts) ? size : degree;
}

/* c->order: the non-fixed buffers by tvm_cmp_size or tvm_cmp_conflicts.
 * Two stable radix sorts (secondary key, then primary, both descending)
 * leave only the runs of equal keys to order by name and index, so a
 * million buffers cost no comparison sort of the whole. */
static int tvm_sort(tvm_ctx *c, int by_conflicts)
{
	const usmp_view *v = c->v;
	int rc = USMP_ERR_NOMEM;
	uint64_t *k = host_array(c->h, c->n, sizeof *k);
	uint64_t *tk = host_array(c->h, c->n, sizeof *tk);
	uint32_t *ids = host_array(c->h, c->n, sizeof *ids);
	uint32_t *tv = host_array(c->h, c->n, sizeof *tv);
	size_t *count = host_array(c->h, 65537, sizeof *count);
	tvm_key *run = NULL;
	int (*cmp)(const void *, const void *) =
		by_conflicts ? tvm_cmp_conflicts : tvm_cmp_size;
	if (!k || !tk || !ids || !tv || !count)
		goto out;
	uint32_t m = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		c->pos[b] = TVM_NONE;
		if (tvm_fixed(v, b))
			continue;
		ids[m] = b;
		k[m++] = ~tvm_sort_key(v, b, by_conflicts, 0);
	}
	tvm_radix_sort(k, ids, tk, tv, m, count);
	for (uint32_t i = 0; i < m; i++)
		k[i] = ~tvm_sort_key(v, ids[i], by_conflicts, 1);
	tvm_radix_sort(k, ids, tk, tv, m, count);
	for (uint32_t i = 0, j; i < m; i = j) {
		uint64_t second = tvm_sort_key(v, ids[i], by_conflicts, 0);
		for (j = i + 1; j < m && k[j] == k[i] &&
		                tvm_sort_key(v, ids[j], by_conflicts, 0) == second;
		     j++)
			;
		if (j - i < 2)
			continue;
		if (!run && !(run = host_array(c->h, c->n, sizeof *run)))
			goto out;
		for (uint32_t x = i; x < j; x++) {
			const usmp_buffer_rec *r = &v->buffers[ids[x]];
			run[x - i] = (tvm_key){r->size, v->degree ? v->degree[ids[x]] : 0,
			                       r->name ? r->name : "", ids[x]};
		}
		qsort(run, j - i, sizeof *run, cmp);
		for (uint32_t x = i; x < j; x++)
			ids[x] = run[x - i].idx;
	}
	for (uint32_t i = 0; i < m; i++) {
		c->order[i] = ids[i];
		c->pos[ids[i]] = i;
	}
	c->count = m;
	rc = USMP_OK;
out:
	host_release(c->h, k);
	host_release(c->h, tk);
	host_release(c->h, ids);
	host_release(c->h, tv);
	host_release(c->h, count);
	host_release(c->h, run);
	return rc;
}

static uint64_t tvm_time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* Number every live range's begin and end among the part's distinct times
 * (one sort of all begins and ends, ranks read off in order); leaves
 * use_tree false when there is no live range or no memory. */
static void tvm_tree_init(tvm_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t *keys = NULL, *tk = NULL;
	uint32_t *vals = NULL, *tv = NULL;
	size_t *count = NULL;
	uint32_t live = 0;
	for (uint32_t b = 0; b < c->n; b++)
		live += (v->buffers[b].flags & USMP_BUFFER_LIVE) != 0;
	if (!live || live > UINT32_MAX / 4 || c->n > UINT32_MAX / 2)
		return;
	keys = host_array(c->h, (size_t)live * 2, sizeof *keys);
	tk = host_array(c->h, (size_t)live * 2, sizeof *tk);
	vals = host_array(c->h, (size_t)live * 2, sizeof *vals);
	tv = host_array(c->h, (size_t)live * 2, sizeof *tv);
	count = host_array(c->h, 65537, sizeof *count);
	c->seg_lo = host_array(c->h, c->n, sizeof *c->seg_lo);
	c->seg_hi = host_array(c->h, c->n, sizeof *c->seg_hi);
	c->tree = host_array(c->h, c->v->pool_count, sizeof *c->tree);
	if (!keys || !tk || !vals || !tv || !count || !c->seg_lo ||
	    !c->seg_hi || !c->tree)
		goto drop;
	memset(c->tree, 0, (size_t)c->v->pool_count * sizeof *c->tree);
	size_t k = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		c->seg_lo[b] = c->seg_hi[b] = 0;
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			keys[k] = tvm_time_key(v->buffers[b].begin);
			vals[k++] = b << 1;
			keys[k] = tvm_time_key(v->buffers[b].end);
			vals[k++] = b << 1 | 1;
		}
	}
	tvm_radix_sort(keys, vals, tk, tv, k, count);
	uint32_t u = 0; /* distinct times so far: the rank of keys[i] is u-1 */
	for (size_t i = 0; i < k; i++) {
		if (i == 0 || keys[i] != keys[i - 1])
			u++;
		if (vals[i] & 1)
			c->seg_hi[vals[i] >> 1] = u - 1;
		else
			c->seg_lo[vals[i] >> 1] = u - 1;
	}
	c->seg_n = 1;
	while (c->seg_n < u - 1)
		c->seg_n *= 2;
	c->use_tree = true;
	host_release(c->h, keys);
	host_release(c->h, tk);
	host_release(c->h, vals);
	host_release(c->h, tv);
	host_release(c->h, count);
	return;
drop:
	host_release(c->h, keys);
	host_release(c->h, tk);
	host_release(c->h, vals);
	host_release(c->h, tv);
	host_release(c->h, count);
	host_release(c->h, c->seg_lo);
	host_release(c->h, c->seg_hi);
	host_release(c->h, c->tree);
	c->seg_lo = c->seg_hi = NULL;
	c->tree = NULL;
}

static void tvm_tree_drop(tvm_ctx *c)
{
	if (c->tree)
		for (uint32_t p = 0; p < c->v->pool_count; p++)
			host_release(c->h, c->tree[p]);
	host_release(c->h, c->tree);
	host_release(c->h, c->seg_lo);
	host_release(c->h, c->seg_hi);
	c->tree = NULL;
	c->seg_lo = c->seg_hi = NULL;
	c->use_tree = false;
}

/* Forget every placed end (trees allocated stay, emptied). */
static void tvm_tree_clear(tvm_ctx *c)
{
	if (!c->use_tree)
		return;
	for (uint32_t p = 0; p < c->v->pool_count; p++)
		if (c->tree[p])
			memset(c->tree[p], 0, (size_t)c->seg_n * 4 * sizeof **c->tree);
}

static uint64_t tvm_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The highest end placed in pool p over slots [lo, hi), 0 when none. */
static uint64_t tvm_tree_query(const tvm_ctx *c, uint32_t p, uint32_t lo,
                               uint32_t hi)
{
	const uint64_t *t = c->tree[p]; /* node k: max t[2k], tag t[2k + 1] */
	if (!t || lo >= hi)
		return 0;
	size_t l = lo + (size_t)c->seg_n, r = hi + (size_t)c->seg_n;
	size_t a = l >> 1, z = (r - 1) >> 1;
	uint64_t best = 0;
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			best = tvm_max(best, t[2 * l]);
			l++;
		}
		if (r & 1) {
			--r;
			best = tvm_max(best, t[2 * r]);
		}
	}
	/* tags on the ancestors of the two ends hold for every slot below */
	for (; a; a >>= 1)
		best = tvm_max(best, t[2 * a + 1]);
	for (; z; z >>= 1)
		best = tvm_max(best, t[2 * z + 1]);
	return best;
}

/* Record buffer b's placement (live, in a valid pool) in its pool's tree. */
static void tvm_tree_add(tvm_ctx *c, uint32_t b)
{
	const usmp_placement *pl = &c->work[b];
	if (!c->use_tree || pl->pool >= c->v->pool_count ||
	    !(c->v->buffers[b].flags & USMP_BUFFER_LIVE))
		return;
	uint64_t *mx = c->tree[pl->pool];
	if (!mx) {
		mx = host_array(c->h, (size_t)c->seg_n * 4, sizeof *mx);
		if (!mx) {
			tvm_tree_drop(c); /* the neighbour walk still works */
			return;
		}
		memset(mx, 0, (size_t)c->seg_n * 4 * sizeof *mx);
		c->tree[pl->pool] = mx;
	}
	/* node k: max mx[2k], tag mx[2k + 1] */
	uint64_t end = tvm_sat_add(pl->offset, c->v->buffers[b].size);
	size_t l = c->seg_lo[b] + (size_t)c->seg_n;
	size_t r = c->seg_hi[b] + (size_t)c->seg_n;
	size_t a = l, z = r - 1;
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			mx[2 * l] = tvm_max(mx[2 * l], end);
			mx[2 * l + 1] = tvm_max(mx[2 * l + 1], end);
			l++;
		}
		if (r & 1) {
			--r;
			mx[2 * r] = tvm_max(mx[2 * r], end);
			mx[2 * r + 1] = tvm_max(mx[2 * r + 1], end);
		}
	}
	for (a >>= 1; a; a >>= 1)
		mx[2 * a] = tvm_max(mx[2 * a], end);
	for (z >>= 1; z; z >>= 1)
		mx[2 * z] = tvm_max(mx[2 * z], end);
}

/* ---- greedy placement ---------------------------------------------------- */

static int tvm_visit_top(void *arg, uint32_t other)
{
	tvm_ctx *c = arg;
	if (other >= c->n)
		return 0;
	const usmp_placement *pl = &c->work[other];
	if (pl->pool >= c->v->pool_count)
		return 0;
	uint64_t end = tvm_sat_add(pl->offset, c->v->buffers[other].size);
	if (!c->seen[pl->pool]) {
		c->seen[pl->pool] = 1;
		c->top[pl->pool] = end;
		c->touched[c->touched_count++] = pl->pool;
	} else if (end > c->top[pl->pool]) {
		c->top[pl->pool] = end;
	}
	return 0;
}

/* Place buffer b above its placed conflicts in its first pool that fits. */
static int tvm_place(tvm_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	const usmp_buffer_rec *r = &v->buffers[b];
	bool tree = c->use_tree && (r->flags & USMP_BUFFER_LIVE);
	c->touched_count = 0;
	if (c->use_tree) {
		/* live ranges from the trees; explicit edges one by one */
		if (v->conflict_start)
			for (uint64_t k = v->conflict_start[b];
			     k < v->conflict_start[b + 1]; k++)
				tvm_visit_top(c, v->conflict_adj[k]);
	} else if (c->adj) {
		for (uint64_t k = c->adj_start[b]; k < c->adj_start[b + 1]; k++)
			tvm_visit_top(c, c->adj[k]);
	} else {
		c->h->for_each_neighbor(c->h, b, tvm_visit_top, c);
	}
	int rc = USMP_ERR_INFEASIBLE;
	for (uint32_t i = 0; i < r->candidate_count; i++) {
		uint32_t p = v->candidates[r->candidate_start + i];
		if (p >= v->pool_count)
			continue;
		bool ok = true;
		uint64_t top = c->seen[p] ? c->top[p] : 0;
		if (tree)
			top = tvm_max(top, tvm_tree_query(c, p, c->seg_lo[b],
			                                  c->seg_hi[b]));
		uint64_t x = usmp_align_up(top, usmp_buffer_alignment(v, b, p),
		                           &ok);
		uint64_t end = x + r->size;
		if (!ok || end < x || end > v->pools[p].size_limit)
			continue;
		c->work[b].pool = p;
		c->work[b].reserved = 0;
		c->work[b].offset = x;
		rc = USMP_OK;
		break;
	}
	for (uint32_t i = 0; i < c->touched_count; i++)
		c->seen[c->touched[i]] = 0;
	if (rc == USMP_OK)
		tvm_tree_add(c, b);
	return rc;
}

/* Place the buffers c->order[start..] into c->work, above what is there.
 * USMP_ERR_INFEASIBLE leaves c->fail naming the buffer that did not fit. */
static int tvm_greedy_from(tvm_ctx *c, uint32_t start)
{
	for (uint32_t i = start; i < c->count; i++) {
		if ((i & 1023) == 1023 && c->h->should_stop(c->h))
			return USMP_ERR_STOPPED;
		if (tvm_place(c, c->order[i]) != USMP_OK) {
			c->fail = c->order[i];
			return USMP_ERR_INFEASIBLE;
		}
	}
	return USMP_OK;
}

/* Place every buffer in c->order into c->work (fixed ones at their spot). */
static int tvm_greedy(tvm_ctx *c)
{
	const usmp_view *v = c->v;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		c->work[b].reserved = 0;
		if (tvm_fixed(v, b)) {
			c->work[b].pool = r->fixed_pool;
			c->work[b].offset = r->fixed_offset;
		} else {
			c->work[b].pool = USMP_NO_POOL;
			c->work[b].offset = 0;
		}
	}
	tvm_tree_clear(c);
	for (uint32_t b = 0; b < c->n; b++)
		if (tvm_fixed(v, b))
			tvm_tree_add(c, b);
	return tvm_greedy_from(c, 0);
}

/* Re-place from order position `start` on, keeping the placements of the
 * positions before it from `base` (greedy is deterministic: a prefix of the
 * order that did not change places the same way). */
static int tvm_greedy_resume(tvm_ctx *c, const usmp_placement *base,
                             uint32_t start)
{
	memcpy(c->work, base, (size_t)c->n * sizeof *c->work);
	for (uint32_t i = start; i < c->count; i++) {
		c->work[c->order[i]].pool = USMP_NO_POOL;
		c->work[c->order[i]].offset = 0;
	}
	tvm_tree_clear(c);
	for (uint32_t b = 0; b < c->n; b++)
		tvm_tree_add(c, b); /* skips the unplaced */
	return tvm_greedy_from(c, start);
}

static uint64_t tvm_total(const tvm_ctx *c, const usmp_placement *pl,
                          uint64_t *hw)
{
	const usmp_view *v = c->v;
	memset(hw, 0, (size_t)v->pool_count * sizeof *hw);
	for (uint32_t b = 0; b < c->n; b++) {
		if (pl[b].pool >= v->pool_count)
			continue;
		uint64_t e = tvm_sat_add(pl[b].offset, v->buffers[b].size);
		if (e > hw[pl[b].pool])
			hw[pl[b].pool] = e;
	}
	uint64_t t = 0;
	for (uint32_t p = 0; p < v->pool_count; p++)
		t = tvm_sat_add(t, hw[p]);
	return t;
}

static void tvm_fail_msg(tvm_ctx *c)
{
	const usmp_buffer_rec *r = &c->v->buffers[c->fail];
	snprintf(c->msg, sizeof c->msg,
	         "%s: buffer \"%s\" (%llu byte%s) fits in none of its %u "
	         "candidate pool(s)",
	         c->algo, r->name ? r->name : "?", (unsigned long long)r->size,
	         r->size == 1 ? "" : "s", r->candidate_count);
}

/* ---- setup shared by the three algorithms -------------------------------- */

static int tvm_init(tvm_ctx *c, const usmp_view *v, const usmp_host *h,
                    const char *algo)
{
	memset(c, 0, sizeof *c);
	c->v = v;
	c->h = h;
	c->algo = algo;
	if (!v || !h || v->struct_size < sizeof(usmp_view) ||
	    !USMP_HAS_FIELD(h, usmp_host, for_each_neighbor) || !h->alloc ||
	    !h->realloc || !h->free || !h->should_stop || !h->for_each_neighbor)
		return USMP_ERR_INVALID;
	c->n = v->buffer_count;
	c->order = host_array(c->h, c->n, sizeof *c->order);
	c->pos = host_array(c->h, c->n, sizeof *c->pos);
	c->work = host_array(c->h, c->n, sizeof *c->work);
	c->top = host_array(c->h, v->pool_count, sizeof *c->top);
	c->seen = host_array(c->h, v->pool_count, sizeof *c->seen);
	c->touched = host_array(c->h, v->pool_count, sizeof *c->touched);
	if (!c->order || !c->pos || !c->work || !c->top || !c->seen ||
	    !c->touched)
		return USMP_ERR_NOMEM;
	memset(c->seen, 0, v->pool_count ? v->pool_count : 1);
	tvm_tree_init(c);
	return USMP_OK;
}

static void tvm_finish(tvm_ctx *c)
{
	if (!c->h)
		return;
	host_release(c->h, c->order);
	host_release(c->h, c->pos);
	host_release(c->h, c->work);
	host_release(c->h, c->top);
	host_release(c->h, c->seen);
	host_release(c->h, c->touched);
	host_release(c->h, c->list);
	host_release(c->h, c->adj_start);
	host_release(c->h, c->adj);
	tvm_tree_drop(c);
}

static int tvm_greedy_main(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out, int by_conflicts,
                           const char *algo)
{
	tvm_ctx c;
	uint64_t *hw = NULL;
	int rc = tvm_init(&c, v, h, algo);
	if (rc)
		goto fail;
	if (!out) {
		rc = USMP_ERR_INVALID;
		goto fail;
	}
	if ((rc = tvm_sort(&c, by_conflicts)))
		goto fail;
	rc = tvm_greedy(&c);
	if (rc == USMP_ERR_INFEASIBLE)
		tvm_fail_msg(&c);
	if (rc)
		goto fail;
	memcpy(out, c.work, (size_t)c.n * sizeof *out);
	if (h->progress && (hw = host_array(c.h, v->pool_count, sizeof *hw))) {
		h->progress(h, tvm_total(&c, out, hw));
		host_release(c.h, hw);
	}
	tvm_finish(&c);
	return USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		snprintf(c.msg, sizeof c.msg, "%s: out of memory", algo);
	if (c.msg[0] && h && h->log)
		tvm_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	tvm_finish(&c);
	return rc;
}

static int greedy_by_size(const usmp_view *v, const usmp_host *h,
                          usmp_placement *out)
{
	return tvm_greedy_main(v, h, out, 0, "greedy_by_size");
}

static int greedy_by_conflicts(const usmp_view *v, const usmp_host *h,
                               usmp_placement *out)
{
	return tvm_greedy_main(v, h, out, 1, "greedy_by_conflicts");
}

/* ---- hill_climb ------------------------------------------------------------ */

static int tvm_visit_list(void *arg, uint32_t other)
{
	tvm_ctx *c = arg;
	if (other >= c->n || c->pos[other] == TVM_NONE ||
	    c->pos[other] >= c->list_before)
		return 0;
	if (c->list_count == c->list_cap) {
		size_t cap = c->list_cap ? c->list_cap * 2 : 64;
		void *p = cap < SIZE_MAX / sizeof *c->list
		                  ? c->h->realloc(c->h, c->list,
		                                  cap * sizeof *c->list)
		                  : NULL;
		if (!p) {
			c->list_rc = USMP_ERR_NOMEM;
			return 1;
		}
		c->list = p;
		c->list_cap = cap;
	}
	c->list[c->list_count++] = other;
	return 0;
}

/* Neighbours of b placed before b in the order (non-fixed), into c->list. */
static int tvm_earlier_neighbors(tvm_ctx *c, uint32_t b)
{
	c->list_count = 0;
	c->list_rc = USMP_OK;
	c->list_before = c->pos[b];
	if (c->adj) {
		for (uint64_t k = c->adj_start[b]; k < c->adj_start[b + 1] &&
		                                   c->list_rc == USMP_OK;
		     k++)
			tvm_visit_list(c, c->adj[k]);
	} else {
		c->h->for_each_neighbor(c->h, b, tvm_visit_list, c);
	}
	return c->list_rc;
}

static void tvm_swap(tvm_ctx *c, uint32_t i, uint32_t j)
{
	uint32_t a = c->order[i], b = c->order[j];
	c->order[i] = b;
	c->order[j] = a;
	c->pos[a] = j;
	c->pos[b] = i;
}

/* Choose two order positions to swap, given the current plan `cur` with
 * pool high-water marks hw. Returns false when no useful swap was found. */
static int tvm_perturb(tvm_ctx *c, const usmp_placement *cur,
                       const uint64_t *hw, bool feasible, uint64_t *rng,
                       uint32_t *si, uint32_t *sj, bool *found)
{
	const usmp_view *v = c->v;
	*found = false;
	if (!feasible) {
		/* Move the buffer that did not fit earlier. */
		uint32_t i = c->pos[c->fail];
		if (i == 0 || i == TVM_NONE)
			return USMP_OK;
		*si = i;
		*sj = (uint32_t)tvm_rand_below(rng, i);
		*found = true;
		return USMP_OK;
	}
	/* A buffer that sets its pool's high-water mark, chosen at random
	 * among them (reservoir sampling over the order). */
	uint32_t node = TVM_NONE, seen = 0;
	for (uint32_t i = 0; i < c->count; i++) {
		uint32_t b = c->order[i];
		uint32_t p = cur[b].pool;
		if (p < v->pool_count &&
		    tvm_sat_add(cur[b].offset, v->buffers[b].size) == hw[p] &&
		    tvm_rand_below(rng, ++seen) == 0)
			node = b;
	}
	if (node == TVM_NONE)
		return USMP_OK;
	int rc = tvm_earlier_neighbors(c, node);
	if (rc || c->list_count == 0)
		return rc;
	size_t first_count = c->list_count;
	uint32_t b1 = c->list[tvm_rand_below(rng, first_count)];
	uint32_t b2 = TVM_NONE;
	if (tvm_rand_below(rng, 100) >= 25) {
		/* Second level: a neighbour of b1 placed before b1. */
		if ((rc = tvm_earlier_neighbors(c, b1)))
			return rc;
		if (c->list_count)
			b2 = c->list[tvm_rand_below(rng, c->list_count)];
		else
			b2 = node;
	} else if (first_count > 1) {
		uint32_t k = (uint32_t)tvm_rand_below(rng, first_count);
		b2 = c->list[k];
		if (b2 == b1)
			b2 = c->list[(k + 1) % first_count];
	} else {
		b2 = node;
	}
	if (b2 == b1 || b2 == TVM_NONE)
		return USMP_OK;
	*si = c->pos[b1];
	*sj = c->pos[b2];
	*found = true;
	return USMP_OK;
}

static int tvm_visit_adj(void *arg, uint32_t other)
{
	tvm_ctx *c = arg;
	if (c->adj_fill >= c->adj_cap)
		return 1; /* more neighbours than degrees said: give up */
	c->adj[c->adj_fill++] = other;
	return 0;
}

/* Cache every buffer's neighbours when the view's degrees say they fit;
 * otherwise leave c->adj NULL (placements then ask the host). */
static void tvm_adj_build(tvm_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t total = 0;
	if (!v->degree)
		return;
	for (uint32_t b = 0; b < c->n; b++) {
		total += v->degree[b];
		if (total > TVM_ADJ_MAX)
			return;
	}
	c->adj_start = host_array(c->h, (size_t)c->n + 1, sizeof *c->adj_start);
	c->adj = host_array(c->h, (size_t)total, sizeof *c->adj);
	if (!c->adj_start || !c->adj)
		goto drop;
	c->adj_cap = total;
	c->adj_fill = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		c->adj_start[b] = c->adj_fill;
		if (c->h->for_each_neighbor(c->h, b, tvm_visit_adj, c))
			goto drop;
	}
	c->adj_start[c->n] = c->adj_fill;
	return;
drop:
	host_release(c->h, c->adj_start);
	host_release(c->h, c->adj);
	c->adj_start = NULL;
	c->adj = NULL;
}

static int hill_climb(const usmp_view *v, const usmp_host *h,
                      usmp_placement *out, uint64_t seed, uint32_t attempts)
{
	tvm_ctx c;
	usmp_placement *cur = NULL;
	uint64_t *hw = NULL;
	uint64_t rng = seed;
	int rc = tvm_init(&c, v, h, "hill_climb");
	if (rc)
		goto fail;
	if (!out) {
		rc = USMP_ERR_INVALID;
		goto fail;
	}
	cur = host_array(c.h, c.n, sizeof *cur);
	hw = host_array(c.h, v->pool_count, sizeof *hw);
	if (!cur || !hw) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	if ((rc = tvm_sort(&c, 0)))
		goto fail;
	tvm_adj_build(&c);

	/* Start: greedy_by_size. */
	rc = tvm_greedy(&c);
	if (rc != USMP_OK && rc != USMP_ERR_INFEASIBLE)
		goto fail;
	uint32_t first_fail = c.fail;
	bool cur_ok = rc == USMP_OK, have = cur_ok;
	uint64_t cur_total = cur_ok ? tvm_total(&c, c.work, hw) : UINT64_MAX;
	uint64_t best = cur_total;
	memcpy(cur, c.work, (size_t)c.n * sizeof *cur);
	if (have) {
		memcpy(out, cur, (size_t)c.n * sizeof *out);
		if (h->progress)
			h->progress(h, best);
	}

	for (uint32_t a = 1; a <= attempts; a++) {
		if ((have && best <= v->lower_bound) || h->should_stop(h))
			break;
		if (cur_ok)
			tvm_total(&c, cur, hw);
		uint32_t si = 0, sj = 0;
		bool found;
		rc = tvm_perturb(&c, cur, hw, cur_ok, &rng, &si, &sj, &found);
		if (rc)
			goto fail;
		if (!found)
			continue;
		tvm_swap(&c, si, sj);
		/* positions before min(si, sj) are placed in cur: it is
		 * complete, or (infeasible) the swap moves the failing buffer
		 * earlier and everything before it was placed */
		rc = tvm_greedy_resume(&c, cur, si < sj ? si : sj);
		if (rc == USMP_ERR_STOPPED)
			break;
		if (rc != USMP_OK && rc != USMP_ERR_INFEASIBLE)
			goto fail;
		bool ok = rc == USMP_OK;
		uint64_t t = ok ? tvm_total(&c, c.work, hw) : UINT64_MAX;
		/* Accept better or equal plans; a worse one with a probability
		 * that falls with how much worse it is and as attempts pass. */
		bool accept = t <= cur_total;
		if (!accept && ok) {
			double ratio = (double)cur_total / (double)t;
			uint64_t permille = (uint64_t)(100.0 * ratio *
			                               (double)(attempts - a) /
			                               (double)attempts);
			accept = tvm_rand_below(&rng, 1000) < permille;
		}
		if (!cur_ok && !ok)
			accept = true; /* keep moving the failing buffer up */
		if (!accept) {
			tvm_swap(&c, si, sj);
			continue;
		}
		cur_ok = ok;
		cur_total = t;
		memcpy(cur, c.work, (size_t)c.n * sizeof *cur);
		if (ok && (!have || t < best)) {
			have = true;
			best = t;
			memcpy(out, cur, (size_t)c.n * sizeof *out);
			if (h->progress)
				h->progress(h, best);
		}
	}
	if (!have) {
		c.fail = first_fail;
		tvm_fail_msg(&c);
		rc = USMP_ERR_INFEASIBLE;
		goto fail;
	}
	host_release(c.h, cur);
	host_release(c.h, hw);
	tvm_finish(&c);
	return USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		snprintf(c.msg, sizeof c.msg, "hill_climb: out of memory");
	if (c.msg[0] && h && h->log)
		tvm_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	if (c.h) {
		host_release(c.h, cur);
		host_release(c.h, hw);
	}
	tvm_finish(&c);
	return rc;
}

/* ---- descriptor ------------------------------------------------------------ */

#define TVM_CAPS                                                               \
	(USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS | USMP_CAP_DETERMINISTIC | \
	 USMP_CAP_EXPLICIT_CONFLICTS)

static const usmp_algorithm tvm_by_size = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = TVM_CAPS,
	.name = "greedy_by_size",
	.summary = "TVM USMP greedy: largest buffer first, each above its "
	           "placed conflicts (no gap filling)",
	.params = "",
	.fn = (usmp_algorithm_fn)greedy_by_size,
	.param_help = NULL,
};

static const usmp_algorithm tvm_by_conflicts = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = TVM_CAPS,
	.name = "greedy_by_conflicts",
	.summary = "TVM USMP greedy: most conflicted buffer first, each above "
	           "its placed conflicts (no gap filling)",
	.params = "",
	.fn = (usmp_algorithm_fn)greedy_by_conflicts,
	.param_help = NULL,
};

static const usmp_algorithm tvm_hill = {
	.struct_size = sizeof(usmp_algorithm),
	.caps = TVM_CAPS | USMP_CAP_ANYTIME,
	.name = "hill_climb",
	.summary = "TVM USMP hill climb: swaps in the greedy_by_size order, "
	           "re-placed greedily, best plan kept",
	.params = "seed:u64=0 attempts:u32=500",
	.fn = (usmp_algorithm_fn)hill_climb,
	.param_help = "seed: seed of the swap choices (same seed, same plan)\n"
	              "attempts: re-placements to try at most",
};

static const usmp_algorithm *const tvm_algorithms[] = {
	&tvm_by_size, &tvm_by_conflicts, &tvm_hill
};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "tvm",
	.version = "1.0.0",
	.license = "Apache-2.0",
	.algorithm_count = 3,
	.reserved = 0,
	.algorithms = tvm_algorithms,
};
