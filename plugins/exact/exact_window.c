/* exact_window.c — large-neighbourhood search for problems too big for the
 * exact search: re-place small time windows of the best plan with it. */
#include "exact_window.h"
#include "../name_shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How it works. Start from a plan (the caller's, with warm=true, else a
 * first fit by decreasing size). Pick a target peak T below the plan's peak.
 * Walk the buffers in time order; for each one still ending above T, take
 * the buffers whose live ranges meet a time window around it (at most
 * `window` of them; centred on it, then reaching back, then ahead) and
 * re-place them with the exact search within [0, T),
 * every other buffer that meets them in time fixed where it is (clipped at
 * T: above T nothing may go anyway). A window that succeeds is applied at
 * once, so the plan stays valid and its peak never rises. When every buffer
 * is below T, T falls (one bold step, then smallest ones); when even the
 * smallest step fails with every window and node budget of the current
 * levels, one more level of larger windows and budgets is allowed, until
 * the lower bound, the deadline or the last level. Results of
 * windows are memoised by their shape (relative times, sizes, neighbours'
 * offsets), so repeated structure (layers, a stream of inputs) is solved
 * once. Everything is counted in search nodes, so the same input and the
 * same finished search give the same plan. */

#define FIRST_BUDGET 2000u    /* nodes of a window at the first level */
#define MAX_LEVEL 5u          /* windows up to window << MAX_LEVEL/2 */
#define CACHE_WORDS (UINT64_C(1) << 23) /* memo keys and results, 64 MiB */

/* ---- the time index and the plan's peak ---------------------------------- */

void xwin_log(const usmp_host *h, int level, const char *fmt,
              unsigned long long a, unsigned long long b,
              unsigned long long c, unsigned long long d)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, a, b, c, d);
	h->log(h, level, msg);
}

/* The first position in ord whose begin is >= t. */
size_t xwin_first_pos(const win *w, int64_t t)
{
	return xact_first_time(w->obeg, w->nr, t);
}

/* Append to out every buffer with a live range meeting [a, b), in ord
 * order, stopping once out holds more than limit. Returns false when out
 * of memory. */
bool xwin_collect(win *w, int64_t a, int64_t b, u32vec *out, size_t limit)
{
	const usmp_buffer_rec *bu = w->v->buffers;
	uint64_t ua = (uint64_t)a - (uint64_t)INT64_MIN;
	int64_t from = ua < w->maxlen ? INT64_MIN
	                              : (int64_t)((uint64_t)a - w->maxlen);
	size_t hi = xwin_first_pos(w, b);
	for (size_t i = xwin_first_pos(w, from); i < hi && out->n <= limit;) {
		if (i % BLK == 0 && w->bend[i / BLK] <= a) {
			i += BLK;
			continue;
		}
		uint32_t x = w->ord[i++];
		if (bu[x].end > a && !push(w->h, out, x))
			return false;
	}
	return true;
}

void xwin_refresh_peak(win *w)
{
	uint64_t p = 0;
	for (uint32_t i = 0; i < w->n; i++)
		if (top_of(w, i) > p)
			p = top_of(w, i);
	w->peak = p;
}

/* ---- the memo ------------------------------------------------------------ */

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h * UINT64_C(0xff51afd7ed558ccd);
}

static bool key_room(win *w, size_t need)
{
	if (need <= w->keycap)
		return true;
	size_t nc = w->keycap ? w->keycap : 1024;
	while (nc < need)
		nc *= 2;
	uint64_t *k = w->h->realloc(w->h, w->key, nc * sizeof *k);
	if (!k)
		return false;
	w->key = k;
	w->keycap = nc;
	return true;
}

static memo_entry *memo_find(win *w, uint64_t hash, size_t len)
{
	if (!w->tabcap)
		return NULL;
	for (uint32_t i = (uint32_t)hash & (w->tabcap - 1);;
	     i = (i + 1) & (w->tabcap - 1)) {
		memo_entry *e = &w->tab[i];
		if (!e->len)
			return NULL;
		if (e->hash == hash && e->len == len &&
		    !memcmp(w->words + e->at, w->key, len * sizeof *w->key))
			return e;
	}
}

/* Remember a result; silently skipped when the memo is full. */
static void memo_put(win *w, uint64_t hash, size_t len, uint32_t result,
                     const uint64_t *sol, uint32_t nsol)
{
	if (len > UINT32_MAX / 2 || w->nwords + len + nsol > CACHE_WORDS)
		return;
	if (2 * (w->tabused + 1) > w->tabcap) {
		uint32_t nc = w->tabcap ? 2 * w->tabcap : 4096;
		memo_entry *t = w->h->alloc(w->h, (size_t)nc * sizeof *t);
		if (!t)
			return;
		memset(t, 0, (size_t)nc * sizeof *t);
		for (uint32_t i = 0; i < w->tabcap; i++) {
			if (!w->tab[i].len)
				continue;
			uint32_t j = (uint32_t)w->tab[i].hash & (nc - 1);
			while (t[j].len)
				j = (j + 1) & (nc - 1);
			t[j] = w->tab[i];
		}
		if (w->tab)
			w->h->free(w->h, w->tab);
		w->tab = t;
		w->tabcap = nc;
	}
	if (w->nwords + len + nsol > w->capwords) {
		uint64_t nc = w->capwords ? w->capwords : 65536;
		while (nc < w->nwords + len + nsol)
			nc *= 2;
		uint64_t *p = w->h->realloc(w->h, w->words, (size_t)nc * sizeof *p);
		if (!p)
			return;
		w->words = p;
		w->capwords = nc;
	}
	uint32_t i = (uint32_t)hash & (w->tabcap - 1);
	while (w->tab[i].len)
		i = (i + 1) & (w->tabcap - 1);
	memo_entry *e = &w->tab[i];
	e->hash = hash;
	e->len = (uint32_t)len;
	e->at = w->nwords;
	e->result = result;
	memcpy(w->words + w->nwords, w->key, len * sizeof *w->key);
	w->nwords += len;
	e->sol = w->nwords;
	if (nsol)
		memcpy(w->words + w->nwords, sol, nsol * sizeof *sol);
	w->nwords += nsol;
	w->tabused++;
}

/* ---- one window ------------------------------------------------------------ */

static bool sub_room(win *w, size_t need)
{
	if (need <= w->sbcap)
		return true;
	size_t nc = w->sbcap ? w->sbcap : 256;
	while (nc < need)
		nc *= 2;
	usmp_buffer_rec *b = w->h->realloc(w->h, w->sb, nc * sizeof *b);
	if (!b)
		return false;
	w->sb = b;
	uint64_t *o = w->h->realloc(w->h, w->soff, nc * sizeof *o);
	if (!o)
		return false;
	w->soff = o;
	w->sbcap = nc;
	return true;
}

/* Order of the free buffers kept when too many meet x: x, then the
 * highest tops. */
typedef struct x_first_ctx {
	const win *w;
	uint32_t x;
} x_first_ctx;

static int cmp_x_then_top(const void *ctx, uint32_t a, uint32_t b)
{
	const x_first_ctx *c = ctx;
	if (a == c->x || b == c->x)
		return a == b ? 0 : a == c->x ? -1 : 1;
	uint64_t ta = top_of(c->w, a), tb = top_of(c->w, b);
	return ta > tb ? -1 : ta < tb;
}

/* Choose the free buffers around buffer x: every non-fixed buffer meeting
 * [begin - pad, end + pad) for the widest pad that keeps them within
 * limit; when even pad 0 gives more, the limit highest ones alive with x. */
/* The time span [*a, *b) around r: pad on both sides (side 0), or twice
 * pad before (side -1) or after (side 1) it, saturating. */
static void span(const usmp_buffer_rec *r, uint64_t pad, int side, int64_t *a,
                 int64_t *b)
{
	uint64_t before = side < 0 ? 2 * pad : side > 0 ? 0 : pad;
	uint64_t after = side > 0 ? 2 * pad : side < 0 ? 0 : pad;
	*a = (uint64_t)r->begin - (uint64_t)INT64_MIN < before
	             ? INT64_MIN : (int64_t)((uint64_t)r->begin - before);
	*b = (uint64_t)INT64_MAX - (uint64_t)r->end < after
	             ? INT64_MAX : (int64_t)((uint64_t)r->end + after);
}

static int choose(win *w, uint32_t x, uint32_t limit, int side)
{
	const usmp_view *v = w->v;
	const usmp_buffer_rec *r = &v->buffers[x];
	uint64_t lo = 0, hi = (uint64_t)1 << 61;
	bool grow = true;
	int64_t a, b;
	/* Largest pad with at most limit free buffers: doubling until too
	 * many, then bisection (a few collects when windows are short). */
	while (lo < hi) {
		uint64_t pad = grow ? (lo ? 2 * lo : 1) : lo + (hi - lo + 1) / 2;
		if (pad > hi)
			pad = hi;
		span(r, pad, side, &a, &b);
		w->tmp.n = 0;
		if (!xwin_collect(w, a, b, &w->tmp, 4 * (size_t)limit + BLK))
			return XACT_NOMEM;
		size_t cnt = 0;
		for (size_t i = 0; i < w->tmp.n && cnt <= limit; i++)
			cnt += !is_fixed(v, w->tmp.p[i]);
		if (cnt <= limit && w->tmp.n <= 4 * (size_t)limit + BLK) {
			lo = pad;
		} else {
			hi = pad - 1;
			grow = false;
		}
	}
	span(r, lo, side, &a, &b);
	w->tmp.n = 0;
	if (!xwin_collect(w, a, b, &w->tmp, SIZE_MAX))
		return XACT_NOMEM;
	w->fr.n = 0;
	for (size_t i = 0; i < w->tmp.n; i++)
		if (!is_fixed(v, w->tmp.p[i]) && !push(w->h, &w->fr, w->tmp.p[i]))
			return XACT_NOMEM;
	if (w->fr.n > limit) {
		/* Keep the highest (ties: earlier in time), then time order:
		 * x first, then by top descending, stable (the merge sort). */
		uint32_t *t = w->h->alloc(w->h, w->fr.n * sizeof *t);
		if (!t)
			return XACT_NOMEM;
		const x_first_ctx c = {w, x};
		xact_sort(w->fr.p, t, (uint32_t)w->fr.n, cmp_x_then_top, &c);
		w->fr.n = limit;
		xact_sort(w->fr.p, t, (uint32_t)w->fr.n, cmp_begin, w);
		w->h->free(w->h, t);
	}
	return XACT_FOUND;
}

/* Re-place the free buffers of the window (w->fr) within [0, cap) around
 * the others met in time, with a node budget. On FOUND the plan is
 * updated. Returns a xact_result. */
static int solve_window(win *w, uint64_t cap, uint64_t budget)
{
	const usmp_view *v = w->v;
	const usmp_host *h = w->h;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < w->fr.n; i++) {
		const usmp_buffer_rec *r = &v->buffers[w->fr.p[i]];
		t0 = r->begin < t0 ? r->begin : t0;
		t1 = r->end > t1 ? r->end : t1;
		w->where[w->fr.p[i]] = (uint32_t)i + 1;
	}
	w->tmp.n = 0;
	w->fx.n = 0;
	int res = XACT_NOMEM;
	if (!xwin_collect(w, t0, t1, &w->tmp, SIZE_MAX))
		goto out;
	for (size_t i = 0; i < w->tmp.n; i++) {
		uint32_t c = w->tmp.p[i];
		if (!w->where[c] && w->off[c] < cap && !push(h, &w->fx, c))
			goto out;
	}
	size_t nf = w->fr.n, nx = w->fx.n, len = 4 + 4 * (nf + nx);
	if (nf + nx > XACT_SEARCH_MAX) { /* what is alive over its span */
		w->too_wide = nf + nx;
		res = XACT_TOO_WIDE;
		goto out;
	}
	if (!sub_room(w, nf + nx) || !key_room(w, len))
		goto out;
	/* The key: shape of the window relative to its first begin. */
	uint64_t *k = w->key, hash = 0;
	k[0] = cap;
	k[1] = budget;
	k[2] = nf;
	k[3] = nx;
	for (size_t i = 0; i < nf + nx; i++) {
		uint32_t c = i < nf ? w->fr.p[i] : w->fx.p[i - nf];
		const usmp_buffer_rec *r = &v->buffers[c];
		uint64_t *q = k + 4 + 4 * i;
		q[0] = (uint64_t)r->begin - (uint64_t)t0;
		q[1] = (uint64_t)r->end - (uint64_t)t0;
		q[2] = i < nf ? r->size : (top_of(w, c) < cap ? top_of(w, c) : cap);
		q[3] = i < nf ? w->al[c] : w->off[c];
	}
	for (size_t i = 0; i < len; i++)
		hash = mix(hash, k[i]);
	memo_entry *e = memo_find(w, hash, len);
	if (e) {
		w->hits++;
		res = (int)e->result;
		if (res == XACT_FOUND)
			for (size_t i = 0; i < nf; i++)
				w->off[w->fr.p[i]] = w->words[e->sol + i];
		goto out;
	}
	/* The sub-problem: free buffers first, then the fixed ones clipped
	 * at cap (nothing free may go above it). */
	for (size_t i = 0; i < nf + nx; i++) {
		uint32_t c = i < nf ? w->fr.p[i] : w->fx.p[i - nf];
		usmp_buffer_rec *s = &w->sb[i];
		*s = v->buffers[c];
		s->name = "window";
		s->candidate_count = 1;
		s->candidate_start = 0;
		s->alignment = w->al[c];
		s->flags = USMP_BUFFER_LIVE;
		if (i >= nf) {
			s->flags |= USMP_BUFFER_FIXED;
			s->fixed_pool = 0;
			s->fixed_offset = w->off[c];
			s->size = k[4 + 4 * i + 2] - w->off[c];
		}
	}
	w->pool.size_limit = cap;
	usmp_view sv = *v;
	sv.struct_size = sizeof sv;
	sv.pool_count = 1;
	sv.pools = &w->pool;
	sv.buffer_count = (uint32_t)(nf + nx);
	sv.buffers = w->sb;
	sv.candidates = &w->cand0;
	sv.conflict_start = NULL;
	sv.conflict_adj = NULL;
	sv.degree = NULL;
	sv.overlaps = NULL;
	sv.overlap_count = 0;
	sv.lower_bound = 0; /* the whole problem's: not this window's */
	xact_model m;
	if (xact_model_build(&m, &sv, h) != USMP_OK) {
		res = XACT_NOMEM;
		goto out;
	}
	w->solves++;
	res = xact_solve(&m, cap, budget, &w->clk, w->soff);
	if (res == XACT_FOUND) /* m.id: the sub-view index, < nf */
		for (uint32_t i = 0; i < m.n; i++)
			w->off[w->fr.p[m.id[i]]] = w->soff[i];
	xact_model_free(&m);
	if (res == XACT_FOUND) {
		for (size_t i = 0; i < nf; i++)
			w->soff[i] = w->off[w->fr.p[i]];
		memo_put(w, hash, len, (uint32_t)res, w->soff, (uint32_t)nf);
	} else if (res == XACT_INFEASIBLE || res == XACT_LIMIT) {
		memo_put(w, hash, len, (uint32_t)res, NULL, 0);
	}
out:
	for (size_t i = 0; i < w->fr.n; i++)
		w->where[w->fr.p[i]] = 0;
	return res;
}

/* ---- the search ------------------------------------------------------------ */

/* Bring every buffer under cap, windows of up to `window << (l / 2)`
 * buffers and FIRST_BUDGET << (2 * l) nodes at levels l = 0..maxlev.
 * Returns FOUND when the whole plan is under cap, LIMIT when some buffer
 * could not be brought down, STOPPED or NOMEM. */
static int repair(win *w, uint64_t cap, uint32_t window, uint32_t maxlev)
{
	const usmp_view *v = w->v;
	for (uint32_t i = 0; i < w->nr; i++) {
		uint32_t x = w->ord[i];
		if (is_fixed(v, x) || top_of(w, x) <= cap)
			continue;
		int r = XACT_LIMIT;
		for (uint32_t l = 0; l <= maxlev && r != XACT_FOUND; l++) {
			if (xact_should_stop(&w->clk))
				return XACT_STOPPED;
			uint64_t lim = (uint64_t)window << (l / 2);
			/* Centred on x, then reaching back, then ahead. */
			for (int side = 0; side < 3 && r != XACT_FOUND;
			     side++) {
				r = choose(w, x, lim > 4096 ? 4096 : (uint32_t)lim,
				           side == 2 ? 1 : -side);
				if (r == XACT_NOMEM)
					return r;
				r = solve_window(w, cap,
				                 (uint64_t)FIRST_BUDGET << (2 * l));
				if (r == XACT_NOMEM || r == XACT_STOPPED ||
				    r == XACT_TOO_WIDE)
					return r;
				if (top_of(w, x) > cap) /* x not in the window */
					r = XACT_LIMIT;
			}
		}
		if (r != XACT_FOUND)
			return XACT_LIMIT;
	}
	/* Buffers without a live range sit at 0 and meet nothing. */
	for (uint32_t i = 0; i < w->n; i++)
		if (!has_range(v, i) && top_of(w, i) > cap)
			return XACT_LIMIT;
	return XACT_FOUND;
}

/* The search stopped at a window whose span meets more buffers than the
 * exact search holds: say so, then what follows (`then`). */
static void too_wide_log(const win *w, int level, const char *then)
{
	char msg[320];
	snprintf(msg, sizeof msg, "exact_window: a window meets %zu buffers "
	         "alive over its span, more than the exact search holds (%u: "
	         "too many buffers are alive at once for windows); %s",
	         w->too_wide, XACT_SEARCH_MAX, then);
	w->h->log(w->h, level, msg);
}

static void report(win *w, uint64_t before)
{
	xwin_refresh_peak(w);
	if (w->peak < before && w->h->progress)
		w->h->progress(w->h, w->peak);
}

static int attempt(win *w, uint64_t c, uint32_t window, uint32_t maxlev)
{
	uint64_t before = w->peak;
	int r = repair(w, c, window, maxlev);
	report(w, before);
	xwin_log(w->h, USMP_LOG_DEBUG, "exact_window: level %llu, target %llu: "
	         "peak %llu after %llu ms", maxlev, (unsigned long long)c,
	         (unsigned long long)w->peak,
	         (unsigned long long)((xact_now() - w->t_start) * 1000));
	return r;
}

/* Targets at each level: once a bold one, a quarter of the way from the
 * lower bound to the peak, then smallest steps (peak - gran: every buffer
 * at the peak a little lower) while they succeed; then the next level.
 * Failed bold steps are the costly part (a pass that fails escalates every
 * window up to the level), so there is one per level; from level 2 on, one
 * that fails sends the search to the next level at once (the small steps
 * below a failed bold target tend to fail slowly too; the next level's
 * bold one often succeeds). Peaks are multiples
 * of gran: so are sizes, alignments and fixed offsets, hence every offset
 * a placement chooses. */
static int improve(win *w, uint64_t lb, uint32_t window)
{
	uint64_t g = w->gran;
	lb = (lb + g - 1) / g * g;
	for (uint32_t lev = 1; lev <= MAX_LEVEL && w->peak > lb; lev++) {
		uint64_t lo = lb;
		bool bold = true;
		while (w->peak > lb) {
			uint64_t c = lo + (w->peak - 1 - lo) / g / 4 * g;
			int r;
			if (bold && c + g < w->peak) {
				bold = false;
				r = attempt(w, c, window, lev);
				if (r == XACT_NOMEM || r == XACT_STOPPED ||
				    r == XACT_TOO_WIDE)
					return r;
				if (r == XACT_FOUND)
					continue;
				lo = c + g;
				if (lev > 1 && lev < MAX_LEVEL)
					break; /* next level's bold step first */
			}
			r = attempt(w, w->peak - g, window, lev);
			if (r == XACT_NOMEM || r == XACT_STOPPED ||
			    r == XACT_TOO_WIDE)
				return r;
			if (r != XACT_FOUND)
				break;
		}
	}
	return XACT_FOUND;
}

/* Scope: one pool, no explicit conflicts, one candidate pool, alignments
 * and sizes the exact model takes. */
static int check(const usmp_view *v, const usmp_host *h)
{
	if (v->pool_count != 1) {
		h->log(h, USMP_LOG_ERROR, "exact_window: only single-pool "
		       "problems are supported");
		return USMP_ERR_UNSUPPORTED;
	}
	if (v->buffer_count && v->conflict_start &&
	    v->conflict_start[v->buffer_count] > 0) {
		h->log(h, USMP_LOG_ERROR, "exact_window: explicit conflict edges "
		       "are not supported");
		return USMP_ERR_UNSUPPORTED;
	}
	uint64_t pa = v->pools[0].alignment;
	if (pa == 0 || (pa & (pa - 1)) || pa > (UINT64_C(1) << 40)) {
		h->log(h, USMP_LOG_ERROR, "exact_window: unsupported pool "
		       "alignment");
		return USMP_ERR_UNSUPPORTED;
	}
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		uint64_t a = b->alignment;
		if (b->candidate_count > 1 || a == 0 || (a & (a - 1)) ||
		    a > (UINT64_C(1) << 40) || b->size == 0 ||
		    b->size >= XACT_MAXVAL / 4 ||
		    ((b->flags & USMP_BUFFER_FIXED) &&
		     (b->fixed_pool != 0 ||
		      b->fixed_offset >= XACT_MAXVAL / 4))) {
			char msg[256], nm[NAME_SHOWN_MAX];
			snprintf(msg, sizeof msg, "exact_window: buffer '%s' is "
			         "beyond its scope (several candidate pools, "
			         "alignment, size or fixed offset)",
			         name_shown(b->name, nm));
			h->log(h, USMP_LOG_ERROR, msg);
			return USMP_ERR_UNSUPPORTED;
		}
		if ((b->flags & USMP_BUFFER_LIVE) && b->end <= b->begin) {
			h->log(h, USMP_LOG_ERROR, "exact_window: empty live range");
			return USMP_ERR_INVALID;
		}
	}
	return USMP_OK;
}

/* Take the caller's plan when warm and every buffer has one in pool 0 that
 * keeps fixed buffers in place and offsets in range. */
static bool take_warm(win *w, const usmp_placement *out)
{
	const usmp_view *v = w->v;
	for (uint32_t i = 0; i < w->n; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (out[i].pool != 0 || out[i].offset >= XACT_MAXVAL / 4 ||
		    (out[i].offset & (w->al[i] - 1)) ||
		    ((b->flags & USMP_BUFFER_FIXED) &&
		     out[i].offset != b->fixed_offset))
			return false;
	}
	for (uint32_t i = 0; i < w->n; i++)
		w->off[i] = out[i].offset;
	return true;
}

static int setup(win *w)
{
	const usmp_view *v = w->v;
	const usmp_host *h = w->h;
	size_t n = w->n ? w->n : 1;
	if (!(w->off = h->alloc(h, n * sizeof *w->off)) ||
	    !(w->al = h->alloc(h, n * sizeof *w->al)) ||
	    !(w->where = h->alloc(h, n * sizeof *w->where)) ||
	    !(w->ord = h->alloc(h, n * sizeof *w->ord)) ||
	    !(w->obeg = h->alloc(h, n * sizeof *w->obeg)) ||
	    !(w->bend = h->alloc(h, (n / BLK + 1) * sizeof *w->bend)))
		return USMP_ERR_NOMEM;
	memset(w->where, 0, n * sizeof *w->where);
	w->gran = 0;
	for (uint32_t i = 0; i < w->n; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		w->al[i] = usmp_buffer_alignment(v, i, 0);
		w->gran = xact_gcd(xact_gcd(w->gran, b->size), w->al[i]);
		if (b->flags & USMP_BUFFER_FIXED)
			w->gran = xact_gcd(w->gran, b->fixed_offset);
		if (!has_range(v, i))
			continue;
		w->ord[w->nr++] = i;
		uint64_t len = (uint64_t)b->end - (uint64_t)b->begin;
		if (len > w->maxlen)
			w->maxlen = len;
	}
	if (!w->gran)
		w->gran = 1;
	/* obeg doubles as the sort's scratch before it holds the begins. */
	xact_sort(w->ord, (uint32_t *)w->obeg, w->nr, cmp_begin, w);
	for (uint32_t i = 0; i < w->nr; i++) {
		const usmp_buffer_rec *b = &v->buffers[w->ord[i]];
		w->obeg[i] = b->begin;
		if (i % BLK == 0 || b->end > w->bend[i / BLK])
			w->bend[i / BLK] = b->end;
	}
	w->pool = v->pools[0];
	w->cand0 = 0;
	return USMP_OK;
}

static void teardown(win *w)
{
	const usmp_host *h = w->h;
	void *ptrs[] = {w->off, w->al, w->where, w->ord, w->obeg, w->bend,
	                w->fr.p, w->fx.p, w->tmp.p, w->sb, w->soff, w->tab,
	                w->words, w->key};
	for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
}

/* xact_window, and for exact's own calls xact_window_nested: may_stop
 * lets the time limit or the host stop the start plan in time order too,
 * with no plan (USMP_ERR_STOPPED). */
static int window_run(const usmp_view *v, const usmp_host *h,
                      usmp_placement *out, uint32_t window,
                      double time_limit, bool warm, bool may_stop)
{
	win w;
	memset(&w, 0, sizeof w);
	w.v = v;
	w.h = h;
	w.may_stop = may_stop;
	w.n = v->buffer_count;
	w.clk.host = h;
	w.t_start = xact_now();
	if (time_limit < 0 || time_limit != time_limit) {
		h->log(h, USMP_LOG_ERROR, "exact_window: time_limit must be >= 0");
		return USMP_ERR_INVALID;
	}
	if (window < 2 || window > 4096) {
		h->log(h, USMP_LOG_ERROR, "exact_window: window must be in "
		       "2..4096");
		return USMP_ERR_INVALID;
	}
	if (time_limit > 0)
		w.clk.deadline = xact_now() + time_limit;
	int rc = check(v, h);
	if (rc)
		return rc;
	rc = setup(&w);
	if (rc)
		goto out;
	bool warmed = warm && take_warm(&w, out);
	if (!warmed && (rc = xwin_start_plan(&w)) != USMP_OK)
		goto out;
	xwin_refresh_peak(&w);
	uint64_t start = w.peak;
	if (h->progress)
		h->progress(h, start);
	/* Fixed buffers stay: the peak is at least the highest of them. */
	uint64_t lb = v->lower_bound;
	for (uint32_t i = 0; i < w.n; i++)
		if (is_fixed(v, i) && top_of(&w, i) > lb)
			lb = top_of(&w, i);
	uint64_t limit = v->pools[0].size_limit;
	int r = XACT_FOUND;
	if (w.peak > limit) {
		/* Bring the plan within the pool first; fail if it will not go. */
		for (uint32_t lev = 1; lev <= MAX_LEVEL && w.peak > limit; lev++) {
			r = repair(&w, limit / w.gran * w.gran, window, lev);
			report(&w, start);
			if (r == XACT_NOMEM || r == XACT_STOPPED ||
			    r == XACT_TOO_WIDE)
				break;
		}
		if (w.peak > limit) {
			rc = r == XACT_NOMEM ? USMP_ERR_NOMEM
			     : r == XACT_STOPPED ? USMP_ERR_STOPPED
			     : r == XACT_TOO_WIDE ? USMP_ERR_UNSUPPORTED
			                                : USMP_ERR_INFEASIBLE;
			if (r == XACT_TOO_WIDE)
				too_wide_log(&w, USMP_LOG_ERROR, "no plan within "
				             "the pool's size limit found");
			else
				h->log(h, USMP_LOG_ERROR, "exact_window: no plan "
				       "within the pool's size limit found");
			goto out;
		}
	}
	if (w.peak > lb)
		r = improve(&w, lb, window);
	if (r == XACT_NOMEM)
		h->log(h, USMP_LOG_WARN, "exact_window: out of memory; "
		       "returning the best plan so far");
	if (r == XACT_TOO_WIDE)
		too_wide_log(&w, USMP_LOG_WARN, "returning the best plan so far");
	xwin_log(h, USMP_LOG_INFO, "exact_window: peak %llu (start %llu), %llu "
	         "windows solved, %llu from the memo", (unsigned long long)w.peak,
	         (unsigned long long)start, (unsigned long long)w.solves,
	         (unsigned long long)w.hits);
	for (uint32_t i = 0; i < w.n; i++)
		out[i] = (usmp_placement){0, 0, w.off[i]};
	rc = USMP_OK;
out:
	teardown(&w);
	return rc;
}

int xact_window(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                uint32_t window, double time_limit, bool warm)
{
	return window_run(v, h, out, window, time_limit, warm, false);
}

int xact_window_nested(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out, uint32_t window,
                       double time_limit, bool warm)
{
	return window_run(v, h, out, window, time_limit, warm, true);
}
