/* exact_window.h — what the large-neighbourhood search's files share: its state
 * (win), its time index of the buffers, its start plan (exact_window_start.c). */
#ifndef USMP_EXACT_WINDOW_H
#define USMP_EXACT_WINDOW_H

#include "exact_internal.h"

#define BLK 32u               /* buffers per block of the time index */

typedef struct u32vec {
	uint32_t *p;
	size_t n, cap;
} u32vec;

typedef struct memo_entry {
	uint64_t hash;
	uint64_t at;  /* key position in words */
	uint32_t len; /* key length in words */
	uint32_t result;
	uint64_t sol; /* position of the offsets of a FOUND result */
} memo_entry;

typedef struct win {
	const usmp_view *v;
	const usmp_host *h;
	xact_clock clk;
	uint32_t n;
	uint32_t nr;      /* buffers with a live range */
	uint32_t *ord;    /* [nr] them, by (begin, index) */
	int64_t *obeg;    /* [nr] their begins */
	int64_t *bend;    /* [nr / BLK + 1] latest end per block of ord */
	uint64_t maxlen;  /* longest live range */
	uint64_t *off;    /* [n] the current plan */
	uint64_t *al;     /* [n] alignment in the pool */
	uint32_t *where;  /* [n] scratch: position in the window + 1, or 0 */
	uint64_t gran;
	uint64_t peak;
	u32vec fr, fx, tmp;
	/* The sub-problem handed to the exact model. */
	usmp_buffer_rec *sb;
	size_t sbcap;
	uint64_t *soff;
	uint32_t cand0;
	usmp_pool_rec pool;
	/* Memo: open addressing over entries, keys and offsets in words. */
	memo_entry *tab;
	uint32_t tabcap, tabused;
	uint64_t *words;
	uint64_t nwords, capwords;
	uint64_t *key;
	size_t keycap;
	uint64_t hits, solves;
	size_t too_wide;  /* buffers of the window that stopped it, or 0 */
	bool may_stop;    /* the start plan in time order may stop unfinished */
	double t_start;
} win;

static inline bool push(const usmp_host *h, u32vec *v, uint32_t x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? 2 * v->cap : 256;
		uint32_t *p = h->realloc(h, v->p, nc * sizeof *p);
		if (!p)
			return false;
		v->p = p;
		v->cap = nc;
	}
	v->p[v->n++] = x;
	return true;
}

static inline bool has_range(const usmp_view *v, uint32_t i)
{
	return v->buffers[i].flags & USMP_BUFFER_LIVE;
}

static inline bool is_fixed(const usmp_view *v, uint32_t i)
{
	return v->buffers[i].flags & USMP_BUFFER_FIXED;
}

static inline uint64_t top_of(const win *w, uint32_t i)
{
	return w->off[i] + w->v->buffers[i].size;
}

static inline int cmp_begin(const void *ctx, uint32_t a, uint32_t b)
{
	const win *w = ctx;
	const usmp_buffer_rec *x = &w->v->buffers[a], *y = &w->v->buffers[b];
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* h->log of fmt with four numbers. */
void xwin_log(const usmp_host *h, int level, const char *fmt,
              unsigned long long a, unsigned long long b,
              unsigned long long c, unsigned long long d);
/* The first position in ord whose begin is >= t. */
size_t xwin_first_pos(const win *w, int64_t t);
/* Append to out every buffer with a live range meeting [a, b), in ord
 * order, stopping once out holds more than limit. Returns false when out
 * of memory. */
bool xwin_collect(win *w, int64_t a, int64_t b, u32vec *out, size_t limit);
/* w->peak: the highest top of the current plan. */
void xwin_refresh_peak(win *w);
/* The plan the search starts from when the caller gave none, into w->off:
 * a first fit by size, or one in time order first when that would take
 * long (exact_window_start.c). 0 or a usmp status (USMP_ERR_NOMEM). */
int xwin_start_plan(win *w);

#endif
