/* exact_multi_setup.c — the state of the search of several pools: the scope
 * check, allocation, time sections and identical buffers. */
#include "exact_multi.h"
#include "../name_shown.h"

#include <stdio.h>
#include <string.h>

/* More buffers than this are refused: the search has no decomposition. */
#define MULTI_MAX 1000
/* ... or whose search would need more memory than this. */
#define MULTI_BYTES (UINT64_C(128) << 20)

/* Check scope and sizes; logs the reason for a refusal. */
int xact_mp_check(const usmp_view *v, const usmp_host *h)
{
	char msg[256];
	if (v->buffer_count > MULTI_MAX) {
		snprintf(msg, sizeof msg, "exact: %u buffers with several pools or "
		         "conflict edges is beyond the exact search (at most %d)",
		         v->buffer_count, MULTI_MAX);
		h->log(h, USMP_LOG_ERROR, msg);
		return USMP_ERR_UNSUPPORTED;
	}
	if (v->pool_count > 64) {
		h->log(h, USMP_LOG_ERROR, "exact: more than 64 pools in one part");
		return USMP_ERR_UNSUPPORTED;
	}
	/* The moves of every depth and the rule matrix dominate its memory. */
	uint64_t n = v->buffer_count;
	uint64_t bytes = n * (n * v->pool_count + 1) * sizeof(xact_move) +
	                 n * n * sizeof(int64_t);
	if (bytes > MULTI_BYTES) {
		snprintf(msg, sizeof msg, "exact: %u buffers with %u pools would "
		         "need %llu MiB for the search of several pools (at most "
		         "%llu)", v->buffer_count, v->pool_count,
		         (unsigned long long)(bytes >> 20),
		         (unsigned long long)(MULTI_BYTES >> 20));
		h->log(h, USMP_LOG_ERROR, msg);
		return USMP_ERR_UNSUPPORTED;
	}
	return xact_mp_check_range(v, h);
}

int xact_mp_check_range(const usmp_view *v, const usmp_host *h)
{
	char msg[256];
	uint64_t sum = 0;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		uint64_t a = v->pools[p].alignment;
		if (a == 0 || (a & (a - 1)) || a > (UINT64_C(1) << 40)) {
			char nm[NAME_SHOWN_MAX];
			snprintf(msg, sizeof msg, "exact: pool '%s' alignment %llu is "
			         "not a supported power of two",
			         name_shown(v->pools[p].name, nm),
			         (unsigned long long)a);
			h->log(h, USMP_LOG_ERROR, msg);
			return USMP_ERR_UNSUPPORTED;
		}
		sum += a;
	}
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		uint64_t a = b->alignment;
		if (a == 0 || (a & (a - 1)) || a > (UINT64_C(1) << 40) ||
		    b->size == 0 || b->size >= XACT_MAXVAL / 4 ||
		    b->candidate_count == 0 ||
		    ((b->flags & USMP_BUFFER_FIXED) &&
		     (b->fixed_pool >= v->pool_count ||
		      b->fixed_offset >= XACT_MAXVAL / 4))) {
			char nm[NAME_SHOWN_MAX];
			snprintf(msg, sizeof msg, "exact: buffer '%s' has a size, "
			         "alignment, candidate list or fixed placement out "
			         "of the exact search's range",
			         name_shown(b->name, nm));
			h->log(h, USMP_LOG_ERROR, msg);
			return USMP_ERR_UNSUPPORTED;
		}
		sum += b->size + a + ((b->flags & USMP_BUFFER_FIXED) ?
		                      b->fixed_offset : 0);
		if (sum >= XACT_MAXVAL / 4) {
			h->log(h, USMP_LOG_ERROR, "exact: total buffer size is "
			       "beyond the exact search's arithmetic range");
			return USMP_ERR_UNSUPPORTED;
		}
	}
	return USMP_OK;
}

/* Identical buffers (size, alignment, live range, candidates, conflicts,
 * no rule, not fixed) are placed in index order. */
void xact_mp_find_twins(xact_mp *s)
{
	const usmp_view *v = s->v;
	for (uint32_t b = 0; b < s->n; b++) {
		s->twin[b] = UINT32_MAX;
		const usmp_buffer_rec *x = &v->buffers[b];
		if (x->flags & USMP_BUFFER_FIXED)
			continue;
		for (uint32_t a = b; a-- > 0;) {
			const usmp_buffer_rec *y = &v->buffers[a];
			if ((y->flags != x->flags) || y->size != x->size ||
			    y->alignment != x->alignment ||
			    ((x->flags & USMP_BUFFER_LIVE) &&
			     (y->begin != x->begin || y->end != x->end)) ||
			    y->candidate_count != x->candidate_count ||
			    memcmp(v->candidates + y->candidate_start,
			           v->candidates + x->candidate_start,
			           x->candidate_count * sizeof *v->candidates))
				continue;
			bool same = true;
			for (uint32_t c = 0; c < s->n && same; c++)
				if (c != a && c != b &&
				    conflicts(s, a, c) != conflicts(s, b, c))
					same = false;
			for (uint64_t r = 0; r < v->overlap_count && same; r++) {
				const usmp_overlap_rec *o = &v->overlaps[r];
				if (o->src == a || o->dst == a || o->src == b ||
				    o->dst == b)
					same = false;
			}
			if (same) {
				s->twin[b] = a;
				break;
			}
		}
	}
}

/* Elementary time sections and the live buffers in each. */
static int build_sections(xact_mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	int64_t *t = h->alloc(h, (2 * (size_t)s->n + 1) * sizeof *t);
	if (!t)
		return USMP_ERR_NOMEM;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			t[k++] = v->buffers[b].begin;
			t[k++] = v->buffers[b].end;
		}
	for (uint32_t i = 1; i < k; i++) {
		int64_t x = t[i];
		uint32_t j = i;
		while (j > 0 && t[j - 1] > x) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = x;
	}
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!u || t[u - 1] != t[i])
			t[u++] = t[i];
	s->nsect = u > 1 ? u - 1 : 0;
	size_t total = 0;
	s->sect_start = h->alloc(h, ((size_t)s->nsect + 1) * sizeof *s->sect_start);
	if (!s->sect_start)
		goto nomem;
	for (uint32_t q = 0; q < s->nsect; q++) {
		s->sect_start[q] = (uint32_t)total;
		for (uint32_t b = 0; b < s->n; b++) {
			const usmp_buffer_rec *r = &v->buffers[b];
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				total++;
		}
	}
	s->sect_start[s->nsect] = (uint32_t)total;
	s->send = h->alloc(h, (s->n ? s->n : 1) * sizeof *s->send);
	if (!s->send)
		goto nomem;
	for (uint32_t b = 0; b < s->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t e = 0;
		for (uint32_t q = 0; q < s->nsect; q++)
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				e = q + 1;
		s->send[b] = e;
	}
	s->sect_mem = h->alloc(h, (total ? total : 1) * sizeof *s->sect_mem);
	if (!s->sect_mem)
		goto nomem;
	total = 0;
	for (uint32_t q = 0; q < s->nsect; q++)
		for (uint32_t b = 0; b < s->n; b++) {
			const usmp_buffer_rec *r = &v->buffers[b];
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				s->sect_mem[total++] = b;
		}
	h->free(h, t);
	return USMP_OK;
nomem:
	h->free(h, t);
	return USMP_ERR_NOMEM;
}

void xact_mp_free(xact_mp *s)
{
	const usmp_host *h = s->h;
	void *ptrs[] = {s->conf, s->limit, s->prank, s->nrank, s->twin, s->pool, s->off,
	                s->plist, s->pcount, s->hw, s->moves, s->ybuf, s->bpool,
	                s->boff, s->sect_start, s->sect_mem, s->fsum, s->ssum,
	                s->exc, s->reach, s->dp, s->send, s->amask, s->zbuf,
	                s->leadm, s->charge};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* Allocates the search state and fills what does not change between the
 * searches: rules, limits and tie ranks. Returns a usmp_status. */
int xact_mp_init(xact_mp *s, const usmp_view *v, const usmp_host *h,
                 uint64_t capacity)
{
	s->v = v;
	s->h = h;
	s->n = v->buffer_count;
	s->P = v->pool_count;
	s->W = (s->n + 63) / 64 ? (s->n + 63) / 64 : 1;
	size_t n = s->n ? s->n : 1, P = s->P;
	if (!(s->conf = h->alloc(h, n * s->W * sizeof *s->conf)) ||
	    !(s->limit = h->alloc(h, P * sizeof *s->limit)) ||
	    !(s->prank = h->alloc(h, n * sizeof *s->prank)) ||
	    !(s->twin = h->alloc(h, n * sizeof *s->twin)) ||
	    !(s->pool = h->alloc(h, n * sizeof *s->pool)) ||
	    !(s->off = h->alloc(h, n * sizeof *s->off)) ||
	    !(s->plist = h->alloc(h, P * n * sizeof *s->plist)) ||
	    !(s->pcount = h->alloc(h, P * sizeof *s->pcount)) ||
	    !(s->hw = h->alloc(h, P * sizeof *s->hw)) ||
	    !(s->moves = h->alloc(h, n * (n * P + 1) * sizeof *s->moves)) ||
	    !(s->ybuf = h->alloc(h, n * P * sizeof *s->ybuf)) ||
	    !(s->bpool = h->alloc(h, n * sizeof *s->bpool)) ||
	    !(s->boff = h->alloc(h, n * sizeof *s->boff)) ||
	    !(s->amask = h->alloc(h, n * sizeof *s->amask)) ||
	    !(s->zbuf = h->alloc(h, 2 * n * sizeof *s->zbuf)) ||
	    !(s->leadm = h->alloc(h, n * n * sizeof *s->leadm)))
		return USMP_ERR_NOMEM;
	if (build_sections(s))
		return USMP_ERR_NOMEM;
	size_t ns = s->nsect ? s->nsect : 1;
	size_t nm = s->nsect ? s->sect_start[s->nsect] : 0;
	if (!(s->charge = h->alloc(h, (nm ? nm : 1) * sizeof *s->charge)) ||
	    !(s->fsum = h->alloc(h, P * ns * sizeof *s->fsum)) ||
	    !(s->ssum = h->alloc(h, ns * sizeof *s->ssum)) ||
	    !(s->exc = h->alloc(h, P * ns * sizeof *s->exc)) ||
	    !(s->reach = h->alloc(h, P * ns * sizeof *s->reach)) ||
	    !(s->dp = h->alloc(h, (ns + 1) * sizeof *s->dp)))
		return USMP_ERR_NOMEM;
	for (size_t i = 0; i < n * n; i++)
		s->leadm[i] = INT64_MIN;
	for (uint64_t i = 0; i < v->overlap_count; i++)
		s->leadm[(size_t)v->overlaps[i].src * n + v->overlaps[i].dst] =
			v->overlaps[i].max_lead;
	for (uint32_t p = 0; p < s->P; p++) {
		s->limit[p] = v->pools[p].size_limit;
		if (capacity > 0 && capacity < s->limit[p])
			s->limit[p] = capacity;
	}
	/* Ties at one offset: larger buffers first, then by index. */
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t r = 0;
		for (uint32_t c = 0; c < s->n; c++)
			if (v->buffers[c].size > v->buffers[b].size ||
			    (v->buffers[c].size == v->buffers[b].size && c < b))
				r++;
		s->prank[b] = r;
	}
	s->rank = s->prank;
	s->nfree = s->n; /* nplaced counts the fixed buffers too */
	return USMP_OK;
}
