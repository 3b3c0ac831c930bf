/* sweep.c — an example third-party usmp plugin, built against an installed
 * usmp with nothing but `pkg-config --cflags usmp` (it never links libusmp).
 *
 * Two algorithms:
 *  - stack:     every buffer above the previous one in its pool; no reuse at
 *               all. The baseline any planner must beat.
 *  - sweep_fit: buffers in order of their live range's start (a sweep over
 *               time), each at the lowest aligned offset of its first candidate
 *               pool that clears every placed buffer it conflicts with.
 *               Knobs: largest_first (order by size instead of start) and pad
 *               (guard bytes kept free after every buffer, e.g. for DMA
 *               over-fetch).
 *
 * Read docs/plugins.md alongside: every rule of the ABI this file follows is
 * explained there.
 */
#include <usmp/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Check should_stop() once every this many buffers. */
#define SWEEP_STOP_EVERY 1024u

/* A byte range [lo, hi) already taken in the pool being tried. */
typedef struct sweep_range {
	uint64_t lo, hi;
} sweep_range;

typedef struct sweep_ctx {
	const usmp_view *v;
	const usmp_host *h;
	usmp_placement *out;
	uint8_t *placed;     /* [buffer_count] 1 once out[b] is final */
	sweep_range *taken;  /* scratch: ranges of placed neighbours */
	size_t taken_count, taken_cap;
	uint32_t pool;       /* pool being tried by the current placement */
	uint64_t pad;
	int failed;          /* out of memory while collecting neighbours */
} sweep_ctx;

static void sweep_log(const usmp_host *h, int level, const char *fmt,
                      const char *a, const char *b)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, a, b);
	h->log(h, level, msg);
}

/* ---- the algorithms' knobs and prototypes --------------------------------- */

/* Each algorithm's knobs, as X(type, name, default, help) in call order.
 * USMP_ALGORITHM_DECLARE turns a list into the function's prototype and the
 * descriptor's signature and help strings, so that a definition below whose
 * parameters disagree with its list does not compile. */
#define SWEEP_FIT_KNOBS(X)                                                     \
	X(bool, largest_first, false,                                              \
	  "place the largest buffers first instead of sweeping by start time")     \
	X(u32, pad, 0, "guard bytes kept free after every buffer")
USMP_ALGORITHM_DECLARE(sweep_fit, SWEEP_FIT_KNOBS);
USMP_ALGORITHM_DECLARE(stack, USMP_NO_KNOBS);

/* ---- stack -------------------------------------------------------------- */

static int stack(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	uint64_t *top = h->alloc(h, (v->pool_count ? v->pool_count : 1) *
	                                sizeof *top);
	if (!top)
		return USMP_ERR_NOMEM;
	memset(top, 0, v->pool_count * sizeof *top);

	/* Fixed buffers first: nothing may go below their end. */
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (!(r->flags & USMP_BUFFER_FIXED))
			continue;
		uint64_t end = r->fixed_offset + r->size;
		if (end > top[r->fixed_pool])
			top[r->fixed_pool] = end;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t c;

		if (r->flags & USMP_BUFFER_FIXED)
			continue; /* out[b] already holds its placement */
		for (c = 0; c < r->candidate_count; c++) {
			uint32_t pool = v->candidates[r->candidate_start + c];
			bool ok = true;
			uint64_t off = usmp_align_up(top[pool],
			                             usmp_buffer_alignment(v, b, pool), &ok);
			uint64_t end = off + r->size;
			if (!ok || end < off || end > v->pools[pool].size_limit)
				continue;
			out[b].pool = pool;
			out[b].offset = off;
			top[pool] = end;
			break;
		}
		if (c == r->candidate_count) {
			sweep_log(h, USMP_LOG_ERROR, "stack: buffer \"%s\" fits none of "
			          "its pools%s", r->name, "");
			h->free(h, top);
			return USMP_ERR_INFEASIBLE;
		}
	}
	h->free(h, top);
	return USMP_OK;
}

/* ---- sweep_fit ---------------------------------------------------------- */

/* for_each_neighbor visitor: note the bytes a placed neighbour takes in the
 * pool being tried. */
static int collect(void *arg, uint32_t other)
{
	sweep_ctx *c = arg;

	if (!c->placed[other] || c->out[other].pool != c->pool)
		return 0;
	if (c->taken_count == c->taken_cap) {
		size_t cap = c->taken_cap ? 2 * c->taken_cap : 64;
		sweep_range *t = c->h->realloc(c->h, c->taken, cap * sizeof *t);
		if (!t) {
			c->failed = 1;
			return 1; /* stop the walk */
		}
		c->taken = t;
		c->taken_cap = cap;
	}
	uint64_t lo = c->out[other].offset;
	uint64_t hi = lo + c->v->buffers[other].size + c->pad;
	c->taken[c->taken_count++] = (sweep_range){lo, hi < lo ? UINT64_MAX : hi};
	return 0;
}

/* Neighbours without the host service (a host older than it would be;
 * shown for the USMP_HAS_FIELD pattern): live ranges by a scan, explicit
 * edges from the CSR. */
static void collect_by_scan(sweep_ctx *c, uint32_t b)
{
	const usmp_view *v = c->v;
	for (uint32_t o = 0; o < v->buffer_count && !c->failed; o++)
		if (o != b && usmp_live_overlap(v, b, o))
			collect(c, o);
	for (uint64_t k = v->conflict_start[b]; k < v->conflict_start[b + 1] &&
	                                        !c->failed; k++)
		if (!usmp_live_overlap(v, b, v->conflict_adj[k]))
			collect(c, v->conflict_adj[k]);
}

static int by_lo(const void *x, const void *y)
{
	const sweep_range *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Lowest aligned offset in c->pool for buffer b; UINT64_MAX when none fits.
 * Returns non-zero only when out of memory. */
static int lowest_fit(sweep_ctx *c, uint32_t b, uint64_t *offset)
{
	const usmp_view *v = c->v;
	const usmp_host *h = c->h;
	uint64_t need = v->buffers[b].size + c->pad;
	uint64_t align = usmp_buffer_alignment(v, b, c->pool);
	uint64_t limit = v->pools[c->pool].size_limit;
	uint64_t off = 0;
	bool ok = true;

	c->taken_count = 0;
	if (USMP_HAS_FIELD(h, usmp_host, for_each_neighbor) && h->for_each_neighbor)
		h->for_each_neighbor(h, b, collect, c);
	else
		collect_by_scan(c, b);
	if (c->failed)
		return 1;
	qsort(c->taken, c->taken_count, sizeof *c->taken, by_lo);
	/* Ranges sorted by start: slide past each one that overlaps the
	 * candidate [off, off + need). */
	for (size_t i = 0; i < c->taken_count; i++) {
		if (c->taken[i].lo >= off + need && off + need >= off)
			break; /* a gap big enough below this range */
		if (c->taken[i].hi > off)
			off = usmp_align_up(c->taken[i].hi, align, &ok);
		if (!ok)
			break;
	}
	uint64_t end = off + v->buffers[b].size;
	*offset = (!ok || end < off || end > limit) ? UINT64_MAX : off;
	return 0;
}

typedef struct sweep_key {
	int64_t begin;
	uint64_t size;
	uint32_t b;
} sweep_key;

static int by_begin(const void *x, const void *y)
{
	const sweep_key *a = x, *b = y;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static int by_size(const void *x, const void *y)
{
	const sweep_key *a = x, *b = y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The knobs follow `out` in the order of SWEEP_FIT_KNOBS; the signature
 * string it makes is "largest_first:bool=false pad:u32=0". */
static int sweep_fit(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, bool largest_first, uint32_t pad)
{
	sweep_ctx c = {.v = v, .h = h, .out = out, .pad = pad};
	sweep_key *keys = NULL;
	uint32_t n = v->buffer_count;
	int rc = USMP_ERR_NOMEM;

	c.placed = h->alloc(h, n ? n : 1);
	keys = h->alloc(h, (n ? n : 1) * sizeof *keys);
	if (!c.placed || !keys)
		goto fail;
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		c.placed[b] = (r->flags & USMP_BUFFER_FIXED) != 0;
		/* Buffers without a live range (explicit conflicts only) go first. */
		keys[b] = (sweep_key){(r->flags & USMP_BUFFER_LIVE) ? r->begin
		                                                    : INT64_MIN,
		                      r->size, b};
	}
	qsort(keys, n, sizeof *keys, largest_first ? by_size : by_begin);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = keys[i].b;
		const usmp_buffer_rec *r = &v->buffers[b];
		uint64_t off = UINT64_MAX;

		if (c.placed[b])
			continue;
		if (i % SWEEP_STOP_EVERY == 0 && h->should_stop(h)) {
			rc = USMP_ERR_STOPPED; /* not anytime: no partial plans */
			goto fail;
		}
		for (uint32_t k = 0; k < r->candidate_count; k++) {
			c.pool = v->candidates[r->candidate_start + k];
			if (lowest_fit(&c, b, &off))
				goto fail; /* out of memory */
			if (off != UINT64_MAX)
				break;
		}
		if (off == UINT64_MAX) {
			sweep_log(h, USMP_LOG_ERROR, "sweep_fit: buffer \"%s\" fits "
			          "none of its pools%s", r->name,
			          pad ? " (try a smaller pad)" : "");
			rc = USMP_ERR_INFEASIBLE;
			goto fail;
		}
		out[b].pool = c.pool;
		out[b].offset = off;
		c.placed[b] = 1;
	}
	rc = USMP_OK;
fail:
	/* Memory still held at return would be freed (and logged as a leak)
	 * by the host; free it ourselves. */
	h->free(h, c.taken);
	h->free(h, keys);
	h->free(h, c.placed);
	return rc;
}

/* ---- the descriptor ------------------------------------------------------ */

/* USMP_ALGORITHM_INIT(function, name, caps, summary) fills every field,
 * params and param_help from the knob list. */
static const usmp_algorithm stack_algo = USMP_ALGORITHM_INIT(
	stack, "stack",
	USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS |
		USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_DETERMINISTIC,
	"every buffer above the previous one, no reuse (a baseline)");

static const usmp_algorithm sweep_fit_algo = USMP_ALGORITHM_INIT(
	sweep_fit, "sweep_fit",
	USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS |
		USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_DETERMINISTIC,
	"buffers by start time, each at the lowest offset clear of its placed "
	"conflicts");

static const usmp_algorithm *const sweep_algorithms[] = {
	&stack_algo,
	&sweep_fit_algo,
};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER,
	.name = "sweep",
	.version = "1.0.0",
	.license = "Apache-2.0",
	.algorithm_count = sizeof sweep_algorithms / sizeof sweep_algorithms[0],
	.reserved = 0,
	.algorithms = sweep_algorithms,
};
