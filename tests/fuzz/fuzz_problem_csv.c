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
		if (usmp_problem_prepare_group_count(q) == 1 &&
		    usmp_problem_prepare_group_count(p) == 1)
			FUZZ_CHECK(usmp_problem_prepare_group_bound(q, 0) ==
			           usmp_problem_prepare_group_bound(p, 0));
	}
	usmp_problem_destroy(q);
	free(text);
}

/* Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static int utf8_ok(const unsigned char *s)
{
	while (*s) {
		unsigned c = *s++, need, min;
		uint32_t cp;
		if (c < 0x80)
			continue;
		if ((c & 0xe0) == 0xc0)
			need = 1, min = 0x80, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			need = 2, min = 0x800, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			need = 3, min = 0x10000, cp = c & 0x07;
		else
			return 0;
		for (unsigned i = 0; i < need; i++) {
			if ((*s & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (*s++ & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
	}
	return 1;
}

static int names_utf8(const usmp_problem *p)
{
	for (uint32_t b = 0; b < usmp_problem_buffer_count(p); b++)
		if (!utf8_ok((const unsigned char *)usmp_problem_buffer_name(p, b)))
			return 0;
	return 1;
}

static int names_have(const usmp_problem *p, char c)
{
	for (uint32_t b = 0; b < usmp_problem_buffer_count(p); b++)
		if (strchr(usmp_problem_buffer_name(p, b), c))
			return 1;
	return 0;
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
	uint32_t groups = usmp_problem_prepare_group_count(p);
	for (uint32_t g = 0; g < groups; g++)
		(void)usmp_problem_prepare_group_bound(p, g);
	if (usmp__problem_prepare(p) != USMP_OK)
		goto out;
	/* Both findings of README.md (a CR inside an id, ids that are not
	 * UTF-8) are refused by the reader now: every accepted problem must
	 * write back in both formats. */
	FUZZ_CHECK(!names_have(p, '\r') && names_utf8(p));
	reread(p, usmp__csv_write_problem, USMP_FORMAT_CSV, cap);
	reread(p, usmp__json_write_problem, USMP_FORMAT_JSON, cap);
out:
	usmp_problem_destroy(p);
	return 0;
}
