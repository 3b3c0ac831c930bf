/* abi_types.c — a shared object whose one exported function names every type
 * that crosses the plugin boundary, so `abidw` records the plugin-side ABI
 * (usmp_view, usmp_host, usmp_placement, ...) that no libusmp symbol reaches. */
#include <usmp/plugin.h>

__attribute__((visibility("default"))) int
usmp_abi_types(const usmp_view *view, const usmp_host *host,
               usmp_placement *out, const usmp_plugin *plugin,
               const usmp_algorithm *algorithm, const usmp_pool_rec *pool,
               const usmp_buffer_rec *buffer, const usmp_overlap_rec *overlap,
               enum usmp_status status, enum usmp_capability cap,
               enum usmp_param_type type, enum usmp_log_level level,
               enum usmp_buffer_flag flag);

int usmp_abi_types(const usmp_view *view, const usmp_host *host,
                   usmp_placement *out, const usmp_plugin *plugin,
                   const usmp_algorithm *algorithm, const usmp_pool_rec *pool,
                   const usmp_buffer_rec *buffer, const usmp_overlap_rec *overlap,
                   enum usmp_status status, enum usmp_capability cap,
                   enum usmp_param_type type, enum usmp_log_level level,
                   enum usmp_buffer_flag flag)
{
	return (view != 0) + (host != 0) + (out != 0) + (plugin != 0) +
	       (algorithm != 0) + (pool != 0) + (buffer != 0) + (overlap != 0) +
	       (int)status + (int)cap + (int)type + (int)level + (int)flag;
}
