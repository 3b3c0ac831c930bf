/* test_redteam9.c — a ninth adversarial pass, "nothing lost or wrongly
 * certified": claims dropped silently, names with quotes cut wrongly. */
#include "internal.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

/* ---- claims a read drops are said ------------------------------------------ */

/* Three buffers one after another (bound 16), placed side by side (40). */
static const char chain_problem[] =
	"{\"usmp\": 1, \"buffers\": [{\"name\": \"a\", \"size\": 16, \"live\": "
	"[0, 1]}, {\"name\": \"b\", \"size\": 16, \"live\": [1, 2]}, {\"name\": "
	"\"c\", \"size\": 8, \"live\": [2, 3]}]}";

static char *chain_plan(const char *part, const char *pool)
{
	return test_fmt("{\"usmp\": 1, \"pools\": [{\"name\": \"default\"%s}],"
	                " \"buffers\": [{\"name\": \"a\", \"pool\": \"default\","
	                " \"offset\": 0}, {\"name\": \"b\", \"pool\": \"default\","
	                " \"offset\": 16}, {\"name\": \"c\", \"pool\": "
	                "\"default\", \"offset\": 32}], \"parts\": [{\"group\": "
	                "0%s}]}", pool, part);
}

/* A fresh directory (`tag`) holding problem.json (chain_problem) and
 * plan.json (chain_plan(part, "")); chain_files_free removes them. */
typedef struct {
	char *dir, *prob, *path;
} chain_files;

static chain_files chain_files_write(const char *tag, const char *part)
{
	chain_files f;
	f.dir = test_fresh_dir(tag);
	f.prob = test_join(f.dir, "problem.json");
	f.path = test_join(f.dir, "plan.json");
	test_write_bytes(f.prob, chain_problem, strlen(chain_problem));
	char *text = chain_plan(part, "");
	test_write_bytes(f.path, text, strlen(text));
	free(text);
	return f;
}

static void chain_files_free(chain_files *f)
{
	remove(f->path);
	remove(f->prob);
	free(f->path);
	free(f->prob);
	free(f->dir);
}

/* `usmp verify` dropped a proven_bound above the lower bound (and a
 * lower_bound, an "optimal") without a word; the read now leaves a note on
 * usmp_plan_error (status USMP_OK) and verify prints it, exit 0. */
Test(redteam9, verify_says_which_claims_it_drops)
{
	static const struct {
		const char *part, *pool, *says;
	} cases[] = {
		{", \"proven_bound\": 40", "",
		 "plan.json: parts[0].proven_bound: 40 bytes, above the lower bound "
		 "(16 bytes): only an exact search can check it, not kept"},
		{", \"lower_bound\": 20", "",
		 "plan.json: parts[0].lower_bound: 20 bytes, above the lower bound "
		 "the library computes (16 bytes): cannot be checked, not kept"},
		{", \"proven_bound\": 40, \"optimal\": true", "",
		 "plan.json: parts[0].proven_bound: 40 bytes, above the lower bound "
		 "(16 bytes): only an exact search can check it, not kept (and 1 "
		 "more claim not kept)"},
		{"", ", \"lower_bound\": 24",
		 "plan.json: pools[0].lower_bound: 24 bytes, above the lower bound "
		 "the library computes for its group (16 bytes): cannot be "
		 "checked, not kept"},
		{", \"lower_bound\": 16, \"proven_bound\": 16", "", ""},
		{", \"size\": 40, \"buffers\": 3", ", \"size\": 40", ""},
	};
	char *dir = test_fresh_dir("rt9-drop");
	char *prob = test_join(dir, "problem.json");
	char *path = test_join(dir, "plan.json");
	test_write_bytes(prob, chain_problem, strlen(chain_problem));
	usmp_problem *p = test_parse_json(chain_problem, "problem.json");
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *text = chain_plan(cases[k].part, cases[k].pool);
		test_write_bytes(path, text, strlen(text));
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_read(p, path, USMP_FORMAT_AUTO, &plan),
		             USMP_OK, "%s", usmp_plan_error(plan));
		cr_assert_eq(usmp_plan_status(plan), USMP_OK);
		/* the message names the path as given: compare its tail */
		const char *note = usmp_plan_error(plan);
		size_t n = strlen(note), m = strlen(cases[k].says);
		cr_assert(n >= m && !strcmp(note + n - m, cases[k].says),
		          "case %zu: %s", k, note);
		cr_assert_eq(!*note, !*cases[k].says, "case %zu: %s", k, note);
		usmp_part_info pi = test_part(plan, 0);
		cr_assert_eq(pi.proven_bound, 16);
		cr_assert_eq(pi.lower_bound, 16);
		cr_assert_eq(pi.optimal, 0);
		cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
		             usmp_plan_error(plan));
		usmp_plan_destroy(plan);

		char *out = NULL;
		int rc = test_usmp(&out, "verify '%s' '%s'", prob, path);
		cr_assert_eq(rc, 0, "case %zu: exit %d: %s", k, rc, out);
		cr_assert(strstr(out, "valid plan for"), "%s", out);
		if (*cases[k].says) {
			cr_assert(strstr(out, "usmp: note: ") &&
			          strstr(out, cases[k].says), "case %zu: %s", k, out);
			cr_assert(strstr(out, path), "the note names the file: %s",
			          out);
		} else {
			cr_assert_null(strstr(out, "note"), "case %zu: %s", k, out);
		}
		free(out);
		/* simulate reads the plan alike and says the same */
		rc = test_usmp(&out, "simulate '%s' '%s'", prob, path);
		cr_assert_eq(rc, 0, "case %zu: exit %d: %s", k, rc, out);
		cr_assert_eq(strstr(out, "usmp: note: ") != NULL, *cases[k].says != 0,
		             "case %zu: %s", k, out);
		free(out);
		free(text);
	}
	usmp_problem_destroy(p);
	remove(path);
	remove(prob);
	free(path);
	free(prob);
	free(dir);
}

/* A plan the placements disprove says the false claim (exit 1), not a
 * note: the note is for claims that may be true. */
Test(redteam9, a_false_claim_is_no_note)
{
	chain_files f = chain_files_write("rt9-false", ", \"proven_bound\": 41");
	char *out = NULL;
	int rc = test_usmp(&out, "verify '%s' '%s'", f.prob, f.path);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, out);
	cr_assert(strstr(out, "false claim in"), "%s", out);
	cr_assert_null(strstr(out, "note"), "%s", out);
	free(out);
	chain_files_free(&f);
}

/* ---- names holding '"' shortened right ----------------------------------- */

/* `n` bytes: `head`, then `fill` repeated (caller frees). */
static char *name_of(const char *head, char fill, size_t n)
{
	char *s = malloc(n + 1);
	cr_assert_not_null(s);
	memset(s, fill, n);
	memcpy(s, head, strlen(head));
	s[n] = '\0';
	return s;
}

/* The shortener paired '"' in the message: a long name holding one was
 * quoted whole (302 bytes here, 1 MB as easily), and the pairing shifted
 * onto the message's own text. Names are shortened as they go into the
 * message, whatever they hold. */
Test(redteam9, a_name_holding_quotes_is_shortened_right)
{
	static const char *const heads[] = {"a\"", "\"\"\"", "\"", "x\"\"y"};
	for (size_t k = 0; k < sizeof heads / sizeof *heads; k++) {
		char *name = name_of(heads[k], 'b', 302);
		usmp_problem *p = usmp_problem_create();
		uint32_t b = 0;
		cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b), USMP_OK);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 10, 1, &b),
		             USMP_ERR_INVALID);
		char *want = test_fmt("buffer \"%.60s\xe2\x80\xa6(302 bytes)\": name "
		                      "already used by buffer 0", name);
		cr_assert_str_eq(usmp_problem_error(p), want);
		free(want);
		usmp_problem_destroy(p);
		free(name);
	}
	/* A name of 120 bytes full of '"' is quoted whole. */
	char *quotes = name_of("", '"', 120);
	usmp_problem *p = usmp_problem_create();
	uint32_t b = 0;
	cr_assert_eq(usmp_problem_add_buffer(p, quotes, 10, 1, &b), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, quotes, 10, 1, &b),
	             USMP_ERR_INVALID);
	char *want = test_fmt("buffer \"%s\": name already used by buffer 0",
	                      quotes);
	cr_assert_str_eq(usmp_problem_error(p), want);
	free(want);
	usmp_problem_destroy(p);
	free(quotes);
}

/* Two names in one message, the first with an odd '"', the second long
 * with a '"' inside: each is quoted as it is, the second shortened, the
 * message's own words untouched (`usmp verify` of two buffers placed on
 * each other). */
Test(redteam9, two_names_with_quotes_in_one_message)
{
	char *longer = name_of("", 'k', 141);
	longer[70] = '"';
	/* the same names escaped for JSON */
	char *esc = name_of("", 'k', 142);
	esc[70] = '\\';
	esc[71] = '"';
	char *problem = test_fmt(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"q\\\"\", \"size\": 8, "
		"\"live\": [0, 2]}, {\"name\": \"%s\", \"size\": 8, \"live\": [0, "
		"2]}]}", esc);
	char *plan = test_fmt(
		"{\"usmp\": 1, \"buffers\": [{\"name\": \"q\\\"\", \"pool\": "
		"\"default\", \"offset\": 0}, {\"name\": \"%s\", \"pool\": "
		"\"default\", \"offset\": 4}]}", esc);
	char *pp = test_write_tmp(".json", problem);
	char *pl = test_write_tmp(".json", plan);
	char *out = NULL;
	int rc = test_usmp(&out, "verify '%s' '%s'", pp, pl);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, out);
	char *want = test_fmt("buffers \"q\"\" and \"%.60s\xe2\x80\xa6(141 bytes)\" "
	                      "overlap in pool \"default\" at bytes [4, 8)",
	                      longer);
	cr_assert(strstr(out, want), "%s\nwanted: %s", out, want);
	free(want);
	free(out);
	remove(pp);
	remove(pl);
	free(pp);
	free(pl);
	free(problem);
	free(plan);
	free(esc);
	free(longer);
}

/* The message formatter reads every conversion the library's messages
 * use as printf does. */
Test(redteam9, the_message_formatter_formats_as_printf)
{
	char want[512];
	char *got = usmp__format_msg(
		"%d|%5d|%-5u|%lld|%zu|%" PRIu64 "|%.*s|%*d|%x|%g|%.2f|%c|%%|%s|"
		"%03u|%+d|%hhu|%ld|%p|%s|\"%s\"", -7, 42, 3u, -123456789012LL,
		(size_t)99, UINT64_MAX, 3, "abcdef", -4, 9, 255u, 0.25, 3.14159, 'z',
		"plain", 7u, 5, (unsigned char)200, -1L, (void *)want, (char *)NULL,
		"short");
	snprintf(want, sizeof want,
	         "%d|%5d|%-5u|%lld|%zu|%" PRIu64 "|%.*s|%*d|%x|%g|%.2f|%c|%%|%s|"
	         "%03u|%+d|%hhu|%ld|%p|%s|\"%s\"", -7, 42, 3u, -123456789012LL,
	         (size_t)99, UINT64_MAX, 3, "abcdef", -4, 9, 255u, 0.25, 3.14159,
	         'z', "plain", 7u, 5, (unsigned char)200, -1L, (void *)want,
	         (char *)NULL, "short");
	cr_assert_not_null(got);
	cr_assert_str_eq(got, want);
	free(got);
	/* a long name not quoted in the format (a path, a list) is left whole */
	char *name = name_of("", 'n', 200);
	got = usmp__format_msg("%s: \"%s\"", name, name);
	want[0] = '\0';
	char *expect = test_fmt("%s: \"%.60s\xe2\x80\xa6(200 bytes)\"", name, name);
	cr_assert_str_eq(got, expect);
	free(expect);
	free(got);
	/* %lc is read as printf reads it */
	got = usmp__format_msg("%lc \"%s\"", (wint_t)'w', name);
	expect = test_fmt("w \"%.60s\xe2\x80\xa6(200 bytes)\"", name);
	cr_assert_str_eq(got, expect);
	free(expect);
	free(got);
	/* a conversion the formatter does not know (glibc's %m): the whole
	 * text by vsnprintf, the name whole */
	errno = EDOM;
	got = usmp__format_msg("%m \"%s\"", name);
	expect = test_fmt("%s \"%s\"", strerror(EDOM), name);
	cr_assert_str_eq(got, expect);
	free(expect);
	free(got);
	free(name);
}

/* Python's Plan.read: the note is `note` ("" for a plan without one). */
Test(redteam9, python_plan_read_has_the_note)
{
	chain_files f = chain_files_write("rt9-py", ", \"proven_bound\": 40");
	char *script = test_fmt(
		"import usmp\n"
		"p = usmp.Problem.read('%s')\n"
		"q = usmp.Plan.read(p, '%s')\n"
		"q.verify()\n"
		"print('NOTE=' + q.note)\n"
		"print('PART=%%d' %% q.parts[0].proven_bound)\n"
		"print('PLANNED=%%r' %% usmp.plan(p, algorithm='first_fit').note)\n",
		f.prob, f.path);
	char *out = NULL;
	cr_assert_eq(test_python(script, 0, &out), 0, "%s", out);
	cr_assert(strstr(out, "NOTE=") && strstr(out, "plan.json: parts[0]."
	          "proven_bound: 40 bytes, above the lower bound (16 bytes): "
	          "only an exact search can check it, not kept"), "%s", out);
	cr_assert(strstr(out, "PART=16"), "%s", out);
	cr_assert(strstr(out, "PLANNED=''"), "%s", out);
	free(out);
	free(script);
	chain_files_free(&f);
}

/* The CSV writer's refusal cut a pool name at 64 bytes, inside a UTF-8
 * sequence and without saying so; it is now quoted like every name. */
Test(redteam9, csv_refusal_quotes_the_pool_name_whole_or_marked)
{
	char *at64 = name_of("", 'x', 65); /* 63 x, then é (2 bytes) */
	memcpy(at64 + 63, "\xc3\xa9", 2);
	char *big = name_of("", 'z', 202);
	memcpy(big + 200, "\xc3\xa9", 2);
	const char *const names[] = {at64, big};
	char *dir = test_fresh_dir("rt9-csv");
	char *path = test_join(dir, "w.csv");
	for (size_t k = 0; k < 2; k++) {
		usmp_problem *p = usmp_problem_create();
		uint32_t pool = 0, b = 0;
		cr_assert_eq(usmp_problem_add_pool(p, names[k], 100, 1, &pool),
		             USMP_OK);
		cr_assert_eq(usmp_problem_add_buffer(p, "a", 4, 1, &b), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, b, 0, 2), USMP_OK);
		cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_CSV),
		             USMP_ERR_UNSUPPORTED);
		char *want = k == 0
			? test_fmt("CSV names its one pool \"default\" (pool \"%s\")",
			           names[k])
			: test_fmt("CSV names its one pool \"default\" (pool "
			           "\"%.60s\xe2\x80\xa6(202 bytes)\")", names[k]);
		cr_assert(strstr(usmp_problem_error(p), want), "%s",
		          usmp_problem_error(p));
		free(want);
		usmp_problem_destroy(p);
	}
	free(path);
	free(dir);
	free(big);
	free(at64);
}

/* ---- the plugin file a crash names ---------------------------------------- */

/* An isolated plugin that crashed was named in a 1024-byte buffer: from a
 * directory 1,200 bytes deep the message ended inside the path, without
 * the file's name. The whole path is named now. */
Test(redteam9, a_crash_names_the_whole_plugin_path)
{
	char *dir = test_fresh_dir("rt9-deep");
	char part[201];
	memset(part, 'd', 200);
	part[200] = '\0';
	char *deep = test_fmt("%s", dir);
	for (int k = 0; k < 6; k++) {
		char *next = test_join(deep, part);
		cr_assert(mkdir(next, 0755) == 0 || errno == EEXIST, "%s", next);
		free(deep);
		deep = next;
	}
	char *from = test_join(test_fixture_plugindir(), "crash.so");
	char *to = test_join(deep, "crash.so");
	char *cp = test_fmt("cp '%s' '%s'", from, to);
	cr_assert_eq(test_run(cp, NULL), 0);
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' plan '%s/examples/"
	                     "mobilenet_v2.json' -a fx_crash --isolate -o "
	                     "/dev/null", to, test_cli(), test_source_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 4, "exit %d: %s", st, out);
	char *named = test_fmt("%s) ", to);
	cr_assert(strstr(out, named), "%s", out);
	free(named);
	free(out);
	free(cmd);
	remove(to);
	/* the six directories, deepest first */
	for (int k = 0; k < 6; k++) {
		rmdir(deep);
		*strrchr(deep, '/') = '\0';
	}
	free(cp);
	free(to);
	free(from);
	free(deep);
	free(dir);
}
