/* fit_index.h — the fit plugin's gap index: placed buffers as merged
 * occupied offset intervals per node of a segment tree over time.
 *
 * Leaves are the distinct begin times of live buffers; two live buffers
 * conflict iff they share a leaf. A buffer alive at leaves lo..hi goes,
 * merged with its neighbours in offset, into cover[w] of each canonical
 * node w of lo..hi (the buffers alive at every leaf of w); into sub[v] of
 * the nodes below height h0 that hold a canonical node in their subtree
 * (the buffers touching v but covering no ancestor of it; a leaf's sub[]
 * is its cover[], one set); and into
 * touch[v] of the nodes from height h0 up that it touches, those under a
 * canonical node only FITG_DOWN levels down (touch[v]: the buffers alive
 * somewhere in v, but those covering an ancestor far above).
 *
 * The buffers alive somewhere in l..r are those of touch[] (from h0 up)
 * or sub[] (below) of the canonical nodes of l..r, plus cover[] of the
 * root-path nodes of l and r that l..r does not contain, but for those
 * whose touch[] of a canonical node below (near enough) holds already.
 * Each set is the union over a stretch of time, so densely used memory
 * merges into few intervals per set, and a query walks the gaps of a few
 * tens of sets rather than one interval per buffer alive. h0 is chosen
 * from the mean span (an eighth of it) so a buffer lands in a few tens of
 * sets. The sets' storage is fit_ivset.h's.
 */
#ifndef USMP_FIT_INDEX_H
#define USMP_FIT_INDEX_H

#include <usmp/plugin.h>

#include "fit_ivset.h"

/* Sets one query reads at most: canonical nodes and root-path nodes of a
 * range of leaves, at most 2 * 32 each. */
#define USMP__FIT_QSETS 132

typedef struct usmp__fit_gidx {
	const usmp_host *h;
	uint32_t tsize; /* leaves: a power of two */
	unsigned theight, h0; /* log2(tsize); lowest height with touch[] */
	uint64_t lowfirst;    /* first node below h0 (2 * tsize: none) */
	usmp__fit_set *cover;  /* [2 * tsize] */
	usmp__fit_set *sub;    /* [nsub]: nodes lowfirst..tsize - 1 */
	usmp__fit_set *touch;  /* [lowfirst]: nodes 1.. (h0 and up) */
	size_t nsub;
	usmp__fit_pool pool;   /* the sets' arrays */
	usmp__fit_set scratch; /* a query's small sets, merged */
	const usmp__fit_set *qset[USMP__FIT_QSETS];
	uint32_t qpos[USMP__FIT_QSETS];
	uint64_t qkey[USMP__FIT_QSETS]; /* start of the interval at qpos */
	uint64_t qlow; /* the largest end below every cursor */
	unsigned qcount;
} usmp__fit_gidx;

/* Room for tsize leaves, nothing placed. USMP_OK or USMP_ERR_NOMEM. */
int usmp__fit_gidx_init(usmp__fit_gidx *g, const usmp_host *h,
                        uint32_t tsize, uint64_t span_sum, uint64_t live);
/* Forget every placed buffer (keeps the memory). */
void usmp__fit_gidx_reset(usmp__fit_gidx *g);
void usmp__fit_gidx_free(usmp__fit_gidx *g);

/* Record a buffer at offsets [a, b) alive at leaves lo..hi. */
int usmp__fit_gidx_insert(usmp__fit_gidx *g, uint32_t lo, uint32_t hi,
                          uint64_t a, uint64_t b);

/* Where a buffer of `size` bytes (size > 0), aligned to `align` and ending
 * at or below `limit`, alive at leaves lo..hi (live false: at no leaf),
 * goes: first_fit the lowest such offset free at every leaf of lo..hi,
 * best_fit the lowest one of the smallest free gap (between the buffers
 * alive there) that holds it, or the space above them all when no gap
 * does. false when none fits under the limit. */
bool usmp__fit_gidx_first(usmp__fit_gidx *g, bool live, uint32_t lo,
                          uint32_t hi, uint64_t size, uint64_t align,
                          uint64_t limit, uint64_t *x);
bool usmp__fit_gidx_best(usmp__fit_gidx *g, bool live, uint32_t lo,
                         uint32_t hi, uint64_t size, uint64_t align,
                         uint64_t limit, uint64_t *x);

#endif
