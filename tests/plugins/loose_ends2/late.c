/* late.c — the loose_ends2 fixture: le2_late, a volunteer for auto that
 * waits for should_stop(), then returns 0.1 s late (within the grace). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <usmp/plugin.h>
#include "../fixture_stack.h"

#include <time.h>

USMP_ALGORITHM_DECLARE(le2_late, USMP_NO_KNOBS);

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Asks should_stop() every millisecond (at most 30 s: a call without a
 * deadline ends too), then sleeps 0.1 s without asking: a member that
 * returns past auto's deadline, but within the member grace (0.2 s), so
 * no watcher kills it. The plan: every buffer end to end. */
static int le2_late(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out)
{
	for (int i = 0; i < 30000 && !h->should_stop(h); i++)
		sleep_ms(1);
	sleep_ms(100);
	return fx_stack(v, out, NULL);
}

static const usmp_algorithm a_late = USMP_ALGORITHM_INIT(
	le2_late, "le2_late", USMP_CAP_PORTFOLIO | USMP_CAP_MULTI_POOL,
	"a volunteer that returns 0.1 s after auto's deadline");
static const usmp_algorithm *const algos[] = {&a_late};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("late_volunteer", "1.0", "MIT", algos);
