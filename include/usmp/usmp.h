/* usmp/usmp.h — the host API of libusmp: problems, the plugin registry, plans.
 *
 * A compiler builds a usmp_problem (pools and buffers), creates one
 * usmp_registry (it finds and loads algorithm plugins), and asks for a
 * usmp_plan. Every plan the library returns has passed its independent
 * verifier.
 *
 * Conventions
 *  - Handles are opaque; `*_create` allocates, `*_destroy` frees and accepts NULL.
 *  - Fallible calls return an `int` usmp_status (0 = USMP_OK). The text of the
 *    most recent failure is kept on the handle involved (usmp_problem_error,
 *    usmp_plan_error; usmp_registry_error keeps one per calling thread);
 *    there is no global error state.
 *  - Strings returned by the library are owned by the handle and stay valid
 *    until it is destroyed (or, where said, until the next call on it).
 *  - Threads: a problem or plan is used by one thread at a time. A registry
 *    may be shared: usmp_plan_compute and the read-only queries are
 *    thread-safe; usmp_registry_bind, usmp_registry_bind_rules,
 *    usmp_registry_clear_bindings and usmp_registry_set_log are not and must
 *    not run concurrently with any other call on the registry.
 *  - Indices (pools, buffers, parts, ...) are dense, 0-based, in insertion
 *    order. Messages count parts from 1 ("part 1" is usmp_plan_part's
 *    index 0), as the usmp command's output does.
 *
 * How each function is documented (checked by tests/check_header_docs.py,
 * `meson test header_docs`): the comment right above a USMP_API declaration
 * (one comment may cover several declarations that follow it without a
 * blank line) contains
 *  - a line starting "Thread-safe:" — "yes" (any thread, any time), or what
 *    may run concurrently with what ("no: one thread at a time per problem");
 *  - a line starting "Returns:" — for a call returning `int`, every
 *    usmp_status it can return, by name (USMP_OK, USMP_ERR_INVALID, ...),
 *    unless the value is not a status and the line says "(not a status)";
 *    for any other call, what the value is.
 * A call that changes its handle although its name reads like a query
 * starts its comment with "MUTATES".
 * USMP_ERR_INVALID always includes a NULL handle or a NULL required pointer.
 */
#ifndef USMP_USMP_H
#define USMP_USMP_H

#include <usmp/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(USMP_BUILDING_LIBRARY) && !defined(_WIN32)
#define USMP_API __attribute__((visibility("default")))
#else
#define USMP_API
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

/* The library's release version, e.g. "0.1.0".
 * Thread-safe: yes.
 * Returns: a static string. */
USMP_API const char *usmp_version(void);

/* The plugin ABI version this library implements; either pointer may be
 * NULL. A host that dlopen()s libusmp.so.1 checks it before use.
 * Thread-safe: yes.
 * Returns: nothing; sets *major and *minor. */
USMP_API void usmp_abi_version(uint32_t *major, uint32_t *minor);

/* A short English name of a status code ("infeasible").
 * Thread-safe: yes.
 * Returns: a static string ("unknown status" for a value not in
 * usmp_status). */
USMP_API const char *usmp_status_name(int status);

/* ------------------------------------------------------------------------ */
/* Problems                                                                  */
/* ------------------------------------------------------------------------ */

/* A problem: pools and buffers, built by the calls below or read from a
 * file. The caller's from usmp_problem_create to usmp_problem_destroy;
 * plans and registries keep no pointer into it. One thread at a time
 * (the read-only queries may run concurrently with each other, as each
 * says); it must not change while a call uses it.
 * Reuse: a builder call that fails changes nothing, and a problem may be
 * planned again after any failure, or after more records are added (each
 * plan sees the problem as it is then). No call removes a record or
 * changes a pool's name, limit or alignment: a problem refused for its
 * records (an overlap rule off its schedule or in a cycle), or to be
 * planned with another pool size, is built again. */
typedef struct usmp_problem usmp_problem;

/* A new, empty problem. Destroy it with usmp_problem_destroy. A problem
 * without pools gets one unbounded pool named "default" when it is first
 * planned, bounded or written.
 * Thread-safe: yes.
 * Returns: the problem, or NULL when out of memory. */
USMP_API usmp_problem *usmp_problem_create(void);

/* Free a problem and everything it owns. Accepts NULL.
 * Thread-safe: no: nothing else may use `p` during or after the call.
 * Returns: nothing. */
USMP_API void usmp_problem_destroy(usmp_problem *p);

/* The message of the most recent failed call on `p`.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: the message, never NULL ("" when none); valid until the next
 * call on `p`. */
USMP_API const char *usmp_problem_error(const usmp_problem *p);

/* Add a pool. `name` is copied and must be unique and non-empty;
 * `size_limit` is in bytes, > 0 (USMP_UNBOUNDED for none); `alignment` a
 * power of two (0 means 1). Its index is stored in *id when id is not NULL.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (bad name, size or alignment, too many
 * pools); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_pool(usmp_problem *p, const char *name,
                                   uint64_t size_limit, uint64_t alignment,
                                   uint32_t *id);

/* Declare that compiler target `target` (copied, non-empty) reaches pool
 * `pool`. Naming a target twice changes nothing.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such pool, empty target);
 * USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_pool_target(usmp_problem *p, uint32_t pool,
                                          const char *target);

/* Add a buffer of `size` > 0 bytes, `alignment` a power of two (0 means 1).
 * `name` is copied and must be unique and non-empty. It has no live range,
 * no conflicts and every pool as candidate until told otherwise.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (bad name, size or alignment, too many
 * buffers); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_buffer(usmp_problem *p, const char *name,
                                     uint64_t size, uint64_t alignment,
                                     uint32_t *id);

/* Give buffer `b` the half-open live range [begin, end), end > begin,
 * replacing any it had (a failed call leaves the one it had).
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such buffer, end <= begin). */
USMP_API int usmp_problem_set_live(usmp_problem *p, uint32_t b, int64_t begin,
                                   int64_t end);

/* Append pool `pool` to buffer b's candidate pools (priority order).
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such buffer or pool, pool already
 * a candidate); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_candidate(usmp_problem *p, uint32_t b,
                                        uint32_t pool);

/* Impose pool and offset on buffer b (offline planning, pinned I/O),
 * replacing any placement imposed before (a failed call leaves it). The
 * offset must suit the buffer's and pool's alignment and the pool's limit.
 * A buffer with candidates must list the fixed pool among them, checked
 * when the problem is prepared.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such buffer or pool, misaligned
 * offset, beyond the pool's limit). */
USMP_API int usmp_problem_set_fixed(usmp_problem *p, uint32_t b, uint32_t pool,
                                    uint64_t offset);

/* An explicit conflict between buffers a != b (in addition to live ranges).
 * Duplicates are merged.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such buffer, a == b);
 * USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_conflict(usmp_problem *p, uint32_t a, uint32_t b);

/* An overlap rule (docs/design.md, "Overlap rules"; docs/formats.md): dst may share bytes with src in the
 * same pool when offset(dst) <= offset(src) + max_lead. dst is written by
 * the op that reads src, so rules must form no cycle, and with live ranges
 * on both dst must begin at src's last step; both are checked when the
 * problem is prepared (planning, verifying, reading a file).
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no such buffer, src == dst, the same
 * rule twice); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_add_overlap(usmp_problem *p, uint32_t src,
                                      uint32_t dst, int64_t max_lead);

/* Counts and names. Names are owned by `p`.
 * Thread-safe: yes with other read-only calls on `p` (these four,
 * usmp_problem_find_* and the calls that read a problem back, below), not
 * with a call that changes `p`.
 * Returns: the count or name; 0 or NULL for a NULL problem or an
 * out-of-range index. */
USMP_API uint32_t usmp_problem_pool_count(const usmp_problem *p);
USMP_API uint32_t usmp_problem_buffer_count(const usmp_problem *p);
USMP_API const char *usmp_problem_pool_name(const usmp_problem *p, uint32_t pool);
USMP_API const char *usmp_problem_buffer_name(const usmp_problem *p, uint32_t b);

/* Look a pool or buffer up by name and store its index in *id (id may be
 * NULL). A read-only call: USMP_ERR_NOT_FOUND sets no message
 * (usmp_problem_error still holds the latest builder failure's, if any).
 * Thread-safe: yes with other read-only calls on `p`, not with a call that
 * changes `p`.
 * Returns: USMP_OK; USMP_ERR_NOT_FOUND; USMP_ERR_INVALID (NULL name). */
USMP_API int usmp_problem_find_pool(const usmp_problem *p, const char *name,
                                    uint32_t *id);
USMP_API int usmp_problem_find_buffer(const usmp_problem *p, const char *name,
                                      uint32_t *id);

/* Reading a problem back (ABI 1.3): everything the calls above put in,
 * for a host that read a problem from a file (usmp_problem_read,
 * usmp_problem_parse) or built it elsewhere. These calls read `p` only:
 *  - Thread-safe: yes with each other and the other read-only calls on `p`
 *    (counts, names, usmp_problem_find_*), not with a call that changes
 *    `p`.
 *  - Failures set no message: usmp_problem_error stays as it was (writing
 *    it would make concurrent readers race). The status says what was
 *    wrong: USMP_ERR_INVALID for a NULL problem or a NULL required pointer
 *    (a struct_size below 4 included), USMP_ERR_NOT_FOUND for an index at
 *    or past its count (usmp_problem_pool_count, _buffer_count,
 *    _conflict_count, _overlap_count, or the info's target_count and
 *    candidate_count).
 *  - Strings are owned by `p` and stay valid until it is destroyed or
 *    emptied by a failed read; the info structs are the caller's, filled
 *    with at most info->struct_size bytes (zero-fill, then set struct_size
 *    to sizeof: a caller built against these headers keeps working with a
 *    later library that appends fields).
 *  - Indices are the problem's, 0-based, as everywhere in this header.
 * What a file holds reads back as its reader added it (docs/formats.md):
 * a JSON problem without pools, or any CSV, has the one pool "default";
 * a buffer a JSON file gives no "pools" has candidate_count 0 (every
 * pool; a fixed buffer stays in its fixed pool). Preparing `p` (planning, bounding, writing) adds the "default"
 * pool to a problem built without pools; nothing else it does shows here. */

/* A pool as added (usmp_problem_add_pool, _add_pool_target). */
typedef struct usmp_pool_info {
	uint32_t struct_size;  /* set by the caller to sizeof(usmp_pool_info) */
	uint32_t target_count; /* its targets, for usmp_problem_pool_target */
	const char *name;
	uint64_t size_limit;   /* bytes; USMP_UNBOUNDED when none */
	uint64_t alignment;    /* a power of two >= 1 (an alignment added as 0
	                          reads 1) */
} usmp_pool_info;

/* A buffer as added (usmp_problem_add_buffer and the calls that set it). */
typedef struct usmp_buffer_info {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_buffer_info) */
	uint32_t live;        /* 1: [begin, end) is its live range; 0: it has
	                         none (begin and end are then 0) */
	const char *name;
	uint64_t size;        /* bytes, > 0 */
	uint64_t alignment;   /* a power of two >= 1 */
	int64_t begin, end;
	uint32_t candidate_count; /* its candidate pools (usmp_problem_
	                             buffer_candidate); 0: every pool (a fixed
	                             buffer: its fixed pool) */
	uint32_t fixed_pool;      /* usmp_problem_set_fixed's pool;
	                             USMP_NO_POOL when not fixed */
	uint64_t fixed_offset;    /* its offset; 0 when not fixed */
} usmp_buffer_info;

/* Pool `pool` and buffer `b`: copy at most info->struct_size bytes of the
 * record into *info.
 * Thread-safe: yes with other read-only calls on `p` (see above).
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL p or info, struct_size below
 * 4); USMP_ERR_NOT_FOUND (index out of range). */
USMP_API int usmp_problem_pool_info(const usmp_problem *p, uint32_t pool,
                                    usmp_pool_info *info);
USMP_API int usmp_problem_buffer_info(const usmp_problem *p, uint32_t b,
                                      usmp_buffer_info *info);

/* Target i (0 <= i < target_count) of pool `pool`, in the order named (a
 * target named twice is listed once), into *target (owned by `p`).
 * Thread-safe: yes with other read-only calls on `p`.
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL p or target);
 * USMP_ERR_NOT_FOUND (pool or i out of range). */
USMP_API int usmp_problem_pool_target(const usmp_problem *p, uint32_t pool,
                                      uint32_t i, const char **target);

/* Candidate i (0 <= i < candidate_count) of buffer b, in priority order,
 * into *pool.
 * Thread-safe: yes with other read-only calls on `p`.
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL p or pool); USMP_ERR_NOT_FOUND
 * (b or i out of range; every i for a buffer without candidates). */
USMP_API int usmp_problem_buffer_candidate(const usmp_problem *p, uint32_t b,
                                           uint32_t i, uint32_t *pool);

/* Explicit conflicts (usmp_problem_add_conflict), in the order added,
 * each with *a < *b; a pair added twice is listed twice (planning counts
 * it once, and usmp_problem_write writes it once). Either pointer may be
 * NULL.
 * Thread-safe: yes with other read-only calls on `p`.
 * Returns: the count (0 for NULL); USMP_OK; USMP_ERR_INVALID (NULL p);
 * USMP_ERR_NOT_FOUND (i out of range). */
USMP_API uint32_t usmp_problem_conflict_count(const usmp_problem *p);
USMP_API int usmp_problem_conflict(const usmp_problem *p, uint32_t i,
                                   uint32_t *a, uint32_t *b);

/* Overlap rules (usmp_problem_add_overlap), in the order added. Any of the
 * three pointers may be NULL.
 * Thread-safe: yes with other read-only calls on `p`.
 * Returns: the count (0 for NULL); USMP_OK; USMP_ERR_INVALID (NULL p);
 * USMP_ERR_NOT_FOUND (i out of range). */
USMP_API uint32_t usmp_problem_overlap_count(const usmp_problem *p);
USMP_API int usmp_problem_overlap(const usmp_problem *p, uint32_t i,
                                  uint32_t *src, uint32_t *dst,
                                  int64_t *max_lead);

/* File formats for problems and plans. */
enum usmp_format {
	USMP_FORMAT_AUTO = 0, /* by file name: ".csv" is CSV, anything else JSON */
	USMP_FORMAT_JSON = 1,
	USMP_FORMAT_CSV = 2
};

/* Read a problem file (JSON, or MiniMalloc CSV) into the empty problem `p`.
 * `capacity` is the size limit of the CSV format's single pool
 * (USMP_UNBOUNDED for none; ignored for JSON). On failure `p` is left empty
 * and usmp_problem_error names file, record and field.
 * Thread-safe: no: one thread at a time per problem; threads may read
 * different problems at once.
 * Returns: USMP_OK; USMP_ERR_INVALID (no path, unknown format, `p` not
 * empty, malformed or inconsistent file); USMP_ERR_IO (cannot read the
 * file); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_read(usmp_problem *p, const char *path, int format,
                               uint64_t capacity);

/* Parse a problem from memory; `name` is used in messages in place of a
 * path. Otherwise like usmp_problem_read.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (unknown format, `p` not empty,
 * malformed or inconsistent data); USMP_ERR_NOMEM. */
USMP_API int usmp_problem_parse(usmp_problem *p, const char *data, size_t len,
                                const char *name, int format,
                                uint64_t capacity);

/* Output files: how usmp_problem_write, usmp_plan_write and
 * usmp_plan_write_svg write `path`.
 *  - "-" is standard output: the document is built in memory and written
 *    only once complete, so a failure writes nothing.
 *  - A regular file, or a name that does not exist yet, is replaced
 *    atomically: the document goes to an unnamed temporary file in the same
 *    directory (O_TMPFILE; created like any new file: mode 0666 less the
 *    umask), is flushed to disk (fsync), and only when complete is given a
 *    temporary name (".NAME.usmp-XXXXXX") and renamed over `path`, with
 *    SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked in the calling thread for
 *    those two calls (a host whose other threads leave them unblocked may
 *    have one delivered there). A process that dies while writing leaves
 *    nothing behind, so a host needs no signal handler for it. On a file system
 *    without O_TMPFILE (or without /proc mounted) the temporary file is
 *    named from the start; a signal that ends the process while it is
 *    written then leaves that ".NAME.usmp-XXXXXX" file (`path` is intact).
 *    An existing file keeps its mode (and its owner, when the caller may set
 *    it); a symbolic link keeps pointing where it did, and the file it
 *    points to is replaced. On any failure (the format cannot express the
 *    data, disk full, I/O error) `path` is exactly as before and no
 *    temporary file remains. An existing file the caller may not write is
 *    refused, as opening it would be. The library keeps no state between
 *    writes: threads may write different files at once.
 *  - Special files (character or block devices, FIFOs, sockets) and the
 *    names /dev/stdout, /dev/stderr, /dev/fd/N and /proc/...: opened
 *    without removing or replacing them, and given the document once it is
 *    complete.
 * Every failure message names `path` ("out/plan.json: write failed: No
 * space left on device"). Checks that need no file (a CSV plan of a
 * two-pool problem) fail before anything is opened. */

/* Write the problem to `path` ("-" for stdout) as JSON or as MiniMalloc CSV
 * (`format`; USMP_FORMAT_AUTO: CSV for a ".csv" name, else JSON),
 * atomically as said under "Output files" above. Prepares `p` first (adds
 * the default pool to a problem without pools, see usmp_problem_create).
 * A problem that fails its checks across records (a fixed pool outside
 * its candidates, an overlap rule off its schedule), which
 * usmp_plan_compute refuses, is written as it is: reading the file back
 * gives the same refusal, naming the record (for a bug report).
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no path, unknown format);
 * USMP_ERR_UNSUPPORTED (CSV cannot
 * hold the problem: several pools, alignment, overlap rules, ...);
 * USMP_ERR_IO; USMP_ERR_NOMEM. */
USMP_API int usmp_problem_write(usmp_problem *p, const char *path, int format);

/* Lower bounds and groups. These prepare `p` first, unless it already is
 * (as their names say; they change it): add the "default" pool to a
 * problem without pools, check records against each other, compute the
 * groups; on failure they set usmp_problem_error. Buffers that can share a
 * pool (transitively) form a group; the sum of a group's pools' sizes in
 * any valid plan is at least its bound. Groups are numbered 0..count-1,
 * and every pool is in one (pools no buffer can use form their own).
 * Thread-safe: no: one thread at a time per problem (even these).
 * Returns: the group count, the group's bound, or the pool's group; 0
 * (count, bound) or UINT32_MAX (pool group) when `p` is NULL, fails its
 * checks, is out of memory or the index is out of range
 * (usmp_problem_error says which). */
USMP_API uint32_t usmp_problem_prepare_group_count(usmp_problem *p);
USMP_API uint64_t usmp_problem_prepare_group_bound(usmp_problem *p,
                                                   uint32_t group);
USMP_API uint32_t usmp_problem_prepare_pool_group(usmp_problem *p,
                                                  uint32_t pool);

/* Deprecated names of the three calls above (same behaviour, same
 * preparing of `p`; their names hide that they change it): kept so that
 * hosts built against them still link and run. New code calls
 * usmp_problem_prepare_group_count, usmp_problem_prepare_group_bound and
 * usmp_problem_prepare_pool_group.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: as the usmp_problem_prepare_* call of the same name. */
USMP_API uint32_t usmp_problem_group_count(usmp_problem *p);
USMP_API uint64_t usmp_problem_group_bound(usmp_problem *p, uint32_t group);
USMP_API uint32_t usmp_problem_pool_group(usmp_problem *p, uint32_t pool);

/* ------------------------------------------------------------------------ */
/* The registry of algorithm plugins                                         */
/* ------------------------------------------------------------------------ */

/* The loaded plugins and the selection rules. The caller's from
 * usmp_registry_create to usmp_registry_destroy, which needs every call
 * on it ended; plans it made stay valid after it. Shared by threads:
 * planning and the queries run concurrently, binding and setting the log
 * do not (see Conventions above, and each function). */
typedef struct usmp_registry usmp_registry;

/* usmp_registry_options.flags. Bits not listed here (a usmp_plan_flag,
 * or a flag of a later minor) are ignored and said by a diagnostic
 * (USMP_DIAG_OTHER), as is SCAN_ALL with NO_SCAN (NO_SCAN wins). */
enum usmp_registry_flag {
	USMP_REGISTRY_NO_ENV = 1u << 0,          /* ignore USMP_PLUGIN_PATH, USMP_ALGORITHM,
	                                            USMP_ALLOW_INSECURE_PLUGINS */
	USMP_REGISTRY_NO_DEFAULT_DIRS = 1u << 1, /* skip the shipped plugin directory */
	USMP_REGISTRY_SCAN_ALL = 1u << 2, /* read installed plugins in the scanner too */
	USMP_REGISTRY_NO_SCAN = 1u << 3   /* no scanner: load every plugin in process */
};

/* Options for usmp_registry_create; zero-fill, then set struct_size. Read
 * during the call only (the registry copies what it keeps). */
typedef struct usmp_registry_options {
	uint32_t struct_size; /* sizeof(usmp_registry_options) */
	uint32_t flags;       /* usmp_registry_flag bits */
	/* Extra plugin directories searched first, colon-separated, or NULL. */
	const char *plugin_path;
} usmp_registry_options;

/* Create a registry and load every plugin found: `plugin_path`, then
 * USMP_PLUGIN_PATH, then the shipped plugin directory ("usmp-1" next to
 * libusmp: $libdir/usmp-1 installed, build/src/usmp-1 in a build tree).
 * A plugin from outside that directory is first read in a forked scanner
 * process, so one whose loading crashes, exits or hangs is skipped. A plugin
 * file, or its directory, that is world-writable (a directory without the
 * sticky bit) or owned by another user than the process's and root is
 * skipped (group write is fine), unless USMP_ALLOW_INSECURE_PLUGINS=1.
 * A plugin that fails to load is recorded as a diagnostic and skipped, as
 * is an entry of `plugin_path` or USMP_PLUGIN_PATH that does not exist; an
 * algorithm asked for later and not found (bind, select, plan) names each
 * entry that gave no plugin file under the setting it came from ("entries
 * of usmp_registry_options.plugin_path that gave no plugin: DIR: no .so
 * file in the directory").
 * `opts` may be NULL.
 * Thread-safe: yes (each call makes its own registry; it reads the
 * environment and forks the scanner).
 * Returns: USMP_OK and *out; USMP_ERR_INVALID (out is NULL, or
 * opts->struct_size not set: below 4; *out is then NULL); USMP_ERR_NOMEM. */
USMP_API int usmp_registry_create(const usmp_registry_options *opts,
                                  usmp_registry **out);

/* Unload every plugin and free the registry. Accepts NULL. Plans already
 * returned stay valid.
 * Thread-safe: no: no other call on `r` may be under way or follow.
 * Returns: nothing. */
USMP_API void usmp_registry_destroy(usmp_registry *r);

/* The message of the most recent failed usmp_registry_bind,
 * usmp_registry_bind_rules, usmp_registry_select or
 * usmp_registry_select_part made by the calling thread on `r`. Each thread
 * sees its own: a failure in another thread sharing `r` does not replace
 * it (the registry remembers the last message of up to 64 threads; an
 * older thread's is dropped and reads as "").
 * Thread-safe: yes.
 * Returns: the message, never NULL ("" when none; "no registry" for NULL);
 * valid until the registry is destroyed. */
USMP_API const char *usmp_registry_error(const usmp_registry *r);

/* A host's log function: receives a message an algorithm logged while
 * planning with the registry (usmp_host.log, including the host's own lines
 * about the call: "best so far: N bytes", a leak). `level` is a
 * usmp_log_level, `algorithm` the name of the algorithm called ("auto",
 * "exact", a plugin's; "auto/first_fit" for a member auto runs), `message`
 * the text without a newline and without that name again (an algorithm's
 * own leading "NAME: " is dropped); both strings are valid only during the
 * call. The library's line about a selection rule that matches no pool or
 * target of the problem (docs/registry.md) names the rule's list instead:
 * "USMP_ALGORITHM" or "usmp_registry_bind". A member failing inside auto logs at USMP_LOG_INFO at most: the
 * call's one error is auto's.
 * The function runs while a call on the registry is under way: it may
 * call what may run beside usmp_plan_compute (the registry's queries,
 * planning another problem), not usmp_registry_bind, _bind_rules,
 * _clear_bindings, _set_log or _destroy, nor change the problem being
 * planned. */
typedef void (*usmp_log_fn)(void *ctx, int level, const char *algorithm,
                            const char *message);

/* For usmp_registry_set_log: the level USMP_LOG names. */
#define USMP_LOG_LEVEL_ENV (-1)

/* Send the log messages of every later usmp_plan_compute with `r` to `fn`
 * (with `ctx` as its first argument) instead of stderr: those at `level` or
 * more severe (USMP_LOG_ERROR .. USMP_LOG_DEBUG), or, with
 * USMP_LOG_LEVEL_ENV, those USMP_LOG=error|warn|info|debug allows (none when
 * it is unset, empty or another value). `ctx` is not copied or freed: it
 * must stay valid until the next usmp_registry_set_log or
 * usmp_registry_destroy (and until the calls under way end). `fn` NULL
 * restores the default:
 * "usmp: ALGORITHM: message" lines on stderr at the level USMP_LOG names
 * (`ctx` and `level` are then ignored).
 * `fn` is called in the thread of the usmp_plan_compute, or in a thread an
 * algorithm started; the messages of one call reach it one at a time, in
 * order, but calls planned in several threads at once call it
 * concurrently. A plugin call isolated in a child process logs into memory
 * shared with the host, and `fn` gets its messages (up to 64 KiB, then one
 * line saying how many were dropped) in the calling thread when the call
 * ends, even when the child crashed or was killed.
 * Thread-safe: no: like usmp_registry_bind, no other call on `r` may run
 * concurrently (calls under way keep the setting they started with).
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL registry, `level` out of
 * range with a non-NULL `fn`). */
USMP_API int usmp_registry_set_log(usmp_registry *r, usmp_log_fn fn, void *ctx,
                                   int level);

/* Load failures: "FILE: reason" lines, one per plugin or algorithm that was
 * skipped, in search order, after any line about the options' flags
 * (usmp_registry_flag). They are fixed when usmp_registry_create returns.
 * Thread-safe: yes.
 * Returns: the count; the line, owned by `r`, or NULL when out of range. */
USMP_API uint32_t usmp_registry_diagnostic_count(const usmp_registry *r);
USMP_API const char *usmp_registry_diagnostic(const usmp_registry *r,
                                              uint32_t i);

/* What a diagnostic is about (usmp_registry_diagnostic_kind). */
enum usmp_diagnostic_kind {
	USMP_DIAG_OTHER = 0,             /* the search, USMP_ALGORITHM or the
	                                    options' flags */
	USMP_DIAG_PLUGIN_SKIPPED = 1,    /* a plugin file was not loaded */
	USMP_DIAG_ALGORITHM_SKIPPED = 2, /* one algorithm of a plugin was refused */
	USMP_DIAG_SHADOWED = 3 /* a warning: an algorithm name was taken by an
	                          earlier provider, which keeps it */
};

/* The usmp_diagnostic_kind of diagnostic i.
 * Thread-safe: yes.
 * Returns: the kind, a usmp_diagnostic_kind (not a status); USMP_DIAG_OTHER
 * when out of range. */
USMP_API int usmp_registry_diagnostic_kind(const usmp_registry *r, uint32_t i);

/* A loaded plugin, as read from its descriptor. Strings owned by the registry. */
typedef struct usmp_plugin_info {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_plugin_info) */
	uint32_t abi_major, abi_minor;
	uint32_t algorithm_count;
	const char *name, *version, *license;
	const char *path; /* the file it was loaded from */
} usmp_plugin_info;

/* An algorithm: built into libusmp (plugin index UINT32_MAX) or a plugin's. */
typedef struct usmp_algorithm_info {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_algorithm_info) */
	uint32_t caps;        /* usmp_capability bits */
	uint32_t plugin;      /* index for usmp_registry_plugin, or UINT32_MAX */
	uint32_t param_count;
	const char *name, *summary;
	const char *params; /* the signature string */
} usmp_algorithm_info;

/* A knob of an algorithm. */
typedef struct usmp_param_info {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_param_info) */
	uint32_t type;        /* usmp_param_type */
	const char *name;
	const char *default_value; /* as written in the signature */
	const char *help;          /* "" when the plugin documents none */
} usmp_param_info;

/* Queries of what was loaded. The struct-filling ones copy at most
 * info->struct_size bytes, so callers built against older headers keep
 * working; strings are owned by the registry.
 * Thread-safe: yes.
 * Returns: the counts; for the others USMP_OK; USMP_ERR_INVALID (NULL
 * info or name, struct_size below 4); USMP_ERR_NOT_FOUND (index or name
 * out of range). */
USMP_API uint32_t usmp_registry_plugin_count(const usmp_registry *r);
USMP_API int usmp_registry_plugin(const usmp_registry *r, uint32_t i,
                                  usmp_plugin_info *info);
USMP_API uint32_t usmp_registry_algorithm_count(const usmp_registry *r);
USMP_API int usmp_registry_algorithm(const usmp_registry *r, uint32_t i,
                                     usmp_algorithm_info *info);
USMP_API int usmp_registry_find_algorithm(const usmp_registry *r,
                                          const char *name, uint32_t *i);
USMP_API int usmp_registry_param(const usmp_registry *r, uint32_t algorithm,
                                 uint32_t k, usmp_param_info *info);

/* auto's portfolio: its members, in the order of its policy table, then
 * the algorithms plugins volunteer (USMP_CAP_PORTFOLIO), in registry order.
 * `usmp list -v` prints them; docs/algorithms.md says what each role does. */
enum usmp_member_role {
	USMP_MEMBER_FIRST = 1,     /* makes the first plan: tried in order until
	                              one fits, always allowed to finish */
	USMP_MEMBER_HEURISTIC = 2, /* runs while its estimated cost fits the time left */
	USMP_MEMBER_SEARCH = 3,    /* searches the time left when no plan is at
	                              the lower bound */
	USMP_MEMBER_VOLUNTEER = 4  /* a plugin's algorithm with USMP_CAP_PORTFOLIO:
	                              runs after the shipped heuristics when time allows */
};

/* Problem shapes a member is expected to help (usmp_member_info.shapes). */
enum usmp_shape {
	USMP_SHAPE_FEW = 1u << 0,  /* at most 100 buffers alive at once */
	USMP_SHAPE_MANY = 1u << 1, /* more alive, sizes within four decades */
	USMP_SHAPE_WIDE = 1u << 2  /* more alive, sizes over four decades or more */
};

typedef struct usmp_member_info {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_member_info) */
	uint32_t role;        /* usmp_member_role */
	uint32_t algorithm;   /* index for usmp_registry_algorithm; UINT32_MAX
	                         when no loaded algorithm has the name */
	uint32_t shapes;      /* usmp_shape bits where it is expected to gain */
	const char *name;     /* the algorithm's name */
	const char *knobs;    /* "key=value" it runs with on top of its
	                         defaults; "" for none */
	double cost;          /* one run as a multiple of first_fit's time; 0 for
	                         a search member (it gets the time left) or a
	                         volunteer that declares none */
} usmp_member_info;

/* auto's member count (0 for NULL), and member i (0 <= i < count): copies
 * at most info->struct_size bytes; the strings are owned by the registry and
 * live as long as it does.
 * Thread-safe: yes, concurrently with any call that does not change r.
 * Returns: the count; USMP_OK, USMP_ERR_INVALID for NULL arguments or a
 * struct_size below 4, USMP_ERR_NOT_FOUND for i past the count. */
USMP_API uint32_t usmp_registry_member_count(const usmp_registry *r);
USMP_API int usmp_registry_member(const usmp_registry *r, uint32_t i,
                                  usmp_member_info *info);

/* ------------------------------------------------------------------------ */
/* Per-target algorithm selection                                           */
/* ------------------------------------------------------------------------ */

/* Where a selection rule came from, highest priority first. */
enum usmp_rule_source {
	USMP_SOURCE_API = 1,     /* usmp_registry_bind */
	USMP_SOURCE_OPTIONS = 2, /* usmp_plan_options.algorithm (the CLI's -a) */
	USMP_SOURCE_ENV = 3,     /* USMP_ALGORITHM */
	USMP_SOURCE_DEFAULT = 4  /* the built-in default, "auto" */
};

/* Bind targets matching the glob `pattern` ("ethos-u*", "*") to an algorithm
 * with knob values given as "key=value" strings (copied). Rules are tried in
 * the order bound. Unknown algorithms and knobs, and values that do not
 * parse as the knob's type, are refused here, with a message naming the rule
 * (usmp_registry_error); what a `str` knob may hold ("order=sise") is
 * checked by its algorithm when it runs, so usmp_plan_compute fails then
 * with USMP_ERR_INVALID naming the value and the rule.
 * Thread-safe: no: no other call on `r` may run concurrently (see
 * Conventions).
 * Returns: USMP_OK; USMP_ERR_INVALID (empty pattern or algorithm, bad knob
 * or value); USMP_ERR_NOT_FOUND (no such algorithm or knob);
 * USMP_ERR_PLUGIN (the algorithm's plugin was refused at load);
 * USMP_ERR_NOMEM. */
USMP_API int usmp_registry_bind(usmp_registry *r, const char *pattern,
                                const char *algorithm,
                                const char *const *params, uint32_t param_count);

/* Parse and bind a rule list in USMP_ALGORITHM syntax:
 * "pattern=algo[:key=value[:key=value...]][;...]". All or nothing: a list
 * with one bad rule binds none. Empty rules (blank, or between ";;", or
 * before a leading or after a trailing ';') are ignored, as in
 * USMP_ALGORITHM (docs/registry.md): "" or ";" binds nothing and returns
 * USMP_OK.
 * Thread-safe: no: like usmp_registry_bind.
 * Returns: USMP_OK; USMP_ERR_INVALID; USMP_ERR_NOT_FOUND; USMP_ERR_PLUGIN;
 * USMP_ERR_NOMEM (as usmp_registry_bind). */
USMP_API int usmp_registry_bind_rules(usmp_registry *r, const char *rules);

/* Drop every rule bound through the API.
 * Thread-safe: no: like usmp_registry_bind.
 * Returns: nothing. */
USMP_API void usmp_registry_clear_bindings(usmp_registry *r);

/* What a target would get, and why. Strings owned by the registry, valid
 * until the next bind/clear. */
typedef struct usmp_selection {
	uint32_t struct_size; /* set by the caller */
	uint32_t source;      /* usmp_rule_source */
	const char *algorithm;
	const char *params;   /* knob values as "k=v k=v", "" when defaults */
	const char *rule;     /* the rule's text, e.g. "ethos-u*=exact:time_limit=2" */
} usmp_selection;

/* Resolve `target` ("" or NULL for the untargeted part) against the rules.
 * `override` is an algorithm spec in rule syntax without the pattern
 * ("best_fit:order=area"), or NULL.
 * Thread-safe: yes, with each other and usmp_plan_compute; not with
 * bind/clear.
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL out, struct_size not set, a
 * broken rule or override); USMP_ERR_NOT_FOUND (unknown algorithm or
 * knob); USMP_ERR_PLUGIN (its plugin was refused); USMP_ERR_NOMEM. */
USMP_API int usmp_registry_select(usmp_registry *r, const char *target,
                                  const char *override, usmp_selection *out);

/* What a part would get: `targets` are the targets its pools name (none:
 * the untargeted part), `pools` the names of its pools. Pool rules
 * ("@dram=best_fit") come first, then the first target rule whose glob
 * matches every target (docs/registry.md, "Selection rules").
 * Thread-safe: yes, like usmp_registry_select.
 * Returns: USMP_OK; USMP_ERR_INVALID; USMP_ERR_NOT_FOUND; USMP_ERR_PLUGIN;
 * USMP_ERR_NOMEM (as usmp_registry_select). */
USMP_API int usmp_registry_select_part(usmp_registry *r,
                                       const char *const *targets,
                                       uint32_t target_count,
                                       const char *const *pools,
                                       uint32_t pool_count,
                                       const char *override,
                                       usmp_selection *out);

/* ------------------------------------------------------------------------ */
/* Plans                                                                     */
/* ------------------------------------------------------------------------ */

/* A plan, or a failed call's status and message: the caller's from
 * usmp_plan_compute or usmp_plan_read (which set it also on failure) to
 * usmp_plan_destroy, independent of the registry and the problem (it
 * points into neither). One thread at a time, but the read-only queries
 * (placements, sizes, parts, infeasibility) may run concurrently. */
typedef struct usmp_plan usmp_plan;

/* usmp_plan_options.flags: at most one of the two. Other bits (a
 * usmp_registry_flag, a flag of a later minor) and both together are
 * refused by usmp_plan_compute (USMP_ERR_INVALID naming them). */
enum usmp_plan_flag {
	USMP_PLAN_ISOLATE = 1u << 0,   /* run plugin calls in a child process */
	USMP_PLAN_NO_ISOLATE = 1u << 1 /* never isolate (overrides the default) */
};

/* The budget of a usmp_plan_compute call whose time_limit is 0, in seconds
 * for the whole call: auto's, and every other algorithm's. */
#define USMP_DEFAULT_TIME_LIMIT_AUTO 1.0
#define USMP_DEFAULT_TIME_LIMIT 10.0

/* Options for one usmp_plan_compute call; zero-fill, set struct_size. */
typedef struct usmp_plan_options {
	uint32_t struct_size; /* sizeof(usmp_plan_options) */
	uint32_t flags;       /* usmp_plan_flag bits */
	/* Algorithm for every part that no API binding (usmp_registry_bind)
	 * covers, taking precedence over USMP_ALGORITHM and the default; rule
	 * syntax without the pattern ("first_fit:order=area"), or NULL. */
	const char *algorithm;
	/* Knob values "key=value" for that algorithm, on top of the spec's. */
	const char *const *params;
	uint32_t param_count;
	uint32_t reserved;
	/* The target assumed for parts whose pools name no target (the CLI's
	 * -t); NULL = none. Parts whose pools name targets use their own. */
	const char *target;
	/* Wall-clock budget for the whole call in seconds, verifying included
	 * (parts share it by buffer count); 0 = the default budget
	 * (USMP_DEFAULT_TIME_LIMIT_AUTO for auto, stretched on parts whose
	 * first plan alone takes longer; USMP_DEFAULT_TIME_LIMIT for any other
	 * algorithm, or its own time_limit knob when longer; see
	 * docs/algorithms.md, "Time budget"); INFINITY = no limit (an isolated
	 * call is then killed after 600 s, docs/abi.md "Isolation"). A value
	 * set here is kept, except that auto always finishes its first plan. */
	double time_limit;
	/* When non-NULL and set to non-zero by another thread, the call stops
	 * as soon as the algorithm checks should_stop() (the shipped
	 * algorithms look every few milliseconds): an anytime algorithm
	 * returns its best plan (USMP_OK, usmp_plan_part_limit's *stopped 1),
	 * one without a plan USMP_ERR_STOPPED. A call in a child process
	 * (USMP_PLAN_ISOLATE, a plugin from outside the shipped directory, or
	 * auto beside one) is stopped alike: the watcher passes the flag on,
	 * and a child still running a grace after it (1 s without a time
	 * limit; docs/abi.md, "Isolation") is killed, USMP_ERR_STOPPED naming
	 * the algorithm. Read, never written, by the library, with an atomic
	 * load: set it with an atomic store (__atomic_store_n(&flag, 1,
	 * __ATOMIC_RELAXED)) and there is no data race. It must stay
	 * valid until the call returns; clear it before the next call. */
	const volatile int *cancel;
	/* Appended (set struct_size to sizeof(usmp_plan_options) to use it):
	 * when non-NULL, the log function set on the registry
	 * (usmp_registry_set_log) gets this as its `ctx` for the messages of
	 * this call, in place of the registry's: threads sharing one registry
	 * each pass their own (the target or compilation unit they plan), so
	 * every line reaches the right log. Ignored without a log function. */
	void *log_ctx;
} usmp_plan_options;

/* Plan problem `p`. Always sets *out (unless out of memory) to a plan whose
 * usmp_plan_status is the return value; on failure usmp_plan_error says why.
 * A returned USMP_OK plan has passed the verifier. `opts` may be NULL; it
 * and the strings and `cancel` it points to are read during the call only.
 * The plan is the caller's (usmp_plan_destroy, also after a failure) and
 * points into neither `r` nor `p`: destroy the three in any order.
 * Prepares `p` (see usmp_problem_prepare_group_count) unless it already is.
 * Thread-safe: yes with respect to `r` (many threads may plan with one
 * registry), not with bind/clear/set_log on `r`; `p` is used by one
 * thread at a time and must not change during the call.
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL argument, opts->struct_size
 * not set (below 4), negative time limit, flags unknown or both isolation
 * flags, param_count with NULL params, bad problem, bad knob);
 * USMP_ERR_INFEASIBLE; USMP_ERR_STOPPED;
 * USMP_ERR_UNSUPPORTED (the algorithm lacks a capability the problem
 * needs); USMP_ERR_NOT_FOUND (unknown algorithm); USMP_ERR_PLUGIN (a plugin
 * crashed, hung, broke its contract or returned a plan the verifier
 * refused, or a status outside enum usmp_status); USMP_ERR_NOMEM;
 * USMP_ERR_INTERNAL; or another usmp_status a plugin algorithm returned. */
USMP_API int usmp_plan_compute(usmp_registry *r, usmp_problem *p,
                               const usmp_plan_options *opts, usmp_plan **out);

/* Read a plan file (JSON or CSV) for problem `p`, e.g. to verify it. Sets
 * *out like usmp_plan_compute (NULL only when out of memory or `out` or `p`
 * is NULL). Prepares `p`. The file's claims (a part's size, bounds,
 * "optimal") are not taken: its parts get the library's figures, and a
 * claim the library cannot check is dropped; one the placements disprove
 * makes usmp_plan_verify fail (docs/formats.md, "What a plan file
 * claims"). When it succeeds having dropped claims, usmp_plan_error holds
 * a note naming the file, the first such claim and how many more ("" when
 * none). Does not verify the placements.
 * Thread-safe: no: one thread at a time per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no path, unknown format, malformed
 * file, a plan not for this problem); USMP_ERR_IO; USMP_ERR_NOMEM. */
USMP_API int usmp_plan_read(usmp_problem *p, const char *path, int format,
                            usmp_plan **out);

/* Free a plan. Accepts NULL.
 * Thread-safe: no: nothing else may use `plan` during or after the call.
 * Returns: nothing. */
USMP_API void usmp_plan_destroy(usmp_plan *plan);

/* Status and message of the plan: of the call that made it
 * (usmp_plan_compute, usmp_plan_read) or of the latest usmp_plan_verify or
 * usmp_plan_simulate of it ("" when that succeeded). A write
 * (usmp_plan_write, usmp_plan_write_svg) that fails puts its own status
 * and message here (USMP_ERR_IO: "out/plan.json: cannot open for writing:
 * ...") until the next write, verify or simulate of the plan; the next
 * write that succeeds puts back what the plan had before, and one that
 * succeeds after none failed changes neither. The read-only calls
 * (placements, sizes, parts) change neither and answer as before a failed
 * write: its status says the file was not written, not that the plan is
 * gone, so a host that checks the status after writing keeps the status
 * usmp_plan_compute returned to judge the plan.
 * Thread-safe: no: one thread at a time per plan.
 * Returns: the status (USMP_ERR_INVALID for a NULL plan); the message,
 * never NULL ("" when none), valid until the next call on `plan`. */
USMP_API int usmp_plan_status(const usmp_plan *plan);
USMP_API const char *usmp_plan_error(const usmp_plan *plan);

/* Verify `plan` against `p` independently of any algorithm; the first
 * violation goes to usmp_plan_error (it names the buffers involved).
 * Prepares `p`.
 * Thread-safe: no: one thread at a time per plan and per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID_PLAN (a violation, a plan for
 * another problem or for `p` before it gained buffers or pools ("the
 * problem changed after this plan was made: ...: plan it again"), or
 * valid placements read from a file with a claim they
 * disprove: "false claim in FILE: parts[0].proven_bound: ...", see
 * docs/formats.md, "What a plan file claims"); USMP_ERR_INVALID (NULL
 * argument, a problem that fails its checks); USMP_ERR_NOMEM. */
USMP_API int usmp_plan_verify(usmp_plan *plan, usmp_problem *p);

/* Execute `plan` (independently of the verifier): lay every buffer into real pool
 * memory at its offset and replay the schedule step by step, every byte
 * recording the buffer that wrote it (a dst of an overlap rule written byte
 * by byte over its src, as the rule defines); writing over a byte still
 * needed by a live buffer is an error, reported on usmp_plan_error naming
 * the buffer and byte overwritten and the writer. Buffers without a live
 * range are not replayed. Allocates four bytes per pool byte.
 * Thread-safe: no: one thread at a time per plan and per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID_PLAN (an overwrite, an unplaced
 * buffer, a buffer past its pool's size limit, a plan for another
 * problem); USMP_ERR_INVALID (NULL argument, pools above 512 MiB in all,
 * live buffers whose sizes sum past 4 GiB: the bytes it would write);
 * USMP_ERR_NOMEM. */
USMP_API int usmp_plan_simulate(usmp_plan *plan, usmp_problem *p);

/* Placement of buffer b: pool index and offset (either pointer may be
 * NULL; USMP_NO_POOL and 0 when not found). A failed plan places no
 * buffer: not those of parts usmp_plan_compute planned before the part
 * that failed (usmp_plan_part still lists those parts), nor those of a
 * file usmp_plan_read refused half-way.
 * Thread-safe: yes with other read-only calls on `plan`.
 * Returns: USMP_OK; USMP_ERR_NOT_FOUND (b has no pool in this plan: a
 * failed plan); USMP_ERR_INVALID (NULL plan, b out of range, e.g. a
 * buffer added to the problem after the plan was made). */
USMP_API int usmp_plan_placement(const usmp_plan *plan, uint32_t b,
                                 uint32_t *pool, uint64_t *offset);

/* A pool's high-water mark (max offset + size over its buffers) in the plan.
 * Thread-safe: yes with other read-only calls on `plan`.
 * Returns: the size in bytes; 0 for a pool no buffer uses, for every pool
 * of a failed plan, a NULL plan or an out-of-range pool. */
USMP_API uint64_t usmp_plan_pool_size(const usmp_plan *plan, uint32_t pool);

/* Independent parts the problem was split into, and how each was planned. */
typedef struct usmp_part_info {
	uint32_t struct_size; /* set by the caller */
	uint32_t buffer_count;
	uint32_t optimal;     /* 1 when proven optimal (read from a file: when
	                         the file says so and size == lower_bound) */
	uint32_t group;       /* the bound group (usmp_problem_prepare_group_bound) */
	const char *target;    /* "" when none; "npu,cpu" when its pools name several */
	const char *algorithm; /* the algorithm that produced it ("auto/best_fit") */
	const char *params;    /* knob values used, "k=v k=v" */
	uint64_t size;         /* sum of the part's pool high-water marks
	                          (read from a file: recomputed, as every
	                          figure here; docs/formats.md) */
	uint64_t lower_bound;
	uint64_t proven_bound; /* best bound proven (>= lower_bound; read from
	                          a file: lower_bound, the file's is dropped) */
	double time_ms;
	const char *rule;      /* the selection rule that chose the algorithm
	                          ("" for a plan read from a file) */
	uint32_t source;       /* usmp_rule_source of that rule; 0 for a plan
	                          read from a file (no rule chose it; Python
	                          shows "file") */
	uint32_t reserved;
	/* Appended (set struct_size to sizeof(usmp_part_info) to get them):
	 * the part's spill (docs/design.md, "Several pools: the objective"),
	 * the bytes of its buffers placed outside their first candidate pool
	 * (for a plan read from a file, of the buffers of the part's group). */
	uint64_t spill;
	uint32_t spill_count;   /* how many buffers those are */
	uint32_t spill_largest; /* the largest of them (a problem buffer index,
	                           the first of equals); UINT32_MAX when none */
	/* The part of `spill` no plan avoids: buffers larger than their first
	 * candidate pool's size limit, or fixed in another pool. */
	uint64_t spill_forced;
	/* The part's overlap rules its algorithm planned as plain conflicts
	 * (it lacks USMP_CAP_OVERLAP_RULES; auto's members are not counted);
	 * 0 when it honours them, or for a plan read from a file. */
	uint64_t rules_as_conflicts;
	/* The algorithm that made the part run over its time limit, as
	 * overrun_cause says: with USMP_OVERRUN_STOPPED a volunteer auto ran
	 * (USMP_CAP_PORTFOLIO) that did not return by the deadline plus the
	 * member grace, killed by the watcher of its isolated call (docs/abi.md,
	 * "Isolation"); with USMP_OVERRUN_LATE a member of auto (one of its
	 * own or a volunteer) that returned past the deadline and took most of
	 * the time past it. "" for every other cause. */
	const char *overrun_by;
	/* Why the part ran over its time limit (usmp_overrun_cause), as auto
	 * saw it; USMP_OVERRUN_NONE when it did not (at auto's return), and
	 * for every algorithm other than auto (its one call is its first
	 * plan, which is always finished). */
	uint32_t overrun_cause;
	uint32_t reserved2; /* 0 */
	/* Appended in ABI 1.3: the part's spill floor, bytes no valid plan of the part
	 * spills less than (docs/design.md, "Several pools: the objective"):
	 * spill_forced's buffers, plus per pool with a size limit what the
	 * buffers preferring it must move out when too many are alive
	 * together; computed by the library from the problem alone, then raised
	 * to the plan's spill when an exact search (exact, or auto's exact
	 * member) proved its plan, which proves that spill the least. When
	 * `spill` equals it the part's spill is the least possible (for a
	 * plan read from a file, computed on the buffers of its group). */
	uint64_t spill_floor;
} usmp_part_info;

/* usmp_part_info.overrun_cause: why auto ended past its deadline. The
 * cause is what took most of the time past it. */
enum usmp_overrun_cause {
	USMP_OVERRUN_NONE = 0,       /* on time (or not auto) */
	USMP_OVERRUN_FIRST_PLAN = 1, /* its first plan, always finished */
	USMP_OVERRUN_STOPPED = 2,    /* overrun_by was killed past the grace */
	USMP_OVERRUN_LATE = 3,       /* overrun_by returned past the deadline */
	USMP_OVERRUN_UNKNOWN = 4     /* none of those took most of the time */
};

/* The parts; usmp_plan_part copies at most info->struct_size bytes, with
 * strings owned by the plan. i is 0-based; a message's "(part N: ...)"
 * is index N - 1. A failed usmp_plan_compute lists the parts planned
 * before the one that failed, with their figures, then that part (its
 * buffer_count and group; figures it did not reach are "" or 0), and none
 * after it.
 * Thread-safe: yes with other read-only calls on `plan`.
 * Returns: the count (0 for NULL); USMP_OK; USMP_ERR_INVALID (NULL
 * argument, i out of range, struct_size below 4). */
USMP_API uint32_t usmp_plan_part_count(const usmp_plan *plan);
USMP_API int usmp_plan_part(const usmp_plan *plan, uint32_t i,
                            usmp_part_info *info);
/* Part i's time budget: *limit, the seconds from the start of the call it
 * worked to (the caller's time limit or the default; 0 = none), and
 * *stopped, 1 when its algorithm was told to stop (the budget ran out, or
 * a cancel) before it returned: its plan is then the best it had found and
 * its proven_bound what it had proven by then. Either pointer may be NULL.
 * Thread-safe: yes with other read-only calls on `plan`.
 * Returns: USMP_OK; USMP_ERR_INVALID (NULL plan, i out of range). */
USMP_API int usmp_plan_part_limit(const usmp_plan *plan, uint32_t i,
                                  double *limit, int *stopped);

/* Why a plan is infeasible (docs/hosts.md, "Why my model does not fit").
 *
 * Every USMP_ERR_INFEASIBLE plan from usmp_plan_compute carries one, from
 * whichever algorithm failed (auto, exact, first_fit, a plugin). Its
 * certificate is computed by the library from the problem alone, so it is
 * the same whoever failed: a proof that no valid plan exists (kinds STEP,
 * BUFFER, FIXED, BOUND), the exact search's own proof (SEARCH), or the
 * honest statement that there is none (UNPROVEN: the algorithm found no
 * plan, the lower bound fits, so a plan may exist). */
enum usmp_infeasibility_kind {
	/* No certificate: the algorithm found no plan, but the lower bound
	 * fits the limit, so a plan may exist (try exact, a longer limit). */
	USMP_INFEASIBLE_UNPROVEN = 1,
	/* At time `step` the buffers live there that may use only `pools`
	 * hold `total` bytes (less what overlap rules could share), more than
	 * the pools' `limit`. buffers[]: those buffers, largest first. */
	USMP_INFEASIBLE_STEP = 2,
	/* buffers[0] (`total` bytes) is larger than every pool it may use;
	 * `pool`/`limit`: the largest of them. */
	USMP_INFEASIBLE_BUFFER = 3,
	/* Fixed placements clash: buffers[0] and buffers[1], both fixed in
	 * `pool`, overlap while they conflict. */
	USMP_INFEASIBLE_FIXED = 4,
	/* The lower bound of the group (`bound`, e.g. two buffers joined by a
	 * conflict edge) exceeds the combined `limit` of its `pools`. */
	USMP_INFEASIBLE_BOUND = 5,
	/* The exact search (an algorithm with USMP_CAP_EXACT on a part whose
	 * overlap rules, if any, it honours) proved that no placement fits,
	 * although the lower bound does. */
	USMP_INFEASIBLE_SEARCH = 6
};

/* usmp_plan_infeasibility's answer; zero-fill, then set struct_size.
 * Indices are the problem's (usmp_problem_pool_name, _buffer_name). */
typedef struct usmp_infeasibility {
	uint32_t struct_size; /* set by the caller to sizeof(usmp_infeasibility) */
	uint32_t kind;        /* usmp_infeasibility_kind */
	uint32_t pool;  /* the pool that does not fit; USMP_NO_POOL when the
	                   certificate is about several (see pools) */
	uint32_t group; /* the bound group of the part that failed */
	uint64_t limit; /* the pool's size limit, or the sum of pools' limits;
	                   USMP_UNBOUNDED when one is unbounded or the sum
	                   passes 2^64 - 1 (the message says it exactly) */
	uint64_t bound; /* the group's lower bound (usmp_problem_prepare_group_bound) */
	int64_t step;   /* STEP: the time step; 0 otherwise */
	uint64_t total; /* STEP: bytes live at step; BUFFER: the buffer's size */
	uint32_t buffer_count;
	uint32_t pool_count;
	const uint32_t *buffers; /* [buffer_count], by kind (see above) */
	const uint32_t *pools;   /* [pool_count] the pools `limit` sums */
	/* Spill advice (STEP or BUFFER with a `pool`): moving buffer
	 * move_buffers[i] into pool move_pools[i] (a pool it does not list,
	 * sharing a target with `pool`, with room at every step of its live
	 * range) for every i brings every step of `pool` under its limit.
	 * move_count 0: no advice (no pool has room, or more than 32 moves
	 * would be needed). docs/hosts.md, "Why my model does not fit". */
	uint32_t move_count;
	uint32_t reserved;
	const uint32_t *move_buffers; /* [move_count] */
	const uint32_t *move_pools;   /* [move_count] */
	const char *algorithm;        /* the algorithm that found no plan */
} usmp_infeasibility;

/* The infeasibility of a plan whose status is USMP_ERR_INFEASIBLE: copies
 * at most out->struct_size bytes (callers built against older headers keep
 * working). Arrays and strings are owned by the plan and valid until
 * usmp_plan_destroy.
 * Thread-safe: yes, on one plan from several threads while none changes it.
 * Returns: USMP_OK; USMP_ERR_NOT_FOUND when the plan is not infeasible (any
 * other status, or a plan read from a file); USMP_ERR_INVALID for NULL
 * arguments or a struct_size below 8. */
USMP_API int usmp_plan_infeasibility(const usmp_plan *plan,
                                     usmp_infeasibility *out);

/* Write the plan as JSON or CSV (the problem's columns plus offset) to
 * `path` ("-" for stdout), atomically as said under "Output files" above:
 * a failure leaves `path` as it was. Only a complete plan can be written.
 * Thread-safe: no: one thread at a time per plan and per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID (no path, unknown format, incomplete
 * plan, a plan for another problem, a name that is not UTF-8 or a figure
 * past 2^63 - 1 for JSON); USMP_ERR_UNSUPPORTED (CSV cannot hold it);
 * USMP_ERR_IO; USMP_ERR_NOMEM. A refusal of what the plan holds says
 * "writing PATH: " ("<stdout>" for "-"), then the record and field. */
USMP_API int usmp_plan_write(usmp_plan *plan, usmp_problem *p, const char *path,
                             int format);

/* Draw the plan as SVG: time across, address up, one panel per pool, the
 * lower bound as a line. Written like usmp_plan_write ("Output files").
 * Thread-safe: no: one thread at a time per plan and per problem.
 * Returns: USMP_OK; USMP_ERR_INVALID; USMP_ERR_IO; USMP_ERR_NOMEM. */
USMP_API int usmp_plan_write_svg(usmp_plan *plan, usmp_problem *p,
                                 const char *path);

/* ------------------------------------------------------------------------ */
/* Every entry point, for a host that dlopen()s libusmp                      */
/* ------------------------------------------------------------------------ */

/* X(name) once for each function of this header, in its order, but the
 * three deprecated usmp_problem_group_count, _group_bound and _pool_group.
 * A library whose usmp_abi_version is 1.2 exports every one; a function a
 * later minor adds goes into a list of its own (USMP_FUNCTIONS_1_3 below),
 * so resolving this list never fails against a 1.2 library or a newer 1.x.
 * docs/hosts.md, "Loading libusmp at run time", builds a table of typed
 * function pointers from it:
 *
 *     struct usmp_api {
 *     #define FIELD(fn) __typeof__(&fn) fn;    (C++: decltype(&::fn) fn;)
 *         USMP_FUNCTIONS_1_2(FIELD)
 *     #undef FIELD
 *     };
 *
 * In C++ the name inside decltype is qualified (&::fn): a member named
 * like the function it was declared from is refused by GCC ("declaration
 * changes meaning of 'usmp_version'") when written decltype(&fn) fn.
 */
#define USMP_FUNCTIONS_1_2(X) \
	X(usmp_version)                                      \
	X(usmp_abi_version)                                  \
	X(usmp_status_name)                                  \
	X(usmp_problem_create)                               \
	X(usmp_problem_destroy)                              \
	X(usmp_problem_error)                                \
	X(usmp_problem_add_pool)                             \
	X(usmp_problem_add_pool_target)                      \
	X(usmp_problem_add_buffer)                           \
	X(usmp_problem_set_live)                             \
	X(usmp_problem_add_candidate)                        \
	X(usmp_problem_set_fixed)                            \
	X(usmp_problem_add_conflict)                         \
	X(usmp_problem_add_overlap)                          \
	X(usmp_problem_pool_count)                           \
	X(usmp_problem_buffer_count)                         \
	X(usmp_problem_pool_name)                            \
	X(usmp_problem_buffer_name)                          \
	X(usmp_problem_find_pool)                            \
	X(usmp_problem_find_buffer)                          \
	X(usmp_problem_read)                                 \
	X(usmp_problem_parse)                                \
	X(usmp_problem_write)                                \
	X(usmp_problem_prepare_group_count)                  \
	X(usmp_problem_prepare_group_bound)                  \
	X(usmp_problem_prepare_pool_group)                   \
	X(usmp_registry_create)                              \
	X(usmp_registry_destroy)                             \
	X(usmp_registry_error)                               \
	X(usmp_registry_set_log)                             \
	X(usmp_registry_diagnostic_count)                    \
	X(usmp_registry_diagnostic)                          \
	X(usmp_registry_diagnostic_kind)                     \
	X(usmp_registry_plugin_count)                        \
	X(usmp_registry_plugin)                              \
	X(usmp_registry_algorithm_count)                     \
	X(usmp_registry_algorithm)                           \
	X(usmp_registry_find_algorithm)                      \
	X(usmp_registry_param)                               \
	X(usmp_registry_member_count)                        \
	X(usmp_registry_member)                              \
	X(usmp_registry_bind)                                \
	X(usmp_registry_bind_rules)                          \
	X(usmp_registry_clear_bindings)                      \
	X(usmp_registry_select)                              \
	X(usmp_registry_select_part)                         \
	X(usmp_plan_compute)                                 \
	X(usmp_plan_read)                                    \
	X(usmp_plan_destroy)                                 \
	X(usmp_plan_status)                                  \
	X(usmp_plan_error)                                   \
	X(usmp_plan_verify)                                  \
	X(usmp_plan_simulate)                                \
	X(usmp_plan_placement)                               \
	X(usmp_plan_pool_size)                               \
	X(usmp_plan_part_count)                              \
	X(usmp_plan_part)                                    \
	X(usmp_plan_part_limit)                              \
	X(usmp_plan_infeasibility)                           \
	X(usmp_plan_write)                                   \
	X(usmp_plan_write_svg)

/* X(name) once for each function ABI 1.3 added (reading a problem back),
 * in this header's order. Resolve them only from a library whose
 * usmp_abi_version is 1.3 or newer; a host that must also run with a 1.2
 * library resolves USMP_FUNCTIONS_1_2 alone there and does without these. */
#define USMP_FUNCTIONS_1_3(X) \
	X(usmp_problem_pool_info)                            \
	X(usmp_problem_buffer_info)                          \
	X(usmp_problem_pool_target)                          \
	X(usmp_problem_buffer_candidate)                     \
	X(usmp_problem_conflict_count)                       \
	X(usmp_problem_conflict)                             \
	X(usmp_problem_overlap_count)                        \
	X(usmp_problem_overlap)

#ifdef __cplusplus
}
#endif
#endif /* USMP_USMP_H */
