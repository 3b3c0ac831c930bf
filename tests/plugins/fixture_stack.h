/* fixture_stack.h — the plan most fixture plugins return: every buffer end
 * to end in its first candidate pool (one definition for the fixtures). */
#ifndef USMP_TEST_FIXTURE_STACK_H
#define USMP_TEST_FIXTURE_STACK_H
#include <usmp/plugin.h>

/* Buffers end to end in their first candidate pool, fixed ones placed like
 * the others: valid for problems without fixed buffers whose pools are
 * unbounded. Returns 0 (USMP_OK); *size gets the top (size may be NULL). */
static inline int fx_stack(const usmp_view *v, usmp_placement *out,
                           uint64_t *size)
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
	if (size)
		*size = top;
	return 0;
}
#endif
