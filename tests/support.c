/* support.c — helpers shared by the Criterion suites (see support.h).
 * Kept free of Criterion so any test program can use it. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

const char *test_source_root(void) { return env_or("USMP_SOURCE_ROOT", "."); }
const char *test_build_root(void) { return env_or("USMP_BUILD_ROOT", "build"); }
const char *test_fixture_plugindir(void)
{
	return env_or("USMP_TEST_PLUGINDIR", "build/tests/plugins");
}
const char *test_cli(void) { return env_or("USMP_CLI", "build/src/cli/usmp"); }

char *test_tmpfile(const char *suffix)
{
	char tmpl[] = "/tmp/usmp-test-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	close(fd);
	unlink(tmpl);
	size_t n = strlen(tmpl) + strlen(suffix ? suffix : "") + 1;
	char *path = malloc(n);
	if (path)
		snprintf(path, n, "%s%s", tmpl, suffix ? suffix : "");
	return path;
}

char *test_write_tmp(const char *suffix, const char *text)
{
	char *path = test_tmpfile(suffix);
	if (!path)
		return NULL;
	FILE *f = fopen(path, "wb");
	if (!f) {
		free(path);
		return NULL;
	}
	fputs(text, f);
	fclose(f);
	return path;
}

void test_keep_log_lines(void *ctx, int level, const char *algorithm,
                         const char *message)
{
	char *buf = ctx;
	size_t used = strlen(buf);
	snprintf(buf + used, TEST_LOG_LINES - used, "%d %s: %s\n", level,
	         algorithm, message);
}

char *test_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len - 1 == 0) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

int test_python(const char *script, int plugins, char **out)
{
	/* python3 is not built with the sanitizers' runtime, which must come
	 * first in a process that loads a sanitized libusmp */
	const char *san = getenv("USMP_TEST_SANITIZE");
	if (san && *san && strcmp(san, "none"))
		cr_skip_test("the Python interpreter cannot load a sanitized libusmp");
	char *path = test_write_tmp(".py", script);
	char *dir = plugins ? test_fmt("%s/plugins", test_build_root())
	                    : test_fmt("%s", "");
	char *cmd = test_fmt("cd '%s/python' && PYTHONDONTWRITEBYTECODE=1 "
	                     "PYTHONPATH='%s/python' USMP_LIBRARY='%s/src/"
	                     "libusmp.so.1' USMP_PLUGIN_PATH='%s' "
	                     "USMP_ALGORITHM= python3 '%s'",
	                     test_source_root(), test_source_root(),
	                     test_build_root(), dir, path);
	int st = test_run(cmd, out);
	remove(path);
	free(path);
	free(dir);
	free(cmd);
	return st;
}

int test_run(const char *cmd, char **out)
{
	char *full = malloc(strlen(cmd) + 16);
	if (!full)
		return -1;
	sprintf(full, "(%s) 2>&1", cmd);
	FILE *p = popen(full, "r");
	free(full);
	if (!p)
		return -1;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	char chunk[4096];
	while ((got = fread(chunk, 1, sizeof chunk, p)) > 0) {
		if (buf && len + got + 1 > cap) {
			while (len + got + 1 > cap)
				cap *= 2;
			char *bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				buf = NULL;
			} else {
				buf = bigger;
			}
		}
		if (buf) {
			memcpy(buf + len, chunk, got);
			len += got;
		}
	}
	if (buf)
		buf[len] = '\0';
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int test_usmp(char **out, const char *fmt, ...)
{
	char args[4096], cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' %s",
	         test_cli(), args);
	return test_run(cmd, out);
}

char *test_fresh_dir(const char *tag)
{
	char tmpl[256];
	snprintf(tmpl, sizeof tmpl, "/tmp/usmp-%s-XXXXXX", tag);
	char *dir = strdup(tmpl);
	cr_assert_not_null(dir);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
	return dir;
}

char *test_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	cr_assert_not_null(path);
	snprintf(path, n, "%s/%s", dir, name);
	return path;
}

void test_write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

void test_write_in(const char *dir, const char *name, const void *data,
                   size_t len)
{
	char *path = test_join(dir, name);
	test_write_bytes(path, data, len);
	free(path);
}

uint64_t test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t test_rand_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + test_rand(s) % (hi - lo + 1);
}

int test_chance(uint64_t *s, int percent)
{
	return (int)test_rand_range(s, 0, 99) < percent;
}

uint64_t test_env_u64(const char *name, uint64_t fallback, int *random)
{
	const char *v = getenv(name);
	if (random)
		*random = 0;
	if (!v || !*v)
		return fallback;
	if (random && strcmp(v, "random") == 0) {
		*random = 1;
		return (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	}
	return strtoull(v, NULL, 0);
}

void test_add_pools(usmp_problem *p, const char *prefix, uint32_t count,
                    const uint64_t *limit, const uint64_t *align)
{
	char name[64];
	for (uint32_t q = 0; q < count; q++) {
		snprintf(name, sizeof name, "%s%u", prefix, q);
		cr_assert_eq(usmp_problem_add_pool(p, name, limit[q], align[q], NULL),
		             USMP_OK, "%s", usmp_problem_error(p));
	}
}

void test_add_buffer(usmp_problem *p, uint32_t i, const test_buffer *b)
{
	char name[32];
	uint32_t id;
	snprintf(name, sizeof name, "b%u", i);
	cr_assert_eq(usmp_problem_add_buffer(p, name, b->size, b->align, &id),
	             USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(id, i);
	if (b->live)
		cr_assert_eq(usmp_problem_set_live(p, i, b->begin, b->end), USMP_OK,
		             "%s", usmp_problem_error(p));
	for (uint32_t j = 0; j < b->ncand; j++)
		cr_assert_eq(usmp_problem_add_candidate(p, i, b->cand[j]), USMP_OK,
		             "%s", usmp_problem_error(p));
	if (b->fixed)
		cr_assert_eq(usmp_problem_set_fixed(p, i, b->fixed_pool,
		                                    b->fixed_offset),
		             USMP_OK, "%s", usmp_problem_error(p));
}

const char *test_save_case(usmp_problem *p, const char *name, uint64_t seed,
                           uint64_t c)
{
	static char path[256];
	snprintf(path, sizeof path, "/tmp/usmp-%s-%" PRIu64 "-%" PRIu64 ".json",
	         name, seed, c);
	if (usmp_problem_write(p, path, USMP_FORMAT_JSON) != USMP_OK)
		return "(could not write it)";
	return path;
}

usmp_registry *test_registry_any(const char *plugin_path)
{
	usmp_registry_options o = {
		.struct_size = sizeof o,
		.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS,
		.plugin_path = plugin_path,
	};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	return r;
}

usmp_registry *test_registry(const char *plugin_path)
{
	char dir[4096];
	if (!plugin_path) {
		snprintf(dir, sizeof dir, "%s/plugins", test_build_root());
		plugin_path = dir;
	}
	usmp_registry *r = test_registry_any(plugin_path);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 0, "%s: %s", plugin_path,
	             usmp_registry_diagnostic(r, 0));
	return r;
}

usmp_problem *test_parse_json(const char *json, const char *name)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_parse(p, json, strlen(json), name,
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	return p;
}

char *test_fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *s = malloc((size_t)n + 1);
	cr_assert_not_null(s);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

/* The text between `start` (included) and the next "```" line of README.md
 * (caller frees). */
char *test_readme_block(const char *start)
{
	char *path = test_join(test_source_root(), "README.md");
	char *readme = test_read_file(path);
	cr_assert_not_null(readme, "cannot read %s", path);
	char *from = strstr(readme, start);
	cr_assert_not_null(from, "README.md has no \"%s\"", start);
	char *to = strstr(from, "\n```");
	cr_assert_not_null(to, "README.md: the block at \"%s\" is not closed", start);
	char *block = test_fmt("%.*s\n", (int)(to - from), from);
	free(readme);
	free(path);
	return block;
}

char *test_usmp_ok(const char *fmt, ...)
{
	char args[4096];
	char *out = NULL;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int st = test_usmp(&out, "%s", args);
	cr_assert_eq(st, 0, "`usmp %s` exit %d: %s", args, st, out);
	cr_assert_not_null(out);
	return out;
}

usmp_plan *test_plan_ok(usmp_registry *r, usmp_problem *p,
                        const usmp_plan_options *o)
{
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, o, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	return plan;
}

usmp_part_info test_part(const usmp_plan *plan, uint32_t k)
{
	usmp_part_info pi = {.struct_size = sizeof pi};
	cr_assert_eq(usmp_plan_part(plan, k, &pi), USMP_OK, "part %u", k);
	return pi;
}

const char test_crafted_csv[] =
	"id,lower,upper,size\n"
	"v06,6,12,1\nv08,9,11,11\nv00,0,2,1\nv15,9,11,11\nv11,0,6,1\n"
	"v13,2,6,13\nv04,14,20,8\nv09,11,12,2\nv10,14,16,8\nv01,3,5,16\n"
	"v12,11,15,1\nv18,4,10,11\nv14,13,16,8\nv07,7,9,2\nv05,0,1,7\n"
	"v17,1,4,11\nv16,14,15,16\nv03,12,14,11\nv02,5,12,7\n";

usmp_problem *test_small_problem(void)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	for (int i = 0; i < 8; i++) {
		char name[16];
		uint32_t id;
		snprintf(name, sizeof name, "t%d", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64 + 16 * i, 16, &id), 0);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + 3), 0);
	}
	return p;
}

const char test_three_json[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": [0, 4]}, "
	"{\"name\": \"b\", \"size\": 8, \"live\": [0, 4]}, "
	"{\"name\": \"c\", \"size\": 8, \"live\": [0, 4]}]}";

void test_foreign_free_ignored(const char *path, const char *algo)
{
	static const uint32_t modes[] = {USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (int m = 0; m < 2; m++) {
		char lines[TEST_LOG_LINES] = "";
		usmp_registry *r = test_registry(path);
		usmp_registry_set_log(r, test_keep_log_lines, lines, USMP_LOG_WARN);
		usmp_problem *p = test_parse_json(test_three_json, "x.json");
		usmp_plan_options o = {.struct_size = sizeof o, .flags = modes[m],
		                       .algorithm = algo};
		usmp_plan *plan = test_plan_ok(r, p, &o);
		char *freed = test_fmt("0 %s: host->free() of a pointer "
		                       "host->alloc() did not return, or freed "
		                       "already; ignored\n", algo);
		char *moved = test_fmt("0 %s: host->realloc() of a pointer "
		                       "host->alloc() did not return", algo);
		cr_assert(strstr(lines, freed), "%s", lines);
		cr_assert(strstr(lines, moved), "%s", lines);
		cr_assert_null(strstr(lines, "leaked"), "%s", lines);
		free(freed);
		free(moved);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
		usmp_registry_destroy(r);
	}
}

char *test_sanitize_flag(void)
{
	const char *san = getenv("USMP_TEST_SANITIZE");
	return san && *san && strcmp(san, "none") ? test_fmt("-fsanitize=%s", san)
	                                          : test_fmt("%s", "");
}

char *test_hosts_md_loader(void)
{
	char *path = test_join(test_source_root(), "docs/hosts.md");
	char *doc = test_read_file(path);
	cr_assert_not_null(doc, "%s", path);
	char *from = strstr(doc, "\n  #include <dlfcn.h>\n");
	cr_assert_not_null(from, "no loader in %s", path);
	char *to = strstr(from, "\n  ```\n");
	cr_assert_not_null(to, "no end of the loader in %s", path);
	*to = '\0';
	char *code = test_fmt("%s", "#include <stdio.h>\n");
	for (char *line = strtok(from + 1, "\n"); line; line = strtok(NULL, "\n")) {
		char *next = test_fmt("%s%s\n", code,
		                      !strncmp(line, "  ", 2) ? line + 2 : line);
		free(code);
		code = next;
	}
	free(doc);
	free(path);
	return code;
}
