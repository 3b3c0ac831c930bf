/* simulate.c — execute a plan the way a graph executor would: real pool
 * memory in which every byte records the buffer that wrote it, step by step.
 *
 * It is a second, operational check next to the verifier (verify.c): where
 * the verifier reasons about intervals, this replays the schedule byte by
 * byte. At each step the buffers born then are written, a rule's src before
 * its dst. Writing a byte over a byte of a buffer still live (its last use
 * is this step or later) is an error, unless an overlap rule (src, dst,
 * max_lead) covers it: the op writing dst byte j is finished with src bytes
 * 0 .. j + max_lead (docs/formats.md), so it may overwrite those. A byte
 * overwritten that way still belongs to src until src's last use: a third
 * buffer writing it then needs a rule from src too. Buffers without a live
 * range are not replayed. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

/* Largest total pool size the simulation will replay (4 bytes per byte). */
#define SIM_MAX_BYTES (512ull << 20)
/* Most bytes it writes, one per byte of each live buffer (its time: about
 * 3 ns a byte, so 12 s of CPU; real traces within 512 MiB of pools write
 * under 100 MB). Without it, 20 lines of CSV asked for 15 s and 100,000
 * for a day. */
#define SIM_MAX_WRITES (4ull << 30)

#define NIL UINT32_MAX

/* Bytes of live buffers overwritten under a rule during the current step:
 * (pool, address) -> the buffers whose byte it still is, a chained hash. */
typedef struct hidden {
	uint64_t *key;   /* [count] pool << 32 | address */
	uint32_t *owner; /* [count] */
	uint32_t *next;  /* [count] next entry of the same key, or NIL */
	size_t count, cap;
	uint64_t *tkey;  /* [tcap] open addressing; heads in thead */
	uint32_t *thead; /* [tcap] first entry, or NIL for an empty slot */
	size_t tcap;
} hidden;

typedef struct sim {
	usmp_problem *p;
	usmp_plan *plan;
	uint32_t **mem;     /* [pool][address]: writer + 1, 0 for none */
	uint32_t *by_begin; /* live buffers by (begin, index) */
	uint32_t live_count;
	/* Rules by dst, sorted by src; rules by src. */
	size_t *in_start, *out_start;
	uint32_t *in_src, *out_dst;
	int64_t *in_lead;
	/* Writing one step: */
	uint32_t *pending; /* [buffer] rule srcs born this step, unwritten */
	uint32_t *queue;
	hidden h;
} sim;

static int cmp_begin(const void *x, const void *y, void *ctx)
{
	const usmp_problem *p = ctx;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	int64_t bi = usmp__problem_buffer(p, i)->begin;
	int64_t bj = usmp__problem_buffer(p, j)->begin;
	if (bi != bj)
		return bi < bj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* ---- the hidden owners --------------------------------------------------- */

static size_t slot_of(const hidden *h, uint64_t k)
{
	uint64_t z = k * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(z ^ (z >> 29)) & (h->tcap - 1);
	while (h->thead[i] != NIL && h->tkey[i] != k)
		i = (i + 1) & (h->tcap - 1);
	return i;
}

/* Re-index entries [0, count) into a table of at least 2 * count slots. */
static int rehash(hidden *h)
{
	size_t cap = 16;
	while (cap < 2 * h->count + 2)
		cap *= 2;
	if (cap != h->tcap) {
		uint64_t *k = malloc(cap * sizeof *k);
		uint32_t *hd = malloc(cap * sizeof *hd);
		if (!k || !hd) {
			free(k);
			free(hd);
			return USMP_ERR_NOMEM;
		}
		free(h->tkey);
		free(h->thead);
		h->tkey = k;
		h->thead = hd;
		h->tcap = cap;
	}
	for (size_t i = 0; i < h->tcap; i++)
		h->thead[i] = NIL;
	for (size_t e = 0; e < h->count; e++) {
		size_t i = slot_of(h, h->key[e]);
		h->tkey[i] = h->key[e];
		h->next[e] = h->thead[i];
		h->thead[i] = (uint32_t)e;
	}
	return USMP_OK;
}

static int hidden_add(hidden *h, uint64_t k, uint32_t owner)
{
	if (h->count == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		if (cap > UINT32_MAX)
			return USMP_ERR_NOMEM;
		uint64_t *nk = realloc(h->key, cap * sizeof *nk);
		if (nk)
			h->key = nk;
		uint32_t *no = nk ? realloc(h->owner, cap * sizeof *no) : NULL;
		if (no)
			h->owner = no;
		uint32_t *nn = no ? realloc(h->next, cap * sizeof *nn) : NULL;
		if (!nn)
			return USMP_ERR_NOMEM;
		h->next = nn;
		h->cap = cap;
	}
	h->key[h->count] = k;
	h->owner[h->count++] = owner;
	if (2 * h->count + 2 > h->tcap)
		return rehash(h);
	size_t i = slot_of(h, k);
	h->tkey[i] = k;
	h->next[h->count - 1] = h->thead[i];
	h->thead[i] = (uint32_t)(h->count - 1);
	return USMP_OK;
}

/* First entry for k, or NIL. */
static uint32_t hidden_first(const hidden *h, uint64_t k)
{
	return h->count ? h->thead[slot_of(h, k)] : NIL;
}

/* Keep only the entries whose owner is still live at step t. */
static int hidden_prune(sim *s, int64_t t)
{
	hidden *h = &s->h;
	size_t w = 0;
	if (!h->count)
		return USMP_OK;
	for (size_t e = 0; e < h->count; e++)
		if (usmp__problem_buffer(s->p, h->owner[e])->end > t) {
			h->key[w] = h->key[e];
			h->owner[w++] = h->owner[e];
		}
	if (w == h->count)
		return USMP_OK;
	h->count = w;
	return rehash(h);
}

static void hidden_free(hidden *h)
{
	free(h->key);
	free(h->owner);
	free(h->next);
	free(h->tkey);
	free(h->thead);
}

/* ---- rules ---------------------------------------------------------------- */

/* CSR of the rules by dst (each row sorted by src) and by src. */
static int rules_build(sim *s)
{
	const usmp_problem *p = s->p;
	size_t n = usmp__problem_nbuffers(p), m = usmp__problem_noverlaps(p);
	/* keys: the sorted rules, then a cursor per buffer */
	uint64_t *keys = malloc((m > n ? m : n ? n : 1) * sizeof *keys);
	s->in_start = calloc(n + 1, sizeof *s->in_start);
	s->out_start = calloc(n + 1, sizeof *s->out_start);
	s->in_src = malloc((m ? m : 1) * sizeof *s->in_src);
	s->out_dst = malloc((m ? m : 1) * sizeof *s->out_dst);
	s->in_lead = malloc((m ? m : 1) * sizeof *s->in_lead);
	if (!keys || !s->in_start || !s->out_start || !s->in_src || !s->out_dst ||
	    !s->in_lead) {
		free(keys);
		return USMP_ERR_NOMEM;
	}
	/* Sort (dst, src, rule) packed as dst << 32 | src; leads by search. */
	for (size_t i = 0; i < m; i++) {
		const usmp_overlap_rec *o = usmp__problem_overlap(p, i);
		keys[i] = (uint64_t)o->dst << 32 | o->src;
		s->in_start[o->dst + 1]++;
		s->out_start[o->src + 1]++;
	}
	qsort(keys, m, sizeof *keys, cmp_u64);
	for (size_t b = 0; b < n; b++) {
		s->in_start[b + 1] += s->in_start[b];
		s->out_start[b + 1] += s->out_start[b];
	}
	for (size_t i = 0; i < m; i++)
		s->in_src[i] = (uint32_t)keys[i];
	/* Leads: pairs are unique (the problem refuses a repeat). */
	for (size_t i = 0; i < m; i++) {
		const usmp_overlap_rec *o = usmp__problem_overlap(p, i);
		size_t lo = s->in_start[o->dst], hi = s->in_start[o->dst + 1];
		lo += usmp__first_ge_u32(s->in_src + lo, hi - lo, o->src);
		s->in_lead[lo] = o->max_lead;
	}
	/* By src, filled through a cursor reusing keys. */
	for (size_t b = 0; b < n; b++)
		keys[b] = s->out_start[b];
	for (size_t i = 0; i < m; i++) {
		const usmp_overlap_rec *o = usmp__problem_overlap(p, i);
		s->out_dst[keys[o->src]++] = o->dst;
	}
	free(keys);
	return USMP_OK;
}

/* The rule src -> dst: its max_lead in *lead, or false. */
static bool rule_lead(const sim *s, uint32_t src, uint32_t dst, int64_t *lead)
{
	size_t lo = s->in_start[dst], hi = s->in_start[dst + 1];
	size_t i = lo + usmp__first_ge_u32(s->in_src + lo, hi - lo, src);
	if (i < hi && s->in_src[i] == src) {
		*lead = s->in_lead[i];
		return true;
	}
	return false;
}

/* ---- writing -------------------------------------------------------------- */

/* Buffer e writes its byte j at address x (pool q) at step t, over byte
 * x - offset(o) of buffer o, live now. */
static int overwrite(sim *s, uint32_t o, uint32_t e, uint64_t j, uint64_t x,
                     int64_t t)
{
	const usmp__buffer *bo = usmp__problem_buffer(s->p, o);
	const usmp__buffer *be = usmp__problem_buffer(s->p, e);
	uint64_t k = x - s->plan->placements[o].offset;
	const char *pool =
		usmp__problem_pool(s->p, s->plan->placements[e].pool)->name;
	int64_t lead;
	if (!rule_lead(s, o, e, &lead))
		return usmp__plan_fail(
			s->plan, USMP_ERR_INVALID_PLAN,
			"buffer \"%s\": byte %llu (pool \"%s\" address %llu) is "
			"overwritten by buffer \"%s\" at step %lld, before its last use "
			"at step %lld", bo->name, (unsigned long long)k, pool,
			(unsigned long long)x, be->name, (long long)t,
			(long long)(bo->end - 1));
	/* Finished with o's bytes 0 .. j + lead before writing e's byte j. */
	if ((__int128)k <= (__int128)j + lead)
		return USMP_OK;
	return usmp__plan_fail(
		s->plan, USMP_ERR_INVALID_PLAN,
		"buffer \"%s\": byte %llu (pool \"%s\" address %llu) is overwritten "
		"by byte %llu of buffer \"%s\" at step %lld, before its last use: "
		"the overlap rule \"%s\" -> \"%s\" (max_lead %lld) lets byte %llu "
		"overwrite only bytes up to %lld", bo->name, (unsigned long long)k,
		pool, (unsigned long long)x, (unsigned long long)j, be->name,
		(long long)t, bo->name, be->name, (long long)lead,
		(unsigned long long)j, (long long)((__int128)j + lead));
}

/* Write buffer e, born at step t, byte by byte in order. */
static int write_buffer(sim *s, uint32_t e, int64_t t)
{
	const usmp_placement *pl = &s->plan->placements[e];
	uint32_t *cells = s->mem[pl->pool];
	uint64_t size = usmp__problem_buffer(s->p, e)->size;
	int st;
	for (uint64_t j = 0; j < size; j++) {
		uint64_t x = pl->offset + j;
		uint64_t key = (uint64_t)pl->pool << 32 | x;
		/* Bytes still owed to live buffers: the one there, the hidden. */
		for (uint32_t h = hidden_first(&s->h, key); h != NIL;
		     h = s->h.next[h])
			if (s->h.key[h] == key &&
			    (st = overwrite(s, s->h.owner[h], e, j, x, t)))
				return st;
		if (cells[x]) {
			uint32_t o = cells[x] - 1;
			if (usmp__problem_buffer(s->p, o)->end > t) {
				if ((st = overwrite(s, o, e, j, x, t)))
					return st;
				if ((st = hidden_add(&s->h, key, o)))
					return usmp__plan_fail(s->plan, st, "out of memory");
			}
		}
		cells[x] = e + 1;
	}
	return USMP_OK;
}

/* Write the n buffers born at step t: a rule's src before its dst (the op
 * that writes dst reads src), otherwise in index order. The problem has no
 * cycle of rules, so this order exists. */
static int write_step(sim *s, const uint32_t *born, uint32_t n, int64_t t)
{
	uint32_t head = 0, tail = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = born[k];
		s->pending[b] = 0;
		for (size_t r = s->in_start[b]; r < s->in_start[b + 1]; r++) {
			const usmp__buffer *src =
				usmp__problem_buffer(s->p, s->in_src[r]);
			s->pending[b] += (src->flags & USMP_BUFFER_LIVE) &&
			                 src->begin == t;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		if (!s->pending[born[k]])
			s->queue[tail++] = born[k];
	while (head < tail) {
		uint32_t b = s->queue[head++];
		int st = write_buffer(s, b, t);
		if (st)
			return st;
		for (size_t r = s->out_start[b]; r < s->out_start[b + 1]; r++) {
			uint32_t d = s->out_dst[r];
			const usmp__buffer *bd = usmp__problem_buffer(s->p, d);
			if ((bd->flags & USMP_BUFFER_LIVE) && bd->begin == t &&
			    --s->pending[d] == 0)
				s->queue[tail++] = d;
		}
	}
	if (tail < n) /* a cycle: usmp__problem_prepare refuses those */
		return usmp__plan_fail(s->plan, USMP_ERR_INVALID,
		                       "the overlap rules of step %lld form a cycle",
		                       (long long)t);
	return USMP_OK;
}

static void sim_finish(sim *s)
{
	if (s->mem)
		for (uint32_t j = 0; j < s->plan->pool_count; j++)
			free(s->mem[j]);
	free(s->mem);
	free(s->by_begin);
	free(s->in_start);
	free(s->out_start);
	free(s->in_src);
	free(s->out_dst);
	free(s->in_lead);
	free(s->pending);
	free(s->queue);
	hidden_free(&s->h);
}

int usmp_plan_simulate(usmp_plan *plan, usmp_problem *p)
{
	sim s = {.p = p, .plan = plan};
	if (!plan || !p)
		return USMP_ERR_INVALID;
	/* The replay is a check of its own: it does not ask the verifier, it
	 * needs only every buffer placed in a pool of the problem. */
	int st = usmp__plan_fits_problem(plan, p);
	if (st)
		return st;
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		const usmp_placement *pl = &plan->placements[i];
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		if (pl->pool >= plan->pool_count)
			return usmp__plan_fail(plan, USMP_ERR_INVALID_PLAN,
			                       "buffer \"%s\" has no pool", b->name);
		/* Real memory: a pool has no byte past its size limit. */
		const usmp__pool *q = usmp__problem_pool(p, pl->pool);
		if (pl->offset > q->size_limit ||
		    b->size > q->size_limit - pl->offset) {
			char end[48];
			if (b->size > UINT64_MAX - pl->offset)
				snprintf(end, sizeof end, "2^64 + %llu",
				         (unsigned long long)(pl->offset + b->size));
			else
				snprintf(end, sizeof end, "%llu",
				         (unsigned long long)(pl->offset + b->size));
			return usmp__plan_fail(
				plan, USMP_ERR_INVALID_PLAN, "buffer \"%s\" at bytes "
				"[%llu, %s) lies past the end of pool \"%s\" (%llu byte%s)",
				b->name, (unsigned long long)pl->offset, end, q->name,
				(unsigned long long)q->size_limit,
				usmp__s(q->size_limit));
		}
	}
	usmp__plan_measure(plan, p);
	uint64_t total = 0;
	for (uint32_t j = 0; j < plan->pool_count; j++)
		total = plan->pool_size[j] > UINT64_MAX - total
		                ? UINT64_MAX
		                : total + plan->pool_size[j];
	if (total > SIM_MAX_BYTES)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "the plan's pools hold %llu bytes; simulating "
		                       "more than %llu is refused",
		                       (unsigned long long)total,
		                       (unsigned long long)SIM_MAX_BYTES);
	size_t n = usmp__problem_nbuffers(p), n1 = n ? n : 1;
	uint64_t writes = 0;
	uint32_t live = 0;
	for (size_t i = 0; i < n; i++) {
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		if (!(b->flags & USMP_BUFFER_LIVE))
			continue;
		live++;
		writes = b->size > UINT64_MAX - writes ? UINT64_MAX
		                                      : writes + b->size;
	}
	if (writes > SIM_MAX_WRITES)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "the replay would write %llu bytes (the "
		                       "sizes of its %u live buffers), more than "
		                       "the %llu it replays; usmp verify (or "
		                       "usmp_plan_verify) checks the plan without "
		                       "writing it",
		                       (unsigned long long)writes, live,
		                       (unsigned long long)SIM_MAX_WRITES);
	s.mem = calloc(plan->pool_count ? plan->pool_count : 1, sizeof *s.mem);
	s.by_begin = malloc(n1 * sizeof *s.by_begin);
	s.pending = malloc(n1 * sizeof *s.pending);
	s.queue = malloc(n1 * sizeof *s.queue);
	if (!s.mem || !s.by_begin || !s.pending || !s.queue ||
	    rules_build(&s) != USMP_OK)
		goto nomem;
	for (uint32_t j = 0; j < plan->pool_count; j++) {
		s.mem[j] = calloc(plan->pool_size[j] ? plan->pool_size[j] : 1,
		                  sizeof **s.mem);
		if (!s.mem[j])
			goto nomem;
	}
	for (uint32_t i = 0; i < n; i++)
		if (usmp__problem_buffer(p, i)->flags & USMP_BUFFER_LIVE)
			s.by_begin[s.live_count++] = i;
	qsort_r(s.by_begin, s.live_count, sizeof *s.by_begin, cmp_begin, p);

	/* Step by step: bytes owed to buffers dead by now are released, then
	 * the buffers that begin are written. */
	for (uint32_t bi = 0; bi < s.live_count;) {
		int64_t t = usmp__problem_buffer(p, s.by_begin[bi])->begin;
		uint32_t first = bi;
		while (bi < s.live_count &&
		       usmp__problem_buffer(p, s.by_begin[bi])->begin == t)
			bi++;
		if (hidden_prune(&s, t) != USMP_OK)
			goto nomem;
		st = write_step(&s, s.by_begin + first, bi - first, t);
		if (st)
			goto out;
	}
	st = USMP_OK;
	usmp__plan_ok(plan);
	goto out;
nomem:
	st = usmp__plan_fail(plan, USMP_ERR_NOMEM, "out of memory");
out:
	sim_finish(&s);
	return st;
}
