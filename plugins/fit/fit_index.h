/* fit_index.h — the fit plugin's gap index: placed buffers as merged
 * occupied offset intervals per node of a segment tree over time.
 *
 * Leaves are the distinct begin times of live buffers; a buffer alive at
 * leaves lo..hi is stored, merged with its neighbours in offset, in
 * cover[w] for each canonical node w of lo..hi and in sub[v] for every
 * node v whose leaves meet lo..hi without lying inside one canonical node
 * (the canonical nodes and the nodes on the root paths of lo and hi that
 * lo..hi does not contain). The buffers alive somewhere in l..r are then
 * exactly those of sub[] on the canonical nodes of l..r and of cover[] on
 * the root-path nodes that l..r does not contain: about 4 log T sets, each
 * the union over a long stretch of time, so densely used memory merges
 * into few intervals per set and a query walks few of them.
 */
#ifndef USMP_FIT_INDEX_H
#define USMP_FIT_INDEX_H

#include <usmp/plugin.h>

/* An interval [a, b) of offsets. */
typedef struct usmp__fit_iv {
	uint64_t a, b;
} usmp__fit_iv;

/* Merged occupied intervals in order of offset. */
typedef struct usmp__fit_set {
	usmp__fit_iv *iv;
	uint32_t cnt, cap;
} usmp__fit_set;

/* Sets one query reads at most: canonical nodes and root-path nodes of a
 * range of leaves, at most 2 * 32 each. */
#define USMP__FIT_QSETS 132

typedef struct usmp__fit_gidx {
	const usmp_host *h;
	uint32_t tsize; /* leaves: a power of two */
	unsigned theight, h0; /* log2(tsize); lowest height with touch[] */
	uint64_t lowfirst;    /* first node below h0 (2 * tsize: none) */
	usmp__fit_set *cover, *sub; /* [2 * tsize] */
	usmp__fit_set *touch; /* [2 * tsize], heights h0.. only */
	const usmp__fit_set *qset[USMP__FIT_QSETS];
	uint32_t qpos[USMP__FIT_QSETS];
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
