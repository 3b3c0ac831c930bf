/* liars.c — the red team 4 fixture plugin: algorithms that lie to the host
 * (return codes, claims of optimality, placements), one way each. */
#include <usmp/plugin.h>

#include <stdint.h>

/* Buffers end to end in their first candidate pool, fixed ones kept:
 * valid for problems without fixed buffers and with unbounded pools. */
static int stack(const usmp_view *v, usmp_placement *out, uint64_t *size)
{
	uint64_t top = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t p = v->candidates[r->candidate_start];
		bool ok = true;
		top = usmp_align_up(top, usmp_buffer_alignment(v, b, p), &ok);
		out[b] = (usmp_placement){p, 0, top};
		top += r->size;
	}
	*size = top;
	return 0;
}

/* Not exact, yet says its plan is optimal (the bound is the plan's size). */
static int rt_self_optimal(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out)
{
	uint64_t size;
	stack(v, out, &size);
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
	stack(v, out, &size);
	return 0;
}

/* A volunteer for auto whose plan is valid and which claims it optimal. */
static int rt_volunteer_optimal(const usmp_view *v, const usmp_host *h,
                                usmp_placement *out)
{
	uint64_t size;
	stack(v, out, &size);
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
static const usmp_algorithm *const algos[] = {
	&a_view_sizes, &a_view_count,
	&a_self_optimal, &a_status_99, &a_status_neg, &a_odd_levels,
	&a_volunteer_optimal};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("liars", "1.0", "MIT", algos);
