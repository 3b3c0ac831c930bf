/* stdout_aside.c — standard output kept for what the command itself prints
 * while plugin code runs: a plugin's (or its children's) writes go to stderr. */
#include "cli.h"

#include <fcntl.h>
#include <unistd.h>

/* The command's standard output while it is set aside, or -1; whether a
 * write of the command's own to it had failed before (main reports it). */
static int kept = -1;
static int failed_before;

void cli_stdout_aside(void)
{
	if (kept >= 0)
		return;
	failed_before = fflush(stdout) != 0 || ferror(stdout);
	kept = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (kept < 0)
		return; /* no descriptor to spare: nothing set aside */
	/* stderr, or nowhere when there is none */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
			if (null >= 0)
				close(null);
			close(kept);
			kept = -1;
			return;
		}
		close(null);
	}
}

void cli_stdout_back(void)
{
	if (kept < 0)
		return;
	/* What plugin code left in stdio's buffer goes where it wrote; a
	 * failure of that write is not the command's. */
	fflush(stdout);
	if (!failed_before)
		clearerr(stdout);
	dup2(kept, STDOUT_FILENO);
	close(kept);
	kept = -1;
}
