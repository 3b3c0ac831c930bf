/* test_install.c — where libusmp finds its shipped plugins (src/paths.c), the
 * trust rule built on it, and the versions `usmp --version` reports. */
#include "registry.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* build_root/rel, symlinks resolved (caller frees). */
static char *resolved(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", test_build_root(), rel);
	char *r = realpath(path, NULL);
	cr_assert_not_null(r, "%s does not exist", path);
	return r;
}

Test(install, plugindir_is_usmp_1_next_to_the_object_holding_libusmp)
{
	/* The suites link libusmp statically: the object is this executable,
	 * build/tests/test_install. */
	const char *dir = usmp__plugindir();
	char *tests = resolved("tests"), want[PATH_MAX + 16];
	cr_assert_not_null(dir);
	snprintf(want, sizeof want, "%s/usmp-%d", tests, USMP_ABI_MAJOR);
	cr_assert_str_eq(dir, want);
	cr_assert_eq(usmp__plugindir(), dir, "worked out once, same answer");
	free(tests);
}

Test(install, build_tree_plugindir_links_to_the_built_plugins)
{
	char *via_tests = resolved("tests/usmp-1"), *via_src = resolved("src/usmp-1");
	char *built = resolved("plugins");
	cr_assert_str_eq(via_tests, built);
	cr_assert_str_eq(via_src, built);
	free(via_tests), free(via_src), free(built);
}

Test(install, plugins_in_the_plugindir_are_recognised_by_inode_not_by_name)
{
	char path[PATH_MAX];
	/* The same file through the link and through the real directory. */
	snprintf(path, sizeof path, "%s/tests/usmp-1/fit.so", test_build_root());
	cr_assert(usmp__in_plugindir(path), "%s", path);
	snprintf(path, sizeof path, "%s/plugins/fit.so", test_build_root());
	cr_assert(usmp__in_plugindir(path), "%s", path);
	/* A prefix of the directory name is not the directory. */
	snprintf(path, sizeof path, "%s/tests/usmp-1x/fit.so", test_build_root());
	cr_assert_not(usmp__in_plugindir(path), "%s", path);
	snprintf(path, sizeof path, "%s/good_v1_1.so", test_fixture_plugindir());
	cr_assert_not(usmp__in_plugindir(path), "%s", path);
	cr_assert_not(usmp__in_plugindir(NULL));
	cr_assert_not(usmp__in_plugindir(""));
	cr_assert_not(usmp__in_plugindir("/fit.so"));
}

Test(install, default_registry_loads_the_shipped_plugins_from_the_plugindir)
{
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_ENV};
	usmp_registry *r = NULL;
	uint32_t idx;
	cr_assert_eq(usmp_registry_create(&o, &r), USMP_OK);
	cr_assert_eq(usmp_registry_find_algorithm(r, "first_fit", &idx), USMP_OK);
	usmp_algorithm_info a = {.struct_size = sizeof a};
	usmp_plugin_info p = {.struct_size = sizeof p};
	cr_assert_eq(usmp_registry_algorithm(r, idx, &a), USMP_OK);
	cr_assert_eq(usmp_registry_plugin(r, a.plugin, &p), USMP_OK);
	cr_assert(strstr(p.path, "/usmp-1/fit.so"), "%s", p.path);
	cr_assert(usmp__in_plugindir(p.path), "%s", p.path);
	usmp_registry_destroy(r);
}

Test(install, cli_version_prints_library_and_plugin_abi_versions)
{
	char cmd[PATH_MAX + 32], want[128], *out = NULL;
	uint32_t major = 0, minor = 0;
	usmp_abi_version(&major, &minor);
	cr_assert_eq(major, USMP_ABI_MAJOR);
	snprintf(want, sizeof want, "usmp %s (plugin ABI %u.%u)\n", usmp_version(),
	         major, minor);
	snprintf(cmd, sizeof cmd, "%s --version", test_cli());
	cr_assert_eq(test_run(cmd, &out), 0, "%s", out);
	cr_assert_str_eq(out, want);
	cr_assert(strchr(usmp_version(), '.'), "%s", usmp_version());
	free(out);
}
