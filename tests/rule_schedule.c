/* rule_schedule.c — test helpers that give random overlap rules a schedule
 * the problem model accepts (see rule_schedule.h). */
#include <criterion/criterion.h>

#include "rule_schedule.h"

#include <stdlib.h>

/* Retime a or b so that a rule a -> b matches the schedule, b.begin ==
 * a.end - 1, moving only what no earlier rule pins; false when that cannot
 * be done. Buffers without a live range take any rule. */
bool fit_rule(span *a, span *b)
{
	if (!a->live || !b->live || b->begin == a->end - 1)
		return true;
	if (!b->dst) {
		int64_t len = b->end - b->begin;
		if (!b->src) {
			b->begin = a->end - 1;
			b->end = b->begin + len;
			return true;
		}
		if (a->end - 1 < b->end) {
			b->begin = a->end - 1;
			return true;
		}
	}
	if (!a->src) {
		int64_t len = a->end - a->begin;
		if (!a->dst) {
			a->end = b->begin + 1;
			a->begin = a->end - len;
			return true;
		}
		if (b->begin + 1 > a->begin) {
			a->end = b->begin + 1;
			return true;
		}
	}
	return false;
}

span span_of(const usmp_problem *p, uint32_t b)
{
	const usmp__buffer *r = &p->buffers[b];
	span s = { r->begin, r->end, (r->flags & USMP_BUFFER_LIVE) != 0, false,
	           false };
	for (size_t i = 0; i < p->overlap_count; i++) {
		s.src |= p->overlaps[i].src == b;
		s.dst |= p->overlaps[i].dst == b;
	}
	return s;
}

/* Whether the problem's rules lead from b back to a, so that a rule a -> b
 * would close a cycle (refused: docs/formats.md). */
bool rule_closes_cycle(const usmp_problem *p, uint32_t a, uint32_t b)
{
	size_t n = p->buffer_count, top = 0;
	bool found = false;
	uint32_t *stack = malloc((n + 1) * sizeof *stack);
	bool *seen = calloc(n + 1, sizeof *seen);
	cr_assert(stack && seen);
	stack[top++] = b;
	seen[b] = true;
	while (top && !found) {
		uint32_t x = stack[--top];
		found = x == a;
		for (size_t i = 0; i < p->overlap_count && !found; i++) {
			uint32_t y = p->overlaps[i].dst;
			if (p->overlaps[i].src == x && !seen[y]) {
				seen[y] = true;
				stack[top++] = y;
			}
		}
	}
	free(stack);
	free(seen);
	return found;
}

/* Add the rule a -> b after retiming a or b to a schedule that allows it;
 * false (and no rule) when no retiming keeps the earlier rules valid. */
bool add_fitting_rule(usmp_problem *p, uint32_t a, uint32_t b,
                             int64_t lead)
{
	span sa = span_of(p, a), sb = span_of(p, b);
	if (rule_closes_cycle(p, a, b) || !fit_rule(&sa, &sb))
		return false;
	if (sa.live)
		cr_assert_eq(usmp_problem_set_live(p, a, sa.begin, sa.end), 0);
	if (sb.live)
		cr_assert_eq(usmp_problem_set_live(p, b, sb.begin, sb.end), 0);
	return usmp_problem_add_overlap(p, a, b, lead) == USMP_OK;
}

/* Whether rule a -> b joins two buffers alive at the same time. */
bool rule_pair_live_together(const usmp_problem *p, uint32_t a,
                                    uint32_t b)
{
	const usmp__buffer *x = &p->buffers[a], *y = &p->buffers[b];
	return (x->flags & y->flags & USMP_BUFFER_LIVE) && x->begin < y->end &&
	       y->begin < x->end;
}
