/* oracle.c — the placement rules the exhaustive oracles of exact_oracle and
 * redteam2 judge by (docs/design.md, "Plans"), and their problem builder. */
#include "oracle.h"

#include <criterion/criterion.h>

#include <usmp/usmp.h>

#include "rule_schedule.h"
#include "support.h"

uint64_t oracle_eff_align(const desc *d, uint32_t i, uint32_t q)
{
	return d->align[i] > d->palign[q] ? d->align[i] : d->palign[q];
}

int oracle_may_use(const desc *d, uint32_t i, uint32_t q)
{
	if (d->fixed[i] && q != d->fixed_pool[i])
		return 0;
	if (!d->ncand[i])
		return 1;
	for (uint32_t j = 0; j < d->ncand[i]; j++)
		if (d->cand[i][j] == q)
			return 1;
	return 0;
}

int oracle_conflict(const desc *d, uint32_t a, uint32_t b)
{
	if (d->edge[a][b])
		return 1;
	return d->live[a] && d->live[b] && d->begin[a] < d->end[b] &&
	       d->begin[b] < d->end[a];
}

int oracle_pair_ok(const desc *d, uint32_t a, uint64_t oa, uint32_t b, uint64_t ob)
{
	if (oa + d->size[a] <= ob || ob + d->size[b] <= oa)
		return 1;
	for (int r = 0; r < d->rule_count; r++) {
		const orule *ru = &d->rules[r];
		uint64_t os, od;
		if (ru->src == a && ru->dst == b) {
			os = oa;
			od = ob;
		} else if (ru->src == b && ru->dst == a) {
			os = ob;
			od = oa;
		} else {
			continue;
		}
		if ((__int128)od <= (__int128)os + ru->lead)
			return 1;
	}
	return 0;
}

usmp_problem *oracle_problem(const desc *d)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert(p);
	test_add_pools(p, "p", d->P, d->limit, d->palign);
	for (uint32_t i = 0; i < d->n; i++)
		test_add_buffer(p, i, &(test_buffer){
			.size = d->size[i], .align = d->align[i], .live = d->live[i],
			.begin = d->begin[i], .end = d->end[i], .ncand = d->ncand[i],
			.cand = d->cand[i], .fixed = d->fixed[i],
			.fixed_pool = d->fixed_pool[i],
			.fixed_offset = d->fixed_offset[i]});
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (d->edge[a][b])
				cr_assert_eq(usmp_problem_add_conflict(p, a, b), USMP_OK);
	return p;
}

void oracle_read_spans(const usmp_problem *p, desc *d)
{
	for (uint32_t i = 0; i < d->n; i++) {
		span sp = span_of(p, i);
		d->live[i] = sp.live;
		d->begin[i] = sp.begin;
		d->end[i] = sp.end;
	}
}
