/* noisy.c — the red team 11 fixture plugin: algorithms that write to the
 * standard output the plan may go to, directly or from a process they fork. */
#include <usmp/plugin.h>

#include "../fixture_stack.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A plan file of its own making, then a valid plan: printed with stdio
 * (left in the buffer) and written to the descriptor. */
static const char fake[] = "{\"usmp\": 1, \"algorithm\": \"forged\"}\n";

static int rt11_stdout(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out)
{
	(void)h;
	fputs("stdio junk\n", stdout);
	if (write(STDOUT_FILENO, fake, sizeof fake - 1) < 0)
		return 10;
	return fx_stack(v, out, NULL);
}

/* Forks a process that leaves the call's process group (setsid), waits
 * until the process that called the algorithm has ended, then writes to
 * the standard output it inherited; returns a valid plan at once. */
static int rt11_fork(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out)
{
	(void)h;
	pid_t caller = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return 10;
	if (pid == 0) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		setsid();
		/* At most 20 s, then write whatever. */
		for (int i = 0; i < 4000 && kill(caller, 0) == 0; i++)
			nanosleep(&ts, NULL);
		if (write(STDOUT_FILENO, fake, sizeof fake - 1) < 0)
			_exit(1);
		_exit(0);
	}
	return fx_stack(v, out, NULL);
}

/* Writes a forged plan to stdout, then places every buffer at an offset
 * past 2^63 (the verifier refuses it: past any limit, or overflowing). */
static int rt11_forge_invalid(const usmp_view *v, const usmp_host *h,
                              usmp_placement *out)
{
	(void)h;
	if (write(STDOUT_FILENO, fake, sizeof fake - 1) < 0)
		return 10;
	fx_stack(v, out, NULL);
	for (uint32_t b = 0; b < v->buffer_count; b++)
		out[b].offset = UINT64_MAX - 7;
	return 0;
}

#define FN(f) ((usmp_algorithm_fn)(f))
static const usmp_algorithm a_stdout = {
	sizeof(usmp_algorithm), 0, "rt11_stdout",
	"writes a plan of its own to stdout, then stacks buffers", "",
	FN(rt11_stdout), NULL, 0};
static const usmp_algorithm a_fork = {
	sizeof(usmp_algorithm), 0, "rt11_fork",
	"forks a process that writes to stdout once the caller is gone", "",
	FN(rt11_fork), NULL, 0};
static const usmp_algorithm a_forge_invalid = {
	sizeof(usmp_algorithm), 0, "rt11_forge_invalid",
	"writes a plan to stdout, returns placements past 2^63", "",
	FN(rt11_forge_invalid), NULL, 0};
static const usmp_algorithm *const algos[] = {&a_stdout, &a_fork,
                                              &a_forge_invalid};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("noisy", "1.0", "MIT", algos);
