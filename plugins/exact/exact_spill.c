/* exact_spill.c — the least spill the pools' limits force by load alone (a
 * lower bound of every plan's), and the choices reaching it, by a DP. */
#include "exact_internal.h"

#include <stdlib.h>
#include <string.h>

/* Most live buffers in a section, and most states over all sections. */
#define DP_LIVE 20
#define DP_STATES (UINT64_C(1) << 21)
/* Counts of choices saturate here. */
#define CNT_CAP 255u

typedef struct dp {
	const usmp_view *v;
	const usmp_host *h;
	uint64_t *limit;     /* [P] */
	int64_t *times;      /* [2n] distinct times */
	uint32_t nt;
	uint64_t *val;       /* all sections' state values, concatenated */
	uint32_t *pred;      /* the previous section's state of each */
	uint8_t *cnt;        /* how many choices reach it (at most CNT_CAP) */
	uint64_t *sect_at;   /* [nsect + 1] first state of each section */
	uint32_t *live;      /* [nsect * DP_LIVE] live decided buffers */
	uint32_t *nlive;     /* [nsect] */
	uint64_t *fixload;   /* [nsect * P] fixed buffers' bytes per pool */
	uint64_t *best;      /* [2^DP_LIVE] scratch */
	uint32_t *bestu;
	uint8_t *bestc;
	uint64_t *load;      /* [P] scratch */
	bool share;          /* count what rule partners could share */
} dp;

int64_t xact_rule_lead(const usmp_view *v, uint32_t src, uint32_t dst)
{
	uint64_t lo = 0, hi = v->overlap_count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const usmp_overlap_rec *o = &v->overlaps[mid];
		if (o->src < src || (o->src == src && o->dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->overlap_count && v->overlaps[lo].src == src &&
	    v->overlaps[lo].dst == dst)
		return v->overlaps[lo].max_lead;
	return INT64_MIN;
}

static uint32_t first_pool(const usmp_view *v, uint32_t b)
{
	return v->candidates[v->buffers[b].candidate_start];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void dp_free(dp *d)
{
	const usmp_host *h = d->h;
	void *ptrs[] = {d->limit, d->times, d->val, d->pred, d->sect_at,
	                d->live, d->nlive, d->fixload, d->best, d->bestu,
	                d->load, d->cnt, d->bestc};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* With d->share: a fixed buffer and a rule partner alive with it may
 * share their smaller size, as the pairs of section_pairs do (the union is
 * at least the sum less every pair's overlap); taken off the fixed
 * buffer's pool in the sections both live in, never below 0, so the load
 * stays a lower bound. Pairs of two movable buffers are section_pairs'. */
static void fixed_shares(dp *d, uint32_t ns)
{
	const usmp_view *v = d->v;
	uint32_t P = v->pool_count;
	for (uint64_t r = 0; r < v->overlap_count && d->share; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		const usmp_buffer_rec *x = &v->buffers[o->src];
		const usmp_buffer_rec *y = &v->buffers[o->dst];
		const usmp_buffer_rec *f = x->flags & USMP_BUFFER_FIXED ? x : y;
		if (!(f->flags & USMP_BUFFER_FIXED) ||
		    !usmp_live_overlap(v, o->src, o->dst) ||
		    o->max_lead <= -(int64_t)y->size)
			continue;
		uint64_t share = x->size < y->size ? x->size : y->size;
		int64_t b = x->begin > y->begin ? x->begin : y->begin;
		int64_t e = x->end < y->end ? x->end : y->end;
		uint32_t s = 0, hi = ns;
		while (s < hi) { /* the first section starting at b or later */
			uint32_t mid = s + (hi - s) / 2;
			if (d->times[mid] < b)
				s = mid + 1;
			else
				hi = mid;
		}
		for (; s < ns && d->times[s] < e; s++) {
			uint64_t *load = &d->fixload[(size_t)s * P + f->fixed_pool];
			*load -= *load < share ? *load : share;
		}
	}
}

/* Sections and who is alive in each; false when a section has more than
 * DP_LIVE buffers to decide or the states would be too many. */
static int sections(dp *d)
{
	const usmp_view *v = d->v;
	const usmp_host *h = d->h;
	uint32_t n = v->buffer_count, P = v->pool_count, k = 0;
	if (!(d->times = h->alloc(h, (2 * (size_t)n + 1) * sizeof *d->times)))
		return USMP_ERR_NOMEM;
	for (uint32_t b = 0; b < n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			d->times[k++] = v->buffers[b].begin;
			d->times[k++] = v->buffers[b].end;
		}
	qsort(d->times, k, sizeof *d->times, cmp_i64);
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!u || d->times[u - 1] != d->times[i])
			d->times[u++] = d->times[i];
	d->nt = u;
	uint32_t ns = u > 1 ? u - 1 : 0;
	size_t nsz = ns ? ns : 1;
	if (!(d->nlive = h->alloc(h, nsz * sizeof *d->nlive)) ||
	    !(d->live = h->alloc(h, nsz * DP_LIVE * sizeof *d->live)) ||
	    !(d->fixload = h->alloc(h, nsz * P * sizeof *d->fixload)) ||
	    !(d->sect_at = h->alloc(h, (nsz + 1) * sizeof *d->sect_at)))
		return USMP_ERR_NOMEM;
	memset(d->nlive, 0, nsz * sizeof *d->nlive);
	memset(d->fixload, 0, nsz * P * sizeof *d->fixload);
	/* Quadratic in the worst case, but only over the sections a buffer
	 * spans (found by bisection). */
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_LIVE))
			continue;
		uint32_t lo = xact_first_time(d->times, u, r->begin);
		for (uint32_t s = lo; s < ns && d->times[s] < r->end; s++) {
			if (r->flags & USMP_BUFFER_FIXED) {
				d->fixload[(size_t)s * P + r->fixed_pool] += r->size;
				continue;
			}
			if (d->nlive[s] == DP_LIVE)
				return USMP_ERR_UNSUPPORTED;
			d->live[(size_t)s * DP_LIVE + d->nlive[s]++] = b;
		}
	}
	fixed_shares(d, ns);
	uint64_t total = 0;
	for (uint32_t s = 0; s < ns; s++) {
		d->sect_at[s] = total;
		total += UINT64_C(1) << d->nlive[s];
		if (total > DP_STATES)
			return USMP_ERR_UNSUPPORTED;
	}
	d->sect_at[ns] = total;
	if (!(d->val = h->alloc(h, (total ? total : 1) * sizeof *d->val)) ||
	    !(d->pred = h->alloc(h, (total ? total : 1) * sizeof *d->pred)) ||
	    !(d->cnt = h->alloc(h, total ? total : 1)))
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

/* Rule pairs of one section that could share (both live, same first
 * pool): their bit positions and the most they could share. */
typedef struct pairs {
	uint32_t count;
	uint32_t i[DP_LIVE * DP_LIVE], j[DP_LIVE * DP_LIVE];
	uint64_t share[DP_LIVE * DP_LIVE];
} pairs;

static void section_pairs(const dp *d, uint32_t s, pairs *pr)
{
	const usmp_view *v = d->v;
	uint32_t m = d->nlive[s];
	const uint32_t *L = d->live + (size_t)s * DP_LIVE;
	pr->count = 0;
	for (uint32_t i = 0; i < m && d->share; i++)
		for (uint32_t j = 0; j < m; j++) {
			if (i == j || first_pool(v, L[i]) != first_pool(v, L[j]))
				continue;
			int64_t lead = xact_rule_lead(v, L[i], L[j]);
			uint64_t ss = v->buffers[L[i]].size, sd = v->buffers[L[j]].size;
			if (lead == INT64_MIN || lead <= -(int64_t)sd)
				continue;
			/* dst at or below src + lead overlaps src by at most
			 * size(dst) + lead when lead < 0 */
			if (lead < 0)
				sd -= (uint64_t)-lead;
			pr->i[pr->count] = i;
			pr->j[pr->count] = j;
			pr->share[pr->count++] = ss < sd ? ss : sd;
		}
}

/* Whether the buffers kept by state t of section s fit their first pools
 * by load (rule partners kept together may share their smaller size:
 * the union of the buffers is at least the sum less every pair's
 * overlap). */
static bool fits(dp *d, uint32_t s, uint64_t t, const pairs *pr)
{
	const usmp_view *v = d->v;
	uint32_t P = v->pool_count, m = d->nlive[s];
	const uint32_t *L = d->live + (size_t)s * DP_LIVE;
	memcpy(d->load, d->fixload + (size_t)s * P, P * sizeof *d->load);
	for (uint32_t i = 0; i < m; i++)
		if (t >> i & 1)
			d->load[first_pool(v, L[i])] += v->buffers[L[i]].size;
	for (uint32_t k = 0; k < pr->count; k++)
		if ((t >> pr->i[k] & 1) && (t >> pr->j[k] & 1))
			d->load[first_pool(v, L[pr->i[k]])] -= pr->share[k];
	for (uint32_t p = 0; p < P; p++)
		if (d->load[p] > d->limit[p])
			return false;
	return true;
}

/* The bits of section s's buffers alive in s - 1 too, and their bit
 * there (pos). */
static uint64_t links(const dp *d, uint32_t s, uint32_t *pos)
{
	uint32_t m = d->nlive[s], pm = s ? d->nlive[s - 1] : 0;
	const uint32_t *L = d->live + (size_t)s * DP_LIVE;
	const uint32_t *PL = s ? d->live + (size_t)(s - 1) * DP_LIVE : NULL;
	uint64_t cont = 0;
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < pm; j++)
			if (PL[j] == L[i]) {
				cont |= UINT64_C(1) << i;
				pos[i] = j;
			}
	return cont;
}

/* The key of s - 1's state u in s's bit positions. */
static uint64_t key_of(uint64_t u, uint64_t cont, const uint32_t *pos,
                       uint32_t m)
{
	uint64_t key = 0;
	for (uint32_t i = 0; i < m; i++)
		if ((cont >> i & 1) && (u >> pos[i] & 1))
			key |= UINT64_C(1) << i;
	return key;
}

/* Bytes that state t of section s spills among its new buffers (those not
 * alive in s - 1); UINT64_MAX when one of them may not leave. */
static uint64_t new_spill(const dp *d, uint32_t s, uint64_t t, uint64_t cont)
{
	const usmp_view *v = d->v;
	const uint32_t *L = d->live + (size_t)s * DP_LIVE;
	uint64_t add = 0;
	for (uint32_t i = 0; i < d->nlive[s]; i++) {
		if ((cont >> i & 1) || (t >> i & 1))
			continue;
		if (v->buffers[L[i]].candidate_count < 2)
			return UINT64_MAX;
		add += v->buffers[L[i]].size;
	}
	return add;
}

/* Section s from section s - 1 (or from nothing). */
static void step(dp *d, uint32_t s, pairs *pr)
{
	uint32_t m = d->nlive[s];
	uint64_t *val = d->val + d->sect_at[s];
	uint32_t *pred = d->pred + d->sect_at[s];
	uint32_t pos[DP_LIVE]; /* bits in s - 1 of the buffers in cont */
	uint64_t cont = links(d, s, pos); /* alive in s - 1 too */
	uint32_t pm = s ? d->nlive[s - 1] : 0;
	/* best[key]: the least value of s - 1's states per choice of the
	 * continuing buffers (key in s's bit positions). */
	uint64_t keys = UINT64_C(1) << m;
	section_pairs(d, s, pr);
	for (uint64_t key = 0; key < keys; key++)
		d->best[key] = UINT64_MAX;
	if (!s) {
		d->best[0] = 0;
		d->bestu[0] = 0;
		d->bestc[0] = 1;
	}
	for (uint64_t u = 0; s && u < (UINT64_C(1) << pm); u++) {
		uint64_t pv = d->val[d->sect_at[s - 1] + u];
		if (pv == UINT64_MAX)
			continue;
		uint64_t key = key_of(u, cont, pos, m);
		uint8_t pc = d->cnt[d->sect_at[s - 1] + u];
		if (pv < d->best[key]) {
			d->best[key] = pv;
			d->bestu[key] = (uint32_t)u;
			d->bestc[key] = pc;
		} else if (pv == d->best[key]) {
			unsigned c = (unsigned)d->bestc[key] + pc;
			d->bestc[key] = (uint8_t)(c > CNT_CAP ? CNT_CAP : c);
		}
	}
	for (uint64_t t = 0; t < keys; t++) {
		val[t] = UINT64_MAX;
		uint64_t b = d->best[t & cont];
		if (b == UINT64_MAX)
			continue;
		uint64_t add = new_spill(d, s, t, cont);
		if (add == UINT64_MAX || !fits(d, s, t, pr))
			continue;
		val[t] = b + add;
		pred[t] = d->bestu[t & cont];
		d->cnt[d->sect_at[s] + t] = d->bestc[t & cont];
	}
}

/* Every choice of least spill (count of them <= max), backwards from the
 * last section: a partial choice follows each predecessor state that
 * reaches its value, copied when there are several. keeps[max * n] holds
 * base[] in every row first. Returns how many were written. */
static uint32_t enumerate(const dp *d, uint64_t bestv, uint8_t *keeps,
                          uint32_t max, uint64_t *state)
{
	uint32_t n = d->v->buffer_count, ns = d->nt > 1 ? d->nt - 1 : 0, k = 0;
	for (uint64_t i = 0; i < (UINT64_C(1) << d->nlive[ns - 1]) && k < max; i++)
		if (d->val[d->sect_at[ns - 1] + i] == bestv) {
			if (k)
				memcpy(keeps + (size_t)k * n, keeps, n);
			state[k++] = i;
		}
	for (uint32_t s = ns; s-- > 0;) {
		const uint32_t *L = d->live + (size_t)s * DP_LIVE;
		uint32_t pos[DP_LIVE];
		uint64_t cont = links(d, s, pos);
		uint32_t m = d->nlive[s], pm = s ? d->nlive[s - 1] : 0, paths = k;
		for (uint32_t c = 0; c < paths; c++) {
			uint64_t t = state[c];
			uint8_t *kp = keeps + (size_t)c * n;
			for (uint32_t i = 0; i < m; i++)
				if (!(t >> i & 1))
					kp[L[i]] = 0;
			if (!s)
				continue;
			uint64_t want = d->val[d->sect_at[s] + t] -
			                new_spill(d, s, t, cont);
			bool first = true;
			for (uint64_t u = 0; u < (UINT64_C(1) << pm); u++) {
				if (d->val[d->sect_at[s - 1] + u] != want ||
				    key_of(u, cont, pos, m) != (t & cont))
					continue;
				if (first) {
					state[c] = u;
					first = false;
				} else if (k < max) {
					memcpy(keeps + (size_t)k * n, kp, n);
					state[k++] = u;
				}
			}
		}
	}
	return k;
}

int xact_spill_dp(const usmp_view *v, const usmp_host *h, uint64_t capacity,
                  bool share, uint64_t *lb, uint8_t *keeps, uint32_t max,
                  uint32_t *count)
{
	uint8_t *keep = keeps;
	dp d;
	memset(&d, 0, sizeof d);
	d.share = share;
	d.v = v;
	d.h = h;
	uint32_t P = v->pool_count, n = v->buffer_count;
	int rc = USMP_ERR_NOMEM;
	if (!(d.limit = h->alloc(h, P * sizeof *d.limit)) ||
	    !(d.load = h->alloc(h, P * sizeof *d.load)))
		goto fail;
	for (uint32_t p = 0; p < P; p++) {
		d.limit[p] = v->pools[p].size_limit;
		if (capacity > 0 && capacity < d.limit[p])
			d.limit[p] = capacity;
	}
	if ((rc = sections(&d)))
		goto fail;
	uint32_t ns = d.nt > 1 ? d.nt - 1 : 0, most = 0;
	for (uint32_t s = 0; s < ns; s++)
		if (d.nlive[s] > most)
			most = d.nlive[s];
	rc = USMP_ERR_NOMEM;
	if (!(d.best = h->alloc(h, ((size_t)1 << most) * sizeof *d.best)) ||
	    !(d.bestu = h->alloc(h, ((size_t)1 << most) * sizeof *d.bestu)) ||
	    !(d.bestc = h->alloc(h, (size_t)1 << most)))
		goto fail;
	/* Spill no plan avoids: fixed buffers outside their first pool, and
	 * buffers without a live range larger than their first pool (they
	 * conflict with nothing here: no edges). */
	uint64_t spill = 0;
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		keep[b] = 1;
		if (r->flags & USMP_BUFFER_FIXED) {
			if (r->fixed_pool != first_pool(v, b))
				spill += r->size;
		} else if (!(r->flags & USMP_BUFFER_LIVE) &&
		           r->size > d.limit[first_pool(v, b)]) {
			spill += r->size;
			keep[b] = 0;
		}
	}
	pairs *pr = h->alloc(h, sizeof *pr);
	rc = USMP_ERR_NOMEM;
	if (!pr)
		goto fail;
	for (uint32_t s = 0; s < ns; s++)
		step(&d, s, pr);
	h->free(h, pr);
	uint64_t bestv = ns ? UINT64_MAX : 0, t = 0;
	unsigned ways = ns ? 0 : 1;
	for (uint64_t i = 0; ns && i < (UINT64_C(1) << d.nlive[ns - 1]); i++) {
		uint64_t x = d.val[d.sect_at[ns - 1] + i];
		if (x < bestv) {
			bestv = x;
			t = i;
			ways = 0;
		}
		if (x == bestv && x != UINT64_MAX)
			ways += d.cnt[d.sect_at[ns - 1] + i];
	}
	rc = USMP_ERR_INFEASIBLE; /* even the loads do not fit */
	if (bestv == UINT64_MAX)
		goto fail;
	*count = ways > CNT_CAP ? CNT_CAP : ways;
	*lb = spill + bestv;
	if (ns && ways <= max) {
		uint64_t *state = h->alloc(h, (size_t)max * sizeof *state);
		rc = USMP_ERR_NOMEM;
		if (!state)
			goto fail;
		*count = enumerate(&d, bestv, keeps, max, state);
		h->free(h, state);
	} else {
		for (uint32_t s = ns; s-- > 0;) {
			const uint32_t *L = d.live + (size_t)s * DP_LIVE;
			for (uint32_t i = 0; i < d.nlive[s]; i++)
				if (!(t >> i & 1))
					keep[L[i]] = 0;
			t = d.pred[d.sect_at[s] + t];
		}
	}
	rc = USMP_OK;
fail:
	dp_free(&d);
	return rc;
}
