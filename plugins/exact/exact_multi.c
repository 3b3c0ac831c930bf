/* exact_multi.c — the exact search for several pools, candidate lists and
 * explicit conflict edges: pool choice and offsets branched together. */
#include "exact_internal.h"

#include <stdio.h>
#include <string.h>

/* More buffers than this are refused: the search has no decomposition. */
#define MULTI_MAX 1000
/* ... or whose search would need more memory than this. */
#define MULTI_BYTES (UINT64_C(128) << 20)

/* One move of the search: buffer b into pool p at offset x. */
typedef struct move {
	uint64_t x;
	uint32_t b, p;
	uint32_t pref; /* 0 when p is b's first candidate */
} move;

/* The three searches: rules as plain conflicts; a relaxation where rule
 * pairs may overlap freely; rule pairs sharing as their rules allow. */
enum { MODE_CONFLICTS, MODE_RELAXED, MODE_NATIVE };

typedef struct mp {
	const usmp_view *v;
	const usmp_host *h;
	uint32_t n, P, W;   /* buffers, pools, words per conflict row */
	uint64_t *conf;     /* [n * W] conflict bits in the current mode */
	uint64_t *limit;    /* [P] the pools' limits (capacity applied) */
	uint32_t *rank;     /* [n] tie order of equal offsets: one of */
	uint32_t *prank;    /* [n] larger first, then by index */
	uint32_t *nrank;    /* [n] the same, but each in-place dst (rule with
	                       max_lead 0) before its src; NULL unless every
	                       sharing rule has max_lead <= 0 (native_order) */
	uint32_t *twin;     /* [n] an identical earlier buffer, or UINT32_MAX */
	/* time sections: buffers alive in each (for the stacking bound) */
	uint32_t nsect;
	uint32_t *sect_start, *sect_mem; /* CSR */
	/* the state */
	uint32_t *pool;     /* [n] USMP_NO_POOL when unplaced */
	uint64_t *off;      /* [n] */
	uint32_t *plist;    /* [P * n] placed buffers of each pool, by offset */
	uint32_t *pcount;   /* [P] */
	uint64_t *hw;       /* [P] high-water marks (fixed included) */
	uint64_t spill;     /* bytes placed outside their first candidate */
	uint32_t nfree, nplaced;
	uint64_t last_o;    /* the last move's offset and rank */
	uint32_t last_rank;
	bool started;
	move *moves;        /* [n * (n * P + 1)] scratch, one slice per depth */
	uint64_t *ybuf;     /* [n * P] lowest offset >= last_o per (b, pool) */
	uint64_t *fsum;     /* [P * nsect] forced sizes per pool and section */
	uint64_t *ssum;     /* [nsect] unplaced sizes per section */
	uint64_t *exc;      /* [P * nsect] preferred bytes beyond a pool's room */
	uint32_t *reach;    /* [P * nsect] first section none of them is in */
	uint64_t *dp;       /* [nsect + 1] */
	uint32_t *send;     /* [n] the section after a buffer's last one */
	uint64_t *amask;    /* [n] pools an unplaced buffer may still use */
	uint64_t *zbuf;     /* [2 n] scratch sizes and charges */
	/* the best plan */
	uint32_t *bpool;
	uint64_t *boff;
	bool have;
	uint64_t best_spill, best_total;
	bool first_only;    /* feasibility mode: stop at the first plan */
	bool found;
	bool stop_at_lb;    /* a plan at the host's bound ends the search */
	bool native;        /* lowest() lets rule pairs share as allowed */
	int64_t *leadm;     /* [n * n] max_lead of rule (src, dst), or INT64_MIN */
	bool shared;        /* rule pairs may share in this search */
	int mode;           /* MODE_* of the search running */
	uint64_t *charge;   /* [sect_start[nsect]] bytes a section member adds
	                       at least: its size less what rule partners
	                       listed before it could share with it */
	bool has_target;    /* a plan reaching (tspill, ttotal) ends it too */
	bool root_check;    /* the root's spill bound holds for valid plans */
	uint64_t tspill, ttotal;
	bool done;          /* ... and one was found */
	uint64_t spill_floor; /* no plan spills less (exact_spill.c) */
	xact_clock *clk;
} mp;

static bool conflicts(const mp *s, uint32_t a, uint32_t b)
{
	return (s->conf[(size_t)a * s->W + b / 64] >> (b % 64)) & 1u;
}

static void set_conflict(mp *s, uint32_t a, uint32_t b, bool on)
{
	uint64_t bit = UINT64_C(1) << (b % 64), bit2 = UINT64_C(1) << (a % 64);
	if (on) {
		s->conf[(size_t)a * s->W + b / 64] |= bit;
		s->conf[(size_t)b * s->W + a / 64] |= bit2;
	} else {
		s->conf[(size_t)a * s->W + b / 64] &= ~bit;
		s->conf[(size_t)b * s->W + a / 64] &= ~bit2;
	}
}

static const uint32_t *cands(const mp *s, uint32_t b, uint32_t *count)
{
	const usmp_buffer_rec *r = &s->v->buffers[b];
	if (r->flags & USMP_BUFFER_FIXED) {
		*count = 1;
		return &r->fixed_pool;
	}
	*count = r->candidate_count;
	return s->v->candidates + r->candidate_start;
}

static uint32_t first_cand(const mp *s, uint32_t b)
{
	const usmp_buffer_rec *r = &s->v->buffers[b];
	return s->v->candidates[r->candidate_start];
}

/* The lowest offset >= from, aligned, where b meets no placed buffer of
 * pool p it conflicts with; plist[p] is sorted by offset. */
static uint64_t lowest_native(const mp *s, uint32_t b, uint32_t p,
                              uint64_t from);

static uint64_t lowest(const mp *s, uint32_t b, uint32_t p, uint64_t from)
{
	if (s->native)
		return lowest_native(s, b, p, from);
	bool ok = true;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	uint64_t x = usmp_align_up(from, a, &ok), sz = s->v->buffers[b].size;
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint32_t c = l[i];
		if (!conflicts(s, b, c))
			continue;
		if (s->off[c] >= x + sz)
			break;
		uint64_t e = s->off[c] + s->v->buffers[c].size;
		if (e > x)
			x = usmp_align_up(e, a, &ok);
	}
	return x;
}

/* lowest() when rule pairs may share as their rules allow: a placed
 * partner forbids only the offsets where the pair overlaps and the rule
 * does not hold, so passes repeat until no placed buffer objects. */
static uint64_t lowest_native(const mp *s, uint32_t b, uint32_t p,
                              uint64_t from)
{
	bool ok = true;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	uint64_t x = usmp_align_up(from, a, &ok), sz = s->v->buffers[b].size;
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (bool moved = true; moved;) {
		moved = false;
		for (uint32_t i = 0; i < s->pcount[p]; i++) {
			uint32_t c = l[i];
			if (!conflicts(s, b, c))
				continue;
			uint64_t oc = s->off[c], ec = oc + s->v->buffers[c].size;
			if (oc >= x + sz)
				break;
			if (ec <= x)
				continue;
			uint64_t to = ec;
			int64_t cb = s->leadm[(size_t)c * s->n + b];
			int64_t bc = s->leadm[(size_t)b * s->n + c];
			if (cb != INT64_MIN && (int64_t)x <= (int64_t)oc + cb)
				continue; /* b is dst, at or below oc + lead */
			if (bc != INT64_MIN) {
				/* b is src: fine from oc - lead on */
				if ((int64_t)x >= (int64_t)oc - bc)
					continue;
				if ((int64_t)oc - bc < (int64_t)ec)
					to = (uint64_t)((int64_t)oc - bc);
			}
			x = usmp_align_up(to, a, &ok);
			moved = true;
		}
	}
	return x;
}

/* Insert c into pool p's list, keeping it sorted by offset. */
static void list_insert(mp *s, uint32_t c, uint32_t p)
{
	uint32_t *l = s->plist + (size_t)p * s->n;
	uint32_t i = s->pcount[p]++;
	while (i > 0 && s->off[l[i - 1]] > s->off[c]) {
		l[i] = l[i - 1];
		i--;
	}
	l[i] = c;
}

static void place(mp *s, uint32_t b, uint32_t p, uint64_t x)
{
	s->pool[b] = p;
	s->off[b] = x;
	list_insert(s, b, p);
	if (p != first_cand(s, b))
		s->spill += s->v->buffers[b].size;
}

static void unplace(mp *s, uint32_t b)
{
	uint32_t p = s->pool[b];
	uint32_t *l = s->plist + (size_t)p * s->n;
	uint32_t i = 0;
	while (l[i] != b)
		i++;
	memmove(l + i, l + i + 1, (size_t)(s->pcount[p] - i - 1) * sizeof *l);
	s->pcount[p]--;
	if (p != first_cand(s, b))
		s->spill -= s->v->buffers[b].size;
	s->pool[b] = USMP_NO_POOL;
}

static bool better(const mp *s, uint64_t spill, uint64_t total)
{
	return !s->have || spill < s->best_spill ||
	       (spill == s->best_spill && total < s->best_total);
}

static void record(mp *s)
{
	uint64_t total = 0;
	for (uint32_t p = 0; p < s->P; p++)
		total += s->hw[p];
	if (!better(s, s->spill, total))
		return;
	memcpy(s->bpool, s->pool, (size_t)s->n * sizeof *s->pool);
	memcpy(s->boff, s->off, (size_t)s->n * sizeof *s->off);
	s->have = true;
	s->best_spill = s->spill;
	s->best_total = total;
	if (s->h->progress)
		s->h->progress(s->h, total);
}

static int cmp_move(const move *a, const move *b)
{
	if (a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void sort_moves(move *m, uint32_t k)
{
	for (uint32_t i = 1; i < k; i++) {
		move t = m[i];
		uint32_t j = i;
		while (j > 0 && cmp_move(&t, &m[j - 1]) < 0) {
			m[j] = m[j - 1];
			j--;
		}
		m[j] = t;
	}
}

/* Whole buffers spill: of the unplaced buffers alive in section t that
 * prefer pool p, the ones leaving must free ex bytes of their charges (a
 * charge is at most the size), so at least m leave (m: the fewest whose
 * largest charges reach ex), so at least the m smallest sizes spill. */
static uint64_t cover(mp *s, uint32_t t, uint32_t p, uint64_t ex)
{
	uint64_t *z = s->zbuf, *c = s->zbuf + s->n;
	uint32_t k = 0;
	for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
		uint32_t b = s->sect_mem[i];
		if (s->pool[b] != USMP_NO_POOL || first_cand(s, b) != p ||
		    !(s->amask[b] >> p & 1))
			continue;
		uint64_t sz = s->v->buffers[b].size, ch = s->charge[i];
		uint32_t j = k, h = k++;
		while (j > 0 && z[j - 1] < sz) { /* sizes, descending */
			z[j] = z[j - 1];
			j--;
		}
		z[j] = sz;
		while (h > 0 && c[h - 1] < ch) { /* charges, descending */
			c[h] = c[h - 1];
			h--;
		}
		c[h] = ch;
	}
	uint64_t big = 0, small = 0;
	uint32_t m = 0;
	while (m < k && big < ex)
		big += c[m++];
	for (uint32_t i = 0; i < m; i++)
		small += z[k - 1 - i];
	return small > ex ? small : ex;
}

/* Where each unplaced buffer can still go (amask, with its lowest offsets
 * in ybuf); false when some buffer fits no pool any more. *hard: the spill
 * no completion avoids (buffers whose first pool is out of reach). */
static bool reachable_pools(mp *s, uint64_t *hard_out)
{
	const usmp_view *v = s->v;
	uint64_t hard = s->spill;
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint32_t cc;
		const uint32_t *c = cands(s, b, &cc);
		uint64_t sz = v->buffers[b].size, m = 0;
		for (uint32_t j = 0; j < cc; j++) {
			uint32_t p = c[j];
			uint64_t y = lowest(s, b, p, s->last_o);
			s->ybuf[(size_t)b * s->P + p] = y;
			if (y + sz <= s->limit[p])
				m |= UINT64_C(1) << p;
		}
		if (!m)
			return false;
		uint32_t f = first_cand(s, b);
		if (!(m >> f & 1))
			hard += sz;
		s->amask[b] = m;
	}
	/* A buffer whose spill alone would exceed the best plan's stays in
	 * its first pool: nothing better spills it. */
	for (uint32_t b = 0; b < s->n && s->have; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint32_t f = first_cand(s, b);
		if ((s->amask[b] >> f & 1) &&
		    hard + v->buffers[b].size > s->best_spill)
			s->amask[b] = UINT64_C(1) << f;
	}
	*hard_out = hard;
	return true;
}

/* The node's moves into mv (returns their count), and in base[p] the top
 * every buffer bound to pool p alone reaches at least. */
static uint32_t node_moves(mp *s, uint64_t *base, move *mv)
{
	const usmp_view *v = s->v;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint64_t m = s->amask[b], sz = v->buffers[b].size;
		if (!(m & (m - 1))) {
			uint32_t only = (uint32_t)__builtin_ctzll(m);
			uint64_t e = s->ybuf[(size_t)b * s->P + only] + sz;
			if (e > base[only])
				base[only] = e;
		}
		if (s->twin[b] != UINT32_MAX &&
		    s->pool[s->twin[b]] == USMP_NO_POOL)
			continue;
		/* A move only where nothing lower fits (canonical plans: each
		 * buffer at the lowest offset the buffers before it leave,
		 * offsets in (offset, rank) order). */
		if (s->started && s->rank[b] < s->last_rank) {
			/* at last_o itself it would come out of rank order */
			for (uint32_t p = 0; p < s->P; p++)
				if ((m >> p & 1) &&
				    s->ybuf[(size_t)b * s->P + p] == s->last_o)
					m &= ~(UINT64_C(1) << p);
		}
		for (uint32_t p = 0; p < s->P; p++) {
			if (!(m >> p & 1))
				continue;
			uint64_t y = s->ybuf[(size_t)b * s->P + p];
			if (s->last_o > 0 && lowest(s, b, p, 0) != y)
				continue;
			mv[k++] = (move){y, b, p, p == first_cand(s, b) ? 0 : 1};
		}
	}
	return k;
}

/* Per time section: buffers bound to one pool and alive together stack
 * above the current offset (they conflict pairwise), raising base[p];
 * those preferring a pool beyond its room above it must partly spill; all
 * of them stack somewhere (ssum, used by total_bound). Returns the spill
 * that forces. */
static uint64_t section_spill(mp *s, uint64_t *base)
{
	if (s->nsect)
		memset(s->fsum, 0, (size_t)s->P * s->nsect * sizeof *s->fsum);
	for (uint32_t t = 0; t < s->nsect; t++) {
		uint64_t pref[64] = {0}, all = 0;
		for (uint32_t p = 0; p < s->P; p++)
			s->reach[(size_t)p * s->nsect + t] = t + 1;
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
			uint32_t b = s->sect_mem[i];
			if (s->pool[b] != USMP_NO_POOL)
				continue;
			uint64_t m = s->amask[b], sz = s->charge[i];
			uint32_t f = first_cand(s, b);
			if (m >> f & 1) {
				pref[f] += sz;
				uint32_t *rr = &s->reach[(size_t)f * s->nsect + t];
				if (s->send[b] > *rr)
					*rr = s->send[b];
			}
			all += sz;
			if (!(m & (m - 1)))
				s->fsum[(size_t)__builtin_ctzll(m) * s->nsect + t] += sz;
		}
		s->ssum[t] = all;
		for (uint32_t p = 0; p < s->P; p++) {
			uint64_t f = s->fsum[(size_t)p * s->nsect + t];
			if (f && s->last_o + f > base[p])
				base[p] = s->last_o + f;
			uint64_t room = s->limit[p] > s->last_o
			                        ? s->limit[p] - s->last_o : 0;
			uint64_t ex = pref[p] > room ? pref[p] - room : 0;
			if (ex)
				ex = cover(s, t, p, ex);
			s->exc[(size_t)p * s->nsect + t] = ex;
		}
	}
	/* Sections that share no such buffer spill apart: the best sum of
	 * excesses over sections no buffer joins (a walk in time). */
	uint64_t pref_spill = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		const uint64_t *ex = s->exc + (size_t)p * s->nsect;
		const uint32_t *rr = s->reach + (size_t)p * s->nsect;
		s->dp[s->nsect] = 0;
		for (uint32_t t = s->nsect; t-- > 0;) {
			uint64_t take = ex[t] ? ex[t] + s->dp[rr[t]] : 0;
			s->dp[t] = take > s->dp[t + 1] ? take : s->dp[t + 1];
		}
		pref_spill += s->dp[0];
	}
	return pref_spill;
}

/* A lower bound of the pools' total size from the bases; false when what
 * must go into some pool does not fit it. */
static bool total_bound(mp *s, const uint64_t *base, uint64_t *total_out)
{
	const usmp_view *v = s->v;
	uint64_t total = 0, extra = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		if (base[p] > s->limit[p])
			return false;
		total += base[p];
	}
	/* One buffer with a choice of pools still raises one of them. */
	for (uint32_t b = 0; b < s->n; b++) {
		if (s->pool[b] != USMP_NO_POOL)
			continue;
		uint64_t least = UINT64_MAX, sz = v->buffers[b].size;
		for (uint32_t p = 0; p < s->P; p++) {
			if (!(s->amask[b] >> p & 1))
				continue;
			uint64_t y = s->ybuf[(size_t)b * s->P + p];
			uint64_t e = y + sz > base[p] ? y + sz - base[p] : 0;
			if (e < least)
				least = e;
		}
		if (least != UINT64_MAX && least > extra)
			extra = least;
	}
	total += extra;
	/* Each section's unplaced buffers lie above the current offset, apart
	 * within each pool: what the pools' bases leave above it takes some,
	 * the rest raises the sum. */
	uint64_t slack = 0, sum = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		sum += base[p];
		slack += base[p] > s->last_o ? base[p] - s->last_o : 0;
	}
	for (uint32_t t = 0; t < s->nsect; t++)
		if (s->ssum[t] > slack && sum + s->ssum[t] - slack > total)
			total = sum + s->ssum[t] - slack;
	*total_out = total;
	return true;
}

/* Lower bounds of the node (spill, total) and its moves; false when some
 * unplaced buffer fits no pool any more. */
static bool bound(mp *s, uint64_t *spill_lb, uint64_t *total_lb, move *mv,
                  uint32_t *nmv)
{
	uint64_t base[64], hard, total;
	for (uint32_t p = 0; p < s->P; p++)
		base[p] = s->hw[p];
	if (!reachable_pools(s, &hard))
		return false;
	*nmv = node_moves(s, base, mv);
	uint64_t pref_spill = section_spill(s, base);
	if (!total_bound(s, base, &total))
		return false;
	uint64_t spill = s->spill + pref_spill;
	if (hard > spill)
		spill = hard;
	*spill_lb = spill > s->spill_floor ? spill : s->spill_floor;
	*total_lb = total;
	return true;
}

static int dfs(mp *s, uint32_t depth)
{
	if ((++s->clk->nodes & 1023) == 0 && xact_should_stop(s->clk))
		return XACT_STOPPED;
	if (s->nplaced == s->nfree) {
		record(s);
		s->found = true;
		/* No spill and the host's lower bound: nothing beats it. */
		if (s->stop_at_lb && s->best_spill == 0 &&
		    s->best_total <= s->v->lower_bound)
			s->done = true;
		if (s->has_target && s->best_spill <= s->tspill &&
		    s->best_total <= s->ttotal)
			s->done = true;
		return XACT_FOUND;
	}
	move *mv = s->moves + (size_t)depth * ((size_t)s->n * s->P + 1);
	uint32_t k;
	uint64_t sl, tl;
	if (!bound(s, &sl, &tl, mv, &k))
		return XACT_INFEASIBLE;
	/* The best plan so far (a valid one) meets the root's spill bound and
	 * a size bound of every plan: it is optimal (spill first, then size). */
	if (depth == 0 && s->root_check && s->have && !s->found &&
	    s->best_spill <= sl &&
	    (s->best_total <= s->v->lower_bound || s->best_total <= tl)) {
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
		move m = mv[i];
		uint64_t top = m.x + s->v->buffers[m.b].size;
		place(s, m.b, m.p, m.x);
		if (top > s->hw[m.p])
			s->hw[m.p] = top;
		s->last_o = m.x;
		s->last_rank = s->rank[m.b];
		s->started = true;
		s->nplaced++;
		int r = dfs(s, depth + 1);
		s->nplaced--;
		unplace(s, m.b);
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

/* The greedy's orders: larger first (kind 0); or buffers with fewer
 * candidate pools first (they have nowhere else to go), then larger first
 * (kind 1), earlier first (kind 2, as a schedule allocates) or
 * longer-lived first (kind 3). */
static bool greedy_before(const usmp_view *v, int kind, uint32_t a,
                          uint32_t b)
{
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	if (kind > 0 && x->candidate_count != y->candidate_count)
		return x->candidate_count < y->candidate_count;
	bool lx = x->flags & USMP_BUFFER_LIVE, ly = y->flags & USMP_BUFFER_LIVE;
	if (kind == 2 && lx && ly && x->begin != y->begin)
		return x->begin < y->begin;
	/* Lengths in uint64: end - begin overflows int64 for ranges wider
	 * than 2^63 - 1 (end > begin, so the unsigned difference is exact). */
	uint64_t dx = (uint64_t)x->end - (uint64_t)x->begin;
	uint64_t dy = (uint64_t)y->end - (uint64_t)y->begin;
	if (kind == 3 && lx && ly && dx != dy)
		return dx > dy;
	return x->size > y->size;
}

/* Where the greedy puts b in pool p when rule pairs may share: the lowest
 * offset, or the one sharing most with a placed rule partner (dst at src +
 * min(lead, 0), src at dst - min(lead, 0)) when that fits and raises the
 * pool's top no more. */
static uint64_t onto_partner(const mp *s, uint32_t b, uint32_t p)
{
	uint64_t best = lowest(s, b, p, 0), sz = s->v->buffers[b].size, top = 0;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint64_t e = s->off[l[i]] + s->v->buffers[l[i]].size;
		top = e > top ? e : top;
	}
	uint64_t cost = best + sz > top ? best + sz : top;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint32_t c = l[i];
		int64_t bc = s->leadm[(size_t)b * s->n + c];
		int64_t cb = s->leadm[(size_t)c * s->n + b];
		int64_t oc = (int64_t)s->off[c], x;
		if (cb != INT64_MIN) /* b is dst: at or below oc + lead */
			x = (oc + (cb < 0 ? cb : 0)) / (int64_t)a * (int64_t)a;
		else if (bc != INT64_MIN) /* b is src: from oc - lead on */
			x = (oc - (bc < 0 ? bc : 0) + (int64_t)a - 1) /
			    (int64_t)a * (int64_t)a;
		else
			continue;
		uint64_t e = (uint64_t)x + sz > top ? (uint64_t)x + sz : top;
		if (x < 0 || e > cost ||
		    lowest(s, b, p, (uint64_t)x) != (uint64_t)x)
			continue;
		best = (uint64_t)x;
		cost = e;
	}
	return best;
}

/* A first plan: each buffer, in one of the orders above, at the lowest
 * offset of its first candidate pool where it fits (or, with onto, where
 * onto_partner puts it). Not canonical; only an incumbent. */
static void greedy(mp *s, int kind, bool onto)
{
	const usmp_view *v = s->v;
	uint32_t *order = s->h->alloc(s->h, (size_t)s->n * sizeof *order);
	if (!order)
		return;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++)
		if (s->pool[b] == USMP_NO_POOL)
			order[k++] = b;
	for (uint32_t i = 1; i < k; i++) {
		uint32_t t = order[i], j = i;
		while (j > 0 && greedy_before(v, kind, t, order[j - 1])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = t;
	}
	uint32_t done = 0;
	for (; done < k; done++) {
		uint32_t b = order[done], cc;
		const uint32_t *c = cands(s, b, &cc);
		bool ok = false;
		for (uint32_t j = 0; j < cc && !ok; j++) {
			uint32_t p = c[j];
			uint64_t x = onto ? onto_partner(s, b, p)
			                  : lowest(s, b, p, 0);
			if (x + v->buffers[b].size <= s->limit[p]) {
				place(s, b, p, x);
				ok = true;
			}
		}
		if (!ok)
			break;
	}
	if (done == k) {
		uint64_t save[64];
		memcpy(save, s->hw, (size_t)s->P * sizeof *s->hw);
		for (uint32_t b = 0; b < s->n; b++)
			if (s->pool[b] != USMP_NO_POOL &&
			    s->off[b] + v->buffers[b].size > s->hw[s->pool[b]])
				s->hw[s->pool[b]] = s->off[b] + v->buffers[b].size;
		record(s);
		memcpy(s->hw, save, (size_t)s->P * sizeof *s->hw);
	}
	while (done > 0)
		unplace(s, order[--done]);
	s->h->free(s->h, order);
}

/* Check scope and sizes; logs the reason for a refusal. */
static int check(const usmp_view *v, const usmp_host *h)
{
	char msg[256];
	if (v->buffer_count > MULTI_MAX) {
		snprintf(msg, sizeof msg, "exact: %u buffers with several pools or "
		         "conflict edges is beyond the exact search (at most %d)",
		         v->buffer_count, MULTI_MAX);
		h->log(h, USMP_LOG_ERROR, msg);
		return USMP_ERR_UNSUPPORTED;
	}
	if (v->pool_count > 64) {
		h->log(h, USMP_LOG_ERROR, "exact: more than 64 pools in one part");
		return USMP_ERR_UNSUPPORTED;
	}
	/* The moves of every depth and the rule matrix dominate its memory. */
	uint64_t n = v->buffer_count;
	uint64_t bytes = n * (n * v->pool_count + 1) * sizeof(move) +
	                 n * n * sizeof(int64_t);
	if (bytes > MULTI_BYTES) {
		snprintf(msg, sizeof msg, "exact: %u buffers with %u pools would "
		         "need %llu MiB for the search of several pools (at most "
		         "%llu)", v->buffer_count, v->pool_count,
		         (unsigned long long)(bytes >> 20),
		         (unsigned long long)(MULTI_BYTES >> 20));
		h->log(h, USMP_LOG_ERROR, msg);
		return USMP_ERR_UNSUPPORTED;
	}
	uint64_t sum = 0;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		uint64_t a = v->pools[p].alignment;
		if (a == 0 || (a & (a - 1)) || a > (UINT64_C(1) << 40)) {
			snprintf(msg, sizeof msg, "exact: pool '%s' alignment %llu is "
			         "not a supported power of two", v->pools[p].name,
			         (unsigned long long)a);
			h->log(h, USMP_LOG_ERROR, msg);
			return USMP_ERR_UNSUPPORTED;
		}
		sum += a;
	}
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		uint64_t a = b->alignment;
		if (a == 0 || (a & (a - 1)) || a > (UINT64_C(1) << 40) ||
		    b->size == 0 || b->size >= XACT_MAXVAL / 4 ||
		    b->candidate_count == 0 ||
		    ((b->flags & USMP_BUFFER_FIXED) &&
		     (b->fixed_pool >= v->pool_count ||
		      b->fixed_offset >= XACT_MAXVAL / 4))) {
			snprintf(msg, sizeof msg, "exact: buffer '%s' has a size, "
			         "alignment, candidate list or fixed placement out "
			         "of the exact search's range", b->name);
			h->log(h, USMP_LOG_ERROR, msg);
			return USMP_ERR_UNSUPPORTED;
		}
		sum += b->size + a + ((b->flags & USMP_BUFFER_FIXED) ?
		                      b->fixed_offset : 0);
		if (sum >= XACT_MAXVAL / 4) {
			h->log(h, USMP_LOG_ERROR, "exact: total buffer size is "
			       "beyond the exact search's arithmetic range");
			return USMP_ERR_UNSUPPORTED;
		}
	}
	return USMP_OK;
}

/* Conflict bits: live ranges and edges; in the relaxed mode, a rule pair
 * that could share bytes does not conflict at all. */
static void build_conflicts(mp *s, bool relaxed)
{
	const usmp_view *v = s->v;
	memset(s->conf, 0, (size_t)s->n * s->W * sizeof *s->conf);
	for (uint32_t a = 0; a < s->n; a++) {
		for (uint32_t b = a + 1; b < s->n; b++)
			if (usmp_live_overlap(v, a, b))
				set_conflict(s, a, b, true);
		if (v->conflict_start)
			for (uint64_t e = v->conflict_start[a];
			     e < v->conflict_start[a + 1]; e++)
				set_conflict(s, a, v->conflict_adj[e], true);
	}
	if (!relaxed)
		return;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		int64_t sd = (int64_t)v->buffers[o->dst].size;
		if (o->max_lead > -sd)
			set_conflict(s, o->src, o->dst, false);
	}
}

/* True when a rule (src, dst) could let the pair share a byte. */
static bool share_rule(const mp *s, uint32_t src, uint32_t dst)
{
	int64_t l = s->leadm[(size_t)src * s->n + dst];
	return l != INT64_MIN && l > -(int64_t)s->v->buffers[dst].size;
}

/* The most bytes a rule pair may share, placed as the rule allows: dst at
 * or below src + lead overlaps src by at most min(size(src), size(dst) +
 * min(lead, 0)); 0 without a rule. */
static uint64_t rule_share(const mp *s, uint32_t src, uint32_t dst)
{
	int64_t l = s->leadm[(size_t)src * s->n + dst];
	if (l == INT64_MIN)
		return 0;
	int64_t ss = (int64_t)s->v->buffers[src].size;
	int64_t sd = (int64_t)s->v->buffers[dst].size + (l < 0 ? l : 0);
	int64_t m = ss < sd ? ss : sd;
	return m > 0 ? (uint64_t)m : 0;
}

/* True when some rule lets a conflicting pair share bytes. */
static bool sharing_rules(mp *s)
{
	const usmp_view *v = s->v;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		int64_t sd = (int64_t)v->buffers[o->dst].size;
		if (o->max_lead > -sd && conflicts(s, o->src, o->dst))
			return true;
	}
	return false;
}

/* The best plan obeys every rule (pairs placed apart or as allowed). */
static bool rules_hold(const mp *s)
{
	const usmp_view *v = s->v;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		uint32_t a = o->src, b = o->dst;
		bool conflict = usmp_live_overlap(v, a, b);
		for (uint64_t e = v->conflict_start ? v->conflict_start[a] : 0;
		     v->conflict_start && e < v->conflict_start[a + 1]; e++)
			conflict |= v->conflict_adj[e] == b;
		if (!conflict || s->bpool[a] != s->bpool[b])
			continue;
		uint64_t oa = s->boff[a], ob = s->boff[b];
		if (oa >= ob + v->buffers[b].size || ob >= oa + v->buffers[a].size)
			continue;
		if ((int64_t)ob > (int64_t)oa + o->max_lead)
			return false;
	}
	return true;
}

/* Identical buffers (size, alignment, live range, candidates, conflicts,
 * no rule, not fixed) are placed in index order. */
static void find_twins(mp *s)
{
	const usmp_view *v = s->v;
	for (uint32_t b = 0; b < s->n; b++) {
		s->twin[b] = UINT32_MAX;
		const usmp_buffer_rec *x = &v->buffers[b];
		if (x->flags & USMP_BUFFER_FIXED)
			continue;
		for (uint32_t a = b; a-- > 0;) {
			const usmp_buffer_rec *y = &v->buffers[a];
			if ((y->flags != x->flags) || y->size != x->size ||
			    y->alignment != x->alignment ||
			    ((x->flags & USMP_BUFFER_LIVE) &&
			     (y->begin != x->begin || y->end != x->end)) ||
			    y->candidate_count != x->candidate_count ||
			    memcmp(v->candidates + y->candidate_start,
			           v->candidates + x->candidate_start,
			           x->candidate_count * sizeof *v->candidates))
				continue;
			bool same = true;
			for (uint32_t c = 0; c < s->n && same; c++)
				if (c != a && c != b &&
				    conflicts(s, a, c) != conflicts(s, b, c))
					same = false;
			for (uint64_t r = 0; r < v->overlap_count && same; r++) {
				const usmp_overlap_rec *o = &v->overlaps[r];
				if (o->src == a || o->dst == a || o->src == b ||
				    o->dst == b)
					same = false;
			}
			if (same) {
				s->twin[b] = a;
				break;
			}
		}
	}
}

/* Elementary time sections and the live buffers in each. */
static int build_sections(mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	int64_t *t = h->alloc(h, (2 * (size_t)s->n + 1) * sizeof *t);
	if (!t)
		return USMP_ERR_NOMEM;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++)
		if (v->buffers[b].flags & USMP_BUFFER_LIVE) {
			t[k++] = v->buffers[b].begin;
			t[k++] = v->buffers[b].end;
		}
	for (uint32_t i = 1; i < k; i++) {
		int64_t x = t[i];
		uint32_t j = i;
		while (j > 0 && t[j - 1] > x) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = x;
	}
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!u || t[u - 1] != t[i])
			t[u++] = t[i];
	s->nsect = u > 1 ? u - 1 : 0;
	size_t total = 0;
	s->sect_start = h->alloc(h, ((size_t)s->nsect + 1) * sizeof *s->sect_start);
	if (!s->sect_start)
		goto nomem;
	for (uint32_t q = 0; q < s->nsect; q++) {
		s->sect_start[q] = (uint32_t)total;
		for (uint32_t b = 0; b < s->n; b++) {
			const usmp_buffer_rec *r = &v->buffers[b];
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				total++;
		}
	}
	s->sect_start[s->nsect] = (uint32_t)total;
	s->send = h->alloc(h, (s->n ? s->n : 1) * sizeof *s->send);
	if (!s->send)
		goto nomem;
	for (uint32_t b = 0; b < s->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t e = 0;
		for (uint32_t q = 0; q < s->nsect; q++)
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				e = q + 1;
		s->send[b] = e;
	}
	s->sect_mem = h->alloc(h, (total ? total : 1) * sizeof *s->sect_mem);
	if (!s->sect_mem)
		goto nomem;
	total = 0;
	for (uint32_t q = 0; q < s->nsect; q++)
		for (uint32_t b = 0; b < s->n; b++) {
			const usmp_buffer_rec *r = &v->buffers[b];
			if ((r->flags & USMP_BUFFER_LIVE) && r->begin <= t[q] &&
			    t[q] < r->end)
				s->sect_mem[total++] = b;
		}
	h->free(h, t);
	return USMP_OK;
nomem:
	h->free(h, t);
	return USMP_ERR_NOMEM;
}

/* Whether overlapping a at xa and b at xb obeys a rule between them. */
static bool rule_holds(const mp *s, uint32_t a, uint32_t b, uint64_t xa,
                       uint64_t xb)
{
	int64_t ab = s->leadm[(size_t)a * s->n + b];
	int64_t ba = s->leadm[(size_t)b * s->n + a];
	return (ab != INT64_MIN && (int64_t)xb <= (int64_t)xa + ab) ||
	       (ba != INT64_MIN && (int64_t)xa <= (int64_t)xb + ba);
}

/* Place the fixed buffers; false when two of them clash. */
static bool place_fixed(mp *s)
{
	const usmp_view *v = s->v;
	for (uint32_t b = 0; b < s->n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_FIXED))
			continue;
		uint32_t p = r->fixed_pool;
		const uint32_t *l = s->plist + (size_t)p * s->n;
		for (uint32_t i = 0; i < s->pcount[p]; i++) {
			uint32_t c = l[i];
			if (conflicts(s, b, c) && s->off[c] < r->fixed_offset + r->size &&
			    r->fixed_offset < s->off[c] + v->buffers[c].size &&
			    !(s->native && rule_holds(s, b, c, r->fixed_offset,
			                              s->off[c])))
				return false;
		}
		place(s, b, p, r->fixed_offset);
		if (r->fixed_offset + r->size > s->hw[p])
			s->hw[p] = r->fixed_offset + r->size;
	}
	return true;
}

/* An incumbent from the time-order sweep (exact_sweep.c): every buffer in
 * its first pool (so no spill beyond the fixed buffers'), each pool capped
 * at the most its buffers' charges stack to in one time section (the
 * least any such plan can reach), then, bisecting, at caps between the
 * largest that gave nothing and the best plan (at most 16 sweeps). A
 * plan there is valid with the rules; the search's root bound then proves
 * it or not. */
static void sweep_incumbent(mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	uint32_t *pin = h->alloc(h, (s->n ? s->n : 1) * sizeof *pin);
	uint64_t cap[64], base[64];
	bool open[64] = {false};
	if (!pin)
		return;
	for (uint32_t b = 0; b < s->n; b++) {
		pin[b] = s->pool[b] != USMP_NO_POOL ? s->pool[b] : first_cand(s, b);
		if (s->pool[b] == USMP_NO_POOL)
			open[pin[b]] = true;
	}
	for (uint32_t p = 0; p < s->P; p++)
		base[p] = s->hw[p];
	for (uint32_t b = 0; b < s->n; b++)
		if (v->buffers[b].size > base[pin[b]])
			base[pin[b]] = v->buffers[b].size;
	for (uint32_t t = 0; t < s->nsect; t++) {
		uint64_t sum[64] = {0};
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++)
			sum[pin[s->sect_mem[i]]] += s->charge[i];
		for (uint32_t p = 0; p < s->P; p++)
			if (sum[p] > base[p])
				base[p] = sum[p];
	}
	uint64_t least = 0;
	uint32_t nopen = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		if (base[p] > s->limit[p])
			goto done;
		least += base[p];
		nopen += open[p];
	}
	if (!nopen)
		goto done;
	if (s->have && (s->best_spill < s->spill ||
	                (s->best_spill == s->spill && s->best_total <= least)))
		goto done;
	/* d: what each open pool's cap adds; the least first, then a
	 * bisection between the most that found nothing and the best plan */
	uint64_t lo = 0, hi = s->have ? (s->best_total - least) / nopen : 0;
	for (int k = 0; k < 16; k++) {
		uint64_t d = k == 0 ? 0 : (lo + (hi - lo) / 2) / 16 * 16;
		if (k > 0 && (!s->have || d <= lo || d >= hi))
			break;
		uint64_t tot = 0;
		for (uint32_t p = 0; p < s->P; p++) {
			cap[p] = base[p] + (open[p] ? d : 0);
			if (cap[p] > s->limit[p])
				cap[p] = s->limit[p];
			tot += cap[p];
		}
		if (s->have && s->best_spill == s->spill && tot >= s->best_total)
			break;
		int r = xact_sweep(v, h, pin, cap, 200000 + 4000 * (uint64_t)s->n,
		                   s->clk, s->ybuf);
		char msg[160];
		snprintf(msg, sizeof msg, "exact: sweep at size %llu: %s",
		         (unsigned long long)tot,
		         r == XACT_FOUND ? "plan found" : "none within its budget");
		h->log(h, USMP_LOG_DEBUG, msg);
		if (r == XACT_STOPPED || r == XACT_NOMEM)
			break;
		if (r != XACT_FOUND) {
			lo = d;
			continue;
		}
		hi = d;
		uint64_t hw[64] = {0}, total = 0;
		for (uint32_t b = 0; b < s->n; b++) {
			uint64_t e = s->ybuf[b] + v->buffers[b].size;
			if (e > hw[pin[b]])
				hw[pin[b]] = e;
		}
		for (uint32_t p = 0; p < s->P; p++)
			total += hw[p];
		if (better(s, s->spill, total)) {
			memcpy(s->bpool, pin, (size_t)s->n * sizeof *pin);
			memcpy(s->boff, s->ybuf, (size_t)s->n * sizeof *s->boff);
			s->have = true;
			s->best_spill = s->spill;
			s->best_total = total;
			if (h->progress)
				h->progress(h, total);
		}
		if (k == 0)
			break; /* at the least: nothing is smaller */
	}
done:
	h->free(h, pin);
}

/* One complete search in a mode; the state is reset first, the best plan
 * so far (s->have...) is kept. Returns a xact_result. */
static int run(mp *s, int mode)
{
	bool relaxed = mode == MODE_RELAXED;
	s->mode = mode;
	s->native = mode == MODE_NATIVE;
	/* With the native order the search where pairs share is complete
	 * (native_order), so it starts from the greedy plans too. */
	bool complete_native = s->native && s->nrank;
	s->rank = complete_native ? s->nrank : s->prank;
	build_conflicts(s, relaxed);
	find_twins(s);
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
	/* The host's bound knows rules; a relaxed plan may go below it. */
	s->stop_at_lb = !relaxed;
	if (!place_fixed(s))
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
		place(s, b, p, 0);
		if (sz > s->hw[p])
			s->hw[p] = sz;
	}
	for (uint32_t b = 0; b < s->n; b++)
		s->nplaced += s->pool[b] != USMP_NO_POOL;
	for (uint32_t p = 0; p < s->P; p++)
		if (s->hw[p] > s->limit[p])
			return XACT_INFEASIBLE;
	if (mode == MODE_CONFLICTS || complete_native) {
		for (int kind = 0; kind < 4; kind++)
			greedy(s, kind, false);
		for (int kind = 0; kind < 4 && complete_native; kind++)
			greedy(s, kind, true);
		if (s->have && s->first_only)
			return XACT_FOUND;
		if (s->have && s->best_spill == 0 &&
		    s->best_total <= s->v->lower_bound) {
			s->done = true;
			return XACT_FOUND;
		}
	}
	/* Section bounds: pairs alive together are apart, but for what a
	 * rule lets them share when this search allows it. */
	s->shared = mode != MODE_CONFLICTS;
	for (uint32_t t = 0; t < s->nsect; t++)
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++) {
			uint32_t b = s->sect_mem[i];
			uint64_t sz = s->v->buffers[b].size, sh = 0;
			for (uint32_t j = s->sect_start[t]; j < i && s->shared; j++) {
				uint32_t c = s->sect_mem[j];
				uint64_t sc = s->v->buffers[c].size;
				if (s->native)
					sh += rule_share(s, b, c) + rule_share(s, c, b);
				else if (share_rule(s, b, c) || share_rule(s, c, b))
					sh += sc < sz ? sc : sz;
			}
			s->charge[i] = sz - (sh < sz ? sh : sz);
		}
	if (mode != MODE_RELAXED && !(s->have && s->first_only))
		sweep_incumbent(s);
	if (s->have && s->first_only)
		return XACT_FOUND;
	return dfs(s, 0);
}

static void write_plan(const mp *s, usmp_placement *out)
{
	for (uint32_t b = 0; b < s->n; b++) {
		out[b].pool = s->bpool[b];
		out[b].reserved = 0;
		out[b].offset = s->boff[b];
	}
}

static void mp_free(mp *s)
{
	const usmp_host *h = s->h;
	void *ptrs[] = {s->conf, s->limit, s->prank, s->nrank, s->twin, s->pool, s->off,
	                s->plist, s->pcount, s->hw, s->moves, s->ybuf, s->bpool,
	                s->boff, s->sect_start, s->sect_mem, s->fsum, s->ssum,
	                s->exc, s->reach, s->dp, s->send, s->amask, s->zbuf,
	                s->leadm, s->charge};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* Allocates the search state and fills what does not change between the
 * searches: rules, limits and tie ranks. Returns a usmp_status. */
static int mp_init(mp *s, const usmp_view *v, const usmp_host *h,
                   uint64_t capacity)
{
	s->v = v;
	s->h = h;
	s->n = v->buffer_count;
	s->P = v->pool_count;
	s->W = (s->n + 63) / 64 ? (s->n + 63) / 64 : 1;
	size_t n = s->n ? s->n : 1, P = s->P;
	if (!(s->conf = h->alloc(h, n * s->W * sizeof *s->conf)) ||
	    !(s->limit = h->alloc(h, P * sizeof *s->limit)) ||
	    !(s->prank = h->alloc(h, n * sizeof *s->prank)) ||
	    !(s->twin = h->alloc(h, n * sizeof *s->twin)) ||
	    !(s->pool = h->alloc(h, n * sizeof *s->pool)) ||
	    !(s->off = h->alloc(h, n * sizeof *s->off)) ||
	    !(s->plist = h->alloc(h, P * n * sizeof *s->plist)) ||
	    !(s->pcount = h->alloc(h, P * sizeof *s->pcount)) ||
	    !(s->hw = h->alloc(h, P * sizeof *s->hw)) ||
	    !(s->moves = h->alloc(h, n * (n * P + 1) * sizeof *s->moves)) ||
	    !(s->ybuf = h->alloc(h, n * P * sizeof *s->ybuf)) ||
	    !(s->bpool = h->alloc(h, n * sizeof *s->bpool)) ||
	    !(s->boff = h->alloc(h, n * sizeof *s->boff)) ||
	    !(s->amask = h->alloc(h, n * sizeof *s->amask)) ||
	    !(s->zbuf = h->alloc(h, 2 * n * sizeof *s->zbuf)) ||
	    !(s->leadm = h->alloc(h, n * n * sizeof *s->leadm)))
		return USMP_ERR_NOMEM;
	if (build_sections(s))
		return USMP_ERR_NOMEM;
	size_t ns = s->nsect ? s->nsect : 1;
	size_t nm = s->nsect ? s->sect_start[s->nsect] : 0;
	if (!(s->charge = h->alloc(h, (nm ? nm : 1) * sizeof *s->charge)) ||
	    !(s->fsum = h->alloc(h, P * ns * sizeof *s->fsum)) ||
	    !(s->ssum = h->alloc(h, ns * sizeof *s->ssum)) ||
	    !(s->exc = h->alloc(h, P * ns * sizeof *s->exc)) ||
	    !(s->reach = h->alloc(h, P * ns * sizeof *s->reach)) ||
	    !(s->dp = h->alloc(h, (ns + 1) * sizeof *s->dp)))
		return USMP_ERR_NOMEM;
	for (size_t i = 0; i < n * n; i++)
		s->leadm[i] = INT64_MIN;
	for (uint64_t i = 0; i < v->overlap_count; i++)
		s->leadm[(size_t)v->overlaps[i].src * n + v->overlaps[i].dst] =
			v->overlaps[i].max_lead;
	for (uint32_t p = 0; p < s->P; p++) {
		s->limit[p] = v->pools[p].size_limit;
		if (capacity > 0 && capacity < s->limit[p])
			s->limit[p] = capacity;
	}
	/* Ties at one offset: larger buffers first, then by index. */
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t r = 0;
		for (uint32_t c = 0; c < s->n; c++)
			if (v->buffers[c].size > v->buffers[b].size ||
			    (v->buffers[c].size == v->buffers[b].size && c < b))
				r++;
		s->prank[b] = r;
	}
	s->rank = s->prank;
	s->nfree = s->n; /* nplaced counts the fixed buffers too */
	return USMP_OK;
}

/* When no sharing rule has max_lead > 0, the search where rule pairs
 * share as their rules allow is complete if equal offsets are tied with
 * each in-place dst (max_lead 0) before its src. Proof: move buffers of
 * an optimal plan down one at a time while one can move (never worse);
 * list the end result by (offset, tie order). A buffer b lower than its
 * offset z would fit among the buffers listed before it unless a later c
 * (offset >= z) stops it there; at z, b overlaps such a c, so they share
 * by a rule: b as dst would be above c + lead <= c (already wrong at z);
 * b as src needs c <= z + lead <= z, so c == z, lead == 0, and c (the
 * dst) is listed before b. So every buffer is at the lowest offset the
 * earlier ones leave: the search's canonical plans include it. Sets
 * s->nrank to that order (larger first, then by index, dst before src as
 * a topological order of the rules); leaves it NULL when some sharing rule
 * has max_lead > 0 or the rules close a cycle. Returns a usmp_status. */
static int native_order(mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	size_t n = s->n ? s->n : 1;
	uint32_t *need = NULL, *nr = NULL;
	bool *out = NULL;
	int rc = USMP_OK;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (share_rule(s, o->src, o->dst) && conflicts(s, o->src, o->dst) &&
		    o->max_lead > 0)
			goto done;
	}
	rc = USMP_ERR_NOMEM;
	if (!(need = h->alloc(h, n * sizeof *need)) ||
	    !(nr = h->alloc(h, n * sizeof *nr)) ||
	    !(out = h->alloc(h, n * sizeof *out)))
		goto done;
	memset(need, 0, n * sizeof *need);
	memset(out, 0, n * sizeof *out);
	/* need[src]: its in-place dsts not yet in the order */
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (o->max_lead == 0 && share_rule(s, o->src, o->dst) &&
		    conflicts(s, o->src, o->dst))
			need[o->src]++;
	}
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t pick = UINT32_MAX;
		for (uint32_t b = 0; b < s->n; b++)
			if (!out[b] && !need[b] &&
			    (pick == UINT32_MAX || s->prank[b] < s->prank[pick]))
				pick = b;
		if (pick == UINT32_MAX) { /* a cycle: no such order */
			rc = USMP_OK;
			goto done;
		}
		out[pick] = true;
		nr[pick] = k;
		for (uint64_t r = 0; r < v->overlap_count; r++) {
			const usmp_overlap_rec *o = &v->overlaps[r];
			if (o->dst == pick && o->max_lead == 0 &&
			    share_rule(s, o->src, o->dst) &&
			    conflicts(s, o->src, o->dst))
				need[o->src]--;
		}
	}
	s->nrank = nr;
	nr = NULL;
	rc = USMP_OK;
done:
	if (need)
		h->free(h, need);
	if (nr)
		h->free(h, nr);
	if (out)
		h->free(h, out);
	return rc;
}

/* What the searches proved about the best plan. */
typedef struct outcome {
	bool complete;    /* the searches ran to their end */
	bool proven;      /* the best plan is optimal */
	bool have_bound;  /* bound_total bounds every plan as good in spill */
	uint64_t bound_total;
} outcome;

/* Searches 2 and 3, when rules let pairs share: a relaxation (such pairs
 * may overlap freely) that looks only for something better than search 1
 * found. Nothing better: search 1's plan is optimal with the rules too.
 * Something better that obeys the rules: it is. Returns a usmp_status. */
static int search_rules(mp *s, bool minimize, outcome *oc)
{
	const usmp_host *h = s->h;
	size_t n = s->n ? s->n : 1;
	bool had = s->have;
	uint64_t spill1 = s->best_spill, total1 = s->best_total;
	uint32_t *keep_pool = h->alloc(h, n * sizeof *keep_pool);
	uint64_t *keep_off = h->alloc(h, n * sizeof *keep_off);
	int rc = USMP_ERR_NOMEM;
	if (!keep_pool || !keep_off)
		goto fail;
	memcpy(keep_pool, s->bpool, n * sizeof *keep_pool);
	memcpy(keep_off, s->boff, n * sizeof *keep_off);
	s->root_check = true; /* a relaxation: its bounds hold for all */
	int r2 = run(s, MODE_RELAXED);
	s->root_check = false;
	bool improved = s->have && (!had || s->best_spill < spill1 ||
	                            (s->best_spill == spill1 &&
	                             s->best_total < total1));
	bool holds = improved && rules_hold(s);
	bool b_done = r2 != XACT_STOPPED;
	oc->proven = minimize && b_done && (!improved || holds);
	oc->have_bound = oc->proven;
	if (improved && !holds) {
		/* The relaxed optimum breaks a rule. Search 3: pairs share as
		 * their rules allow (valid plans; not complete alone), from
		 * search 1's plan, until it reaches the relaxed optimum (then
		 * optimal) or ends. */
		uint64_t spill2 = s->best_spill, total2 = s->best_total;
		memcpy(s->bpool, keep_pool, n * sizeof *keep_pool);
		memcpy(s->boff, keep_off, n * sizeof *keep_off);
		s->best_spill = spill1;
		s->best_total = total1;
		s->have = had;
		s->has_target = true;
		s->tspill = spill2;
		s->ttotal = total2;
		int r3 = run(s, MODE_NATIVE);
		s->has_target = false;
		s->native = false;
		if (r3 == XACT_STOPPED)
			b_done = false;
		bool reached = s->have && s->best_spill == spill2 &&
		               s->best_total == total2;
		oc->proven = minimize && b_done && reached;
		oc->have_bound = oc->proven;
		if (minimize && r2 != XACT_STOPPED && s->have &&
		    s->best_spill == spill2) {
			/* The relaxed optimum bounds plans that spill as much. */
			oc->have_bound = true;
			oc->bound_total = total2;
		}
		improved = !s->have;
	} else {
		improved = false;
	}
	rc = USMP_OK;
	if (!s->have && improved) {
		h->log(h, USMP_LOG_ERROR, !b_done ?
		       "exact: stopped before any plan was found" :
		       "exact: no plan found that obeys the overlap rules, "
		       "but a plan sharing more freely fits; the search "
		       "cannot decide whether one obeying them does");
		rc = !b_done ? USMP_ERR_STOPPED : USMP_ERR_UNSUPPORTED;
	}
	if (!s->have && r2 == XACT_STOPPED)
		oc->complete = false;
fail:
	if (keep_pool)
		h->free(h, keep_pool);
	if (keep_off)
		h->free(h, keep_off);
	return rc;
}

/* Logs the outcome, writes the best plan and reports the bound. */
static void finish(const mp *s, const outcome *oc, usmp_placement *out)
{
	const usmp_host *h = s->h;
	char msg[200];
	snprintf(msg, sizeof msg, "exact: %u pools, spill %llu, size %llu, "
	         "%s, %llu search nodes", s->P,
	         (unsigned long long)s->best_spill,
	         (unsigned long long)s->best_total,
	         oc->proven ? "proven optimal" : "not proven",
	         (unsigned long long)s->clk->nodes);
	h->log(h, USMP_LOG_INFO, msg);
	write_plan(s, out);
	if (oc->have_bound && USMP_HAS_FIELD(h, usmp_host, report_bound) &&
	    h->report_bound) {
		uint64_t b = oc->proven ? s->best_total : oc->bound_total;
		if (b > s->best_total)
			b = s->best_total;
		h->report_bound(h, b, oc->proven);
	}
}

/* Start from the caller's plan: it becomes the best so far. */
static void take_start(mp *s, const xact_start *st)
{
	const usmp_view *v = s->v;
	uint64_t hw[64] = {0}, spill = 0, total = 0;
	for (uint32_t b = 0; b < s->n; b++) {
		uint32_t p = st->plan[b].pool;
		uint64_t e = st->plan[b].offset + v->buffers[b].size;
		s->bpool[b] = p;
		s->boff[b] = st->plan[b].offset;
		if (e > hw[p])
			hw[p] = e;
		if (p != first_cand(s, b))
			spill += v->buffers[b].size;
	}
	for (uint32_t p = 0; p < s->P; p++)
		total += hw[p];
	s->have = true;
	s->best_spill = spill;
	s->best_total = total;
}

int xact_multi(const usmp_view *v, const usmp_host *h, usmp_placement *out,
               uint64_t capacity, xact_clock *clk, bool minimize,
               const xact_start *st)
{
	int rc = check(v, h);
	if (rc)
		return rc;
	mp s;
	memset(&s, 0, sizeof s);
	s.clk = clk;
	s.first_only = !minimize;
	if ((rc = mp_init(&s, v, h, capacity)))
		goto fail;
	if (st && st->have)
		take_start(&s, st);
	if (st)
		s.spill_floor = st->spill_floor;

	/* Search 1: rules as plain conflicts (every plan it finds is valid). */
	build_conflicts(&s, false);
	bool rules = sharing_rules(&s);
	if (rules && (rc = native_order(&s)))
		goto fail;
	/* With the native order one search where pairs share decides; else
	 * search 1, then searches 2 and 3 when rules let pairs share. */
	bool one = rules && s.nrank;
	s.root_check = !rules || one;
	int r = run(&s, one ? MODE_NATIVE : MODE_CONFLICTS);
	outcome oc = {.complete = r != XACT_STOPPED};
	oc.proven = oc.complete && minimize;
	oc.have_bound = oc.proven;
	oc.bound_total = s.best_total;
	if (rules && !one && oc.complete && !s.done &&
	    (minimize || !s.have) &&
	    (rc = search_rules(&s, minimize, &oc)))
		goto fail;
	if (!s.have) {
		if (!oc.complete) {
			h->log(h, USMP_LOG_WARN, "exact: stopped before any plan "
			       "was found");
			rc = USMP_ERR_STOPPED;
		} else {
			h->log(h, USMP_LOG_ERROR, "exact: no plan fits the pools' "
			       "limits");
			rc = USMP_ERR_INFEASIBLE;
		}
		goto fail;
	}
	finish(&s, &oc, out);
	rc = USMP_OK;
fail:
	if (rc == USMP_ERR_NOMEM)
		h->log(h, USMP_LOG_ERROR, "exact: out of memory");
	mp_free(&s);
	return rc;
}
