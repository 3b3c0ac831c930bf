/* fail_alloc.c — allocations that fail after N, for tests/test_loose_ends2.c:
 * an LD_PRELOAD shim of `usmp` (built with -DFAIL_ALLOC_SHIM), counting
 * inside usmp_plan_verify and usmp_plan_simulate only,
 *   USMP_TEST_FAIL_ALLOC_AFTER=N  the first N malloc/calloc/realloc calls
 *                                 of each such call succeed, every later
 *                                 one returns NULL (ENOMEM)
 * and, linked into the suite (whose libusmp is static), fail_alloc_arm().
 * Uncounted, every allocation goes to glibc's allocator. Not for a build
 * under the sanitizers (their allocator must come first). */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

/* Linked into tests/test_loose_ends2.c as well; under the sanitizers
 * (their allocator must stay in charge) it defines nothing. */
#if !defined(USMP_TEST_SANITIZED) && !defined(__SANITIZE_ADDRESS__) &&      \
	!defined(__SANITIZE_THREAD__)

/* glibc's own allocator, below any interposition. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

/* Allocations left before they fail; -1: not counting (outside a call). */
static long left = -1;

static int out_of_memory(void)
{
	if (left == 0) {
		errno = ENOMEM;
		return 1;
	}
	if (left > 0)
		left--;
	return 0;
}

void *malloc(size_t size)
{
	return out_of_memory() ? NULL : __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
	return out_of_memory() ? NULL : __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size)
{
	return out_of_memory() ? NULL : __libc_realloc(ptr, size);
}

/* From now on, the first n allocations succeed and the later ones fail;
 * n < 0: every allocation succeeds again. */
void fail_alloc_arm(long n);
void fail_alloc_arm(long n)
{
	left = n < 0 ? -1 : n;
}

#ifdef FAIL_ALLOC_SHIM
typedef int (*check_fn)(void *plan, void *problem);

/* Run the real `name` with the allocations counted. */
static int counted(const char *name, check_fn *real, void *plan, void *p)
{
	if (!*real)
		*(void **)real = dlsym(RTLD_NEXT, name);
	if (!*real)
		abort();
	const char *after = getenv("USMP_TEST_FAIL_ALLOC_AFTER");
	left = after ? strtol(after, NULL, 10) : -1;
	int rc = (*real)(plan, p);
	left = -1;
	return rc;
}

int usmp_plan_verify(void *plan, void *problem);
int usmp_plan_simulate(void *plan, void *problem);

int usmp_plan_verify(void *plan, void *problem)
{
	static check_fn real;
	return counted("usmp_plan_verify", &real, plan, problem);
}

int usmp_plan_simulate(void *plan, void *problem)
{
	static check_fn real;
	return counted("usmp_plan_simulate", &real, plan, problem);
}
#endif /* FAIL_ALLOC_SHIM */
#endif
