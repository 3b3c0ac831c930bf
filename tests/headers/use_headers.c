/* use_headers.c — the public headers on their own, compiled as C99 and C11
 * with -pedantic -Werror: a host or plugin in any of these modes can use them.
 * Prints TAP so the check counts as test cases. */
#include <usmp/usmp.h>
#include <usmp/plugin.h>
#include <usmp/common.h>
#include <stdio.h>

static int ok(int n, int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n, what);
	return !cond;
}

int main(void)
{
	usmp_algorithm a = {0};
	a.struct_size = sizeof a;
	int bad = 0;
	printf("1..3\n");
	bad |= ok(1, USMP_ABI_MAJOR == 1, "ABI major is 1");
	bad |= ok(2, USMP_HAS_FIELD(&a, usmp_algorithm, param_help),
	          "USMP_HAS_FIELD works in this language mode");
	bad |= ok(3, usmp_align_up(13, 8, &(bool){true}) == 16,
	          "inline helpers compile and work");
	return bad;
}
