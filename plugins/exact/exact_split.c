/* exact_split.c — several pools, candidates or edges beyond one joint search:
 * conflict components searched alone, larger ones greedily and by windows. */
#include "exact_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free buffers re-placed together in a window of a large part (at most the
 * knob `part`). Larger windows leave the joint search's greedy starts
 * more room: on bench/exact/multi_gen.py's 5,000 buffers 48 gave spill
 * 64.9 MB, 192 gave 42.6, 384 41.4 in about the same time. */
#define WINDOW 384u
/* Search nodes a window's search may spend (its greedy starts and the
 * first nodes do the work: 16 and 256 gave the same plans); the search
 * looks at its clock every 1024 nodes, so its count starts 1024 -
 * WINDOW_NODES below that. */
#define WINDOW_NODES UINT64_C(64)
/* Most passes over a large part's windows when no time limit ends them
 * (they end earlier when a pass improves nothing). */
#define PASSES 16
/* Most buffers in one window's view (the joint search's scope). */
#define VIEW_MAX 1000u
/* Conflict list entries of one large part beyond which it is refused. */
#define MAX_PAIRS (UINT64_C(1) << 26)

#define NONE UINT32_MAX

typedef struct ivl {
	uint64_t lo, hi;
} ivl;

typedef struct split {
	const usmp_view *v;
	const usmp_host *h;
	const xact_params *kp;
	usmp_placement *out;
	uint32_t n, P;
	uint64_t *limit;     /* [P] limits, capacity applied */
	uint32_t *order;     /* [n] live buffers by begin, then the others */
	uint32_t *tmp;       /* [n] */
	uint32_t *comp;      /* [n] union-find parents, then part labels */
	uint32_t ncomp;
	uint32_t *cstart;    /* [ncomp + 1] CSR of buffers by part, in order */
	uint32_t *cbuf;
	uint32_t *sub;       /* [n] index in the part's view, or NONE */
	uint32_t *ids;       /* [n] view buffer of each part view buffer */
	uint32_t *pos;       /* [n] index within its part's list */
	uint8_t *seen;       /* [n] */
	usmp_buffer_rec *sb; /* [n] the part view's buffers */
	usmp_placement *sp;  /* [n] its plan */
	usmp_placement *st;  /* [n] its start */
	uint64_t *sestart;   /* [n + 1] its edges */
	uint32_t *seadj;
	usmp_overlap_rec *so;
	uint64_t *nstart;    /* [n + 1] conflicts of a large part (positions) */
	uint32_t *nadj;
	ivl *iv;             /* scratch of lowest() */
	uint64_t *hw;        /* [P] */
	uint8_t *large;      /* [ncomp] planned greedily and by windows */
	xact_sub_host sh;
} split;

static int cmp_time(const void *ctx, uint32_t a, uint32_t b)
{
	const usmp_view *v = ctx;
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	bool lx = x->flags & USMP_BUFFER_LIVE, ly = y->flags & USMP_BUFFER_LIVE;
	if (lx != ly)
		return lx ? -1 : 1;
	if (lx && x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_size(const void *ctx, uint32_t a, uint32_t b)
{
	const usmp_view *v = ctx;
	uint64_t x = v->buffers[a].size, y = v->buffers[b].size;
	if (x != y)
		return x > y ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_ivl(const void *a, const void *b)
{
	const ivl *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static int cmp_rule(const void *a, const void *b)
{
	const usmp_overlap_rec *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static uint32_t find(uint32_t *parent, uint32_t a)
{
	while (parent[a] != a) {
		parent[a] = parent[parent[a]];
		a = parent[a];
	}
	return a;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

static bool has_edges(const usmp_view *v)
{
	return v->conflict_start && v->conflict_start[v->buffer_count] > 0;
}

/* Parts: connected components of the conflict graph (live ranges that meet
 * and explicit edges), labelled in time order; cbuf lists each part's
 * buffers in time order. */
static int find_parts(split *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	uint32_t n = s->n;
	for (uint32_t i = 0; i < n; i++) {
		s->order[i] = i;
		s->comp[i] = i;
	}
	xact_sort(s->order, s->tmp, n, cmp_time, v);
	/* A sweep by begin: a buffer starting before the furthest end so far
	 * meets the buffer that reaches it. */
	int64_t end = 0;
	uint32_t seg = NONE;
	for (uint32_t k = 0; k < n; k++) {
		const usmp_buffer_rec *b = &v->buffers[s->order[k]];
		if (!(b->flags & USMP_BUFFER_LIVE))
			break;
		if (seg != NONE && b->begin < end) {
			unite(s->comp, seg, s->order[k]);
			if (b->end > end)
				end = b->end;
		} else {
			seg = s->order[k];
			end = b->end;
		}
	}
	if (has_edges(v))
		for (uint32_t a = 0; a < n; a++)
			for (uint64_t e = v->conflict_start[a];
			     e < v->conflict_start[a + 1]; e++)
				unite(s->comp, a, v->conflict_adj[e]);
	/* Labels by first buffer in time order (sub holds a root's label). */
	for (uint32_t i = 0; i < n; i++)
		s->sub[i] = NONE;
	s->ncomp = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = find(s->comp, s->order[k]);
		if (s->sub[r] == NONE)
			s->sub[r] = s->ncomp++;
	}
	for (uint32_t i = 0; i < n; i++)
		s->tmp[i] = s->sub[find(s->comp, i)];
	for (uint32_t i = 0; i < n; i++) {
		s->comp[i] = s->tmp[i];
		s->sub[i] = NONE;
	}
	if (!(s->cstart = h->alloc(h, ((size_t)s->ncomp + 1) * sizeof *s->cstart)))
		return USMP_ERR_NOMEM;
	memset(s->cstart, 0, ((size_t)s->ncomp + 1) * sizeof *s->cstart);
	for (uint32_t i = 0; i < n; i++)
		s->cstart[s->comp[i] + 1]++;
	for (uint32_t c = 0; c < s->ncomp; c++)
		s->cstart[c + 1] += s->cstart[c];
	for (uint32_t c = 0; c < s->ncomp; c++)
		s->tmp[c] = s->cstart[c]; /* each part's next entry */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = s->order[k];
		s->cbuf[s->tmp[s->comp[b]]++] = b;
	}
	return USMP_OK;
}

/* The view of ids[0..k): the first nfree as they are, the others fixed
 * where the plan so far puts them; edges and rules among them. */
static usmp_view sub_view(split *s, uint32_t k, uint32_t nfree)
{
	const usmp_view *v = s->v;
	for (uint32_t i = 0; i < k; i++)
		s->sub[s->ids[i]] = i;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t b = s->ids[i];
		s->sb[i] = v->buffers[b];
		if (i >= nfree) {
			s->sb[i].flags |= USMP_BUFFER_FIXED;
			s->sb[i].fixed_pool = s->out[b].pool;
			s->sb[i].fixed_offset = s->out[b].offset;
		}
	}
	uint64_t m = 0;
	s->sestart[0] = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t b = s->ids[i];
		if (has_edges(v))
			for (uint64_t e = v->conflict_start[b];
			     e < v->conflict_start[b + 1]; e++)
				if (s->sub[v->conflict_adj[e]] != NONE)
					s->seadj[m++] = s->sub[v->conflict_adj[e]];
		s->sestart[i + 1] = m;
	}
	uint64_t nr = 0;
	for (uint32_t i = 0; i < k && v->overlap_count; i++) {
		uint32_t b = s->ids[i];
		/* rules are sorted by src: the first with src b */
		uint64_t lo = 0, hi = v->overlap_count;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (v->overlaps[mid].src < b)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < v->overlap_count && v->overlaps[lo].src == b; lo++) {
			uint32_t d = s->sub[v->overlaps[lo].dst];
			if (d != NONE)
				s->so[nr++] = (usmp_overlap_rec){i, d,
				                                 v->overlaps[lo].max_lead};
		}
	}
	if (nr > 1)
		qsort(s->so, nr, sizeof *s->so, cmp_rule);
	for (uint32_t i = 0; i < k; i++)
		s->sub[s->ids[i]] = NONE;
	usmp_view w = *v;
	w.buffer_count = k;
	w.buffers = s->sb;
	w.conflict_start = s->sestart;
	w.conflict_adj = s->seadj;
	w.degree = NULL;
	w.overlaps = nr ? s->so : NULL;
	w.overlap_count = nr;
	w.lower_bound = 0; /* the whole view's bound is not the part's */
	return w;
}

/* The whole plan's spill and size (buffers not yet placed count nothing). */
static void objective(split *s, uint64_t *spill, uint64_t *total)
{
	const usmp_view *v = s->v;
	memset(s->hw, 0, (size_t)s->P * sizeof *s->hw);
	*spill = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t p = s->out[b].pool;
		if (p == USMP_NO_POOL)
			continue;
		const usmp_buffer_rec *r = &v->buffers[b];
		uint64_t e = s->out[b].offset + r->size;
		if (e > s->hw[p])
			s->hw[p] = e;
		if (!(r->flags & USMP_BUFFER_FIXED) &&
		    p != v->candidates[r->candidate_start])
			*spill += r->size;
	}
	*total = 0;
	for (uint32_t p = 0; p < s->P; p++)
		*total += s->hw[p];
}

/* What the search of one part said. */
typedef struct part_res {
	bool planned;  /* the search gave the part a plan */
	bool got;      /* ... and a bound (its spill is then the least) */
	bool optimal;
	uint64_t bound;
} part_res;

/* The joint search of part c (at most the knob `part` buffers). Returns its
 * status; USMP_ERR_INFEASIBLE only when that search proved it. */
/* A bound on the pools' total size of every plan of the part view w
 * (buffers in time order): the most bytes alive at once, which lie apart
 * within each pool. Overlap rules could share some: then 0. */
static uint64_t alive_bound(const usmp_view *w)
{
	uint64_t best = 0;
	if (w->overlap_count)
		return 0;
	for (uint32_t i = 0; i < w->buffer_count; i++) {
		const usmp_buffer_rec *b = &w->buffers[i];
		if (!(b->flags & USMP_BUFFER_LIVE))
			break; /* the live ones come first */
		uint64_t sum = 0;
		for (uint32_t j = 0; j <= i; j++)
			if (w->buffers[j].end > b->begin)
				sum += w->buffers[j].size;
		if (sum > best)
			best = sum;
	}
	return best;
}

static int search_part(split *s, uint32_t c, double deadline, part_res *r)
{
	uint32_t k = s->cstart[c + 1] - s->cstart[c];
	memcpy(s->ids, s->cbuf + s->cstart[c], (size_t)k * sizeof *s->ids);
	usmp_view w = sub_view(s, k, k);
	/* lets the search stop at a plan without spill that reaches it */
	w.lower_bound = alive_bound(&w);
	for (uint32_t i = 0; i < k; i++)
		s->sp[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
	xact_clock clk = {.host = &s->sh.h, .deadline = deadline};
	xact_sub_reset(&s->sh, &clk, 0);
	int rc = xact_multi(&w, &s->sh.h, s->sp, s->kp->capacity, &clk,
	                    s->kp->minimize, &(xact_start){.evict = true});
	if (rc)
		return rc;
	for (uint32_t i = 0; i < k; i++)
		s->out[s->ids[i]] = s->sp[i];
	r->planned = true;
	r->got = s->sh.got;
	r->optimal = s->sh.optimal;
	r->bound = s->sh.bound;
	return USMP_OK;
}

/* Conflict lists of part c by position in its list (live ranges by a sweep,
 * then edges); duplicates are harmless. */
static int conflict_lists(split *s, uint32_t c)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	const uint32_t *l = s->cbuf + s->cstart[c];
	uint32_t k = s->cstart[c + 1] - s->cstart[c];
	for (uint32_t j = 0; j < k; j++)
		s->pos[l[j]] = j;
	uint32_t *act = s->tmp;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			memset(s->nstart, 0, ((size_t)k + 1) * sizeof *s->nstart);
		} else {
			for (uint32_t j = 0; j < k; j++)
				s->nstart[j + 1] += s->nstart[j];
			uint64_t total = s->nstart[k];
			if (total > MAX_PAIRS) {
				char msg[200];
				snprintf(msg, sizeof msg, "exact: a part of %u buffers "
				         "has %llu conflicts, beyond the %llu the "
				         "planner of large parts keeps", k,
				         (unsigned long long)total / 2,
				         (unsigned long long)MAX_PAIRS / 2);
				h->log(h, USMP_LOG_ERROR, msg);
				return USMP_ERR_UNSUPPORTED;
			}
			if (s->nadj)
				h->free(h, s->nadj);
			if (!(s->nadj = h->alloc(h, (total ? total : 1) *
			                            sizeof *s->nadj)))
				return USMP_ERR_NOMEM;
			/* nstart[j] is the next free entry of j, then restored */
		}
		uint32_t na = 0;
		for (uint32_t j = 0; j < k; j++) {
			const usmp_buffer_rec *b = &v->buffers[l[j]];
			if (b->flags & USMP_BUFFER_LIVE) {
				uint32_t keep = 0;
				for (uint32_t t = 0; t < na; t++) {
					uint32_t a = act[t];
					if (v->buffers[l[a]].end <= b->begin)
						continue;
					act[keep++] = a;
					if (pass == 0) {
						s->nstart[a + 1]++;
						s->nstart[j + 1]++;
					} else {
						s->nadj[s->nstart[a]++] = j;
						s->nadj[s->nstart[j]++] = a;
					}
				}
				na = keep;
				act[na++] = j;
			}
			if (has_edges(v))
				for (uint64_t e = v->conflict_start[l[j]];
				     e < v->conflict_start[l[j] + 1]; e++) {
					if (pass == 0)
						s->nstart[j + 1]++;
					else
						s->nadj[s->nstart[j]++] =
							s->pos[v->conflict_adj[e]];
				}
		}
	}
	for (uint32_t j = k; j > 0; j--)
		s->nstart[j] = s->nstart[j - 1];
	s->nstart[0] = 0;
	/* lowest() collects one interval per list entry */
	uint64_t most = 1;
	for (uint32_t j = 0; j < k; j++)
		if (s->nstart[j + 1] - s->nstart[j] > most)
			most = s->nstart[j + 1] - s->nstart[j];
	if (s->iv)
		h->free(h, s->iv);
	if (!(s->iv = h->alloc(h, most * sizeof *s->iv)))
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

/* The lowest aligned offset of the buffer at position j of part list l in
 * pool p, above its placed conflicts there. */
static uint64_t lowest(split *s, const uint32_t *l, uint32_t j, uint32_t p,
                       bool *ok)
{
	const usmp_view *v = s->v;
	uint32_t m = 0;
	for (uint64_t e = s->nstart[j]; e < s->nstart[j + 1]; e++) {
		uint32_t c = l[s->nadj[e]];
		if (s->out[c].pool != p)
			continue;
		s->iv[m++] = (ivl){s->out[c].offset,
		                   s->out[c].offset + v->buffers[c].size};
	}
	if (m > 1)
		qsort(s->iv, m, sizeof *s->iv, cmp_ivl);
	uint64_t a = usmp_buffer_alignment(v, l[j], p), sz = v->buffers[l[j]].size;
	uint64_t x = 0;
	for (uint32_t i = 0; i < m; i++) {
		if (s->iv[i].lo >= x + sz)
			break;
		if (s->iv[i].hi > x)
			x = usmp_align_up(s->iv[i].hi, a, ok);
	}
	return x;
}

/* A greedy plan of part c: each free buffer at the lowest offset of its
 * first candidate pool where it fits under the limit, else of the next.
 * kind 0: buffers with one candidate first, then the others, each in time
 * order; kind 1: larger first. False when some buffer fits nowhere. */
static bool greedy_part(split *s, uint32_t c, int kind)
{
	const usmp_view *v = s->v;
	const uint32_t *l = s->cbuf + s->cstart[c];
	uint32_t k = s->cstart[c + 1] - s->cstart[c], m = 0;
	for (uint32_t j = 0; j < k; j++)
		if (!(v->buffers[l[j]].flags & USMP_BUFFER_FIXED))
			s->out[l[j]] = (usmp_placement){USMP_NO_POOL, 0, 0};
	uint32_t *ord = s->ids;
	for (int round = 0; round < 2; round++)
		for (uint32_t j = 0; j < k; j++) {
			const usmp_buffer_rec *b = &v->buffers[l[j]];
			bool one = b->candidate_count == 1;
			if (!(b->flags & USMP_BUFFER_FIXED) &&
			    (kind == 1 ? round == 0 : one == (round == 0)))
				ord[m++] = l[j];
		}
	if (kind == 1)
		xact_sort(ord, s->tmp, m, cmp_size, v);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t b = ord[i], j = s->pos[b];
		const usmp_buffer_rec *r = &v->buffers[b];
		bool placed = false;
		for (uint32_t q = 0; q < r->candidate_count && !placed; q++) {
			uint32_t p = v->candidates[r->candidate_start + q];
			bool ok = true;
			uint64_t x = lowest(s, l, j, p, &ok);
			if (!ok || x > s->limit[p] || r->size > s->limit[p] - x)
				continue;
			s->out[b] = (usmp_placement){p, 0, x};
			placed = true;
		}
		if (!placed)
			return false;
	}
	return true;
}

/* Whether the free buffers of list[0..k) could lower the objective: one
 * spills, or one reaches its pool's top. */
static bool hot(split *s, const uint32_t *list, uint32_t k)
{
	const usmp_view *v = s->v;
	for (uint32_t i = 0; i < k; i++) {
		const usmp_buffer_rec *r = &v->buffers[list[i]];
		usmp_placement o = s->out[list[i]];
		if (o.pool != v->candidates[r->candidate_start] ||
		    o.offset + r->size >= s->hw[o.pool])
			return true;
	}
	return false;
}

/* Part c by the start by load (exact_multi_evict.c) when that beats its
 * greedy plan (spill, then size) and the part has at most EVICT_MAX
 * buffers (it takes O(k^2) time). */
#define EVICT_MAX 20000
static void evict_part(split *s, uint32_t c, xact_clock *clk)
{
	const usmp_host *h = s->h;
	uint32_t k = s->cstart[c + 1] - s->cstart[c];
	if (k > EVICT_MAX)
		return;
	usmp_placement *plan = h->alloc(h, (size_t)k * sizeof *plan);
	usmp_placement *keep = h->alloc(h, (size_t)k * sizeof *keep);
	if (!plan || !keep)
		goto fail;
	memcpy(s->ids, s->cbuf + s->cstart[c], (size_t)k * sizeof *s->ids);
	usmp_view w = sub_view(s, k, k);
	if (!xact_evict_start(&w, h, s->kp, clk, plan))
		goto fail;
	uint64_t spill0, total0, spill1, total1;
	objective(s, &spill0, &total0);
	for (uint32_t i = 0; i < k; i++) {
		keep[i] = s->out[s->ids[i]];
		s->out[s->ids[i]] = plan[i];
	}
	objective(s, &spill1, &total1);
	if (spill1 > spill0 || (spill1 == spill0 && total1 >= total0))
		for (uint32_t i = 0; i < k; i++)
			s->out[s->ids[i]] = keep[i];
fail:
	if (plan)
		h->free(h, plan);
	if (keep)
		h->free(h, keep);
}

/* Re-place windows of part c's free buffers (in time order) with the joint
 * search, their conflicting neighbours fixed where they are; a window's
 * new placement is kept unless the whole plan gets worse. */
static void improve_part(split *s, uint32_t c, double deadline,
                         const xact_clock *outer)
{
	const usmp_view *v = s->v;
	const uint32_t *l = s->cbuf + s->cstart[c];
	uint32_t k = s->cstart[c + 1] - s->cstart[c];
	uint32_t W = s->kp->part < WINDOW ? s->kp->part : WINDOW;
	uint32_t *fr = s->order; /* free buffers of the part, in order */
	uint32_t nf = 0;
	for (uint32_t j = 0; j < k; j++)
		if (!(v->buffers[l[j]].flags & USMP_BUFFER_FIXED))
			fr[nf++] = l[j];
	uint64_t spill, total;
	objective(s, &spill, &total);
	char msg[160];
	snprintf(msg, sizeof msg, "exact: greedy plan of a part of %u buffers: "
	         "spill %llu, size %llu", k, (unsigned long long)spill,
	         (unsigned long long)total);
	s->h->log(s->h, USMP_LOG_DEBUG, msg);
	for (int pass = 0; deadline > 0 || pass < PASSES; pass++) {
		bool improved = false;
		/* Odd passes shift the windows by half of one, so that no
		 * boundary stays where it was. */
		uint32_t len = pass % 2 && W > 1 ? W / 2 : W;
		for (uint32_t at = 0; at < nf; at += len, len = W) {
			if ((deadline > 0 && xact_now() >= deadline) ||
			    (outer->host->should_stop &&
			     outer->host->should_stop(outer->host)))
				return;
			uint32_t w = nf - at < len ? nf - at : len, cnt = w;
			if (!hot(s, fr + at, w))
				continue;
			for (uint32_t i = 0; i < w; i++) {
				s->ids[i] = fr[at + i];
				s->seen[fr[at + i]] = 1;
			}
			for (uint32_t i = 0; i < w && cnt <= VIEW_MAX; i++) {
				uint32_t j = s->pos[fr[at + i]];
				for (uint64_t e = s->nstart[j];
				     e < s->nstart[j + 1] && cnt <= VIEW_MAX; e++) {
					uint32_t b = l[s->nadj[e]];
					if (!s->seen[b]) {
						s->seen[b] = 1;
						s->ids[cnt++] = b;
					}
				}
			}
			for (uint32_t i = 0; i < cnt; i++)
				s->seen[s->ids[i]] = 0;
			if (cnt > VIEW_MAX)
				continue;
			usmp_view sv = sub_view(s, cnt, w);
			for (uint32_t i = 0; i < cnt; i++)
				s->st[i] = s->out[s->ids[i]];
			xact_start start = {true, s->st, 0, false, false};
			xact_clock clk = {.host = &s->sh.h, .deadline = deadline,
			                  .nodes = 1024 - WINDOW_NODES};
			xact_sub_reset(&s->sh, &clk, 1024);
			if (xact_multi(&sv, &s->sh.h, s->sp, s->kp->capacity, &clk,
			               true, &start) != USMP_OK)
				continue;
			for (uint32_t i = 0; i < w; i++)
				s->out[s->ids[i]] = s->sp[i];
			uint64_t sp2, t2;
			objective(s, &sp2, &t2);
			if (sp2 > spill || (sp2 == spill && t2 > total)) {
				for (uint32_t i = 0; i < w; i++)
					s->out[s->ids[i]] = s->st[i];
				objective(s, &spill, &total);
				continue;
			}
			improved |= sp2 < spill || t2 < total;
			spill = sp2;
			total = t2;
		}
		snprintf(msg, sizeof msg, "exact: windows pass %d of a part of %u "
		         "buffers: spill %llu, size %llu", pass + 1, k,
		         (unsigned long long)spill, (unsigned long long)total);
		s->h->log(s->h, USMP_LOG_DEBUG, msg);
		if (!improved)
			break;
	}
}

/* A part beyond the joint search, or one it did not plan: a greedy plan,
 * then windows. When no greedy plan fits, a part within the joint
 * search's scope gets that search (r says what it proved). Returns a
 * usmp_status. */
static int large_part(split *s, uint32_t c, double deadline,
                      const xact_clock *outer, part_res *r)
{
	const usmp_host *h = s->h;
	uint32_t k = s->cstart[c + 1] - s->cstart[c];
	int rc = conflict_lists(s, c);
	if (rc)
		return rc;
	if (greedy_part(s, c, 0) || greedy_part(s, c, 1)) {
		if (s->kp->minimize) { /* else any plan that fits will do */
			/* at most half the part's time, and only when that
			 * half is 100 us per buffer or more (it takes about
			 * 60 us per buffer at 20,000 here) */
			double now = xact_now();
			xact_clock clk = {.host = h, .deadline = deadline > now
			                  ? now + (deadline - now) / 2 : deadline};
			if (deadline <= 0 || clk.deadline - now >= 100e-6 * k)
				evict_part(s, c, &clk);
			improve_part(s, c, deadline, outer);
		}
		return USMP_OK;
	}
	for (uint32_t j = 0; j < k; j++) {
		uint32_t b = s->cbuf[s->cstart[c] + j];
		if (!(s->v->buffers[b].flags & USMP_BUFFER_FIXED))
			s->out[b] = (usmp_placement){USMP_NO_POOL, 0, 0};
	}
	if (k <= XACT_MULTI_MAX) {
		rc = search_part(s, c, deadline, r);
		if (rc == USMP_OK || rc == USMP_ERR_NOMEM)
			return rc;
		if (rc == USMP_ERR_INFEASIBLE || rc == USMP_ERR_STOPPED) {
			if (s->sh.msg[0])
				h->log(h, rc == USMP_ERR_STOPPED ? USMP_LOG_WARN
				                                 : USMP_LOG_ERROR,
				       s->sh.msg);
			return rc;
		}
	}
	char msg[256];
	snprintf(msg, sizeof msg, "exact: the greedy plan of a part of %u "
	         "buffers (more than part=%u) does not fit the pools' limits, "
	         "and the joint search did not decide it; that proves nothing",
	         k, s->kp->part);
	h->log(h, USMP_LOG_ERROR, msg);
	return USMP_ERR_UNSUPPORTED;
}

static void split_free(split *s)
{
	const usmp_host *h = s->h;
	void *ptrs[] = {s->limit, s->order, s->tmp, s->comp, s->cstart, s->cbuf,
	                s->sub, s->ids, s->pos, s->seen, s->sb, s->sp, s->st,
	                s->sestart, s->seadj, s->so, s->nstart, s->nadj, s->iv,
	                s->hw, s->large};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

static int split_alloc(split *s)
{
	const usmp_host *h = s->h;
	const usmp_view *v = s->v;
	size_t n = s->n ? s->n : 1, P = s->P;
	uint64_t ne = has_edges(v) ? v->conflict_start[v->buffer_count] : 0;
	if (!(s->limit = h->alloc(h, P * sizeof *s->limit)) ||
	    !(s->order = h->alloc(h, n * sizeof *s->order)) ||
	    !(s->tmp = h->alloc(h, n * sizeof *s->tmp)) ||
	    !(s->comp = h->alloc(h, n * sizeof *s->comp)) ||
	    !(s->cbuf = h->alloc(h, n * sizeof *s->cbuf)) ||
	    !(s->sub = h->alloc(h, n * sizeof *s->sub)) ||
	    !(s->ids = h->alloc(h, n * sizeof *s->ids)) ||
	    !(s->pos = h->alloc(h, n * sizeof *s->pos)) ||
	    !(s->seen = h->alloc(h, n)) ||
	    !(s->sb = h->alloc(h, n * sizeof *s->sb)) ||
	    !(s->sp = h->alloc(h, n * sizeof *s->sp)) ||
	    !(s->st = h->alloc(h, n * sizeof *s->st)) ||
	    !(s->sestart = h->alloc(h, (n + 1) * sizeof *s->sestart)) ||
	    !(s->seadj = h->alloc(h, (ne ? ne : 1) * sizeof *s->seadj)) ||
	    !(s->so = h->alloc(h, (v->overlap_count ? v->overlap_count : 1) *
	                          sizeof *s->so)) ||
	    !(s->nstart = h->alloc(h, (n + 1) * sizeof *s->nstart)) ||
	    !(s->hw = h->alloc(h, P * sizeof *s->hw)))
		return USMP_ERR_NOMEM;
	memset(s->seen, 0, n);
	return USMP_OK;
}

/* Log what the parts gave and report what is proven: with every part's
 * spill proven least (each reported a bound), a plan spilling no more
 * spills exactly as much in each part, so each part's bound holds for
 * the whole; pool sizes are maxima over parts. */
static void finish(split *s, uint32_t searched, uint32_t proven, bool all,
                   uint64_t bound)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	uint64_t spill, total;
	objective(s, &spill, &total);
	if (!all)
		bound = 0;
	if (v->lower_bound > bound)
		bound = v->lower_bound;
	if (bound > total)
		bound = total;
	/* Optimal: every part's spill proven least and the largest part
	 * bound reached (the parts' pool sizes combine without loss), or no
	 * spill at the host's bound. */
	bool optimal = bound == total && (all || spill == 0);
	char msg[300];
	snprintf(msg, sizeof msg, "exact: %u parts (conflict components; %u "
	         "searched jointly, %u of them proven, %u planned greedily and "
	         "by windows), spill %llu, size %llu, %s", s->ncomp, searched,
	         proven, s->ncomp - searched, (unsigned long long)spill,
	         (unsigned long long)total,
	         optimal ? "proven optimal" : "not proven");
	h->log(h, USMP_LOG_INFO, msg);
	if (h->progress)
		h->progress(h, total);
	if (s->kp->minimize && USMP_HAS_FIELD(h, usmp_host, report_bound) &&
	    h->report_bound)
		h->report_bound(h, bound, optimal);
}

/* What the parts proved, summed up. */
typedef struct tally {
	uint32_t searched, proven;
	bool all;      /* every part's search reported a bound */
	uint64_t bound; /* the largest of them */
} tally;

static void count(tally *t, const part_res *r)
{
	if (!r->planned) {
		t->all = false;
		return;
	}
	t->searched++;
	t->proven += r->optimal;
	t->all &= r->got;
	if (r->got && r->bound > t->bound)
		t->bound = r->bound;
}

/* The deadline of a part of k buffers out of `left` still to plan. */
static double share(const xact_clock *clk, uint32_t k, uint32_t left)
{
	if (clk->deadline <= 0)
		return 0;
	double rest = clk->deadline - xact_now();
	return xact_now() + (rest > 0 ? rest * k / left : 1e-6);
}

/* The joint search of every part of at most `part` buffers (each its share
 * of the time by its buffers; the large ones get theirs later). A part it
 * does not plan is marked large. Returns a usmp_status. */
static int small_parts(split *s, const xact_clock *clk, tally *t)
{
	uint32_t left = s->n;
	for (uint32_t c = 0; c < s->ncomp; c++) {
		uint32_t k = s->cstart[c + 1] - s->cstart[c];
		s->large[c] = k > s->kp->part;
		if (s->large[c])
			continue;
		double deadline = share(clk, k, left);
		left -= k;
		part_res r = {0};
		int rc = search_part(s, c, deadline, &r);
		if (rc == USMP_ERR_INFEASIBLE || rc == USMP_ERR_NOMEM) {
			/* no plan of the part, so none of the whole */
			if (s->sh.msg[0])
				s->h->log(s->h, USMP_LOG_ERROR, s->sh.msg);
			return rc;
		}
		if (rc) { /* stopped, or beyond the search: a large part */
			s->large[c] = 1;
			continue;
		}
		count(t, &r);
	}
	return USMP_OK;
}

/* The large parts, with the time left. Returns a usmp_status. */
static int large_parts(split *s, const xact_clock *clk, tally *t)
{
	uint32_t left = 0;
	for (uint32_t c = 0; c < s->ncomp; c++)
		left += s->large[c] ? s->cstart[c + 1] - s->cstart[c] : 0;
	for (uint32_t c = 0; c < s->ncomp; c++) {
		if (!s->large[c])
			continue;
		uint32_t k = s->cstart[c + 1] - s->cstart[c];
		double deadline = share(clk, k, left);
		left -= k;
		part_res r = {0};
		int rc = large_part(s, c, deadline, clk, &r);
		if (rc)
			return rc;
		count(t, &r);
	}
	return USMP_OK;
}

int xact_split(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               const xact_params *kp, xact_clock *clk)
{
	split s;
	memset(&s, 0, sizeof s);
	s.v = v;
	s.h = h;
	s.kp = kp;
	s.out = out;
	s.n = v->buffer_count;
	s.P = v->pool_count;
	int rc = split_alloc(&s);
	if (rc)
		goto fail;
	xact_sub_init(&s.sh, h);
	for (uint32_t p = 0; p < s.P; p++)
		s.limit[p] = xact_capped(kp, v->pools[p].size_limit);
	for (uint32_t b = 0; b < s.n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		out[b] = (r->flags & USMP_BUFFER_FIXED)
		                 ? (usmp_placement){r->fixed_pool, 0, r->fixed_offset}
		                 : (usmp_placement){USMP_NO_POOL, 0, 0};
	}
	if ((rc = find_parts(&s)))
		goto fail;
	if (!(s.large = h->alloc(h, s.ncomp ? s.ncomp : 1))) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	/* The time is the knob's, else the host's budget. */
	xact_clock budget = *clk;
	if (budget.deadline == 0 && v->time_limit > 0)
		budget.deadline = xact_now() + v->time_limit;
	tally t = {0, 0, true, 0};
	if ((rc = small_parts(&s, &budget, &t)) ||
	    (rc = large_parts(&s, &budget, &t)))
		goto fail;
	finish(&s, t.searched, t.proven, t.all, t.bound);
	rc = USMP_OK;
fail:
	split_free(&s);
	return rc;
}
