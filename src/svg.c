/* svg.c — draws a plan as SVG: one panel per pool, time across, address up,
 * a rectangle per buffer with a hover title, and the lower bound dashed. */
#include "io.h"
#include "plan.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_WIDTH 1280
#define MARGIN_LEFT 96
#define MARGIN_RIGHT 40
#define PLOT_WIDTH (SVG_WIDTH - MARGIN_LEFT - MARGIN_RIGHT)
#define HEADER_HEIGHT 56
#define PANEL_TITLE 34 /* text above each plot */
#define PANEL_AXIS 44  /* x tick labels and axis title below each plot */
#define PANEL_GAP 16
/* Every buffer drawn is at least this many pixels high and wide: a 1-byte
 * buffer in a pool of 2^63 bytes would be 1e-16 px high, one alive for a
 * step of 2^40 that wide, drawn but invisible. */
#define MIN_BUFFER_HEIGHT 1.0
#define MIN_BUFFER_WIDTH 1.0
/* Beyond this many buffers, rectangles under a pixel are left out. */
#define SVG_DETAIL_LIMIT 20000

/* Length of the UTF-8 sequence at u when it is well formed (no overlong
 * form, surrogate or code point past U+10FFFF) and its character may stand
 * in XML 1.0 text and is visible: not a C0 or C1 control, DEL, U+FFFE or
 * U+FFFF. 0 otherwise. Stops at a NUL, which is never a continuation. */
static int xml_char_len(const unsigned char *u)
{
	uint32_t cp;
	int len;
	if (u[0] < 0x80)
		return u[0] >= 0x20 && u[0] != 0x7f;
	if (u[0] >= 0xc2 && u[0] < 0xe0)
		len = 2, cp = u[0] & 0x1fu;
	else if (u[0] >= 0xe0 && u[0] < 0xf0)
		len = 3, cp = u[0] & 0x0fu;
	else if (u[0] >= 0xf0 && u[0] < 0xf5)
		len = 4, cp = u[0] & 0x07u;
	else
		return 0;
	for (int k = 1; k < len; k++) {
		if ((u[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[k] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) || cp == 0xfffe ||
	    cp == 0xffff || cp < 0xa0)
		return 0;
	return len;
}

/* Write s with XML escapes. What XML 1.0 does not allow in a document
 * (C0 controls, U+FFFE, U+FFFF, broken UTF-8) and invisible controls (DEL,
 * C1) become '?', one per byte, so the SVG is well formed for every name. */
static void put_escaped(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		unsigned char ch = *u;
		int len;
		if (ch == '&') {
			fputs("&amp;", f);
		} else if (ch == '<') {
			fputs("&lt;", f);
		} else if (ch == '>') {
			fputs("&gt;", f);
		} else if (ch == '"') {
			fputs("&quot;", f);
		} else if ((len = xml_char_len(u)) > 0) {
			fwrite(u, 1, (size_t)len, f);
			u += len;
			continue;
		} else {
			fputc('?', f);
		}
		u++;
	}
}

/* A colour from the name: FNV-1a hash to a hue, fixed-ish saturation and
 * lightness, so the same buffer keeps its colour across plans. */
static void name_colour(const char *name, char out[8])
{
	uint32_t h = 2166136261u;
	for (const unsigned char *u = (const unsigned char *)name; *u; u++) {
		h ^= *u;
		h *= 16777619u;
	}
	double hue = (double)(h % 360), sat = 0.50 + (double)((h >> 9) % 25) / 100,
	       light = 0.55 + (double)((h >> 17) % 15) / 100;
	double c = (1 - fabs(2 * light - 1)) * sat;
	double x = c * (1 - fabs(fmod(hue / 60, 2) - 1));
	double m = light - c / 2, r = 0, g = 0, b = 0;
	switch ((int)(hue / 60)) {
	case 0: r = c; g = x; break;
	case 1: r = x; g = c; break;
	case 2: g = c; b = x; break;
	case 3: g = x; b = c; break;
	case 4: r = x; b = c; break;
	default: r = c; b = x; break;
	}
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround((r + m) * 255),
	         (unsigned)lround((g + m) * 255), (unsigned)lround((b + m) * 255));
}

/* Bytes for axis labels in a unit suiting the axis step: "1280 KiB",
 * "1.5 KiB", "512". Steps and units are powers of two, so %g is exact. */
static void fmt_bytes(uint64_t v, uint64_t step, char *buf, size_t n)
{
	static const char *const units[] = {"", " KiB", " MiB", " GiB", " TiB"};
	int u = 0;
	while (u < 4 && step / 256 >= (1ull << (10 * u)))
		u++;
	if (v == 0 || u == 0)
		snprintf(buf, n, "%" PRIu64, v);
	else
		snprintf(buf, n, "%g%s", (double)v / (double)(1ull << (10 * u)),
		         units[u]);
}

/* Bytes for prose: "253952 B (248.0 KiB)". */
static void fmt_size(uint64_t v, char *buf, size_t n)
{
	if (v >= (1ull << 30))
		snprintf(buf, n, "%" PRIu64 " B (%.1f GiB)", v,
		         (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, n, "%" PRIu64 " B (%.1f MiB)", v,
		         (double)v / (1ull << 20));
	else if (v >= 1024)
		snprintf(buf, n, "%" PRIu64 " B (%.1f KiB)", v, (double)v / 1024);
	else
		snprintf(buf, n, "%" PRIu64 " B", v);
}

/* A power-of-two byte step giving at most 8 intervals up to ymax. */
static uint64_t byte_step(uint64_t ymax)
{
	uint64_t step = 1;
	while (step < (UINT64_MAX >> 1) && ymax / step > 8)
		step <<= 1;
	return step;
}

/* A 1, 2, 5 x 10^k step giving about 10 intervals over span. */
static double time_step(double span)
{
	double raw = span / 10, p = pow(10, floor(log10(raw > 1 ? raw : 1)));
	if (raw <= 1)
		return 1;
	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}

typedef struct svg_ctx {
	FILE *f;
	usmp_plan *plan;
	usmp_problem *p;
	int64_t tmin, tmax; /* time axis */
	double sx;          /* pixels per time step */
	double stroke;
	int detail;         /* 0: skip sub-pixel rectangles */
	uint32_t *count;    /* buffers per pool */
	uint32_t *start;    /* pool j's buffers: order[start[j] .. start[j+1]) */
	uint32_t *order;    /* placed buffers by pool, then index */
	uint32_t *pools_in_group; /* pools per group */
} svg_ctx;

/* Time t's distance from the axis' start, exact as an integer (the two
 * are int64: their difference fits in uint64), then as a double: far from
 * 0, two times a step apart are one double, and their difference 0. */
static double since_tmin(const svg_ctx *c, int64_t t)
{
	return (double)((uint64_t)t - (uint64_t)c->tmin);
}

static void draw_time_axis(svg_ctx *c, double y)
{
	FILE *f = c->f;
	uint64_t span = (uint64_t)c->tmax - (uint64_t)c->tmin;
	/* a 1, 2, 5 x 10^k step: at most 2e18 for a span below 2^64 */
	uint64_t step = (uint64_t)time_step((double)span);
	int64_t rem = c->tmin % (int64_t)step;
	if (rem < 0)
		rem += (int64_t)step;
	/* the first tick, a multiple of step, as a distance from tmin */
	uint64_t off = rem ? step - (uint64_t)rem : 0;

	fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
	        "y2=\"%.1f\"/>\n", MARGIN_LEFT, y, MARGIN_LEFT + PLOT_WIDTH, y);
	for (int k = 0; k <= 12 && off <= span; k++) {
		int64_t t = (int64_t)((uint64_t)c->tmin + off);
		double x = MARGIN_LEFT + (double)off * c->sx;
		fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" "
		        "x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tk\" x=\"%.1f\" "
		        "y=\"%.1f\" text-anchor=\"middle\">%" PRId64 "</text>\n",
		        x, y, x, y + 5, x, y + 17, t);
		if (off > span - step)
			break;
		off += step;
	}
	fprintf(f, "<text class=\"lb\" x=\"%d\" y=\"%.1f\" "
	        "text-anchor=\"end\">time step</text>\n",
	        MARGIN_LEFT + PLOT_WIDTH, y + 34);
}

/* The address axis of a panel plotting [0, ymax] bytes at sy pixels a
 * byte, its plot area from top down ph pixels. */
static void draw_address_axis(svg_ctx *c, uint64_t ymax, double sy,
                              double top, double ph)
{
	FILE *f = c->f;
	double bottom = top + ph;
	uint64_t step = byte_step(ymax);
	for (uint64_t v = 0; v <= ymax; v += step) {
		char lab[32];
		double y = bottom - (double)v * sy;
		fmt_bytes(v, step, lab, sizeof lab);
		fprintf(f, "<line class=\"gr\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		        "y2=\"%.1f\"/><text class=\"tk\" x=\"%d\" y=\"%.1f\" "
		        "text-anchor=\"end\">%s</text>\n", MARGIN_LEFT - 5, y,
		        MARGIN_LEFT + PLOT_WIDTH, y, MARGIN_LEFT - 8, y + 4, lab);
		if (v > UINT64_MAX - step)
			break;
	}
	fprintf(f, "<text class=\"lb\" transform=\"translate(%d,%.1f) "
	        "rotate(-90)\" text-anchor=\"middle\">bytes</text>\n",
	        18, top + ph / 2);
}

/* The rectangles of the buffers placed in pool, in the plot [top, bottom],
 * counting those drawn and those skipped as smaller than a pixel (without
 * c->detail). Each is at least MIN_BUFFER_HEIGHT high, grown up from its
 * offset, and MIN_BUFFER_WIDTH wide, grown right from its first step; both
 * kept inside the plot. */
static void draw_buffers(svg_ctx *c, uint32_t pool, double sy, double top,
                         double bottom, uint32_t *drawn, uint32_t *skipped)
{
	FILE *f = c->f;
	for (uint32_t k = c->start[pool]; k < c->start[pool + 1]; k++) {
		uint32_t i = c->order[k];
		const usmp_placement *pm = &c->plan->placements[i];
		const usmp__buffer *b = &c->p->buffers[i];
		int live = (b->flags & USMP_BUFFER_LIVE) != 0;
		double x = MARGIN_LEFT, w = PLOT_WIDTH;
		if (live) {
			x = MARGIN_LEFT + since_tmin(c, b->begin) * c->sx;
			w = (double)((uint64_t)b->end - (uint64_t)b->begin) * c->sx;
		}
		double h = (double)b->size * sy;
		double y = bottom - ((double)pm->offset + (double)b->size) * sy;
		if (!c->detail && w * h < 1) {
			(*skipped)++;
			continue;
		}
		if (w < MIN_BUFFER_WIDTH) {
			w = MIN_BUFFER_WIDTH;
			if (x > MARGIN_LEFT + PLOT_WIDTH - w)
				x = MARGIN_LEFT + PLOT_WIDTH - w;
		}
		if (h < MIN_BUFFER_HEIGHT) {
			y = bottom - (double)pm->offset * sy - MIN_BUFFER_HEIGHT;
			h = MIN_BUFFER_HEIGHT;
			y = y < top ? top : y > bottom - h ? bottom - h : y;
		}
		char col[8];
		name_colour(b->name, col);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		        "height=\"%.2f\" fill=\"%s\"%s><title>", x, y, w, h, col,
		        live ? "" : " class=\"nl\"");
		put_escaped(f, b->name);
		fprintf(f, ": %" PRIu64 " B at offset %" PRIu64, b->size,
		        pm->offset);
		if (live)
			fprintf(f, ", live [%" PRId64 ", %" PRId64 ")</title></rect>\n",
			        b->begin, b->end);
		else
			fputs(", no live range</title></rect>\n", f);
		(*drawn)++;
	}
}

/* One pool's panel with its top edge at y0; returns its height. */
static double draw_panel(svg_ctx *c, uint32_t pool, double y0, double ph)
{
	FILE *f = c->f;
	usmp_problem *p = c->p;
	const usmp__pool *pl = &p->pools[pool];
	uint64_t size = c->plan->pool_size[pool];
	uint32_t group = usmp_problem_prepare_pool_group(p, pool);
	uint64_t bound = group != UINT32_MAX
	                         ? usmp_problem_prepare_group_bound(p, group)
	                         : 0;
	/* the bound is for several pools together */
	int shared = group != UINT32_MAX && c->pools_in_group[group] > 1;
	uint64_t ymax = size > 1 ? size : 1;
	if (!shared && bound > ymax)
		ymax = bound;
	int show_limit = pl->size_limit != USMP_UNBOUNDED &&
	                 (double)pl->size_limit <= 1.25 * (double)ymax;
	if (show_limit && pl->size_limit > ymax)
		ymax = pl->size_limit;
	double sy = ph / (double)ymax;
	double top = y0 + PANEL_TITLE, bottom = top + ph;
	char sz[64], bd[64], lim[64];
	uint32_t skipped = 0, drawn = 0;

	fmt_size(size, sz, sizeof sz);
	fmt_size(bound, bd, sizeof bd);
	fprintf(f, "<g>\n<text class=\"pn\" x=\"%d\" y=\"%.1f\">pool \"",
	        MARGIN_LEFT, y0 + 14);
	put_escaped(f, pl->name);
	if (shared)
		fprintf(f, "\": size %s, lower bound of its pool group (all its "
		        "pools together) %s", sz, bd);
	else
		fprintf(f, "\": size %s, lower bound %s", sz, bd);
	if (size && bound && !shared)
		fprintf(f, " (ratio %.3f)", (double)size / (double)bound);
	if (pl->size_limit != USMP_UNBOUNDED) {
		fmt_size(pl->size_limit, lim, sizeof lim);
		fprintf(f, ", limit %s", lim);
	}
	fprintf(f, ", %u buffer%s</text>\n", c->count[pool],
	        c->count[pool] == 1 ? "" : "s");
	fprintf(f, "<rect class=\"bg\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
	        "height=\"%.1f\"/>\n", MARGIN_LEFT, top, PLOT_WIDTH, ph);

	draw_address_axis(c, ymax, sy, top, ph);
	draw_buffers(c, pool, sy, top, bottom, &drawn, &skipped);

	/* Bound and limit lines on top of the buffers. */
	if (bound && bound <= ymax) {
		double y = bottom - (double)bound * sy;
		fprintf(f, "<line class=\"lbd\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		        "y2=\"%.1f\"/><text class=\"lbt\" x=\"%d\" y=\"%.1f\" "
		        "text-anchor=\"end\">%slower bound</text>\n", MARGIN_LEFT,
		        y, MARGIN_LEFT + PLOT_WIDTH, y, MARGIN_LEFT + PLOT_WIDTH - 4,
		        y - 4, shared ? "group " : "");
	}
	if (show_limit) {
		double y = bottom - (double)pl->size_limit * sy;
		fprintf(f, "<line class=\"lim\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		        "y2=\"%.1f\"/><text class=\"limt\" x=\"%d\" y=\"%.1f\">"
		        "size limit</text>\n", MARGIN_LEFT, y,
		        MARGIN_LEFT + PLOT_WIDTH, y, MARGIN_LEFT + 4, y - 4);
	}
	if (skipped)
		fprintf(f, "<text class=\"note\" x=\"%d\" y=\"%.1f\" "
		        "text-anchor=\"end\">%u of %u buffers smaller than a pixel "
		        "not drawn</text>\n", MARGIN_LEFT + PLOT_WIDTH, y0 + 14,
		        skipped, skipped + drawn);
	draw_time_axis(c, bottom);
	fputs("</g>\n", f);
	return PANEL_TITLE + ph + PANEL_AXIS + PANEL_GAP;
}

static void free_ctx(svg_ctx *c)
{
	free(c->count);
	free(c->start);
	free(c->order);
	free(c->pools_in_group);
}

/* The placed buffers by pool (order, start) and the pools of each group,
 * by counting passes: a plan of many pools draws in O(buffers + pools),
 * not O(pools x (buffers + pools)). */
static int index_pools(svg_ctx *c, uint32_t groups)
{
	const usmp_plan *plan = c->plan;
	uint32_t np = plan->pool_count;
	c->start = calloc((size_t)np + 1, sizeof *c->start);
	c->order = malloc((plan->buffer_count ? plan->buffer_count : 1) *
	                  sizeof *c->order);
	c->pools_in_group = calloc(groups ? groups : 1,
	                           sizeof *c->pools_in_group);
	if (!c->start || !c->order || !c->pools_in_group)
		return USMP_ERR_NOMEM;
	for (uint32_t j = 0; j < np; j++) {
		uint32_t g = usmp_problem_prepare_pool_group(c->p, j);
		if (g < groups)
			c->pools_in_group[g]++;
	}
	for (uint32_t i = 0; i < plan->buffer_count; i++)
		if (plan->placements[i].pool < np)
			c->start[plan->placements[i].pool + 1]++;
	for (uint32_t j = 0; j < np; j++)
		c->start[j + 1] += c->start[j];
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		uint32_t q = plan->placements[i].pool;
		if (q < np)
			c->order[c->start[q]++] = i;
	}
	/* start[q] now ends pool q's run; shift back so it begins it */
	for (uint32_t j = np; j > 0; j--)
		c->start[j] = c->start[j - 1];
	c->start[0] = 0;
	return USMP_OK;
}

/* a + b, or UINT64_MAX with *past set once a sum passes 64 bits. */
static uint64_t add_saturating(uint64_t a, uint64_t b, bool *past)
{
	*past = *past || a + b < a;
	return *past ? UINT64_MAX : a + b;
}

int usmp__svg_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f)
{
	svg_ctx c = {.f = f, .plan = plan, .p = p};
	uint32_t unplaced = 0, panels = 0;
	uint64_t total = 0, bound_total = 0;
	int any_live = 0;

	uint32_t groups = usmp_problem_prepare_group_count(p);
	c.count = calloc(p->pool_count ? p->pool_count : 1, sizeof *c.count);
	uint32_t *algo_first = NULL, algo_count = 0;
	if (!c.count || index_pools(&c, groups) != USMP_OK ||
	    usmp__plan_distinct_algorithms(plan, &algo_first, &algo_count)) {
		free_ctx(&c);
		return usmp__plan_fail(plan, USMP_ERR_NOMEM,
		                       "out of memory drawing the plan");
	}
	usmp__plan_measure(plan, p);
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		const usmp__buffer *b = &p->buffers[i];
		if (plan->placements[i].pool >= plan->pool_count) {
			unplaced++;
			continue;
		}
		c.count[plan->placements[i].pool]++;
		if (!(b->flags & USMP_BUFFER_LIVE))
			continue;
		if (!any_live || b->begin < c.tmin)
			c.tmin = b->begin;
		if (!any_live || b->end > c.tmax)
			c.tmax = b->end;
		any_live = 1;
	}
	if (!any_live) {
		c.tmin = 0;
		c.tmax = 1;
	}
	c.sx = PLOT_WIDTH / since_tmin(&c, c.tmax);
	c.detail = plan->buffer_count <= SVG_DETAIL_LIMIT;
	c.stroke = plan->buffer_count > 2000 ? 0.15 : 0.5;
	/* Each pool and bound may be up to 2^64 - 1: the sums saturate. */
	bool total_past = false, bound_past = false;
	for (uint32_t j = 0; j < plan->pool_count; j++) {
		panels += c.count[j] != 0;
		total = add_saturating(total, plan->pool_size[j], &total_past);
	}
	for (uint32_t g = 0; g < groups; g++)
		bound_total = add_saturating(
			bound_total, usmp_problem_prepare_group_bound(p, g), &bound_past);

	double ph = panels <= 1 ? 420 : panels <= 3 ? 300 : 200;
	double height = HEADER_HEIGHT + (panels ? panels : 1) *
	                (PANEL_TITLE + ph + PANEL_AXIS + PANEL_GAP);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	        "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
	        "font-family=\"sans-serif\">\n", SVG_WIDTH, height, SVG_WIDTH,
	        height);
	fprintf(f, "<style>\n"
	        "rect{stroke:#1a1a1a;stroke-width:%.2f;fill-opacity:0.88}\n"
	        "rect.nl{fill-opacity:0.35;stroke-dasharray:3 2}\n"
	        "rect.bg{fill:#fafafa;fill-opacity:1;stroke:#888;stroke-width:1}\n"
	        ".ax{stroke:#333;stroke-width:1}\n"
	        ".gr{stroke:#ddd;stroke-width:1}\n"
	        ".lbd{stroke:#000;stroke-width:1.5;stroke-dasharray:8 5}\n"
	        ".lim{stroke:#c00;stroke-width:1.5}\n"
	        ".tk{font-size:11px;fill:#333}\n"
	        ".lb{font-size:12px;fill:#333}\n"
	        ".pn{font-size:13px;font-weight:bold;fill:#111}\n"
	        ".lbt{font-size:11px;fill:#000;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
	        ".limt{font-size:11px;fill:#c00;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
	        ".note{font-size:11px;fill:#a00}\n"
	        ".hd{font-size:15px;font-weight:bold;fill:#111}\n"
	        "</style>\n<rect x=\"0\" y=\"0\" width=\"100%%\" "
	        "height=\"100%%\" style=\"fill:#fff;fill-opacity:1;stroke:none\"/>\n",
	        c.stroke);

	/* Header: what made the plan and how good it is. */
	fputs("<text class=\"hd\" x=\"16\" y=\"24\">usmp plan", f);
	for (uint32_t k = 0, shown = 0; k < algo_count; k++) {
		const char *a = plan->parts[algo_first[k]].algorithm;
		if (!a || !*a)
			continue;
		fputs(shown++ ? " + " : ": ", f);
		put_escaped(f, a);
	}
	free(algo_first);
	char ts[64], bs[64];
	fmt_size(total, ts, sizeof ts);
	fmt_size(bound_total, bs, sizeof bs);
	fprintf(f, "</text>\n<text class=\"lb\" x=\"16\" y=\"44\">%u buffer%s, "
	        "%u pool%s; total size %s%s, lower bound %s%s", plan->buffer_count,
	        plan->buffer_count == 1 ? "" : "s", plan->pool_count,
	        plan->pool_count == 1 ? "" : "s", total_past ? "more than " : "",
	        ts, bound_past ? "more than " : "", bs);
	if (bound_total && !total_past && !bound_past)
		fprintf(f, ", ratio %.3f", (double)total / (double)bound_total);
	if (unplaced)
		fprintf(f, "; %u buffer%s without a placement not drawn",
		        unplaced, unplaced == 1 ? "" : "s");
	if (panels < plan->pool_count)
		fprintf(f, "; %u empty pool%s not drawn",
		        plan->pool_count - panels,
		        plan->pool_count - panels == 1 ? "" : "s");
	fputs("</text>\n", f);

	double y = HEADER_HEIGHT;
	for (uint32_t j = 0; j < plan->pool_count; j++)
		if (c.count[j])
			y += draw_panel(&c, j, y, ph);
	if (!panels)
		fprintf(f, "<text class=\"lb\" x=\"%d\" y=\"%.0f\">no buffers "
		        "placed</text>\n", MARGIN_LEFT, y + 40);
	fputs("</svg>\n", f);
	free_ctx(&c);
	return USMP_OK;
}
