/* unlived.c — buffers that conflict with nothing in a problem that has live
 * ranges (no live range, no conflict edge): said once per plan, as a warning. */
#include "problem.h"
#include "registry_private.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

void usmp__warn_unlived(usmp_registry *r, const usmp_problem *p, void *log_ctx)
{
	usmp_log_fn fn;
	void *ctx;
	int level;
	usmp__log_config(r, &fn, &ctx, &level);
	if (fn && log_ctx)
		ctx = log_ctx;
	size_t n = p->buffer_count;
	if (level < USMP_LOG_WARN || !n)
		return;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t lived = 0;
	for (size_t b = 0; b < n; b++) {
		const usmp__buffer *x = &p->buffers[b];
		if (!(x->flags & USMP_BUFFER_LIVE))
			continue;
		lived++;
		lo = x->begin < lo ? x->begin : lo;
		hi = x->end > hi ? x->end : hi;
	}
	/* All buffers without live ranges: a conflict graph (TVM's way). */
	if (!lived || lived == n)
		return;
	bool *edged = calloc(n, sizeof *edged);
	if (!edged)
		return;
	for (size_t e = 0; e < p->edge_count; e++)
		edged[p->edges[e].a] = edged[p->edges[e].b] = true;
	size_t first = n, count = 0;
	for (size_t b = 0; b < n; b++) {
		if ((p->buffers[b].flags & USMP_BUFFER_LIVE) || edged[b])
			continue;
		if (first == n)
			first = b;
		count++;
	}
	free(edged);
	if (!count)
		return;
	char more[64] = "";
	if (count > 1)
		snprintf(more, sizeof more, " and %zu more", count - 1);
	char line[1024];
	snprintf(line, sizeof line,
	         "buffer \"%s\"%s %s no live range and no conflict edge, so %s "
	         "no other buffer: buffers alive at any step may be placed over "
	         "%s bytes. To keep %s bytes for the whole run (weights, "
	         "state), give %s the live range of the whole schedule "
	         "(\"live\": [%lld, %lld]; usmp_problem_set_live) or conflict "
	         "edges",
	         p->buffers[first].name, more, count > 1 ? "have" : "has",
	         count > 1 ? "each conflicts with" : "it conflicts with",
	         count > 1 ? "their" : "its", count > 1 ? "their" : "its",
	         count > 1 ? "each" : "it", (long long)lo, (long long)hi);
	if (fn)
		fn(ctx, USMP_LOG_WARN, "problem", line);
	else
		fprintf(stderr, "usmp: problem: %s\n", line);
}
