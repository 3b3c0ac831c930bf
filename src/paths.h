/* paths.h — where this copy of libusmp finds the plugins shipped with it
 * (src/paths.c). Never installed. */
#ifndef USMP_PATHS_H
#define USMP_PATHS_H

#include <stdbool.h>

/* The shipped plugin directory: USMP_PLUGIN_SUBDIR ("usmp-1") in the
 * directory of the file that holds libusmp (the shared library, or the
 * executable that links it statically), symlinks resolved. Worked out, and
 * its device and inode read, once per process; NULL when it cannot be. */
const char *usmp__plugindir(void);

/* True when the file `path` lies directly in the shipped plugin directory,
 * judged by device and inode, so a symlinked or moved install still counts. */
bool usmp__in_plugindir(const char *path);

#endif
