/* fuzz_solve.c — fuzzes the path `usmp plan x.json` (x.csv with
 * -DFUZZ_SOLVE_CSV) takes: read a hostile problem, plan it, and check every
 * plan returned against an all-pairs check. */
#include "fuzz.h"
#include "internal.h"

#include <string.h>

/* Small problems only, so every input plans in milliseconds. */
#define MAX_BUFFERS 24
#define MAX_POOLS 4

/* The algorithms tried, one per input (chosen by the input's length). */
static const char *const algorithms[] = {
	"first_fit",       "best_fit",   "greedy_by_size", "greedy_by_conflicts",
	"auto:improve=false", "tvm",     "hill_climb",     "exact",
};
#define ALGORITHM_COUNT (sizeof algorithms / sizeof *algorithms)

static usmp_registry *registry(void)
{
	static usmp_registry *r;
	if (r)
		return r;
	const char *dir = getenv("USMP_FUZZ_PLUGINDIR");
	usmp_registry_options o = {
		.struct_size = sizeof o,
		.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS |
		         USMP_REGISTRY_NO_SCAN,
		.plugin_path = dir && *dir ? dir : FUZZ_PLUGIN_DIR,
	};
	FUZZ_CHECK(usmp_registry_create(&o, &r) == USMP_OK);
	if (usmp_registry_diagnostic_count(r))
		fprintf(stderr, "registry: %s\n", usmp_registry_diagnostic(r, 0));
	FUZZ_CHECK(usmp_registry_diagnostic_count(r) == 0);
	return r;
}

static int is_candidate(const usmp__buffer *b, uint32_t q)
{
	if (!b->candidate_count)
		return 1;
	for (uint32_t i = 0; i < b->candidate_count; i++)
		if (b->candidates[i] == q)
			return 1;
	return 0;
}

static int has_edge(const usmp_problem *p, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < usmp__problem_nedges(p); i++) {
		const usmp__edge *e = usmp__problem_edge(p, i);
		if ((e->a == a && e->b == b) || (e->a == b && e->b == a))
			return 1;
	}
	return 0;
}

/* A rule src -> dst allows the overlap when offset(dst) <= offset(src) +
 * max_lead (docs/design.md, "Plans"), in 128-bit arithmetic. */
static int rule_allows(const usmp_problem *p, uint32_t s, uint32_t d,
                       const uint64_t *off)
{
	for (size_t i = 0; i < usmp__problem_noverlaps(p); i++) {
		const usmp_overlap_rec *r = usmp__problem_overlap(p, i);
		if (r->src == s && r->dst == d)
			return (__int128)off[d] <= (__int128)off[s] + r->max_lead;
	}
	return 0;
}

static int live_meet(const usmp__buffer *a, const usmp__buffer *b)
{
	return (a->flags & USMP_BUFFER_LIVE) && (b->flags & USMP_BUFFER_LIVE) &&
	       a->begin < b->end && b->begin < a->end;
}

/* The plan's validity by definition, every pair looked at; prints why not. */
static int brute_valid(const usmp_problem *p, const uint32_t *pool,
                       const uint64_t *off)
{
	uint32_t n = (uint32_t)usmp__problem_nbuffers(p);
	for (uint32_t b = 0; b < n; b++) {
		const usmp__buffer *br = usmp__problem_buffer(p, b);
		uint32_t q = pool[b];
		if (q >= usmp__problem_npools(p) || !is_candidate(br, q)) {
			fprintf(stderr, "%s: pool %u not allowed\n", br->name, q);
			return 0;
		}
		const usmp__pool *pr = usmp__problem_pool(p, q);
		if ((br->flags & USMP_BUFFER_FIXED) &&
		    (q != br->fixed_pool || off[b] != br->fixed_offset)) {
			fprintf(stderr, "%s: fixed placement moved\n", br->name);
			return 0;
		}
		if (off[b] % br->alignment || off[b] % pr->alignment) {
			fprintf(stderr, "%s: offset %llu misaligned\n", br->name,
			        (unsigned long long)off[b]);
			return 0;
		}
		if ((unsigned __int128)off[b] + br->size > pr->size_limit) {
			fprintf(stderr, "%s: past the pool's limit\n", br->name);
			return 0;
		}
	}
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			const usmp__buffer *ba = usmp__problem_buffer(p, a);
			const usmp__buffer *bb = usmp__problem_buffer(p, b);
			if (pool[a] != pool[b])
				continue;
			if (!live_meet(ba, bb) && !has_edge(p, a, b))
				continue;
			unsigned __int128 oa = off[a], ob = off[b];
			if (oa >= ob + bb->size || ob >= oa + ba->size)
				continue;
			if (rule_allows(p, a, b, off) || rule_allows(p, b, a, off))
				continue;
			fprintf(stderr, "%s and %s overlap\n", ba->name, bb->name);
			return 0;
		}
	return 1;
}

#ifdef FUZZ_SOLVE_CSV
#define PROBLEM_NAME "fuzz.csv"
#define PROBLEM_FORMAT USMP_FORMAT_CSV
#define write_plan_as usmp__csv_write_plan
#define read_plan_as usmp__csv_read_plan
#else
#define PROBLEM_NAME "fuzz.json"
#define PROBLEM_FORMAT USMP_FORMAT_JSON
#define write_plan_as usmp__json_write_plan
#define read_plan_as usmp__json_read_plan
#endif

static char *write_plan(usmp_plan *plan, usmp_problem *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	int rc = write_plan_as(plan, p, f);
	fclose(f);
	if (rc != USMP_OK) {
		fprintf(stderr, "write: %s\n", usmp_plan_error(plan));
		free(text);
		return NULL;
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL, *again = NULL;
	char *copy = NULL, *text = NULL;
	uint32_t *pool = NULL;
	uint64_t *off = NULL;
	size_t len = 0;

	if (!p)
		return 0;
	/* As in fuzz_problem_csv, a leading '#' asks for a capacity (1 MiB). */
	const size_t algo_pick = size;
	uint64_t capacity = USMP_UNBOUNDED;
	if (size && data[0] == '#') {
		capacity = 1u << 20;
		data++;
		size--;
	}
	copy = malloc(size + 1);
	if (!copy)
		goto out;
	memcpy(copy, data, size);
	copy[size] = '\0';
	int rc = usmp_problem_parse(p, copy, size, PROBLEM_NAME, PROBLEM_FORMAT,
	                            capacity);
	if (rc != USMP_OK) {
		FUZZ_CHECK(usmp_problem_error(p) && *usmp_problem_error(p));
		goto out;
	}
	if (usmp__problem_nbuffers(p) > MAX_BUFFERS ||
	    usmp__problem_npools(p) > MAX_POOLS)
		goto out;
	const char *algo = algorithms[algo_pick % ALGORITHM_COUNT];
	if (!strcmp(algo, "exact") && usmp__problem_nbuffers(p) > 8)
		algo = "first_fit";
	usmp_plan_options o = {
		.struct_size = sizeof o,
		.flags = USMP_PLAN_NO_ISOLATE,
		.algorithm = algo,
		.time_limit = 0.5,
	};
	rc = usmp_plan_compute(registry(), p, &o, &plan);
	if (!plan)
		goto out;
	FUZZ_CHECK(usmp_plan_status(plan) == rc);
	if (rc != USMP_OK) {
		/* Refused: with a message, and never as a plugin fault. */
		if (rc == USMP_ERR_PLUGIN || rc == USMP_ERR_INTERNAL)
			fprintf(stderr, "%s: %s\n", algo, usmp_plan_error(plan));
		FUZZ_CHECK(rc != USMP_ERR_PLUGIN && rc != USMP_ERR_INTERNAL);
		FUZZ_CHECK(usmp_plan_error(plan) && *usmp_plan_error(plan));
		goto out;
	}
	/* A plan returned as OK (what the CLI prints) is valid by definition. */
	uint32_t n = (uint32_t)usmp__problem_nbuffers(p);
	pool = calloc(n + 1, sizeof *pool);
	off = calloc(n + 1, sizeof *off);
	if (!pool || !off)
		goto out;
	for (uint32_t b = 0; b < n; b++)
		FUZZ_CHECK(usmp_plan_placement(plan, b, &pool[b], &off[b]) == USMP_OK);
	FUZZ_CHECK(brute_valid(p, pool, off));
	FUZZ_CHECK(usmp_plan_verify(plan, p) == USMP_OK);
	/* It prints, and reads back as the same placements. */
	text = write_plan(plan, p, &len);
#ifndef FUZZ_SOLVE_CSV
	if (!text) {
		/* Only what JSON cannot say (docs/errors.md): an offset, a pool
		 * size or a bound past 2^63 - 1, refused with a message naming it. */
		const uint64_t top = (uint64_t)INT64_MAX;
		int beyond = 0;
		for (uint32_t b = 0; b < n; b++)
			beyond |= off[b] > top;
		for (uint32_t q = 0; q < usmp__problem_npools(p); q++)
			beyond |= usmp_plan_pool_size(plan, q) > top;
		for (uint32_t g = 0; g < usmp_problem_prepare_group_count(p); g++)
			beyond |= usmp_problem_prepare_group_bound(p, g) > top;
		for (uint32_t i = 0; i < usmp_plan_part_count(plan); i++) {
			usmp_part_info pi = {.struct_size = sizeof pi};
			FUZZ_CHECK(usmp_plan_part(plan, i, &pi) == USMP_OK);
			beyond |= pi.size > top || pi.lower_bound > top ||
			          pi.proven_bound > top;
		}
		FUZZ_CHECK(beyond);
		FUZZ_CHECK(strstr(usmp_plan_error(plan),
		                  "is too large for the JSON format"));
		goto out;
	}
#endif
	FUZZ_CHECK(text != NULL);
	again = usmp__plan_alloc(p);
	if (!again)
		goto out;
	rc = read_plan_as(again, p, text, len, "plan");
	if (rc != USMP_OK)
		fprintf(stderr, "re-read: %s\n", usmp_plan_error(again));
	FUZZ_CHECK(rc == USMP_OK);
	for (uint32_t b = 0; b < n; b++) {
		uint32_t q;
		uint64_t o2;
		FUZZ_CHECK(usmp_plan_placement(again, b, &q, &o2) == USMP_OK);
		FUZZ_CHECK(q == pool[b] && o2 == off[b]);
	}
out:
	free(pool);
	free(off);
	free(text);
	free(copy);
	usmp_plan_destroy(again);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return 0;
}
