/* registry.c — creating a registry: finding, loading and checking algorithm
 * plugins (dlopen, ABI and descriptor checks), the built-ins; destroying it. */
#include "registry_private.h"
#include "host.h"

#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest algorithm name accepted, in bytes. */
#define MAX_ALGO_NAME 128
/* More algorithms than this in one descriptor is taken for garbage. */
#define MAX_PLUGIN_ALGOS 4096

/* Files already found (device and inode), so a file reached twice, through
 * a repeated directory or a symlink, loads once. */
typedef struct seen_files {
	dev_t *dev;
	ino_t *ino;
	size_t count, cap_dev, cap_ino;
} seen_files;

/* One step of the search, in search order: a plugin file to load, or a
 * diagnostic about the search itself (kept in line, so that diagnostics
 * come in search order whichever process read the plugins). */
typedef struct found {
	char *path; /* the file as dlopen() gets it; NULL for a note */
	char *note; /* a diagnostic line */
	int kind;   /* with note: its usmp_diagnostic_kind */
	bool scan;  /* read in the scanner process before loading */
	size_t item; /* with scan: its usmp__scan_item */
} found;

/* What the search has found so far, and its rules. */
typedef struct search {
	seen_files seen;
	found *items;
	size_t count, cap;
	bool scan_all, no_scan, allow_insecure;
	/* The plugin path's entries (plugin_path, USMP_PLUGIN_PATH) that gave
	 * no plugin file, "DIR: why" joined by "; " (a usmp__set_msg message),
	 * or NULL: an unknown algorithm's message names them (the first
	 * MISSES_NAMED; miss_count counts them all). */
	char *misses;
	size_t miss_count;
	/* The setting whose entries are being searched, as messages name it,
	 * and the one the last miss named (misses are grouped under it). */
	const char *source, *miss_source;
	/* The path entries searched so far (a plugin path may repeat one
	 * many times: searched once); the keys are in `entries`. */
	usmp__strmap entry_set;
	char **entries;
	size_t entry_count, entry_cap;
} search;

/* The option a host names its plugin directories in, as messages name it. */
#define PLUGIN_PATH_OPTION "usmp_registry_options.plugin_path"

/* Plugin path entries that gave no plugin named in a message. */
#define MISSES_NAMED 8

/* ---- refusals ----------------------------------------------------------- */

/* Remember that a refused plugin declared algorithm `name`, refused for the
 * reason of the latest diagnostic. */
static int declare(usmp_registry *r, const char *name)
{
	char *copy;

	if (!r->diag_count)
		return USMP_OK;
	for (size_t i = 0; i < r->refused_count; i++)
		if (strcmp(r->refused[i].name, name) == 0)
			return USMP_OK; /* the first refusal explains it */
	if (usmp__grow((void **)&r->refused, &r->refused_cap,
	               r->refused_count + 1, sizeof *r->refused) != USMP_OK)
		return USMP_ERR_NOMEM;
	copy = usmp__strdup(name);
	if (!copy)
		return USMP_ERR_NOMEM;
	r->refused[r->refused_count].name = copy;
	r->refused[r->refused_count++].diag = r->diag_count - 1;
	return USMP_OK;
}

static void refused_free(usmp_registry *r)
{
	for (size_t i = 0; i < r->refused_count; i++)
		free(r->refused[i].name);
	free(r->refused);
	free(r->diag_kinds);
}

/* ---- algorithms --------------------------------------------------------- */

static bool valid_algo_name(const char *s)
{
	size_t n = 0;

	if (!s || !(*s >= 'a' && *s <= 'z'))
		return false;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
		if (n >= MAX_ALGO_NAME)
			return false;
	}
	return true;
}

/* The valid name nearest `s`, for a diagnostic refusing `s`: ASCII
 * letters lower-cased, a run of other bytes outside [a-z0-9_] ('-', '.',
 * a blank, a UTF-8 character) to one '_', what precedes the first letter
 * dropped, at most MAX_ALGO_NAME bytes ("Acme-LF" gives "acme_lf").
 * Writes "" when no letter is left (NULL, "", "__", "123"). */
static void suggest_algo_name(const char *s, char out[MAX_ALGO_NAME + 1])
{
	size_t n = 0;

	out[0] = '\0';
	if (!s)
		return;
	while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		s++;
	for (; *s && n < MAX_ALGO_NAME; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 'A' && c <= 'Z')
			out[n++] = (char)(c - 'A' + 'a');
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		         c == '_')
			out[n++] = (char)c;
		else if (out[n - 1] != '_') /* n > 0: s began with a letter */
			out[n++] = '_';
	}
	out[n] = '\0';
}

/* Where an algorithm already registered came from, for messages. */
static const char *algo_origin(const usmp_registry *r, const usmp__algo *a)
{
	if (a->plugin == UINT32_MAX)
		return "libusmp (built-in)";
	return r->plugins[a->plugin].path;
}

static void algo_free(usmp__algo *a)
{
	usmp__invoke_finish(a);
	usmp__signature_finish(&a->sig);
	free(a->name);
	free(a->summary);
	free(a->params_text);
	memset(a, 0, sizeof *a);
}

/* Fill *a from copies of the given strings and parse its signature. On
 * failure *msg says what is wrong with the signature (or memory). */
static int algo_fill(usmp__algo *a, const char *name, const char *summary,
                     const char *params, const char *help, uint32_t caps,
                     char **msg)
{
	int rc;

	memset(a, 0, sizeof *a);
	a->name = usmp__strdup(name);
	a->summary = usmp__strdup(summary ? summary : "");
	a->params_text = usmp__strdup(params ? params : "");
	a->caps = caps;
	if (!a->name || !a->summary || !a->params_text) {
		usmp__set_msg(msg, "out of memory");
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	rc = usmp__signature_parse(a->params_text, &a->sig, msg);
	if (rc != USMP_OK)
		goto fail;
	if (help)
		usmp__signature_set_help(&a->sig, help);
	return USMP_OK;
fail:
	algo_free(a);
	return rc;
}

static int add_builtins(usmp_registry *r)
{
	char *msg = NULL;
	int rc;

	for (uint32_t i = 0; i < usmp__builtin_count; i++) {
		const usmp__builtin *b = &usmp__builtins[i];
		usmp__algo a;

		if (!valid_algo_name(b->name) || usmp__registry_algo(r, b->name)) {
			usmp__registry_diag(r, "libusmp: built-in algorithm %u has a bad "
			                       "or repeated name; skipped", i);
			continue;
		}
		rc = algo_fill(&a, b->name, b->summary, b->params, b->param_help,
		               b->caps, &msg);
		if (rc == USMP_ERR_NOMEM)
			goto fail;
		if (rc != USMP_OK) {
			usmp__registry_diag(r, "libusmp: built-in \"%s\": bad parameter "
			                       "signature: %s", b->name, msg);
			continue;
		}
		a.plugin = UINT32_MAX;
		a.builtin = b->fn;
		a.portfolio = b->portfolio;
		rc = usmp__grow((void **)&r->algos, &r->algo_cap, r->algo_count + 1,
		                sizeof *r->algos);
		if (rc != USMP_OK) {
			algo_free(&a);
			goto fail;
		}
		r->algos[r->algo_count++] = a;
	}
	usmp__free_msg(&msg);
	return USMP_OK;
fail:
	usmp__free_msg(&msg);
	return USMP_ERR_NOMEM;
}

/* ---- one plugin --------------------------------------------------------- */

/* Look for a descriptor of another ABI major, to explain a missing v1. */
static int other_major(void *handle)
{
	char sym[32];

	for (int m = 0; m <= 64; m++) {
		if (m == USMP_ABI_MAJOR)
			continue;
		snprintf(sym, sizeof sym, "usmp_plugin_v%d", m);
		if (dlsym(handle, sym))
			return m;
	}
	return -1;
}

/* The sizes ABI 1.0 descriptors have (their last 1.0 fields, `fn` and
 * `algorithms`, end there), for messages refusing shorter ones. */
#define ALGORITHM_1_0_SIZE                                                     \
	(offsetof(usmp_algorithm, fn) + sizeof(usmp_algorithm_fn))
#define PLUGIN_1_0_SIZE                                                        \
	(offsetof(usmp_plugin, algorithms) + sizeof(const usmp_algorithm *const *))

/* Check algorithm `i` of the plugin at `path` and append it. Returns
 * USMP_ERR_NOMEM only when out of memory; otherwise USMP_OK whether the
 * algorithm was accepted (*accepted) or refused with a diagnostic.
 *
 * A duplicate algorithm name refuses only that algorithm, not the whole
 * plugin: the first file to provide a name keeps it (built-ins first, then
 * directories in search order, files by name), and the plugin's other
 * algorithms stay usable. The diagnostic names both files. */
static int add_plugin_algo(usmp_registry *r, const char *path,
                           const usmp_algorithm *pa, uint32_t i,
                           uint32_t plugin_index, bool *accepted)
{
	const usmp__algo *prev;
	const char *help = NULL;
	char *msg = NULL;
	usmp__algo a;
	int rc;

	*accepted = false;
	if (!pa) {
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm %" PRIu32 " is NULL; skipped",
		                    path, i);
		return USMP_OK;
	}
	if (!USMP_HAS_FIELD(pa, usmp_algorithm, fn)) {
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm %" PRIu32 ": struct_size %" PRIu32
		                    " is smaller than the %zu bytes ABI 1.0 requires; "
		                    "skipped",
		                    path, i, pa->struct_size, ALGORITHM_1_0_SIZE);
		if (USMP_HAS_FIELD(pa, usmp_algorithm, name) &&
		    valid_algo_name(pa->name))
			return declare(r, pa->name);
		return USMP_OK;
	}
	if (!valid_algo_name(pa->name)) {
		char near[MAX_ALGO_NAME + 1];
		suggest_algo_name(pa->name, near);
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm %" PRIu32 ": name \"%.*s\" is not "
		                    "[a-z][a-z0-9_]* (at most %d bytes)%s%s%s; "
		                    "skipped",
		                    path, i, MAX_ALGO_NAME + 8,
		                    pa->name ? pa->name : "(null)", MAX_ALGO_NAME,
		                    *near ? ": name it \"" : "", near,
		                    *near ? "\"" : "");
		return USMP_OK;
	}
	if (!pa->fn) {
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm \"%s\" has no function; skipped",
		                    path, pa->name);
		return declare(r, pa->name);
	}
	prev = usmp__registry_algo(r, pa->name);
	if (prev) {
		/* The plugin being loaded is not in r->plugins yet. A warning:
		 * the name now means the earlier provider's algorithm. */
		usmp__registry_note(r, USMP_DIAG_SHADOWED,
		                    "%s: algorithm \"%s\" is already provided by %s, "
		                    "found first, which shadows this one; this one "
		                    "is skipped",
		                    path, pa->name,
		                    prev->plugin == plugin_index ? path
		                                                 : algo_origin(r, prev));
		return USMP_OK;
	}
	/* ABI 1.0 descriptors end before param_help: never read past them. */
	if (USMP_HAS_FIELD(pa, usmp_algorithm, param_help))
		help = pa->param_help;
	/* ABI 1.2: the cost a volunteer for auto declares (1.1 and older:
	 * none, 0). A cost auto cannot use refuses the algorithm. */
	double cost = 0;
	if (USMP_HAS_FIELD(pa, usmp_algorithm, cost))
		cost = pa->cost;
	if (!(cost >= 0 && cost <= 1e9)) {
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm \"%s\": cost %g is not a finite "
		                    "number from 0 to 1e9; skipped",
		                    path, pa->name, cost);
		return declare(r, pa->name);
	}
	rc = algo_fill(&a, pa->name, pa->summary, pa->params, help, pa->caps,
	               &msg);
	if (rc == USMP_ERR_NOMEM)
		goto fail;
	if (rc != USMP_OK) {
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm \"%s\": bad parameter signature "
		                    "\"%s\": %s; skipped",
		                    path, pa->name, pa->params ? pa->params : "", msg);
		usmp__free_msg(&msg);
		return declare(r, pa->name);
	}
	a.plugin = plugin_index;
	a.fn = pa->fn;
	a.cost = cost;
	rc = usmp__invoke_prepare(&a, &msg);
	if (rc != USMP_OK) {
		algo_free(&a);
		if (rc == USMP_ERR_NOMEM)
			goto fail;
		usmp__registry_note(r, USMP_DIAG_ALGORITHM_SKIPPED,
		                    "%s: algorithm \"%s\": %s; skipped", path,
		                    pa->name, msg);
		usmp__free_msg(&msg);
		return declare(r, pa->name);
	}
	if (usmp__grow((void **)&r->algos, &r->algo_cap, r->algo_count + 1,
	               sizeof *r->algos) != USMP_OK) {
		algo_free(&a);
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	r->algos[r->algo_count++] = a;
	*accepted = true;
	return USMP_OK;
fail:
	usmp__free_msg(&msg);
	return USMP_ERR_NOMEM;
}

/* Free a plugin's record; dlclose() its handle, the caller holding the
 * loader lock (usmp__loader_lock). */
static void plugin_rec_free(usmp__plugin_rec *p)
{
	free(p->path);
	free(p->name);
	free(p->version);
	free(p->license);
	if (p->handle)
		dlclose(p->handle);
	memset(p, 0, sizeof *p);
}

/* What a plugin file the dynamic loader refused most likely is, from its
 * message: a call into libusmp, a source or object file. "" else. */
static const char *load_hint(const char *err)
{
	if (!err)
		return "";
	if (strstr(err, "undefined symbol: usmp_"))
		return " (a plugin calls only what its usmp_host table gives it and "
		       "links no libusmp: the functions of usmp.h are the host's, "
		       "not the plugin's; docs/plugins.md, \"What you need\")";
	if (strstr(err, "invalid ELF header") || strstr(err, "file too short"))
		return " (not a shared object: build the plugin with cc -shared "
		       "-fPIC ...; docs/plugins.md, \"What you need\")";
	return "";
}

/* dlopen() refused `path`: its diagnostic, the loader's words and what
 * they most likely mean. */
static int cannot_load(usmp_registry *r, const char *path)
{
	const char *err = dlerror();
	usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED, "%s: cannot load: %s%s",
	                    path, err ? err : "unknown dlopen error",
	                    load_hint(err));
	return USMP_OK;
}

static int load_plugin_locked(usmp_registry *r, const char *path);

/* Load the plugin at `path`. Every problem becomes a "path: reason"
 * diagnostic; only running out of memory is returned. */
static int load_plugin(usmp_registry *r, const char *path)
{
	usmp__loader_lock();
	int rc = load_plugin_locked(r, path);
	usmp__loader_unlock();
	return rc;
}

/* load_plugin, with the loader lock held. */
static int load_plugin_locked(usmp_registry *r, const char *path)
{
	usmp__plugin_rec rec;
	const usmp_plugin *d;
	uint32_t index = (uint32_t)r->plugin_count, accepted_count = 0;
	size_t first_algo = r->algo_count;
	int rc, major;

	memset(&rec, 0, sizeof rec);
	dlerror();
	rec.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!rec.handle)
		return cannot_load(r, path);
	d = dlsym(rec.handle, "usmp_plugin_v1");
	if (!d) {
		major = other_major(rec.handle);
		if (major >= 0)
			usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
			                    "%s: built for plugin ABI major %d (exports "
			                    "usmp_plugin_v%d); this host implements %d.%d",
			                    path, major, major, USMP_ABI_MAJOR,
			                    USMP_ABI_MINOR);
		else
			usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
			                    "%s: not a usmp plugin (no usmp_plugin_v1 "
			                    "symbol); a plugin exports its descriptor "
			                    "as USMP_PLUGIN_EXPORT const usmp_plugin "
			                    "usmp_plugin_v1",
			                    path);
		goto refuse;
	}
	if (!USMP_HAS_FIELD(d, usmp_plugin, algorithms)) {
		usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
		                    "%s: descriptor struct_size %" PRIu32 " is smaller "
		                    "than the %zu bytes ABI 1.0 requires",
		                    path, d->struct_size, PLUGIN_1_0_SIZE);
		goto refuse;
	}
	if (d->abi_major != USMP_ABI_MAJOR) {
		usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
		                    "%s: descriptor says ABI %u.%u; this host "
		                    "implements %d.%d: rebuild it against the "
		                    "headers of the usmp that loads it (pkg-config "
		                    "--cflags usmp)",
		                    path, d->abi_major, d->abi_minor, USMP_ABI_MAJOR,
		                    USMP_ABI_MINOR);
		goto refuse_declared;
	}
	if (d->abi_minor > USMP_ABI_MINOR) {
		usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
		                    "%s: built against ABI %u.%u, newer than this "
		                    "host's %d.%d: rebuild it against the headers "
		                    "of the usmp that loads it (pkg-config "
		                    "--cflags usmp), or load it with a usmp of ABI "
		                    "%u.%u or later",
		                    path, d->abi_major, d->abi_minor, USMP_ABI_MAJOR,
		                    USMP_ABI_MINOR, d->abi_major, d->abi_minor);
		goto refuse_declared;
	}
	if (d->algorithm_count > MAX_PLUGIN_ALGOS ||
	    (d->algorithm_count > 0 && !d->algorithms)) {
		usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
		                    "%s: descriptor lists %" PRIu32 " algorithms %s",
		                    path, d->algorithm_count,
		                    d->algorithms ? "(too many)" : "but no table");
		goto refuse;
	}
	for (uint32_t i = 0; i < d->algorithm_count; i++) {
		bool ok;
		rc = add_plugin_algo(r, path, d->algorithms[i], i, index, &ok);
		if (rc != USMP_OK)
			goto fail;
		accepted_count += ok;
	}
	if (d->algorithm_count > 0 && accepted_count == 0) {
		usmp__registry_note(r, USMP_DIAG_PLUGIN_SKIPPED,
		                    "%s: none of its %" PRIu32 " algorithms is "
		                    "usable; plugin unloaded",
		                    path, d->algorithm_count);
		goto refuse;
	}
	rec.path = usmp__strdup(path);
	rec.name = usmp__strdup(d->name ? d->name : "");
	rec.version = usmp__strdup(d->version ? d->version : "");
	rec.license = usmp__strdup(d->license ? d->license : "");
	rec.abi_major = d->abi_major;
	rec.abi_minor = d->abi_minor;
	rec.algorithm_count = accepted_count;
	if (!rec.path || !rec.name || !rec.version || !rec.license)
		goto fail;
	if (usmp__grow((void **)&r->plugins, &r->plugin_cap, r->plugin_count + 1,
	               sizeof *r->plugins) != USMP_OK)
		goto fail;
	r->plugins[r->plugin_count++] = rec;
	return USMP_OK;
refuse_declared:
	/* The v1 descriptor is readable up to its algorithm table: remember the
	 * names it declares, so that asking for one says why it is missing. */
	for (uint32_t i = 0; d->algorithms && d->algorithm_count <= MAX_PLUGIN_ALGOS &&
	                     i < d->algorithm_count; i++) {
		const usmp_algorithm *pa = d->algorithms[i];
		if (pa && USMP_HAS_FIELD(pa, usmp_algorithm, name) &&
		    valid_algo_name(pa->name) && declare(r, pa->name) != USMP_OK)
			goto fail;
	}
refuse:
	while (r->algo_count > first_algo)
		algo_free(&r->algos[--r->algo_count]);
	plugin_rec_free(&rec);
	return USMP_OK;
fail:
	while (r->algo_count > first_algo)
		algo_free(&r->algos[--r->algo_count]);
	plugin_rec_free(&rec);
	return USMP_ERR_NOMEM;
}

/* Free what a scanner-side registry holds, without dlclose(): no plugin
 * destructor runs in the scanner. */
static void scratch_free(usmp_registry *r)
{
	for (size_t i = 0; i < r->algo_count; i++)
		algo_free(&r->algos[i]);
	free(r->algos);
	for (size_t i = 0; i < r->plugin_count; i++) {
		r->plugins[i].handle = NULL;
		plugin_rec_free(&r->plugins[i]);
	}
	free(r->plugins);
	for (size_t i = 0; i < r->diag_count; i++)
		usmp__free_msg(&r->diags[i]);
	free(r->diags);
	refused_free(r);
}

/* The scanner's checker (runs in the scanner child): every check of
 * load_plugin, against no other plugin. Duplicates of other plugins' names
 * are the in-process load's business. */
static bool scan_check(const char *path, usmp__scan_emit emit, void *sink)
{
	usmp_registry scratch;
	bool ok;

	memset(&scratch, 0, sizeof scratch);
	ok = load_plugin(&scratch, path) == USMP_OK && scratch.plugin_count == 1;
	for (size_t i = 0, k = 0; i < scratch.diag_count; i++) {
		emit(sink, scratch.diag_kinds[i], scratch.diags[i]);
		for (; k < scratch.refused_count && scratch.refused[k].diag == i; k++)
			emit(sink, USMP__DIAG_DECLARED, scratch.refused[k].name);
	}
	scratch_free(&scratch);
	return ok;
}

/* ---- search ------------------------------------------------------------- */

static int seen_add(seen_files *s, const struct stat *st, bool *fresh)
{
	*fresh = false;
	for (size_t i = 0; i < s->count; i++)
		if (s->dev[i] == st->st_dev && s->ino[i] == st->st_ino)
			return USMP_OK;
	if (usmp__grow((void **)&s->dev, &s->cap_dev, s->count + 1,
	               sizeof *s->dev) != USMP_OK ||
	    usmp__grow((void **)&s->ino, &s->cap_ino, s->count + 1,
	               sizeof *s->ino) != USMP_OK)
		return USMP_ERR_NOMEM;
	s->dev[s->count] = st->st_dev;
	s->ino[s->count] = st->st_ino;
	s->count++;
	*fresh = true;
	return USMP_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_so_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

static found *search_add(search *s)
{
	if (usmp__grow((void **)&s->items, &s->cap, s->count + 1,
	               sizeof *s->items) != USMP_OK)
		return NULL;
	memset(&s->items[s->count], 0, sizeof *s->items);
	return &s->items[s->count++];
}

/* A diagnostic in search order. */
static int search_note(search *s, int kind, const char *fmt, ...)
	USMP__PRINTF(3, 4);
static int search_note(search *s, int kind, const char *fmt, ...)
{
	found *f = search_add(s);
	va_list ap;

	if (!f)
		return USMP_ERR_NOMEM;
	f->kind = kind;
	va_start(ap, fmt);
	usmp__vset_msg(&f->note, fmt, ap);
	va_end(ap);
	return f->note ? USMP_OK : USMP_ERR_NOMEM;
}

/* Add "DIR: why" to the plugin path's entries that gave no plugin file. */
static void search_miss(search *s, const char *dir, const char *why)
{
	if (s->miss_count++ >= MISSES_NAMED)
		return; /* counted: a path of thousands is not copied each time */
	char *prev = s->misses;
	bool head = s->source != s->miss_source;
	s->misses = NULL;
	s->miss_source = s->source;
	usmp__set_msg(&s->misses, "%s%s%s%s%s%s: %s", prev ? prev : "",
	              prev ? "; " : "", head ? "entries of " : "",
	              head ? s->source : "",
	              head ? " that gave no plugin: " : "", dir, why);
	usmp__free_msg(&prev);
}

static void search_finish(search *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->items[i].path);
		usmp__free_msg(&s->items[i].note);
	}
	free(s->items);
	free(s->seen.dev);
	free(s->seen.ino);
	usmp__free_msg(&s->misses);
	usmp__strmap_finish(&s->entry_set);
	for (size_t i = 0; i < s->entry_count; i++)
		free(s->entries[i]);
	free(s->entries);
}

/* Why a plugin file, or a directory holding one, is unsafe to load from
 * (the dynamic loader's notion): writable by the world (a sticky directory
 * lets nobody replace another's file, so it is fine), or owned by someone
 * other than the user running the process and root. Group write is fine:
 * under umask 002 with a private group per user, every file has it.
 * `dir` names the directory, NULL for the file itself. *why stays NULL
 * when it is safe. */
static int unsafe(const char *dir, const struct stat *st, char **why)
{
	uid_t me = geteuid();
	unsigned mode = (unsigned)(st->st_mode & 07777);

	if ((st->st_mode & S_IWOTH) && !(dir && (st->st_mode & S_ISVTX))) {
		if (dir)
			usmp__set_msg(why, "its directory %s is world-writable "
			                   "without the sticky bit (mode %04o)",
			              dir, mode);
		else
			usmp__set_msg(why, "world-writable (mode %04o)", mode);
	} else if (st->st_uid != me && st->st_uid != 0) {
		if (dir)
			usmp__set_msg(why, "its directory %s is owned by uid %u, "
			                   "neither this user (uid %u) nor root",
			              dir, (unsigned)st->st_uid, (unsigned)me);
		else
			usmp__set_msg(why, "owned by uid %u, neither this user "
			                   "(uid %u) nor root",
			              (unsigned)st->st_uid, (unsigned)me);
	} else {
		return USMP_OK;
	}
	return *why ? USMP_OK : USMP_ERR_NOMEM;
}

/* Why the plugin file `path` may not be loaded: it, or the directory that
 * holds it (as named, and after symlinks), is unsafe. *why is NULL when it
 * may. */
static int insecure(const char *path, const struct stat *st, char **why)
{
	char *named = NULL, *real = NULL, *slash;
	struct stat ds;
	int rc;

	*why = NULL;
	rc = unsafe(NULL, st, why);
	if (rc != USMP_OK || *why)
		return rc;
	rc = USMP_ERR_NOMEM;
	named = usmp__strdup(path);
	if (!named)
		goto fail;
	slash = strrchr(named, '/');
	if (slash)
		*(slash == named ? slash + 1 : slash) = '\0';
	else
		strcpy(named, ".");
	real = realpath(path, NULL); /* NULL: nothing more to check */
	slash = real ? strrchr(real, '/') : NULL;
	if (slash)
		*(slash == real ? slash + 1 : slash) = '\0';
	const char *dirs[2] = {named, real};
	for (int i = 0; i < 2 && !*why; i++) {
		if (!dirs[i] || stat(dirs[i], &ds) != 0)
			continue;
		if (unsafe(dirs[i], &ds, why) != USMP_OK)
			goto fail;
	}
	rc = USMP_OK;
fail:
	free(named);
	free(real);
	return rc;
}

/* A plugin file found by the search: once per file, unless unsafe. */
static int search_file(search *s, const char *path, const struct stat *st)
{
	char *why = NULL;
	bool fresh;
	found *f;
	int rc = seen_add(&s->seen, st, &fresh);

	if (rc != USMP_OK || !fresh)
		return rc;
	if (!s->allow_insecure) {
		rc = insecure(path, st, &why);
		if (rc != USMP_OK)
			return rc;
		if (why) {
			rc = search_note(s, USMP_DIAG_PLUGIN_SKIPPED,
			                 "%s: skipped: %s; set "
			                 "USMP_ALLOW_INSECURE_PLUGINS=1 to load it "
			                 "anyway",
			                 path, why);
			usmp__free_msg(&why);
			return rc;
		}
	}
	f = search_add(s);
	if (!f)
		return USMP_ERR_NOMEM;
	f->path = usmp__strdup(path);
	f->scan = !s->no_scan && (s->scan_all || !usmp__in_plugindir(path));
	return f->path ? USMP_OK : USMP_ERR_NOMEM;
}

/* A directory's .so entry that is no regular file (stat()'s errno `err`,
 * or 0 and its stat): said, never loaded, never an error of the search. */
static int skip_entry(search *s, const char *path, int err,
                      const struct stat *st)
{
	char why[PATH_MAX + 96];
	struct stat lst;

	if (err == 0) {
		snprintf(why, sizeof why, "%s, not a plugin file",
		         S_ISDIR(st->st_mode)    ? "a directory"
		         : S_ISFIFO(st->st_mode) ? "a FIFO"
		         : S_ISCHR(st->st_mode)  ? "a character device"
		         : S_ISBLK(st->st_mode)  ? "a block device"
		         : S_ISSOCK(st->st_mode) ? "a socket"
		                                 : "a special file");
	} else if (err == ENOENT && lstat(path, &lst) == 0 &&
	           S_ISLNK(lst.st_mode)) {
		char to[PATH_MAX];
		ssize_t n = readlink(path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = '\0';
		snprintf(why, sizeof why, "a symbolic link to %s, which does not "
		         "exist (a dangling link)", n > 0 ? to : "a missing file");
	} else if (err == ELOOP) {
		snprintf(why, sizeof why, "a loop of symbolic links");
	} else {
		snprintf(why, sizeof why, "cannot read it: %s", strerror(err));
	}
	return search_note(s, USMP_DIAG_PLUGIN_SKIPPED, "%s: skipped: %s", path,
	                   why);
}

/* What a plugin path entry that does not exist was likely meant as: the
 * shell's words the registry never expands, or another separator. "" when
 * nothing stands out; else the words, without parentheses. */
static const char *entry_hint(const char *dir)
{
	if (dir[0] == '~')
		return "\"~\" is not expanded here, only by a shell where it "
		       "begins an unquoted word: write the full path, e.g. "
		       "$HOME/... unquoted or in double quotes";
	if (strchr(dir, ';'))
		return "entries of a plugin path are separated by ':', not ';'";
	if (strchr(dir, '$'))
		return "\"$\" is not expanded here: let the shell expand the "
		       "variable, unquoted or in double quotes, or write the "
		       "full path";
	return "";
}

/* Record that the plugin path entry `dir`, named by s->source, cannot be
 * stat'ed (`err`). Only a missing entry is "not found": a loop of symbolic
 * links or a directory on the way that may not be searched is said. The
 * miss is listed under its setting already; the diagnostic, alone on its
 * line, says the setting itself. */
static int entry_unread(search *s, const char *dir, int err)
{
	char why[256];

	if (err != ENOENT && err != ENOTDIR) {
		snprintf(why, sizeof why, "cannot read plugin path entry: %s",
		         strerror(err));
		search_miss(s, dir, why);
		return search_note(s, USMP_DIAG_OTHER, "%s: %s (an entry of %s)",
		                   dir, why, s->source);
	}
	const char *hint = entry_hint(dir);
	snprintf(why, sizeof why, "plugin directory not found%s%s%s",
	         *hint ? " (" : "", hint, *hint ? ")" : "");
	search_miss(s, dir, why);
	return search_note(s, USMP_DIAG_OTHER,
	                   "%s: plugin directory not found (an entry of %s%s%s)",
	                   dir, s->source, *hint ? "; " : "", hint);
}

/* Every *.so in `dir`, sorted by name. A missing directory is reported
 * only when `explicit` (named by the caller or USMP_PLUGIN_PATH). A path
 * entry naming a file directly means that file, never a search of the
 * dynamic loader's path: "name.so" becomes "./name.so". */
static int search_dir(search *s, const char *dir, bool explicit)
{
	char **names = NULL, *path = NULL;
	size_t count = 0, cap = 0, files = 0;
	struct dirent *e;
	struct stat st;
	DIR *dh = NULL;
	int rc = USMP_OK;

	if (stat(dir, &st) != 0)
		return explicit ? entry_unread(s, dir, errno) : USMP_OK;
	if (S_ISREG(st.st_mode)) {
		if (strchr(dir, '/'))
			return search_file(s, dir, &st);
		size_t n = strlen(dir) + 3;
		path = malloc(n);
		if (!path)
			return USMP_ERR_NOMEM;
		snprintf(path, n, "./%s", dir);
		rc = search_file(s, path, &st);
		free(path);
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!explicit)
			return USMP_OK;
		search_miss(s, dir, "neither a plugin file nor a directory");
		return search_note(s, USMP_DIAG_OTHER,
		                   "%s: neither a plugin file nor a directory "
		                   "(%s, an entry of %s); skipped",
		                   dir, S_ISFIFO(st.st_mode)   ? "a FIFO"
		                        : S_ISCHR(st.st_mode)  ? "a character device"
		                        : S_ISBLK(st.st_mode)  ? "a block device"
		                        : S_ISSOCK(st.st_mode) ? "a socket"
		                                               : "a special file",
		                   s->source);
	}
	dh = opendir(dir);
	if (!dh) {
		const char *why = strerror(errno);
		if (!explicit)
			return USMP_OK;
		rc = search_note(s, USMP_DIAG_OTHER,
		                 "%s: cannot read plugin directory: %s (an entry of %s)",
		                 dir, why, s->source);
		search_miss(s, dir, "cannot read plugin directory");
		return rc;
	}
	while ((e = readdir(dh)) != NULL) {
		if (e->d_name[0] == '.' || !has_so_suffix(e->d_name))
			continue;
		rc = usmp__grow((void **)&names, &cap, count + 1, sizeof *names);
		if (rc != USMP_OK)
			goto out;
		names[count] = usmp__strdup(e->d_name);
		if (!names[count]) {
			rc = USMP_ERR_NOMEM;
			goto out;
		}
		count++;
	}
	if (count == 0 && explicit)
		search_miss(s, dir, "no .so file in the directory");
	if (count > 1)
		qsort(names, count, sizeof *names, cmp_str);
	for (size_t i = 0; i < count; i++) {
		size_t n = strlen(dir) + strlen(names[i]) + 2;
		path = malloc(n);
		if (!path) {
			rc = USMP_ERR_NOMEM;
			goto out;
		}
		snprintf(path, n, "%s%s%s", dir,
		         dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		/* stat() follows symlinks; what is not a regular file is
		 * skipped and said (a dangling link is a plugin gone). */
		int err = stat(path, &st) == 0 ? 0 : errno;
		if (err == 0 && S_ISREG(st.st_mode)) {
			rc = search_file(s, path, &st);
			files++;
		} else {
			rc = skip_entry(s, path, err, &st);
		}
		if (rc != USMP_OK)
			goto out;
		free(path);
		path = NULL;
	}
	if (count && !files && explicit)
		search_miss(s, dir, "no .so file in the directory is a plugin file "
		            "(usmp list -v says why)");
out:
	free(path);
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	if (dh)
		closedir(dh);
	return rc;
}

/* Each non-empty entry of a colon-separated list. */
static int search_path_list(search *s, const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ":");
		if (n > 0) {
			char *dir = strndup(p, n);
			uint32_t at;
			if (!dir)
				return USMP_ERR_NOMEM;
			if (usmp__strmap_get(&s->entry_set, dir, &at) == USMP_OK) {
				free(dir); /* searched already: same outcome */
			} else {
				if (usmp__grow((void **)&s->entries, &s->entry_cap,
				               s->entry_count + 1,
				               sizeof *s->entries) != USMP_OK ||
				    usmp__strmap_put(&s->entry_set, dir,
				                     (uint32_t)s->entry_count) != USMP_OK) {
					free(dir);
					return USMP_ERR_NOMEM;
				}
				s->entries[s->entry_count++] = dir;
				int rc = search_dir(s, dir, true);
				if (rc != USMP_OK)
					return rc;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return USMP_OK;
}

/* Load what the search found, in its order: the files to scan are read in
 * the scanner first (all in one child), and only those that passed are
 * loaded here; the others are diagnostics. */
static int load_found(usmp_registry *r, search *s)
{
	usmp__scan_item *items = NULL;
	size_t k = 0;
	int rc = USMP_OK;

	for (size_t i = 0; i < s->count; i++)
		k += s->items[i].path && s->items[i].scan;
	if (k) {
		items = calloc(k, sizeof *items);
		if (!items)
			return USMP_ERR_NOMEM;
		k = 0;
		for (size_t i = 0; i < s->count; i++) {
			found *f = &s->items[i];
			if (!f->path || !f->scan)
				continue;
			f->item = k;
			items[k++].path = f->path;
		}
		rc = usmp__scan(items, k, scan_check);
		if (rc != USMP_OK)
			goto out;
	}
	for (size_t i = 0; i < s->count; i++) {
		found *f = &s->items[i];
		if (!f->path) {
			usmp__registry_note(r, f->kind, "%s", f->note);
			continue;
		}
		if (f->scan && items[f->item].outcome != USMP__SCAN_PASS) {
			const usmp__scan_item *it = &items[f->item];
			for (size_t j = 0; j < it->line_count; j++) {
				if (it->kinds[j] != USMP__DIAG_DECLARED) {
					usmp__registry_note(r, it->kinds[j], "%s",
					                    it->lines[j]);
					continue;
				}
				if (!valid_algo_name(it->lines[j]))
					continue;
				rc = declare(r, it->lines[j]);
				if (rc != USMP_OK)
					goto out;
			}
			continue;
		}
		rc = load_plugin(r, f->path);
		if (rc != USMP_OK)
			goto out;
	}
out:
	usmp__scan_finish(items, k);
	free(items);
	return rc;
}

/* ---- create / destroy --------------------------------------------------- */

/* Say so when the shipped plugin directory, searched for, is missing: a
 * libusmp copied, or dlopen()ed, without the usmp-1 beside it loads only
 * the built-in auto, which has no members then. */
static void note_missing_plugindir(usmp_registry *r)
{
	const char *dir = usmp__plugindir();
	struct stat st;

	if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	r->missing_plugindir = (long)r->diag_count;
	if (!dir)
		usmp__registry_diag(r, "libusmp: cannot tell which file it was "
		                    "loaded from, so where its shipped plugins "
		                    "are: name their directory in plugin_path or "
		                    "USMP_PLUGIN_PATH");
	else
		usmp__registry_diag(r, "%s: the shipped plugin directory (%s "
		                    "beside libusmp) does not exist, so none of "
		                    "usmp's own algorithms is loaded: keep "
		                    "libusmp and its %s directory together (as "
		                    "meson install puts them), or name the plugin "
		                    "directory in plugin_path or USMP_PLUGIN_PATH",
		                    dir, USMP_PLUGIN_SUBDIR, USMP_PLUGIN_SUBDIR);
	if ((size_t)r->missing_plugindir >= r->diag_count)
		r->missing_plugindir = -1; /* out of memory: not recorded */
}

/* Flags this library does not know (a usmp_plan_flag passed here, both
 * enums starting at bit 0, or a later minor's), and the two scanner flags
 * together, are said as diagnostics: a refusal would have no handle to
 * carry its message. */
#define KNOWN_REGISTRY_FLAGS                                                   \
	((uint32_t)(USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS |       \
	            USMP_REGISTRY_SCAN_ALL | USMP_REGISTRY_NO_SCAN))

static void note_flags(usmp_registry *r, uint32_t flags)
{
	uint32_t both = USMP_REGISTRY_SCAN_ALL | USMP_REGISTRY_NO_SCAN;
	if (flags & ~KNOWN_REGISTRY_FLAGS)
		usmp__registry_diag(
			r, "usmp_registry_options.flags is 0x%x: bits 0x%x are no "
			   "usmp_registry_flag of this library and are ignored (known: "
			   "USMP_REGISTRY_NO_ENV 0x1, _NO_DEFAULT_DIRS 0x2, _SCAN_ALL "
			   "0x4, _NO_SCAN 0x8; a usmp_plan_flag belongs in "
			   "usmp_plan_options.flags)",
			(unsigned)flags, (unsigned)(flags & ~KNOWN_REGISTRY_FLAGS));
	if ((flags & both) == both)
		usmp__registry_diag(
			r, "usmp_registry_options.flags sets both USMP_REGISTRY_SCAN_ALL "
			   "and USMP_REGISTRY_NO_SCAN: NO_SCAN wins, no plugin is read "
			   "in the scanner");
}

int usmp_registry_create(const usmp_registry_options *opts,
                         usmp_registry **out)
{
	search s;
	usmp_registry *r = NULL;
	const char *plugin_path = NULL, *env;
	uint32_t flags = 0;
	int rc = USMP_ERR_NOMEM;
	bool rules_lock = false, keep_lock = false;

	if (!out)
		return USMP_ERR_INVALID;
	*out = NULL;
	memset(&s, 0, sizeof s);
	/* Options whose struct_size was never set would be ignored whole: a
	 * forgotten plugin_path must not go unnoticed. */
	if (opts && opts->struct_size < sizeof opts->struct_size)
		return USMP_ERR_INVALID;
	if (opts) {
		if (USMP_HAS_FIELD(opts, usmp_registry_options, flags))
			flags = opts->flags;
		if (USMP_HAS_FIELD(opts, usmp_registry_options, plugin_path))
			plugin_path = opts->plugin_path;
	}
	r = calloc(1, sizeof *r);
	if (!r)
		return USMP_ERR_NOMEM;
	r->log_level = USMP_LOG_LEVEL_ENV;
	r->missing_plugindir = -1;
	if (pthread_rwlock_init(&r->rules_lock, NULL) != 0)
		goto fail;
	rules_lock = true;
	if (pthread_mutex_init(&r->keep_lock, NULL) != 0)
		goto fail;
	keep_lock = true;

	if (add_builtins(r) != USMP_OK)
		goto fail;
	note_flags(r, flags);
	s.scan_all = flags & USMP_REGISTRY_SCAN_ALL;
	s.no_scan = flags & USMP_REGISTRY_NO_SCAN;
	env = (flags & USMP_REGISTRY_NO_ENV)
	              ? NULL
	              : getenv("USMP_ALLOW_INSECURE_PLUGINS");
	s.allow_insecure = env && strcmp(env, "1") == 0;
	s.source = PLUGIN_PATH_OPTION;
	if (search_path_list(&s, plugin_path) != USMP_OK)
		goto fail;
	r->path_settings = plugin_path && *plugin_path
	                           ? PLUGIN_PATH_OPTION " or USMP_PLUGIN_PATH"
	                           : "USMP_PLUGIN_PATH";
	if (flags & USMP_REGISTRY_NO_ENV)
		r->path_settings = PLUGIN_PATH_OPTION;
	if (!(flags & USMP_REGISTRY_NO_ENV)) {
		s.source = "USMP_PLUGIN_PATH";
		env = getenv("USMP_PLUGIN_PATH");
		if (search_path_list(&s, env) != USMP_OK)
			goto fail;
	}
	if (!(flags & USMP_REGISTRY_NO_DEFAULT_DIRS)) {
		const char *dir = usmp__plugindir();
		if (dir && search_dir(&s, dir, false) != USMP_OK)
			goto fail;
	}
	if (load_found(r, &s) != USMP_OK)
		goto fail;
	if (s.miss_count > MISSES_NAMED) {
		char *named = s.misses;
		s.misses = NULL;
		usmp__set_msg(&s.misses, "%s; and %zu more", named,
		              s.miss_count - MISSES_NAMED);
		usmp__free_msg(&named);
	}
	r->path_misses = s.misses; /* before the rules: their errors name them */
	s.misses = NULL;
	if (!(flags & USMP_REGISTRY_NO_DEFAULT_DIRS))
		note_missing_plugindir(r);
	env = (flags & USMP_REGISTRY_NO_ENV) ? NULL : getenv("USMP_ALGORITHM");
	rc = usmp__select_init(r, env);
	if (rc != USMP_OK)
		goto fail;
	search_finish(&s);
	*out = r;
	return USMP_OK;
fail:
	search_finish(&s);
	if (rules_lock && keep_lock) {
		usmp_registry_destroy(r);
		return USMP_ERR_NOMEM;
	}
	if (rules_lock)
		pthread_rwlock_destroy(&r->rules_lock);
	free(r);
	return USMP_ERR_NOMEM;
}

void usmp_registry_destroy(usmp_registry *r)
{
	if (!r)
		return;
	usmp__select_finish(r);
	for (size_t i = 0; i < r->algo_count; i++)
		algo_free(&r->algos[i]);
	free(r->algos);
	usmp__loader_lock();
	for (size_t i = 0; i < r->plugin_count; i++)
		plugin_rec_free(&r->plugins[i]);
	usmp__loader_unlock();
	free(r->plugins);
	for (size_t i = 0; i < r->diag_count; i++)
		usmp__free_msg(&r->diags[i]);
	free(r->diags);
	usmp__free_msg(&r->path_misses);
	refused_free(r);
	pthread_rwlock_destroy(&r->rules_lock);
	pthread_mutex_destroy(&r->keep_lock);
	free(r);
}
