/* problem.h — the problem a host builds: struct usmp_problem, its records, and
 * the calls that record failures, prepare it and check its overlap rules. */
#ifndef USMP_PROBLEM_H
#define USMP_PROBLEM_H

#include "util.h"

/* ---- records ------------------------------------------------------------- */

/* One pool as added (usmp_problem_add_pool, _add_pool_target). */
typedef struct usmp__pool {
	char *name;
	uint64_t size_limit; /* USMP_UNBOUNDED when none */
	uint64_t alignment;
	char **targets;
	uint32_t target_count;
} usmp__pool;

/* One buffer as added (usmp_problem_add_buffer and the calls that set it). */
typedef struct usmp__buffer {
	char *name;
	uint64_t size, alignment;
	int64_t begin, end; /* valid with USMP_BUFFER_LIVE in flags */
	uint32_t flags;     /* usmp_buffer_flag */
	uint32_t fixed_pool;
	uint64_t fixed_offset;
	uint32_t *candidates; /* NULL/0: every pool */
	uint32_t candidate_count, candidate_cap;
} usmp__buffer;

/* One explicit conflict edge (usmp_problem_add_conflict). */
typedef struct usmp__edge {
	uint32_t a, b; /* a < b */
} usmp__edge;

/* Which optional CSV columns a problem read from CSV had, so a CSV plan
 * writes the same columns back. */
enum usmp__csv_col {
	USMP__CSV_ALIGNMENT = 1u << 0,
	USMP__CSV_OFFSET = 1u << 1
};

/* The problem: its records, name maps, last error and derived groups. */
struct usmp_problem {
	usmp__pool *pools;
	size_t pool_count, pool_cap;
	usmp__buffer *buffers;
	size_t buffer_count, buffer_cap;
	usmp__strmap pool_names, buffer_names;
	usmp__edge *edges; /* as added, normalised a < b, may hold duplicates */
	size_t edge_count, edge_cap;
	usmp_overlap_rec *overlaps; /* as added */
	size_t overlap_count, overlap_cap;
	char *error;

	/* Set by the readers: the optional CSV columns a CSV file had. */
	uint32_t csv_columns;

	/* Derived by usmp__problem_prepare; dropped by any change. */
	int prepared;
	uint32_t group_count;
	uint32_t *buffer_group; /* [buffer_count] */
	uint32_t *pool_group;   /* [pool_count] */
	uint64_t *group_bound;  /* [group_count] */

	/* Private to problem.c: the arena holding every pool, buffer and target
	 * name (no malloc per name), and a hash set of overlap (src, dst) pairs
	 * that rejects duplicates. */
	struct usmp__name_chunk *name_chunks;
	uint64_t *overlap_set;
	size_t overlap_set_cap;
};

/* ---- problem.c ----------------------------------------------------------- */

/* Record a failure on p: sets p->error and returns status. */
int usmp__problem_fail(usmp_problem *p, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* Drop derived data (called by every mutator). */
void usmp__problem_changed(usmp_problem *p);
/* Empty p (keeps the allocation), used by readers on failure. */
void usmp__problem_clear(usmp_problem *p);
/* Add the "default" pool if there is none, check cross-record invariants
 * (fixed placements vs candidates), compute groups and bounds. Idempotent. */
int usmp__problem_prepare(usmp_problem *p);

/* ---- rule_cycles.c ------------------------------------------------------- */

/* USMP_OK when the overlap rules form no cycle; else USMP_ERR_INVALID with
 * a message naming the first rule (in the order added) that closes one and
 * the cycle. */
int usmp__rule_cycles(usmp_problem *p);

#endif /* USMP_PROBLEM_H */
