/* child.c — the forked helper processes (isolated calls, the plugin scanner):
 * they die with their parent, run in their own process group, and are reaped with it. */
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Held around usmp's calls into the dynamic loader and its forks: a child
 * forked while another thread is inside dlopen() inherits the loader half
 * way through (its own dlopen() then aborts or waits for ever). A forked
 * child has one thread and never takes it. */
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static bool forked_child;

void usmp__loader_lock(void)
{
	if (!forked_child)
		pthread_mutex_lock(&loader_lock);
}

void usmp__loader_unlock(void)
{
	if (!forked_child)
		pthread_mutex_unlock(&loader_lock);
}

pid_t usmp__child_fork(const char *name)
{
	pid_t parent = getpid();
	pid_t pid;

	fflush(NULL); /* nothing buffered is written twice */
	usmp__loader_lock();
	pid = fork();
	if (pid != 0)
		usmp__loader_unlock();
	if (pid < 0)
		return pid;
	if (pid > 0) {
		/* Both sides set the group, so it exists whichever runs first;
		 * the child may already have left it (EACCES, ESRCH): fine. */
		setpgid(pid, pid);
		return pid;
	}
	forked_child = true;
	/* Killed when the thread that forked it dies. If the parent died
	 * before this line, nobody would send that signal: leave now. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
	/* Its own group: a terminal's ^C reaches the parent, which decides. */
	setpgid(0, 0);
	/* Out of the foreground group, a write to the terminal under `stty
	 * tostop` would stop the child; a read would too. */
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	if (name)
		prctl(PR_SET_NAME, name);
	return 0;
}

bool usmp__child_exited(pid_t pid)
{
	siginfo_t info;

	info.si_pid = 0;
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno != EINTR; /* ECHILD: reaped behind our back */
	return info.si_pid == pid;
}

bool usmp__child_wait(pid_t pid, double until)
{
	/* Polled, from 20 us up to 2 ms apart: a child that ends at once is
	 * seen at once, a long one costs little. */
	long ns = 20 * 1000;

	while (!usmp__child_exited(pid)) {
		if (usmp__now() >= until)
			return false;
		struct timespec ts = {0, ns};
		nanosleep(&ts, NULL);
		if (ns < 2 * 1000 * 1000)
			ns *= 2;
	}
	return true;
}

int usmp__child_reap(pid_t pid)
{
	int wstatus = 0;
	pid_t w;

	/* Until it is reaped the child's pid names its group, whose other
	 * members (anything the child forked) die with it. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL); /* in case it left its group */
	do
		w = waitpid(pid, &wstatus, 0);
	while (w < 0 && errno == EINTR);
	return w == pid ? wstatus : -1;
}
