/* fuzz_problem_json.c — fuzzes the JSON problem reader; whatever it accepts
 * must survive bounds, and write back as JSON that reads to the same text. */
#include "fuzz.h"
#include "internal.h"

#include <string.h>

/* The problem as JSON text in a heap buffer (NULL when the writer fails). */
static char *to_json(usmp_problem *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	int rc = usmp__problem_prepare(p);
	if (rc == USMP_OK)
		rc = usmp__json_write_problem(p, f);
	fclose(f);
	if (rc != USMP_OK) {
		free(text);
		return NULL;
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	usmp_problem *p = usmp_problem_create(), *q = NULL;
	char *t1 = NULL, *t2 = NULL;
	size_t n1 = 0, n2 = 0;

	if (!p)
		return 0;
	int rc = usmp_problem_parse(p, (const char *)data, size, "fuzz.json",
	                            USMP_FORMAT_JSON, USMP_UNBOUNDED);
	FUZZ_CHECK(usmp_problem_error(p) != NULL);
	if (rc != USMP_OK) {
		FUZZ_CHECK(*usmp_problem_error(p) != '\0');
		FUZZ_CHECK(usmp_problem_buffer_count(p) == 0);
		goto out;
	}
	/* Cross-record checks (fixed pools, rule schedules) run when the
	 * problem is first prepared: a refusal there needs a message too. */
	if (usmp__problem_prepare(p) != USMP_OK) {
		FUZZ_CHECK(*usmp_problem_error(p) != '\0');
		goto out;
	}
	uint32_t groups = usmp_problem_prepare_group_count(p);
	for (uint32_t g = 0; g < groups; g++)
		(void)usmp_problem_prepare_group_bound(p, g);
	/* Round trip: what we write we must read, and rewrite identically. */
	t1 = to_json(p, &n1);
	FUZZ_CHECK(t1 != NULL);
	q = usmp_problem_create();
	if (!q)
		goto out;
	rc = usmp_problem_parse(q, t1, n1, "roundtrip.json", USMP_FORMAT_JSON,
	                        USMP_UNBOUNDED);
	if (rc != USMP_OK)
		fprintf(stderr, "re-read failed: %s\n", usmp_problem_error(q));
	FUZZ_CHECK(rc == USMP_OK);
	FUZZ_CHECK(usmp_problem_buffer_count(q) == usmp_problem_buffer_count(p));
	FUZZ_CHECK(usmp_problem_pool_count(q) == usmp_problem_pool_count(p));
	t2 = to_json(q, &n2);
	FUZZ_CHECK(t2 != NULL);
	FUZZ_CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);
	FUZZ_CHECK(usmp_problem_prepare_group_count(q) == groups);
	for (uint32_t g = 0; g < groups; g++)
		FUZZ_CHECK(usmp_problem_prepare_group_bound(q, g) ==
		           usmp_problem_prepare_group_bound(p, g));
out:
	free(t1);
	free(t2);
	usmp_problem_destroy(q);
	usmp_problem_destroy(p);
	return 0;
}
