/* test_layout.c — pins the ABI: sizeof and offsetof of every boundary type on
 * LP64, and every enum value. A failure here means the ABI changed: see docs/abi.md. */
#include <criterion/criterion.h>
#include <stddef.h>

#include <usmp/plugin.h>
#include <usmp/usmp.h>

Test(layout, usmp_pool_rec_is_pinned)
{
	cr_assert_eq(sizeof(usmp_pool_rec), 24);
	cr_assert_eq(offsetof(usmp_pool_rec, name), 0);
	cr_assert_eq(offsetof(usmp_pool_rec, size_limit), 8);
	cr_assert_eq(offsetof(usmp_pool_rec, alignment), 16);
}

Test(layout, usmp_buffer_rec_is_pinned)
{
	cr_assert_eq(sizeof(usmp_buffer_rec), 72);
	cr_assert_eq(offsetof(usmp_buffer_rec, name), 0);
	cr_assert_eq(offsetof(usmp_buffer_rec, size), 8);
	cr_assert_eq(offsetof(usmp_buffer_rec, alignment), 16);
	cr_assert_eq(offsetof(usmp_buffer_rec, begin), 24);
	cr_assert_eq(offsetof(usmp_buffer_rec, end), 32);
	cr_assert_eq(offsetof(usmp_buffer_rec, flags), 40);
	cr_assert_eq(offsetof(usmp_buffer_rec, candidate_count), 44);
	cr_assert_eq(offsetof(usmp_buffer_rec, candidate_start), 48);
	cr_assert_eq(offsetof(usmp_buffer_rec, fixed_pool), 56);
	cr_assert_eq(offsetof(usmp_buffer_rec, reserved), 60);
	cr_assert_eq(offsetof(usmp_buffer_rec, fixed_offset), 64);
}

Test(layout, usmp_overlap_rec_is_pinned)
{
	cr_assert_eq(sizeof(usmp_overlap_rec), 16);
	cr_assert_eq(offsetof(usmp_overlap_rec, src), 0);
	cr_assert_eq(offsetof(usmp_overlap_rec, dst), 4);
	cr_assert_eq(offsetof(usmp_overlap_rec, max_lead), 8);
}

Test(layout, usmp_placement_is_pinned)
{
	cr_assert_eq(sizeof(usmp_placement), 16);
	cr_assert_eq(offsetof(usmp_placement, pool), 0);
	cr_assert_eq(offsetof(usmp_placement, reserved), 4);
	cr_assert_eq(offsetof(usmp_placement, offset), 8);
}

Test(layout, usmp_view_is_pinned)
{
	cr_assert_eq(sizeof(usmp_view), 104);
	cr_assert_eq(offsetof(usmp_view, struct_size), 0);
	cr_assert_eq(offsetof(usmp_view, flags), 4);
	cr_assert_eq(offsetof(usmp_view, pool_count), 8);
	cr_assert_eq(offsetof(usmp_view, buffer_count), 12);
	cr_assert_eq(offsetof(usmp_view, pools), 16);
	cr_assert_eq(offsetof(usmp_view, buffers), 24);
	cr_assert_eq(offsetof(usmp_view, candidates), 32);
	cr_assert_eq(offsetof(usmp_view, conflict_start), 40);
	cr_assert_eq(offsetof(usmp_view, conflict_adj), 48);
	cr_assert_eq(offsetof(usmp_view, degree), 56);
	cr_assert_eq(offsetof(usmp_view, overlaps), 64);
	cr_assert_eq(offsetof(usmp_view, overlap_count), 72);
	cr_assert_eq(offsetof(usmp_view, lower_bound), 80);
	cr_assert_eq(offsetof(usmp_view, target), 88);
	cr_assert_eq(offsetof(usmp_view, time_limit), 96);
}

Test(layout, usmp_host_is_pinned)
{
	cr_assert_eq(sizeof(usmp_host), 80);
	cr_assert_eq(offsetof(usmp_host, struct_size), 0);
	cr_assert_eq(offsetof(usmp_host, reserved), 4);
	cr_assert_eq(offsetof(usmp_host, host_data), 8);
	cr_assert_eq(offsetof(usmp_host, log), 16);
	cr_assert_eq(offsetof(usmp_host, should_stop), 24);
	cr_assert_eq(offsetof(usmp_host, progress), 32);
	cr_assert_eq(offsetof(usmp_host, alloc), 40);
	cr_assert_eq(offsetof(usmp_host, realloc), 48);
	cr_assert_eq(offsetof(usmp_host, free), 56);
	cr_assert_eq(offsetof(usmp_host, for_each_neighbor), 64);
	cr_assert_eq(offsetof(usmp_host, report_bound), 72);
}

Test(layout, usmp_algorithm_is_pinned)
{
	cr_assert_eq(sizeof(usmp_algorithm), 56);
	cr_assert_eq(offsetof(usmp_algorithm, struct_size), 0);
	cr_assert_eq(offsetof(usmp_algorithm, caps), 4);
	cr_assert_eq(offsetof(usmp_algorithm, name), 8);
	cr_assert_eq(offsetof(usmp_algorithm, summary), 16);
	cr_assert_eq(offsetof(usmp_algorithm, params), 24);
	cr_assert_eq(offsetof(usmp_algorithm, fn), 32);
	cr_assert_eq(offsetof(usmp_algorithm, param_help), 40);
	cr_assert_eq(offsetof(usmp_algorithm, cost), 48); /* ABI 1.2 */
}

Test(layout, usmp_plugin_is_pinned)
{
	cr_assert_eq(sizeof(usmp_plugin), 48);
	cr_assert_eq(offsetof(usmp_plugin, struct_size), 0);
	cr_assert_eq(offsetof(usmp_plugin, abi_major), 4);
	cr_assert_eq(offsetof(usmp_plugin, abi_minor), 6);
	cr_assert_eq(offsetof(usmp_plugin, name), 8);
	cr_assert_eq(offsetof(usmp_plugin, version), 16);
	cr_assert_eq(offsetof(usmp_plugin, license), 24);
	cr_assert_eq(offsetof(usmp_plugin, algorithm_count), 32);
	cr_assert_eq(offsetof(usmp_plugin, reserved), 36);
	cr_assert_eq(offsetof(usmp_plugin, algorithms), 40);
}

Test(layout, usmp_registry_options_is_pinned)
{
	cr_assert_eq(sizeof(usmp_registry_options), 16);
	cr_assert_eq(offsetof(usmp_registry_options, struct_size), 0);
	cr_assert_eq(offsetof(usmp_registry_options, flags), 4);
	cr_assert_eq(offsetof(usmp_registry_options, plugin_path), 8);
}

Test(layout, usmp_plugin_info_is_pinned)
{
	cr_assert_eq(sizeof(usmp_plugin_info), 48);
	cr_assert_eq(offsetof(usmp_plugin_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_plugin_info, abi_major), 4);
	cr_assert_eq(offsetof(usmp_plugin_info, abi_minor), 8);
	cr_assert_eq(offsetof(usmp_plugin_info, algorithm_count), 12);
	cr_assert_eq(offsetof(usmp_plugin_info, name), 16);
	cr_assert_eq(offsetof(usmp_plugin_info, version), 24);
	cr_assert_eq(offsetof(usmp_plugin_info, license), 32);
	cr_assert_eq(offsetof(usmp_plugin_info, path), 40);
}

Test(layout, usmp_algorithm_info_is_pinned)
{
	cr_assert_eq(sizeof(usmp_algorithm_info), 40);
	cr_assert_eq(offsetof(usmp_algorithm_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_algorithm_info, caps), 4);
	cr_assert_eq(offsetof(usmp_algorithm_info, plugin), 8);
	cr_assert_eq(offsetof(usmp_algorithm_info, param_count), 12);
	cr_assert_eq(offsetof(usmp_algorithm_info, name), 16);
	cr_assert_eq(offsetof(usmp_algorithm_info, summary), 24);
	cr_assert_eq(offsetof(usmp_algorithm_info, params), 32);
}

Test(layout, usmp_pool_info_and_buffer_info_are_pinned) /* ABI 1.3 */
{
	cr_assert_eq(sizeof(usmp_pool_info), 32);
	cr_assert_eq(offsetof(usmp_pool_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_pool_info, target_count), 4);
	cr_assert_eq(offsetof(usmp_pool_info, name), 8);
	cr_assert_eq(offsetof(usmp_pool_info, size_limit), 16);
	cr_assert_eq(offsetof(usmp_pool_info, alignment), 24);
	cr_assert_eq(sizeof(usmp_buffer_info), 64);
	cr_assert_eq(offsetof(usmp_buffer_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_buffer_info, live), 4);
	cr_assert_eq(offsetof(usmp_buffer_info, name), 8);
	cr_assert_eq(offsetof(usmp_buffer_info, size), 16);
	cr_assert_eq(offsetof(usmp_buffer_info, alignment), 24);
	cr_assert_eq(offsetof(usmp_buffer_info, begin), 32);
	cr_assert_eq(offsetof(usmp_buffer_info, end), 40);
	cr_assert_eq(offsetof(usmp_buffer_info, candidate_count), 48);
	cr_assert_eq(offsetof(usmp_buffer_info, fixed_pool), 52);
	cr_assert_eq(offsetof(usmp_buffer_info, fixed_offset), 56);
}

Test(layout, usmp_member_info_is_pinned)
{
	cr_assert_eq(sizeof(usmp_member_info), 40);
	cr_assert_eq(offsetof(usmp_member_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_member_info, role), 4);
	cr_assert_eq(offsetof(usmp_member_info, algorithm), 8);
	cr_assert_eq(offsetof(usmp_member_info, shapes), 12);
	cr_assert_eq(offsetof(usmp_member_info, name), 16);
	cr_assert_eq(offsetof(usmp_member_info, knobs), 24);
	cr_assert_eq(offsetof(usmp_member_info, cost), 32);
	cr_assert_eq(USMP_MEMBER_FIRST, 1);
	cr_assert_eq(USMP_MEMBER_HEURISTIC, 2);
	cr_assert_eq(USMP_MEMBER_SEARCH, 3);
	cr_assert_eq(USMP_MEMBER_VOLUNTEER, 4);
	cr_assert_eq(USMP_SHAPE_FEW, 1);
	cr_assert_eq(USMP_SHAPE_MANY, 2);
	cr_assert_eq(USMP_SHAPE_WIDE, 4);
}

Test(layout, usmp_param_info_is_pinned)
{
	cr_assert_eq(sizeof(usmp_param_info), 32);
	cr_assert_eq(offsetof(usmp_param_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_param_info, type), 4);
	cr_assert_eq(offsetof(usmp_param_info, name), 8);
	cr_assert_eq(offsetof(usmp_param_info, default_value), 16);
	cr_assert_eq(offsetof(usmp_param_info, help), 24);
}

Test(layout, usmp_selection_is_pinned)
{
	cr_assert_eq(sizeof(usmp_selection), 32);
	cr_assert_eq(offsetof(usmp_selection, struct_size), 0);
	cr_assert_eq(offsetof(usmp_selection, source), 4);
	cr_assert_eq(offsetof(usmp_selection, algorithm), 8);
	cr_assert_eq(offsetof(usmp_selection, params), 16);
	cr_assert_eq(offsetof(usmp_selection, rule), 24);
}

Test(layout, usmp_plan_options_is_pinned)
{
	cr_assert_eq(sizeof(usmp_plan_options), 64);
	cr_assert_eq(offsetof(usmp_plan_options, struct_size), 0);
	cr_assert_eq(offsetof(usmp_plan_options, flags), 4);
	cr_assert_eq(offsetof(usmp_plan_options, algorithm), 8);
	cr_assert_eq(offsetof(usmp_plan_options, params), 16);
	cr_assert_eq(offsetof(usmp_plan_options, param_count), 24);
	cr_assert_eq(offsetof(usmp_plan_options, reserved), 28);
	cr_assert_eq(offsetof(usmp_plan_options, target), 32);
	cr_assert_eq(offsetof(usmp_plan_options, time_limit), 40);
	cr_assert_eq(offsetof(usmp_plan_options, cancel), 48);
	cr_assert_eq(offsetof(usmp_plan_options, log_ctx), 56);
}

Test(layout, usmp_part_info_is_pinned)
{
	cr_assert_eq(sizeof(usmp_part_info), 144);
	cr_assert_eq(offsetof(usmp_part_info, struct_size), 0);
	cr_assert_eq(offsetof(usmp_part_info, buffer_count), 4);
	cr_assert_eq(offsetof(usmp_part_info, optimal), 8);
	cr_assert_eq(offsetof(usmp_part_info, group), 12);
	cr_assert_eq(offsetof(usmp_part_info, target), 16);
	cr_assert_eq(offsetof(usmp_part_info, algorithm), 24);
	cr_assert_eq(offsetof(usmp_part_info, params), 32);
	cr_assert_eq(offsetof(usmp_part_info, size), 40);
	cr_assert_eq(offsetof(usmp_part_info, lower_bound), 48);
	cr_assert_eq(offsetof(usmp_part_info, proven_bound), 56);
	cr_assert_eq(offsetof(usmp_part_info, time_ms), 64);
	cr_assert_eq(offsetof(usmp_part_info, rule), 72);
	cr_assert_eq(offsetof(usmp_part_info, source), 80);
	cr_assert_eq(offsetof(usmp_part_info, reserved), 84);
	cr_assert_eq(offsetof(usmp_part_info, spill), 88);
	cr_assert_eq(offsetof(usmp_part_info, spill_count), 96);
	cr_assert_eq(offsetof(usmp_part_info, spill_largest), 100);
	cr_assert_eq(offsetof(usmp_part_info, spill_forced), 104);
	cr_assert_eq(offsetof(usmp_part_info, rules_as_conflicts), 112);
	cr_assert_eq(offsetof(usmp_part_info, overrun_by), 120);
	cr_assert_eq(offsetof(usmp_part_info, overrun_cause), 128);
	cr_assert_eq(offsetof(usmp_part_info, reserved2), 132);
	cr_assert_eq(offsetof(usmp_part_info, spill_floor), 136);
}

Test(layout, usmp_diagnostic_kind_is_pinned)
{
	cr_assert_eq(USMP_DIAG_OTHER, 0);
	cr_assert_eq(USMP_DIAG_PLUGIN_SKIPPED, 1);
	cr_assert_eq(USMP_DIAG_ALGORITHM_SKIPPED, 2);
	cr_assert_eq(USMP_DIAG_SHADOWED, 3);
}

Test(layout, status_codes_are_pinned)
{
	cr_assert_eq(USMP_OK, 0);
	cr_assert_eq(USMP_ERR_INVALID, 1);
	cr_assert_eq(USMP_ERR_INFEASIBLE, 2);
	cr_assert_eq(USMP_ERR_PLUGIN, 3);
	cr_assert_eq(USMP_ERR_NOT_FOUND, 4);
	cr_assert_eq(USMP_ERR_NOMEM, 5);
	cr_assert_eq(USMP_ERR_IO, 6);
	cr_assert_eq(USMP_ERR_STOPPED, 7);
	cr_assert_eq(USMP_ERR_UNSUPPORTED, 8);
	cr_assert_eq(USMP_ERR_INVALID_PLAN, 9);
	cr_assert_eq(USMP_ERR_INTERNAL, 10);
}

Test(layout, capability_flags_are_pinned)
{
	cr_assert_eq(USMP_CAP_MULTI_POOL, 1);
	cr_assert_eq(USMP_CAP_OVERLAP_RULES, 2);
	cr_assert_eq(USMP_CAP_FIXED_OFFSETS, 4);
	cr_assert_eq(USMP_CAP_EXACT, 8);
	cr_assert_eq(USMP_CAP_DETERMINISTIC, 16);
	cr_assert_eq(USMP_CAP_ANYTIME, 32);
	cr_assert_eq(USMP_CAP_EXPLICIT_CONFLICTS, 64);
	cr_assert_eq(USMP_CAP_PORTFOLIO, 128);
}

Test(layout, param_types_log_levels_and_flags_are_pinned)
{
	cr_assert_eq(USMP_PARAM_BOOL, 1);
	cr_assert_eq(USMP_PARAM_I32, 2);
	cr_assert_eq(USMP_PARAM_U32, 3);
	cr_assert_eq(USMP_PARAM_I64, 4);
	cr_assert_eq(USMP_PARAM_U64, 5);
	cr_assert_eq(USMP_PARAM_F64, 6);
	cr_assert_eq(USMP_PARAM_STR, 7);
	cr_assert_eq(USMP_LOG_ERROR, 0);
	cr_assert_eq(USMP_LOG_WARN, 1);
	cr_assert_eq(USMP_LOG_INFO, 2);
	cr_assert_eq(USMP_LOG_DEBUG, 3);
	cr_assert_eq(USMP_BUFFER_LIVE, 1);
	cr_assert_eq(USMP_BUFFER_FIXED, 2);
	cr_assert_eq(USMP_FORMAT_AUTO, 0);
	cr_assert_eq(USMP_FORMAT_JSON, 1);
	cr_assert_eq(USMP_FORMAT_CSV, 2);
	cr_assert_eq(USMP_REGISTRY_NO_ENV, 1);
	cr_assert_eq(USMP_REGISTRY_NO_DEFAULT_DIRS, 2);
	cr_assert_eq(USMP_REGISTRY_SCAN_ALL, 4);
	cr_assert_eq(USMP_REGISTRY_NO_SCAN, 8);
	cr_assert_eq(USMP_PLAN_ISOLATE, 1);
	cr_assert_eq(USMP_PLAN_NO_ISOLATE, 2);
	cr_assert_eq(USMP_SOURCE_API, 1);
	cr_assert_eq(USMP_SOURCE_OPTIONS, 2);
	cr_assert_eq(USMP_SOURCE_ENV, 3);
	cr_assert_eq(USMP_SOURCE_DEFAULT, 4);
	cr_assert_eq(USMP_UNBOUNDED, UINT64_MAX);
	cr_assert_eq(USMP_NO_POOL, UINT32_MAX);
}

Test(layout, abi_version_macros_match_the_library)
{
	uint32_t major = 0, minor = 0;
	usmp_abi_version(&major, &minor);
	cr_assert_eq(major, USMP_ABI_MAJOR);
	cr_assert_eq(minor, USMP_ABI_MINOR);
	cr_assert_eq(USMP_ABI_MAJOR, 1);
	cr_assert_eq(USMP_ABI_MINOR, 3);
}

Test(layout, abi_1_0_algorithm_descriptor_ends_before_param_help)
{
	/* A 1.0 plugin's usmp_algorithm has struct_size 40: USMP_HAS_FIELD
	 * must say param_help is absent, and present at today's size. */
	usmp_algorithm old = {.struct_size = offsetof(usmp_algorithm, param_help)};
	usmp_algorithm now = {.struct_size = sizeof(usmp_algorithm)};
	cr_assert_eq(old.struct_size, 40);
	cr_assert(!USMP_HAS_FIELD(&old, usmp_algorithm, param_help));
	cr_assert(USMP_HAS_FIELD(&now, usmp_algorithm, param_help));
	cr_assert(USMP_HAS_FIELD(&old, usmp_algorithm, fn));
}

Test(layout, abi_1_1_algorithm_descriptor_ends_before_cost)
{
	/* A 1.1 plugin's usmp_algorithm has struct_size 48: the host must not
	 * read cost (ABI 1.2) from it. */
	usmp_algorithm old = {.struct_size = offsetof(usmp_algorithm, cost)};
	usmp_algorithm now = {.struct_size = sizeof(usmp_algorithm)};
	cr_assert_eq(old.struct_size, 48);
	cr_assert(!USMP_HAS_FIELD(&old, usmp_algorithm, cost));
	cr_assert(USMP_HAS_FIELD(&old, usmp_algorithm, param_help));
	cr_assert(USMP_HAS_FIELD(&now, usmp_algorithm, cost));
}
