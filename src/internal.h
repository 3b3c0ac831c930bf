/* internal.h — libusmp's private types and the functions its modules share.
 * Never installed. One section per source file, named after it.
 *
 * The central idea: every algorithm-facing computation (conflicts, degrees,
 * lower bound, verification, neighbour iteration) works on a usmp_view, the
 * same flat read-only structure plugins receive. A view is built from a
 * problem for all of it or for one independent part (view.c).
 */
#ifndef USMP_INTERNAL_H
#define USMP_INTERNAL_H

#define USMP_BUILDING_LIBRARY 1
#include <usmp/plugin.h>
#include <usmp/usmp.h>

#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

#define USMP__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define USMP__UNUSED(x) ((void)(x))

/* ---- util.c: messages and growable arrays -------------------------------- */

/* Replace *slot (heap string or NULL) with a formatted message. Never fails
 * visibly: on allocation failure *slot becomes a static "out of memory". */
void usmp__set_msg(char **slot, const char *fmt, ...) USMP__PRINTF(2, 3);
void usmp__vset_msg(char **slot, const char *fmt, va_list ap);
void usmp__free_msg(char **slot);
/* strdup that returns NULL on failure. */
char *usmp__strdup(const char *s);
/* Grow *arr (element size elem) so it holds at least need elements; *cap is
 * updated. Returns 0 or USMP_ERR_NOMEM (on overflow too). */
int usmp__grow(void **arr, size_t *cap, size_t need, size_t elem);
/* Monotonic clock in seconds. */
double usmp__now(void);

/* Byte totals kept exactly in 128 bits (two words): sums of many sizes up
 * to 2^64-1 never wrap; usmp__wide_min reads one saturated. */
typedef struct usmp__wide {
	uint64_t hi, lo;
} usmp__wide;

static inline void usmp__wide_add(usmp__wide *w, uint64_t x)
{
	w->lo += x;
	if (w->lo < x)
		w->hi++;
}

static inline void usmp__wide_sub(usmp__wide *w, uint64_t x)
{
	if (w->lo < x)
		w->hi--;
	w->lo -= x;
}

/* w, or cap when w is larger. */
static inline uint64_t usmp__wide_min(usmp__wide w, uint64_t cap)
{
	return w.hi || w.lo > cap ? cap : w.lo;
}

/* ---- strmap.c: string -> uint32 hash map (open addressing) --------------- */

typedef struct usmp__strmap_slot {
	uint64_t hv;     /* the key's hash (never 0) << 32 | value; 0 = empty */
	const char *key; /* borrowed: the owner keeps the strings alive */
} usmp__strmap_slot;

/* A key string is read only when its stored hash matches; hash, value and
 * key share a slot, so a look-up costs one cache miss plus the string. */
typedef struct usmp__strmap {
	usmp__strmap_slot *slots;
	size_t cap, count;
} usmp__strmap;

void usmp__strmap_init(usmp__strmap *m);
void usmp__strmap_finish(usmp__strmap *m);
/* 0 found (*value set), USMP_ERR_NOT_FOUND otherwise. */
int usmp__strmap_get(const usmp__strmap *m, const char *key, uint32_t *value);
/* Insert; USMP_ERR_INVALID when present already, USMP_ERR_NOMEM. */
int usmp__strmap_put(usmp__strmap *m, const char *key, uint32_t value);

/* ---- problem.c: the problem a host builds ------------------------------- */

typedef struct usmp__pool {
	char *name;
	uint64_t size_limit; /* USMP_UNBOUNDED when none */
	uint64_t alignment;
	char **targets;
	uint32_t target_count;
} usmp__pool;

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

typedef struct usmp__edge {
	uint32_t a, b; /* a < b */
} usmp__edge;

/* Which optional CSV columns a problem read from CSV had, so a CSV plan
 * writes the same columns back. */
enum usmp__csv_col {
	USMP__CSV_ALIGNMENT = 1u << 0,
	USMP__CSV_OFFSET = 1u << 1
};

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

/* Record a failure on p: sets p->error and returns status. */
int usmp__problem_fail(usmp_problem *p, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* Drop derived data (called by every mutator). */
void usmp__problem_changed(usmp_problem *p);
/* Add the "default" pool if there is none, check cross-record invariants
 * (fixed placements vs candidates), compute groups and bounds. Idempotent. */
int usmp__problem_prepare(usmp_problem *p);
/* USMP_OK when the overlap rules form no cycle; else USMP_ERR_INVALID with
 * a message naming the first rule (in the order added) that closes one and
 * the cycle (rule_cycles.c). */
int usmp__rule_cycles(usmp_problem *p);
/* Empty p (keeps the allocation), used by readers on failure. */
void usmp__problem_clear(usmp_problem *p);

/* ---- view.c: the flat view of a problem or of one part ------------------ */

/* A view plus the storage behind it. `buffer_map[i]` is the problem index of
 * view buffer i; `pool_map[j]` the problem index of view pool j. */
typedef struct usmp__view_store {
	usmp_view view;
	usmp_pool_rec *pools;
	usmp_buffer_rec *buffers;
	uint32_t *candidates;
	uint64_t *conflict_start;
	uint32_t *conflict_adj;
	uint64_t *degree;
	usmp_overlap_rec *overlaps;
	uint32_t *buffer_map;
	uint32_t *pool_map;
} usmp__view_store;

/* Build the view of the buffers `ids[0..n)` (problem indices, ascending) or
 * of the whole problem when ids == NULL. Only pools those buffers can use
 * are included (all pools for the whole problem). The problem must be
 * prepared. Computes CSR, degrees and the lower bound. */
int usmp__view_build(usmp_problem *p, const uint32_t *ids, uint32_t n,
                     usmp__view_store *out, char **msg);
/* The whole-problem view as a verifier needs it: without degrees (all 0)
 * and lower bound (0), which cost as much as the check at scale. */
int usmp__view_build_to_check(usmp_problem *p, usmp__view_store *out,
                              char **msg);
void usmp__view_finish(usmp__view_store *s);

/* ---- interval_index.c: live-range queries without all-pairs ------------- */

/* Buffers with live ranges sorted by begin, with a running maximum of end,
 * so "every range intersecting [b, e)" costs O(log n + k): ranges starting
 * inside [b, e) are a run of the sorted array (binary search); ranges
 * starting before b that still cover b come from a centered interval tree
 * over the same positions (a running max alone would walk past every short
 * range behind one long one). */
typedef struct usmp__itree_node {
	int64_t center;
	uint32_t left, right;  /* node ids, UINT32_MAX for none */
	uint32_t first, count; /* its ranges in by_begin/by_end[first..+count) */
} usmp__itree_node;

typedef struct usmp__interval_index {
	uint32_t *order;   /* buffer ids sorted by (begin, id) */
	int64_t *begin;    /* begin of order[i] */
	int64_t *end;      /* end of order[i] */
	int64_t *max_end;  /* max(end[0..i]) */
	uint32_t count;
	uint32_t root, node_count;  /* centered tree, root UINT32_MAX when empty */
	usmp__itree_node *nodes;
	uint32_t *by_begin; /* buffer ids, per node by ascending begin */
	int64_t *bb_begin;  /* their begins */
	uint32_t *by_end;   /* buffer ids, per node by descending end */
	int64_t *be_end;    /* their ends */
} usmp__interval_index;

int usmp__interval_index_build(usmp__interval_index *ix, const usmp_view *v);
void usmp__interval_index_finish(usmp__interval_index *ix);
/* Visit every indexed buffer whose range intersects [begin, end); stop and
 * return the first non-zero visit result. */
int usmp__interval_index_query(const usmp__interval_index *ix, int64_t begin,
                               int64_t end, usmp_neighbor_fn visit, void *arg);
/* Sort n (key, value) pairs by key, stably (LSD radix); vals may be NULL.
 * 0 or USMP_ERR_NOMEM. Shared by the modules that sweep over time. */
int usmp__sort_pairs(uint64_t *keys, uint32_t *vals, size_t n);
/* Order-preserving map of a time (int64) to a usmp__sort_pairs key. */
static inline uint64_t usmp__time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* ---- conflicts.c: explicit edges, degrees, neighbour walks -------------- */

/* Sort and de-duplicate edges (already mapped to view indices, a < b) into a
 * symmetric CSR for n buffers. start gets n+1 entries, *adj is allocated. */
int usmp__csr_build(const usmp__edge *edges, size_t edge_count, uint32_t n,
                    uint64_t *start, uint32_t **adj);
/* degree[b] = number of distinct buffers conflicting with b (live ranges and
 * edges, each pair once). O(n log n + edges). */
int usmp__degrees(const usmp_view *v, uint64_t *degree);
/* Visit each buffer conflicting with b once (live ranges via ix, then edges
 * whose pair does not also overlap in time). */
int usmp__for_each_neighbor(const usmp_view *v, const usmp__interval_index *ix,
                            uint32_t b, usmp_neighbor_fn visit, void *arg);
/* True when a and b conflict (live ranges or an edge; binary search). */
bool usmp__conflict(const usmp_view *v, uint32_t a, uint32_t b);

/* ---- bound.c: lower bounds --------------------------------------------- */

/* The view's lower bound on the sum of its pools' high-water marks: the
 * largest total size alive at once (a sweep), less at each time the most
 * the overlap rules among buffers alive then could share; never below the
 * largest single buffer nor the largest explicit-edge pair. */
uint64_t usmp__lower_bound(const usmp_view *v);
/* Groups: buffers that can share a pool, transitively (union-find). */
int usmp__groups(usmp_problem *p);

/* ---- verify.c: the independent verifier -------------------------------- */

/* Check placements `pl` (view indices) against view `v`: candidacy,
 * alignment (buffer's and pool's), limits, fixed placements, conflicts and
 * overlap rules. USMP_OK, or USMP_ERR_INVALID_PLAN with the first violation
 * in *msg naming the buffer(s), e.g. "buffers "a" and "b" overlap in pool
 * "sram" at bytes [16, 32) while both are live". Never looks at pairs that
 * cannot conflict: O(n log n) without overlap rules. */
int usmp__verify(const usmp_view *v, const usmp_placement *pl, char **msg);

/* ---- params.c: parameter signatures and knob values -------------------- */

typedef union usmp__value {
	bool b;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	double f64;
	const char *str; /* points into an owned copy */
} usmp__value;

typedef struct usmp__param {
	char *name;
	int type; /* usmp_param_type */
	char *default_text;
	usmp__value default_value; /* str points at default_text */
	char *help;                /* "" when none */
} usmp__param;

typedef struct usmp__signature {
	usmp__param *params;
	uint32_t count;
} usmp__signature;

/* Most knobs one signature may declare (bounds the libffi argument list). */
#define USMP__MAX_KNOBS 64

/* The keyword of a usmp_param_type ("u32"), or NULL when out of range. */
const char *usmp__param_type_name(int type);

/* Parse "name:type=default ..." (NULL or "" = no knobs). Names unique,
 * [a-z_][a-z0-9_]*; every default must parse as its type. */
int usmp__signature_parse(const char *text, usmp__signature *sig, char **msg);
/* Attach help lines ("name: text\n...") to the parsed params; unknown
 * names are ignored. */
void usmp__signature_set_help(usmp__signature *sig, const char *help);
void usmp__signature_finish(usmp__signature *sig);
/* Parse one value of a type: full string, range-checked, no trailing junk.
 * On failure *msg holds only the reason ("out of range: ..."); callers add
 * the knob and algorithm. A str value points at `text` itself. */
int usmp__value_parse(int type, const char *text, usmp__value *out, char **msg);
/* Format a value as usmp__value_parse reads it back (f64 round-trips). */
char *usmp__value_format(int type, const usmp__value *v);

/* A set of knob values for one call: defaults overridden by "key=value". */
typedef struct usmp__knobs {
	const usmp__signature *sig;
	usmp__value *values; /* [sig->count] */
	char **strings;      /* owned copies for str values, [sig->count] */
} usmp__knobs;

int usmp__knobs_init(usmp__knobs *k, const usmp__signature *sig);
/* Apply "key=value"; unknown key, bad value: USMP_ERR_INVALID/NOT_FOUND
 * with a message naming the knob and the algorithm `algo`. */
int usmp__knobs_set(usmp__knobs *k, const char *algo, const char *assignment,
                    char **msg);
/* "k=v k=v" of every knob's current value (heap string). */
char *usmp__knobs_describe(const usmp__knobs *k);
void usmp__knobs_finish(usmp__knobs *k);

/* ---- registry.c / invoke.c: plugins and calling them ------------------- */

/* The state of one algorithm call behind its usmp_host table (host.c). */
typedef struct usmp__host_ctx usmp__host_ctx;

/* A built-in algorithm (implemented inside libusmp, e.g. "auto"). It gets
 * the call's context itself, typed (hc->host is the table plugins get). */
typedef int (*usmp__builtin_fn)(usmp_registry *r, const usmp_view *v,
                                usmp__host_ctx *hc, usmp_placement *out,
                                const usmp__knobs *k, char **who);

typedef struct usmp__algo {
	char *name, *summary, *params_text;
	uint32_t caps;
	uint32_t plugin; /* index into registry plugins, UINT32_MAX for built-in */
	double cost;     /* a volunteer's declared cost (ABI 1.2), 0 unknown */
	usmp_algorithm_fn fn;
	usmp__builtin_fn builtin;
	usmp__signature sig;
	void *cif;       /* ffi_cif *, prepared at load */
	void *arg_types; /* ffi_type ** */
} usmp__algo;

/* Call algorithm `a` with knobs `k` (NULL: its defaults) through libffi,
 * a plugin getting hc->host, or directly for a built-in. The one way
 * libusmp calls an algorithm in process. Returns the algorithm's status. */
int usmp__invoke(usmp_registry *r, const usmp__algo *a, const usmp__knobs *k,
                 const usmp_view *v, usmp__host_ctx *hc, usmp_placement *out);
int usmp__invoke_prepare(usmp__algo *a, char **msg);
void usmp__invoke_finish(usmp__algo *a);

/* Look up an algorithm by name (NULL when unknown). [thread-safe] */
const usmp__algo *usmp__registry_algo(const usmp_registry *r, const char *name);

/* Decide what planning a part runs, by source priority: API bindings, then
 * opts->algorithm (with opts->params on top), then USMP_ALGORITHM, then the
 * default "auto"; within a list, the first pool rule matching one of
 * `pools`, else the first target rule matching every one of `targets`
 * (none: the untargeted part). Fills *algo and initialises *knobs with every
 * value set; *rule gets a heap copy of the rule's text and *source its
 * usmp_rule_source. Errors (unknown algorithm/knob, bad value) name the
 * rule. [thread-safe] */
int usmp__registry_resolve_part(usmp_registry *r, const char *const *targets,
                                uint32_t target_count, const char *const *pools,
                                uint32_t pool_count,
                                const usmp_plan_options *opts,
                                const usmp__algo **algo, usmp__knobs *knobs,
                                char **rule, int *source, char **msg);
/* The same for a part planned for `target` alone, with no pool rules. */
int usmp__registry_resolve(usmp_registry *r, const char *target,
                           const usmp_plan_options *opts,
                           const usmp__algo **algo, usmp__knobs *knobs,
                           char **rule, int *source, char **msg);

/* Every algorithm of the registry, for the portfolio. [thread-safe] */
uint32_t usmp__registry_algo_count(const usmp_registry *r);
const usmp__algo *usmp__registry_algo_at(const usmp_registry *r, uint32_t i);

/* Algorithms built into libusmp (portfolio.c); the registry lists them
 * before any plugin's. */
typedef struct usmp__builtin {
	const char *name, *summary, *params, *param_help;
	uint32_t caps;
	usmp__builtin_fn fn;
} usmp__builtin;
extern const usmp__builtin usmp__builtins[];
extern const uint32_t usmp__builtin_count;

/* ---- log.c: where algorithms' log messages go --------------------------- */

/* A log level below every usmp_log_level: nothing is shown. */
#define USMP__LOG_SILENT (USMP_LOG_ERROR - 1)
/* The level USMP_LOG names; USMP__LOG_SILENT when unset, empty or unknown. */
int usmp__log_level_from_env(void);
/* The log function, its context (NULL, NULL: stderr) and level that calls
 * planned with r use now. */
void usmp__log_config(const usmp_registry *r, usmp_log_fn *fn, void **ctx,
                      int *level);

/* ---- host.c: the services table handed to algorithms ------------------- */

/* What a running call tells whoever watches it (isolate.c's parent, through
 * shared memory): the deadline it works to now, and whether it is making
 * the first plan, which is never killed for time. */
typedef struct usmp__watch {
	volatile double deadline; /* usmp__now() value, 0 = none */
	volatile int patient;     /* > 0 while the first plan is being made */
	volatile double patient_end; /* when the last patient stretch ended */
	volatile double patient_start;
	volatile double patient_time; /* seconds spent making first plans */
} usmp__watch;

struct usmp__host_ctx {
	usmp_host host; /* what plugins get; host.host_data points back here */
	const usmp_view *view;
	usmp__watch *watch; /* NULL, or shared with the watcher (isolate.c) */
	usmp__interval_index index; /* built on the first neighbour walk */
	int index_state; /* 0 not built, 1 built, 2 out of memory (linear) */
	double deadline; /* usmp__now() value, 0 = none */
	int default_limit; /* the deadline is auto's default, not the caller's */
	const volatile int *cancel;
	uint64_t best_size;    /* smallest progress() report, UINT64_MAX when none */
	uint64_t proven_bound; /* from report_bound() */
	int optimal;
	int reported;
	int stopped;            /* should_stop() said yes for time or cancel */
	int log_level;          /* messages at or below it are shown (log.c) */
	usmp_log_fn log_fn;     /* where they go; NULL: stderr */
	void *log_ctx;          /* log_fn's first argument */
	char last_message[512]; /* latest error/warning the algorithm logged */
	void *priv;             /* lock and allocation list (host.c) */
	const char *algorithm;  /* for log messages */
	volatile int patient;   /* > 0: making the first plan, which only a
	                           cancel stops (should_stop ignores the
	                           deadline; usmp__host_patient) */
	uint32_t isolation;     /* the call's USMP_PLAN_ISOLATE/NO_ISOLATE flags,
	                           for the plugins auto runs (portfolio.c) */
};

/* A services table for one call of `algorithm` on `v`, logging as registry
 * r says (usmp_registry_set_log). */
int usmp__host_init(usmp__host_ctx *c, const usmp_registry *r,
                    const usmp_view *v, double deadline,
                    const volatile int *cancel, const char *algorithm);
/* Frees leftover allocations (logging a leak) and the index. */
void usmp__host_finish(usmp__host_ctx *c);
/* Move the call's deadline (and the watcher's copy). */
void usmp__host_set_deadline(usmp__host_ctx *c, double deadline);
/* Start (on) or end (off) making the first plan: a watcher never kills the
 * call for time in between, and should_stop says true only on a cancel. */
void usmp__host_patient(usmp__host_ctx *c, bool on);

/* ---- child.c: forked helper processes ---------------------------------- */

/* fork() for a helper child. In the child (0 returned): it gets SIGKILL when
 * the forking thread dies, sits in its own process group, ignores terminal
 * stop signals and is named `name` (ps, /proc/PID/comm). */
pid_t usmp__child_fork(const char *name);
/* True once the child has ended (not yet reaped), or cannot be waited for. */
bool usmp__child_exited(pid_t pid);
/* Wait until the child has ended (true) or usmp__now() reaches `until`
 * (false); it is not reaped. */
bool usmp__child_wait(pid_t pid, double until);
/* Kill the child's process group and the child, reap the child; its wait
 * status, or -1 when it could not be reaped. */
int usmp__child_reap(pid_t pid);

/* ---- isolate.c: an algorithm call in a child process -------------------- */

/* Wall-clock seconds an isolated call may run when it has no deadline
 * (see docs/abi.md, "Isolation"). */
#define USMP__ISOLATE_CAP 600.0

/* The kill rule of docs/abi.md ("Isolation"), for a call that started at
 * `started`: with a deadline (w->deadline), true once past it, or past the
 * end of its first plan, by `grace` plus the time its first plan took, and
 * never while it makes its first plan; without one, true USMP__ISOLATE_CAP
 * seconds after it started. */
bool usmp__isolate_hung(const usmp__watch *w, double started, double grace);

/* Run algorithm a (plugin or built-in) like plan.c would, but in a forked
 * child; placements come back through shared memory ending at a guard page.
 * A crash, an exit or a hang becomes USMP_ERR_PLUGIN with *msg set. A hang
 * is what docs/abi.md ("Isolation") says: a call still running `grace`
 * seconds, plus as long as its first plan took, past the deadline it works
 * to (hc->deadline, as the child moves it) or past the end of its first
 * plan, whichever is later, but never while it makes its first plan; with
 * no deadline, USMP__ISOLATE_CAP seconds after it started. Otherwise returns
 * the algorithm's status with hc's reported bound and last message updated. */
int usmp__isolated_call(usmp_registry *r, const usmp__algo *a,
                        const usmp__knobs *k, const usmp_view *v,
                        usmp__host_ctx *hc, usmp_placement *out,
                        double grace, char **who, char **msg);

/* ---- infeasible.c: why a part has no plan -------------------------------- */

/* What usmp_plan_infeasibility returns, with the arrays it points into. */
typedef struct usmp__infeasible {
	usmp_infeasibility info;
	uint32_t *buffers, *pools, *move_buffers, *move_pools;
	char *algorithm;
} usmp__infeasible;

void usmp__infeasible_free(usmp__infeasible *w);

/* usmp__infeasible_explain flags. */
enum {
	USMP__WHY_PROVEN = 1u << 0, /* the algorithm's failure is a proof (exact) */
	USMP__WHY_RULES_AS_CONFLICTS = 1u << 1, /* it planned rules as conflicts */
	USMP__WHY_KNOB_LIMIT = 1u << 2 /* a knob (capacity) set its own limit */
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
/* Fixed placements of the part that clash make every plan invalid:
 * USMP_ERR_INFEASIBLE recorded on the plan (certificate FIXED), else
 * USMP_OK. Run before any algorithm. */
int usmp__infeasible_fixed(usmp_problem *p, const usmp__view_store *vs,
                           uint32_t group, const char *algo, usmp_plan *plan);

/* ---- plan.c -------------------------------------------------------------- */

typedef struct usmp__part {
	char *target, *algorithm, *params;
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
} usmp__part;

struct usmp_plan {
	int status;
	char *error;
	uint32_t buffer_count, pool_count;
	usmp_placement *placements; /* problem indices */
	uint64_t *pool_size;        /* [pool_count] high-water marks */
	usmp__part *parts;
	uint32_t part_count;
	double time_ms;
	usmp__infeasible *infeasible; /* with status USMP_ERR_INFEASIBLE */
};

/* An empty plan shaped for p (every buffer at USMP_NO_POOL). */
usmp_plan *usmp__plan_alloc(usmp_problem *p);
int usmp__plan_fail(usmp_plan *plan, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* Prepare p and check the plan is shaped for it (buffer and pool counts);
 * USMP_OK, or the failure recorded on the plan. */
int usmp__plan_fits_problem(usmp_plan *plan, usmp_problem *p);
/* Recompute pool_size from placements. */
void usmp__plan_measure(usmp_plan *plan, const usmp_problem *p);
/* USMP_ERR_UNSUPPORTED (message in *msg when msg is not NULL) when the view
 * uses a feature algorithm a does not declare it handles: several candidate
 * pools, fixed offsets, explicit conflict edges. */
int usmp__check_caps(const usmp__algo *a, const usmp_view *v, char **msg);

/* ---- output.c ----------------------------------------------------------- */
/* An output file being written (see "Output files" in usmp.h): a regular
 * or missing file goes to an unnamed temporary file in its directory
 * (O_TMPFILE; a named ".NAME.usmp-XXXXXX" where the file system has no
 * O_TMPFILE), named and renamed over it on success; "-" and special files
 * (devices, FIFOs, /dev/stdout) get the document from memory once it is
 * complete, and are never removed. */
enum usmp__out_kind {
	USMP__OUT_ATOMIC,
	USMP__OUT_DIRECT,
	USMP__OUT_STDOUT
};

typedef struct usmp__out {
	FILE *f;          /* what the writer writes to */
	int kind;         /* enum usmp__out_kind */
	int fd;           /* the temporary or special file; -1 for stdout */
	int dir;          /* ATOMIC: the target's directory (O_PATH); else -1 */
	int unnamed;      /* ATOMIC: fd is an O_TMPFILE file, not yet linked */
	int err;          /* first write error on the temporary file */
	const char *name; /* for messages: the path as given, or "<stdout>" */
	char *target;     /* ATOMIC: the file replaced (links resolved) */
	const char *base; /* ATOMIC: target's last component (points into it) */
	char *tmp;        /* ATOMIC: the named temporary file, in dir */
	char *mem;        /* DIRECT, STDOUT: the document so far */
	size_t mem_len;
} usmp__out;

/* Open `path` ("-" = stdout) for writing: 0, or -1 with *msg naming the
 * path (nothing is left behind). */
int usmp__out_open(usmp__out *o, const char *path, char **msg);
/* Finish what usmp__out_open began. With `ok` the document is published
 * (rename, or copy to the special file / stdout). Without `ok`, or when
 * writing failed, it is dropped: the target stays as it was, the temporary
 * file is removed. USMP_OK, or USMP_ERR_IO with *msg naming the path and
 * the system's reason when the stream, disk or rename failed (also without
 * `ok`: a writer's own "cannot write" is less precise). */
int usmp__out_close(usmp__out *o, int ok, char **msg);

/* ---- io_file.c, io_json.c, io_csv.c, svg.c ------------------------------ */
/* io_file.c holds the public usmp_problem_read/parse/write and
 * usmp_plan_read/write/write_svg, dispatching on format to these: */

int usmp__json_read_problem(usmp_problem *p, const char *data, size_t len,
                            const char *name);
int usmp__csv_read_problem(usmp_problem *p, const char *data, size_t len,
                           const char *name, uint64_t capacity);
int usmp__json_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                         size_t len, const char *name);
int usmp__csv_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                        size_t len, const char *name);
int usmp__json_write_problem(usmp_problem *p, FILE *f);
int usmp__json_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
int usmp__csv_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
int usmp__svg_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
/* The problem as MiniMalloc CSV, when it fits that format (one pool, every
 * buffer with a live range, no conflict edges or overlap rules). */
int usmp__csv_write_problem(usmp_problem *p, FILE *f);
/* Whether the CSV writers can write the problem / the plan: USMP_OK, or
 * the error (USMP_ERR_UNSUPPORTED, USMP_ERR_INVALID for an incomplete plan)
 * recorded on p / plan. Run before the output is opened. */
int usmp__csv_check_problem(usmp_problem *p);
int usmp__csv_check_plan(usmp_plan *plan, usmp_problem *p);
/* For the readers: empty p and record the formatted message as its error.
 * Returns status. */
int usmp__read_fail(usmp_problem *p, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* Read a whole file (or "-" = stdin) into a NUL-terminated heap buffer. */
int usmp__read_file(const char *path, char **data, size_t *len, char **msg);

#endif /* USMP_INTERNAL_H */
