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
#include "tvm_ctx.h"

#include "../host_mem.h"
#include "../no_fit_msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

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
void tvm_radix_sort(uint64_t *k, uint32_t *v, uint64_t *tk, uint32_t *tv,
                    size_t n, size_t *count)
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
int tvm_sort(tvm_ctx *c, int by_conflicts)
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
int tvm_greedy(tvm_ctx *c)
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
int tvm_greedy_resume(tvm_ctx *c, const usmp_placement *base,
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

uint64_t tvm_total(const tvm_ctx *c, const usmp_placement *pl, uint64_t *hw)
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

void tvm_fail_msg(tvm_ctx *c)
{
	const usmp_buffer_rec *r = &c->v->buffers[c->fail];
	no_fit_msg(c->msg, sizeof c->msg, c->algo, r);
}

/* ---- setup shared by the three algorithms -------------------------------- */

int tvm_init(tvm_ctx *c, const usmp_view *v, const usmp_host *h,
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

void tvm_finish(tvm_ctx *c)
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
