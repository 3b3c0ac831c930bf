/* liars.c — the red team 4 fixture plugin: algorithms that lie to the host
 * (return codes, claims of optimality, placements), one way each. */
#include <usmp/plugin.h>

#include "../fixture_stack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Not exact, yet says its plan is optimal (the bound is the plan's size). */
static int rt_self_optimal(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out)
{
	uint64_t size;
	fx_stack(v, out, &size);
	h->report_bound(h, size, true);
	return 0;
}

/* A status outside the documented enum. */
static int rt_status_99(const usmp_view *v, const usmp_host *h,
                        usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	return 99;
}

static int rt_status_neg(const usmp_view *v, const usmp_host *h,
                         usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	return -1;
}

/* Logs at levels outside the enum, then a valid plan. */
static int rt_odd_levels(const usmp_view *v, const usmp_host *h,
                         usmp_placement *out)
{
	uint64_t size;
	h->log(h, -7, "level minus seven");
	h->log(h, 1000, "level one thousand");
	fx_stack(v, out, &size);
	return 0;
}

/* A volunteer for auto whose plan is valid and which claims it optimal. */
static int rt_volunteer_optimal(const usmp_view *v, const usmp_host *h,
                                usmp_placement *out)
{
	uint64_t size;
	fx_stack(v, out, &size);
	h->report_bound(h, size, true);
	return 0;
}


/* Writes into the view it was given (read-only by contract): every
 * buffer shrinks to one byte, and the buffers are laid one byte apart, so
 * that against the changed view the plan looks valid. */
static int rt_view_sizes(const usmp_view *v, const usmp_host *h,
                         usmp_placement *out)
{
	(void)h;
	usmp_buffer_rec *b = (usmp_buffer_rec *)(uintptr_t)v->buffers;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		b[i].size = 1;
		b[i].alignment = 1;
		out[i] = (usmp_placement){v->candidates[b[i].candidate_start], 0, i};
	}
	return 0;
}

/* Sets the view's buffer count to 0 and places nothing. */
static int rt_view_count(const usmp_view *v, const usmp_host *h,
                         usmp_placement *out)
{
	(void)h, (void)out;
	((usmp_view *)(uintptr_t)v)->buffer_count = 0;
	return 0;
}


/* Placements the verifier must refuse, by the knob `how`:
 * 0 unset, 1 pool out of range, 2 offset + size past 2^64, 3 a pool not
 * among the candidates, 4 a fixed buffer moved, 5 a rule pair overlapping
 * one byte more than its max_lead allows. */
static int rt_bad_plan(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out, uint32_t how)
{
	uint64_t size;
	(void)h;
	fx_stack(v, out, &size);
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (v->buffers[b].flags & USMP_BUFFER_FIXED)
			out[b] = (usmp_placement){v->buffers[b].fixed_pool, 0,
			                          v->buffers[b].fixed_offset};
	if (!v->buffer_count)
		return 0;
	uint32_t last = v->buffer_count - 1;
	switch (how) {
	case 0:
		out[last] = (usmp_placement){USMP_NO_POOL, 0, 0};
		break;
	case 1:
		out[last].pool = v->pool_count;
		break;
	case 2:
		out[last].offset = UINT64_MAX - v->buffers[last].size + 2;
		break;
	case 3:
		for (uint32_t q = 0; q < v->pool_count; q++) {
			const usmp_buffer_rec *r = &v->buffers[last];
			bool cand = false;
			for (uint32_t k = 0; k < r->candidate_count; k++)
				cand |= v->candidates[r->candidate_start + k] == q;
			if (!cand)
				out[last].pool = q;
		}
		break;
	case 4:
		for (uint32_t b = 0; b < v->buffer_count; b++)
			if (v->buffers[b].flags & USMP_BUFFER_FIXED)
				out[b].offset += v->buffers[b].alignment;
		break;
	case 5:
		if (v->overlap_count) {
			const usmp_overlap_rec *o = &v->overlaps[0];
			out[o->dst].pool = out[o->src].pool;
			out[o->dst].offset = out[o->src].offset +
			                     (uint64_t)o->max_lead + 1;
		}
		break;
	}
	return 0;
}


/* A log line of 100,000 bytes, then a valid plan. */
static int rt_long_log(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out)
{
	static char line[100001];
	uint64_t size;
	memset(line, 'x', sizeof line - 1);
	h->log(h, USMP_LOG_ERROR, line);
	fx_stack(v, out, &size);
	return 0;
}

/* A volunteer for auto that writes into its view: every buffer shrinks
 * to one byte, and its plan lays them one byte apart. */
static int rt_volunteer_view(const usmp_view *v, const usmp_host *h,
                             usmp_placement *out)
{
	return rt_view_sizes(v, h, out);
}


/* Ends the process with exit(0) instead of returning. */
static int rt_exit(const usmp_view *v, const usmp_host *h,
                   usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	exit(0);
}

/* Frees and reallocates through the host pointers host->alloc() did not
 * return: one inside a block it did return, one into a static array (both
 * readable around them, so that sanitizers see no stray read), then
 * returns a valid plan. */
static int rt_foreign_free(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out)
{
	static unsigned char arr[128];
	uint64_t size;
	unsigned char *blk = h->alloc(h, 128);
	if (!blk)
		return 5;
	memset(blk, 0x5a, 128);
	h->free(h, blk + 64);
	h->free(h, arr + 64);
	if (h->realloc(h, blk + 64, 256))
		return 10;
	h->free(h, blk);
	fx_stack(v, out, &size);
	return 0;
}

#define FN(f) ((usmp_algorithm_fn)(f))
static const usmp_algorithm a_self_optimal = {
	sizeof(usmp_algorithm), USMP_CAP_DETERMINISTIC, "rt_self_optimal",
	"stacks buffers and reports its plan optimal without USMP_CAP_EXACT", "",
	FN(rt_self_optimal), NULL, 0};
static const usmp_algorithm a_status_99 = {
	sizeof(usmp_algorithm), 0, "rt_status_99", "returns 99", "",
	FN(rt_status_99), NULL, 0};
static const usmp_algorithm a_status_neg = {
	sizeof(usmp_algorithm), 0, "rt_status_neg", "returns -1", "",
	FN(rt_status_neg), NULL, 0};
static const usmp_algorithm a_odd_levels = {
	sizeof(usmp_algorithm), 0, "rt_odd_levels", "logs at odd levels", "",
	FN(rt_odd_levels), NULL, 0};
static const usmp_algorithm a_volunteer_optimal = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "rt_volunteer_optimal",
	"a volunteer that reports its plan optimal", "",
	FN(rt_volunteer_optimal), NULL, 0};
static const usmp_algorithm a_view_sizes = {
	sizeof(usmp_algorithm), 0, "rt_view_sizes",
	"writes one-byte sizes into the view", "", FN(rt_view_sizes), NULL, 0};
static const usmp_algorithm a_view_count = {
	sizeof(usmp_algorithm), 0, "rt_view_count",
	"sets the view's buffer count to 0", "", FN(rt_view_count), NULL, 0};
static const usmp_algorithm a_bad_plan = {
	sizeof(usmp_algorithm),
	USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS | USMP_CAP_OVERLAP_RULES |
		USMP_CAP_EXPLICIT_CONFLICTS,
	"rt_bad_plan", "an invalid plan of the kind the knob how names",
	"how:u32=0", FN(rt_bad_plan), NULL, 0};
static const usmp_algorithm a_long_log = {
	sizeof(usmp_algorithm), 0, "rt_long_log", "logs 100,000 bytes", "",
	FN(rt_long_log), NULL, 0};
static const usmp_algorithm a_volunteer_view = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "rt_volunteer_view",
	"a volunteer that writes into its view", "", FN(rt_volunteer_view),
	NULL, 0};
static const usmp_algorithm a_exit = {
	sizeof(usmp_algorithm), 0, "rt_exit", "calls exit(0)", "", FN(rt_exit),
	NULL, 0};
static const usmp_algorithm a_foreign_free = {
	sizeof(usmp_algorithm), 0, "rt_foreign_free",
	"frees pointers the host did not allocate", "", FN(rt_foreign_free),
	NULL, 0};
static const usmp_algorithm *const algos[] = {
	&a_exit, &a_foreign_free,
	&a_long_log, &a_volunteer_view,
	&a_bad_plan,
	&a_view_sizes, &a_view_count,
	&a_self_optimal, &a_status_99, &a_status_neg, &a_odd_levels,
	&a_volunteer_optimal};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("liars", "1.0", "MIT", algos);
