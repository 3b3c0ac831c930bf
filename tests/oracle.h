/* oracle.h — the exhaustive oracle of the property suites: a random
 * problem's description, the rules of a placement, groups and the search. */
#ifndef USMP_TEST_ORACLE_H
#define USMP_TEST_ORACLE_H
#include <stdint.h>

#define MAX_N 10
#define MAX_P 5
#define MAX_R 8

typedef struct orule {
	uint32_t src, dst;
	int64_t lead;
} orule;

/* A problem as an oracle sees it (live ranges read back after the builder
 * retimed them for the rules). */
typedef struct desc {
	uint32_t P, n;
	uint64_t limit[MAX_P], palign[MAX_P]; /* limit UINT64_MAX: unbounded */
	uint64_t size[MAX_N], align[MAX_N];
	int live[MAX_N];
	int64_t begin[MAX_N], end[MAX_N];
	uint32_t ncand[MAX_N], cand[MAX_N][MAX_P]; /* 0 = every pool */
	int fixed[MAX_N];
	uint32_t fixed_pool[MAX_N];
	uint64_t fixed_offset[MAX_N];
	int edge[MAX_N][MAX_N];
	orule rules[MAX_R];
	int rule_count;
	/* derived (oracle_derive): each pool's group, numbered by first pool */
	uint32_t group_of_pool[MAX_P], groups;
	uint64_t cap[MAX_P]; /* the oracle's search limit of each pool */
} desc;

/* Buffer i's alignment in pool q: the larger of its own and the pool's. */
uint64_t oracle_eff_align(const desc *d, uint32_t i, uint32_t q);
/* May buffer i sit in pool q (its fixed pool, among its candidates)? */
int oracle_may_use(const desc *d, uint32_t i, uint32_t q);
/* Do a and b conflict: an edge, or live ranges that meet? */
int oracle_conflict(const desc *d, uint32_t a, uint32_t b);
/* May a and b (conflicting, same pool) sit at these offsets: apart, or as
 * an overlap rule between them allows (docs/design.md, "Overlap rules")? */
int oracle_pair_ok(const desc *d, uint32_t a, uint64_t oa, uint32_t b,
                   uint64_t ob);

/* Groups (docs/design.md, "Groups and parts"): fill d's group_of_pool,
 * groups and cap (an unbounded pool searched up to every buffer stacked
 * above the highest fixed end). */
void oracle_derive(desc *d);
/* The group of buffer i (the group of the first pool it joins). */
uint32_t oracle_group_of(const desc *d, uint32_t i);
/* The pool buffer i prefers: its first candidate; a fixed buffer without
 * candidates its fixed pool; else its group's first pool. */
uint32_t oracle_first_pool(const desc *d, uint32_t i);

/* The oracle's best over every pool and aligned offset (up to cap[]) of
 * its buffers; spill is the bytes outside each buffer's first pool. */
enum { M_LEX, M_CAPPED, M_ANY }; /* (spill, size); size at spill <= cap; size */

typedef struct oracle {
	const desc *d;
	uint32_t ids[MAX_N], n; /* the buffers searched */
	uint32_t g;
	int mode;
	uint64_t cap;
	uint32_t pool[MAX_N];
	uint64_t off[MAX_N];
	int found;
	uint64_t best_spill, best_total;
	uint32_t best_pool[MAX_N];
	uint64_t best_off[MAX_N];
} oracle;

/* The best plan of group g (after oracle_derive), or of every buffer. */
oracle oracle_run(const desc *d, uint32_t g, int mode, uint64_t cap);
oracle oracle_run_all(const desc *d, int mode, uint64_t cap);

/* The problem d describes without its rules: pools "p<q>", buffers "b<i>",
 * conflict edges (failing the test on a refusal). Caller destroys it. */
struct usmp_problem;
struct usmp_problem *oracle_problem(const desc *d);
/* Up to `want` random rules a -> b (a != b, not repeated, none at a fixed
 * buffer when skip_fixed) with lead in [lo, lo + width], or, in `extreme`
 * percent of the draws (0: no draw), INT64_MAX or INT64_MIN; each added by
 * add_fitting_rule (which retimes live ranges) and recorded in d. */
void oracle_add_rules(struct usmp_problem *p, desc *d, uint64_t *s,
                      uint64_t want, int64_t lo, uint64_t width,
                      int extreme, int skip_fixed);
/* Read back into d the live ranges p has after rules retimed them. */
void oracle_read_spans(const struct usmp_problem *p, desc *d);

/* Each pool's high-water mark, hw[0..P), in the placement pool[], off[] of
 * d's buffers. */
void oracle_high_water(const desc *d, const uint32_t *pool,
                       const uint64_t *off, uint64_t *hw);
/* Group g in such a placement: its size (its pools' high-water marks) and
 * its spill (the bytes of its buffers outside their first pools). */
void oracle_group_use(const desc *d, const uint32_t *pool, const uint64_t *hw,
                      uint32_t g, uint64_t *size, uint64_t *spill);

/* The knobs of oracle_random (percentages are of the draws). */
typedef struct oracle_shape {
	uint64_t max_n;                /* buffers: 1 to max_n (pools: 1 to 3) */
	int unbounded_pct;             /* a pool without a limit, else ... */
	uint64_t limit_lo, limit_hi;   /* ... a limit in [limit_lo, limit_hi] */
	int palign_one_pct;            /* pool alignment 1 (0: no such draw), */
	uint64_t palign[5];            /* else one of palign[0..palign_count) */
	uint32_t palign_count;
	uint64_t align[5];             /* buffer alignment: one of these */
	uint64_t max_size;             /* sizes 1 to max_size */
	uint64_t max_begin;            /* begins 0 to max_begin, lives 1-3 long */
	int cand_pct, second_cand_pct; /* a first candidate pool; the next one */
	int edge_pct;                  /* a conflict edge between two buffers */
	int fixed_pct;                 /* fixed in its first candidate pool, */
	uint64_t unbounded_room;       /* below this offset when unbounded */
	int rules_pct;                 /* 1-3 overlap rules (oracle_add_rules) */
	int64_t lead_lo;               /* with lead in [lead_lo, */
	uint64_t lead_width;           /* lead_lo + lead_width] */
} oracle_shape;

/* A random problem of that shape (90 % of buffers live), described in d
 * (rules and retimed live ranges read back, oracle_derive done). Caller
 * destroys it. */
struct usmp_problem *oracle_random(desc *d, uint64_t *s, const oracle_shape *g);

/* Each part's claims against the oracle: its lower bound and proven bound
 * are at most the least size of its group at no more spill, and a part
 * claimed optimal has that least size. Returns the parts claimed optimal. */
struct usmp_plan;
uint32_t oracle_check_claims(struct usmp_plan *plan, const desc *d,
                             const char *what);

#endif
