/* registry_private.h — inside the registry area only (registry*.c, select.c,
 * missing_algorithm.c, scanner.c, log.c): struct usmp_registry, rules,
 * diagnostics, the scanner. */
#ifndef USMP_REGISTRY_PRIVATE_H
#define USMP_REGISTRY_PRIVATE_H

#include "registry.h"

#include <pthread.h>

/* A loaded plugin. Strings are copies; `handle` is dlclose()d on destroy. */
typedef struct usmp__plugin_rec {
	void *handle;
	char *path, *name, *version, *license;
	uint32_t abi_major, abi_minor, algorithm_count;
} usmp__plugin_rec;

/* A selection rule "pattern=algo:k=v:k=v", parsed and validated. A rule from
 * USMP_ALGORITHM that failed validation is kept with `error` set, so that
 * resolving a target it matches fails with that message. */
typedef struct usmp__rule {
	char *text;            /* the rule as written (trimmed) */
	char *pattern;         /* fnmatch glob */
	const usmp__algo *algo; /* NULL when broken */
	char **assign;         /* "k=v" strings, in order */
	uint32_t assign_count;
	char *params;          /* the assignments joined by spaces, "" for none */
	char *error;           /* non-NULL: why the rule is unusable */
	int status;            /* with error: the usmp_status to report */
	bool pool;             /* "@glob": the pattern matches pool names */
} usmp__rule;

/* A growable list of rules, in priority order. */
typedef struct usmp__rule_list {
	usmp__rule *items;
	size_t count, cap;
} usmp__rule_list;

/* rule_shadow.c. For each rule of l, the index of the earlier rule of
 * its kind (pool or target) that matches whatever it matches (the same
 * pattern, "*", or a glob matching its plain name), so that it never
 * decides a part; SIZE_MAX for none. A malloc'd array (NULL when out of
 * memory); linear in the list's length. */
size_t *usmp__rules_shadowing(const usmp__rule_list *l);
/* The line saying rule j of l never decides because of rule `by`, naming
 * both (*line malloc'd; USMP_ERR_NOMEM when out of memory). */
int usmp__rule_shadow_line(const usmp__rule_list *l, size_t j, size_t by,
                           char **line);

/* Strings and rules that must outlive a thread-safe call (select() results
 * for overrides, error messages of concurrent selects): kept, de-duplicated,
 * until the registry is destroyed. Guarded by usmp_registry.keep_lock. */
typedef struct usmp__kept {
	char **strings;
	size_t string_count, string_cap;
	usmp__rule **overrides; /* rules parsed from override specs */
	size_t override_count, override_cap;
} usmp__kept;

/* How many threads' last errors a registry keeps (oldest slot reused). */
#define USMP__ERROR_THREADS 64
/* The last bind/select error of one thread (usmp_registry_error). */
typedef struct usmp__thread_error {
	pthread_t thread;
	const char *text; /* a kept string */
} usmp__thread_error;

/* An algorithm name a refused plugin declared, and the diagnostic (index)
 * that explains the refusal. */
typedef struct usmp__refused {
	char *name;
	size_t diag;
} usmp__refused;

/* The registry: plugins, algorithms, diagnostics, rules and log settings. */
struct usmp_registry {
	usmp__plugin_rec *plugins;
	size_t plugin_count, plugin_cap;
	usmp__algo *algos; /* built-ins first; never changes after creation */
	size_t algo_count, algo_cap;
	char **diags;
	size_t diag_count, diag_cap;
	int *diag_kinds; /* usmp_diagnostic_kind of each diagnostic */
	size_t diag_kind_cap;
	/* Algorithm names declared by refused plugins (or refused algorithms),
	 * each with the diagnostic that says why: asking for one is a plugin
	 * failure with that reason, not an unknown name. */
	usmp__refused *refused;
	size_t refused_count, refused_cap;

	/* Selection: API rules change (bind/clear, write lock); env rules and
	 * the default are fixed at creation. */
	pthread_rwlock_t rules_lock;
	usmp__rule_list api_rules;
	usmp__rule_list env_rules;
	usmp__rule default_rule;

	pthread_mutex_t keep_lock;
	usmp__kept kept;
	/* The last error message (a kept string) of each thread that had one,
	 * guarded by keep_lock: usmp_registry_error answers for the calling
	 * thread. Beyond USMP__ERROR_THREADS threads the oldest slot is reused. */
	usmp__thread_error errors[USMP__ERROR_THREADS];
	size_t error_count, error_next;

	/* usmp_registry_set_log: the host's log function (NULL: stderr) and
	 * level (USMP_LOG_LEVEL_ENV: as USMP_LOG says). */
	usmp_log_fn log_fn;
	void *log_ctx;
	int log_level;

	/* The diagnostic saying the shipped plugin directory was searched for
	 * and is missing (a libusmp copied or dlopen()ed away from its
	 * usmp-1), or -1: "no algorithm" and auto's "no installed algorithm"
	 * messages repeat it. */
	long missing_plugindir;
	/* The plugin path's entries that gave no plugin file, under the
	 * setting each came from ("entries of SETTING that gave no plugin:
	 * DIR: why; DIR: why", a second setting's the same after "; "), or
	 * NULL: "no algorithm" names them. */
	char *path_misses;
	/* The settings a plugin path was read from, for "no algorithm"'s
	 * where-to-put-a-plugin hint: "usmp_registry_options.plugin_path",
	 * "USMP_PLUGIN_PATH" or both joined by " or " (a static string). */
	const char *path_settings;
};

/* ---- select.c: the selection rules ------------------------------------- */

/* Parse USMP_ALGORITHM into env_rules (bad rules become diagnostics and
 * broken rules) and set up the default rule. Called once by
 * usmp_registry_create after every plugin is loaded. */
int usmp__select_init(usmp_registry *r, const char *env_rules);
/* Free every rule and kept string. */
void usmp__select_finish(usmp_registry *r);

/* ---- missing_algorithm.c: an algorithm name not found -------------------- */

/* Why algorithm `name` is not in the registry, into *msg: a plugin failure
 * (USMP_ERR_PLUGIN) with the refusal's reason when a refused plugin declared
 * it, else USMP_ERR_NOT_FOUND with the algorithms there are, close names,
 * and every plugin or algorithm that was skipped. */
int usmp__explain_missing(usmp_registry *r, const char *name, char **msg);

/* ---- registry_query.c: diagnostics ------------------------------------- */

/* Add a diagnostic line of kind USMP_DIAG_OTHER. */
void usmp__registry_diag(usmp_registry *r, const char *fmt, ...)
	USMP__PRINTF(2, 3);
/* Add a diagnostic line of the usmp_diagnostic_kind given. */
void usmp__registry_note(usmp_registry *r, int kind, const char *fmt, ...)
	USMP__PRINTF(3, 4);
/* The diagnostic explaining why algorithm `name` was refused with its
 * plugin, or NULL when no refused plugin declared it. */
const char *usmp__registry_refusal(const usmp_registry *r, const char *name);

/* Not a usmp_diagnostic_kind: a scanner line carrying an algorithm name the
 * refused plugin declared (it belongs to the line before). */
#define USMP__DIAG_DECLARED 99

/* ---- scanner.c: reading plugins in a forked scanner process ------------ */

/* Seconds one plugin may take to load in the scanner before it is killed. */
#define USMP__SCAN_TIMEOUT 10.0

/* What scanning one plugin found. */
enum usmp__scan_outcome {
	USMP__SCAN_PASS = 1, /* loaded and passed the checks */
	USMP__SCAN_REFUSED,  /* loaded, refused by the checks: lines say why */
	USMP__SCAN_FAILED    /* crashed, exited or hung: lines[0] says so */
};

/* One plugin file to scan, and what the scan found. */
typedef struct usmp__scan_item {
	const char *path;  /* in: the file, as dlopen() gets it */
	int outcome;       /* out: usmp__scan_outcome */
	char **lines;      /* out: diagnostics, each "PATH: reason" */
	int *kinds;        /* out: the kind of each line */
	size_t line_count, line_cap, kind_cap;
} usmp__scan_item;

/* Passes one diagnostic line (usmp_diagnostic_kind, or
 * USMP__DIAG_DECLARED) from the checker back to the parent. */
typedef void (*usmp__scan_emit)(void *sink, int kind, const char *line);
/* Runs in the scanner child: load `path`, check it, emit its diagnostics,
 * return whether it passed. Need not free anything. */
typedef bool (*usmp__scan_check)(const char *path, usmp__scan_emit emit,
                                 void *sink);

/* Check every item in one scanner child, started again after the plugin
 * in progress crashes, exits or hangs (USMP__SCAN_TIMEOUT). Every item gets
 * an outcome; returns USMP_OK or USMP_ERR_NOMEM. */
int usmp__scan(usmp__scan_item *items, size_t n, usmp__scan_check check);
/* Free the items' lines. */
void usmp__scan_finish(usmp__scan_item *items, size_t n);

#endif /* USMP_REGISTRY_PRIVATE_H */
