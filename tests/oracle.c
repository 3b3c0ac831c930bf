/* oracle.c — the exhaustive oracle of exact_oracle, redteam2, 3 and 5: the rules
 * a placement is judged by (docs/design.md), groups, search, random problems. */
#include "oracle.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <string.h>

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

int oracle_pair_ok(const desc *d, uint32_t a, uint64_t oa, uint32_t b,
                   uint64_t ob)
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

/* The pools that join buffer i's group: its candidates (a fixed buffer's
 * too, not only its fixed pool), else its fixed pool, else every pool
 * (docs/design.md, "Groups and parts"). */
static int joins(const desc *d, uint32_t i, uint32_t q)
{
	if (!d->ncand[i])
		return oracle_may_use(d, i, q);
	for (uint32_t j = 0; j < d->ncand[i]; j++)
		if (d->cand[i][j] == q)
			return 1;
	return 0;
}

uint32_t oracle_group_of(const desc *d, uint32_t i)
{
	for (uint32_t q = 0; q < d->P; q++)
		if (joins(d, i, q))
			return d->group_of_pool[q];
	cr_assert_fail("buffer %u may use no pool", i);
	return 0;
}

/* The pool buffer i prefers: its first candidate; a fixed buffer without
 * candidates its fixed pool; else its part's first pool. */
uint32_t oracle_first_pool(const desc *d, uint32_t i)
{
	if (d->ncand[i])
		return d->cand[i][0];
	if (d->fixed[i])
		return d->fixed_pool[i];
	uint32_t g = oracle_group_of(d, i);
	for (uint32_t q = 0; q < d->P; q++)
		if (d->group_of_pool[q] == g)
			return q;
	return 0;
}

/* Groups: union of the pools each buffer may use, numbered by first pool. */
void oracle_derive(desc *d)
{
	uint32_t root[MAX_P];
	for (uint32_t q = 0; q < d->P; q++)
		root[q] = q;
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t first = UINT32_MAX;
		for (uint32_t q = 0; q < d->P; q++) {
			if (!joins(d, i, q))
				continue;
			if (first == UINT32_MAX) {
				first = q;
				continue;
			}
			uint32_t a = first, b = q;
			while (root[a] != a)
				a = root[a];
			while (root[b] != b)
				b = root[b];
			if (a != b)
				root[a > b ? a : b] = a < b ? a : b;
		}
	}
	uint32_t id[MAX_P];
	d->groups = 0;
	for (uint32_t q = 0; q < d->P; q++) {
		uint32_t a = q;
		while (root[a] != a)
			a = root[a];
		if (a == q)
			id[q] = d->groups++;
		d->group_of_pool[q] = id[a];
	}
	/* An unbounded pool is searched up to every buffer stacked above the
	 * highest fixed end: enough for any plan the search needs here. */
	uint64_t stack = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		stack += d->size[i] + d->align[i];
		if (d->fixed[i])
			stack += d->fixed_offset[i] + d->size[i];
	}
	for (uint32_t q = 0; q < d->P; q++)
		d->cap[q] = d->limit[q] == UINT64_MAX ? stack + 8 * d->palign[q]
		                                      : d->limit[q];
}

/* ---- the search: every pool, every aligned offset of the chosen buffers - */

static uint64_t total_of(const oracle *o, uint32_t k)
{
	uint64_t hw[MAX_P] = {0}, t = 0;
	for (uint32_t j = 0; j < k; j++) {
		uint64_t e = o->off[j] + o->d->size[o->ids[j]];
		if (e > hw[o->pool[j]])
			hw[o->pool[j]] = e;
	}
	for (uint32_t q = 0; q < o->d->P; q++)
		t += hw[q];
	return t;
}

static int hopeless(const oracle *o, uint64_t spill, uint64_t total)
{
	if (o->mode == M_CAPPED && spill > o->cap)
		return 1;
	if (!o->found)
		return 0;
	if (o->mode != M_LEX)
		return total >= o->best_total;
	return spill > o->best_spill ||
	       (spill == o->best_spill && total >= o->best_total);
}

static void search(oracle *o, uint32_t k, uint64_t spill)
{
	const desc *d = o->d;
	if (hopeless(o, spill, total_of(o, k)))
		return;
	if (k == o->n) {
		o->found = 1;
		o->best_spill = spill;
		o->best_total = total_of(o, k);
		memcpy(o->best_pool, o->pool, sizeof o->pool);
		memcpy(o->best_off, o->off, sizeof o->off);
		return;
	}
	uint32_t i = o->ids[k];
	for (uint32_t q = 0; q < d->P; q++) {
		if (!oracle_may_use(d, i, q))
			continue;
		uint64_t a = oracle_eff_align(d, i, q);
		for (uint64_t x = 0; x + d->size[i] <= d->cap[q]; x += a) {
			if (d->fixed[i] && x != d->fixed_offset[i])
				continue;
			int ok = 1;
			for (uint32_t j = 0; j < k && ok; j++) {
				uint32_t b = o->ids[j];
				if (o->pool[j] == q && oracle_conflict(d, b, i))
					ok = oracle_pair_ok(d, b, o->off[j], i, x);
			}
			if (!ok)
				continue;
			o->pool[k] = q;
			o->off[k] = x;
			uint64_t more = q != oracle_first_pool(d, i) ? d->size[i] : 0;
			search(o, k + 1, spill + more);
		}
	}
}

oracle oracle_run(const desc *d, uint32_t g, int mode, uint64_t cap)
{
	oracle o = {.d = d, .g = g, .mode = mode, .cap = cap};
	for (uint32_t i = 0; i < d->n; i++)
		if (oracle_group_of(d, i) == g)
			o.ids[o.n++] = i;
	search(&o, 0, 0);
	return o;
}

oracle oracle_run_all(const desc *d, int mode, uint64_t cap)
{
	oracle o = {.d = d, .mode = mode, .cap = cap};
	for (uint32_t i = 0; i < d->n; i++)
		o.ids[o.n++] = i;
	search(&o, 0, 0);
	return o;
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

void oracle_add_rules(usmp_problem *p, desc *d, uint64_t *s, uint64_t want,
                      int64_t lo, uint64_t width, int extreme,
                      int skip_fixed)
{
	for (uint64_t k = 0; k < want && d->rule_count < MAX_R; k++) {
		uint32_t a = (uint32_t)test_rand_range(s, 0, d->n - 1);
		uint32_t b = (uint32_t)test_rand_range(s, 0, d->n - 1);
		int64_t lead = (int64_t)test_rand_range(s, 0, width) + lo;
		if (extreme && test_chance(s, extreme))
			lead = test_chance(s, 50) ? INT64_MAX : INT64_MIN;
		if (a == b || (skip_fixed && (d->fixed[a] || d->fixed[b])))
			continue;
		int dup = 0;
		for (int r = 0; r < d->rule_count; r++)
			dup |= d->rules[r].src == a && d->rules[r].dst == b;
		if (dup || !add_fitting_rule(p, a, b, lead))
			continue;
		d->rules[d->rule_count++] = (orule){a, b, lead};
	}
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

void oracle_high_water(const desc *d, const uint32_t *pool,
                       const uint64_t *off, uint64_t *hw)
{
	for (uint32_t q = 0; q < d->P; q++)
		hw[q] = 0;
	for (uint32_t i = 0; i < d->n; i++)
		if (off[i] + d->size[i] > hw[pool[i]])
			hw[pool[i]] = off[i] + d->size[i];
}

void oracle_group_use(const desc *d, const uint32_t *pool, const uint64_t *hw,
                      uint32_t g, uint64_t *size, uint64_t *spill)
{
	*size = *spill = 0;
	for (uint32_t q = 0; q < d->P; q++)
		*size += d->group_of_pool[q] == g ? hw[q] : 0;
	for (uint32_t i = 0; i < d->n; i++)
		if (oracle_group_of(d, i) == g && pool[i] != oracle_first_pool(d, i))
			*spill += d->size[i];
}

/* One of table[0..count), drawn only when there is a choice. */
static uint64_t pick(uint64_t *s, const uint64_t *table, uint32_t count)
{
	return count > 1 ? table[test_rand_range(s, 0, count - 1)] : table[0];
}

usmp_problem *oracle_random(desc *d, uint64_t *s, const oracle_shape *g)
{
	memset(d, 0, sizeof *d);
	d->P = (uint32_t)test_rand_range(s, 1, 3);
	d->n = (uint32_t)test_rand_range(s, 1, g->max_n);
	for (uint32_t q = 0; q < d->P; q++) {
		d->limit[q] = test_chance(s, g->unbounded_pct)
		                      ? UINT64_MAX
		                      : test_rand_range(s, g->limit_lo, g->limit_hi);
		d->palign[q] = g->palign_one_pct && test_chance(s, g->palign_one_pct)
		                       ? 1
		                       : pick(s, g->palign, g->palign_count);
	}
	for (uint32_t i = 0; i < d->n; i++) {
		d->size[i] = test_rand_range(s, 1, g->max_size);
		d->align[i] = pick(s, g->align, 5);
		d->live[i] = test_chance(s, 90);
		d->begin[i] = (int64_t)test_rand_range(s, 0, g->max_begin);
		d->end[i] = d->begin[i] + (int64_t)test_rand_range(s, 1, 3);
		if (d->P > 1 && test_chance(s, g->cand_pct)) {
			uint32_t first = (uint32_t)test_rand_range(s, 0, d->P - 1);
			d->cand[i][d->ncand[i]++] = first;
			if (test_chance(s, g->second_cand_pct))
				d->cand[i][d->ncand[i]++] = (first + 1) % d->P;
		}
	}
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (test_chance(s, g->edge_pct))
				d->edge[a][b] = d->edge[b][a] = 1;
	for (uint32_t i = 0; i < d->n; i++) {
		if (!test_chance(s, g->fixed_pct))
			continue;
		uint32_t q = d->ncand[i] ? d->cand[i][0] : 0;
		uint64_t a = oracle_eff_align(d, i, q);
		uint64_t room = d->limit[q] == UINT64_MAX ? g->unbounded_room
		                                          : d->limit[q];
		if (d->size[i] > room)
			continue;
		d->fixed[i] = 1;
		d->fixed_pool[i] = q;
		d->fixed_offset[i] = test_rand_range(s, 0, (room - d->size[i]) / a) * a;
	}
	usmp_problem *p = oracle_problem(d);
	if (d->n > 1 && test_chance(s, g->rules_pct))
		oracle_add_rules(p, d, s, test_rand_range(s, 1, 3), g->lead_lo,
		                 g->lead_width, 0, 0);
	oracle_read_spans(p, d);
	oracle_derive(d);
	return p;
}

uint32_t oracle_check_claims(usmp_plan *plan, const desc *d, const char *what)
{
	uint32_t pool[MAX_N], optimal = 0;
	uint64_t off[MAX_N], hw[MAX_P];
	for (uint32_t i = 0; i < d->n; i++)
		cr_assert_eq(usmp_plan_placement(plan, i, &pool[i], &off[i]), USMP_OK);
	oracle_high_water(d, pool, off, hw);
	for (uint32_t k = 0; k < usmp_plan_part_count(plan); k++) {
		usmp_part_info pi = {.struct_size = sizeof pi};
		cr_assert_eq(usmp_plan_part(plan, k, &pi), USMP_OK);
		uint32_t g = pi.group;
		cr_assert_lt(g, d->groups, "%s", what);
		uint64_t size, spill;
		oracle_group_use(d, pool, hw, g, &size, &spill);
		cr_assert_eq(pi.size, size, "%s: part %u size", what, k);
		oracle least = oracle_run(d, g, M_ANY, 0);
		oracle best = oracle_run(d, g, M_CAPPED, spill);
		cr_assert(least.found && best.found && best.best_total <= size,
		          "%s: part %u: the oracle finds no plan as small", what, k);
		cr_assert_leq(pi.lower_bound, least.best_total, "%s: part %u: lower "
		              "bound above the least size of any plan", what, k);
		cr_assert_leq(pi.proven_bound, best.best_total, "%s: part %u: "
		              "proven bound above the least size %" PRIu64
		              " at spill %" PRIu64, what, k, best.best_total, spill);
		cr_assert(!pi.optimal || size == best.best_total, "%s: part %u "
		          "claimed optimal at %" PRIu64 " (spill %" PRIu64 "), a plan "
		          "spilling no more has %" PRIu64, what, k, size, spill,
		          best.best_total);
		optimal += pi.optimal != 0;
	}
	return optimal;
}
