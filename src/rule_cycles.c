/* rule_cycles.c — overlap rules must not form a cycle: find the first rule,
 * in the order they were added, that closes one, and name the cycle. */
#include "problem.h"

#include <stdlib.h>
#include <string.h>

/*
 * A rule src -> dst says dst is written by the op that reads src, so dst
 * comes after src in any schedule; a cycle of rules describes no schedule
 * (and would let every buffer of it share bytes with the next while the
 * replay of the plan finds a byte overwritten before its last use). The
 * whole rule graph is checked by one topological sort, O(n + m). Only when
 * it has a cycle, a binary search over prefixes of the rule list (each one
 * a topological sort) finds the first rule that closes one, and a
 * breadth-first search from its dst back to its src gives the shortest cycle
 * through it.
 */

/* At most this many buffers of a cycle are named; longer ones are cut. */
#define CYCLE_NAMES 8

typedef struct graph {
	uint32_t n;
	size_t *start;  /* [n + 1] CSR of rules by src over the current prefix */
	uint32_t *adj;  /* rule indices */
	uint32_t *deg;  /* [n] */
	uint32_t *queue; /* [n] */
} graph;

/* CSR of rules[0..k) by src. */
static void build(graph *g, const usmp_overlap_rec *o, size_t k)
{
	memset(g->start, 0, ((size_t)g->n + 1) * sizeof *g->start);
	for (size_t i = 0; i < k; i++)
		g->start[o[i].src + 1]++;
	for (uint32_t b = 0; b < g->n; b++)
		g->start[b + 1] += g->start[b];
	/* deg as a fill cursor, then reset */
	for (uint32_t b = 0; b < g->n; b++)
		g->deg[b] = 0;
	for (size_t i = 0; i < k; i++) {
		uint32_t s = o[i].src;
		g->adj[g->start[s] + g->deg[s]++] = (uint32_t)i;
	}
}

/* Whether rules[0..k) contain a cycle (Kahn's algorithm). */
static bool cyclic(graph *g, const usmp_overlap_rec *o, size_t k)
{
	uint32_t head = 0, tail = 0, done = 0;
	build(g, o, k);
	memset(g->deg, 0, (size_t)g->n * sizeof *g->deg);
	for (size_t i = 0; i < k; i++)
		g->deg[o[i].dst]++;
	for (uint32_t b = 0; b < g->n; b++)
		if (!g->deg[b])
			g->queue[tail++] = b;
	while (head < tail) {
		uint32_t b = g->queue[head++];
		done++;
		for (size_t e = g->start[b]; e < g->start[b + 1]; e++)
			if (--g->deg[o[g->adj[e]].dst] == 0)
				g->queue[tail++] = o[g->adj[e]].dst;
	}
	return done < g->n;
}

/* Append `s` to the growing message *m (length *len, capacity *cap). */
static int put(char **m, size_t *len, size_t *cap, const char *s)
{
	size_t add = strlen(s);
	if (usmp__grow((void **)m, cap, *len + add + 1, 1))
		return USMP_ERR_NOMEM;
	memcpy(*m + *len, s, add + 1);
	*len += add;
	return USMP_OK;
}

static int put_name(char **m, size_t *len, size_t *cap, const char *name,
                    bool arrow)
{
	int rc = arrow ? put(m, len, cap, " -> \"") : put(m, len, cap, "\"");
	if (!rc)
		rc = put(m, len, cap, name);
	if (!rc)
		rc = put(m, len, cap, "\"");
	return rc;
}

/* The message for closing rule c: the shortest path dst ->* src among
 * rules[0..c), then back to dst. g holds the CSR of rules[0..c). */
static int describe(usmp_problem *p, graph *g, size_t c, uint32_t *via)
{
	const usmp_overlap_rec *o = p->overlaps;
	uint32_t s = o[c].src, d = o[c].dst, head = 0, tail = 0;
	char *m = NULL, num[64];
	size_t len = 0, cap = 0, count = 0;
	uint32_t *path = g->deg; /* reused: the cycle, dst first */
	int rc;

	build(g, o, c);
	for (uint32_t b = 0; b < g->n; b++)
		via[b] = UINT32_MAX;
	via[d] = (uint32_t)c; /* marks the start */
	g->queue[tail++] = d;
	while (head < tail && via[s] == UINT32_MAX) {
		uint32_t b = g->queue[head++];
		for (size_t e = g->start[b]; e < g->start[b + 1]; e++) {
			uint32_t t = o[g->adj[e]].dst;
			if (via[t] == UINT32_MAX) {
				via[t] = g->adj[e];
				g->queue[tail++] = t;
			}
		}
	}
	/* Walk back from src to dst, then reverse into path. */
	for (uint32_t b = s;; b = o[via[b]].src) {
		path[count++] = b;
		if (b == d)
			break;
	}
	for (size_t i = 0; i < count / 2; i++) {
		uint32_t t = path[i];
		path[i] = path[count - 1 - i];
		path[count - 1 - i] = t;
	}
	snprintf(num, sizeof num, "overlaps[%zu]: rule ", c);
	rc = put(&m, &len, &cap, num);
	if (!rc)
		rc = put_name(&m, &len, &cap, p->buffers[s].name, false);
	if (!rc)
		rc = put_name(&m, &len, &cap, p->buffers[d].name, true);
	if (!rc)
		rc = put(&m, &len, &cap, " closes a cycle of overlap rules: ");
	for (size_t i = 0; i < count && !rc; i++) {
		if (count > CYCLE_NAMES && i == CYCLE_NAMES / 2) {
			rc = put(&m, &len, &cap, " -> ...");
			i = count - CYCLE_NAMES / 2;
		}
		if (!rc)
			rc = put_name(&m, &len, &cap, p->buffers[path[i]].name, i > 0);
	}
	if (!rc)
		rc = put_name(&m, &len, &cap, p->buffers[d].name, true);
	if (!rc && count > CYCLE_NAMES) {
		snprintf(num, sizeof num, " (%zu rules)", count);
		rc = put(&m, &len, &cap, num);
	}
	if (rc)
		rc = usmp__problem_fail(p, USMP_ERR_NOMEM, "overlap rules: out of "
		                        "memory naming a cycle");
	else
		rc = usmp__problem_fail(p, USMP_ERR_INVALID, "%s", m);
	free(m);
	return rc;
}

int usmp__rule_cycles(usmp_problem *p)
{
	graph g = {0};
	uint32_t *via = NULL;
	size_t m = p->overlap_count;
	int rc = USMP_OK;

	if (m == 0)
		return USMP_OK;
	g.n = (uint32_t)p->buffer_count;
	g.start = malloc(((size_t)g.n + 1) * sizeof *g.start);
	g.adj = malloc(m * sizeof *g.adj);
	g.deg = malloc((size_t)g.n * sizeof *g.deg);
	g.queue = malloc((size_t)g.n * sizeof *g.queue);
	via = malloc((size_t)g.n * sizeof *via);
	if (!g.start || !g.adj || !g.deg || !g.queue || !via) {
		rc = usmp__problem_fail(p, USMP_ERR_NOMEM, "overlap rules: out of "
		                        "memory checking for cycles");
		goto fail;
	}
	if (!cyclic(&g, p->overlaps, m))
		goto fail; /* rc is USMP_OK: nothing to report */
	/* The shortest prefix with a cycle: its last rule closes it. */
	size_t lo = 1, hi = m;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cyclic(&g, p->overlaps, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	rc = describe(p, &g, lo - 1, via);
fail:
	free(g.start);
	free(g.adj);
	free(g.deg);
	free(g.queue);
	free(via);
	return rc;
}
