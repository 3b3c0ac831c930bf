/* stop_at_rename.c — an LD_PRELOAD shim for tests/test_output.c: the process
 * stops itself (SIGSTOP) just before renaming a finished temporary output. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *);
	*(void **)&real = dlsym(RTLD_NEXT, "rename");
	/* The library's temporary outputs are named ".NAME.usmp-XXXXXX". */
	if (strstr(from, ".usmp-"))
		raise(SIGSTOP);
	return real ? real(from, to) : -1;
}
