/* usmp/plugin.h — the algorithm plugin ABI, version 1 (header-only).
 *
 * An algorithm plugin is a shared object that exports exactly one symbol, a
 * const `usmp_plugin` named `usmp_plugin_v1`. It never links against libusmp:
 * everything it may call arrives in the `usmp_host` table passed to each call.
 *
 * The host (libusmp) dlopen()s the plugin, reads the descriptor, checks the
 * ABI version (same major, minor not newer than the host's), parses each
 * algorithm's parameter signature and calls the algorithm through libffi as
 *
 *     int fn(const usmp_view *view, const usmp_host *host, usmp_placement *out,
 *            <one C argument per knob, in signature order>);
 *
 * Versioning: every struct below that may grow starts with `uint32_t
 * struct_size`; fields are only appended, and a reader touches a field only
 * when struct_size covers it (USMP_HAS_FIELD). Record structs without
 * struct_size (usmp_pool_rec, usmp_buffer_rec, usmp_overlap_rec,
 * usmp_placement) are frozen for major 1; new per-buffer data is added as new
 * arrays appended to usmp_view. See docs/abi.md and docs/plugins.md.
 *
 * Ownership and threads: the descriptor and everything it points to are
 * the plugin's, static and const, read by the host while the plugin is
 * loaded. The view, the host table and what they point to are the host's,
 * valid during one call only; `out` is the call's to write. The host may
 * call one algorithm from several threads at once, each call with its own
 * view, table and `out`, so an algorithm keeps no state in globals; a call
 * from outside the shipped plugin directory runs in a forked child process
 * (docs/abi.md, "Isolation"), whose writes to globals are lost.
 */
#ifndef USMP_PLUGIN_H
#define USMP_PLUGIN_H

#include <usmp/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when the struct at `ptr` (of type `type`, first field struct_size)
 * is large enough to hold `field`. Use it before reading any field that was
 * appended after ABI 1.0, in both directions (host tables and descriptors).
 * Thread-safe: yes (a pure expression).
 * Returns: a truth value (int). */
#define USMP_HAS_FIELD(ptr, type, field)                                       \
	((ptr)->struct_size >=                                                     \
	 offsetof(type, field) + sizeof(USMP__NULL_OF(type)->field))

/* Casts written as C++ casts in C++, so that hosts and plugins built with
 * -Wold-style-cast or -Wzero-as-null-pointer-constant compile the macros of
 * this header without warnings. Internal: not for plugin code. */
#ifdef __cplusplus
#define USMP__NULL_OF(type) static_cast<const type *>(nullptr)
#define USMP__FN_CAST(fn) reinterpret_cast<usmp_algorithm_fn>(fn)
#else
#define USMP__NULL_OF(type) ((const type *)0)
#define USMP__FN_CAST(fn) ((usmp_algorithm_fn)(fn))
#endif

/* ------------------------------------------------------------------------ */
/* The problem view: read-only, owned by the host, valid for one call.       */
/* ------------------------------------------------------------------------ */

/* A memory pool. Frozen within major 1. */
typedef struct usmp_pool_rec {
	const char *name;    /* NUL-terminated, unique within the view */
	uint64_t size_limit; /* bytes a plan may use; USMP_UNBOUNDED when none */
	uint64_t alignment;  /* power of two >= 1; every offset in this pool is
	                        a multiple of it (on top of the buffer's own) */
} usmp_pool_rec;

/* usmp_buffer_rec.flags */
enum usmp_buffer_flag {
	USMP_BUFFER_LIVE = 1u << 0, /* begin/end hold a live range [begin, end) */
	USMP_BUFFER_FIXED = 1u << 1 /* fixed_pool/fixed_offset are imposed */
};

/* A buffer to place. Frozen within major 1.
 * Two buffers conflict when both have live ranges that intersect, or when an
 * explicit conflict edge (usmp_view.conflict_*) joins them. */
typedef struct usmp_buffer_rec {
	const char *name;         /* NUL-terminated, unique within the view */
	uint64_t size;            /* bytes, > 0 */
	uint64_t alignment;       /* power of two >= 1; see usmp_buffer_alignment() */
	int64_t begin;            /* live range start (inclusive), with USMP_BUFFER_LIVE */
	int64_t end;              /* live range end (exclusive), > begin */
	uint32_t flags;           /* usmp_buffer_flag bits */
	uint32_t candidate_count; /* >= 1: candidate pools in priority order */
	uint64_t candidate_start; /* first of them in usmp_view.candidates */
	uint32_t fixed_pool;      /* with USMP_BUFFER_FIXED: the imposed pool */
	uint32_t reserved;        /* 0 */
	uint64_t fixed_offset;    /* with USMP_BUFFER_FIXED: the imposed offset */
} usmp_buffer_rec;

/* An overlap rule: `dst` may share bytes with `src` (same pool) when
 * offset(dst) <= offset(src) + max_lead. Without a rule, conflicting buffers
 * never overlap. Frozen within major 1. */
typedef struct usmp_overlap_rec {
	uint32_t src;     /* buffer index */
	uint32_t dst;     /* buffer index */
	int64_t max_lead; /* signed bytes */
} usmp_overlap_rec;

/* The problem an algorithm plans: flat arrays, all indices 0-based.
 * Conflicts implied by live ranges are never materialised; use the ranges
 * directly or usmp_host.for_each_neighbor. */
typedef struct usmp_view {
	uint32_t struct_size;  /* sizeof(usmp_view) as the host built it */
	uint32_t flags;        /* 0 in ABI 1.x */
	uint32_t pool_count;   /* >= 1 */
	uint32_t buffer_count; /* >= 0 */
	const usmp_pool_rec *pools;     /* [pool_count] */
	const usmp_buffer_rec *buffers; /* [buffer_count] */
	const uint32_t *candidates;     /* candidate pool lists, see usmp_buffer_rec */
	/* Explicit conflict edges in CSR form, symmetric, neighbours sorted and
	 * unique: the neighbours of b are conflict_adj[conflict_start[b] ..
	 * conflict_start[b+1]). Live-range conflicts are NOT listed here. */
	const uint64_t *conflict_start; /* [buffer_count + 1] */
	const uint32_t *conflict_adj;   /* [conflict_start[buffer_count]] */
	/* Number of buffers each buffer conflicts with (live ranges and edges,
	 * each pair counted once). */
	const uint64_t *degree; /* [buffer_count] */
	/* Overlap rules, sorted by (src, dst), no duplicates. */
	const usmp_overlap_rec *overlaps; /* [overlap_count] */
	uint64_t overlap_count;
	/* A lower bound on the sum of the pools' high-water marks in any valid
	 * plan (the largest total size alive at once, less what overlap rules
	 * could share). An algorithm reaching it may stop: it is optimal. */
	uint64_t lower_bound;
	const char *target; /* compiler target this part is planned for; "" if none */
	double time_limit;  /* seconds the host allows this call; 0 = no limit */
} usmp_view;

/* ------------------------------------------------------------------------ */
/* The output.                                                               */
/* ------------------------------------------------------------------------ */

/* Where a buffer goes. Frozen within major 1. On entry the host sets every
 * entry to { USMP_NO_POOL, 0, 0 }, except that fixed buffers already hold
 * their imposed placement; one exception: when auto runs an algorithm with
 * the knob warm=true (one it declares), out holds auto's best verified plan
 * so far, a starting point. On USMP_OK every entry must name a candidate pool
 * and an offset; the host verifies the plan before anyone sees it. */
typedef struct usmp_placement {
	uint32_t pool;     /* pool index, or USMP_NO_POOL */
	uint32_t reserved; /* 0 */
	uint64_t offset;   /* bytes from the pool's start */
} usmp_placement;

/* ------------------------------------------------------------------------ */
/* Host services: a table the host passes to each call.                      */
/* Every function takes the table itself first. All are thread-safe: any     */
/* thread the algorithm starts may call any of them concurrently, during     */
/* the call only (the table and what it points to end with the call).        */
/* ------------------------------------------------------------------------ */

typedef struct usmp_host usmp_host;

/* Called once per conflicting buffer; return non-zero to stop the walk. */
typedef int (*usmp_neighbor_fn)(void *arg, uint32_t other);

struct usmp_host {
	uint32_t struct_size; /* check with USMP_HAS_FIELD before using later fields */
	uint32_t reserved;
	void *host_data;      /* the host's; plugins must not touch it */

	/* Log a NUL-terminated message at a usmp_log_level. The host prints it
	 * on stderr as "usmp: ALGORITHM: message" when USMP_LOG allows its
	 * level, or passes it to the log function the embedding program set
	 * (usmp_registry_set_log); the latest error or warning also explains a
	 * failed call in usmp_plan_error. NULL messages are ignored.
	 * Thread-safe: yes. Returns: nothing. */
	void (*log)(const usmp_host *host, int level, const char *message);

	/* True once the deadline has passed or the host cancelled the call.
	 * Cheap (a clock read); call it every few thousand steps. An anytime
	 * algorithm then returns its best plan, others may return USMP_ERR_STOPPED.
	 * Thread-safe: yes. Returns: whether to stop. */
	bool (*should_stop)(const usmp_host *host);

	/* Report the size (sum of pool high-water marks) of the best plan found
	 * so far. Optional to call. Each report smaller than every earlier one
	 * of the call is logged at USMP_LOG_DEBUG ("best so far: N bytes"), so
	 * USMP_LOG=debug or a host's log function shows the search progress.
	 * Thread-safe: yes. Returns: nothing. */
	void (*progress)(const usmp_host *host, uint64_t best_size);

	/* malloc/realloc/free semantics. Memory still held when the call returns
	 * is released by the host (and logged as a leak, at USMP_LOG_WARN).
	 * Thread-safe: yes.
	 * Returns: the memory (alloc, realloc), NULL when out of memory (realloc
	 * then leaves `ptr` valid); nothing (free). */
	void *(*alloc)(const usmp_host *host, size_t size);
	void *(*realloc)(const usmp_host *host, void *ptr, size_t size);
	void (*free)(const usmp_host *host, void *ptr);

	/* Visit every buffer that conflicts with `buffer` (live ranges and
	 * explicit edges), in no particular order, each once. O(log n +
	 * neighbours).
	 * Thread-safe: yes.
	 * Returns: the value of the visit that stopped the walk, or 0 (also for
	 * a NULL visit or an out-of-range buffer). */
	int (*for_each_neighbor)(const usmp_host *host, uint32_t buffer,
	                         usmp_neighbor_fn visit, void *arg);

	/* An exact algorithm states what it proved about the plan it returns:
	 * no valid plan that spills no more bytes (docs/design.md, "Several
	 * pools: the objective") has a total size below `proven_bound`;
	 * `optimal` when the returned plan's size equals it. With one
	 * candidate pool per buffer every plan spills alike. Without a call,
	 * nothing is claimed. Several calls keep the largest bound; `optimal`
	 * once given stays. The host takes the bound only from an algorithm
	 * declaring USMP_CAP_EXACT. Thread-safe: yes. Returns: nothing. */
	void (*report_bound)(const usmp_host *host, uint64_t proven_bound,
	                     bool optimal);
};

/* ------------------------------------------------------------------------ */
/* The descriptor a plugin exports.                                          */
/* ------------------------------------------------------------------------ */

/* The generic type of an algorithm entry point; the host calls it with the
 * real signature described at the top of this file. */
typedef void (*usmp_algorithm_fn)(void);

/* One algorithm. Static, const, lives as long as the plugin is loaded. */
typedef struct usmp_algorithm {
	uint32_t struct_size; /* sizeof(usmp_algorithm) the plugin was built with */
	uint32_t caps;        /* usmp_capability bits */
	const char *name;     /* [a-z][a-z0-9_]*, unique among all loaded plugins */
	const char *summary;  /* one line, no trailing period needed */
	/* Knobs: space-separated `name:type=default` (types: bool i32 u32 i64
	 * u64 f64 str); "" or NULL for none. Arguments follow `out` in order. */
	const char *params;
	usmp_algorithm_fn fn;
	/* ABI 1.1: one line per knob, "name: what it does", '\n'-separated;
	 * NULL when undocumented. */
	const char *param_help;
	/* ABI 1.2: with USMP_CAP_PORTFOLIO, the time of one run as a multiple
	 * of first_fit's on the same problem (e.g. 2.0: twice as long), which
	 * auto uses to decide whether the run fits the time left; finite and
	 * >= 0; 0 when unknown (auto then counts it as 1 and measures it). */
	double cost;
} usmp_algorithm;

/* The plugin. Export it as `USMP_PLUGIN_EXPORT const usmp_plugin
 * usmp_plugin_v1 = USMP_PLUGIN_INIT(name, version, license, algorithms);`
 * (valid C and C++), or `= { USMP_PLUGIN_HEADER, ... };` in C. */
typedef struct usmp_plugin {
	uint32_t struct_size; /* sizeof(usmp_plugin) the plugin was built with */
	uint16_t abi_major;   /* USMP_ABI_MAJOR at build time */
	uint16_t abi_minor;   /* USMP_ABI_MINOR at build time */
	const char *name;     /* plugin (family) name, e.g. "fit" */
	const char *version;  /* the plugin's own version, free form */
	const char *license;  /* SPDX identifier */
	uint32_t algorithm_count;
	uint32_t reserved; /* 0 */
	const usmp_algorithm *const *algorithms; /* [algorithm_count] */
} usmp_plugin;

#if defined(_WIN32)
#define USMP_PLUGIN_VISIBLE __declspec(dllexport)
#else
#define USMP_PLUGIN_VISIBLE __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define USMP_PLUGIN_EXPORT extern "C" USMP_PLUGIN_VISIBLE
#else
#define USMP_PLUGIN_EXPORT USMP_PLUGIN_VISIBLE
#endif

/* The first three fields of a descriptor built against these headers. */
#define USMP_PLUGIN_HEADER                                                     \
	sizeof(usmp_plugin), USMP_ABI_MAJOR, USMP_ABI_MINOR

/* A complete usmp_plugin initializer, every field in order, so that it is
 * valid C and C++ alike (C++ before C++20 has no designated initializers,
 * and C++20 allows none after the positional USMP_PLUGIN_HEADER):
 * `name`, `version`, `license` (string literals) and `algorithms`, an
 * array (not a pointer) of `const usmp_algorithm *const`, whose element
 * count becomes algorithm_count:
 *
 *     static const usmp_algorithm *const algos[] = {&stack_algo};
 *     USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
 *         USMP_PLUGIN_INIT("stack", "1.0", "MIT", algos);
 */
#define USMP_PLUGIN_INIT(name, version, license, algorithms)                  \
	{                                                                          \
		USMP_PLUGIN_HEADER, (name), (version), (license),                      \
			sizeof(algorithms) / sizeof((algorithms)[0]), 0,                   \
			(algorithms)                                                       \
	}

/* ------------------------------------------------------------------------ */
/* Declaring an algorithm: knobs and prototype from one list.                */
/* ------------------------------------------------------------------------ */

/* The signature string and the C prototype of an algorithm must agree
 * knob by knob; the host builds the call from the string, so a mismatch is
 * undefined behaviour at run time. These macros derive both from one list,
 * so that a function defined with other parameters does not compile.
 *
 * The list is a function-like macro taking one argument, X, and calling
 * X(type, name, default, help) once per knob, in call order:
 *  - type:    bool i32 u32 i64 u64 f64 str (see usmp_param_type);
 *  - name:    the knob's name and the C parameter's name, [a-z_][a-z0-9_]*;
 *  - default: its default as it would be written after "=" (`false`, `0`,
 *             `0.5`, `-1`, `size`; empty for an empty string);
 *  - help:    a string literal, the knob's line in `usmp list -v`.
 *
 *     #define SWEEP_KNOBS(X)                                   \
 *         X(u64, gap, 0, "bytes kept free between buffers")    \
 *         X(str, order, size, "size or start")
 *     USMP_ALGORITHM_DECLARE(sweep, SWEEP_KNOBS);
 *
 * declares
 *
 *     static int sweep(const usmp_view *, const usmp_host *,
 *                      usmp_placement *, uint64_t gap, const char *order);
 *     static const char sweep_knob_signature[] = " gap:u64=0 order:str=size";
 *     static const char sweep_knob_help[] =
 *         "\ngap: bytes kept free between buffers\norder: size or start";
 *
 * and the definition that follows must have exactly those parameter types:
 * C compilers report "conflicting types for 'sweep'" otherwise; in C++ the
 * definition is another overload, an error where USMP_ALGORITHM_INIT takes
 * the function's address. A repeated knob name is a repeated parameter, also
 * an error. The function is static: declare, define and describe it in one
 * file. Use USMP_ALGORITHM_INIT to fill the descriptor from it:
 *
 *     static int sweep(const usmp_view *v, const usmp_host *h,
 *                      usmp_placement *out, uint64_t gap, const char *order)
 *     { ... }
 *     static const usmp_algorithm sweep_algo = USMP_ALGORITHM_INIT(
 *         sweep, "sweep", USMP_CAP_DETERMINISTIC, "one-line summary");
 *
 * An algorithm without knobs passes USMP_NO_KNOBS as its list. The macros
 * are plain C99 preprocessor and work in C++ too; they add no symbol to the
 * plugin's exports and do not change the ABI: the descriptor holds the same
 * strings a hand-written one would (the arrays' first character, a space or
 * newline separator, is skipped by USMP_ALGORITHM_PARAMS/_PARAM_HELP). */
#define USMP_NO_KNOBS(X)

/* The C type of a knob type, by token pasting (so that `bool` is not
 * expanded by <stdbool.h> before it is pasted). */
#define USMP__KNOB_CTYPE_bool bool
#define USMP__KNOB_CTYPE_i32 int32_t
#define USMP__KNOB_CTYPE_u32 uint32_t
#define USMP__KNOB_CTYPE_i64 int64_t
#define USMP__KNOB_CTYPE_u64 uint64_t
#define USMP__KNOB_CTYPE_f64 double
#define USMP__KNOB_CTYPE_str const char *
#define USMP__KNOB_PARAM(type, name, dflt, help) , USMP__KNOB_CTYPE_##type name
#define USMP__KNOB_SIGNATURE(type, name, dflt, help) " " #name ":" #type "=" #dflt
#define USMP__KNOB_HELP(type, name, dflt, help) "\n" #name ": " help
#if defined(__GNUC__) || defined(__clang__)
#define USMP__MAYBE_UNUSED __attribute__((unused))
#else
#define USMP__MAYBE_UNUSED
#endif

/* The prototype of `fn` and its knob strings `fn`_knob_signature and
 * `fn`_knob_help, from the knob list `knobs` (see above). Follow it with ;. */
#define USMP_ALGORITHM_DECLARE(fn, knobs)                                      \
	static int fn(const usmp_view *, const usmp_host *,                        \
	              usmp_placement * knobs(USMP__KNOB_PARAM));                   \
	USMP__MAYBE_UNUSED static const char fn##_knob_signature[] =               \
		"" knobs(USMP__KNOB_SIGNATURE);                                        \
	USMP__MAYBE_UNUSED static const char fn##_knob_help[] =                    \
		"" knobs(USMP__KNOB_HELP)

/* The values for usmp_algorithm.params and .param_help of an algorithm
 * declared with USMP_ALGORITHM_DECLARE: "gap:u64=0 order:str=size" and
 * "gap: ...\norder: ..." ("" for none). Constant expressions, usable in
 * static initializers. */
#define USMP_ALGORITHM_PARAMS(fn)                                              \
	(fn##_knob_signature + (sizeof fn##_knob_signature > 1))
#define USMP_ALGORITHM_PARAM_HELP(fn)                                          \
	(fn##_knob_help + (sizeof fn##_knob_help > 1))

/* A complete usmp_algorithm initializer for `fn` declared with
 * USMP_ALGORITHM_DECLARE: struct_size, caps, name (a string), summary,
 * params, fn, param_help and cost (0: unknown), in field order (valid C and
 * C++). USMP_ALGORITHM_INIT_COST sets the cost a volunteer for auto
 * declares (caps holding USMP_CAP_PORTFOLIO). */
#define USMP_ALGORITHM_INIT_COST(fn, name, caps, summary, cost)                \
	{                                                                          \
		sizeof(usmp_algorithm), (caps), (name), (summary),                     \
			USMP_ALGORITHM_PARAMS(fn), USMP__FN_CAST(fn),                      \
			USMP_ALGORITHM_PARAM_HELP(fn), (cost)                              \
	}
#define USMP_ALGORITHM_INIT(fn, name, caps, summary)                           \
	USMP_ALGORITHM_INIT_COST(fn, name, caps, summary, 0.0)

/* ------------------------------------------------------------------------ */
/* Small helpers every algorithm needs (pure, inline, no host involved).     */
/* ------------------------------------------------------------------------ */

/* The alignment a buffer needs in a pool: the larger of the two.
 * Thread-safe: yes (pure). Returns: the alignment. */
static inline uint64_t usmp_buffer_alignment(const usmp_view *v, uint32_t b,
                                             uint32_t pool)
{
	uint64_t a = v->buffers[b].alignment, p = v->pools[pool].alignment;
	return a > p ? a : p;
}

/* Round x up to a multiple of the power of two a.
 * Thread-safe: yes (pure).
 * Returns: the rounded value; on overflow, a wrapped value and *ok set to
 * false (it is never set to true). */
static inline uint64_t usmp_align_up(uint64_t x, uint64_t a, bool *ok)
{
	uint64_t r = (x + (a - 1)) & ~(a - 1);
	if (r < x)
		*ok = false;
	return r;
}

/* Whether buffers a and b both have live ranges that intersect.
 * Thread-safe: yes (pure). Returns: true when they do. */
static inline bool usmp_live_overlap(const usmp_view *v, uint32_t a,
                                     uint32_t b)
{
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	return (x->flags & y->flags & USMP_BUFFER_LIVE) && x->begin < y->end &&
	       y->begin < x->end;
}

#ifdef __cplusplus
}
#endif
#endif /* USMP_PLUGIN_H */
