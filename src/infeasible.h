/* infeasible.h — what the files that explain a part without a plan share: the
 * certificate (infeasible_cert.c), the spill advice (spill_advice.c). */
#ifndef USMP_INFEASIBLE_H
#define USMP_INFEASIBLE_H

#include "plan.h"

/* A proof that no valid plan exists (kinds in infeasible_cert.c), in view
 * indices; `pool` is UINT32_MAX when it is about several pools. */
typedef struct usmp__cert {
	int kind; /* usmp_infeasibility_kind, 0 = none found */
	uint32_t pool; /* view pool, UINT32_MAX for several */
	usmp__wide limit;
	int64_t step;
	uint64_t total;
	uint32_t last;  /* STEP: the buffer whose entry made the state */
	bool rules;     /* STEP: overlap rules shared bytes in the total */
	bool saturated; /* STEP: the total is above 2^64 - 1 */
	usmp__wide need; /* STEP: the total, exact */
	uint32_t *buffers, nbuf;
	uint32_t *pools, npool;
} usmp__cert;

/* Spill advice: buf[k] (a problem buffer) may use pool[k] (a problem pool). */
typedef struct usmp__advice {
	uint32_t *buf, *pool; /* problem indices */
	uint32_t count;
} usmp__advice;

/* The pools buffer i may use: its fixed pool, or its candidates. */
static inline const uint32_t *pools_of(const usmp_view *v, uint32_t i, uint32_t *n)
{
	const usmp_buffer_rec *b = &v->buffers[i];
	if (b->flags & USMP_BUFFER_FIXED) {
		*n = 1;
		return &b->fixed_pool;
	}
	*n = b->candidate_count;
	return v->candidates + b->candidate_start;
}

/* Pool's size limit (USMP_UNBOUNDED counts as 2^64 - 1 bytes). */
static inline uint64_t limit_of(const usmp_view *v, uint32_t pool)
{
	return v->pools[pool].size_limit; /* USMP_UNBOUNDED is 2^64 - 1 */
}

/* Whether a buffer of the view is live (a non-empty live range). */
static inline bool is_live(const usmp_buffer_rec *b)
{
	return (b->flags & USMP_BUFFER_LIVE) && b->end > b->begin;
}

/* The certificate of a part with no plan from its view alone: BUFFER,
 * STEP, BOUND, in that order of preference; c->kind 0 when none holds.
 * 0 or USMP_ERR_NOMEM (c is to be freed in both cases). */
int usmp__infeasible_certify(const usmp_view *v, usmp__cert *c);
/* Every pool of the part as c's pools; c->pool the only one, or
 * UINT32_MAX when there are several. 0 or USMP_ERR_NOMEM. */
int usmp__infeasible_all_pools(const usmp_view *v, usmp__cert *c);
/* Free c's arrays. */
void usmp__cert_free(usmp__cert *c);

/* Spill advice for a STEP or BUFFER certificate c on view pool c->pool,
 * into out (count 0: none found within its limits). 0 or USMP_ERR_NOMEM. */
int usmp__spill_advice(const usmp_problem *p, const usmp__view_store *vs,
                       const usmp__cert *c, usmp__advice *out);

#endif
