/* exact_sweep.c — plans found by placing buffers in time order under a cap
 * per pool: an incumbent for the joint search, which alone proves. */
#include "exact_internal.h"

#include <stdlib.h>
#include <string.h>

/* One offset tried for a buffer: rule positions (prio 0) before the rest
 * (prio 1), each group by offset. */
typedef struct cand {
	uint64_t x;
	uint32_t prio;
} cand;

typedef struct sw {
	const usmp_view *v;
	uint32_t n;
	const uint32_t *pin;   /* [n] the pool of each buffer */
	const uint64_t *cap;   /* [P] */
	uint32_t *order;       /* [n] unfixed buffers, by begin then size */
	uint32_t count;        /* of them */
	uint32_t *adj_start;   /* [n + 1] CSR of conflicting buffers */
	uint32_t *adj;
	uint32_t *rule_start;  /* [n + 1] CSR of rule partners */
	uint32_t *rule_c;
	int64_t *rule_lead;
	bool *rule_src;        /* the buffer is the rule's src */
	bool *placed;          /* [n] */
	uint32_t *stamp;       /* [n] scratch while building adj */
	uint64_t *off;         /* [n] */
	cand *stack;           /* candidates of every depth */
	uint64_t budget, used;
	xact_clock *clk;
} sw;

/* Whether b at x in its pool meets no placed buffer it may not share
 * with: a conflicting pair may overlap only as a rule between them says
 * (offset(dst) <= offset(src) + max_lead). */
static bool fits(const sw *s, uint32_t b, uint64_t x)
{
	const usmp_view *v = s->v;
	uint64_t sz = v->buffers[b].size;
	if (x + sz > s->cap[s->pin[b]])
		return false;
	for (uint32_t i = s->adj_start[b]; i < s->adj_start[b + 1]; i++) {
		uint32_t c = s->adj[i];
		if (!s->placed[c] || s->pin[c] != s->pin[b])
			continue;
		uint64_t oc = s->off[c];
		if (oc >= x + sz || x >= oc + v->buffers[c].size)
			continue;
		bool ok = false;
		for (uint32_t r = s->rule_start[b]; r < s->rule_start[b + 1] && !ok;
		     r++) {
			if (s->rule_c[r] != c)
				continue;
			int64_t l = s->rule_lead[r];
			ok = s->rule_src[r] ? (int64_t)oc <= (int64_t)x + l
			                    : (int64_t)x <= (int64_t)oc + l;
		}
		if (!ok)
			return false;
	}
	return true;
}

static int cmp_cand_v(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return a->x < b->x ? -1 : a->x > b->x;
}

/* The offsets tried for b, into c (returns their count): as a rule allows
 * on a placed partner, 0, against the cap, and just above or below each
 * placed buffer it conflicts with; aligned, sorted, deduplicated. */
static uint32_t offsets(const sw *s, uint32_t b, cand *c)
{
	const usmp_view *v = s->v;
	uint32_t p = s->pin[b], k = 0;
	uint64_t a = usmp_buffer_alignment(v, b, p), sz = v->buffers[b].size;
	uint64_t H = s->cap[p];
	for (uint32_t r = s->rule_start[b]; r < s->rule_start[b + 1]; r++) {
		uint32_t o = s->rule_c[r];
		if (!s->placed[o] || s->pin[o] != p)
			continue;
		int64_t l = s->rule_lead[r], oc = (int64_t)s->off[o];
		int64_t x = s->rule_src[r] ? oc - l : oc + l;
		if (x < 0)
			continue;
		uint64_t ux = (uint64_t)x;
		/* dst at or below src + lead: round down; src from dst - lead
		 * on: round up */
		ux = s->rule_src[r] ? (ux + a - 1) / a * a : ux / a * a;
		c[k++] = (cand){ux, 0};
	}
	c[k++] = (cand){0, 1};
	if (H >= sz)
		c[k++] = (cand){(H - sz) / a * a, 1};
	for (uint32_t i = s->adj_start[b]; i < s->adj_start[b + 1]; i++) {
		uint32_t o = s->adj[i];
		if (!s->placed[o] || s->pin[o] != p)
			continue;
		uint64_t e = s->off[o] + v->buffers[o].size;
		c[k++] = (cand){(e + a - 1) / a * a, 1};
		if (s->off[o] >= sz)
			c[k++] = (cand){(s->off[o] - sz) / a * a, 1};
	}
	qsort(c, k, sizeof *c, cmp_cand_v);
	/* each offset once: the rule ones (few) first, then the rest */
	uint32_t u = 0, rules = 0;
	for (uint32_t i = 0; i < k; i++) {
		bool dup = u > 0 && c[u - 1].x == c[i].x &&
		           c[u - 1].prio == c[i].prio;
		for (uint32_t j = 0; j < rules && !dup && c[i].prio; j++)
			dup = c[j].x == c[i].x;
		if (dup)
			continue;
		rules += c[i].prio == 0;
		c[u++] = c[i];
	}
	return u;
}

static int dfs(sw *s, uint32_t depth, cand *top)
{
	if (depth == s->count)
		return XACT_FOUND;
	if (++s->used > s->budget)
		return XACT_LIMIT;
	if ((++s->clk->nodes & 1023) == 0 && xact_should_stop(s->clk))
		return XACT_STOPPED;
	uint32_t b = s->order[depth];
	uint32_t k = offsets(s, b, top);
	uint64_t deg = s->adj_start[b + 1] - s->adj_start[b] + 1;
	for (uint32_t i = 0; i < k; i++) {
		/* the budget counts the placed buffers looked at */
		s->used += deg;
		if (s->used > s->budget)
			return XACT_LIMIT;
		if (!fits(s, b, top[i].x))
			continue;
		s->off[b] = top[i].x;
		s->placed[b] = true;
		int r = dfs(s, depth + 1, top + k);
		if (r == XACT_FOUND)
			return r;
		s->placed[b] = false;
		if (r != XACT_INFEASIBLE)
			return r;
	}
	return XACT_INFEASIBLE;
}

/* Begin time first (buffers without a live range before all), larger
 * first, then by index. */
static bool sweep_before(const usmp_view *v, uint32_t a, uint32_t b)
{
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	bool lx = x->flags & USMP_BUFFER_LIVE, ly = y->flags & USMP_BUFFER_LIVE;
	if (lx != ly)
		return !lx;
	if (lx && x->begin != y->begin)
		return x->begin < y->begin;
	if (x->size != y->size)
		return x->size > y->size;
	return a < b;
}


static void sw_free(const usmp_host *h, sw *s)
{
	void *ptrs[] = {s->order, s->adj_start, s->adj, s->rule_start,
	                s->rule_c, s->rule_lead, s->rule_src, s->placed,
	                s->stack, s->stamp};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

int xact_sweep(const usmp_view *v, const usmp_host *h, const uint32_t *pin,
               const uint64_t *cap, uint64_t budget, xact_clock *clk,
               uint64_t *off)
{
	sw s;
	memset(&s, 0, sizeof s);
	s.v = v;
	s.n = v->buffer_count;
	s.pin = pin;
	s.cap = cap;
	s.off = off;
	s.budget = budget;
	s.clk = clk;
	size_t n = s.n ? s.n : 1;
	uint64_t nr = v->overlap_count;
	int rc = XACT_NOMEM;
	if (!(s.order = h->alloc(h, n * sizeof *s.order)) ||
	    !(s.adj_start = h->alloc(h, (n + 1) * sizeof *s.adj_start)) ||
	    !(s.rule_start = h->alloc(h, (n + 1) * sizeof *s.rule_start)) ||
	    !(s.rule_c = h->alloc(h, (2 * nr + 1) * sizeof *s.rule_c)) ||
	    !(s.rule_lead = h->alloc(h, (2 * nr + 1) * sizeof *s.rule_lead)) ||
	    !(s.rule_src = h->alloc(h, (2 * nr + 1) * sizeof *s.rule_src)) ||
	    !(s.placed = h->alloc(h, n * sizeof *s.placed)))
		goto fail;
	/* conflicts: live ranges and edges (listed both ways), each neighbour
	 * once (marked in stamp): twice over, counting then filling */
	uint64_t total = 0;
	if (!(s.stamp = h->alloc(h, n * sizeof *s.stamp)))
		goto fail;
	for (int fill = 0; fill < 2; fill++) {
		total = 0;
		memset(s.stamp, 0, n * sizeof *s.stamp);
		for (uint32_t a = 0; a < s.n; a++) {
			if (!fill)
				s.adj_start[a] = (uint32_t)total;
			for (uint64_t e = v->conflict_start ? v->conflict_start[a] : 0;
			     v->conflict_start && e < v->conflict_start[a + 1]; e++)
				s.stamp[v->conflict_adj[e]] = a + 1;
			for (uint32_t b = 0; b < s.n; b++) {
				bool on = s.stamp[b] == a + 1;
				if (b == a || !(on || usmp_live_overlap(v, a, b)))
					continue;
				if (fill)
					s.adj[total] = b;
				total++;
			}
		}
		if (!fill) {
			s.adj_start[s.n] = (uint32_t)total;
			if (!(s.adj = h->alloc(h, (total ? total : 1) *
			                              sizeof *s.adj)))
				goto fail;
		}
	}
	/* rules, listed under both buffers */
	memset(s.rule_start, 0, (n + 1) * sizeof *s.rule_start);
	for (uint64_t r = 0; r < nr; r++) {
		s.rule_start[v->overlaps[r].src + 1]++;
		s.rule_start[v->overlaps[r].dst + 1]++;
	}
	for (uint32_t b = 0; b < s.n; b++)
		s.rule_start[b + 1] += s.rule_start[b];
	for (uint64_t r = 0; r < nr; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		uint32_t i = s.rule_start[o->src]++, j = s.rule_start[o->dst]++;
		s.rule_c[i] = o->dst;
		s.rule_lead[i] = o->max_lead;
		s.rule_src[i] = true;
		s.rule_c[j] = o->src;
		s.rule_lead[j] = o->max_lead;
		s.rule_src[j] = false;
	}
	for (uint32_t b = s.n; b > 0; b--)
		s.rule_start[b] = s.rule_start[b - 1];
	s.rule_start[0] = 0;
	/* the fixed buffers are placed; the others go in order */
	uint64_t slots = 0;
	for (uint32_t b = 0; b < s.n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		s.placed[b] = r->flags & USMP_BUFFER_FIXED;
		if (s.placed[b]) {
			off[b] = r->fixed_offset;
			continue;
		}
		if (pin[b] == USMP_NO_POOL)
			continue; /* not in this sweep */
		slots += 2 * (uint64_t)(s.adj_start[b + 1] - s.adj_start[b]) +
		         (s.rule_start[b + 1] - s.rule_start[b]) + 2;
		uint32_t j = s.count++;
		while (j > 0 && sweep_before(v, b, s.order[j - 1])) {
			s.order[j] = s.order[j - 1];
			j--;
		}
		s.order[j] = b;
	}
	if (!(s.stack = h->alloc(h, (slots ? slots : 1) * sizeof *s.stack)))
		goto fail;
	rc = dfs(&s, 0, s.stack);
fail:
	sw_free(h, &s);
	return rc;
}

/* The most bytes rule partners a (earlier) and b may share in one pool
 * while both live: dst at or below src + lead overlaps src by at most
 * min(size(src), size(dst) + min(lead, 0)). */
static uint64_t pair_share(const usmp_view *v, uint32_t a, uint32_t b)
{
	uint64_t best = 0;
	for (int dir = 0; dir < 2; dir++) {
		uint32_t src = dir ? b : a, dst = dir ? a : b;
		int64_t l = xact_rule_lead(v, src, dst);
		if (l == INT64_MIN)
			continue;
		int64_t ss = (int64_t)v->buffers[src].size;
		int64_t sd = (int64_t)v->buffers[dst].size + (l < 0 ? l : 0);
		int64_t m = ss < sd ? ss : sd;
		if (m > 0 && (uint64_t)m > best)
			best = (uint64_t)m;
	}
	return best;
}

uint64_t xact_pin_floor(const usmp_view *v, const uint32_t *pin,
                        uint64_t *base)
{
	uint32_t n = v->buffer_count;
	for (uint32_t p = 0; p < v->pool_count; p++)
		base[p] = 0;
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint64_t e = r->size +
		             ((r->flags & USMP_BUFFER_FIXED) ? r->fixed_offset : 0);
		if (e > base[pin[b]])
			base[pin[b]] = e;
	}
	/* At each begin time, per pool: the union of the live buffers' bytes
	 * is at least the sum over them, in index order, of their size less
	 * what they may share with the earlier ones (never below 0). */
	for (uint32_t a = 0; a < n; a++) {
		const usmp_buffer_rec *ra = &v->buffers[a];
		if (!(ra->flags & USMP_BUFFER_LIVE))
			continue;
		uint64_t sum = 0, up = 0, pad = 0, al = v->pools[pin[a]].alignment;
		bool shares = false;
		uint32_t p = pin[a];
		for (uint32_t b = 0; b < n; b++) {
			const usmp_buffer_rec *rb = &v->buffers[b];
			if (pin[b] != p || !(rb->flags & USMP_BUFFER_LIVE) ||
			    rb->begin > ra->begin || ra->begin >= rb->end)
				continue;
			uint64_t sh = 0;
			for (uint32_t c = 0; c < b && sh < rb->size; c++) {
				const usmp_buffer_rec *rc = &v->buffers[c];
				if (pin[c] != p || !(rc->flags & USMP_BUFFER_LIVE) ||
				    rc->begin > ra->begin || ra->begin >= rc->end)
					continue;
				sh += pair_share(v, c, b);
			}
			shares |= sh > 0;
			sum += sh < rb->size ? rb->size - sh : 0;
			/* aligned starts: the next buffer above b starts at
			 * offset(b) + size(b) rounded up to the pool's
			 * alignment or higher */
			uint64_t r = (rb->size + al - 1) / al * al;
			up += r;
			if (r - rb->size > pad)
				pad = r - rb->size;
		}
		/* Without sharing the buffers lie apart, each but the top one
		 * followed by its padding to the pool's alignment. */
		if (!shares && up - pad > sum)
			sum = up - pad;
		if (sum > base[p])
			base[p] = sum;
	}
	uint64_t total = 0;
	for (uint32_t p = 0; p < v->pool_count; p++)
		total += base[p];
	return total;
}
