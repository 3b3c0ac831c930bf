/* shown.c — how user-supplied text (names from problem files, paths, rules)
 * reaches the terminal: escaped C-style, so it cannot move the cursor. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at `s` and its code point; 0 when the
 * bytes there are not one (overlong, surrogate, beyond U+10FFFF, cut). */
static size_t utf8_at(const unsigned char *s, uint32_t *cp)
{
	size_t n;
	uint32_t c, min;
	if (*s < 0xc2 || *s > 0xf4)
		return 0;
	if (*s < 0xe0)
		n = 2, c = *s & 0x1f, min = 0x80;
	else if (*s < 0xf0)
		n = 3, c = *s & 0x0f, min = 0x800;
	else
		n = 4, c = *s & 0x07, min = 0x10000;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points a terminal acts on: C1 controls (U+009B is CSI),
 * bidirectional embeddings, overrides and isolates, line separators. */
static int is_active(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* Escape `text` into `out` (NULL: only count); returns the length. */
static size_t escape(const char *text, char *out)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = 0;
	char tmp[12];
	while (*s) {
		const char *put = tmp;
		size_t n = 1;
		uint32_t cp = 0;
		if (*s == '\n')
			put = "\\n";
		else if (*s == '\t')
			put = "\\t";
		else if (*s == '\r')
			put = "\\r";
		else if (*s < 0x20 || *s == 0x7f)
			snprintf(tmp, sizeof tmp, "\\x%02x", *s);
		else if (*s < 0x80)
			tmp[0] = (char)*s, tmp[1] = '\0';
		else if (!(n = utf8_at(s, &cp)))
			n = 1, snprintf(tmp, sizeof tmp, "\\x%02x", *s);
		else if (is_active(cp))
			snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
		else
			memcpy(tmp, s, n), tmp[n] = '\0';
		size_t k = strlen(put);
		if (out)
			memcpy(out + len, put, k);
		len += k;
		s += n;
	}
	if (out)
		out[len] = '\0';
	return len;
}

enum { RING = 8 };
static char *ring[RING];
static size_t ring_size[RING];
static unsigned ring_next;

/* `text` escaped into the next slot of the ring. */
static const char *shown_copy(const char *text)
{
	size_t len = escape(text, NULL);
	unsigned slot = ring_next++ % RING;
	if (ring_size[slot] < len + 1) {
		char *grown = realloc(ring[slot], len + 1);
		if (!grown)
			return "(out of memory)";
		ring[slot] = grown;
		ring_size[slot] = len + 1;
	}
	escape(text, ring[slot]);
	return ring[slot];
}

const char *cli_shown(const char *text)
{
	if (!text)
		return "(none)";
	if (escape(text, NULL) == strlen(text))
		return text; /* nothing escaped: same length means same bytes */
	return shown_copy(text);
}

const char *cli_name(const char *name)
{
	if (!name)
		return "(none)";
	size_t len = strlen(name);
	if (len <= CLI_NAME_SHOWN_MAX)
		return cli_shown(name);
	/* The first bytes, backed off so no UTF-8 sequence is split. */
	size_t cut = CLI_NAME_KEPT;
	for (int k = 0; k < 3 && cut > 0 &&
	                ((unsigned char)name[cut] & 0xc0) == 0x80; k++)
		cut--;
	char head[CLI_NAME_KEPT + 40];
	memcpy(head, name, cut);
	snprintf(head + cut, sizeof head - cut, "\xe2\x80\xa6(%zu bytes)", len);
	/* cli_shown copies it into its ring when anything is escaped; else
	 * it would hand back `head` itself, so escape into the ring always. */
	return shown_copy(head);
}

void cli_shown_release(void)
{
	for (unsigned i = 0; i < RING; i++) {
		free(ring[i]);
		ring[i] = NULL;
		ring_size[i] = 0;
	}
}

void cli_error(const char *fmt, ...)
{
	char small[512], *text = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		snprintf(small, sizeof small, "(unprintable message)");
	if (n >= (int)sizeof small && (text = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (n >= (int)sizeof small) {
		text = small; /* out of memory: the cut message */
	}
	fprintf(stderr, "usmp: %s\n", cli_shown(text));
	if (text != small)
		free(text);
}
