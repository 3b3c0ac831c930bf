/* msg_format.c — formatting a library message: each name quoted in the format
 * ("%s" between two '"') shortened as it goes in, whatever the name holds. */
#include "util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
	char *s;
	size_t len, cap;
	int bad;     /* out of memory */
	int unknown; /* a conversion the formatter does not know */
} text;

static void put(text *t, const char *s, size_t n)
{
	if (t->bad)
		return;
	if (n > SIZE_MAX - t->len - 1) {
		t->bad = 1;
		return;
	}
	if (t->len + n + 1 > t->cap) {
		/* double, or take what is needed when doubling would overflow */
		size_t need = t->len + n + 1, cap = t->cap < 64 ? 64 : t->cap;
		while (cap < need)
			cap = cap > SIZE_MAX / 2 ? need : cap * 2;
		char *grown = realloc(t->s, cap);
		if (!grown) {
			t->bad = 1;
			return;
		}
		t->s = grown;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

/* Append one conversion: `spec` is a whole printf conversion whose width
 * and precision are numbers (no '*'), with its one argument. */
static void put_spec(text *t, const char *spec, ...)
{
	char small[128];
	va_list ap, again;
	if (t->bad)
		return;
	va_start(ap, spec);
	va_copy(again, ap);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	int n = vsnprintf(small, sizeof small, spec, ap);
	if (n >= 0 && (size_t)n >= sizeof small) {
		char *big = malloc((size_t)n + 1);
		if (big && vsnprintf(big, (size_t)n + 1, spec, again) == n)
			put(t, big, (size_t)n);
		else
			t->bad = 1;
		free(big);
	} else if (n >= 0) {
		put(t, small, (size_t)n);
	} else {
		t->bad = 1;
	}
#pragma GCC diagnostic pop
	va_end(again);
	va_end(ap);
}

size_t usmp__name_cut(const char *name, size_t len)
{
	size_t cut = len < USMP__NAME_KEPT ? len : USMP__NAME_KEPT;
	/* Back off continuation bytes: the cut then ends before a sequence's
	 * first byte (at most 3 of them in valid UTF-8). */
	for (int k = 0; k < 3 && cut > 0 && cut < len &&
	                ((unsigned char)name[cut] & 0xc0) == 0x80; k++)
		cut--;
	return cut;
}

/* A quoted name: whole up to USMP__NAME_SHOWN_MAX bytes, else its first
 * bytes (no UTF-8 sequence split) and "…(N bytes)". */
static void put_name(text *t, const char *name)
{
	size_t len = strlen(name);
	if (len <= USMP__NAME_SHOWN_MAX) {
		put(t, name, len);
		return;
	}
	char mark[48];
	int m = snprintf(mark, sizeof mark, "\xe2\x80\xa6(%zu bytes)", len);
	put(t, name, usmp__name_cut(name, len));
	put(t, mark, (size_t)m);
}

/* Length modifiers, as read from the format. */
enum { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_LD };

/* One signed or unsigned integer argument of modifier `len`, formatted by
 * `spec`. */
static void put_int(text *t, const char *spec, int len, int is_signed,
                    va_list *ap)
{
	switch (len) {
	case LEN_L:
		if (is_signed)
			put_spec(t, spec, va_arg(*ap, long));
		else
			put_spec(t, spec, va_arg(*ap, unsigned long));
		break;
	case LEN_LL:
		if (is_signed)
			put_spec(t, spec, va_arg(*ap, long long));
		else
			put_spec(t, spec, va_arg(*ap, unsigned long long));
		break;
	case LEN_J:
		if (is_signed)
			put_spec(t, spec, va_arg(*ap, intmax_t));
		else
			put_spec(t, spec, va_arg(*ap, uintmax_t));
		break;
	case LEN_Z:
		/* the signed type of size_t's width: ptrdiff_t on every target */
		if (is_signed)
			put_spec(t, spec, va_arg(*ap, ptrdiff_t));
		else
			put_spec(t, spec, va_arg(*ap, size_t));
		break;
	case LEN_T:
		put_spec(t, spec, va_arg(*ap, ptrdiff_t));
		break;
	default: /* hh, h and none are promoted to int */
		if (is_signed)
			put_spec(t, spec, va_arg(*ap, int));
		else
			put_spec(t, spec, va_arg(*ap, unsigned));
		break;
	}
}

/* Format one conversion starting at *f (just past its '%'); advance *f past
 * it. `quoted`: the format has a '"' just before the '%'. */
static void put_conversion(text *t, const char **f, int quoted, va_list *ap)
{
	const char *p = *f;
	char spec[64];
	size_t k = 0;
	spec[k++] = '%';
	while (*p && strchr("-+ #0", *p) && k < 8)
		spec[k++] = *p++;
	int has_width = 0, width = 0;
	if (*p == '*') {
		has_width = 1;
		width = va_arg(*ap, int);
		p++;
	} else {
		while (*p >= '0' && *p <= '9' && width < 100000000)
			width = width * 10 + (*p++ - '0'), has_width = 1;
	}
	int has_prec = 0, prec = 0;
	if (*p == '.') {
		p++;
		has_prec = 1;
		if (*p == '*') {
			prec = va_arg(*ap, int);
			has_prec = prec >= 0; /* negative: as if omitted */
			p++;
		} else {
			while (*p >= '0' && *p <= '9' && prec < 100000000)
				prec = prec * 10 + (*p++ - '0');
		}
	}
	int len = LEN_NONE;
	if (p[0] == 'h' && p[1] == 'h')
		len = LEN_HH, p += 2;
	else if (p[0] == 'l' && p[1] == 'l')
		len = LEN_LL, p += 2;
	else if (*p && strchr("hljztL", *p)) {
		static const char mods[] = "hljztL";
		static const int lens[] = {LEN_H, LEN_L, LEN_J, LEN_Z, LEN_T, LEN_LD};
		len = lens[strchr(mods, *p) - mods];
		p++;
	}
	char conv = *p ? *p++ : '\0';
	*f = p;
	if (has_width && width < 0) {
		spec[k++] = '-';
		width = -width;
	}
	if (has_width)
		k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
	if (has_prec)
		k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", prec);
	static const char *const mod_text[] = {"", "hh", "h", "l", "ll", "j",
	                                       "z", "t", "L"};
	k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%c", mod_text[len],
	                      conv);
	switch (conv) {
	case 'd':
	case 'i':
		put_int(t, spec, len, 1, ap);
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		put_int(t, spec, len, 0, ap);
		break;
	case 'c':
		put_spec(t, spec, va_arg(*ap, int));
		break;
	case 'p':
		put_spec(t, spec, va_arg(*ap, void *));
		break;
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
	case 'a':
	case 'A':
		if (len == LEN_LD)
			put_spec(t, spec, va_arg(*ap, long double));
		else
			put_spec(t, spec, va_arg(*ap, double));
		break;
	case 's': {
		const char *s = va_arg(*ap, const char *);
		/* A name quoted whole in the format ("%s"): shortened. */
		if (quoted && **f == '"' && !has_width && !has_prec &&
		    len == LEN_NONE && s)
			put_name(t, s);
		else
			put_spec(t, spec, s);
		break;
	}
	case '%':
		put(t, "%", 1);
		break;
	default: /* %n, %ls, a conversion no message uses */
		t->unknown = 1;
		break;
	}
}

/* fmt formatted by vsnprintf itself, names whole: for a format the
 * formatter above does not know. */
static char *plain(const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (s && vsnprintf(s, (size_t)n + 1, fmt, ap) != n) {
		free(s);
		s = NULL;
	}
	return s;
}

char *usmp__vformat_msg(const char *fmt, va_list ap)
{
	text t = {NULL, 0, 0, 0, 0};
	va_list args;
	va_copy(args, ap);
	put(&t, "", 0);
	const char *f = fmt;
	while (*f && !t.bad && !t.unknown) {
		const char *pct = strchr(f, '%');
		size_t n = pct ? (size_t)(pct - f) : strlen(f);
		put(&t, f, n);
		if (!pct)
			break;
		int quoted = pct > fmt && pct[-1] == '"';
		f = pct + 1;
		put_conversion(&t, &f, quoted, &args);
	}
	va_end(args);
	if (t.bad || t.unknown) {
		free(t.s);
		return t.unknown ? plain(fmt, ap) : NULL;
	}
	return t.s;
}

char *usmp__format_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = usmp__vformat_msg(fmt, ap);
	va_end(ap);
	return s;
}
