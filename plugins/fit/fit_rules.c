/* fit_rules.c — overlap rules in the fit plugin: the rules by endpoint, the
 * partners of the placed buffer, the start offsets a placed span forbids. */
#include "fit_ctx.h"

/* Rule flags per partner buffer during one placement. */
enum { FIT_RULE_FWD = 1, FIT_RULE_REV = 2 };

int usmp__fit_rules_build(fit_ctx *c)
{
	const usmp_view *v = c->v;
	uint64_t m = v->overlap_count;
	c->rstart = host_array(c->h, (size_t)c->n + 1, sizeof *c->rstart);
	if (!c->rstart)
		return USMP_ERR_NOMEM;
	memset(c->rstart, 0, ((size_t)c->n + 1) * sizeof *c->rstart);
	for (uint64_t i = 0; i < m; i++) {
		const usmp_overlap_rec *r = &v->overlaps[i];
		if (r->src >= c->n || r->dst >= c->n || r->src == r->dst)
			continue;
		c->rstart[r->src + 1]++;
		c->rstart[r->dst + 1]++;
	}
	for (uint32_t b = 0; b < c->n; b++)
		c->rstart[b + 1] += c->rstart[b];
	uint64_t total = c->rstart[c->n];
	if (total > UINT32_MAX || (total && m > UINT32_MAX))
		return USMP_ERR_NOMEM;
	c->radj = host_array(c->h, (size_t)total, sizeof *c->radj);
	uint64_t *fill = host_array(c->h, c->n, sizeof *fill);
	if (!c->radj || !fill) {
		host_release(c->h, fill);
		return USMP_ERR_NOMEM;
	}
	memcpy(fill, c->rstart, (size_t)c->n * sizeof *fill);
	for (uint64_t i = 0; i < m; i++) {
		const usmp_overlap_rec *r = &v->overlaps[i];
		if (r->src >= c->n || r->dst >= c->n || r->src == r->dst)
			continue;
		c->radj[fill[r->src]++] = (uint32_t)i;
		c->radj[fill[r->dst]++] = (uint32_t)i;
	}
	host_release(c->h, fill);
	return USMP_OK;
}

/* Note, for the buffer b about to be placed, which partners have rules. */
void usmp__fit_rules_mark(fit_ctx *c, uint32_t b)
{
	if (!c->radj)
		return;
	for (uint64_t k = c->rstart[b]; k < c->rstart[b + 1]; k++) {
		const usmp_overlap_rec *r = &c->v->overlaps[c->radj[k]];
		uint32_t o = r->src == b ? r->dst : r->src;
		if (c->rule_stamp[o] != c->qid) {
			c->rule_stamp[o] = c->qid;
			c->rule_flags[o] = 0;
		}
		if (r->src == o) { /* o is src, b is dst */
			c->rule_flags[o] |= FIT_RULE_FWD;
			c->fwd_lead[o] = r->max_lead;
		} else {
			c->rule_flags[o] |= FIT_RULE_REV;
			c->rev_lead[o] = r->max_lead;
		}
	}
}

/* The start offsets x at which a buffer of size s would collide with the
 * placed buffer sp: [*pa, *pb). Without rules that is (off - s, end). With
 * a rule (src sp, dst new, L): x <= off + L is allowed too; with a rule
 * (src new, dst sp, L): off <= x + L, i.e. x >= off - L, is allowed.
 * Returns false when nothing is forbidden. */
bool usmp__fit_forbidden(const fit_ctx *c, uint64_t s, const fit_span *sp,
                         uint32_t o, uint64_t *pa, uint64_t *pb)
{
	uint64_t oo = sp->off;
	uint64_t a = oo + 1 > s ? oo + 1 - s : 0;
	uint64_t e = sp->end;
	if (c->radj && c->rule_stamp[o] == c->qid) {
		uint8_t f = c->rule_flags[o];
		if (f & FIT_RULE_FWD) {
			int64_t lead = c->fwd_lead[o];
			if (lead >= 0) {
				uint64_t t = fit_sat_add(oo, (uint64_t)lead);
				if (t == UINT64_MAX)
					return false;
				if (t + 1 > a)
					a = t + 1;
			} else if (fit_mag(lead) <= oo) {
				uint64_t t = oo - fit_mag(lead);
				if (t + 1 > a)
					a = t + 1;
			}
		}
		if (f & FIT_RULE_REV) {
			int64_t lead = c->rev_lead[o];
			if (lead >= 0) {
				if ((uint64_t)lead >= oo)
					return false;
				if (oo - (uint64_t)lead < e)
					e = oo - (uint64_t)lead;
			} else {
				uint64_t t = fit_sat_add(oo, fit_mag(lead));
				if (t < e)
					e = t;
			}
		}
	}
	*pa = a;
	*pb = e;
	return a < e;
}

int usmp__fit_add_spans(fit_ctx *c, uint64_t size, uint32_t pool,
                        const fit_span *sp, const fit_who *who,
                        uint32_t count)
{
	if (!count) /* c->ranges may still be NULL: no arithmetic on it */
		return USMP_OK;
	if (c->range_count + count > c->range_cap) {
		int rc = fit_grow(c, (void **)&c->ranges, &c->range_cap,
		                  c->range_count + count, sizeof *c->ranges);
		if (rc)
			return rc;
	}
	if (c->gather && c->range_count + count > c->rpool_cap) {
		int rc = fit_grow(c, (void **)&c->rpool, &c->rpool_cap,
		                  c->range_count + count, sizeof *c->rpool);
		if (rc)
			return rc;
	}
	fit_range *r = c->ranges + c->range_count;
	uint64_t lo = c->amin, hi = c->amax;
	if (c->gather) {
		/* every pool's, each range tagged with its pool */
		for (uint32_t i = 0; i < count; i++) {
			if (who[i].pool == USMP_NO_POOL)
				continue; /* an empty slot */
			if (usmp__fit_forbidden(c, size, &sp[i], who[i].buf, &r->a,
			                        &r->b))
				c->rpool[r++ - c->ranges] = who[i].pool;
		}
		c->range_count = (size_t)(r - c->ranges);
		return USMP_OK;
	}
	if (!c->radj && c->v->pool_count == 1) {
		/* the common case, kept tight: one pool, no rules */
		for (uint32_t i = 0; i < count; i++) {
			uint64_t a = sp[i].off + 1 > size ? sp[i].off + 1 - size
			                                  : 0;
			r->a = a;
			r->b = sp[i].end;
			if (a < sp[i].end) {
				lo = a < lo ? a : lo;
				hi = a > hi ? a : hi;
				r++;
			}
		}
	} else {
		for (uint32_t i = 0; i < count; i++) {
			if (who[i].pool != pool)
				continue;
			if (usmp__fit_forbidden(c, size, &sp[i], who[i].buf, &r->a,
			                        &r->b)) {
				lo = r->a < lo ? r->a : lo;
				hi = r->a > hi ? r->a : hi;
				r++;
			}
		}
	}
	c->amin = lo;
	c->amax = hi;
	c->range_count = (size_t)(r - c->ranges);
	return USMP_OK;
}

