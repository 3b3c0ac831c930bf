/* fuzz_plan.c — fuzzes the plan readers (JSON, or CSV with -DFUZZ_PLAN_CSV)
 * on a fixed small problem; a plan they accept must verify or be refused with
 * a message, simulate when valid, and write back as the same placements. */
#include "fuzz.h"
#include "internal.h"

#include <string.h>

#ifdef FUZZ_PLAN_CSV
#define FORMAT_NAME "fuzz_plan.csv"
static const char problem_text[] =
	"id,lower,upper,size,alignment\n"
	"b1,0,3,4,1\n"
	"b2,3,9,4,2\n"
	"b3,0,9,4,4\n"
	"b4,9,21,4,1\n"
	"b5,0,21,4,1\n";
#define PROBLEM_FORMAT USMP_FORMAT_CSV
#define PROBLEM_CAPACITY 64
#else
#define FORMAT_NAME "fuzz_plan.json"
static const char problem_text[] =
	"{\"usmp\": 1,\n"
	" \"pools\": [{\"name\": \"sram\", \"size_limit\": 256, \"alignment\": 16,"
	" \"targets\": [\"npu\"]}, {\"name\": \"dram\"}],\n"
	" \"buffers\": [\n"
	"  {\"name\": \"in\", \"size\": 64, \"live\": [0, 2], \"pools\": [\"sram\", \"dram\"]},\n"
	"  {\"name\": \"mid\", \"size\": 64, \"alignment\": 32, \"live\": [1, 3]},\n"
	"  {\"name\": \"out\", \"size\": 48, \"live\": [2, 4], \"pools\": [\"sram\"]},\n"
	"  {\"name\": \"pin\", \"size\": 16, \"fixed\": {\"pool\": \"dram\", \"offset\": 1024}},\n"
	"  {\"name\": \"tmp\", \"size\": 8}],\n"
	" \"conflicts\": [[\"tmp\", \"in\"]],\n"
	" \"overlaps\": [{\"src\": \"in\", \"dst\": \"mid\", \"max_lead\": 0}]}\n";
#define PROBLEM_FORMAT USMP_FORMAT_JSON
#define PROBLEM_CAPACITY USMP_UNBOUNDED
#endif

static char *write_plan(usmp_plan *plan, usmp_problem *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
#ifdef FUZZ_PLAN_CSV
	int rc = usmp__csv_write_plan(plan, p, f);
#else
	int rc = usmp__json_write_plan(plan, p, f);
#endif
	fclose(f);
	if (rc != USMP_OK) {
		free(text);
		return NULL;
	}
	return text;
}

static int read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                     size_t len)
{
#ifdef FUZZ_PLAN_CSV
	return usmp__csv_read_plan(plan, p, data, len, FORMAT_NAME);
#else
	return usmp__json_read_plan(plan, p, data, len, FORMAT_NAME);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL, *again = NULL;
	char *text = NULL, *copy = NULL;
	size_t n = 0;

	if (!p)
		return 0;
	FUZZ_CHECK(usmp_problem_parse(p, problem_text, sizeof problem_text - 1,
	                              "problem", PROBLEM_FORMAT,
	                              PROBLEM_CAPACITY) == USMP_OK);
	FUZZ_CHECK(usmp__problem_prepare(p) == USMP_OK);
	plan = usmp__plan_alloc(p);
	if (!plan)
		goto out;
	/* The readers get a NUL-terminated buffer, as usmp__read_file gives. */
	copy = malloc(size + 1);
	if (!copy)
		goto out;
	memcpy(copy, data, size);
	copy[size] = '\0';
	int rc = read_plan(plan, p, copy, size);
	if (rc != USMP_OK) {
		FUZZ_CHECK(usmp_plan_error(plan) && *usmp_plan_error(plan));
		goto out;
	}
	rc = usmp_plan_verify(plan, p);
	if (rc != USMP_OK) {
		FUZZ_CHECK(rc == USMP_ERR_INVALID_PLAN);
		FUZZ_CHECK(*usmp_plan_error(plan) != '\0');
		goto out;
	}
	uint64_t total = 0;
	for (uint32_t q = 0; q < usmp_problem_pool_count(p); q++)
		total += usmp_plan_pool_size(plan, q);
	if (total <= (1u << 20)) {
		rc = usmp_plan_simulate(plan, p);
		if (rc != USMP_OK)
			fprintf(stderr, "simulate: %s\n", usmp_plan_error(plan));
		FUZZ_CHECK(rc == USMP_OK);
	}
	/* Write it and read it back: the same placements. */
	text = write_plan(plan, p, &n);
	FUZZ_CHECK(text != NULL);
	again = usmp__plan_alloc(p);
	if (!again)
		goto out;
	rc = read_plan(again, p, text, n);
	if (rc != USMP_OK)
		fprintf(stderr, "re-read: %s\n", usmp_plan_error(again));
	FUZZ_CHECK(rc == USMP_OK);
	for (uint32_t b = 0; b < usmp_problem_buffer_count(p); b++) {
		uint32_t q1, q2;
		uint64_t o1, o2;
		FUZZ_CHECK(usmp_plan_placement(plan, b, &q1, &o1) == USMP_OK);
		FUZZ_CHECK(usmp_plan_placement(again, b, &q2, &o2) == USMP_OK);
		FUZZ_CHECK(q1 == q2 && o1 == o2);
	}
out:
	free(copy);
	free(text);
	usmp_plan_destroy(again);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return 0;
}
