/* test_redteam8.c — an eighth adversarial pass: inputs that never end, rules
 * and plugin directories that said nothing, and what else it found. */
#include "internal.h"
#include "registry_private.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- inputs that never end ------------------------------------------------ */

/* Run `usmp ARGS` (shell words) with `feed` (a shell command) on its
 * standard input, under a 400 MB limit on address space. */
static int run_fed(const char *feed, const char *args, char **out)
{
	char *cmd = test_fmt("ulimit -v 400000; %s | USMP_PLUGIN_PATH= "
	                     "USMP_ALGORITHM= '%s' %s", feed, test_cli(), args);
	int rc = test_run(cmd, out);
	free(cmd);
	return rc;
}

/* `yes | usmp plan -` read the endless stream whole before parsing it,
 * until memory ran out (exit 5 under a limit; without one, the machine's
 * memory). Reading stops at the first byte the parser must refuse
 * whatever follows: here the "y" where the JSON object should begin. */
Test(redteam8, an_endless_stream_the_parser_refuses_is_not_read_whole)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("a limit on address space: not under the sanitizers");
#else
	static const struct {
		const char *feed, *args, *says;
	} cases[] = {
		{"yes", "plan -", "<stdin>:1:1: '[' or '{' expected near 'y'"},
		{"yes", "bound -", "<stdin>:1:1: '[' or '{' expected near 'y'"},
		{"yes '{'", "plan -", "<stdin>:33:1: nested deeper than 32 levels"},
		{"yes '{}'", "bound -", "<stdin>:2:1: end of file expected near '{'"},
		{"yes a,b", "bound -", "(read as JSON; a MiniMalloc CSV problem"},
		{"(printf '{\"usmp\": 1, \"buffers\": [{\"name\": \"'; yes)",
		 "bound -", "<stdin>:1:35: unexpected newline near '\"y'"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *out = NULL;
		int rc = run_fed(cases[k].feed, cases[k].args, &out);
		cr_assert_eq(rc, 2, "%s | usmp %s: exit %d: %s", cases[k].feed,
		             cases[k].args, rc, out);
		cr_assert(strstr(out, cases[k].says), "%s | usmp %s: %s",
		          cases[k].feed, cases[k].args, out);
		free(out);
	}
	/* a plan on standard input alike */
	char *model = test_write_tmp(".json", "{\"usmp\": 1, \"buffers\": "
	                             "[{\"name\": \"a\", \"size\": 8}]}");
	char *args = test_fmt("verify '%s' -", model);
	char *out = NULL;
	int rc = run_fed("yes", args, &out);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "<stdin>:1:1: '[' or '{' expected near 'y'"), "%s",
	          out);
	free(out);
	free(args);
	remove(model);
	free(model);
#endif
}

/* A CSV file that is a FIFO fed forever, here with one line that never
 * ends (or lines that are no header): read whole, until memory ran out.
 * Reading stops past a line of 1 MiB (the readers take 4096 bytes) or
 * after a first line that is no header. */
Test(redteam8, an_endless_csv_line_or_headerless_stream_is_refused_naming_the_line)
{
#ifdef USMP_TEST_SANITIZED
	cr_skip("a limit on address space: not under the sanitizers");
#else
	char *dir = test_fresh_dir("rt8fifo");
	char *fifo = test_join(dir, "x.csv");
	static const struct {
		const char *feed, *says;
	} cases[] = {
		{"(printf 'id,lower,upper,size\\n'; yes | tr -d '\\n')",
		 "x.csv:2: line longer than 4096 bytes (more than 1048576): "
		 "column \"id\" runs past byte 4096"},
		{"(printf 'id,lower,upper,size\\na,0,1,4\\n'; printf 'b,0,1,'; "
		 "yes 9 | tr -d '\\n')",
		 "x.csv:3: line longer than 4096 bytes (more than 1048576): "
		 "column \"size\" runs past byte 4096"},
		{"yes", "x.csv:1: unknown column \"y\""},
		{"(printf '\\n  \\nid,lower,upper,size,colour\\n'; yes)",
		 "x.csv:3: unknown column \"colour\""},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		cr_assert_eq(mkfifo(fifo, 0600), 0);
		char *cmd = test_fmt("ulimit -v 400000; %s 2>/dev/null > '%s' & "
		                     "USMP_PLUGIN_PATH= '%s' bound '%s'; rc=$?; "
		                     "kill $! 2>/dev/null; exit $rc",
		                     cases[k].feed, fifo, test_cli(), fifo);
		char *out = NULL;
		int rc = test_run(cmd, &out);
		cr_assert_eq(rc, 2, "%s: exit %d: %s", cases[k].feed, rc, out);
		cr_assert(strstr(out, cases[k].says), "%s: %s", cases[k].feed,
		          out);
		free(out);
		free(cmd);
		remove(fifo);
	}
	/* the limit of 4096 bytes is as it was: a line of 5000 gets its count */
	char *csv = test_join(dir, "y.csv");
	FILE *f = fopen(csv, "w");
	cr_assert(f);
	fprintf(f, "id,lower,upper,size\n");
	for (int i = 0; i < 5000; i++)
		fputc('i', f);
	fprintf(f, ",0,3,4\n");
	fclose(f);
	char *out = NULL;
	int rc = test_usmp(&out, "bound '%s'", csv);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "y.csv:2: line longer than 4096 bytes (5006): "
	                      "column \"id\" runs past byte 4096"), "%s", out);
	free(out);
	remove(csv);
	free(csv);
	rmdir(dir);
	free(fifo);
	free(dir);
#endif
}

/* A writer of an endless JSON problem whose every prefix is valid: a child
 * writing to the FIFO until the reader goes away. */
static pid_t endless_json_writer(const char *fifo)
{
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		FILE *f = fopen(fifo, "w");
		if (!f)
			_exit(1);
		fputs("{\"usmp\": 1, \"buffers\": [", f);
		for (unsigned long i = 0;; i++)
			if (fprintf(f, "{\"name\": \"b%lu\", \"size\": 1},\n", i) < 0)
				_exit(0);
	}
	return pid;
}

/* What the parser cannot refuse until it ends (a valid prefix forever) is
 * read up to the documented limit on one file, then refused naming it
 * (USMP_ERR_INVALID, exit 2), where it was read until memory ran out.
 * The limit (4 GiB) is lowered here to 1 MiB; a regular file over it is
 * refused by its size, before it is read. */
Test(redteam8, input_past_the_read_limit_is_refused_naming_the_limit)
{
	size_t saved = usmp__read_max;
	usmp__read_max = (size_t)1 << 20;
#ifndef USMP_TEST_SANITIZED
	/* should the limit not hold, fail rather than fill the machine */
	struct rlimit as = {(rlim_t)2 << 30, (rlim_t)2 << 30};
	cr_assert_eq(setrlimit(RLIMIT_AS, &as), 0);
#endif
	char *dir = test_fresh_dir("rt8cap");
	char *fifo = test_join(dir, "endless.json");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid_t pid = endless_json_writer(fifo);
	usmp_problem *p = usmp_problem_create();
	int rc = usmp_problem_read(p, fifo, USMP_FORMAT_AUTO, 0);
	cr_assert_eq(rc, USMP_ERR_INVALID, "%s", usmp_problem_error(p));
	char *want = test_fmt("%s: more than the 1048576 bytes usmp reads from "
	                      "one file (docs/formats.md, \"Input limits\")", fifo);
	cr_assert_str_eq(usmp_problem_error(p), want);
	free(want);
	usmp_problem_destroy(p);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* a regular file: refused by its size */
	char *big = test_join(dir, "big.json");
	FILE *f = fopen(big, "w");
	cr_assert(f);
	fputs("{\"usmp\": 1, \"buffers\": [", f);
	for (unsigned i = 0; i < 60000; i++)
		fprintf(f, "%s{\"name\": \"b%u\", \"size\": 1}", i ? ", " : "", i);
	fputs("]}", f);
	fclose(f);
	struct stat st;
	cr_assert_eq(stat(big, &st), 0);
	p = usmp_problem_create();
	rc = usmp_problem_read(p, big, USMP_FORMAT_AUTO, 0);
	cr_assert_eq(rc, USMP_ERR_INVALID, "%s", usmp_problem_error(p));
	want = test_fmt("%s: %lld bytes, more than the 1048576 bytes usmp reads "
	                "from one file (docs/formats.md, \"Input limits\")", big,
	                (long long)st.st_size);
	cr_assert_str_eq(usmp_problem_error(p), want);
	free(want);
	usmp_problem_destroy(p);
	/* the same file under the real limit reads */
	usmp__read_max = saved;
	p = usmp_problem_create();
	rc = usmp_problem_read(p, big, USMP_FORMAT_AUTO, 0);
	cr_assert_eq(rc, USMP_OK, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_buffer_count(p), 60000);
	usmp_problem_destroy(p);
	remove(big);
	remove(fifo);
	rmdir(dir);
	free(big);
	free(fifo);
	free(dir);
}

/* ---- rules that never decide --------------------------------------------- */

static const char board_json[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\", \"size_limit\": 4096, "
	"\"targets\": [\"npu\"]}, {\"name\": \"dram\", \"targets\": [\"cpu\"]}], "
	"\"buffers\": [{\"name\": \"a\", \"size\": 64, \"live\": [0, 2], "
	"\"pools\": [\"sram\"]}, {\"name\": \"b\", \"size\": 64, \"live\": [1, 3], "
	"\"pools\": [\"dram\"]}]}";

/* USMP_ALGORITHM='npu=first_fit;npu=exact': the first rule that matches a
 * part decides it, so the second never did, without a word (a user adding
 * a rule at the end to change one target's algorithm saw nothing change).
 * So with an earlier "*" (any target) or a glob matching the later rule's
 * plain name. Now `usmp plan` warns (unless -q), naming both, and plans as
 * before: the rule is as if not there, like one that matches no name. */
Test(redteam8, a_rule_an_earlier_one_keeps_from_deciding_is_warned_naming_both)
{
	char *pp = test_write_tmp(".json", board_json);
	static const struct {
		const char *rules, *said, *chosen;
	} cases[] = {
		{"npu=first_fit;npu=exact",
		 "usmp: USMP_ALGORITHM: rule \"npu=exact\" never decides: the earlier "
		 "rule \"npu=first_fit\" has the same pattern (the first rule that "
		 "matches a part decides it): remove one\n",
		 "chosen by USMP_ALGORITHM rule \"npu=first_fit\""},
		{"first_fit;*=best_fit",
		 "usmp: USMP_ALGORITHM: rule \"*=best_fit\" never decides: the earlier "
		 "rule \"first_fit\" has the same pattern",
		 "chosen by USMP_ALGORITHM rule \"first_fit\""},
		{"*=best_fit;npu=exact",
		 "usmp: USMP_ALGORITHM: rule \"npu=exact\" never decides: the earlier "
		 "rule \"*=best_fit\" matches every target (the first rule that "
		 "matches a part decides it): put \"npu=exact\" before it, or remove "
		 "one\n",
		 "chosen by USMP_ALGORITHM rule \"*=best_fit\""},
		{"n*=best_fit;npu=exact",
		 "usmp: USMP_ALGORITHM: rule \"npu=exact\" never decides: the earlier "
		 "rule \"n*=best_fit\" matches that target too",
		 "chosen by USMP_ALGORITHM rule \"n*=best_fit\""},
		{"@s*=best_fit;@sram=exact",
		 "usmp: USMP_ALGORITHM: rule \"@sram=exact\" never decides: the "
		 "earlier rule \"@s*=best_fit\" matches that pool too",
		 "chosen by USMP_ALGORITHM rule \"@s*=best_fit\""},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *out = NULL;
		char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM='%s' "
		                     "'%s' plan '%s' -o /dev/null", cases[k].rules,
		                     test_cli(), pp);
		int st = test_run(cmd, &out);
		cr_assert_eq(st, 0, "%s: exit %d: %s", cases[k].rules, st, out);
		cr_assert(strstr(out, cases[k].said), "%s: %s", cases[k].rules, out);
		cr_assert(strstr(out, cases[k].chosen), "%s: %s", cases[k].rules,
		          out);
		free(out);
		/* -q: no line */
		char *quiet = test_fmt("%s -q", cmd);
		st = test_run(quiet, &out);
		cr_assert_eq(st, 0, "%s", out);
		cr_assert(!strstr(out, "never decides"), "%s", out);
		free(out);
		free(quiet);
		free(cmd);
	}
	/* a pool rule and a target rule of one name are not one pattern; a
	 * more specific rule first is what it takes */
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH= USMP_LOG= USMP_ALGORITHM='@npu="
	                     "exact;npu=first_fit;npu?=best_fit;*=best_fit' '%s' "
	                     "plan '%s' -o /dev/null", test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(!strstr(out, "never decides"), "%s", out);
	free(out);
	free(cmd);
	remove(pp);
	free(pp);
}

/* The same through the library, for rules bound by a host: one warning a
 * rule, at USMP_LOG_WARN, named after the list. */
Test(redteam8, a_bound_rule_that_never_decides_is_logged)
{
	char log[TEST_LOG_LINES] = "";
	usmp_registry *r = test_registry(NULL);
	usmp_registry_set_log(r, test_keep_log_lines, log, USMP_LOG_WARN);
	cr_assert_eq(usmp_registry_bind_rules(r, "npu=first_fit;npu=best_fit"),
	             USMP_OK);
	usmp_problem *p = test_parse_json(board_json, "board.json");
	usmp_plan *plan = test_plan_ok(r, p, NULL);
	cr_assert(strstr(log, "usmp_registry_bind: rule \"npu=best_fit\" never "
	                      "decides: the earlier rule \"npu=first_fit\" has "
	                      "the same pattern"), "%s", log);
	usmp_part_info pi = {.struct_size = sizeof pi};
	for (uint32_t i = 0; i < usmp_plan_part_count(plan); i++) {
		cr_assert_eq(usmp_plan_part(plan, i, &pi), USMP_OK);
		if (!strcmp(pi.algorithm, "first_fit"))
			break;
	}
	cr_assert_str_eq(pi.algorithm, "first_fit");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* A hostile USMP_ALGORITHM of 40,000 rules (plain names after 64 globs)
 * is checked against itself in linear time, not rule against rule. */
Test(redteam8, many_rules_are_checked_for_shadowing_in_linear_time)
{
	usmp__rule_list l = {0};
	const uint32_t n = 40000;
	l.items = calloc(n, sizeof *l.items);
	cr_assert(l.items);
	l.count = l.cap = n;
	for (uint32_t i = 0; i < n; i++) {
		l.items[i].pattern = test_fmt(i < 64 ? "g%u*x" : "t%u", i);
		l.items[i].text = test_fmt("%s=first_fit", l.items[i].pattern);
	}
	free(l.items[n - 1].pattern);
	l.items[n - 1].pattern = test_fmt("g3yx"); /* g3*x matches it */
	size_t *by = usmp__rules_shadowing(&l);
	cr_assert(by);
	for (uint32_t i = 0; i + 1 < n; i++)
		cr_assert_eq(by[i], SIZE_MAX, "rule %u", i);
	cr_assert_eq(by[n - 1], 3);
	free(by);
	for (uint32_t i = 0; i < n; i++) {
		free(l.items[i].pattern);
		free(l.items[i].text);
	}
	free(l.items);
}

/* ---- plugin directories ---------------------------------------------------- */

/* A plugin directory's `.so` entries that are no regular file (a dangling
 * symbolic link: a plugin removed or moved, its link left; a loop of
 * links; a directory or FIFO named *.so) were skipped without a word: an
 * algorithm from the gone plugin was then "not found" with nothing to say
 * why, and `usmp list -v` listed nothing. Each is now a diagnostic
 * (USMP_DIAG_PLUGIN_SKIPPED) naming the entry and why; the scan goes on. */
Test(redteam8, a_dangling_plugin_link_is_said_and_the_scan_goes_on)
{
	char *dir = test_fresh_dir("rt8plugdir");
	char *gone = test_join(dir, "gone.so");
	char *loop = test_join(dir, "loop.so");
	char *sub = test_join(dir, "sub.so");
	char *fifo = test_join(dir, "fifo.so");
	char *real = test_join(dir, "zz_fit.so");
	char *fit = test_fmt("%s/plugins/fit.so", test_build_root());
	cr_assert_eq(symlink("/nonexistent/acme.so", gone), 0);
	cr_assert_eq(symlink("loop.so", loop), 0);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(symlink(fit, real), 0);

	usmp_registry *r = test_registry_any(dir);
	char *want[4];
	want[0] = test_fmt("%s: skipped: a FIFO, not a plugin file", fifo);
	want[1] = test_fmt("%s: skipped: a symbolic link to /nonexistent/acme.so, "
	                   "which does not exist (a dangling link)", gone);
	want[2] = test_fmt("%s: skipped: a loop of symbolic links", loop);
	want[3] = test_fmt("%s: skipped: a directory, not a plugin file", sub);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 4);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_str_eq(usmp_registry_diagnostic(r, i), want[i]);
		cr_assert_eq(usmp_registry_diagnostic_kind(r, i),
		             USMP_DIAG_PLUGIN_SKIPPED);
	}
	/* the plugin beside them loaded */
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", "first_fit", &sel), USMP_OK,
	             "%s", usmp_registry_error(r));
	usmp_registry_destroy(r);

	/* `usmp list -v` names them; plain `usmp list` counts them */
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' list -v", dir, test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	for (int i = 0; i < 4; i++)
		cr_assert(strstr(out, want[i]), "%s", out);
	free(out);
	free(cmd);
	cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' list", dir, test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "usmp: note: 4 plugins skipped: usmp list -v says "
	                      "why"), "%s", out);
	free(out);
	free(cmd);

	/* a directory of nothing but such entries says so where an algorithm
	 * is not found */
	remove(real);
	r = test_registry_any(dir);
	cr_assert_neq(usmp_registry_select(r, "npu", "first_fit", &sel), USMP_OK);
	char *miss = test_fmt("%s: no .so file in the directory is a plugin file "
	                      "(usmp list -v says why)", dir);
	cr_assert(strstr(usmp_registry_error(r), miss), "%s",
	          usmp_registry_error(r));
	cr_assert(strstr(usmp_registry_error(r), want[1]), "%s",
	          usmp_registry_error(r));
	free(miss);
	usmp_registry_destroy(r);
	for (int i = 0; i < 4; i++)
		free(want[i]);
	remove(gone);
	remove(loop);
	rmdir(sub);
	remove(fifo);
	rmdir(dir);
	free(gone);
	free(loop);
	free(sub);
	free(fifo);
	free(real);
	free(fit);
	free(dir);
}

/* ---- output refused before the work ---------------------------------------- */

/* `-o plan.csv` (or `--format csv`) for a problem of several pools was
 * refused after planning: a long plan (here an algorithm that does not
 * exist stands for it: its error came first) ended in the CSV refusal.
 * It is now refused once the problem is read, with the writer's message;
 * nothing is planned, no summary printed, no file left. */
Test(redteam8, a_csv_plan_of_several_pools_is_refused_before_planning)
{
	char *pp = test_write_tmp(".json", board_json);
	char *dir = test_fresh_dir("rt8csv");
	char *csv = test_join(dir, "plan.CSV");
	char *out = NULL;
	int rc = test_usmp(&out, "plan '%s' -a nosuch -o '%s'", pp, csv);
	cr_assert_eq(rc, 2, "%s", out);
	char *want = test_fmt("usmp: writing %s: cannot write the plan as CSV: CSV holds "
	                      "one pool\n", csv);
	cr_assert_str_eq(out, want);
	cr_assert_neq(access(csv, F_OK), 0);
	free(want);
	free(out);
	rc = test_usmp(&out, "plan '%s' --format csv", pp);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert_str_eq(out, "usmp: writing <stdout>: cannot write the plan as CSV: "
	                      "CSV holds one pool\n");
	free(out);
	/* the message is the writer's, as it was after planning */
	usmp_registry *r = test_registry(NULL);
	usmp_problem *p = test_parse_json(board_json, "board.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_OK);
	cr_assert_eq(usmp_plan_write(plan, p, csv, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	want = test_fmt("writing %s: cannot write the plan as CSV: CSV holds "
	               "one pool", csv);
	cr_assert_str_eq(usmp_plan_error(plan), want);
	free(want);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	/* one pool (the default one a JSON problem without pools gets): CSV */
	char *one = test_write_tmp(".json", "{\"buffers\": [{\"name\": \"a\", "
	                           "\"size\": 4, \"live\": [0, 1]}]}");
	rc = test_usmp(&out, "plan '%s' --format csv -q", one);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "id,lower,upper,size,offset\na,0,1,4,0\n"), "%s", out);
	free(out);
	remove(one);
	free(one);
	rmdir(dir);
	free(csv);
	free(dir);
	remove(pp);
	free(pp);
}

/* ---- counts of one ------------------------------------------------------- */

/* "1 bytes", "1 buffers": the summary, verify, simulate, bound and the
 * certificates of infeasibility counted one of a thing in the plural. */
static void assert_no_plural_one(const char *what, const char *out)
{
	static const char *const bad[] = {" 1 bytes", "(1 bytes", " 1 buffers",
	                                  "(1 buffers"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		cr_assert(!strstr(out, bad[k]), "%s: \"%s\" in: %s", what, bad[k],
		          out);
}

Test(redteam8, a_count_of_one_byte_or_buffer_is_singular)
{
	char *one = test_write_tmp(".json", "{\"usmp\": 1, \"pools\": [{\"name\": "
	                           "\"sram\", \"size_limit\": 1}], \"buffers\": "
	                           "[{\"name\": \"a\", \"size\": 1, \"live\": [0, 1]}]}");
	char *two = test_write_tmp(".json", "{\"usmp\": 1, \"pools\": [{\"name\": "
	                           "\"sram\", \"size_limit\": 1}], \"buffers\": "
	                           "[{\"name\": \"a\", \"size\": 1, \"live\": [0, 2]}, "
	                           "{\"name\": \"b\", \"size\": 1, \"live\": [1, 2]}]}");
	char *plan = test_tmpfile(".json");
	char *csv = test_write_tmp(".csv", "id,lower,upper,size\na,0,1,1\n");
	char *out = NULL;
	int rc = test_usmp(&out, "plan '%s' -o '%s'", one, plan);
	cr_assert_eq(rc, 0, "%s", out);
	assert_no_plural_one("plan", out);
	cr_assert(strstr(out, ": 1 buffer, 1 pool, 1 part\n"), "%s", out);
	cr_assert(strstr(out, ", 1 buffer, "), "%s", out);
	cr_assert(strstr(out, "    pool sram                    1 byte\n"), "%s", out);
	cr_assert(strstr(out, "    total 1 byte, lower bound 1,"), "%s", out);
	free(out);
	rc = test_usmp(&out, "verify '%s' '%s'", one, plan);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "(1 buffer, 1 byte in all pools)"), "%s", out);
	free(out);
	rc = test_usmp(&out, "simulate '%s' '%s'", one, plan);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "replayed 1 buffer; every byte"), "%s", out);
	free(out);
	rc = test_usmp(&out, "bound '%s' --capacity 2", csv);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "lower bound 1 byte; pools: default; within the "
	                      "capacity (2 bytes), 1 byte to spare"), "%s", out);
	free(out);
	static const char *const algos[] = {"first_fit", "best_fit",
	                                    "greedy_by_size", "greedy_by_conflicts",
	                                    "hill_climb", "first_fit_sweep",
	                                    "exact", "auto"};
	for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
		rc = test_usmp(&out, "plan '%s' -a %s", two, algos[k]);
		cr_assert_eq(rc, 3, "%s: %s", algos[k], out);
		assert_no_plural_one(algos[k], out);
		cr_assert(strstr(out, "more than its limit (1 byte) by 1 byte; the "
		                      "largest of the 2 is \"a\" (1 byte), then \"b\" "
		                      "(1 byte); the lower bound of the group is 2 "
		                      "bytes"), "%s: %s", algos[k], out);
		free(out);
	}
	remove(one);
	remove(two);
	remove(plan);
	remove(csv);
	free(one);
	free(two);
	free(plan);
	free(csv);
}

/* ---- the time limit the user gave ------------------------------------------ */

/* `--time-limit T` covers the whole command: a part works to what reading
 * left of it, less writing. A part over it said "over the time limit of
 * 0.001 s" for a command run with --time-limit 0.01 (its share, where the
 * next line said "stopped at the time limit of 0.01 s"). It names the
 * user's number, as the "stopped at" line does. */
Test(redteam8, an_overrun_names_the_time_limit_asked_for)
{
	char *pp = test_write_tmp(".json", "{\"usmp\": 1, \"buffers\": [{\"name\": "
	                          "\"a\", \"size\": 8, \"live\": [0, 4]}]}");
	char *out = NULL;
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s/loose_ends/hang_volunteer.so' "
	                     "USMP_ALGORITHM= '%s' plan '%s' -a le_slow "
	                     "--time-limit 0.05 -o /dev/null",
	                     test_fixture_plugindir(), test_cli(), pp);
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "    over the time limit of 0.05 s: a first plan "
	                      "is always finished"), "%s", out);
	cr_assert_null(strstr(out, "over the time limit of 0.04"), "%s", out);
	free(out);
	free(cmd);
	remove(pp);
	free(pp);
}

/* ---- a long plugin path ------------------------------------------------------ */

/* A plugin path of many entries that give no plugin: each miss was added
 * to the list an unknown algorithm's message names by printing the whole
 * list again (quadratic: 4,000 entries took a second, the 65,000 of a
 * 128 KiB USMP_PLUGIN_PATH of "x:x:..." more than ten minutes, before
 * `usmp list` printed anything). An entry given again is searched once;
 * the message names the first 8 misses and counts the rest. */
Test(redteam8, a_plugin_path_of_many_missing_entries_is_searched_in_linear_time)
{
	const size_t n = 50000;
	char *path = malloc(n * 2), *distinct = malloc(n * 12);
	cr_assert(path && distinct);
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		path[2 * i] = 'x';
		path[2 * i + 1] = ':';
		used += (size_t)sprintf(distinct + used, "%sm%zu", i ? ":" : "", i);
	}
	path[2 * n - 1] = '\0';
	usmp_registry *r = test_registry_any(path);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 1);
	cr_assert_str_eq(usmp_registry_diagnostic(r, 0),
	                 "x: plugin directory not found (an entry of "
	                 "usmp_registry_options.plugin_path)");
	usmp_registry_destroy(r);

	r = test_registry_any(distinct);
	cr_assert_eq(usmp_registry_diagnostic_count(r), n);
	usmp_selection sel = {.struct_size = sizeof sel};
	cr_assert_eq(usmp_registry_select(r, "npu", "nosuch", &sel),
	             USMP_ERR_NOT_FOUND);
	const char *e = usmp_registry_error(r);
	cr_assert(strstr(e, "entries of usmp_registry_options.plugin_path "
	                    "that gave no plugin: m0: "
	                    "plugin directory not found; m1: "), "%s", e);
	cr_assert(strstr(e, "m7: plugin directory not found; and 49992 more"),
	          "%s", e);
	cr_assert_null(strstr(e, "m8:"), "%s", e);
	usmp_registry_destroy(r);
	free(path);
	free(distinct);
}

/* ---- CSV line ends ------------------------------------------------------- */

/* A CSV file saved with bare carriage returns as line ends (a classic Mac
 * editor) is one line to the reader: it said `unknown column "size?a"`
 * (the header run into the first row), or `line longer than 4096 bytes`
 * for a longer file. It names the CR. */
Test(redteam8, a_csv_file_of_bare_cr_line_ends_is_named_as_such)
{
	static const char *const files[] = {
		"id,lower,upper,size\ra,0,1,4\rb,1,2,4\r",
		"id,lower,upper,size\na,0,1,4\rb,1,2,4\n",
	};
	static const size_t line[] = {1, 2};
	for (int k = 0; k < 2; k++) {
		char *csv = test_write_tmp(".csv", files[k]);
		char *out = NULL;
		int rc = test_usmp(&out, "bound '%s'", csv);
		cr_assert_eq(rc, 2, "%s", out);
		char *want = test_fmt("%s:%zu: a carriage return (CR) inside the line: "
		                      "lines end in LF or CRLF (is the file saved "
		                      "with CR line ends?)", csv, line[k]);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
		remove(csv);
		free(csv);
	}
	/* a long one too (it said "line longer than 4096 bytes") */
	char *csv = test_tmpfile(".csv");
	FILE *f = fopen(csv, "w");
	cr_assert(f);
	fputs("id,lower,upper,size\r", f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "b%d,0,1,4\r", i);
	fclose(f);
	char *out = NULL;
	int rc = test_usmp(&out, "bound '%s'", csv);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, ":1: a carriage return (CR) inside the line"), "%s",
	          out);
	free(out);
	/* CRLF stays accepted */
	f = fopen(csv, "w");
	cr_assert(f);
	fputs("id,lower,upper,size\r\na,0,1,4\r\n", f);
	fclose(f);
	rc = test_usmp(&out, "bound '%s'", csv);
	cr_assert_eq(rc, 0, "%s", out);
	free(out);
	remove(csv);
	free(csv);
}

/* ---- files given in the wrong order ------------------------------------------ */

/* `usmp verify plan.json model.json` (the files swapped) said `unknown key
 * "algorithm" (known: ...)`, `unknown key "overlaps"`, `pools[0]: unknown key
 * "size_limit"`: true, but not what was wrong. A key of the other kind of
 * file says so. */
Test(redteam8, a_plan_and_problem_given_swapped_are_named_so)
{
	char *model = test_write_tmp(".json", board_json);
	char *plan = test_tmpfile(".json");
	char *out = NULL;
	int rc = test_usmp(&out, "plan '%s' -q -o '%s'", model, plan);
	cr_assert_eq(rc, 0, "%s", out);
	free(out);
	rc = test_usmp(&out, "verify '%s' '%s'", plan, model);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "unknown key \"algorithm\" (known: usmp, pools, "
	                      "buffers, conflicts, overlaps): a plan's key: is "
	                      "this a plan file? (usmp verify and simulate take "
	                      "the PROBLEM first, then the PLAN)"), "%s", out);
	free(out);
	rc = test_usmp(&out, "simulate '%s' '%s'", model, model);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "pools[0]: unknown key \"size_limit\" (known: name, "
	                      "size, lower_bound, group): a problem's key: is this "
	                      "the problem file?"), "%s", out);
	free(out);
	/* a key of neither kind gets no such guess */
	char *bad = test_write_tmp(".json", "{\"usmp\": 1, \"bufers\": []}");
	rc = test_usmp(&out, "bound '%s'", bad);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert_null(strstr(out, "is this"), "%s", out);
	free(out);
	remove(bad);
	remove(model);
	remove(plan);
	free(bad);
	free(model);
	free(plan);
}

/* ---- text that is not UTF-8 ------------------------------------------------ */

/* A problem saved as UTF-16 (PowerShell 5's `>` and some Windows editors
 * write it by default) got `unable to decode byte 0xff (read as JSON; a
 * MiniMalloc CSV problem is read from a file whose name ends in .csv)`,
 * `'[' or '{' expected near end of file`, `string or '}' expected` or, as
 * CSV, `NUL byte in the file (is it binary?)`. It names the encoding. */
Test(redteam8, a_utf16_or_utf32_file_is_named_with_the_fix)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *suffix, *says;
	} cases[] = {
		{"\xff\xfe{\0}\0", 6, ".json", "UTF-16, little-endian, with a byte "
		 "order mark, not UTF-8 as usmp reads: convert it (iconv -f UTF-16 "
		 "-t UTF-8) or save it as UTF-8"},
		{"\xfe\xff\0{\0}", 6, ".json", "UTF-16, big-endian, with a byte "
		 "order mark"},
		{"{\0}\0", 4, ".json", "UTF-16, little-endian, not UTF-8"},
		{"\0{\0}", 4, ".json", "UTF-16, big-endian, not UTF-8"},
		{"{\0\0\0}\0\0\0", 8, ".json", "UTF-32, little-endian, not UTF-8 as "
		 "usmp reads: convert it (iconv -f UTF-32 -t UTF-8)"},
		{"\xff\xfei\0d\0,\0", 8, ".csv", "UTF-16, little-endian, with a byte "
		 "order mark"},
		{"i\0d\0", 4, ".csv", "UTF-16, little-endian, not UTF-8"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *path = test_tmpfile(cases[k].suffix);
		test_write_bytes(path, cases[k].bytes, cases[k].len);
		char *out = NULL;
		int rc = test_usmp(&out, "bound '%s'", path);
		cr_assert_eq(rc, 2, "case %zu: %s", k, out);
		char *want = test_fmt("usmp: %s: the file is %s", path, cases[k].says);
		cr_assert(strstr(out, want), "case %zu: %s", k, out);
		free(want);
		free(out);
		remove(path);
		free(path);
	}
	/* /dev/zero and a NUL in a UTF-8 file keep their messages */
	char *out = NULL;
	int rc = test_usmp(&out, "bound /dev/zero");
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "/dev/zero:1:1: '[' or '{' expected"), "%s", out);
	free(out);
}

/* A spreadsheet's export with ';' or tabs between the columns (a
 * European Excel's "CSV") got `unknown column "id;lower;upper;size"`
 * (or "id?lower?upper?size", the tab shown as '?'). It names the
 * separator. */
Test(redteam8, a_csv_header_separated_by_semicolons_or_tabs_says_so)
{
	static const char *const files[] = {"id;lower;upper;size\na;0;1;4\n",
	                                    "id\tlower\tupper\tsize\na\t0\t1\t4\n"};
	static const char *const by[] = {"semicolons (;)", "tabs"};
	for (int k = 0; k < 2; k++) {
		char *csv = test_write_tmp(".csv", files[k]);
		char *out = NULL;
		int rc = test_usmp(&out, "bound '%s'", csv);
		cr_assert_eq(rc, 2, "%s", out);
		char *want = test_fmt("%s:1: the header has no comma: its columns are "
		                      "separated by %s; this CSV separates them by "
		                      "commas (id,lower,upper,size)", csv, by[k]);
		cr_assert(strstr(out, want), "%s", out);
		free(want);
		free(out);
		remove(csv);
		free(csv);
	}
}

/* A JSON problem or plan behind a name ending in .csv got `quoted fields
 * are not supported (MiniMalloc's CSV has none)`: true of the text read
 * as CSV, but the file is JSON. It says so. */
Test(redteam8, json_behind_a_csv_name_is_named_as_json)
{
	char *csv = test_write_tmp(".csv", board_json);
	char *out = NULL;
	int rc = test_usmp(&out, "bound '%s'", csv);
	cr_assert_eq(rc, 2, "%s", out);
	char *want = test_fmt("%s:1: expected a header row (id,lower,upper,size), "
	                      "got JSON text: a file whose name ends in .csv is "
	                      "read as MiniMalloc CSV (a JSON file needs a name "
	                      "that does not)", csv);
	cr_assert(strstr(out, want), "%s", out);
	free(want);
	free(out);
	char *problem = test_write_tmp(".csv", "id,lower,upper,size\na,0,1,4\n");
	char *plan = test_write_tmp(".csv", "  [ {\"usmp\": 1} ]\n");
	rc = test_usmp(&out, "verify '%s' '%s'", problem, plan);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, ":1: expected a header row (id,...,offset), got "
	                      "JSON text"), "%s", out);
	free(out);
	remove(csv);
	remove(problem);
	remove(plan);
	free(csv);
	free(problem);
	free(plan);
}
