/* plan.h — a plan and planning it: struct usmp_plan and its parts (plan.c), and
 * why a part has no plan (infeasible.c). */
#ifndef USMP_PLAN_H
#define USMP_PLAN_H

#include "registry.h"
#include "view.h"

/* ---- infeasible.c: why a part has no plan ---------------------------------- */

/* What usmp_plan_infeasibility returns, with the arrays it points into. */
typedef struct usmp__infeasible {
	usmp_infeasibility info;
	uint32_t *buffers, *pools, *move_buffers, *move_pools;
	char *algorithm;
} usmp__infeasible;

/* Free w and what it points to (NULL is fine). */
void usmp__infeasible_free(usmp__infeasible *w);

/* usmp__infeasible_explain flags. */
enum {
	USMP__WHY_PROVEN = 1u << 0, /* the algorithm's failure is a proof (exact) */
	USMP__WHY_RULES_AS_CONFLICTS = 1u << 1, /* it planned rules as conflicts */
	USMP__WHY_KNOB_LIMIT = 1u << 2, /* a knob (capacity) set its own limit */
	USMP__WHY_RULES_PLAIN = 1u << 3 /* a heuristic lacking the overlap-rules
	                                   capability planned rules as conflicts */
};

/* Algorithm `algo` failed with status st (USMP_ERR_INFEASIBLE or
 * USMP_ERR_STOPPED) on the part `vs` of bound group `group`; `why` is its
 * own last message (NULL/"" for none). Compute the certificate and record
 * on the plan the message, the status and the infeasibility. Returns the
 * status recorded: USMP_ERR_INFEASIBLE with a certificate or the honest
 * "a plan may exist"; USMP_ERR_UNSUPPORTED for RULES_AS_CONFLICTS without
 * a certificate; USMP_OK (nothing recorded) for STOPPED without one. */
int usmp__infeasible_explain(usmp_problem *p, const usmp__view_store *vs,
                             uint32_t group, const char *algo, int st,
                             unsigned flags, const char *why, usmp_plan *plan);
/* Whether a plan of view v exists by construction, so that no algorithm
 * may call the part infeasible: every pool is unbounded, and every movable
 * buffer stacked (aligned) above the highest fixed byte ends within 2^64.
 * Fixed buffers that clash are usmp__infeasible_fixed's to find. */
bool usmp__infeasible_never(const usmp_view *v);
/* Whether a part is infeasible at a glance, in O(buffers + candidates):
 * its lower bound above all its pools hold, or a buffer larger than every
 * pool it may use (a BOUND or BUFFER certificate holds). auto then runs
 * no member (infeasible_cert.c). */
bool usmp__infeasible_plain(const usmp_view *v);
/* Fixed placements of the part that clash make every plan invalid:
 * USMP_ERR_INFEASIBLE recorded on the plan (certificate FIXED), else
 * USMP_OK. Run before any algorithm. */
int usmp__infeasible_fixed(usmp_problem *p, const usmp__view_store *vs,
                           uint32_t group, const char *algo, usmp_plan *plan);

/* ---- plan.c ---------------------------------------------------------------- */

/* How one part (one bound group) was planned, for the plan's report. */
typedef struct usmp__part {
	char *target, *algorithm, *params;
	/* params again as NUL-terminated names and values one after the other
	 * (param_list_len bytes), for the JSON writer: a str value may hold
	 * blanks and '='; NULL when unknown (the writer splits params). */
	char *param_list;
	size_t param_list_len;
	char *pools, *rule; /* for messages: "sram, dram"; the rule's text */
	int source;         /* usmp_rule_source of the rule */
	uint32_t pool_count;
	uint32_t buffer_count, group;
	int optimal;
	uint64_t size, lower_bound, proven_bound;
	double time_ms;
	double limit; /* seconds of budget from the call's start; 0 = none */
	int stopped;  /* the algorithm was told to stop (limit or cancel) */
	int whole;    /* verified as the whole problem, indices unchanged */
	uint64_t spill;         /* bytes outside their first candidate pool */
	uint32_t spill_count;   /* buffers outside it */
	uint32_t spill_largest; /* the largest of them; UINT32_MAX when none */
	uint64_t spill_forced;  /* of spill, what no plan avoids */
	uint64_t spill_floor;   /* no valid plan spills less (spill_floor.c) */
	uint64_t rules_as_conflicts; /* rules its algorithm did not honour */
	char *overrun_by; /* the member that ran past the limit, or NULL */
	int overrun_cause; /* usmp_overrun_cause */
} usmp__part;

/* A plan: status, placements, pool sizes and its parts. */
struct usmp_plan {
	int status;
	char *error;
	uint32_t buffer_count, pool_count;
	/* The problem it was made for, to tell that problem grown since from
	 * another one; compared, never followed (it may be gone). */
	const usmp_problem *made_for;
	usmp_placement *placements; /* problem indices */
	uint64_t *pool_size;        /* [pool_count] high-water marks */
	usmp__part *parts;
	uint32_t part_count;
	double time_ms;
	usmp__infeasible *infeasible; /* with status USMP_ERR_INFEASIBLE */
	/* After a write that failed (its status and message are the plan's
	 * until the next call), the status and message the plan had before
	 * it, which the next write that succeeds puts back. */
	int write_failed;
	int own_status;
	char *own_error;
	/* Read from a file: its first claim the placements disprove
	 * (plan_claims.c), which usmp_plan_verify reports; NULL when none. */
	char *claim_error;
};

/* An empty plan shaped for p (every buffer at USMP_NO_POOL). */
usmp_plan *usmp__plan_alloc(usmp_problem *p);
/* Record a failure on the plan: its status and formatted message; returns
 * status. */
int usmp__plan_fail(usmp_plan *plan, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* Record a failure on the plan: its status and a copy of msg; returns
 * status. Inline, so files that plan.c calls need not call back into it. */
static inline int usmp__plan_set_error(usmp_plan *plan, int status,
                                       const char *msg)
{
	usmp__set_msg(&plan->error, "%s", msg);
	usmp__free_msg(&plan->own_error); /* as usmp__plan_fail */
	plan->write_failed = 0;
	plan->status = status;
	return status;
}
/* A call that judged the plan (verify, simulate) found nothing wrong: status
 * USMP_OK, no message (not a failure's from an earlier call). */
void usmp__plan_ok(usmp_plan *plan);
/* Around a write of the plan: _begin puts back the plan's own status and
 * message after an earlier write failed, and takes the message out;
 * _end(rc) keeps them aside when this write failed (status rc and its
 * message stay until the next call), else puts them back. Returns rc. */
char *usmp__plan_write_begin(usmp_plan *plan);
int usmp__plan_write_end(usmp_plan *plan, int rc, int own_status,
                         char *own_error);
/* Prepare p and check the plan is shaped for it (buffer and pool counts);
 * USMP_OK, or the failure recorded on the plan. */
int usmp__plan_fits_problem(usmp_plan *plan, usmp_problem *p);
/* Record on the plan, with `status`, that its counts are not p's: "the
 * problem changed after this plan was made" when p is the problem it was
 * made for, else "the plan ... is not for this problem". */
int usmp__plan_wrong_problem(usmp_plan *plan, const usmp_problem *p,
                             int status);
/* Fill each part's spill fields from the placements and p's candidate
 * lists, as planning does, the spill floor on the view of its group (a
 * plan read from a file; p prepared). */
void usmp__plan_spill(usmp_plan *plan, usmp_problem *p);
/* Recompute pool_size from placements. */
void usmp__plan_measure(usmp_plan *plan, const usmp_problem *p);
/* The parts that name an algorithm first (each distinct name once, in part
 * order) into *first (malloc'ed, *count of them): linear in the parts, so
 * a plan file of many parts, each its own name, is written in a moment.
 * USMP_OK or USMP_ERR_NOMEM. */
int usmp__plan_distinct_algorithms(const usmp_plan *plan, uint32_t **first,
                                   uint32_t *count);

#endif /* USMP_PLAN_H */
