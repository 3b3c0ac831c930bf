/* test_util.c — messages, growable arrays, strdup, the clock, the string map
 * and the version/status functions. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "config.h"
#include "internal.h"
#include "support.h"

Test(util, set_msg_formats_into_a_heap_string)
{
	char *msg = NULL;

	usmp__set_msg(&msg, "buffer \"%s\": size %d", "x", 42);
	cr_assert_str_eq(msg, "buffer \"x\": size 42");
	usmp__set_msg(&msg, "second %s", "message");
	cr_assert_str_eq(msg, "second message");
	usmp__free_msg(&msg);
	cr_assert_null(msg);
	usmp__free_msg(&msg); /* freeing an empty slot is harmless */
	cr_assert_null(msg);
}

Test(util, set_msg_may_quote_the_message_it_replaces)
{
	char *msg = NULL;

	usmp__set_msg(&msg, "size: expected a positive integer");
	usmp__set_msg(&msg, "model.json: buffers[3].%s", msg);
	cr_assert_str_eq(msg,
	                 "model.json: buffers[3].size: expected a positive integer");
	usmp__free_msg(&msg);
}

Test(util, set_msg_handles_long_messages)
{
	char *msg = NULL, *big = malloc(100001);

	cr_assert_not_null(big);
	memset(big, 'a', 100000);
	big[100000] = '\0';
	usmp__set_msg(&msg, "<%s>", big);
	cr_assert_eq(strlen(msg), 100002);
	cr_assert_eq(msg[0], '<');
	cr_assert_eq(msg[100001], '>');
	usmp__free_msg(&msg);
	free(big);
}

Test(util, set_msg_falls_back_to_a_static_text_that_is_never_freed)
{
	/* A wide string that cannot be converted makes vsnprintf fail, the
	 * same path as an allocation failure. */
	static const wchar_t bad[] = { 0xD800, 0 };
	char *msg = NULL;

	usmp__set_msg(&msg, "first");
	usmp__set_msg(&msg, "x%lsy", bad);
	cr_assert_str_eq(msg, "out of memory");
	/* Replacing and freeing the fallback must not free() it (ASan would
	 * report an invalid free). */
	usmp__set_msg(&msg, "again %d", 2);
	cr_assert_str_eq(msg, "again 2");
	usmp__set_msg(&msg, "x%lsy", bad);
	usmp__set_msg(&msg, "x%lsy", bad);
	cr_assert_str_eq(msg, "out of memory");
	usmp__free_msg(&msg);
	cr_assert_null(msg);
}

Test(util, strdup_copies_and_accepts_null)
{
	const char *s = "conv1.out";
	char *d = usmp__strdup(s);

	cr_assert_not_null(d);
	cr_assert_neq(d, s);
	cr_assert_str_eq(d, s);
	free(d);
	cr_assert_null(usmp__strdup(NULL));
}

Test(util, grow_keeps_contents_and_reaches_need)
{
	uint32_t *a = NULL;
	size_t cap = 0, i;

	for (i = 0; i < 100000; i++) {
		cr_assert_eq(usmp__grow((void **)&a, &cap, i + 1, sizeof(*a)), 0);
		cr_assert_geq(cap, i + 1);
		a[i] = (uint32_t)(i * 7);
	}
	for (i = 0; i < 100000; i++)
		cr_assert_eq(a[i], (uint32_t)(i * 7));
	/* Doubling: far fewer than one reallocation per element. */
	cr_assert_lt(cap, 2 * 100000 + 8);
	free(a);
}

Test(util, grow_does_nothing_when_capacity_suffices)
{
	void *a = malloc(64), *before = a;
	size_t cap = 16;

	cr_assert_eq(usmp__grow(&a, &cap, 10, 4), 0);
	cr_assert_eq(a, before);
	cr_assert_eq(cap, 16);
	free(a);
}

Test(util, grow_rejects_byte_count_overflow)
{
	uint64_t *a = malloc(8 * sizeof(*a));
	void *before = a;
	size_t cap = 8;

	cr_assert_not_null(a);
	cr_assert_eq(usmp__grow((void **)&a, &cap, SIZE_MAX / 4, sizeof(*a)),
	             USMP_ERR_NOMEM);
	cr_assert_eq(usmp__grow((void **)&a, &cap, SIZE_MAX, 1), USMP_ERR_NOMEM);
	cr_assert_eq((void *)a, before, "array left alone on failure");
	cr_assert_eq(cap, 8, "capacity left alone on failure");
	free(a);
}

Test(util, grow_from_huge_capacity_does_not_wrap)
{
	/* A capacity whose double overflows size_t must not wrap to a small
	 * allocation that would then be written past. */
	void *a = NULL;
	size_t cap = SIZE_MAX / 2 + 2;

	cr_assert_eq(usmp__grow(&a, &cap, SIZE_MAX / 2 + 3, 1), USMP_ERR_NOMEM);
	cr_assert_null(a);
	cr_assert_eq(cap, SIZE_MAX / 2 + 2);
}

Test(util, now_is_monotonic)
{
	double a = usmp__now(), b = usmp__now();

	cr_assert_gt(a, 0.0);
	cr_assert_geq(b, a);
}

Test(strmap, empty_map_finds_nothing)
{
	usmp__strmap m;
	uint32_t v = 77;

	usmp__strmap_init(&m);
	cr_assert_eq(usmp__strmap_get(&m, "a", &v), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp__strmap_get(&m, NULL, &v), USMP_ERR_NOT_FOUND);
	cr_assert_eq(v, 77);
	usmp__strmap_finish(&m);
	usmp__strmap_finish(&m); /* twice is harmless */
}

Test(strmap, put_then_get_and_duplicate_is_refused)
{
	usmp__strmap m;
	uint32_t v = 0;

	usmp__strmap_init(&m);
	cr_assert_eq(usmp__strmap_put(&m, "sram", 3), 0);
	cr_assert_eq(usmp__strmap_put(&m, "dram", 4), 0);
	cr_assert_eq(usmp__strmap_put(&m, "sram", 9), USMP_ERR_INVALID);
	cr_assert_eq(usmp__strmap_get(&m, "sram", &v), 0);
	cr_assert_eq(v, 3, "a refused duplicate does not overwrite");
	cr_assert_eq(usmp__strmap_get(&m, "dram", &v), 0);
	cr_assert_eq(v, 4);
	cr_assert_eq(usmp__strmap_get(&m, "dra", &v), USMP_ERR_NOT_FOUND);
	cr_assert_eq(usmp__strmap_get(&m, "", &v), USMP_ERR_NOT_FOUND);
	cr_assert_eq(m.count, 2);
	usmp__strmap_finish(&m);
}

Test(strmap, holds_100k_keys_under_half_load)
{
	enum { N = 100000 };
	usmp__strmap m;
	char **keys = calloc(N, sizeof(*keys));
	uint32_t i, v;

	cr_assert_not_null(keys);
	usmp__strmap_init(&m);
	for (i = 0; i < N; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "layer%u.out", i);
		keys[i] = usmp__strdup(buf);
		cr_assert_not_null(keys[i]);
		cr_assert_eq(usmp__strmap_put(&m, keys[i], i), 0);
	}
	cr_assert_eq(m.count, N);
	cr_assert_leq(m.count * 2, m.cap, "load stays at most 50%%");
	cr_assert_eq(m.cap & (m.cap - 1), 0, "capacity is a power of two");
	for (i = 0; i < N; i++) {
		char buf[32];

		/* Look up with a different pointer: keys compare by content. */
		snprintf(buf, sizeof(buf), "layer%u.out", i);
		cr_assert_eq(usmp__strmap_get(&m, buf, &v), 0, "key %s", buf);
		cr_assert_eq(v, i);
	}
	for (i = 0; i < 1000; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "layer%u.in", i);
		cr_assert_eq(usmp__strmap_get(&m, buf, &v), USMP_ERR_NOT_FOUND);
	}
	cr_assert_eq(usmp__strmap_put(&m, "layer99999.out", 1), USMP_ERR_INVALID);
	usmp__strmap_finish(&m);
	for (i = 0; i < N; i++)
		free(keys[i]);
	free(keys);
}

Test(version, reports_versions_and_status_names)
{
	uint32_t major = 0, minor = 99;

	cr_assert_str_eq(usmp_version(), USMP_VERSION);
	cr_assert_neq(usmp_version()[0], '\0');
	usmp_abi_version(&major, &minor);
	cr_assert_eq(major, USMP_ABI_MAJOR);
	cr_assert_eq(minor, USMP_ABI_MINOR);
	usmp_abi_version(NULL, NULL);
	cr_assert_str_eq(usmp_status_name(USMP_OK), "ok");
	cr_assert_str_eq(usmp_status_name(USMP_ERR_INFEASIBLE), "infeasible");
	cr_assert_str_eq(usmp_status_name(USMP_ERR_NOT_FOUND), "not found");
	cr_assert_str_eq(usmp_status_name(12345), "unknown status");
	cr_assert_str_eq(usmp_status_name(-1), "unknown status");
	for (int s = USMP_OK; s <= USMP_ERR_INTERNAL; s++)
		cr_assert_str_neq(usmp_status_name(s), "unknown status", "%d", s);
}
