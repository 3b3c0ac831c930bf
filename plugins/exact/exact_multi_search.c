/* exact_multi_search.c — one search of several pools in a mode: the state
 * reset, first plans, section charges, then branch and bound over moves. */
#include "exact_multi.h"

#include <stdio.h>
#include <string.h>

static int cmp_move(const xact_move *a, const xact_move *b)
{
	if (a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void sort_moves(xact_move *m, uint32_t k)
{
	for (uint32_t i = 1; i < k; i++) {
		xact_move t = m[i];
		uint32_t j = i;
		while (j > 0 && cmp_move(&t, &m[j - 1]) < 0) {
			m[j] = m[j - 1];
			j--;
		}
		m[j] = t;
	}
}

/* A node costs O(buffers x pools) here (a fraction of a millisecond at
 * a few hundred buffers), so the clock is read every 16 nodes: a deadline
 * or a cancel is seen within milliseconds. A window's node limit (a
 * multiple of 16, exact_split.c) stops it at the same node as before. */
static int dfs(xact_mp *s, uint32_t depth)
{
	if ((++s->clk->nodes & 15) == 0 && xact_should_stop(s->clk))
		return XACT_STOPPED;
	if (s->nplaced == s->nfree) {
		xact_mp_record(s);
		s->found = true;
		/* No spill and the lower bound: nothing beats it. */
		if (s->stop_at_lb && s->best_spill == 0 &&
		    s->best_total <= s->lb0)
			s->done = true;
		if (s->has_target && s->best_spill <= s->tspill &&
		    s->best_total <= s->ttotal)
			s->done = true;
		return XACT_FOUND;
	}
	xact_move *mv = s->moves + (size_t)depth * ((size_t)s->n * s->P + 1);
	uint32_t k;
	uint64_t sl, tl;
	if (!xact_mp_bound(s, &sl, &tl, mv, &k))
		return XACT_INFEASIBLE;
	/* The best plan so far (a valid one) meets the root's spill bound and
	 * a size bound of every plan: it is optimal (spill first, then size). */
	if (depth == 0 && s->root_check && s->have && !s->found &&
	    s->best_spill <= sl &&
	    (s->best_total <= (s->best_spill ? s->lb : s->lb0) ||
	     s->best_total <= tl)) {
		s->done = true;
		return XACT_FOUND;
	}
	if (depth == 0) {
		char msg[160];
		static const char *const names[] = {"rules as conflicts",
		                                    "relaxed", "rules shared"};
		snprintf(msg, sizeof msg, "exact: search (%s), root bound: spill "
		         ">= %llu, size >= %llu", names[s->mode],
		         (unsigned long long)sl, (unsigned long long)tl);
		s->h->log(s->h, USMP_LOG_DEBUG, msg);
	}
	if (s->have && (sl > s->best_spill ||
	                (sl == s->best_spill && tl >= s->best_total)))
		return XACT_INFEASIBLE;
	sort_moves(mv, k);
	uint64_t save_o = s->last_o, save_hw[64];
	uint32_t save_r = s->last_rank;
	bool save_started = s->started;
	memcpy(save_hw, s->hw, (size_t)s->P * sizeof *s->hw);
	for (uint32_t i = 0; i < k; i++) {
		xact_move m = mv[i];
		uint64_t top = m.x + s->v->buffers[m.b].size;
		xact_mp_place(s, m.b, m.p, m.x);
		if (top > s->hw[m.p])
			s->hw[m.p] = top;
		s->last_o = m.x;
		s->last_rank = s->rank[m.b];
		s->started = true;
		s->nplaced++;
		int r = dfs(s, depth + 1);
		s->nplaced--;
		xact_mp_unplace(s, m.b);
		memcpy(s->hw, save_hw, (size_t)s->P * sizeof *s->hw);
		s->last_o = save_o;
		s->last_rank = save_r;
		s->started = save_started;
		if (r == XACT_STOPPED)
			return r;
		if ((s->first_only && s->found) || s->done)
			return XACT_FOUND;
	}
	return XACT_INFEASIBLE;
}

/* One complete search in a mode; the state is reset first, the best plan
 * so far (s->have...) is kept. Returns a xact_result. */
int xact_mp_run(xact_mp *s, int mode)
{
	bool relaxed = mode == XACT_MODE_RELAXED;
	s->mode = mode;
	s->native = mode == XACT_MODE_NATIVE;
	/* With the native order the search where pairs share is complete
	 * (native_order), so it starts from the greedy plans too. */
	bool complete_native = s->native && s->nrank;
	s->rank = complete_native ? s->nrank : s->prank;
	xact_mp_build_conflicts(s, relaxed);
	xact_mp_find_twins(s);
	for (uint32_t b = 0; b < s->n; b++)
		s->pool[b] = USMP_NO_POOL;
	memset(s->pcount, 0, (size_t)s->P * sizeof *s->pcount);
	memset(s->hw, 0, (size_t)s->P * sizeof *s->hw);
	s->spill = 0;
	s->nplaced = 0;
	s->last_o = 0;
	s->last_rank = 0;
	s->started = false;
	s->found = false;
	s->done = false;
	/* The host's bound knows rules; a relaxed plan may go below it (exact's
	 * own leaves rule partners out, but lb may be the host's). */
	s->stop_at_lb = !relaxed;
	if (!xact_mp_place_fixed(s))
		return XACT_INFEASIBLE;
	/* A buffer that conflicts with nothing goes to offset 0 of its first
	 * pool when it fits: that never spills more nor adds more size than
	 * any other place would (it counts only where it is). */
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t p = first_cand(s, b);
		uint64_t sz = s->v->buffers[b].size;
		bool alone = true;
		for (uint32_t w = 0; w < s->W && alone; w++)
			alone = s->conf[(size_t)b * s->W + w] == 0;
		if (s->pool[b] != USMP_NO_POOL || !alone || sz > s->limit[p])
			continue;
		xact_mp_place(s, b, p, 0);
		if (sz > s->hw[p])
			s->hw[p] = sz;
	}
	for (uint32_t b = 0; b < s->n; b++)
		s->nplaced += s->pool[b] != USMP_NO_POOL;
	for (uint32_t p = 0; p < s->P; p++)
		if (s->hw[p] > s->limit[p])
			return XACT_INFEASIBLE;
	if (mode == XACT_MODE_CONFLICTS || complete_native) {
		for (int kind = 0; kind < 4; kind++)
			xact_mp_greedy(s, kind, false);
		for (int kind = 0; kind < 4 && complete_native; kind++)
			xact_mp_greedy(s, kind, true);
		if (s->have && s->first_only)
			return XACT_FOUND;
		if (s->have && s->best_spill == 0 &&
		    s->best_total <= s->lb0) {
			s->done = true;
			return XACT_FOUND;
		}
	}
	/* Section bounds: pairs alive together are apart, but for what a
	 * rule lets them share when this search allows it. */
	s->shared = mode != XACT_MODE_CONFLICTS;
	for (uint32_t t = 0; t < s->nsect; t++)
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
			uint32_t b = s->sect_mem[i];
			uint64_t sz = s->v->buffers[b].size, sh = 0;
			for (uint32_t j = s->sect_start[t]; j < i && s->shared; j++) {
				uint32_t c = s->sect_mem[j];
				uint64_t sc = s->v->buffers[c].size;
				if (s->native)
					sh += xact_mp_rule_share(s, b, c) + xact_mp_rule_share(s, c, b);
				else if (xact_mp_share_rule(s, b, c) || xact_mp_share_rule(s, c, b))
					sh += sc < sz ? sc : sz;
			}
			s->charge[i] = sz - (sh < sz ? sh : sz);
		}
	if (mode != XACT_MODE_RELAXED && !(s->have && s->first_only))
		xact_mp_sweep_incumbent(s);
	if (s->have && s->first_only)
		return XACT_FOUND;
	return dfs(s, 0);
}
