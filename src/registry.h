/* registry.h — what the library uses of the registry: its algorithms and how a
 * part's algorithm is chosen, the built-ins, log settings, the plugin directory. */
#ifndef USMP_REGISTRY_H
#define USMP_REGISTRY_H

#include "params.h"

/* The state of one algorithm call behind its usmp_host table (host.h). */
typedef struct usmp__host_ctx usmp__host_ctx;
/* One algorithm call (dispatch.h). */
typedef struct usmp__call usmp__call;

/* A built-in algorithm (implemented inside libusmp, e.g. "auto"). It gets
 * the call itself, typed (c->hc->host is the table plugins get). */
typedef int (*usmp__builtin_fn)(usmp__call *c);

/* One algorithm of the registry, built-in or from a plugin. */
typedef struct usmp__algo {
	char *name, *summary, *params_text;
	uint32_t caps;
	uint32_t plugin; /* index into registry plugins, UINT32_MAX for built-in */
	double cost;     /* a volunteer's declared cost (ABI 1.2), 0 unknown */
	usmp_algorithm_fn fn;
	usmp__builtin_fn builtin;
	bool portfolio;  /* runs other algorithms (auto): see usmp__builtin */
	usmp__signature sig;
	void *cif;       /* ffi_cif *, prepared at load */
	void *arg_types; /* ffi_type ** */
} usmp__algo;

/* ---- registry_query.c: the algorithms -------------------------------------- */

/* Look up an algorithm by name (NULL when unknown). [thread-safe] */
const usmp__algo *usmp__registry_algo(const usmp_registry *r, const char *name);
/* The diagnostic saying the shipped plugin directory is missing, or NULL
 * when it was found (or not searched: USMP_REGISTRY_NO_DEFAULT_DIRS).
 * [thread-safe] */
const char *usmp__registry_missing_plugindir(const usmp_registry *r);
/* The entries of the plugin path (plugin_path, USMP_PLUGIN_PATH) that gave
 * no plugin file, "entries of SETTING that gave no plugin: DIR: why; ..."
 * (a directory not found, or holding no .so file; each setting its own
 * group), or NULL when each gave one. [thread-safe] */
const char *usmp__registry_path_misses(const usmp_registry *r);
/* The settings the registry read a plugin path from, as a message names
 * them: "usmp_registry_options.plugin_path", "USMP_PLUGIN_PATH", or both
 * joined by " or ". [thread-safe] */
const char *usmp__registry_path_settings(const usmp_registry *r);
/* What follows the violation when algorithm a returned an invalid plan:
 * "its plugin "NAME" (FILE) broke its contract: usmp check-plugin FILE runs
 * it on small problems and names each failure" (a usmp__set_msg message,
 * the caller frees it), or NULL for a built-in (or out of memory). The
 * direct path (plan.c) and auto's dropped volunteer (portfolio.c) both say
 * it. [thread-safe] */
char *usmp__registry_contract_note(const usmp_registry *r, const usmp__algo *a);
/* How many algorithms the registry has, built-ins first. [thread-safe] */
uint32_t usmp__registry_algo_count(const usmp_registry *r);
/* Algorithm i (< usmp__registry_algo_count). [thread-safe] */
const usmp__algo *usmp__registry_algo_at(const usmp_registry *r, uint32_t i);

/* ---- select.c: which algorithm plans a part -------------------------------- */

/* Decide what planning a part runs, by source priority: API bindings, then
 * opts->algorithm (with opts->params on top), then USMP_ALGORITHM, then the
 * default "auto"; within a list, the first pool rule matching one of
 * `pools`, else the first target rule matching every one of `targets`
 * (none: the untargeted part). Fills *algo and initialises *knobs with every
 * value set; *rule gets a heap copy of the rule's text and *source its
 * usmp_rule_source. Errors (unknown algorithm/knob, bad value) name the
 * rule. [thread-safe] */
int usmp__registry_resolve_part(usmp_registry *r, const char *const *targets,
                                uint32_t target_count, const char *const *pools,
                                uint32_t pool_count,
                                const usmp_plan_options *opts,
                                const usmp__algo **algo, usmp__knobs *knobs,
                                char **rule, int *source, char **msg);
/* The same for a part planned for `target` alone, with no pool rules. */
int usmp__registry_resolve(usmp_registry *r, const char *target,
                           const usmp_plan_options *opts,
                           const usmp__algo **algo, usmp__knobs *knobs,
                           char **rule, int *source, char **msg);

/* ---- portfolio.c: the built-in algorithms ---------------------------------- */

/* An algorithm built into libusmp; the registry lists them before any
 * plugin's. A portfolio runs other algorithms for its plan: its default
 * budget is USMP__BUDGET_PORTFOLIO (budget.h), it runs isolated when any
 * plugin would (dispatch.c), and its failure is neither a proof nor its own
 * message (plan.c). */
typedef struct usmp__builtin {
	const char *name, *summary, *params, *param_help;
	uint32_t caps;
	bool portfolio;
	usmp__builtin_fn fn;
} usmp__builtin;
/* The built-in algorithms. */
extern const usmp__builtin usmp__builtins[];
/* How many usmp__builtins there are. */
extern const uint32_t usmp__builtin_count;

/* ---- log.c: where algorithms' log messages go ------------------------------ */

/* A log level below every usmp_log_level: nothing is shown. */
#define USMP__LOG_SILENT (USMP_LOG_ERROR - 1)
/* The level USMP_LOG names; USMP__LOG_SILENT when unset, empty or unknown. */
int usmp__log_level_from_env(void);
/* The log function, its context (NULL, NULL: stderr) and level that calls
 * planned with r use now. */
void usmp__log_config(const usmp_registry *r, usmp_log_fn *fn, void **ctx,
                      int *level);

/* ---- rule_names.c: the rules against one problem's names -------------- */

/* Say every rule of the API and USMP_ALGORITHM lists that matches no pool
 * (a pool rule) or no target (a target rule) of problem p, where `target`
 * stands for parts whose pools name none (NULL: the empty target): at
 * USMP_LOG_WARN, with the nearest name, when its pattern is a plain name
 * close to one of p's (a misspelling), else at USMP_LOG_INFO (the rule, or
 * the glob, may be meant for another problem). Through the registry's log
 * settings, with the call's log_ctx when it has one (NULL: the registry's),
 * named "USMP_ALGORITHM" or "usmp_registry_bind" after the rule's list.
 * A rule an earlier one keeps from ever deciding (usmp__rules_shadowing)
 * is said instead, at USMP_LOG_WARN, naming both. */
void usmp__rules_check_names(usmp_registry *r, const usmp_problem *p,
                             const char *target, void *log_ctx);

/* ---- unlived.c: buffers that conflict with nothing ------------------------ */

/* When p has buffers with live ranges and others with neither a live range
 * nor a conflict edge (so they conflict with nothing, and any buffer may be
 * placed over their bytes), say the first of those and how many at
 * USMP_LOG_WARN, named "problem", with the schedule's whole range as the
 * fix; through the registry's log settings and the call's log_ctx. */
void usmp__warn_unlived(usmp_registry *r, const usmp_problem *p,
                        void *log_ctx);

/* ---- paths.c: the plugins shipped with this copy of libusmp ---------------- */

/* The shipped plugin directory: USMP_PLUGIN_SUBDIR ("usmp-1") in the
 * directory of the file that holds libusmp (the shared library, or the
 * executable that links it statically), symlinks resolved. Worked out, and
 * its device and inode read, once per process; NULL when it cannot be. */
const char *usmp__plugindir(void);
/* True when the file `path` lies directly in the shipped plugin directory,
 * judged by device and inode, so a symlinked or moved install still counts. */
bool usmp__in_plugindir(const char *path);

#endif /* USMP_REGISTRY_H */
