/* fit_order.c — the buffer orders of the fit plugin (size, lifetime, area,
 * conflicts) and planning in one of them or in all, keeping the best. */
#include "fit_ctx.h"

/* Placements between two looks at the clock: with thousands of buffers
 * alive a placement costs ~10-50 us (XLA traces), so a stopped run ends
 * within a few ms of its deadline; a look costs ~20 ns. */
#define FIT_STOP_EVERY 256u

static const char *const fit_order_names[FIT_ORDER_COUNT] = {
	"size", "lifetime", "area", "conflicts"
};

/* c->seq = fixed buffers (index order), then the others in `order`;
 * *nfixed gets the number of fixed ones. */
static int fit_make_seq(fit_ctx *c, int order, uint32_t *nfixed)
{
	const usmp_view *v = c->v;
	uint32_t k = 0, f = 0;
	/* the keys live only here: the index needs the room while placing */
	c->keys = host_array(c->h, c->n, sizeof *c->keys);
	c->ktmp = host_array(c->h, c->n, sizeof *c->ktmp);
	if (!c->keys || !c->ktmp)
		return USMP_ERR_NOMEM;
	for (uint32_t b = 0; b < c->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (fit_fixed(v, b)) {
			c->seq[f++] = b;
			continue;
		}
		uint64_t life = fit_live(v, b) ? (uint64_t)r->end -
		                                     (uint64_t)r->begin
		                               : 0;
		uint64_t k1;
		switch (order) {
		case FIT_ORDER_LIFETIME: k1 = life; break;
		case FIT_ORDER_AREA: k1 = fit_sat_mul(r->size, life); break;
		case FIT_ORDER_CONFLICTS: k1 = v->degree ? v->degree[b] : 0; break;
		default: k1 = r->size; break;
		}
		c->keys[k].k1 = k1;
		c->keys[k].k2 = r->size;
		c->keys[k].idx = b;
		k++;
	}
	/* k1 desc, then size desc, then index (the keys are in index order,
	 * and each pass is stable) */
	if (k) {
		if (order != FIT_ORDER_SIZE)
			FIT_RADIX_SORT(fit_key, c->keys, c->ktmp, (size_t)k,
			               FIT_KEY_K2);
		FIT_RADIX_SORT(fit_key, c->keys, c->ktmp, (size_t)k, FIT_KEY_K1);
	}
	for (uint32_t i = 0; i < k; i++)
		c->seq[f + i] = c->keys[i].idx;
	*nfixed = f;
	host_release(c->h, c->keys);
	host_release(c->h, c->ktmp);
	c->keys = c->ktmp = NULL;
	return USMP_OK;
}

uint64_t usmp__fit_total(const fit_ctx *c, uint64_t *hw)
{
	const usmp_view *v = c->v;
	memset(hw, 0, (size_t)v->pool_count * sizeof *hw);
	for (uint32_t b = 0; b < c->n; b++) {
		uint32_t p = c->work[b].pool;
		if (p >= v->pool_count)
			continue;
		uint64_t e = fit_sat_add(c->work[b].offset, v->buffers[b].size);
		if (e > hw[p])
			hw[p] = e;
	}
	uint64_t t = 0;
	for (uint32_t p = 0; p < v->pool_count; p++)
		t = fit_sat_add(t, hw[p]);
	return t;
}

/* Plan the whole view in one order into c->work. */
int usmp__fit_run(fit_ctx *c, int order)
{
	int rc;
	for (uint32_t b = 0; b < c->n; b++) {
		c->work[b].pool = USMP_NO_POOL;
		c->work[b].reserved = 0;
		c->work[b].offset = 0;
		if (c->owner)
			c->owner[b].pool = USMP_NO_POOL;
	}
	uint32_t nfixed;
	if ((rc = fit_make_seq(c, order, &nfixed)))
		return rc;
	usmp__fit_index_reset(c);
	if (c->radj)
		memset(c->rule_stamp, 0, (size_t)c->n * sizeof *c->rule_stamp);
	c->qid = 0;
	if ((rc = usmp__fit_place_fixed(c, nfixed)))
		return rc;
	for (uint32_t i = nfixed; i < c->n; i++) {
		if ((i - nfixed) % FIT_STOP_EVERY == FIT_STOP_EVERY - 1 &&
		    c->h->should_stop(c->h))
			return USMP_ERR_STOPPED;
		if ((rc = usmp__fit_place(c, c->seq[i])))
			return rc;
	}
	return USMP_OK;
}

int usmp__fit_parse_order(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "all"))
		return FIT_ORDER_COUNT;
	for (int i = 0; i < FIT_ORDER_COUNT; i++)
		if (!strcmp(s, fit_order_names[i]))
			return i;
	return -1;
}

/* order=all: plan in every order, keep the smallest plan in c->out. */
int usmp__fit_run_all(fit_ctx *c)
{
	const usmp_view *v = c->v;
	const usmp_host *h = c->h;
	bool have = false;
	uint64_t best = UINT64_MAX;
	int last = USMP_ERR_INFEASIBLE;
	for (int o = 0; o < FIT_ORDER_COUNT; o++) {
		if (have && (best <= v->lower_bound || h->should_stop(h)))
			break;
		c->msg[0] = '\0';
		int rc = usmp__fit_run(c, o);
		if (rc == USMP_ERR_STOPPED && have)
			break;
		if (rc == USMP_ERR_INFEASIBLE) {
			last = rc;
			continue;
		}
		if (rc)
			return rc;
		uint64_t t = usmp__fit_total(c, c->hw);
		if (!have || t < best) {
			have = true;
			best = t;
			memcpy(c->out, c->work, (size_t)c->n * sizeof *c->out);
			if (h->progress)
				h->progress(h, best);
		}
	}
	return have ? USMP_OK : last;
}

