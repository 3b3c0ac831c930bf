// use_headers.cpp — the public headers compiled as C++17 with -pedantic
// -Werror: C++ compilers (TVM, MLIR-based toolchains) include them directly.
#include <usmp/usmp.h>
#include <usmp/plugin.h>
#include <cstdio>
#include <cstring>

// The declaration macros in C++: knobs of three types and none.
#define CXX_KNOBS(X)                                                           \
	X(bool, flag, true, "a bool")                                              \
	X(u64, gap, 18446744073709551615, "a u64")                                 \
	X(str, order, size, "a str")
USMP_ALGORITHM_DECLARE(cxx_algo, CXX_KNOBS);
USMP_ALGORITHM_DECLARE(cxx_plain, USMP_NO_KNOBS);

static int cxx_algo(const usmp_view *, const usmp_host *, usmp_placement *,
                    bool flag, uint64_t gap, const char *order)
{
	return flag && gap && order ? USMP_OK : USMP_ERR_INVALID;
}
static int cxx_plain(const usmp_view *, const usmp_host *, usmp_placement *)
{
	return USMP_OK;
}
static const usmp_algorithm cxx_desc = USMP_ALGORITHM_INIT(
	cxx_algo, "cxx_algo", USMP_CAP_DETERMINISTIC, "from C++");
static const usmp_algorithm cxx_plain_desc = USMP_ALGORITHM_INIT(
	cxx_plain, "cxx_plain", 0, "no knobs");

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
	std::printf("1..4\n");
	bad |= ok(1, USMP_HAS_FIELD(&a, usmp_algorithm, param_help), "USMP_HAS_FIELD in C++");
	bad |= ok(2, usmp_align_up(13, 8, &fine) == 16 && fine, "inline helpers in C++");
	bad |= ok(3, !std::strcmp(cxx_desc.params, "flag:bool=true gap:u64=18446744073709551615 order:str=size") &&
	                 !std::strcmp(cxx_plain_desc.params, ""),
	          "USMP_ALGORITHM_DECLARE signature in C++");
	bad |= ok(4, !std::strcmp(cxx_desc.param_help, "flag: a bool\ngap: a u64\norder: a str") &&
	                 cxx_desc.fn == reinterpret_cast<usmp_algorithm_fn>(cxx_algo) &&
	                 !std::strcmp(cxx_plain_desc.param_help, ""),
	          "USMP_ALGORITHM_INIT descriptor in C++");
	return bad;
}
