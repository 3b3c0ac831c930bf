/* fuzz_problem_csv.c — fuzzes the MiniMalloc CSV problem reader; whatever it
 * accepts must survive bounds and write back as CSV and JSON that read back. */
#include "fuzz.h"
#include "internal.h"

#include <string.h>

typedef int (*writer_fn)(usmp_problem *, FILE *);

static char *write_with(usmp_problem *p, writer_fn fn, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	int rc = fn(p, f);
	fclose(f);
	if (rc != USMP_OK) {
		free(text);
		return NULL;
	}
	return text;
}

static void reread(usmp_problem *p, writer_fn fn, int format, uint64_t cap)
{
	size_t n = 0;
	char *text = write_with(p, fn, &n);
	FUZZ_CHECK(text != NULL);
	usmp_problem *q = usmp_problem_create();
	if (q) {
		int rc = usmp_problem_parse(q, text, n, "roundtrip", format, cap);
		if (rc != USMP_OK)
			fprintf(stderr, "re-read failed: %s\n--\n%s\n--\n",
			        usmp_problem_error(q), text);
		FUZZ_CHECK(rc == USMP_OK);
		FUZZ_CHECK(usmp_problem_buffer_count(q) ==
		           usmp_problem_buffer_count(p));
		if (usmp_problem_group_count(q) == 1 &&
		    usmp_problem_group_count(p) == 1)
			FUZZ_CHECK(usmp_problem_group_bound(q, 0) ==
			           usmp_problem_group_bound(p, 0));
	}
	usmp_problem_destroy(q);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The first byte picks the capacity: unbounded, or a small one. */
	uint64_t cap = USMP_UNBOUNDED;
	if (size > 0 && data[0] == '#') {
		cap = 1048576;
		data++;
		size--;
	}
	usmp_problem *p = usmp_problem_create();
	if (!p)
		return 0;
	int rc = usmp_problem_parse(p, (const char *)data, size, "fuzz.csv",
	                            USMP_FORMAT_CSV, cap);
	if (rc != USMP_OK) {
		FUZZ_CHECK(*usmp_problem_error(p) != '\0');
		FUZZ_CHECK(usmp_problem_buffer_count(p) == 0);
		goto out;
	}
	uint32_t groups = usmp_problem_group_count(p);
	for (uint32_t g = 0; g < groups; g++)
		(void)usmp_problem_group_bound(p, g);
	if (usmp__problem_prepare(p) != USMP_OK)
		goto out;
	reread(p, usmp__csv_write_problem, USMP_FORMAT_CSV, cap);
	reread(p, usmp__json_write_problem, USMP_FORMAT_JSON, cap);
out:
	usmp_problem_destroy(p);
	return 0;
}
