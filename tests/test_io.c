/* test_io.c — the file formats: JSON and CSV problems and plans round-trip
 * field for field, malformed input is refused naming the place, SVG is sane. */
#include <criterion/criterion.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* ---- helpers ------------------------------------------------------------ */

static usmp_problem *parse_ok(const char *name, const char *text,
                              uint64_t capacity)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int rc = usmp_problem_parse(p, text, strlen(text), name,
	                            USMP_FORMAT_AUTO, capacity);
	cr_assert_eq(rc, USMP_OK, "parse %s failed: %s", name,
	             usmp_problem_error(p));
	return p;
}

/* Parsing must fail with `status` and a message containing every `want`;
 * the problem must be left empty. */
static void expect_bad_len(const char *name, const char *text, size_t len,
                           int status, const char *want1, const char *want2)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int rc = usmp_problem_parse(p, text, len, name, USMP_FORMAT_AUTO,
	                            USMP_UNBOUNDED);
	const char *msg = usmp_problem_error(p);
	cr_assert_eq(rc, status, "%s: expected status %d, got %d (%s)", name,
	             status, rc, msg);
	cr_assert(strstr(msg, want1), "message \"%s\" lacks \"%s\"", msg, want1);
	if (want2)
		cr_assert(strstr(msg, want2), "message \"%s\" lacks \"%s\"", msg,
		          want2);
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	cr_assert_eq(usmp_problem_pool_count(p), 0);
	cr_assert_eq(p->edge_count, 0);
	cr_assert_eq(p->overlap_count, 0);
	usmp_problem_destroy(p);
}

static void expect_bad(const char *name, const char *text, const char *want1,
                       const char *want2)
{
	expect_bad_len(name, text, strlen(text), USMP_ERR_INVALID, want1, want2);
}

static int edge_order(const void *x, const void *y)
{
	const usmp__edge *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* Distinct edges, sorted, into a new array; count in *n. */
static usmp__edge *edge_set(const usmp_problem *p, size_t *n)
{
	usmp__edge *e = malloc((p->edge_count + 1) * sizeof *e);
	cr_assert_not_null(e);
	if (p->edge_count)
		memcpy(e, p->edges, p->edge_count * sizeof *e);
	qsort(e, p->edge_count, sizeof *e, edge_order);
	size_t k = 0;
	for (size_t i = 0; i < p->edge_count; i++)
		if (k == 0 || edge_order(&e[k - 1], &e[i]) != 0)
			e[k++] = e[i];
	*n = k;
	return e;
}

/* Every field of two problems agrees. */
static void assert_same_problem(const usmp_problem *a, const usmp_problem *b)
{
	cr_assert_eq(a->pool_count, b->pool_count);
	for (size_t j = 0; j < a->pool_count; j++) {
		const usmp__pool *x = &a->pools[j], *y = &b->pools[j];
		cr_assert_str_eq(x->name, y->name);
		cr_assert_eq(x->size_limit, y->size_limit, "pool %s", x->name);
		cr_assert_eq(x->alignment, y->alignment, "pool %s", x->name);
		cr_assert_eq(x->target_count, y->target_count, "pool %s", x->name);
		for (uint32_t k = 0; k < x->target_count; k++)
			cr_assert_str_eq(x->targets[k], y->targets[k]);
	}
	cr_assert_eq(a->buffer_count, b->buffer_count);
	for (size_t i = 0; i < a->buffer_count; i++) {
		const usmp__buffer *x = &a->buffers[i], *y = &b->buffers[i];
		cr_assert_str_eq(x->name, y->name);
		cr_assert_eq(x->size, y->size, "buffer %s", x->name);
		cr_assert_eq(x->alignment, y->alignment, "buffer %s", x->name);
		cr_assert_eq(x->flags, y->flags, "buffer %s", x->name);
		if (x->flags & USMP_BUFFER_LIVE) {
			cr_assert_eq(x->begin, y->begin, "buffer %s", x->name);
			cr_assert_eq(x->end, y->end, "buffer %s", x->name);
		}
		if (x->flags & USMP_BUFFER_FIXED) {
			cr_assert_eq(x->fixed_pool, y->fixed_pool);
			cr_assert_eq(x->fixed_offset, y->fixed_offset);
		}
		cr_assert_eq(x->candidate_count, y->candidate_count,
		             "buffer %s", x->name);
		for (uint32_t k = 0; k < x->candidate_count; k++)
			cr_assert_eq(x->candidates[k], y->candidates[k]);
	}
	size_t na, nb;
	usmp__edge *ea = edge_set(a, &na), *eb = edge_set(b, &nb);
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++)
		cr_assert(ea[i].a == eb[i].a && ea[i].b == eb[i].b);
	free(ea);
	free(eb);
	cr_assert_eq(a->overlap_count, b->overlap_count);
	for (size_t i = 0; i < a->overlap_count; i++) {
		cr_assert_eq(a->overlaps[i].src, b->overlaps[i].src);
		cr_assert_eq(a->overlaps[i].dst, b->overlaps[i].dst);
		cr_assert_eq(a->overlaps[i].max_lead, b->overlaps[i].max_lead);
	}
}

static usmp_problem *read_ok(const char *path, int format, uint64_t capacity)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int rc = usmp_problem_read(p, path, format, capacity);
	cr_assert_eq(rc, USMP_OK, "read %s: %s", path, usmp_problem_error(p));
	return p;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

/* A plan with buffers stacked in their pool (valid whatever the conflicts,
 * though rarely small). */
static usmp_plan *stacked_plan(usmp_problem *p)
{
	cr_assert_eq(usmp__problem_prepare(p), USMP_OK, "%s",
	             usmp_problem_error(p));
	usmp_plan *plan = usmp__plan_alloc(p);
	cr_assert_not_null(plan);
	uint64_t *top = calloc(p->pool_count, sizeof *top);
	cr_assert_not_null(top);
	for (size_t i = 0; i < p->buffer_count; i++) {
		const usmp__buffer *b = &p->buffers[i];
		uint32_t pool = b->candidate_count ? b->candidates[0] : 0;
		uint64_t off = top[pool];
		if (b->flags & USMP_BUFFER_FIXED) {
			pool = b->fixed_pool;
			off = b->fixed_offset;
		}
		plan->placements[i].pool = pool;
		plan->placements[i].offset = off;
		if (off + b->size > top[pool])
			top[pool] = off + b->size;
		/* keep the next offsets aligned generously */
		top[pool] = (top[pool] + 63) & ~(uint64_t)63;
	}
	free(top);
	usmp__plan_measure(plan, p);
	return plan;
}

static const char *full_json =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 262144, "
	"\"alignment\": 16, \"targets\": [\"ethos-u55\", \"cortex-m55\"]},\n"
	"            {\"name\": \"dram\"}],\n"
	" \"buffers\": [{\"name\": \"conv1.out\", \"size\": 200704, "
	"\"alignment\": 16, \"live\": [0, 3], \"pools\": [\"sram\", \"dram\"]},\n"
	"             {\"name\": \"relu1.out\", \"size\": 200704, "
	"\"live\": [2, 5]},\n"
	"             {\"name\": \"weights.scratch\", \"size\": 4096,\n"
	"              \"fixed\": {\"pool\": \"dram\", \"offset\": 0}},\n"
	"             {\"name\": \"neg\", \"size\": 7, \"live\": [-10, -2]}],\n"
	" \"conflicts\": [[\"conv1.out\", \"weights.scratch\"],\n"
	"               [\"weights.scratch\", \"conv1.out\"]],\n"
	" \"overlaps\": [{\"src\": \"conv1.out\", \"dst\": \"relu1.out\", "
	"\"max_lead\": -64}]}\n";

/* ---- JSON problems ------------------------------------------------------- */

Test(io, json_problem_reads_every_field)
{
	usmp_problem *p = parse_ok("model.json", full_json, 0);
	cr_assert_eq(usmp_problem_pool_count(p), 2);
	cr_assert_eq(usmp_problem_buffer_count(p), 4);
	cr_assert_eq(p->pools[0].size_limit, 262144);
	cr_assert_eq(p->pools[0].alignment, 16);
	cr_assert_eq(p->pools[0].target_count, 2);
	cr_assert_str_eq(p->pools[0].targets[1], "cortex-m55");
	cr_assert_eq(p->pools[1].size_limit, USMP_UNBOUNDED);
	const usmp__buffer *b = &p->buffers[0];
	cr_assert_eq(b->size, 200704);
	cr_assert_eq(b->alignment, 16);
	cr_assert(b->flags & USMP_BUFFER_LIVE);
	cr_assert_eq(b->begin, 0);
	cr_assert_eq(b->end, 3);
	cr_assert_eq(b->candidate_count, 2);
	cr_assert_eq(b->candidates[1], 1);
	b = &p->buffers[2];
	cr_assert(b->flags & USMP_BUFFER_FIXED);
	cr_assert_eq(b->fixed_pool, 1);
	cr_assert_eq(p->buffers[3].begin, -10);
	cr_assert_eq(p->overlap_count, 1);
	cr_assert_eq(p->overlaps[0].max_lead, -64);
	usmp_problem_destroy(p);
}

Test(io, json_problem_round_trip_keeps_every_field)
{
	usmp_problem *p = parse_ok("model.json", full_json, 0);
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_AUTO), USMP_OK,
	             "%s", usmp_problem_error(p));
	usmp_problem *q = read_ok(path, USMP_FORMAT_AUTO, 0);
	assert_same_problem(p, q);
	/* and a second generation is byte-identical */
	char *path2 = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(q, path2, USMP_FORMAT_JSON), USMP_OK);
	char *t1 = test_read_file(path), *t2 = test_read_file(path2);
	cr_assert_str_eq(t1, t2);
	cr_assert_eq(count_of(t1, "weights.scratch"), 2,
	             "duplicate conflict edges are written once");
	free(t1);
	free(t2);
	remove(path);
	remove(path2);
	free(path);
	free(path2);
	usmp_problem_destroy(p);
	usmp_problem_destroy(q);
}

Test(io, json_problem_without_pools_gets_default_pool)
{
	usmp_problem *p = parse_ok("m.json",
		"{\"buffers\": [{\"name\": \"a\", \"size\": 1,"
		" \"fixed\": {\"offset\": 8}}]}", 0);
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	cr_assert_str_eq(usmp_problem_pool_name(p, 0), "default");
	cr_assert_eq(p->pools[0].size_limit, USMP_UNBOUNDED);
	cr_assert_eq(p->buffers[0].fixed_offset, 8);
	usmp_problem_destroy(p);
}

Test(io, json_rejects_wrong_types_naming_the_field)
{
	expect_bad("model.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1}, {\"name\": "
	           "\"b\", \"size\": \"12k\"}]}",
	           "model.json: buffers[1].size: expected a positive integer, "
	           "got \"12k\"", NULL);
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"a\", \"size\": 1.5}]}",
	           "m.json: buffers[0].size: expected a positive integer, got 1.5",
	           NULL);
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"a\", \"size\": true}]}",
	           "buffers[0].size", "got true");
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"a\", \"size\": -3}]}",
	           "buffers[0].size", "got -3");
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"a\", \"size\": 0}]}",
	           "buffers[0].size", "got 0");
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"a\"}]}",
	           "m.json: buffers[0].size: missing", NULL);
	expect_bad("m.json", "{\"buffers\": [{\"size\": 4}]}",
	           "m.json: buffers[0].name: missing", NULL);
	expect_bad("m.json", "{\"buffers\": [{\"name\": \"\", \"size\": 4}]}",
	           "buffers[0].name: expected a non-empty string", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	           "\"alignment\": 3}]}",
	           "buffers[0].alignment: expected a power of two, got 3", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	           "\"live\": [5, 1]}]}",
	           "buffers[0].live: end (1) is not after begin (5)", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	           "\"live\": [0, 1.0]}]}",
	           "buffers[0].live[1]: expected an integer, got 1.0", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 4, "
	           "\"live\": 3}]}",
	           "buffers[0].live: expected [begin, end], got 3", NULL);
	expect_bad("m.json",
	           "{\"pools\": [{\"name\": \"s\", \"size_limit\": 0}]}",
	           "pools[0].size_limit: expected a positive integer, got 0",
	           NULL);
	expect_bad("m.json", "{\"pools\": {}}", "m.json: pools: expected an "
	           "array, got an object", NULL);
}

Test(io, json_rejects_unknown_keys_and_names)
{
	expect_bad("m.json", "{\"bufers\": []}",
	           "m.json: unknown key \"bufers\"", "known: usmp, pools");
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1, \"sise\": 2}]}",
	           "m.json: buffers[0]: unknown key \"sise\"", NULL);
	expect_bad("x.json",
	           "{\"pools\": [{\"name\": \"sram\"}, {\"name\": \"dram\"}],"
	           " \"buffers\": [{\"name\": \"a\", \"size\": 1}, {\"name\": "
	           "\"b\", \"size\": 1}, {\"name\": \"c\", \"size\": 1}, "
	           "{\"name\": \"d\", \"size\": 1, \"pools\": [\"sram\", "
	           "\"sdram\"]}]}",
	           "x.json: buffers[3].pools[1]: unknown pool \"sdram\"", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1}], "
	           "\"conflicts\": [[\"a\", \"zz\"]]}",
	           "m.json: conflicts[0][1]: unknown buffer \"zz\"", NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1}], "
	           "\"conflicts\": [[\"a\", \"a\"]]}",
	           "conflicts[0]: buffer \"a\" cannot conflict with itself",
	           NULL);
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1}, {\"name\": "
	           "\"a\", \"size\": 2}]}",
	           "m.json: buffers[1].name: duplicate buffer name \"a\"",
	           "buffers[0]");
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": 1}], "
	           "\"overlaps\": [{\"src\": \"a\", \"dst\": \"b\"}]}",
	           "overlaps[0].dst: unknown buffer \"b\"", NULL);
	expect_bad("m.json",
	           "{\"pools\": [{\"name\": \"s\"}, {\"name\": \"t\"}], "
	           "\"buffers\": [{\"name\": \"a\", \"size\": 1, "
	           "\"fixed\": {\"offset\": 0}}]}",
	           "buffers[0].fixed.pool: missing", NULL);
}

Test(io, json_passes_builder_errors_on_with_the_place)
{
	expect_bad("m.json",
	           "{\"pools\": [{\"name\": \"s\", \"size_limit\": 64}], "
	           "\"buffers\": [{\"name\": \"a\", \"size\": 32, "
	           "\"fixed\": {\"pool\": \"s\", \"offset\": 48}}]}",
	           "m.json: buffers[0].fixed: ", "exceeds the size limit");
}

Test(io, json_rejects_bad_syntax_with_line_and_column)
{
	expect_bad("m.json", "{\"buffers\": [\n  {\"name\": \"a\",, }]}",
	           "m.json:2:", NULL);
	expect_bad("m.json", "{\"usmp\": 1, \"usmp\": 1}", "m.json:1:",
	           "duplicate");
	expect_bad("m.json", "", "m.json", NULL);
	expect_bad("m.json", "[1, 2]",
	           "m.json: expected a JSON object at the top level, got an "
	           "array", NULL);
	expect_bad("m.json", "{\"usmp\": 2}",
	           "m.json: usmp: unsupported format version 2", NULL);
	expect_bad("m.json", "{\"usmp\": \"1\"}", "usmp: unsupported", NULL);
	expect_bad_len("m.json", "{\"buffers\": []}\0{}", 17, USMP_ERR_INVALID,
	               "m.json", NULL);
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 99);
	deep[199] = '\0';
	expect_bad("m.json", deep, "nested deeper than", NULL);
}

Test(io, json_problem_refuses_huge_integers)
{
	expect_bad("m.json",
	           "{\"buffers\": [{\"name\": \"a\", \"size\": "
	           "99999999999999999999}]}",
	           "m.json:1:", NULL);
}

Test(io, unreadable_file_is_an_io_error_naming_it)
{
	usmp_problem *p = usmp_problem_create();
	int rc = usmp_problem_read(p, "/nonexistent/dir/model.json",
	                           USMP_FORMAT_AUTO, 0);
	cr_assert_eq(rc, USMP_ERR_IO);
	cr_assert(strstr(usmp_problem_error(p), "/nonexistent/dir/model.json"));
	usmp_problem_destroy(p);
}

Test(io, reading_into_a_non_empty_problem_is_refused)
{
	usmp_problem *p = parse_ok("m.json", full_json, 0);
	int rc = usmp_problem_parse(p, full_json, strlen(full_json), "m.json",
	                            USMP_FORMAT_JSON, 0);
	cr_assert_eq(rc, USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "must be empty"));
	cr_assert_eq(usmp_problem_buffer_count(p), 4, "left as it was");
	usmp_problem_destroy(p);
}

/* ---- CSV problems -------------------------------------------------------- */

Test(io, csv_problem_reads_columns_in_any_order)
{
	usmp_problem *p = parse_ok("A.csv",
		"size,upper,id,lower\r\n"
		"4,10,x,0\r\n"
		"8,20,y,5\r\n"
		"\r\n\r\n", 64);
	cr_assert_eq(usmp_problem_buffer_count(p), 2);
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	cr_assert_str_eq(p->pools[0].name, "default");
	cr_assert_eq(p->pools[0].size_limit, 64);
	cr_assert_str_eq(p->buffers[1].name, "y");
	cr_assert_eq(p->buffers[1].size, 8);
	cr_assert_eq(p->buffers[1].begin, 5);
	cr_assert_eq(p->buffers[1].end, 20);
	cr_assert_eq(p->csv_columns, 0);
	usmp_problem_destroy(p);
}

Test(io, csv_problem_round_trip_keeps_every_field)
{
	usmp_problem *p = parse_ok("in.csv",
		"id,lower,upper,size,alignment,offset\n"
		"a,0,3,16,8,\n"
		"b,1,4,32,16,32\n"
		"c,-5,-1,7,,\n", USMP_UNBOUNDED);
	cr_assert_eq(p->csv_columns, USMP__CSV_ALIGNMENT | USMP__CSV_OFFSET);
	cr_assert(p->buffers[1].flags & USMP_BUFFER_FIXED);
	cr_assert_eq(p->buffers[1].fixed_offset, 32);
	cr_assert_not(p->buffers[0].flags & USMP_BUFFER_FIXED);
	cr_assert_eq(p->buffers[2].alignment, 1);
	char *path = test_tmpfile(".csv");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_AUTO), USMP_OK,
	             "%s", usmp_problem_error(p));
	usmp_problem *q = read_ok(path, USMP_FORMAT_AUTO, USMP_UNBOUNDED);
	assert_same_problem(p, q);
	cr_assert_eq(q->csv_columns, p->csv_columns);
	/* and to JSON and back */
	char *jpath = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(q, jpath, USMP_FORMAT_AUTO), USMP_OK);
	usmp_problem *r = read_ok(jpath, USMP_FORMAT_AUTO, 0);
	assert_same_problem(p, r);
	remove(path);
	remove(jpath);
	free(path);
	free(jpath);
	usmp_problem_destroy(p);
	usmp_problem_destroy(q);
	usmp_problem_destroy(r);
}

Test(io, csv_reads_a_minimalloc_benchmark)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/minimalloc/A.1048576.csv",
	         test_source_root());
	char *text = test_read_file(path);
	cr_assert_not_null(text, "cannot read %s", path);
	size_t rows = count_of(text, "\n") - 1;
	usmp_problem *p = read_ok(path, USMP_FORMAT_AUTO, 1048576);
	cr_assert_eq(usmp_problem_buffer_count(p), rows);
	cr_assert_eq(p->pools[0].size_limit, 1048576);
	cr_assert_eq(p->buffers[0].size, 656384);
	cr_assert_eq(p->buffers[0].begin, 995328);
	cr_assert_eq(p->buffers[0].end, 1000448);
	free(text);
	usmp_problem_destroy(p);
}

Test(io, csv_rejects_malformed_rows_naming_the_line)
{
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1,4\n1,20,10,4\n",
	           "A.csv:3: upper (10) is not after lower (20)", NULL);
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1,12k\n",
	           "A.csv:2: size: expected a positive integer, got \"12k\"",
	           NULL);
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1,0\n",
	           "A.csv:2: size: expected a positive integer, got \"0\"", NULL);
	expect_bad("A.csv", "id,lower,upper,size\n0,x,1,4\n",
	           "A.csv:2: lower: expected an integer, got \"x\"", NULL);
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1\n",
	           "A.csv:2: expected 4 fields (id,lower,upper,size), got 3",
	           NULL);
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1,4,5\n",
	           "A.csv:2: expected 4 fields", "more than 4");
	expect_bad("A.csv", "id,lower,upper,size\n0,0,1,4\n0,2,3,4\n",
	           "A.csv:3: duplicate id \"0\" (line 2 has it)", NULL);
	expect_bad("A.csv", "id,lower,upper,size\n,0,1,4\n", "A.csv:2: id: empty",
	           NULL);
	expect_bad("A.csv", "id,lower,upper,size,alignment\n0,0,1,4,6\n",
	           "A.csv:2: alignment: expected a power of two, got \"6\"", NULL);
	expect_bad("A.csv", "id,lower,upper,size,offset\n0,0,1,4,-1\n",
	           "A.csv:2: offset: expected a non-negative integer", NULL);
	expect_bad("A.csv",
	           "id,lower,upper,size\n0,0,1,99999999999999999999\n",
	           "A.csv:2: size: expected an integer from 1 to "
	           "9223372036854775807, got \"99999999999999999999\"", NULL);
	expect_bad("A.csv", "id,lower,upper,size\n\"0\",0,1,4\n",
	           "A.csv:2: quoted fields are not supported", NULL);
}

Test(io, csv_rejects_unknown_and_missing_columns)
{
	expect_bad("A.csv", "id,lower,upper,size,colour\n0,0,1,4,red\n",
	           "A.csv:1: unknown column \"colour\"", NULL);
	expect_bad("A.csv", "id,lower,upper\n0,0,1\n",
	           "A.csv:1: missing column \"size\"", NULL);
	expect_bad("A.csv", "id,lower,upper,size,size\n",
	           "A.csv:1: column \"size\" appears twice", NULL);
	expect_bad("A.csv", "0,0,1,4\n", "A.csv:1: expected a header row", NULL);
}

Test(io, csv_rejects_empty_binary_and_overlong_input)
{
	expect_bad("A.csv", "", "A.csv: empty file", NULL);
	expect_bad("A.csv", "\n\n  \n", "A.csv: empty file", NULL);
	expect_bad_len("A.csv", "id,lower,upper,size\n0,0,1,4\n1,0\0,1,4\n", 36,
	               USMP_ERR_INVALID, "A.csv:3: NUL byte", NULL);
	size_t n = 5000;
	char *long_line = malloc(n + 32);
	strcpy(long_line, "id,lower,upper,size\n");
	size_t k = strlen(long_line);
	memset(long_line + k, 'x', n);
	strcpy(long_line + k + n, ",0,1,4\n");
	expect_bad("A.csv", long_line, "A.csv:2: line longer than", NULL);
	free(long_line);
}

Test(io, csv_capacity_applies_to_fixed_offsets)
{
	usmp_problem *p = usmp_problem_create();
	const char *text = "id,lower,upper,size,offset\n0,0,1,4,\n1,0,1,8,60\n";
	int rc = usmp_problem_parse(p, text, strlen(text), "A.csv",
	                            USMP_FORMAT_CSV, 64);
	cr_assert_eq(rc, USMP_ERR_INVALID);
	cr_assert(strstr(usmp_problem_error(p), "A.csv:3: offset: "), "%s",
	          usmp_problem_error(p));
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	usmp_problem_destroy(p);
}

/* ---- plans --------------------------------------------------------------- */

Test(io, json_plan_round_trip_keeps_placements_and_parts)
{
	usmp_problem *p = parse_ok("model.json", full_json, 0);
	usmp_plan *plan = stacked_plan(p);
	plan->parts = calloc(1, sizeof *plan->parts);
	cr_assert_not_null(plan->parts);
	plan->part_count = 1;
	plan->parts[0].target = usmp__strdup("");
	plan->parts[0].algorithm = usmp__strdup("best_fit");
	plan->parts[0].params = usmp__strdup("order=size seed=7");
	plan->parts[0].size = 1234;
	plan->parts[0].lower_bound = 1200;
	plan->parts[0].proven_bound = 1210;
	plan->parts[0].buffer_count = 4;
	plan->parts[0].group = 0;
	plan->parts[0].time_ms = 2.25;
	plan->parts[0].optimal = 1;
	plan->time_ms = 3.5;

	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_AUTO), USMP_OK,
	             "%s", usmp_plan_error(plan));
	char *text = test_read_file(path);
	cr_assert(strstr(text, "\"algorithm\": \"best_fit\""), "%s", text);
	cr_assert(strstr(text, "\"order\": \"size\""), "%s", text);
	cr_assert(strstr(text, "\"seed\": \"7\""), "%s", text);
	cr_assert(strstr(text, "\"optimal\": true"), "%s", text);
	cr_assert(strstr(text, "\"lower_bound\""), "%s", text);

	usmp_plan *back = NULL;
	int rc = usmp_plan_read(p, path, USMP_FORMAT_AUTO, &back);
	cr_assert_eq(rc, USMP_OK, "%s", back ? usmp_plan_error(back) : "");
	cr_assert_eq(usmp_plan_status(back), USMP_OK);
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		cr_assert_eq(back->placements[i].pool, plan->placements[i].pool);
		cr_assert_eq(back->placements[i].offset,
		             plan->placements[i].offset);
	}
	for (uint32_t j = 0; j < plan->pool_count; j++)
		cr_assert_eq(back->pool_size[j], plan->pool_size[j]);
	cr_assert_float_eq(back->time_ms, 3.5, 1e-9);
	cr_assert_eq(back->part_count, 1);
	const usmp__part *a = &plan->parts[0], *b = &back->parts[0];
	cr_assert_str_eq(b->target, a->target);
	cr_assert_str_eq(b->algorithm, a->algorithm);
	cr_assert_str_eq(b->params, a->params);
	/* The made-up figures are not kept: the library's own come back
	 * (tests/test_certify.c has the rules). */
	uint64_t bound = usmp_problem_prepare_group_bound(p, 0), size = 0;
	for (uint32_t j = 0; j < back->pool_count; j++)
		size += back->pool_size[j];
	cr_assert_eq(b->size, size);
	cr_assert_eq(b->lower_bound, bound);
	cr_assert_eq(b->proven_bound, bound);
	cr_assert_eq(b->optimal, size == bound);
	cr_assert_eq(b->buffer_count, usmp_problem_buffer_count(p));
	cr_assert_eq(b->group, a->group);
	cr_assert_float_eq(b->time_ms, a->time_ms, 1e-9);
	free(text);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_plan_destroy(back);
	usmp_problem_destroy(p);
}

Test(io, json_plan_joins_the_algorithms_of_several_parts)
{
	usmp_problem *p = parse_ok("model.json", full_json, 0);
	usmp_plan *plan = stacked_plan(p);
	plan->parts = calloc(3, sizeof *plan->parts);
	plan->part_count = 3;
	const char *algos[] = {"exact", "best_fit", "exact"};
	for (int i = 0; i < 3; i++) {
		plan->parts[i].algorithm = usmp__strdup(algos[i]);
		plan->parts[i].params = usmp__strdup("");
		plan->parts[i].target = usmp__strdup("t");
	}
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON), USMP_OK);
	char *text = test_read_file(path);
	cr_assert(strstr(text, "\"algorithm\": \"exact+best_fit\""), "%s", text);
	cr_assert_eq(count_of(text, "\"proven_bound\""), 3);
	free(text);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

/* Read plan text for problem p; expect failure with message containing want. */
static void expect_bad_plan(usmp_problem *p, const char *suffix,
                            const char *text, const char *want)
{
	char *path = test_write_tmp(suffix, text);
	usmp_plan *plan = NULL;
	int rc = usmp_plan_read(p, path, USMP_FORMAT_AUTO, &plan);
	cr_assert_not_null(plan, "usmp_plan_read sets *out even on failure");
	cr_assert_eq(rc, USMP_ERR_INVALID, "rc %d: %s", rc,
	             usmp_plan_error(plan));
	cr_assert_eq(usmp_plan_status(plan), rc);
	cr_assert(strstr(usmp_plan_error(plan), want), "\"%s\" lacks \"%s\"",
	          usmp_plan_error(plan), want);
	cr_assert(strstr(usmp_plan_error(plan), path), "names the file");
	for (uint32_t i = 0; i < plan->buffer_count; i++)
		cr_assert_eq(plan->placements[i].pool, USMP_NO_POOL,
		             "nothing past a bad record is kept");
	usmp_plan_destroy(plan);
	remove(path);
	free(path);
}

Test(io, json_plan_reader_refuses_unknown_missing_and_twice_placed)
{
	usmp_problem *p = parse_ok("m.json",
		"{\"pools\": [{\"name\": \"s\"}], \"buffers\": ["
		"{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\", \"size\": 4}]}",
		0);
	expect_bad_plan(p, ".json",
	                "{\"buffers\": [{\"name\": \"a\", \"pool\": \"s\", "
	                "\"offset\": 0}, {\"name\": \"zz\", \"pool\": \"s\", "
	                "\"offset\": 4}]}",
	                "buffers[1].name: unknown buffer \"zz\"");
	expect_bad_plan(p, ".json",
	                "{\"buffers\": [{\"name\": \"a\", \"pool\": \"s\", "
	                "\"offset\": 0}, {\"name\": \"a\", \"pool\": \"s\", "
	                "\"offset\": 4}]}",
	                "buffers[1].name: buffer \"a\" is placed twice");
	expect_bad_plan(p, ".json",
	                "{\"buffers\": [{\"name\": \"a\", \"pool\": \"s\", "
	                "\"offset\": 0}]}",
	                "buffer \"b\" has no placement");
	expect_bad_plan(p, ".json",
	                "{\"buffers\": [{\"name\": \"a\", \"pool\": \"t\", "
	                "\"offset\": 0}]}",
	                "buffers[0].pool: unknown pool \"t\"");
	expect_bad_plan(p, ".json",
	                "{\"buffers\": [{\"name\": \"a\", \"pool\": \"s\", "
	                "\"offset\": -4}]}",
	                "buffers[0].offset: expected a non-negative integer");
	expect_bad_plan(p, ".json", "{\"algorithm\": \"x\"}",
	                "buffers: missing");
	expect_bad_plan(p, ".json", "{\"buffers\": [], \"extra\": 1}",
	                "unknown key \"extra\"");
	usmp_problem_destroy(p);
}

Test(io, csv_plan_round_trip_writes_the_problem_columns_plus_offset)
{
	usmp_problem *p = parse_ok("in.csv",
		"id,lower,upper,size,alignment\n"
		"a,0,3,16,8\n"
		"b,1,4,32,16\n"
		"c,5,9,7,1\n", USMP_UNBOUNDED);
	usmp_plan *plan = stacked_plan(p);
	char *path = test_tmpfile(".csv");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_AUTO), USMP_OK,
	             "%s", usmp_plan_error(plan));
	char *text = test_read_file(path);
	cr_assert(strncmp(text, "id,lower,upper,size,alignment,offset\n", 37) ==
	          0, "%s", text);
	cr_assert(strstr(text, "b,1,4,32,16,64\n"), "%s", text);
	usmp_plan *back = NULL;
	cr_assert_eq(usmp_plan_read(p, path, USMP_FORMAT_AUTO, &back), USMP_OK,
	             "%s", usmp_plan_error(back));
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		cr_assert_eq(back->placements[i].pool, plan->placements[i].pool);
		cr_assert_eq(back->placements[i].offset,
		             plan->placements[i].offset);
	}
	cr_assert_eq(back->pool_size[0], plan->pool_size[0]);
	free(text);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_plan_destroy(back);
	usmp_problem_destroy(p);
}

Test(io, csv_plan_reader_checks_ids_and_problem_columns)
{
	usmp_problem *p = parse_ok("in.csv",
		"id,lower,upper,size\n0,0,3,16\n1,1,4,32\n", USMP_UNBOUNDED);
	expect_bad_plan(p, ".csv", "id,offset\n0,0\n7,16\n",
	                ":3: unknown buffer id \"7\"");
	expect_bad_plan(p, ".csv", "id,offset\n0,0\n0,16\n",
	                ":3: id \"0\" appears twice (also line 2)");
	expect_bad_plan(p, ".csv", "id,offset\n0,0\n",
	                "buffer \"1\" has no row");
	expect_bad_plan(p, ".csv", "id,lower,upper,size,offset\n0,0,3,8,0\n",
	                ":2: size (8) differs from the problem's (16)");
	expect_bad_plan(p, ".csv", "id,size\n0,16\n", ":1: missing column "
	                "\"offset\"");
	expect_bad_plan(p, ".csv", "id,offset,junk\n0,0,1\n",
	                ":1: unknown column \"junk\"");
	usmp_problem_destroy(p);
}

Test(io, plan_writer_refuses_incomplete_plans)
{
	usmp_problem *p = parse_ok("m.json", full_json, 0);
	usmp_plan *plan = stacked_plan(p);
	plan->placements[1].pool = USMP_NO_POOL;
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_AUTO),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(plan), "\"relu1.out\" has no "
	                 "placement"), "%s", usmp_plan_error(plan));
	cr_assert_null(fopen(path, "r"), "no half-written file is left");
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

/* The plan writer prints buffer records itself; they must be the text
 * jansson prints for the same record, whatever the names hold. */
Test(io, json_plan_buffer_records_are_the_text_jansson_prints)
{
	static const char *const names[] = {
		"plain", "quote\"in", "back\\slash", "tab\there", "nl\nx",
		"\x01" "ctl\x1f", "del\x7f", "caf\xc3\xa9",
		"\xe6\x97\xa5\xe6\x9c\xac", "emoji\xf0\x9f\x98\x80", "/slash/",
	};
	size_t count = sizeof names / sizeof names[0];
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	uint32_t pool;
	cr_assert_eq(usmp_problem_add_pool(p, "p\"\xc3\xa9l", USMP_UNBOUNDED, 0,
	                                   &pool), USMP_OK);
	for (size_t i = 0; i < count; i++)
		cr_assert_eq(usmp_problem_add_buffer(p, names[i], 8 + i, 0, NULL),
		             USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan *plan = stacked_plan(p);
	plan->placements[3].offset = (uint64_t)INT64_MAX - 64;
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON), USMP_OK,
	             "%s", usmp_plan_error(plan));
	char *text = test_read_file(path);
	for (size_t i = 0; i < count; i++) {
		json_t *rec = json_object();
		json_object_set_new(rec, "name", json_string(names[i]));
		json_object_set_new(rec, "pool", json_string("p\"\xc3\xa9l"));
		json_object_set_new(rec, "offset", json_integer(
			(json_int_t)plan->placements[i].offset));
		char *want = json_dumps(rec, JSON_REAL_PRECISION(9));
		cr_assert_not_null(want);
		cr_assert(strstr(text, want), "record %zu: %s not in\n%s", i,
		          want, text);
		free(want);
		json_decref(rec);
	}
	cr_assert_eq(count_of(text, "{\"name\": "), count + 1, "%s", text);
	free(text);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(io, json_plan_writer_refuses_names_that_are_not_utf8)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_add_buffer(p, "ok", 8, 0, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "bad\xff", 8, 0, NULL), USMP_OK);
	usmp_plan *plan = stacked_plan(p);
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert(strstr(usmp_plan_error(plan), "buffers[1].name is not valid "
	                 "UTF-8"), "%s", usmp_plan_error(plan));
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(io, csv_plan_of_a_multi_pool_problem_is_unsupported)
{
	usmp_problem *p = parse_ok("m.json", full_json, 0);
	usmp_plan *plan = stacked_plan(p);
	char *path = test_tmpfile(".csv");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan), "one pool"));
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

/* ---- SVG ----------------------------------------------------------------- */

/* A small XML well-formedness check: tags balance and nest, attributes are
 * quoted, entities are the five predefined ones or numeric. */
static int xml_well_formed(const char *s, char *why, size_t n)
{
	const char *stack[64];
	size_t lens[64];
	int depth = 0, root_seen = 0;

	while (*s) {
		if (*s == '&') {
			const char *e = strchr(s, ';');
			if (!e || (strncmp(s, "&amp;", 5) && strncmp(s, "&lt;", 4) &&
			           strncmp(s, "&gt;", 4) && strncmp(s, "&quot;", 6) &&
			           strncmp(s, "&apos;", 6) && s[1] != '#')) {
				snprintf(why, n, "bad entity at %.20s", s);
				return 0;
			}
			s = e + 1;
			continue;
		}
		if (*s != '<') {
			if (depth == 0 && *s != '\n' && *s != ' ') {
				snprintf(why, n, "text outside the root: %.20s", s);
				return 0;
			}
			s++;
			continue;
		}
		if (s[1] == '?') {
			const char *e = strstr(s, "?>");
			if (!e)
				return 0;
			s = e + 2;
			continue;
		}
		if (s[1] == '/') {
			const char *name = s + 2;
			size_t len = strcspn(name, ">");
			if (depth == 0 || len != lens[depth - 1] ||
			    strncmp(name, stack[depth - 1], len) != 0) {
				snprintf(why, n, "unbalanced close %.20s", s);
				return 0;
			}
			depth--;
			s = name + len + 1;
			continue;
		}
		const char *name = s + 1;
		size_t len = strcspn(name, " />\n");
		const char *p = name + len;
		while (*p && *p != '>' && !(p[0] == '/' && p[1] == '>')) {
			if (*p == '"') {
				const char *q = strchr(p + 1, '"');
				if (!q)
					return 0;
				if (memchr(p + 1, '<', (size_t)(q - p - 1))) {
					snprintf(why, n, "'<' in an attribute");
					return 0;
				}
				p = q + 1;
				continue;
			}
			if (*p == '=' && p[1] != '"') {
				snprintf(why, n, "unquoted attribute %.20s", p);
				return 0;
			}
			p++;
		}
		if (!*p)
			return 0;
		if (depth == 0) {
			if (root_seen) {
				snprintf(why, n, "two roots");
				return 0;
			}
			root_seen = 1;
		}
		if (*p == '/') {
			s = p + 2;
			continue;
		}
		if (depth == 64)
			return 0;
		stack[depth] = name;
		lens[depth] = len;
		depth++;
		s = p + 1;
	}
	if (depth) {
		snprintf(why, n, "%d unclosed elements", depth);
		return 0;
	}
	return root_seen;
}

Test(io, svg_draws_one_rectangle_per_buffer_and_is_well_formed)
{
	usmp_problem *p = parse_ok("m.json",
		"{\"pools\": [{\"name\": \"s&<r>am\", \"size_limit\": 4096}, "
		"{\"name\": \"dram\"}],"
		" \"buffers\": ["
		"{\"name\": \"a<1>\", \"size\": 64, \"live\": [0, 3]},"
		"{\"name\": \"b\\\"q\", \"size\": 32, \"live\": [2, 5]},"
		"{\"name\": \"c&d\", \"size\": 16, \"live\": [4, 9]},"
		"{\"name\": \"d\", \"size\": 128, \"pools\": [\"dram\"]},"
		"{\"name\": \"e\", \"size\": 8, \"live\": [1, 2], "
		"\"pools\": [\"dram\"]}]}", 0);
	usmp_plan *plan = stacked_plan(p);
	char *path = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, path), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *svg = test_read_file(path);
	cr_assert_not_null(svg);
	cr_assert_eq(count_of(svg, "</title></rect>"), 5, "one per buffer");
	cr_assert_eq(count_of(svg, "<rect"), 5 + 2 + 1,
	             "buffers, two panels, the background");
	cr_assert(strstr(svg, "s&amp;&lt;r&gt;am"), "names are escaped");
	cr_assert(strstr(svg, "a&lt;1&gt;: 64 B at offset 0, live [0, 3)"));
	cr_assert(strstr(svg, "lower bound"));
	cr_assert(strstr(svg, "time step"));
	cr_assert(strstr(svg, "bytes"));
	char why[128] = "";
	cr_assert(xml_well_formed(svg, why, sizeof why), "not XML: %s", why);
	free(svg);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(io, svg_of_a_huge_plan_skips_subpixel_rectangles_and_says_so)
{
	usmp_problem *p = usmp_problem_create();
	uint64_t seed = 42;
	for (uint32_t i = 0; i < 25000; i++) {
		char name[32];
		uint32_t id;
		snprintf(name, sizeof name, "b%u", i);
		int64_t begin = (int64_t)test_rand_range(&seed, 0, 100000);
		cr_assert_eq(usmp_problem_add_buffer(p, name,
		             test_rand_range(&seed, 1, 4096), 1, &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, begin, begin +
		             (int64_t)test_rand_range(&seed, 1, 50)), USMP_OK);
	}
	usmp_plan *plan = stacked_plan(p);
	char *path = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, path), USMP_OK);
	char *svg = test_read_file(path);
	cr_assert(strstr(svg, "smaller than a pixel not drawn"));
	size_t drawn = count_of(svg, "</title></rect>");
	cr_assert_lt(drawn, 25000);
	cr_assert_lt(strlen(svg), 25000 * 200, "stays a reasonable size");
	char why[128] = "";
	cr_assert(xml_well_formed(svg, why, sizeof why), "not XML: %s", why);
	free(svg);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(io, csv_accepts_a_byte_order_mark_and_spaces_around_fields)
{
	usmp_problem *p = parse_ok("A.csv",
		"\xEF\xBB\xBFid, lower ,upper,size\n x ,\t0, 4 ,16\n", 64);
	cr_assert_eq(usmp_problem_buffer_count(p), 1);
	cr_assert_str_eq(p->buffers[0].name, "x");
	cr_assert_eq(p->buffers[0].end, 4);
	usmp_problem_destroy(p);
}

Test(io, csv_problem_write_of_a_multi_pool_problem_is_unsupported)
{
	usmp_problem *p = parse_ok("m.json", full_json, 0);
	char *path = test_tmpfile(".csv");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_problem_error(p), "CSV holds one pool"), "%s",
	          usmp_problem_error(p));
	cr_assert_null(fopen(path, "r"), "no half-written file is left");
	cr_assert_eq(usmp_problem_buffer_count(p), 4, "the problem is kept");
	free(path);
	usmp_problem_destroy(p);
}

Test(io, svg_handles_extreme_time_values)
{
	usmp_problem *p = parse_ok("m.json",
		"{\"buffers\": [{\"name\": \"a\", \"size\": 8, \"live\": "
		"[1000000000000000000, 1000000000000000005]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": "
		"[-9223372036854775808, 9223372036854775807]}]}", 0);
	usmp_plan *plan = usmp__plan_alloc(p);
	plan->placements[0].pool = 0;
	plan->placements[0].offset = 0;
	plan->placements[1].pool = 0;
	plan->placements[1].offset = 8;
	char *path = test_tmpfile(".svg");
	cr_assert_eq(usmp_plan_write_svg(plan, p, path), USMP_OK);
	char *svg = test_read_file(path);
	char why[128] = "";
	cr_assert(xml_well_formed(svg, why, sizeof why), "not XML: %s", why);
	cr_assert_eq(count_of(svg, "</title></rect>"), 2);
	free(svg);
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
}

Test(io, failed_read_into_a_non_empty_problem_leaves_it_alone)
{
	usmp_problem *p = parse_ok("m.json", full_json, 0);
	cr_assert_eq(usmp_problem_read(p, "/nonexistent/x.json",
	                               USMP_FORMAT_AUTO, 0), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_buffer_count(p), 4);
	usmp_problem_destroy(p);
}
