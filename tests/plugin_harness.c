/* plugin_harness.c — calling a built algorithm plugin directly from a test
 * (see plugin_harness.h). Independent of libusmp: its own view, host and
 * brute-force checker, so plugin tests do not depend on the core. */
#include "plugin_harness.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ------------------------------------------------------------ */

const usmp_algorithm *th_algorithm(const char *plugin, const char *algo)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/plugins/%s.so", test_build_root(),
	         plugin);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		fprintf(stderr, "th_algorithm: %s\n", dlerror());
		return NULL;
	}
	const usmp_plugin *d = dlsym(dl, "usmp_plugin_v1");
	if (!d) {
		fprintf(stderr, "th_algorithm: %s: no usmp_plugin_v1\n", path);
		return NULL;
	}
	for (uint32_t i = 0; i < d->algorithm_count; i++)
		if (!strcmp(d->algorithms[i]->name, algo))
			return d->algorithms[i];
	fprintf(stderr, "th_algorithm: %s: no algorithm %s\n", path, algo);
	return NULL;
}

/* ---- problems ------------------------------------------------------------ */

typedef struct th_edge_rec {
	uint32_t a, b;
} th_edge_rec;

struct th_problem {
	usmp_pool_rec *pools;
	uint32_t pool_count;
	usmp_buffer_rec *buffers;
	uint32_t **cands; /* per buffer, NULL = all */
	uint32_t *cand_n;
	uint32_t buffer_count;
	th_edge_rec *edges;
	size_t edge_count;
	usmp_overlap_rec *rules;
	size_t rule_count;
	/* the view and its storage */
	usmp_view view;
	uint32_t *candidates;
	uint64_t *cstart, *degree;
	uint32_t *cadj;
};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "plugin_harness: out of memory\n");
		abort();
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *d = xrealloc(NULL, strlen(s) + 1);
	strcpy(d, s);
	return d;
}

th_problem *th_new(void)
{
	th_problem *p = xrealloc(NULL, sizeof *p);
	memset(p, 0, sizeof *p);
	return p;
}

static void th_drop_view(th_problem *p)
{
	free(p->candidates);
	free(p->cstart);
	free(p->degree);
	free(p->cadj);
	p->candidates = NULL;
	p->cstart = p->degree = NULL;
	p->cadj = NULL;
}

void th_free(th_problem *p)
{
	if (!p)
		return;
	th_drop_view(p);
	for (uint32_t i = 0; i < p->pool_count; i++)
		free((char *)p->pools[i].name);
	for (uint32_t i = 0; i < p->buffer_count; i++) {
		free((char *)p->buffers[i].name);
		free(p->cands[i]);
	}
	free(p->pools);
	free(p->buffers);
	free(p->cands);
	free(p->cand_n);
	free(p->edges);
	free(p->rules);
	free(p);
}

uint32_t th_pool(th_problem *p, const char *name, uint64_t limit,
                 uint64_t alignment)
{
	p->pools = xrealloc(p->pools, (p->pool_count + 1) * sizeof *p->pools);
	usmp_pool_rec *r = &p->pools[p->pool_count];
	r->name = xstrdup(name);
	r->size_limit = limit;
	r->alignment = alignment ? alignment : 1;
	return p->pool_count++;
}

static uint32_t th_add(th_problem *p, const char *name, uint64_t size,
                       uint64_t alignment)
{
	uint32_t n = p->buffer_count;
	p->buffers = xrealloc(p->buffers, (n + 1) * sizeof *p->buffers);
	p->cands = xrealloc(p->cands, (n + 1) * sizeof *p->cands);
	p->cand_n = xrealloc(p->cand_n, (n + 1) * sizeof *p->cand_n);
	usmp_buffer_rec *r = &p->buffers[n];
	memset(r, 0, sizeof *r);
	r->name = xstrdup(name);
	r->size = size;
	r->alignment = alignment ? alignment : 1;
	p->cands[n] = NULL;
	p->cand_n[n] = 0;
	return p->buffer_count++;
}

uint32_t th_buffer(th_problem *p, const char *name, uint64_t size,
                   uint64_t alignment, int64_t begin, int64_t end)
{
	uint32_t b = th_add(p, name, size, alignment);
	p->buffers[b].flags |= USMP_BUFFER_LIVE;
	p->buffers[b].begin = begin;
	p->buffers[b].end = end;
	return b;
}

uint32_t th_buffer_nolive(th_problem *p, const char *name, uint64_t size,
                          uint64_t alignment)
{
	return th_add(p, name, size, alignment);
}

void th_candidates(th_problem *p, uint32_t b, uint32_t count,
                   const uint32_t *pools)
{
	free(p->cands[b]);
	p->cands[b] = xrealloc(NULL, count * sizeof(uint32_t));
	memcpy(p->cands[b], pools, count * sizeof(uint32_t));
	p->cand_n[b] = count;
}

void th_fixed(th_problem *p, uint32_t b, uint32_t pool, uint64_t offset)
{
	p->buffers[b].flags |= USMP_BUFFER_FIXED;
	p->buffers[b].fixed_pool = pool;
	p->buffers[b].fixed_offset = offset;
}

void th_edge(th_problem *p, uint32_t a, uint32_t b)
{
	p->edges = xrealloc(p->edges, (p->edge_count + 1) * sizeof *p->edges);
	p->edges[p->edge_count].a = a < b ? a : b;
	p->edges[p->edge_count].b = a < b ? b : a;
	p->edge_count++;
}

void th_rule(th_problem *p, uint32_t src, uint32_t dst, int64_t max_lead)
{
	for (size_t i = 0; i < p->rule_count; i++)
		if (p->rules[i].src == src && p->rules[i].dst == dst) {
			p->rules[i].max_lead = max_lead;
			return;
		}
	p->rules = xrealloc(p->rules, (p->rule_count + 1) * sizeof *p->rules);
	p->rules[p->rule_count].src = src;
	p->rules[p->rule_count].dst = dst;
	p->rules[p->rule_count].max_lead = max_lead;
	p->rule_count++;
}

static int cmp_rule(const void *a, const void *b)
{
	const usmp_overlap_rec *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Number of values in sorted x[0..n) below t. */
static uint32_t lower_i64(const int64_t *x, uint32_t n, int64_t t)
{
	uint32_t l = 0, r = n;
	while (l < r) {
		uint32_t m = l + (r - l) / 2;
		if (x[m] < t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

struct th_event {
	int64_t t;
	int kind; /* 0 end, 1 begin: ends first at equal times */
	uint64_t size;
};

static int cmp_event(const void *a, const void *b)
{
	const struct th_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->kind - y->kind;
}

static int conflict(const usmp_view *v, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (usmp_live_overlap(v, a, b))
		return 1;
	for (uint64_t k = v->conflict_start[a]; k < v->conflict_start[a + 1];
	     k++)
		if (v->conflict_adj[k] == b)
			return 1;
	return 0;
}

const usmp_view *th_view(th_problem *p)
{
	th_drop_view(p);
	if (p->pool_count == 0)
		th_pool(p, "default", USMP_UNBOUNDED, 1);
	uint32_t n = p->buffer_count;
	/* candidates */
	size_t total = 0;
	for (uint32_t b = 0; b < n; b++)
		total += p->cand_n[b] ? p->cand_n[b] : p->pool_count;
	p->candidates = xrealloc(NULL, total * sizeof *p->candidates);
	size_t at = 0;
	for (uint32_t b = 0; b < n; b++) {
		p->buffers[b].candidate_start = at;
		if (p->cand_n[b]) {
			memcpy(p->candidates + at, p->cands[b],
			       p->cand_n[b] * sizeof(uint32_t));
			at += p->cand_n[b];
			p->buffers[b].candidate_count = p->cand_n[b];
		} else {
			for (uint32_t q = 0; q < p->pool_count; q++)
				p->candidates[at++] = q;
			p->buffers[b].candidate_count = p->pool_count;
		}
	}
	/* CSR: per-buffer neighbour lists, sorted and unique */
	p->cstart = xrealloc(NULL, (n + 1) * sizeof *p->cstart);
	memset(p->cstart, 0, (n + 1) * sizeof *p->cstart);
	for (size_t i = 0; i < p->edge_count; i++) {
		if (p->edges[i].a == p->edges[i].b)
			continue;
		p->cstart[p->edges[i].a + 1]++;
		p->cstart[p->edges[i].b + 1]++;
	}
	for (uint32_t b = 0; b < n; b++)
		p->cstart[b + 1] += p->cstart[b];
	p->cadj = xrealloc(NULL, p->cstart[n] * sizeof *p->cadj);
	uint64_t *fill = xrealloc(NULL, (n + 1) * sizeof *fill);
	memcpy(fill, p->cstart, (n + 1) * sizeof *fill);
	for (size_t i = 0; i < p->edge_count; i++) {
		if (p->edges[i].a == p->edges[i].b)
			continue;
		p->cadj[fill[p->edges[i].a]++] = p->edges[i].b;
		p->cadj[fill[p->edges[i].b]++] = p->edges[i].a;
	}
	/* sort + unique each row, compacting */
	uint64_t w = 0;
	for (uint32_t b = 0; b < n; b++) {
		uint64_t s = p->cstart[b], e = fill[b];
		qsort(p->cadj + s, e - s, sizeof *p->cadj, cmp_u32);
		uint64_t row = w;
		for (uint64_t k = s; k < e; k++)
			if (w == row || p->cadj[w - 1] != p->cadj[k])
				p->cadj[w++] = p->cadj[k];
		p->cstart[b] = row;
	}
	p->cstart[n] = w;
	free(fill);
	/* rules sorted */
	if (p->rule_count)
		qsort(p->rules, p->rule_count, sizeof *p->rules, cmp_rule);

	usmp_view *v = &p->view;
	memset(v, 0, sizeof *v);
	v->struct_size = sizeof *v;
	v->pool_count = p->pool_count;
	v->buffer_count = n;
	v->pools = p->pools;
	v->buffers = p->buffers;
	v->candidates = p->candidates;
	v->conflict_start = p->cstart;
	v->conflict_adj = p->cadj;
	v->overlaps = p->rules;
	v->overlap_count = p->rule_count;
	v->target = "";
	/* degrees: live intersections by counting (sorted begins and ends),
	 * plus edge neighbours that do not also overlap in time */
	p->degree = xrealloc(NULL, (n ? n : 1) * sizeof *p->degree);
	int64_t *begins = xrealloc(NULL, (n ? n : 1) * sizeof *begins);
	int64_t *ends = xrealloc(NULL, (n ? n : 1) * sizeof *ends);
	uint32_t live = 0;
	for (uint32_t a = 0; a < n; a++)
		if (p->buffers[a].flags & USMP_BUFFER_LIVE) {
			begins[live] = p->buffers[a].begin;
			ends[live++] = p->buffers[a].end;
		}
	qsort(begins, live, sizeof *begins, cmp_i64);
	qsort(ends, live, sizeof *ends, cmp_i64);
	for (uint32_t a = 0; a < n; a++) {
		const usmp_buffer_rec *r = &p->buffers[a];
		uint64_t d = 0;
		if (r->flags & USMP_BUFFER_LIVE) {
			uint32_t late = live - lower_i64(begins, live, r->end);
			uint32_t early = lower_i64(ends, live, r->begin + 1);
			d = live - late - early - 1;
		}
		for (uint64_t k = p->cstart[a]; k < p->cstart[a + 1]; k++)
			d += !usmp_live_overlap(v, a, p->cadj[k]);
		p->degree[a] = d;
	}
	v->degree = p->degree;
	/* lower bound: largest total alive at once (a sweep, ends before
	 * begins at equal times), largest buffer, largest edge pair; only the
	 * largest buffer when rules exist */
	uint64_t lb = 0;
	for (uint32_t a = 0; a < n; a++)
		if (p->buffers[a].size > lb)
			lb = p->buffers[a].size;
	if (!p->rule_count) {
		struct th_event *ev = xrealloc(NULL, (2 * (size_t)live + 1) * sizeof *ev);
		size_t ne = 0;
		for (uint32_t a = 0; a < n; a++) {
			const usmp_buffer_rec *r = &p->buffers[a];
			if (!(r->flags & USMP_BUFFER_LIVE))
				continue;
			ev[ne].t = r->begin;
			ev[ne].kind = 1;
			ev[ne++].size = r->size;
			ev[ne].t = r->end;
			ev[ne].kind = 0;
			ev[ne++].size = r->size;
		}
		qsort(ev, ne, sizeof *ev, cmp_event);
		uint64_t sum = 0;
		for (size_t i = 0; i < ne; i++) {
			if (ev[i].kind)
				sum += ev[i].size;
			else
				sum -= ev[i].size;
			if (sum > lb)
				lb = sum;
		}
		free(ev);
		for (size_t i = 0; i < p->edge_count; i++) {
			uint64_t s = p->buffers[p->edges[i].a].size +
			             p->buffers[p->edges[i].b].size;
			if (p->edges[i].a != p->edges[i].b && s > lb)
				lb = s;
		}
	}
	free(begins);
	free(ends);
	v->lower_bound = lb;
	return v;
}

/* ---- host ------------------------------------------------------------------ */

static th_host *H(const usmp_host *h)
{
	return (th_host *)(void *)h;
}

static void h_log(const usmp_host *h, int level, const char *msg)
{
	(void)level;
	snprintf(H(h)->last_log, sizeof H(h)->last_log, "%s", msg);
	H(h)->log_count++;
}

static bool h_should_stop(const usmp_host *h)
{
	th_host *t = H(h);
	t->stop_calls++;
	return t->stop_after && t->stop_calls >= t->stop_after;
}

static void h_progress(const usmp_host *h, uint64_t best)
{
	H(h)->progress_best = best;
}

static void *h_alloc(const usmp_host *h, size_t n)
{
	void *p = malloc(n);
	if (p)
		H(h)->live_allocs++;
	return p;
}

static void *h_realloc(const usmp_host *h, void *p, size_t n)
{
	void *q = realloc(p, n);
	if (q && !p)
		H(h)->live_allocs++;
	return q;
}

static void h_free(const usmp_host *h, void *p)
{
	if (p)
		H(h)->live_allocs--;
	free(p);
}

static int h_neighbors(const usmp_host *h, uint32_t b, usmp_neighbor_fn fn,
                       void *arg)
{
	const usmp_view *v = H(h)->view;
	for (uint32_t o = 0; o < v->buffer_count; o++)
		if (conflict(v, b, o)) {
			int r = fn(arg, o);
			if (r)
				return r;
		}
	return 0;
}

static void h_bound(const usmp_host *h, uint64_t bound, bool optimal)
{
	H(h)->reported = true;
	H(h)->bound = bound;
	H(h)->optimal = optimal;
}

void th_host_init(th_host *t, const usmp_view *v)
{
	memset(t, 0, sizeof *t);
	t->host.struct_size = sizeof t->host;
	t->host.log = h_log;
	t->host.should_stop = h_should_stop;
	t->host.progress = h_progress;
	t->host.alloc = h_alloc;
	t->host.realloc = h_realloc;
	t->host.free = h_free;
	t->host.for_each_neighbor = h_neighbors;
	t->host.report_bound = h_bound;
	t->view = v;
}

usmp_placement *th_out(const usmp_view *v)
{
	usmp_placement *o = xrealloc(NULL, (v->buffer_count + 1) * sizeof *o);
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		o[b].reserved = 0;
		if (r->flags & USMP_BUFFER_FIXED) {
			o[b].pool = r->fixed_pool;
			o[b].offset = r->fixed_offset;
		} else {
			o[b].pool = USMP_NO_POOL;
			o[b].offset = 0;
		}
	}
	return o;
}

/* ---- checker ---------------------------------------------------------------- */

static const usmp_overlap_rec *find_rule(const usmp_view *v, uint32_t s,
                                         uint32_t d)
{
	for (uint64_t i = 0; i < v->overlap_count; i++)
		if (v->overlaps[i].src == s && v->overlaps[i].dst == d)
			return &v->overlaps[i];
	return NULL;
}

int th_check(const usmp_view *v, const usmp_placement *pl, int partial,
             char *why, size_t len)
{
	uint32_t n = v->buffer_count;
	for (uint32_t b = 0; b < n; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (pl[b].pool == USMP_NO_POOL) {
			if (partial && !(r->flags & USMP_BUFFER_FIXED))
				continue;
			snprintf(why, len, "buffer %s has no pool", r->name);
			return 0;
		}
		int cand = 0;
		for (uint32_t i = 0; i < r->candidate_count; i++)
			if (v->candidates[r->candidate_start + i] == pl[b].pool)
				cand = 1;
		if (!cand) {
			snprintf(why, len, "buffer %s in non-candidate pool %u",
			         r->name, pl[b].pool);
			return 0;
		}
		uint64_t al = usmp_buffer_alignment(v, b, pl[b].pool);
		if (pl[b].offset % al) {
			snprintf(why, len, "buffer %s offset %llu not aligned to %llu",
			         r->name, (unsigned long long)pl[b].offset,
			         (unsigned long long)al);
			return 0;
		}
		uint64_t end = pl[b].offset + r->size;
		if (end < pl[b].offset ||
		    end > v->pools[pl[b].pool].size_limit) {
			snprintf(why, len, "buffer %s exceeds pool %s limit",
			         r->name, v->pools[pl[b].pool].name);
			return 0;
		}
		if ((r->flags & USMP_BUFFER_FIXED) &&
		    (pl[b].pool != r->fixed_pool ||
		     pl[b].offset != r->fixed_offset)) {
			snprintf(why, len, "fixed buffer %s moved", r->name);
			return 0;
		}
	}
	for (uint32_t a = 0; a < n; a++) {
		for (uint32_t b = a + 1; b < n; b++) {
			if (pl[a].pool == USMP_NO_POOL || pl[a].pool != pl[b].pool ||
			    !conflict(v, a, b))
				continue;
			__int128 oa = pl[a].offset, ob = pl[b].offset;
			__int128 ea = oa + v->buffers[a].size,
			         eb = ob + v->buffers[b].size;
			if (ea <= ob || eb <= oa)
				continue;
			const usmp_overlap_rec *r1 = find_rule(v, a, b);
			const usmp_overlap_rec *r2 = find_rule(v, b, a);
			if (r1 && ob <= oa + r1->max_lead)
				continue;
			if (r2 && oa <= ob + r2->max_lead)
				continue;
			snprintf(why, len,
			         "buffers %s [%llu,+%llu) and %s [%llu,+%llu) "
			         "overlap in pool %u",
			         v->buffers[a].name, (unsigned long long)pl[a].offset,
			         (unsigned long long)v->buffers[a].size,
			         v->buffers[b].name, (unsigned long long)pl[b].offset,
			         (unsigned long long)v->buffers[b].size, pl[a].pool);
			return 0;
		}
	}
	return 1;
}

uint64_t th_total(const usmp_view *v, const usmp_placement *pl)
{
	uint64_t t = 0;
	for (uint32_t p = 0; p < v->pool_count; p++) {
		uint64_t hw = 0;
		for (uint32_t b = 0; b < v->buffer_count; b++)
			if (pl[b].pool == p &&
			    pl[b].offset + v->buffers[b].size > hw)
				hw = pl[b].offset + v->buffers[b].size;
		t += hw;
	}
	return t;
}

/* ---- random problems ------------------------------------------------------- */

th_problem *th_random(uint64_t *rng, const th_random_opts *o)
{
	th_problem *p = th_new();
	uint32_t pools = o->pools ? o->pools : 1;
	for (uint32_t q = 0; q < pools; q++) {
		char name[32];
		snprintf(name, sizeof name, "pool%u", q);
		uint64_t limit = USMP_UNBOUNDED;
		if (o->bounded && test_rand_range(rng, 0, 3) != 0)
			limit = test_rand_range(rng, 200, 4000);
		uint64_t al = o->alignments ? 1ull << test_rand_range(rng, 0, 4)
		                            : 1;
		th_pool(p, name, limit, al);
	}
	uint32_t n = o->buffers;
	int64_t horizon = (int64_t)test_rand_range(rng, 4, 3 * n / 2 + 5);
	for (uint32_t b = 0; b < n; b++) {
		char name[32];
		snprintf(name, sizeof name, "b%u", b);
		uint64_t size = test_rand_range(rng, 1, 8) == 1
		                        ? test_rand_range(rng, 100, 600)
		                        : test_rand_range(rng, 1, 100);
		uint64_t al = o->alignments ? 1ull << test_rand_range(rng, 0, 5)
		                            : 1;
		if (o->edges && test_rand_range(rng, 0, 9) == 0) {
			th_buffer_nolive(p, name, size, al);
		} else {
			int64_t begin = (int64_t)test_rand_range(rng, 0,
			                                         (uint64_t)horizon);
			int64_t len = (int64_t)test_rand_range(rng, 1, 1 + (uint64_t)horizon / 3);
			th_buffer(p, name, size, al, begin - 3, begin - 3 + len);
		}
		if (pools > 1 && test_rand_range(rng, 0, 2) != 0) {
			uint32_t c[4], k = (uint32_t)test_rand_range(rng, 1, pools);
			uint32_t first = (uint32_t)test_rand_range(rng, 0, pools - 1);
			for (uint32_t i = 0; i < k; i++)
				c[i] = (first + i) % pools;
			th_candidates(p, b, k, c);
		}
	}
	if (o->edges) {
		uint32_t m = (uint32_t)test_rand_range(rng, 0, n);
		for (uint32_t i = 0; i < m && n > 1; i++) {
			uint32_t a = (uint32_t)test_rand_range(rng, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(rng, 0, n - 1);
			if (a != b)
				th_edge(p, a, b);
		}
	}
	/* The view gives the conflict predicate the rules need. */
	const usmp_view *v = th_view(p);
	if (o->rules && n > 1) {
		uint32_t m = (uint32_t)test_rand_range(rng, 1, n);
		for (uint32_t i = 0; i < m; i++) {
			uint32_t a = (uint32_t)test_rand_range(rng, 0, n - 1);
			uint32_t b = (uint32_t)test_rand_range(rng, 0, n - 1);
			if (a == b || !conflict(v, a, b))
				continue;
			int64_t s = (int64_t)p->buffers[a].size;
			int64_t lead = (int64_t)test_rand_range(rng, 0, 2 * (uint64_t)s) - s;
			th_rule(p, a, b, lead);
		}
	}
	if (o->fixed) {
		/* Stack a few fixed buffers in pool 0 so they never collide. */
		uint64_t at = 0;
		uint64_t pal = p->pools[0].alignment;
		for (uint32_t b = 0; b < n; b++) {
			if (test_rand_range(rng, 0, 9) != 0)
				continue;
			uint64_t al = p->buffers[b].alignment > pal
			                      ? p->buffers[b].alignment
			                      : pal;
			at = (at + al - 1) / al * al;
			if (at + p->buffers[b].size > p->pools[0].size_limit)
				break;
			int cand = p->cand_n[b] == 0;
			for (uint32_t i = 0; i < p->cand_n[b]; i++)
				if (p->cands[b][i] == 0)
					cand = 1;
			if (!cand)
				continue;
			th_fixed(p, b, 0, at);
			at += p->buffers[b].size;
		}
	}
	th_view(p);
	return p;
}

th_problem *th_random_any(uint64_t *rng, uint32_t max_buffers)
{
	th_random_opts opt = {
		.buffers = (uint32_t)test_rand_range(rng, 1, max_buffers),
		.pools = (uint32_t)test_rand_range(rng, 1, 3),
		.bounded = (int)test_rand_range(rng, 0, 1),
		.edges = (int)test_rand_range(rng, 0, 1),
		.rules = (int)test_rand_range(rng, 0, 1),
		.fixed = (int)test_rand_range(rng, 0, 1),
		.alignments = (int)test_rand_range(rng, 0, 1),
	};
	return th_random(rng, &opt);
}

th_problem *th_scale(uint64_t *rng, uint32_t n)
{
	th_problem *p = th_new();
	uint32_t sram = th_pool(p, "sram", 1u << 20, 16);
	uint32_t dram = th_pool(p, "dram", USMP_UNBOUNDED, 1);
	uint64_t fixed_at = 1ull << 40;
	for (uint32_t i = 0; i < n; i++) {
		char name[24];
		snprintf(name, sizeof name, "t%u", i);
		int64_t begin = (int64_t)(i / 2);
		int64_t life = (int64_t)test_rand_range(rng, 1, 40);
		uint64_t size = test_rand_range(rng, 1, 4096);
		uint32_t b = th_buffer(p, name, size,
		                       1ull << test_rand_range(rng, 0, 6), begin,
		                       begin + life);
		uint64_t pick = test_rand_range(rng, 0, 99);
		if (pick < 10) {
			th_candidates(p, b, 1, &dram);
		} else if (pick < 12) {
			th_fixed(p, b, dram, fixed_at);
			fixed_at += 8192;
		} else {
			uint32_t c[] = { sram, dram };
			th_candidates(p, b, 2, c);
		}
		if (i > 0 && test_rand_range(rng, 0, 3) == 0) {
			int64_t s = (int64_t)size;
			th_rule(p, i - 1, i,
			        (int64_t)test_rand_range(rng, 0, 2 * (uint64_t)s) - s);
		}
		if (i > 100 && test_rand_range(rng, 0, 9) == 0)
			th_edge(p, i, (uint32_t)(i - test_rand_range(rng, 1, 100)));
	}
	th_view(p);
	return p;
}

void th_expect_offsets(const usmp_view *v, const usmp_placement *o,
                       const char *algo, const uint64_t *want)
{
	for (uint32_t i = 0; i < v->buffer_count; i++)
		cr_assert_eq(o[i].offset, want[i], "%s: %s at %llu, not %llu", algo,
		             v->buffers[i].name, (unsigned long long)o[i].offset,
		             (unsigned long long)want[i]);
}
