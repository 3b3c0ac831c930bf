/* exact_search.c — the complete search over canonical plans: buffers placed
 * in increasing offset order, each at the lowest offset its placed conflicts
 * leave free, pruned by section inference, gap dominance and decomposition. */
#include "exact_internal.h"

#include <string.h>
#include <time.h>

/* Preorders of the round robin, shuffled runs per round and the fraction
 * of the round's limit each gets (small: MiniMalloc's problems are solved
 * by the preorders, and every node the shuffles take delays them). */
enum { HEURISTICS = 3, SHUFFLES = 16, SHUFFLE_SHARE = 32 };
/* The memo of infeasible parts stops growing at this many key words or
 * entries (at most 16 MiB of keys and 20 MiB of table). */
#define MEMO_WORDS (UINT64_C(1) << 21)
#define MEMO_ENTRIES (UINT64_C(1) << 18)

/* One undo record: the address of a state word and its previous value. */
typedef struct trail_rec {
	uint64_t *p;
	uint64_t old;
} trail_rec;

typedef struct search {
	const xact_model *m;
	xact_clock *clk;
	uint64_t cap;
	uint64_t budget, used;
	bool nomem;
	/* State, all restored through the trail. */
	uint64_t *minoff; /* [n] lowest canonical offset of an unplaced buffer */
	uint64_t *placed; /* [n] 0/1 */
	uint64_t *floor;  /* [nsect] highest end of a placed buffer */
	uint64_t *total;  /* [nsect] size of the unplaced buffers alive there */
	uint64_t *cut;    /* [nsect] unplaced buffers alive in s and s+1 */
	uint64_t *off;    /* [n] offset of placed buffers (not trailed) */
	uint64_t *rank;   /* [n] preorder position within the buffer's part */
	uint64_t *dtot;   /* [n] scratch: largest current section total */
	int heur;         /* preorder in use (index into the key table) */
	uint64_t seed;    /* 0, or the seed of a shuffled preorder */
	trail_rec *trail;
	size_t ntrail, ctrail;
	uint32_t *arena; /* stack of index lists, addressed by position */
	size_t narena, carena;
	uint64_t *side;  /* [2 nsect] scratch of side_maxima() */
	xact_memo *memo; /* the model's memo of infeasible parts */
} search;

double xact_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool xact_should_stop(xact_clock *c)
{
	if (c->stopped)
		return true;
	if (c->deadline > 0 && xact_now() >= c->deadline)
		c->stopped = true;
	else if (c->host && c->host->should_stop && c->host->should_stop(c->host))
		c->stopped = true;
	return c->stopped;
}

static bool set(search *s, uint64_t *p, uint64_t val)
{
	if (s->ntrail == s->ctrail) {
		size_t nc = s->ctrail ? 2 * s->ctrail : 4096;
		const usmp_host *h = s->m->host;
		trail_rec *t = h->realloc(h, s->trail, nc * sizeof *t);
		if (!t) {
			s->nomem = true;
			return false;
		}
		s->trail = t;
		s->ctrail = nc;
	}
	s->trail[s->ntrail].p = p;
	s->trail[s->ntrail].old = *p;
	s->ntrail++;
	*p = val;
	return true;
}

static void undo(search *s, size_t mark)
{
	while (s->ntrail > mark) {
		s->ntrail--;
		*s->trail[s->ntrail].p = s->trail[s->ntrail].old;
	}
}

/* Reserve count entries on the arena stack; returns their position or
 * SIZE_MAX when out of memory. Pointers into the arena die on each call. */
static size_t reserve(search *s, size_t count)
{
	if (s->narena + count > s->carena) {
		size_t nc = s->carena ? s->carena : 4096;
		while (nc < s->narena + count)
			nc *= 2;
		const usmp_host *h = s->m->host;
		uint32_t *a = h->realloc(h, s->arena, nc * sizeof *a);
		if (!a) {
			s->nomem = true;
			return SIZE_MAX;
		}
		s->arena = a;
		s->carena = nc;
	}
	size_t at = s->narena;
	s->narena += count;
	return at;
}

/* Place buffer b at offset o; the boundaries that no unplaced buffer crosses
 * any more are pushed on the arena (as the index of the section after). */
static bool place(search *s, uint32_t b, uint64_t o, bool *hatless)
{
	const xact_model *m = s->m;
	uint64_t end = o + m->size[b];
	s->off[b] = o;
	if (!set(s, &s->placed[b], 1))
		return false;
	*hatless = true;
	for (uint64_t k = m->nb_start[b]; k < m->nb_start[b + 1]; k++) {
		uint32_t c = m->nb[k];
		if (s->placed[c])
			continue;
		*hatless = false;
		if (end > s->minoff[c] &&
		    !set(s, &s->minoff[c], xact_fit(m, c, end)))
			return false;
	}
	for (uint32_t q = m->sl[b]; q < m->sr[b]; q++) {
		if (!set(s, &s->floor[q], end) ||
		    !set(s, &s->total[q], s->total[q] - m->size[b]))
			return false;
		if (q + 1 < m->sr[b]) {
			if (!set(s, &s->cut[q], s->cut[q] - 1))
				return false;
			if (s->cut[q] == 0) {
				size_t at = reserve(s, 1);
				if (at == SIZE_MAX)
					return false;
				s->arena[at] = q + 1;
			}
		}
	}
	return true;
}

/* Section inference: every section of the part must hold its unplaced
 * buffers (those of list[count] not placed) above its floor, the current
 * offset x, and the lowest offset any of them can take. The last test only
 * needs a look at a section's members when even the highest minimum offset
 * of the part would not fit below it. */
static bool sections_fit(const search *s, uint32_t lo, uint32_t hi, uint64_t x,
                         size_t list, uint32_t count)
{
	const xact_model *m = s->m;
	uint64_t top = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t c = s->arena[list + i];
		if (!s->placed[c] && s->minoff[c] > top)
			top = s->minoff[c];
	}
	for (uint32_t q = lo; q < hi; q++) {
		uint64_t f = s->floor[q] > x ? s->floor[q] : x;
		uint64_t t = s->total[q];
		if (f + t > s->cap)
			return false;
		if (t == 0 || s->cap - t >= top)
			continue;
		/* Some unplaced member must be able to start at or below
		 * cap - t, or the section overflows. */
		uint64_t thr = s->cap - t;
		bool ok = false;
		for (uint64_t k = m->mem_start[q]; k < m->mem_start[q + 1] && !ok; k++) {
			uint32_t c = m->mem[k];
			ok = !s->placed[c] && s->minoff[c] <= thr;
		}
		if (!ok)
			return false;
	}
	return true;
}

static int cmp_minoff(const void *ctx, uint32_t a, uint32_t b)
{
	const search *s = ctx;
	if (s->minoff[a] != s->minoff[b])
		return s->minoff[a] < s->minoff[b] ? -1 : 1;
	return s->rank[a] < s->rank[b] ? -1 : s->rank[a] > s->rank[b];
}

static int descend(search *s, uint32_t lo, uint32_t hi, size_t list,
                   uint32_t count, uint64_t x, uint64_t lr);

static int cmp_part(const void *ctx, uint32_t a, uint32_t b);

/* Re-rank the buffers of a new part by the preorder, with the section
 * totals as they are now (MiniMalloc re-sorts each part the same way). */
static bool rerank(search *s, size_t list, uint32_t count)
{
	const xact_model *m = s->m;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t c = s->arena[list + i];
		uint64_t t = 0;
		for (uint32_t q = m->sl[c]; q < m->sr[c]; q++)
			if (s->total[q] > t)
				t = s->total[q];
		s->dtot[c] = t;
	}
	size_t tmp = reserve(s, count);
	if (tmp == SIZE_MAX)
		return false;
	xact_sort(s->arena + list, s->arena + tmp, count, cmp_part, s);
	s->narena = tmp;
	for (uint32_t i = 0; i < count; i++)
		if (!set(s, &s->rank[s->arena[list + i]], i))
			return false;
	return true;
}

static uint64_t mix(uint64_t z);

/* Hash of a part: its range and its buffers, summed so that their order
 * does not matter. Never 0. */
static uint64_t part_hash(const search *s, uint32_t a, uint32_t b, size_t sub,
                          uint32_t k)
{
	uint64_t h = mix(((uint64_t)a << 32) ^ b);
	for (uint32_t i = 0; i < k; i++)
		h += mix(s->arena[sub + i]);
	return h ? h : 1;
}

/* Whether the part (a, b, sub[k]) is known infeasible: a remembered part
 * with the same buffers failed at a capacity at least this one with lowest
 * offsets no higher than these (raising lowest offsets or lowering the
 * capacity only removes plans). */
static bool memo_has(const search *s, uint64_t h, uint32_t a, uint32_t b,
                     uint32_t k)
{
	const xact_model *m = s->m;
	const xact_memo *mm = s->memo;
	if (!mm->cmemo)
		return false;
	for (size_t i = h & (mm->cmemo - 1);; i = (i + 1) & (mm->cmemo - 1)) {
		const xact_memo_ent *e = &mm->memo[i];
		if (!e->hash)
			return false;
		if (e->hash != h || e->len != k || e->a != a || e->b != b ||
		    e->cap < s->cap)
			continue;
		/* Same size, and every stored buffer is an unplaced one of
		 * this part whose lowest offset is at least the stored one:
		 * the same buffers, no freer than then. */
		bool worse = true;
		for (uint32_t j = 0; j < k && worse; j++) {
			uint64_t c = mm->keys[e->at + 2 * j];
			worse = !s->placed[c] && m->sl[c] >= a && m->sl[c] < b &&
			        s->minoff[c] >= mm->keys[e->at + 2 * j + 1];
		}
		if (worse)
			return true;
	}
}

/* Remember an infeasible part; silently does nothing when the memo is full
 * or memory is short (the memo only saves work). */
static void memo_add(search *s, uint64_t h, uint32_t a, uint32_t b, size_t sub,
                     uint32_t k)
{
	const usmp_host *host = s->m->host;
	xact_memo *mm = s->memo;
	if (mm->nkeys + 2 * (size_t)k > MEMO_WORDS || mm->nmemo >= MEMO_ENTRIES)
		return;
	if (2 * (mm->nmemo + 1) > mm->cmemo) {
		size_t nc = mm->cmemo ? 2 * mm->cmemo : 1024;
		xact_memo_ent *t = host->alloc(host, nc * sizeof *t);
		if (!t)
			return;
		memset(t, 0, nc * sizeof *t);
		for (size_t i = 0; i < mm->cmemo; i++) {
			if (!mm->memo[i].hash)
				continue;
			size_t j = mm->memo[i].hash & (nc - 1);
			while (t[j].hash)
				j = (j + 1) & (nc - 1);
			t[j] = mm->memo[i];
		}
		if (mm->memo)
			host->free(host, mm->memo);
		mm->memo = t;
		mm->cmemo = nc;
	}
	if (mm->nkeys + 2 * (size_t)k > mm->ckeys) {
		size_t nc = mm->ckeys ? mm->ckeys : 4096;
		while (nc < mm->nkeys + 2 * (size_t)k)
			nc *= 2;
		uint64_t *t = host->realloc(host, mm->keys, nc * sizeof *t);
		if (!t)
			return;
		mm->keys = t;
		mm->ckeys = nc;
	}
	size_t i = h & (mm->cmemo - 1);
	while (mm->memo[i].hash)
		i = (i + 1) & (mm->cmemo - 1);
	mm->memo[i] = (xact_memo_ent){.hash = h, .cap = s->cap,
	                                     .at = mm->nkeys, .len = k,
	                                     .a = a, .b = b};
	for (uint32_t j = 0; j < k; j++) {
		uint32_t c = s->arena[sub + j];
		mm->keys[mm->nkeys++] = c;
		mm->keys[mm->nkeys++] = s->minoff[c];
	}
	mm->nmemo++;
}

/* Solve the parts between the cut points cuts[ncut] (ascending) of the
 * range [lo, hi) one after the other; the list holds their buffers. Parts
 * are independent, so one that fails fails them all. */
static int split(search *s, uint32_t lo, uint32_t hi, size_t cuts,
                 uint32_t ncut, size_t list, uint32_t count)
{
	for (uint32_t p = 0; p <= ncut; p++) {
		uint32_t a = p ? s->arena[cuts + p - 1] : lo;
		uint32_t b = p < ncut ? s->arena[cuts + p] : hi;
		size_t sub = reserve(s, count);
		if (sub == SIZE_MAX)
			return XACT_NOMEM;
		uint32_t k = 0;
		for (uint32_t i = 0; i < count; i++) {
			uint32_t c = s->arena[list + i];
			if (s->m->sl[c] >= a && s->m->sl[c] < b)
				s->arena[sub + k++] = c;
		}
		/* Each part starts afresh at offset 0: its buffers need only
		 * clear what is placed (their lowest offsets), so the part is
		 * searched whole, whatever order other parts were placed in. */
		uint64_t h = k > 1 && s->memo ? part_hash(s, a, b, sub, k) : 0;
		if (h && memo_has(s, h, a, b, k)) {
			s->narena = sub;
			return XACT_INFEASIBLE;
		}
		if (k && !rerank(s, sub, k))
			return XACT_NOMEM;
		int r = k ? descend(s, a, b, sub, k, 0, 0) : XACT_FOUND;
		if (r == XACT_INFEASIBLE && h)
			memo_add(s, h, a, b, sub, k);
		s->narena = sub;
		if (r != XACT_FOUND)
			return r;
	}
	return XACT_FOUND;
}

/* The lowest top any unplaced buffer of the list can reach (placing
 * anything at or above it would leave a gap that buffer could drop into);
 * 0 when the node is dead. */
static uint64_t lowest_top(const search *s, size_t list, uint32_t count,
                           uint64_t x, uint64_t lr)
{
	const xact_model *m = s->m;
	uint64_t min_top = UINT64_MAX;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t c = s->arena[list + i];
		uint64_t top = s->minoff[c] + m->size[c];
		if (top > s->cap)
			return 0;
		if (top < min_top)
			min_top = top;
		/* A buffer that can no longer go at its lowest offset (below
		 * x, or at x out of rank order) must land on a conflicting
		 * buffer placed later: without one that fits under the
		 * capacity with it on top, this node is dead. */
		if (s->minoff[c] < x || (s->minoff[c] == x && s->rank[c] < lr)) {
			bool ok = false;
			for (uint64_t e = m->nb_start[c]; e < m->nb_start[c + 1] && !ok; e++) {
				uint32_t d = m->nb[e];
				uint64_t od = s->minoff[d] > x ? s->minoff[d] : x;
				ok = !s->placed[d] && od + m->size[d] + m->size[c] <= s->cap;
			}
			if (!ok)
				return 0;
		}
	}
	return min_top;
}

/* The buffers worth placing next, in order of lowest offset, at
 * arena[*cand..+*k]; false when out of memory. */
static bool next_buffers(search *s, size_t list, uint32_t count, uint64_t x,
                         uint64_t lr, uint64_t min_top, size_t *cand_at,
                         uint32_t *k_out)
{
	const xact_model *m = s->m;
	uint32_t k = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t cand = 0;
		if (pass == 1 && (cand = reserve(s, 2 * (size_t)k)) == SIZE_MAX)
			return false;
		k = 0;
		for (uint32_t i = 0; i < count; i++) {
			uint32_t c = s->arena[list + i];
			uint64_t mo = s->minoff[c];
			if (mo >= min_top || mo < x || (mo == x && s->rank[c] < lr))
				continue;
			/* Twins are interchangeable: the lower index goes first. */
			if (m->twin[c] != UINT32_MAX && !s->placed[m->twin[c]])
				continue;
			if (pass == 1)
				s->arena[cand + k] = c;
			k++;
		}
		*cand_at = cand;
	}
	xact_sort(s->arena + *cand_at, s->arena + *cand_at + k, k, cmp_minoff, s);
	*k_out = k;
	return true;
}

/* Prefix and suffix maxima of the sections' unplaced totals over [lo, hi),
 * so a candidate's effect outside its own range is checked in O(1): at
 * side[0..width) and side[width..2 width). One scratch for the whole
 * search: a node recomputes it after each child (the totals are restored
 * by then), so memory does not grow with the depth. */
static void side_maxima(search *s, uint32_t lo, uint32_t hi)
{
	uint32_t width = hi - lo;
	uint64_t *pm = s->side, *sm = s->side + width;
	for (uint32_t q = 0; q < width; q++) {
		uint64_t t = s->total[lo + q];
		pm[q] = q && pm[q - 1] > t ? pm[q - 1] : t;
	}
	for (uint32_t q = width; q-- > 0;) {
		uint64_t t = s->total[lo + q];
		sm[q] = q + 1 < width && sm[q + 1] > t ? sm[q + 1] : t;
	}
}

/* Depth-first search of one part: sections [lo, hi), its unplaced buffers
 * in list[count] (in any order: ties go by rank), the offset x of the last placement and the
 * rank bound lr (buffers at offset x must have rank >= lr). */
static int descend(search *s, uint32_t lo, uint32_t hi, size_t list,
                   uint32_t count, uint64_t x, uint64_t lr)
{
	const xact_model *m = s->m;
	if (count == 0)
		return XACT_FOUND;
	if (++s->used > s->budget)
		return XACT_LIMIT;
	if ((++s->clk->nodes & 1023) == 0 && xact_should_stop(s->clk))
		return XACT_STOPPED;

	uint64_t min_top = lowest_top(s, list, count, x, lr);
	if (min_top == 0)
		return XACT_INFEASIBLE;
	size_t cand;
	uint32_t k;
	if (!next_buffers(s, list, count, x, lr, min_top, &cand, &k))
		return XACT_NOMEM;
	uint32_t width = hi - lo;
	const uint64_t *pm = s->side, *sm = s->side + width;
	bool stale = true; /* side[] needs recomputing */
	for (uint32_t j = 0; j < k; j++) {
		uint32_t c = s->arena[cand + j];
		uint64_t o = s->minoff[c], end = o + m->size[c];
		size_t mark = s->ntrail, amark = s->narena;
		int r = XACT_INFEASIBLE;
		if (stale)
			side_maxima(s, lo, hi);
		stale = false;
		/* Quick section inference before touching the state: outside
		 * c's range only the offset rises to o; inside, the floor rises
		 * to c's end and c leaves the total. */
		uint64_t out = 0;
		if (m->sl[c] > lo)
			out = pm[m->sl[c] - 1 - lo];
		if (m->sr[c] < hi && sm[m->sr[c] - lo] > out)
			out = sm[m->sr[c] - lo];
		if (o + out > s->cap)
			continue;
		bool fits = true;
		for (uint32_t q = m->sl[c]; q < m->sr[c] && fits; q++)
			fits = end + s->total[q] - m->size[c] <= s->cap;
		if (!fits)
			continue;
		bool hatless;
		if (!place(s, c, o, &hatless))
			return XACT_NOMEM;
		uint32_t ncut = (uint32_t)(s->narena - amark);
		if (sections_fit(s, lo, hi, o, list, count)) {
			/* The child's list: this one with c swapped to its end
			 * (swapped back below; on FOUND the order no longer
			 * matters). */
			uint32_t i = 0;
			while (s->arena[list + i] != c)
				i++;
			uint32_t *l = s->arena + list;
			l[i] = l[count - 1];
			l[count - 1] = c;
			if (ncut == 0)
				r = descend(s, lo, hi, list, count - 1, o,
				            s->rank[c] + 1);
			else
				r = split(s, lo, hi, amark, ncut, list, count - 1);
			l = s->arena + list;
			l[count - 1] = l[i];
			l[i] = c;
			stale = true;
		}
		if (r == XACT_FOUND)
			return r;
		undo(s, mark);
		s->narena = amark;
		if (r != XACT_INFEASIBLE)
			return r;
		/* c met no unplaced buffer: any plan below this node could
		 * have c at exactly o, first in line, and that just failed. */
		if (hatless)
			break;
	}
	s->narena = cand;
	return XACT_INFEASIBLE;
}

/* Preorders (MiniMalloc's WAT, TAW, TWA): lifetime Width, Area and the
 * largest current section Total compared in turn, larger first, ties by
 * index. Each part is sorted by one when it is created. */
static const char preorder_keys[HEURISTICS][4] = {"WAT", "TAW", "TWA"};

/* A bijective 64-bit mixer (splitmix64's finaliser) for shuffled ranks. */
static uint64_t mix(uint64_t z)
{
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }

static int cmp_part(const void *ctx, uint32_t a, uint32_t b)
{
	const search *s = ctx;
	const xact_model *m = s->m;
	if (s->seed) {
		uint64_t ha = mix(s->seed ^ a), hb = mix(s->seed ^ b);
		if (ha != hb)
			return ha < hb ? -1 : 1;
	}
	for (int i = 0; i < 3; i++) {
		int r = 0;
		switch (preorder_keys[s->heur][i]) {
		case 'W':
			r = cmp_u64_desc(m->width[a], m->width[b]);
			break;
		case 'T':
			r = cmp_u64_desc(s->dtot[a], s->dtot[b]);
			break;
		default:
			r = m->area[a] > m->area[b] ? -1 : m->area[a] < m->area[b];
			break;
		}
		if (r)
			return r;
	}
	return a < b ? -1 : a > b;
}

static void reset(search *s)
{
	const xact_model *m = s->m;
	s->ntrail = 0;
	s->narena = 0;
	s->used = 0;
	memset(s->placed, 0, m->n * sizeof *s->placed);
	memset(s->floor, 0, m->nsect * sizeof *s->floor);
	memset(s->total, 0, m->nsect * sizeof *s->total);
	memset(s->cut, 0, m->nsect * sizeof *s->cut);
	for (uint32_t b = 0; b < m->n; b++) {
		s->minoff[b] = xact_fit(m, b, 0);
		for (uint32_t q = m->sl[b]; q < m->sr[b]; q++) {
			s->total[q] += m->size[b];
			if (q + 1 < m->sr[b])
				s->cut[q]++;
		}
	}
}

/* One complete search with preorder s->heur and budget s->budget. */
static int run(search *s)
{
	const xact_model *m = s->m;
	reset(s);
	if (m->fixed_peak > s->cap ||
	    !sections_fit(s, 0, m->nsect, 0, 0, 0))
		return XACT_INFEASIBLE;
	size_t list = reserve(s, m->n);
	if (list == SIZE_MAX)
		return XACT_NOMEM;
	for (uint32_t i = 0; i < m->n; i++)
		s->arena[list + i] = i;
	size_t cuts = s->narena;
	for (uint32_t q = 0; q + 1 < m->nsect; q++) {
		if (s->cut[q] == 0) {
			size_t at = reserve(s, 1);
			if (at == SIZE_MAX)
				return XACT_NOMEM;
			s->arena[at] = q + 1;
		}
	}
	uint32_t ncut = (uint32_t)(s->narena - cuts);
	return split(s, 0, m->nsect, cuts, ncut, list, m->n);
}

int xact_solve(const xact_model *m, uint64_t cap,
               uint64_t budget, xact_clock *clk, uint64_t *off)
{
	const usmp_host *h = m->host;
	search s;
	memset(&s, 0, sizeof s);
	s.m = m;
	s.clk = clk;
	/* Peaks are sums of chains of sizes: the largest such sum within the
	 * capacity is as good a capacity, and a tighter one. */
	s.cap = xact_reach_down(m, cap);
	s.memo = m->memo;
	int r = XACT_NOMEM;
	size_t n = m->n, ns = m->nsect ? m->nsect : 1;
	if (!(s.minoff = h->alloc(h, (n ? n : 1) * sizeof *s.minoff)) ||
	    !(s.placed = h->alloc(h, (n ? n : 1) * sizeof *s.placed)) ||
	    !(s.off = h->alloc(h, (n ? n : 1) * sizeof *s.off)) ||
	    !(s.rank = h->alloc(h, (n ? n : 1) * sizeof *s.rank)) ||
	    !(s.dtot = h->alloc(h, (n ? n : 1) * sizeof *s.dtot)) ||
	    !(s.floor = h->alloc(h, ns * sizeof *s.floor)) ||
	    !(s.total = h->alloc(h, ns * sizeof *s.total)) ||
	    !(s.cut = h->alloc(h, ns * sizeof *s.cut)) ||
	    !(s.side = h->alloc(h, 2 * ns * sizeof *s.side)))
		goto done;
	/* Round robin over the preorders with a doubling node limit, as
	 * MiniMalloc does: a complete run of any of them decides. Each round
	 * then makes SHUFFLES short runs (1/SHUFFLE_SHARE of the limit, once
	 * that is at least the buffer count) with the buffers ranked by a seeded
	 * hash: a first choice that leads into a huge failing subtree traps
	 * every run of a fixed preorder, and the shuffled runs escape it
	 * (seeds follow the round, so the search stays deterministic). Parts
	 * proven infeasible by any run stay in the model's memo. */
	uint64_t used = 0, limit = n > 64 ? n : 64, round_seed = 0;
	const uint64_t floor_nodes = limit;
	for (;;) {
		limit = limit > UINT64_MAX / 4 ? UINT64_MAX / 2 : limit * 2;
		int runs = HEURISTICS +
		           (limit / SHUFFLE_SHARE >= floor_nodes ? SHUFFLES : 0);
		for (int k = 0; k < runs; k++) {
			uint64_t lim = k < HEURISTICS ? limit : limit / SHUFFLE_SHARE;
			s.budget = budget - used < lim ? budget - used : lim;
			s.heur = k < HEURISTICS ? k : 0;
			s.seed = k < HEURISTICS ? 0 : ++round_seed;
			r = run(&s);
			used += s.used > s.budget ? s.budget : s.used;
			if (s.nomem)
				r = XACT_NOMEM;
			if (r != XACT_LIMIT)
				goto done;
			if (used >= budget)
				goto done;
		}
	}
done:
	if (r == XACT_FOUND)
		memcpy(off, s.off, n * sizeof *off);
	void *ptrs[] = {s.minoff, s.placed, s.off, s.rank, s.dtot, s.floor, s.total,
	                s.cut, s.trail, s.arena, s.side};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
	return r;
}
