/* io_csv.c — MiniMalloc's CSV format: problems (id,lower,upper,size and
 * optional alignment, offset; one pool) and plans (those columns plus offset). */
#include "io.h"
#include "plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Longest line accepted: a MiniMalloc row is a few dozen bytes. */
#define CSV_MAX_LINE USMP__CSV_MAX_LINE
/* Longest rendering of an offending field quoted in a message. */
#define CSV_SHOW_MAX 40

enum col {
	COL_ID,
	COL_LOWER,
	COL_UPPER,
	COL_SIZE,
	COL_ALIGNMENT,
	COL_OFFSET,
	COL_COUNT
};

static const char *const col_names[COL_COUNT] = {
	"id", "lower", "upper", "size", "alignment", "offset"};

/* A field: a slice of the input, trimmed of spaces and tabs. */
typedef struct field {
	const char *s;
	size_t n;
} field;

typedef struct cctx {
	const char *name; /* file name for messages */
	const char *data;
	size_t len, pos;
	size_t line;      /* number of the line last returned */
	usmp_problem *p;
	usmp_plan *plan;  /* NULL while reading a problem */
	int col_of[COL_COUNT]; /* field index of each column, -1 when absent */
	int ncols;
	field fields[COL_COUNT];
	size_t *lines;    /* line of each buffer's row (duplicate messages) */
	size_t lines_cap;
} cctx;

static int cfail(cctx *c, int status, size_t line, const char *fmt, ...)
	USMP__PRINTF(4, 5);

static int cfail(cctx *c, int status, size_t line, const char *fmt, ...)
{
	char *msg = NULL, where[32];
	va_list ap;

	va_start(ap, fmt);
	usmp__vset_msg(&msg, fmt, ap);
	va_end(ap);
	where[0] = '\0';
	if (line)
		snprintf(where, sizeof where, ":%zu", line);
	if (c->plan) {
		for (uint32_t i = 0; i < c->plan->buffer_count; i++) {
			c->plan->placements[i].pool = USMP_NO_POOL;
			c->plan->placements[i].offset = 0;
		}
		usmp__plan_fail(c->plan, status, "%s%s: %s", c->name, where, msg);
	} else {
		usmp__read_fail(c->p, status, "%s%s: %s", c->name, where, msg);
	}
	usmp__free_msg(&msg);
	return status;
}

/* A builder call failed: its message, prefixed with line and column. */
static int builder_fail(cctx *c, int rc, const char *col)
{
	char *msg = usmp__strdup(usmp_problem_error(c->p));
	int status = rc == USMP_ERR_NOMEM ? USMP_ERR_NOMEM : USMP_ERR_INVALID;
	cfail(c, status, c->line, "%s%s%s", col ? col : "", col ? ": " : "",
	      msg ? msg : "out of memory");
	free(msg);
	return status;
}

/* The field as a quoted string for messages (bounded, printable). */
static void show(field f, char *buf, size_t n)
{
	size_t o = 0;
	if (n < 8)
		return;
	buf[o++] = '"';
	for (size_t i = 0; i < f.n && o + 6 < n; i++) {
		unsigned char ch = (unsigned char)f.s[i];
		if (i == CSV_SHOW_MAX) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		buf[o++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

static int is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/* The next non-blank line without its line ending; 0 at the end of data,
 * -1 after an error (reported). */
static int next_line(cctx *c, const char **s, size_t *n)
{
	while (c->pos < c->len) {
		const char *start = c->data + c->pos;
		const char *nl = memchr(start, '\n', c->len - c->pos);
		size_t len = nl ? (size_t)(nl - start) : c->len - c->pos;
		c->pos += len + (nl ? 1 : 0);
		c->line++;
		if (len && start[len - 1] == '\r')
			len--;
		/* A file saved with bare CRs as line ends is one long line
		 * whose header runs into the rows: say what it is. */
		if (memchr(start, '\r', len)) {
			cfail(c, USMP_ERR_INVALID, c->line,
			      "a carriage return (CR) inside the line: lines end "
			      "in LF or CRLF (is the file saved with CR line "
			      "ends?)");
			return -1;
		}
		if (len > CSV_MAX_LINE) {
			/* Name the column that runs past the limit. */
			int k = 0, col = -1;
			for (size_t i = 0; i < CSV_MAX_LINE; i++)
				k += start[i] == ',';
			for (int j = 0; j < COL_COUNT; j++)
				if (c->ncols && c->col_of[j] == k)
					col = j;
			/* A file is not read past a line of more than
			 * USMP__CSV_READ_STOP bytes (io_read.c): its length is
			 * not known, only that it is more. */
			char got[64];
			if (len > USMP__CSV_READ_STOP)
				snprintf(got, sizeof got, "more than %zu",
				         USMP__CSV_READ_STOP);
			else
				snprintf(got, sizeof got, "%zu", len);
			if (col >= 0)
				cfail(c, USMP_ERR_INVALID, c->line,
				      "line longer than %d bytes (%s): column \"%s\" "
				      "runs past byte %d", CSV_MAX_LINE, got,
				      col_names[col], CSV_MAX_LINE);
			else
				cfail(c, USMP_ERR_INVALID, c->line,
				      "line longer than %d bytes (%s)",
				      CSV_MAX_LINE, got);
			return -1;
		}
		if (is_blank(start, len))
			continue;
		*s = start;
		*n = len;
		return 1;
	}
	return 0;
}

/* Split a line at commas into at most `max` fields; returns the count
 * (max + 1 when there are more), or -1 on a quote (reported). */
static int split(cctx *c, const char *s, size_t n, field *out, int max)
{
	int count = 0;
	size_t i = 0;

	if (memchr(s, '"', n)) {
		cfail(c, USMP_ERR_INVALID, c->line,
		      "quoted fields are not supported (MiniMalloc's CSV has "
		      "none)");
		return -1;
	}
	for (;;) {
		size_t start = i;
		while (i < n && s[i] != ',')
			i++;
		size_t a = start, b = i;
		while (a < b && (s[a] == ' ' || s[a] == '\t'))
			a++;
		while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
			b--;
		if (count < max) {
			out[count].s = s + a;
			out[count].n = b - a;
		}
		count++;
		if (i >= n)
			break;
		i++; /* the comma */
	}
	return count > max ? max + 1 : count;
}

static int field_is(field f, const char *word)
{
	return strlen(word) == f.n && memcmp(f.s, word, f.n) == 0;
}

/* Strict decimal: optional '-' when `allow_neg`, digits, nothing else. */
static int parse_i64(field f, int allow_neg, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0, limit;

	if (f.n && f.s[0] == '-' && allow_neg) {
		neg = 1;
		i = 1;
	}
	if (i == f.n)
		return -1;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < f.n; i++) {
		if (f.s[i] < '0' || f.s[i] > '9')
			return -1;
		unsigned d = (unsigned)(f.s[i] - '0');
		if (v > (limit - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return 0;
}

/* The known column a header cell misspells (edit distance 1, or 2 for a
 * name of 5 letters or more, case ignored), or -1. */
static int close_column(field f)
{
	for (int k = 0; k < COL_COUNT; k++) {
		const char *b = col_names[k];
		size_t m = strlen(b);
		if (f.n > 12 || m > 12)
			continue;
		if (usmp__edit_distance(f.s, f.n, b, m, true) <= (m >= 5 ? 2u : 1u))
			return k;
	}
	return -1;
}

/* Another tool's name for a column (a planner's export, a spreadsheet):
 * the column meant and what to know about it, or NULL. Case ignored. */
static const char *column_meant(field f, int *col)
{
#define UPPER_NOTE "; upper is excluded: a buffer last used at step t has " \
	           "upper t + 1"
	static const struct {
		const char *word;
		int col;
		const char *note;
	} words[] = {
		{"begin", COL_LOWER, ""}, {"start", COL_LOWER, ""},
		{"first", COL_LOWER, ""}, {"from", COL_LOWER, ""},
		{"end", COL_UPPER, UPPER_NOTE},
		{"stop", COL_UPPER, UPPER_NOTE},
		{"last", COL_UPPER, UPPER_NOTE},
		{"until", COL_UPPER, UPPER_NOTE},
		{"to", COL_UPPER, UPPER_NOTE},
		{"name", COL_ID, ""}, {"buffer", COL_ID, ""}, {"tensor", COL_ID, ""},
		{"bytes", COL_SIZE, ""}, {"length", COL_SIZE, ""},
		{"len", COL_SIZE, ""}, {"align", COL_ALIGNMENT, ""},
		{"address", COL_OFFSET, ""}, {"addr", COL_OFFSET, ""},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i].word), j = 0;
		if (n != f.n)
			continue;
		while (j < n && (f.s[j] | 0x20) == words[i].word[j])
			j++;
		if (j == n) {
			*col = words[i].col;
			return words[i].note;
		}
	}
	return NULL;
#undef UPPER_NOTE
}

int usmp__csv_header_known(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		size_t a = i;
		while (i < n && s[i] != ',')
			i++;
		size_t b = i;
		while (a < b && (s[a] == ' ' || s[a] == '\t'))
			a++;
		while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
			b--;
		int k = 0;
		while (k < COL_COUNT &&
		       !field_is((field){s + a, b - a}, col_names[k]))
			k++;
		if (k == COL_COUNT)
			return 0;
		if (i >= n)
			return 1;
		i++; /* the comma */
	}
}

/* Read the header row: which column is where. `plan` mode requires id and
 * offset only; problem mode requires id, lower, upper, size. */
static int read_header(cctx *c, int plan)
{
	field f[64];
	const char *s;
	size_t n;
	int count, rc;

	for (int k = 0; k < COL_COUNT; k++)
		c->col_of[k] = -1;
	rc = next_line(c, &s, &n);
	if (rc < 0)
		return USMP_ERR_INVALID;
	if (rc == 0)
		return cfail(c, USMP_ERR_INVALID, 0,
		             "empty file: expected a header row with %s",
		             plan ? "id,offset" : "id,lower,upper,size");
	/* JSON behind a .csv name: say so, not "quoted fields are not
	 * supported" */
	size_t lead = 0;
	while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	if (lead < n && (s[lead] == '{' || s[lead] == '['))
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "expected a header row (%s), got JSON text: a file "
		             "whose name ends in .csv is read as MiniMalloc CSV "
		             "(a JSON file needs a name that does not)",
		             plan ? "id,...,offset" : "id,lower,upper,size");
	count = split(c, s, n, f, 64);
	if (count < 0)
		return USMP_ERR_INVALID;
	/* One cell holding the column names another way apart (a
	 * spreadsheet's ';' or tab export): say what separates them. */
	if (count == 1 && (memchr(s, ';', n) || memchr(s, '\t', n)) &&
	    n >= 2 && !strncmp(f[0].s, "id", 2))
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "the header has no comma: its columns are separated "
		             "by %s; this CSV separates them by commas "
		             "(%s)",
		             memchr(s, ';', n) ? "semicolons (;)" : "tabs",
		             plan ? "id,...,offset" : "id,lower,upper,size");
	if (count > 64)
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "too many columns in the header row");
	for (int i = 0; i < count; i++) {
		int k;
		char got[CSV_SHOW_MAX + 8];
		for (k = 0; k < COL_COUNT; k++)
			if (field_is(f[i], col_names[k]))
				break;
		if (k == COL_COUNT) {
			int64_t dummy;
			show(f[i], got, sizeof got);
			if (i == 0 && parse_i64(f[i], 1, &dummy) == 0)
				return cfail(c, USMP_ERR_INVALID, c->line,
				             "expected a header row (%s), got data",
				             plan ? "id,...,offset"
				                  : "id,lower,upper,size");
			int near = close_column(f[i]);
			const char *note = near < 0 ? column_meant(f[i], &near) : "";
			return cfail(c, USMP_ERR_INVALID, c->line,
			             "unknown column %s%s%s%s (known: id, lower, "
			             "upper, size, alignment, offset)%s", got,
			             near >= 0 ? ": did you mean \"" : "",
			             near >= 0 ? col_names[near] : "",
			             near >= 0 ? "\"?" : "", note ? note : "");
		}
		if (c->col_of[k] >= 0)
			return cfail(c, USMP_ERR_INVALID, c->line,
			             "column \"%s\" appears twice", col_names[k]);
		c->col_of[k] = i;
	}
	c->ncols = count;
	for (int k = 0; k < COL_COUNT; k++) {
		int needed = plan ? (k == COL_ID || k == COL_OFFSET)
		                  : (k <= COL_SIZE);
		if (needed && c->col_of[k] < 0)
			return cfail(c, USMP_ERR_INVALID, c->line,
			             "missing column \"%s\"", col_names[k]);
	}
	return USMP_OK;
}

/* The next data row into c->fields (by column); 0 at the end, 1 for a row,
 * -1 after an error (reported). */
static int read_row(cctx *c)
{
	field f[COL_COUNT];
	const char *s;
	size_t n;
	int rc = next_line(c, &s, &n), count;

	if (rc <= 0)
		return rc;
	count = split(c, s, n, f, c->ncols);
	if (count < 0)
		return -1;
	if (count != c->ncols) {
		char cols[96];
		size_t used = 0;
		cols[0] = '\0';
		for (int i = 0; i < c->ncols; i++)
			for (int k = 0; k < COL_COUNT; k++)
				if (c->col_of[k] == i && used < sizeof cols) {
					int w = snprintf(cols + used,
					                 sizeof cols - used, "%s%s",
					                 i ? "," : "", col_names[k]);
					if (w > 0)
						used += (size_t)w;
				}
		cfail(c, USMP_ERR_INVALID, c->line,
		      "expected %d fields (%s), got %s%d", c->ncols, cols,
		      count > c->ncols ? "more than " : "",
		      count > c->ncols ? c->ncols : count);
		return -1;
	}
	for (int k = 0; k < COL_COUNT; k++) {
		if (c->col_of[k] >= 0) {
			c->fields[k] = f[c->col_of[k]];
		} else {
			c->fields[k].s = "";
			c->fields[k].n = 0;
		}
	}
	return 1;
}

static int has(const cctx *c, int k)
{
	return c->col_of[k] >= 0 && c->fields[k].n > 0;
}

/* Column k as an integer in [lo, INT64_MAX]; `what` for messages. */
static int get_int(cctx *c, int k, int64_t lo, const char *what, int64_t *out)
{
	char got[CSV_SHOW_MAX + 8];
	int parsed = parse_i64(c->fields[k], lo < 0, out) == 0;
	if (parsed && *out >= lo)
		return USMP_OK;
	show(c->fields[k], got, sizeof got);
	/* An integer past int64 (digits, a '-' where negatives are taken):
	 * the range is what is wrong. */
	field f = c->fields[k];
	size_t d = f.n && f.s[0] == '-' && lo < 0 ? 1 : 0, first = d;
	while (d < f.n && f.s[d] >= '0' && f.s[d] <= '9')
		d++;
	if (!parsed && d == f.n && d > first)
		return cfail(c, USMP_ERR_INVALID, c->line, "%s: expected an "
		             "integer from %" PRId64 " to %" PRId64 ", got %s",
		             col_names[k], lo, INT64_MAX, got);
	uint64_t bytes;
	if (lo == 1 && usmp__unit_bytes(c->fields[k].s, c->fields[k].n, &bytes))
		return cfail(c, USMP_ERR_INVALID, c->line, "%s: expected %s, got "
		             "%s: write the bytes as a number%s%.0llu%s: files take "
		             "no units", col_names[k], what, got,
		             bytes ? " (" : "", (unsigned long long)bytes,
		             bytes ? ")" : "");
	return cfail(c, USMP_ERR_INVALID, c->line, "%s: expected %s, got %s",
	             col_names[k], what, got);
}

/* An offset: any uint64 (a plan may place a buffer past 2^63 - 1, and the
 * writers write such offsets), digits only. */
static int get_offset(cctx *c, uint64_t *out)
{
	field f = c->fields[COL_OFFSET];
	uint64_t v = 0;
	size_t i;
	for (i = 0; i < f.n; i++) {
		if (f.s[i] < '0' || f.s[i] > '9')
			break;
		unsigned d = (unsigned)(f.s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			break;
		v = v * 10 + d;
	}
	if (f.n && i == f.n) {
		*out = v;
		return USMP_OK;
	}
	char got[CSV_SHOW_MAX + 8];
	show(f, got, sizeof got);
	/* Digits all the way, past 64 bits: the range is what is wrong. */
	size_t digits = i;
	while (digits < f.n && f.s[digits] >= '0' && f.s[digits] <= '9')
		digits++;
	if (f.n && digits == f.n)
		return cfail(c, USMP_ERR_INVALID, c->line, "offset: expected an "
		             "integer from 0 to 18446744073709551615, got %s", got);
	return cfail(c, USMP_ERR_INVALID, c->line,
	             "offset: expected a non-negative integer, got %s", got);
}

static int get_align(cctx *c, uint64_t *out)
{
	int64_t a;
	*out = 1;
	if (!has(c, COL_ALIGNMENT))
		return USMP_OK;
	if (parse_i64(c->fields[COL_ALIGNMENT], 0, &a) == 0 && a > 0 &&
	    (a & (a - 1)) == 0) {
		*out = (uint64_t)a;
		return USMP_OK;
	}
	char got[CSV_SHOW_MAX + 8];
	show(c->fields[COL_ALIGNMENT], got, sizeof got);
	return cfail(c, USMP_ERR_INVALID, c->line,
	             "alignment: expected a power of two, got %s", got);
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!len || len > n || s[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/* The id column as a NUL-terminated copy in buf (n bytes), or an error.
 * Ids must be UTF-8 without control characters: every writer (JSON, CSV)
 * can then write them back, so a problem that reads also plans and writes. */
static int get_id(cctx *c, char *buf, size_t n)
{
	field f = c->fields[COL_ID];
	if (f.n == 0)
		return cfail(c, USMP_ERR_INVALID, c->line, "id: empty");
	if (f.n >= n)
		return cfail(c, USMP_ERR_INVALID, c->line, "id: longer than %zu "
		             "bytes", n - 1);
	const unsigned char *u = (const unsigned char *)f.s;
	for (size_t i = 0; i < f.n;) {
		if (u[i] < 0x20 || u[i] == 0x7f)
			return cfail(c, USMP_ERR_INVALID, c->line, "id: control "
			             "character 0x%02x at byte %zu", u[i], i + 1);
		size_t k = utf8_seq(u + i, f.n - i);
		if (!k)
			return cfail(c, USMP_ERR_INVALID, c->line, "id: not valid "
			             "UTF-8 at byte %zu", i + 1);
		i += k;
	}
	memcpy(buf, f.s, f.n);
	buf[f.n] = '\0';
	return USMP_OK;
}

/* A NUL byte anywhere is refused, naming its line. */
static int check_nul(cctx *c)
{
	const char *wide = usmp__wide_text(c->data, c->len);
	if (wide)
		return cfail(c, USMP_ERR_INVALID, 0, "the file is %s, not UTF-8 as "
		             "usmp reads: convert it (iconv -f %s -t UTF-8) or "
		             "save it as UTF-8", wide,
		             strncmp(wide, "UTF-32", 6) ? "UTF-16" : "UTF-32");
	const char *z = memchr(c->data, '\0', c->len);
	if (!z)
		return USMP_OK;
	size_t line = 1;
	for (const char *q = c->data; q < z; q++)
		line += *q == '\n';
	return cfail(c, USMP_ERR_INVALID, line,
	             "NUL byte in the file (is it binary?)");
}

static void skip_bom(cctx *c)
{
	if (c->len >= 3 && memcmp(c->data, "\xEF\xBB\xBF", 3) == 0)
		c->pos = 3;
}

/* Remember the line of buffer b's row. */
static int note_line(cctx *c, uint32_t b)
{
	if (usmp__grow((void **)&c->lines, &c->lines_cap, (size_t)b + 1,
	               sizeof *c->lines))
		return cfail(c, USMP_ERR_NOMEM, c->line, "out of memory");
	c->lines[b] = c->line;
	return USMP_OK;
}

/* ------------------------------------------------------------------------ */
/* Problem reader                                                           */
/* ------------------------------------------------------------------------ */

/* Every data row, each given to `row` with `arg`; USMP_OK at the end, or
 * the first failure (reported). */
static int read_rows(cctx *c, int (*row)(cctx *c, void *arg), void *arg)
{
	int got, rc;
	while ((got = read_row(c)) > 0)
		if ((rc = row(c, arg)))
			return rc;
	return got < 0 ? USMP_ERR_INVALID /* reported by read_row */ : USMP_OK;
}

/* The name index is far larger than the cache: its slot for the next row's
 * id (the first field, spaces trimmed, as split takes it) is asked for
 * while this row is parsed. Only a hint: a row that turns out otherwise
 * costs nothing but the fetch. */
static void prefetch_next_id(const cctx *c)
{
	if (c->col_of[COL_ID] != 0 || c->pos >= c->len)
		return;
	const char *s = c->data + c->pos;
	size_t room = c->len - c->pos, a = 0, b = 0;
	room = room < 64 ? room : 64;
	while (b < room && s[b] != ',' && s[b] != '\n')
		b++;
	while (a < b && (s[a] == ' ' || s[a] == '\t'))
		a++;
	while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
		b--;
	usmp__problem_prefetch_name(c->p, s + a, b - a);
}

static int read_problem_row(cctx *c, void *unused)
{
	(void)unused;
	char id[CSV_MAX_LINE + 1];
	int64_t lower, upper, size;
	uint64_t offset = 0;
	uint64_t align;
	uint32_t b, other;
	int rc;

	prefetch_next_id(c);
	if ((rc = get_id(c, id, sizeof id)) ||
	    (rc = get_int(c, COL_LOWER, INT64_MIN, "an integer", &lower)) ||
	    (rc = get_int(c, COL_UPPER, INT64_MIN, "an integer", &upper)) ||
	    (rc = get_int(c, COL_SIZE, 1, "a positive integer", &size)) ||
	    (rc = get_align(c, &align)))
		return rc;
	if (has(c, COL_OFFSET) &&
	    (rc = get_offset(c, &offset)))
		return rc;
	if (upper <= lower)
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "upper (%" PRId64 ") is not after lower (%" PRId64
		             ")%s", upper, lower, upper == lower && lower < INT64_MAX ?
		             ": the live range [lower, upper) excludes upper, so "
		             "a buffer alive only at step lower has upper = lower "
		             "+ 1 (an inclusive last step + 1)" : "");
	/* One name lookup per row: a duplicate is what makes adding fail
	 * with a name the problem already has. */
	rc = usmp_problem_add_buffer(c->p, id, (uint64_t)size, align, &b);
	if (rc == USMP_ERR_INVALID &&
	    usmp_problem_find_buffer(c->p, id, &other) == USMP_OK)
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "duplicate id \"%s\" (line %zu has it)", id,
		             c->lines[other]);
	if (rc != USMP_OK)
		return builder_fail(c, rc, NULL);
	if ((rc = note_line(c, b)))
		return rc;
	rc = usmp_problem_set_live(c->p, b, lower, upper);
	if (rc != USMP_OK)
		return builder_fail(c, rc, NULL);
	if (has(c, COL_OFFSET)) {
		rc = usmp_problem_set_fixed(c->p, b, 0, offset);
		if (rc != USMP_OK)
			return builder_fail(c, rc, "offset");
	}
	return USMP_OK;
}

int usmp__csv_read_problem(usmp_problem *p, const char *data, size_t len,
                           const char *name, uint64_t capacity)
{
	cctx c = {.name = name, .data = data, .len = len, .p = p};
	int rc;

	skip_bom(&c);
	if ((rc = check_nul(&c)) || (rc = read_header(&c, 0)))
		goto done;
	rc = usmp_problem_add_pool(p, "default", capacity, 1, NULL);
	if (rc != USMP_OK) {
		char *msg = usmp__strdup(usmp_problem_error(p));
		rc = rc == USMP_ERR_NOMEM ? rc : USMP_ERR_INVALID;
		cfail(&c, rc, 0, "capacity: %s", msg ? msg : "out of memory");
		free(msg);
		goto done;
	}
	/* At most a buffer a line, and a row takes 8 bytes at least
	 * ("a,0,1,1\n"): room for them all up front (a hint). */
	size_t lines = 0;
	for (const char *at = data + c.pos, *end = data + len;
	     (at = memchr(at, '\n', (size_t)(end - at))); at++)
		lines++;
	if (lines > len / 8)
		lines = len / 8;
	(void)usmp__problem_reserve_buffers(p, p->buffer_count + lines + 1);
	if ((rc = read_rows(&c, read_problem_row, NULL)))
		goto done;
	usmp__problem_set_csv_columns(p,
		(c.col_of[COL_ALIGNMENT] >= 0 ? USMP__CSV_ALIGNMENT : 0) |
		(c.col_of[COL_OFFSET] >= 0 ? USMP__CSV_OFFSET : 0));
	rc = USMP_OK;
done:
	free(c.lines);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Plan reader                                                              */
/* ------------------------------------------------------------------------ */

/* A column the plan repeats from the problem must agree with it. */
static int check_same(cctx *c, int k, int64_t want, const char *id)
{
	int64_t got;
	int rc;
	if (!has(c, k))
		return USMP_OK;
	if ((rc = get_int(c, k, k == COL_LOWER || k == COL_UPPER ? INT64_MIN : 1,
	                  "an integer", &got)))
		return rc;
	if (got != want)
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "%s (%" PRId64 ") differs from the problem's (%"
		             PRId64 ") for buffer \"%s\"", col_names[k], got,
		             want, id);
	return USMP_OK;
}

static int read_plan_row(cctx *c, void *arg)
{
	uint32_t *seen = arg;
	char id[CSV_MAX_LINE + 1];
	const usmp__buffer *buf;
	uint64_t offset;
	uint32_t b;
	int rc;

	prefetch_next_id(c);
	if ((rc = get_id(c, id, sizeof id)))
		return rc;
	if (usmp_problem_find_buffer(c->p, id, &b) != USMP_OK)
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "unknown buffer id \"%s\"", id);
	if (seen[b])
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "id \"%s\" appears twice (also line %u)", id,
		             seen[b]);
	seen[b] = c->line > UINT32_MAX ? UINT32_MAX : (uint32_t)c->line;
	buf = usmp__problem_buffer(c->p, b);
	if (!has(c, COL_OFFSET))
		return cfail(c, USMP_ERR_INVALID, c->line, "offset: empty");
	if ((rc = get_offset(c, &offset)))
		return rc;
	if (buf->flags & USMP_BUFFER_LIVE) {
		if ((rc = check_same(c, COL_LOWER, buf->begin, id)) ||
		    (rc = check_same(c, COL_UPPER, buf->end, id)))
			return rc;
	} else if (has(c, COL_LOWER) || has(c, COL_UPPER)) {
		/* A live range where the problem has none: a plan for another
		 * problem (an empty cell is the absence it has). */
		int k = has(c, COL_LOWER) ? COL_LOWER : COL_UPPER;
		char got[CSV_SHOW_MAX + 8];
		show(c->fields[k], got, sizeof got);
		return cfail(c, USMP_ERR_INVALID, c->line,
		             "%s %s given for buffer \"%s\", which has no live "
		             "range in the problem (leave the cell empty)",
		             col_names[k], got, id);
	}
	if ((rc = check_same(c, COL_SIZE, (int64_t)buf->size, id)))
		return rc;
	if (has(c, COL_ALIGNMENT)) {
		uint64_t a, want = buf->alignment ? buf->alignment : 1;
		if ((rc = get_align(c, &a)))
			return rc;
		if (a != want)
			return cfail(c, USMP_ERR_INVALID, c->line,
			             "alignment (%" PRIu64 ") differs from the "
			             "problem's (%" PRIu64 ") for buffer \"%s\"",
			             a, want, id);
	}
	c->plan->placements[b].pool = 0;
	c->plan->placements[b].offset = offset;
	return USMP_OK;
}

int usmp__csv_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                        size_t len, const char *name)
{
	cctx c = {.name = name, .data = data, .len = len, .p = p, .plan = plan};
	uint32_t *seen = NULL;
	int rc;

	skip_bom(&c);
	if ((rc = check_nul(&c)))
		goto done;
	if (usmp__problem_npools(p) != 1) {
		rc = cfail(&c, USMP_ERR_INVALID, 0,
		           "a CSV plan places buffers in one pool; the problem "
		           "has %zu", usmp__problem_npools(p));
		goto done;
	}
	if ((rc = read_header(&c, 1)))
		goto done;
	size_t n = usmp__problem_nbuffers(p);
	seen = calloc(n ? n : 1, sizeof *seen);
	if (!seen) {
		rc = cfail(&c, USMP_ERR_NOMEM, 0, "out of memory");
		goto done;
	}
	if ((rc = read_rows(&c, read_plan_row, seen)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		if (!seen[i]) {
			rc = cfail(&c, USMP_ERR_INVALID, 0,
			           "buffer \"%s\" has no row (every buffer of the "
			           "problem must appear once)",
			           usmp__problem_buffer(p, i)->name);
			goto done;
		}
	}
	usmp__plan_measure(plan, p);
	/* No claims: the library's part, as for a JSON plan without parts. */
	if ((rc = usmp__plan_claims(plan, p, name, NULL, NULL, 0)))
		goto done;
	plan->status = USMP_OK;
done:
	free(seen);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Writers                                                                  */
/* ------------------------------------------------------------------------ */

/* An id MiniMalloc's CSV can carry: no commas, quotes, no surrounding
 * blanks (they would be trimmed on reading), and what get_id reads: UTF-8
 * without control characters. Its length only counts for the row it is in
 * (row_fits). */
static int csv_safe(const char *s)
{
	size_t n = strlen(s);
	const unsigned char *u = (const unsigned char *)s;
	if (n == 0 || s[0] == ' ' || s[n - 1] == ' ' || strpbrk(s, ",\""))
		return 0;
	for (size_t i = 0, k; i < n; i += k)
		if (u[i] < 0x20 || u[i] == 0x7f || !(k = utf8_seq(u + i, n - i)))
			return 0;
	return 1;
}

/* Decimal digits of x, as "%" PRIu64 prints it. */
static size_t dec_len(uint64_t x)
{
	size_t n = 1;
	while (x >= 10) {
		x /= 10;
		n++;
	}
	return n;
}

/* Characters of x as "%" PRId64 prints it: a '-' and the magnitude. */
static size_t dec_len_signed(int64_t x)
{
	return x < 0 ? 1 + dec_len((uint64_t)0 - (uint64_t)x) : dec_len((uint64_t)x);
}

/* The length of buffer b's row as the writers write it: with an offset
 * column (`offset`), the offset `at` when `placed`, else an empty field.
 * Counted without printing (a million rows are counted before a plan is
 * written). */
static size_t row_length(const usmp__buffer *b, int align, int offset,
                         int placed, uint64_t at)
{
	size_t n = strlen(b->name);
	n += 3 + dec_len_signed(b->begin) + dec_len_signed(b->end) +
	     dec_len(b->size);
	if (align)
		n += 1 + dec_len(b->alignment ? b->alignment : 1);
	if (offset && placed)
		n += 1 + dec_len(at);
	else if (offset)
		n += 1;
	return n;
}

/* Whether the problem (or plan, when given) fits the CSV columns; the
 * reason in why[0..whyn) otherwise, with the buffer in *who when one is to
 * blame. Sets *align when an alignment column is needed and *offset when
 * an offset column is written. */
/* "WHAT (pool "NAME")" into why, the name shortened as messages shorten
 * names (USMP__NAME_SHOWN_MAX), never cut inside a UTF-8 sequence. */
static void why_pool(char *why, size_t whyn, const char *what,
                     const char *name)
{
	size_t len = strlen(name);
	if (len <= USMP__NAME_SHOWN_MAX)
		snprintf(why, whyn, "%s (pool \"%s\")", what, name);
	else
		snprintf(why, whyn, "%s (pool \"%.*s\xe2\x80\xa6(%zu bytes)\")",
		         what, (int)usmp__name_cut(name, len), name, len);
}

static int csv_fits(usmp_problem *p, const usmp_plan *plan, char *why,
                    size_t whyn, const char **who, int *align, int *offset)
{
	uint32_t columns = usmp__problem_csv_columns(p);
	*align = (columns & USMP__CSV_ALIGNMENT) != 0;
	*offset = plan || (columns & USMP__CSV_OFFSET) != 0;
	*who = NULL;
	if (usmp__problem_npools(p) != 1) {
		snprintf(why, whyn, "CSV holds one pool");
		return 0;
	}
	if (!plan && (usmp__problem_nedges(p) || usmp__problem_noverlaps(p))) {
		snprintf(why, whyn, "%s", usmp__problem_nedges(p)
		                              ? "CSV cannot express conflict edges"
		                              : "CSV cannot express overlap rules");
		return 0;
	}
	if (!plan && usmp__problem_pool(p, 0)->alignment > 1) {
		snprintf(why, whyn, "CSV cannot express a pool alignment");
		return 0;
	}
	/* The reader names the pool "default", without targets; its limit is
	 * the reader's capacity argument. */
	const usmp__pool *pool = usmp__problem_pool(p, 0);
	if (!plan && strcmp(pool->name, "default") != 0) {
		why_pool(why, whyn, "CSV names its one pool \"default\"", pool->name);
		return 0;
	}
	if (!plan && pool->target_count) {
		why_pool(why, whyn, "CSV cannot express pool targets", pool->name);
		return 0;
	}
	for (size_t i = 0; i < usmp__problem_nbuffers(p); i++) {
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		*who = b->name;
		if (!(b->flags & USMP_BUFFER_LIVE)) {
			snprintf(why, whyn, "CSV needs a live range for every buffer");
			return 0;
		}
		if (!csv_safe(b->name)) {
			snprintf(why, whyn, "CSV ids cannot hold commas, quotes, "
			         "control characters (line breaks, tabs), surrounding "
			         "blanks or bytes that are not UTF-8");
			return 0;
		}
		/* The reader takes sizes and alignments up to 2^63 - 1 only. */
		if (b->size > (uint64_t)INT64_MAX ||
		    b->alignment > (uint64_t)INT64_MAX) {
			snprintf(why, whyn, "CSV sizes and alignments stop at "
			         "2^63 - 1 (size %" PRIu64 ", alignment %" PRIu64 ")",
			         b->size, b->alignment ? b->alignment : 1);
			return 0;
		}
		if (b->alignment > 1)
			*align = 1;
		if (b->flags & USMP_BUFFER_FIXED)
			*offset = 1;
	}
	/* Every row must read back: a CSV line has at most CSV_MAX_LINE bytes. */
	for (size_t i = 0; i < usmp__problem_nbuffers(p); i++) {
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		int placed = plan || (b->flags & USMP_BUFFER_FIXED);
		uint64_t at = plan ? plan->placements[i].offset : b->fixed_offset;
		size_t n = row_length(b, *align, *offset, placed, at);
		*who = b->name;
		if (n > CSV_MAX_LINE) {
			snprintf(why, whyn, "its row would be %zu bytes with an id of "
			         "%zu, and a CSV line holds at most %d", n,
			         strlen(b->name), CSV_MAX_LINE);
			return 0;
		}
	}
	*who = NULL;
	return 1;
}

int usmp__csv_check_problem(usmp_problem *p)
{
	const char *who;
	char why[256];
	int align, offset;

	if (csv_fits(p, NULL, why, sizeof why, &who, &align, &offset))
		return USMP_OK;
	if (who)
		return usmp__problem_fail(p, USMP_ERR_UNSUPPORTED,
		                          "cannot write as CSV: %s (buffer \"%s\")",
		                          why, who);
	return usmp__problem_fail(p, USMP_ERR_UNSUPPORTED,
	                          "cannot write as CSV: %s", why);
}

int usmp__csv_write_problem(usmp_problem *p, FILE *f)
{
	const char *who;
	char why[256];
	int align, offset, rc = usmp__csv_check_problem(p);

	if (rc != USMP_OK)
		return rc;
	(void)csv_fits(p, NULL, why, sizeof why, &who, &align, &offset);
	fprintf(f, "id,lower,upper,size%s%s\n", align ? ",alignment" : "",
	        offset ? ",offset" : "");
	for (size_t i = 0; i < usmp__problem_nbuffers(p); i++) {
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		fprintf(f, "%s,%" PRId64 ",%" PRId64 ",%" PRIu64, b->name,
		        b->begin, b->end, b->size);
		if (align)
			fprintf(f, ",%" PRIu64, b->alignment ? b->alignment : 1);
		if (offset) {
			if (b->flags & USMP_BUFFER_FIXED)
				fprintf(f, ",%" PRIu64, b->fixed_offset);
			else
				fputs(",", f);
		}
		fputs("\n", f);
	}
	return USMP_OK;
}

int usmp__csv_check_plan(usmp_plan *plan, usmp_problem *p)
{
	const char *who;
	char why[256];
	int align, offset;

	if (!csv_fits(p, plan, why, sizeof why, &who, &align, &offset)) {
		if (who)
			return usmp__plan_fail(plan, USMP_ERR_UNSUPPORTED,
			                       "cannot write the plan as CSV: %s "
			                       "(buffer \"%s\")", why, who);
		return usmp__plan_fail(plan, USMP_ERR_UNSUPPORTED,
		                       "cannot write the plan as CSV: %s", why);
	}
	for (uint32_t i = 0; i < plan->buffer_count; i++)
		if (plan->placements[i].pool != 0)
			return usmp__plan_fail(plan, USMP_ERR_INVALID,
			                       "buffer \"%s\" has no placement; "
			                       "only complete plans can be "
			                       "written",
			                       usmp__problem_buffer(p, i)->name);
	return USMP_OK;
}

/* The plan's rows go through one buffer, each number printed by hand as
 * "%" PRId64 / "%" PRIu64 would (fprintf per field costs about a second
 * at a million buffers, time a --time-limit counts). */
typedef struct csv_out {
	FILE *f;
	size_t n;
	char buf[1 << 16];
} csv_out;

/* Room for one row besides its id: ",lower,upper,size,alignment,offset\n",
 * at most 20 characters a number. */
#define CSV_ROW_NUMBERS (5 * 21 + 1)

static void csv_flush(csv_out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		(void)0; /* the stream's error flag is checked on close */
	o->n = 0;
}

/* Append x's digits as "%" PRIu64 prints them; the caller keeps room. */
static void csv_digits(csv_out *o, uint64_t x)
{
	char d[USMP__U64_DIGITS];
	size_t k = usmp__u64_digits(d, x);
	memcpy(o->buf + o->n, d + k, sizeof d - k);
	o->n += sizeof d - k;
}

/* Append ",x", x as "%" PRIu64 prints it. */
static void csv_put_u64(csv_out *o, uint64_t x)
{
	o->buf[o->n++] = ',';
	csv_digits(o, x);
}

/* Append ",x", x as "%" PRId64 prints it (INT64_MIN too). */
static void csv_put_i64(csv_out *o, int64_t x)
{
	o->buf[o->n++] = ',';
	if (x < 0) {
		o->buf[o->n++] = '-';
		csv_digits(o, (uint64_t)0 - (uint64_t)x);
	} else {
		csv_digits(o, (uint64_t)x);
	}
}

int usmp__csv_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f)
{
	const char *who;
	char why[256];
	int align, offset, rc = usmp__csv_check_plan(plan, p);
	csv_out *o = NULL;

	if (rc != USMP_OK)
		return rc;
	(void)csv_fits(p, plan, why, sizeof why, &who, &align, &offset);
	o = malloc(sizeof *o);
	if (!o)
		return usmp__plan_fail(plan, USMP_ERR_NOMEM, "out of memory "
		                       "writing CSV");
	o->f = f;
	o->n = 0;
	fprintf(f, "id,lower,upper,size%s,offset\n", align ? ",alignment" : "");
	for (uint32_t i = 0; i < plan->buffer_count; i++) {
		const usmp__buffer *b = usmp__problem_buffer(p, i);
		size_t len = strlen(b->name);
		if (len + CSV_ROW_NUMBERS > sizeof o->buf - o->n)
			csv_flush(o);
		if (len + CSV_ROW_NUMBERS > sizeof o->buf) {
			(void)fwrite(b->name, 1, len, f); /* ids are <= 4 KiB */
			len = 0;
		}
		memcpy(o->buf + o->n, b->name, len);
		o->n += len;
		csv_put_i64(o, b->begin);
		csv_put_i64(o, b->end);
		csv_put_u64(o, b->size);
		if (align)
			csv_put_u64(o, b->alignment ? b->alignment : 1);
		csv_put_u64(o, plan->placements[i].offset);
		o->buf[o->n++] = '\n';
	}
	csv_flush(o);
	free(o);
	return USMP_OK;
}
