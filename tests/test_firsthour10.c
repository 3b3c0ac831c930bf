/* test_firsthour10.c — a compiler engineer's first hour, round 10: the host
 * side (a C++ dlopen table, option flags, a failed write, reusing a problem). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

static void assert_has(const char *text, const char *want)
{
	cr_assert(strstr(text, want), "no \"%s\" in:\n%s", want, text);
}

/* The registry's diagnostic that contains `what`, or NULL. */
static const char *diagnostic_with(const usmp_registry *r, const char *what)
{
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		if (strstr(usmp_registry_diagnostic(r, i), what))
			return usmp_registry_diagnostic(r, i);
	return NULL;
}

/* Two 64-byte buffers alive together that prefer a 100-byte "sram"; a
 * "dram" without a limit; b lists sram alone (so no plan fits yet). */
static usmp_problem *two_in_sram(uint32_t *sram, uint32_t *dram, uint32_t *a,
                                 uint32_t *b)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 100, 16, sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 16, dram),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "conv1.out", 64, 16, a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "relu1.out", 64, 16, b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, *a, 0, 3), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, *b, 1, 4), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, *a, *sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, *b, *sram), USMP_OK);
	return p;
}

/* ---- docs/hosts.md's loader as C++ -------------------------------------- */

/* The loader of docs/hosts.md, "Loading libusmp at run time" (from its
 * #include <dlfcn.h> to the closing fence), with the table's field written
 * as the page says for C++ (decltype(&::fn) fn;), compiled by c++ as
 * C++17 with -Wall -Wextra -Werror, links nothing of usmp and loads the
 * built library. The unqualified decltype(&fn) fn; the header and the page
 * gave made g++ refuse every field ("changes meaning of 'usmp_version'").
 * The same block compiles as ISO C11 with -pedantic. */
Test(firsthour10, the_hosts_md_loader_compiles_as_cxx_and_iso_c)
{
	char *path = test_join(test_source_root(), "docs/hosts.md");
	char *doc = test_read_file(path);
	cr_assert_not_null(doc, "%s", path);
	assert_has(doc, "`decltype(&::fn) fn;` in C++");
	char *hdr_path = test_join(test_source_root(), "include/usmp/usmp.h");
	char *hdr = test_read_file(hdr_path);
	cr_assert_not_null(hdr);
	assert_has(hdr, "(C++: decltype(&::fn) fn;)");
	char *code = test_hosts_md_loader();
	char *all = test_fmt("%s\nint main(int argc, char **argv)\n{\n"
	                     "\tif (argc != 2 || usmp_load(argv[1]))\n"
	                     "\t\treturn 1;\n"
	                     "\tprintf(\"usmp %%s %%s\\n\", U.usmp_version(),\n"
	                     "\t       U.usmp_status_name(USMP_ERR_INFEASIBLE));\n"
	                     "\treturn 0;\n}\n", code);
	char *field = strstr(all, "__typeof__(&fn) fn;");
	cr_assert_not_null(field, "the C field is no longer __typeof__(&fn):\n%s",
	                   all);
	*field = '\0';
	char *cxx = test_fmt("%sdecltype(&::fn) fn;%s", all,
	                     field + strlen("__typeof__(&fn) fn;"));
	*field = '_';
	char *dir = test_fresh_dir("fh10-loader");
	test_write_in(dir, "loader.c", all, strlen(all));
	test_write_in(dir, "loader.cpp", cxx, strlen(cxx));
	char *sanflag = test_sanitize_flag();
	char *cmd = test_fmt(
		"cd '%s' && c++ -std=c++17 -Wall -Wextra -Werror %s -I'%s/include' "
		"-o loader_cxx loader.cpp -ldl && "
		"cc -std=c11 -pedantic -Wall -Wextra -Werror %s -I'%s/include' "
		"-o loader_c loader.c -ldl && "
		"! readelf -d loader_cxx | grep -q libusmp && "
		"./loader_cxx '%s/src/libusmp.so.1' && ./loader_c '%s/src/libusmp.so.1'",
		dir, sanflag, test_source_root(), sanflag, test_source_root(),
		test_build_root(), test_build_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s\n%s", st, cmd, cxx, out);
	cr_assert(!strncmp(out, "usmp ", 5), "%s", out);
	assert_has(out, " infeasible\nusmp ");
	free(out);
	free(cmd);
	free(sanflag);
	free(dir);
	free(cxx);
	free(all);
	free(code);
	free(hdr);
	free(hdr_path);
	free(doc);
	free(path);
}

/* ---- option flags -------------------------------------------------------- */

/* usmp_plan_options.flags given a usmp_registry_flag (USMP_REGISTRY_NO_SCAN,
 * 0x8: both enums start at bit 0), both isolation flags, or param_count
 * with params NULL: refused naming the field, where each was ignored (the
 * plan made as if the bit or the knobs were not there). */
Test(firsthour10, plan_options_the_library_cannot_honour_are_refused)
{
	uint32_t sram, dram, a, b;
	usmp_problem *p = two_in_sram(&sram, &dram, &a, &b);
	cr_assert_eq(usmp_problem_add_candidate(p, b, dram), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	static const struct {
		uint32_t flags, param_count;
		const char *want;
	} cases[] = {
		{USMP_REGISTRY_NO_SCAN, 0,
		 "usmp_plan_options.flags is 0x8: bits 0x8 are no usmp_plan_flag of "
		 "this library (known: USMP_PLAN_ISOLATE 0x1, USMP_PLAN_NO_ISOLATE "
		 "0x2; a usmp_registry_flag belongs in usmp_registry_options.flags)"},
		{USMP_PLAN_NO_ISOLATE | 0x100u, 0,
		 "usmp_plan_options.flags is 0x102: bits 0x100 are no usmp_plan_flag"},
		{USMP_PLAN_ISOLATE | USMP_PLAN_NO_ISOLATE, 0,
		 "usmp_plan_options.flags sets both USMP_PLAN_ISOLATE and "
		 "USMP_PLAN_NO_ISOLATE: set one, or neither for the default"},
		{0, 2,
		 "usmp_plan_options.param_count is 2 but params is NULL: point "
		 "params at that many \"key=value\" strings, or set param_count to 0"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = cases[i].flags,
		                       .algorithm = "first_fit",
		                       .param_count = cases[i].param_count};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &o, &plan);
		cr_assert_eq(rc, USMP_ERR_INVALID, "case %zu: %s", i,
		             usmp_plan_error(plan));
		cr_assert_eq(usmp_plan_status(plan), USMP_ERR_INVALID);
		assert_has(usmp_plan_error(plan), cases[i].want);
		usmp_plan_destroy(plan);
	}
	/* Each known flag alone plans. */
	uint32_t fine[] = {0, USMP_PLAN_ISOLATE, USMP_PLAN_NO_ISOLATE};
	for (size_t i = 0; i < 3; i++) {
		usmp_plan_options o = {.struct_size = sizeof o, .flags = fine[i],
		                       .algorithm = "first_fit"};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s",
		             usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* usmp_registry_options.flags given a usmp_plan_flag's bit past the
 * registry's (0x40), or SCAN_ALL with NO_SCAN: the registry is made, and a
 * diagnostic says what was ignored, where nothing did. */
Test(firsthour10, registry_flags_the_library_does_not_know_are_said)
{
	char *dir = test_join(test_build_root(), "plugins");
	usmp_registry_options o = {
		.struct_size = sizeof o,
		.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS | 0x40u,
		.plugin_path = dir,
	};
	usmp_registry *r = NULL;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	const char *d = diagnostic_with(r, "usmp_registry_options.flags is 0x43");
	cr_assert_not_null(d, "%u diagnostics", usmp_registry_diagnostic_count(r));
	assert_has(d, "bits 0x40 are no usmp_registry_flag of this library and "
	              "are ignored");
	cr_assert_eq(usmp_registry_diagnostic_kind(r, 0), USMP_DIAG_OTHER);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 0), d); /* first */
	uint32_t i;
	cr_assert_eq(usmp_registry_find_algorithm(r, "exact", &i), USMP_OK);
	usmp_registry_destroy(r);

	o.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS |
	          USMP_REGISTRY_SCAN_ALL | USMP_REGISTRY_NO_SCAN;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	d = diagnostic_with(r, "sets both USMP_REGISTRY_SCAN_ALL and "
	                       "USMP_REGISTRY_NO_SCAN: NO_SCAN wins");
	cr_assert_not_null(d);
	cr_assert_null(diagnostic_with(r, "are no usmp_registry_flag"));
	usmp_registry_destroy(r);

	/* Known flags alone: no such line (test_registry asserts none). */
	r = test_registry(NULL);
	usmp_registry_destroy(r);
	free(dir);
}

/* ---- the plan after a failed write --------------------------------------- */

/* A usmp_plan_write into a directory that does not exist: the plan's
 * status is the write's (USMP_ERR_IO, naming the file) until the next
 * write, while its placements and sizes read as before; a write that
 * succeeds puts USMP_OK and "" back. usmp.h said the failure held "until
 * the next call on the plan", though a placement query changes nothing. */
Test(firsthour10, a_failed_write_leaves_the_plan_readable)
{
	uint32_t sram, dram, a, b;
	usmp_problem *p = two_in_sram(&sram, &dram, &a, &b);
	cr_assert_eq(usmp_problem_add_candidate(p, b, dram), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	uint32_t pool_before, pool_after;
	uint64_t off_before, off_after;
	cr_assert_eq(usmp_plan_placement(plan, b, &pool_before, &off_before),
	             USMP_OK);
	uint64_t sram_size = usmp_plan_pool_size(plan, sram);

	char *dir = test_fresh_dir("fh10-write");
	char *bad = test_fmt("%s/no/such/dir/plan.json", dir);
	cr_assert_eq(usmp_plan_write(plan, p, bad, USMP_FORMAT_JSON), USMP_ERR_IO);
	cr_assert_eq(usmp_plan_status(plan), USMP_ERR_IO);
	assert_has(usmp_plan_error(plan), bad);
	assert_has(usmp_plan_error(plan), "cannot open for writing");
	/* The placements do not depend on the file. */
	cr_assert_eq(usmp_plan_placement(plan, b, &pool_after, &off_after), USMP_OK);
	cr_assert_eq(pool_after, pool_before);
	cr_assert_eq(off_after, off_before);
	cr_assert_eq(usmp_plan_pool_size(plan, sram), sram_size);
	cr_assert_eq(usmp_plan_status(plan), USMP_ERR_IO); /* a query keeps it */

	char *good = test_join(dir, "plan.json");
	cr_assert_eq(usmp_plan_write(plan, p, good, USMP_FORMAT_JSON), USMP_OK);
	cr_assert_eq(usmp_plan_status(plan), USMP_OK);
	cr_assert_str_eq(usmp_plan_error(plan), "");
	free(good);
	free(bad);
	free(dir);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- reusing a problem --------------------------------------------------- */

/* A problem after errors, as a compiler retries: an infeasible plan (the
 * spill advice names relu1.out and dram), the advice followed on the same
 * problem (usmp_problem_add_candidate), planned again; a failed
 * usmp_problem_set_live or _set_fixed leaves what the buffer had, a second
 * one that succeeds replaces it, and the next plan sees each change. */
Test(firsthour10, a_problem_is_reused_after_errors)
{
	uint32_t sram, dram, a, b;
	usmp_problem *p = two_in_sram(&sram, &dram, &a, &b);
	cr_assert_eq(usmp_problem_add_pool_target(p, sram, "npu"), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool_target(p, dram, "npu"), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
	usmp_infeasibility why = {.struct_size = sizeof why};
	cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_OK);
	cr_assert_eq(why.kind, USMP_INFEASIBLE_STEP);
	cr_assert_eq(why.move_count, 1);
	cr_assert_eq(why.move_pools[0], dram);
	uint32_t move = why.move_buffers[0];
	usmp_plan_destroy(plan);

	cr_assert_eq(usmp_problem_add_candidate(p, move, dram), USMP_OK);
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	uint32_t pool;
	uint64_t off;
	cr_assert_eq(usmp_plan_placement(plan, move, &pool, &off), USMP_OK);
	cr_assert_eq(pool, dram);
	usmp_plan_destroy(plan);

	/* A failed set_live keeps [1, 4); a second set_live replaces it. */
	usmp_buffer_info bi = {.struct_size = sizeof bi};
	cr_assert_eq(usmp_problem_set_live(p, b, 6, 6), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_buffer_info(p, b, &bi), USMP_OK);
	cr_assert(bi.live && bi.begin == 1 && bi.end == 4, "[%lld, %lld)",
	          (long long)bi.begin, (long long)bi.end);
	cr_assert_eq(usmp_problem_set_live(p, b, 3, 5), USMP_OK);
	cr_assert_eq(usmp_problem_buffer_info(p, b, &bi), USMP_OK);
	cr_assert(bi.begin == 3 && bi.end == 5);
	/* Apart in time now: both fit in sram, the plan sees it. */
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	cr_assert_eq(usmp_plan_placement(plan, b, &pool, &off), USMP_OK);
	cr_assert_eq(pool, sram);
	cr_assert_eq(usmp_plan_pool_size(plan, dram), 0);
	usmp_plan_destroy(plan);

	/* A failed set_fixed keeps the placement imposed before; a second
	 * one replaces it. */
	cr_assert_eq(usmp_problem_set_fixed(p, a, sram, 32), USMP_OK);
	cr_assert_eq(usmp_problem_set_fixed(p, a, sram, 96), USMP_ERR_INVALID);
	assert_has(usmp_problem_error(p), "exceeds the size limit 100 of pool "
	                                  "\"sram\"");
	cr_assert_eq(usmp_problem_buffer_info(p, a, &bi), USMP_OK);
	cr_assert_eq(bi.fixed_pool, sram);
	cr_assert_eq(bi.fixed_offset, 32);
	cr_assert_eq(usmp_problem_set_fixed(p, a, sram, 16), USMP_OK);
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	cr_assert_eq(usmp_plan_placement(plan, a, &pool, &off), USMP_OK);
	cr_assert_eq(pool, sram);
	cr_assert_eq(off, 16);
	usmp_plan_destroy(plan);

	/* A lookup that fails sets no message: the builder's stays. */
	uint32_t id = 77;
	cr_assert_eq(usmp_problem_find_buffer(p, "conv2.out", &id),
	             USMP_ERR_NOT_FOUND);
	cr_assert_eq(id, 77);
	assert_has(usmp_problem_error(p), "exceeds the size limit 100");
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A plan verified, simulated or written after its problem gained a buffer
 * (a compiler that planned, then added a late tensor): "the problem
 * changed after this plan was made ...: plan it again", where it said
 * "the plan has 2 buffers and 2 pools, the problem 3 and 2" of the very
 * problem the plan came from. Another problem of other counts is still
 * "not for this problem". */
Test(firsthour10, a_plan_of_a_problem_that_grew_says_plan_it_again)
{
	uint32_t sram, dram, a, b, c;
	usmp_problem *p = two_in_sram(&sram, &dram, &a, &b);
	cr_assert_eq(usmp_problem_add_candidate(p, b, dram), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "late.out", 16, 16, &c), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, c, 0, 2), USMP_OK);
	const char *want = "the problem changed after this plan was made: it has "
	                   "3 buffers and 2 pools, the plan 2 and 2: plan it again";
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_ERR_INVALID_PLAN);
	assert_has(usmp_plan_error(plan), want);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_ERR_INVALID_PLAN);
	assert_has(usmp_plan_error(plan), want);
	char *dir = test_fresh_dir("fh10-grew");
	char *out = test_join(dir, "plan.json");
	cr_assert_eq(usmp_plan_write(plan, p, out, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	assert_has(usmp_plan_error(plan), want);
	cr_assert_eq(usmp_plan_placement(plan, c, NULL, NULL), USMP_ERR_INVALID);

	/* Planned again, the plan has the late buffer. */
	usmp_plan *again = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &again), USMP_OK);
	cr_assert_eq(usmp_plan_placement(again, c, NULL, NULL), USMP_OK);
	cr_assert_eq(usmp_plan_verify(again, p), USMP_OK);
	usmp_plan_destroy(again);

	/* Another problem (one buffer): not this plan's. */
	usmp_problem *q = usmp_problem_create();
	uint32_t qs, qb;
	cr_assert_eq(usmp_problem_add_pool(q, "sram", 100, 16, &qs), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(q, "x", 16, 16, &qb), USMP_OK);
	cr_assert_eq(usmp_plan_verify(plan, q), USMP_ERR_INVALID_PLAN);
	assert_has(usmp_plan_error(plan), "the plan (2 buffers, 2 pools) is not "
	                                  "for this problem (1 buffer, 1 pool)");
	usmp_problem_destroy(q);
	free(out);
	free(dir);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* An infeasible plan whose first part (a buffer in "dtcm") was planned
 * before its second (two buffers too many for "sram") failed: no buffer
 * is placed and every pool size is 0, where the first part's buffer
 * answered USMP_OK at offset 0 while usmp_plan_pool_size said 0 and the
 * header said a failed plan places nothing. The parts still say which was
 * planned and which failed. */
Test(firsthour10, a_failed_plan_places_no_buffer)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t dtcm, sram, c, a, b;
	cr_assert_eq(usmp_problem_add_pool(p, "dtcm", 100, 1, &dtcm), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 100, 1, &sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 60, 1, &c), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 60, 1, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 60, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, c, 1, 3), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, c, dtcm), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, a, sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, b, sram), USMP_OK);
	usmp_registry *r = test_registry(NULL);
	const char *algos[] = {NULL, "first_fit", "exact"};
	for (size_t k = 0; k < 3; k++) {
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .algorithm = algos[k]};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INFEASIBLE,
		             "%s", usmp_plan_error(plan));
		for (uint32_t i = 0; i < 3; i++) {
			uint32_t pool = 7;
			uint64_t off = 7;
			cr_assert_eq(usmp_plan_placement(plan, i, &pool, &off),
			             USMP_ERR_NOT_FOUND, "%s: buffer %u placed",
			             algos[k] ? algos[k] : "auto", i);
			cr_assert_eq(pool, USMP_NO_POOL);
			cr_assert_eq(off, 0);
		}
		cr_assert_eq(usmp_plan_pool_size(plan, dtcm), 0);
		cr_assert_eq(usmp_plan_pool_size(plan, sram), 0);
		cr_assert_eq(usmp_plan_part_count(plan), 2);
		usmp_part_info first = {.struct_size = sizeof first};
		usmp_part_info failed = {.struct_size = sizeof failed};
		cr_assert_eq(usmp_plan_part(plan, 0, &first), USMP_OK);
		cr_assert_eq(usmp_plan_part(plan, 1, &failed), USMP_OK);
		cr_assert_eq(first.buffer_count, 1);
		cr_assert_eq(first.size, 60);
		cr_assert_eq(failed.buffer_count, 2);
		assert_has(usmp_plan_error(plan), "(part 2: target none; pool sram;");
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A plan file refused half-way (its second placement names a pool the
 * problem lacks): no buffer is placed, as after a failed
 * usmp_plan_compute (usmp.h now says so of both). */
Test(firsthour10, a_plan_file_refused_half_way_places_no_buffer)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 1000}],"
		" \"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\": [0, 2]},"
		" {\"name\": \"b\", \"size\": 16, \"live\": [1, 3]}]}",
		"model.json");
	const char *plan_json =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"pool\": \"sram\", \"offset\": 0},"
		"{\"name\": \"b\", \"pool\": \"dram\", \"offset\": 0}]}";
	char *path = test_write_tmp(".json", plan_json);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_read(p, path, USMP_FORMAT_JSON, &plan),
	             USMP_ERR_INVALID);
	assert_has(usmp_plan_error(plan), "unknown pool \"dram\"");
	cr_assert_eq(usmp_plan_placement(plan, 0, NULL, NULL), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_plan_placement(plan, 1, NULL, NULL), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 0);
	usmp_plan_destroy(plan);
	free(path);
	usmp_problem_destroy(p);
}
