/* check_problems.c — the small built-in problems `usmp check-plugin` runs an
 * algorithm on: one feature each, with the capability it needs (if any). */
#include "check_plugin.h"

#include <string.h>

/* One buffer of a problem: live range [begin, end) unless begin == end. */
typedef struct buf_spec {
	const char *name;
	uint64_t size, alignment;
	int64_t begin, end;
} buf_spec;

/* Add `n` buffers, each with every pool as candidate. */
static int add_buffers(usmp_problem *p, const buf_spec *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		if (usmp_problem_add_buffer(p, b[i].name, b[i].size, b[i].alignment,
		                            &id))
			return -1;
		if (b[i].begin != b[i].end &&
		    usmp_problem_set_live(p, id, b[i].begin, b[i].end))
			return -1;
	}
	return 0;
}

static int make_live(usmp_problem *p)
{
	static const buf_spec b[] = {
		{"a", 64, 1, 0, 3},  {"b", 32, 1, 1, 4},   {"c", 48, 1, 2, 5},
		{"d", 16, 1, 4, 6},  {"e", 128, 1, 5, 8},  {"f", 8, 1, 0, 8},
	};
	return usmp_problem_add_pool(p, "mem", USMP_UNBOUNDED, 1, NULL) ||
	       add_buffers(p, b, 6);
}

static int make_aligned(usmp_problem *p)
{
	static const buf_spec b[] = {
		{"odd", 17, 1, 0, 4},       {"wide", 100, 256, 1, 3},
		{"tiny", 1, 8, 2, 6},       {"page", 64, 4096, 0, 2},
		{"tail", 3, 1, 3, 7},
	};
	return usmp_problem_add_pool(p, "mem", USMP_UNBOUNDED, 16, NULL) ||
	       add_buffers(p, b, 5);
}

static int make_conflicts(usmp_problem *p)
{
	/* No live ranges: only the edges say who may not share bytes. */
	static const buf_spec b[] = {
		{"a", 40, 1, 0, 0}, {"b", 24, 8, 0, 0}, {"c", 56, 1, 0, 0},
		{"d", 8, 1, 0, 0},  {"e", 72, 1, 0, 0},
	};
	static const uint32_t edges[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}};
	if (usmp_problem_add_pool(p, "mem", USMP_UNBOUNDED, 1, NULL) ||
	    add_buffers(p, b, 5))
		return -1;
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
		if (usmp_problem_add_conflict(p, edges[i][0], edges[i][1]))
			return -1;
	return 0;
}

static int make_overlap(usmp_problem *p)
{
	/* "out" is written by the op that reads "in" (its last step, 1) and may
	 * share in's bytes from in's offset on. */
	static const buf_spec b[] = {
		{"in", 64, 1, 0, 2}, {"out", 64, 1, 1, 3}, {"w", 32, 1, 0, 3},
		{"next", 48, 1, 2, 4},
	};
	return usmp_problem_add_pool(p, "mem", USMP_UNBOUNDED, 1, NULL) ||
	       add_buffers(p, b, 4) || usmp_problem_add_overlap(p, 0, 1, 0);
}

static int make_two_pools(usmp_problem *p)
{
	/* sram holds exactly the buffers that prefer it; "big" fits dram only;
	 * "either" prefers dram. */
	static const buf_spec b[] = {
		{"s1", 64, 1, 0, 3}, {"s2", 32, 1, 1, 4}, {"big", 100, 1, 0, 4},
		{"either", 48, 1, 2, 5},
	};
	uint32_t sram, dram;
	if (usmp_problem_add_pool(p, "sram", 96, 1, &sram) ||
	    usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 1, &dram) ||
	    add_buffers(p, b, 4))
		return -1;
	return usmp_problem_add_candidate(p, 0, sram) ||
	       usmp_problem_add_candidate(p, 0, dram) ||
	       usmp_problem_add_candidate(p, 1, sram) ||
	       usmp_problem_add_candidate(p, 1, dram) ||
	       usmp_problem_add_candidate(p, 2, dram) ||
	       usmp_problem_add_candidate(p, 3, dram) ||
	       usmp_problem_add_candidate(p, 3, sram);
}

static int make_fixed(usmp_problem *p)
{
	static const buf_spec b[] = {
		{"pinned", 32, 1, 0, 4}, {"a", 64, 1, 0, 2}, {"b", 16, 1, 1, 3},
		{"c", 40, 1, 2, 5},
	};
	uint32_t mem;
	return usmp_problem_add_pool(p, "mem", USMP_UNBOUNDED, 1, &mem) ||
	       add_buffers(p, b, 4) || usmp_problem_set_fixed(p, 0, mem, 64);
}

static int make_infeasible(usmp_problem *p)
{
	/* Both live at step 0: 128 bytes at once in a 100-byte pool. */
	static const buf_spec b[] = {{"x", 64, 1, 0, 2}, {"y", 64, 1, 0, 2}};
	return usmp_problem_add_pool(p, "mem", 100, 1, NULL) ||
	       add_buffers(p, b, 2);
}

const check_problem check_problems[] = {
	{"live", "one pool, six buffers with live ranges", 0, 0, 1, make_live},
	{"aligned", "a pool aligned to 16, buffers aligned up to 4096", 0, 0, 1,
	 make_aligned},
	{"conflicts", "explicit conflict edges, no live ranges",
	 USMP_CAP_EXPLICIT_CONFLICTS, USMP_CAP_EXPLICIT_CONFLICTS, 1,
	 make_conflicts},
	{"overlap", "live ranges and an overlap rule", 0, USMP_CAP_OVERLAP_RULES,
	 1, make_overlap},
	{"two_pools", "two pools, buffers with several candidate pools",
	 USMP_CAP_MULTI_POOL, USMP_CAP_MULTI_POOL, 1, make_two_pools},
	{"fixed", "a buffer with a fixed offset", USMP_CAP_FIXED_OFFSETS,
	 USMP_CAP_FIXED_OFFSETS, 1, make_fixed},
	{"infeasible", "two 64-byte buffers live at once in a 100-byte pool", 0,
	 0, 0, make_infeasible},
};
const size_t check_problem_count =
	sizeof check_problems / sizeof check_problems[0];

usmp_problem *check_problem_build(const check_problem *cp)
{
	usmp_problem *p = usmp_problem_create();
	if (p && cp->build(p)) {
		usmp_problem_destroy(p);
		return NULL;
	}
	return p;
}
