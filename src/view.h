/* view.h — the flat view of a problem (or of one part) that algorithms get, and
 * what works on it: live-range index, conflicts, lower bounds, the verifier. */
#ifndef USMP_VIEW_H
#define USMP_VIEW_H

#include "problem.h"

/* Every algorithm-facing computation (conflicts, degrees, lower bound,
 * verification, neighbour iteration) works on a usmp_view, the same flat
 * read-only structure plugins receive. */

/* ---- view.c: building a view --------------------------------------------- */

/* A view plus the storage behind it. `buffer_map[i]` is the problem index of
 * view buffer i; `pool_map[j]` the problem index of view pool j. */
typedef struct usmp__view_store {
	usmp_view view;
	usmp_pool_rec *pools;
	usmp_buffer_rec *buffers;
	uint32_t *candidates;
	uint64_t *conflict_start;
	uint32_t *conflict_adj;
	uint64_t *degree;
	usmp_overlap_rec *overlaps;
	uint32_t *buffer_map;
	uint32_t *pool_map;
} usmp__view_store;

/* Build the view of the buffers `ids[0..n)` (problem indices, ascending) or
 * of the whole problem when ids == NULL. Only pools those buffers can use
 * are included (all pools for the whole problem). The problem must be
 * prepared. Computes CSR, degrees and the lower bound. */
int usmp__view_build(usmp_problem *p, const uint32_t *ids, uint32_t n,
                     usmp__view_store *out, char **msg);
/* The whole-problem view as a verifier needs it: without degrees (all 0)
 * and lower bound (0), which cost as much as the check at scale. */
int usmp__view_build_to_check(usmp_problem *p, usmp__view_store *out,
                              char **msg);
/* Free what usmp__view_build put in s. */
void usmp__view_finish(usmp__view_store *s);

/* ---- interval_index.c: live-range queries without all-pairs -------------- */

/* One node of the centered interval tree of a usmp__interval_index. */
typedef struct usmp__itree_node {
	int64_t center;
	uint32_t left, right;  /* node ids, UINT32_MAX for none */
	uint32_t first, count; /* its ranges in by_begin/by_end[first..+count) */
} usmp__itree_node;

/* Buffers with live ranges sorted by begin, with a running maximum of end,
 * so "every range intersecting [b, e)" costs O(log n + k): ranges starting
 * inside [b, e) are a run of the sorted array (binary search); ranges
 * starting before b that still cover b come from a centered interval tree
 * over the same positions (a running max alone would walk past every short
 * range behind one long one). */
typedef struct usmp__interval_index {
	uint32_t *order;   /* buffer ids sorted by (begin, id) */
	int64_t *begin;    /* begin of order[i] */
	int64_t *end;      /* end of order[i] */
	int64_t *max_end;  /* max(end[0..i]) */
	uint32_t count;
	uint32_t root, node_count;  /* centered tree, root UINT32_MAX when empty */
	usmp__itree_node *nodes;
	uint32_t *by_begin; /* buffer ids, per node by ascending begin */
	int64_t *bb_begin;  /* their begins */
	uint32_t *by_end;   /* buffer ids, per node by descending end */
	int64_t *be_end;    /* their ends */
} usmp__interval_index;

/* Index the live ranges of v's buffers: 0 or USMP_ERR_NOMEM. */
int usmp__interval_index_build(usmp__interval_index *ix, const usmp_view *v);
/* Free the index. */
void usmp__interval_index_finish(usmp__interval_index *ix);
/* Visit every indexed buffer whose range intersects [begin, end); stop and
 * return the first non-zero visit result. */
int usmp__interval_index_query(const usmp__interval_index *ix, int64_t begin,
                               int64_t end, usmp_neighbor_fn visit, void *arg);
/* Sort n (key, value) pairs by key, stably (LSD radix); vals may be NULL.
 * 0 or USMP_ERR_NOMEM. Shared by the modules that sweep over time. */
int usmp__sort_pairs(uint64_t *keys, uint32_t *vals, size_t n);
/* Order-preserving map of a time (int64) to a usmp__sort_pairs key. */
static inline uint64_t usmp__time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* ---- conflicts.c: explicit edges, degrees, neighbour walks --------------- */

/* Sort and de-duplicate edges (already mapped to view indices, a < b) into a
 * symmetric CSR for n buffers. start gets n+1 entries, *adj is allocated. */
int usmp__csr_build(const usmp__edge *edges, size_t edge_count, uint32_t n,
                    uint64_t *start, uint32_t **adj);
/* Whether b is among a's neighbours in such a CSR (binary search). */
bool usmp__csr_has(const uint64_t *start, const uint32_t *adj, uint32_t a,
                   uint32_t b);
/* degree[b] = number of distinct buffers conflicting with b (live ranges and
 * edges, each pair once). O(n log n + edges). */
int usmp__degrees(const usmp_view *v, uint64_t *degree);
/* Visit each buffer conflicting with b once (live ranges via ix, then edges
 * whose pair does not also overlap in time). */
int usmp__for_each_neighbor(const usmp_view *v, const usmp__interval_index *ix,
                            uint32_t b, usmp_neighbor_fn visit, void *arg);
/* True when a and b conflict (live ranges or an edge; binary search). */
bool usmp__conflict(const usmp_view *v, uint32_t a, uint32_t b);

/* ---- bound.c: lower bounds ----------------------------------------------- */

/* The view's lower bound on the sum of its pools' high-water marks: the
 * largest total size alive at once (a sweep), less at each time the most
 * the overlap rules among buffers alive then could share; never below the
 * largest single buffer nor the largest explicit-edge pair. */
uint64_t usmp__lower_bound(const usmp_view *v);
/* The most bytes an overlap rule (src of s_src bytes, dst of s_dst, lead)
 * lets its two buffers share: min(s_src, s_dst) for lead >= 0, else
 * min(s_src, max(0, s_dst + lead)). */
uint64_t usmp__rule_share(uint64_t s_src, uint64_t s_dst, int64_t lead);
/* Groups: buffers that can share a pool, transitively (union-find), with
 * each group's lower bound; fills p's derived group fields. */
int usmp__groups(usmp_problem *p);

/* ---- spill_floor.c: a lower bound on spill ------------------------------ */

/* A spill no valid plan of v goes below (docs/design.md, "Several pools:
 * the objective"): the forced spill (buffers larger than their first
 * pool's limit or fixed in another) plus, per limited pool, what its
 * first-choice buffers alive together must move out (see the file). Never
 * below the forced spill; on out of memory, the forced spill. */
uint64_t usmp__spill_floor(const usmp_view *v);
/* Whether a buffer of `size` bytes, fixed (in `fixed_pool`) or not, whose
 * first pool is `first` (limit `first_limit`) is outside it in every plan:
 * larger than the limit, or fixed in another pool. What spill_floor counts
 * as forced, and plan.c's spill_forced. */
bool usmp__spill_is_forced(uint64_t size, bool fixed, uint32_t fixed_pool,
                           uint32_t first, uint64_t first_limit);

/* ---- verify.c: the independent verifier ---------------------------------- */

/* Check placements `pl` (view indices) against view `v`: candidacy,
 * alignment (buffer's and pool's), limits, fixed placements, conflicts and
 * overlap rules. USMP_OK, or USMP_ERR_INVALID_PLAN with the first violation
 * in *msg naming the buffer(s), e.g. "buffers "a" and "b" overlap in pool
 * "sram" at bytes [16, 32) while both are live". Never looks at pairs that
 * cannot conflict: O(n log n) without overlap rules. */
int usmp__verify(const usmp_view *v, const usmp_placement *pl, char **msg);
/* The same; when the first violation is two buffers sharing bytes, their
 * view indices in pair[0] < pair[1] (pair may be NULL; left as it was for
 * a violation of one buffer). */
int usmp__verify_pair(const usmp_view *v, const usmp_placement *pl,
                      char **msg, uint32_t pair[2]);

/* ---- view_sum.c: what an algorithm may not change ----------------------- */

/* The view struct as an algorithm got it, the lengths of its arrays and a
 * checksum of them (not of the names and target they point to). */
typedef struct usmp__view_seal {
	usmp_view view;
	uint64_t candidates, adjacent, sum;
	int on; /* made (the call runs in this process) */
} usmp__view_seal;

/* Seal view v before a call. O(view size). */
void usmp__view_seal_make(usmp__view_seal *s, const usmp_view *v);
/* True when the call wrote into the view sealed in s (then the view struct
 * itself, at v, is put back; the arrays are left as they are). O(view
 * size); reads only the arrays as long as sealed. */
bool usmp__view_seal_broken(const usmp__view_seal *s, usmp_view *v);

#endif /* USMP_VIEW_H */