/* test_problem.c — the problem builder: every validation error (status and
 * message), look-ups, counts, the default pool, derived data dropped on change. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* Assert that `call` fails with `status` and that the problem's message
 * contains `text`. */
#define expect_fail(p, call, status, text)                                     \
	do {                                                                       \
		int rc_ = (call);                                                      \
		cr_assert_eq(rc_, (status), "%s returned %d, want %d (%s)", #call,    \
		             rc_, (status), usmp_problem_error(p));                    \
		cr_assert(strstr(usmp_problem_error(p), (text)) != NULL,               \
		          "message \"%s\" lacks \"%s\"", usmp_problem_error(p),      \
		          (text));                                                     \
	} while (0)

static usmp_problem *new_problem(void)
{
	usmp_problem *p = usmp_problem_create();

	cr_assert_not_null(p);
	return p;
}

/* Pools "sram" (1024 B, align 16) and "dram" (unbounded), buffers "a" (100 B)
 * and "b" (64 B, align 8). */
static usmp_problem *small_problem(void)
{
	usmp_problem *p = new_problem();

	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 16, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 100, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 64, 8, NULL), 0);
	return p;
}

/* ---- life cycle, counts, names ------------------------------------------- */

Test(problem, new_problem_is_empty_with_no_error)
{
	usmp_problem *p = new_problem();

	cr_assert_eq(usmp_problem_pool_count(p), 0);
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	cr_assert_str_eq(usmp_problem_error(p), "");
	cr_assert_null(usmp_problem_pool_name(p, 0));
	cr_assert_null(usmp_problem_buffer_name(p, 0));
	usmp_problem_destroy(p);
	usmp_problem_destroy(NULL);
}

Test(problem, null_handle_is_refused_not_crashed)
{
	cr_assert_eq(usmp_problem_add_pool(NULL, "x", 1, 1, NULL), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_add_buffer(NULL, "x", 1, 1, NULL),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_set_live(NULL, 0, 0, 1), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_pool_count(NULL), 0);
	cr_assert_eq(usmp_problem_buffer_count(NULL), 0);
	cr_assert_str_eq(usmp_problem_error(NULL), "");
	cr_assert_eq(usmp_problem_find_pool(NULL, "x", NULL), USMP_ERR_INVALID);
	cr_assert_eq(usmp_problem_prepare_group_count(NULL), 0);
	cr_assert_eq(usmp_problem_prepare_pool_group(NULL, 0), UINT32_MAX);
}

Test(problem, indices_are_dense_in_insertion_order)
{
	usmp_problem *p = new_problem();
	uint32_t id = 99;

	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 16, &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 4096, 0, &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(usmp_problem_add_buffer(p, "conv1.out", 100, 0, &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "conv2.out", 200, 4, &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(usmp_problem_add_buffer(p, "conv3.out", 300, 0, NULL), 0);
	cr_assert_eq(usmp_problem_pool_count(p), 2);
	cr_assert_eq(usmp_problem_buffer_count(p), 3);
	cr_assert_str_eq(usmp_problem_pool_name(p, 1), "dram");
	cr_assert_str_eq(usmp_problem_buffer_name(p, 2), "conv3.out");
	cr_assert_null(usmp_problem_pool_name(p, 2));
	cr_assert_null(usmp_problem_buffer_name(p, 3));
	cr_assert_null(usmp_problem_buffer_name(p, UINT32_MAX));
	usmp_problem_destroy(p);
}

Test(problem, stores_fields_with_zero_alignment_meaning_one)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(p->pools[0].size_limit, 1024);
	cr_assert_eq(p->pools[0].alignment, 16);
	cr_assert_eq(p->pools[1].size_limit, USMP_UNBOUNDED);
	cr_assert_eq(p->pools[1].alignment, 1);
	cr_assert_eq(p->buffers[0].size, 100);
	cr_assert_eq(p->buffers[0].alignment, 1);
	cr_assert_eq(p->buffers[1].alignment, 8);
	cr_assert_eq(p->buffers[0].flags, 0);
	cr_assert_null(p->buffers[0].candidates, "no candidate list: every pool");
	cr_assert_eq(p->buffers[0].candidate_count, 0);
	cr_assert_eq(p->buffers[0].fixed_pool, USMP_NO_POOL);
	usmp_problem_destroy(p);
}

Test(problem, names_are_copied)
{
	usmp_problem *p = new_problem();
	char name[16];

	strcpy(name, "sram");
	cr_assert_eq(usmp_problem_add_pool(p, name, 1024, 0, NULL), 0);
	strcpy(name, "conv1");
	cr_assert_eq(usmp_problem_add_buffer(p, name, 8, 0, NULL), 0);
	strcpy(name, "zzzzz");
	cr_assert_str_eq(usmp_problem_pool_name(p, 0), "sram");
	cr_assert_str_eq(usmp_problem_buffer_name(p, 0), "conv1");
	cr_assert_eq(usmp_problem_find_buffer(p, "conv1", NULL), 0);
	usmp_problem_destroy(p);
}

/* ---- look-ups -------------------------------------------------------------- */

Test(problem, find_pool_and_buffer_by_name)
{
	usmp_problem *p = small_problem();
	uint32_t id = 77;

	cr_assert_eq(usmp_problem_find_pool(p, "dram", &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(usmp_problem_find_pool(p, "sram", &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(usmp_problem_find_buffer(p, "b", &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(usmp_problem_find_buffer(p, "a", NULL), 0);
	id = 77;
	cr_assert_eq(usmp_problem_find_pool(p, "flash", &id), USMP_ERR_NOT_FOUND);
	cr_assert_eq(id, 77, "id untouched when not found");
	cr_assert_eq(usmp_problem_find_buffer(p, "c", &id), USMP_ERR_NOT_FOUND);
	/* Pools and buffers have separate name spaces. */
	cr_assert_eq(usmp_problem_find_pool(p, "a", &id), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_find_buffer(p, "sram", &id), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_find_buffer(p, "", &id), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp_problem_find_buffer(p, NULL, &id), USMP_ERR_INVALID);
	usmp_problem_destroy(p);
}

Test(problem, pool_and_buffer_may_share_a_name)
{
	usmp_problem *p = new_problem();
	uint32_t id;

	cr_assert_eq(usmp_problem_add_pool(p, "x", 8, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "x", 8, 0, NULL), 0);
	cr_assert_eq(usmp_problem_find_pool(p, "x", &id), 0);
	cr_assert_eq(usmp_problem_find_buffer(p, "x", &id), 0);
	usmp_problem_destroy(p);
}

Test(problem, many_buffers_with_short_and_long_names)
{
	enum { N = 200000 };
	usmp_problem *p = new_problem();
	char *longname = malloc(5001);
	uint32_t i, id;

	cr_assert_not_null(longname);
	for (i = 0; i < N; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, i + 1, 0, &id), 0);
		cr_assert_eq(id, i);
		if (i % 50000 == 0) {
			/* Names longer than a chunk get one of their own. */
			memset(longname, 'a' + (int)(i / 50000), 5000);
			longname[5000] = '\0';
			cr_assert_eq(usmp_problem_add_pool(p, longname, 8, 0, NULL), 0);
		}
	}
	cr_assert_eq(usmp_problem_buffer_count(p), N);
	cr_assert_eq(usmp_problem_pool_count(p), 4);
	for (i = 0; i < N; i += 997) {
		char name[32];

		snprintf(name, sizeof(name), "t%u", i);
		cr_assert_eq(usmp_problem_find_buffer(p, name, &id), 0);
		cr_assert_eq(id, i);
		cr_assert_str_eq(usmp_problem_buffer_name(p, i), name);
		cr_assert_eq(p->buffers[i].size, i + 1);
	}
	memset(longname, 'c', 5000);
	cr_assert_eq(usmp_problem_find_pool(p, longname, &id), 0);
	cr_assert_eq(id, 2);
	cr_assert_eq(strlen(usmp_problem_pool_name(p, 3)), 5000);
	expect_fail(p, usmp_problem_add_buffer(p, "t123456", 1, 0, NULL),
	            USMP_ERR_INVALID, "already used by buffer 123456");
	free(longname);
	usmp_problem_destroy(p);
}

/* ---- pool validation ------------------------------------------------------- */

Test(problem, pool_name_must_be_present_nonempty_unique)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_pool(p, NULL, 8, 0, NULL),
	            USMP_ERR_INVALID, "pool name is missing");
	expect_fail(p, usmp_problem_add_pool(p, "", 8, 0, NULL), USMP_ERR_INVALID,
	            "pool name is empty");
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 8, 0, NULL), 0);
	expect_fail(p, usmp_problem_add_pool(p, "sram", 16, 0, NULL),
	            USMP_ERR_INVALID, "pool \"sram\": name already used by pool 0");
	cr_assert_eq(usmp_problem_pool_count(p), 1, "failed adds add nothing");
	cr_assert_eq(p->pools[0].size_limit, 8);
	usmp_problem_destroy(p);
}

Test(problem, pool_size_limit_must_be_positive)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_pool(p, "sram", 0, 0, NULL),
	            USMP_ERR_INVALID, "pool \"sram\": size_limit must be positive");
	cr_assert_eq(usmp_problem_pool_count(p), 0);
	usmp_problem_destroy(p);
}

Test(problem, pool_alignment_must_be_a_power_of_two)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_pool(p, "sram", 64, 3, NULL),
	            USMP_ERR_INVALID,
	            "pool \"sram\": alignment 3 is not a power of two");
	expect_fail(p, usmp_problem_add_pool(p, "sram", 64, 48, NULL),
	            USMP_ERR_INVALID, "alignment 48 is not a power of two");
	expect_fail(p, usmp_problem_add_pool(p, "sram", 64, UINT64_MAX, NULL),
	            USMP_ERR_INVALID, "is not a power of two");
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64, 1ull << 63, NULL), 0);
	usmp_problem_destroy(p);
}

Test(problem, pool_targets_are_copied_and_validated)
{
	usmp_problem *p = small_problem();
	char target[16];

	strcpy(target, "ethos-u55");
	cr_assert_eq(usmp_problem_add_pool_target(p, 0, target), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, 0, "cortex-m55"), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, 0, "ethos-u55"), 0,
	             "naming a target twice is harmless");
	strcpy(target, "zzz");
	cr_assert_eq(p->pools[0].target_count, 2);
	cr_assert_str_eq(p->pools[0].targets[0], "ethos-u55");
	cr_assert_str_eq(p->pools[0].targets[1], "cortex-m55");
	cr_assert_eq(p->pools[1].target_count, 0);
	expect_fail(p, usmp_problem_add_pool_target(p, 2, "host"),
	            USMP_ERR_INVALID, "pool index 2 out of range");
	expect_fail(p, usmp_problem_add_pool_target(p, 1, ""), USMP_ERR_INVALID,
	            "pool \"dram\": target name is empty");
	expect_fail(p, usmp_problem_add_pool_target(p, 1, NULL), USMP_ERR_INVALID,
	            "pool \"dram\": target name is missing");
	usmp_problem_destroy(p);
}

/* ---- buffer validation ----------------------------------------------------- */

Test(problem, buffer_name_must_be_present_nonempty_unique)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_buffer(p, NULL, 8, 0, NULL),
	            USMP_ERR_INVALID, "buffer name is missing");
	expect_fail(p, usmp_problem_add_buffer(p, "", 8, 0, NULL),
	            USMP_ERR_INVALID, "buffer name is empty");
	cr_assert_eq(usmp_problem_add_buffer(p, "conv1.out", 8, 0, NULL), 0);
	expect_fail(p, usmp_problem_add_buffer(p, "conv1.out", 8, 0, NULL),
	            USMP_ERR_INVALID,
	            "buffer \"conv1.out\": name already used by buffer 0");
	cr_assert_eq(usmp_problem_buffer_count(p), 1);
	usmp_problem_destroy(p);
}

Test(problem, buffer_size_must_be_positive)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_buffer(p, "conv1.out", 0, 0, NULL),
	            USMP_ERR_INVALID, "buffer \"conv1.out\": size must be positive");
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	cr_assert_eq(usmp_problem_find_buffer(p, "conv1.out", NULL),
	             USMP_ERR_NOT_FOUND, "a refused buffer leaves no name behind");
	usmp_problem_destroy(p);
}

Test(problem, buffer_alignment_must_be_a_power_of_two)
{
	usmp_problem *p = new_problem();

	expect_fail(p, usmp_problem_add_buffer(p, "conv1.out", 64, 3, NULL),
	            USMP_ERR_INVALID,
	            "buffer \"conv1.out\": alignment 3 is not a power of two");
	expect_fail(p, usmp_problem_add_buffer(p, "conv1.out", 64, 12, NULL),
	            USMP_ERR_INVALID, "alignment 12 is not a power of two");
	cr_assert_eq(usmp_problem_add_buffer(p, "conv1.out", 64, 4096, NULL), 0);
	usmp_problem_destroy(p);
}

Test(problem, live_range_must_not_be_empty)
{
	usmp_problem *p = small_problem();

	expect_fail(p, usmp_problem_set_live(p, 0, 5, 5), USMP_ERR_INVALID,
	            "buffer \"a\": live range [5, 5): end must be after begin");
	expect_fail(p, usmp_problem_set_live(p, 0, 20, 10), USMP_ERR_INVALID,
	            "live range [20, 10)");
	cr_assert_eq(p->buffers[0].flags & USMP_BUFFER_LIVE, 0);
	expect_fail(p, usmp_problem_set_live(p, 2, 0, 1), USMP_ERR_INVALID,
	            "buffer index 2 out of range");
	cr_assert_eq(usmp_problem_set_live(p, 0, -3, INT64_MAX), 0);
	cr_assert_eq(p->buffers[0].begin, -3);
	cr_assert_eq(p->buffers[0].end, INT64_MAX);
	cr_assert_neq(p->buffers[0].flags & USMP_BUFFER_LIVE, 0);
	cr_assert_eq(usmp_problem_set_live(p, 0, 1, 2), 0, "may be set again");
	cr_assert_eq(p->buffers[0].begin, 1);
	cr_assert_eq(p->buffers[0].end, 2);
	usmp_problem_destroy(p);
}

Test(problem, candidates_keep_order_and_refuse_bad_pools)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_add_candidate(p, 0, 1), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 0, 0), 0);
	cr_assert_eq(p->buffers[0].candidate_count, 2);
	cr_assert_eq(p->buffers[0].candidates[0], 1);
	cr_assert_eq(p->buffers[0].candidates[1], 0);
	expect_fail(p, usmp_problem_add_candidate(p, 0, 1), USMP_ERR_INVALID,
	            "buffer \"a\": pool \"dram\" is already a candidate");
	expect_fail(p, usmp_problem_add_candidate(p, 1, 2), USMP_ERR_INVALID,
	            "buffer \"b\": candidate pool 2 does not exist");
	expect_fail(p, usmp_problem_add_candidate(p, 9, 0), USMP_ERR_INVALID,
	            "buffer index 9 out of range");
	cr_assert_eq(p->buffers[0].candidate_count, 2);
	cr_assert_eq(p->buffers[1].candidate_count, 0);
	usmp_problem_destroy(p);
}

/* ---- fixed placements ------------------------------------------------------ */

Test(problem, fixed_placement_is_stored)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_set_fixed(p, 1, 0, 960), 0);
	cr_assert_neq(p->buffers[1].flags & USMP_BUFFER_FIXED, 0);
	cr_assert_eq(p->buffers[1].fixed_pool, 0);
	cr_assert_eq(p->buffers[1].fixed_offset, 960);
	usmp_problem_destroy(p);
}

Test(problem, fixed_pool_must_exist)
{
	usmp_problem *p = small_problem();

	expect_fail(p, usmp_problem_set_fixed(p, 0, 2, 0), USMP_ERR_INVALID,
	            "buffer \"a\": fixed pool 2 does not exist");
	expect_fail(p, usmp_problem_set_fixed(p, 5, 0, 0), USMP_ERR_INVALID,
	            "buffer index 5 out of range");
	cr_assert_eq(p->buffers[0].flags & USMP_BUFFER_FIXED, 0);
	usmp_problem_destroy(p);
}

Test(problem, fixed_offset_must_suit_buffer_and_pool_alignment)
{
	usmp_problem *p = small_problem();

	/* "b" needs 8, "sram" 16: 8 is fine for the buffer, not for the pool. */
	expect_fail(p, usmp_problem_set_fixed(p, 1, 0, 8), USMP_ERR_INVALID,
	            "buffer \"b\": fixed offset 8 in pool \"sram\" is not a "
	            "multiple of the pool's alignment 16: fix it at 0 or 16");
	/* In "dram" (alignment 1) the buffer's 8 rules. */
	expect_fail(p, usmp_problem_set_fixed(p, 1, 1, 4), USMP_ERR_INVALID,
	            "alignment 8");
	cr_assert_eq(usmp_problem_set_fixed(p, 1, 1, 8), 0);
	cr_assert_eq(usmp_problem_set_fixed(p, 0, 1, 3), 0);
	usmp_problem_destroy(p);
}

Test(problem, fixed_placement_must_fit_the_pool)
{
	usmp_problem *p = small_problem();

	/* "a" is 100 bytes; sram holds 1024. */
	cr_assert_eq(usmp_problem_set_fixed(p, 0, 0, 912), 0, "[912, 1012) fits");
	expect_fail(p, usmp_problem_set_fixed(p, 0, 0, 928), USMP_ERR_INVALID,
	            "buffer \"a\": fixed placement [928, 1028) exceeds the size "
	            "limit 1024 of pool \"sram\"");
	cr_assert_eq(p->buffers[0].fixed_offset, 912, "failure keeps the old one");
	usmp_problem_destroy(p);
}

Test(problem, fixed_offset_plus_size_overflow_is_refused)
{
	usmp_problem *p = small_problem();

	/* dram is unbounded: only the overflow check can refuse this. */
	expect_fail(p, usmp_problem_set_fixed(p, 0, 1, UINT64_MAX - 50),
	            USMP_ERR_INVALID, "buffer \"a\": fixed offset");
	cr_assert(strstr(usmp_problem_error(p), "overflows") != NULL);
	cr_assert_eq(usmp_problem_set_fixed(p, 0, 1, UINT64_MAX - 100), 0,
	             "ending exactly at 2^64-1 is representable");
	usmp_problem_destroy(p);
}

Test(problem, fixed_pool_must_be_a_candidate_when_candidates_exist)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_add_candidate(p, 0, 0), 0);
	cr_assert_eq(usmp_problem_set_fixed(p, 0, 1, 0), 0,
	             "checked when prepared, candidates may still come");
	expect_fail(p, usmp__problem_prepare(p), USMP_ERR_INVALID,
	            "buffer \"a\": fixed pool \"dram\" is not among its candidate "
	            "pools");
	cr_assert_eq(p->prepared, 0);
	/* The public queries fail soft and keep the message. */
	cr_assert_eq(usmp_problem_prepare_group_count(p), 0);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 0);
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 0), UINT32_MAX);
	cr_assert(strstr(usmp_problem_error(p), "not among its candidate") != NULL);
	usmp_problem_destroy(p);
}

/* ---- conflicts and overlap rules ------------------------------------------- */

Test(problem, conflicts_are_normalised)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_add_buffer(p, "c", 8, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, 2, 0), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, 1, 0), 0, "duplicates merged later");
	cr_assert_eq(p->edge_count, 3);
	for (size_t i = 0; i < p->edge_count; i++)
		cr_assert_lt(p->edges[i].a, p->edges[i].b);
	cr_assert_eq(p->edges[0].a, 0);
	cr_assert_eq(p->edges[0].b, 2);
	usmp_problem_destroy(p);
}

Test(problem, conflict_needs_two_existing_buffers)
{
	usmp_problem *p = small_problem();

	expect_fail(p, usmp_problem_add_conflict(p, 1, 1), USMP_ERR_INVALID,
	            "buffer \"b\" cannot conflict with itself");
	expect_fail(p, usmp_problem_add_conflict(p, 0, 2), USMP_ERR_INVALID,
	            "conflict: buffer index 2 out of range");
	expect_fail(p, usmp_problem_add_conflict(p, UINT32_MAX, 0),
	            USMP_ERR_INVALID, "out of range");
	cr_assert_eq(p->edge_count, 0);
	usmp_problem_destroy(p);
}

Test(problem, overlap_rules_are_stored)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_add_overlap(p, 0, 1, -64), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, 1, 0, 0), 0,
	             "the reverse pair is a different rule");
	cr_assert_eq(p->overlap_count, 2);
	cr_assert_eq(p->overlaps[0].src, 0);
	cr_assert_eq(p->overlaps[0].dst, 1);
	cr_assert_eq(p->overlaps[0].max_lead, -64);
	cr_assert_eq(p->overlaps[1].src, 1);
	usmp_problem_destroy(p);
}

Test(problem, overlap_rule_needs_distinct_existing_buffers)
{
	usmp_problem *p = small_problem();

	expect_fail(p, usmp_problem_add_overlap(p, 0, 0, 0), USMP_ERR_INVALID,
	            "buffer \"a\" is both src and dst");
	expect_fail(p, usmp_problem_add_overlap(p, 3, 0, 0), USMP_ERR_INVALID,
	            "overlap rule src: buffer index 3 out of range");
	expect_fail(p, usmp_problem_add_overlap(p, 0, 3, 0), USMP_ERR_INVALID,
	            "overlap rule dst: buffer index 3 out of range");
	cr_assert_eq(p->overlap_count, 0);
	usmp_problem_destroy(p);
}

Test(problem, duplicate_overlap_rule_is_refused)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp_problem_add_overlap(p, 0, 1, 0), 0);
	expect_fail(p, usmp_problem_add_overlap(p, 0, 1, 16), USMP_ERR_INVALID,
	            "overlap rule from buffer \"a\" to buffer \"b\" given twice");
	cr_assert_eq(p->overlap_count, 1);
	cr_assert_eq(p->overlaps[0].max_lead, 0);
	usmp_problem_destroy(p);
}

Test(problem, many_overlap_rules_detect_duplicates)
{
	enum { N = 5000 };
	usmp_problem *p = new_problem();
	uint32_t i;

	for (i = 0; i < N; i++) {
		char name[16];

		snprintf(name, sizeof(name), "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 16, 0, NULL), 0);
	}
	for (i = 0; i + 1 < N; i++)
		cr_assert_eq(usmp_problem_add_overlap(p, i, i + 1, 0), 0);
	for (i = 0; i + 1 < N; i += 101)
		expect_fail(p, usmp_problem_add_overlap(p, i, i + 1, 0),
		            USMP_ERR_INVALID, "given twice");
	cr_assert_eq(usmp_problem_add_overlap(p, N - 1, 0, 0), 0);
	cr_assert_eq(p->overlap_count, N);
	usmp_problem_destroy(p);
}

/* ---- errors ------------------------------------------------------------------ */

Test(problem, error_names_the_most_recent_failure)
{
	usmp_problem *p = small_problem();

	expect_fail(p, usmp_problem_add_buffer(p, "x", 0, 0, NULL),
	            USMP_ERR_INVALID, "buffer \"x\"");
	expect_fail(p, usmp_problem_add_pool(p, "y", 0, 0, NULL), USMP_ERR_INVALID,
	            "pool \"y\"");
	cr_assert(strstr(usmp_problem_error(p), "buffer \"x\"") == NULL);
	usmp_problem_destroy(p);
}

/* ---- derived data -------------------------------------------------------------- */

Test(problem, prepare_adds_the_default_pool_once)
{
	usmp_problem *p = new_problem();
	uint32_t id;

	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 0, NULL), 0);
	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	cr_assert_str_eq(usmp_problem_pool_name(p, 0), "default");
	cr_assert_eq(p->pools[0].size_limit, USMP_UNBOUNDED);
	cr_assert_eq(p->pools[0].alignment, 1);
	cr_assert_eq(usmp_problem_find_pool(p, "default", &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(p->prepared, 1);
	cr_assert_eq(usmp__problem_prepare(p), 0, "idempotent");
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	usmp_problem_destroy(p);
}

Test(problem, prepare_keeps_existing_pools)
{
	usmp_problem *p = small_problem();

	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_pool_count(p), 2);
	cr_assert_eq(usmp_problem_find_pool(p, "default", NULL),
	             USMP_ERR_NOT_FOUND);
	usmp_problem_destroy(p);
}

Test(problem, empty_problem_prepares_with_a_default_pool)
{
	usmp_problem *p = new_problem();

	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	cr_assert_eq(usmp_problem_pool_count(p), 1);
	cr_assert_neq(usmp_problem_prepare_pool_group(p, 0), UINT32_MAX);
	usmp_problem_destroy(p);
}

Test(problem, prepare_computes_groups)
{
	usmp_problem *p = small_problem();
	uint32_t g;

	cr_assert_eq(usmp_problem_set_live(p, 0, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(p, 1, 1, 3), 0);
	g = usmp_problem_prepare_group_count(p);
	cr_assert_geq(g, 1, "%s", usmp_problem_error(p));
	cr_assert_eq(p->prepared, 1);
	cr_assert_not_null(p->buffer_group);
	cr_assert_not_null(p->pool_group);
	cr_assert_lt(usmp_problem_prepare_pool_group(p, 0), g);
	cr_assert_lt(usmp_problem_prepare_pool_group(p, 1), g);
	/* Both buffers may use both pools: one group; both alive at time 1. */
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 0),
	             usmp_problem_prepare_pool_group(p, 1));
	cr_assert_eq(usmp_problem_prepare_group_bound(
	                     p, usmp_problem_prepare_pool_group(p, 0)), 164);
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 2), UINT32_MAX);
	cr_assert(strstr(usmp_problem_error(p), "pool index 2 out of range"));
	cr_assert_eq(usmp_problem_prepare_group_bound(p, g), 0);
	cr_assert(strstr(usmp_problem_error(p), "out of range"));
	usmp_problem_destroy(p);
}

/* A successful `call` on prepared problem p drops its derived data. */
#define EXPECT_DROPS(p, call)                                                  \
	do {                                                                   \
		cr_assert_eq(usmp__problem_prepare(p), 0);                     \
		cr_assert_eq((call), 0, "%s", #call);                          \
		cr_assert_eq((p)->prepared, 0, "%s", #call);                   \
	} while (0)

Test(problem, mutation_after_prepare_drops_derived_data)
{
	usmp_problem *p = small_problem();
	uint32_t g;

	cr_assert_eq(usmp__problem_prepare(p), 0, "%s", usmp_problem_error(p));
	cr_assert_eq(p->prepared, 1);
	cr_assert_not_null(p->buffer_group);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 500, 0, NULL), 0);
	cr_assert_eq(p->prepared, 0);
	cr_assert_null(p->buffer_group);
	cr_assert_null(p->pool_group);
	cr_assert_null(p->group_bound);
	cr_assert_eq(p->group_count, 0);

	/* Each kind of change drops it. */
	EXPECT_DROPS(p, usmp_problem_set_live(p, 2, 0, 1));
	EXPECT_DROPS(p, usmp_problem_add_candidate(p, 2, 1));
	EXPECT_DROPS(p, usmp_problem_set_fixed(p, 2, 1, 0));
	EXPECT_DROPS(p, usmp_problem_add_conflict(p, 0, 2));
	EXPECT_DROPS(p, usmp_problem_add_overlap(p, 0, 2, 0));
	EXPECT_DROPS(p, usmp_problem_add_pool(p, "flash", 64, 0, NULL));
	EXPECT_DROPS(p, usmp_problem_add_pool_target(p, 2, "host"));

	/* A failed change leaves derived data alone. */
	cr_assert_eq(usmp__problem_prepare(p), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "c", 1, 0, NULL), USMP_ERR_INVALID);
	cr_assert_eq(p->prepared, 1);

	/* Queries see the new problem: "flash" exists now and has a group. */
	g = usmp_problem_prepare_group_count(p);
	cr_assert_lt(usmp_problem_prepare_pool_group(p, 2), g);
	usmp_problem_destroy(p);
}

Test(problem, clear_empties_but_keeps_the_message)
{
	usmp_problem *p = small_problem();
	uint32_t id;

	cr_assert_eq(usmp_problem_add_candidate(p, 0, 1), 0);
	cr_assert_eq(usmp_problem_add_conflict(p, 0, 1), 0);
	cr_assert_eq(usmp_problem_add_overlap(p, 0, 1, 0), 0);
	cr_assert_eq(usmp_problem_add_pool_target(p, 0, "npu"), 0);
	usmp__problem_fail(p, USMP_ERR_INVALID, "model.json: buffers[1]: bad");
	usmp__problem_clear(p);
	cr_assert_eq(usmp_problem_pool_count(p), 0);
	cr_assert_eq(usmp_problem_buffer_count(p), 0);
	cr_assert_eq(p->edge_count, 0);
	cr_assert_eq(p->overlap_count, 0);
	cr_assert_eq(p->prepared, 0);
	cr_assert_str_eq(usmp_problem_error(p), "model.json: buffers[1]: bad");
	cr_assert_eq(usmp_problem_find_buffer(p, "a", &id), USMP_ERR_NOT_FOUND);
	/* Usable again, with the old names free. */
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 8, 0, &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 8, 0, &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(usmp_problem_add_overlap(p, 0, 0, 0), USMP_ERR_INVALID);
	usmp__problem_clear(p);
	usmp__problem_clear(p);
	usmp_problem_destroy(p);
}

Test(problem, disjoint_candidates_make_separate_groups)
{
	usmp_problem *p = new_problem();
	uint32_t g, gs, gd, gf;

	cr_assert_eq(usmp_problem_add_pool(p, "sram", 1024, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", 4096, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "flash", 4096, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "s1", 100, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "s2", 200, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_buffer(p, "d1", 300, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 0, 0), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 1, 0), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 2, 1), 0);
	cr_assert_eq(usmp_problem_set_live(p, 0, 0, 2), 0);
	cr_assert_eq(usmp_problem_set_live(p, 1, 1, 3), 0);
	cr_assert_eq(usmp_problem_set_live(p, 2, 0, 3), 0);
	g = usmp_problem_prepare_group_count(p);
	cr_assert_eq(g, 3, "sram, dram and the unused flash: %s",
	             usmp_problem_error(p));
	gs = usmp_problem_prepare_pool_group(p, 0);
	gd = usmp_problem_prepare_pool_group(p, 1);
	gf = usmp_problem_prepare_pool_group(p, 2);
	cr_assert_neq(gs, gd);
	cr_assert_neq(gs, gf);
	cr_assert_neq(gd, gf);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, gs), 300, "s1 + s2 at time 1");
	cr_assert_eq(usmp_problem_prepare_group_bound(p, gd), 300);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, gf), 0, "nothing can use flash");
	/* A buffer that may use sram or dram joins the two groups. */
	cr_assert_eq(usmp_problem_add_buffer(p, "x", 8, 0, NULL), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 3, 1), 0);
	cr_assert_eq(usmp_problem_add_candidate(p, 3, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 2);
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 0),
	             usmp_problem_prepare_pool_group(p, 1));
	usmp_problem_destroy(p);
}
