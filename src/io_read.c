/* io_read.c — reading a problem or plan file whole into memory within the
 * limits of docs/formats.md ("Input limits"): a total size, early stops. */
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

size_t usmp__read_max = USMP__READ_MAX;

/* What has been read so far, watched for the point past which the parser
 * will refuse the input whatever follows: reading stops there, so a
 * source that never ends (`yes |`, a FIFO, a device) is refused at once
 * rather than read until memory runs out. The parser then reports the
 * same error, at the same place, from the part read. */
typedef struct watch {
	int format;      /* USMP_FORMAT_JSON or USMP_FORMAT_CSV */
	size_t at;       /* bytes scanned */
	/* JSON: nesting outside strings, as the parser's depth check counts */
	int depth, in_str, esc, closed;
	/* CSV */
	size_t line_len; /* bytes of the current line so far */
	size_t line_at;  /* where the current line starts */
	int header_seen; /* the first non-blank line has been checked */
} watch;

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* One JSON byte at offset `at`; nonzero when the parser must refuse here:
 * a byte other than '{' or '[' (or white space, or the UTF-8 byte order
 * mark at the start) outside the document, anything after the document,
 * nesting deeper than the parser takes, a control byte in a string. */
static int json_byte(watch *w, char ch, size_t at)
{
	static const char bom[3] = {'\xEF', '\xBB', '\xBF'};

	if (w->in_str) {
		if (w->esc)
			w->esc = 0;
		else if (ch == '\\')
			w->esc = 1;
		else if (ch == '"')
			w->in_str = 0;
		else if ((unsigned char)ch < 0x20)
			return 1;
		return 0;
	}
	if (is_space(ch))
		return 0;
	if (w->depth == 0) {
		if (at < 3 && ch == bom[at])
			return 0;
		if (w->closed || (ch != '{' && ch != '['))
			return 1;
	}
	if (ch == '"') {
		w->in_str = 1;
	} else if (ch == '{' || ch == '[') {
		if (++w->depth > USMP__JSON_MAX_DEPTH)
			return 1;
	} else if (ch == '}' || ch == ']') {
		if (--w->depth == 0)
			w->closed = 1;
	}
	return 0;
}

/* The CSV line buf[start, end) (no '\n'), when it is the first non-blank
 * one: nonzero when it is no header the readers take. */
static int csv_line_ends(watch *w, const char *buf, size_t start, size_t end)
{
	if (w->header_seen)
		return 0;
	if (start == 0 && end >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		start = 3;
	if (end > start && buf[end - 1] == '\r')
		end--;
	size_t i = start;
	while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	if (i == end)
		return 0; /* blank lines are skipped */
	w->header_seen = 1;
	return !usmp__csv_header_known(buf + start, end - start);
}

/* Scan buf[w->at, used): nonzero when reading can stop. */
static int watch_scan(watch *w, const char *buf, size_t used)
{
	for (; w->at < used; w->at++) {
		char ch = buf[w->at];
		if (ch == '\0')
			return 1; /* no file holds one: the parsers say where */
		if (w->format == USMP_FORMAT_JSON) {
			if (json_byte(w, ch, w->at)) {
				w->at++;
				return 1;
			}
			continue;
		}
		if (ch == '\n') {
			int bad = csv_line_ends(w, buf, w->line_at, w->at);
			w->line_len = 0;
			w->line_at = w->at + 1;
			if (bad) {
				w->at++;
				return 1;
			}
		} else if (++w->line_len > USMP__CSV_READ_STOP) {
			w->at++;
			return 1;
		}
	}
	return 0;
}

/* The first capacity of the buffer: a regular file's size (and room to
 * see its end), else 64 KiB. USMP_OK, or the error for a file too big. */
static int first_capacity(FILE *f, const char *shown, size_t *cap,
                          char **msg)
{
	struct stat st;

	*cap = 65536;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 0)
		return USMP_OK;
	if ((uint64_t)st.st_size > usmp__read_max) {
		usmp__set_msg(msg, "%s: %llu bytes, more than the %zu bytes "
		              "usmp reads from one file (docs/formats.md, "
		              "\"Input limits\")", shown,
		              (unsigned long long)st.st_size, usmp__read_max);
		return USMP_ERR_INVALID;
	}
	if ((uint64_t)st.st_size + 2 > *cap)
		*cap = (size_t)st.st_size + 2;
	return USMP_OK;
}

int usmp__read_file(const char *path, int format, char **data, size_t *len,
                    char **msg)
{
	FILE *f = NULL;
	char *buf = NULL;
	size_t cap = 0, used = 0, want = 0;
	int is_stdin = strcmp(path, "-") == 0;
	const char *shown = is_stdin ? "<stdin>" : path;
	watch w = {.format = format == USMP_FORMAT_CSV ? USMP_FORMAT_CSV
	                                               : USMP_FORMAT_JSON};
	int rc;

	*data = NULL;
	*len = 0;
	if (is_stdin) {
		f = stdin;
	} else {
		f = fopen(path, "rb");
		if (!f) {
			usmp__set_msg(msg, "%s: cannot open: %s", path,
			              strerror(errno));
			return USMP_ERR_IO;
		}
	}
	rc = first_capacity(f, shown, &want, msg);
	if (rc != USMP_OK)
		goto fail;
	for (;;) {
		if (used + 1 >= cap) {
			/* Room for one byte past the limit, to see it passed. */
			size_t most = usmp__read_max + 2;
			if (cap)
				want = cap > most / 2 ? most : cap * 2;
			if (want > most)
				want = most;
			if (want <= cap)
				goto too_big;
			char *bigger = realloc(buf, want);
			if (!bigger)
				goto nomem;
			buf = bigger;
			cap = want;
		}
		size_t got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
		if (used > usmp__read_max)
			goto too_big;
		if (got == 0 || watch_scan(&w, buf, used))
			break;
	}
	if (ferror(f)) {
		usmp__set_msg(msg, "%s: cannot read: %s", shown, strerror(errno));
		rc = USMP_ERR_IO;
		goto fail;
	}
	if (!is_stdin)
		fclose(f);
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return USMP_OK;

too_big:
	usmp__set_msg(msg, "%s: more than the %zu bytes usmp reads from one "
	              "file (docs/formats.md, \"Input limits\")", shown,
	              usmp__read_max);
	rc = USMP_ERR_INVALID;
	goto fail;
nomem:
	usmp__set_msg(msg, "%s: out of memory reading the file", shown);
	rc = USMP_ERR_NOMEM;
fail:
	if (!is_stdin)
		fclose(f);
	free(buf);
	return rc;
}
