/* lowest.c — an example plugin that volunteers for auto: acme_lowest puts
 * each buffer at the lowest offset clear of its placed neighbours. */
#include <usmp/plugin.h>
#include <stdlib.h>
#include <string.h>

/* A u64 knob and a str knob whose values the code checks itself. */
#define LOWEST_KNOBS(X)                                                        \
	X(u64, gap, 0, "guard bytes kept free after every buffer")               \
	X(str, order, size, "placement order: size (largest first) or start")
USMP_ALGORITHM_DECLARE(lowest, LOWEST_KNOBS);

struct key { uint64_t k; uint32_t i; };
struct span { uint64_t lo, hi; };
/* What collect() needs: the placed neighbours of one buffer in one pool. */
struct walk {
	const usmp_view *v;
	const usmp_placement *out;
	const char *placed;
	uint32_t pool;
	uint64_t gap;
	struct span *s;
	uint32_t n;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int by_key_desc(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->k != y->k)
		return x->k > y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int by_lo(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* usmp_neighbor_fn: the bytes a placed neighbour in w->pool keeps. */
static int collect(void *arg, uint32_t other)
{
	struct walk *w = arg;
	if (!w->placed[other] || w->out[other].pool != w->pool)
		return 0;
	uint64_t end = add_sat(w->out[other].offset, w->v->buffers[other].size);
	w->s[w->n++] = (struct span){w->out[other].offset, add_sat(end, w->gap)};
	return 0;
}

/* The lowest offset for buffer b in `pool`, or UINT64_MAX when none fits. */
static uint64_t lowest_offset(const usmp_view *v, const usmp_host *h,
                              struct walk *w, uint32_t b)
{
	uint64_t size = v->buffers[b].size, off = 0;
	uint64_t align = usmp_buffer_alignment(v, b, w->pool);
	bool ok = true;

	w->n = 0;
	h->for_each_neighbor(h, b, collect, w);
	qsort(w->s, w->n, sizeof *w->s, by_lo);
	for (uint32_t s = 0; s < w->n; s++) {
		off = usmp_align_up(off, align, &ok);
		if (!ok)
			return UINT64_MAX;
		if (add_sat(add_sat(off, size), w->gap) <= w->s[s].lo)
			break; /* fits below this neighbour */
		if (w->s[s].hi > off)
			off = w->s[s].hi;
	}
	off = usmp_align_up(off, align, &ok);
	if (!ok || add_sat(off, size) > v->pools[w->pool].size_limit)
		return UINT64_MAX;
	return off;
}

static int lowest(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                  uint64_t gap, const char *order)
{
	int rc = USMP_OK;
	uint32_t n = v->buffer_count, alloc_n = n ? n : 1;
	bool by_start = strcmp(order, "start") == 0;
	struct key *keys = NULL;
	char *placed = NULL;
	struct span *spans = NULL;
	uint64_t *high = NULL, total = 0;

	if (!by_start && strcmp(order, "size") != 0) {
		/* The latest error logged becomes part of the failure message. */
		h->log(h, USMP_LOG_ERROR, "knob order: expected size or start");
		return USMP_ERR_INVALID;
	}
	keys = h->alloc(h, alloc_n * sizeof *keys);
	placed = h->alloc(h, alloc_n);
	spans = h->alloc(h, alloc_n * sizeof *spans);
	high = h->alloc(h, v->pool_count * sizeof *high);
	if (!keys || !placed || !spans || !high) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	memset(high, 0, v->pool_count * sizeof *high);
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		/* Fixed buffers arrive placed in `out`: plan around them. */
		placed[i] = (b->flags & USMP_BUFFER_FIXED) != 0;
		keys[i].i = i;
		if (!by_start)
			keys[i].k = b->size;
		else if (b->flags & USMP_BUFFER_LIVE) /* earliest first */
			keys[i].k = ~((uint64_t)b->begin ^ (UINT64_C(1) << 63));
		else
			keys[i].k = 0;
	}
	qsort(keys, n, sizeof *keys, by_key_desc);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = keys[k].i;
		const usmp_buffer_rec *b = &v->buffers[i];
		if ((k & 1023) == 1023 && h->should_stop(h)) {
			rc = USMP_ERR_STOPPED; /* not anytime: no plan so far */
			goto fail;
		}
		for (uint32_t c = 0; c < b->candidate_count && !placed[i]; c++) {
			struct walk w = {v, out, placed, 0, gap, spans, 0};
			w.pool = v->candidates[b->candidate_start + c];
			uint64_t off = lowest_offset(v, h, &w, i);
			if (off == UINT64_MAX)
				continue;
			out[i] = (usmp_placement){w.pool, 0, off};
			placed[i] = 1;
		}
		if (!placed[i]) {
			h->log(h, USMP_LOG_ERROR,
			       "a buffer fits none of its candidate pools");
			rc = USMP_ERR_INFEASIBLE;
			goto fail;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t end = out[i].offset + v->buffers[i].size;
		if (end > high[out[i].pool])
			high[out[i].pool] = end;
	}
	for (uint32_t p = 0; p < v->pool_count; p++)
		total += high[p];
	h->progress(h, total); /* "best so far: N bytes" at USMP_LOG=debug */
	/* The view's lower bound is proven by the host: reaching it is optimal. */
	if (total == v->lower_bound)
		h->report_bound(h, v->lower_bound, true);
fail:
	h->free(h, keys);
	h->free(h, placed);
	h->free(h, spans);
	h->free(h, high);
	return rc;
}

/* USMP_CAP_PORTFOLIO: auto runs it with its default knobs; cost 2: one run
 * takes about twice first_fit's time. */
static const usmp_algorithm lowest_algo = USMP_ALGORITHM_INIT_COST(
	lowest, "acme_lowest",
	USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS |
		USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_DETERMINISTIC |
		USMP_CAP_PORTFOLIO,
	"each buffer at the lowest offset clear of its placed neighbours", 2.0);

static const usmp_algorithm *const algorithms[] = {&lowest_algo};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "acme",
	.version = "0.1",
	.license = "Apache-2.0",
	.algorithm_count = 1,
	.algorithms = algorithms,
};
