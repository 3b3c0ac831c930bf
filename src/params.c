/* params.c — parameter signatures ("seed:u64=0 order:str=size"), typed knob
 * values with full range checks, and the knob sets one algorithm call uses. */
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const type_names[] = {
	[USMP_PARAM_BOOL] = "bool", [USMP_PARAM_I32] = "i32",
	[USMP_PARAM_U32] = "u32",   [USMP_PARAM_I64] = "i64",
	[USMP_PARAM_U64] = "u64",   [USMP_PARAM_F64] = "f64",
	[USMP_PARAM_STR] = "str",
};

#define TYPE_LIST "bool i32 u32 i64 u64 f64 str"

const char *usmp__param_type_name(int type)
{
	if (type < USMP_PARAM_BOOL || type > USMP_PARAM_STR)
		return NULL;
	return type_names[type];
}

static int type_from_name(const char *s, size_t n)
{
	for (int t = USMP_PARAM_BOOL; t <= USMP_PARAM_STR; t++)
		if (strlen(type_names[t]) == n && memcmp(type_names[t], s, n) == 0)
			return t;
	return 0;
}

/* ---- values ------------------------------------------------------------- */

/* Split an integer literal into sign and digits: optional '+' or '-', then
 * decimal digits or 0x/0X and hex digits. Leading spaces are refused (strtoll
 * would skip them). Returns the base, or 0 when the text has no digits. */
static int int_syntax(const char *text, bool *negative, const char **digits)
{
	const char *s = text;

	*negative = false;
	if (*s == '+' || *s == '-') {
		*negative = *s == '-';
		s++;
	}
	*digits = s;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!((s[2] >= '0' && s[2] <= '9') || (s[2] >= 'a' && s[2] <= 'f') ||
		      (s[2] >= 'A' && s[2] <= 'F')))
			return 0;
		*digits = s + 2;
		return 16;
	}
	return (*s >= '0' && *s <= '9') ? 10 : 0;
}

/* An integer's sign and magnitude; *overflow when the magnitude passes
 * 2^64 - 1. USMP_ERR_INVALID (with *msg) when the text is no integer. */
static int parse_magnitude(const char *text, bool *negative,
                           unsigned long long *mag, bool *overflow, char **msg)
{
	const char *digits;
	char *end = NULL;
	int base = int_syntax(text, negative, &digits);

	if (!base) {
		usmp__set_msg(msg, "not an integer");
		return USMP_ERR_INVALID;
	}
	errno = 0;
	*mag = strtoull(digits, &end, base);
	if (*end != '\0') {
		usmp__set_msg(msg, "not an integer (junk after the digits)");
		return USMP_ERR_INVALID;
	}
	*overflow = errno == ERANGE;
	return USMP_OK;
}

/* A signed integer in [lo, hi]. */
static int parse_signed(const char *text, int64_t lo, int64_t hi, int64_t *out,
                        char **msg)
{
	bool neg, overflow;
	unsigned long long mag;
	int rc = parse_magnitude(text, &neg, &mag, &overflow, msg);

	if (rc)
		return rc;
	/* The magnitude of INT64_MIN is INT64_MAX + 1. */
	if (overflow || (!neg && mag > (unsigned long long)hi) ||
	    (neg && mag > (unsigned long long)(-(lo + 1)) + 1u)) {
		usmp__set_msg(msg, "out of range (%" PRId64 " to %" PRId64 ")", lo,
		              hi);
		return USMP_ERR_INVALID;
	}
	if (neg)
		*out = mag == 0 ? 0 : -(int64_t)(mag - 1u) - 1;
	else
		*out = (int64_t)mag;
	return USMP_OK;
}

/* An unsigned integer in [0, hi]; any minus sign is refused. */
static int parse_unsigned(const char *text, uint64_t hi, uint64_t *out,
                          char **msg)
{
	bool neg, overflow;
	unsigned long long v;
	int rc = parse_magnitude(text, &neg, &v, &overflow, msg);

	if (rc)
		return rc;
	if (neg || overflow || v > hi) {
		usmp__set_msg(msg, "out of range (0 to %" PRIu64 ")", hi);
		return USMP_ERR_INVALID;
	}
	*out = v;
	return USMP_OK;
}

static int parse_f64(const char *text, double *out, char **msg)
{
	const char *s = text;
	char *end = NULL;
	double d;

	if (*s == '+' || *s == '-')
		s++;
	/* strtod also takes "inf", "nan" and leading spaces: refuse them. */
	if (!((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9'))) {
		usmp__set_msg(msg, "not a finite number");
		return USMP_ERR_INVALID;
	}
	errno = 0;
	d = strtod(text, &end);
	if (*end != '\0') {
		usmp__set_msg(msg, "not a number (junk after it)");
		return USMP_ERR_INVALID;
	}
	/* ERANGE with a tiny result is underflow: keep the rounded value. */
	if (!isfinite(d) || (errno == ERANGE && fabs(d) > 1.0)) {
		usmp__set_msg(msg, "out of range for a double");
		return USMP_ERR_INVALID;
	}
	*out = d;
	return USMP_OK;
}

static int parse_bool(const char *text, bool *out, char **msg)
{
	static const char *const yes[] = {"true", "1", "yes"};
	static const char *const no[] = {"false", "0", "no"};

	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(text, yes[i]) == 0) {
			*out = true;
			return USMP_OK;
		}
		if (strcasecmp(text, no[i]) == 0) {
			*out = false;
			return USMP_OK;
		}
	}
	usmp__set_msg(msg, "not a bool (true/false, 1/0, yes/no)");
	return USMP_ERR_INVALID;
}

int usmp__value_parse(int type, const char *text, usmp__value *out, char **msg)
{
	int64_t s = 0;
	uint64_t u = 0;
	int rc;

	if (!text || !out) {
		usmp__set_msg(msg, "no value");
		return USMP_ERR_INVALID;
	}
	if (*text == '\0' && type != USMP_PARAM_STR) {
		usmp__set_msg(msg, "empty value");
		return USMP_ERR_INVALID;
	}
	switch (type) {
	case USMP_PARAM_BOOL:
		return parse_bool(text, &out->b, msg);
	case USMP_PARAM_I32:
		rc = parse_signed(text, INT32_MIN, INT32_MAX, &s, msg);
		if (rc == USMP_OK)
			out->i32 = (int32_t)s;
		return rc;
	case USMP_PARAM_I64:
		rc = parse_signed(text, INT64_MIN, INT64_MAX, &s, msg);
		if (rc == USMP_OK)
			out->i64 = s;
		return rc;
	case USMP_PARAM_U32:
		rc = parse_unsigned(text, UINT32_MAX, &u, msg);
		if (rc == USMP_OK)
			out->u32 = (uint32_t)u;
		return rc;
	case USMP_PARAM_U64:
		rc = parse_unsigned(text, UINT64_MAX, &u, msg);
		if (rc == USMP_OK)
			out->u64 = u;
		return rc;
	case USMP_PARAM_F64:
		return parse_f64(text, &out->f64, msg);
	case USMP_PARAM_STR:
		out->str = text;
		return USMP_OK;
	default:
		usmp__set_msg(msg, "unknown type %d", type);
		return USMP_ERR_INTERNAL;
	}
}

char *usmp__value_format(int type, const usmp__value *v)
{
	char buf[64];

	switch (type) {
	case USMP_PARAM_BOOL:
		return usmp__strdup(v->b ? "true" : "false");
	case USMP_PARAM_I32:
		snprintf(buf, sizeof buf, "%" PRId32, v->i32);
		break;
	case USMP_PARAM_U32:
		snprintf(buf, sizeof buf, "%" PRIu32, v->u32);
		break;
	case USMP_PARAM_I64:
		snprintf(buf, sizeof buf, "%" PRId64, v->i64);
		break;
	case USMP_PARAM_U64:
		snprintf(buf, sizeof buf, "%" PRIu64, v->u64);
		break;
	case USMP_PARAM_F64:
		/* The shortest of %.15g/%.17g that reads back exactly. */
		snprintf(buf, sizeof buf, "%.15g", v->f64);
		if (strtod(buf, NULL) != v->f64 ||
		    !!signbit(strtod(buf, NULL)) != !!signbit(v->f64))
			snprintf(buf, sizeof buf, "%.17g", v->f64);
		break;
	case USMP_PARAM_STR:
		return usmp__strdup(v->str ? v->str : "");
	default:
		return NULL;
	}
	return usmp__strdup(buf);
}

/* ---- signatures --------------------------------------------------------- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
}

static void param_free(usmp__param *p)
{
	free(p->name);
	free(p->default_text);
	free(p->help);
	memset(p, 0, sizeof *p);
}

/* Parse one token "name:type=default" (n bytes at tok) into *p. */
static int parse_token(const char *tok, size_t n, uint32_t index,
                       usmp__param *p, char **msg)
{
	const char *colon = memchr(tok, ':', n);
	const char *eq = colon ? memchr(colon, '=', n - (size_t)(colon - tok)) : NULL;
	char *why = NULL;
	int rc;

	memset(p, 0, sizeof *p);
	if (!colon || !eq) {
		usmp__set_msg(msg, "knob %" PRIu32 " \"%.*s\": expected name:type=default",
		              index + 1, (int)n, tok);
		return USMP_ERR_INVALID;
	}
	if (colon == tok) {
		usmp__set_msg(msg, "knob %" PRIu32 " \"%.*s\": empty name", index + 1,
		              (int)n, tok);
		return USMP_ERR_INVALID;
	}
	for (const char *c = tok; c < colon; c++) {
		if (!name_char(*c, c == tok)) {
			usmp__set_msg(msg,
			              "knob %" PRIu32 " \"%.*s\": bad name \"%.*s\" "
			              "(want [a-z_][a-z0-9_]*)",
			              index + 1, (int)n, tok, (int)(colon - tok), tok);
			return USMP_ERR_INVALID;
		}
	}
	p->type = type_from_name(colon + 1, (size_t)(eq - colon - 1));
	if (!p->type) {
		usmp__set_msg(msg,
		              "knob %" PRIu32 " \"%.*s\": unknown type \"%.*s\" "
		              "(types: " TYPE_LIST ")",
		              index + 1, (int)n, tok, (int)(eq - colon - 1), colon + 1);
		return USMP_ERR_INVALID;
	}
	p->name = strndup(tok, (size_t)(colon - tok));
	p->default_text = strndup(eq + 1, n - (size_t)(eq + 1 - tok));
	p->help = usmp__strdup("");
	if (!p->name || !p->default_text || !p->help) {
		rc = USMP_ERR_NOMEM;
		usmp__set_msg(msg, "out of memory");
		goto fail;
	}
	rc = usmp__value_parse(p->type, p->default_text, &p->default_value, &why);
	if (rc != USMP_OK) {
		usmp__set_msg(msg,
		              "knob %" PRIu32 " \"%.*s\": default \"%s\" is not a valid "
		              "%s: %s",
		              index + 1, (int)n, tok, p->default_text,
		              type_names[p->type], why);
		goto fail;
	}
	usmp__free_msg(&why);
	return USMP_OK;
fail:
	usmp__free_msg(&why);
	param_free(p);
	return rc;
}

int usmp__signature_parse(const char *text, usmp__signature *sig, char **msg)
{
	usmp__param *params = NULL;
	size_t cap = 0;
	uint32_t count = 0;
	const char *s = text ? text : "";
	int rc;

	sig->params = NULL;
	sig->count = 0;
	for (;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		size_t n = strcspn(s, " ");
		for (size_t i = 0; i < n; i++) {
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
				usmp__set_msg(msg,
				              "knob %" PRIu32 ": control character in \"%.*s\" "
				              "(separate knobs with single spaces)",
				              count + 1, (int)n, s);
				rc = USMP_ERR_INVALID;
				goto fail;
			}
		}
		if (count == USMP__MAX_KNOBS) {
			usmp__set_msg(msg, "more than %d knobs", USMP__MAX_KNOBS);
			rc = USMP_ERR_INVALID;
			goto fail;
		}
		rc = usmp__grow((void **)&params, &cap, (size_t)count + 1,
		                sizeof *params);
		if (rc != USMP_OK) {
			usmp__set_msg(msg, "out of memory");
			goto fail;
		}
		rc = parse_token(s, n, count, &params[count], msg);
		if (rc != USMP_OK)
			goto fail;
		for (uint32_t j = 0; j < count; j++) {
			if (strcmp(params[j].name, params[count].name) == 0) {
				usmp__set_msg(msg, "knob %" PRIu32 " \"%s\" is declared twice",
				              count + 1, params[count].name);
				param_free(&params[count]);
				rc = USMP_ERR_INVALID;
				goto fail;
			}
		}
		/* A str default points at its own text. */
		if (params[count].type == USMP_PARAM_STR)
			params[count].default_value.str = params[count].default_text;
		count++;
		s += n;
	}
	sig->params = params;
	sig->count = count;
	return USMP_OK;
fail:
	for (uint32_t j = 0; j < count; j++)
		param_free(&params[j]);
	free(params);
	return rc;
}

void usmp__signature_set_help(usmp__signature *sig, const char *help)
{
	const char *line = help;

	while (line && *line) {
		size_t n = strcspn(line, "\n");
		const char *colon = memchr(line, ':', n);

		if (colon) {
			size_t klen = (size_t)(colon - line);
			const char *t = colon + 1;
			while (t < line + n && (*t == ' ' || *t == '\t'))
				t++;
			for (uint32_t i = 0; i < sig->count; i++) {
				usmp__param *p = &sig->params[i];
				if (strlen(p->name) != klen || memcmp(p->name, line, klen))
					continue;
				char *copy = strndup(t, (size_t)(line + n - t));
				if (copy) { /* on failure the knob keeps "" */
					free(p->help);
					p->help = copy;
				}
				break;
			}
		}
		line += n;
		if (*line == '\n')
			line++;
	}
}

void usmp__signature_finish(usmp__signature *sig)
{
	if (!sig)
		return;
	for (uint32_t i = 0; i < sig->count; i++)
		param_free(&sig->params[i]);
	free(sig->params);
	sig->params = NULL;
	sig->count = 0;
}

/* ---- knob sets ---------------------------------------------------------- */

int usmp__knobs_init(usmp__knobs *k, const usmp__signature *sig)
{
	k->sig = sig;
	k->values = NULL;
	k->strings = NULL;
	if (!sig || sig->count == 0)
		return USMP_OK;
	k->values = calloc(sig->count, sizeof *k->values);
	k->strings = calloc(sig->count, sizeof *k->strings);
	if (!k->values || !k->strings) {
		usmp__knobs_finish(k);
		return USMP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < sig->count; i++)
		k->values[i] = sig->params[i].default_value;
	return USMP_OK;
}

/* "order, seed", or NULL when there are none (or out of memory). */
static char *knob_list(const usmp__signature *sig)
{
	size_t n = 1;
	char *s;

	if (!sig || sig->count == 0)
		return NULL;
	for (uint32_t i = 0; i < sig->count; i++)
		n += strlen(sig->params[i].name) + 2;
	s = malloc(n);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < sig->count; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, sig->params[i].name);
	}
	return s;
}

int usmp__knobs_set(usmp__knobs *k, const char *algo, const char *assignment,
                    char **msg)
{
	const usmp__signature *sig = k->sig;
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	char *why = NULL, *list = NULL, *copy = NULL;
	usmp__value v;
	uint32_t i;
	size_t klen;
	int rc;

	if (!algo)
		algo = "?";
	if (!eq || eq == assignment) {
		usmp__set_msg(msg, "knob setting \"%s\" for \"%s\" is not key=value",
		              assignment ? assignment : "(null)", algo);
		return USMP_ERR_INVALID;
	}
	klen = (size_t)(eq - assignment);
	for (i = 0; sig && i < sig->count; i++)
		if (strlen(sig->params[i].name) == klen &&
		    memcmp(sig->params[i].name, assignment, klen) == 0)
			break;
	if (!sig || i == sig->count) {
		list = knob_list(sig);
		if (list)
			usmp__set_msg(msg,
			              "algorithm \"%s\" has no knob \"%.*s\" (knobs: %s)",
			              algo, (int)klen, assignment, list);
		else
			usmp__set_msg(msg,
			              "algorithm \"%s\" has no knob \"%.*s\" (it has no "
			              "knobs)",
			              algo, (int)klen, assignment);
		free(list);
		return USMP_ERR_NOT_FOUND;
	}
	const usmp__param *p = &sig->params[i];
	rc = usmp__value_parse(p->type, eq + 1, &v, &why);
	if (rc != USMP_OK) {
		usmp__set_msg(msg, "knob \"%s\" of \"%s\" expects %s, got \"%s\" (%s)",
		              p->name, algo, type_names[p->type], eq + 1, why);
		usmp__free_msg(&why);
		return rc;
	}
	if (p->type == USMP_PARAM_STR) {
		copy = usmp__strdup(eq + 1);
		if (!copy) {
			usmp__set_msg(msg, "out of memory");
			return USMP_ERR_NOMEM;
		}
		free(k->strings[i]);
		k->strings[i] = copy;
		v.str = copy;
	}
	k->values[i] = v;
	return USMP_OK;
}

char *usmp__knobs_describe(const usmp__knobs *k)
{
	char *out = NULL, *v = NULL;
	size_t len = 0, cap = 0;

	if (usmp__grow((void **)&out, &cap, 1, 1) != USMP_OK)
		return NULL;
	out[0] = '\0';
	for (uint32_t i = 0; k && k->sig && i < k->sig->count; i++) {
		const usmp__param *p = &k->sig->params[i];
		v = usmp__value_format(p->type, &k->values[i]);
		if (!v)
			goto fail;
		size_t add = (i ? 1 : 0) + strlen(p->name) + 1 + strlen(v);
		if (usmp__grow((void **)&out, &cap, len + add + 1, 1) != USMP_OK)
			goto fail;
		len += (size_t)sprintf(out + len, "%s%s=%s", i ? " " : "", p->name, v);
		free(v);
		v = NULL;
	}
	return out;
fail:
	free(v);
	free(out);
	return NULL;
}

char *usmp__knobs_list(const usmp__knobs *k, size_t *len)
{
	char *out = NULL, *v = NULL;
	size_t used = 0, cap = 0;

	*len = 0;
	if (usmp__grow((void **)&out, &cap, 1, 1) != USMP_OK)
		return NULL;
	for (uint32_t i = 0; k && k->sig && i < k->sig->count; i++) {
		const usmp__param *p = &k->sig->params[i];
		v = usmp__value_format(p->type, &k->values[i]);
		if (!v)
			goto fail;
		size_t nl = strlen(p->name) + 1, vl = strlen(v) + 1;
		if (usmp__grow((void **)&out, &cap, used + nl + vl, 1) != USMP_OK)
			goto fail;
		memcpy(out + used, p->name, nl);
		memcpy(out + used + nl, v, vl);
		used += nl + vl;
		free(v);
		v = NULL;
	}
	*len = used;
	return out;
fail:
	free(v);
	free(out);
	return NULL;
}

void usmp__knobs_finish(usmp__knobs *k)
{
	if (!k)
		return;
	for (uint32_t i = 0; k->strings && k->sig && i < k->sig->count; i++)
		free(k->strings[i]);
	free(k->strings);
	free(k->values);
	k->strings = NULL;
	k->values = NULL;
}
