/* fit_gap_choice.c — which placements the fit plugin's gap index answers:
 * the buffers it serves, the pools it keeps an index for, whether the lists
 * are kept too.
 *
 * A buffer's placement may ask the gap index when its conflicts in a pool
 * are exactly the placed buffers alive with it there and each forbids the
 * plain (off - size, end) of start offsets: not fixed (placed first, its
 * clashes named from the lists), not empty (the index needs size > 0), no
 * overlap rule of its own (a partner may share bytes), no conflict edge to
 * a buffer it is not alive with, and no empty buffer alive with it (the
 * index does not hold empty buffers: one forbids only the starts strictly
 * around it, which merged intervals do not keep). Every placed buffer of
 * positive size with a live range goes into its pool's index; the lists
 * hold every placed buffer when some buffer is not served. */
#include "fit_ctx.h"

/* Whether b has a conflict edge to a buffer it is not alive with (edges
 * between buffers alive together change nothing). */
static bool fit_has_edge(const usmp_view *v, uint32_t b)
{
	if (!v->conflict_start || !v->conflict_adj)
		return false;
	for (uint64_t k = v->conflict_start[b]; k < v->conflict_start[b + 1];
	     k++) {
		uint32_t o = v->conflict_adj[k];
		if (o != b && o < v->buffer_count && !usmp_live_overlap(v, b, o))
			return true;
	}
	return false;
}

/* empty[0..tcount]: the number of leaves before each with an empty live
 * buffer alive there (NULL when there is none). */
static int fit_empty_leaves(fit_ctx *c, uint32_t **out)
{
	const usmp_view *v = c->v;
	uint32_t u = c->tcount;
	*out = NULL;
	bool any = false;
	for (uint32_t b = 0; b < c->n && !any; b++)
		any = fit_live(v, b) && v->buffers[b].size == 0;
	if (!any)
		return USMP_OK;
	uint32_t *d = host_array(c->h, (size_t)u + 1, sizeof *d);
	if (!d)
		return USMP_ERR_NOMEM;
	memset(d, 0, ((size_t)u + 1) * sizeof *d);
	for (uint32_t b = 0; b < c->n; b++) {
		if (!fit_live(v, b) || v->buffers[b].size)
			continue;
		d[c->lo[b]]++;
		d[c->hi[b] + 1]--; /* unsigned: wraps, sums back right */
	}
	/* d[i] becomes the running count alive at leaf i, then the prefix */
	uint32_t alive = 0, marked = 0;
	for (uint32_t i = 0; i < u; i++) {
		alive += d[i];
		d[i] = marked;
		marked += alive != 0;
	}
	d[u] = marked;
	*out = d;
	return USMP_OK;
}

int usmp__fit_gap_setup(fit_ctx *c, uint64_t cover, uint32_t live)
{
	const usmp_view *v = c->v;
	uint32_t *empty = NULL;
	int rc;
	c->serve = host_array(c->h, c->n, sizeof *c->serve);
	c->gidx = host_array(c->h, v->pool_count, sizeof *c->gidx);
	if (!c->serve || !c->gidx)
		return USMP_ERR_NOMEM;
	memset(c->gidx, 0, (size_t)v->pool_count * sizeof *c->gidx);
	memset(c->gpool, 0, sizeof c->gpool);
	if ((rc = fit_empty_leaves(c, &empty)))
		return rc;
	c->lists = false;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		bool ok = !fit_fixed(v, b) && r->size > 0 &&
		          !(c->radj && c->rstart[b + 1] > c->rstart[b]) &&
		          !fit_has_edge(v, b);
		if (ok && empty && fit_live(v, b))
			ok = empty[c->hi[b] + 1] == empty[c->lo[b]];
		c->serve[b] = ok;
		if (!ok) {
			c->lists = true;
			continue;
		}
		for (uint32_t i = 0; i < r->candidate_count; i++) {
			uint32_t p = v->candidates[r->candidate_start + i];
			if (p < v->pool_count)
				c->gpool[p] = true;
		}
	}
	host_release(c->h, empty);
	for (uint32_t p = 0; p < v->pool_count; p++)
		if (c->gpool[p] &&
		    (rc = usmp__fit_gidx_init(&c->gidx[p], c->h, c->tsize, cover,
		                              live)))
			return rc;
	return USMP_OK;
}

void usmp__fit_gap_release(fit_ctx *c)
{
	for (uint32_t p = 0; c->gidx && p < c->v->pool_count; p++)
		if (c->gpool[p])
			usmp__fit_gidx_free(&c->gidx[p]);
	host_release(c->h, c->gidx);
	host_release(c->h, c->serve);
	c->gidx = NULL;
	c->serve = NULL;
}
