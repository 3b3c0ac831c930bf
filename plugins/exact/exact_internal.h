/* exact_internal.h — the private model shared by the files of the exact plugin:
 * the compressed interval problem, the canonical search and the greedy bound.
 * The plugin's private names start with xact_ (types, functions) and XACT_
 * (macros, constants); usmp_ names belong to the plugin API it uses. */
#ifndef XACT_INTERNAL_H
#define XACT_INTERNAL_H

#include <usmp/plugin.h>

/* Every offset, size and sum in the model stays below this, so additions of
 * two model quantities never overflow a uint64_t. */
#define XACT_MAXVAL (UINT64_C(1) << 62)

/* Parts of the search proven infeasible at a capacity (exact_search.c):
 * kept with the model so that every search of one call shares them. */
typedef struct xact_memo_ent {
	uint64_t hash; /* 0 = empty slot */
	uint64_t cap;
	size_t at;     /* its (buffer, lowest offset) pairs: keys[at..] */
	uint32_t len, a, b; /* pairs, section range [a, b) */
} xact_memo_ent;

typedef struct xact_memo {
	xact_memo_ent *memo; /* open addressing, cmemo slots (2^k) */
	size_t nmemo, cmemo;
	uint64_t *keys;
	size_t nkeys, ckeys;
} xact_memo;

/* The interval problem the search works on. "Free" buffers are those the
 * search places; fixed buffers are obstacles at their imposed offsets. */
typedef struct xact_model {
	const usmp_host *host;
	uint32_t n;        /* free buffers */
	uint32_t *id;      /* [n] view buffer index of each free buffer */
	uint64_t *size;    /* [n] */
	uint64_t *align;   /* [n] max(buffer, pool) alignment */
	uint32_t *sl, *sr; /* [n] section range [sl, sr) */
	/* [n] the previous buffer identical to this one (same size, alignment
	 * and live range), or UINT32_MAX: twins are placed in index order. */
	uint32_t *twin;
	uint32_t nsect;    /* sections: elementary time intervals */
	uint64_t *mem_start; /* [nsect+1] CSR: free buffers alive in each */
	uint32_t *mem;
	uint64_t *nb_start; /* [n+1] CSR of live-range conflicts among free */
	uint32_t *nb;
	uint32_t nfix;      /* fixed buffers */
	uint64_t *fix_off;  /* [nfix] */
	uint64_t *fix_end;  /* [nfix] */
	uint32_t *fix_id;   /* [nfix] view index */
	uint64_t *fx_start; /* [n+1] CSR: fixed buffers each free one meets */
	uint32_t *fx;
	uint64_t fixed_peak; /* highest end of any fixed buffer */
	uint64_t sect_max;   /* largest total size of free buffers in a section */
	/* gcd of every size, alignment and fixed offset: the peak of any
	 * canonical plan, hence the optimum, is a multiple of it. */
	uint64_t gran;
	/* Static preorder keys (MiniMalloc's W, A, T): lifetime width, area and
	 * the largest section total a buffer lives through. */
	uint64_t *width;
	double *area;
	uint64_t *total;
	/* Every canonical plan's peak is the total size of a chain of buffers,
	 * so only such sums can be optimal: bit i of reach says whether i *
	 * reach_unit (the gcd of the sizes) is one (sums of distinct buffers'
	 * sizes), for i < reach_bits. NULL when not computed (an alignment
	 * that does not divide reach_unit, fixed buffers, or too large); every
	 * value then counts as reachable. */
	uint64_t *reach;
	uint64_t reach_bits, reach_unit;
	/* Mutable through the const model: what the searches learn. NULL
	 * when it could not be allocated (the searches then learn nothing). */
	xact_memo *memo;
} xact_model;

/* Greatest common divisor; xact_gcd(0, b) == b. */
uint64_t xact_gcd(uint64_t a, uint64_t b);

/* Build the model from a single-pool interval view. Returns a usmp_status
 * and logs the reason for a refusal. */
int xact_model_build(xact_model *m, const usmp_view *v,
                     const usmp_host *h);
void xact_model_free(xact_model *m);

/* A lower bound of every plan's peak that knows alignment
 * (exact_align_bound.c): at each time section and alignment level M, the
 * sizes of the free buffers alive there with alignment >= M, each rounded
 * up to M, less the largest rounding (the top one's); buffers in an
 * overlap rule that could share and buffers without a live range left
 * out. It holds with the rules; 0 when out of memory. */
uint64_t xact_align_bound(const xact_model *m, const usmp_view *v);
/* The same for a view of any pools (exact_align_bound.c), a bound of the
 * sum of the pools' high-water marks: of every plan, whatever its spill
 * (per alignment level, the rounded sizes of the free buffers alive at one
 * time less one rounding per pool), or, with first_pools, of the plans
 * without spill (each pool bounded alone with the buffers whose first
 * candidate it is). O(n^2): for the joint search's views. */
uint64_t xact_align_bound_view(const usmp_view *v, const usmp_host *h,
                               bool first_pools);

/* The first position of the ascending t[0..count) whose time is not before
 * x (count when every one is): a binary search. */
uint32_t xact_first_time(const int64_t *t, uint32_t count, int64_t x);

/* The lowest aligned offset >= o where free buffer b meets no fixed buffer
 * it conflicts with. Never exceeds XACT_MAXVAL by much. */
uint64_t xact_fit(const xact_model *m, uint32_t b, uint64_t o);

/* The largest reachable peak <= c, and the smallest >= c (c itself when
 * it is beyond what the model knows). */
uint64_t xact_reach_down(const xact_model *m, uint64_t c);
uint64_t xact_reach_up(const xact_model *m, uint64_t c);

/* Stable sort of idx[count] by cmp(ctx, a, b) < 0 first; tmp holds count
 * entries. Deterministic; used for preorders and candidate lists. */
typedef int (*xact_cmp)(const void *ctx, uint32_t a, uint32_t b);
void xact_sort(uint32_t *idx, uint32_t *tmp, uint32_t count,
               xact_cmp cmp, const void *ctx);

/* Greedy plans (first-fit and best-fit over a few size/area/lifetime orders);
 * writes the best into off[n] and returns its peak (fixed buffers included),
 * or UINT64_MAX when out of memory. Stops early (after one plan) when the
 * clock says so. */
struct xact_clock;
uint64_t xact_greedy(const xact_model *m, uint64_t *off,
                     struct xact_clock *clk);

/* Outcome of a bounded feasibility search. */
enum xact_result {
	XACT_FOUND = 0,
	XACT_INFEASIBLE = 1,
	XACT_LIMIT = 2,   /* node budget exhausted */
	XACT_STOPPED = 3, /* host or time limit asked to stop */
	XACT_NOMEM = 4,
	XACT_TOO_WIDE = 5 /* exact_window: a window takes in more buffers
	                     than the search holds (XACT_SEARCH_MAX) */
};

/* Stop conditions shared by every search of one call. */
struct xact_clock {
	const usmp_host *host;
	double deadline;  /* monotonic seconds, 0 = none */
	double budget_end; /* the host's budget's end, 0 = none: for shares
	                      of the time where deadline is 0, not a stop */
	bool stopped;     /* sticky */
	uint64_t nodes;   /* total search nodes of the call */
};
typedef struct xact_clock xact_clock;

double xact_now(void);
bool xact_should_stop(xact_clock *c);

/* Decide whether a plan of peak <= cap exists, spending at most `budget`
 * nodes (UINT64_MAX = unlimited). On FOUND writes the plan into off[n]. */
int xact_solve(const xact_model *m, uint64_t cap,
               uint64_t budget, xact_clock *clk, uint64_t *off);

/* Knobs of one single-pool search, and what it found: its best peak and
 * the bound it proved (no plan of the view has a smaller peak). */
typedef struct xact_params {
	uint64_t capacity;  /* 0 = the pool's limit */
	double time_limit;  /* seconds, 0 = none */
	bool minimize;
	uint64_t enough;    /* a plan of peak <= enough ends the minimisation */
	uint32_t split;     /* larger views go in parts, larger parts to
	                       exact_window (1..XACT_SEARCH_MAX) */
	uint32_t part;      /* several pools, candidates or edges: larger
	                       views go in parts (exact_split.c), larger parts
	                       are planned greedily and by windows */
} xact_params;

/* A pool's limit under the capacity knob: the smaller, capacity 0 none. */
static inline uint64_t xact_capped(const xact_params *kp, uint64_t limit)
{
	return kp->capacity > 0 && kp->capacity < limit ? kp->capacity : limit;
}

typedef struct xact_outcome {
	uint64_t peak, bound;
} xact_outcome;

/* The most buffers one search takes (it recurses once per buffer);
 * larger views go through xact_parts. */
#define XACT_SEARCH_MAX 10000u
/* The most buffers the joint search of several pools takes (exact_multi.c);
 * the largest value of the knob `part`. */
#define XACT_MULTI_MAX 1000u /* MULTI_MAX of exact_multi.c */

/* The search of one single-pool view whose buffers all have live ranges
 * (exact.c). Writes the plan; the caller reports the bound. Returns a
 * usmp_status. */
int xact_one_search(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out, const xact_params *kp,
                    xact_outcome *res);

/* One pool, any buffers (those without a live range get a private time
 * step), whole or in parts (exact.c); the caller reports res. */
int xact_one_pool(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                  const xact_params *kp, xact_outcome *res);

/* Report res as the call's proven bound, raised to the host's lower bound
 * (which holds for every plan) and capped at the peak. */
void xact_report(const usmp_view *v, const usmp_host *h,
                 const xact_outcome *res);

/* Several pools, no conflict edges (exact_pools.c): every buffer in its
 * first candidate pool (the least spill there is), each pool then planned
 * alone by xact_one_pool (with keep, the buffers it clears go to their
 * second candidate instead). res: the sum of the pools' sizes and of their
 * proven bounds. USMP_ERR_UNSUPPORTED when that does not give a plan (a
 * pool cannot hold its buffers, or a search gave up): the caller then
 * searches pools and offsets together. */
int xact_pools(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, const uint8_t *keep,
               xact_outcome *res);

/* Several pools without edges where some buffers must spill
 * (exact_pools.c): the least-spill choices planned pool by pool, proven when
 * they are few and all fit, then (joint) the joint search from the best of
 * them. Returns a usmp_status; reports what is proven. Without joint it
 * stops before that search: USMP_OK with the best plan of the choices in
 * out (and the claims about it reported), USMP_ERR_UNSUPPORTED when there
 * is none. *spill_floor (or NULL): the least spill by load, when known
 * (left as it is otherwise). */
int xact_spill_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk, bool joint, uint64_t *spill_floor);

/* Several pools with conflict edges, one joint search (exact_edges.c): the
 * same view without its edges (fewer conflicts: every plan is a plan of
 * it) planned by the stages above, its plan kept where it obeys the edges
 * or re-swept with its pools where it does not; proven optimal when that
 * relaxation's optimum obeys them, else the joint search's start, with the
 * relaxation's least spill by load as its spill floor. Returns a
 * usmp_status; reports what is proven. */
int xact_edges_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk);

/* A first-pool plan in out, left unproven by sharing rules: the joint
 * search starts from it and may share as the rules allow (exact_pools.c).
 * out stays a valid plan. Returns USMP_OK. */
int xact_rules_joint(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const xact_params *kp,
                     xact_clock *clk);

/* A plan by placing the unfixed buffers in time order (exact_sweep.c),
 * each in pool pin[b] at an offset a rule partner allows, 0, against the
 * pool's cap or against a placed buffer it conflicts with, backtracking
 * while it has looked at no more than budget placed buffers in all; no pool's top above cap[p] (fixed buffers placed as
 * fixed, pin[b] their pool; a buffer whose pin[b] is USMP_NO_POOL is left
 * out). Plans obey the rules; proves nothing.
 * XACT_FOUND with the offsets in off[n], else XACT_INFEASIBLE (none in its
 * space), XACT_LIMIT, XACT_STOPPED or XACT_NOMEM. */
int xact_sweep(const usmp_view *v, const usmp_host *h, const uint32_t *pin,
               const uint64_t *cap, uint64_t budget, xact_clock *clk,
               uint64_t *off);

/* A lower bound of each pool's top, base[p], over the plans with every
 * buffer b in pool pin[b] (exact_sweep.c): the largest fixed top or size,
 * and at each time the live buffers' sizes less what rule partners among
 * them may share (when none may, each but the top one padded to the
 * pool's alignment). Returns the sum over the pools. */
uint64_t xact_pin_floor(const usmp_view *v, const uint32_t *pin,
                        uint64_t *base);

/* max_lead of the rule (src, dst), or INT64_MIN when there is none. */
int64_t xact_rule_lead(const usmp_view *v, uint32_t src, uint32_t dst);

/* The least spill the pools' limits force by load alone (exact_spill.c):
 * a lower bound of every plan's spill (no conflict edges), and the choices
 * reaching it (1 = the buffer stays in its first pool; the others go to
 * their second): *count of them (at most 255, saturated); when *count <=
 * max, every one in keeps[i * n], else one in keeps[0]. share = false
 * takes rule partners as apart: then *lb bounds only plans that share
 * nothing. USMP_ERR_UNSUPPORTED when a time section has too many live
 * buffers to enumerate (nothing is known then). */
int xact_spill_dp(const usmp_view *v, const usmp_host *h, uint64_t capacity,
                  bool share, uint64_t *lb, uint8_t *keeps, uint32_t max,
                  uint32_t *count);

/* A plan to start the joint search from, and a spill no plan goes below. */
typedef struct xact_start {
	bool have;
	const usmp_placement *plan; /* [n], with have */
	uint64_t spill_floor;
	bool evict; /* also try the start chosen by load (xact_evict_start) */
	bool windows; /* and, with a deadline, parts of at most 100 buffers
	                 with windows (xact_split) in a quarter of the time */
} xact_start;

/* A plan of several pools (exact_multi_evict.c): buffers in time order
 * (larger first at one time), each into its first candidate pool when the
 * load there fits its limit over the buffer's range, else evicting from
 * it, latest end first, buffers alive then that can go on to a later
 * candidate where the load fits (the buffer itself among them); then each
 * placed in its pool by the time-order sweep (xact_sweep, pools with a
 * limit capped there; with edges, where it finds nothing, without them
 * and the edges repaired), or where that fails too, each in that order
 * at the lowest offset of its pool where it meets nothing it conflicts
 * with (rule partners as conflicts), else of another candidate. Valid
 * when true; proves nothing. O(n^2) time and the sweep's budget. */
bool xact_evict_start(const usmp_view *v, const usmp_host *h,
                      const xact_params *kp, xact_clock *clk,
                      usmp_placement *out);

/* A plan valid but for v's explicit edges made valid (exact_edges.c): of
 * each edge it breaks, the smaller buffer (not fixed) taken out and put
 * back, larger first, at the lowest free offset (xact_lowest_free) of its
 * first candidate pool where there is one, else of the next. True with
 * the valid plan in rel. */
bool xact_repair_edges(const usmp_view *v, const usmp_host *h,
                       const xact_params *kp, usmp_placement *rel);

/* The lowest offset of buffer b in pool p where it shares no byte with a
 * buffer placed in plan that it conflicts with (live ranges, edges: nb[x]
 * marks b's edge neighbours; rule partners as conflicts), within the
 * pool's limit under kp's capacity, or UINT64_MAX (exact_edges.c).
 * iv: scratch of 2n. */
uint64_t xact_lowest_free(const usmp_view *v, const xact_params *kp,
                          const usmp_placement *plan, const uint8_t *nb,
                          uint32_t b, uint32_t p, uint64_t *iv);

/* A single-pool view with live ranges of any size (exact_parts.c): split
 * at time cuts; parts of at most kp->split buffers are searched, larger
 * ones re-planned by exact_window (their bound counts as 0).
 * res: the largest peak and the largest part bound. */
int xact_parts(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, xact_outcome *res);

/* The exact search for several pools, candidate lists and explicit
 * conflict edges (exact_multi.c), at most 1000 buffers: minimises the bytes
 * placed outside each buffer's first candidate pool, then the sum of the
 * pools' sizes; reports what it proved. st (or NULL): a plan to start
 * from and a spill bound. Returns a usmp_status. */
int xact_multi(const usmp_view *v, const usmp_host *h,
               usmp_placement *out, uint64_t capacity,
               xact_clock *clk, bool minimize, const xact_start *st);
/* Whether v's sizes, alignments and fixed offsets are within the
 * arithmetic of the searches of several pools (exact_multi_setup.c; each
 * below XACT_MAXVAL / 4, and their sum): USMP_OK, or USMP_ERR_UNSUPPORTED
 * with the reason logged. */
int xact_mp_check_range(const usmp_view *v, const usmp_host *h);

/* Several pools, candidate lists or conflict edges beyond kp->part buffers
 * (exact_split.c): the conflict graph's components (they never meet, so
 * each may use every pool's whole limit) of at most kp->part buffers each
 * searched by xact_multi, larger ones (or ones that search does not plan)
 * planned greedily and improved by windows; reports what is proven.
 * Returns a usmp_status (USMP_ERR_INFEASIBLE only when a part's search
 * proved it). */
int xact_split(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, xact_clock *clk);

/* The "exact_window" algorithm (exact_window.c): re-places time windows of
 * a plan with the search above, for problems too large for it whole. */
int xact_window(const usmp_view *v, const usmp_host *h,
                usmp_placement *out, uint32_t window,
                double time_limit, bool warm);
/* The same for exact's own use, where a plan is not owed: its start plan
 * in time order (linear in the buffers alive per buffer) also stops at the
 * time limit or the host's word, with USMP_ERR_STOPPED and no plan. */
int xact_window_nested(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out, uint32_t window,
                       double time_limit, bool warm);

/* The host a search inside exact sees (exact_host.c): its last error or
 * warning kept (the others dropped: thousands of parts), its progress
 * dropped, its bound kept here, and an optional node budget. */
typedef struct xact_sub_host {
	usmp_host h; /* first member: the searches get &h */
	const usmp_host *up;
	const xact_clock *clk; /* the clock of the search running */
	uint64_t node_limit;   /* 0 = none */
	bool got, optimal;     /* the search reported a bound */
	uint64_t bound;
	char msg[256];         /* its last error or warning */
} xact_sub_host;

/* The host exact's entry point hands its stages (exact_host.c): errors and
 * warnings are held back, the latest one at a time, because a stage that
 * fails (the joint search beyond its size, stopped before a plan) is
 * often followed by one that plans; the one held is released when the
 * call ends, at its own level when the call fails, else at info, so a
 * plan that succeeds logs no error (docs/hosts.md, "Log messages"). An
 * error or warning superseded by a later one goes out at info at once.
 * Every other message, and every other hook, passes straight through. */
typedef struct xact_defer_host {
	usmp_host h; /* first member: the stages get &h */
	const usmp_host *up;
	bool held;
	int level;     /* of the message held */
	char msg[1024];
} xact_defer_host;

void xact_defer_init(xact_defer_host *d, const usmp_host *up);
/* Release the message held: at its level when rc is not USMP_OK, else at
 * USMP_LOG_INFO. Returns rc. */
int xact_defer_finish(xact_defer_host *d, int rc);

/* Wrap `up`: everything it offers, with the hooks above. */
void xact_sub_init(xact_sub_host *s, const usmp_host *up);
/* Start a search: no bound yet, no message, the clock and node budget
 * (0: none). */
void xact_sub_reset(xact_sub_host *s, const xact_clock *clk, uint64_t nodes);

#endif
