/* simulate.c — execute a plan the way a graph executor would: real pool
 * memory, every buffer written with its own pattern, every byte checked.
 *
 * It is a second, operational check next to the verifier (verify.c): where
 * the verifier reasons about intervals, this replays the schedule byte by
 * byte, including the streaming writes that overlap rules permit
 * (docs/design.md, "Overlap rules": before `dst` byte j is written, the op
 * is finished with `src` bytes 0 .. j + max_lead). Buffers without a live
 * range are not replayed. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Largest total pool memory the simulation will allocate. */
#define SIM_MAX_BYTES (2ull << 30)

static unsigned char pattern(uint32_t b, uint64_t j)
{
	uint64_t z = ((uint64_t)b << 32) ^ j ^ 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (unsigned char)(z ^ (z >> 31));
}

typedef struct sim {
	usmp_problem *p;
	usmp_plan *plan;
	unsigned char **mem;   /* [pool] */
	uint64_t *checked;     /* [buffer] bytes 0..checked-1 are finished */
	unsigned char *written; /* [buffer] already written by the replay */
	uint32_t *by_begin;    /* live buffers sorted by begin */
	uint32_t *by_end;      /* live buffers sorted by end */
	uint32_t live_count;
} sim;

static int cmp_begin(const void *x, const void *y, void *ctx)
{
	const usmp__buffer *b = ctx;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	if (b[i].begin != b[j].begin)
		return b[i].begin < b[j].begin ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cmp_end(const void *x, const void *y, void *ctx)
{
	const usmp__buffer *b = ctx;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	if (b[i].end != b[j].end)
		return b[i].end < b[j].end ? -1 : 1;
	return i < j ? -1 : i > j;
}

static unsigned char *addr(sim *s, uint32_t b, uint64_t j)
{
	const usmp_placement *pl = &s->plan->placements[b];
	return s->mem[pl->pool] + pl->offset + j;
}

/* Check bytes [from, to) of buffer b still hold its pattern. */
static int check_bytes(sim *s, uint32_t b, uint64_t from, uint64_t to,
                       int64_t step)
{
	for (uint64_t j = from; j < to; j++) {
		if (*addr(s, b, j) == pattern(b, j))
			continue;
		const usmp_placement *pl = &s->plan->placements[b];
		return usmp__plan_fail(s->plan, USMP_ERR_INVALID_PLAN,
		                       "buffer \"%s\": byte %llu (pool \"%s\" "
		                       "address %llu) was overwritten before its "
		                       "last use at step %lld",
		                       s->p->buffers[b].name, (unsigned long long)j,
		                       s->p->pools[pl->pool].name,
		                       (unsigned long long)(pl->offset + j),
		                       (long long)step);
	}
	return USMP_OK;
}

/* The overlap rules whose dst is d and whose src is still live when d
 * begins: d's op streams over them. */
static uint32_t stream_sources(const usmp_problem *p, uint32_t d,
                               const usmp_overlap_rec **rules, uint32_t cap)
{
	uint32_t n = 0;
	const usmp__buffer *bd = &p->buffers[d];
	for (size_t i = 0; i < p->overlap_count && n < cap; i++) {
		const usmp_overlap_rec *r = &p->overlaps[i];
		const usmp__buffer *bs = &p->buffers[r->src];
		if (r->dst == d && (bs->flags & USMP_BUFFER_LIVE) &&
		    bs->begin <= bd->begin && bs->end > bd->begin)
			rules[n++] = r;
	}
	return n;
}

/* Write buffer d at its first step, streaming over rule sources. */
static int write_buffer(sim *s, uint32_t d)
{
	enum { MAX_SRC = 16 };
	const usmp_overlap_rec *rules[MAX_SRC];
	const usmp__buffer *bd = &s->p->buffers[d];
	uint32_t n = stream_sources(s->p, d, rules, MAX_SRC);
	for (uint64_t j = 0; j < bd->size; j++) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t src = rules[k]->src;
			uint64_t ssize = s->p->buffers[src].size;
			/* Finished with src bytes 0 .. j + max_lead (clamped). */
			int64_t lead = rules[k]->max_lead;
			uint64_t upto;
			if (lead < 0 && (uint64_t)(-lead) > j + 1)
				upto = 0;
			else
				upto = j + 1 + (uint64_t)lead;
			if (upto > ssize)
				upto = ssize;
			if (upto > s->checked[src]) {
				int st = check_bytes(s, src, s->checked[src], upto,
				                     bd->begin);
				if (st)
					return st;
				s->checked[src] = upto;
			}
		}
		*addr(s, d, j) = pattern(d, j);
	}
	/* The op read all of its sources; a source with later readers must
	 * stay intact until its own end, so only its last reader finishes it. */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t src = rules[k]->src;
		const usmp__buffer *bs = &s->p->buffers[src];
		uint64_t done = bs->end == bd->begin + 1 ? bs->size : 0;
		int st = check_bytes(s, src, s->checked[src], bs->size, bd->begin);
		if (st)
			return st;
		s->checked[src] = done;
	}
	return USMP_OK;
}

/* True when buffer d is the dst of a rule whose src is in born[0..n) and
 * not yet written: then d must wait for it. */
static bool waits_for_source(const sim *s, uint32_t d, const uint32_t *born,
                             uint32_t n)
{
	for (size_t i = 0; i < s->p->overlap_count; i++) {
		const usmp_overlap_rec *r = &s->p->overlaps[i];
		if (r->dst != d)
			continue;
		for (uint32_t k = 0; k < n; k++)
			if (born[k] == r->src && !s->written[r->src])
				return true;
	}
	return false;
}

/* Write the buffers born at one step: a rule's src before its dst (the op
 * that streams into dst reads src, so src exists first); otherwise in
 * index order. A cycle of rules within one step is written in index order. */
static int write_step(sim *s, const uint32_t *born, uint32_t n)
{
	uint32_t done = 0;
	while (done < n) {
		uint32_t progress = 0;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t b = born[k];
			if (s->written[b] || waits_for_source(s, b, born, n))
				continue;
			int st = write_buffer(s, b);
			if (st)
				return st;
			s->written[b] = 1;
			done++, progress++;
		}
		for (uint32_t k = 0; !progress && k < n; k++) {
			if (s->written[born[k]])
				continue;
			int st = write_buffer(s, born[k]);
			if (st)
				return st;
			s->written[born[k]] = 1;
			done++, progress++;
			break;
		}
	}
	return USMP_OK;
}

static void sim_finish(sim *s)
{
	if (s->mem)
		for (uint32_t j = 0; j < s->plan->pool_count; j++)
			free(s->mem[j]);
	free(s->mem);
	free(s->checked);
	free(s->written);
	free(s->by_begin);
	free(s->by_end);
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
	for (uint32_t i = 0; i < plan->buffer_count; i++)
		if (plan->placements[i].pool >= plan->pool_count)
			return usmp__plan_fail(plan, USMP_ERR_INVALID_PLAN,
			                       "buffer \"%s\" has no pool",
			                       p->buffers[i].name);
	usmp__plan_measure(plan, p);
	uint64_t total = 0;
	for (uint32_t j = 0; j < plan->pool_count; j++)
		total += plan->pool_size[j];
	if (total > SIM_MAX_BYTES)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "the plan's pools hold %llu bytes; simulating "
		                       "more than %llu is refused",
		                       (unsigned long long)total,
		                       (unsigned long long)SIM_MAX_BYTES);
	size_t n = p->buffer_count;
	s.mem = calloc(plan->pool_count ? plan->pool_count : 1, sizeof *s.mem);
	s.checked = calloc(n ? n : 1, sizeof *s.checked);
	s.written = calloc(n ? n : 1, 1);
	s.by_begin = malloc((n ? n : 1) * sizeof *s.by_begin);
	s.by_end = malloc((n ? n : 1) * sizeof *s.by_end);
	if (!s.mem || !s.checked || !s.written || !s.by_begin || !s.by_end)
		goto nomem;
	for (uint32_t j = 0; j < plan->pool_count; j++) {
		s.mem[j] = calloc(plan->pool_size[j] ? plan->pool_size[j] : 1, 1);
		if (!s.mem[j])
			goto nomem;
	}
	for (uint32_t i = 0; i < n; i++)
		if (p->buffers[i].flags & USMP_BUFFER_LIVE)
			s.by_begin[s.live_count] = s.by_end[s.live_count] = i,
			s.live_count++;
	qsort_r(s.by_begin, s.live_count, sizeof *s.by_begin, cmp_begin,
	        p->buffers);
	qsort_r(s.by_end, s.live_count, sizeof *s.by_end, cmp_end, p->buffers);

	/* At each step: buffers whose range ended are checked whole (what their
	 * last reader needed), then the buffers that begin are written. */
	uint32_t bi = 0, ei = 0;
	while (bi < s.live_count || ei < s.live_count) {
		int64_t t = bi < s.live_count ? p->buffers[s.by_begin[bi]].begin
		                              : INT64_MAX;
		if (ei < s.live_count && p->buffers[s.by_end[ei]].end <= t)
			t = p->buffers[s.by_end[ei]].end;
		for (; ei < s.live_count && p->buffers[s.by_end[ei]].end == t; ei++) {
			uint32_t b = s.by_end[ei];
			st = check_bytes(&s, b, s.checked[b], p->buffers[b].size, t - 1);
			if (st)
				goto out;
		}
		uint32_t first = bi;
		while (bi < s.live_count && p->buffers[s.by_begin[bi]].begin == t)
			bi++;
		st = write_step(&s, s.by_begin + first, bi - first);
		if (st)
			goto out;
	}
	st = USMP_OK;
	plan->status = USMP_OK;
	goto out;
nomem:
	st = usmp__plan_fail(plan, USMP_ERR_NOMEM, "out of memory");
out:
	sim_finish(&s);
	return st;
}
