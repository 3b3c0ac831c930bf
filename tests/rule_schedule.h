/* rule_schedule.h — test helpers that give random overlap rules a schedule
 * the problem model accepts (dst born at src's last read, decisions.md 6). */
#ifndef USMP_TEST_RULE_SCHEDULE_H
#define USMP_TEST_RULE_SCHEDULE_H
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* A live range and what earlier overlap rules pin of it: a rule src -> dst
 * pins src's end and dst's begin (dst is born at src's last read). */
typedef struct span {
	int64_t begin, end;
	bool live, src, dst;
} span;

/* Retime a or b so that a rule a -> b matches the schedule, b.begin ==
 * a.end - 1, moving only what no earlier rule pins; false when impossible.
 * Buffers without a live range take any rule. */
bool fit_rule(span *a, span *b);
/* The span of problem buffer b, with what its rules pin. */
span span_of(const usmp_problem *p, uint32_t b);
/* Whether the rules lead from b back to a: a rule a -> b would close a
 * cycle, which the problem refuses. */
bool rule_closes_cycle(const usmp_problem *p, uint32_t a, uint32_t b);
/* Add rule a -> b after retiming; false (no rule) when impossible (also
 * when it would close a cycle of rules). */
bool add_fitting_rule(usmp_problem *p, uint32_t a, uint32_t b, int64_t lead);
/* Whether rule a -> b joins two buffers alive at the same time. */
bool rule_pair_live_together(const usmp_problem *p, uint32_t a, uint32_t b);

#endif
