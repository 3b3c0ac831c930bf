/* paths.c — the shipped plugin directory, found at run time next to libusmp
 * itself (no absolute path is compiled in), and whether a plugin lies in it. */
#include "registry.h"

#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_once_t plugindir_once = PTHREAD_ONCE_INIT;
static char plugindir[PATH_MAX];
static struct stat plugindir_st; /* valid when plugindir_exists */
static bool plugindir_exists;

/* The file holding this code, symlinks resolved. Statically linked, that is
 * the executable, whose dli_fname is its argv[0] (not always a path), so it
 * is read from /proc/self/exe instead. */
static char *self_object(void)
{
	union {
		const char *(*fn)(void);
		void *p;
	} self = {.fn = usmp__plugindir};
	struct link_map *lm = NULL;
	Dl_info info;

	if (!dladdr1(self.p, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	if (!lm->l_name || !lm->l_name[0]) /* the main program's link map */
		return realpath("/proc/self/exe", NULL);
	return info.dli_fname ? realpath(info.dli_fname, NULL) : NULL;
}

static void resolve_plugindir(void)
{
	char *obj = self_object();
	char *slash = obj ? strrchr(obj, '/') : NULL;
	int n;

	plugindir[0] = '\0';
	if (!slash)
		goto out;
	*slash = '\0';
	n = snprintf(plugindir, sizeof plugindir, "%s/%s", obj,
	             USMP_PLUGIN_SUBDIR);
	if (n < 0 || (size_t)n >= sizeof plugindir)
		plugindir[0] = '\0';
	else
		plugindir_exists = stat(plugindir, &plugindir_st) == 0;
out:
	free(obj);
}

const char *usmp__plugindir(void)
{
	if (pthread_once(&plugindir_once, resolve_plugindir) != 0)
		return NULL;
	return plugindir[0] ? plugindir : NULL;
}

bool usmp__in_plugindir(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *parent = NULL;
	struct stat st;
	bool yes = false;

	if (!usmp__plugindir() || !plugindir_exists || !path)
		goto out;
	if (!slash)
		parent = strdup(".");
	else
		parent = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!parent)
		goto out;
	yes = stat(parent, &st) == 0 && st.st_dev == plugindir_st.st_dev &&
	      st.st_ino == plugindir_st.st_ino;
out:
	free(parent);
	return yes;
}
