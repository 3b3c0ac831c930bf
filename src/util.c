/* util.c — small shared helpers: heap error messages with an out-of-memory
 * fallback, overflow-checked growable arrays, strdup and a monotonic clock. */
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What a message slot holds when its text could not be allocated. It is
 * never written and never freed (usmp__free_msg recognises it). */
static const char usmp__oom_text[] = "out of memory";

static void release(char **slot)
{
	if (*slot && *slot != usmp__oom_text)
		free(*slot);
	*slot = NULL;
}

void usmp__vset_msg(char **slot, const char *fmt, va_list ap)
{
	if (!slot)
		return;
	/* Format before releasing the old text: the arguments may point into it
	 * (a caller prefixing context to a message it already holds). */
	char *text = usmp__vformat_msg(fmt, ap);
	release(slot);
	*slot = text ? text : (char *)usmp__oom_text;
}

void usmp__set_msg(char **slot, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usmp__vset_msg(slot, fmt, ap);
	va_end(ap);
}

void usmp__free_msg(char **slot)
{
	if (slot)
		release(slot);
}

char *usmp__strdup(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int usmp__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return USMP_OK;
	if (elem == 0)
		return USMP_ERR_INTERNAL;
	/* Double (at least 8 elements), or take `need` when doubling is not
	 * enough or would overflow. */
	ncap = *cap < 8 ? 8 : *cap;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			ncap = need;
			break;
		}
		ncap *= 2;
	}
	/* No object may exceed PTRDIFF_MAX bytes (malloc refuses them too). */
	if (ncap > (size_t)PTRDIFF_MAX / elem) {
		ncap = need;
		if (ncap > (size_t)PTRDIFF_MAX / elem)
			return USMP_ERR_NOMEM;
	}
	n = realloc(*arr, ncap * elem);
	if (!n)
		return USMP_ERR_NOMEM;
	*arr = n;
	*cap = ncap;
	return USMP_OK;
}

double usmp__now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double usmp__cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
