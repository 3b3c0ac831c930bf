/* test_text_input.c — text in names and files: SVG well formed for every
 * name, long CSV ids, a UTF-8 byte order mark (docs/errors.md, last section). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

/* `usmp ARGS` in dir; its exit status, output in *out (caller frees). */
static int usmp_in(const char *dir, char **out, const char *args)
{
	size_t n = strlen(dir) + strlen(test_cli()) + strlen(args) + 128;
	char *cmd = malloc(n);
	cr_assert_not_null(cmd);
	snprintf(cmd, n, "cd '%s' && USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' %s "
	         "</dev/null", dir, test_cli(), args);
	int st = test_run(cmd, out);
	free(cmd);
	return st;
}

static void remove_dir(char *dir)
{
	char *rm = malloc(strlen(dir) + 16);
	sprintf(rm, "rm -rf '%s'", dir);
	test_run(rm, NULL);
	free(rm);
	free(dir);
}

/* ---- SVG ------------------------------------------------------------------ */

/* Every byte of text is UTF-8 whose code points XML 1.0 allows
 * (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]),
 * decoded strictly (no overlong forms). The offending byte in *at. */
static int xml_chars_only(const char *text, size_t *at)
{
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; u[i];) {
		uint32_t cp;
		int len;
		*at = i;
		if (u[i] < 0x80)
			cp = u[i], len = 1;
		else if (u[i] >= 0xc2 && u[i] < 0xe0)
			cp = u[i] & 0x1fu, len = 2;
		else if (u[i] >= 0xe0 && u[i] < 0xf0)
			cp = u[i] & 0x0fu, len = 3;
		else if (u[i] >= 0xf0 && u[i] < 0xf5)
			cp = u[i] & 0x07u, len = 4;
		else
			return 0;
		for (int k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (u[i + k] & 0x3fu);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
			return 0;
		int ok = cp == 0x9 || cp == 0xa || cp == 0xd ||
		         (cp >= 0x20 && cp <= 0xd7ff) ||
		         (cp >= 0xe000 && cp <= 0xfffd) ||
		         (cp >= 0x10000 && cp <= 0x10ffff);
		if (!ok)
			return 0;
		i += (size_t)len;
	}
	return 1;
}

/* python3's XML parser (expat) accepts the file, when python3 is there. */
static void python_parses(const char *path)
{
	char cmd[1024], *out = NULL;
	if (test_run("command -v python3 >/dev/null 2>&1", NULL) != 0)
		return; /* the byte check above stands alone */
	snprintf(cmd, sizeof cmd, "python3 -c 'import sys, xml.etree.ElementTree "
	         "as E; E.parse(sys.argv[1])' '%s'", path);
	cr_assert_eq(test_run(cmd, &out), 0, "python3 cannot parse %s:\n%s", path,
	             out);
	free(out);
}

Test(text_input, svg_is_well_formed_xml_for_every_name)
{
	static const char *const names[] = {
		"nonchar\xEF\xBF\xBE",         /* U+FFFE */
		"nonchar\xEF\xBF\xBF",         /* U+FFFF */
		"c0\x01\x1b\x09\x0a\x0d",      /* C0 controls, tab, line ends */
		"del\x7f c1\xC2\x85",          /* DEL, NEL (C1) */
		"surrogate\xED\xA0\x80",       /* U+D800 encoded */
		"overlong\xE0\x80\xAF",        /* '/' in three bytes */
		"toobig\xF4\x90\x80\x80",      /* U+110000 */
		"lone\x80 cut\xE2\x82",        /* stray and truncated bytes */
		"fine \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD <&>\"", /* é 😀 U+FFFD */
	};
	const size_t n = sizeof names / sizeof *names;
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(p, "pool\xEF\xBF\xBF", USMP_UNBOUNDED, 1,
	                                   NULL), USMP_OK);
	for (size_t i = 0; i < n; i++) {
		uint32_t id;
		cr_assert_eq(usmp_problem_add_buffer(p, names[i], 16, 1, &id),
		             USMP_OK, "%s", usmp_problem_error(p));
		cr_assert_eq(usmp_problem_set_live(p, id, (int64_t)i, (int64_t)i + 2),
		             USMP_OK);
	}
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	char *path = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, path), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *svg = test_read_file(path);
	cr_assert_not_null(svg);
	size_t at = 0;
	cr_assert(xml_chars_only(svg, &at), "byte %zu of the SVG is not an XML "
	          "character: \"%.20s\"", at, svg + at);
	/* What is allowed stays; what is not becomes '?' byte by byte. */
	cr_assert(strstr(svg, "fine \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD "
	                      "&lt;&amp;&gt;&quot;"), "valid text is kept");
	cr_assert(strstr(svg, "nonchar???:"), "U+FFFE and U+FFFF as ???");
	cr_assert(strstr(svg, "c0?????:"), "controls as ?");
	cr_assert(strstr(svg, "surrogate???:"));
	cr_assert(strstr(svg, "pool???"));
	python_parses(path);
	unlink(path);
	free(path);
	free(svg);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

Test(text_input, svg_from_json_names_with_u_fffe_parses_as_xml)
{
	/* JSON may carry U+FFFE and U+FFFF (\uFFFE): `usmp plan --svg`. */
	static const char json[] =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\\uFFFE\", \"size\": 8, \"live\": [0, 2]},"
		"{\"name\": \"b\\uFFFF\\u0007\", \"size\": 8, \"live\": [1, 3]}]}";
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *model = test_join(dir, "model.json");
	test_write_bytes(model, json, sizeof json - 1);
	int st = usmp_in(dir, &out, "plan model.json -a first_fit -o plan.json "
	                            "--svg plan.svg");
	cr_assert_eq(st, 0, "%s", out);
	char *svg_path = test_join(dir, "plan.svg");
	char *svg = test_read_file(svg_path);
	cr_assert_not_null(svg);
	size_t at = 0;
	cr_assert(xml_chars_only(svg, &at), "byte %zu: \"%.20s\"", at, svg + at);
	cr_assert(strstr(svg, "a???:") && strstr(svg, "b????:"), "replaced");
	python_parses(svg_path);
	free(svg);
	free(svg_path);
	free(out);
	free(model);
	remove_dir(dir);
}

/* ---- long CSV ids --------------------------------------------------------- */

/* "id,lower,upper,size" and one row whose id has `n` bytes. */
static char *csv_with_id_of(size_t n)
{
	const char head[] = "id,lower,upper,size\n", tail[] = ",0,3,4\n";
	char *s = malloc(sizeof head + n + sizeof tail);
	cr_assert_not_null(s);
	memcpy(s, head, sizeof head - 1);
	memset(s + sizeof head - 1, 'i', n);
	memcpy(s + sizeof head - 1 + n, tail, sizeof tail);
	return s;
}

Test(text_input, csv_id_of_3000_bytes_reads_plans_and_writes_back)
{
	char *csv = csv_with_id_of(3000);
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *model = test_join(dir, "model.csv");
	test_write_bytes(model, csv, strlen(csv));
	cr_assert_eq(usmp_in(dir, &out, "plan model.csv -a first_fit -o plan.csv"),
	             0, "%s", out);
	free(out);
	cr_assert_eq(usmp_in(dir, &out, "verify model.csv plan.csv"), 0, "%s",
	             out);
	cr_assert(strstr(out, "valid plan"), "%s", out);
	free(out);
	/* And through the API: write the problem as CSV, read it back. */
	usmp_problem *p = usmp_problem_create(), *q = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, csv, strlen(csv), "model.csv",
	                                USMP_FORMAT_CSV, USMP_UNBOUNDED), USMP_OK,
	             "%s", usmp_problem_error(p));
	char *again = test_join(dir, "again.csv");
	cr_assert_eq(usmp_problem_write(p, again, USMP_FORMAT_CSV), USMP_OK, "%s",
	             usmp_problem_error(p));
	cr_assert_eq(usmp_problem_read(q, again, USMP_FORMAT_CSV, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(q));
	cr_assert_eq(strlen(usmp_problem_buffer_name(q, 0)), 3000);
	usmp_problem_destroy(p);
	usmp_problem_destroy(q);
	free(again);
	free(model);
	free(csv);
	remove_dir(dir);
}

Test(text_input, csv_plan_row_past_4096_bytes_is_refused_for_its_length)
{
	/* The problem's row has 4095 bytes; the plan adds ",0": 4097. */
	char *csv = csv_with_id_of(4089);
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *model = test_join(dir, "model.csv");
	test_write_bytes(model, csv, strlen(csv));
	int st = usmp_in(dir, &out, "plan model.csv -a first_fit -o plan.csv");
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "usmp: writing plan.csv: cannot write the plan as CSV: its row would "
	                      "be 4097 bytes with an id of 4089, and a CSV line "
	                      "holds at most 4096 (buffer \"iiii"), "%s", out);
	free(out);
	/* As JSON it is written. */
	cr_assert_eq(usmp_in(dir, &out, "plan model.csv -a first_fit -o "
	                                "plan.json"), 0, "%s", out);
	free(out);
	free(model);
	free(csv);
	remove_dir(dir);
}

Test(text_input, csv_line_past_4096_bytes_names_line_and_column)
{
	char *csv = csv_with_id_of(5000);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, csv, strlen(csv), "model.csv",
	                                USMP_FORMAT_CSV, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "model.csv:2: line longer than "
	                 "4096 bytes (5006): column \"id\" runs past byte 4096");
	usmp_problem_destroy(p);
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *model = test_join(dir, "model.csv");
	test_write_bytes(model, csv, strlen(csv));
	cr_assert_eq(usmp_in(dir, &out, "bound model.csv"), 2, "%s", out);
	cr_assert(strstr(out, "usmp: model.csv:2: line longer than 4096 bytes "
	                      "(5006): column \"id\" runs past byte 4096"), "%s",
	          out);
	free(out);
	free(model);
	free(csv);
	remove_dir(dir);
}

/* ---- the UTF-8 byte order mark -------------------------------------------- */

Test(text_input, json_and_csv_starting_with_a_byte_order_mark_are_read)
{
	static const char json[] = "\xEF\xBB\xBF{\"usmp\": 1, \"buffers\": ["
	                           "{\"name\": \"a\", \"size\": 4, \"live\": [0, 3]}]}";
	static const char csv[] = "\xEF\xBB\xBFid,lower,upper,size\na,0,3,4\n";
	static const char plan_json[] = "\xEF\xBB\xBF{\"usmp\": 1, \"buffers\": ["
	                                "{\"name\": \"a\", \"pool\": \"default\", "
	                                "\"offset\": 0}]}";
	static const char plan_csv[] = "\xEF\xBB\xBFid,offset\na,0\n";
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *f;
	test_write_bytes(f = test_join(dir, "model.json"), json, sizeof json - 1), free(f);
	test_write_bytes(f = test_join(dir, "model.csv"), csv, sizeof csv - 1), free(f);
	test_write_bytes(f = test_join(dir, "plan.json"), plan_json, sizeof plan_json - 1),
		free(f);
	test_write_bytes(f = test_join(dir, "plan.csv"), plan_csv, sizeof plan_csv - 1),
		free(f);
	cr_assert_eq(usmp_in(dir, &out, "bound model.json"), 0, "%s", out);
	cr_assert(strstr(out, "lower bound 4 bytes"), "%s", out);
	free(out);
	cr_assert_eq(usmp_in(dir, &out, "bound model.csv"), 0, "%s", out);
	free(out);
	cr_assert_eq(usmp_in(dir, &out, "verify model.json plan.json"), 0, "%s",
	             out);
	free(out);
	cr_assert_eq(usmp_in(dir, &out, "verify model.csv plan.csv"), 0, "%s", out);
	free(out);
	/* The name read is "a", not "\uFEFFa"; a syntax error keeps the
	 * column an editor shows (the mark is not counted). */
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, json, sizeof json - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED), USMP_OK,
	             "%s", usmp_problem_error(p));
	cr_assert_str_eq(usmp_problem_buffer_name(p, 0), "a");
	usmp_problem_destroy(p);
	static const char bad[] = "\xEF\xBB\xBF{\"usmp\": 1, \"buffers\": [{\"name\": "
	                          "\"a\", \"size\": 4,}]}";
	p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, bad, sizeof bad - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p), "model.json:1:49: string or '}' "
	                 "expected near '}' (a comma before '}'? JSON allows none "
	                 "after an object's last member)");
	usmp_problem_destroy(p);
	remove_dir(dir);
}

Test(text_input, json_byte_order_mark_past_the_start_is_named)
{
	static const char json[] = "{\"usmp\": 1,\xEF\xBB\xBF \"buffers\": []}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, json, sizeof json - 1, "model.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "model.json:1:12: string or '}' expected near '\xEF\xBB\xBF' "
	                 "(U+FEFF, a byte order mark, is allowed only at the start "
	                 "of the file)");
	usmp_problem_destroy(p);
	char *dir = test_fresh_dir("text"), *out = NULL;
	char *model = test_join(dir, "model.json");
	test_write_bytes(model, json, sizeof json - 1);
	cr_assert_eq(usmp_in(dir, &out, "bound model.json"), 2, "%s", out);
	cr_assert(strstr(out, "(U+FEFF, a byte order mark, is allowed only at the "
	                      "start of the file)"), "%s", out);
	free(out);
	free(model);
	remove_dir(dir);
}
