/* tvm_hill.c — the tvm plugin's hill_climb: swaps in the greedy_by_size order,
 * re-placed greedily from the first buffer that moved, best plan kept. */
#include "tvm_ctx.h"

#include "../host_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tvm_visit_list(void *arg, uint32_t other)
{
	tvm_ctx *c = arg;
	if (other >= c->n || c->pos[other] == TVM_NONE ||
	    c->pos[other] >= c->list_before)
		return 0;
	if (c->list_count == c->list_cap) {
		size_t cap = c->list_cap ? c->list_cap * 2 : 64;
		void *p = cap < SIZE_MAX / sizeof *c->list
		                  ? c->h->realloc(c->h, c->list,
		                                  cap * sizeof *c->list)
		                  : NULL;
		if (!p) {
			c->list_rc = USMP_ERR_NOMEM;
			return 1;
		}
		c->list = p;
		c->list_cap = cap;
	}
	c->list[c->list_count++] = other;
	return 0;
}

/* Neighbours of b placed before b in the order (non-fixed), into c->list. */
static int tvm_earlier_neighbors(tvm_ctx *c, uint32_t b)
{
	c->list_count = 0;
	c->list_rc = USMP_OK;
	c->list_before = c->pos[b];
	if (c->adj) {
		for (uint64_t k = c->adj_start[b]; k < c->adj_start[b + 1] &&
		                                   c->list_rc == USMP_OK;
		     k++)
			tvm_visit_list(c, c->adj[k]);
	} else {
		c->h->for_each_neighbor(c->h, b, tvm_visit_list, c);
	}
	return c->list_rc;
}

static void tvm_swap(tvm_ctx *c, uint32_t i, uint32_t j)
{
	uint32_t a = c->order[i], b = c->order[j];
	c->order[i] = b;
	c->order[j] = a;
	c->pos[a] = j;
	c->pos[b] = i;
}

/* Choose two order positions to swap, given the current plan `cur` with
 * pool high-water marks hw. Returns false when no useful swap was found. */
static int tvm_perturb(tvm_ctx *c, const usmp_placement *cur,
                       const uint64_t *hw, bool feasible, uint64_t *rng,
                       uint32_t *si, uint32_t *sj, bool *found)
{
	const usmp_view *v = c->v;
	*found = false;
	if (!feasible) {
		/* Move the buffer that did not fit earlier. */
		uint32_t i = c->pos[c->fail];
		if (i == 0 || i == TVM_NONE)
			return USMP_OK;
		*si = i;
		*sj = (uint32_t)tvm_rand_below(rng, i);
		*found = true;
		return USMP_OK;
	}
	/* A buffer that sets its pool's high-water mark, chosen at random
	 * among them (reservoir sampling over the order). */
	uint32_t node = TVM_NONE, seen = 0;
	for (uint32_t i = 0; i < c->count; i++) {
		uint32_t b = c->order[i];
		uint32_t p = cur[b].pool;
		if (p < v->pool_count &&
		    tvm_sat_add(cur[b].offset, v->buffers[b].size) == hw[p] &&
		    tvm_rand_below(rng, ++seen) == 0)
			node = b;
	}
	if (node == TVM_NONE)
		return USMP_OK;
	int rc = tvm_earlier_neighbors(c, node);
	if (rc || c->list_count == 0)
		return rc;
	size_t first_count = c->list_count;
	uint32_t b1 = c->list[tvm_rand_below(rng, first_count)];
	uint32_t b2 = TVM_NONE;
	if (tvm_rand_below(rng, 100) >= 25) {
		/* Second level: a neighbour of b1 placed before b1. */
		if ((rc = tvm_earlier_neighbors(c, b1)))
			return rc;
		if (c->list_count)
			b2 = c->list[tvm_rand_below(rng, c->list_count)];
		else
			b2 = node;
	} else if (first_count > 1) {
		uint32_t k = (uint32_t)tvm_rand_below(rng, first_count);
		b2 = c->list[k];
		if (b2 == b1)
			b2 = c->list[(k + 1) % first_count];
	} else {
		b2 = node;
	}
	if (b2 == b1 || b2 == TVM_NONE)
		return USMP_OK;
	*si = c->pos[b1];
	*sj = c->pos[b2];
	*found = true;
	return USMP_OK;
}

static int tvm_visit_adj(void *arg, uint32_t other)
{
	tvm_ctx *c = arg;
	if (c->adj_fill >= c->adj_cap)
		return 1; /* more neighbours than degrees said: give up */
	c->adj[c->adj_fill++] = other;
	return 0;
}

/* Cache every buffer's neighbours when the view's degrees say they fit;
 * otherwise leave c->adj NULL (placements then ask the host). */
static void tvm_adj_build(tvm_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t total = 0;
	if (!v->degree)
		return;
	for (uint32_t b = 0; b < c->n; b++) {
		total += v->degree[b];
		if (total > TVM_ADJ_MAX)
			return;
	}
	c->adj_start = host_array(c->h, (size_t)c->n + 1, sizeof *c->adj_start);
	c->adj = host_array(c->h, (size_t)total, sizeof *c->adj);
	if (!c->adj_start || !c->adj)
		goto drop;
	c->adj_cap = total;
	c->adj_fill = 0;
	for (uint32_t b = 0; b < c->n; b++) {
		c->adj_start[b] = c->adj_fill;
		if (c->h->for_each_neighbor(c->h, b, tvm_visit_adj, c))
			goto drop;
	}
	c->adj_start[c->n] = c->adj_fill;
	return;
drop:
	host_release(c->h, c->adj_start);
	host_release(c->h, c->adj);
	c->adj_start = NULL;
	c->adj = NULL;
}

int hill_climb(const usmp_view *v, const usmp_host *h,
               usmp_placement *out, uint64_t seed, uint32_t attempts)
{
	tvm_ctx c;
	usmp_placement *cur = NULL;
	uint64_t *hw = NULL;
	uint64_t rng = seed;
	int rc = tvm_init(&c, v, h, "hill_climb");
	if (rc)
		goto fail;
	if (!out) {
		rc = USMP_ERR_INVALID;
		goto fail;
	}
	cur = host_array(c.h, c.n, sizeof *cur);
	hw = host_array(c.h, v->pool_count, sizeof *hw);
	if (!cur || !hw) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	if ((rc = tvm_sort(&c, 0)))
		goto fail;
	tvm_adj_build(&c);

	/* Start: greedy_by_size. */
	rc = tvm_greedy(&c);
	if (rc != USMP_OK && rc != USMP_ERR_INFEASIBLE)
		goto fail;
	uint32_t first_fail = c.fail;
	bool cur_ok = rc == USMP_OK, have = cur_ok;
	uint64_t cur_total = cur_ok ? tvm_total(&c, c.work, hw) : UINT64_MAX;
	uint64_t best = cur_total;
	memcpy(cur, c.work, (size_t)c.n * sizeof *cur);
	if (have) {
		memcpy(out, cur, (size_t)c.n * sizeof *out);
		if (h->progress)
			h->progress(h, best);
	}

	for (uint32_t a = 1; a <= attempts; a++) {
		if ((have && best <= v->lower_bound) || h->should_stop(h))
			break;
		if (cur_ok)
			tvm_total(&c, cur, hw);
		uint32_t si = 0, sj = 0;
		bool found;
		rc = tvm_perturb(&c, cur, hw, cur_ok, &rng, &si, &sj, &found);
		if (rc)
			goto fail;
		if (!found)
			continue;
		tvm_swap(&c, si, sj);
		/* positions before min(si, sj) are placed in cur: it is
		 * complete, or (infeasible) the swap moves the failing buffer
		 * earlier and everything before it was placed */
		rc = tvm_greedy_resume(&c, cur, si < sj ? si : sj);
		if (rc == USMP_ERR_STOPPED)
			break;
		if (rc != USMP_OK && rc != USMP_ERR_INFEASIBLE)
			goto fail;
		bool ok = rc == USMP_OK;
		uint64_t t = ok ? tvm_total(&c, c.work, hw) : UINT64_MAX;
		/* Accept better or equal plans; a worse one with a probability
		 * that falls with how much worse it is and as attempts pass. */
		bool accept = t <= cur_total;
		if (!accept && ok) {
			double ratio = (double)cur_total / (double)t;
			uint64_t permille = (uint64_t)(100.0 * ratio *
			                               (double)(attempts - a) /
			                               (double)attempts);
			accept = tvm_rand_below(&rng, 1000) < permille;
		}
		if (!cur_ok && !ok)
			accept = true; /* keep moving the failing buffer up */
		if (!accept) {
			tvm_swap(&c, si, sj);
			continue;
		}
		cur_ok = ok;
		cur_total = t;
		memcpy(cur, c.work, (size_t)c.n * sizeof *cur);
		if (ok && (!have || t < best)) {
			have = true;
			best = t;
			memcpy(out, cur, (size_t)c.n * sizeof *out);
			if (h->progress)
				h->progress(h, best);
		}
	}
	if (!have) {
		c.fail = first_fail;
		tvm_fail_msg(&c);
		rc = USMP_ERR_INFEASIBLE;
		goto fail;
	}
	host_release(c.h, cur);
	host_release(c.h, hw);
	tvm_finish(&c);
	return USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		snprintf(c.msg, sizeof c.msg, "hill_climb: out of memory");
	if (c.msg[0] && h && h->log)
		tvm_log(&c, rc == USMP_ERR_INFEASIBLE ? USMP_LOG_ERROR
		                                      : USMP_LOG_WARN,
		        c.msg);
	if (c.h) {
		host_release(c.h, cur);
		host_release(c.h, hw);
	}
	tvm_finish(&c);
	return rc;
}
