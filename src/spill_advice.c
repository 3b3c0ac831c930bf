/* spill_advice.c — advice for a part too full in one pool: which buffers to let
 * use which other pools (of the same target) so that every step fits. */
#include "infeasible.h"

#include <stdlib.h>
#include <string.h>

/*
 * Spill advice (a STEP on one pool P, or a BUFFER whose largest pool is
 * P): every time step where the buffers that may use only P (and the
 * BUFFER's buffer) exceed P's limit, counting each whole, must come under
 * it. Greedily, at the first step still over, a movable buffer live there
 * goes to the first other pool (same target as P, not
 * yet in its list) whose load, counting every live buffer that may use it
 * and those already moved there, stays within its limit over the moved
 * buffer's whole live range. Buffers are tried by the number of overflowing
 * steps each alone brings under the limit, then the smallest (the largest
 * when none does alone). At most MAX_MOVES moves; no advice otherwise.
 */

#define NONE UINT32_MAX
enum { MAX_MOVES = 32, MAX_TRIES = 16, MAX_DEST = 16 };

/* Whether pools a and b serve a target in common (a pool naming none
 * serves every target). `a_set`, when not NULL, holds a's targets: a pool
 * naming many targets is compared with each other pool in the time of the
 * other's targets, not of the product. */
static bool share_target(const usmp__pool *a, const usmp__strmap *a_set,
                         const usmp__pool *b)
{
	uint32_t at;
	if (!a->target_count || !b->target_count)
		return true;
	if (a_set) {
		for (uint32_t i = 0; i < b->target_count; i++)
			if (usmp__strmap_get(a_set, b->targets[i], &at) == USMP_OK)
				return true;
		return false;
	}
	for (uint32_t i = 0; i < a->target_count; i++)
		for (uint32_t k = 0; k < b->target_count; k++)
			if (!strcmp(a->targets[i], b->targets[k]))
				return true;
	return false;
}

static bool may_use(const usmp__buffer *b, uint32_t pool)
{
	if (b->flags & USMP_BUFFER_FIXED)
		return b->fixed_pool == pool;
	if (!b->candidate_count)
		return true;
	for (uint32_t c = 0; c < b->candidate_count; c++)
		if (b->candidates[c] == pool)
			return true;
	return false;
}

static bool plive(const usmp__buffer *b)
{
	return (b->flags & USMP_BUFFER_LIVE) && b->end > b->begin;
}

/* The first segment of T[0..nt) not before t. */
static uint32_t time_index(const int64_t *T, uint32_t nt, int64_t t)
{
	return (uint32_t)usmp__first_ge_i64(T, nt, t);
}

/* Add `size` over [begin, end) to a profile over segments of T. */
static void range_add(uint64_t *L, const int64_t *T, uint32_t nt,
                      int64_t begin, int64_t end, uint64_t size, bool sub)
{
	for (uint32_t k = time_index(T, nt, begin); k < nt && T[k] < end; k++)
		L[k] = sub ? L[k] - size : L[k] + size;
}

static uint64_t range_max(const uint64_t *L, const int64_t *T, uint32_t nt,
                          int64_t begin, int64_t end)
{
	uint64_t m = 0;
	for (uint32_t k = time_index(T, nt, begin); k < nt && T[k] < end; k++)
		if (L[k] > m)
			m = L[k];
	return m;
}

/* Whether candidate a (score sa) goes before b (score sb). */
static bool better(const usmp_view *v, uint32_t a, uint32_t sa, uint32_t b,
                   uint32_t sb)
{
	uint64_t za = v->buffers[a].size, zb = v->buffers[b].size;
	if (sa != sb)
		return sa > sb;
	if (za != zb)
		return sa ? za < zb : za > zb;
	return a < b;
}

/* The working state of one spill search: the buffers of the full pool, the
 * pools they may move to, and the load of each over the segments T. */
typedef struct spill_ctx {
	const usmp_problem *p;
	const usmp__view_store *vs;
	uint64_t limit;                /* the full pool's size limit */
	uint32_t dest[MAX_DEST], nd;   /* pools to move to (problem indices) */
	uint32_t *set, ns;             /* view buffers of the full pool */
	uint32_t *cand, *score;        /* candidates at a step, their scores */
	uint32_t *moved_to;            /* per view buffer: its new pool or NONE */
	int64_t *T;                    /* segment starts, ascending */
	uint32_t nt;
	uint64_t *Lp, *Lq;             /* load of the full pool; of each dest */
} spill_ctx;

/* Segments: every begin and end of the live buffers of the full pool and
 * of those that may use a destination, into s->T. `times` bounds their
 * count. */
static int spill_segments(spill_ctx *s, size_t times)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	int rc = USMP_ERR_NOMEM;
	size_t nk = 0;
	uint64_t *keys = malloc((times ? times : 1) * sizeof *keys);
	if (!keys)
		goto fail;
	for (uint32_t k = 0; k < s->ns; k++) {
		keys[nk++] = usmp__time_key(v->buffers[s->set[k]].begin);
		keys[nk++] = usmp__time_key(v->buffers[s->set[k]].end);
	}
	for (size_t b = 0; b < p->buffer_count; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		bool any = false;
		for (uint32_t d = 0; d < s->nd && !any; d++)
			any = may_use(buf, s->dest[d]);
		if (!plive(buf) || !any)
			continue;
		keys[nk++] = usmp__time_key(buf->begin);
		keys[nk++] = usmp__time_key(buf->end);
	}
	if ((rc = usmp__sort_pairs(keys, NULL, nk)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	s->T = malloc((nk ? nk : 1) * sizeof *s->T);
	if (!s->T)
		goto fail;
	s->nt = 0;
	for (size_t k = 0; k < nk; k++) {
		int64_t t = (int64_t)(keys[k] ^ (UINT64_C(1) << 63));
		if (!s->nt || s->T[s->nt - 1] != t)
			s->T[s->nt++] = t;
	}
	rc = USMP_OK;
fail:
	free(keys);
	return rc;
}

/* The load profiles: s->Lp of the full pool's buffers, s->Lq (nd rows of
 * nt) of the buffers that may use each destination. */
static int spill_profiles(spill_ctx *s)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	uint32_t nt = s->nt;
	s->Lp = calloc(nt ? nt : 1, sizeof *s->Lp);
	s->Lq = calloc((size_t)(nt ? nt : 1) * s->nd, sizeof *s->Lq);
	if (!s->Lp || !s->Lq)
		return USMP_ERR_NOMEM;
	for (uint32_t k = 0; k < s->ns; k++) {
		const usmp_buffer_rec *b = &v->buffers[s->set[k]];
		range_add(s->Lp, s->T, nt, b->begin, b->end, b->size, false);
	}
	for (uint32_t d = 0; d < s->nd; d++)
		for (size_t b = 0; b < p->buffer_count; b++) {
			const usmp__buffer *buf = &p->buffers[b];
			if (plive(buf) && may_use(buf, s->dest[d]))
				range_add(s->Lq + (size_t)d * nt, s->T, nt, buf->begin,
				          buf->end, buf->size, false);
		}
	return USMP_OK;
}

/* The unmoved, unfixed buffers of the full pool alive at segment k, into
 * s->cand with their scores: the overflowing steps a buffer alone brings
 * under the limit. Returns their count. */
static uint32_t spill_candidates(spill_ctx *s, uint32_t k)
{
	const usmp_view *v = &s->vs->view;
	const int64_t *T = s->T;
	uint32_t nc = 0;
	for (uint32_t i = 0; i < s->ns; i++) {
		const usmp_buffer_rec *b = &v->buffers[s->set[i]];
		if (s->moved_to[s->set[i]] == NONE &&
		    !(b->flags & USMP_BUFFER_FIXED) && b->begin <= T[k] &&
		    b->end > T[k])
			s->cand[nc++] = s->set[i];
	}
	for (uint32_t ci = 0; ci < nc; ci++) {
		const usmp_buffer_rec *b = &v->buffers[s->cand[ci]];
		s->score[ci] = 0;
		for (uint32_t j = time_index(T, s->nt, b->begin);
		     j < s->nt && T[j] < b->end; j++)
			s->score[ci] += s->Lp[j] > s->limit &&
			                b->size >= s->Lp[j] - s->limit;
	}
	return nc;
}

/* Move one of the nc candidates to a destination it fits in all its life,
 * trying at most MAX_TRIES of them: highest score first, then the
 * smallest; with score 0, the largest (few moves, then few bytes moved).
 * Records the move in out; false when none fits. */
static bool spill_move(spill_ctx *s, uint32_t nc, usmp__advice *out)
{
	const usmp_view *v = &s->vs->view;
	const usmp_problem *p = s->p;
	uint32_t nt = s->nt, *cand = s->cand, *score = s->score;
	for (uint32_t t = 0; t < nc && t < MAX_TRIES; t++) {
		uint32_t ci = NONE;
		for (uint32_t x = 0; x < nc; x++) {
			if (score[x] == UINT32_MAX)
				continue; /* tried */
			if (ci == NONE || better(v, cand[x], score[x], cand[ci],
			                         score[ci]))
				ci = x;
		}
		score[ci] = UINT32_MAX;
		const usmp_buffer_rec *b = &v->buffers[cand[ci]];
		uint32_t pb = s->vs->buffer_map[cand[ci]];
		for (uint32_t d = 0; d < s->nd; d++) {
			uint64_t lim = p->pools[s->dest[d]].size_limit;
			if (may_use(&p->buffers[pb], s->dest[d]))
				continue; /* already in its list */
			uint64_t *L = s->Lq + (size_t)d * nt;
			uint64_t load = range_max(L, s->T, nt, b->begin, b->end);
			if (lim != USMP_UNBOUNDED &&
			    (load > lim || b->size > lim - load))
				continue;
			range_add(L, s->T, nt, b->begin, b->end, b->size, false);
			range_add(s->Lp, s->T, nt, b->begin, b->end, b->size, true);
			s->moved_to[cand[ci]] = s->dest[d];
			out->buf[out->count] = pb;
			out->pool[out->count++] = s->dest[d];
			return true;
		}
	}
	return false;
}

/* Spill advice for a STEP or BUFFER certificate on view pool c->pool. */
int usmp__spill_advice(const usmp_problem *p, const usmp__view_store *vs,
                 const usmp__cert *c, usmp__advice *out)
{
	const usmp_view *v = &vs->view;
	uint32_t P = vs->pool_map[c->pool];
	spill_ctx s = { .p = p, .vs = vs, .limit = p->pools[P].size_limit };
	int rc = USMP_ERR_NOMEM;
	memset(out, 0, sizeof *out);
	/* P's targets as a set when it names many: out of memory, the pairs
	 * are compared one by one instead (slower, the same answer). */
	const usmp__pool *fullp = &p->pools[P];
	usmp__strmap targets;
	bool use_set = fullp->target_count >= 16;
	usmp__strmap_init(&targets);
	for (uint32_t i = 0; use_set && i < fullp->target_count; i++)
		if (usmp__strmap_put(&targets, fullp->targets[i], i) ==
		    USMP_ERR_NOMEM)
			use_set = false;
	for (uint32_t q = 0; q < p->pool_count && s.nd < MAX_DEST; q++)
		if (q != P && share_target(fullp, use_set ? &targets : NULL,
		                           &p->pools[q]))
			s.dest[s.nd++] = q;
	usmp__strmap_finish(&targets);
	if (!s.nd)
		return USMP_OK;
	/* Sums stay exact in 64 bits below 2^63 (profiles wrap harmlessly). */
	uint64_t sum = 0;
	size_t times = 0;
	for (size_t b = 0; b < p->buffer_count; b++) {
		const usmp__buffer *buf = &p->buffers[b];
		if (!plive(buf))
			continue;
		if (buf->size > (UINT64_C(1) << 62) - sum)
			return USMP_OK;
		sum += buf->size;
		times += 4; /* its begin and end, as in the set and as a user */
	}
	uint32_t n = v->buffer_count;
	s.set = malloc((n ? n : 1) * sizeof *s.set);
	s.cand = malloc((n ? n : 1) * sizeof *s.cand);
	s.moved_to = malloc((n ? n : 1) * sizeof *s.moved_to);
	s.score = malloc((n ? n : 1) * sizeof *s.score);
	if (!s.set || !s.cand || !s.moved_to || !s.score)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t np;
		const uint32_t *ps = pools_of(v, i, &np);
		s.moved_to[i] = NONE;
		bool mine = (np == 1 && ps[0] == c->pool) ||
		            (c->kind == USMP_INFEASIBLE_BUFFER && i == c->buffers[0]);
		if (mine && is_live(&v->buffers[i]))
			s.set[s.ns++] = i;
	}
	if ((rc = spill_segments(&s, times)) != USMP_OK ||
	    (rc = spill_profiles(&s)) != USMP_OK)
		goto fail;
	rc = USMP_ERR_NOMEM;
	out->buf = malloc(MAX_MOVES * sizeof *out->buf);
	out->pool = malloc(MAX_MOVES * sizeof *out->pool);
	if (!out->buf || !out->pool)
		goto fail;
	rc = USMP_OK;
	for (;;) {
		uint32_t k = 0;
		while (k < s.nt && s.Lp[k] <= s.limit)
			k++;
		if (k == s.nt)
			break; /* every step fits: the advice is complete */
		if (out->count == MAX_MOVES ||
		    !spill_move(&s, spill_candidates(&s, k), out))
			goto none;
	}
	goto fail; /* rc = USMP_OK: keep the usmp__advice */
none:
	free(out->buf);
	free(out->pool);
	memset(out, 0, sizeof *out);
fail:
	if (rc) {
		free(out->buf);
		free(out->pool);
		memset(out, 0, sizeof *out);
	}
	free(s.T);
	free(s.Lp);
	free(s.Lq);
	free(s.set);
	free(s.cand);
	free(s.moved_to);
	free(s.score);
	return rc;
}
