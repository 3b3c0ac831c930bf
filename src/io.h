/* io.h — problem and plan files: reading and writing JSON, CSV and SVG, and the
 * output file that replaces its target only once complete (output.c). */
#ifndef USMP_IO_H
#define USMP_IO_H

#include "util.h"

/* ---- output.c: output files ------------------------------------------------ */

/* An output file being written (see "Output files" in usmp.h): a regular
 * or missing file goes to an unnamed temporary file in its directory
 * (O_TMPFILE; a named ".NAME.usmp-XXXXXX" where the file system has no
 * O_TMPFILE), named and renamed over it on success; "-" and special files
 * (devices, FIFOs, /dev/stdout) get the document from memory once it is
 * complete, and are never removed. */
enum usmp__out_kind {
	USMP__OUT_ATOMIC,
	USMP__OUT_DIRECT,
	USMP__OUT_STDOUT
};

/* One output file being written (usmp__out_open to usmp__out_close). */
typedef struct usmp__out {
	FILE *f;          /* what the writer writes to */
	int kind;         /* enum usmp__out_kind */
	int fd;           /* the temporary or special file; -1 for stdout */
	int dir;          /* ATOMIC: the target's directory (O_PATH); else -1 */
	int unnamed;      /* ATOMIC: fd is an O_TMPFILE file, not yet linked */
	int err;          /* first write error on the temporary file */
	const char *name; /* for messages: the path as given, or "<stdout>" */
	char *target;     /* ATOMIC: the file replaced (links resolved) */
	const char *base; /* ATOMIC: target's last component (points into it) */
	char *tmp;        /* ATOMIC: the named temporary file, in dir */
	char *mem;        /* DIRECT, STDOUT: the document so far */
	size_t mem_len;
} usmp__out;

/* Open `path` ("-" = stdout) for writing: 0, or -1 with *msg naming the
 * path (nothing is left behind). */
int usmp__out_open(usmp__out *o, const char *path, char **msg);
/* Finish what usmp__out_open began. With `ok` the document is published
 * (rename, or copy to the special file / stdout). Without `ok`, or when
 * writing failed, it is dropped: the target stays as it was, the temporary
 * file is removed. USMP_OK, or USMP_ERR_IO with *msg naming the path and
 * the system's reason when the stream, disk or rename failed (also without
 * `ok`: a writer's own "cannot write" is less precise). */
int usmp__out_close(usmp__out *o, int ok, char **msg);

/* ---- io_json.c, io_csv.c, svg.c: the formats ------------------------------- */
/* io_file.c holds the public usmp_problem_read/parse/write and
 * usmp_plan_read/write/write_svg, dispatching on format to these. */

/* When s[0..n) is a byte count with a unit ("64K", "1MiB": digits, then K,
 * M or G in either case, then nothing, "B" or "iB"), its bytes in *bytes
 * (0 when they pass 2^63 - 1) and 1; else 0. Files take plain integers
 * only: the readers say so when a size is written like this. */
static inline int usmp__unit_bytes(const char *s, size_t n, uint64_t *bytes)
{
	size_t i = 0;
	uint64_t v = 0;
	int over = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX >> 31) / 10)
			over = 1;
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0 || i == n)
		return 0;
	unsigned shift = s[i] == 'k' || s[i] == 'K' ? 10
	               : s[i] == 'm' || s[i] == 'M' ? 20
	               : s[i] == 'g' || s[i] == 'G' ? 30 : 0;
	if (!shift)
		return 0;
	i++;
	if (!(i == n || (i + 1 == n && s[i] == 'B') ||
	      (i + 2 == n && s[i] == 'i' && s[i + 1] == 'B')))
		return 0;
	*bytes = over || v > (UINT64_MAX >> 1) >> shift ? 0 : v << shift;
	return 1;
}

/* When data[0..len) starts as UTF-16 or UTF-32 text does (a byte order
 * mark FF FE or FE FF, or a NUL byte beside the first character: what
 * some editors and shells write by default), how, for the readers' "the
 * file is ..., not UTF-8" message; NULL otherwise. */
static inline const char *usmp__wide_text(const char *data, size_t len)
{
	const unsigned char *d = (const unsigned char *)data;
	if (len >= 4 && d[0] == 0xFF && d[1] == 0xFE && !d[2] && !d[3])
		return "UTF-32, little-endian, with a byte order mark";
	if (len >= 2 && d[0] == 0xFF && d[1] == 0xFE)
		return "UTF-16, little-endian, with a byte order mark";
	if (len >= 2 && d[0] == 0xFE && d[1] == 0xFF)
		return "UTF-16, big-endian, with a byte order mark";
	/* Without a mark: a first character of ASCII text ('{', 'i', a
	 * blank) beside NUL bytes, as no UTF-8 file and no /dev/zero has. */
	if (len >= 4 && d[0] >= 0x09 && d[0] < 0x7F && !d[1] && !d[2] && !d[3])
		return "UTF-32, little-endian";
	if (len >= 2 && d[0] >= 0x09 && d[0] < 0x7F && !d[1])
		return "UTF-16, little-endian";
	if (len >= 4 && !d[0] && !d[1] && !d[2] && d[3] >= 0x09 && d[3] < 0x7F)
		return "UTF-32, big-endian";
	if (len >= 2 && !d[0] && d[1] >= 0x09 && d[1] < 0x7F)
		return "UTF-16, big-endian";
	return NULL;
}

/* Read a JSON problem from data[0..len) into the empty p; `name` for messages. */
int usmp__json_read_problem(usmp_problem *p, const char *data, size_t len,
                            const char *name);
/* Read a MiniMalloc CSV problem into the empty p, its pool limited to capacity. */
int usmp__csv_read_problem(usmp_problem *p, const char *data, size_t len,
                           const char *name, uint64_t capacity);
/* Read a JSON plan for the prepared p into plan. */
int usmp__json_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                         size_t len, const char *name);
/* ---- plan_claims.c: what a plan file claims --------------------------------- */

/* A part's or pool's claims as a plan file gives them; `has` says which. */
enum {
	USMP__CLAIM_SIZE = 1u << 0,
	USMP__CLAIM_LOWER_BOUND = 1u << 1,
	USMP__CLAIM_PROVEN_BOUND = 1u << 2,
	USMP__CLAIM_BUFFERS = 1u << 3,
	USMP__CLAIM_GROUP = 1u << 4, /* a pool's bound group */
	USMP__CLAIM_LISTED = 1u << 5 /* a pool's record was read (at) */
};
typedef struct usmp__claim {
	unsigned has;
	uint64_t at; /* the record's index in the file's array */
	uint64_t size, lower_bound, proven_bound, buffers, group;
	int optimal; /* "optimal": true */
} usmp__claim;

/* After the placements of plan were read and measured (p prepared): check
 * the claims of the file `name` (parts[i] for plan->parts[i], pools[q] for
 * pool q, may be NULL; optimal: the top-level "optimal" is true). Records
 * the first false one in plan->claim_error; each part then keeps only what
 * the library establishes (docs/formats.md, "What a plan file claims").
 * USMP_OK; USMP_ERR_INVALID (a part's group out of range or taken);
 * USMP_ERR_NOMEM. */
int usmp__plan_claims(usmp_plan *plan, usmp_problem *p, const char *name,
                      const usmp__claim *parts, const usmp__claim *pools,
                      int optimal);

/* Read a CSV plan (offsets column) for the prepared p into plan. */
int usmp__csv_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                        size_t len, const char *name);
/* Write p as JSON to f. */
int usmp__json_write_problem(usmp_problem *p, FILE *f);
/* Write plan (for p) as JSON to f. */
int usmp__json_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
/* Write plan (for p) as CSV to f: the problem's columns and the offsets. */
int usmp__csv_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
/* Draw plan (for p) as SVG to f. */
int usmp__svg_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f);
/* The problem as MiniMalloc CSV, when it fits that format (one pool, every
 * buffer with a live range, no conflict edges or overlap rules). */
int usmp__csv_write_problem(usmp_problem *p, FILE *f);
/* Whether the CSV writers can write the problem: USMP_OK, or the error
 * (USMP_ERR_UNSUPPORTED) recorded on p. Run before the output is opened. */
int usmp__csv_check_problem(usmp_problem *p);
/* The same for the plan (USMP_ERR_INVALID for an incomplete plan too),
 * the error recorded on plan. */
int usmp__csv_check_plan(usmp_plan *plan, usmp_problem *p);

/* The column names of a CSV header: 1 when every comma-separated cell of
 * s[0..n) (blanks around it trimmed) is one the readers know, else 0. */
int usmp__csv_header_known(const char *s, size_t n);

/* ---- io_read.c: reading a file whole ---------------------------------------- */

/* The most bytes read from one problem or plan file (docs/formats.md,
 * "Input limits"): no problem that fits in memory once read is larger. */
#define USMP__READ_MAX ((size_t)4 << 30)
/* Nesting beyond this depth is refused before jansson sees the text. */
#define USMP__JSON_MAX_DEPTH 32
/* Longest CSV line the readers take (a MiniMalloc row is a few dozen
 * bytes); a line past USMP__CSV_READ_STOP is not read to its end. */
#define USMP__CSV_MAX_LINE 4096
#define USMP__CSV_READ_STOP ((size_t)1 << 20)
/* USMP__READ_MAX, lowered by tests that link the library statically. */
extern size_t usmp__read_max;

/* Read a whole file (or "-" = stdin) of `format` (JSON or CSV) into a
 * NUL-terminated heap buffer, at most usmp__read_max bytes. Reading stops
 * early, with what was read so far, where the parser will refuse the text
 * whatever follows (a NUL byte; JSON: a byte outside the document, too
 * deep a nesting; CSV: a first line that is no header, a line past
 * USMP__CSV_READ_STOP), so a source that never ends is refused at once. */
int usmp__read_file(const char *path, int format, char **data, size_t *len,
                    char **msg);

#endif /* USMP_IO_H */
