/* support.h — helpers shared by the Criterion suites: paths into the build
 * tree, temporary files, and small random problem generators. */
#ifndef USMP_TEST_SUPPORT_H
#define USMP_TEST_SUPPORT_H
#include <stdint.h>
#include <stddef.h>

/* Environment-provided roots (meson sets them); never NULL. */
const char *test_source_root(void);
const char *test_build_root(void);
const char *test_fixture_plugindir(void);
const char *test_cli(void);

/* A fresh temporary file path under /tmp (caller frees). */
char *test_tmpfile(const char *suffix);
/* Write `text` to a new temporary file with `suffix`; returns its path. */
char *test_write_tmp(const char *suffix, const char *text);
/* A usmp_log_fn that appends "LEVEL ALGORITHM: MESSAGE\n" to ctx, a
 * char[TEST_LOG_LINES] holding a string (cut at its end). */
#define TEST_LOG_LINES 4096
void test_keep_log_lines(void *ctx, int level, const char *algorithm,
                         const char *message);
/* Read a whole file (caller frees); NULL when unreadable. */
char *test_read_file(const char *path);
/* The text of README.md from `start` (included) to the next "```" line;
 * fails the test when there is none (caller frees). */
char *test_readme_block(const char *start);
/* A fresh directory /tmp/usmp-TAG-XXXXXX (caller frees; left for the OS to
 * clean or removed by the test). */
char *test_fresh_dir(const char *tag);
/* "DIR/NAME" (caller frees). */
char *test_join(const char *dir, const char *name);
/* Write len bytes of data to path (failing the test when it cannot). */
void test_write_bytes(const char *path, const void *data, size_t len);
/* The same, to DIR/NAME. */
void test_write_in(const char *dir, const char *name, const void *data,
                   size_t len);

/* A problem parsed from JSON text, named `name` in its messages; fails the
 * test when it does not parse. Caller destroys it. */
struct usmp_problem;
struct usmp_problem *test_parse_json(const char *json, const char *name);

/* A registry that loads only `plugin_path` (colon-separated directories or
 * .so files; NULL = the build tree's plugins/), without USMP_PLUGIN_PATH or
 * the default directories. Fails the test when it cannot be created or a
 * plugin does not load. Caller destroys it. */
struct usmp_registry;
struct usmp_registry *test_registry(const char *plugin_path);
/* The same registry of `plugin_path` (not NULL), whatever its diagnostics
 * say: for tests of the plugins it skips. Caller destroys it. */
struct usmp_registry *test_registry_any(const char *plugin_path);

/* Run a shell command; returns its exit status (or -1), and, when `out` is
 * not NULL, its combined stdout+stderr (caller frees). */
int test_run(const char *cmd, char **out);
/* Run a Python `script` with the source tree's binding on the build's
 * libusmp, the build's shipped plugins on the path when `plugins` is
 * nonzero (else none), USMP_ALGORITHM unset: as test_run. Skips the test
 * in a build under the sanitizers (python3 cannot load that libusmp). */
int test_python(const char *script, int plugins, char **out);
/* Run `usmp ARGS` (ARGS printf-formatted, shell words) without
 * USMP_PLUGIN_PATH or USMP_ALGORITHM: as test_run. */
int test_usmp(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* printf into a new string (caller frees; asserts on no memory). */
char *test_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* Deterministic PRNG (splitmix64) for property tests. */
uint64_t test_rand(uint64_t *state);
uint64_t test_rand_range(uint64_t *state, uint64_t lo, uint64_t hi); /* [lo, hi] */
/* True in `percent` of 100 draws. */
int test_chance(uint64_t *state, int percent);
/* A seed or case count from environment variable `name`: a number;
 * "random" (when `random` is not NULL: then *random is set) for one from the
 * clock and pid; `fallback` when unset or empty. */
uint64_t test_env_u64(const char *name, uint64_t fallback, int *random);
/* A heavy random sweep's size: `full` in a normal build, `full` divided by
 * TEST_SANITIZED_DIVISOR in a build under the sanitizers (tests/meson.build
 * defines USMP_TEST_SANITIZED when -Db_sanitize is set), where every plan
 * takes several times longer. The same cases and assertions run in both;
 * the normal build runs the full sweep. */
#ifdef USMP_TEST_SANITIZED
#define TEST_SANITIZED_DIVISOR 4
#else
#define TEST_SANITIZED_DIVISOR 1
#endif
#define TEST_SWEEP(full) ((full) / TEST_SANITIZED_DIVISOR)

/* ---- random problems, as the property suites build them ------------------ */

/* One buffer of a generated problem. */
typedef struct test_buffer {
	uint64_t size, align;
	int live;
	int64_t begin, end;
	uint32_t ncand;         /* candidate pools in priority order; 0: every */
	const uint32_t *cand;
	int fixed;
	uint32_t fixed_pool;
	uint64_t fixed_offset;
} test_buffer;

/* Add `count` pools named PREFIX0, PREFIX1, ... with these limits and
 * alignments to p (failing the test when one is refused). */
void test_add_pools(struct usmp_problem *p, const char *prefix, uint32_t count,
                    const uint64_t *limit, const uint64_t *align);
/* Add buffer "b<i>" as `b` describes (i: the buffers p has so far). */
void test_add_buffer(struct usmp_problem *p, uint32_t i, const test_buffer *b);
/* Write p to /tmp/usmp-NAME-SEED-CASE.json for replay with `usmp plan`:
 * the path (a static buffer), or "(could not write it)". */
const char *test_save_case(struct usmp_problem *p, const char *name,
                           uint64_t seed, uint64_t c);

/* ---- calls that must succeed; problems several suites share ------------- */

#include <usmp/usmp.h>

/* Run `usmp ARGS` as test_usmp; it must exit 0 (else the test fails with
 * the command and its output). Its output (caller frees). */
char *test_usmp_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* usmp_plan_compute(r, p, o) that must succeed (else the test fails with
 * the plan's error): the plan (caller destroys). */
struct usmp_plan;
struct usmp_plan_options;
struct usmp_plan *test_plan_ok(struct usmp_registry *r, struct usmp_problem *p,
                               const struct usmp_plan_options *o);

/* Part k of `plan` (usmp_plan_part, which must succeed). */
usmp_part_info test_part(const usmp_plan *plan, uint32_t k);

/* 19 buffers (CSV) on which every shipped heuristic stays one byte above
 * the lower bound (41: the first plan has 48 bytes), found by search; the
 * names spell an order in which first fit reaches it, which the volunteer
 * fixture (fx_oracle: first fit in name order, cost 2) knows and the
 * shipped heuristics do not: so auto runs its volunteers on it. */
extern const char test_crafted_csv[];

/* A small problem: eight buffers t0..t7 of 64 + 16 i bytes, 16-aligned,
 * live [i, i + 3), no pools declared. Caller destroys it. */
struct usmp_problem *test_small_problem(void);

/* JSON: three 8-byte buffers a, b, c, all live [0, 4), no pools declared. */
extern const char test_three_json[];

/* test_three_json planned with `algo` of the plugins at `path`, isolated
 * and in process: the plan is taken; the warnings say the algorithm's
 * host->free() and host->realloc() of a pointer host->alloc() did not
 * return were ignored, and nothing was said leaked. */
void test_foreign_free_ignored(const char *path, const char *algo);

#endif

/* "-fsanitize=LIST" when the tests run sanitized (USMP_TEST_SANITIZE), else
 * "": a program built by a test that loads the sanitized libusmp needs the
 * runtime too. Caller frees. */
char *test_sanitize_flag(void);

/* The dlopen loader of docs/hosts.md (its indented block from
 * "#include <dlfcn.h>" to the closing fence), de-indented, after
 * "#include <stdio.h>": C that defines usmp_load() and the table U.
 * Caller frees. */
char *test_hosts_md_loader(void);
