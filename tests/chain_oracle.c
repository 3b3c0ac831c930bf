/* chain_oracle.c — the exhaustive oracle of the NPU-chain suites: every pool
 * and aligned offset tried, overlap rules as docs/design.md defines them. */
#include "chain_oracle.h"

#include <criterion/criterion.h>
#include <stdio.h>

#include <usmp/usmp.h>

typedef struct chain_oracle {
	const chain_desc *d;
	bool rules;
	uint32_t pool[CHAIN_N];
	uint64_t off[CHAIN_N];
	chain_best best;
} chain_oracle;

uint64_t chain_rnd(uint64_t *s, uint64_t lo, uint64_t hi)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (*s >> 33) % (hi - lo + 1);
}

static bool pair_ok(const chain_oracle *o, uint32_t a, uint32_t b)
{
	const chain_desc *d = o->d;
	if (o->pool[a] != o->pool[b] || d->begin[a] >= d->end[b] ||
	    d->begin[b] >= d->end[a])
		return true;
	uint64_t xa = o->off[a], xb = o->off[b];
	if (xa >= xb + d->size[b] || xb >= xa + d->size[a])
		return true;
	for (int r = 0; o->rules && r < d->rule_count; r++) {
		if (d->src[r] == a && d->dst[r] == b &&
		    (int64_t)xb <= (int64_t)xa + d->lead[r])
			return true;
		if (d->src[r] == b && d->dst[r] == a &&
		    (int64_t)xa <= (int64_t)xb + d->lead[r])
			return true;
	}
	return false;
}

/* Each buffer in turn; a partial assignment already no better than the
 * best is dropped. */
static void search(chain_oracle *o, uint32_t i, uint64_t spill, uint64_t *hw)
{
	const chain_desc *d = o->d;
	uint64_t total = 0;
	for (uint32_t q = 0; q < d->P; q++)
		total += hw[q];
	const chain_best *b = &o->best;
	if (b->found && (spill > b->spill ||
	                 (spill == b->spill && total >= b->total)))
		return;
	if (i == d->n) {
		o->best = (chain_best){true, spill, total};
		return;
	}
	bool fixed = i == 0 && d->fixed;
	for (uint32_t q = 0; q < d->P; q++) {
		if ((fixed && q != 1) || (d->sram_only[i] && q != 0))
			continue;
		for (uint64_t x = 0; x + d->size[i] <= d->limit[q];
		     x += d->align[q]) {
			if (fixed && x != d->fixed_off)
				continue;
			o->pool[i] = q;
			o->off[i] = x;
			bool ok = true;
			for (uint32_t c = 0; c < i && ok; c++)
				ok = pair_ok(o, c, i);
			if (!ok)
				continue;
			uint64_t save = hw[q];
			if (x + d->size[i] > hw[q])
				hw[q] = x + d->size[i];
			search(o, i + 1, spill + (q && !fixed ? d->size[i] : 0),
			       hw);
			hw[q] = save;
		}
	}
}

chain_best chain_search(const chain_desc *d, bool rules)
{
	chain_oracle o = {.d = d, .rules = rules};
	uint64_t hw[2] = {0, 0};
	search(&o, 0, 0, hw);
	return o.best;
}

usmp_problem *chain_build(const chain_desc *d)
{
	usmp_problem *p = usmp_problem_create();
	char name[16];
	for (uint32_t q = 0; q < d->P; q++) {
		snprintf(name, sizeof name, "p%u", q);
		cr_assert_eq(usmp_problem_add_pool(p, name, d->limit[q],
		                                   d->align[q], NULL), USMP_OK);
	}
	for (uint32_t i = 0; i < d->n; i++) {
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, d->size[i], 1, NULL),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, i, d->begin[i], d->end[i]),
		             USMP_OK);
		if (i == 0 && d->fixed) {
			cr_assert_eq(usmp_problem_add_candidate(p, i, 1), USMP_OK);
			cr_assert_eq(usmp_problem_set_fixed(p, i, 1, d->fixed_off),
			             USMP_OK, "%s", usmp_problem_error(p));
			continue;
		}
		for (uint32_t q = 0; q < d->P; q++)
			if (q == 0 || !d->sram_only[i])
				cr_assert_eq(usmp_problem_add_candidate(p, i, q),
				             USMP_OK);
	}
	for (int r = 0; r < d->rule_count; r++)
		cr_assert_eq(usmp_problem_add_overlap(p, d->src[r], d->dst[r],
		                                      d->lead[r]), USMP_OK,
		             "%s", usmp_problem_error(p));
	return p;
}
