// use_headers.cpp — the public headers compiled as C++17 with -pedantic
// -Werror: C++ compilers (TVM, MLIR-based toolchains) include them directly.
#include <usmp/usmp.h>
#include <usmp/plugin.h>
#include <cstdio>

static int ok(int n, bool cond, const char *what)
{
	std::printf("%s %d - %s\n", cond ? "ok" : "not ok", n, what);
	return cond ? 0 : 1;
}

int main()
{
	usmp_algorithm a{};
	a.struct_size = sizeof a;
	bool fine = true;
	int bad = 0;
	std::printf("1..2\n");
	bad |= ok(1, USMP_HAS_FIELD(&a, usmp_algorithm, param_help), "USMP_HAS_FIELD in C++");
	bad |= ok(2, usmp_align_up(13, 8, &fine) == 16 && fine, "inline helpers in C++");
	return bad;
}
