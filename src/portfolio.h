/* portfolio.h — what auto's files share: its policy, as data
 * (portfolio_policy.c), and the shape of a part the policy reads. */
#ifndef USMP_PORTFOLIO_H
#define USMP_PORTFOLIO_H

#include "host.h"

enum { SHAPE_FEW, SHAPE_MANY, SHAPE_WIDE, SHAPE_COUNT };
enum { ROLE_FIRST, ROLE_HEURISTIC, ROLE_SEARCH };
/* What a member's time grows with: INDEX_FIT, the fit index (first_fit,
 * best_fit, hill_climb): buffers x alive at once, cost x fit_estimate;
 * INDEX_TIME, a time index (TVM's greedies): buffers only,
 * USMP__AUTO_TIME_PER_BUFFER each; INDEX_SWEEP, first_fit_sweep's ordered
 * gaps: buffers only, USMP__AUTO_SWEEP_PER_BUFFER each (budget.h). */
enum { INDEX_FIT, INDEX_TIME, INDEX_SWEEP };

/* One row of the policy (the table and its reasons: portfolio_policy.c). */
struct member {
	const char *algorithm;
	const char *knob; /* one "key=value" or NULL */
	int role;
	double cost;
	int gain[SHAPE_COUNT]; /* 0 for a SEARCH member: skipped on the shape */
	int index;             /* INDEX_FIT or INDEX_TIME */
};
/* The rows, in the order the table gives them. */
enum { POLICY_COUNT = 17 };
extern const struct member usmp__policy[POLICY_COUNT];

/* A part has a piece of this many buffers or more: exact_window first. */
#define WINDOW_FIRST 1000u

/* What the policy reads of a part: its shape class, and whether some piece
 * holds WINDOW_FIRST buffers or more (buffers without a live range meet
 * nothing and count for no piece; above PIECES_MAX buffers, or out of
 * memory, the piece counts as large without measuring). */
typedef struct shape {
	int cls;
	bool large_piece;
	uint32_t alive; /* most live ranges crossing one time */
	double decades; /* log10(largest size / smallest) */
} shape;

/* The shape of the part v as the policy reads it. */
shape usmp__measure_shape(const usmp_view *v);

#endif
