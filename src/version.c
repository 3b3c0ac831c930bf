/* version.c — the library's release and ABI versions and the names of the
 * status codes. */
#include "util.h"

#include "config.h"

const char *usmp_version(void)
{
	return USMP_VERSION;
}

void usmp_abi_version(uint32_t *major, uint32_t *minor)
{
	if (major)
		*major = USMP_ABI_MAJOR;
	if (minor)
		*minor = USMP_ABI_MINOR;
}

const char *usmp_status_name(int status)
{
	switch (status) {
	case USMP_OK:
		return "ok";
	case USMP_ERR_INVALID:
		return "invalid";
	case USMP_ERR_INFEASIBLE:
		return "infeasible";
	case USMP_ERR_PLUGIN:
		return "plugin failure";
	case USMP_ERR_NOT_FOUND:
		return "not found";
	case USMP_ERR_NOMEM:
		return "out of memory";
	case USMP_ERR_IO:
		return "i/o error";
	case USMP_ERR_STOPPED:
		return "stopped";
	case USMP_ERR_UNSUPPORTED:
		return "unsupported";
	case USMP_ERR_INVALID_PLAN:
		return "invalid plan";
	case USMP_ERR_INTERNAL:
		return "internal error";
	default:
		return "unknown status";
	}
}
