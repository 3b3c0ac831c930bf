/* poll.c — fixture plugins standing in for an anytime search: fx_poll has a
 * plan at once and "improves" it until should_stop() says stop, however
 * long; fx_poll_noplan searches until then and stops without one. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <usmp/plugin.h>

#include <math.h>
#include <time.h>

USMP_ALGORITHM_DECLARE(fx_poll, USMP_NO_KNOBS);
USMP_ALGORITHM_DECLARE(fx_poll_noplan, USMP_NO_KNOBS);

/* Every buffer above the previous one in its first candidate pool: valid
 * whenever the pools are large enough (the tests' are unbounded). */
static int stack(const usmp_view *v, usmp_placement *out)
{
	uint64_t top = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t p = v->candidates[r->candidate_start];
		bool ok = true;
		uint64_t off = usmp_align_up(top, usmp_buffer_alignment(v, b, p), &ok);
		if (!ok || off + r->size > v->pools[p].size_limit)
			return USMP_ERR_INFEASIBLE;
		out[b] = (usmp_placement){p, 0, off};
		top = off + r->size;
	}
	return USMP_OK;
}

/* Without a time limit (v->time_limit 0) it would search forever, as an
 * anytime search can; it returns at once instead, so a test that asks for
 * no limit ends, and what it saw shows in the part's budget. */
static int fx_poll(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	int st = stack(v, out);
	if (st || v->time_limit == 0 || !isfinite(v->time_limit))
		return st;
	while (!h->should_stop(h)) {
		struct timespec ts = {0, 1000000L};
		nanosleep(&ts, NULL);
	}
	h->report_bound(h, v->lower_bound, false);
	return USMP_OK;
}

/* Never has a plan: waits for should_stop() (at once without a limit) and
 * says it stopped. */
static int fx_poll_noplan(const usmp_view *v, const usmp_host *h,
                          usmp_placement *out)
{
	(void)out;
	while (v->time_limit > 0 && isfinite(v->time_limit) &&
	       !h->should_stop(h)) {
		struct timespec ts = {0, 1000000L};
		nanosleep(&ts, NULL);
	}
	return USMP_ERR_STOPPED;
}

static const usmp_algorithm fx_poll_algo = USMP_ALGORITHM_INIT(
	fx_poll, "fx_poll", USMP_CAP_ANYTIME | USMP_CAP_DETERMINISTIC,
	"a stacked plan, then polls should_stop() until it says stop");
static const usmp_algorithm fx_poll_noplan_algo = USMP_ALGORITHM_INIT(
	fx_poll_noplan, "fx_poll_noplan", USMP_CAP_DETERMINISTIC,
	"polls should_stop() until it says stop, then stops without a plan");
static const usmp_algorithm *const algos[] = {&fx_poll_algo,
                                              &fx_poll_noplan_algo};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER, "poll", "0.0.1-fixture", "Apache-2.0",
	sizeof algos / sizeof algos[0], 0, algos,
};
