/* fit_fixed.c — the fixed buffers of the fit plugin: put at their imposed
 * offsets first, a clash between two of them named. */
#include "fit_ctx.h"
#include "../name_shown.h"

#include <stdio.h>

static bool fit_edge(const usmp_view *v, uint32_t a, uint32_t b)
{
	if (!v->conflict_start || !v->conflict_adj)
		return false;
	uint64_t l = v->conflict_start[a], r = v->conflict_start[a + 1];
	while (l < r) {
		uint64_t m = l + (r - l) / 2;
		if (v->conflict_adj[m] < b)
			l = m + 1;
		else
			r = m;
	}
	return l < v->conflict_start[a + 1] && v->conflict_adj[l] == b;
}

/* Fixed buffer c->seq[i] collides with an earlier fixed one: name both. */
static void fit_fixed_clash(fit_ctx *c, uint32_t i)
{
	const usmp_view *v = c->v;
	uint32_t b = c->seq[i];
	const usmp_buffer_rec *r = &v->buffers[b];
	const char *other = "?";
	for (uint32_t j = 0; j < i; j++) {
		uint32_t o = c->seq[j];
		uint64_t a, e;
		if (c->owner[o].pool != r->fixed_pool ||
		    !(usmp_live_overlap(v, b, o) || fit_edge(v, b, o)) ||
		    !usmp__fit_forbidden(c, r->size, &c->place[o], o, &a, &e) ||
		    r->fixed_offset < a || r->fixed_offset >= e)
			continue;
		other = v->buffers[o].name ? v->buffers[o].name : "?";
		break;
	}
	char n1[NAME_SHOWN_MAX], n2[NAME_SHOWN_MAX], n3[NAME_SHOWN_MAX];
	snprintf(c->msg, sizeof c->msg,
	         "%s: fixed buffers \"%s\" and \"%s\" overlap in pool \"%s\"",
	         c->algo, name_shown(other, n1), name_shown(r->name, n2),
	         name_shown(v->pools[r->fixed_pool].name, n3));
}

/* Put the fixed buffers (c->seq[0..count)) in place, checking they do not
 * collide with each other. */
int usmp__fit_place_fixed(fit_ctx *c, uint32_t count)
{
	const usmp_view *v = c->v;
	int rc;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t b = c->seq[i];
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->fixed_pool >= v->pool_count) {
			char nm[NAME_SHOWN_MAX];
			snprintf(c->msg, sizeof c->msg,
			         "%s: fixed buffer \"%s\" names pool %u of %u",
			         c->algo, name_shown(r->name, nm), r->fixed_pool,
			         v->pool_count);
			return USMP_ERR_INVALID;
		}
		usmp__fit_begin(c, b);
		if ((rc = usmp__fit_ranges(c, b, r->fixed_pool)))
			return rc;
		for (size_t j = 0; j < c->range_count; j++) {
			const fit_range *fr = &c->ranges[j];
			if (r->fixed_offset < fr->a || r->fixed_offset >= fr->b)
				continue;
			fit_fixed_clash(c, i);
			return USMP_ERR_INFEASIBLE;
		}
		if ((rc = usmp__fit_put(c, b, r->fixed_pool, r->fixed_offset)))
			return rc;
	}
	return USMP_OK;
}

