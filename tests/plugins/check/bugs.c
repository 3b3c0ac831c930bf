/* bugs.c — a fixture plugin for `usmp check-plugin`: each algorithm is valid
 * on most problems and wrong in one way that only running it shows. */
#define _POSIX_C_SOURCE 200809L /* open, unlink */
#include <usmp/plugin.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every buffer above the previous one in its first candidate pool, `gap`
 * bytes apart. The end of a buffer plus the gap is not checked for
 * overflow: with gap=UINT64_MAX the next buffer wraps onto the previous one. */
#define GAP_STACK_KNOBS(X) X(u64, gap, 0, "bytes kept free between buffers")
USMP_ALGORITHM_DECLARE(gap_stack, GAP_STACK_KNOBS);
USMP_ALGORITHM_DECLARE(no_fixed, USMP_NO_KNOBS);
USMP_ALGORITHM_DECLARE(no_spill, USMP_NO_KNOBS);
USMP_ALGORITHM_DECLARE(wobbly, USMP_NO_KNOBS);

/* Stack every buffer (fixed ones where they are) in its first candidate
 * pool from offset `base`, `gap` bytes apart; USMP_ERR_INFEASIBLE when a
 * pool's limit is passed. */
static int stack_from(const usmp_view *v, usmp_placement *out, uint64_t base,
                      uint64_t gap)
{
	uint64_t top = base;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if ((r->flags & USMP_BUFFER_FIXED) &&
		    r->fixed_offset + r->size > top)
			top = r->fixed_offset + r->size;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t p = v->candidates[r->candidate_start];
		bool ok = true;
		if (r->flags & USMP_BUFFER_FIXED)
			continue;
		uint64_t off = usmp_align_up(top, usmp_buffer_alignment(v, b, p), &ok);
		if (!ok || off + r->size > v->pools[p].size_limit)
			return USMP_ERR_INFEASIBLE;
		out[b].pool = p;
		out[b].offset = off;
		top = off + r->size + gap; /* the bug: may wrap */
	}
	return USMP_OK;
}

static int gap_stack(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, uint64_t gap)
{
	(void)h;
	return stack_from(v, out, 0, gap);
}

/* Claims USMP_CAP_FIXED_OFFSETS, but gives up when a buffer is fixed. */
static int no_fixed(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out)
{
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (v->buffers[b].flags & USMP_BUFFER_FIXED) {
			h->log(h, USMP_LOG_ERROR, "no_fixed: fixed buffers are not "
			       "supported yet");
			return USMP_ERR_UNSUPPORTED;
		}
	return stack_from(v, out, 0, 0);
}

/* Claims USMP_CAP_MULTI_POOL, but says infeasible whenever a buffer has a
 * second candidate pool instead of trying it. */
static int no_spill(const usmp_view *v, const usmp_host *h,
                    usmp_placement *out)
{
	for (uint32_t b = 0; b < v->buffer_count; b++)
		if (v->buffers[b].candidate_count > 1) {
			h->log(h, USMP_LOG_ERROR, "no_spill: gave up");
			return USMP_ERR_INFEASIBLE;
		}
	return stack_from(v, out, 0, 0);
}

/* Claims USMP_CAP_DETERMINISTIC, but every other call starts 64 bytes
 * higher: with USMP_TEST_WOBBLY_DIR set, a file "toggle" there flips at each
 * call (isolated calls are fresh processes, so the state lives on disk). */
static int wobbly(const usmp_view *v, const usmp_host *h,
                  usmp_placement *out)
{
	const char *dir = getenv("USMP_TEST_WOBBLY_DIR");
	uint64_t base = 0;
	(void)h;
	if (dir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/toggle", dir);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd >= 0)
			close(fd);
		else if (unlink(path) == 0)
			base = 64;
	}
	return stack_from(v, out, v->pool_count > 1 ? 0 : base, 0);
}

#define BUGS_CAPS (USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS | \
                   USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_DETERMINISTIC)
static const usmp_algorithm gap_stack_algo = USMP_ALGORITHM_INIT(
	gap_stack, "gap_stack", BUGS_CAPS,
	"stacks buffers gap bytes apart, wrapping on a huge gap");
static const usmp_algorithm no_fixed_algo = USMP_ALGORITHM_INIT(
	no_fixed, "no_fixed", BUGS_CAPS,
	"claims fixed offsets, refuses fixed buffers");
static const usmp_algorithm no_spill_algo = USMP_ALGORITHM_INIT(
	no_spill, "no_spill", BUGS_CAPS,
	"claims several pools, gives up on a second candidate");
static const usmp_algorithm wobbly_algo = USMP_ALGORITHM_INIT(
	wobbly, "wobbly", BUGS_CAPS,
	"claims to be deterministic, moves every other plan up");
static const usmp_algorithm *const algos[] = {&gap_stack_algo, &no_fixed_algo,
                                              &no_spill_algo, &wobbly_algo};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER, "bugs", "0.0.1-fixture", "Apache-2.0",
	sizeof algos / sizeof algos[0], 0, algos,
};
