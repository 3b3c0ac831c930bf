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
/* Read a whole file (caller frees); NULL when unreadable. */
char *test_read_file(const char *path);

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

/* Run a shell command; returns its exit status (or -1), and, when `out` is
 * not NULL, its combined stdout+stderr (caller frees). */
int test_run(const char *cmd, char **out);

/* Deterministic PRNG (splitmix64) for property tests. */
uint64_t test_rand(uint64_t *state);
uint64_t test_rand_range(uint64_t *state, uint64_t lo, uint64_t hi); /* [lo, hi] */

#endif
