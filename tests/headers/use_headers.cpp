// use_headers.cpp — the public headers compiled as C++11 and C++17 with
// -pedantic -Werror, -Wold-style-cast and -Wzero-as-null-pointer-constant:
// C++ compilers (TVM, MLIR-based toolchains) include them directly.
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
static const usmp_algorithm cxx_plain_desc = USMP_ALGORITHM_INIT_COST(
	cxx_plain, "cxx_plain", USMP_CAP_PORTFOLIO, "no knobs, volunteers", 2.5);

// A C++ plugin's descriptor: positional, since C++ before C++20 has no
// designated initializers and C++20 allows none after USMP_PLUGIN_HEADER.
static const usmp_algorithm *const cxx_algos[] = {&cxx_desc, &cxx_plain_desc};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("cxx_plugin", "1.0", "MIT", cxx_algos);

// A dlopen() host's table of entry points, as docs/hosts.md spells it for
// C++: decltype(&::fn), qualified. GCC refuses decltype(&fn) fn; in a class
// ("declaration changes meaning of 'usmp_version'"), clang accepts it.
struct usmp_api {
#define USMP_API_FIELD(fn) decltype(&::fn) fn;
	USMP_FUNCTIONS_1_2(USMP_API_FIELD)
	USMP_FUNCTIONS_1_3(USMP_API_FIELD)
#undef USMP_API_FIELD
};

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
	std::printf("1..7\n");
	bad |= ok(1, USMP_HAS_FIELD(&a, usmp_algorithm, param_help), "USMP_HAS_FIELD in C++");
	bad |= ok(2, usmp_align_up(13, 8, &fine) == 16 && fine, "inline helpers in C++");
	bad |= ok(3, !std::strcmp(cxx_desc.params, "flag:bool=true gap:u64=18446744073709551615 order:str=size") &&
	                 !std::strcmp(cxx_plain_desc.params, ""),
	          "USMP_ALGORITHM_DECLARE signature in C++");
	bad |= ok(4, !std::strcmp(cxx_desc.param_help, "flag: a bool\ngap: a u64\norder: a str") &&
	                 cxx_desc.fn == reinterpret_cast<usmp_algorithm_fn>(cxx_algo) &&
	                 !std::strcmp(cxx_plain_desc.param_help, ""),
	          "USMP_ALGORITHM_INIT descriptor in C++");
	bad |= ok(5, usmp_plugin_v1.struct_size == sizeof(usmp_plugin) &&
	                 usmp_plugin_v1.abi_major == USMP_ABI_MAJOR &&
	                 usmp_plugin_v1.algorithm_count == 2 &&
	                 usmp_plugin_v1.algorithms[1] == &cxx_plain_desc &&
	                 cxx_plain_desc.cost == 2.5 &&
	                 !std::strcmp(usmp_plugin_v1.name, "cxx_plugin"),
	          "USMP_PLUGIN_INIT and USMP_ALGORITHM_INIT_COST in C++");
	// The host API from C++: builder calls, options value-initialised.
	usmp_problem *p = usmp_problem_create();
	uint32_t sram = 0, dram = 0, b = 0;
	usmp_plan_options o{};
	o.struct_size = sizeof o;
	bool host = p && !usmp_problem_add_pool(p, "sram", 1024, 16, &sram) &&
	            !usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram) &&
	            !usmp_problem_add_buffer(p, "x", 64, 0, &b) &&
	            !usmp_problem_add_candidate(p, b, sram) &&
	            !usmp_problem_add_candidate(p, b, dram) &&
	            !usmp_problem_set_fixed(p, b, dram, 128) &&
	            !std::strcmp(usmp_problem_pool_name(p, dram), "dram") &&
	            o.algorithm == nullptr;
	usmp_buffer_info bi{};
	bi.struct_size = sizeof bi;
	uint32_t cand = USMP_NO_POOL;
	host = host && !usmp_problem_buffer_info(p, b, &bi) &&
	       bi.fixed_pool == dram && bi.fixed_offset == 128 &&
	       bi.candidate_count == 2 &&
	       !usmp_problem_buffer_candidate(p, b, 1, &cand) && cand == dram;
	usmp_problem_destroy(p);
	bad |= ok(6, host, "the host API's builder and read calls from C++");
	// Filled from the linked library here; a dlopen() host uses dlsym.
	usmp_api api{};
#define USMP_API_SET(fn) api.fn = &::fn;
	USMP_FUNCTIONS_1_2(USMP_API_SET)
	USMP_FUNCTIONS_1_3(USMP_API_SET)
#undef USMP_API_SET
	uint32_t major = 0, minor = 0;
	api.usmp_abi_version(&major, &minor);
	bad |= ok(7, major == USMP_ABI_MAJOR && minor == USMP_ABI_MINOR &&
	                 !std::strcmp(api.usmp_status_name(USMP_ERR_INFEASIBLE), "infeasible"),
	          "a table of entry points typed with decltype(&::fn) in C++");
	return bad;
}
