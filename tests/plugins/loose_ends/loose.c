/* loose.c — the loose ends fixture plugins (-DLE_<KIND>): a volunteer that
 * never returns, an exact liar, a free at the start of a mapping. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, nanosleep */
#include <usmp/plugin.h>

#include "../fixture_stack.h"

#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FN(f) ((usmp_algorithm_fn)(f))

#if defined(LE_HANG_VOLUNTEER)
/* A volunteer for auto that spins without asking should_stop(): only the
 * watcher of its isolated call ends it (auto's deadline plus the member
 * grace). */
static int le_hang(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	volatile uint64_t n = 0;
	for (;;)
		n++;
	return 0;
}

/* Not a volunteer: sleeps 0.3 s without asking should_stop(), then
 * stacks the buffers (a first plan that takes longer than a short limit). */
static int le_slow(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	(void)h;
	struct timespec ts = {0, 300000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
	return fx_stack(v, out, NULL);
}

static const usmp_algorithm a_hang = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO | USMP_CAP_MULTI_POOL,
	"le_hang", "a volunteer that never returns", "", FN(le_hang), NULL, 0};
static const usmp_algorithm a_slow = {
	sizeof(usmp_algorithm), 0, "le_slow",
	"sleeps 0.3 s, then stacks every buffer", "", FN(le_slow), NULL, 0};
static const usmp_algorithm *const algos[] = {&a_hang, &a_slow};
#define LE_NAME "hang_volunteer"

#elif defined(LE_EXACT_LIAR)
/* Declares USMP_CAP_EXACT and says every problem infeasible, unbounded
 * pools included. */
static int le_infeasible(const usmp_view *v, const usmp_host *h,
                         usmp_placement *out)
{
	(void)v, (void)out;
	h->log(h, USMP_LOG_ERROR, "no plan fits");
	return USMP_ERR_INFEASIBLE;
}

static const usmp_algorithm a_infeasible = {
	sizeof(usmp_algorithm),
	USMP_CAP_EXACT | USMP_CAP_DETERMINISTIC | USMP_CAP_MULTI_POOL,
	"le_infeasible", "an exact algorithm that says every problem infeasible",
	"", FN(le_infeasible), NULL, 0};
static const usmp_algorithm *const algos[] = {&a_infeasible};
#define LE_NAME "exact_liar"

#elif defined(LE_MAPPING_FREE)
/* host->free() and host->realloc() of a pointer at the very start of a
 * mapping whose page before is PROT_NONE (reading a byte before it
 * faults), then a valid plan. */
static int le_free_mapping(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
	                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return USMP_ERR_NOMEM;
	if (mprotect(m, page, PROT_NONE)) {
		munmap(m, 2 * page);
		return USMP_ERR_NOMEM;
	}
	h->free(h, m + page);
	void *again = h->realloc(h, m + page, 64);
	munmap(m, 2 * page);
	if (again)
		return USMP_ERR_INVALID;
	return fx_stack(v, out, NULL);
}

static const usmp_algorithm a_free_mapping = {
	sizeof(usmp_algorithm), 0, "le_free_mapping",
	"frees a pointer at the start of a mapping", "", FN(le_free_mapping),
	NULL, 0};
static const usmp_algorithm *const algos[] = {&a_free_mapping};
#define LE_NAME "mapping_free"
#endif

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT(LE_NAME, "1.0", "MIT", algos);
