/* select.c — per-target algorithm selection: rules "pattern=algo:k=v" from the
 * API, plan options, USMP_ALGORITHM and the default, matched with fnmatch.
 *
 * Priority (usmp_rule_source): rules bound through the API, then the plan
 * options' / select()'s override spec, then USMP_ALGORITHM, then "auto".
 * Within the API and env lists the most specific rule wins: the first pool
 * rule ("@glob=...") matching one of the part's pools, else the first
 * target rule whose glob matches every target of the part.
 *
 * Rule syntax: "pattern=algo[:key=value...]", rules separated by ';', spaces
 * around rules and around their '=' ignored. A rule without '=' before its
 * first ':' (or without '=' at all, e.g. USMP_ALGORITHM=best_fit) is a bare
 * spec for pattern "*".
 * A knob value therefore cannot contain ':' or ';', and patterns cannot
 * contain ':'. */
#include "registry_private.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---- kept strings and errors -------------------------------------------- */

/* A copy of `s` that lives until the registry is destroyed, shared with any
 * equal string kept before. Caller holds keep_lock. NULL when out of memory. */
static const char *keep_locked(usmp_registry *r, const char *s)
{
	usmp__kept *k = &r->kept;
	char *copy;

	for (size_t i = 0; i < k->string_count; i++)
		if (strcmp(k->strings[i], s) == 0)
			return k->strings[i];
	if (usmp__grow((void **)&k->strings, &k->string_cap, k->string_count + 1,
	               sizeof *k->strings) != USMP_OK)
		return NULL;
	copy = usmp__strdup(s);
	if (!copy)
		return NULL;
	k->strings[k->string_count++] = copy;
	return copy;
}

/* Record the message of a failed bind/select as the calling thread's
 * (thread-safe: the text is kept, so a pointer got from usmp_registry_error
 * stays valid until the registry is destroyed). */
static void set_error(usmp_registry *r, const char *text)
{
	pthread_t self = pthread_self();
	usmp__thread_error *slot = NULL;
	const char *kept;

	pthread_mutex_lock(&r->keep_lock);
	kept = keep_locked(r, text ? text : "");
	for (size_t i = 0; i < r->error_count && !slot; i++)
		if (pthread_equal(r->errors[i].thread, self))
			slot = &r->errors[i];
	if (!slot && r->error_count < USMP__ERROR_THREADS)
		slot = &r->errors[r->error_count++];
	if (!slot) {
		slot = &r->errors[r->error_next];
		r->error_next = (r->error_next + 1) % USMP__ERROR_THREADS;
	}
	slot->thread = self;
	slot->text = kept ? kept : "out of memory";
	pthread_mutex_unlock(&r->keep_lock);
}

/* ---- rules -------------------------------------------------------------- */

static void rule_free(usmp__rule *rule)
{
	free(rule->text);
	free(rule->pattern);
	for (uint32_t i = 0; i < rule->assign_count; i++)
		free(rule->assign[i]);
	free(rule->assign);
	free(rule->params);
	usmp__free_msg(&rule->error);
	memset(rule, 0, sizeof *rule);
}

static void list_free(usmp__rule_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		rule_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* The assignment of `rule` that sets the knob `s` (n bytes, "k=v") sets,
 * or -1 (also when `s` has no key). */
static int64_t assign_find(const usmp__rule *rule, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : 0;

	for (uint32_t i = 0; klen && i < rule->assign_count; i++)
		if (!strncmp(rule->assign[i], s, klen) &&
		    rule->assign[i][klen] == '=')
			return i;
	return -1;
}

/* Add the assignment `s` (n bytes) to `rule`. `spec_count` is the number
 * of assignments from the spec ("algo:k=v"), UINT32_MAX while the spec's
 * are added. An extra ("-p", the params array) may set a knob the spec
 * sets, replacing the spec's value, so the rule holds one value per knob,
 * the one its algorithm gets; a knob set twice by the spec, or twice by
 * the extras, is refused (*msg). */
static int add_assign(usmp__rule *rule, const char *s, size_t n,
                      uint32_t spec_count, char **msg)
{
	int64_t old = assign_find(rule, s, n);
	char **grown;

	if (old >= 0 && spec_count != UINT32_MAX && old < spec_count) {
		char *copy = strndup(s, n);
		if (!copy)
			return USMP_ERR_NOMEM;
		free(rule->assign[old]);
		rule->assign[old] = copy;
		return USMP_OK;
	}
	if (old >= 0) {
		const char *prev = rule->assign[old];
		usmp__set_msg(msg, "knob \"%.*s\" set twice (%s, then %.*s)",
		              (int)(strchr(prev, '=') - prev), prev, prev, (int)n, s);
		return USMP_ERR_INVALID;
	}
	grown = realloc(rule->assign,
	                ((size_t)rule->assign_count + 1) * sizeof *grown);
	if (!grown)
		return USMP_ERR_NOMEM;
	rule->assign = grown;
	rule->assign[rule->assign_count] = strndup(s, n);
	if (!rule->assign[rule->assign_count])
		return USMP_ERR_NOMEM;
	rule->assign_count++;
	return USMP_OK;
}

/* "npu:exact": a target, ':', an algorithm, where "npu=exact" was meant
 * (without '=' the rule is a spec for every target, "npu" its algorithm).
 * Replaces *msg by the rule meant when the word after the colon names an
 * algorithm. */
static void colon_for_equals(usmp_registry *r, const char *name,
                             const char *colon, const char *end, char **msg)
{
	if (!colon || !*msg)
		return;
	const char *word = colon + 1, *next = memchr(word, ':', (size_t)(end - word));
	size_t len = (size_t)((next ? next : end) - word);
	char *algo = strndup(word, len);
	if (algo && !memchr(word, '=', len) && usmp__registry_algo(r, algo)) {
		char *more = usmp__format_msg("no algorithm \"%s\", but \"%s\" "
		                              "after the ':' is one: a rule for the "
		                              "pattern \"%s\" is written \"%s=%s\" "
		                              "(PATTERN=ALGORITHM[:KNOB=VALUE...]; "
		                              "without '=' before the first ':' a "
		                              "rule names an algorithm for every "
		                              "target)", name, algo, name, name,
		                              algo);
		if (more) {
			usmp__free_msg(msg);
			*msg = more;
		}
	}
	free(algo);
}

/* Set the rule's algorithm and assignments from `spec` (n bytes,
 * "algo[:k=v...]") followed by `extra[0..extra_count)`, and validate them:
 * the algorithm exists, every knob exists and every value parses. On
 * failure *msg holds the reason (without the rule). */
static int rule_set_spec(usmp_registry *r, usmp__rule *rule, const char *spec,
                         size_t n, const char *const *extra,
                         uint32_t extra_count, char **msg)
{
	const char *end = spec + n, *colon = memchr(spec, ':', n);
	size_t name_len = colon ? (size_t)(colon - spec) : n;
	usmp__knobs knobs = {0};
	char *name = NULL;
	size_t plen = 1;
	uint32_t spec_count;
	int rc;

	name = strndup(spec, name_len);
	if (!name)
		goto nomem;
	if (name_len == 0) {
		usmp__set_msg(msg, "no algorithm named");
		rc = USMP_ERR_INVALID;
		goto fail;
	}
	rule->algo = usmp__registry_algo(r, name);
	if (!rule->algo) {
		rc = usmp__explain_missing(r, name, msg);
		colon_for_equals(r, name, colon, end, msg);
		goto fail;
	}
	for (const char *s = colon; s && s < end;) {
		const char *piece = s + 1;
		const char *next = memchr(piece, ':', (size_t)(end - piece));
		size_t len = (size_t)((next ? next : end) - piece);
		if (len == 0) {
			usmp__set_msg(msg, "empty knob setting after \"%s\"", name);
			rc = USMP_ERR_INVALID;
			goto fail;
		}
		rc = add_assign(rule, piece, len, UINT32_MAX, msg);
		if (rc == USMP_ERR_NOMEM)
			goto nomem;
		if (rc != USMP_OK)
			goto fail;
		s = next;
	}
	spec_count = rule->assign_count;
	for (uint32_t i = 0; i < extra_count; i++) {
		if (!extra[i]) {
			usmp__set_msg(msg, "knob setting %u is NULL", i);
			rc = USMP_ERR_INVALID;
			goto fail;
		}
		rc = add_assign(rule, extra[i], strlen(extra[i]), spec_count, msg);
		if (rc == USMP_ERR_NOMEM)
			goto nomem;
		if (rc != USMP_OK)
			goto fail;
	}
	if (usmp__knobs_init(&knobs, &rule->algo->sig) != USMP_OK)
		goto nomem;
	for (uint32_t i = 0; i < rule->assign_count; i++) {
		rc = usmp__knobs_set(&knobs, rule->algo->name, rule->assign[i], msg);
		if (rc != USMP_OK)
			goto fail;
		plen += strlen(rule->assign[i]) + 1;
	}
	rule->params = malloc(plen);
	if (!rule->params)
		goto nomem;
	rule->params[0] = '\0';
	for (uint32_t i = 0; i < rule->assign_count; i++) {
		if (i)
			strcat(rule->params, " ");
		strcat(rule->params, rule->assign[i]);
	}
	usmp__knobs_finish(&knobs);
	free(name);
	return USMP_OK;
nomem:
	usmp__set_msg(msg, "out of memory");
	rc = USMP_ERR_NOMEM;
fail:
	rule->algo = NULL;
	usmp__knobs_finish(&knobs);
	free(name);
	return rc;
}

/* A pattern "@glob" makes the rule a pool rule matching pool names with
 * `glob`; the rule keeps only the glob. Refuses an empty glob. */
static int set_pattern_kind(usmp__rule *rule, char **msg)
{
	if (rule->pattern[0] != '@')
		return USMP_OK;
	rule->pool = true;
	memmove(rule->pattern, rule->pattern + 1, strlen(rule->pattern));
	if (rule->pattern[0] == '\0') {
		/* Keep a pattern that matches every pool: the rule must not be
		 * silently inert. */
		free(rule->pattern);
		rule->pattern = usmp__strdup("*");
		if (!rule->pattern) {
			usmp__set_msg(msg, "out of memory");
			return USMP_ERR_NOMEM;
		}
		usmp__set_msg(msg, "empty pool pattern after '@'");
		return USMP_ERR_INVALID;
	}
	return USMP_OK;
}

/* Parse one rule (n bytes at s, already trimmed) into *rule: its text and
 * pattern always (pattern "*" when it has none), its spec when valid. On
 * failure the rule is left half-filled for the caller to keep or free, and
 * *msg holds the reason. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int rule_parse(usmp_registry *r, const char *s, size_t n,
                      usmp__rule *rule, char **msg)
{
	const char *eq = memchr(s, '=', n), *colon = memchr(s, ':', n);
	const char *spec = s;
	size_t spec_len = n;

	memset(rule, 0, sizeof *rule);
	rule->text = strndup(s, n);
	if (!rule->text)
		goto nomem;
	if (eq && !(colon && colon < eq)) {
		/* Blanks around '=' too: "npu = exact" is "npu=exact", not a
		 * pattern "npu " that no target matches. */
		const char *pe = eq;
		while (pe > s && is_space(pe[-1]))
			pe--;
		rule->pattern = strndup(s, (size_t)(pe - s));
		spec = eq + 1;
		spec_len = n - (size_t)(eq + 1 - s);
		while (spec_len && is_space(*spec)) {
			spec++;
			spec_len--;
		}
	} else {
		rule->pattern = usmp__strdup("*");
	}
	if (!rule->pattern)
		goto nomem;
	if (rule->pattern[0] == '\0') {
		/* Keep a pattern that matches everything: the rule must not be
		 * silently inert. */
		free(rule->pattern);
		rule->pattern = usmp__strdup("*");
		if (!rule->pattern)
			goto nomem;
		usmp__set_msg(msg, "empty target pattern before '='");
		return USMP_ERR_INVALID;
	}
	int rc = set_pattern_kind(rule, msg);
	if (rc != USMP_OK)
		return rc;
	return rule_set_spec(r, rule, spec, spec_len, NULL, 0, msg);
nomem:
	usmp__set_msg(msg, "out of memory");
	return USMP_ERR_NOMEM;
}

/* Call fn(r, s, n, arg) for each trimmed non-empty rule of a ';' list. */
typedef int (*rule_text_fn)(usmp_registry *r, const char *s, size_t n,
                            void *arg);

static int for_each_rule_text(usmp_registry *r, const char *rules,
                              rule_text_fn fn, void *arg)
{
	const char *s = rules;

	while (s && *s) {
		size_t n = strcspn(s, ";");
		const char *b = s, *e = s + n;
		while (b < e && is_space(*b))
			b++;
		while (e > b && is_space(e[-1]))
			e--;
		if (e > b) {
			int rc = fn(r, b, (size_t)(e - b), arg);
			if (rc != USMP_OK)
				return rc;
		}
		s += n;
		if (*s == ';')
			s++;
	}
	return USMP_OK;
}

static int push_rule(usmp__rule_list *l, usmp__rule *rule)
{
	if (usmp__grow((void **)&l->items, &l->cap, l->count + 1,
	               sizeof *l->items) != USMP_OK)
		return USMP_ERR_NOMEM;
	l->items[l->count++] = *rule;
	memset(rule, 0, sizeof *rule);
	return USMP_OK;
}

/* ---- environment and default -------------------------------------------- */

static int env_rule(usmp_registry *r, const char *s, size_t n, void *arg)
{
	usmp__rule rule;
	char *msg = NULL;
	int rc;

	USMP__UNUSED(arg);
	rc = rule_parse(r, s, n, &rule, &msg);
	if (rc == USMP_ERR_NOMEM)
		goto fail;
	if (rc != USMP_OK) {
		/* Keep it, broken: a target it matches must fail, not silently
		 * fall through to a later rule or the default. */
		usmp__registry_diag(r, "USMP_ALGORITHM: rule \"%s\": %s", rule.text,
		                    msg);
		rule.error = NULL;
		rule.status = rc;
		usmp__set_msg(&rule.error, "USMP_ALGORITHM rule \"%s\": %s",
		              rule.text, msg);
		rule.algo = NULL;
	}
	rc = push_rule(&r->env_rules, &rule);
	if (rc != USMP_OK)
		goto fail;
	usmp__free_msg(&msg);
	return USMP_OK;
fail:
	rule_free(&rule);
	usmp__free_msg(&msg);
	return USMP_ERR_NOMEM;
}

int usmp__select_init(usmp_registry *r, const char *env_rules)
{
	usmp__rule *d = &r->default_rule;

	memset(d, 0, sizeof *d);
	d->text = usmp__strdup("*=auto");
	d->pattern = usmp__strdup("*");
	d->params = usmp__strdup("");
	if (!d->text || !d->pattern || !d->params)
		return USMP_ERR_NOMEM;
	d->algo = usmp__registry_algo(r, "auto");
	if (!d->algo) {
		usmp__set_msg(&d->error, "the default algorithm \"auto\" is not "
		                         "registered");
		d->status = USMP_ERR_NOT_FOUND;
		if (!d->error)
			return USMP_ERR_NOMEM;
	}
	return for_each_rule_text(r, env_rules, env_rule, NULL);
}

void usmp__select_finish(usmp_registry *r)
{
	usmp__kept *k = &r->kept;

	list_free(&r->api_rules);
	list_free(&r->env_rules);
	rule_free(&r->default_rule);
	for (size_t i = 0; i < k->string_count; i++)
		free(k->strings[i]);
	free(k->strings);
	for (size_t i = 0; i < k->override_count; i++) {
		rule_free(k->overrides[i]);
		free(k->overrides[i]);
	}
	free(k->overrides);
	memset(k, 0, sizeof *k);
}

/* ---- binding ------------------------------------------------------------ */

int usmp_registry_bind(usmp_registry *r, const char *pattern,
                       const char *algorithm, const char *const *params,
                       uint32_t param_count)
{
	usmp__rule rule;
	char *msg = NULL, *full = NULL;
	size_t len;
	int rc;

	if (!r)
		return USMP_ERR_INVALID;
	memset(&rule, 0, sizeof rule);
	if (!pattern || !*pattern || !algorithm || (param_count && !params)) {
		set_error(r, "usmp_registry_bind: empty pattern or algorithm");
		return USMP_ERR_INVALID;
	}
	/* The rule's text, as it would be written in USMP_ALGORITHM syntax. */
	len = strlen(pattern) + strlen(algorithm) + 2;
	for (uint32_t i = 0; i < param_count; i++)
		len += (params[i] ? strlen(params[i]) : 6) + 1;
	rule.text = malloc(len);
	rule.pattern = usmp__strdup(pattern);
	if (!rule.text || !rule.pattern) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	strcpy(rule.text, pattern);
	strcat(rule.text, "=");
	strcat(rule.text, algorithm);
	for (uint32_t i = 0; i < param_count; i++) {
		strcat(rule.text, ":");
		strcat(rule.text, params[i] ? params[i] : "(null)");
	}
	rc = set_pattern_kind(&rule, &msg);
	if (rc != USMP_OK)
		goto fail;
	rc = rule_set_spec(r, &rule, algorithm, strlen(algorithm), params,
	                   param_count, &msg);
	if (rc != USMP_OK)
		goto fail;
	pthread_rwlock_wrlock(&r->rules_lock);
	rc = push_rule(&r->api_rules, &rule);
	pthread_rwlock_unlock(&r->rules_lock);
	if (rc != USMP_OK)
		goto fail;
	return USMP_OK;
fail:
	usmp__set_msg(&full, "rule \"%s\": %s", rule.text ? rule.text : pattern,
	              rc == USMP_ERR_NOMEM ? "out of memory" : msg);
	set_error(r, full);
	usmp__free_msg(&full);
	usmp__free_msg(&msg);
	rule_free(&rule);
	return rc;
}

typedef struct bind_batch {
	usmp__rule_list parsed;
	char *msg;
} bind_batch;

static int batch_rule(usmp_registry *r, const char *s, size_t n, void *arg)
{
	bind_batch *b = arg;
	usmp__rule rule;
	char *msg = NULL;
	int rc = rule_parse(r, s, n, &rule, &msg);

	if (rc != USMP_OK) {
		usmp__set_msg(&b->msg, "rule \"%.*s\": %s", (int)n, s, msg);
		goto fail;
	}
	rc = push_rule(&b->parsed, &rule);
	if (rc != USMP_OK) {
		usmp__set_msg(&b->msg, "out of memory");
		goto fail;
	}
	return USMP_OK;
fail:
	usmp__free_msg(&msg);
	rule_free(&rule);
	return rc;
}

/* All or nothing: a list with one bad rule binds none of them. */
int usmp_registry_bind_rules(usmp_registry *r, const char *rules)
{
	bind_batch b = {{0}, NULL};
	int rc;

	if (!r)
		return USMP_ERR_INVALID;
	if (!rules) {
		set_error(r, "usmp_registry_bind_rules: no rules");
		return USMP_ERR_INVALID;
	}
	rc = for_each_rule_text(r, rules, batch_rule, &b);
	if (rc != USMP_OK)
		goto fail;
	pthread_rwlock_wrlock(&r->rules_lock);
	if (usmp__grow((void **)&r->api_rules.items, &r->api_rules.cap,
	               r->api_rules.count + b.parsed.count,
	               sizeof *r->api_rules.items) != USMP_OK) {
		pthread_rwlock_unlock(&r->rules_lock);
		usmp__set_msg(&b.msg, "out of memory");
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	for (size_t i = 0; i < b.parsed.count; i++)
		r->api_rules.items[r->api_rules.count++] = b.parsed.items[i];
	b.parsed.count = 0;
	pthread_rwlock_unlock(&r->rules_lock);
	list_free(&b.parsed);
	return USMP_OK;
fail:
	set_error(r, b.msg ? b.msg : "bad rules");
	usmp__free_msg(&b.msg);
	list_free(&b.parsed);
	return rc;
}

void usmp_registry_clear_bindings(usmp_registry *r)
{
	if (!r)
		return;
	pthread_rwlock_wrlock(&r->rules_lock);
	list_free(&r->api_rules);
	pthread_rwlock_unlock(&r->rules_lock);
}

/* ---- choosing ----------------------------------------------------------- */

/* Parse `spec` into the override rule `rule` (text and pattern set): a
 * broken spec leaves its message in rule->error. Returns USMP_ERR_NOMEM
 * or USMP_OK. */
static int override_parse(usmp_registry *r, usmp__rule *rule, const char *spec)
{
	char *msg = NULL;
	int rc = rule_set_spec(r, rule, spec, strlen(spec), NULL, 0, &msg);

	if (rc != USMP_OK && rc != USMP_ERR_NOMEM) {
		usmp__set_msg(&rule->error, "algorithm spec \"%s\": %s", spec, msg);
		rule->status = rc;
		rc = rule->error ? USMP_OK : USMP_ERR_NOMEM;
	}
	usmp__free_msg(&msg);
	return rc;
}

/* The rule an override spec stands for. usmp_registry_select's (scratch
 * NULL) is parsed once and kept (with its error, when broken) until the
 * registry is destroyed, as the strings it returns must live; a plan's
 * (scratch given) is taken from those kept when there, else parsed into
 * *scratch, which the caller frees: a host planning with ever new specs
 * ("exact:capacity=N") keeps nothing. NULL when out of memory. */
static const usmp__rule *override_rule(usmp_registry *r, const char *spec,
                                       usmp__rule *scratch)
{
	usmp__kept *k = &r->kept;
	usmp__rule *rule = NULL;

	pthread_mutex_lock(&r->keep_lock);
	for (size_t i = 0; i < k->override_count; i++) {
		if (strcmp(k->overrides[i]->text, spec) == 0) {
			rule = k->overrides[i];
			goto out;
		}
	}
	if (scratch) {
		pthread_mutex_unlock(&r->keep_lock);
		scratch->text = usmp__strdup(spec);
		scratch->pattern = usmp__strdup("*");
		if (!scratch->text || !scratch->pattern ||
		    override_parse(r, scratch, spec) != USMP_OK)
			return NULL;
		return scratch;
	}
	if (usmp__grow((void **)&k->overrides, &k->override_cap,
	               k->override_count + 1, sizeof *k->overrides) != USMP_OK)
		goto out;
	rule = calloc(1, sizeof *rule);
	if (!rule)
		goto out;
	rule->text = usmp__strdup(spec);
	rule->pattern = usmp__strdup("*");
	if (!rule->text || !rule->pattern ||
	    override_parse(r, rule, spec) != USMP_OK)
		goto nomem;
	k->overrides[k->override_count++] = rule;
	goto out;
nomem:
	rule_free(rule);
	free(rule);
	rule = NULL;
out:
	pthread_mutex_unlock(&r->keep_lock);
	return rule;
}

/* What a rule is matched against: the targets a part's pools name (at
 * least one; "" for the untargeted part) and the names of its pools. */
typedef struct part_key {
	const char *const *targets;
	uint32_t target_count;
	const char *const *pools;
	uint32_t pool_count;
} part_key;

static bool rule_matches(const usmp__rule *rule, const part_key *k)
{
	if (rule->pool) {
		for (uint32_t i = 0; i < k->pool_count; i++)
			if (k->pools[i] && fnmatch(rule->pattern, k->pools[i], 0) == 0)
				return true;
		return false;
	}
	for (uint32_t i = 0; i < k->target_count; i++)
		if (fnmatch(rule->pattern, k->targets[i] ? k->targets[i] : "", 0))
			return false;
	return true;
}

/* The most specific rule of the list: the first pool rule matching one of
 * the part's pools, else the first target rule matching all its targets. */
static const usmp__rule *first_match(const usmp__rule_list *l,
                                     const part_key *k)
{
	for (int pool = 1; pool >= 0; pool--)
		for (size_t i = 0; i < l->count; i++)
			if (l->items[i].pool == (pool == 1) &&
			    rule_matches(&l->items[i], k))
				return &l->items[i];
	return NULL;
}

/* The rule that decides the part `k`. Caller holds rules_lock for reading.
 * An override spec not kept is parsed into `scratch` when given (see
 * override_rule). Returns USMP_OK, or an error with *msg (a broken rule's
 * message). */
static int choose(usmp_registry *r, const part_key *k, const char *override,
                  usmp__rule *scratch, const usmp__rule **out, int *source,
                  char **msg)
{
	const usmp__rule *rule;

	if (override && !*override)
		override = NULL;
	if ((rule = first_match(&r->api_rules, k)) != NULL) {
		*source = USMP_SOURCE_API;
	} else if (override) {
		rule = override_rule(r, override, scratch);
		if (!rule) {
			usmp__set_msg(msg, "out of memory");
			return USMP_ERR_NOMEM;
		}
		*source = USMP_SOURCE_OPTIONS;
	} else if ((rule = first_match(&r->env_rules, k)) != NULL) {
		*source = USMP_SOURCE_ENV;
	} else {
		rule = &r->default_rule;
		*source = USMP_SOURCE_DEFAULT;
	}
	if (rule->error || !rule->algo) {
		usmp__set_msg(msg, "%s", rule->error ? rule->error : "broken rule");
		return rule->status ? rule->status : USMP_ERR_INVALID;
	}
	*out = rule;
	return USMP_OK;
}

int usmp_registry_select(usmp_registry *r, const char *target,
                         const char *override, usmp_selection *out)
{
	return usmp_registry_select_part(r, target ? &target : NULL,
	                                 target ? 1 : 0, NULL, 0, override, out);
}

/* A key for targets[0..nt) (none: the untargeted part) and pools. */
static part_key make_key(const char *const *targets, uint32_t nt,
                         const char *const *pools, uint32_t np)
{
	static const char *const untargeted[] = {""};
	part_key k = {targets, nt, pools, np};

	if (!targets || !nt) {
		k.targets = untargeted;
		k.target_count = 1;
	}
	if (!pools)
		k.pool_count = 0;
	return k;
}

int usmp_registry_select_part(usmp_registry *r, const char *const *targets,
                              uint32_t target_count, const char *const *pools,
                              uint32_t pool_count, const char *override,
                              usmp_selection *out)
{
	usmp_selection full;
	const usmp__rule *rule = NULL;
	char *msg = NULL;
	uint32_t size;
	int source = 0, rc;
	part_key key = make_key(targets, target_count, pools, pool_count);

	if (!r)
		return USMP_ERR_INVALID;
	if (!out) {
		set_error(r, "usmp_registry_select: no output");
		return USMP_ERR_INVALID;
	}
	memcpy(&size, out, sizeof size);
	if (size < sizeof(uint32_t)) {
		set_error(r, "usmp_registry_select: struct_size not set");
		return USMP_ERR_INVALID;
	}
	pthread_rwlock_rdlock(&r->rules_lock);
	rc = choose(r, &key, override, NULL, &rule, &source, &msg);
	if (rc == USMP_OK) {
		memset(&full, 0, sizeof full);
		full.struct_size = size;
		full.source = (uint32_t)source;
		full.algorithm = rule->algo->name;
		full.params = rule->params ? rule->params : "";
		full.rule = rule->text;
		memcpy(out, &full, size < sizeof full ? size : sizeof full);
	}
	pthread_rwlock_unlock(&r->rules_lock);
	if (rc != USMP_OK)
		set_error(r, msg);
	usmp__free_msg(&msg);
	return rc;
}

int usmp__registry_resolve(usmp_registry *r, const char *target,
                           const usmp_plan_options *opts,
                           const usmp__algo **algo, usmp__knobs *knobs,
                           char **rule_text, int *source, char **msg)
{
	return usmp__registry_resolve_part(r, target ? &target : NULL,
	                                   target ? 1 : 0, NULL, 0, opts, algo,
	                                   knobs, rule_text, source, msg);
}

int usmp__registry_resolve_part(usmp_registry *r, const char *const *targets,
                                uint32_t target_count, const char *const *pools,
                                uint32_t pool_count,
                                const usmp_plan_options *opts,
                                const usmp__algo **algo, usmp__knobs *knobs,
                                char **rule_text, int *source, char **msg)
{
	const char *override = NULL;
	const char *const *params = NULL;
	uint32_t param_count = 0;
	const usmp__rule *rule = NULL;
	usmp__rule scratch = {0}; /* an override spec not kept */
	char *why = NULL;
	int src = 0, rc;
	part_key key = make_key(targets, target_count, pools, pool_count);

	*algo = NULL;
	memset(knobs, 0, sizeof *knobs);
	if (rule_text)
		*rule_text = NULL;
	if (!r) {
		usmp__set_msg(msg, "no registry");
		return USMP_ERR_INVALID;
	}
	if (opts) {
		if (USMP_HAS_FIELD(opts, usmp_plan_options, algorithm))
			override = opts->algorithm;
		if (USMP_HAS_FIELD(opts, usmp_plan_options, param_count)) {
			params = opts->params;
			param_count = params ? opts->param_count : 0;
		}
	}
	pthread_rwlock_rdlock(&r->rules_lock);
	rc = choose(r, &key, override, &scratch, &rule, &src, msg);
	if (rc != USMP_OK)
		goto out;
	rc = usmp__knobs_init(knobs, &rule->algo->sig);
	if (rc != USMP_OK) {
		usmp__set_msg(msg, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < rule->assign_count; i++) {
		rc = usmp__knobs_set(knobs, rule->algo->name, rule->assign[i], &why);
		if (rc != USMP_OK) { /* validated at bind: cannot happen */
			usmp__set_msg(msg, "rule \"%s\": %s", rule->text, why);
			goto out;
		}
	}
	/* Option knobs go to the options' algorithm, or to whatever the rules
	 * chose when the options name none; an API rule that outranks the
	 * options' algorithm does not get that algorithm's knobs. */
	if (src == USMP_SOURCE_OPTIONS || !override) {
		for (uint32_t i = 0; i < param_count; i++) {
			rc = usmp__knobs_set(knobs, rule->algo->name, params[i], &why);
			if (rc != USMP_OK) {
				usmp__set_msg(msg, "option \"%s\" (algorithm chosen by rule "
				                   "\"%s\"): %s",
				              params[i] ? params[i] : "(null)", rule->text, why);
				goto out;
			}
		}
	}
	if (rule_text) {
		*rule_text = usmp__strdup(rule->text);
		if (!*rule_text) {
			usmp__set_msg(msg, "out of memory");
			rc = USMP_ERR_NOMEM;
			goto out;
		}
	}
	*algo = rule->algo;
	if (source)
		*source = src;
out:
	pthread_rwlock_unlock(&r->rules_lock);
	rule_free(&scratch);
	usmp__free_msg(&why);
	if (rc != USMP_OK) {
		usmp__knobs_finish(knobs);
		memset(knobs, 0, sizeof *knobs);
		*algo = NULL;
	}
	return rc;
}
