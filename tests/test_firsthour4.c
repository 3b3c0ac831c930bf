/* test_firsthour4.c — a compiler that dlopen()s libusmp, checked: entry points,
 * two copies, a copy without plugins, per-call logs, builder slips. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* ---- log lines: what a host's logger gets ------------------------------- */

typedef struct log_sink {
	pthread_mutex_t lock;
	int errors, warnings, infos;
	char first_bad[512]; /* the first error or warning */
} log_sink;

static void sink(void *ctx, int level, const char *algorithm,
                 const char *message)
{
	log_sink *s = ctx;
	pthread_mutex_lock(&s->lock);
	if (level <= USMP_LOG_WARN && !s->errors && !s->warnings)
		snprintf(s->first_bad, sizeof s->first_bad, "%s: %s", algorithm,
		         message);
	s->errors += level == USMP_LOG_ERROR;
	s->warnings += level == USMP_LOG_WARN;
	s->infos += level >= USMP_LOG_INFO;
	pthread_mutex_unlock(&s->lock);
}

/* An NPU's problem: `n` buffers that may use the 64 KiB SRAM, else the
 * unbounded DRAM; sizes 256..16384 bytes, live 1 to 20 steps: more than the SRAM. */
static usmp_problem *npu_problem(uint32_t n)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, b;
	uint64_t seed = 4;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64 * 1024, 16, &sram), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram), 0);
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name,
		             256 * test_rand_range(&seed, 1, 64), 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(p, b, i,
		             i + (int64_t)test_rand_range(&seed, 1, 20)), 0);
		cr_assert_eq(usmp_problem_add_candidate(p, b, sram), 0);
		cr_assert_eq(usmp_problem_add_candidate(p, b, dram), 0);
	}
	return p;
}

/* exact tries stages in turn (the joint search of several pools stops at
 * 1000 buffers, then the parts); a stage that fails before another plans
 * is no error of the call: a host logging warnings and errors gets none
 * for a plan that succeeds, and the stage's reason at info. */
Test(firsthour4, exact_logs_no_error_for_a_plan_it_makes)
{
	usmp_registry *r = test_registry(NULL);
	log_sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	cr_assert_eq(usmp_registry_set_log(r, sink, &s, USMP_LOG_INFO), 0);
	usmp_problem *p = npu_problem(1200);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "exact",
	                       .time_limit = 5};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert_eq(s.errors + s.warnings, 0, "%d errors, %d warnings: %s",
	             s.errors, s.warnings, s.first_bad);
	cr_assert_gt(s.infos, 0);
	usmp_plan_destroy(plan);

	/* A call that fails still logs its error, at error. */
	uint32_t sram = 0, b;
	usmp_problem *q = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(q, "sram", 128, 16, &sram), 0);
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "x%d", i);
		cr_assert_eq(usmp_problem_add_buffer(q, name, 64, 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(q, b, 0, 2), 0);
		cr_assert_eq(usmp_problem_add_candidate(q, b, sram), 0);
	}
	cr_assert_eq(usmp_problem_add_conflict(q, 0, 1), 0); /* several-pool search */
	s.errors = s.warnings = s.infos = 0;
	int rc = usmp_plan_compute(r, q, &o, &plan);
	cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "%s", usmp_plan_error(plan));
	cr_assert_geq(s.errors, 1);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(q);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- two copies of libusmp in one process ------------------------------- */

typedef struct lib_api {
	void *handle;
	__typeof__(&usmp_problem_create) problem_create;
	__typeof__(&usmp_problem_destroy) problem_destroy;
	__typeof__(&usmp_problem_parse) problem_parse;
	__typeof__(&usmp_problem_error) problem_error;
	__typeof__(&usmp_registry_create) registry_create;
	__typeof__(&usmp_registry_destroy) registry_destroy;
	__typeof__(&usmp_registry_diagnostic_count) diagnostic_count;
	__typeof__(&usmp_registry_diagnostic) diagnostic;
	__typeof__(&usmp_registry_bind) bind;
	__typeof__(&usmp_registry_error) registry_error;
	__typeof__(&usmp_registry_algorithm_count) algorithm_count;
	__typeof__(&usmp_plan_compute) plan_compute;
	__typeof__(&usmp_plan_error) plan_error;
	__typeof__(&usmp_plan_destroy) plan_destroy;
} lib_api;

static void *sym(void *h, const char *name)
{
	void *s = dlsym(h, name);
	cr_assert_not_null(s, "no %s: %s", name, dlerror());
	return s;
}

/* dlopen `path` as a host that links nothing of usmp does. */
static void lib_open(lib_api *a, const char *path)
{
	a->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(a->handle, "%s: %s", path, dlerror());
#define RESOLVE(field, fn) *(void **)&a->field = sym(a->handle, #fn)
	RESOLVE(problem_create, usmp_problem_create);
	RESOLVE(problem_destroy, usmp_problem_destroy);
	RESOLVE(problem_parse, usmp_problem_parse);
	RESOLVE(problem_error, usmp_problem_error);
	RESOLVE(registry_create, usmp_registry_create);
	RESOLVE(registry_destroy, usmp_registry_destroy);
	RESOLVE(diagnostic_count, usmp_registry_diagnostic_count);
	RESOLVE(diagnostic, usmp_registry_diagnostic);
	RESOLVE(bind, usmp_registry_bind);
	RESOLVE(registry_error, usmp_registry_error);
	RESOLVE(algorithm_count, usmp_registry_algorithm_count);
	RESOLVE(plan_compute, usmp_plan_compute);
	RESOLVE(plan_error, usmp_plan_error);
	RESOLVE(plan_destroy, usmp_plan_destroy);
#undef RESOLVE
}

/* Another library in the global scope defines usmp_problem_error (another
 * copy of libusmp linked into the program, or loaded RTLD_GLOBAL): the
 * libusmp a host dlopen()s still calls its own, so its messages are its
 * own and no call crosses into the other copy's data. */
Test(firsthour4, libusmp_calls_its_own_functions_beside_another_copy)
{
	char *shim = test_join(test_build_root(), "tests/shim/interpose.so");
	char *path = test_join(test_build_root(), "src/libusmp.so.1");
	void *other = dlopen(shim, RTLD_NOW | RTLD_GLOBAL);
	cr_assert_not_null(other, "%s: %s", shim, dlerror());
	lib_api a;
	lib_open(&a, path);
	usmp_problem *p = a.problem_create();
	static const char json[] = "{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], "
	                           "\"buffers\": [{\"name\": \"t\", \"size\": 16, "
	                           "\"pools\": [\"sram\", \"sram\"]}]}";
	int rc = a.problem_parse(p, json, strlen(json), "bug.json",
	                         USMP_FORMAT_JSON, USMP_UNBOUNDED);
	cr_assert_eq(rc, USMP_ERR_INVALID);
	const char *msg = a.problem_error(p);
	cr_assert(strstr(msg, "pool \"sram\" is already a candidate") &&
	          !strstr(msg, "INTERPOSED"), "%s", msg);
	a.problem_destroy(p);
	dlclose(a.handle);
	dlclose(other);
	free(path);
	free(shim);
}

/* ---- a libusmp away from its plugins ------------------------------------- */

/* A libusmp copied (or dlopen()ed) without the usmp-1 directory beside it
 * finds none of its own algorithms: the registry says which directory it
 * looked for, and so do the messages of a bind and of auto. */
Test(firsthour4, a_libusmp_without_its_plugin_directory_says_where_it_looked)
{
	char *dir = test_fresh_dir("fh4-lone");
	char *cmd = test_fmt("cp '%s/src/libusmp.so.1' '%s/libusmp.so.1'",
	                     test_build_root(), dir);
	cr_assert_eq(test_run(cmd, NULL), 0, "%s", cmd);
	char *path = test_join(dir, "libusmp.so.1");
	char *want = test_fmt("%s/usmp-1: the shipped plugin directory (usmp-1 "
	                      "beside libusmp) does not exist", dir);
	lib_api a;
	lib_open(&a, path);
	usmp_registry_options ro = {.struct_size = sizeof ro,
	                            .flags = USMP_REGISTRY_NO_ENV};
	usmp_registry *r = NULL;
	cr_assert_eq(a.registry_create(&ro, &r), USMP_OK);
	cr_assert_eq(a.algorithm_count(r), 1); /* auto alone */
	cr_assert_eq(a.diagnostic_count(r), 1);
	cr_assert(strstr(a.diagnostic(r, 0), want), "%s", a.diagnostic(r, 0));
	cr_assert_eq(a.bind(r, "npu", "exact", NULL, 0), USMP_ERR_NOT_FOUND);
	const char *msg = a.registry_error(r);
	cr_assert(strstr(msg, "no algorithm \"exact\" (algorithms: auto); ") &&
	          strstr(msg, want) && !strstr(msg, "a plugin of your own"),
	          "%s", msg);
	usmp_problem *p = a.problem_create();
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 64}, "
		"{\"name\": \"dram\"}], \"buffers\": ["
		"{\"name\": \"t\", \"size\": 16, \"pools\": [\"sram\", \"dram\"]}]}";
	cr_assert_eq(a.problem_parse(p, json, strlen(json), "t.json",
	                             USMP_FORMAT_JSON, USMP_UNBOUNDED), USMP_OK);
	usmp_plan *plan = NULL;
	int rc = a.plan_compute(r, p, NULL, &plan);
	cr_assert_eq(rc, USMP_ERR_UNSUPPORTED, "%d: %s", rc, a.plan_error(plan));
	msg = a.plan_error(plan);
	cr_assert(strstr(msg, "no installed algorithm can plan this part (no "
	                 "plugins: ") && strstr(msg, want), "%s", msg);
	a.plan_destroy(plan);
	a.problem_destroy(p);
	a.registry_destroy(r);

	/* Told where the plugins are, it loads them and says nothing. */
	char *plugins = test_join(test_build_root(), "plugins");
	ro.plugin_path = plugins;
	ro.flags |= USMP_REGISTRY_NO_DEFAULT_DIRS;
	cr_assert_eq(a.registry_create(&ro, &r), USMP_OK);
	cr_assert_eq(a.diagnostic_count(r), 0, "%s", a.diagnostic(r, 0));
	cr_assert_eq(a.bind(r, "npu", "exact", NULL, 0), USMP_OK);
	a.registry_destroy(r);
	dlclose(a.handle);
	free(plugins);
	free(want);
	free(path);
	free(cmd);
	free(dir);
}

/* ---- one registry, a thread per target, each with its own log ----------- */

typedef struct unit_log {
	const char *tag;      /* the target; its buffers' names begin with it */
	usmp_registry *r;
	uint32_t flags;       /* usmp_plan_options.flags */
	int lines, foreign;   /* lines got; lines naming another unit's buffer */
	int rc;
} unit_log;

static void unit_sink(void *ctx, int level, const char *algorithm,
                      const char *message)
{
	(void)level;
	(void)algorithm;
	unit_log *u = ctx;
	u->lines++; /* one call's lines arrive one at a time */
	/* a line naming another unit's buffer ("tb.3"); the rules' own
	 * lines ("ta=first_fit" matches no target) name no buffer */
	for (const char *q = strstr(message, "\"t"); q; q = strstr(q + 1, "\"t"))
		if (q[2] && q[3] == '.' && strncmp(q + 1, u->tag, 2) != 0)
			u->foreign++;
}

/* Plans, in its own thread, a target whose 64-byte buffers "TAG.i" (three
 * live at once) cannot fit its 128-byte SRAM: its algorithm logs why,
 * naming a buffer. */
static void *plan_unit(void *arg)
{
	unit_log *u = arg;
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 128, 16, &sram), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, sram, u->tag), 0);
	for (int i = 0; i < 6; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s.%d", u->tag, i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(p, b, i, i + 3), 0);
	}
	usmp_plan_options o = {.struct_size = sizeof o, .flags = u->flags,
	                       .log_ctx = u};
	usmp_plan *plan = NULL;
	u->rc = usmp_plan_compute(u->r, p, &o, &plan);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return NULL;
}

/* usmp_plan_options.log_ctx: the registry's log function gets each call's
 * own context, so a compiler planning targets from a thread pool files
 * every line under the target that logged it (isolated calls too). */
Test(firsthour4, each_call_logs_to_its_own_context)
{
	usmp_registry *r = test_registry(NULL);
	unit_log shared = {.tag = "registry"};
	cr_assert_eq(usmp_registry_set_log(r, unit_sink, &shared,
	                                   USMP_LOG_DEBUG), 0);
	cr_assert_eq(usmp_registry_bind_rules(r, "ta=first_fit;tb=best_fit;"
	                                         "tc=exact;td=first_fit"), 0);
	unit_log u[] = {{.tag = "ta", .r = r}, {.tag = "tb", .r = r},
	                {.tag = "tc", .r = r},
	                {.tag = "td", .r = r, .flags = USMP_PLAN_ISOLATE}};
	enum { N = sizeof u / sizeof *u };
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, plan_unit, &u[i]), 0);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(u[i].rc, USMP_ERR_INFEASIBLE, "%s: %d", u[i].tag,
		             u[i].rc);
		cr_assert_gt(u[i].lines, 0, "%s got no line", u[i].tag);
		cr_assert_eq(u[i].foreign, 0, "%s got another's lines", u[i].tag);
	}
	cr_assert_eq(shared.lines, 0, "the registry's context got %d lines",
	             shared.lines);

	/* Without one, the registry's context gets them, as before. */
	unit_log plain = {.tag = "te", .r = r};
	cr_assert_eq(usmp_registry_set_log(r, unit_sink, &plain,
	                                   USMP_LOG_DEBUG), 0);
	usmp_problem *p = usmp_problem_create();
	uint32_t b;
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof name, "te.%d", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(p, b, 0, 2), 0);
	}
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
	cr_assert_gt(plain.lines, 0);
	cr_assert_eq(plain.foreign, 0);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- the list of entry points ------------------------------------------- */

/* A table typed from the header, as docs/hosts.md builds it. */
typedef struct full_api {
#define FULL_FIELD(fn) __typeof__(&fn) fn;
	USMP_FUNCTIONS_1_2(FULL_FIELD)
	USMP_FUNCTIONS_1_3(FULL_FIELD)
#undef FULL_FIELD
} full_api;

/* Each listed name with the symbol version it must carry. */
static const struct {
	const char *name, *version;
} listed[] = {
#define FULL_NAME_1(fn) {#fn, "USMP_1"},
#define FULL_NAME_1_3(fn) {#fn, "USMP_1.3"},
	USMP_FUNCTIONS_1_2(FULL_NAME_1)
	USMP_FUNCTIONS_1_3(FULL_NAME_1_3)
#undef FULL_NAME_1
#undef FULL_NAME_1_3
};

/* USMP_FUNCTIONS_1_2 and _1_3 name every exported function
 * (abi/symbols.txt) but the three deprecated ones, each once, with the
 * version node of its minor (src/libusmp.map), and every name resolves in
 * the built library into a table typed from the header. */
Test(firsthour4, the_entry_point_list_is_what_the_library_exports)
{
	enum { N = sizeof listed / sizeof *listed };
	char *path = test_join(test_source_root(), "abi/symbols.txt");
	char *text = test_read_file(path);
	cr_assert_not_null(text, "%s", path);
	int exported = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *at = strchr(line, '@');
		const char *version = "";
		if (at) {
			*at = '\0';
			version = at + 1 + (at[1] == '@');
		}
		if (!strcmp(line, "usmp_problem_group_count") ||
		    !strcmp(line, "usmp_problem_group_bound") ||
		    !strcmp(line, "usmp_problem_pool_group"))
			continue;
		exported++;
		int seen = 0;
		for (int i = 0; i < N; i++) {
			if (strcmp(listed[i].name, line))
				continue;
			seen++;
			cr_assert_str_eq(version, listed[i].version, "%s", line);
		}
		cr_assert_eq(seen, 1, "%s is listed %d times", line, seen);
	}
	cr_assert_eq(exported, N, "%d exported, %d listed", exported, (int)N);

	char *lib = test_join(test_build_root(), "src/libusmp.so.1");
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(h, "%s: %s", lib, dlerror());
	full_api api;
#define FULL_RESOLVE(fn) *(void **)&api.fn = sym(h, #fn);
	USMP_FUNCTIONS_1_2(FULL_RESOLVE)
	USMP_FUNCTIONS_1_3(FULL_RESOLVE)
#undef FULL_RESOLVE
	uint32_t major = 0, minor = 0;
	api.usmp_abi_version(&major, &minor);
	cr_assert(major == USMP_ABI_MAJOR && minor >= 3, "%u.%u", major, minor);
	cr_assert_eq(api.usmp_problem_conflict_count(NULL), 0);
	cr_assert_str_eq(api.usmp_status_name(USMP_ERR_INFEASIBLE), "infeasible");
	dlclose(h);
	free(lib);
	free(text);
	free(path);
}

/* ---- a compiler's own bugs, caught while building the problem ----------- */

/* Each builder call refuses the compiler's slip with a message naming the
 * buffer (or, for an index past the end, the index and the count). */
Test(firsthour4, builder_slips_name_the_buffer)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 16, &sram), 0);
	static const struct {
		int call;
		const char *msg;
	} want[] = {
		{0, "buffer \"conv1.out\": size must be positive"},
		{1, "buffer \"conv2.out\": candidate pool 7 does not exist (1 pool)"},
		{2, "buffer \"conv2.out\": live range [5, 3): end must be after begin"},
		{3, "buffer \"conv2.out\": fixed pool 1 does not exist (1 pool)"},
		{4, "live range: buffer index 9 out of range (1 buffer)"},
		{5, "buffer \"conv3.out\": alignment 24 is not a power of two"},
	};
	cr_assert_eq(usmp_problem_add_buffer(p, "conv2.out", 64, 16, &b), 0);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		int rc = want[i].call == 0 ? usmp_problem_add_buffer(p, "conv1.out", 0, 16, NULL)
		       : want[i].call == 1 ? usmp_problem_add_candidate(p, b, 7)
		       : want[i].call == 2 ? usmp_problem_set_live(p, b, 5, 3)
		       : want[i].call == 3 ? usmp_problem_set_fixed(p, b, 1, 0)
		       : want[i].call == 4 ? usmp_problem_set_live(p, 9, 0, 1)
		       : usmp_problem_add_buffer(p, "conv3.out", 64, 24, NULL);
		cr_assert_eq(rc, USMP_ERR_INVALID, "%zu", i);
		cr_assert_str_eq(usmp_problem_error(p), want[i].msg);
	}
	cr_assert_eq(usmp_problem_buffer_count(p), 1); /* nothing half-added */
	usmp_problem_destroy(p);
}

/* ---- docs/hosts.md's loader, as written --------------------------------- */

/* The code block of docs/hosts.md, "Loading libusmp at run time" (from its
 * #include <dlfcn.h> to the closing fence, two spaces of indent removed):
 * with a main() added it compiles without warnings, links nothing of usmp,
 * loads the built library by its path, and refuses a library that is not
 * libusmp (a plugin). */
Test(firsthour4, the_hosts_md_loader_compiles_and_loads_the_library)
{
	char *code = test_hosts_md_loader();
	char *all = test_fmt("%s\nint main(int argc, char **argv)\n{\n"
	                     "\tif (argc != 2 || usmp_load(argv[1]))\n"
	                     "\t\treturn 1;\n"
	                     "\tprintf(\"usmp %%s\\n\", U.usmp_version());\n"
	                     "\treturn 0;\n}\n", code);
	char *dir = test_fresh_dir("fh4-loader");
	test_write_in(dir, "loader.c", all, strlen(all));
	char *sanflag = test_sanitize_flag();
	char *cmd = test_fmt(
		"cd '%s' && cc -std=gnu11 -Wall -Wextra -Werror %s -I'%s/include' "
		"-o loader loader.c -ldl && ! readelf -d loader | grep -q libusmp && "
		"./loader '%s/src/libusmp.so.1' && ! ./loader '%s/plugins/fit.so'",
		dir, sanflag, test_source_root(), test_build_root(),
		test_build_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s\n%s", st, cmd, all, out);
	cr_assert(!strncmp(out, "usmp ", 5), "%s", out);
	free(out);
	free(cmd);
	free(sanflag);
	free(dir);
	free(all);
	free(code);
}
