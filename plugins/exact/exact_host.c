/* exact_host.c — the hosts exact's stages see: the caller's host with its
 * errors held until the call's outcome is known, or (a search inside exact)
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

static const usmp_host *up_of(const usmp_host *h)
{
	return ((const xact_defer_host *)(const void *)h)->up;
}

static void defer_log(const usmp_host *h, int level, const char *m)
{
	xact_defer_host *d = (xact_defer_host *)(void *)h;
	if (!m || !d->up->log)
		return;
	if (level > USMP_LOG_WARN) {
		d->up->log(d->up, level, m);
		return;
	}
	if (d->held)
		d->up->log(d->up, USMP_LOG_INFO, d->msg);
	snprintf(d->msg, sizeof d->msg, "%s", m);
	d->level = level;
	d->held = true;
}

/* Every other hook is the caller's, called with the caller's table: a host
 * may find its state from the table's address. */
static bool defer_stop(const usmp_host *h)
{
	const usmp_host *up = up_of(h);
	return up->should_stop(up);
}

static void defer_progress(const usmp_host *h, uint64_t best)
{
	const usmp_host *up = up_of(h);
	up->progress(up, best);
}

static void *defer_alloc(const usmp_host *h, size_t size)
{
	const usmp_host *up = up_of(h);
	return up->alloc(up, size);
}

static void *defer_realloc(const usmp_host *h, void *ptr, size_t size)
{
	const usmp_host *up = up_of(h);
	return up->realloc(up, ptr, size);
}

static void defer_free(const usmp_host *h, void *ptr)
{
	const usmp_host *up = up_of(h);
	up->free(up, ptr);
}

static int defer_neighbors(const usmp_host *h, uint32_t buffer,
                           usmp_neighbor_fn visit, void *arg)
{
	const usmp_host *up = up_of(h);
	return up->for_each_neighbor(up, buffer, visit, arg);
}

static void defer_report(const usmp_host *h, uint64_t bound, bool optimal)
{
	const usmp_host *up = up_of(h);
	up->report_bound(up, bound, optimal);
}

void xact_defer_init(xact_defer_host *d, const usmp_host *up)
{
	memset(d, 0, sizeof *d);
	size_t k = up->struct_size < sizeof d->h ? up->struct_size : sizeof d->h;
	memcpy(&d->h, up, k);
	d->h.struct_size = sizeof d->h;
	d->h.log = defer_log;
	/* A hook the caller lacks stays NULL, as the stages expect. */
	if (d->h.should_stop)
		d->h.should_stop = defer_stop;
	if (d->h.progress)
		d->h.progress = defer_progress;
	if (d->h.alloc)
		d->h.alloc = defer_alloc;
	if (d->h.realloc)
		d->h.realloc = defer_realloc;
	if (d->h.free)
		d->h.free = defer_free;
	if (d->h.for_each_neighbor)
		d->h.for_each_neighbor = defer_neighbors;
	if (d->h.report_bound)
		d->h.report_bound = defer_report;
	d->up = up;
}

int xact_defer_finish(xact_defer_host *d, int rc)
{
	if (d->held)
		d->up->log(d->up, rc == USMP_OK ? USMP_LOG_INFO : d->level,
		           d->msg);
	d->held = false;
	return rc;
}
