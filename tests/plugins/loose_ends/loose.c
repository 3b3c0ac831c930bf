/* loose.c — the loose ends fixture plugins (-DLE_<KIND>): a volunteer for
 * auto that never returns, an exact algorithm that says infeasible always. */
#include <usmp/plugin.h>

#include <stdint.h>

#define FN(f) ((usmp_algorithm_fn)(f))

#if defined(LE_HANG_VOLUNTEER)
/* Spins without asking should_stop(): only the watcher of its isolated
 * call ends it (auto's deadline plus the member grace). */
static int le_hang(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	volatile uint64_t n = 0;
	for (;;)
		n++;
	return 0;
}

static const usmp_algorithm a_hang = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO | USMP_CAP_MULTI_POOL,
	"le_hang", "a volunteer that never returns", "", FN(le_hang), NULL, 0};
static const usmp_algorithm *const algos[] = {&a_hang};
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
#endif

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT(LE_NAME, "1.0", "MIT", algos);
