/* fit_ivset.c — the gap index's interval sets (see fit_ivset.h): insertion
 * with the shorter side shifted, and the pool their small arrays come from.
 */
#include "fit_ivset.h"

#include <string.h>

/* Bytes of a chunk the pool takes from the host at a time. */
#define FITS_CHUNK ((size_t)1 << 20)

/* The capacity after cap: an eighth more (plus two), so the spare room
 * stays small: the intervals are most of the plugin's memory. */
static uint32_t fits_next_cap(uint32_t cap)
{
	return cap + cap / 8 + 2;
}

/* The pool class of capacity cap, or -1 for a host block. */
static int fits_class(uint32_t cap)
{
	uint32_t c = 2;
	for (int k = 0; k < USMP__FIT_NCLASS; k++, c = fits_next_cap(c))
		if (c == cap)
			return k;
	return -1;
}

static usmp__fit_iv *fits_alloc(usmp__fit_pool *p, uint32_t cap)
{
	int k = fits_class(cap);
	size_t bytes = (size_t)cap * sizeof(usmp__fit_iv);
	if (k < 0)
		return p->h->alloc(p->h, bytes);
	usmp__fit_iv *blk = p->freel[k];
	if (blk) {
		memcpy(&p->freel[k], blk, sizeof blk);
		return blk;
	}
	if (p->left < bytes) {
		if (p->nchunk == p->chunkcap) {
			size_t ncap = p->chunkcap ? 2 * p->chunkcap : 64;
			void *q = p->h->realloc(p->h, p->chunk, ncap * sizeof *p->chunk);
			if (!q)
				return NULL;
			p->chunk = q;
			p->chunkcap = ncap;
		}
		char *c = p->h->alloc(p->h, FITS_CHUNK);
		if (!c)
			return NULL;
		p->chunk[p->nchunk++] = c;
		p->bump = c;
		p->left = FITS_CHUNK;
	}
	blk = (usmp__fit_iv *)(void *)p->bump;
	p->bump += bytes;
	p->left -= bytes;
	return blk;
}

static void fits_dealloc(usmp__fit_pool *p, usmp__fit_iv *blk, uint32_t cap)
{
	if (!blk)
		return;
	int k = fits_class(cap);
	if (k < 0) {
		p->h->free(p->h, blk);
		return;
	}
	memcpy(blk, &p->freel[k], sizeof blk);
	p->freel[k] = blk;
}

/* s with [a, b) inserted at i, in a larger array, centred in it. */
static int fits_grow(usmp__fit_pool *p, usmp__fit_set *s, uint64_t a,
                     uint64_t b, uint32_t i)
{
	if (s->cap >= UINT32_MAX / 2)
		return USMP_ERR_NOMEM;
	uint32_t ncap = fits_next_cap(s->cap);
	usmp__fit_iv *blk = fits_alloc(p, ncap);
	if (!blk)
		return USMP_ERR_NOMEM;
	/* the room on the side the insertion shifts: all behind for an
	 * append, all in front at the start, shared in between */
	uint32_t front = (uint32_t)((uint64_t)(ncap - s->cnt - 1) *
	                            (s->cnt - i) / (s->cnt + 1));
	usmp__fit_iv *iv = blk + front;
	if (s->cnt) {
		memcpy(iv, s->iv, (size_t)i * sizeof *iv);
		memcpy(iv + i + 1, s->iv + i, (size_t)(s->cnt - i) * sizeof *iv);
	}
	iv[i].a = a;
	iv[i].b = b;
	if (s->iv)
		fits_dealloc(p, s->iv - s->front, s->cap);
	s->iv = iv;
	s->front = front;
	s->cap = ncap;
	s->cnt++;
	return USMP_OK;
}

int usmp__fit_set_add(usmp__fit_pool *p, usmp__fit_set *s, uint64_t a,
                      uint64_t b, uint32_t lo)
{
	uint32_t i = lo, j = lo, n = s->cnt;
	usmp__fit_iv *iv = s->iv;
	while (j < n && iv[j].a <= b)
		j++;
	if (j > i) {
		if (iv[i].a < a)
			a = iv[i].a;
		if (iv[j - 1].b > b)
			b = iv[j - 1].b;
		uint32_t gone = j - i - 1; /* merged into iv[i] */
		if (!gone) {
			iv[i].a = a;
			iv[i].b = b;
			return USMP_OK;
		}
		if (i + 1 <= n - j) { /* the head moves up over them */
			memmove(iv + gone, iv, (size_t)i * sizeof *iv);
			iv += gone;
			s->iv = iv;
			s->front += gone;
			iv[i].a = a;
			iv[i].b = b;
		} else {
			iv[i].a = a;
			iv[i].b = b;
			memmove(iv + i + 1, iv + j, (size_t)(n - j) * sizeof *iv);
		}
		s->cnt = n - gone;
		return USMP_OK;
	}
	uint32_t back = s->cap - s->front - n;
	if (!s->front && !back)
		return fits_grow(p, s, a, b, i);
	bool head = i <= n - i; /* the shorter side */
	if (head ? !s->front : !back) {
		/* none on that side: half of the room moves there (one
		 * shift of the whole set, not one per insertion) */
		uint32_t nf = head ? (back + 1) / 2 : s->front / 2;
		usmp__fit_iv *to = iv - s->front + nf;
		memmove(to, iv, (size_t)n * sizeof *iv);
		iv = s->iv = to;
		back = s->cap - nf - n;
		s->front = nf;
	}
	if (s->front && (head || !back)) { /* the head moves down */
		memmove(iv - 1, iv, (size_t)i * sizeof *iv);
		iv--;
		s->iv = iv;
		s->front--;
	} else {
		memmove(iv + i + 1, iv + i, (size_t)(n - i) * sizeof *iv);
	}
	iv[i].a = a;
	iv[i].b = b;
	s->cnt = n + 1;
	return USMP_OK;
}

void usmp__fit_set_clear(usmp__fit_set *s)
{
	if (!s->iv)
		return;
	usmp__fit_iv *base = s->iv - s->front;
	s->front = s->cap / 2;
	s->iv = base + s->front;
	s->cnt = 0;
}

void usmp__fit_set_release(usmp__fit_pool *p, usmp__fit_set *s)
{
	if (s->iv)
		fits_dealloc(p, s->iv - s->front, s->cap);
	memset(s, 0, sizeof *s);
}

void usmp__fit_pool_free(usmp__fit_pool *p)
{
	for (size_t i = 0; i < p->nchunk; i++)
		p->h->free(p->h, p->chunk[i]);
	if (p->chunk)
		p->h->free(p->h, p->chunk);
	p->chunk = NULL;
	p->nchunk = p->chunkcap = 0;
	p->bump = NULL;
	p->left = 0;
	memset(p->freel, 0, sizeof p->freel);
}
