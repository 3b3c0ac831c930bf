/* test_redteam5.c — a fifth adversarial pass: host misuse of the public API
 * (struct sizes), plan files against problems, and claims against an oracle. */
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

/* ---- usmp_plan_options whose struct_size cuts a field --------------------- */

/* usmp_plan_compute copied the caller's options by their struct_size, so a
 * size that ends inside a pointer (36: half of `target`; 52: half of
 * `cancel`) left half the caller's pointer in it, and the call crashed
 * (SIGSEGV) reading it. A field is now taken only when the size covers it
 * whole, as USMP_HAS_FIELD says; the others keep their defaults. */
Test(redteam5, options_whose_struct_size_cuts_a_field_are_read_whole)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, "
		"\"live\": [0, 2]}, {\"name\": \"b\", \"size\": 4, \"live\": "
		"[1, 3]}]}", "cut.json");
	usmp_registry *r = test_registry(NULL);
	static const char *const params[] = {"order=area"};
	static const volatile int no_cancel = 0;
	for (uint32_t size = 4; size <= sizeof(usmp_plan_options) + 8; size++) {
		usmp_plan_options o = {.struct_size = size,
		                       .flags = USMP_PLAN_NO_ISOLATE,
		                       .algorithm = "first_fit",
		                       .params = params,
		                       .param_count = 1,
		                       .target = "npu",
		                       .time_limit = 5.0,
		                       .cancel = &no_cancel};
		usmp_plan *plan = NULL;
		int st = usmp_plan_compute(r, p, &o, &plan);
		cr_assert_eq(st, USMP_OK, "struct_size %u: %s", size,
		             usmp_plan_error(plan));
		usmp_part_info pi = test_part(plan, 0);
		/* algorithm ends at 16, param_count at 28, target at 40 */
		const char *algo = size >= 16 ? "first_fit" : "auto";
		cr_assert(!strncmp(pi.algorithm, algo, strlen(algo)),
		          "struct_size %u: algorithm %s", size, pi.algorithm);
		if (size >= 28)
			cr_assert_str_eq(pi.params, "order=area", "struct_size %u",
			                 size);
		else if (size >= 16)
			cr_assert_str_eq(pi.params, "order=size", "struct_size %u",
			                 size);
		cr_assert_str_eq(pi.target, size >= 40 ? "npu" : "",
		                 "struct_size %u", size);
		usmp_plan_destroy(plan);
	}
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* ---- a path to standard output beside "-" ---------------------------------- */

static const char small_problem[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 8, "
	"\"live\": [0, 2]}, {\"name\": \"b\", \"size\": 8, \"live\": [1, 3]}]}\n";

/* `-o /dev/stdout --svg -` wrote both documents to standard output: into a
 * file, the second written over the first (the plan lost, exit 0); into a
 * pipe, one run into the other. A path naming the file standard output is
 * open on counts as "-", as `-o - --svg -` is refused. */
Test(redteam5, a_path_to_stdout_beside_dash_is_refused)
{
	char *dir = test_fresh_dir("rt5-stdout");
	test_write_in(dir, "m.json", small_problem, strlen(small_problem));
	static const char *const cases[][2] = {
		{"-o /dev/stdout --svg -", "-o /dev/stdout and --svg - would both "
		 "go to stdout (/dev/stdout is standard output's file)"},
		{"--svg /dev/fd/1", "the plan and --svg /dev/fd/1 would both go to "
		 "stdout (/dev/fd/1 is standard output's file)"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *out = NULL;
		int st = test_usmp(&out, "plan '%s/m.json' -q %s > '%s/out.txt'",
		                   dir, cases[k][0], dir);
		cr_assert_eq(st, 2, "%s: exit %d: %s", cases[k][0], st, out);
		cr_assert(strstr(out, cases[k][1]), "%s: %s", cases[k][0], out);
		free(out);
	}
	/* stdout's file by its name */
	char *out = NULL;
	char *cmd = test_fmt("cd '%s' && USMP_PLUGIN_PATH= '%s' plan m.json -q "
	                     "-o out.txt --svg - > out.txt", dir, test_cli());
	int st = test_run(cmd, &out);
	free(cmd);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "-o out.txt and --svg - would both go to stdout "
	                      "(out.txt is standard output's file)"), "%s", out);
	free(out);
	/* into a pipe */
	st = test_usmp(&out, "plan '%s/m.json' -q -o /dev/stdout --svg - | "
	                         "wc -c", dir);
	cr_assert(strstr(out, "would both go to stdout"), "exit %d: %s", st, out);
	free(out);
	/* a file and the picture on stdout, or /dev/null twice: fine */
	out = test_usmp_ok("plan '%s/m.json' -q -o /dev/stdout --svg '%s/p.svg' "
	                         "> '%s/out.txt'", dir, dir, dir);
	free(out);
	char *plan = test_fmt("%s/out.txt", dir);
	char *text = test_read_file(plan);
	cr_assert(text && !strncmp(text, "{\"usmp\": 1,", 11), "%s", text);
	free(text);
	free(plan);
	out = test_usmp_ok("plan '%s/m.json' -q -o /dev/null --svg - > /dev/null",
	                   dir);
	free(out);
	free(dir);
}

/* `usmp plan - -o m.json < m.json` replaced the problem file with its plan
 * (exit 0), where `usmp plan m.json -o m.json` is refused: the problem read
 * from standard input is compared with the outputs as a named one is. */
Test(redteam5, an_output_onto_the_problem_read_from_stdin_is_refused)
{
	char *dir = test_fresh_dir("rt5-stdin");
	test_write_in(dir, "m.json", small_problem, strlen(small_problem));
	char *path = test_join(dir, "m.json");
	static const char *const opts[] = {"-o", "--svg"};
	for (size_t k = 0; k < 2; k++) {
		char *out = NULL;
		int st = test_usmp(&out, "plan - -q %s '%s' < '%s'", opts[k], path,
		                   path);
		cr_assert_eq(st, 2, "%s: exit %d: %s", opts[k], st, out);
		char *want = test_fmt("%s %s names the problem file - (standard "
		                      "input); refusing to overwrite the input",
		                      opts[k], path);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
		char *text = test_read_file(path);
		cr_assert_str_eq(text, small_problem);
		free(text);
	}
	/* another file is written */
	char *out = test_usmp_ok("plan - -q -o '%s/plan.json' < '%s'", dir, path);
	free(out);
	free(path);
	free(dir);
}

/* ---- claims against the exhaustive oracle --------------------------------- */

/* A random problem of 1-5 buffers stressing alignment gaps (pool and
 * buffer alignments up to 16 over sizes of 1-6 bytes), fixed buffers, rules
 * and several pools, described for the oracle. */
static uint64_t max_n = 5;
static usmp_problem *gap_problem(desc *d, uint64_t *s)
{
	oracle_shape shape = {
		.max_n = max_n, .unbounded_pct = 25, .limit_lo = 4, .limit_hi = 40,
		.palign = {1, 1, 2, 8, 16}, .palign_count = 5,
		.align = {1, 2, 4, 8, 16}, .max_size = 6, .max_begin = 3,
		.cand_pct = 70, .second_cand_pct = 60, .edge_pct = 10,
		.fixed_pct = 20, .unbounded_room = 32,
		.rules_pct = 35, .lead_lo = -4, .lead_width = 8};
	return oracle_random(d, s, &shape);
}

Test(redteam5, claims_hold_against_the_oracle_on_alignment_gaps, .timeout = 120)
{
	static const char *const specs[] = {
		"auto", "exact", "exact:minimize=false", "exact:part=1",
		"exact:split=2", "first_fit", "best_fit", "greedy_by_size",
		"hill_climb:attempts=20"};
	uint64_t seed = test_env_u64("USMP_RT5_SEED", 20261205, NULL);
	uint64_t cases = test_env_u64("USMP_RT5_CASES", 60, NULL);
	max_n = test_env_u64("USMP_RT5_N", 5, NULL);
	uint64_t s = seed, planned = 0, optimal = 0;
	usmp_registry *r = test_registry(NULL);
	for (uint64_t c = 0; c < cases; c++) {
		desc d;
		usmp_problem *p = gap_problem(&d, &s);
		int fits = -1; /* a plan of the whole problem exists: unknown */
		/* the group bounds hold for any plan */
		for (uint32_t g = 0; g < d.groups; g++) {
			oracle least = oracle_run(&d, g, M_ANY, 0);
			if (least.found)
				cr_assert_leq(usmp_problem_prepare_group_bound(p, g),
				              least.best_total, "seed %" PRIu64 " case %"
				              PRIu64 " group %u", seed, c, g);
		}
		for (size_t a = 0; a < sizeof specs / sizeof *specs; a++) {
			char *what = test_fmt("seed %" PRIu64 " case %" PRIu64 " %s",
			                      seed, c, specs[a]);
			usmp_plan_options o = {.struct_size = sizeof o,
			                       .algorithm = specs[a],
			                       .flags = USMP_PLAN_NO_ISOLATE};
			usmp_plan *plan = NULL;
			int st = usmp_plan_compute(r, p, &o, &plan);
			if (st == USMP_OK) {
				planned++;
				optimal += oracle_check_claims(plan, &d, what);
			} else {
				cr_assert(st == USMP_ERR_INFEASIBLE ||
				          st == USMP_ERR_UNSUPPORTED, "%s: %s: %s", what,
				          usmp_status_name(st), usmp_plan_error(plan));
				usmp_infeasibility inf = {.struct_size = sizeof inf};
				if (st == USMP_ERR_INFEASIBLE && d.n <= 5 &&
				    usmp_plan_infeasibility(plan, &inf) == USMP_OK &&
				    inf.kind != USMP_INFEASIBLE_UNPROVEN) {
					if (fits < 0)
						fits = oracle_run_all(&d, M_ANY, 0).found;
					cr_assert(!fits, "%s: certificate %u on a problem "
					          "a plan fits: %s", what, inf.kind,
					          usmp_plan_error(plan));
				}
			}
			usmp_plan_destroy(plan);
			free(what);
		}
		usmp_problem_destroy(p);
	}
	cr_log_info("%" PRIu64 " cases, %" PRIu64 " plans, %" PRIu64
	            " parts claimed optimal", cases, planned, optimal);
	cr_assert_gt(planned, cases * 4);
	cr_assert_gt(optimal, cases);
	usmp_registry_destroy(r);
}

/* ---- the plan's status and message after later calls ----------------------- */

/* Two buffers alive apart; with `edge`, also declared conflicting. */
static usmp_problem *apart_problem(int edge)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b;
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 0, &a), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 8, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 3, 4), USMP_OK);
	if (edge)
		cr_assert_eq(usmp_problem_add_conflict(p, a, b), USMP_OK);
	return p;
}

/* A verify that passed kept the message of an earlier one that failed
 * ("buffers "a" and "b" overlap ..." beside status USMP_OK), and a write
 * that succeeded kept the status of an earlier failed write (USMP_ERR_IO
 * for a plan written whole): a host reading usmp_plan_status or
 * usmp_plan_error after the call got the verdict of another. */
Test(redteam5, a_plans_status_and_message_follow_the_latest_verdict)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = apart_problem(0), *q = apart_problem(1);
	usmp_plan *plan = NULL;
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK);
	/* both at offset 0: valid for p, not for q (the edge) */
	cr_assert_eq(usmp_plan_verify(plan, q), USMP_ERR_INVALID_PLAN);
	cr_assert(strstr(usmp_plan_error(plan), "declared conflicting"));
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK);
	cr_assert_eq(usmp_plan_status(plan), USMP_OK);
	cr_assert_str_eq(usmp_plan_error(plan), "");
	cr_assert_eq(usmp_plan_verify(plan, q), USMP_ERR_INVALID_PLAN);
	cr_assert_eq(usmp_plan_simulate(plan, p), USMP_OK);
	cr_assert_str_eq(usmp_plan_error(plan), "");

	/* a failed write holds its reason until the next call; a write that
	 * succeeds leaves the plan's own status and message */
	char *dir = test_fresh_dir("rt5-status");
	char *bad = test_join(dir, "missing/plan.json");
	char *good = test_join(dir, "plan.json");
	cr_assert_eq(usmp_plan_write(plan, p, bad, USMP_FORMAT_JSON), USMP_ERR_IO);
	cr_assert_eq(usmp_plan_status(plan), USMP_ERR_IO);
	cr_assert(strstr(usmp_plan_error(plan), "cannot open for writing"), "%s",
	          usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_write(plan, p, good, USMP_FORMAT_JSON), USMP_OK);
	cr_assert_eq(usmp_plan_status(plan), USMP_OK);
	cr_assert_str_eq(usmp_plan_error(plan), "");
	cr_assert_eq(usmp_plan_write(plan, p, good, 77), USMP_ERR_INVALID);
	cr_assert_eq(usmp_plan_write_svg(plan, p, bad), USMP_ERR_IO);
	cr_assert_eq(usmp_plan_write(plan, p, good, USMP_FORMAT_CSV), USMP_OK);
	cr_assert_eq(usmp_plan_status(plan), USMP_OK);
	cr_assert_str_eq(usmp_plan_error(plan), "");
	usmp_plan_destroy(plan);

	/* an infeasible plan keeps its status and certificate across writes */
	usmp_problem *tight = usmp_problem_create();
	uint32_t pool, b;
	cr_assert_eq(usmp_problem_add_pool(tight, "sram", 4, 0, &pool), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(tight, "big", 8, 0, &b), USMP_OK);
	plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, tight, &o, &plan), USMP_ERR_INFEASIBLE);
	char *why = strdup(usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_write(plan, tight, good, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID); /* incomplete */
	char *svg = test_join(dir, "plan.svg");
	cr_assert_eq(usmp_plan_write_svg(plan, tight, svg), USMP_OK);
	cr_assert_eq(usmp_plan_status(plan), USMP_ERR_INFEASIBLE);
	cr_assert_str_eq(usmp_plan_error(plan), why);
	usmp_infeasibility inf = {.struct_size = sizeof inf};
	cr_assert_eq(usmp_plan_infeasibility(plan, &inf), USMP_OK);
	cr_assert_eq(inf.kind, USMP_INFEASIBLE_BUFFER);
	free(why);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(tight);
	free(svg);
	free(bad);
	free(good);
	free(dir);
	usmp_problem_destroy(p);
	usmp_problem_destroy(q);
	usmp_registry_destroy(r);
}

/* ---- SVG of times far from 0 ------------------------------------------------ */

/* Every number of the form attr="N" in the SVG text is finite and, for x
 * and width, within the picture; returns the <rect> elements seen. */
static int check_svg_numbers(const char *svg)
{
	int rects = 0;
	cr_assert_null(strstr(svg, "nan"), "%s", svg);
	cr_assert_null(strstr(svg, "inf"), "%s", svg);
	for (const char *at = strstr(svg, "<rect x=\""); at;
	     at = strstr(at + 1, "<rect x=\"")) {
		static const char background[] = "<rect x=\"0\" y=\"0\" "
		                                 "width=\"100%\"";
		double x, y, w;
		if (!strncmp(at, background, sizeof background - 1))
			continue;
		cr_assert_eq(sscanf(at, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"",
		                    &x, &y, &w), 3, "%.80s", at);
		cr_assert(x >= 96 && w >= 0 && x + w <= 1240.01, "x %g width %g",
		          x, w);
		rects++;
	}
	return rects;
}

/* Live ranges far from 0 (2^62 and 2^62 + 1, or the ends of int64): the
 * time axis was computed in doubles, where 2^62 + 1 - 2^62 is 0, so the
 * scale was infinite and every rectangle and tick `x="-nan"`, the picture
 * empty (exit 0). Times are now taken from the axis' start exactly. */
Test(redteam5, svg_of_times_far_from_zero_draws_every_buffer)
{
	static const char *const problems[] = {
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 8, \"live\": [4611686018427387904, "
		"4611686018427387905]}, {\"name\": \"b\", \"size\": 8, \"live\": "
		"[4611686018427387904, 4611686018427387906]}]}",
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 8, \"live\": [-9223372036854775808, "
		"9223372036854775807]}, {\"name\": \"b\", \"size\": 8, \"live\": "
		"[-9223372036854775808, -9223372036854775807]}, {\"name\": \"c\", "
		"\"size\": 8, \"live\": [9223372036854775806, "
		"9223372036854775807]}]}",
	};
	static const char *const ticks[] = {
		">4611686018427387905</text>",
		">-8000000000000000000</text>",
	};
	usmp_registry *r = test_registry(NULL);
	char *svg = test_tmpfile(".svg");
	for (size_t k = 0; k < 2; k++) {
		usmp_problem *p = test_parse_json(problems[k], "far.json");
		usmp_plan *plan = test_plan_ok(r, p, NULL);
		cr_assert_eq(usmp_plan_write_svg(plan, p, svg), USMP_OK, "%s",
		             usmp_plan_error(plan));
		char *text = test_read_file(svg);
		cr_assert_not_null(text);
		cr_assert_eq(check_svg_numbers(text),
		             (int)usmp_problem_buffer_count(p), "%s", text);
		cr_assert(strstr(text, ticks[k]), "no tick %s:\n%s", ticks[k], text);
		free(text);
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	remove(svg);
	free(svg);
	usmp_registry_destroy(r);
}

/* ---- algorithms' log lines on the terminal ---------------------------------- */

/* Under USMP_LOG, the library wrote the algorithms' lines to stderr as they
 * were, so the names they quote from the problem (an ESC sequence that
 * clears the screen, an OSC that sets the terminal's title) reached the
 * terminal raw, where every other line of the command shows them escaped.
 * The command now logs through a function of its own that escapes them. */
Test(redteam5, log_lines_show_names_escaped)
{
	char *pp = test_write_tmp(".json",
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p\\u001b[31mX\", "
		"\"size_limit\": 12}], \"buffers\": ["
		"{\"name\": \"a\\u001b]0;pwn\\u0007\", \"size\": 8, \"live\": [0, 2]}, "
		"{\"name\": \"b\\u001b[2J\", \"size\": 8, \"live\": [1, 3]}]}");
	static const char *const algos[] = {"auto", "first_fit", "exact"};
	for (size_t k = 0; k < 3; k++) {
		for (int iso = 0; iso < 2; iso++) {
			char *out = NULL;
			char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_ALGORITHM= "
			                     "USMP_LOG=debug '%s' plan '%s' -a %s %s "
			                     "-o /dev/null", test_cli(), pp, algos[k],
			                     iso ? "--isolate" : "--no-isolate");
			int st = test_run(cmd, &out);
			cr_assert_eq(st, 3, "%s: exit %d: %s", cmd, st, out);
			cr_assert_null(strchr(out, '\x1b'), "%s: a raw ESC:\n%s", cmd,
			               out);
			cr_assert_null(strchr(out, '\a'), "%s: a raw BEL", cmd);
			/* the log line itself is there, escaped */
			cr_assert(strstr(out, "b\\x1b[2J") || strstr(out, "a\\x1b]0;pwn"
			                                              "\\x07"),
			          "%s: %s", cmd, out);
			free(out);
			free(cmd);
		}
	}
	free(pp);
}

/* ---- names that are not UTF-8, from a host ---------------------------------- */

/* A host's names in Latin-1 (byte 0xe9): JSON cannot hold them, and the
 * writers said only "a buffer name is not valid UTF-8", leaving a host with
 * thousands of buffers to guess which. The message names the record (the
 * API's index); no file is written; the SVG shows the byte as '?'. */
Test(redteam5, a_name_that_is_not_utf8_is_named_by_its_record)
{
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = usmp_problem_create();
	uint32_t q, b;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64, 0, &q), USMP_OK);
	static const char *const names[] = {"ok", "ok2", "caf\xe9"};
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(usmp_problem_add_buffer(p, names[i], 8, 0, &b), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, b, i, i + 2), USMP_OK);
	}
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	char *dir = test_fresh_dir("rt5-utf8");
	char *json = test_join(dir, "plan.json"), *svg = test_join(dir, "p.svg");
	cr_assert_eq(usmp_plan_write(plan, p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	char *want = test_fmt("writing %s: buffers[2].name is not valid UTF-8",
	                      json);
	cr_assert_str_eq(usmp_plan_error(plan), want);
	free(want);
	cr_assert_null(test_read_file(json), "a file was written");
	cr_assert_eq(usmp_problem_write(p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p),
	                 "buffers[2].name is not valid UTF-8"),
	          "%s", usmp_problem_error(p));
	cr_assert_null(test_read_file(json), "a file was written");
	cr_assert_eq(usmp_plan_write_svg(plan, p, svg), USMP_OK);
	char *text = test_read_file(svg);
	cr_assert(text && strstr(text, "caf?") && !strchr(text, '\xe9'));
	free(text);
	usmp_plan_destroy(plan);

	/* a target, and a pool */
	cr_assert_eq(usmp_problem_add_pool_target(p, q, "np\xfc"), USMP_OK);
	cr_assert_eq(usmp_problem_write(p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p),
	                 "pools[0].targets[0] is not valid UTF-8"),
	          "%s", usmp_problem_error(p));
	uint32_t q2;
	cr_assert_eq(usmp_problem_add_pool(p, "d\xf6", 64, 0, &q2), USMP_OK);
	cr_assert_eq(usmp_problem_write(p, json, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p),
	                 "pools[0].targets[0] is not valid UTF-8"),
	          "the first record that fails: %s", usmp_problem_error(p));
	usmp_problem_destroy(p);
	free(json);
	free(svg);
	free(dir);
	usmp_registry_destroy(r);
}
