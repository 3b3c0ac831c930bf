/* test_redteam3.c — a third adversarial pass: the command's options, output
 * and environment, hosts (specs, Python), sums past 64 bits, round trips. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle.h"
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
	out = test_usmp_ok("plan '%s' -a first_fit:order=size -p order=area "
	                         "-o /dev/null", pp);
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
	char *out = test_usmp_ok("verify '%s' '%s'", pp, plan);
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
	usmp_plan *plan = test_plan_ok(r, p, &o);
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
		"print('buffers', p.buffers, 'pools', p.pools)\n"
		"try:\n"
		"    usmp.Problem.parse('id,lower,upper,size\\nb1,0,3,4\\0\\n',\n"
		"                       name='m.csv', format='csv')\n"
		"except usmp.InvalidError as e:\n"
		"    print('parse:', e)\n";
	char *out = NULL;
	int st = test_python(script, 0, &out);
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
	/* text parsed with its length reaches the library, which names the
	 * line of a NUL byte */
	cr_assert(strstr(out, "parse: m.csv:2: NUL byte in the file"), "%s", out);
	/* nothing was added by a refused call */
	cr_assert(strstr(out, "buffers ['z'] pools ['sram']"), "%s", out);
	free(out);
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
		usmp_part_info pi = test_part(plan, 0);
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
		{fifo, "neither a plugin file nor a directory (a FIFO, an entry "
		       "of USMP_PLUGIN_PATH); skipped"},
		{"/dev/null", "/dev/null: neither a plugin file nor a directory (a "
		              "character device, an entry of USMP_PLUGIN_PATH); "
		              "skipped"},
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

/* ---- every algorithm's plans through files and back ----------------------- */

/* A random problem of 1-5 buffers in 1-3 pools (limits, alignments,
 * candidate lists, fixed buffers, edges, rules), described for the oracle. */
static usmp_problem *rt_problem(desc *d, uint64_t *s)
{
	static const oracle_shape shape = {
		.max_n = 5, .unbounded_pct = 20, .limit_lo = 6, .limit_hi = 20,
		.palign_one_pct = 70, .palign = {4}, .palign_count = 1,
		.align = {1, 1, 2, 4, 8}, .max_size = 7, .max_begin = 4,
		.cand_pct = 60, .second_cand_pct = 50, .edge_pct = 8,
		.fixed_pct = 15, .unbounded_room = 16,
		.rules_pct = 30, .lead_lo = -3, .lead_width = 6};
	return oracle_random(d, s, &shape);
}

/* The placements of two plans of one problem are the same. */
static void same_placements(usmp_plan *a, usmp_plan *b, uint32_t n,
                            const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pa, pb;
		uint64_t oa, ob;
		cr_assert_eq(usmp_plan_placement(a, i, &pa, &oa), USMP_OK);
		cr_assert_eq(usmp_plan_placement(b, i, &pb, &ob), USMP_OK, "%s: %s",
		             what, usmp_plan_error(b));
		cr_assert(pa == pb && oa == ob, "%s: buffer %u at %u:%" PRIu64
		          ", read back at %u:%" PRIu64, what, i, pa, oa, pb, ob);
	}
}

/* Every algorithm the registry lists, on random small problems: each plan
 * verifies; written as JSON it reads back to the same placements and parts
 * and writes again byte for byte; written as CSV when CSV holds it, it reads
 * back to the same placements; its claims hold against the oracle. */
Test(redteam3, every_listed_algorithms_plans_round_trip_and_claim_truly,
     .timeout = 300)
{
	const char *san = getenv("USMP_TEST_SANITIZE");
	uint64_t cases = san && *san && strcmp(san, "none") ? 60 : 300;
	uint64_t s = 20261204;
	usmp_registry *r = test_registry(NULL);
	uint32_t algos = usmp_registry_algorithm_count(r);
	cr_assert_geq(algos, 9);
	/* Each write is flushed to disk: on tmpfs, when there is one, that
	 * costs nothing. */
	struct stat shm;
	const char *dir = stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) &&
	                  access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	char *json = test_fmt("%s/usmp-rt3-%d.json", dir, (int)getpid());
	char *json2 = test_fmt("%s/usmp-rt3-%d-2.json", dir, (int)getpid());
	char *csv = test_fmt("%s/usmp-rt3-%d.csv", dir, (int)getpid());
	uint64_t planned = 0, csv_trips = 0, optimal = 0;
	for (uint64_t c = 0; c < cases; c++) {
		desc d;
		usmp_problem *p = rt_problem(&d, &s);
		for (uint32_t a = 0; a < algos; a++) {
			usmp_algorithm_info ai = {.struct_size = sizeof ai};
			cr_assert_eq(usmp_registry_algorithm(r, a, &ai), USMP_OK);
			char *what = test_fmt("seed 20261204 case %" PRIu64 " %s", c,
			                      ai.name);
			usmp_plan_options o = {.struct_size = sizeof o,
			                       .algorithm = ai.name,
			                       .flags = USMP_PLAN_NO_ISOLATE};
			usmp_plan *plan = NULL;
			int st = usmp_plan_compute(r, p, &o, &plan);
			if (st != USMP_OK) {
				cr_assert(st == USMP_ERR_INFEASIBLE ||
				          st == USMP_ERR_UNSUPPORTED, "%s: %s: %s", what,
				          usmp_status_name(st), usmp_plan_error(plan));
				usmp_plan_destroy(plan);
				free(what);
				continue;
			}
			planned++;
			cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s: %s", what,
			             usmp_plan_error(plan));
			oracle_check_claims(plan, &d, what);
			for (uint32_t k = 0; k < usmp_plan_part_count(plan); k++) {
				usmp_part_info pi = test_part(plan, k);
				optimal += pi.optimal != 0;
			}
			/* JSON: placements, parts, and the same bytes again */
			cr_assert_eq(usmp_plan_write(plan, p, json, USMP_FORMAT_JSON),
			             USMP_OK, "%s: %s", what, usmp_plan_error(plan));
			usmp_plan *back = NULL;
			cr_assert_eq(usmp_plan_read(p, json, USMP_FORMAT_JSON, &back),
			             USMP_OK, "%s: %s", what, usmp_plan_error(back));
			cr_assert_eq(usmp_plan_verify(back, p), USMP_OK, "%s: %s", what,
			             usmp_plan_error(back));
			same_placements(plan, back, d.n, what);
			cr_assert_eq(usmp_plan_part_count(back),
			             usmp_plan_part_count(plan), "%s", what);
			bool carried = true; /* every claim survives the file */
			for (uint32_t k = 0; k < usmp_plan_part_count(plan); k++) {
				usmp_part_info x = {.struct_size = sizeof x};
				usmp_part_info y = {.struct_size = sizeof y};
				usmp_plan_part(plan, k, &x);
				usmp_plan_part(back, k, &y);
				carried = carried && x.proven_bound == x.lower_bound;
				/* A proof above the lower bound is not carried
				 * by a file (docs/formats.md, "What a plan file
				 * claims"). */
				cr_assert(y.optimal == (x.optimal &&
				                        x.size == x.lower_bound) &&
				          y.proven_bound == x.lower_bound &&
				          x.size == y.size && x.group == y.group &&
				          !strcmp(x.algorithm, y.algorithm) &&
				          !strcmp(x.params, y.params),
				          "%s: part %u read back differs", what, k);
			}
			cr_assert_eq(usmp_plan_write(back, p, json2, USMP_FORMAT_JSON),
			             USMP_OK, "%s: %s", what, usmp_plan_error(back));
			char *t1 = test_read_file(json), *t2 = test_read_file(json2);
			cr_assert(t1 && t2 && (!carried || !strcmp(t1, t2)), "%s: a "
			          "plan read back writes other bytes:\n%s\n%s", what,
			          t1, t2);
			free(t1);
			free(t2);
			usmp_plan_destroy(back);
			/* CSV, when it holds the plan */
			st = usmp_plan_write(plan, p, csv, USMP_FORMAT_CSV);
			if (st == USMP_OK) {
				csv_trips++;
				back = NULL;
				cr_assert_eq(usmp_plan_read(p, csv, USMP_FORMAT_CSV, &back),
				             USMP_OK, "%s: %s", what, usmp_plan_error(back));
				cr_assert_eq(usmp_plan_verify(back, p), USMP_OK, "%s: %s",
				             what, usmp_plan_error(back));
				same_placements(plan, back, d.n, what);
				usmp_plan_destroy(back);
			} else {
				cr_assert_eq(st, USMP_ERR_UNSUPPORTED, "%s: %s", what,
				             usmp_plan_error(plan));
			}
			usmp_plan_destroy(plan);
			free(what);
		}
		usmp_problem_destroy(p);
	}
	cr_log_info("%" PRIu64 " cases, %" PRIu64 " plans, %" PRIu64
	            " through CSV, %" PRIu64 " parts claimed optimal", cases,
	            planned, csv_trips, optimal);
	/* the generator reaches what is checked */
	cr_assert_gt(planned, cases * algos / 2);
	cr_assert_gt(csv_trips, cases);
	cr_assert_gt(optimal, cases);
	remove(json);
	remove(json2);
	remove(csv);
	free(json);
	free(json2);
	free(csv);
	usmp_registry_destroy(r);
}

/* ---- usmp select of the untargeted part ----------------------------------- */

/* `usmp select ''` asks for the untargeted part (as target "" through the
 * API); it printed ": auto", a line with no name. */
Test(redteam3, select_of_the_empty_target_names_the_untargeted_part)
{
	char *out = test_usmp_ok("select ''");
	cr_assert(!strncmp(out, "(no target): auto\n", 18), "%s", out);
	free(out);
	out = test_usmp_ok("select npu '' --pool sram");
	cr_assert(!strncmp(out, "npu, (no target) (pools sram): auto\n", 36), "%s",
	          out);
	free(out);
}

/* ---- standard output on a full disk --------------------------------------- */

/* `usmp bound x.json > bounds.txt` on a full disk printed nothing and exited
 * 0, as did verify, simulate, list, select, --help and --version: what
 * they print to stdout is now checked at exit, as plan checks its plan. */
Test(redteam3, a_full_stdout_is_a_failure_of_every_command)
{
	struct stat st_full;
	if (stat("/dev/full", &st_full) != 0)
		cr_skip_test("no /dev/full here");
	char *pp = test_write_tmp(".json",
	                          "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                          "\"size\": 4, \"live\": [0, 2]}]}");
	char *plan = test_write_tmp(".json",
	                            "{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", "
	                            "\"pool\": \"default\", \"offset\": 0}]}");
	char *cmds[] = {
		test_fmt("bound '%s'", pp), test_fmt("verify '%s' '%s'", pp, plan),
		test_fmt("simulate '%s' '%s'", pp, plan), test_fmt("list -v"),
		test_fmt("select npu"), test_fmt("--help"), test_fmt("--version"),
		test_fmt("plan --help"), test_fmt("plan '%s' -q", pp),
	};
	for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
		char *out = NULL;
		int st = test_usmp(&out, "%s > /dev/full", cmds[k]);
		cr_assert_eq(st, 2, "%s: exit %d: %s", cmds[k], st, out);
		cr_assert(strstr(out, "usmp: <stdout>: write failed: No space left "
		                      "on device\n"),
		          "%s: %s", cmds[k], out);
		/* said once, also by plan, which checks its own write */
		cr_assert_null(strstr(strstr(out, "write failed") + 1, "write failed"),
		               "%s: %s", cmds[k], out);
		free(out);
		/* to a working stdout the same command is done */
		st = test_usmp(&out, "%s > /dev/null", cmds[k]);
		cr_assert_eq(st, 0, "%s: exit %d: %s", cmds[k], st, out);
		free(out);
		free(cmds[k]);
	}
	free(plan);
	free(pp);
}

/* ---- registries created by several threads at once ------------------------ */

static char *concurrent_path;

/* Ten registries one after another, each loading the scanned plugins of
 * concurrent_path: every one must load them all and note nothing. */
static void *create_registries(void *arg)
{
	intptr_t bad = 0;
	(void)arg;
	for (int k = 0; k < 10; k++) {
		usmp_registry *r = NULL;
		usmp_registry_options ro = {.struct_size = sizeof ro,
		                            .flags = USMP_REGISTRY_NO_ENV,
		                            .plugin_path = concurrent_path};
		uint32_t a;
		if (usmp_registry_create(&ro, &r) != USMP_OK ||
		    usmp_registry_diagnostic_count(r) != 0 ||
		    usmp_registry_find_algorithm(r, "fx_good", &a) != USMP_OK) {
			for (uint32_t i = 0; r && i < usmp_registry_diagnostic_count(r); i++)
				fprintf(stderr, "diagnostic: %s\n",
				        usmp_registry_diagnostic(r, i));
			bad++;
		}
		usmp_registry_destroy(r);
	}
	return (void *)bad;
}

/* usmp_registry_create is thread-safe, and reads a plugin from outside the
 * shipped directory in a forked scanner. A scanner forked while another
 * thread was inside dlopen() inherited the loader half way: its dlopen()
 * failed an assertion of ld.so ("Inconsistency detected by ld.so") or
 * waited until the 10 s scan limit, and the plugin was skipped in one
 * registry and not in another. usmp now forks only outside its dlopen(). */
Test(redteam3, registries_created_by_several_threads_load_the_same_plugins,
     .timeout = 120)
{
	concurrent_path = test_fmt("%s/good_v1_1.so:%s/good_v1_0.so",
	                           test_fixture_plugindir(),
	                           test_fixture_plugindir());
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, create_registries, NULL), 0);
	intptr_t bad = 0;
	for (int i = 0; i < 4; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		bad += (intptr_t)ret;
	}
	cr_assert_eq(bad, 0, "%" PRIdPTR " of 40 registries lost a plugin", bad);
	free(concurrent_path);
}

/* ---- spaces in a rule ---------------------------------------------------- */

/* Spaces around rules were ignored, not around their '=': in "npu =exact"
 * the pattern was "npu " and no target matched it, so the part silently
 * got the default; "npu= exact" named no algorithm " exact", a note, and
 * the part got the default too. */
Test(redteam3, spaces_around_a_rules_equals_sign_are_ignored)
{
	char *pp = test_write_tmp(".json",
	                          "{\"usmp\": 1, \"pools\": [{\"name\": \"p\", "
	                          "\"targets\": [\"npu\"]}], \"buffers\": [{\"name\": "
	                          "\"a\", \"size\": 4, \"live\": [0, 2]}]}");
	static const char *const rules[] = {"npu =exact", "npu= exact",
	                                    "npu = exact ; cpu = best_fit",
	                                    "\tnpu\t=\texact"};
	for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
		char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM='%s' '%s' plan "
		                     "'%s' -o /dev/null", rules[k], test_cli(), pp);
		char *out = NULL;
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "%s: exit %d: %s", rules[k], st, out);
		cr_assert(strstr(out, "target npu, algorithm exact"), "%s: %s",
		          rules[k], out);
		cr_assert_null(strstr(out, "note"), "%s: %s", rules[k], out);
		free(out);
		free(cmd);
	}
	usmp_registry *r = test_registry(NULL);
	cr_assert_eq(usmp_registry_bind_rules(r, "gpu = best_fit:order=area"),
	             USMP_OK, "%s", usmp_registry_error(r));
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "gpu", NULL, &sel), USMP_OK);
	cr_assert_str_eq(sel.algorithm, "best_fit");
	cr_assert_str_eq(sel.params, "order=area");
	usmp_registry_destroy(r);
	free(pp);
}
