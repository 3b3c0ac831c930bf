/* test_registry.c — plugin loading with each fixture's documented outcome,
 * the queries, typed knobs through libffi (echo), and per-target selection
 * (src/registry.c, src/invoke.c, src/select.c). */
#include <criterion/criterion.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "internal.h"
#include "support.h"

#include "dispatch.h" /* usmp__invoke, the in-process call */

/* "DIR/a.so:DIR/b.so" for the fixtures named in `names` ("a b"). */
static char *fixture_path(const char *names)
{
	const char *dir = test_fixture_plugindir();
	char *out = calloc(1, 4096);
	char buf[256];
	const char *s = names;
	cr_assert_not_null(out);
	while (*s) {
		size_t n = strcspn(s, " ");
		snprintf(buf, sizeof buf, "%s%s/%.*s.so", *out ? ":" : "", dir, (int)n,
		         s);
		strcat(out, buf);
		s += n;
		while (*s == ' ')
			s++;
	}
	return out;
}

static usmp_registry *load_path(const char *path)
{
	usmp_registry_options o;
	usmp_registry *r = NULL;
	memset(&o, 0, sizeof o);
	o.struct_size = sizeof o;
	o.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS;
	o.plugin_path = path;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_not_null(r);
	return r;
}

/* A registry with only the named fixtures (space-separated, in order). */
static usmp_registry *load(const char *names)
{
	char *path = fixture_path(names);
	usmp_registry *r = load_path(path);
	free(path);
	return r;
}

static void assert_contains(const char *hay, const char *needle)
{
	cr_assert_not_null(hay);
	cr_assert(strstr(hay, needle) != NULL, "\"%s\" does not contain \"%s\"",
	          hay, needle);
}

/* The only diagnostic, which must mention every needle. */
static const char *only_diag(usmp_registry *r)
{
	cr_assert_eq(usmp_registry_diagnostic_count(r), 1, "diagnostics: %u (first: %s)",
	             usmp_registry_diagnostic_count(r),
	             usmp_registry_diagnostic(r, 0) ? usmp_registry_diagnostic(r, 0)
	                                            : "-");
	return usmp_registry_diagnostic(r, 0);
}

static bool has_algo(usmp_registry *r, const char *name)
{
	return usmp_registry_find_algorithm(r, name, NULL) == USMP_OK;
}

static void algo_info(usmp_registry *r, const char *name,
                      usmp_algorithm_info *info)
{
	uint32_t i;
	cr_assert_eq(usmp_registry_find_algorithm(r, name, &i), USMP_OK, "%s", name);
	memset(info, 0, sizeof *info);
	info->struct_size = sizeof *info;
	cr_assert_eq(usmp_registry_algorithm(r, i, info), USMP_OK);
}

/* ---- loading each fixture ------------------------------------------------ */

Test(registry_load, good_v1_1_loads_with_metadata_and_param_help)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_diagnostic_count(r), 0, "%s",
	             usmp_registry_diagnostic(r, 0));
	cr_assert_eq(usmp_registry_plugin_count(r), 1);
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_plugin(r, 0, &p), USMP_OK);
	cr_assert_str_eq(p.name, "good_v1_1");
	cr_assert_str_eq(p.version, "0.0.1-fixture");
	cr_assert_str_eq(p.license, "Apache-2.0");
	cr_assert_eq(p.abi_major, 1);
	cr_assert_eq(p.abi_minor, 1);
	cr_assert_eq(p.algorithm_count, 2);
	assert_contains(p.path, "good_v1_1.so");

	usmp_algorithm_info a;
	algo_info(r, "fx_good", &a);
	cr_assert_eq(a.plugin, 0);
	cr_assert_eq(a.param_count, 2);
	cr_assert_str_eq(a.params, "seed:u64=0 order:str=size");
	cr_assert_str_eq(a.summary, "stack buffers in their first pool (fixture)");
	cr_assert(a.caps & USMP_CAP_DETERMINISTIC);

	uint32_t idx;
	cr_assert_eq(usmp_registry_find_algorithm(r, "fx_good", &idx), USMP_OK);
	usmp_param_info k = {.struct_size = sizeof k};
	cr_assert_eq(usmp_registry_param(r, idx, 1, &k), USMP_OK);
	cr_assert_str_eq(k.name, "order");
	cr_assert_eq(k.type, USMP_PARAM_STR);
	cr_assert_str_eq(k.default_value, "size");
	cr_assert_str_eq(k.help, "size or none");
	cr_assert_eq(usmp_registry_param(r, idx, 2, &k), USMP_ERR_NOT_FOUND);
	usmp_registry_destroy(r);
}

Test(registry_load, abi_1_0_plugin_loads_without_param_help)
{
	usmp_registry *r = load("good_v1_0");
	cr_assert_eq(usmp_registry_diagnostic_count(r), 0, "%s",
	             usmp_registry_diagnostic(r, 0));
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_plugin(r, 0, &p), USMP_OK);
	cr_assert_eq(p.abi_minor, 0);
	uint32_t idx;
	cr_assert_eq(usmp_registry_find_algorithm(r, "fx_old", &idx), USMP_OK);
	usmp_param_info k = {.struct_size = sizeof k};
	cr_assert_eq(usmp_registry_param(r, idx, 0, &k), USMP_OK);
	cr_assert_str_eq(k.name, "seed");
	cr_assert_str_eq(k.default_value, "7");
	cr_assert_str_eq(k.help, "");
	usmp_registry_destroy(r);
}

Test(registry_load, newer_minor_is_refused_naming_both_versions)
{
	usmp_registry *r = load("newer_minor");
	const char *d = only_diag(r);
	char want[128];
	snprintf(want, sizeof want, "newer_minor.so: built against ABI 1.%d, newer "
	                            "than this host's 1.%d",
	         USMP_ABI_MINOR + 1, USMP_ABI_MINOR);
	assert_contains(d, want);
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	cr_assert(!has_algo(r, "fx_newer"));
	usmp_registry_destroy(r);
}

Test(registry_load, v2_only_is_refused_with_a_clear_major_message)
{
	usmp_registry *r = load("v2_only");
	const char *d = only_diag(r);
	assert_contains(d, "v2_only.so: built for plugin ABI major 2");
	char want[64];
	snprintf(want, sizeof want, "this host implements 1.%d", USMP_ABI_MINOR);
	assert_contains(d, want);
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	usmp_registry_destroy(r);
}

Test(registry_load, short_struct_is_refused)
{
	usmp_registry *r = load("short_struct");
	const char *d = only_diag(r);
	assert_contains(d, "short_struct.so: descriptor struct_size");
	assert_contains(d, "smaller than");
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	cr_assert(!has_algo(r, "fx_short"));
	usmp_registry_destroy(r);
}

Test(registry_load, bad_signature_skips_that_algorithm_only)
{
	usmp_registry *r = load("bad_signature");
	const char *d = only_diag(r);
	assert_contains(d, "bad_signature.so: algorithm \"fx_bad_sig\"");
	assert_contains(d, "unknown type \"u65\"");
	cr_assert(!has_algo(r, "fx_bad_sig"));
	cr_assert(has_algo(r, "fx_sig_ok"));
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_plugin(r, 0, &p), USMP_OK);
	cr_assert_eq(p.algorithm_count, 1);
	usmp_registry_destroy(r);
}

Test(registry_load, duplicate_name_skips_the_later_one_naming_both_files)
{
	usmp_registry *r = load("good_v1_1 duplicate");
	cr_assert_eq(usmp_registry_diagnostic_count(r), 2);
	const char *d = usmp_registry_diagnostic(r, 0);
	assert_contains(d, "duplicate.so: algorithm \"fx_good\" is already "
	                   "provided by ");
	assert_contains(d, "good_v1_1.so");
	/* nor can a plugin take over the built-in default */
	assert_contains(usmp_registry_diagnostic(r, 1),
	                "duplicate.so: algorithm \"auto\" is already provided by "
	                "libusmp (built-in)");
	usmp_algorithm_info au;
	algo_info(r, "auto", &au);
	cr_assert_eq(au.plugin, UINT32_MAX);
	cr_assert_eq(usmp_registry_plugin_count(r), 2);
	usmp_algorithm_info a;
	algo_info(r, "fx_good", &a);
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_plugin(r, a.plugin, &p), USMP_OK);
	cr_assert_str_eq(p.name, "good_v1_1");
	cr_assert(has_algo(r, "fx_dup_unique"));
	usmp_registry_destroy(r);
}

Test(registry_load, broken_algorithm_entries_are_skipped_one_by_one)
{
	usmp_registry *r = load("bad_entries");
	cr_assert_eq(usmp_registry_diagnostic_count(r), 5);
	assert_contains(usmp_registry_diagnostic(r, 0),
	                "bad_entries.so: algorithm 0 is NULL");
	assert_contains(usmp_registry_diagnostic(r, 1),
	                "bad_entries.so: algorithm 1: name \"Upper\" is not "
	                "[a-z][a-z0-9_]*");
	assert_contains(usmp_registry_diagnostic(r, 2),
	                "bad_entries.so: algorithm \"fx_no_fn\" has no function");
	assert_contains(usmp_registry_diagnostic(r, 3),
	                "bad_entries.so: algorithm 3: struct_size");
	assert_contains(usmp_registry_diagnostic(r, 4),
	                "bad_entries.so: algorithm \"fx_entries_ok\" is already "
	                "provided by ");
	cr_assert(has_algo(r, "fx_entries_ok"));
	usmp_algorithm_info a;
	algo_info(r, "fx_entries_ok", &a);
	cr_assert_str_eq(a.summary, "the survivor");
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_plugin(r, 0, &p), USMP_OK);
	cr_assert_eq(p.algorithm_count, 1);
	usmp_registry_destroy(r);
}

Test(registry_load, not_a_plugin_is_reported)
{
	usmp_registry *r = load("not_a_plugin");
	assert_contains(only_diag(r), "not_a_plugin.so: not a usmp plugin (no "
	                              "usmp_plugin_v1 symbol)");
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	usmp_registry_destroy(r);
}

Test(registry_load, unreadable_file_and_missing_directory_are_reported)
{
	char *junk = test_write_tmp(".so", "this is not an ELF file\n");
	char path[512];
	snprintf(path, sizeof path, "%s:/nonexistent/usmp-plugins", junk);
	usmp_registry *r = load_path(path);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 2);
	assert_contains(usmp_registry_diagnostic(r, 0), junk);
	assert_contains(usmp_registry_diagnostic(r, 0), ": cannot load: ");
	assert_contains(usmp_registry_diagnostic(r, 1),
	                "/nonexistent/usmp-plugins: plugin directory not found");
	cr_assert_null(usmp_registry_diagnostic(r, 2));
	usmp_registry_destroy(r);
	remove(junk);
	free(junk);
}

Test(registry_load, whole_fixture_directory_loads_sorted_and_keeps_going)
{
	usmp_registry *r = load_path(test_fixture_plugindir());
	/* Sorted by file name: bad_entries bad_signature crash duplicate echo
	 * good_v1_0 good_v1_1 hang invalid_plan leak newer_minor not_a_plugin
	 * scribble short_struct slow_first_fit v2_only. duplicate comes before
	 * good_v1_1, so good_v1_1's fx_good is the one skipped. (crash, hang,
	 * leak, scribble and slow_first_fit load fine: they misbehave only when
	 * called.) */
	const char *want[] = {"bad_entries", "bad_signature", "crash",
	                      "duplicate", "echo", "good_v1_0", "good_v1_1",
	                      "hang", "invalid_plan", "leak", "scribble",
	                      "slow_first_fit"};
	cr_assert_eq(usmp_registry_plugin_count(r), 12);
	for (uint32_t i = 0; i < 12; i++) {
		usmp_plugin_info p = {.struct_size = sizeof p};
		cr_assert_eq(usmp_registry_plugin(r, i, &p), USMP_OK);
		cr_assert_str_eq(p.name, want[i]);
	}
	/* bad_entries 5, bad sig 1, duplicate's auto 1, good_v1_1's fx_good 1,
	 * newer_minor, not_a_plugin, short_struct, v2_only 1 each */
	cr_assert_eq(usmp_registry_diagnostic_count(r), 12);
	const char *dup = usmp_registry_diagnostic(r, 7);
	assert_contains(dup, "good_v1_1.so: algorithm \"fx_good\" is already "
	                     "provided by");
	assert_contains(dup, "duplicate.so");
	assert_contains(usmp_registry_diagnostic(r, 8), "newer_minor.so: ");
	assert_contains(usmp_registry_diagnostic(r, 11), "v2_only.so: ");
	const char *algos[] = {"fx_sig_ok", "fx_good", "fx_dup_unique", "fx_echo",
	                       "fx_old", "fx_plain", "fx_invalid_plan",
	                       "fx_entries_ok"};
	for (int i = 0; i < 8; i++)
		cr_assert(has_algo(r, algos[i]), "%s missing", algos[i]);
	usmp_registry_destroy(r);
}

Test(registry_load, same_file_reached_twice_loads_once)
{
	char *file = fixture_path("good_v1_1");
	char path[1024];
	snprintf(path, sizeof path, "%s:%s:%s", file, file,
	         test_fixture_plugindir());
	usmp_registry *r = load_path(path);
	/* good_v1_1 only once: no duplicate-name diagnostic naming it twice */
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		cr_assert(strstr(usmp_registry_diagnostic(r, i), "good_v1_1.so: algorithm "
		                                                 "\"fx_good\"") == NULL,
		          "%s", usmp_registry_diagnostic(r, i));
	uint32_t count = 0;
	for (uint32_t i = 0; i < usmp_registry_plugin_count(r); i++) {
		usmp_plugin_info p = {.struct_size = sizeof p};
		usmp_registry_plugin(r, i, &p);
		count += strcmp(p.name, "good_v1_1") == 0;
	}
	cr_assert_eq(count, 1);
	usmp_registry_destroy(r);
	free(file);
}

Test(registry_load, plugin_path_env_is_searched_unless_no_env)
{
	char *path = fixture_path("good_v1_1");
	setenv("USMP_PLUGIN_PATH", path, 1);
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert(has_algo(r, "fx_good"));
	usmp_registry_destroy(r);
	o.flags |= USMP_REGISTRY_NO_ENV;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert(!has_algo(r, "fx_good"));
	usmp_registry_destroy(r);
	free(path);
}

Test(registry_load, builtins_come_first_with_no_plugin)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_algorithm_count(r), usmp__builtin_count + 2);
	for (uint32_t i = 0; i < usmp__builtin_count; i++) {
		usmp_algorithm_info a = {.struct_size = sizeof a};
		cr_assert_eq(usmp_registry_algorithm(r, i, &a), USMP_OK);
		cr_assert_eq(a.plugin, UINT32_MAX);
		cr_assert_str_eq(a.name, usmp__builtins[i].name);
	}
	cr_assert_eq(usmp__registry_algo_count(r), usmp_registry_algorithm_count(r));
	cr_assert_null(usmp__registry_algo_at(r, usmp__registry_algo_count(r)));
	cr_assert_eq(usmp__registry_algo(r, "fx_good"),
	             usmp__registry_algo_at(r, usmp__builtin_count));
	usmp_registry_destroy(r);
}

Test(registry_load, default_dirs_include_the_build_tree_for_in_tree_runs)
{
	/* The test executable links libusmp statically: its plugin directory
	 * is build/tests/usmp-1, a link to build/plugins/, so every plugin
	 * built there is loaded from it. Each must be: a plugin missing from
	 * the build, refused or found elsewhere fails the test. */
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_ENV};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	const char *names[] = {"fit.so", "tvm.so", "exact.so", "sweep.so"};
	for (int n = 0; n < 4; n++) {
		char path[1024], tail[64];
		snprintf(path, sizeof path, "%s/plugins/%s", test_build_root(),
		         names[n]);
		FILE *f = fopen(path, "rb");
		cr_assert_not_null(f, "%s is not built", path);
		fclose(f);
		snprintf(tail, sizeof tail, "/" USMP_PLUGIN_SUBDIR "/%s", names[n]);
		int loaded = 0;
		for (uint32_t i = 0; i < usmp_registry_plugin_count(r); i++) {
			usmp_plugin_info p = {.struct_size = sizeof p};
			cr_assert_eq(usmp_registry_plugin(r, i, &p), USMP_OK);
			size_t len = strlen(p.path), tl = strlen(tail);
			loaded += len >= tl && strcmp(p.path + len - tl, tail) == 0;
		}
		cr_assert_eq(loaded, 1, "%s: loaded %d times from the default "
		             "directory (%u plugins, %u diagnostics: %s)", names[n],
		             loaded, usmp_registry_plugin_count(r),
		             usmp_registry_diagnostic_count(r),
		             usmp_registry_diagnostic_count(r)
		                     ? usmp_registry_diagnostic(r, 0)
		                     : "none");
	}
	usmp_registry_destroy(r);
	o.flags |= USMP_REGISTRY_NO_DEFAULT_DIRS;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	cr_assert_eq(usmp_registry_algorithm_count(r), usmp__builtin_count);
	usmp_registry_destroy(r);
}

Test(registry_load, null_options_and_destroy_null_are_fine)
{
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(NULL, &r), USMP_OK);
	cr_assert_not_null(r);
	cr_assert_str_eq(usmp_registry_error(r), "");
	usmp_registry_destroy(r);
	usmp_registry_destroy(NULL);
	cr_assert_eq(usmp_registry_create(NULL, NULL), USMP_ERR_INVALID);
}

Test(registry_query, copies_only_up_to_the_callers_struct_size)
{
	usmp_registry *r = load("good_v1_1");
	uint32_t idx;
	cr_assert_eq(usmp_registry_find_algorithm(r, "fx_good", &idx), USMP_OK);
	/* A caller built when usmp_algorithm_info ended before `name`. */
	usmp_algorithm_info a;
	memset(&a, 0xAB, sizeof a);
	a.struct_size = offsetof(usmp_algorithm_info, name);
	cr_assert_eq(usmp_registry_algorithm(r, idx, &a), USMP_OK);
	cr_assert_eq(a.struct_size, offsetof(usmp_algorithm_info, name));
	cr_assert_eq(a.param_count, 2);
	const unsigned char *tail = (const unsigned char *)&a.name;
	for (size_t i = 0; i < sizeof a - offsetof(usmp_algorithm_info, name); i++)
		cr_assert_eq(tail[i], 0xAB, "byte %zu past struct_size written", i);
	a.struct_size = 0;
	cr_assert_eq(usmp_registry_algorithm(r, idx, &a), USMP_ERR_INVALID);
	cr_assert_eq(usmp_registry_algorithm(r, 999, &a), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_registry_find_algorithm(r, "nope", &idx),
	             USMP_ERR_NOT_FOUND);
	usmp_registry_destroy(r);
}

/* ---- calling through libffi -------------------------------------------- */

typedef struct capture {
	usmp__host_ctx hc; /* usmp__invoke hands the plugin hc.host */
	usmp__call call;
	char last[512];
} capture;

static void capture_log(const usmp_host *h, int level, const char *message)
{
	capture *c = (capture *)h->host_data;
	(void)level;
	snprintf(c->last, sizeof c->last, "%s", message);
}

/* Run fx_echo with the given assignments; returns the logged line and the
 * seven raw values it stored. */
static void run_echo(usmp_registry *r, const char *const *assign, int n,
                     char *line, uint64_t raw[7])
{
	const usmp__algo *a = usmp__registry_algo(r, "fx_echo");
	cr_assert_not_null(a);
	usmp__knobs k;
	char *msg = NULL;
	cr_assert_eq(usmp__knobs_init(&k, &a->sig), USMP_OK);
	for (int i = 0; i < n; i++)
		cr_assert_eq(usmp__knobs_set(&k, a->name, assign[i], &msg), USMP_OK,
		             "%s", msg);
	capture c;
	memset(&c, 0, sizeof c);
	c.hc.host.struct_size = sizeof c.hc.host;
	c.hc.host.host_data = &c;
	c.hc.host.log = capture_log;
	usmp_view v;
	memset(&v, 0, sizeof v);
	v.struct_size = sizeof v;
	v.pool_count = 1;
	v.buffer_count = 7;
	usmp_placement out[7];
	memset(out, 0, sizeof out);
	c.call = (usmp__call){.r = r, .algo = a, .knobs = &k, .view = &v,
	                      .hc = &c.hc, .out = out};
	cr_assert_eq(usmp__invoke(&c.call), USMP_OK);
	strcpy(line, c.last);
	for (int i = 0; i < 7; i++)
		raw[i] = out[i].offset;
	usmp__knobs_finish(&k);
}

static uint64_t bits_of(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

Test(registry_invoke, echo_receives_the_defaults)
{
	usmp_registry *r = load("echo");
	char line[512];
	uint64_t raw[7];
	run_echo(r, NULL, 0, line, raw);
	cr_assert_str_eq(line, "b=false i=-1 u=1 l=-2 q=2 d=0x1p-1 s=<hello>");
	cr_assert_eq(raw[0], 0);
	cr_assert_eq(raw[1], (uint64_t)-1);
	cr_assert_eq(raw[5], bits_of(0.5));
	cr_assert_eq(raw[6], 5);
	usmp_registry_destroy(r);
}

Test(registry_invoke, echo_receives_every_type_at_its_extremes)
{
	usmp_registry *r = load("echo");
	const char *lo[] = {"b=true", "i=-2147483648", "u=4294967295",
	                    "l=-9223372036854775808", "q=18446744073709551615",
	                    "d=-0.0", "s="};
	char line[512];
	uint64_t raw[7];
	run_echo(r, lo, 7, line, raw);
	cr_assert_str_eq(line, "b=true i=-2147483648 u=4294967295 "
	                       "l=-9223372036854775808 q=18446744073709551615 "
	                       "d=-0x0p+0 s=<>");
	cr_assert_eq(raw[0], 1);
	cr_assert_eq(raw[1], (uint64_t)(int64_t)INT32_MIN);
	cr_assert_eq(raw[2], UINT32_MAX);
	cr_assert_eq(raw[3], (uint64_t)INT64_MIN);
	cr_assert_eq(raw[4], UINT64_MAX);
	cr_assert_eq(raw[5], bits_of(-0.0));
	cr_assert_eq(raw[6], 0);

	const char *hi[] = {"b=no", "i=2147483647", "u=0",
	                    "l=9223372036854775807", "q=0", "d=1e300",
	                    "s=a string with spaces: and=signs"};
	run_echo(r, hi, 7, line, raw);
	cr_assert_eq(raw[0], 0);
	cr_assert_eq(raw[1], (uint64_t)INT32_MAX);
	cr_assert_eq(raw[2], 0);
	cr_assert_eq(raw[3], (uint64_t)INT64_MAX);
	cr_assert_eq(raw[4], 0);
	cr_assert_eq(raw[5], bits_of(1e300));
	assert_contains(line, "s=<a string with spaces: and=signs>");
	usmp_registry_destroy(r);
}

Test(registry_invoke, null_knobs_mean_defaults)
{
	usmp_registry *r = load("echo");
	const usmp__algo *a = usmp__registry_algo(r, "fx_echo");
	capture c;
	memset(&c, 0, sizeof c);
	c.hc.host.struct_size = sizeof c.hc.host;
	c.hc.host.host_data = &c;
	c.hc.host.log = capture_log;
	usmp_view v = {.struct_size = sizeof v, .pool_count = 1, .buffer_count = 7};
	usmp_placement out[7];
	c.call = (usmp__call){.r = r, .algo = a, .view = &v, .hc = &c.hc,
	                      .out = out};
	cr_assert_eq(usmp__invoke(&c.call), USMP_OK);
	assert_contains(c.last, "s=<hello>");
	/* knobs of another algorithm are refused, not passed */
	usmp__signature other;
	char *msg = NULL;
	cr_assert_eq(usmp__signature_parse("x:u32=1", &other, &msg), USMP_OK);
	usmp__knobs k;
	cr_assert_eq(usmp__knobs_init(&k, &other), USMP_OK);
	c.call.knobs = &k;
	cr_assert_eq(usmp__invoke(&c.call), USMP_ERR_INTERNAL);
	usmp__knobs_finish(&k);
	usmp__signature_finish(&other);
	usmp_registry_destroy(r);
}

Test(registry_invoke, invalid_plan_fixture_is_caught_by_the_verifier)
{
	usmp_registry *r = load("invalid_plan");
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 16, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 16, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .algorithm = "fx_invalid_plan"};
	usmp_plan *plan = NULL;
	int rc = usmp_plan_compute(r, p, &o, &plan);
	cr_assert_neq(rc, USMP_OK, "an overlapping plan was accepted");
	cr_assert_not_null(plan);
	cr_assert_eq(usmp_plan_status(plan), rc);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- selection ---------------------------------------------------------- */

static usmp_selection sel(usmp_registry *r, const char *target,
                          const char *override)
{
	usmp_selection s;
	memset(&s, 0, sizeof s);
	s.struct_size = sizeof s;
	int rc = usmp_registry_select(r, target, override, &s);
	cr_assert_eq(rc, USMP_OK, "select(%s): %s", target ? target : "(null)",
	             usmp_registry_error(r));
	return s;
}

Test(select, default_is_auto)
{
	usmp_registry *r = load("good_v1_1");
	usmp_selection s = sel(r, "ethos-u55", NULL);
	cr_assert_eq(s.source, USMP_SOURCE_DEFAULT);
	cr_assert_str_eq(s.algorithm, "auto");
	cr_assert_str_eq(s.params, "");
	cr_assert_str_eq(s.rule, "*=auto");
	usmp_registry_destroy(r);
}

Test(select, first_matching_glob_wins_in_bind_order)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_bind_rules(
		             r, "ethos-u*=fx_plain; *=fx_good:seed=3:order=none"),
	             USMP_OK, "%s", usmp_registry_error(r));
	usmp_selection s = sel(r, "ethos-u55", NULL);
	cr_assert_str_eq(s.algorithm, "fx_plain");
	cr_assert_str_eq(s.rule, "ethos-u*=fx_plain");
	cr_assert_eq(s.source, USMP_SOURCE_API);
	s = sel(r, "cortex-m55", NULL);
	cr_assert_str_eq(s.algorithm, "fx_good");
	cr_assert_str_eq(s.params, "seed=3 order=none");
	cr_assert_str_eq(s.rule, "*=fx_good:seed=3:order=none");
	s = sel(r, NULL, NULL); /* the untargeted part matches "*" */
	cr_assert_str_eq(s.algorithm, "fx_good");
	/* a later, more specific rule never beats an earlier match */
	const char *params[] = {"seed=9"};
	cr_assert_eq(usmp_registry_bind(r, "cortex-m55", "fx_good", params, 1),
	             USMP_OK);
	s = sel(r, "cortex-m55", NULL);
	cr_assert_str_eq(s.params, "seed=3 order=none");
	usmp_registry_clear_bindings(r);
	s = sel(r, "cortex-m55", NULL);
	cr_assert_eq(s.source, USMP_SOURCE_DEFAULT);
	usmp_registry_destroy(r);
}

Test(select, bind_builds_rule_text_and_validates)
{
	usmp_registry *r = load("good_v1_1");
	const char *params[] = {"seed=5", "order=none"};
	cr_assert_eq(usmp_registry_bind(r, "npu?", "fx_good", params, 2), USMP_OK);
	usmp_selection s = sel(r, "npu1", NULL);
	cr_assert_str_eq(s.rule, "npu?=fx_good:seed=5:order=none");
	cr_assert_str_eq(s.params, "seed=5 order=none");

	cr_assert_eq(usmp_registry_bind(r, "x", "nosuch", NULL, 0),
	             USMP_ERR_NOT_FOUND);
	assert_contains(usmp_registry_error(r), "rule \"x=nosuch\": no algorithm "
	                                        "\"nosuch\" (algorithms: auto");
	const char *bad_name[] = {"sead=1"};
	cr_assert_eq(usmp_registry_bind(r, "x", "fx_good", bad_name, 1),
	             USMP_ERR_NOT_FOUND);
	assert_contains(usmp_registry_error(r),
	                "rule \"x=fx_good:sead=1\": algorithm \"fx_good\" has no "
	                "knob \"sead\" (knobs: seed, order)");
	const char *bad_type[] = {"seed=-1"};
	cr_assert_eq(usmp_registry_bind(r, "x", "fx_good", bad_type, 1),
	             USMP_ERR_INVALID);
	assert_contains(usmp_registry_error(r), "rule \"x=fx_good:seed=-1\": knob "
	                                        "\"seed\" of \"fx_good\" expects "
	                                        "u64, got \"-1\"");
	cr_assert_eq(usmp_registry_bind(r, "", "fx_good", NULL, 0), USMP_ERR_INVALID);
	/* none of the refused rules was bound */
	s = sel(r, "x", NULL);
	cr_assert_eq(s.source, USMP_SOURCE_DEFAULT);
	usmp_registry_destroy(r);
}

Test(select, bind_rules_is_all_or_nothing_and_names_the_bad_rule)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_bind_rules(r, "a*=fx_plain;b*=fx_good:seed=x"),
	             USMP_ERR_INVALID);
	assert_contains(usmp_registry_error(r), "rule \"b*=fx_good:seed=x\"");
	cr_assert_eq(sel(r, "abc", NULL).source, USMP_SOURCE_DEFAULT);
	cr_assert_neq(usmp_registry_bind_rules(r, "a=fx_good:"), USMP_OK);
	assert_contains(usmp_registry_error(r), "empty knob setting");
	cr_assert_neq(usmp_registry_bind_rules(r, "=fx_good"), USMP_OK);
	assert_contains(usmp_registry_error(r), "empty target pattern");
	cr_assert_neq(usmp_registry_bind_rules(r, "a="), USMP_OK);
	assert_contains(usmp_registry_error(r), "no algorithm named");
	/* blank rules and surrounding spaces are fine */
	cr_assert_eq(usmp_registry_bind_rules(r, " ; a*=fx_plain ;; "), USMP_OK);
	cr_assert_str_eq(sel(r, "abc", NULL).rule, "a*=fx_plain");
	usmp_registry_destroy(r);
}

Test(select, bare_spec_applies_to_every_target)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_bind_rules(r, "fx_good:seed=4"), USMP_OK,
	             "%s", usmp_registry_error(r));
	usmp_selection s = sel(r, "anything", NULL);
	cr_assert_str_eq(s.algorithm, "fx_good");
	cr_assert_str_eq(s.params, "seed=4");
	usmp_registry_destroy(r);
}

Test(select, sources_rank_api_then_options_then_env_then_default)
{
	setenv("USMP_ALGORITHM", "env*=fx_good:seed=1;*=fx_plain", 1);
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS};
	char *path = fixture_path("good_v1_1");
	o.plugin_path = path;
	setenv("USMP_PLUGIN_PATH", "", 1);
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 0);

	usmp_selection s = sel(r, "env1", NULL);
	cr_assert_eq(s.source, USMP_SOURCE_ENV);
	cr_assert_str_eq(s.rule, "env*=fx_good:seed=1");
	cr_assert_eq(sel(r, "other", NULL).source, USMP_SOURCE_ENV);
	cr_assert_str_eq(sel(r, "other", NULL).algorithm, "fx_plain");

	s = sel(r, "env1", "fx_good:order=none");
	cr_assert_eq(s.source, USMP_SOURCE_OPTIONS);
	cr_assert_str_eq(s.rule, "fx_good:order=none");
	cr_assert_str_eq(s.params, "order=none");

	cr_assert_eq(usmp_registry_bind_rules(r, "env1=fx_plain"), USMP_OK);
	s = sel(r, "env1", "fx_good:order=none");
	cr_assert_eq(s.source, USMP_SOURCE_API);
	cr_assert_str_eq(s.algorithm, "fx_plain");
	/* targets no API rule matches still get the override */
	cr_assert_eq(sel(r, "env2", "fx_good").source, USMP_SOURCE_OPTIONS);
	usmp_registry_destroy(r);
	free(path);
}

Test(select, env_is_ignored_with_no_env)
{
	setenv("USMP_ALGORITHM", "*=fx_plain", 1);
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(sel(r, "x", NULL).source, USMP_SOURCE_DEFAULT);
	usmp_registry_destroy(r);
}

Test(select, bad_env_rule_is_a_diagnostic_and_fails_where_it_applies)
{
	setenv("USMP_ALGORITHM", "good*=fx_good;bad*=fx_good:seed=oops;*=nosuch", 1);
	setenv("USMP_PLUGIN_PATH", "", 1);
	char *path = fixture_path("good_v1_1");
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS,
	                           .plugin_path = path};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 2);
	assert_contains(usmp_registry_diagnostic(r, 0),
	                "USMP_ALGORITHM: rule \"bad*=fx_good:seed=oops\": knob "
	                "\"seed\" of \"fx_good\" expects u64");
	assert_contains(usmp_registry_diagnostic(r, 1),
	                "USMP_ALGORITHM: rule \"*=nosuch\": no algorithm \"nosuch\"");

	cr_assert_str_eq(sel(r, "good1", NULL).algorithm, "fx_good");
	usmp_selection s = {.struct_size = sizeof s};
	cr_assert_eq(usmp_registry_select(r, "bad1", NULL, &s), USMP_ERR_INVALID);
	assert_contains(usmp_registry_error(r), "rule \"bad*=fx_good:seed=oops\"");
	cr_assert_eq(usmp_registry_select(r, "other", NULL, &s), USMP_ERR_NOT_FOUND);
	assert_contains(usmp_registry_error(r), "rule \"*=nosuch\"");

	/* resolve fails the same way, naming the rule */
	const usmp__algo *a;
	usmp__knobs k;
	char *rule = NULL, *msg = NULL;
	int source;
	cr_assert_neq(usmp__registry_resolve(r, "bad7", NULL, &a, &k, &rule,
	                                     &source, &msg),
	              USMP_OK);
	assert_contains(msg, "USMP_ALGORITHM rule \"bad*=fx_good:seed=oops\"");
	cr_assert_null(a);
	cr_assert_null(rule);
	usmp__free_msg(&msg);
	/* an override still wins over the broken env rule */
	cr_assert_eq(sel(r, "bad1", "fx_plain").source, USMP_SOURCE_OPTIONS);
	usmp_registry_destroy(r);
	free(path);
}

Test(select, bad_override_names_the_spec)
{
	usmp_registry *r = load("good_v1_1");
	usmp_selection s = {.struct_size = sizeof s};
	cr_assert_eq(usmp_registry_select(r, "t", "fx_good:ordr=x", &s),
	             USMP_ERR_NOT_FOUND);
	assert_contains(usmp_registry_error(r), "\"fx_good:ordr=x\"");
	assert_contains(usmp_registry_error(r), "has no knob \"ordr\"");
	cr_assert_eq(usmp_registry_select(r, "t", "nope", &s), USMP_ERR_NOT_FOUND);
	assert_contains(usmp_registry_error(r), "no algorithm \"nope\"");
	usmp_registry_destroy(r);
}

Test(select, selection_copies_only_up_to_struct_size)
{
	usmp_registry *r = load("good_v1_1");
	usmp_selection s;
	memset(&s, 0xCD, sizeof s);
	s.struct_size = offsetof(usmp_selection, params);
	cr_assert_eq(usmp_registry_select(r, "t", "fx_plain", &s), USMP_OK);
	cr_assert_str_eq(s.algorithm, "fx_plain");
	const unsigned char *tail = (const unsigned char *)&s.params;
	for (size_t i = 0; i < sizeof s - offsetof(usmp_selection, params); i++)
		cr_assert_eq(tail[i], 0xCD);
	usmp_registry_destroy(r);
}

Test(resolve, applies_rule_knobs_then_option_knobs)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_bind_rules(r, "npu=fx_good:seed=3"), USMP_OK);
	const usmp__algo *a;
	usmp__knobs k;
	char *rule = NULL, *msg = NULL;
	int source = 0;
	const char *params[] = {"order=none"};
	usmp_plan_options o = {.struct_size = sizeof o, .params = params,
	                       .param_count = 1};
	cr_assert_eq(usmp__registry_resolve(r, "npu", &o, &a, &k, &rule, &source,
	                                    &msg),
	             USMP_OK, "%s", msg);
	cr_assert_str_eq(a->name, "fx_good");
	cr_assert_eq(source, USMP_SOURCE_API);
	cr_assert_str_eq(rule, "npu=fx_good:seed=3");
	char *d = usmp__knobs_describe(&k);
	cr_assert_str_eq(d, "seed=3 order=none");
	free(d);
	free(rule);
	usmp__knobs_finish(&k);

	/* options' algorithm plus its knobs where no API rule matches */
	o.algorithm = "fx_good:seed=11";
	const char *p2[] = {"seed=12"};
	o.params = p2;
	cr_assert_eq(usmp__registry_resolve(r, "cpu", &o, &a, &k, &rule, &source,
	                                    &msg),
	             USMP_OK, "%s", msg);
	cr_assert_eq(source, USMP_SOURCE_OPTIONS);
	cr_assert_eq(k.values[0].u64, 12u);
	cr_assert_str_eq(rule, "fx_good:seed=11");
	free(rule);
	usmp__knobs_finish(&k);

	/* a wrong option knob is refused, naming it and the rule */
	const char *p3[] = {"seed=-4"};
	o.params = p3;
	cr_assert_eq(usmp__registry_resolve(r, "cpu", &o, &a, &k, &rule, &source,
	                                    &msg),
	             USMP_ERR_INVALID);
	assert_contains(msg, "option \"seed=-4\"");
	assert_contains(msg, "knob \"seed\" of \"fx_good\" expects u64, got \"-4\"");
	usmp__free_msg(&msg);
	usmp_registry_destroy(r);
}

/* ---- concurrency -------------------------------------------------------- */

typedef struct worker {
	usmp_registry *r;
	int failures;
} worker;

static void *resolve_loop(void *arg)
{
	worker *w = arg;
	for (int i = 0; i < 2000; i++) {
		usmp_selection s = {.struct_size = sizeof s};
		const char *target = (i & 1) ? "ethos-u55" : "cortex-m4";
		const char *want = (i & 1) ? "fx_plain" : "fx_good";
		if (usmp_registry_select(w->r, target, NULL, &s) != USMP_OK ||
		    strcmp(s.algorithm, want) != 0)
			w->failures++;
		const char *ov = (i % 3 == 0) ? "fx_good:seed=1" : "fx_good:seed=2";
		if (usmp_registry_select(w->r, "zzz", ov, &s) != USMP_OK ||
		    strcmp(s.rule, ov) != 0)
			w->failures++;
		const usmp__algo *a;
		usmp__knobs k;
		char *rule = NULL, *msg = NULL;
		int source;
		if (usmp__registry_resolve(w->r, target, NULL, &a, &k, &rule, &source,
		                           &msg) != USMP_OK ||
		    strcmp(a->name, want) != 0)
			w->failures++;
		else
			usmp__knobs_finish(&k);
		free(rule);
		usmp__free_msg(&msg);
		if (usmp_registry_select(w->r, "t", "no_such_algo", &s) !=
		        USMP_ERR_NOT_FOUND ||
		    strstr(usmp_registry_error(w->r), "no_such_algo") == NULL)
			w->failures++;
		uint32_t idx;
		if (usmp_registry_find_algorithm(w->r, "fx_good", &idx) != USMP_OK)
			w->failures++;
	}
	return NULL;
}

Test(select, concurrent_select_and_resolve_agree)
{
	usmp_registry *r = load("good_v1_1");
	cr_assert_eq(usmp_registry_bind_rules(r, "ethos-*=fx_plain;cortex*=fx_good:seed=2"),
	             USMP_OK);
	pthread_t th[4];
	worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i].r = r;
		w[i].failures = 0;
		cr_assert_eq(pthread_create(&th[i], NULL, resolve_loop, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(w[i].failures, 0, "thread %d: %d failures", i,
		             w[i].failures);
	}
	usmp_registry_destroy(r);
}

/* usmp_registry_error answers for the calling thread: a failure in another
 * thread sharing the registry does not replace this thread's message. */
typedef struct erring {
	usmp_registry *r;
	pthread_barrier_t *after_fail, *after_read;
	const char *algorithm;
	char seen[256];
} erring;

static void *fail_then_read(void *arg)
{
	erring *e = arg;
	usmp_registry_bind(e->r, "t*", e->algorithm, NULL, 0);
	pthread_barrier_wait(e->after_fail); /* both have failed */
	snprintf(e->seen, sizeof e->seen, "%s", usmp_registry_error(e->r));
	pthread_barrier_wait(e->after_read);
	return NULL;
}

Test(select, each_thread_reads_its_own_registry_error)
{
	usmp_registry *r = load("good_v1_1");
	pthread_barrier_t b1, b2;
	pthread_barrier_init(&b1, NULL, 2);
	pthread_barrier_init(&b2, NULL, 2);
	erring e[2] = {{r, &b1, &b2, "nosuch_one", ""},
	               {r, &b1, &b2, "nosuch_two", ""}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, fail_then_read, &e[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_contains(e[0].seen, "nosuch_one");
	assert_contains(e[1].seen, "nosuch_two");
	/* This thread made no failing call. */
	cr_assert_str_eq(usmp_registry_error(r), "");
	pthread_barrier_destroy(&b1);
	pthread_barrier_destroy(&b2);
	usmp_registry_destroy(r);
}
