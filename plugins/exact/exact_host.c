/* exact_host.c — the host a search inside exact sees: the caller's host with
 * messages kept quiet, progress dropped, the bound kept and a node budget. */
#include "exact_internal.h"

#include <stdio.h>
#include <string.h>

static void sub_log(const usmp_host *h, int level, const char *m)
{
	xact_sub_host *s = (xact_sub_host *)(void *)h;
	if (!m)
		return;
	if (level <= USMP_LOG_WARN)
		snprintf(s->msg, sizeof s->msg, "%s", m);
}

static bool sub_stop(const usmp_host *h)
{
	const xact_sub_host *s = (const xact_sub_host *)(const void *)h;
	if (s->node_limit && s->clk && s->clk->nodes >= s->node_limit)
		return true;
	return s->up->should_stop && s->up->should_stop(s->up);
}

static void sub_progress(const usmp_host *h, uint64_t best)
{
	(void)h;
	(void)best;
}

static void sub_report(const usmp_host *h, uint64_t bound, bool optimal)
{
	xact_sub_host *s = (xact_sub_host *)(void *)h;
	s->got = true;
	if (bound > s->bound)
		s->bound = bound;
	s->optimal |= optimal;
}

void xact_sub_init(xact_sub_host *s, const usmp_host *up)
{
	memset(s, 0, sizeof *s);
	size_t k = up->struct_size < sizeof s->h ? up->struct_size : sizeof s->h;
	memcpy(&s->h, up, k);
	s->h.struct_size = sizeof s->h;
	s->h.log = sub_log;
	s->h.should_stop = sub_stop;
	s->h.progress = sub_progress;
	s->h.report_bound = sub_report;
	s->up = up;
}

void xact_sub_reset(xact_sub_host *s, const xact_clock *clk, uint64_t nodes)
{
	s->got = s->optimal = false;
	s->bound = 0;
	s->msg[0] = 0;
	s->clk = clk;
	s->node_limit = nodes;
}
