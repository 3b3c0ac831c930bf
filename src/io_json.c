/* io_json.c — the JSON formats (docs/formats.md): problems and plans, read
 * strictly (types, keys, names) with messages naming file, record and field. */
#include "io.h"
#include "plan.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than any valid file has is refused before jansson sees it. */
#define JSON_MAX_DEPTH USMP__JSON_MAX_DEPTH
/* Longest rendering of an offending value quoted in a message. */
#define SHOW_MAX 48

/* ------------------------------------------------------------------------ */
/* Shared reading helpers                                                   */
/* ------------------------------------------------------------------------ */

/* Where a reader reports to: a problem (emptied on failure) or a plan. */
typedef struct jctx {
	const char *name; /* file name for messages */
	usmp_problem *p;
	usmp_plan *plan;  /* NULL while reading a problem */
} jctx;

static int jfail(jctx *c, int status, const char *place, const char *fmt, ...)
	USMP__PRINTF(4, 5);

static int jfail(jctx *c, int status, const char *place, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	usmp__vset_msg(&msg, fmt, ap);
	va_end(ap);
	/* ":LINE:COL" places attach to the name: "m.json:2:16: ..." */
	int attached = place && place[0] == ':';
	if (c->plan) {
		for (uint32_t i = 0; i < c->plan->buffer_count; i++) {
			c->plan->placements[i].pool = USMP_NO_POOL;
			c->plan->placements[i].offset = 0;
		}
		if (attached)
			usmp__plan_fail(c->plan, status, "%s%s: %s", c->name,
			                place, msg);
		else if (place && *place)
			usmp__plan_fail(c->plan, status, "%s: %s: %s", c->name,
			                place, msg);
		else
			usmp__plan_fail(c->plan, status, "%s: %s", c->name, msg);
	} else if (attached) {
		usmp__read_fail(c->p, status, "%s%s: %s", c->name, place, msg);
	} else if (place && *place) {
		usmp__read_fail(c->p, status, "%s: %s: %s", c->name, place, msg);
	} else {
		usmp__read_fail(c->p, status, "%s: %s", c->name, msg);
	}
	usmp__free_msg(&msg);
	return status;
}

/* A builder call failed: pass its message on, prefixed with the place. */
static int builder_fail(jctx *c, int rc, const char *place)
{
	char *msg = usmp__strdup(usmp_problem_error(c->p));
	int status = rc == USMP_ERR_NOMEM ? USMP_ERR_NOMEM : USMP_ERR_INVALID;
	jfail(c, status, place, "%s", msg ? msg : "out of memory");
	free(msg);
	return status;
}

/* A short rendering of a value for "got ..." in messages. */
static void show(const json_t *v, char *buf, size_t n)
{
	if (!v) {
		snprintf(buf, n, "nothing");
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		snprintf(buf, n, "an object");
		return;
	case JSON_ARRAY: /* the length is what a wrong-arity array gets wrong */
		snprintf(buf, n, "an array of %zu element%s", json_array_size(v),
		         json_array_size(v) == 1 ? "" : "s");
		return;
	default:
		break;
	}
	char *s = json_dumps(v, JSON_ENCODE_ANY);
	if (!s) {
		snprintf(buf, n, "a value");
		return;
	}
	if (strlen(s) > SHOW_MAX)
		snprintf(buf, n, "%.*s...", SHOW_MAX, s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
}

/* Refuse nesting deeper than JSON_MAX_DEPTH (a cheap scan outside strings). */
static int check_depth(jctx *c, const char *d, size_t n)
{
	int depth = 0, in_str = 0, esc = 0;
	size_t line = 1, col = 0;

	for (size_t i = 0; i < n; i++) {
		char ch = d[i];
		if (ch == '\n') {
			line++;
			col = 0;
		} else {
			col++;
		}
		if (in_str) {
			if (esc)
				esc = 0;
			else if (ch == '\\')
				esc = 1;
			else if (ch == '"')
				in_str = 0;
			continue;
		}
		if (ch == '"') {
			in_str = 1;
		} else if (ch == '[' || ch == '{') {
			if (++depth > JSON_MAX_DEPTH) {
				char where[64];
				snprintf(where, sizeof where, ":%zu:%zu", line, col);
				return jfail(c, USMP_ERR_INVALID, where,
				             "nested deeper than %d levels",
				             JSON_MAX_DEPTH);
			}
		} else if (ch == ']' || ch == '}') {
			depth--;
		}
	}
	return USMP_OK;
}

/* What a hand-written file's syntax error most likely is, from jansson's
 * message: a comment, single quotes, a comma after the last item. */
static const char *syntax_hint(const char *text)
{
	if (strstr(text, "near '/"))
		return " (JSON has no comments: remove them)";
	if (strstr(text, "near '''"))
		return " (JSON strings and keys take double quotes)";
	if (!strcmp(text, "string or '}' expected near '}'"))
		return " (a comma before '}'? JSON allows none after an object's "
		       "last member)";
	if (!strcmp(text, "unexpected token near ']'"))
		return " (a comma before ']'? JSON allows none after an array's "
		       "last element)";
	return "";
}

/* Parse the text into an object; syntax errors give FILE:LINE:COLUMN. */
static int load_object(jctx *c, const char *data, size_t len, json_t **out)
{
	json_error_t err;
	json_t *root;
	int rc;

	*out = NULL;
	const char *wide = usmp__wide_text(data, len);
	if (wide)
		return jfail(c, USMP_ERR_INVALID, NULL, "the file is %s, not UTF-8 "
		             "as usmp reads: convert it (iconv -f %s -t UTF-8) or "
		             "save it as UTF-8", wide,
		             strncmp(wide, "UTF-32", 6) ? "UTF-16" : "UTF-32");
	/* A UTF-8 byte order mark at the start is skipped (RFC 8259 lets a
	 * parser ignore it; some editors write one). Columns do not count it,
	 * as editors do not show it. */
	if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		data += 3, len -= 3;
	/* Nothing but white space (a clobbered or never-written file) says
	 * so, as the CSV reader does, rather than jansson's "'[' or '{'". */
	size_t blank = 0; /* `data` need not end in a NUL: count within len */
	while (blank < len && strchr(" \t\r\n", data[blank]) && data[blank])
		blank++;
	if (blank == len)
		return jfail(c, USMP_ERR_INVALID, NULL,
		             "empty file%s: expected a JSON object",
		             len ? " (only white space)" : "");
	rc = check_depth(c, data, len);
	if (rc != USMP_OK)
		return rc;
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		char where[64];
		if (err.line > 0)
			snprintf(where, sizeof where, ":%d:%d", err.line,
			         err.column);
		else
			where[0] = '\0';
		/* Anywhere else a byte order mark is an invisible character in
		 * jansson's "near '...'": say what it is. */
		if (strstr(err.text, "\xEF\xBB\xBF"))
			return jfail(c, USMP_ERR_INVALID, where, "%s (U+FEFF, a byte "
			             "order mark, is allowed only at the start of "
			             "the file)", err.text);
		/* jansson's words for an escaped NUL name its own flag, which a
		 * file's author cannot set: say what the file holds. */
		const char *near = strstr(err.text, " near ");
		if (!strncmp(err.text, "\\u0000 is not allowed", 21))
			return jfail(c, USMP_ERR_INVALID, where, "\\u0000 (a NUL "
			             "character) in a string%s: a name ends at its "
			             "first NUL, so no string may hold one",
			             near ? near : "");
		/* A first line of comma-separated words, no JSON at all: most
		 * likely a CSV problem behind a name that does not end in .csv
		 * (or standard input, which is read as JSON). */
		const char *nl = memchr(data + blank, '\n', len - blank);
		size_t line = nl ? (size_t)(nl - data) - blank : len - blank;
		if (data[blank] != '{' && data[blank] != '[' &&
		    memchr(data + blank, ',', line))
			return jfail(c, USMP_ERR_INVALID, where, "%s (read as JSON; "
			             "a MiniMalloc CSV problem is read from a file "
			             "whose name ends in .csv)", err.text);
		return jfail(c, USMP_ERR_INVALID, where, "%s%s", err.text,
		             syntax_hint(err.text));
	}
	if (!json_is_object(root)) {
		char got[SHOW_MAX + 8];
		show(root, got, sizeof got);
		json_decref(root);
		return jfail(c, USMP_ERR_INVALID, NULL,
		             "expected a JSON object at the top level, got %s",
		             got);
	}
	*out = root;
	return USMP_OK;
}

/* A key of the other kind of file (a plan's where a problem is read, or a
 * problem's where a plan is): a hint that the files were swapped, "" else. */
static const char *other_kind(const jctx *c, const char *key)
{
	static const char *const plan_only[] = {"algorithm", "params", "optimal",
	                                        "time_ms", "parts", "pool",
	                                        "offset", NULL};
	static const char *const problem_only[] = {"conflicts", "overlaps",
	                                           "size_limit", "alignment",
	                                           "targets", "live", "fixed",
	                                           "size", "pools", NULL};
	const char *const *list = c->plan ? problem_only : plan_only;
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(key, list[i]))
			return c->plan ? ": a problem's key: is this the problem "
			                 "file? (usmp verify and simulate take the "
			                 "PROBLEM first, then the PLAN)"
			               : ": a plan's key: is this a plan file? (usmp "
			                 "verify and simulate take the PROBLEM first, "
			                 "then the PLAN)";
	return "";
}

/* Another tool's or a first guess's word for a key ("size" of a pool,
 * "align", "lifetime"): the known key meant, or NULL. A word counts only
 * where the key it stands for is known (a buffer's "size" is no pool's). */
static const char *key_meant(const char *key, const char *const *known)
{
	static const char *const words[][2] = {
		{"bytes", "size"},          {"length", "size"},
		{"size", "size_limit"},     {"limit", "size_limit"},
		{"capacity", "size_limit"}, {"bytes", "size_limit"},
		{"max_size", "size_limit"}, {"align", "alignment"},
		{"lifetime", "live"},       {"live_range", "live"},
		{"range", "live"},          {"interval", "live"},
		{"candidates", "pools"},    {"pool_candidates", "pools"},
		{"source", "src"},          {"input", "src"},
		{"dest", "dst"},            {"destination", "dst"},
		{"output", "dst"},          {"lead", "max_lead"},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strcmp(key, words[i][0]))
			continue;
		for (size_t k = 0; known[k]; k++)
			if (!strcmp(known[k], words[i][1]))
				return known[k];
	}
	return NULL;
}

/* Every key of obj must be in known (NULL-terminated). */
static int check_keys(jctx *c, json_t *obj, const char *place,
                      const char *const *known)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		size_t i;
		for (i = 0; known[i]; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i])
			continue;
		char list[256];
		size_t used = 0;
		list[0] = '\0';
		for (i = 0; known[i] && used < sizeof list; i++) {
			int w = snprintf(list + used, sizeof list - used, "%s%s",
			                 i ? ", " : "", known[i]);
			if (w < 0)
				break;
			used += (size_t)w;
		}
		char shown[SHOW_MAX + 8];
		json_t *ks = json_string(key);
		show(ks, shown, sizeof shown);
		json_decref(ks);
		/* A misspelt key ("pool" for "pools", "size_limt"): name the
		 * closest known one before any guess about the file's kind. */
		const char *near = NULL;
		size_t best = SIZE_MAX;
		for (i = 0; known[i]; i++) {
			size_t d = usmp__name_distance(key, known[i]);
			if (d < best) {
				best = d;
				near = known[i];
			}
		}
		if (!near)
			near = key_meant(key, known);
		const char *kind = other_kind(c, key);
		return jfail(c, USMP_ERR_INVALID, place,
		             "unknown key %s (known: %s)%s%s%s%s%s", shown, list,
		             near ? ": did you mean \"" : "", near ? near : "",
		             near ? "\"?" : "", near && *kind ? " Or" : "",
		             near && *kind ? kind + 1 : kind);
	}
	return USMP_OK;
}

/* An integer in [lo, hi]; `what` describes the expectation for messages. */
static int get_int(jctx *c, json_t *v, const char *place, int64_t lo,
                   int64_t hi, const char *what, int64_t *out)
{
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);
		if (x >= lo && x <= hi) {
			*out = (int64_t)x;
			return USMP_OK;
		}
	}
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	uint64_t bytes;
	if (lo == 1 && json_is_string(v) &&
	    usmp__unit_bytes(json_string_value(v), json_string_length(v), &bytes))
		return jfail(c, USMP_ERR_INVALID, place, "expected %s, got %s: "
		             "write the bytes as a number%s%.0llu%s: files take "
		             "no units", what, got, bytes ? " (" : "",
		             (unsigned long long)bytes, bytes ? ")" : "");
	/* TVM's size_hint_bytes says "unbounded" with -1; 0 may mean it too. */
	bool unbounded = json_is_integer(v) && json_integer_value(v) <= 0 &&
	                 strstr(place, ".size_limit");
	return jfail(c, USMP_ERR_INVALID, place, "expected %s, got %s%s", what,
	             got, unbounded ? ": leave \"size_limit\" out for a pool "
	                              "without a limit" : "");
}

/* A power of two >= 1 (alignments). */
static int get_align(jctx *c, json_t *v, const char *place, uint64_t *out)
{
	int64_t x;
	if (json_is_integer(v) && json_integer_value(v) > 0 &&
	    (json_integer_value(v) & (json_integer_value(v) - 1)) == 0) {
		x = json_integer_value(v);
		*out = (uint64_t)x;
		return USMP_OK;
	}
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	return jfail(c, USMP_ERR_INVALID, place,
	             "expected a power of two, got %s", got);
}

/* A non-empty string. */
static int get_name(jctx *c, json_t *v, const char *place, const char **out)
{
	if (json_is_string(v) && json_string_length(v) > 0) {
		*out = json_string_value(v);
		if (strlen(*out) != json_string_length(v))
			return jfail(c, USMP_ERR_INVALID, place,
			             "names may not contain NUL characters");
		return USMP_OK;
	}
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	return jfail(c, USMP_ERR_INVALID, place,
	             "expected a non-empty string, got %s", got);
}

static int get_array(jctx *c, json_t *v, const char *place)
{
	if (json_is_array(v))
		return USMP_OK;
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	return jfail(c, USMP_ERR_INVALID, place, "expected an array, got %s",
	             got);
}

static int get_object(jctx *c, json_t *v, const char *place)
{
	if (json_is_object(v))
		return USMP_OK;
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	return jfail(c, USMP_ERR_INVALID, place, "expected an object, got %s",
	             got);
}

/* A pool by name in v (a string). */
static int get_pool(jctx *c, json_t *v, const char *place, uint32_t *id)
{
	const char *s = NULL;
	int rc = get_name(c, v, place, &s);
	if (rc != USMP_OK)
		return rc;
	if (usmp_problem_find_pool(c->p, s, id) != USMP_OK)
		return jfail(c, USMP_ERR_INVALID, place, "unknown pool \"%s\"", s);
	return USMP_OK;
}

static int get_buffer(jctx *c, json_t *v, const char *place, uint32_t *id)
{
	const char *s = NULL;
	int rc = get_name(c, v, place, &s);
	if (rc != USMP_OK)
		return rc;
	if (usmp_problem_find_buffer(c->p, s, id) != USMP_OK)
		return jfail(c, USMP_ERR_INVALID, place, "unknown buffer \"%s\"",
		             s);
	return USMP_OK;
}

/* The "usmp" version key: absent or 1. */
static int check_version(jctx *c, json_t *root)
{
	json_t *v = json_object_get(root, "usmp");
	if (!v || (json_is_integer(v) && json_integer_value(v) == 1))
		return USMP_OK;
	char got[SHOW_MAX + 8];
	show(v, got, sizeof got);
	return jfail(c, USMP_ERR_INVALID, "usmp",
	             "unsupported format version %s (this reader knows 1)", got);
}

/* ------------------------------------------------------------------------ */
/* Problem reader                                                           */
/* ------------------------------------------------------------------------ */

static const char *const top_keys[] = {"usmp", "pools", "buffers", "conflicts",
                                       "overlaps", NULL};
static const char *const pool_keys[] = {"name", "size_limit", "alignment",
                                        "targets", NULL};
static const char *const buffer_keys[] = {"name", "size", "alignment", "live",
                                          "pools", "fixed", NULL};
static const char *const fixed_keys[] = {"pool", "offset", NULL};
static const char *const overlap_keys[] = {"src", "dst", "max_lead", NULL};

static int read_pool(jctx *c, json_t *rec, size_t i)
{
	char place[96];
	const char *name;
	uint64_t limit = USMP_UNBOUNDED, align = 1;
	uint32_t id, other;
	json_t *v;
	int rc;

	snprintf(place, sizeof place, "pools[%zu]", i);
	if ((rc = get_object(c, rec, place)) || (rc = check_keys(c, rec, place, pool_keys)))
		return rc;
	snprintf(place, sizeof place, "pools[%zu].name", i);
	v = json_object_get(rec, "name");
	if (!v)
		return jfail(c, USMP_ERR_INVALID, place, "missing (every pool "
		             "needs a name)");
	if ((rc = get_name(c, v, place, &name)))
		return rc;
	if (usmp_problem_find_pool(c->p, name, &other) == USMP_OK)
		return jfail(c, USMP_ERR_INVALID, place,
		             "duplicate pool name \"%s\" (pools[%u] has it)",
		             name, other);
	if ((v = json_object_get(rec, "size_limit"))) {
		int64_t x;
		snprintf(place, sizeof place, "pools[%zu].size_limit", i);
		if ((rc = get_int(c, v, place, 1, INT64_MAX,
		                  "a positive integer", &x)))
			return rc;
		limit = (uint64_t)x;
	}
	if ((v = json_object_get(rec, "alignment"))) {
		snprintf(place, sizeof place, "pools[%zu].alignment", i);
		if ((rc = get_align(c, v, place, &align)))
			return rc;
	}
	snprintf(place, sizeof place, "pools[%zu]", i);
	rc = usmp_problem_add_pool(c->p, name, limit, align, &id);
	if (rc != USMP_OK)
		return builder_fail(c, rc, place);
	if ((v = json_object_get(rec, "targets"))) {
		size_t k;
		json_t *t;
		snprintf(place, sizeof place, "pools[%zu].targets", i);
		if ((rc = get_array(c, v, place)))
			return rc;
		json_array_foreach(v, k, t) {
			const char *target;
			snprintf(place, sizeof place, "pools[%zu].targets[%zu]",
			         i, k);
			if ((rc = get_name(c, t, place, &target)))
				return rc;
			rc = usmp_problem_add_pool_target(c->p, id, target);
			if (rc != USMP_OK)
				return builder_fail(c, rc, place);
		}
	}
	return USMP_OK;
}

static int read_fixed(jctx *c, json_t *rec, size_t i, uint32_t b)
{
	char place[96];
	uint32_t pool = 0;
	int64_t off;
	json_t *v;
	int rc;

	snprintf(place, sizeof place, "buffers[%zu].fixed", i);
	if ((rc = get_object(c, rec, place)) ||
	    (rc = check_keys(c, rec, place, fixed_keys)))
		return rc;
	if ((v = json_object_get(rec, "pool"))) {
		snprintf(place, sizeof place, "buffers[%zu].fixed.pool", i);
		if ((rc = get_pool(c, v, place, &pool)))
			return rc;
	} else if (usmp_problem_pool_count(c->p) != 1) {
		snprintf(place, sizeof place, "buffers[%zu].fixed.pool", i);
		return jfail(c, USMP_ERR_INVALID, place,
		             "missing (needed when there is more than one "
		             "pool)");
	}
	snprintf(place, sizeof place, "buffers[%zu].fixed.offset", i);
	v = json_object_get(rec, "offset");
	if (!v)
		return jfail(c, USMP_ERR_INVALID, place, "missing");
	if ((rc = get_int(c, v, place, 0, INT64_MAX,
	                  "a non-negative integer", &off)))
		return rc;
	snprintf(place, sizeof place, "buffers[%zu].fixed", i);
	rc = usmp_problem_set_fixed(c->p, b, pool, (uint64_t)off);
	if (rc != USMP_OK)
		return builder_fail(c, rc, place);
	return USMP_OK;
}

static int read_buffer(jctx *c, json_t *rec, size_t i)
{
	char place[96];
	const char *name;
	int64_t size;
	uint64_t align = 1;
	uint32_t id, other;
	json_t *v;
	int rc;

	snprintf(place, sizeof place, "buffers[%zu]", i);
	if ((rc = get_object(c, rec, place)) ||
	    (rc = check_keys(c, rec, place, buffer_keys)))
		return rc;
	snprintf(place, sizeof place, "buffers[%zu].name", i);
	v = json_object_get(rec, "name");
	if (!v)
		return jfail(c, USMP_ERR_INVALID, place,
		             "missing (every buffer needs a name)");
	if ((rc = get_name(c, v, place, &name)))
		return rc;
	if (usmp_problem_find_buffer(c->p, name, &other) == USMP_OK)
		return jfail(c, USMP_ERR_INVALID, place,
		             "duplicate buffer name \"%s\" (buffers[%u] has it)",
		             name, other);
	snprintf(place, sizeof place, "buffers[%zu].size", i);
	v = json_object_get(rec, "size");
	if (!v)
		return jfail(c, USMP_ERR_INVALID, place,
		             "missing (every buffer needs a size)");
	if ((rc = get_int(c, v, place, 1, INT64_MAX, "a positive integer",
	                  &size)))
		return rc;
	if ((v = json_object_get(rec, "alignment"))) {
		snprintf(place, sizeof place, "buffers[%zu].alignment", i);
		if ((rc = get_align(c, v, place, &align)))
			return rc;
	}
	snprintf(place, sizeof place, "buffers[%zu]", i);
	rc = usmp_problem_add_buffer(c->p, name, (uint64_t)size, align, &id);
	if (rc != USMP_OK)
		return builder_fail(c, rc, place);

	if ((v = json_object_get(rec, "live"))) {
		int64_t be[2];
		snprintf(place, sizeof place, "buffers[%zu].live", i);
		if (!json_is_array(v) || json_array_size(v) != 2) {
			char got[SHOW_MAX + 8];
			show(v, got, sizeof got);
			return jfail(c, USMP_ERR_INVALID, place,
			             "expected [begin, end], got %s", got);
		}
		for (size_t k = 0; k < 2; k++) {
			snprintf(place, sizeof place, "buffers[%zu].live[%zu]", i,
			         k);
			if ((rc = get_int(c, json_array_get(v, k), place,
			                  INT64_MIN, INT64_MAX, "an integer",
			                  &be[k])))
				return rc;
		}
		snprintf(place, sizeof place, "buffers[%zu].live", i);
		if (be[1] <= be[0])
			return jfail(c, USMP_ERR_INVALID, place,
			             "end (%" PRId64 ") is not after begin (%"
			             PRId64 ")%s", be[1], be[0],
			             be[1] == be[0] && be[0] < INT64_MAX ?
			             ": [begin, end] is half-open, end excluded, so a "
			             "buffer alive only at step t is [t, t + 1] (an "
			             "inclusive last step + 1)" : "");
		rc = usmp_problem_set_live(c->p, id, be[0], be[1]);
		if (rc != USMP_OK)
			return builder_fail(c, rc, place);
	}
	if ((v = json_object_get(rec, "pools"))) {
		size_t k;
		json_t *t;
		snprintf(place, sizeof place, "buffers[%zu].pools", i);
		if ((rc = get_array(c, v, place)))
			return rc;
		/* An empty list reads like "nowhere", but no list means every
		 * pool: a generator that lost the candidates says so here. */
		if (json_array_size(v) == 0)
			return jfail(c, USMP_ERR_INVALID, place,
			             "an empty list: name at least one pool, or "
			             "leave \"pools\" out for every pool");
		json_array_foreach(v, k, t) {
			uint32_t pool;
			snprintf(place, sizeof place, "buffers[%zu].pools[%zu]",
			         i, k);
			if ((rc = get_pool(c, t, place, &pool)))
				return rc;
			rc = usmp_problem_add_candidate(c->p, id, pool);
			if (rc != USMP_OK)
				return builder_fail(c, rc, place);
		}
	}
	if ((v = json_object_get(rec, "fixed")))
		return read_fixed(c, v, i, id);
	return USMP_OK;
}

static int read_conflict(jctx *c, json_t *rec, size_t i)
{
	char place[96];
	uint32_t ab[2];
	int rc;

	snprintf(place, sizeof place, "conflicts[%zu]", i);
	if (!json_is_array(rec) || json_array_size(rec) != 2) {
		char got[SHOW_MAX + 8];
		show(rec, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, place,
		             "expected a pair of buffer names, got %s", got);
	}
	for (size_t k = 0; k < 2; k++) {
		snprintf(place, sizeof place, "conflicts[%zu][%zu]", i, k);
		if ((rc = get_buffer(c, json_array_get(rec, k), place, &ab[k])))
			return rc;
	}
	snprintf(place, sizeof place, "conflicts[%zu]", i);
	if (ab[0] == ab[1])
		return jfail(c, USMP_ERR_INVALID, place,
		             "buffer \"%s\" cannot conflict with itself",
		             usmp_problem_buffer_name(c->p, ab[0]));
	rc = usmp_problem_add_conflict(c->p, ab[0], ab[1]);
	if (rc != USMP_OK)
		return builder_fail(c, rc, place);
	return USMP_OK;
}

static int read_overlap(jctx *c, json_t *rec, size_t i)
{
	char place[96];
	uint32_t src, dst;
	int64_t lead = 0;
	json_t *v;
	int rc;

	snprintf(place, sizeof place, "overlaps[%zu]", i);
	if ((rc = get_object(c, rec, place)) ||
	    (rc = check_keys(c, rec, place, overlap_keys)))
		return rc;
	snprintf(place, sizeof place, "overlaps[%zu].src", i);
	if (!(v = json_object_get(rec, "src")))
		return jfail(c, USMP_ERR_INVALID, place, "missing");
	if ((rc = get_buffer(c, v, place, &src)))
		return rc;
	snprintf(place, sizeof place, "overlaps[%zu].dst", i);
	if (!(v = json_object_get(rec, "dst")))
		return jfail(c, USMP_ERR_INVALID, place, "missing");
	if ((rc = get_buffer(c, v, place, &dst)))
		return rc;
	if ((v = json_object_get(rec, "max_lead"))) {
		snprintf(place, sizeof place, "overlaps[%zu].max_lead", i);
		if ((rc = get_int(c, v, place, INT64_MIN, INT64_MAX,
		                  "an integer (bytes)", &lead)))
			return rc;
	}
	snprintf(place, sizeof place, "overlaps[%zu]", i);
	if (src == dst)
		return jfail(c, USMP_ERR_INVALID, place,
		             "src and dst are the same buffer \"%s\"",
		             usmp_problem_buffer_name(c->p, src));
	rc = usmp_problem_add_overlap(c->p, src, dst, lead);
	if (rc != USMP_OK)
		return builder_fail(c, rc, place);
	return USMP_OK;
}

/* Apply fn to every element of the array under `key` (absent = none). */
static int read_list(jctx *c, json_t *root, const char *key,
                     int (*fn)(jctx *, json_t *, size_t))
{
	json_t *arr = json_object_get(root, key), *rec;
	size_t i;
	int rc;

	if (!arr)
		return USMP_OK;
	if ((rc = get_array(c, arr, key)))
		return rc;
	json_array_foreach(arr, i, rec) {
		if ((rc = fn(c, rec, i)))
			return rc;
	}
	return USMP_OK;
}

int usmp__json_read_problem(usmp_problem *p, const char *data, size_t len,
                            const char *name)
{
	jctx c = {.name = name, .p = p, .plan = NULL};
	json_t *root = NULL;
	int rc;

	if ((rc = load_object(&c, data, len, &root)))
		return rc;
	if ((rc = check_keys(&c, root, "", top_keys)) ||
	    (rc = check_version(&c, root)) ||
	    (rc = read_list(&c, root, "pools", read_pool)))
		goto done;
	if (usmp_problem_pool_count(p) == 0) {
		/* No pools means one unbounded pool named "default". */
		rc = usmp_problem_add_pool(p, "default", USMP_UNBOUNDED, 1, NULL);
		if (rc != USMP_OK) {
			rc = builder_fail(&c, rc, "pools");
			goto done;
		}
	}
	if ((rc = read_list(&c, root, "buffers", read_buffer)) ||
	    (rc = read_list(&c, root, "conflicts", read_conflict)) ||
	    (rc = read_list(&c, root, "overlaps", read_overlap)))
		goto done;
	usmp__problem_set_csv_columns(p, 0);
done:
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

/* Writers build one small json_t per record and print it on its own line:
 * readable, diffable, and memory stays flat for 100k-buffer problems. */

typedef struct jwriter {
	FILE *f;
	usmp_problem *p;
	usmp_plan *plan; /* errors go here when set, else to p */
	int status;
} jwriter;

static int wfail(jwriter *w, int status, const char *fmt, ...)
	USMP__PRINTF(3, 4);

static int wfail(jwriter *w, int status, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (w->status)
		return w->status; /* keep the first */
	va_start(ap, fmt);
	usmp__vset_msg(&msg, fmt, ap);
	va_end(ap);
	if (w->plan)
		usmp__plan_fail(w->plan, status, "%s", msg);
	else
		usmp__problem_fail(w->p, status, "%s", msg);
	usmp__free_msg(&msg);
	w->status = status;
	return status;
}

/* Integers beyond int64 cannot be written (nor read back) as JSON numbers. */
static json_t *jint(jwriter *w, uint64_t x, const char *what)
{
	if (x > (uint64_t)INT64_MAX) {
		wfail(w, USMP_ERR_INVALID, "%s: %" PRIu64 " is too large for "
		      "the JSON format", what, x);
		return NULL;
	}
	return json_integer((json_int_t)x);
}

/* A JSON string of s; `what` names its place ("buffers[3].name"), so that
 * a host told a name is not UTF-8 knows which (the file is not written). */
static json_t *jstr(jwriter *w, const char *s, const char *what)
{
	json_t *v = json_string(s ? s : "");
	if (!v)
		wfail(w, USMP_ERR_INVALID, "%s is not valid UTF-8", what);
	return v;
}

/* Set obj[key] = v, consuming v. A NULL v or obj records a failure (the
 * cause was recorded already when known, else it is out of memory). */
static void jset(jwriter *w, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v) {
		json_decref(v);
		wfail(w, USMP_ERR_NOMEM, "out of memory writing JSON");
		return;
	}
	if (json_object_set_new(obj, key, v) != 0)
		wfail(w, USMP_ERR_NOMEM, "out of memory writing JSON");
}

static void jappend(jwriter *w, json_t *arr, json_t *v)
{
	if (!arr || !v) {
		json_decref(v);
		wfail(w, USMP_ERR_NOMEM, "out of memory writing JSON");
		return;
	}
	if (json_array_append_new(arr, v) != 0)
		wfail(w, USMP_ERR_NOMEM, "out of memory writing JSON");
}

/* Print rec (consumed) after `lead`; NULL rec records a failure. */
static void emit(jwriter *w, const char *lead, json_t *rec)
{
	if (!rec) {
		wfail(w, USMP_ERR_NOMEM, "out of memory writing JSON");
		return;
	}
	if (!w->status) {
		fputs(lead, w->f);
		if (json_dumpf(rec, w->f, JSON_REAL_PRECISION(9)) != 0)
			wfail(w, USMP_ERR_IO, "cannot write JSON output");
	}
	json_decref(rec);
}

/* The buffers array of a plan is most of its text (a million records for
 * a million buffers), so its records are printed directly through one
 * buffer, as the same text jansson prints for them, without a json_t each. */
typedef struct jout {
	FILE *f;
	size_t n;
	char buf[1 << 16];
} jout;

static void jout_flush(jout *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		(void)0; /* the stream's error flag is checked on close */
	o->n = 0;
}

static void jout_put(jout *o, const char *s, size_t len)
{
	if (len > sizeof o->buf - o->n) {
		jout_flush(o);
		if (len > sizeof o->buf) {
			(void)fwrite(s, 1, len, o->f);
			return;
		}
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

#define JOUT_LIT(o, s) jout_put((o), (s), sizeof(s) - 1)

static void jout_u64(jout *o, uint64_t x)
{
	char d[USMP__U64_DIGITS];
	size_t k = usmp__u64_digits(d, x);
	jout_put(o, d + k, sizeof d - k);
}

/* The JSON text of string s: ASCII that needs no escape as it is, anything
 * else as jansson renders it (*own is then malloc'd text to free). NULL
 * with *status set when s is not valid UTF-8 or memory runs out. */
static const char *jtext(const char *s, size_t *len, char **own, int *status)
{
	size_t n = 0;
	*own = NULL;
	for (;; n++) {
		unsigned char ch = (unsigned char)s[n];
		if (!ch) {
			*len = n;
			return s;
		}
		if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\')
			break;
	}
	json_t *v = json_string(s);
	if (!v) {
		*status = USMP_ERR_INVALID;
		return NULL;
	}
	*own = json_dumps(v, JSON_ENCODE_ANY);
	json_decref(v);
	if (!*own) {
		*status = USMP_ERR_NOMEM;
		return NULL;
	}
	/* without its quotes, as the plain case */
	*len = strlen(*own) - 2;
	return *own + 1;
}

/* One {"name": ..., "pool": ..., "offset": ...} record after `lead`. */
static void plan_buffer_record(jwriter *w, jout *o, const char *lead,
                               uint32_t i, const char *name, const char *pool,
                               uint64_t offset)
{
	size_t nl = 0, pl = 0;
	char *nown = NULL, *pown = NULL;
	int st = 0;
	const char *nt = jtext(name ? name : "", &nl, &nown, &st);
	if (!nt) {
		if (st == USMP_ERR_INVALID)
			wfail(w, st, "buffers[%u].name is not valid UTF-8", i);
		else
			wfail(w, st, "out of memory writing JSON");
		goto done;
	}
	const char *pt = jtext(pool ? pool : "", &pl, &pown, &st);
	if (!pt) {
		if (st == USMP_ERR_INVALID)
			wfail(w, st, "buffers[%u].pool is not valid UTF-8", i);
		else
			wfail(w, st, "out of memory writing JSON");
		goto done;
	}
	if (offset > (uint64_t)INT64_MAX) {
		wfail(w, USMP_ERR_INVALID, "offset: %" PRIu64 " is too large for "
		      "the JSON format (buffer \"%s\" in pool \"%s\")", offset,
		      name ? name : "", pool ? pool : "");
		goto done;
	}
	jout_put(o, lead, strlen(lead));
	JOUT_LIT(o, "{\"name\": \"");
	jout_put(o, nt, nl);
	JOUT_LIT(o, "\", \"pool\": \"");
	jout_put(o, pt, pl);
	JOUT_LIT(o, "\", \"offset\": ");
	jout_u64(o, offset);
	JOUT_LIT(o, "}");
done:
	free(nown);
	free(pown);
}

static int edge_cmp(const void *x, const void *y)
{
	const usmp__edge *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return 0;
}

static json_t *pool_record(jwriter *w, usmp_problem *p, size_t j)
{
	const usmp__pool *pool = usmp__problem_pool(p, j);
	json_t *rec = json_object();
	char what[64];

	snprintf(what, sizeof what, "pools[%zu].name", j);
	jset(w, rec, "name", jstr(w, pool->name, what));
	snprintf(what, sizeof what, "pools[%zu]", j);
	if (pool->size_limit != USMP_UNBOUNDED)
		jset(w, rec, "size_limit", jint(w, pool->size_limit, what));
	if (pool->alignment > 1)
		jset(w, rec, "alignment", jint(w, pool->alignment, what));
	if (pool->target_count) {
		json_t *t = json_array();
		for (uint32_t k = 0; k < pool->target_count; k++) {
			char tw[80];
			snprintf(tw, sizeof tw, "pools[%zu].targets[%u]", j, k);
			jappend(w, t, jstr(w, pool->targets[k], tw));
		}
		jset(w, rec, "targets", t);
	}
	return rec;
}

static json_t *buffer_record(jwriter *w, usmp_problem *p, size_t i)
{
	const usmp__buffer *b = usmp__problem_buffer(p, i);
	json_t *rec = json_object();
	char what[64];

	snprintf(what, sizeof what, "buffers[%zu].name", i);
	jset(w, rec, "name", jstr(w, b->name, what));
	snprintf(what, sizeof what, "buffers[%zu]", i);
	jset(w, rec, "size", jint(w, b->size, what));
	if (b->alignment > 1)
		jset(w, rec, "alignment", jint(w, b->alignment, what));
	if (b->flags & USMP_BUFFER_LIVE)
		jset(w, rec, "live", json_pack("[II]", (json_int_t)b->begin,
		                               (json_int_t)b->end));
	if (b->candidate_count) {
		json_t *c = json_array();
		for (uint32_t k = 0; k < b->candidate_count; k++)
			jappend(w, c, jstr(w, usmp__problem_pool(p, b->candidates[k])
			                              ->name, "a pool name"));
		jset(w, rec, "pools", c);
	}
	if (b->flags & USMP_BUFFER_FIXED) {
		json_t *fx = json_object();
		jset(w, fx, "pool", jstr(w, usmp__problem_pool(p, b->fixed_pool)->name,
		                         "a pool name"));
		jset(w, fx, "offset", jint(w, b->fixed_offset, what));
		jset(w, rec, "fixed", fx);
	}
	return rec;
}

int usmp__json_write_problem(usmp_problem *p, FILE *f)
{
	jwriter w = {.f = f, .p = p, .plan = NULL, .status = 0};
	usmp__edge *edges = NULL;
	size_t i;

	fputs("{\"usmp\": 1,\n \"pools\": [", f);
	for (i = 0; i < usmp__problem_npools(p) && !w.status; i++)
		emit(&w, i ? ",\n  " : "\n  ", pool_record(&w, p, i));
	fputs("],\n \"buffers\": [", f);
	for (i = 0; i < usmp__problem_nbuffers(p) && !w.status; i++)
		emit(&w, i ? ",\n  " : "\n  ", buffer_record(&w, p, i));
	fputs("]", f);

	if (usmp__problem_nedges(p) && !w.status) {
		size_t n = 0;
		edges = malloc(usmp__problem_nedges(p) * sizeof *edges);
		if (!edges) {
			wfail(&w, USMP_ERR_NOMEM, "out of memory writing JSON");
			goto done;
		}
		for (i = 0; i < usmp__problem_nedges(p); i++)
			edges[i] = *usmp__problem_edge(p, i);
		qsort(edges, usmp__problem_nedges(p), sizeof *edges, edge_cmp);
		fputs(",\n \"conflicts\": [", f);
		for (i = 0; i < usmp__problem_nedges(p) && !w.status; i++) {
			if (i && edge_cmp(&edges[i - 1], &edges[i]) == 0)
				continue;
			json_t *pair = json_array();
			const usmp__buffer *a = usmp__problem_buffer(p, edges[i].a);
			const usmp__buffer *b = usmp__problem_buffer(p, edges[i].b);
			jappend(&w, pair, jstr(&w, a->name, "a buffer name"));
			jappend(&w, pair, jstr(&w, b->name, "a buffer name"));
			emit(&w, n++ ? ",\n  " : "\n  ", pair);
		}
		fputs("]", f);
	}
	if (usmp__problem_noverlaps(p) && !w.status) {
		fputs(",\n \"overlaps\": [", f);
		for (i = 0; i < usmp__problem_noverlaps(p) && !w.status; i++) {
			const usmp_overlap_rec *o = usmp__problem_overlap(p, i);
			json_t *rec = json_object();
			const usmp__buffer *src = usmp__problem_buffer(p, o->src);
			const usmp__buffer *dst = usmp__problem_buffer(p, o->dst);
			jset(&w, rec, "src", jstr(&w, src->name, "a buffer name"));
			jset(&w, rec, "dst", jstr(&w, dst->name, "a buffer name"));
			jset(&w, rec, "max_lead", json_integer(o->max_lead));
			emit(&w, i ? ",\n  " : "\n  ", rec);
		}
		fputs("]", f);
	}
	fputs("}\n", f);
done:
	free(edges);
	return w.status;
}

/* A part's knobs as an object of strings: from its (name, value) list
 * when it has one, which keeps every value as it was; else from the text
 * "k=v k=v" (a token without '=' continues the previous value). */
static json_t *params_object(jwriter *w, const char *text, const char *list,
                             size_t len)
{
	json_t *obj = json_object();
	char *copy = NULL;
	char *last_key = NULL;
	char *tok, *save = NULL;

	if (obj && list) {
		for (size_t at = 0; at < len;) {
			const char *key = list + at;
			const char *val = key + strlen(key) + 1;
			jset(w, obj, key, jstr(w, val, "a knob value"));
			at = (size_t)(val - list) + strlen(val) + 1;
		}
		return obj;
	}
	copy = usmp__strdup(text ? text : "");
	if (!obj || !copy)
		goto nomem;
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (eq) {
			*eq = '\0';
			last_key = tok;
			jset(w, obj, tok, jstr(w, eq + 1, "a knob value"));
		} else if (last_key) {
			const char *prev = json_string_value(
				json_object_get(obj, last_key));
			size_t n = strlen(prev ? prev : "") + strlen(tok) + 2;
			char *joined = malloc(n);
			if (!joined)
				goto nomem;
			snprintf(joined, n, "%s %s", prev ? prev : "", tok);
			jset(w, obj, last_key, jstr(w, joined, "a knob value"));
			free(joined);
		}
	}
	free(copy);
	return obj;
nomem:
	free(copy);
	json_decref(obj);
	return NULL;
}

static json_t *jreal(double x)
{
	return json_real(isfinite(x) ? x : 0.0);
}

/* The top-level algorithm: the distinct algorithms of the parts, joined by
 * "+" in order of first appearance (linear in the parts and their names). */
static char *joined_algorithms(const usmp_plan *plan)
{
	uint32_t *first, count;
	if (usmp__plan_distinct_algorithms(plan, &first, &count))
		return NULL;
	size_t n = 1;
	for (uint32_t k = 0; k < count; k++) {
		const char *a = plan->parts[first[k]].algorithm;
		n += strlen(a ? a : "") + 1;
	}
	char *s = malloc(n);
	size_t len = 0;
	for (uint32_t k = 0; s && k < count; k++) {
		const char *a = plan->parts[first[k]].algorithm;
		size_t m = strlen(a ? a : "");
		if (len)
			s[len++] = '+';
		memcpy(s + len, a ? a : "", m);
		len += m;
	}
	if (s)
		s[len] = '\0';
	free(first);
	return s;
}

static json_t *part_record(jwriter *w, const usmp__part *pt, uint32_t i)
{
	char what[4][48];
	snprintf(what[3], sizeof what[3], "parts[%u].target", i);
	snprintf(what[0], sizeof what[0], "parts[%u].size", i);
	snprintf(what[1], sizeof what[1], "parts[%u].lower_bound", i);
	snprintf(what[2], sizeof what[2], "parts[%u].proven_bound", i);
	json_t *rec = json_object();
	jset(w, rec, "target", jstr(w, pt->target, what[3]));
	jset(w, rec, "algorithm", jstr(w, pt->algorithm, "an algorithm name"));
	jset(w, rec, "params", params_object(w, pt->params, pt->param_list,
	                                     pt->param_list_len));
	jset(w, rec, "size", jint(w, pt->size, what[0]));
	jset(w, rec, "lower_bound", jint(w, pt->lower_bound, what[1]));
	jset(w, rec, "proven_bound", jint(w, pt->proven_bound, what[2]));
	jset(w, rec, "optimal", json_boolean(pt->optimal));
	jset(w, rec, "time_ms", jreal(pt->time_ms));
	jset(w, rec, "buffers", json_integer(pt->buffer_count));
	jset(w, rec, "group", json_integer(pt->group));
	return rec;
}

int usmp__json_write_plan(usmp_plan *plan, usmp_problem *p, FILE *f)
{
	jwriter w = {.f = f, .p = p, .plan = plan, .status = 0};
	json_t *head = NULL;
	char *algo = NULL;
	jout *out = NULL;
	int optimal = plan->part_count > 0;
	uint32_t i;

	for (i = 0; i < plan->buffer_count; i++)
		if (plan->placements[i].pool >= plan->pool_count)
			return wfail(&w, USMP_ERR_INVALID,
			             "buffer \"%s\" has no placement; only "
			             "complete plans can be written",
			             usmp__problem_buffer(p, i)->name);
	for (i = 0; i < plan->part_count; i++)
		if (!plan->parts[i].optimal)
			optimal = 0;
	algo = joined_algorithms(plan);
	head = json_object();
	jset(&w, head, "usmp", json_integer(1));
	jset(&w, head, "algorithm", jstr(&w, algo, "an algorithm name"));
	/* Knobs belong to an algorithm: top level only when one part. */
	const usmp__part *one = plan->part_count == 1 ? &plan->parts[0] : NULL;
	jset(&w, head, "params", params_object(&w, one ? one->params : "",
	                                       one ? one->param_list : NULL,
	                                       one ? one->param_list_len : 0));
	jset(&w, head, "optimal", json_boolean(optimal));
	jset(&w, head, "time_ms", jreal(plan->time_ms));
	if (w.status)
		goto done;
	/* The head object is printed without its closing brace, then the
	 * arrays follow one record per line. */
	char *text = json_dumps(head, JSON_REAL_PRECISION(9));
	if (!text) {
		wfail(&w, USMP_ERR_NOMEM, "out of memory writing JSON");
		goto done;
	}
	text[strlen(text) - 1] = '\0';
	fputs(text, f);
	free(text);

	fputs(",\n \"pools\": [", f);
	for (i = 0; i < plan->pool_count && !w.status; i++) {
		json_t *rec = json_object();
		uint32_t g = usmp_problem_prepare_pool_group(p, i);
		char where[48];
		snprintf(where, sizeof where, "pools[%u].name", i);
		jset(&w, rec, "name",
		     jstr(&w, usmp__problem_pool(p, i)->name, where));
		if (plan->pool_size[i] > (uint64_t)INT64_MAX) {
			/* Name the pool: the plan is valid, only JSON cannot say it. */
			wfail(&w, USMP_ERR_INVALID, "pool size: %" PRIu64 " is too large "
			      "for the JSON format (pools[%u] \"%s\")",
			      plan->pool_size[i], i, usmp__problem_pool(p, i)->name);
			json_decref(rec);
			break;
		}
		jset(&w, rec, "size", jint(&w, plan->pool_size[i], "pool size"));
		char what[48];
		snprintf(what, sizeof what, "pools[%u].lower_bound", i);
		jset(&w, rec, "lower_bound",
		     jint(&w, usmp_problem_prepare_group_bound(p, g), what));
		jset(&w, rec, "group", json_integer(g));
		emit(&w, i ? ",\n  " : "\n  ", rec);
	}
	fputs("],\n \"buffers\": [", f);
	out = malloc(sizeof *out);
	if (!out) {
		wfail(&w, USMP_ERR_NOMEM, "out of memory writing JSON");
		goto done;
	}
	out->f = f;
	out->n = 0;
	for (i = 0; i < plan->buffer_count && !w.status; i++) {
		const usmp_placement *pl = &plan->placements[i];
		plan_buffer_record(&w, out, i ? ",\n  " : "\n  ", i,
		                   usmp__problem_buffer(p, i)->name,
		                   usmp__problem_pool(p, pl->pool)->name, pl->offset);
	}
	jout_flush(out);
	fputs("]", f);
	if (plan->part_count) {
		fputs(",\n \"parts\": [", f);
		for (i = 0; i < plan->part_count && !w.status; i++)
			emit(&w, i ? ",\n  " : "\n  ",
			     part_record(&w, &plan->parts[i], i));
		fputs("]", f);
	}
	fputs("}\n", f);
done:
	json_decref(head);
	free(algo);
	free(out);
	return w.status;
}

/* ------------------------------------------------------------------------ */
/* Plan reader                                                              */
/* ------------------------------------------------------------------------ */

static const char *const plan_keys[] = {"usmp", "algorithm", "params",
                                        "optimal", "time_ms", "pools",
                                        "buffers", "parts", NULL};
static const char *const plan_pool_keys[] = {"name", "size", "lower_bound",
                                             "group", NULL};
static const char *const plan_buffer_keys[] = {"name", "pool", "offset", NULL};

/* The descriptive top-level fields: checked for type, not used. */
static int check_plan_head(jctx *c, json_t *root)
{
	json_t *v;
	char got[SHOW_MAX + 8];

	if ((v = json_object_get(root, "algorithm")) && !json_is_string(v)) {
		show(v, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, "algorithm",
		             "expected a string, got %s", got);
	}
	if ((v = json_object_get(root, "params")) && !json_is_object(v)) {
		show(v, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, "params",
		             "expected an object, got %s", got);
	}
	if ((v = json_object_get(root, "optimal")) && !json_is_boolean(v)) {
		show(v, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, "optimal",
		             "expected true or false, got %s", got);
	}
	if ((v = json_object_get(root, "time_ms")) && !json_is_number(v)) {
		show(v, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, "time_ms",
		             "expected a number, got %s", got);
	}
	if ((v = json_object_get(root, "parts")) && !json_is_array(v)) {
		show(v, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, "parts",
		             "expected an array, got %s", got);
	}
	return USMP_OK;
}

static const char *const part_keys[] = {"target", "algorithm", "params",
                                        "size", "lower_bound", "proven_bound",
                                        "optimal", "time_ms", "buffers",
                                        "group", NULL};

/* A part's params object back to "k=v k=v" (heap string) and to its
 * (name, value) list (usmp__part.param_list). */
static int params_text(jctx *c, json_t *obj, const char *place, char **out,
                       char **list, size_t *list_len)
{
	size_t cap = 1, used = 0, lused = 0;
	const char *key;
	json_t *v;
	char *s, *l;

	*out = NULL;
	*list = NULL;
	*list_len = 0;
	if (!json_is_object(obj)) {
		char got[SHOW_MAX + 8];
		show(obj, got, sizeof got);
		return jfail(c, USMP_ERR_INVALID, place,
		             "expected an object, got %s", got);
	}
	json_object_foreach(obj, key, v) {
		if (!json_is_string(v)) {
			char got[SHOW_MAX + 8];
			show(v, got, sizeof got);
			return jfail(c, USMP_ERR_INVALID, place,
			             "knob \"%s\": expected a string, got %s", key,
			             got);
		}
		cap += strlen(key) + json_string_length(v) + 2;
	}
	s = malloc(cap);
	l = malloc(cap);
	if (!s || !l) {
		free(s);
		free(l);
		return jfail(c, USMP_ERR_NOMEM, place, "out of memory");
	}
	s[0] = '\0';
	json_object_foreach(obj, key, v) {
		int w = snprintf(s + used, cap - used, "%s%s=%s", used ? " " : "",
		                 key, json_string_value(v));
		if (w > 0)
			used += (size_t)w;
		size_t kl = strlen(key) + 1, vl = strlen(json_string_value(v)) + 1;
		memcpy(l + lused, key, kl);
		memcpy(l + lused + kl, json_string_value(v), vl);
		lused += kl + vl;
	}
	*out = s;
	*list = l;
	*list_len = lused;
	return USMP_OK;
}

static int read_part(jctx *c, json_t *rec, size_t i, usmp__part *pt,
                     usmp__claim *cl)
{
	static const char *const ints[] = {"size", "lower_bound",
	                                   "proven_bound", "buffers", "group"};
	char place[96];
	json_t *v;
	int rc;

	snprintf(place, sizeof place, "parts[%zu]", i);
	if ((rc = get_object(c, rec, place)) ||
	    (rc = check_keys(c, rec, place, part_keys)))
		return rc;
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "algorithm" : "target";
		char **slot = k ? &pt->algorithm : &pt->target;
		snprintf(place, sizeof place, "parts[%zu].%s", i, key);
		v = json_object_get(rec, key);
		if (v && !json_is_string(v)) {
			char got[SHOW_MAX + 8];
			show(v, got, sizeof got);
			return jfail(c, USMP_ERR_INVALID, place,
			             "expected a string, got %s", got);
		}
		*slot = usmp__strdup(v ? json_string_value(v) : "");
		if (!*slot)
			return jfail(c, USMP_ERR_NOMEM, place, "out of memory");
	}
	snprintf(place, sizeof place, "parts[%zu].params", i);
	if ((v = json_object_get(rec, "params"))) {
		if ((rc = params_text(c, v, place, &pt->params,
		                      &pt->param_list, &pt->param_list_len)))
			return rc;
	} else if (!(pt->params = usmp__strdup(""))) {
		return jfail(c, USMP_ERR_NOMEM, place, "out of memory");
	}
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		int64_t x = 0;
		if (!(v = json_object_get(rec, ints[k])))
			continue;
		snprintf(place, sizeof place, "parts[%zu].%s", i, ints[k]);
		if ((rc = get_int(c, v, place, 0,
		                  k >= 3 ? (int64_t)UINT32_MAX : INT64_MAX,
		                  k >= 3 ? "an integer from 0 to 4294967295"
		                         : "a non-negative integer", &x)))
			return rc;
		/* Claims go to cl, checked once the placements are read. */
		switch (k) {
		case 0: cl->size = (uint64_t)x; break;
		case 1: cl->lower_bound = (uint64_t)x; break;
		case 2: cl->proven_bound = (uint64_t)x; break;
		case 3: cl->buffers = (uint64_t)x; break;
		default: pt->group = (uint32_t)x; break;
		}
		if (k < 4)
			cl->has |= 1u << k;
	}
	if ((v = json_object_get(rec, "optimal"))) {
		snprintf(place, sizeof place, "parts[%zu].optimal", i);
		if (!json_is_boolean(v))
			return jfail(c, USMP_ERR_INVALID, place,
			             "expected true or false");
		cl->optimal = json_is_true(v);
	}
	if ((v = json_object_get(rec, "time_ms"))) {
		snprintf(place, sizeof place, "parts[%zu].time_ms", i);
		if (!json_is_number(v))
			return jfail(c, USMP_ERR_INVALID, place,
			             "expected a number");
		pt->time_ms = json_number_value(v);
	}
	return USMP_OK;
}

/* How the plan was made, kept for writing it again; its claims in
 * *claims (one per part, for usmp__plan_claims). */
static int read_plan_parts(jctx *c, usmp_plan *plan, json_t *arr,
                           usmp__claim **claims)
{
	size_t n = json_array_size(arr), i;
	json_t *rec;
	int rc;

	if (n == 0)
		return USMP_OK;
	if (n > UINT32_MAX)
		return jfail(c, USMP_ERR_INVALID, "parts", "too many parts");
	plan->parts = calloc(n, sizeof *plan->parts);
	*claims = calloc(n, sizeof **claims);
	if (!plan->parts || !*claims) {
		free(plan->parts);
		plan->parts = NULL;
		return jfail(c, USMP_ERR_NOMEM, "parts", "out of memory");
	}
	plan->part_count = (uint32_t)n; /* freed by usmp_plan_destroy */
	json_array_foreach(arr, i, rec) {
		if ((rc = read_part(c, rec, i, &plan->parts[i], &(*claims)[i])))
			goto fail;
	}
	return USMP_OK;
fail:
	for (i = 0; i < n; i++) {
		free(plan->parts[i].target);
		free(plan->parts[i].algorithm);
		free(plan->parts[i].params);
		free(plan->parts[i].param_list);
	}
	free(plan->parts);
	plan->parts = NULL;
	plan->part_count = 0;
	return rc;
}

/* The pools' records: names checked, size and lower_bound kept in
 * claims[pool] for usmp__plan_claims. */
static int read_plan_pools(jctx *c, json_t *arr, usmp__claim *claims)
{
	char place[96];
	json_t *rec, *v;
	size_t i;
	int rc;

	if ((rc = get_array(c, arr, "pools")))
		return rc;
	json_array_foreach(arr, i, rec) {
		uint32_t id;
		int64_t x;
		snprintf(place, sizeof place, "pools[%zu]", i);
		if ((rc = get_object(c, rec, place)) ||
		    (rc = check_keys(c, rec, place, plan_pool_keys)))
			return rc;
		snprintf(place, sizeof place, "pools[%zu].name", i);
		if (!(v = json_object_get(rec, "name")))
			return jfail(c, USMP_ERR_INVALID, place, "missing");
		if ((rc = get_pool(c, v, place, &id)))
			return rc;
		/* One record a pool: a second would replace the first's
		 * claims, true or not, unchecked. */
		if (claims[id].has & USMP__CLAIM_LISTED)
			return jfail(c, USMP_ERR_INVALID, place, "pool \"%s\" is "
			             "listed twice (also pools[%" PRIu64 "])",
			             json_string_value(v), claims[id].at);
		claims[id].has |= USMP__CLAIM_LISTED;
		claims[id].at = i;
		for (const char *const *k = plan_pool_keys + 1; *k; k++) {
			if (!(v = json_object_get(rec, *k)))
				continue;
			snprintf(place, sizeof place, "pools[%zu].%s", i, *k);
			if ((rc = get_int(c, v, place, 0, INT64_MAX,
			                  "a non-negative integer", &x)))
				return rc;
			if (!strcmp(*k, "size")) {
				claims[id].size = (uint64_t)x;
				claims[id].has |= USMP__CLAIM_SIZE;
			} else if (!strcmp(*k, "lower_bound")) {
				claims[id].lower_bound = (uint64_t)x;
				claims[id].has |= USMP__CLAIM_LOWER_BOUND;
			} else if (!strcmp(*k, "group")) {
				claims[id].group = (uint64_t)x;
				claims[id].has |= USMP__CLAIM_GROUP;
			}
		}
	}
	return USMP_OK;
}

int usmp__json_read_plan(usmp_plan *plan, usmp_problem *p, const char *data,
                         size_t len, const char *name)
{
	jctx c = {.name = name, .p = p, .plan = plan};
	json_t *root = NULL, *arr, *rec, *v;
	uint32_t *seen = NULL;
	usmp__claim *part_claims = NULL, *pool_claims = NULL;
	char place[96];
	size_t i;
	int rc;

	if ((rc = load_object(&c, data, len, &root)))
		return rc;
	if ((rc = check_keys(&c, root, "", plan_keys)) ||
	    (rc = check_version(&c, root)) || (rc = check_plan_head(&c, root)))
		goto done;
	pool_claims = calloc(plan->pool_count ? plan->pool_count : 1,
	                     sizeof *pool_claims);
	if (!pool_claims) {
		rc = jfail(&c, USMP_ERR_NOMEM, NULL, "out of memory");
		goto done;
	}
	if ((v = json_object_get(root, "pools")) &&
	    (rc = read_plan_pools(&c, v, pool_claims)))
		goto done;
	arr = json_object_get(root, "buffers");
	if (!arr) {
		rc = jfail(&c, USMP_ERR_INVALID, "buffers",
		           "missing (a plan places every buffer)");
		goto done;
	}
	if ((rc = get_array(&c, arr, "buffers")))
		goto done;
	size_t n = usmp__problem_nbuffers(p);
	seen = malloc((n ? n : 1) * sizeof *seen);
	if (!seen) {
		rc = jfail(&c, USMP_ERR_NOMEM, NULL, "out of memory");
		goto done;
	}
	for (i = 0; i < usmp__problem_nbuffers(p); i++)
		seen[i] = UINT32_MAX;
	json_array_foreach(arr, i, rec) {
		uint32_t b, pool;
		int64_t off;
		/* "buffers[i]" once a record; each field appends its name */
		int at = snprintf(place, sizeof place, "buffers[%zu]", i);
		size_t base = at > 0 && (size_t)at < sizeof place - 8 ? (size_t)at : 0;
		if ((rc = get_object(&c, rec, place)) ||
		    (rc = check_keys(&c, rec, place, plan_buffer_keys)))
			goto done;
		memcpy(place + base, ".name", sizeof ".name");
		if (!(v = json_object_get(rec, "name"))) {
			rc = jfail(&c, USMP_ERR_INVALID, place, "missing");
			goto done;
		}
		if ((rc = get_buffer(&c, v, place, &b)))
			goto done;
		if (seen[b] != UINT32_MAX) {
			rc = jfail(&c, USMP_ERR_INVALID, place,
			           "buffer \"%s\" is placed twice (also "
			           "buffers[%u])", usmp__problem_buffer(p, b)->name,
			           seen[b]);
			goto done;
		}
		seen[b] = (uint32_t)i;
		memcpy(place + base, ".pool", sizeof ".pool");
		if (!(v = json_object_get(rec, "pool"))) {
			rc = jfail(&c, USMP_ERR_INVALID, place, "missing");
			goto done;
		}
		if ((rc = get_pool(&c, v, place, &pool)))
			goto done;
		memcpy(place + base, ".offset", sizeof ".offset");
		if (!(v = json_object_get(rec, "offset"))) {
			rc = jfail(&c, USMP_ERR_INVALID, place, "missing");
			goto done;
		}
		if ((rc = get_int(&c, v, place, 0, INT64_MAX,
		                  "a non-negative integer", &off)))
			goto done;
		plan->placements[b].pool = pool;
		plan->placements[b].offset = (uint64_t)off;
	}
	for (i = 0; i < usmp__problem_nbuffers(p); i++) {
		if (seen[i] == UINT32_MAX) {
			rc = jfail(&c, USMP_ERR_INVALID, "buffers",
			           "buffer \"%s\" has no placement (every buffer "
			           "of the problem must appear once)",
			           usmp__problem_buffer(p, i)->name);
			goto done;
		}
	}
	if ((v = json_object_get(root, "time_ms")))
		plan->time_ms = json_number_value(v);
	if ((v = json_object_get(root, "parts")) &&
	    (rc = read_plan_parts(&c, plan, v, &part_claims)))
		goto done;
	usmp__plan_measure(plan, p);
	v = json_object_get(root, "optimal");
	if ((rc = usmp__plan_claims(plan, p, c.name, part_claims, pool_claims,
	                            v && json_is_true(v)))) {
		for (i = 0; i < plan->buffer_count; i++) /* as jfail */
			plan->placements[i].pool = USMP_NO_POOL;
		goto done;
	}
	plan->status = USMP_OK;
done:
	free(seen);
	free(part_claims);
	free(pool_claims);
	json_decref(root);
	return rc;
}
