/* tvm_ctx.h — what the tvm plugin's files share: a call's state (tvm_ctx), the
 * greedy placement (tvm.c), its segment trees (tvm_tree.c), hill_climb. */
#ifndef USMP_TVM_CTX_H
#define USMP_TVM_CTX_H

#include <usmp/plugin.h>

#include <stdbool.h>
#include <stdint.h>

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

static inline uint64_t tvm_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t tvm_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r < a ? UINT64_MAX : r;
}

static inline bool tvm_fixed(const usmp_view *v, uint32_t b)
{
	return (v->buffers[b].flags & USMP_BUFFER_FIXED) != 0;
}

static inline void tvm_log(const tvm_ctx *c, int level, const char *msg)
{
	if (c->h->log)
		c->h->log(c->h, level, msg);
}

/* splitmix64: small, deterministic, good enough for choosing swaps. */
static inline uint64_t tvm_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t tvm_rand_below(uint64_t *s, uint64_t n)
{
	return n ? tvm_rand(s) % n : 0;
}

/* Set up c for one call of `algo` on v: 0, USMP_ERR_INVALID (a view or
 * host that lacks what the plugin needs) or USMP_ERR_NOMEM. */
int tvm_init(tvm_ctx *c, const usmp_view *v, const usmp_host *h,
             const char *algo);
/* Free what tvm_init and the runs allocated. */
void tvm_finish(tvm_ctx *c);
/* c->order: the non-fixed buffers by size (by_conflicts 0) or by
 * conflicts, as TVM sorts them. 0 or USMP_ERR_NOMEM. */
int tvm_sort(tvm_ctx *c, int by_conflicts);
/* Place c->order greedily into c->work (from scratch; or keeping base's
 * placements of the order's first `start` entries). */
int tvm_greedy(tvm_ctx *c);
int tvm_greedy_resume(tvm_ctx *c, const usmp_placement *base,
                      uint32_t start);
/* The sum of the pools' high-water marks of pl (each into hw[pool]),
 * saturated. */
uint64_t tvm_total(const tvm_ctx *c, const usmp_placement *pl, uint64_t *hw);
/* Put the buffer that fit nowhere (c->fail) into c->msg. */
void tvm_fail_msg(tvm_ctx *c);

/* Sort (key, val) pairs by key, stably: LSD radix sort (16 or 8 bits a
 * pass), passes where every key has the same digit skipped. tk/tv hold n
 * each, count 65,537. */
void tvm_radix_sort(uint64_t *k, uint32_t *v, uint64_t *tk, uint32_t *tv,
                    size_t n, size_t *count);

/* ---- tvm_tree.c: placed ends over time ----------------------------------- */

/* Number every live range's begin and end among the part's distinct times;
 * leaves use_tree false when there is no live range or no memory. */
void tvm_tree_init(tvm_ctx *c);
/* Free the trees; placements walk the host's neighbours from then on. */
void tvm_tree_drop(tvm_ctx *c);
/* Forget every placed end (trees allocated stay, emptied). */
void tvm_tree_clear(tvm_ctx *c);
/* The highest end placed in pool p over slots [lo, hi), 0 when none. */
uint64_t tvm_tree_query(const tvm_ctx *c, uint32_t p, uint32_t lo,
                        uint32_t hi);
/* Record buffer b's placement (live, in a valid pool) in its pool's tree. */
void tvm_tree_add(tvm_ctx *c, uint32_t b);

/* The hill_climb algorithm (tvm_hill.c). */
int hill_climb(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               uint64_t seed, uint32_t attempts);

#endif
