/* test_firsthour8.c — a compiler engineer's first hour, round 8: the plugin
 * guide's neighbour walk as written, bound against pool limits, key typos. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* The indented block of docs/plugins.md that starts with `first` (its line
 * included) and ends at the next line indented less, de-indented (caller
 * frees). */
static char *plugins_md_block(const char *first)
{
	char *path = test_join(test_source_root(), "docs/plugins.md");
	char *doc = test_read_file(path);
	cr_assert_not_null(doc, "cannot read %s", path);
	char *at = strstr(doc, first);
	cr_assert_not_null(at, "docs/plugins.md has no \"%s\"", first);
	while (at > doc && at[-1] == ' ')
		at--;
	size_t indent = strspn(at, " ");
	char *code = calloc(strlen(at) + 1, 1);
	cr_assert_not_null(code);
	size_t used = 0;
	for (const char *line = at; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len && strspn(line, " ") < indent)
			break; /* the prose again */
		if (len >= indent) {
			memcpy(code + used, line + indent, len - indent);
			used += len - indent;
		}
		code[used++] = '\n';
		line += len + (nl ? 1 : 0);
	}
	free(doc);
	free(path);
	return code;
}

/* A first fit over every candidate pool that asks the snippet's clear()
 * whether a place is free. */
static const char first_fit_with_clear[] =
	"\nUSMP_ALGORITHM_DECLARE(acme_ff, USMP_NO_KNOBS);\n"
	"static int acme_ff(const usmp_view *v, const usmp_host *h,\n"
	"                   usmp_placement *out)\n"
	"{\n"
	"	for (uint32_t b = 0; b < v->buffer_count; b++) {\n"
	"		const usmp_buffer_rec *r = &v->buffers[b];\n"
	"		if (r->flags & USMP_BUFFER_FIXED)\n"
	"			continue;\n"
	"		for (uint32_t k = 0; k < r->candidate_count; k++) {\n"
	"			uint32_t p = v->candidates[r->candidate_start + k];\n"
	"			uint64_t limit = v->pools[p].size_limit, at = 0;\n"
	"			bool ok = true;\n"
	"			for (; ok && at <= limit && r->size <= limit - at;\n"
	"			     at = usmp_align_up(at + 1, usmp_buffer_alignment(v, b, p), &ok))\n"
	"				if (clear(v, h, out, b, p, at))\n"
	"					break;\n"
	"			if (ok && at <= limit && r->size <= limit - at) {\n"
	"				out[b].pool = p;\n"
	"				out[b].offset = at;\n"
	"				break;\n"
	"			}\n"
	"			if (h->should_stop(h))\n"
	"				return USMP_ERR_STOPPED;\n"
	"		}\n"
	"		if (out[b].pool == USMP_NO_POOL) {\n"
	"			h->log(h, USMP_LOG_ERROR, \"a buffer fits in none of its pools\");\n"
	"			return USMP_ERR_INFEASIBLE;\n"
	"		}\n"
	"	}\n"
	"	return USMP_OK;\n"
	"}\n"
	"static const usmp_algorithm acme_algo = USMP_ALGORITHM_INIT(acme_ff,\n"
	"	\"acme_ff\", USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS |\n"
	"	USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_DETERMINISTIC, \"first fit\");\n"
	"static const usmp_algorithm *const algos[] = {&acme_algo};\n"
	"USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =\n"
	"	USMP_PLUGIN_INIT(\"acme\", \"1.0\", \"MIT\", algos);\n";

/* docs/plugins.md, section 7: for_each_neighbor's `visit` had no signature
 * on the page, so a callback written (uint32_t other, void *arg) built with
 * a warning and crashed in every call. The page's example callback and
 * clear() now compile as written (warnings are errors) in a plugin that
 * passes `usmp check-plugin` and plans with usmp plan. */
Test(firsthour8, plugins_md_neighbour_walk_compiles_and_plans)
{
	char *snippet = plugins_md_block("struct clash {");
	cr_assert(strstr(snippet, "static int overlaps(void *arg, uint32_t other)"),
	          "%s", snippet);
	char *code = test_fmt("#include <usmp/plugin.h>\n\n%s%s", snippet,
	                      first_fit_with_clear);
	char *dir = test_fresh_dir("firsthour8-neighbour");
	test_write_in(dir, "acme.c", code, strlen(code));
	static const char csv[] = "id,lower,upper,size\na,0,2,8\nb,1,3,8\nc,2,4,8\n";
	test_write_in(dir, "t.csv", csv, strlen(csv));
	char *cmd = test_fmt(
		"cd '%s' && export PKG_CONFIG_PATH='%s/meson-uninstalled' && "
		"cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared "
		"-fvisibility=hidden $(pkg-config --cflags usmp-uninstalled) "
		"-o acme.so acme.c",
		dir, test_build_root());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d:\n%s\n%s\n%s", st, cmd, out, code);
	free(out);
	free(cmd);

	out = test_usmp_ok("check-plugin '%s/acme.so'", dir);
	cr_assert(strstr(out, "ok   algorithm acme_ff:"), "%s", out);
	free(out);

	cmd = test_fmt("USMP_PLUGIN_PATH='%s' USMP_ALGORITHM= '%s' plan '%s/t.csv' "
	               "-a acme_ff", dir, test_cli(), dir);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	/* a at 0; b, alive with a, above it; c, alive with b only, at 0 */
	cr_assert(strstr(out, "{\"name\": \"b\", \"pool\": \"default\", \"offset\": 8}"),
	          "%s", out);
	cr_assert(strstr(out, "{\"name\": \"c\", \"pool\": \"default\", \"offset\": 0}"),
	          "%s", out);
	free(out);
	free(cmd);
	free(dir);
	free(code);
	free(snippet);
}

/* A hand-written JSON problem whose SRAM is too small for its peak:
 * `usmp bound` printed the bound and nothing else, exit 0, so the quick
 * check "does my model fit?" needed `usmp plan`. It compares the bound with
 * the group's limits now, as it does with a CSV problem's --capacity. */
static const char npu_json[] =
	"{\"usmp\": 1, \"pools\": [\n"
	" {\"name\": \"sram\", \"size_limit\": 100000, \"alignment\": 16},\n"
	" {\"name\": \"dtcm\", \"size_limit\": 4096},\n"
	" {\"name\": \"ext\", \"size_limit\": 60000},\n"
	" {\"name\": \"dram\"}],\n"
	" \"buffers\": [\n"
	" {\"name\": \"conv1\", \"size\": 65536, \"live\": [0, 2], \"pools\": [\"sram\"]},\n"
	" {\"name\": \"conv2\", \"size\": 65536, \"live\": [1, 3], \"pools\": [\"sram\"]},\n"
	" {\"name\": \"s\", \"size\": 3000, \"live\": [0, 2], \"pools\": [\"dtcm\", \"ext\"]},\n"
	" {\"name\": \"t\", \"size\": 3000, \"live\": [1, 3], \"pools\": [\"dtcm\", \"ext\"]},\n"
	" {\"name\": \"w\", \"size\": 500, \"live\": [0, 3], \"pools\": [\"dram\"]}]}\n";

Test(firsthour8, bound_compares_a_json_group_with_its_pools_limits)
{
	char *model = test_write_tmp(".json", npu_json);
	char *out = test_usmp_ok("bound '%s'", model);
	cr_assert_str_eq(out,
		"group 0: lower bound 131072 bytes; pools: sram; over the pool's "
		"size limit (100000 bytes) by 31072 bytes: no plan fits\n"
		"group 1: lower bound 6000 bytes; pools: dtcm ext; within the "
		"pools' size limits together (64096 bytes), 58096 bytes to spare: "
		"a plan may fit (usmp plan says)\n"
		"group 2: lower bound 500 bytes; pools: dram\n");
	free(out);
	/* what bound said, plan confirms */
	int st = test_usmp(&out, "plan '%s' -o /dev/null", model);
	cr_assert_eq(st, 3, "exit %d: %s", st, out);
	free(out);
	remove(model);
	free(model);
}

/* Keys misspelt in a hand-written problem: "pool" for "pools" was taken for
 * a plan's key alone (is this a plan file?), "size_limt" named no key. */
Test(firsthour8, a_misspelt_json_key_names_the_known_one)
{
	usmp_problem *p = usmp_problem_create();
	static const char pool[] =
		"{\"pools\": [{\"name\": \"s\"}], \"buffers\": [{\"name\": \"a\", "
		"\"size\": 4, \"live\": [0, 1], \"pool\": \"s\"}]}";
	cr_assert_eq(usmp_problem_parse(p, pool, strlen(pool), "m.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
		"m.json: buffers[0]: unknown key \"pool\" (known: name, size, "
		"alignment, live, pools, fixed): did you mean \"pools\"? Or a plan's "
		"key: is this a plan file? (usmp verify and simulate take the "
		"PROBLEM first, then the PLAN)");
	static const char limit[] =
		"{\"pools\": [{\"name\": \"s\", \"size_limt\": 64}], \"buffers\": []}";
	cr_assert_eq(usmp_problem_parse(p, limit, strlen(limit), "m.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
		"m.json: pools[0]: unknown key \"size_limt\" (known: name, "
		"size_limit, alignment, targets): did you mean \"size_limit\"?");
	/* nothing close: no guess */
	static const char colour[] =
		"{\"buffers\": [{\"name\": \"a\", \"size\": 4, \"colour\": 1}]}";
	cr_assert_eq(usmp_problem_parse(p, colour, strlen(colour), "m.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_null(strstr(usmp_problem_error(p), "did you mean"), "%s",
	               usmp_problem_error(p));
	usmp_problem_destroy(p);
}

/* A trace exported by another tool names its columns its own way: the
 * header said `unknown column "start"` and left the user to map start, end,
 * name and bytes onto the known list (and to learn that upper is
 * excluded). The message names the column meant. */
Test(firsthour8, another_tools_csv_columns_name_the_column_meant)
{
	static const struct {
		const char *header, *message;
	} cases[] = {
		{"id,start,end,size", "t.csv:1: unknown column \"start\": did you mean "
		 "\"lower\"? (known: id, lower, upper, size, alignment, offset)"},
		{"id,lower,End,size", "t.csv:1: unknown column \"End\": did you mean "
		 "\"upper\"? (known: id, lower, upper, size, alignment, offset); upper "
		 "is excluded: a buffer last used at step t has upper t + 1"},
		{"name,lower,upper,size", "t.csv:1: unknown column \"name\": did you "
		 "mean \"id\"? (known: id, lower, upper, size, alignment, offset)"},
		{"id,lower,upper,bytes", "t.csv:1: unknown column \"bytes\": did you "
		 "mean \"size\"? (known: id, lower, upper, size, alignment, offset)"},
		{"id,lower,upper,size,colour", "t.csv:1: unknown column \"colour\" "
		 "(known: id, lower, upper, size, alignment, offset)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text = test_fmt("%s\na,0,1,16\n", cases[i].header);
		usmp_problem *p = usmp_problem_create();
		cr_assert_eq(usmp_problem_parse(p, text, strlen(text), "t.csv",
		                                USMP_FORMAT_CSV, USMP_UNBOUNDED),
		             USMP_ERR_INVALID, "%s", cases[i].header);
		cr_assert_str_eq(usmp_problem_error(p), cases[i].message);
		usmp_problem_destroy(p);
		free(text);
	}
}

/* A model too big for its SRAM, found so by a glance at the part: its
 * lower bound above the pool's limit, or a buffer larger than every pool
 * it may use. auto ran every member anyway, each failing, before giving
 * the certificate the library computes from the problem alone: 1 s of CPU
 * on XLA trace R (59,063 buffers) in a 100 MB pool, where `usmp bound`
 * answers at once. It runs none now; the message is the same, and a host's
 * log gets auto's one error line, no member's. */
Test(firsthour8, auto_runs_no_member_on_a_part_plainly_too_big)
{
	usmp_registry *r = test_registry(NULL);
	static const char json[] =
		"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 100}], \"buffers\": [\n"
		"{\"name\": \"a\", \"size\": 64, \"live\": [0, 2]},\n"
		"{\"name\": \"b\", \"size\": 64, \"live\": [1, 3]}]}\n";
	static const char big[] =
		"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 100}], \"buffers\": [\n"
		"{\"name\": \"a\", \"size\": 64, \"live\": [0, 2]},\n"
		"{\"name\": \"b\", \"size\": 164, \"live\": [3, 4]}]}\n";
	static const char *const expect[] = {
		"auto: no plan fits the pools: at step 1 the buffers live that may "
		"use only pool \"sram\" need 128 bytes, more than its limit (100 "
		"bytes) by 28 bytes; the largest of the 2 is \"a\" (64 bytes), then "
		"\"b\" (64 bytes); the lower bound of the group is 128 bytes (part "
		"1: target none; pool sram; algorithm chosen by rule \"*=auto\" the "
		"default)",
		"auto: no plan fits the pools: buffer \"b\" (164 bytes) is larger "
		"than every pool it may use (the largest, \"sram\", holds 100 bytes); "
		"the lower bound of the group is 164 bytes (part 1: target none; "
		"pool sram; algorithm chosen by rule \"*=auto\" the default)",
	};
	const char *const problems[] = {json, big};
	for (int k = 0; k < 2; k++) {
		usmp_problem *p = test_parse_json(problems[k], "m.json");
		char log[TEST_LOG_LINES] = "";
		cr_assert_eq(usmp_registry_set_log(r, test_keep_log_lines, log,
		                                   USMP_LOG_DEBUG), USMP_OK);
		usmp_plan *plan = NULL;
		cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
		cr_assert_str_eq(usmp_plan_error(plan), expect[k]);
		usmp_infeasibility why = {.struct_size = sizeof why};
		cr_assert_eq(usmp_plan_infeasibility(plan, &why), USMP_OK);
		cr_assert_eq(why.kind, k ? USMP_INFEASIBLE_BUFFER : USMP_INFEASIBLE_STEP);
		cr_assert_str_eq(log, "0 auto: no member run: the part's lower bound, "
		                 "or one of its buffers, exceeds what its pools hold, "
		                 "so no plan fits\n");
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
	}
	/* a part whose sram alone is too small, in a group with a pool of
	 * room, is not seen at a glance: the members run and fail */
	static const char joined[] =
		"{\"pools\": [{\"name\": \"sram\", \"size_limit\": 100}, {\"name\": "
		"\"dram\", \"size_limit\": 4096}], \"buffers\": [\n"
		"{\"name\": \"a\", \"size\": 64, \"live\": [0, 2], \"pools\": [\"sram\"]},\n"
		"{\"name\": \"b\", \"size\": 64, \"live\": [1, 3], \"pools\": [\"sram\"]},\n"
		"{\"name\": \"u\", \"size\": 16, \"live\": [0, 3], \"pools\": [\"dram\", \"sram\"]}]}\n";
	usmp_problem *p = test_parse_json(joined, "m.json");
	char log[TEST_LOG_LINES] = "";
	cr_assert_eq(usmp_registry_set_log(r, test_keep_log_lines, log,
	                                   USMP_LOG_INFO), USMP_OK);
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, NULL, &plan), USMP_ERR_INFEASIBLE);
	cr_assert(strstr(log, "auto/first_fit: "), "%s", log);
	cr_assert(strstr(log, "0 auto: no member found a plan"), "%s", log);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
