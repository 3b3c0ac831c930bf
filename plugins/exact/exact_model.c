/* exact_model.c — turns a single-pool interval view into the exact planner's
 * model: time sections, conflict lists, fixed obstacles and preorder keys. */
#include "exact_internal.h"
#include "../name_shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refuse problems beyond these: the search recurses once per buffer
 * (XACT_SEARCH_MAX; larger views come split, exact_parts.c) and keeps
 * conflict lists in memory. */
#define MAX_EDGES (UINT64_C(1) << 25)

static void *xalloc(const usmp_host *h, size_t count, size_t elem)
{
	if (count == 0)
		count = 1;
	if (count > SIZE_MAX / elem)
		return NULL;
	void *p = h->alloc(h, count * elem);
	if (p)
		memset(p, 0, count * elem);
	return p;
}

/* Log `fmt` with one string and one number, in that order. */
static void logf_(const usmp_host *h, int level, const char *fmt, const char *a,
                  unsigned long long b)
{
	char msg[256], nm[NAME_SHOWN_MAX];
	snprintf(msg, sizeof msg, fmt, name_shown(a, nm), b);
	h->log(h, level, msg);
}

typedef struct tkey {
	int64_t t;
	uint32_t idx;
} tkey;

static int cmp_tkey(const void *pa, const void *pb)
{
	const tkey *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

uint64_t xact_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

uint32_t xact_first_time(const int64_t *t, uint32_t count, int64_t x)
{
	uint32_t lo = 0, hi = count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t xact_fit(const xact_model *m, uint32_t b, uint64_t o)
{
	uint64_t a = m->align[b], sz = m->size[b];
	o = (o + a - 1) & ~(a - 1);
	if (!m->nfix)
		return o;
	bool moved = true;
	while (moved && o < XACT_MAXVAL) {
		moved = false;
		for (uint64_t k = m->fx_start[b]; k < m->fx_start[b + 1]; k++) {
			uint32_t f = m->fx[k];
			if (o < m->fix_end[f] && m->fix_off[f] < o + sz) {
				o = (m->fix_end[f] + a - 1) & ~(a - 1);
				moved = true;
			}
		}
	}
	return o;
}

void xact_model_free(xact_model *m)
{
	const usmp_host *h = m->host;
	if (!h)
		return;
	if (m->memo) {
		if (m->memo->memo)
			h->free(h, m->memo->memo);
		if (m->memo->keys)
			h->free(h, m->memo->keys);
		h->free(h, m->memo);
	}
	void *ptrs[] = {m->reach, m->twin, m->mem_start, m->mem, m->id, m->size, m->align, m->sl, m->sr, m->nb_start,
	                m->nb, m->fix_off, m->fix_end, m->fix_id, m->fx_start,
	                m->fx, m->width, m->area, m->total};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		if (ptrs[i])
			h->free(h, ptrs[i]);
	memset(m, 0, sizeof *m);
}

/* Checks the view is within the plugin's scope; logs and returns a status. */
static int check_scope(const usmp_view *v, const usmp_host *h)
{
	if (v->pool_count != 1) {
		logf_(h, USMP_LOG_ERROR,
		      "exact: %s%llu pools; only single-pool problems are supported",
		      "", (unsigned long long)v->pool_count);
		return USMP_ERR_UNSUPPORTED;
	}
	if (v->buffer_count && v->conflict_start &&
	    v->conflict_start[v->buffer_count] > 0) {
		h->log(h, USMP_LOG_ERROR,
		       "exact: explicit conflict edges are not supported");
		return USMP_ERR_UNSUPPORTED;
	}
	if (v->buffer_count > XACT_SEARCH_MAX) {
		logf_(h, USMP_LOG_ERROR, "exact: %s%llu buffers is beyond the "
		      "exact search (at most 10000)", "",
		      (unsigned long long)v->buffer_count);
		return USMP_ERR_UNSUPPORTED;
	}
	uint64_t palign = v->pools[0].alignment;
	if (palign == 0 || (palign & (palign - 1)) || palign > (UINT64_C(1) << 40)) {
		logf_(h, USMP_LOG_ERROR, "exact: pool '%s' alignment %llu is not "
		      "a supported power of two", v->pools[0].name,
		      (unsigned long long)palign);
		return USMP_ERR_UNSUPPORTED;
	}
	uint64_t sum = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (b->candidate_count > 1) {
			logf_(h, USMP_LOG_ERROR, "exact: buffer '%s' has %llu "
			      "candidate pools; only one pool is supported",
			      b->name, (unsigned long long)b->candidate_count);
			return USMP_ERR_UNSUPPORTED;
		}
		if (b->alignment == 0 || (b->alignment & (b->alignment - 1)) ||
		    b->alignment > (UINT64_C(1) << 40)) {
			logf_(h, USMP_LOG_ERROR, "exact: buffer '%s' alignment %llu"
			      " is not a supported power of two", b->name,
			      (unsigned long long)b->alignment);
			return USMP_ERR_UNSUPPORTED;
		}
		if (b->size == 0 || b->size >= XACT_MAXVAL / 4) {
			logf_(h, USMP_LOG_ERROR, "exact: buffer '%s' size %llu is "
			      "out of range", b->name, (unsigned long long)b->size);
			return USMP_ERR_UNSUPPORTED;
		}
		if ((b->flags & USMP_BUFFER_LIVE) && b->end <= b->begin) {
			logf_(h, USMP_LOG_ERROR, "exact: buffer '%s' has an empty "
			      "live range (end %llu)", b->name,
			      (unsigned long long)b->end);
			return USMP_ERR_INVALID;
		}
		if (b->flags & USMP_BUFFER_FIXED) {
			if (b->fixed_pool != 0) {
				logf_(h, USMP_LOG_ERROR, "exact: fixed buffer '%s' "
				      "names pool %llu", b->name,
				      (unsigned long long)b->fixed_pool);
				return USMP_ERR_INVALID;
			}
			if (b->fixed_offset >= XACT_MAXVAL / 4) {
				logf_(h, USMP_LOG_ERROR, "exact: fixed buffer '%s' "
				      "offset %llu is out of range", b->name,
				      (unsigned long long)b->fixed_offset);
				return USMP_ERR_UNSUPPORTED;
			}
		}
		uint64_t a = usmp_buffer_alignment(v, i, 0);
		sum += b->size + a;
		if (sum >= XACT_MAXVAL / 4) {
			h->log(h, USMP_LOG_ERROR, "exact: total buffer size is "
			       "beyond the exact search's arithmetic range");
			return USMP_ERR_UNSUPPORTED;
		}
	}
	return USMP_OK;
}

/* Subset sums of the sizes (in units of their gcd) below min(limit, 2 x
 * the fullest section): a bitset shifted and or-ed once per buffer. Skipped
 * (reach stays NULL) when alignment could round an offset up or fixed
 * buffers offer other resting points, or when it would cost too much. */
static void reach_build(xact_model *m, uint64_t limit)
{
	const usmp_host *h = m->host;
	if (m->nfix || m->n == 0)
		return;
	uint64_t u = 0;
	for (uint32_t i = 0; i < m->n; i++)
		u = xact_gcd(u, m->size[i]);
	for (uint32_t i = 0; i < m->n; i++)
		if (u % m->align[i])
			return;
	uint64_t top = m->sect_max > UINT64_MAX / 4 ? limit : 2 * m->sect_max;
	if (limit < top)
		top = limit;
	uint64_t bits = top / u + 1;
	uint64_t words = (bits + 63) / 64;
	if (bits > (UINT64_C(1) << 24) || words * m->n > (UINT64_C(1) << 22))
		return;
	uint64_t *r = xalloc(h, (size_t)words, sizeof *r);
	if (!r)
		return;
	r[0] = 1;
	uint64_t hi = 1; /* bits below hi may be set */
	for (uint32_t i = 0; i < m->n; i++) {
		uint64_t sh = m->size[i] / u;
		if (sh >= bits)
			continue;
		uint64_t ws = sh / 64, bs = sh % 64;
		uint64_t nhi = hi + sh < bits ? hi + sh : bits;
		/* Downwards, so every word read is still the old one. */
		for (uint64_t w = (nhi + 63) / 64; w-- > ws;) {
			uint64_t v = r[w - ws] << bs;
			if (bs && w - ws > 0)
				v |= r[w - ws - 1] >> (64 - bs);
			r[w] |= v;
		}
		hi = nhi;
	}
	if (bits % 64)
		r[words - 1] &= (UINT64_C(1) << (bits % 64)) - 1;
	m->reach = r;
	m->reach_bits = bits;
	m->reach_unit = u;
}

/* Highest set bit of reach at or below i, or UINT64_MAX. */
static uint64_t reach_prev(const xact_model *m, uint64_t i)
{
	uint64_t w = i / 64, word = m->reach[w];
	if (i % 64 != 63)
		word &= (UINT64_C(2) << (i % 64)) - 1;
	for (;;) {
		if (word)
			return w * 64 + 63 - (uint64_t)__builtin_clzll(word);
		if (w == 0)
			return UINT64_MAX;
		word = m->reach[--w];
	}
}

/* Lowest set bit of reach at or above i, or UINT64_MAX. */
static uint64_t reach_next(const xact_model *m, uint64_t i)
{
	uint64_t words = (m->reach_bits + 63) / 64;
	if (i >= m->reach_bits)
		return UINT64_MAX;
	uint64_t w = i / 64, word = m->reach[w] & (~UINT64_C(0) << (i % 64));
	for (;;) {
		if (word)
			return w * 64 + (uint64_t)__builtin_ctzll(word);
		if (++w >= words)
			return UINT64_MAX;
		word = m->reach[w];
	}
}

uint64_t xact_reach_down(const xact_model *m, uint64_t c)
{
	if (!m->reach || c / m->reach_unit >= m->reach_bits)
		return c;
	uint64_t i = reach_prev(m, c / m->reach_unit);
	return i == UINT64_MAX ? 0 : i * m->reach_unit;
}

uint64_t xact_reach_up(const xact_model *m, uint64_t c)
{
	if (!m->reach)
		return c;
	uint64_t u = m->reach_unit, end = m->reach_bits * u;
	if (c >= end)
		return c;
	uint64_t i = reach_next(m, (c + u - 1) / u);
	return i == UINT64_MAX ? end : i * u;
}

static void live_range(const usmp_view *v, uint32_t i, int64_t tmin,
                       int64_t tmax, int64_t *b, int64_t *e)
{
	if (v->buffers[i].flags & USMP_BUFFER_LIVE) {
		*b = v->buffers[i].begin;
		*e = v->buffers[i].end;
	} else {
		*b = tmin;
		*e = tmax;
	}
}

/* Scratch arrays of one model build. */
typedef struct build {
	tkey *order;      /* [n] free buffers by start */
	int64_t *times;   /* [2n] distinct times, sorted */
	uint64_t *sect_tot; /* [nsect] total size of free buffers alive */
	int64_t tmin, tmax;
} build;

/* Counts free and fixed buffers and the span of the live ranges. */
static void count_buffers(xact_model *m, build *bd, const usmp_view *v)
{
	bool any_live = false;
	bd->tmin = 0;
	bd->tmax = 1;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (b->flags & USMP_BUFFER_FIXED)
			m->nfix++;
		else
			m->n++;
		if (b->flags & USMP_BUFFER_LIVE) {
			if (!any_live || b->begin < bd->tmin)
				bd->tmin = b->begin;
			if (!any_live || b->end > bd->tmax)
				bd->tmax = b->end;
			any_live = true;
		}
	}
}

static int alloc_arrays(xact_model *m, build *bd)
{
	const usmp_host *h = m->host;
	uint32_t n = m->n, nfix = m->nfix;
	if (!(m->id = xalloc(h, n, sizeof *m->id)) ||
	    !(m->size = xalloc(h, n, sizeof *m->size)) ||
	    !(m->align = xalloc(h, n, sizeof *m->align)) ||
	    !(m->sl = xalloc(h, n, sizeof *m->sl)) ||
	    !(m->sr = xalloc(h, n, sizeof *m->sr)) ||
	    !(m->nb_start = xalloc(h, (size_t)n + 1, sizeof *m->nb_start)) ||
	    !(m->fix_off = xalloc(h, nfix, sizeof *m->fix_off)) ||
	    !(m->fix_end = xalloc(h, nfix, sizeof *m->fix_end)) ||
	    !(m->fix_id = xalloc(h, nfix, sizeof *m->fix_id)) ||
	    !(m->fx_start = xalloc(h, (size_t)n + 1, sizeof *m->fx_start)) ||
	    !(m->width = xalloc(h, n, sizeof *m->width)) ||
	    !(m->area = xalloc(h, n, sizeof *m->area)) ||
	    !(m->total = xalloc(h, n, sizeof *m->total)) ||
	    !(bd->order = xalloc(h, n, sizeof *bd->order)) ||
	    !(bd->times = xalloc(h, 2 * (size_t)n, sizeof *bd->times)))
		return USMP_ERR_NOMEM;
	return USMP_OK;
}

/* Copies each buffer into the free or the fixed arrays, and the
 * granularity every canonical peak is a multiple of. */
static void fill_buffers(xact_model *m, build *bd, const usmp_view *v)
{
	uint32_t k = 0, kf = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (b->flags & USMP_BUFFER_FIXED) {
			m->fix_id[kf] = i;
			m->fix_off[kf] = b->fixed_offset;
			m->fix_end[kf] = b->fixed_offset + b->size;
			if (m->fix_end[kf] > m->fixed_peak)
				m->fixed_peak = m->fix_end[kf];
			kf++;
			continue;
		}
		m->id[k] = i;
		m->size[k] = b->size;
		m->align[k] = usmp_buffer_alignment(v, i, 0);
		int64_t tb, te;
		live_range(v, i, bd->tmin, bd->tmax, &tb, &te);
		bd->times[2 * k] = tb;
		bd->times[2 * k + 1] = te;
		bd->order[k].t = tb;
		bd->order[k].idx = k;
		m->width[k] = (uint64_t)te - (uint64_t)tb;
		m->area[k] = (double)m->width[k] * (double)b->size;
		k++;
	}
	m->gran = 0;
	for (uint32_t i = 0; i < m->n; i++)
		m->gran = xact_gcd(xact_gcd(m->gran, m->size[i]), m->align[i]);
	for (uint32_t f = 0; f < m->nfix; f++)
		m->gran = xact_gcd(xact_gcd(m->gran, m->fix_off[f]),
		                   m->fix_end[f]);
	if (m->gran == 0)
		m->gran = 1;
}

/* Sections (elementary intervals between consecutive distinct times), each
 * buffer's section range, the section totals and their members. */
static int build_sections(xact_model *m, build *bd, const usmp_view *v)
{
	const usmp_host *h = m->host;
	uint32_t n = m->n, nt = 0;
	int64_t *times = bd->times;
	if (n) {
		qsort(times, 2 * (size_t)n, sizeof *times, cmp_i64);
		for (uint32_t i = 0; i < 2 * n; i++)
			if (nt == 0 || times[nt - 1] != times[i])
				times[nt++] = times[i];
	}
	m->nsect = nt ? nt - 1 : 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t tb, te;
		live_range(v, m->id[i], bd->tmin, bd->tmax, &tb, &te);
		m->sl[i] = xact_first_time(times, nt, tb);
		m->sr[i] = xact_first_time(times, nt, te);
	}
	uint64_t *tot = bd->sect_tot = xalloc(h, m->nsect, sizeof *tot);
	if (!tot)
		return USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t s = m->sl[i]; s < m->sr[i]; s++)
			tot[s] += m->size[i];
	for (uint32_t s = 0; s < m->nsect; s++)
		if (tot[s] > m->sect_max)
			m->sect_max = tot[s];
	/* Members of each section, in buffer order. */
	if (!(m->mem_start = xalloc(h, (size_t)m->nsect + 1, sizeof *m->mem_start)))
		return USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t s = m->sl[i]; s < m->sr[i]; s++)
			m->mem_start[s + 1]++;
	for (uint32_t s = 0; s < m->nsect; s++)
		m->mem_start[s + 1] += m->mem_start[s];
	if (!(m->mem = xalloc(h, m->mem_start[m->nsect], sizeof *m->mem)))
		return USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t s = m->sl[i]; s < m->sr[i]; s++)
			m->mem[m->mem_start[s]++] = i;
	for (uint32_t s = m->nsect; s > 0; s--)
		m->mem_start[s] = m->mem_start[s - 1];
	m->mem_start[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t s = m->sl[i]; s < m->sr[i]; s++)
			if (tot[s] > m->total[i])
				m->total[i] = tot[s];
	return USMP_OK;
}

/* Twins: among buffers starting together, the previous identical one (the
 * order by start section keeps index order within equal starts). */
static int build_twins(xact_model *m, const build *bd, const usmp_view *v)
{
	const tkey *order = bd->order;
	if (!(m->twin = xalloc(m->host, m->n, sizeof *m->twin)))
		return USMP_ERR_NOMEM;
	for (uint32_t a = 0; a < m->n; a++) {
		uint32_t x = order[a].idx;
		const usmp_buffer_rec *bx = &v->buffers[m->id[x]];
		m->twin[x] = UINT32_MAX;
		for (uint32_t c = a; c-- > 0 && m->sl[order[c].idx] == m->sl[x];) {
			uint32_t y = order[c].idx;
			const usmp_buffer_rec *by = &v->buffers[m->id[y]];
			if (m->sr[y] == m->sr[x] && m->size[y] == m->size[x] &&
			    m->align[y] == m->align[x] &&
			    (bx->flags & USMP_BUFFER_LIVE) ==
			            (by->flags & USMP_BUFFER_LIVE)) {
				m->twin[x] = y;
				break;
			}
		}
	}
	return USMP_OK;
}

/* Live-range conflicts among free buffers: a sweep in order of start
 * section, counting in the first pass and filling in the second. */
static int build_conflicts(xact_model *m, const build *bd)
{
	const usmp_host *h = m->host;
	const tkey *order = bd->order;
	uint32_t n = m->n;
	uint64_t edges = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t a = 0; a < n; a++) {
			uint32_t x = order[a].idx;
			for (uint32_t c = a + 1; c < n; c++) {
				uint32_t y = order[c].idx;
				if (m->sl[y] >= m->sr[x])
					break;
				if (pass == 0) {
					m->nb_start[x + 1]++;
					m->nb_start[y + 1]++;
					edges += 2;
				} else {
					m->nb[m->nb_start[x]++] = y;
					m->nb[m->nb_start[y]++] = x;
				}
			}
		}
		if (pass == 1)
			break;
		if (edges > MAX_EDGES) {
			h->log(h, USMP_LOG_ERROR, "exact: too many "
			       "conflicts for the exact search");
			return USMP_ERR_UNSUPPORTED;
		}
		for (uint32_t i = 0; i < n; i++)
			m->nb_start[i + 1] += m->nb_start[i];
		if (!(m->nb = xalloc(h, edges, sizeof *m->nb)))
			return USMP_ERR_NOMEM;
	}
	/* nb_start[i] now holds the end of i's list. */
	for (uint32_t i = n; i > 0; i--)
		m->nb_start[i] = m->nb_start[i - 1];
	m->nb_start[0] = 0;
	return USMP_OK;
}

/* Conflicts between free and fixed buffers; a buffer without a live range
 * is alive throughout, so it meets everything. */
static int build_fixed_conflicts(xact_model *m, const usmp_view *v)
{
	const usmp_host *h = m->host;
	uint32_t n = m->n;
	uint64_t fedges = 0;
	if (!m->nfix)
		return USMP_OK;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			for (uint32_t f = 0; f < m->nfix; f++) {
				const usmp_buffer_rec *bi = &v->buffers[m->id[i]];
				const usmp_buffer_rec *bf = &v->buffers[m->fix_id[f]];
				bool both_live = bi->flags & bf->flags &
				                 USMP_BUFFER_LIVE;
				if (both_live && !usmp_live_overlap(v, m->id[i],
				                                    m->fix_id[f]))
					continue;
				if (pass == 0) {
					m->fx_start[i + 1]++;
					fedges++;
				} else {
					m->fx[m->fx_start[i]++] = f;
				}
			}
		}
		if (pass == 1)
			break;
		if (fedges > MAX_EDGES) {
			h->log(h, USMP_LOG_ERROR, "exact: too many "
			       "conflicts with fixed buffers");
			return USMP_ERR_UNSUPPORTED;
		}
		for (uint32_t i = 0; i < n; i++)
			m->fx_start[i + 1] += m->fx_start[i];
		if (!(m->fx = xalloc(h, fedges, sizeof *m->fx)))
			return USMP_ERR_NOMEM;
	}
	for (uint32_t i = n; i > 0; i--)
		m->fx_start[i] = m->fx_start[i - 1];
	m->fx_start[0] = 0;
	return USMP_OK;
}

int xact_model_build(xact_model *m, const usmp_view *v, const usmp_host *h)
{
	build bd;
	memset(&bd, 0, sizeof bd);
	memset(m, 0, sizeof *m);
	m->host = h;
	int rc = check_scope(v, h);
	if (rc)
		return rc;
	count_buffers(m, &bd, v);
	if ((rc = alloc_arrays(m, &bd)))
		goto fail;
	fill_buffers(m, &bd, v);
	if ((rc = build_sections(m, &bd, v)))
		goto fail;
	/* Conflicts and twins sweep the buffers in order of start section. */
	for (uint32_t i = 0; i < m->n; i++)
		bd.order[i].t = m->sl[i];
	qsort(bd.order, m->n, sizeof *bd.order, cmp_tkey);
	if ((rc = build_twins(m, &bd, v)) || (rc = build_conflicts(m, &bd)) ||
	    (rc = build_fixed_conflicts(m, v)))
		goto fail;
	reach_build(m, v->pools[0].size_limit);
	/* Optional: without it the search only forgets what it learnt. */
	m->memo = xalloc(h, 1, sizeof *m->memo);
fail:
	if (bd.order)
		h->free(h, bd.order);
	if (bd.times)
		h->free(h, bd.times);
	if (bd.sect_tot)
		h->free(h, bd.sect_tot);
	if (rc)
		xact_model_free(m);
	if (rc == USMP_ERR_NOMEM)
		h->log(h, USMP_LOG_ERROR, "exact: out of memory building the model");
	return rc;
}

void xact_sort(uint32_t *idx, uint32_t *tmp, uint32_t count,
               xact_cmp cmp, const void *ctx)
{
	/* Bottom-up merge sort: stable, no recursion, O(count log count). */
	uint32_t *src = idx, *dst = tmp;
	for (uint32_t w = 1; w < count; w *= 2) {
		for (uint32_t lo = 0; lo < count; lo += 2 * w) {
			uint32_t mid = lo + w < count ? lo + w : count;
			uint32_t hi = lo + 2 * w < count ? lo + 2 * w : count;
			uint32_t a = lo, b = mid, o = lo;
			while (a < mid && b < hi)
				dst[o++] = cmp(ctx, src[b], src[a]) < 0 ? src[b++]
				                                         : src[a++];
			while (a < mid)
				dst[o++] = src[a++];
			while (b < hi)
				dst[o++] = src[b++];
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
		if (w > UINT32_MAX / 2)
			break;
	}
	if (src != idx)
		memcpy(idx, src, (size_t)count * sizeof *idx);
}
