/* test_redteam3.c — a third adversarial pass: knob settings given twice in
 * a rule, sums of pool sizes past 64 bits in what the command and the
 * picture say, and a round trip of every algorithm's plans. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry_private.h"

/* ---- a knob set twice in one rule ---------------------------------------- */

/* `usmp select` showed the first value of a knob a spec sets twice while
 * `usmp plan` planned with the last: the spec is refused instead, as `-p`
 * twice is. */
Test(redteam3, a_knob_set_twice_in_one_spec_is_refused)
{
	char *pp = test_write_tmp(".json",
	                          "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                          "\"size\": 4, \"live\": [0, 2]}]}");
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM="
	                     "'*=first_fit:order=size:order=area' '%s' plan '%s' "
	                     "-o /dev/null", test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "USMP_ALGORITHM rule \"*=first_fit:order=size:"
	                      "order=area\": knob \"order\" set twice (order=size, "
	                      "then order=area)"),
	          "%s", out);
	free(out);
	free(cmd);

	st = test_usmp(&out, "plan '%s' -a first_fit:order=size:order=area "
	                     "-o /dev/null", pp);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "knob \"order\" set twice"), "%s", out);
	free(out);
	st = test_usmp(&out, "select npu -a first_fit:order=size:order=area");
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "algorithm spec \"first_fit:order=size:order=area\""
	                      ": knob \"order\" set twice"),
	          "%s", out);
	free(out);

	/* -p over the spec's value still overrides it (accepted on purpose) */
	st = test_usmp(&out, "plan '%s' -a first_fit:order=size -p order=area "
	                     "-o /dev/null", pp);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "algorithm first_fit (order=area)"), "%s", out);
	free(out);
	free(pp);
}

/* Through the API: the selection's params hold one value per knob, the
 * one the algorithm gets; a knob twice among the params array is refused. */
Test(redteam3, a_selection_holds_one_value_per_knob)
{
	usmp_registry *r = test_registry(NULL);
	const char *area[] = {"order=area"};
	cr_assert_eq(usmp_registry_bind(r, "npu", "first_fit:order=size", area, 1),
	             USMP_OK, "%s", usmp_registry_error(r));
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "first_fit");
	cr_assert_str_eq(sel.params, "order=area");

	const char *twice[] = {"order=area", "order=lifetime"};
	cr_assert_eq(usmp_registry_bind(r, "gpu", "best_fit", twice, 2),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_registry_error(r), "knob \"order\" set twice "
	                                         "(order=area, then order=lifetime)"),
	          "%s", usmp_registry_error(r));
	cr_assert_eq(usmp_registry_select(r, "cpu", "best_fit:order=area:"
	                                  "order=size", &sel),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_registry_bind_rules(r, "x*=best_fit:order=all:order=all"),
	             USMP_ERR_INVALID);
	usmp_registry_destroy(r);
}

/* ---- sums of pool sizes past 64 bits -------------------------------------- */

/* p0 holds two buffers of 2^63 - 1 bytes alive together (2^64 - 2 bytes),
 * p1 one of 4: together 2^64 + 2, which wrapped to 2. */
static const char wide_problem[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"p0\"}, {\"name\": \"p1\"}], "
	"\"buffers\": [{\"name\": \"a\", \"size\": 9223372036854775807, "
	"\"live\": [0, 2], \"pools\": [\"p0\"]}, {\"name\": \"b\", "
	"\"size\": 9223372036854775807, \"live\": [0, 2], \"pools\": [\"p0\"]}, "
	"{\"name\": \"c\", \"size\": 4, \"live\": [1, 3], \"pools\": [\"p1\"]}]}";

Test(redteam3, verify_says_a_total_past_64_bits_without_wrapping)
{
	/* p0 holds one 2^63 - 1 buffer at 2^63 - 1 (its end 2^64 - 2) */
	char *pp = test_write_tmp(".json",
	                          "{\"usmp\": 1, \"pools\": [{\"name\": \"p0\"}, "
	                          "{\"name\": \"p1\"}], \"buffers\": [{\"name\": "
	                          "\"a\", \"size\": 9223372036854775807, \"live\": "
	                          "[0, 2], \"pools\": [\"p0\"]}, {\"name\": \"c\", "
	                          "\"size\": 4, \"live\": [1, 3], \"pools\": "
	                          "[\"p1\"]}]}");
	char *plan = test_write_tmp(".json",
	                            "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                            "\"pool\": \"p0\", \"offset\": "
	                            "9223372036854775807}, {\"name\": \"c\", "
	                            "\"pool\": \"p1\", \"offset\": 0}]}");
	char *out = NULL;
	int st = test_usmp(&out, "verify '%s' '%s'", pp, plan);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "(2 buffers, more than 18446744073709551615 bytes "
	                      "in all pools)"),
	          "%s", out);
	free(out);
	free(plan);
	free(pp);
}

Test(redteam3, svg_header_says_totals_past_64_bits_without_wrapping)
{
	usmp_problem *p = test_parse_json(wide_problem, "wide.json");
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_pool_size(plan, 0), UINT64_MAX - 1);
	char *svg = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, svg), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *text = test_read_file(svg);
	cr_assert_not_null(text);
	/* the header's second line, up to its end */
	char *head = strstr(text, "<text class=\"lb\" x=\"16\" y=\"44\">");
	cr_assert_not_null(head, "%.2000s", text);
	char *end = strstr(head, "</text>");
	cr_assert_not_null(end);
	*end = '\0';
	cr_assert(strstr(head, "3 buffers, 2 pools; total size more than "
	                       "18446744073709551615 B"),
	          "%s", head);
	cr_assert(strstr(head, "lower bound more than 18446744073709551615 B"),
	          "%s", head);
	cr_assert_null(strstr(head, "ratio"), "%s", head);
	free(text);
	remove(svg);
	free(svg);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- the Python binding: what ctypes would pass on silently -------------- */

/* ctypes hands a C function the bytes of a Python string up to its first
 * NUL, and an int modulo 2^64 (int64) or 2^32 (indices): "a\0b" became
 * buffer "a", live=(0, 2**64 + 5) the range [0, 5), pool index 2**32 pool 0.
 * The binding now refuses each before calling the library. */
Test(redteam3, python_binding_refuses_what_ctypes_would_truncate)
{
	const char *san = getenv("USMP_TEST_SANITIZE");
	if (san && *san && strcmp(san, "none"))
		cr_skip_test("the Python interpreter cannot load a sanitized libusmp");
	static const char script[] =
		"import usmp\n"
		"p = usmp.Problem()\n"
		"p.add_pool('sram')\n"
		"p.add_buffer('z', 4, live=(0, 2))\n"
		"cases = [\n"
		" ('nul name', lambda: p.add_buffer('a\\0b', 4)),\n"
		" ('nul bytes', lambda: p.add_pool(b'x\\0y')),\n"
		" ('nul path', lambda: p.write('/tmp/x\\0.json')),\n"
		" ('live past int64', lambda: p.add_buffer('c', 4, live=(0, 2**64 + 5))),\n"
		" ('live below int64', lambda: p.set_live(0, -2**63 - 1, 3)),\n"
		" ('max_lead', lambda: p.add_overlap(0, 0, 2**64 + 1)),\n"
		" ('pool index', lambda: p.add_candidate(0, 2**32)),\n"
		" ('negative index', lambda: p.add_candidate(0, -2**32)),\n"
		" ('buffer index', lambda: p.set_live(2**32, 0, 1)),\n"
		" ('group', lambda: p.group_bound(2**32)),\n"
		"]\n"
		"for what, f in cases:\n"
		"    try:\n"
		"        f()\n"
		"        print(what, 'ACCEPTED')\n"
		"    except usmp.InvalidError as e:\n"
		"        print(what, 'refused:', e)\n"
		"print('buffers', p.buffers, 'pools', p.pools)\n";
	char *path = test_write_tmp(".py", script);
	char *cmd = test_fmt("cd '%s/python' && PYTHONDONTWRITEBYTECODE=1 "
	                     "PYTHONPATH='%s/python' USMP_LIBRARY='%s/src/"
	                     "libusmp.so.1' USMP_PLUGIN_PATH= python3 '%s'",
	                     test_source_root(), test_source_root(),
	                     test_build_root(), path);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_null(strstr(out, "ACCEPTED"), "%s", out);
	cr_assert(strstr(out, "nul name refused: 'a\\x00b': a NUL byte cannot be "
	                      "passed to libusmp"),
	          "%s", out);
	cr_assert(strstr(out, "live past int64 refused: end: out of range "
	                      "(int64): 18446744073709551621"),
	          "%s", out);
	cr_assert(strstr(out, "pool index refused: pool index out of range: "
	                      "4294967296"),
	          "%s", out);
	/* nothing was added by a refused call */
	cr_assert(strstr(out, "buffers ['z'] pools ['sram']"), "%s", out);
	free(out);
	free(cmd);
	remove(path);
	free(path);
}

/* ---- a long-lived host planning with ever new specs ----------------------- */

/* Every usmp_plan_compute whose options named a spec not seen before
 * ("hill_climb:seed=N", "exact:capacity=N") kept its parsed rule until the
 * registry was destroyed, found by a scan of all kept: memory grew without
 * bound and time with the square of the calls (32,000 plans: 5.7 s of CPU,
 * 10 MB). A plan's spec is now parsed for the call; usmp_registry_select
 * still keeps its own, as the strings it returns must live. */
Test(redteam3, planning_with_ever_new_specs_keeps_nothing)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 4, "
		"\"live\": [0, 2]}, {\"name\": \"b\", \"size\": 8, "
		"\"live\": [1, 3]}]}", "ever.json");
	usmp_registry *r = test_registry(NULL);
	for (int i = 0; i < 300; i++) {
		static const char *const orders[] = {"size", "area", "lifetime"};
		char spec[64];
		if (i % 2)
			snprintf(spec, sizeof spec, "hill_climb:seed=%d", i);
		else
			snprintf(spec, sizeof spec, "first_fit:order=%s", orders[i % 3]);
		usmp_plan_options o = {.struct_size = sizeof o, .algorithm = spec,
		                       .flags = USMP_PLAN_NO_ISOLATE};
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s: %s",
		             spec, usmp_plan_error(plan));
		usmp_part_info pi = {.struct_size = sizeof pi};
		cr_assert_eq(usmp_plan_part(plan, 0, &pi), USMP_OK);
		cr_assert_str_eq(pi.algorithm, i % 2 ? "hill_climb" : "first_fit");
		cr_assert(strstr(pi.params, strchr(spec, ':') + 1), "%s: %s", spec,
		          pi.params);
		cr_assert_str_eq(pi.rule, spec);
		usmp_plan_destroy(plan);
	}
	cr_assert_eq(r->kept.override_count, 0);
	/* a broken spec fails the plan each time, naming it */
	usmp_plan_options bad = {.struct_size = sizeof bad,
	                         .algorithm = "first_fit:order=size:order=area"};
	for (int k = 0; k < 2; k++) {
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, &bad, &plan), USMP_ERR_INVALID);
		cr_assert(strstr(usmp_plan_error(plan), "algorithm spec \"first_fit:"
		                                        "order=size:order=area\": knob "
		                                        "\"order\" set twice"),
		          "%s", usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	cr_assert_eq(r->kept.override_count, 0);
	/* a selection keeps its spec: its strings outlive the call */
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", "best_fit:order=area", &sel),
	             USMP_OK);
	cr_assert_eq(r->kept.override_count, 1);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "best_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
	usmp_plan_destroy(plan);
	cr_assert_str_eq(sel.params, "order=area");
	cr_assert_str_eq(sel.rule, "best_fit:order=area");
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- the plugin path ----------------------------------------------------- */

/* A FIFO or a device on the plugin path was "cannot read plugin directory";
 * it is skipped saying what it is, never opened (a FIFO would block). */
Test(redteam3, a_fifo_or_device_on_the_plugin_path_says_what_it_is)
{
	char *dir = test_fresh_dir("rt3-fifo");
	char *fifo = test_join(dir, "fifo.so");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *cases[][2] = {
		{fifo, "neither a plugin file nor a directory (a FIFO); skipped"},
		{"/dev/null", "/dev/null: neither a plugin file nor a directory (a "
		              "character device); skipped"},
	};
	for (int k = 0; k < 2; k++) {
		char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' "
		                     "list -v", cases[k][0], test_cli());
		char *out = NULL;
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "exit %d: %s", st, out);
		cr_assert(strstr(out, cases[k][1]), "%s", out);
		free(out);
		free(cmd);
	}
	remove(fifo);
	rmdir(dir);
	free(fifo);
	free(dir);
}
