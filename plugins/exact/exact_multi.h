/* exact_multi.h — what the files of the exact search for several pools share:
 * its state (conflict bits, placements, bounds' scratch, best plan) and steps.
 *
 * exact_multi.c runs the searches and reports what they prove;
 * exact_multi_search.c is one search (branch and bound over moves),
 * exact_multi_bound.c a node's lowest offsets, moves and bounds,
 * exact_multi_place.c placing and the best plan, exact_multi_incumbent.c
 * the first plans, exact_multi_rules.c the overlap rules,
 * exact_multi_setup.c the state's allocation and the scope check. Names
 * across files start with xact_mp_ (types xact_mp, xact_move; modes
 * XACT_MODE_). */
#ifndef XACT_MULTI_H
#define XACT_MULTI_H

#include "exact_internal.h"

/* One move of the search: buffer b into pool p at offset x. */
typedef struct xact_move {
	uint64_t x;
	uint32_t b, p;
	uint32_t pref; /* 0 when p is b's first candidate */
} xact_move;

/* The three searches: rules as plain conflicts; a relaxation where rule
 * pairs may overlap freely; rule pairs sharing as their rules allow. */
enum { XACT_MODE_CONFLICTS, XACT_MODE_RELAXED, XACT_MODE_NATIVE };

typedef struct xact_mp {
	const usmp_view *v;
	const usmp_host *h;
	uint32_t n, P, W;   /* buffers, pools, words per conflict row */
	uint64_t *conf;     /* [n * W] conflict bits in the current mode */
	uint64_t *limit;    /* [P] the pools' limits (capacity applied) */
	uint32_t *rank;     /* [n] tie order of equal offsets: one of */
	uint32_t *prank;    /* [n] larger first, then by index */
	uint32_t *nrank;    /* [n] the same, but each in-place dst (rule with
	                       max_lead 0) before its src; NULL unless every
	                       sharing rule has max_lead <= 0 (native_order) */
	uint32_t *twin;     /* [n] an identical earlier buffer, or UINT32_MAX */
	/* time sections: buffers alive in each (for the stacking bound) */
	uint32_t nsect;
	uint32_t *sect_start, *sect_mem; /* CSR */
	/* the state */
	uint32_t *pool;     /* [n] USMP_NO_POOL when unplaced */
	uint64_t *off;      /* [n] */
	uint32_t *plist;    /* [P * n] placed buffers of each pool, by offset */
	uint32_t *pcount;   /* [P] */
	uint64_t *hw;       /* [P] high-water marks (fixed included) */
	uint64_t spill;     /* bytes placed outside their first candidate */
	uint32_t nfree, nplaced;
	uint64_t last_o;    /* the last move's offset and rank */
	uint32_t last_rank;
	bool started;
	xact_move *moves;        /* [n * (n * P + 1)] scratch, one slice per depth */
	uint64_t *ybuf;     /* [n * P] lowest offset >= last_o per (b, pool) */
	uint64_t *fsum;     /* [P * nsect] forced sizes per pool and section */
	uint64_t *ssum;     /* [nsect] unplaced sizes per section */
	uint64_t *exc;      /* [P * nsect] preferred bytes beyond a pool's room */
	uint32_t *reach;    /* [P * nsect] first section none of them is in */
	uint64_t *dp;       /* [nsect + 1] */
	uint32_t *send;     /* [n] the section after a buffer's last one */
	uint64_t *amask;    /* [n] pools an unplaced buffer may still use */
	uint64_t *zbuf;     /* [2 n] scratch sizes and charges */
	/* the best plan */
	uint32_t *bpool;
	uint64_t *boff;
	bool have;
	uint64_t best_spill, best_total;
	bool first_only;    /* feasibility mode: stop at the first plan */
	bool found;
	bool stop_at_lb;    /* a plan without spill at lb0 ends the search */
	/* Bounds of the size: the host's or exact's own with alignment
	 * (xact_align_bound_view), the larger; lb of every plan, lb0 of the
	 * plans without spill. */
	uint64_t lb, lb0;
	bool native;        /* xact_mp_lowest() lets rule pairs share as allowed */
	int64_t *leadm;     /* [n * n] max_lead of rule (src, dst), or INT64_MIN */
	bool shared;        /* rule pairs may share in this search */
	int mode;           /* MODE_* of the search running */
	uint64_t *charge;   /* [sect_start[nsect]] bytes a section member adds
	                       at least: its size less what rule partners
	                       listed before it could share with it */
	bool has_target;    /* a plan reaching (tspill, ttotal) ends it too */
	bool root_check;    /* the root's spill bound holds for valid plans */
	uint64_t tspill, ttotal;
	bool done;          /* ... and one was found */
	uint64_t spill_floor; /* no plan spills less (exact_spill.c) */
	xact_clock *clk;
} xact_mp;

static inline bool conflicts(const xact_mp *s, uint32_t a, uint32_t b)
{
	return (s->conf[(size_t)a * s->W + b / 64] >> (b % 64)) & 1u;
}

static inline void set_conflict(xact_mp *s, uint32_t a, uint32_t b, bool on)
{
	uint64_t bit = UINT64_C(1) << (b % 64), bit2 = UINT64_C(1) << (a % 64);
	if (on) {
		s->conf[(size_t)a * s->W + b / 64] |= bit;
		s->conf[(size_t)b * s->W + a / 64] |= bit2;
	} else {
		s->conf[(size_t)a * s->W + b / 64] &= ~bit;
		s->conf[(size_t)b * s->W + a / 64] &= ~bit2;
	}
}

static inline const uint32_t *cands(const xact_mp *s, uint32_t b,
                                     uint32_t *count)
{
	const usmp_buffer_rec *r = &s->v->buffers[b];
	if (r->flags & USMP_BUFFER_FIXED) {
		*count = 1;
		return &r->fixed_pool;
	}
	*count = r->candidate_count;
	return s->v->candidates + r->candidate_start;
}

static inline uint32_t first_cand(const xact_mp *s, uint32_t b)
{
	const usmp_buffer_rec *r = &s->v->buffers[b];
	return s->v->candidates[r->candidate_start];
}

/* ---- across files ------------------------------------------------------- */

/* exact_multi_setup.c: check scope and sizes (logs the reason for a
 * refusal); allocate the state and fill what does not change between the
 * searches (a usmp_status); free it; identical buffers, placed in index
 * order. */
int xact_mp_check(const usmp_view *v, const usmp_host *h);
int xact_mp_init(xact_mp *s, const usmp_view *v, const usmp_host *h,
                 uint64_t capacity);
void xact_mp_free(xact_mp *s);
void xact_mp_find_twins(xact_mp *s);

/* exact_multi_place.c: place b at x in pool p and take it out again;
 * whether (spill, total) beats the best plan; keep the current plan when
 * it does; place the fixed buffers (false on a clash). */
void xact_mp_place(xact_mp *s, uint32_t b, uint32_t p, uint64_t x);
void xact_mp_unplace(xact_mp *s, uint32_t b);
bool xact_mp_better(const xact_mp *s, uint64_t spill, uint64_t total);
void xact_mp_record(xact_mp *s);
bool xact_mp_place_fixed(xact_mp *s);

/* exact_multi_bound.c: the lowest offset >= from, aligned, where b meets
 * no placed buffer of pool p it conflicts with (or, s->native, meets rule
 * partners only as their rules allow); lower bounds of the node (spill,
 * total) and its moves, false when some unplaced buffer fits no pool any
 * more. */
uint64_t xact_mp_lowest(const xact_mp *s, uint32_t b, uint32_t p,
                        uint64_t from);
bool xact_mp_bound(xact_mp *s, uint64_t *spill_lb, uint64_t *total_lb,
                   xact_move *mv, uint32_t *nmv);

/* exact_multi_search.c: one complete search in a mode (a xact_result). */
int xact_mp_run(xact_mp *s, int mode);

/* exact_multi_incumbent.c: a greedy plan in order kind (0 to 3), onto
 * rule partners or not; a plan from the time-order sweep. Each becomes
 * the best plan when better. */
void xact_mp_greedy(xact_mp *s, int kind, bool onto);
void xact_mp_sweep_incumbent(xact_mp *s);

/* exact_multi_rules.c: conflict bits (relaxed: rule pairs that could
 * share do not conflict); whether rule (src, dst) could let the pair
 * share a byte; the most bytes it lets them share; whether some rule lets
 * a conflicting pair share; whether the best plan obeys every rule;
 * whether a at xa overlapping b at xb obeys a rule; the tie order that
 * makes the search where pairs share complete (s->nrank, a usmp_status). */
void xact_mp_build_conflicts(xact_mp *s, bool relaxed);
bool xact_mp_share_rule(const xact_mp *s, uint32_t src, uint32_t dst);
uint64_t xact_mp_rule_share(const xact_mp *s, uint32_t src, uint32_t dst);
bool xact_mp_sharing_rules(xact_mp *s);
bool xact_mp_rules_hold(const xact_mp *s);
bool xact_mp_rule_holds(const xact_mp *s, uint32_t a, uint32_t b, uint64_t xa,
                        uint64_t xb);
int xact_mp_native_order(xact_mp *s);

#endif
