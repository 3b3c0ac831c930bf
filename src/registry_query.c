/* registry_query.c — what a registry holds once created: its diagnostics (and
 * adding them), refusals, plugins, algorithms and knobs, each thread's last error. */
#include "registry_private.h"

#include <pthread.h>
#include <string.h>

/* ---- diagnostics ---------------------------------------------------------- */

static void diag_v(usmp_registry *r, int kind, const char *fmt, va_list ap)
{
	char *line = NULL;

	if (usmp__grow((void **)&r->diags, &r->diag_cap, r->diag_count + 1,
	               sizeof *r->diags) != USMP_OK ||
	    usmp__grow((void **)&r->diag_kinds, &r->diag_kind_cap,
	               r->diag_count + 1, sizeof *r->diag_kinds) != USMP_OK)
		return; /* out of memory: the diagnostic is lost, nothing else */
	usmp__vset_msg(&line, fmt, ap);
	r->diag_kinds[r->diag_count] = kind;
	r->diags[r->diag_count++] = line;
}

void usmp__registry_diag(usmp_registry *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_v(r, USMP_DIAG_OTHER, fmt, ap);
	va_end(ap);
}

void usmp__registry_note(usmp_registry *r, int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_v(r, kind, fmt, ap);
	va_end(ap);
}

const char *usmp__registry_missing_plugindir(const usmp_registry *r)
{
	if (!r || r->missing_plugindir < 0 ||
	    (size_t)r->missing_plugindir >= r->diag_count)
		return NULL;
	return r->diags[r->missing_plugindir];
}

const char *usmp__registry_path_misses(const usmp_registry *r)
{
	return r ? r->path_misses : NULL;
}

const char *usmp__registry_path_settings(const usmp_registry *r)
{
	return r && r->path_settings ? r->path_settings : "USMP_PLUGIN_PATH";
}

const char *usmp__registry_refusal(const usmp_registry *r, const char *name)
{
	for (size_t i = 0; r && name && i < r->refused_count; i++)
		if (strcmp(r->refused[i].name, name) == 0)
			return r->diags[r->refused[i].diag];
	return NULL;
}

/* ---- plugins and algorithms ----------------------------------------------- */

static const usmp__algo *find_algo(const usmp_registry *r, const char *name)
{
	for (size_t i = 0; i < r->algo_count; i++)
		if (strcmp(r->algos[i].name, name) == 0)
			return &r->algos[i];
	return NULL;
}

const char *usmp_registry_error(const usmp_registry *r)
{
	usmp_registry *w = (usmp_registry *)r; /* the lock is not part of the value */
	pthread_t self = pthread_self();
	const char *e = "";

	if (!r)
		return "no registry";
	pthread_mutex_lock(&w->keep_lock);
	for (size_t i = 0; i < r->error_count; i++)
		if (pthread_equal(r->errors[i].thread, self))
			e = r->errors[i].text;
	pthread_mutex_unlock(&w->keep_lock);
	return e;
}

uint32_t usmp_registry_diagnostic_count(const usmp_registry *r)
{
	return r ? (uint32_t)r->diag_count : 0;
}

int usmp_registry_diagnostic_kind(const usmp_registry *r, uint32_t i)
{
	if (!r || i >= r->diag_count)
		return USMP_DIAG_OTHER;
	return r->diag_kinds[i];
}

const char *usmp_registry_diagnostic(const usmp_registry *r, uint32_t i)
{
	if (!r || i >= r->diag_count)
		return NULL;
	return r->diags[i];
}

uint32_t usmp_registry_plugin_count(const usmp_registry *r)
{
	return r ? (uint32_t)r->plugin_count : 0;
}

/* Copy `full` (whose first field is struct_size) into the caller's struct
 * of *caller_size bytes, keeping the caller's struct_size. */
static int copy_out(void *dst, void *full, size_t full_size)
{
	uint32_t size;

	memcpy(&size, dst, sizeof size);
	if (size < sizeof(uint32_t))
		return USMP_ERR_INVALID;
	memcpy(full, &size, sizeof size);
	memcpy(dst, full, size < full_size ? size : full_size);
	return USMP_OK;
}

int usmp_registry_plugin(const usmp_registry *r, uint32_t i,
                         usmp_plugin_info *info)
{
	usmp_plugin_info full;
	const usmp__plugin_rec *p;

	if (!r || !info)
		return USMP_ERR_INVALID;
	if (i >= r->plugin_count)
		return USMP_ERR_NOT_FOUND;
	p = &r->plugins[i];
	memset(&full, 0, sizeof full);
	full.abi_major = p->abi_major;
	full.abi_minor = p->abi_minor;
	full.algorithm_count = p->algorithm_count;
	full.name = p->name;
	full.version = p->version;
	full.license = p->license;
	full.path = p->path;
	return copy_out(info, &full, sizeof full);
}

char *usmp__registry_contract_note(const usmp_registry *r, const usmp__algo *a)
{
	char *note = NULL;
	if (!r || !a || a->plugin >= r->plugin_count ||
	    !r->plugins[a->plugin].path)
		return NULL;
	const usmp__plugin_rec *p = &r->plugins[a->plugin];
	usmp__set_msg(&note, "its plugin \"%s\" (%s) broke its contract: usmp "
	              "check-plugin %s runs it on small problems and names each "
	              "failure", p->name, p->path, p->path);
	return note;
}

uint32_t usmp_registry_algorithm_count(const usmp_registry *r)
{
	return r ? (uint32_t)r->algo_count : 0;
}

int usmp_registry_algorithm(const usmp_registry *r, uint32_t i,
                            usmp_algorithm_info *info)
{
	usmp_algorithm_info full;
	const usmp__algo *a;

	if (!r || !info)
		return USMP_ERR_INVALID;
	if (i >= r->algo_count)
		return USMP_ERR_NOT_FOUND;
	a = &r->algos[i];
	memset(&full, 0, sizeof full);
	full.caps = a->caps;
	full.plugin = a->plugin;
	full.param_count = a->sig.count;
	full.name = a->name;
	full.summary = a->summary;
	full.params = a->params_text;
	return copy_out(info, &full, sizeof full);
}

int usmp_registry_find_algorithm(const usmp_registry *r, const char *name,
                                 uint32_t *i)
{
	const usmp__algo *a;

	if (!r || !name)
		return USMP_ERR_INVALID;
	a = find_algo(r, name);
	if (!a)
		return USMP_ERR_NOT_FOUND;
	if (i)
		*i = (uint32_t)(a - r->algos);
	return USMP_OK;
}

int usmp_registry_param(const usmp_registry *r, uint32_t algorithm, uint32_t k,
                        usmp_param_info *info)
{
	usmp_param_info full;
	const usmp__param *p;

	if (!r || !info)
		return USMP_ERR_INVALID;
	if (algorithm >= r->algo_count || k >= r->algos[algorithm].sig.count)
		return USMP_ERR_NOT_FOUND;
	p = &r->algos[algorithm].sig.params[k];
	memset(&full, 0, sizeof full);
	full.type = (uint32_t)p->type;
	full.name = p->name;
	full.default_value = p->default_text;
	full.help = p->help ? p->help : "";
	return copy_out(info, &full, sizeof full);
}

const usmp__algo *usmp__registry_algo(const usmp_registry *r, const char *name)
{
	return r && name ? find_algo(r, name) : NULL;
}

uint32_t usmp__registry_algo_count(const usmp_registry *r)
{
	return r ? (uint32_t)r->algo_count : 0;
}

const usmp__algo *usmp__registry_algo_at(const usmp_registry *r, uint32_t i)
{
	return r && i < r->algo_count ? &r->algos[i] : NULL;
}
