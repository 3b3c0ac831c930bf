/* test_problem_read.c — reading a problem back through the ABI 1.3 calls:
 * JSON and CSV files field by field, build-write-read round trips, bad indices. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* The JSON of docs/formats.md, plus a second target, a negative max_lead
 * and a buffer without a live range. */
static const char board_json[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 262144, \"alignment\": 16,\n"
	"            \"targets\": [\"ethos-u55\", \"cortex-m55\"]},\n"
	"           {\"name\": \"dram\"}],\n"
	" \"buffers\": [{\"name\": \"conv1.out\", \"size\": 200704, \"alignment\": 16,\n"
	"              \"live\": [0, 3], \"pools\": [\"sram\", \"dram\"]},\n"
	"             {\"name\": \"relu1.out\", \"size\": 200704, \"alignment\": 16,\n"
	"              \"live\": [2, 5], \"pools\": [\"dram\", \"sram\"]},\n"
	"             {\"name\": \"weights.scratch\", \"size\": 4096,\n"
	"              \"fixed\": {\"pool\": \"dram\", \"offset\": 64}},\n"
	"             {\"name\": \"anywhere\", \"size\": 8, \"live\": [-4, -1]}],\n"
	" \"conflicts\": [[\"weights.scratch\", \"conv1.out\"]],\n"
	" \"overlaps\": [{\"src\": \"conv1.out\", \"dst\": \"relu1.out\", \"max_lead\": -32}]}\n";

static usmp_problem *parsed(const char *text, int format, uint64_t capacity)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	int st = usmp_problem_parse(p, text, strlen(text), "t", format, capacity);
	cr_assert_eq(st, USMP_OK, "%s", usmp_problem_error(p));
	return p;
}

static usmp_pool_info pool_of(const usmp_problem *p, uint32_t i)
{
	usmp_pool_info pi = {.struct_size = sizeof pi};
	cr_assert_eq(usmp_problem_pool_info(p, i, &pi), USMP_OK, "pool %u", i);
	return pi;
}

static usmp_buffer_info buffer_of(const usmp_problem *p, uint32_t b)
{
	usmp_buffer_info bi = {.struct_size = sizeof bi};
	cr_assert_eq(usmp_problem_buffer_info(p, b, &bi), USMP_OK, "buffer %u", b);
	return bi;
}

static const char *target_of(const usmp_problem *p, uint32_t pool, uint32_t i)
{
	const char *t = NULL;
	cr_assert_eq(usmp_problem_pool_target(p, pool, i, &t), USMP_OK);
	return t;
}

static uint32_t candidate_of(const usmp_problem *p, uint32_t b, uint32_t i)
{
	uint32_t pool = 99;
	cr_assert_eq(usmp_problem_buffer_candidate(p, b, i, &pool), USMP_OK);
	return pool;
}

/* Everything board_json says, read from `p` (parsed or round-tripped). */
static void assert_board(const usmp_problem *p)
{
	cr_assert_eq(usmp_problem_pool_count(p), 2);
	usmp_pool_info sram = pool_of(p, 0), dram = pool_of(p, 1);
	cr_assert_str_eq(sram.name, "sram");
	cr_assert_eq(sram.size_limit, 262144);
	cr_assert_eq(sram.alignment, 16);
	cr_assert_eq(sram.target_count, 2);
	cr_assert_str_eq(target_of(p, 0, 0), "ethos-u55");
	cr_assert_str_eq(target_of(p, 0, 1), "cortex-m55");
	cr_assert_str_eq(dram.name, "dram");
	cr_assert_eq(dram.size_limit, USMP_UNBOUNDED);
	cr_assert_eq(dram.alignment, 1);
	cr_assert_eq(dram.target_count, 0);

	cr_assert_eq(usmp_problem_buffer_count(p), 4);
	usmp_buffer_info conv = buffer_of(p, 0);
	cr_assert_str_eq(conv.name, "conv1.out");
	cr_assert_eq(conv.size, 200704);
	cr_assert_eq(conv.alignment, 16);
	cr_assert_eq(conv.live, 1);
	cr_assert_eq(conv.begin, 0);
	cr_assert_eq(conv.end, 3);
	cr_assert_eq(conv.candidate_count, 2);
	cr_assert_eq(candidate_of(p, 0, 0), 0);
	cr_assert_eq(candidate_of(p, 0, 1), 1);
	cr_assert_eq(conv.fixed_pool, USMP_NO_POOL);
	cr_assert_eq(conv.fixed_offset, 0);

	usmp_buffer_info relu = buffer_of(p, 1);
	cr_assert_str_eq(relu.name, "relu1.out");
	cr_assert_eq(relu.begin, 2);
	cr_assert_eq(relu.end, 5);
	cr_assert_eq(relu.candidate_count, 2);
	cr_assert_eq(candidate_of(p, 1, 0), 1, "priority order kept");
	cr_assert_eq(candidate_of(p, 1, 1), 0);

	usmp_buffer_info w = buffer_of(p, 2);
	cr_assert_str_eq(w.name, "weights.scratch");
	cr_assert_eq(w.size, 4096);
	cr_assert_eq(w.alignment, 1);
	cr_assert_eq(w.live, 0);
	cr_assert_eq(w.begin, 0);
	cr_assert_eq(w.end, 0);
	cr_assert_eq(w.fixed_pool, 1);
	cr_assert_eq(w.fixed_offset, 64);
	/* No "pools" reads as none; being fixed, it stays in its fixed pool. */
	cr_assert_eq(w.candidate_count, 0);

	usmp_buffer_info any = buffer_of(p, 3);
	cr_assert_str_eq(any.name, "anywhere");
	cr_assert_eq(any.live, 1);
	cr_assert_eq(any.begin, -4);
	cr_assert_eq(any.end, -1);
	cr_assert_eq(any.candidate_count, 0, "no \"pools\": every pool");

	cr_assert_eq(usmp_problem_conflict_count(p), 1);
	uint32_t a = 99, b = 99;
	cr_assert_eq(usmp_problem_conflict(p, 0, &a, &b), USMP_OK);
	cr_assert_eq(a, 0, "normalised: the lower index first");
	cr_assert_eq(b, 2);

	cr_assert_eq(usmp_problem_overlap_count(p), 1);
	uint32_t src = 99, dst = 99;
	int64_t lead = 0;
	cr_assert_eq(usmp_problem_overlap(p, 0, &src, &dst, &lead), USMP_OK);
	cr_assert_eq(src, 0);
	cr_assert_eq(dst, 1);
	cr_assert_eq(lead, -32);
}

Test(problem_read, a_json_problem_reads_back_field_by_field)
{
	usmp_problem *p = parsed(board_json, USMP_FORMAT_JSON, USMP_UNBOUNDED);
	assert_board(p);
	usmp_problem_destroy(p);
}

Test(problem_read, a_json_file_reads_back_through_usmp_problem_read)
{
	char *path = test_write_tmp(".json", board_json);
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	assert_board(p);
	usmp_problem_destroy(p);
	remove(path);
	free(path);
}

Test(problem_read, a_csv_problem_reads_back_field_by_field)
{
	static const char csv[] = "id,lower,upper,size,alignment,offset\n"
	                          "in,0,2,1024,16,\n"
	                          "pinned,1,4,256,,512\n"
	                          "late,-3,7,9,,\n";
	usmp_problem *p = parsed(csv, USMP_FORMAT_CSV, 65536);
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	usmp_pool_info pool = pool_of(p, 0);
	cr_assert_str_eq(pool.name, "default");
	cr_assert_eq(pool.size_limit, 65536, "the capacity argument");
	cr_assert_eq(pool.alignment, 1);
	cr_assert_eq(pool.target_count, 0);

	static const struct {
		const char *name;
		uint64_t size, alignment;
		int64_t begin, end;
		uint32_t fixed_pool;
		uint64_t fixed_offset;
	} want[] = {{"in", 1024, 16, 0, 2, USMP_NO_POOL, 0},
	            {"pinned", 256, 1, 1, 4, 0, 512},
	            {"late", 9, 1, -3, 7, USMP_NO_POOL, 0}};
	cr_assert_eq(usmp_problem_buffer_count(p), 3);
	for (uint32_t b = 0; b < 3; b++) {
		usmp_buffer_info bi = buffer_of(p, b);
		cr_assert_str_eq(bi.name, want[b].name);
		cr_assert_eq(bi.size, want[b].size, "%s", bi.name);
		cr_assert_eq(bi.alignment, want[b].alignment, "%s", bi.name);
		cr_assert_eq(bi.live, 1, "%s", bi.name);
		cr_assert_eq(bi.begin, want[b].begin, "%s", bi.name);
		cr_assert_eq(bi.end, want[b].end, "%s", bi.name);
		cr_assert_eq(bi.fixed_pool, want[b].fixed_pool, "%s", bi.name);
		cr_assert_eq(bi.fixed_offset, want[b].fixed_offset, "%s", bi.name);
	}
	cr_assert_eq(usmp_problem_conflict_count(p), 0);
	cr_assert_eq(usmp_problem_overlap_count(p), 0);
	usmp_problem_destroy(p);
}

/* Built through the API, written as JSON, read back: the same records. */
Test(problem_read, built_written_and_read_back_gives_the_same_records)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, a, b, c;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1 << 20, 0, &sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram),
	             USMP_OK);
	cr_assert_eq(usmp_problem_add_pool_target(p, sram, "npu"), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool_target(p, sram, "npu"), USMP_OK);
	cr_assert_eq(usmp_problem_add_pool_target(p, dram, "cpu"), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 100, 4, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 200, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 300, 8, &c), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 4), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 3, 9), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, a, dram), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, a, sram), USMP_OK);
	cr_assert_eq(usmp_problem_add_candidate(p, c, dram), USMP_OK);
	cr_assert_eq(usmp_problem_set_fixed(p, c, dram, 128), USMP_OK);
	cr_assert_eq(usmp_problem_add_conflict(p, c, a), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, a, b, 7), USMP_OK);

	/* Read back before writing: the builder's values, 0 alignment as 1. */
	cr_assert_eq(pool_of(p, sram).alignment, 1);
	cr_assert_eq(pool_of(p, sram).target_count, 1, "a target named twice");
	cr_assert_eq(buffer_of(p, b).alignment, 1);
	cr_assert_eq(buffer_of(p, b).candidate_count, 0);

	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_JSON), USMP_OK, "%s",
	             usmp_problem_error(p));
	usmp_problem *q = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(q, path, USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(q));

	for (const usmp_problem *r = p; r; r = r == p ? q : NULL) {
		cr_assert_eq(usmp_problem_pool_count(r), 2);
		usmp_pool_info s = pool_of(r, 0), d = pool_of(r, 1);
		cr_assert_str_eq(s.name, "sram");
		cr_assert_eq(s.size_limit, 1 << 20);
		cr_assert_str_eq(target_of(r, 0, 0), "npu");
		cr_assert_eq(d.size_limit, USMP_UNBOUNDED);
		cr_assert_eq(d.alignment, 64);
		cr_assert_eq(d.target_count, 1);
		cr_assert_str_eq(target_of(r, 1, 0), "cpu");

		usmp_buffer_info ba = buffer_of(r, 0), bb = buffer_of(r, 1),
		                 bc = buffer_of(r, 2);
		cr_assert_str_eq(ba.name, "a");
		cr_assert_eq(ba.size, 100);
		cr_assert_eq(ba.alignment, 4);
		cr_assert_eq(ba.begin, 0);
		cr_assert_eq(ba.end, 4);
		cr_assert_eq(ba.candidate_count, 2);
		cr_assert_eq(candidate_of(r, 0, 0), 1);
		cr_assert_eq(candidate_of(r, 0, 1), 0);
		cr_assert_eq(bb.live, 1);
		cr_assert_eq(bb.begin, 3);
		cr_assert_eq(bb.end, 9);
		cr_assert_eq(bc.live, 0);
		cr_assert_eq(bc.alignment, 8);
		cr_assert_eq(bc.fixed_pool, 1);
		cr_assert_eq(bc.fixed_offset, 128);
		cr_assert_eq(bc.candidate_count, 1);

		uint32_t x, y, src, dst;
		int64_t lead;
		cr_assert_eq(usmp_problem_conflict_count(r), 1);
		cr_assert_eq(usmp_problem_conflict(r, 0, &x, &y), USMP_OK);
		cr_assert(x == 0 && y == 2, "conflict %u-%u", x, y);
		cr_assert_eq(usmp_problem_overlap_count(r), 1);
		cr_assert_eq(usmp_problem_overlap(r, 0, &src, &dst, &lead), USMP_OK);
		cr_assert(src == 0 && dst == 1 && lead == 7);
	}
	usmp_problem_destroy(q);
	usmp_problem_destroy(p);
	remove(path);
	free(path);
}

Test(problem_read, a_conflict_added_twice_is_listed_twice_and_written_once)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 1, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 1, 1, NULL), USMP_OK);
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), USMP_OK);
	cr_assert_eq(usmp_problem_add_conflict(p, 1, 0), USMP_OK);
	cr_assert_eq(usmp_problem_conflict_count(p), 2);
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_problem_write(p, path, USMP_FORMAT_JSON), USMP_OK);
	usmp_problem *q = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(q, path, USMP_FORMAT_JSON, 0), USMP_OK,
	             "%s", usmp_problem_error(q));
	cr_assert_eq(usmp_problem_conflict_count(q), 1);
	usmp_problem_destroy(q);
	usmp_problem_destroy(p);
	remove(path);
	free(path);
}

/* A bad index is USMP_ERR_NOT_FOUND and a NULL argument USMP_ERR_INVALID;
 * neither touches the output nor the problem's message. */
Test(problem_read, bad_indices_and_null_arguments_say_which)
{
	usmp_problem *p = parsed(board_json, USMP_FORMAT_JSON, USMP_UNBOUNDED);
	cr_assert_eq(usmp_problem_add_pool(p, "", 1, 1, NULL), USMP_ERR_INVALID);
	char *before = strdup(usmp_problem_error(p));
	cr_assert_neq(*before, '\0');

	usmp_pool_info pi = {.struct_size = sizeof pi};
	usmp_buffer_info bi = {.struct_size = sizeof bi};
	cr_assert_eq(usmp_problem_pool_info(p, 2, &pi), USMP_ERR_NOT_FOUND);
	cr_assert_null(pi.name);
	cr_assert_eq(usmp_problem_pool_info(p, UINT32_MAX, &pi), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_buffer_info(p, 4, &bi), USMP_ERR_NOT_FOUND);
	cr_assert_null(bi.name);
	cr_assert_eq(usmp_problem_pool_info(NULL, 0, &pi), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_pool_info(p, 0, NULL), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_buffer_info(NULL, 0, &bi), USMP_ERR_INVALID);
	usmp_buffer_info unsized = {.struct_size = 0};
	cr_assert_eq(usmp_problem_buffer_info(p, 0, &unsized), USMP_ERR_INVALID);

	const char *t = "untouched";
	uint32_t pool = 7;
	cr_assert_eq(usmp_problem_pool_target(p, 0, 2, &t), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_pool_target(p, 2, 0, &t), USMP_ERR_NOT_FOUND);
	cr_assert_str_eq(t, "untouched");
	cr_assert_eq(usmp_problem_pool_target(p, 0, 0, NULL), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_buffer_candidate(p, 0, 2, &pool),
	             USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_buffer_candidate(p, 3, 0, &pool),
	             USMP_ERR_NOT_FOUND, "no candidates: every pool");
	cr_assert_eq(usmp_problem_buffer_candidate(p, 4, 0, &pool),
	             USMP_ERR_NOT_FOUND);
	cr_assert_eq(pool, 7);
	cr_assert_eq(usmp_problem_buffer_candidate(p, 0, 0, NULL),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_conflict(p, 1, NULL, NULL), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_conflict(NULL, 0, NULL, NULL), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_overlap(p, 1, NULL, NULL, NULL),
	             USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_overlap(NULL, 0, NULL, NULL, NULL),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_conflict_count(NULL), 0);
	cr_assert_eq(usmp_problem_overlap_count(NULL), 0);

	cr_assert_str_eq(usmp_problem_error(p), before, "the message is kept");
	free(before);
	usmp_problem_destroy(p);
}

/* A caller built against a shorter struct gets only what it asked for. */
Test(problem_read, info_copies_no_more_than_struct_size)
{
	usmp_problem *p = parsed(board_json, USMP_FORMAT_JSON, USMP_UNBOUNDED);
	usmp_buffer_info bi;
	memset(&bi, 0xab, sizeof bi);
	bi.struct_size = offsetof(usmp_buffer_info, alignment);
	cr_assert_eq(usmp_problem_buffer_info(p, 0, &bi), USMP_OK);
	cr_assert_eq(bi.struct_size, offsetof(usmp_buffer_info, alignment));
	cr_assert_str_eq(bi.name, "conv1.out");
	cr_assert_eq(bi.size, 200704);
	uint64_t untouched;
	memset(&untouched, 0xab, sizeof untouched);
	cr_assert_eq(bi.alignment, untouched);
	cr_assert_eq(bi.fixed_offset, untouched);
	usmp_problem_destroy(p);
}
