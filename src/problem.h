/* problem.h — the problem a host builds: struct usmp_problem, its records, the
 * inline accessors that read it, failures, and preparing it for planning. */
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
	uint32_t target_count, target_cap;
	/* The targets as a set, built once a pool has many (NULL until then),
	 * so naming a target is O(1), not a scan of every target so far. */
	usmp__strmap *target_set;
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
	/* Built by part_index.c for the views of parts: each buffer's conflict
	 * edges and the overlap rules it is the source of, as CSR rows of
	 * edge and rule indices, so a part's view costs the part's size. */
	uint64_t *edge_start; /* [buffer_count + 1]; NULL until built */
	uint32_t *edge_of;
	uint64_t *rule_start; /* [buffer_count + 1] */
	uint32_t *rule_of;

	/* Private to problem.c (name_arena.c, pair_set.c): the arena holding
	 * every pool, buffer and target name (no malloc per name), a hash set
	 * of overlap (src, dst) pairs that rejects duplicates, and one of
	 * (buffer, pool) candidate pairs of the buffers with many candidates
	 * (the others' lists are scanned). */
	struct usmp__name_chunk *name_chunks;
	uint64_t *overlap_set;
	size_t overlap_set_cap;
	uint64_t *cand_set;
	size_t cand_set_cap, cand_set_count;
};

/* ---- reading a problem (inline: the readers, writers and simulator) ------ */

/* How many pools p has. */
static inline size_t usmp__problem_npools(const usmp_problem *p)
{
	return p->pool_count;
}

/* How many buffers p has. */
static inline size_t usmp__problem_nbuffers(const usmp_problem *p)
{
	return p->buffer_count;
}

/* How many conflict edges p has (as added, duplicates included). */
static inline size_t usmp__problem_nedges(const usmp_problem *p)
{
	return p->edge_count;
}

/* How many overlap rules p has. */
static inline size_t usmp__problem_noverlaps(const usmp_problem *p)
{
	return p->overlap_count;
}

/* Pool i (< usmp__problem_npools). */
static inline const usmp__pool *usmp__problem_pool(const usmp_problem *p,
                                                   size_t i)
{
	return &p->pools[i];
}

/* Buffer i (< usmp__problem_nbuffers). */
static inline const usmp__buffer *usmp__problem_buffer(const usmp_problem *p,
                                                       size_t i)
{
	return &p->buffers[i];
}

/* Conflict edge i (< usmp__problem_nedges), its buffers a < b. */
static inline const usmp__edge *usmp__problem_edge(const usmp_problem *p,
                                                   size_t i)
{
	return &p->edges[i];
}

/* Overlap rule i (< usmp__problem_noverlaps), in the order added. */
static inline const usmp_overlap_rec *
usmp__problem_overlap(const usmp_problem *p, size_t i)
{
	return &p->overlaps[i];
}

/* True when p has no pool, buffer, edge or rule. */
static inline bool usmp__problem_empty(const usmp_problem *p)
{
	return !p->pool_count && !p->buffer_count && !p->edge_count &&
	       !p->overlap_count;
}

/* The optional CSV columns (usmp__csv_col) the file p was read from had. */
static inline uint32_t usmp__problem_csv_columns(const usmp_problem *p)
{
	return p->csv_columns;
}

/* Set by a reader: the optional CSV columns its file had (0 for JSON). */
static inline void usmp__problem_set_csv_columns(usmp_problem *p,
                                                 uint32_t columns)
{
	p->csv_columns = columns;
}

/* ---- problem.c ----------------------------------------------------------- */

/* Record a failure on p: sets p->error and returns status. */
int usmp__problem_fail(usmp_problem *p, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* For the readers: make room for `count` buffers in all (the array and the
 * name index), so that adding them one by one regrows nothing. A hint:
 * USMP_ERR_NOMEM leaves p as it was, and adding still works. */
int usmp__problem_reserve_buffers(usmp_problem *p, size_t count);
/* For the readers: the next buffer's name is s[0..n) (a hint; see
 * usmp__strmap_prefetch). */
static inline void usmp__problem_prefetch_name(const usmp_problem *p,
                                               const char *s, size_t n)
{
	usmp__strmap_prefetch(&p->buffer_names, s, n);
}
/* Drop derived data (called by every mutator). */
void usmp__problem_changed(usmp_problem *p);
/* Empty p (keeps the allocation), used by readers on failure. */
void usmp__problem_clear(usmp_problem *p);
/* For the readers: empty p and record the formatted message as its error.
 * Returns status. */
int usmp__read_fail(usmp_problem *p, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);

/* ---- part_index.c: edges and rules by buffer ----------------------------- */

/* Index the problem's edges and rules by buffer (edge_start, rule_start),
 * once per problem: then every part's view finds its own in time of its
 * size. 0 or USMP_ERR_NOMEM (the index then dropped). */
int usmp__problem_part_index(usmp_problem *p);
/* Free that index (part of the derived data usmp__problem_changed drops). */
void usmp__problem_drop_part_index(usmp_problem *p);

/* ---- name_arena.c: the problem's names ---------------------------------- */

/* A copy of s owned by p's name arena, or NULL when out of memory. The copy
 * never moves (the name maps borrow it) and lives until usmp__names_free. */
char *usmp__name_copy(usmp_problem *p, const char *s);
/* Free every name p's arena holds. */
void usmp__names_free(usmp_problem *p);

/* ---- pair_set.c: sets of index pairs ------------------------------------- */

/* Whether the set of `cap` slots (0: none yet) holds the pair k. */
bool usmp__pair_set_has(const uint64_t *set, size_t cap, uint64_t k);
/* Make room for `count` pairs at load <= 1/2 in the set *set of *set_cap
 * slots (regrown, its pairs kept). 0 or USMP_ERR_NOMEM. */
int usmp__pair_set_reserve(uint64_t **set, size_t *set_cap, size_t count);
/* Put the pair k into the set (room made by usmp__pair_set_reserve). */
void usmp__pair_set_put(uint64_t *set, size_t cap, uint64_t k);

/* ---- prepare.c ----------------------------------------------------------- */

/* Add the "default" pool if there is none, check cross-record invariants
 * (fixed placements vs candidates, overlap rules), compute groups and
 * bounds. Idempotent. */
int usmp__problem_prepare(usmp_problem *p);

/* ---- rule_cycles.c ------------------------------------------------------- */

/* USMP_OK when the overlap rules form no cycle; else USMP_ERR_INVALID with
 * a message naming the first rule (in the order added) that closes one and
 * the cycle. */
int usmp__rule_cycles(usmp_problem *p);

#endif /* USMP_PROBLEM_H */
