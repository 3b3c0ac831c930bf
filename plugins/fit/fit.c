/* placeholder */
#include <usmp/plugin.h>
