/* fit_ivset.h — the gap index's interval sets: merged occupied offset
 * intervals in a sorted array with spare room at both ends, kept in blocks
 * carved from large chunks of host memory.
 *
 * An insertion shifts the shorter side of the array (the intervals before
 * or after the new one), so it moves a quarter of the set on average
 * rather than a half; a grown array has its room on the side the
 * insertion shifted (an append: all behind), and a side out of room takes
 * half of the other's in one move. Small arrays (most sets) come from a pool: chunks
 * of MiB size from the host, cut into blocks of a few fixed capacities,
 * freed blocks kept per capacity for the next set that grows to it, so
 * the host tracks a few hundred chunks instead of millions of blocks;
 * larger arrays are host blocks of their own.
 */
#ifndef USMP_FIT_IVSET_H
#define USMP_FIT_IVSET_H

#include <usmp/plugin.h>

/* An interval [a, b) of offsets. */
typedef struct usmp__fit_iv {
	uint64_t a, b;
} usmp__fit_iv;

/* Merged occupied intervals in order of offset: iv[0..cnt), with `front`
 * free slots before iv[0] and cap - front - cnt after iv[cnt - 1]. */
typedef struct usmp__fit_set {
	usmp__fit_iv *iv;
	uint32_t cnt, cap, front;
} usmp__fit_set;

/* Capacities the pool serves (the growth sequence 2, 4, 6, 8, 11, ...
 * up to 65 intervals, about a kilobyte); larger arrays are host blocks:
 * their spare blocks would sit unused in the pool, and the host's cost
 * per block is small beside them. */
#define USMP__FIT_NCLASS 14

typedef struct usmp__fit_pool {
	const usmp_host *h;
	void **chunk; /* every chunk taken from the host */
	size_t nchunk, chunkcap;
	char *bump; /* the unused end of the newest chunk */
	size_t left;
	usmp__fit_iv *freel[USMP__FIT_NCLASS]; /* freed blocks per class */
} usmp__fit_pool;

/* Insert [a, b) into s, merged with the intervals it overlaps or touches;
 * lo is the first interval of s with .b >= a. USMP_OK or
 * USMP_ERR_NOMEM (s unchanged). */
int usmp__fit_set_add(usmp__fit_pool *p, usmp__fit_set *s, uint64_t a,
                      uint64_t b, uint32_t lo);
/* Empty s, keeping its room. */
void usmp__fit_set_clear(usmp__fit_set *s);
/* Give s's room back to the pool (or the host). */
void usmp__fit_set_release(usmp__fit_pool *p, usmp__fit_set *s);
/* Give every chunk back to the host (the sets drawn from it are gone). */
void usmp__fit_pool_free(usmp__fit_pool *p);

#endif
